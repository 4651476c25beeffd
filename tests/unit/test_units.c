/*
 * tests/unit/test_units.c: Check suite for generator/units.c — GPU units
 * under sharing.
 *
 * The question every test here asks: can a full quota's worth of pods be
 * launched under the NodePool's limits, as Karpenter counts them? The
 * answer is computed twice: by units_launchable() (what plan, validate and
 * lint use) and by karpenter_sim() below, an independent pod-by-pod model of
 * one batch of Karpenter's provisioning scheduler (kubernetes-sigs/karpenter
 * v1.14.1 pkg/controllers/provisioning/scheduling/scheduler.go): a new
 * NodeClaim may use every instance type whose capacity fits the remaining
 * limit (filterByRemainingResources); pods are added while some remaining
 * option holds one more; the NodeClaim then charges the remaining limit with
 * the largest capacity among its options (subtractMax). Nodes report
 * gpus x replicas (or x MIG instances), which is what the NodePool limit
 * counts (state/cluster.go updateNodePoolResources) and what the rendered
 * NodeOverlays tell the scheduler.
 *
 * Cases: hand-worked numbers; random small pools against the simulator;
 * every intent in specs/; every sharing mode (none, time-slicing replicas,
 * every MIG profile of every MIG-capable family) on its own pool.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/pipeline.h"
#include "generator/plan.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "generator/units.h"
#include "generator/validate.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/xalloc.h"

/*
 * karpenter_sim: launch `pods` pending pods one NodeClaim at a time under
 * `limit`; returns how many got a node. Independent of units_launchable:
 * pod by pod, no batching of equal steps.
 */
static long karpenter_sim(const struct units_node *n, size_t nn, long limit,
			  long pods)
{
	long placed = 0, rest = limit;
	char *opt = xcalloc(nn ? nn : 1, 1);

	/* each NodeClaim lowers rest by >= 1, so at most limit + 1 rounds */
	for (long round = 0; placed < pods && round <= limit; round++) {
		long on = 0, charge = 0;
		int any = 0;

		for (size_t i = 0; i < nn; i++) {
			opt[i] = n[i].cap > 0 && n[i].cap <= rest && n[i].pods > 0;
			any |= opt[i];
		}
		if (!any)
			break;
		/* add pods while some option holds one more */
		for (;;) {
			int more = 0;
			if (placed + on >= pods)
				break;
			for (size_t i = 0; i < nn; i++)
				more |= opt[i] && n[i].pods >= on + 1;
			if (!more)
				break;
			on++;
			for (size_t i = 0; i < nn; i++)
				if (opt[i] && n[i].pods < on)
					opt[i] = 0;
		}
		for (size_t i = 0; i < nn; i++)
			if (opt[i] && n[i].cap > charge)
				charge = n[i].cap;
		placed += on;
		rest -= charge;
	}
	free(opt);
	return placed;
}

/* ---- hand-worked numbers ---------------------------------------------------- */

START_TEST(test_launchable_by_hand)
{
	/* 1-, 4- and 8-GPU types, one-GPU pods: every unit of 12 is usable */
	struct units_node mixed[] = { { 1, 1 }, { 4, 4 }, { 8, 8 } };
	/* only 8-GPU nodes: a limit of 12 launches one node */
	struct units_node big[] = { { 8, 8 } };
	/* 3-GPU pods on 4-GPU nodes: one pod per node, 3 nodes under 12 */
	struct units_node odd[] = { { 4, 1 } };
	/* T4 x 8 replicas on g4dn.xlarge (cap 8) without prefix delegation:
	 * 29 max pods - 6 system = 23 slots, all 8 pods fit */
	struct units_node ts[] = { { 8, 8 }, { 32, 32 }, { 64, 64 } };

	ck_assert_int_eq(units_launchable(mixed, 3, 12), 12);
	ck_assert_int_eq(units_launchable(big, 1, 12), 8);
	ck_assert_int_eq(units_launchable(big, 1, 7), 0);
	ck_assert_int_eq(units_launchable(odd, 1, 12), 3);
	ck_assert_int_eq(units_launchable(ts, 3, 64), 64);
	ck_assert_int_eq(units_launchable(ts, 3, 0), 0);
	ck_assert_int_eq(units_launchable(NULL, 0, 64), 0);

	/* the defect: limit in physical GPUs (16) while nodes report
	 * 4 replicas each: only 16 of a quota of 64 can be launched */
	{
		struct units_node l4ts4[] = { { 4, 4 }, { 16, 16 }, { 32, 32 } };
		ck_assert_int_eq(units_launchable(l4ts4, 3, 16), 16);
		ck_assert_int_lt(units_launchable(l4ts4, 3, 16), 64);
		ck_assert_int_eq(units_launchable(l4ts4, 3, 64), 64);
	}

	/* units_node_of: pods bounded by the node's pod slots */
	{
		struct units_node x = units_node_of(8, 48, 1, 94);
		ck_assert_int_eq(x.cap, 384);
		ck_assert_int_eq(x.pods, 94);
		x = units_node_of(8, 1, 3, 100);
		ck_assert_int_eq(x.cap, 8);
		ck_assert_int_eq(x.pods, 2);
	}
}
END_TEST

