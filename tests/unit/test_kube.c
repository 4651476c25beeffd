/*
 * tests/unit/test_kube.c: the REST client of kube/kube.c over a
 * transport of canned answers (struct kube_transport, in the manner of
 * curl's test servers that replay canned responses) — paths and queries sent,
 * discovery and its cache, List pagination, statuses turned into meanings
 * — and reconcile/nodecount.c on the in-memory fake. No server.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kube.h"
#include "reconcile/lease.h"
#include "reconcile/nodecount.h"
#include "tests/unit/kube_fake.h"
#include "tests/unit/suites.h"

/* one canned answer: the first unused entry whose method and path match
 * (and whose query, when given, is contained in the request's) answers */
struct answer {
	const char *method, *path, *query;
	long status;
	const char *body;
	int used;
};

struct canned {
	struct answer *a;
	size_t n;
	struct buf log;  /* "METHOD path?query" per request */
	struct buf body; /* the last request body */
	struct buf resp; /* the last answer's body */
	long requests;
};

static int respond(void *ctx, const char *method, const char *path,
		   const char *query, const char *ctype, const char *body,
		   size_t len, long *status, struct err *err)
{
	struct canned *c = ctx;

	c->requests++;
	*status = 0;
	buf_reset(&c->resp);
	buf_addf(&c->log, "%s %s%s%s\n", method, path, query ? "?" : "",
		 query ? query : "");
	buf_reset(&c->body);
	if (body)
		buf_add(&c->body, body, len);
	for (size_t i = 0; i < c->n; i++) {
		struct answer *a = &c->a[i];
		if (a->used || strcmp(a->method, method) || strcmp(a->path, path) ||
		    (a->query && (!query || !strstr(query, a->query))))
			continue;
		a->used = 1;
		*status = a->status;
		buf_adds(&c->resp, a->body);
		return 0;
	}
	/* nothing canned: the connection fails */
	return err_set(err, ERR_HTTP, "%s %s: cannot talk to the API server at "
				      "https://canned: connection refused",
		       method, path);
}

static const struct buf *canned_body(void *ctx)
{
	return &((struct canned *)ctx)->resp;
}

static void canned_counts(void *ctx, long *requests, long *retries)
{
	*requests = ((struct canned *)ctx)->requests;
	*retries = 0;
}

static struct kube *client(struct canned *c, struct answer *a, size_t n)
{
	struct kube_transport t = { 0 };
	struct kube *k;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->n = n;
	t.ctx = c;
	t.request = respond;
	t.body = canned_body;
	t.counts = canned_counts;
	t.server = "https://canned";
	t.user = "anonymous";
	t.namespace_ = "default";
	ck_assert_int_eq(kube_new_on(&k, &t), 0);
	return k;
}

