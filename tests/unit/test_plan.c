/*
 * tests/unit/test_plan.c: Check suite for generator/plan.c — which
 * EC2NodeClasses a valid intent needs (sharing splits them on Bottlerocket
 * only), the NodePool per workload with its families, spot choice, Kueue
 * quotas (time-slicing and MIG multipliers, CPU and memory from the
 * largest per-GPU share), EFA per pod, the Kueue waitForPodsReady timeout
 * and the spot-to-spot warning.
 *
 * Intents are YAML strings read and validated in memory; the catalog is the
 * embedded one unless a case needs a smaller one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/interruption.h"
#include "generator/plan.h"
#include "generator/validate.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

/* ---- helpers ------------------------------------------------------------ */

struct fx {
	struct intent in;
	struct diags d;
	struct plan p;
};

#define BR "bottlerocket@v1.38.0"
#define AL "al2023@v20250505"

/*
 * build: read, validate (no errors allowed) and plan an intent made of a
 * fixed head (lines 1-6, ami on line 6), `spec` lines, then "  workloads:"
 * and `workloads` when that is not NULL.
 */
static void build(struct fx *fx, const struct catalog *cat, const char *ami,
		  const char *spec, const char *workloads)
{
	struct buf text = BUF_INIT, msg = BUF_INIT;
	struct err err = ERR_INIT;

	memset(fx, 0, sizeof(*fx));
	if (!cat)
		cat = catalog_builtin();
	buf_addf(&text,
		 "apiVersion: gpuform.io/v1alpha1\n" /* 1 */
		 "kind: ClusterIntent\n"             /* 2 */
		 "metadata: {name: c1}\n"            /* 3 */
		 "spec:\n"                           /* 4 */
		 "  nodeRole: r\n"                   /* 5 */
		 "  ami: %s\n"                       /* 6 */
		 "%s",
		 ami, spec ? spec : "");
	if (workloads)
		buf_addf(&text, "  workloads:\n%s", workloads);
	ck_assert_int_eq(intent_read(&fx->in, "p.yaml", buf_cstr(&text),
				     text.len, &fx->d),
			 0);
	validate_intent(&fx->in, cat, &fx->d);
	diags_format(&fx->d, &msg);
	ck_assert_msg(fx->d.errors == 0, "intent:\n%s\nerrors:\n%s",
		      buf_cstr(&text), buf_cstr(&msg));
	ck_assert_msg(plan_build(&fx->p, &fx->in, cat, &fx->d, &err) == 0,
		      "plan_build: %s", err_msg(&err));
	buf_release(&text);
	buf_release(&msg);
	err_release(&err);
}

static void release(struct fx *fx)
{
	plan_release(&fx->p);
	intent_release(&fx->in);
	diags_release(&fx->d);
}

static const struct plan_pool *pool(const struct fx *fx, const char *name)
{
	for (size_t i = 0; i < fx->p.npools; i++)
		if (!strcmp(fx->p.pools[i].name, name))
			return &fx->p.pools[i];
	ck_abort_msg("no pool '%s'", name);
	return NULL;
}

static const struct plan_nodeclass *nodeclass_of(const struct fx *fx,
						 const char *pool_name)
{
	const struct plan_pool *pl = pool(fx, pool_name);

	ck_assert_uint_lt(pl->nodeclass, fx->p.nnodeclasses);
	return &fx->p.nodeclasses[pl->nodeclass];
}

/* the families of a pool joined with ',' (catalog order) */
static void pool_families(const struct plan_pool *pl, struct buf *out)
{
	for (size_t i = 0; i < pl->nfams; i++)
		buf_addf(out, "%s%s", i ? "," : "", pl->fams[i]->name);
}

static void pool_gpu_names(const struct plan_pool *pl, struct buf *out)
{
	for (size_t i = 0; i < pl->ngpu_names; i++)
		buf_addf(out, "%s%s", i ? "," : "", pl->gpu_names[i]);
}

#define WINDOW "  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
#define SG "  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
#define CACHE "  imageCache: {snapshotID: snap-0123456789abcdef0, size: 300Gi}\n"
#define GENERAL "  generalPurpose: {enabled: true}\n"

/* ---- node classes ------------------------------------------------------- */

static const char mixed_workloads[] =
	"    - {name: a, type: dev, gpu: l4, maxGpus: 4, sharing: {timeSlicing: 4}}\n"
	"    - {name: b, type: inference, gpu: a100.80gb, maxGpus: 8, sharing: {mig: 1g.10gb}}\n"
	"    - {name: c, type: training, gpu: h100, gpusPerPod: 8, efa: true, maxGpus: 16}\n"
	"    - {name: d, type: inference, gpu: l4, maxGpus: 4}\n"
	"    - {name: e, type: dev, gpu: t4, maxGpus: 4, sharing: {timeSlicing: 4}}\n"
	"    - {name: f, type: inference, gpu: l40s, maxGpus: 4, sharing: {timeSlicing: 2}}\n";