/* a pool may hold every type of the catalog (units_plan_pool BUG()s past
 * UNITS_MAX_TYPES) */
START_TEST(test_catalog_fits)
{
	ck_assert_uint_le(catalog_builtin()->ntypes, UNITS_MAX_TYPES);
}
END_TEST

/* units_pod_slots: 110 with prefix delegation, the ENI limit without */
START_TEST(test_pod_slots)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_type *t;

	ck_assert_uint_gt(catalog_types_of(c, "g4dn", &t), 0);
	ck_assert_str_eq(t[0].name, "g4dn.xlarge");
	ck_assert_int_eq(units_pod_slots(&t[0], 0, 0), 29 - UNITS_SYSTEM_PODS);
	ck_assert_int_eq(units_pod_slots(&t[0], 1, 0),
			 UNITS_PD_MAX_PODS - UNITS_SYSTEM_PODS);
	ck_assert_int_eq(units_pod_slots(&t[0], 0, 50), 50 - UNITS_SYSTEM_PODS);
}
END_TEST

/* the fast path agrees with the pod-by-pod model on random small pools */
START_TEST(test_launchable_matches_simulation)
{
	unsigned seed = 12345;

	for (int iter = 0; iter < 3000; iter++) {
		struct units_node n[5];
		size_t nn;
		long limit, fast, sim;

		seed = seed * 1103515245u + 12345u;
		nn = 1 + (seed >> 16) % 5;
		for (size_t i = 0; i < nn; i++) {
			seed = seed * 1103515245u + 12345u;
			n[i].cap = 1 + (long)((seed >> 16) % 64);
			seed = seed * 1103515245u + 12345u;
			n[i].pods = (long)((seed >> 16) % (n[i].cap + 1));
		}
		seed = seed * 1103515245u + 12345u;
		limit = (long)((seed >> 16) % 400);
		fast = units_launchable(n, nn, limit);
		sim = karpenter_sim(n, nn, limit, 1L << 30);
		ck_assert_msg(fast == sim,
			      "iteration %d: units_launchable %ld, simulation "
			      "%ld (limit %ld, %zu types)",
			      iter, fast, sim, limit, nn);
	}
}
END_TEST

/* ---- the full-quota question for a planned pool -------------------------- */

/*
 * assert_quota_launchable: the pool's quota, in pods of gpusPerPod, gets
 * nodes under its limit in the simulation; the limit never buys more than
 * maxGpus physical GPUs; every admitted type holds a pod per unit.
 */