static void done(struct kube *k, struct canned *c)
{
	kube_free(k);
	buf_release(&c->log);
	buf_release(&c->body);
	buf_release(&c->resp);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char karpenter_v1[] =
	"{\"kind\":\"APIResourceList\",\"groupVersion\":\"karpenter.sh/v1\","
	"\"resources\":[{\"name\":\"nodepools\",\"kind\":\"NodePool\","
	"\"namespaced\":false},{\"name\":\"nodepools/status\",\"kind\":"
	"\"NodePool\",\"namespaced\":false},{\"name\":\"nodeclaims\","
	"\"kind\":\"NodeClaim\",\"namespaced\":false}]}";

START_TEST(test_discovery)
{
	struct answer a[] = {
		{ "GET", "/apis/karpenter.sh/v1", NULL, 200, karpenter_v1, 0 },
		{ "GET", "/apis/kueue.x-k8s.io/v1beta2", NULL, 404,
		  "{\"kind\":\"Status\",\"code\":404}", 0 },
		/* what else the groups serve, asked for the messages */
		{ "GET", "/apis/karpenter.sh/v1beta1", NULL, 404, "{}", 0 },
		{ "GET", "/apis/karpenter.sh/v1beta2", NULL, 404, "{}", 0 },
		{ "GET", "/apis/kueue.x-k8s.io/v1", NULL, 404, "{}", 0 },
		{ "GET", "/apis/kueue.x-k8s.io/v1beta1", NULL, 404, "{}", 0 },
	};
	struct canned c;
	struct kube *k = client(&c, a, N(a));
	const struct kube_resource *r, *r2;
	struct err e = ERR_INIT;

	ck_assert_int_eq(kube_resource_for(k, "karpenter.sh/v1", "NodePool", &r, &e), 0);
	ck_assert_str_eq(r->resource, "nodepools");
	ck_assert_str_eq(r->group, "karpenter.sh");
	ck_assert_int_eq(r->namespaced, 0);
	/* cached: one discovery request per group-version */
	ck_assert_int_eq(kube_resource_for(k, "karpenter.sh/v1", "NodeClaim", &r2, &e), 0);
	ck_assert_str_eq(r2->resource, "nodeclaims");
	ck_assert_int_eq(kube_get_stats(k)->requests, 1);
	/* a kind the group-version does not list */
	ck_assert_int_eq(kube_resource_for(k, "karpenter.sh/v1", "Nope", &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "the Karpenter CRDs are not installed"));
	err_clear(&e);
	/* a group-version not served at all (404) */
	ck_assert_int_eq(kube_resource_for(k, "kueue.x-k8s.io/v1beta2", "ClusterQueue", &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "the Kueue CRDs are not installed"));
	err_clear(&e);
	/* and that answer is cached too */
	ck_assert_int_eq(kube_resource_for(k, "kueue.x-k8s.io/v1beta2", "LocalQueue", &r, &e), -1);
	ck_assert_int_eq(kube_get_stats(k)->requests, 6);
	ck_assert_int_eq(kube_resource_for(k, "karpenter.sh/", "NodePool", &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	err_release(&e);
	done(k, &c);
}
END_TEST

static const char kueue_v1beta1[] =
	"{\"kind\":\"APIResourceList\",\"groupVersion\":\"kueue.x-k8s.io/v1beta1\","
	"\"resources\":[{\"name\":\"localqueues\",\"kind\":\"LocalQueue\","
	"\"namespaced\":true}]}";

/* An installed older Kueue (v1beta1 only) is not "not installed": the
 * message says which releases serve that and what to set; an older
 * Karpenter without the NodeOverlay CRD is named too. */
START_TEST(test_discovery_older_release)
{
	struct answer a[] = {
		{ "GET", "/apis/kueue.x-k8s.io/v1beta2", NULL, 404, "{}", 0 },
		{ "GET", "/apis/kueue.x-k8s.io/v1", NULL, 404, "{}", 0 },
		{ "GET", "/apis/kueue.x-k8s.io/v1beta1", NULL, 200, kueue_v1beta1, 0 },
		{ "GET", "/apis/karpenter.sh/v1alpha1", NULL, 404, "{}", 0 },
		{ "GET", "/apis/karpenter.sh/v1", NULL, 200, karpenter_v1, 0 },
		{ "GET", "/apis/karpenter.sh/v1beta1", NULL, 404, "{}", 0 },
		{ "GET", "/apis/karpenter.sh/v1beta2", NULL, 404, "{}", 0 },
	};
	struct canned c;
	struct kube *k = client(&c, a, N(a));
	const struct kube_resource *r;
	struct err e = ERR_INIT;

	ck_assert_int_eq(kube_resource_for(k, "kueue.x-k8s.io/v1beta2", "LocalQueue", &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_NOTFOUND);
	ck_assert_msg(strstr(err_msg(&e), "Kueue is installed, but older: its CRDs serve LocalQueue "
					  "in kueue.x-k8s.io/v1beta1 only, as Kueue v0.3 to v0.14 do; "
					  "set spec.targets.kueue"), "%s", err_msg(&e));
	ck_assert_ptr_null(strstr(err_msg(&e), "not installed"));
	err_clear(&e);
	ck_assert_int_eq(kube_resource_for(k, "karpenter.sh/v1alpha1", "NodeOverlay", &r, &e), -1);
	ck_assert_msg(strstr(err_msg(&e), "its CRDs have no NodeOverlay, as before Karpenter v1.7.0"),
		      "%s", err_msg(&e));
	err_release(&e);
	done(k, &c);
}
END_TEST

static char cm_group[] = "", cm_version[] = "v1", cm_kind[] = "ConfigMap",
	    cm_resource[] = "configmaps";
static const struct kube_resource cm_res = { cm_group, cm_version, cm_kind,
					     cm_resource, 1 };

START_TEST(test_list_pages)
{
	struct answer a[] = {
		{ "GET", "/api/v1/namespaces/kube-system/configmaps",
		  "continue=tok%2B1", 200,
		  "{\"kind\":\"ConfigMapList\",\"metadata\":{},\"items\":"
		  "[{\"metadata\":{\"name\":\"b\"}}]}", 0 },
		{ "GET", "/api/v1/namespaces/kube-system/configmaps", NULL, 200,
		  "{\"kind\":\"ConfigMapList\",\"metadata\":{\"continue\":"
		  "\"tok+1\"},\"items\":[{\"metadata\":{\"name\":\"a\"}}]}", 0 },
	};
	struct canned c;
	struct kube *k = client(&c, a, N(a));
	struct err e = ERR_INIT;
	cJSON *items = NULL;

	ck_assert_int_eq(kube_list(k, &cm_res, "kube-system", "app=x,tier in (a)",
				   &items, &e), 0);
	ck_assert_int_eq(cJSON_GetArraySize(items), 2);
	/* items typed: apiVersion and kind filled in */
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 0), "kind")->valuestring,
			 "ConfigMap");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(items, 1), "apiVersion")->valuestring,
			 "v1");
	ck_assert_str_eq(buf_cstr(&c.log),
			 "GET /api/v1/namespaces/kube-system/configmaps?limit=500&"
			 "labelSelector=app%3Dx%2Ctier%20in%20%28a%29\n"
			 "GET /api/v1/namespaces/kube-system/configmaps?limit=500&"
			 "labelSelector=app%3Dx%2Ctier%20in%20%28a%29&continue=tok%2B1\n");
	ck_assert_int_eq(kube_get_stats(k)->lists, 2);
	cJSON_Delete(items);
	err_release(&e);
	done(k, &c);
}
END_TEST

