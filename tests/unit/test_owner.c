/*
 * tests/unit/test_owner.c: reconcile/owner.c — who owns a live object and
 * what a run may write or delete (docs/reconcile-safety.md).
 */
#include <check.h>
#include <string.h>

#include "reconcile/owner.h"
#include "tests/unit/suites.h"

#define OURS "applyset-OURS-v1"
#define THEIRS "applyset-THEIRS-v1"

static enum owner_class classify(const char *part_of, const char *cluster,
				 const char *uid, int listed,
				 const char *listed_uid)
{
	struct owner_facts f = { 1, part_of, cluster, uid, listed, listed_uid,
				 NULL };
	return owner_classify(&f, OURS);
}

START_TEST(test_classify)
{
	struct owner_facts none = { 0 };

	ck_assert_int_eq(owner_classify(&none, OURS), OWNER_ABSENT);
	/* ours: our label, in our inventory, same UID (or none recorded) */
	ck_assert_int_eq(classify(OURS, "a", "u1", 1, "u1"), OWNER_OURS);
	ck_assert_int_eq(classify(OURS, "a", "u1", 1, NULL), OWNER_OURS);
	/* our label but never recorded: someone copied the label */
	ck_assert_int_eq(classify(OURS, "a", "u1", 0, NULL), OWNER_FOREIGN);
	/* recorded with another UID: recreated by someone else */
	ck_assert_int_eq(classify(OURS, "a", "u2", 1, "u1"), OWNER_FOREIGN);
	ck_assert_int_eq(classify(OURS, "a", NULL, 1, "u1"), OWNER_FOREIGN);
	/* another gpuform inventory: its ApplySet and a cluster label */
	ck_assert_int_eq(classify(THEIRS, "b", "u1", 0, NULL), OWNER_GPUFORM);
	/* listed in ours (tampered inventory) does not make it ours */
	ck_assert_int_eq(classify(THEIRS, "b", "u1", 1, "u1"), OWNER_GPUFORM);
	/* an ApplySet of another tool (no gpuform cluster label) */
	ck_assert_int_eq(classify(THEIRS, NULL, "u1", 0, NULL), OWNER_FOREIGN);
	/* made by hand: no labels at all, listed or not */
	ck_assert_int_eq(classify(NULL, NULL, "u1", 0, NULL), OWNER_FOREIGN);
	ck_assert_int_eq(classify(NULL, NULL, "u1", 1, "u1"), OWNER_FOREIGN);
	/* a gpuform.io/cluster label alone is not ownership */
	ck_assert_int_eq(classify(NULL, "a", "u1", 1, "u1"), OWNER_FOREIGN);
	ck_assert_int_eq(classify("something-else", "b", "u1", 0, NULL),
			 OWNER_FOREIGN);
}
END_TEST

START_TEST(test_write_decision)
{
	ck_assert_int_eq(owner_write_decision(OWNER_ABSENT, 0, 0), OW_WRITE);
	ck_assert_int_eq(owner_write_decision(OWNER_OURS, 0, 0), OW_WRITE);
	ck_assert_int_eq(owner_write_decision(OWNER_FOREIGN, 0, 0), OW_CONFLICT);
	ck_assert_int_eq(owner_write_decision(OWNER_FOREIGN, 0, 1), OW_CONFLICT);
	ck_assert_int_eq(owner_write_decision(OWNER_FOREIGN, 1, 0), OW_ADOPT);
	/* another gpuform's: never taken, not even with --adopt */
	ck_assert_int_eq(owner_write_decision(OWNER_GPUFORM, 1, 0), OW_CONFLICT);
	ck_assert_int_eq(owner_write_decision(OWNER_GPUFORM, 0, 0), OW_CONFLICT);
	ck_assert_int_eq(owner_write_decision(OWNER_GPUFORM, 0, 1), OW_SHARE);
	ck_assert_int_eq(owner_write_decision(OWNER_GPUFORM, 1, 1), OW_SHARE);
}
END_TEST

/* a namespace still Terminating: not written, and the cause is the
 * deletion, not the owner (no "pass --adopt") */