START_TEST(test_nodeclasses_bottlerocket_split)
{
	struct fx fx;
	const struct plan_nodeclass *nc;

	build(&fx, NULL, BR, WINDOW SG GENERAL, mixed_workloads);
	ck_assert_int_eq(fx.p.al2023, 0);
	/* order of first use; the general class comes last */
	ck_assert_uint_eq(fx.p.nnodeclasses, 6);
	ck_assert_str_eq(fx.p.nodeclasses[0].name, "gpu-ts4");
	ck_assert_str_eq(fx.p.nodeclasses[1].name, "gpu-mig-1g-10gb");
	ck_assert_str_eq(fx.p.nodeclasses[2].name, "gpu-efa");
	ck_assert_str_eq(fx.p.nodeclasses[3].name, "gpu");
	ck_assert_str_eq(fx.p.nodeclasses[4].name, "gpu-ts2");
	ck_assert_str_eq(fx.p.nodeclasses[5].name, "general");

	nc = nodeclass_of(&fx, "a");
	ck_assert_str_eq(nc->name, "gpu-ts4");
	ck_assert_int_eq(nc->sharing, SHARE_TIMESLICING);
	ck_assert_int_eq(nc->ts_replicas, 4);
	ck_assert_int_eq(nc->general, 0);
	ck_assert_int_eq(nc->efa, 0);
	/* same sharing, other GPU: same class */
	ck_assert_ptr_eq(nodeclass_of(&fx, "e"), nc);

	nc = nodeclass_of(&fx, "b");
	ck_assert_int_eq(nc->sharing, SHARE_MIG);
	ck_assert_str_eq(nc->mig_profile, "1g.10gb");
	ck_assert_uint_eq(nc->nmig_models, 1);
	ck_assert_str_eq(nc->mig_models[0], "a100.80gb");

	nc = nodeclass_of(&fx, "c");
	ck_assert_int_eq(nc->efa, 1);
	ck_assert_int_eq(nc->sharing, SHARE_NONE);

	nc = nodeclass_of(&fx, "d");
	ck_assert_str_eq(nc->name, "gpu");
	ck_assert_int_eq(nc->sharing, SHARE_NONE);
	ck_assert_int_eq(nc->efa, 0);

	nc = nodeclass_of(&fx, "general");
	ck_assert_int_eq(nc->general, 1);
	ck_assert_ptr_null(pool(&fx, "general")->w);

	/* device-plugin configs are an AL2023 thing */
	for (size_t i = 0; i < fx.p.npools; i++)
		ck_assert_ptr_null(fx.p.pools[i].share_config);
	release(&fx);
}
END_TEST

START_TEST(test_nodeclasses_al2023_no_split)
{
	struct fx fx;

	/* MIG is refused on AL2023 (validate): the same without "b" */
	build(&fx, NULL, AL, WINDOW SG,
	      "    - {name: a, type: dev, gpu: l4, maxGpus: 4, sharing: {timeSlicing: 4}}\n"
	      "    - {name: c, type: training, gpu: h100, gpusPerPod: 8, efa: true, maxGpus: 16}\n"
	      "    - {name: d, type: inference, gpu: l4, maxGpus: 4}\n"
	      "    - {name: e, type: dev, gpu: t4, maxGpus: 4, sharing: {timeSlicing: 4}}\n"
	      "    - {name: f, type: inference, gpu: l40s, maxGpus: 4, sharing: {timeSlicing: 2}}\n");
	ck_assert_int_eq(fx.p.al2023, 1);
	/* sharing is a node label on AL2023: only EFA splits */
	ck_assert_uint_eq(fx.p.nnodeclasses, 2);
	ck_assert_str_eq(fx.p.nodeclasses[0].name, "gpu");
	ck_assert_str_eq(fx.p.nodeclasses[1].name, "gpu-efa");
	for (size_t i = 0; i < fx.p.nnodeclasses; i++) {
		ck_assert_int_eq(fx.p.nodeclasses[i].sharing, SHARE_NONE);
		ck_assert_uint_eq(fx.p.nodeclasses[i].nmig_models, 0);
	}
	ck_assert_str_eq(nodeclass_of(&fx, "a")->name, "gpu");
	ck_assert_str_eq(nodeclass_of(&fx, "c")->name, "gpu-efa");

	ck_assert_str_eq(pool(&fx, "a")->share_config, "ts-4");
	ck_assert_str_eq(pool(&fx, "e")->share_config, "ts-4");
	ck_assert_str_eq(pool(&fx, "f")->share_config, "ts-2");
	ck_assert_ptr_null(pool(&fx, "c")->share_config);
	ck_assert_ptr_null(pool(&fx, "d")->share_config);
	release(&fx);
}
END_TEST