START_TEST(test_statuses)
{
	struct answer a[] = {
		{ "GET", "/api/v1/namespaces/default/configmaps/gone", NULL, 404,
		  "{\"kind\":\"Status\",\"code\":404}", 0 },
		{ "GET", "/api/v1/namespaces/x/configmaps/secret", NULL, 403,
		  "{\"kind\":\"Status\",\"message\":\"configmaps \\\"secret\\\" is "
		  "forbidden: User \\\"u\\\" cannot get resource\"}", 0 },
		{ "GET", "/api/v1/namespaces/x/configmaps/boom", NULL, 500,
		  "{\"kind\":\"Status\",\"message\":\"etcd is away\"}", 0 },
		{ "GET", "/api/v1/namespaces/x/configmaps/cut", NULL, 200,
		  "{\"metadata\":{\"name\":\"cu", 0 },
		{ "GET", "/api/v1/namespaces/x/configmaps/ok", NULL, 200,
		  "{\"metadata\":{\"name\":\"ok\"}}", 0 },
	};
	struct canned c;
	struct kube *k = client(&c, a, N(a));
	struct err e = ERR_INIT;
	cJSON *o = (cJSON *)1;

	/* no namespace: the kubeconfig's ("default") */
	ck_assert_int_eq(kube_get(k, &cm_res, NULL, "gone", &o, &e), 0);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(kube_get(k, &cm_res, "x", "secret", &o, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "cannot get resource"));
	err_clear(&e);
	ck_assert_int_eq(kube_get(k, &cm_res, "x", "boom", &o, &e), -1);
	ck_assert_int_eq(e.code, ERR_HTTP);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "etcd is away (500 Internal Server Error)"));
	err_clear(&e);
	ck_assert_int_eq(kube_get(k, &cm_res, "x", "cut", &o, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "not whole JSON"));
	err_clear(&e);
	ck_assert_int_eq(kube_get(k, &cm_res, "x", "ok", &o, &e), 0);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "name")->valuestring,
			 "ok");
	cJSON_Delete(o);
	/* nothing canned: a transport failure */
	ck_assert_int_eq(kube_get(k, &cm_res, "x", "nothing", &o, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "cannot talk to the API server at https://canned"));
	ck_assert_int_eq(kube_get_stats(k)->gets, 6);
	err_release(&e);
	done(k, &c);
}
END_TEST