START_TEST(test_write_decide_terminating)
{
	cJSON *ns = cJSON_Parse(
		"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
		"\"metadata\":{\"name\":\"team\",\"uid\":\"u1\","
		"\"deletionTimestamp\":\"2026-12-02T06:00:00Z\"},"
		"\"status\":{\"phase\":\"Terminating\"}}");
	struct owner_facts f = { 0 };

	ck_assert_ptr_nonnull(ns);
	owner_facts_of(&f, ns);
	ck_assert_str_eq(f.deleting_since, "2026-12-02T06:00:00Z");
	ck_assert_int_eq(owner_write_decide(&f, OWNER_FOREIGN, 0, 0),
			 OW_TERMINATING);
	ck_assert_int_eq(owner_write_decide(&f, OWNER_FOREIGN, 1, 0),
			 OW_TERMINATING); /* --adopt does not help */
	ck_assert_int_eq(owner_write_decide(&f, OWNER_OURS, 0, 0),
			 OW_TERMINATING);
	ck_assert_int_eq(owner_write_decide(&f, OWNER_GPUFORM, 0, 1),
			 OW_TERMINATING);
	/* not being deleted: the owner decides, as before */
	cJSON_DeleteItemFromObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(ns, "metadata"),
		"deletionTimestamp");
	owner_facts_of(&f, ns);
	ck_assert_ptr_null(f.deleting_since);
	ck_assert_int_eq(owner_write_decide(&f, OWNER_FOREIGN, 0, 0),
			 OW_CONFLICT);
	ck_assert_int_eq(owner_write_decide(&f, OWNER_FOREIGN, 1, 0), OW_ADOPT);
	ck_assert_int_eq(owner_write_decide(&f, OWNER_OURS, 0, 0), OW_WRITE);
	cJSON_Delete(ns);
}
END_TEST

static enum prune_verdict prune_p(const char *entry_uid, int shared,
				  int found, const char *live_uid, int applied,
				  int elsewhere, int proven, int unseen)
{
	struct prune_facts f = { entry_uid, shared, found, live_uid, applied,
				 elsewhere, proven, unseen };
	return owner_prune_decision(&f);
}

/* an entry with a valid proof, every inventory seen */
static enum prune_verdict prune(const char *entry_uid, int shared, int found,
				const char *live_uid, int applied, int elsewhere)
{
	return prune_p(entry_uid, shared, found, live_uid, applied, elsewhere,
		       1, 0);
}

START_TEST(test_prune_decision)
{
	ck_assert_int_eq(prune("u1", 0, 1, "u1", 1, 0), PRUNE_DELETE);
	ck_assert_int_eq(prune("u1", 0, 0, NULL, 0, 0), PRUNE_GONE);
	/* an entry without a UID is never pruned (tampered inventory) */
	ck_assert_int_eq(prune(NULL, 0, 1, "u1", 1, 0), PRUNE_NO_UID);
	ck_assert_int_eq(prune("", 0, 1, "u1", 1, 0), PRUNE_NO_UID);
	ck_assert_int_eq(prune("u1", 0, 1, "u2", 1, 0), PRUNE_UID_CHANGED);
	ck_assert_int_eq(prune("u1", 0, 1, NULL, 1, 0), PRUNE_UID_CHANGED);
	/* labelled by hand, listed with the right UID: not ours */
	ck_assert_int_eq(prune("u1", 0, 1, "u1", 0, 0), PRUNE_NOT_APPLIED);
	/* still listed by another inventory: kept */
	ck_assert_int_eq(prune("u1", 0, 1, "u1", 1, 1), PRUNE_STILL_LISTED);
	/* shared (another owns it): released, whatever else holds */
	ck_assert_int_eq(prune("u1", 1, 1, "u1", 1, 0), PRUNE_RELEASE);
	ck_assert_int_eq(prune(NULL, 1, 0, NULL, 0, 0), PRUNE_RELEASE);
	/* Fixed bug (reconcile/owner.c, owner_prune_decision): the label and
	 * a managedFields entry of manager "gpuform" were enough, and anyone
	 * who may patch can apply with --field-manager=gpuform (issue 21).
	 * Without a valid ownership proof nothing is deleted, whatever else
	 * holds */
	ck_assert_int_eq(prune_p("u1", 0, 1, "u1", 1, 0, 0, 0), PRUNE_UNPROVEN);
	ck_assert_int_eq(prune_p("u1", 0, 1, "u1", 1, 1, 0, 1), PRUNE_UNPROVEN);
	/* the checks before it still come first (their reasons say more) */
	ck_assert_int_eq(prune_p("u1", 0, 1, "u1", 0, 0, 0, 0), PRUNE_NOT_APPLIED);
	ck_assert_int_eq(prune_p("u1", 0, 1, "u2", 1, 0, 0, 0), PRUNE_UID_CHANGED);
	/* Fixed bug (reconcile/inventory.c, inv_read_others): a forbidden
	 * LIST of inventories across namespaces was treated as "none
	 * elsewhere" for the own namespace; now nothing is pruned */
	ck_assert_int_eq(prune_p("u1", 0, 1, "u1", 1, 0, 1, 1), PRUNE_UNSEEN);
	ck_assert_int_eq(prune_p("u1", 0, 1, "u1", 1, 1, 1, 1), PRUNE_STILL_LISTED);
	ck_assert_int_eq(prune_p("u1", 1, 1, "u1", 1, 0, 0, 1), PRUNE_RELEASE);
	ck_assert_ptr_nonnull(strstr(owner_prune_reason(PRUNE_UNPROVEN),
				     "no valid ownership proof"));
	ck_assert_ptr_nonnull(strstr(owner_prune_reason(PRUNE_UNSEEN),
				     "cannot all be read"));
	ck_assert_ptr_null(owner_prune_reason(PRUNE_DELETE));
	ck_assert_ptr_null(owner_prune_reason(PRUNE_GONE));
	ck_assert_ptr_nonnull(strstr(owner_prune_reason(PRUNE_NO_UID), "no UID"));
}
END_TEST

