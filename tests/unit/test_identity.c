/*
 * tests/unit/test_identity.c: reconcile/identity.c — which cluster a run
 * talks to: the EKS name a kubeconfig gives, and the inventory's recorded
 * cluster against this one (the pure parts; identity_read and
 * identity_verify run against the real API server in tests/identity.sh).
 */
#include <check.h>
#include <string.h>

#include "reconcile/identity.h"
#include "tests/unit/suites.h"

static const char *eks(const char *ctx, const char *cluster,
		       const char *const *argv)
{
	static struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (identity_eks_name(ctx, cluster, argv, &b, &e) < 0) {
		err_release(&e);
		return "ERROR";
	}
	return buf_cstr(&b);
}

START_TEST(test_eks_name)
{
	const char *get_token[] = { "aws", "--region", "us-west-2", "eks",
			      "get-token", "--cluster-name", "ml-prod", NULL };
	const char *eq[] = { "aws", "eks", "get-token", "--cluster-name=ml-dev",
		       NULL };
	const char *iam[] = { "aws-iam-authenticator", "token", "-i", "ml-prod",
			NULL };
	const char *other[] = { "kubelogin", "get-token", NULL };

	ck_assert_str_eq(eks("testenv", "testenv", NULL), "");
	ck_assert_str_eq(eks("arn:aws:eks:us-west-2:111122223333:cluster/ml-prod",
			     "x", NULL), "ml-prod");
	ck_assert_str_eq(eks("prod", "arn:aws-cn:eks:cn-north-1:1:cluster/a",
			     NULL), "a");
	ck_assert_str_eq(eks("prod", "prod", get_token), "ml-prod");
	ck_assert_str_eq(eks("prod", "prod", eq), "ml-dev");
	ck_assert_str_eq(eks("prod", "prod", iam), "ml-prod");
	ck_assert_str_eq(eks("prod", "prod", other), "");
	/* not an EKS ARN: another service, no cluster/ part */
	ck_assert_str_eq(eks("arn:aws:ecs:us-west-2:1:cluster/ml-prod", "", NULL),
			 "");
	ck_assert_str_eq(eks("arn:aws:eks:us-west-2:1:nodegroup/a/b", "", NULL),
			 "");
	/* the same cluster named twice is fine; two names are an error */
	ck_assert_str_eq(eks("arn:aws:eks:us-west-2:1:cluster/ml-prod", "",
			     get_token), "ml-prod");
	ck_assert_str_eq(eks("arn:aws:eks:us-west-2:1:cluster/ml-dev", "",
			     get_token), "ERROR");
}
END_TEST

START_TEST(test_check_eks)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(identity_check_eks("", "ml-prod", "c", &e), 0);
	ck_assert_int_eq(identity_check_eks("ml-prod", "ml-prod", "c", &e), 0);
	ck_assert_int_eq(identity_check_eks("ml-staging", "ml-prod", "stg", &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_WRONG_CLUSTER);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "'ml-staging'"));
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "'ml-prod'"));
	err_release(&e);
}
END_TEST

/* a parent as read: data filled, the uid annotation when uid is given */
static cJSON *parent(const char *uid)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *md = cJSON_AddObjectToObject(p, "metadata");
	cJSON *a = cJSON_AddObjectToObject(md, "annotations");

	cJSON_AddObjectToObject(p, "data");
	if (uid) {
		cJSON_AddStringToObject(a, IDENTITY_UID_ANNOTATION, uid);
		cJSON_AddStringToObject(a, IDENTITY_SERVER_ANNOTATION,
					"https://old:6443");
	}
	return p;
}

static int check(const cJSON *p, const char *uid, int rebind, int eks_ok,
		 int prune, int rebuild)
{
	struct identity id = { uid, "https://new:6443", rebind, eks_ok, NULL };
	struct err e = ERR_INIT;
	int rc = identity_check(p, "ns/inv", &id, prune, rebuild, &e);

	if (rc < 0)
		ck_assert_int_eq(e.code, ERR_WRONG_CLUSTER);
	err_release(&e);
	return rc;
}

START_TEST(test_check)
{
	cJSON *same = parent("U1"), *old = parent(NULL);
	cJSON *bare = cJSON_CreateObject(); /* created bare, never filled */

	/* no inventory: nothing recorded, nothing to prune */
	ck_assert_int_eq(check(NULL, "U1", 0, 0, 1, 0), 0);
	ck_assert_int_eq(check(bare, "U1", 0, 0, 1, 0), 0);
	/* ... but a rebuild with prune would delete labelled objects */
	ck_assert_int_eq(check(NULL, "U1", 0, 0, 1, 1), -1);
	ck_assert_int_eq(check(NULL, "U1", 0, 1, 1, 1), 0);
	ck_assert_int_eq(check(NULL, "U1", 1, 0, 1, 1), 0);
	ck_assert_int_eq(check(NULL, "U1", 0, 0, 0, 1), 0);
	/* the same cluster, prune or not */
	ck_assert_int_eq(check(same, "U1", 0, 0, 1, 0), 0);
	/* another cluster: refused, prune or not, EKS name or not */
	ck_assert_int_eq(check(same, "U2", 0, 0, 0, 0), -1);
	ck_assert_int_eq(check(same, "U2", 0, 1, 1, 0), -1);
	/* ... unless re-bound on purpose */
	ck_assert_int_eq(check(same, "U2", 1, 0, 1, 0), 0);
	/* an old inventory: bound by the next run, never pruned unverified */
	ck_assert_int_eq(check(old, "U2", 0, 0, 0, 0), 0);
	ck_assert_int_eq(check(old, "U2", 0, 0, 1, 0), -1);
	ck_assert_int_eq(check(old, "U2", 0, 1, 1, 0), 0);
	ck_assert_int_eq(check(old, "U2", 1, 0, 1, 0), 0);
	cJSON_Delete(same);
	cJSON_Delete(old);
	cJSON_Delete(bare);
}
END_TEST

static const char *annotated(const cJSON *live, const char *uid,
			     const char *key, cJSON **keep)
{
	struct identity id = { uid, "https://new:6443", 0, 0, NULL };
	cJSON *a = cJSON_CreateObject();
	const cJSON *v;

	identity_annotate(a, live, &id);
	*keep = a;
	v = cJSON_GetObjectItemCaseSensitive(a, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

START_TEST(test_annotate)
{
	cJSON *live = parent("U1"), *a;

	/* the server recorded at binding stays while the uid does */
	ck_assert_str_eq(annotated(live, "U1", IDENTITY_SERVER_ANNOTATION, &a),
			 "https://old:6443");
	cJSON_Delete(a);
	/* a re-bind records the new cluster and its server */
	ck_assert_str_eq(annotated(live, "U2", IDENTITY_SERVER_ANNOTATION, &a),
			 "https://new:6443");
	cJSON_Delete(a);
	ck_assert_str_eq(annotated(NULL, "U2", IDENTITY_UID_ANNOTATION, &a),
			 "U2");
	cJSON_Delete(a);
	/* no identity known: nothing recorded */
	ck_assert_ptr_null(annotated(live, NULL, IDENTITY_UID_ANNOTATION, &a));
	cJSON_Delete(a);
	cJSON_Delete(live);
}
END_TEST

Suite *identity_suite(void)
{
	Suite *s = suite_create("identity");
	TCase *t = tcase_create("identity");

	tcase_add_test(t, test_eks_name);
	tcase_add_test(t, test_check_eks);
	tcase_add_test(t, test_check);
	tcase_add_test(t, test_annotate);
	suite_add_tcase(s, t);
	return s;
}