START_TEST(test_apply_and_delete)
{
	struct answer a[] = {
		{ "PATCH", "/api/v1/namespaces/x/configmaps/a",
		  "fieldManager=gpuform&force=true&dryRun=All", 409,
		  "{\"kind\":\"Status\",\"code\":409,\"reason\":\"Conflict\","
		  "\"message\":\"Apply failed with 1 conflict: conflict with "
		  "\\\"helm\\\": .data.v\",\"details\":{\"causes\":[{\"reason\":"
		  "\"FieldManagerConflict\",\"message\":\"conflict with \\\"helm\\\"\","
		  "\"field\":\".data.v\"}]}}", 0 },
		{ "DELETE", "/api/v1/namespaces/x/configmaps/a", NULL, 409,
		  "{\"kind\":\"Status\",\"message\":\"Precondition failed: UID in "
		  "precondition: u1, UID in object meta: u2\"}", 0 },
		{ "DELETE", "/api/v1/namespaces/x/configmaps/b", NULL, 404,
		  "{\"kind\":\"Status\",\"code\":404}", 0 },
	};
	struct canned c;
	struct kube *k = client(&c, a, N(a));
	struct err e = ERR_INIT;
	cJSON *obj = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				 "\"metadata\":{\"name\":\"a\",\"namespace\":\"x\"}}");
	int deleted = -1;

	ck_assert_int_eq(kube_apply(k, &cm_res, obj, "gpuform", 1, 1, NULL, &e), -1);
	ck_assert_int_eq(e.code, ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), ".data.v"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&c.body), "\"name\":\"a\""));
	err_clear(&e);
	/* refused before any request */
	ck_assert_int_eq(kube_apply(k, &cm_res, obj, "", 0, 0, NULL, &e), -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	err_clear(&e);
	ck_assert_int_eq(kube_delete(k, &cm_res, "x", "a", "u1", "7", 0, &deleted, &e), -1);
	ck_assert_int_eq(e.code, ERR_CONFLICT);
	ck_assert_str_eq(buf_cstr(&c.body),
			 "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
			 "\"propagationPolicy\":\"Background\",\"preconditions\":"
			 "{\"uid\":\"u1\",\"resourceVersion\":\"7\"}}");
	err_clear(&e);
	ck_assert_int_eq(kube_delete(k, &cm_res, "x", "b", NULL, NULL, 0, &deleted, &e), 0);
	ck_assert_int_eq(deleted, 0);
	ck_assert_int_eq(kube_get_stats(k)->requests, 3);
	ck_assert_int_eq(kube_get_stats(k)->writes, 2);
	ck_assert_int_eq(kube_get_stats(k)->dry_runs, 1);
	cJSON_Delete(obj);
	err_release(&e);
	done(k, &c);
}
END_TEST

/* ---- nodecount on the fake ----------------------------------------------- */

static void put(struct kube_fake *f, const char *json)
{
	cJSON *o = cJSON_Parse(json);

	ck_assert_ptr_nonnull(o);
	kube_fake_put(f, o, NULL);
	cJSON_Delete(o);
}

START_TEST(test_nodecount)
{
	struct kube_fake *f = kube_fake_new();
	struct nodecount nc = NODECOUNT_INIT;
	char gpu[] = "gpu", cpu[] = "cpu";
	char *pools[] = { gpu, cpu };
	long claims, pods;

	kube_fake_serve(f, "karpenter.sh/v1", "NodeClaim", "nodeclaims", 0);
	kube_fake_serve(f, "v1", "Pod", "pods", 1);
	put(f, "{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodeClaim\","
	       "\"metadata\":{\"name\":\"g1\",\"labels\":{\"karpenter.sh/nodepool\":\"gpu\"}},"
	       "\"status\":{\"nodeName\":\"n1\"}}");
	put(f, "{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodeClaim\","
	       "\"metadata\":{\"name\":\"g2\",\"labels\":{\"karpenter.sh/nodepool\":\"gpu\"}},"
	       "\"status\":{\"nodeName\":\"n2\"}}");
	put(f, "{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodeClaim\","
	       "\"metadata\":{\"name\":\"x1\",\"labels\":{\"karpenter.sh/nodepool\":\"other\"}},"
	       "\"status\":{\"nodeName\":\"n3\"}}");
	put(f, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
	       "\"namespace\":\"ml\",\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"true\"}},"
	       "\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}");
	put(f, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"q\","
	       "\"namespace\":\"ml\"},\"spec\":{\"nodeName\":\"n2\"},"
	       "\"status\":{\"phase\":\"Running\"}}");
	nodecount_fetch(&nc, kube_fake_client(f), pools, 2);
	ck_assert_msg(!nc.unknown, "%s", nc.unknown);
	nodecount_count(&nc, "gpu", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 2);
	ck_assert_int_eq(pods, 1);
	nodecount_count(&nc, "cpu", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 0);
	ck_assert_int_eq(kube_fake_count(f, "LIST"), 2);
	nodecount_release(&nc);

	/* no NodeClaim CRD: unknown, with the reason, never an error */
	kube_fake_unserve(f, "karpenter.sh/v1", "NodeClaim");
	nc = (struct nodecount)NODECOUNT_INIT;
	nodecount_fetch(&nc, kube_fake_client(f), pools, 2);
	ck_assert_ptr_nonnull(nc.unknown);
	nodecount_count(&nc, "gpu", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, -1);
	nodecount_release(&nc);
	kube_fake_free(f);
}
END_TEST