START_TEST(test_applied_label)
{
	const char *by_us =
		"{\"metadata\":{\"managedFields\":["
		"{\"manager\":\"kubectl-label\",\"operation\":\"Update\","
		"\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{"
		"\"f:applyset.kubernetes.io/part-of\":{}}}}},"
		"{\"manager\":\"gpuform\",\"operation\":\"Apply\","
		"\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{"
		"\"f:applyset.kubernetes.io/part-of\":{}}}}}]}}";
	const char *by_hand =
		"{\"metadata\":{\"managedFields\":["
		"{\"manager\":\"kubectl-label\",\"operation\":\"Update\","
		"\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{"
		"\"f:applyset.kubernetes.io/part-of\":{}}}}},"
		/* gpuform applied other fields, not the label */
		"{\"manager\":\"gpuform\",\"operation\":\"Apply\","
		"\"fieldsV1\":{\"f:spec\":{}}},"
		/* an Update by a manager called gpuform is not an apply */
		"{\"manager\":\"gpuform\",\"operation\":\"Update\","
		"\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{"
		"\"f:applyset.kubernetes.io/part-of\":{}}}}}]}}";
	cJSON *a = cJSON_Parse(by_us), *b = cJSON_Parse(by_hand);
	struct owner_facts f;

	ck_assert_int_eq(owner_applied_label(a, "gpuform"), 1);
	ck_assert_int_eq(owner_applied_label(a, "gpuform-other"), 0);
	ck_assert_int_eq(owner_applied_label(b, "gpuform"), 0);
	ck_assert_int_eq(owner_applied_label(NULL, "gpuform"), 0);
	owner_facts_of(&f, NULL);
	ck_assert_int_eq(f.exists, 0);
	cJSON_Delete(a);
	cJSON_Delete(b);
	a = cJSON_Parse("{\"metadata\":{\"uid\":\"u9\",\"labels\":{"
			"\"applyset.kubernetes.io/part-of\":\"" THEIRS "\","
			"\"gpuform.io/cluster\":\"b\"}}}");
	owner_facts_of(&f, a);
	ck_assert_int_eq(f.exists, 1);
	ck_assert_str_eq(f.uid, "u9");
	ck_assert_str_eq(f.part_of, THEIRS);
	ck_assert_str_eq(f.cluster_label, "b");
	f.listed = 0;
	f.listed_uid = NULL;
	ck_assert_int_eq(owner_classify(&f, OURS), OWNER_GPUFORM);
	cJSON_Delete(a);
}
END_TEST

/* owner_prune_step: every verdict, with and without --prune, for a
 * Namespace with and without --prune-namespaces, in a real and a dry run */