static void assert_quota_launchable(const char *what, const struct plan *p,
				    const struct plan_pool *pool)
{
	const struct workload *w = pool->w;
	const struct units_pool *u = &pool->units;
	struct units_node nodes[UNITS_MAX_TYPES];
	long per_pod = w->gpus_per_pod, pods, got;

	ck_assert_msg(u->ntypes > 0, "%s: no types", what);
	ck_assert_msg(pool->quota_gpu > 0, "%s: quota 0", what);
	ck_assert_msg(pool->quota_gpu <= pool->limit_gpu,
		      "%s: quota %ld above limit %ld", what, pool->quota_gpu,
		      pool->limit_gpu);
	ck_assert_msg(pool->quota_gpu % per_pod == 0,
		      "%s: quota %ld not whole pods of %ld", what,
		      pool->quota_gpu, per_pod);
	for (size_t i = 0; i < u->ntypes; i++) {
		const struct cat_type *t = u->types[i];
		long slots = units_pod_slots(t, p->in->prefix_delegation, 0);
		const struct cat_family *f =
			catalog_family(catalog_builtin(), t->family);
		long per_gpu = units_per_gpu(f, w->sharing, w->ts_replicas,
					     w->mig_profile);

		/* what the node reports: gpus x replicas / MIG instances */
		ck_assert_msg(u->cap[i] == (long)t->gpus * per_gpu,
			      "%s: %s capacity %ld, want %d x %ld", what,
			      t->name, u->cap[i], t->gpus, per_gpu);
		ck_assert_msg(u->cap[i] / per_pod <= slots,
			      "%s: %s holds %ld pods, needs %ld", what, t->name,
			      slots, u->cap[i] / per_pod);
		nodes[i] = units_node_of(t->gpus, per_gpu, per_pod, slots);
	}
	/* the physical spend bound: limit / smallest units per GPU */
	ck_assert_msg(pool->limit_gpu / pool->multiplier <= w->max_gpus,
		      "%s: limit %ld buys more than maxGpus %ld", what,
		      pool->limit_gpu, w->max_gpus);
	pods = pool->quota_gpu / per_pod;
	got = karpenter_sim(nodes, u->ntypes, pool->limit_gpu, pods);
	ck_assert_msg(got == pods,
		      "%s: a full quota is %ld pods of %ld, Karpenter launches "
		      "nodes for %ld under limit %ld",
		      what, pods, per_pod, got, pool->limit_gpu);
	/* and the quota is not needlessly small: one more pod would not fit */
	ck_assert_msg(karpenter_sim(nodes, u->ntypes, pool->limit_gpu,
				    pods + 1) == pods ||
			      pool->quota_gpu + per_pod > pool->limit_gpu,
		      "%s: quota %ld leaves launchable pods out", what,
		      pool->quota_gpu);
}

static int plan_text(struct plan *p, struct intent *in, const char *file,
		     const char *text, struct diags *d)
{
	struct err err = ERR_INIT;
	int ret;

	if (intent_read(in, file, text, strlen(text), d) < 0 || d->errors)
		return -1;
	if (validate_intent(in, catalog_builtin(), d))
		return -1;
	ret = plan_build(p, in, catalog_builtin(), d, &err);
	err_release(&err);
	return ret;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, NULL);
}

