/*
 * tests/unit/test_nodeimpact.c: the node-replacement guard of
 * reconcile/nodeimpact.c (recon_opts.guard) on the in-memory API of
 * tests/unit/kube_fake.c, with the clock passed in (nodeimpact.now).
 *
 * One table: a NodePool change (node-replacing or not) to a pool of a
 * given interruption class and maintenance window, at a given time, with
 * or without --allow-node-replacement, enforcing (reconcile) or not
 * (diff --live). Each case checks whether the change is held back (both
 * the count and the recon_change.hold the executor reads) and the note.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "reconcile/nodeimpact.h"
#include "util/buf.h"
#include "tests/unit/kube_fake.h"
#include "tests/unit/suites.h"

#define POOL "gpu"
#define T_OUTSIDE 1796119200L /* 2026-12-01T10:00:00Z, a Tuesday */
#define T_INSIDE 1796094000L  /* 2026-12-01T03:00:00Z */
#define WINDOW "0 2 * * *"    /* every day 02:00-04:00 UTC */

static const struct ni_case {
	const char *what;
	const char *mode;  /* gpuform.io/interruption; NULL: absent */
	const char *sched; /* gpuform.io/maintenance-window; NULL: absent */
	const char *dur;
	int replaces; /* the change is to the template labels (drift), else
		       * to spec.limits (no node effect) */
	int claims;   /* NodeClaims of the pool in the cluster */
	long now;
	int allow, enforce;
	int held;         /* want: nodeimpact.held and recon_change.hold */
	const char *note; /* want: a substring of the notes; NULL: none */
} cases[] = {
	{ "checkpointed outside the window: held", "checkpointed", WINDOW, "2h",
	  1, 2, T_OUTSIDE, 0, 1, 1,
	  "held back: NodePool gpu (static drift: NodePool template hash "
	  "(spec.template.metadata.labels)) replaces the nodes of pool gpu "
	  "(interruption: checkpointed; 2 NodeClaims, 0 do-not-disrupt pods) "
	  "outside its maintenance window \"0 2 * * *\" for 2h; the window "
	  "next opens at 2026-12-02T02:00:00Z (in 16h 0m)\n" },
	{ "none outside the window: held", "none", WINDOW, "2h", 1, 1,
	  T_OUTSIDE, 0, 1, 1, "(interruption: none; 1 NodeClaim, " },
	{ "checkpointed inside the window: applied", "checkpointed", WINDOW,
	  "2h", 1, 2, T_INSIDE, 0, 1, 0, NULL },
	{ "none inside the window: applied", "none", WINDOW, "2h", 1, 2,
	  T_INSIDE, 0, 1, 0, NULL },
	{ "the window's last minute is inside", "none", WINDOW, "2h", 1, 2,
	  T_INSIDE + 59 * 60, 0, 1, 0, NULL },
	{ "the window's end is outside", "none", WINDOW, "2h", 1, 2,
	  T_INSIDE + 60 * 60, 0, 1, 1, "(in 22h 0m)" },
	{ "tolerant allows drift at any time", "tolerant", WINDOW, "2h", 1, 2,
	  T_OUTSIDE, 0, 1, 0, NULL },
	{ "an unknown class is not guarded", "bogus", WINDOW, "2h", 1, 2,
	  T_OUTSIDE, 0, 1, 0, NULL },
	{ "--allow-node-replacement applies, with a note", "checkpointed",
	  WINDOW, "2h", 1, 2, T_OUTSIDE, 1, 1, 0,
	  "allowed by --allow-node-replacement: NodePool gpu " },
	{ "not enforcing (diff --live): counted, not held", "checkpointed",
	  WINDOW, "2h", 1, 2, T_OUTSIDE, 0, 0, 1, "would be held back: " },
	{ "a change that replaces no node always applies", "checkpointed",
	  WINDOW, "2h", 0, 2, T_OUTSIDE, 0, 1, 0, NULL },
	{ "no node in the pool: nothing to replace", "checkpointed", WINDOW,
	  "2h", 1, 0, T_OUTSIDE, 0, 1, 0, NULL },
	{ "no window: always outside", "checkpointed", NULL, NULL, 1, 2,
	  T_INSIDE, 0, 1, 1, ") and the pool has no maintenance window\n" },
	{ "a window without a duration: no window", "none", WINDOW, NULL, 1, 2,
	  T_INSIDE, 0, 1, 1, ") and the pool has no maintenance window\n" },
	{ "a malformed window: held, with the reason", "checkpointed",
	  "0 2 1 * *", "2h", 1, 2, T_INSIDE, 0, 1, 1,
	  "the pool has no maintenance window (schedule day-of-month and "
	  "month must be '*'" },
	{ "a malformed window, allowed", "none", "soon", "2h", 1, 2, T_INSIDE,
	  1, 1, 0, "allowed by --allow-node-replacement: " },
};