#define NS_ONLY "namespaces are pruned only with --prune-namespaces"
#define USE_PRUNE "not in the desired set (use --prune)"
#define UID_WHY "recreated by someone else"
static const struct {
	enum prune_verdict v;
	int is_ns, prune, prune_ns, dry;
	int report, pruned;
	const char *why; /* prefix of the detail; NULL: none */
	enum keep_entry keep;
	int delete_;
} steps[] = {
	/* real runs */
	{ PRUNE_DELETE, 0, 1, 0, 0, 0, 0, NULL, KEEP_UNSHARED, 1 },
	{ PRUNE_DELETE, 0, 0, 0, 0, 1, 0, USE_PRUNE, KEEP_UNSHARED, 0 },
	{ PRUNE_DELETE, 1, 1, 0, 0, 1, 0, NS_ONLY, KEEP_UNSHARED, 0 },
	{ PRUNE_DELETE, 1, 1, 1, 0, 0, 0, NULL, KEEP_UNSHARED, 1 },
	{ PRUNE_GONE, 0, 1, 0, 0, 0, 0, NULL, KEEP_NONE, 0 },
	{ PRUNE_GONE, 0, 0, 0, 0, 0, 0, NULL, KEEP_NONE, 0 },
	{ PRUNE_UID_CHANGED, 0, 1, 0, 0, 1, 0, UID_WHY, KEEP_NONE, 0 },
	{ PRUNE_UID_CHANGED, 0, 0, 0, 0, 1, 0, UID_WHY, KEEP_UNSHARED, 0 },
	{ PRUNE_RELEASE, 0, 1, 0, 0, 1, 0, "shared with another", KEEP_NONE, 0 },
	{ PRUNE_RELEASE, 0, 0, 0, 0, 0, 0, "shared with another", KEEP_AS_IS, 0 },
	{ PRUNE_NO_UID, 0, 1, 0, 0, 1, 0, "the inventory entry has no UID", KEEP_AS_IS, 0 },
	{ PRUNE_NOT_APPLIED, 0, 1, 0, 0, 1, 0, "its part-of label", KEEP_AS_IS, 0 },
	{ PRUNE_STILL_LISTED, 0, 1, 0, 0, 1, 0, "another gpuform inventory", KEEP_AS_IS, 0 },
	{ PRUNE_UNPROVEN, 0, 1, 0, 0, 1, 0, "no valid ownership proof", KEEP_AS_IS, 0 },
	{ PRUNE_UNSEEN, 0, 1, 0, 0, 1, 0, "cannot all be read", KEEP_AS_IS, 0 },
	{ PRUNE_HELD, 0, 1, 0, 0, 1, 0, "outside the window", KEEP_AS_IS, 0 },
	/* dry runs: report only, delete nothing */
	{ PRUNE_DELETE, 0, 1, 0, 1, 1, 1, NULL, KEEP_NONE, 0 },
	{ PRUNE_DELETE, 0, 0, 0, 1, 1, 0, USE_PRUNE, KEEP_NONE, 0 },
	{ PRUNE_DELETE, 1, 1, 0, 1, 1, 0, NS_ONLY, KEEP_NONE, 0 },
	{ PRUNE_DELETE, 1, 1, 1, 1, 1, 1, NULL, KEEP_NONE, 0 },
	{ PRUNE_GONE, 0, 1, 0, 1, 0, 0, NULL, KEEP_NONE, 0 },
	{ PRUNE_UID_CHANGED, 0, 0, 0, 1, 1, 0, UID_WHY, KEEP_NONE, 0 },
	{ PRUNE_RELEASE, 0, 1, 0, 1, 1, 0, "shared with another", KEEP_NONE, 0 },
	/* a dry run says why a shared entry is not pruned without --prune */
	{ PRUNE_RELEASE, 0, 0, 0, 1, 1, 0, USE_PRUNE, KEEP_NONE, 0 },
	{ PRUNE_STILL_LISTED, 0, 1, 0, 1, 1, 0, "another gpuform inventory", KEEP_NONE, 0 },
	{ PRUNE_UNPROVEN, 0, 1, 0, 1, 1, 0, "no valid ownership proof", KEEP_NONE, 0 },
	{ PRUNE_UNSEEN, 0, 1, 0, 1, 1, 0, "cannot all be read", KEEP_NONE, 0 },
};

/* the ownership proof: bound to the key, the inventory, the identity
 * (not the version) and the UID; a proof of another object, another UID
 * or under another key is not valid */