START_TEST(test_mig_models)
{
	struct fx fx;
	const struct plan_nodeclass *nc;

	/* h200 is p5e and p5en, one Bottlerocket key */
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: m, type: inference, gpu: h200, maxGpus: 8, sharing: {mig: 1g.18gb}}\n");
	nc = nodeclass_of(&fx, "m");
	ck_assert_str_eq(nc->name, "gpu-mig-1g-18gb");
	ck_assert_uint_eq(nc->nmig_models, 1);
	ck_assert_str_eq(nc->mig_models[0], "h200.141gb");
	release(&fx);

	/* one profile on two GPU models: one class, both keys, sorted */
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: mx, type: inference, gpu: h100, maxGpus: 8, sharing: {mig: 1g.10gb}}\n"
	      "    - {name: my, type: inference, gpu: a100.80gb, maxGpus: 8, sharing: {mig: 1g.10gb}}\n");
	ck_assert_uint_eq(fx.p.nnodeclasses, 1);
	nc = &fx.p.nodeclasses[0];
	ck_assert_str_eq(nc->name, "gpu-mig-1g-10gb");
	ck_assert_uint_eq(nc->nmig_models, 2);
	ck_assert_str_eq(nc->mig_models[0], "a100.80gb");
	ck_assert_str_eq(nc->mig_models[1], "h100.80gb");
	release(&fx);
}
END_TEST

/* ---- quotas ------------------------------------------------------------- */

START_TEST(test_quota_multipliers)
{
	static const struct {
		const char *profile;
		long mult;
	} migs[] = { { "1g.10gb", 7 }, { "1g.20gb", 4 }, { "2g.20gb", 3 },
		     { "3g.40gb", 2 }, { "7g.80gb", 1 } };
	struct fx fx;

	build(&fx, NULL, BR, WINDOW,
	      "    - {name: ts, type: dev, gpu: l4, maxGpus: 16, sharing: {timeSlicing: 4}}\n"
	      "    - {name: plain, type: dev, gpu: l4, maxGpus: 16}\n");
	ck_assert_int_eq(pool(&fx, "ts")->multiplier, 4);
	ck_assert_int_eq(pool(&fx, "ts")->quota_gpu, 64);
	/* the limit is in the units the nodes report: replicas */
	ck_assert_int_eq(pool(&fx, "ts")->limit_gpu, 64);
	ck_assert_int_eq(pool(&fx, "plain")->multiplier, 1);
	ck_assert_int_eq(pool(&fx, "plain")->quota_gpu, 16);
	ck_assert_int_eq(pool(&fx, "plain")->limit_gpu, 16);
	/* CPU and memory follow the physical GPUs, not the replicas */
	ck_assert_int_eq(pool(&fx, "ts")->quota_cpu,
			 pool(&fx, "plain")->quota_cpu);
	ck_assert_int_eq(pool(&fx, "ts")->quota_mem_gib,
			 pool(&fx, "plain")->quota_mem_gib);
	release(&fx);

	for (size_t i = 0; i < sizeof(migs) / sizeof(migs[0]); i++) {
		char wl[256];
		snprintf(wl, sizeof(wl),
			 "    - {name: m, type: inference, gpu: h100, maxGpus: 2, "
			 "sharing: {mig: %s}}\n",
			 migs[i].profile);
		build(&fx, NULL, BR, WINDOW, wl);
		ck_assert_msg(pool(&fx, "m")->multiplier == migs[i].mult,
			      "%s: multiplier %ld", migs[i].profile,
			      pool(&fx, "m")->multiplier);
		ck_assert_int_eq(pool(&fx, "m")->quota_gpu, 2 * migs[i].mult);
		ck_assert_int_eq(pool(&fx, "m")->limit_gpu, 2 * migs[i].mult);
		release(&fx);
	}
}
END_TEST