/* every example: every GPU pool can launch its whole quota */
START_TEST(test_specs_full_quota)
{
	glob_t g;
	size_t pools = 0, shared = 0;

	ck_assert_int_eq(glob("specs/*.yaml", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct diags d = DIAGS_INIT;
		struct intent in;
		struct plan p;
		struct buf msg = BUF_INIT;
		char *text = slurp(g.gl_pathv[i]);

		memset(&p, 0, sizeof(p));
		if (plan_text(&p, &in, g.gl_pathv[i], text, &d) < 0) {
			diags_format(&d, &msg);
			ck_abort_msg("%s: %s", g.gl_pathv[i], buf_cstr(&msg));
		}
		for (size_t j = 0; j < p.npools; j++) {
			char what[160];
			if (!p.pools[j].w)
				continue;
			snprintf(what, sizeof(what), "%s: %s", g.gl_pathv[i],
				 p.pools[j].name);
			assert_quota_launchable(what, &p, &p.pools[j]);
			pools++;
			shared += p.pools[j].w->sharing != SHARE_NONE;
		}
		plan_release(&p);
		intent_release(&in);
		diags_release(&d);
		buf_release(&msg);
		free(text);
	}
	globfree(&g);
	ck_assert_uint_ge(pools, 10);
	ck_assert_uint_ge(shared, 3); /* time-slicing and MIG are covered */
}
END_TEST

static void one_pool(const char *ami, const char *network,
		     const char *workload, const char *what)
{
	char *text = xasprintf("apiVersion: gpuform.io/v1alpha1\n"
			       "kind: ClusterIntent\n"
			       "metadata: {name: u}\n"
			       "spec:\n"
			       "  nodeRole: R\n"
			       "  ami: %s\n"
			       "%s"
			       "  maintenanceWindow: {schedule: \"0 2 * * sat\", "
			       "duration: 4h}\n"
			       "  workloads:\n"
			       "    - %s\n",
			       ami, network, workload);
	struct diags d = DIAGS_INIT;
	struct intent in;
	struct plan p;
	struct buf msg = BUF_INIT;

	memset(&p, 0, sizeof(p));
	if (plan_text(&p, &in, "u.yaml", text, &d) < 0) {
		diags_format(&d, &msg);
		ck_abort_msg("%s: %s", what, buf_cstr(&msg));
	}
	assert_quota_launchable(what, &p, &p.pools[0]);
	plan_release(&p);
	intent_release(&in);
	diags_release(&d);
	buf_release(&msg);
	free(text);
}

/* every sharing mode on its own pool, with and without prefix delegation */
START_TEST(test_sharing_modes_full_quota)
{
	static const char *const classes[] = { "t4", "a10g", "l4", "l40s",
					       "l4..l40s", "h100", "b200" };
	static const long replicas[] = { 2, 4, 8, 16, 48 };
	static const long max_gpus[] = { 1, 3, 8, 13, 64 };
	static const char *const nets[] = {
		"", "  network: {prefixDelegation: false}\n"
	};
	const struct catalog *c = catalog_builtin();
	char wl[256], what[300];
	size_t runs = 0;

	/* whole GPUs, several pod sizes */
	for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++)
		for (size_t m = 0; m < sizeof(max_gpus) / sizeof(max_gpus[0]);
		     m++) {
			snprintf(wl, sizeof(wl),
				 "{name: w, type: dev, gpu: \"%s\", maxGpus: %ld}",
				 classes[k], max_gpus[m] < 8 ? 8 : max_gpus[m]);
			snprintf(what, sizeof(what), "none %s", wl);
			one_pool("bottlerocket@v1.38.0", "", wl, what);
			runs++;
		}
	/* time-slicing: every replica count, both density regimes (the
	 * types that cannot hold the pods are left out, not counted) */
	for (size_t k = 0; k < 5; k++)
		for (size_t r = 0; r < sizeof(replicas) / sizeof(replicas[0]); r++)
			for (size_t n = 0; n < 2; n++) {
				struct diags d = DIAGS_INIT;
				struct intent in;
				struct plan p;
				char *text;

				snprintf(wl, sizeof(wl),
					 "{name: w, type: dev, gpu: \"%s\", "
					 "maxGpus: 13, sharing: {timeSlicing: "
					 "%ld}}",
					 classes[k], replicas[r]);
				snprintf(what, sizeof(what), "ts %s %s", wl,
					 n ? "no PD" : "PD");
				/* some of these are refused for density: that
				 * is validate's answer, and fine here */
				text = xasprintf(
					"apiVersion: gpuform.io/v1alpha1\n"
					"kind: ClusterIntent\nmetadata: {name: u}\n"
					"spec:\n  nodeRole: R\n"
					"  ami: bottlerocket@v1.38.0\n%s"
					"  workloads:\n    - %s\n",
					nets[n], wl);
				memset(&p, 0, sizeof(p));
				if (plan_text(&p, &in, "u.yaml", text, &d) == 0) {
					assert_quota_launchable(what, &p,
								&p.pools[0]);
					runs++;
					plan_release(&p);
				}
				intent_release(&in);
				diags_release(&d);
				free(text);
			}
	/* MIG: every profile of every MIG-capable GPU model */
	for (size_t f = 0; f < c->nfamilies; f++) {
		const struct cat_family *fam = &c->families[f];
		if (!fam->mig_model || fam->misreports)
			continue;
		for (size_t j = 0; j < fam->nmig; j++) {
			/* Bottlerocket maps no 4g profile (validate refuses
			 * it, tests/invalid/131) */
			if (!strncmp(fam->mig_profiles[j], "4g.", 3))
				continue;
			/* p5 has a 1-GPU size: maxGpus 3 is 3 p5.4xlarge */
			snprintf(wl, sizeof(wl),
				 "{name: w, type: dev, gpu: %s, maxGpus: %d, "
				 "sharing: {mig: %s}}",
				 fam->mig_model, strcmp(fam->name, "p5") ? 16 : 3,
				 fam->mig_profiles[j]);
			snprintf(what, sizeof(what), "mig %s (%s)", wl,
				 fam->name);
			one_pool("bottlerocket@v1.38.0", nets[1], wl, what);
			runs++;
		}
	}
	ck_assert_uint_ge(runs, 54);
}
END_TEST