START_TEST(test_proof)
{
	static const unsigned char key[OWNER_KEY_LEN] = { 1, 2, 3 };
	static const unsigned char other_key[OWNER_KEY_LEN] = { 1, 2, 4 };
	struct kobj_id np = { "karpenter.sh/v1", "NodePool", NULL, "team-x" };
	struct kobj_id np_beta = { "karpenter.sh/v1beta1", "NodePool", NULL,
				   "team-x" };
	struct kobj_id np2 = { "karpenter.sh/v1", "NodePool", NULL, "team-y" };
	struct kobj_id cm = { "v1", "ConfigMap", "kube-system", "team-x" };
	struct buf p = BUF_INIT, p2 = BUF_INIT, name = BUF_INIT;

	owner_proof(key, sizeof(key), OURS, &np, "uid-1", &p);
	ck_assert_int_eq(strncmp(buf_cstr(&p), OWNER_PROOF_PREFIX, 3), 0);
	ck_assert_uint_eq(p.len, 3 + 22); /* 128 bits, base64url */
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, "uid-1",
					buf_cstr(&p)), 1);
	/* deterministic */
	owner_proof(key, sizeof(key), OURS, &np, "uid-1", &p2);
	ck_assert_str_eq(buf_cstr(&p), buf_cstr(&p2));
	/* the version does not matter: the server serves an object at each */
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np_beta,
					"uid-1", buf_cstr(&p)), 1);
	/* copied to another object, another UID (recreated), another
	 * inventory, under another key: not valid */
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np2, "uid-1",
					buf_cstr(&p)), 0);
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &cm, "uid-1",
					buf_cstr(&p)), 0);
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, "uid-2",
					buf_cstr(&p)), 0);
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), THEIRS, &np, "uid-1",
					buf_cstr(&p)), 0);
	ck_assert_int_eq(owner_proof_ok(other_key, sizeof(other_key), OURS, &np,
					"uid-1", buf_cstr(&p)), 0);
	/* missing or mangled pieces */
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, "uid-1",
					NULL), 0);
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, NULL,
					buf_cstr(&p)), 0);
	ck_assert_int_eq(owner_proof_ok(NULL, 0, OURS, &np, "uid-1",
					buf_cstr(&p)), 0);
	p.ptr[p.len - 1] = p.ptr[p.len - 1] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, "uid-1",
					buf_cstr(&p)), 0);
	p.len--;
	p.ptr[p.len] = '\0';
	ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &np, "uid-1",
					buf_cstr(&p)), 0);
	/* field boundaries are part of the message: ns "a" + name "b/c" is
	 * not ns "a/b" + name "c" */
	{
		struct kobj_id a = { "v1", "ConfigMap", "ab", "c" };
		struct kobj_id b = { "v1", "ConfigMap", "a", "bc" };
		buf_release(&p);
		owner_proof(key, sizeof(key), OURS, &a, "u", &p);
		ck_assert_int_eq(owner_proof_ok(key, sizeof(key), OURS, &b, "u",
						buf_cstr(&p)), 0);
	}
	owner_key_name("ml-prod", &name);
	ck_assert_str_eq(buf_cstr(&name), "gpuform-ml-prod-owner-key");
	buf_release(&p);
	buf_release(&p2);
	buf_release(&name);
}
END_TEST

START_TEST(test_prune_step)
{
	struct prune_step s = owner_prune_step(steps[_i].v, steps[_i].is_ns,
					       steps[_i].prune, steps[_i].prune_ns,
					       "held: outside the window",
					       steps[_i].dry);

	ck_assert_msg(s.report == steps[_i].report && s.pruned == steps[_i].pruned,
		      "case %d: report %d pruned %d", _i, s.report, s.pruned);
	ck_assert_msg(s.keep == steps[_i].keep, "case %d: keep %d", _i, s.keep);
	ck_assert_msg(s.delete_ == steps[_i].delete_, "case %d: delete %d", _i,
		      s.delete_);
	if (!steps[_i].why)
		ck_assert_msg(!s.why || !s.report, "case %d: why %s", _i, s.why);
	else
		ck_assert_msg(s.why && strstr(s.why, steps[_i].why),
			      "case %d: why %s", _i, s.why ? s.why : "(null)");
	/* nothing is deleted in a dry run, and a deleted entry is reported by
	 * the DELETE's outcome, not here */
	ck_assert(!(steps[_i].dry && s.delete_));
	ck_assert(!(s.delete_ && s.report));
}
END_TEST

Suite *owner_suite(void)
{
	Suite *s = suite_create("owner");
	TCase *tc = tcase_create("decisions");

	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_write_decision);
	tcase_add_test(tc, test_write_decide_terminating);
	tcase_add_test(tc, test_prune_decision);
	tcase_add_test(tc, test_applied_label);
	tcase_add_test(tc, test_proof);
	tcase_add_loop_test(tc, test_prune_step, 0,
			    (int)(sizeof(steps) / sizeof(steps[0])));
	suite_add_tcase(s, tc);
	return s;
}