START_TEST(test_quota_cpu_memory)
{
	struct fx fx;
	const struct plan_pool *pl;

	build(&fx, NULL, BR, WINDOW,
	      /* p5.4xlarge 16 vCPU/256 GiB per GPU, p5.48xlarge 24/256 */
	      "    - {name: h1, type: inference, gpu: h100, maxGpus: 16}\n"
	      "    - {name: h8, type: inference, gpu: h100, gpusPerPod: 8, maxGpus: 16}\n"
	      /* g6.16xlarge: 64 vCPU and 256 GiB for its one GPU */
	      "    - {name: l1, type: inference, gpu: l4, maxGpus: 2}\n"
	      /* >= 4 GPUs: g6.12xlarge 12/48 GiB, g6.24xlarge and
	       * g6.48xlarge 24/96 GiB */
	      "    - {name: l4x, type: inference, gpu: l4, gpusPerPod: 4, maxGpus: 8}\n");

	pl = pool(&fx, "h1");
	ck_assert_uint_eq(pl->ntypes, 2);
	ck_assert_int_eq(pl->quota_gpu, 16);
	ck_assert_int_eq(pl->quota_cpu, 16 * 24);
	ck_assert_int_eq(pl->quota_mem_gib, 16 * 256);

	pl = pool(&fx, "h8");
	ck_assert_uint_eq(pl->ntypes, 1);
	ck_assert_int_eq(pl->quota_cpu, 16 * 24);
	ck_assert_int_eq(pl->quota_mem_gib, 16 * 256);

	pl = pool(&fx, "l1");
	ck_assert_uint_eq(pl->ntypes, 10); /* 8 g6, 2 gr6 */
	ck_assert_int_eq(pl->quota_cpu, 2 * 64);
	ck_assert_int_eq(pl->quota_mem_gib, 2 * 256);

	pl = pool(&fx, "l4x");
	ck_assert_uint_eq(pl->ntypes, 3);
	ck_assert_int_eq(pl->quota_cpu, 8 * 24);
	ck_assert_int_eq(pl->quota_mem_gib, 8 * 96);
	release(&fx);
}
END_TEST

START_TEST(test_efa_per_pod)
{
	struct fx fx;
	const struct plan_pool *pl;

	/* Fixed bug (generator/plan.c plan_gpu_pool, now units.c
	 * efa_keep_largest): a pool whose types differ in EFA devices per
	 * GPU asked for the smallest share, so a pod on the larger type used
	 * part of its fabric. Now one share per pool: the largest, and the
	 * types that would give another are left out (units.efa_out). */
	build(&fx, NULL, BR, WINDOW SG,
	      /* p5.4xlarge: 1 EFA for 1 GPU; p5.48xlarge: 32 for 8, so 4
	       * per GPU: a 1-GPU pod asks for 4 and p5.4xlarge is left out */
	      "    - {name: h1, type: training, gpu: h100, efa: true, maxGpus: 16}\n"
	      "    - {name: h8, type: training, gpu: h100, gpusPerPod: 8, efa: true, maxGpus: 16}\n"
	      /* p5e 32, p5en 16; p5e has no on-demand price in Karpenter's
	       * table (reservedonly): without reservations 16, p5e left out */
	      "    - {name: h200, type: training, gpu: h200, gpusPerPod: 8, efa: true, maxGpus: 16}\n"
	      /* with a Capacity Block p5e can launch: 32, p5en left out */
	      "    - {name: h200cb, type: training, gpu: h200, gpusPerPod: 8, efa: true, maxGpus: 16, interruption: checkpointed, placement: {zone: us-east-1a}, capacity: {type: capacity-block, reservations: [{id: cr-0123456789abcdef0}]}}\n"
	      /* p4d/p4de 4, p5.48xlarge 32: 32, the A100s left out */
	      "    - {name: mix, type: training, gpu: [a100, h100], gpusPerPod: 8, efa: true, maxGpus: 16}\n"
	      /* only the g6 sizes with EFA (8xlarge and up) */
	      "    - {name: l, type: training, gpu: l4, efa: true, maxGpus: 4}\n"
	      "    - {name: none, type: training, gpu: l4, maxGpus: 4}\n");
	ck_assert_int_eq(fx.p.any_efa, 1);

	pl = pool(&fx, "h1");
	ck_assert_int_eq(pl->efa_per_pod, 4);
	ck_assert_int_eq(pl->quota_efa, 16 * 4);
	ck_assert_uint_eq(pl->units.ntypes, 1);
	ck_assert_str_eq(pl->units.types[0]->name, "p5.48xlarge");
	ck_assert_uint_eq(pl->units.nefa_out, 1);
	ck_assert_str_eq(pl->units.efa_out[0]->name, "p5.4xlarge");
	ck_assert_int_eq(pl->units.efa_out_share[0], 1);

	pl = pool(&fx, "h8");
	ck_assert_int_eq(pl->efa_per_pod, 32);
	ck_assert_int_eq(pl->quota_efa, 2 * 32);
	ck_assert_uint_eq(pl->units.nefa_out, 0);

	pl = pool(&fx, "h200");
	ck_assert_int_eq(pl->efa_per_pod, 16);
	ck_assert_int_eq(pl->quota_efa, 2 * 16);
	ck_assert_uint_eq(pl->units.ntypes, 1);
	ck_assert_str_eq(pl->units.types[0]->name, "p5en.48xlarge");
	ck_assert_uint_eq(pl->units.nefa_out, 1);
	ck_assert_str_eq(pl->units.efa_out[0]->name, "p5e.48xlarge");
	ck_assert_int_eq(pl->units.efa_out_share[0], 32);

	pl = pool(&fx, "h200cb");
	ck_assert_int_eq(pl->efa_per_pod, 32);
	ck_assert_uint_eq(pl->units.ntypes, 1);
	ck_assert_str_eq(pl->units.types[0]->name, "p5e.48xlarge");
	ck_assert_uint_eq(pl->units.nefa_out, 1);
	ck_assert_str_eq(pl->units.efa_out[0]->name, "p5en.48xlarge");
	{
		struct buf b = BUF_INIT;
		pool_families(pl, &b);
		ck_assert_str_eq(buf_cstr(&b), "p5e,p5en");
		buf_release(&b);
	}

	pl = pool(&fx, "mix");
	ck_assert_int_eq(pl->efa_per_pod, 32);
	ck_assert_uint_eq(pl->units.ntypes, 1);
	ck_assert_uint_eq(pl->units.nefa_out, 2);
	/* every type kept gives a pod the share it requests */
	for (size_t i = 0; i < fx.p.npools; i++) {
		const struct plan_pool *q = &fx.p.pools[i];
		if (!q->w || !q->w->efa)
			continue;
		for (size_t j = 0; j < q->units.ntypes; j++)
			ck_assert_int_eq(units_efa_share(q->units.types[j],
							 q->w->gpus_per_pod),
					 q->efa_per_pod);
	}

	pl = pool(&fx, "l");
	ck_assert_uint_eq(pl->ntypes, 6); /* g6.8xlarge and up, gr6.8xlarge */
	ck_assert_int_eq(pl->efa_per_pod, 1);
	ck_assert_int_eq(pl->quota_efa, 4);

	pl = pool(&fx, "none");
	ck_assert_int_eq(pl->efa_per_pod, 0);
	ck_assert_int_eq(pl->quota_efa, 0);
	ck_assert_uint_eq(pl->ntypes, 10);
	release(&fx);

	build(&fx, NULL, BR, WINDOW,
	      "    - {name: x, type: training, gpu: h100, maxGpus: 8}\n");
	ck_assert_int_eq(fx.p.any_efa, 0);
	release(&fx);
}
END_TEST