/* ---- the run lock on the fake --------------------------------------------- */

static void bump_lease(struct kube_fake *f, enum fake_op op, const char *kind,
		       const char *ns, const char *name, void *ctx)
{
	int *left = ctx;

	(void)kind;
	if (op == FAKE_UPDATE && (*left)-- > 0)
		kube_fake_touch(kube_fake_find(f, "Lease", ns, name), f);
}

START_TEST(test_lease)
{
	struct kube_fake *f = kube_fake_new();
	struct kube *k = kube_fake_client(f);
	struct lease a = LEASE_INIT, b = LEASE_INIT, c = LEASE_INIT, d = LEASE_INIT;
	struct err e = ERR_INIT;
	int got = -1, races = 1;

	/* free: created, ours */
	ck_assert_int_eq(lease_acquire(&a, k, "gpuform-system", "gpuform-x", "me", 60, &got, &e), 0);
	ck_assert_int_eq(got, 1);
	ck_assert_int_eq(kube_fake_count(f, "CREATE Lease gpuform-system/gpuform-x"), 1);
	/* held by a live run: not taken, and we learn who */
	ck_assert_int_eq(lease_acquire(&b, k, "gpuform-system", "gpuform-x", "other", 60, &got, &e), 0);
	ck_assert_int_eq(got, 0);
	ck_assert_str_eq(b.holder, "me");
	/* released: free again */
	ck_assert_int_eq(lease_release(&a, k, &e), 0);
	/* a stale holder (renewed long ago) is taken over, even when another
	 * writer changes the Lease once in between (409, read again) */
	{
		cJSON *l = kube_fake_find(f, "Lease", "gpuform-system", "gpuform-x");
		cJSON *spec = cJSON_GetObjectItem(l, "spec");
		cJSON_DeleteItemFromObject(spec, "holderIdentity");
		cJSON_DeleteItemFromObject(spec, "renewTime");
		cJSON_AddStringToObject(spec, "holderIdentity", "old");
		cJSON_AddStringToObject(spec, "renewTime", "2000-01-01T00:00:00.000000Z");
	}
	f->hook = bump_lease;
	f->hook_ctx = &races;
	ck_assert_int_eq(lease_acquire(&c, k, "gpuform-system", "gpuform-x", "new", 60, &got, &e), 0);
	ck_assert_msg(got == 1, "%s", err_msg(&e));
	ck_assert_str_eq(c.taken_from, "old");
	ck_assert_int_eq(kube_fake_count(f, "UPDATE Lease"), 3); /* release, 409, ours */
	/* an API failure is an error, not "held" */
	kube_fake_fail(f, FAKE_GET, 0, "Lease", ERR_AUTH, "leases is forbidden");
	ck_assert_int_eq(lease_acquire(&d, k, "gpuform-system", "gpuform-x", "z", 60, &got, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	lease_dispose(&a);
	lease_dispose(&b);
	lease_dispose(&c);
	lease_dispose(&d);
	err_release(&e);
	kube_fake_free(f);
}
END_TEST

Suite *kube_suite(void)
{
	Suite *s = suite_create("kube");
	TCase *t = tcase_create("rest");

	tcase_add_test(t, test_discovery);
	tcase_add_test(t, test_discovery_older_release);
	tcase_add_test(t, test_list_pages);
	tcase_add_test(t, test_statuses);
	tcase_add_test(t, test_apply_and_delete);
	suite_add_tcase(s, t);
	t = tcase_create("nodecount");
	tcase_add_test(t, test_nodecount);
	tcase_add_test(t, test_lease);
	suite_add_tcase(s, t);
	return s;
}