static cJSON *nodepool(const struct ni_case *tc, int changed)
{
	cJSON *o = cJSON_CreateObject(), *md, *ann, *spec, *tmpl;

	cJSON_AddStringToObject(o, "apiVersion", "karpenter.sh/v1");
	cJSON_AddStringToObject(o, "kind", "NodePool");
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", POOL);
	ann = cJSON_AddObjectToObject(md, "annotations");
	if (tc->mode)
		cJSON_AddStringToObject(ann, "gpuform.io/interruption",
					tc->mode);
	if (tc->sched)
		cJSON_AddStringToObject(ann, "gpuform.io/maintenance-window",
					tc->sched);
	if (tc->dur)
		cJSON_AddStringToObject(ann,
					"gpuform.io/maintenance-window-duration",
					tc->dur);
	spec = cJSON_AddObjectToObject(o, "spec");
	tmpl = cJSON_AddObjectToObject(spec, "template");
	cJSON_AddStringToObject(
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(tmpl, "metadata"),
					"labels"),
		"team", changed && tc->replaces ? "b" : "a");
	cJSON_AddStringToObject(
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(tmpl, "spec"),
					"nodeClassRef"),
		"name", "gpu");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(spec, "limits"),
				"nvidia.com/gpu",
				changed && !tc->replaces ? "16" : "8");
	return o;
}

static void put_claim(struct kube_fake *f, int i)
{
	char name[16], node[16];
	cJSON *o = cJSON_CreateObject(), *md;

	snprintf(name, sizeof(name), "gpu-%d", i);
	snprintf(node, sizeof(node), "node-%d", i);
	cJSON_AddStringToObject(o, "apiVersion", "karpenter.sh/v1");
	cJSON_AddStringToObject(o, "kind", "NodeClaim");
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "labels"),
				"karpenter.sh/nodepool", POOL);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "status"),
				"nodeName", node);
	kube_fake_put(f, o, NULL);
	cJSON_Delete(o);
}

START_TEST(test_guard)
{
	const struct ni_case *tc = &cases[_i];
	struct kube_fake *f = kube_fake_new();
	cJSON *desired = cJSON_CreateArray(), *live = nodepool(tc, 0);
	struct recon_change c;
	struct nodeimpact ni;
	struct err e = ERR_INIT;
	const char *notes;

	kube_fake_serve(f, "karpenter.sh/v1", "NodeClaim", "nodeclaims", 0);
	kube_fake_serve(f, "v1", "Pod", "pods", 1);
	for (int i = 0; i < tc->claims; i++)
		put_claim(f, i);
	cJSON_AddItemToArray(desired, nodepool(tc, 1));
	nodeimpact_init(&ni, desired);
	ni.allow_replacement = tc->allow;
	ni.enforce = tc->enforce;
	ni.now = (time_t)tc->now;
	c.live = live;
	c.next = desired->child;
	c.hold = 0;

	ck_assert_msg(nodeimpact_guard(&ni, kube_fake_client(f), &c, 1, &e) == 0,
		      "%s: %s", tc->what, err_msg(&e));
	ck_assert_msg(ni.held == tc->held, "%s: held %d, want %d", tc->what,
		      ni.held, tc->held);
	ck_assert_msg(c.hold == (tc->held && tc->enforce), "%s: hold %d",
		      tc->what, c.hold);
	ck_assert_msg(ni.tally.counts[IMPACT_REPLACES] == (size_t)tc->replaces,
		      "%s: %zu node-replacing", tc->what,
		      ni.tally.counts[IMPACT_REPLACES]);
	notes = buf_cstr(&ni.notes);
	if (tc->note)
		ck_assert_msg(strstr(notes, tc->note), "%s: notes \"%s\"",
			      tc->what, notes);
	else
		ck_assert_msg(!*notes, "%s: notes \"%s\"", tc->what, notes);
	/* the guard lists NodeClaims only when a change replaces nodes */
	ck_assert_int_eq(kube_fake_count(f, "LIST NodeClaim"),
			 tc->replaces ? 1 : 0);

	nodeimpact_release(&ni);
	cJSON_Delete(desired);
	cJSON_Delete(live);
	kube_fake_free(f);
}
END_TEST