/* ---- spot, warnings, misc ------------------------------------------------ */

START_TEST(test_spot_by_interruption)
{
	struct fx fx;

	build(&fx, NULL, BR, WINDOW GENERAL,
	      "    - {name: non, type: inference, gpu: l4+, interruption: none, maxGpus: 4}\n"
	      "    - {name: c, type: training, gpu: l4+, interruption: checkpointed, maxGpus: 4}\n"
	      "    - {name: t, type: training, gpu: l4+, interruption: tolerant, maxGpus: 4}\n"
	      /* by type */
	      "    - {name: tr, type: training, gpu: l4+, maxGpus: 4}\n"
	      "    - {name: in, type: inference, gpu: l4+, maxGpus: 4}\n"
	      "    - {name: dv, type: dev, gpu: l4+, maxGpus: 4}\n");
	ck_assert_int_eq(pool(&fx, "non")->spot, 0);
	ck_assert_int_eq(pool(&fx, "c")->spot, 1);
	ck_assert_int_eq(pool(&fx, "t")->spot, 1);
	ck_assert_int_eq(pool(&fx, "tr")->spot, 0);
	/* inference defaults to none: on-demand */
	ck_assert_int_eq(pool(&fx, "in")->spot, 0);
	ck_assert_int_eq(pool(&fx, "dv")->spot, 1);
	ck_assert_int_eq(pool(&fx, "general")->spot, 1);
	ck_assert_int_eq(pool(&fx, "general")->multiplier, 1);
	ck_assert_uint_eq(fx.p.npools, 7);
	ck_assert_int_eq(fx.p.types_used[WL_TRAINING], 1);
	ck_assert_int_eq(fx.p.types_used[WL_INFERENCE], 1);
	ck_assert_int_eq(fx.p.types_used[WL_DEV], 1);
	/* spot pools with types that have 15 cheaper ones */
	ck_assert_int_eq(fx.p.spot_to_spot, 1);
	release(&fx);
}
END_TEST

/* workloads[].capacity: a reserved workload gets an EC2NodeClass of its
 * own (terms on a class apply to every NodePool referencing it); the
 * capacity types are reserved plus the stated fallback, sorted */