/* the rendered NodeOverlays tell Karpenter each admitted type's capacity */
START_TEST(test_overlays_cover_shared_pools)
{
	struct tmpl_set *t = NULL;
	struct err err = ERR_INIT;
	struct rendered r = RENDERED_INIT;
	struct diags d = DIAGS_INIT;
	char *text = slurp("specs/bottlerocket-sharing.yaml");
	const cJSON *doc;
	int ci8 = 0, ci32 = 0, ci64 = 0, emb = 0;

	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	ck_assert_int_eq(pipeline_render(&r, "specs/bottlerocket-sharing.yaml",
					 text, strlen(text), t, &d, &err),
			 0);
	cJSON_ArrayForEach(doc, r.docs)
	{
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "kind");
		const cJSON *spec, *cap, *req, *types;
		const char *pool, *v;
		if (strcmp(k->valuestring, "NodeOverlay"))
			continue;
		spec = cJSON_GetObjectItemCaseSensitive(doc, "spec");
		cap = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(spec, "capacity"),
			"nvidia.com/gpu");
		req = cJSON_GetObjectItemCaseSensitive(spec, "requirements");
		pool = cJSON_GetArrayItem(
			       cJSON_GetObjectItemCaseSensitive(
				       cJSON_GetArrayItem(req, 0), "values"),
			       0)
			       ->valuestring;
		types = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(req, 1), "values");
		v = cap->valuestring;
		if (!strcmp(pool, "gpu-ci") && !strcmp(v, "8"))
			ci8 = cJSON_GetArraySize(types); /* 1-GPU g4dn x 8 */
		else if (!strcmp(pool, "gpu-ci") && !strcmp(v, "32"))
			ci32 = cJSON_GetArraySize(types); /* g4dn.12xlarge */
		else if (!strcmp(pool, "gpu-ci") && !strcmp(v, "64"))
			ci64 = cJSON_GetArraySize(types); /* g4dn.metal */
		else if (!strcmp(pool, "embeddings") && !strcmp(v, "56"))
			emb = cJSON_GetArraySize(types); /* p5e, p5en: 8 x 7 */
		else
			ck_abort_msg("unexpected overlay %s = %s", pool, v);
	}
	ck_assert_int_eq(ci8, 5);
	ck_assert_int_eq(ci32, 1);
	ck_assert_int_eq(ci64, 1);
	ck_assert_int_eq(emb, 2);
	/* and the gate that makes Karpenter read them */
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(
					r.addons, "karpenter-values.yaml"),
				"settings"),
			"featureGates"),
		"nodeOverlay")));
	rendered_release(&r);
	diags_release(&d);
	tmpl_set_free(t);
	err_release(&err);
	free(text);
}
END_TEST

Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("arithmetic");

	tcase_add_test(tc, test_launchable_by_hand);
	tcase_add_test(tc, test_pod_slots);
	tcase_add_test(tc, test_catalog_fits);
	tcase_add_test(tc, test_launchable_matches_simulation);
	suite_add_tcase(s, tc);

	tc = tcase_create("full-quota");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_specs_full_quota);
	tcase_add_test(tc, test_sharing_modes_full_quota);
	tcase_add_test(tc, test_overlays_cover_shared_pools);
	suite_add_tcase(s, tc);
	return s;
}