/* ---- the report text: items, and diff --live's selection ------------------ */

START_TEST(test_report_text)
{
	static char diff[] = "--- live\n+++ desired\n", detail[] = "field .data.a";
	static char cl[] = "c", commit[] = "abc123";
	struct recon_item items[] = {
		{ { "karpenter.sh/v1", "NodePool", NULL, "gpu" }, RA_CONFIGURED,
		  1, NULL, diff },
		{ { "v1", "ConfigMap", "kube-system", "cm" }, RA_PRUNED, 1, NULL,
		  NULL },
		{ { "v1", "ConfigMap", "kube-system", "x" }, RA_CONFLICT, 1,
		  detail, NULL },
		{ { "v1", "ConfigMap", "kube-system", "same" }, RA_UNCHANGED, 1,
		  NULL, NULL },
	};
	struct recon_report rep = RECON_REPORT_INIT;
	struct nodeimpact ni;
	struct buf b = BUF_INIT;

	rep.items = items;
	rep.nr = 4;
	nodeimpact_init(&ni, NULL);
	nodeimpact_item_text(&b, &items[0]);
	ck_assert_str_eq(buf_cstr(&b),
			 "nodepool.karpenter.sh/gpu configured (dry run)\n");
	buf_reset(&b);
	/* a conflict is no dry-run action; the detail follows */
	nodeimpact_item_text(&b, &items[2]);
	ck_assert_str_eq(buf_cstr(&b), "configmap/x -n kube-system conflict: "
				       "field .data.a\n");
	buf_reset(&b);
	/* diff --live: the diff, the prune, the conflict; not the unchanged */
	nodeimpact_diff_text(&b, &ni, &rep, 0);
	ck_assert_str_eq(buf_cstr(&b),
			 "--- live\n+++ desired\n"
			 "configmap/cm -n kube-system pruned (dry run)\n"
			 "configmap/x -n kube-system conflict: field .data.a\n");
	buf_reset(&b);
	nodeimpact_run_text(&b, &ni, &rep, 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "configmap/same -n "
						   "kube-system unchanged\n"));
	/* the last line: the verb, the counts that are not 0, the commit */
	buf_reset(&b);
	rep.cluster = cl;
	rep.dry_run = 1;
	rep.counts[RA_CONFIGURED] = 1;
	rep.counts[RA_PRUNED] = 1;
	rep.counts[RA_CONFLICT] = 1;
	rep.stats.requests = 7;
	rep.stats.writes = 0;
	nodeimpact_summary_text(&b, &ni, &rep, 0);
	ck_assert_str_eq(buf_cstr(&b),
			 "dry run for c: 0 created, 1 configured, 0 unchanged, "
			 "1 pruned, 1 conflicts (7 API requests, 0 writes)\n");
	buf_reset(&b);
	rep.cluster = NULL;
	rep.source_commit = commit;
	rep.counts[RA_SKIPPED] = 2;
	rep.counts[RA_FAILED] = 3;
	rep.counts[RA_CONFLICT] = 0;
	nodeimpact_summary_text(&b, &ni, &rep, 1);
	ck_assert_str_eq(buf_cstr(&b),
			 "reconcile failed for ?: 0 created, 1 configured, 0 "
			 "unchanged, 1 pruned, 2 skipped, 3 failed (7 API "
			 "requests, 0 writes) from commit abc123\n");
	buf_reset(&b);
	rep.dry_run = 0;
	rep.cluster = cl;
	rep.source_commit = NULL;
	memset(rep.counts, 0, sizeof(rep.counts));
	nodeimpact_summary_text(&b, &ni, &rep, 0);
	ck_assert_str_eq(buf_cstr(&b),
			 "reconciled c: 0 created, 0 configured, 0 unchanged, "
			 "0 pruned (7 API requests, 0 writes)\n");
	buf_release(&b);
	nodeimpact_release(&ni);
}
END_TEST

Suite *nodeimpact_suite(void)
{
	Suite *s = suite_create("nodeimpact");
	TCase *tc = tcase_create("guard");

	tcase_add_loop_test(tc, test_guard, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_report_text);
	suite_add_tcase(s, tc);
	return s;
}