static void captypes(const struct plan_pool *pl, struct buf *out)
{
	for (size_t i = 0; i < pl->ncaptypes; i++)
		buf_addf(out, "%s%s", i ? "," : "", pl->captypes[i]);
}

START_TEST(test_reserved_capacity)
{
	struct fx fx;
	struct buf b = BUF_INIT;
	const char *const want[][2] = {
		{ "w", "reserved" },
		{ "od", "on-demand,reserved" },
		{ "sp", "on-demand,reserved,spot" },
		{ "plain", "on-demand,spot" },
		{ "other", "on-demand,spot" },
	};

	build(&fx, NULL, BR, WINDOW,
	      "    - {name: w, type: training, gpu: l4, interruption: checkpointed, maxGpus: 4,\n"
	      "       capacity: {reservations: [{id: cr-0123456789abcdef0}]}}\n"
	      "    - {name: od, type: training, gpu: l4, interruption: checkpointed, maxGpus: 4,\n"
	      "       capacity: {reservations: [{tags: {team: ml}}], whenExhausted: on-demand}}\n"
	      "    - {name: sp, type: training, gpu: l4, interruption: tolerant, maxGpus: 4,\n"
	      "       capacity: {reservations: [{id: cr-0123456789abcdef1}], whenExhausted: spot}}\n"
	      "    - {name: plain, type: training, gpu: l4, interruption: checkpointed, maxGpus: 4}\n"
	      "    - {name: other, type: training, gpu: l4, interruption: checkpointed, maxGpus: 4}\n");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		buf_reset(&b);
		captypes(pool(&fx, want[i][0]), &b);
		ck_assert_str_eq(buf_cstr(&b), want[i][1]);
	}
	ck_assert_int_eq(pool(&fx, "w")->spot, 0);
	ck_assert_int_eq(pool(&fx, "od")->spot, 0);
	ck_assert_int_eq(pool(&fx, "sp")->spot, 1);
	ck_assert_str_eq(nodeclass_of(&fx, "w")->name, "gpu-reserved-w");
	ck_assert_ptr_eq(nodeclass_of(&fx, "w")->reserved_for, pool(&fx, "w")->w);
	ck_assert_str_eq(nodeclass_of(&fx, "od")->name, "gpu-reserved-od");
	ck_assert_str_eq(nodeclass_of(&fx, "sp")->name, "gpu-reserved-sp");
	/* the unreserved pools share one class, which selects nothing */
	ck_assert_str_eq(nodeclass_of(&fx, "plain")->name, "gpu");
	ck_assert_ptr_eq(nodeclass_of(&fx, "plain"), nodeclass_of(&fx, "other"));
	ck_assert_ptr_null(nodeclass_of(&fx, "plain")->reserved_for);
	ck_assert_uint_eq(fx.p.nnodeclasses, 4);
	buf_release(&b);
	release(&fx);
}
END_TEST

START_TEST(test_spot_to_spot_warning)
{
	struct fx fx;
	const struct diag *g = NULL;

	/* t4 is g4dn only: 7 types. Lines: window 7, workloads 8 */
	build(&fx, NULL, BR, WINDOW,
	      "    - name: cheap\n"                 /* 9 */
	      "      type: dev\n"                   /* 10 */
	      "      gpu: t4\n"                     /* 11 */
	      "      maxGpus: 4\n");
	ck_assert_uint_eq(pool(&fx, "cheap")->ntypes, 7);
	ck_assert_uint_eq(fx.d.warnings, 1);
	for (size_t i = 0; i < fx.d.nr; i++)
		if (fx.d.items[i].sev == DIAG_WARNING)
			g = &fx.d.items[i];
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(strstr(g->msg, "pool 'cheap' offers 7 instance "
					     "types and none has 15 cheaper"));
	ck_assert_ptr_nonnull(g->hint);
	ck_assert_ptr_nonnull(strstr(g->hint, "l4+"));
	ck_assert_int_eq(g->line, 11);
	ck_assert_int_eq(g->col, 12);
	ck_assert_uint_eq(pool(&fx, "cheap")->s2s_types, 0);
	ck_assert_int_eq(fx.p.spot_to_spot, 0);
	release(&fx);

	/* l4+ has 25 types: those with 15 cheaper ones can be replaced */
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: wide, type: dev, gpu: l4+, maxGpus: 4}\n");
	ck_assert_uint_eq(pool(&fx, "wide")->ntypes, 25);
	ck_assert_uint_gt(pool(&fx, "wide")->s2s_types, 0);
	ck_assert_uint_le(pool(&fx, "wide")->s2s_types, 25 - 15);
	ck_assert_uint_eq(fx.d.warnings, 0);
	ck_assert_int_eq(fx.p.spot_to_spot, 1);
	release(&fx);

	/* a checkpointed spot pool also counts: the gate acts on it inside
	 * its window (its Underutilized budget), which its class allows */
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: c, type: inference, gpu: l4+, interruption: checkpointed, maxGpus: 4}\n");
	ck_assert_int_eq(pool(&fx, "c")->spot, 1);
	ck_assert_uint_eq(fx.d.warnings, 0);
	ck_assert_int_eq(fx.p.spot_to_spot, 1);
	release(&fx);

	/* not tolerant: no warning however few the types; no gate */
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: c, type: inference, gpu: h100, interruption: checkpointed, maxGpus: 4}\n"
	      "    - {name: non, type: training, gpu: t4, maxGpus: 4}\n");
	ck_assert_uint_eq(pool(&fx, "c")->ntypes, 2);
	ck_assert_uint_eq(fx.d.warnings, 0);
	ck_assert_int_eq(fx.p.spot_to_spot, 0);
	/* on-demand pools never take part, however wide */
	release(&fx);
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: od, type: training, gpu: l4+, maxGpus: 4}\n");
	ck_assert_uint_gt(pool(&fx, "od")->s2s_types, 0);
	ck_assert_int_eq(fx.p.spot_to_spot, 0);
	release(&fx);
}
END_TEST

/* Karpenter's rule: a node can be replaced by cheaper spot only with 15
 * strictly cheaper types (consolidation.go) */
START_TEST(test_spot_to_spot_rule)
{
	double p[20];

	for (int i = 0; i < 20; i++)
		p[i] = 1.0 + i;
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 15), 0);
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 16), 1);
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 20), 5);
	/* ties are not cheaper */
	for (int i = 0; i < 20; i++)
		p[i] = i < 15 ? 1.0 : 2.0;
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 20), 5);
	for (int i = 0; i < 20; i++)
		p[i] = i < 14 ? 1.0 : 2.0;
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 20), 0);
	ck_assert_uint_eq(spot_to_spot_replaceable(p, 0), 0);
}
END_TEST

START_TEST(test_wait_for_pods_ready)
{
	/* a catalog whose largest type has 4 GPUs */
	static const char small[] =
		"class\tv100\t2\tp3\n"
		"family\tp3\tv100\t-\t-\t0\n"
		"type\tp3.2xlarge\tp3\t1\t16384\t8\t62464\t0\t3.06\tamd64\n"
		"type\tp3.8xlarge\tp3\t4\t16384\t32\t249856\t0\t12.24\tamd64\n";
	struct catalog cat = CATALOG_INIT;
	struct err err = ERR_INIT;
	struct fx fx;

	/* node start 10 + image pull 10 (2 from a snapshot) + 5 for pools
	 * that can get 8-GPU nodes */
	build(&fx, NULL, BR, GENERAL, NULL);
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 20);
	release(&fx);
	build(&fx, NULL, BR, GENERAL CACHE, NULL);
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 12);
	release(&fx);
	build(&fx, NULL, BR, WINDOW,
	      "    - {name: x, type: inference, gpu: l4, maxGpus: 4}\n");
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 25);
	release(&fx);
	build(&fx, NULL, BR, WINDOW CACHE,
	      "    - {name: x, type: inference, gpu: l4, maxGpus: 4}\n");
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 17);
	release(&fx);

	ck_assert_int_eq(catalog_parse(&cat, small, strlen(small), "s.tsv", &err),
			 0);
	build(&fx, &cat, BR, WINDOW,
	      "    - {name: x, type: inference, gpu: v100, maxGpus: 4}\n");
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 20);
	release(&fx);
	build(&fx, &cat, BR, WINDOW CACHE,
	      "    - {name: x, type: inference, gpu: v100, maxGpus: 4}\n");
	ck_assert_int_eq(fx.p.wait_for_pods_ready_min, 12);
	release(&fx);
	catalog_release(&cat);
	err_release(&err);
}
END_TEST

START_TEST(test_namespaces_and_gpu_names)
{
	struct fx fx;
	struct buf b = BUF_INIT;

	build(&fx, NULL, BR, WINDOW,
	      "    - {name: a, type: dev, gpu: [l4, a10g, l4], maxGpus: 4, namespace: zeta}\n"
	      "    - {name: b, type: dev, gpu: l4+, maxGpus: 4, namespace: alpha}\n"
	      "    - {name: c, type: dev, gpu: h100, maxGpus: 4, namespace: zeta}\n"
	      "    - {name: d, type: dev, gpu: t4, maxGpus: 4}\n");
	ck_assert_uint_eq(fx.p.nnamespaces, 3);
	ck_assert_str_eq(fx.p.namespaces[0], "alpha");
	ck_assert_str_eq(fx.p.namespaces[1], "d");
	ck_assert_str_eq(fx.p.namespaces[2], "zeta");

	pool_gpu_names(pool(&fx, "a"), &b);
	ck_assert_str_eq(buf_cstr(&b), "a10g,l4");
	buf_reset(&b);
	pool_families(pool(&fx, "a"), &b);
	ck_assert_str_eq(buf_cstr(&b), "g6,gr6,g5");
	buf_reset(&b);
	pool_gpu_names(pool(&fx, "b"), &b);
	ck_assert_str_eq(buf_cstr(&b), "a100,b200,h100,h200,l4,l40s");
	buf_reset(&b);
	pool_gpu_names(pool(&fx, "c"), &b);
	ck_assert_str_eq(buf_cstr(&b), "h100");
	buf_release(&b);
	ck_assert_ptr_eq(pool(&fx, "a")->w, &fx.in.workloads[0]);
	ck_assert_int_eq(fx.p.has_window, 1);
	ck_assert_int_eq(fx.p.window.dow, 6);
	ck_assert_int_eq(fx.p.window.hour, 2);
	ck_assert_int_eq(fx.p.window.duration, 240);
	ck_assert_ptr_eq(fx.p.in, &fx.in);
	release(&fx);

	build(&fx, NULL, BR, GENERAL, NULL);
	ck_assert_int_eq(fx.p.has_window, 0);
	ck_assert_uint_eq(fx.p.nnamespaces, 0);
	ck_assert_uint_eq(fx.p.npools, 1);
	ck_assert_str_eq(fx.p.pools[0].name, "general");
	release(&fx);
}
END_TEST

START_TEST(test_gpu_families_for_general_pool)
{
	const struct catalog *cat = catalog_builtin();
	struct fx fx;
	int g6f = 0, gr6f = 0, p5 = 0, g6 = 0;

	build(&fx, NULL, BR, GENERAL, NULL);
	ck_assert_uint_eq(fx.p.ngpu_families, cat->nfamilies);
	for (size_t i = 0; i < fx.p.ngpu_families; i++) {
		const char *f = fx.p.gpu_families[i];
		if (i)
			ck_assert_msg(strcmp(fx.p.gpu_families[i - 1], f) < 0,
				      "not sorted at %s", f);
		g6f |= !strcmp(f, "g6f");
		gr6f |= !strcmp(f, "gr6f");
		p5 |= !strcmp(f, "p5");
		g6 |= !strcmp(f, "g6");
	}
	/* the misreporting fractional L4s are named too */
	ck_assert(g6f && gr6f && p5 && g6);
	release(&fx);
}
END_TEST

START_TEST(test_unvalidated_intent_fails)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: c}\nspec:\n  nodeRole: r\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  workloads:\n"
		"    - {name: ok, type: dev, gpu: l4, maxGpus: 1}\n"
		"    - {name: x, type: dev, gpu: nosuch, maxGpus: 1}\n";
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct intent in;
	struct plan p;

	ck_assert_int_eq(intent_read(&in, "p.yaml", text, strlen(text), &d), 0);
	ck_assert_int_eq(plan_build(&p, &in, catalog_builtin(), &d, &err), -1);
	ck_assert_int_eq(err.code, ERR_INTERNAL);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "workload 'x'"));
	intent_release(&in);
	diags_release(&d);
	err_release(&err);
}
END_TEST

Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc;

	tc = tcase_create("nodeclass");
	tcase_add_test(tc, test_nodeclasses_bottlerocket_split);
	tcase_add_test(tc, test_reserved_capacity);
	tcase_add_test(tc, test_nodeclasses_al2023_no_split);
	tcase_add_test(tc, test_mig_models);
	suite_add_tcase(s, tc);

	tc = tcase_create("quota");
	tcase_add_test(tc, test_quota_multipliers);
	tcase_add_test(tc, test_quota_cpu_memory);
	tcase_add_test(tc, test_efa_per_pod);
	suite_add_tcase(s, tc);

	tc = tcase_create("pool");
	tcase_add_test(tc, test_spot_by_interruption);
	tcase_add_test(tc, test_spot_to_spot_warning);
	tcase_add_test(tc, test_spot_to_spot_rule);
	tcase_add_test(tc, test_wait_for_pods_ready);
	tcase_add_test(tc, test_namespaces_and_gpu_names);
	tcase_add_test(tc, test_gpu_families_for_general_pool);
	tcase_add_test(tc, test_unvalidated_intent_fails);
	suite_add_tcase(s, tc);
	return s;
}
