/*
 * tests/unit/test_capacity.c: Check suite for generator/capacity.c — the
 * capacity model validate, lint and `gpuform plan` share.
 *
 * Every expected number is worked by hand from the catalog rows named in
 * the comment (generator/catalog.tsv: `type NAME FAMILY GPUS GPU-MEM VCPU
 * MEM EFA PRICE ARCH` and `eni TYPE ENIS IPV4-PER-ENI`). Pod slots are
 * ENIS * (IPV4 - 1) + 2 - 6 system pods (units.h) without prefix
 * delegation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glob.h>

#include <check.h>

#include "generator/capacity.h"
#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/pricelist.h"
#include "generator/spotprices.h"
#include "generator/validate.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

struct fx {
	struct intent in;
	struct diags d;
	struct capacity c;
};

/*
 * model: read and validate (rules other than capacity: none may fail) an
 * intent whose one workload is `wl` (list-item lines), then build the
 * capacity model of that workload with the built-in prices.
 */
static void model(struct fx *fx, const char *ami, const char *network,
		  const char *wl, long zone_max_nodes)
{
	const struct catalog *cat = catalog_builtin();
	const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
	struct capacity_opts o = { zone_max_nodes };
	struct buf text = BUF_INIT, why = BUF_INIT;
	int n;

	memset(fx, 0, sizeof(*fx));
	buf_addf(&text,
		 "apiVersion: gpuform.io/v1alpha1\n"
		 "kind: ClusterIntent\n"
		 "metadata: {name: c1}\n"
		 "spec:\n"
		 "  nodeRole: r\n"
		 "  ami: %s\n"
		 "  network: {prefixDelegation: false%s}\n"
		 "  workloads:\n"
		 "%s",
		 ami, network ? network : "", wl);
	ck_assert_int_eq(intent_read(&fx->in, "t.yaml", buf_cstr(&text),
				     text.len, &fx->d), 0);
	validate_intent_opts(&fx->in, cat, 0, &fx->d);
	if (fx->d.errors) {
		struct buf out = BUF_INIT;
		diags_format(&fx->d, &out);
		ck_abort_msg("unexpected errors:\n%s", buf_cstr(&out));
	}
	ck_assert_uint_eq(fx->in.nworkloads, 1);
	n = validate_families(&fx->in.workloads[0], cat, fams, &why);
	ck_assert_int_gt(n, 0);
	capacity_build(&fx->c, &fx->in, &fx->in.workloads[0], fams, (size_t)n,
		       cat, NULL, &o);
	buf_release(&text);
	buf_release(&why);
}

static void fx_release(struct fx *fx)
{
	intent_release(&fx->in);
	diags_release(&fx->d);
}

#define USD_EQ(a, b) ck_assert_msg(fabs((a) - (b)) < 1e-6, "%f != %f", \
				   (double)(a), (double)(b))

static const struct capacity_type *type_of(const struct capacity *c,
					   const char *name)
{
	for (size_t i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].t->name, name))
			return &c->types[i];
	return NULL;
}

#define EFA_NET ", efaSecurityGroup: sg-0a1b2c3d4e5f60718"
#define BR "bottlerocket@v1.38.0"
#define AL "al2023@v20250505"

/*
 * 16 pods x 8 GPUs on p5 with EFA, maxGpus 128.
 * Rows: type p5.4xlarge p5 1 ... EFA 1 PRICE 6.88 (1 GPU: out, gpusPerPod
 * 8); type p5.48xlarge p5 8 ... EFA 32 PRICE 55.04; eni p5.48xlarge 2 50
 * -> 2*49+2 = 100 max pods, 94 slots.
 * One 8-GPU pod per node; limit 128 -> 16 pods, 16 nodes; the gang takes
 * all 16: 16 x 55.04 = 880.64 USD/h, 16 x 32 = 512 EFA interfaces.
 */
START_TEST(test_p5_gang_of_16)
{
	struct fx fx;
	const struct capacity_type *t;

	model(&fx, AL, EFA_NET,
	      "    - name: train\n"
	      "      type: training\n"
	      "      gpu: h100\n"
	      "      gpusPerPod: 8\n"
	      "      gang: 16\n"
	      "      efa: true\n"
	      "      interruption: checkpointed\n"
	      "      maxGpus: 128\n",
	      0);
	ck_assert_uint_eq(fx.c.ntypes, 1);
	t = type_of(&fx.c, "p5.48xlarge");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->cap, 8);
	ck_assert_int_eq(t->slots, 94);
	ck_assert_int_eq(t->pods, 1);
	ck_assert_int_eq(fx.c.max_gpus, 128);
	ck_assert_int_eq(fx.c.units, 128);
	ck_assert_int_eq(fx.c.quota, 128);
	ck_assert_int_eq(fx.c.pods_max, 16);
	ck_assert_int_eq(fx.c.nodes_max, 16);
	USD_EQ(fx.c.usd_max, 880.64);
	ck_assert_int_eq(fx.c.usd_bound, 0);
	ck_assert_int_eq(fx.c.gang, 16);
	ck_assert_ptr_eq(fx.c.cheapest.ty, t);
	ck_assert_int_eq(fx.c.cheapest.nodes, 16);
	USD_EQ(fx.c.cheapest.usd, 880.64);
	ck_assert_int_eq(fx.c.cheapest.efa, 512);
	ck_assert_ptr_eq(fx.c.largest.ty, t);
	ck_assert_int_eq(fx.c.needs_one_zone, 1);
	ck_assert_int_eq(fx.c.zone_fits, -1); /* no per-zone limit stated */
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	fx_release(&fx);
}
END_TEST

/*
 * The same gang when one zone gives at most 8 p5.48xlarge (e.g. the size
 * of the team's capacity reservation there): 16 nodes cannot be in one
 * zone, and EFA needs them there -> an error at `gang`. With 16 per zone
 * it fits; without EFA the gang may spread over zones (no finding).
 */
START_TEST(test_gang_cannot_fit_one_zone)
{
	static const char wl[] = "    - name: train\n"
				 "      type: training\n"
				 "      gpu: h100\n"
				 "      gpusPerPod: 8\n"
				 "      gang: 16\n"
				 "      efa: true\n"
				 "      interruption: checkpointed\n"
				 "      maxGpus: 128\n";
	struct fx fx;

	model(&fx, AL, EFA_NET, wl, 8);
	ck_assert_int_eq(fx.c.largest.nodes, 16);
	ck_assert_int_eq(fx.c.zone_fits, 0);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 1);
	ck_assert_int_eq(fx.d.items[fx.d.nr - 1].line, 13); /* gang: 16 */
	ck_assert_ptr_nonnull(strstr(fx.d.items[fx.d.nr - 1].msg,
				     "needs 16 p5.48xlarge nodes in one "
				     "Availability Zone"));
	ck_assert_ptr_nonnull(strstr(fx.d.items[fx.d.nr - 1].msg,
				     "at most 8"));
	fx_release(&fx);

	model(&fx, AL, EFA_NET, wl, 16);
	ck_assert_int_eq(fx.c.zone_fits, 1);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	fx_release(&fx);

	model(&fx, AL, NULL,
	      "    - name: train\n"
	      "      type: training\n"
	      "      gpu: h100\n"
	      "      gpusPerPod: 8\n"
	      "      gang: 16\n"
	      "      interruption: checkpointed\n"
	      "      maxGpus: 128\n",
	      8);
	ck_assert_int_eq(fx.c.needs_one_zone, 0);
	ck_assert_int_eq(fx.c.zone_fits, 0);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	fx_release(&fx);
}
END_TEST

/*
 * Time-sliced L4 inference: gpu l4 (families g6, gr6), 4 replicas,
 * maxGpus 16 -> limit 64 units, 64 one-unit pods, quota 64.
 * Rows: type g6.xlarge 1 GPU PRICE 0.805, eni g6.xlarge 4 15 -> 58 max
 * pods, 52 slots, cap 4, 4 pods; type g6.48xlarge 8 GPUs 13.350, eni 15 50
 * -> 737, 731 slots, cap 32; type g6.16xlarge 1 GPU 3.397 (the most per
 * unit: 3.397 / 4). Most nodes: 64 / 4 = 16. Costliest mix: 16 x
 * g6.16xlarge = 54.352 USD/h. One pod: cheapest on g6.xlarge, 0.805.
 */
START_TEST(test_timesliced_l4)
{
	struct fx fx;
	const struct capacity_type *t;

	model(&fx, BR, NULL,
	      "    - name: serve\n"
	      "      type: inference\n"
	      "      gpu: l4\n"
	      "      interruption: tolerant\n"
	      "      sharing: {timeSlicing: 4}\n"
	      "      maxGpus: 16\n",
	      0);
	ck_assert_uint_eq(fx.c.ntypes, 10); /* 8 g6 + 2 gr6 */
	ck_assert_uint_eq(fx.c.up.ndense, 0);
	t = type_of(&fx.c, "g6.xlarge");
	ck_assert_int_eq(t->cap, 4);
	ck_assert_int_eq(t->slots, 52);
	ck_assert_int_eq(t->pods, 4);
	t = type_of(&fx.c, "g6.48xlarge");
	ck_assert_int_eq(t->cap, 32);
	ck_assert_int_eq(t->slots, 731);
	ck_assert_int_eq(t->pods, 32);
	ck_assert_int_eq(fx.c.max_gpus, 16);
	ck_assert_int_eq(fx.c.units, 64);
	ck_assert_int_eq(fx.c.quota, 64);
	ck_assert_int_eq(fx.c.pods_max, 64);
	ck_assert_int_eq(fx.c.nodes_max, 16);
	USD_EQ(fx.c.usd_max, 54.352);
	ck_assert_int_eq(fx.c.gang, 1);
	ck_assert_str_eq(fx.c.cheapest.ty->t->name, "g6.xlarge");
	ck_assert_int_eq(fx.c.cheapest.nodes, 1);
	USD_EQ(fx.c.cheapest.usd, 0.805);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	fx_release(&fx);
}
END_TEST

/*
 * Time-slicing too dense for some types' pod slots: 48 replicas (the
 * most intent.c allows) on gpu l4, no prefix delegation.
 * g6.xlarge: 1 x 48 = 48 pods <= 52 slots: kept. g6.12xlarge (4 GPUs, eni
 * 8 30 -> 8*29+2 = 234, 228 slots): 192 pods, kept. g6.48xlarge (8 GPUs,
 * eni 15 50 -> 737, 731 slots): 384, kept. gr6.4xlarge (eni 8 30, 228
 * slots): kept. Nothing is left out.
 */
START_TEST(test_density_kept)
{
	struct fx fx;

	model(&fx, BR, NULL,
	      "    - name: serve\n"
	      "      type: inference\n"
	      "      gpu: l4\n"
	      "      interruption: tolerant\n"
	      "      sharing: {timeSlicing: 48}\n"
	      "      maxGpus: 4\n",
	      0);
	ck_assert_uint_eq(fx.c.up.ndense, 0);
	ck_assert_int_eq(type_of(&fx.c, "g6.xlarge")->pods, 48);
	ck_assert_int_eq(type_of(&fx.c, "g6.48xlarge")->pods, 384);
	ck_assert_int_eq(fx.c.units, 4 * 48);
	fx_release(&fx);
}
END_TEST

/*
 * Left out for density: t4 (g4dn) with 48 replicas. g4dn.xlarge,
 * 2xlarge, 4xlarge (eni 3 10 -> 3*9+2 = 29 max pods, 23 slots) would need
 * 48 pods: left out, one warning. g4dn.8xlarge (eni 4 15 -> 52 slots)
 * keeps 48; g4dn.12xlarge (4 GPUs, eni 8 30 -> 228 slots) keeps 192.
 */
START_TEST(test_density_left_out)
{
	struct fx fx;

	model(&fx, BR, NULL,
	      "    - name: ci\n"
	      "      type: dev\n"
	      "      gpu: t4\n"
	      "      interruption: tolerant\n"
	      "      sharing: {timeSlicing: 48}\n"
	      "      maxGpus: 8\n",
	      0);
	ck_assert_ptr_null(type_of(&fx.c, "g4dn.xlarge"));
	ck_assert_ptr_nonnull(type_of(&fx.c, "g4dn.12xlarge"));
	ck_assert_int_eq(type_of(&fx.c, "g4dn.12xlarge")->slots, 228);
	ck_assert_uint_eq(fx.c.up.ndense, 3);
	ck_assert_int_eq(type_of(&fx.c, "g4dn.8xlarge")->pods, 48);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	ck_assert_uint_eq(fx.d.warnings, 1); /* left out of the NodePool */
	fx_release(&fx);
}
END_TEST

/* a gang over GPU models with different memory: warned (issue 23:
 * gpu: a100 mixes p4d 40 GB and p4de 80 GB nodes); one model: not */
START_TEST(test_gang_memory_mix)
{
	struct fx fx;
	const struct diag *g = NULL;

	model(&fx, BR, NULL,
	      "    - {name: t, type: training, gpu: a100, gpusPerPod: 8, "
	      "gang: 2, maxGpus: 16}\n",
	      0);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	for (size_t i = 0; i < fx.d.nr && !g; i++)
		if (strstr(fx.d.items[i].msg, "may mix nodes with 40 GiB "
					      "(p4d.24xlarge) and 80 GiB "
					      "(p4de.24xlarge)"))
			g = &fx.d.items[i];
	ck_assert_msg(g != NULL, "no gang memory warning");
	ck_assert_int_eq(g->sev, DIAG_WARNING);
	fx_release(&fx);

	model(&fx, BR, NULL,
	      "    - {name: t, type: training, gpu: a100.80gb, gpusPerPod: 8, "
	      "gang: 2, maxGpus: 16}\n",
	      0);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	for (size_t i = 0; i < fx.d.nr; i++)
		ck_assert_msg(!strstr(fx.d.items[i].msg, "may mix"), "%s",
			      fx.d.items[i].msg);
	fx_release(&fx);
}
END_TEST

/*
 * MIG 1g.10gb on h100 (family p5, h100.80gb: 1g.10gb:7), maxGpus 16.
 * Rows: type p5.4xlarge 1 GPU 6.88, eni 4 30 -> 118 max pods, 112 slots,
 * cap 7; type p5.48xlarge 8 GPUs 55.04, eni 2 50 -> 94 slots, cap 56.
 * Limit 16 x 7 = 112 units; 112 one-slice pods launchable; most nodes
 * 112 / 7 = 16; costliest mix 16 x 6.88 = 2 x 55.04 = 110.08 USD/h.
 */
START_TEST(test_mig_slices)
{
	struct fx fx;
	const struct capacity_type *t;

	model(&fx, BR, NULL,
	      "    - name: slices\n"
	      "      type: inference\n"
	      "      gpu: h100\n"
	      "      interruption: tolerant\n"
	      "      sharing: {mig: 1g.10gb}\n"
	      "      maxGpus: 16\n",
	      0);
	ck_assert_uint_eq(fx.c.ntypes, 2);
	t = type_of(&fx.c, "p5.4xlarge");
	ck_assert_int_eq(t->cap, 7);
	ck_assert_int_eq(t->slots, 112);
	ck_assert_int_eq(t->pods, 7);
	t = type_of(&fx.c, "p5.48xlarge");
	ck_assert_int_eq(t->cap, 56);
	ck_assert_int_eq(t->slots, 94);
	ck_assert_int_eq(t->pods, 56);
	ck_assert_int_eq(fx.c.units, 112);
	ck_assert_int_eq(fx.c.quota, 112);
	ck_assert_int_eq(fx.c.pods_max, 112);
	ck_assert_int_eq(fx.c.nodes_max, 16);
	USD_EQ(fx.c.usd_max, 110.08);
	ck_assert_str_eq(fx.c.cheapest.ty->t->name, "p5.4xlarge");
	USD_EQ(fx.c.cheapest.usd, 6.88);
	fx_release(&fx);
}
END_TEST

/*
 * A class range with mixed GPU counts: gpu l4..l40s (g6, gr6, g6e),
 * gpusPerPod 4, gang 3, maxGpus 32. Types with >= 4 GPUs: g6.12xlarge (4,
 * 4.602), g6.24xlarge (4, 6.675), g6.48xlarge (8, 13.350), g6e.12xlarge
 * (4, 10.493), g6e.24xlarge (4, 15.066), g6e.48xlarge (8, 30.131); gr6 has
 * 1 GPU. One pod per 4-GPU node, two per 8-GPU node.
 * Limit 32: 8 pods (4 x 8-GPU nodes), quota 32; most nodes 32 / 4 = 8.
 * Gang of 3: cheapest 3 x g6.12xlarge = 13.806; fewest nodes 2 x
 * g6.48xlarge = 26.70 (g6e.48xlarge, also 2, costs 60.262).
 * Costliest: g6e.24xlarge has the most per GPU (15.066 / 4 = 3.7665,
 * g6e.48xlarge 3.766375): 8 x 15.066 = 120.528 USD/h.
 */
START_TEST(test_class_range_mixed)
{
	struct fx fx;

	model(&fx, BR, NULL,
	      "    - name: ft\n"
	      "      type: training\n"
	      "      gpu: l4..l40s\n"
	      "      gpusPerPod: 4\n"
	      "      gang: 3\n"
	      "      interruption: checkpointed\n"
	      "      maxGpus: 32\n",
	      0);
	ck_assert_uint_eq(fx.c.ntypes, 6);
	ck_assert_int_eq(type_of(&fx.c, "g6.12xlarge")->pods, 1);
	ck_assert_int_eq(type_of(&fx.c, "g6.48xlarge")->pods, 2);
	ck_assert_int_eq(fx.c.units, 32);
	ck_assert_int_eq(fx.c.pods_max, 8);
	ck_assert_int_eq(fx.c.quota, 32);
	ck_assert_int_eq(fx.c.nodes_max, 8);
	ck_assert_str_eq(fx.c.cheapest.ty->t->name, "g6.12xlarge");
	ck_assert_int_eq(fx.c.cheapest.nodes, 3);
	USD_EQ(fx.c.cheapest.usd, 13.806);
	ck_assert_str_eq(fx.c.largest.ty->t->name, "g6.48xlarge");
	ck_assert_int_eq(fx.c.largest.nodes, 2);
	USD_EQ(fx.c.largest.usd, 26.70);
	USD_EQ(fx.c.usd_max, 120.528);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 0);
	fx_release(&fx);
}
END_TEST

/*
 * Findings the model owns, with validate's words: a gang above maxGpus,
 * maxGpus below one node, a gang not launchable in whole nodes. p5 rows as
 * above (8-GPU pods fit only p5.48xlarge).
 */
START_TEST(test_findings)
{
	const struct catalog *cat = catalog_builtin();
	struct fx fx;

	/* gang 4 x 8 = 32 > maxGpus 24 */
	model(&fx, AL, NULL,
	      "    - name: t\n      type: training\n      gpu: h100\n"
	      "      gpusPerPod: 8\n      gang: 4\n"
	      "      interruption: checkpointed\n      maxGpus: 24\n", 0);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 1);
	ck_assert_ptr_nonnull(strstr(fx.d.items[fx.d.nr - 1].msg,
				     "= 32 is more than maxGpus 24"));
	/* validate says the same thing, from the same model */
	{
		struct diags d = DIAGS_INIT;
		validate_intent(&fx.in, cat, &d);
		ck_assert_uint_eq(d.errors, 1);
		ck_assert_str_eq(d.items[0].msg, fx.d.items[fx.d.nr - 1].msg);
		diags_release(&d);
	}
	fx_release(&fx);

	/* 2-GPU pods fit only p5.48xlarge (8); maxGpus 4 is less than one
	 * such node: nothing launchable */
	model(&fx, AL, NULL,
	      "    - name: t\n      type: training\n      gpu: h100\n"
	      "      gpusPerPod: 2\n"
	      "      interruption: checkpointed\n      maxGpus: 4\n", 0);
	ck_assert_int_eq(fx.c.pods_max, 0);
	ck_assert_int_eq(fx.c.nodes_max, 0);
	ck_assert_ptr_null(fx.c.cheapest.ty);
	ck_assert_uint_eq(capacity_report(&fx.in, &fx.c, &fx.d), 1);
	ck_assert_ptr_nonnull(strstr(fx.d.items[fx.d.nr - 1].msg,
				     "less than one node"));
	fx_release(&fx);
}
END_TEST

/* the costliest mix: exact where the ratio bound is not reachable */
START_TEST(test_max_usd)
{
	long cap[] = { 8, 3 };
	double usd[] = { 10.0, 4.0 };
	double unk[] = { 10.0, -1 };
	int bound;

	/* limit 10: 1 x 8 (10) or 3 x 3 (12): 12, below the bound 13.33 */
	USD_EQ(capacity_max_usd(cap, usd, 2, 10, &bound), 12.0);
	ck_assert_int_eq(bound, 0);
	/* limit 11: 8 + 3 = 14 */
	USD_EQ(capacity_max_usd(cap, usd, 2, 11, &bound), 14.0);
	USD_EQ(capacity_max_usd(cap, usd, 2, 2, &bound), 0.0);
	ck_assert(capacity_max_usd(cap, unk, 2, 10, &bound) < 0);
	USD_EQ(capacity_max_usd(cap, usd, 0, 10, &bound), 0.0);
	/* lint's entry point: the same launch arithmetic as units.h */
	{
		const struct catalog *cat = catalog_builtin();
		const struct cat_type *p5 = NULL;
		long g = 1;
		int holds;
		for (size_t i = 0; i < cat->ntypes; i++)
			if (!strcmp(cat->types[i].name, "p5.48xlarge"))
				p5 = &cat->types[i];
		ck_assert_int_eq(capacity_launchable(&p5, &g, 1, 8, 0, 128,
						     &holds), 16);
		ck_assert_int_eq(holds, 1);
		ck_assert_int_eq(capacity_launchable(&p5, &g, 1, 16, 0, 128,
						     &holds), 0);
		ck_assert_int_eq(holds, 0);
		ck_assert_int_eq(capacity_node_units(8, 7), 56);
		ck_assert_int_eq(capacity_node_units(0, 7), 0);
	}
}
END_TEST


/*
 * What plan prints is what render renders: for every workload of every
 * example, the model's units and quota are the NodePool limit and the
 * ClusterQueue quota of the render plan (generator/plan.c).
 */
START_TEST(test_agrees_with_render)
{
	const struct catalog *cat = catalog_builtin();
	glob_t g;
	size_t checked = 0;

	ck_assert_int_eq(glob("specs/*.yaml", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t len;
		char *text;
		struct intent in;
		struct diags d = DIAGS_INIT;
		struct err err = ERR_INIT;
		struct plan p;
		FILE *f = fopen(g.gl_pathv[i], "rb");
		struct buf b = BUF_INIT;
		char chunk[4096];
		size_t n;

		ck_assert_ptr_nonnull(f);
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			buf_add(&b, chunk, n);
		fclose(f);
		text = buf_detach(&b, &len);
		ck_assert_int_eq(intent_read(&in, g.gl_pathv[i], text, len, &d), 0);
		ck_assert_uint_eq(validate_intent(&in, cat, &d), 0);
		ck_assert_int_eq(plan_build(&p, &in, cat, &d, &err), 0);
		for (size_t k = 0; k < p.npools; k++) {
			const struct plan_pool *pp = &p.pools[k];
			struct capacity c;
			if (!pp->w)
				continue;
			capacity_build(&c, &in, pp->w, pp->fams, pp->nfams, cat,
				       NULL, NULL);
			ck_assert_msg(c.units == pp->limit_gpu &&
					      c.quota == pp->quota_gpu,
				      "%s %s: model %ld/%ld, render %ld/%ld",
				      g.gl_pathv[i], pp->name, c.units, c.quota,
				      pp->limit_gpu, pp->quota_gpu);
			ck_assert_uint_eq(c.ntypes, pp->ntypes);
			checked++;
		}
		plan_release(&p);
		intent_release(&in);
		diags_release(&d);
		err_release(&err);
		free(text);
	}
	globfree(&g);
	ck_assert_uint_ge(checked, 10);
}
END_TEST

/* ---- the AWS Price List reader ------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, len);
}

/* parse text[0..len) fed in chunks of `step` bytes; 0 or -1, *msg set */
static int parse(const char *text, size_t len, size_t step, double *usd,
		 struct capacity_prices *out, char *msg, size_t msgsz)
{
	struct pricelist *p = pricelist_new(catalog_builtin(), "f");
	struct err err = ERR_INIT;
	size_t missing;
	int r = 0;

	for (size_t i = 0; i < len && r == 0; i += step)
		r = pricelist_feed(p, text + i, len - i < step ? len - i : step,
				   &err);
	if (r == 0)
		r = pricelist_finish(p, out, usd, &missing, &err);
	snprintf(msg, msgsz, "%s", r < 0 ? err_msg(&err) : "");
	if (r == 0) {
		/* the label points into p: check it before freeing */
		ck_assert_str_eq(out->region, "us-east-1");
		ck_assert_str_eq(out->date, "2026-11-20");
		ck_assert_ptr_nonnull(strstr(out->source, "20261120183012"));
	}
	err_release(&err);
	pricelist_free(p);
	return r;
}

/*
 * The samples (tests/fixtures/prices/, AWS's layout) hold Linux/Shared/NA/
 * Used on-demand prices for 7 catalog types, plus rows that must be left
 * out: Windows, Dedicated, SQL Std pre-installed, an unused capacity
 * reservation, a Reserved term, m5.large. Every price found equals the
 * catalog's for that type, in whatever chunks the file arrives.
 */
START_TEST(test_pricelist_samples)
{
	static const char *const files[] = {
		"tests/fixtures/prices/ec2-us-east-1-sample.json",
		"tests/fixtures/prices/ec2-us-east-1-sample.csv",
	};
	static const size_t steps[] = { 1, 7, 4096, (size_t)1 << 30 };
	const struct catalog *cat = catalog_builtin();

	for (size_t f = 0; f < 2; f++) {
		size_t len;
		char *text = slurp(files[f], &len);
		for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
			double *usd = calloc(cat->ntypes, sizeof(*usd));
			struct capacity_prices pr;
			char msg[512];
			size_t found = 0;

			ck_assert_msg(parse(text, len, steps[s], usd, &pr, msg,
					    sizeof(msg)) == 0,
				      "%s: %s", files[f], msg);
			for (size_t i = 0; i < cat->ntypes; i++) {
				if (usd[i] < 0)
					continue;
				found++;
				ck_assert_msg(fabs(usd[i] - cat->types[i].price) <
						      1e-9,
					      "%s: %s %f, catalog %f", files[f],
					      cat->types[i].name, usd[i],
					      cat->types[i].price);
			}
			ck_assert_uint_eq(found, 7);
			free(usd);
		}
		free(text);
	}
}
END_TEST

/*
 * A truncated file is an error, never a shorter price list: every prefix
 * of the JSON; every prefix of the CSV that does not end a line (a CSV cut
 * exactly at a line end reads as a shorter file: docs/plan.md says so).
 */
START_TEST(test_pricelist_truncated)
{
	static const char *const files[] = {
		"tests/fixtures/prices/ec2-us-east-1-sample.json",
		"tests/fixtures/prices/ec2-us-east-1-sample.csv",
	};
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));

	for (size_t f = 0; f < 2; f++) {
		size_t len;
		char *text = slurp(files[f], &len);
		for (size_t cut = 0; cut < len - 1; cut += 13) {
			struct capacity_prices pr;
			char msg[512];
			if (f == 1 && cut && text[cut - 1] == '\n')
				continue;
			ck_assert_msg(parse(text, cut, 4096, usd, &pr, msg,
					    sizeof(msg)) < 0,
				      "%s cut at %zu parsed", files[f], cut);
			ck_assert_msg(strncmp(msg, "f:", 2) == 0, "%s", msg);
		}
		free(text);
	}
	free(usd);
}
END_TEST

/* malformed input: the message names the line and the byte */
START_TEST(test_pricelist_malformed)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\"offerCode\" : \"AmazonEC2\",\n  \"products\" : {,}}\n",
		  "f:2: expected a key in double quotes (byte 44)" },
		{ "{\"offerCode\" \"AmazonEC2\"}", "f:1: expected ':'" },
		{ "{\"a\" : tru}", "not a JSON value" },
		{ "{\"a\" : 1}}", "data after the end" },
		{ "{\"a\" : [1, 2}", "'}' closes an array" },
		{ "{\"offerCode\" : \"AmazonS3\", \"products\" : {}}",
		  "not 'AmazonEC2'" },
		{ "{\"terms\" : {}, \"products\" : {}}",
		  "'terms' before 'products'" },
		{ "\"FormatVersion\",\"v1.0\"\n\"SKU\",\"Unit\"\n",
		  "f:2: the header row has no column 'TermType'" },
		{ "\"FormatVersion\",\"v1.0\"\n\"x\"y\n",
		  "f:2: 'y' after a closing quote" },
		{ "\"FormatVersion\",\"v1.0\"\n\"OfferCode\",\"AmazonEC2\"\n",
		  "no header row" },
		{ "", "empty file" },
	};
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capacity_prices pr;
		char msg[512];
		ck_assert_msg(parse(cases[i].text, strlen(cases[i].text), 3,
				    usd, &pr, msg, sizeof(msg)) < 0,
			      "case %zu parsed", i);
		ck_assert_msg(strstr(msg, cases[i].want) != NULL,
			      "case %zu: '%s' lacks '%s'", i, msg,
			      cases[i].want);
	}
	free(usd);
}
END_TEST

/* a quote that never closes does not make the reader keep the file */
START_TEST(test_pricelist_row_cap)
{
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));
	size_t n = (1 << 20) + 100;
	char *text = malloc(n), msg[512];
	struct capacity_prices pr;

	memcpy(text, "\"FormatVersion\",\"v1.0\n", 22);
	memset(text + 22, 'x', n - 22);
	ck_assert_int_lt(parse(text, n, 65536, usd, &pr, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "a CSV row longer than 1048576 bytes"));
	free(text);
	free(usd);
}
END_TEST

/* one type with two different prices, or two regions: errors */
START_TEST(test_pricelist_ambiguous)
{
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));
	size_t len;
	char *text = slurp("tests/fixtures/prices/ec2-us-east-1-sample.csv",
			   &len);
	struct buf b = BUF_INIT;
	struct capacity_prices pr;
	char msg[512], *line, *dup;

	/* repeat the g6.xlarge row with another price and SKU */
	line = strstr(text, "\n\"K9V2DM7PXA5FJ4NB\"") + 1;
	dup = strndup(line, (size_t)(strchr(line, '\n') - line + 1));
	buf_add(&b, text, len);
	{
		char *p = strstr(dup, "0.8050000000");
		memcpy(p, "0.9050000000", 12);
		memcpy(dup + 1, "K9V2DM7PXA5FJ4NC", 16);
	}
	buf_adds(&b, dup);
	ck_assert_int_lt(parse(b.ptr, b.len, 4096, usd, &pr, msg, sizeof(msg)),
			 0);
	ck_assert_ptr_nonnull(strstr(msg, "two on-demand Linux prices for "
					  "g6.xlarge: 0.805"));
	/* the same row in another region */
	buf_reset(&b);
	buf_add(&b, text, len);
	{
		char *p = strstr(dup, "0.9050000000");
		memcpy(p, "0.8050000000", 12);
		p = strstr(dup, "\"us-east-1\"");
		memcpy(p, "\"us-west-2\"", 11);
	}
	buf_adds(&b, dup);
	ck_assert_int_lt(parse(b.ptr, b.len, 4096, usd, &pr, msg, sizeof(msg)),
			 0);
	ck_assert_ptr_nonnull(strstr(msg, "two regions"));
	free(dup);
	free(text);
	buf_release(&b);
	free(usd);
}
END_TEST

/* Fixed bug (generator/pricelist.c, record): strtod took hex floats
 * (0x1p10 = $1024), inf and nan, 1e-400 (ERANGE, read as $0) and 1e308 (a
 * 309-digit total). A price is decimal, representable and at most
 * PRICELIST_MAX_USD; the error names the file, line and byte. */
START_TEST(test_pricelist_price_decimal_bounded)
{
	static const struct {
		const char *price, *want;
	} cases[] = {
		{ "0x1p10", "is not a price in USD" },
		{ "0X37.04", "is not a price in USD" },
		{ "inf", "is not a price in USD" },
		{ "nan", "is not a price in USD" },
		{ "-1", "is not a price in USD" },
		{ " 55.04", "is not a price in USD" },
		{ "55.", "is not a price in USD" },
		{ "1e", "is not a price in USD" },
		{ "1e-400", "out of range for a price" },
		{ "1e400", "out of range for a price" },
		{ "1e308", "not a plausible price" },
		{ "10000.01", "not a plausible price" },
	};
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));
	size_t len;
	char *text = slurp("tests/fixtures/prices/ec2-us-east-1-sample.csv",
			   &len);
	const char *at = strstr(text, "\"55.0400000000\"");
	struct buf b = BUF_INIT;

	ck_assert_ptr_nonnull(at);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capacity_prices pr;
		char msg[512];

		buf_reset(&b);
		buf_add(&b, text, (size_t)(at - text) + 1);
		buf_adds(&b, cases[i].price);
		buf_adds(&b, at + 14);
		ck_assert_msg(parse(b.ptr, b.len, 4096, usd, &pr, msg,
				    sizeof(msg)) < 0,
			      "price '%s' parsed", cases[i].price);
		ck_assert_msg(strstr(msg, cases[i].want) && !strncmp(msg, "f:7:", 4),
			      "'%s': %s", cases[i].price, msg);
	}
	/* the bound itself and an exponent AWS could write are prices */
	for (size_t i = 0; i < 2; i++) {
		struct capacity_prices pr;
		char msg[512];

		buf_reset(&b);
		buf_add(&b, text, (size_t)(at - text) + 1);
		buf_adds(&b, i ? "10000" : "5.504E1");
		buf_adds(&b, at + 14);
		ck_assert_msg(parse(b.ptr, b.len, 4096, usd, &pr, msg,
				    sizeof(msg)) == 0, "%s", msg);
	}
	free(text);
	buf_release(&b);
	free(usd);
}
END_TEST

/*
 * The floor: the quota on the one type that runs it cheapest, whole nodes
 * within the limit. Types as g4dn.12xlarge (4 GPUs, 3.912) and g4dn.xlarge
 * (1 GPU, 0.526), one GPU a pod.
 */
START_TEST(test_min_usd)
{
	long cap[] = { 4, 1 }, pods[] = { 4, 1 };
	double usd[] = { 3.912, 0.526 };
	double unk[] = { 3.912, -1 };
	int bound;

	/* 24 pods, limit 24: 6 x 3.912 = 23.472 or 24 x 0.526 = 12.624 */
	USD_EQ(capacity_min_usd(cap, pods, usd, 2, 24, 24, &bound), 12.624);
	ck_assert_int_eq(bound, 0);
	/* the cheaper type first: the order does not matter */
	{
		long c2[] = { 1, 4 }, p2[] = { 1, 4 };
		double u2[] = { 0.526, 3.912 };
		USD_EQ(capacity_min_usd(c2, p2, u2, 2, 24, 24, &bound), 12.624);
	}
	/* a 4-GPU node per GPU cheaper than 1-GPU nodes (3.912 vs 4 x 1.204
	 * = 4.816): 24 pods -> 6 x 3.912 = 23.472 */
	{
		double u3[] = { 3.912, 1.204 };
		USD_EQ(capacity_min_usd(cap, pods, u3, 2, 24, 24, &bound),
		       23.472);
		/* 5 pods, limit 5: 2 x 4-GPU nodes are 8 > 5 GPUs, so only
		 * 5 x 1.204 = 6.02; 8 pods, limit 8: 2 x 3.912 = 7.824
		 * beats 8 x 1.204 = 9.632 */
		USD_EQ(capacity_min_usd(cap, pods, u3, 2, 5, 5, &bound), 6.02);
		USD_EQ(capacity_min_usd(cap, pods, u3, 2, 8, 8, &bound),
		       7.824);
	}
	/* no single type holds 3 pods within limit 3 (only 4-GPU nodes):
	 * the per-pod bound 3 x 3.912 / 4 = 2.934, flagged */
	USD_EQ(capacity_min_usd(cap, pods, usd, 1, 3, 3, &bound), 2.934);
	ck_assert_int_eq(bound, 1);
	/* a type without a price: unknown, as the ceiling */
	ck_assert(capacity_min_usd(cap, pods, unk, 2, 24, 24, &bound) < 0);
	USD_EQ(capacity_min_usd(cap, pods, usd, 2, 0, 24, &bound), 0.0);
	USD_EQ(capacity_min_usd(cap, pods, usd, 0, 24, 24, &bound), 0.0);
	/* a month is 730 hours: 12.624 x 730 = 9215.52; unknown stays */
	USD_EQ(CAPACITY_HOURS_PER_MONTH, 730.0);
	USD_EQ(capacity_month(12.624), 9215.52);
	USD_EQ(capacity_month(880.64), 642867.2);
	ck_assert(capacity_month(-1) < 0);
}
END_TEST

/*
 * Floor beside ceiling on a real pool: gpu t4, maxGpus 24, one GPU a pod.
 * Rows: g4dn.xlarge 1 GPU 0.526, .2xlarge 1 0.752, .4xlarge 1 1.204,
 * .8xlarge 1 2.176, .12xlarge 4 3.912, .16xlarge 1 4.352, .metal 8 7.824.
 * Floor: 24 x g4dn.xlarge = 24 x 0.526 = 12.624 (the 4- and 8-GPU types
 * are 0.978 a GPU). Ceiling: 24 x g4dn.16xlarge = 24 x 4.352 = 104.448.
 */
START_TEST(test_floor_and_ceiling)
{
	struct fx fx;

	model(&fx, AL, NULL,
	      "    - name: serve\n"
	      "      type: inference\n"
	      "      gpu: t4\n"
	      "      maxGpus: 24\n"
	      "      interruption: tolerant\n",
	      0);
	ck_assert_int_eq(fx.c.pods_max, 24);
	USD_EQ(fx.c.usd_min, 12.624);
	ck_assert_int_eq(fx.c.usd_min_bound, 0);
	USD_EQ(fx.c.usd_max, 104.448);
	ck_assert_int_eq(fx.c.usd_bound, 0);
	USD_EQ(capacity_month(fx.c.usd_min), 9215.52);
	USD_EQ(capacity_month(fx.c.usd_max), 76247.04);
	fx_release(&fx);
}
END_TEST

static size_t type_idx(const char *name)
{
	const struct catalog *cat = catalog_builtin();
	for (size_t i = 0; i < cat->ntypes; i++)
		if (!strcmp(cat->types[i].name, name))
			return i;
	ck_abort_msg("no type %s", name);
	return 0;
}

/*
 * Spot prices: per zone the newest row, per type the median over zones.
 * g6.xlarge: 1a 0.30 (10:00) then 0.25 (12:00) -> 0.25; 1b 0.35; 1c 0.40;
 * a Windows row 0.90 is not Linux: median of {0.25, 0.35, 0.40} = 0.35.
 * p5.48xlarge: 1a 30, 1b 34: the mean of the middle two, 32.
 */
START_TEST(test_spot_prices)
{
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));
	struct spotprices_info info;
	struct err err = ERR_INIT;
	const char *j =
		"{\"SpotPriceHistory\": [\n"
		"{\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": "
		"\"g6.xlarge\", \"ProductDescription\": \"Linux/UNIX\", "
		"\"SpotPrice\": \"0.300000\", \"Timestamp\": "
		"\"2026-11-30T10:00:00+00:00\"},\n"
		"{\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": "
		"\"g6.xlarge\", \"SpotPrice\": \"0.250000\", \"Timestamp\": "
		"\"2026-11-30T12:00:00+00:00\"},\n"
		"{\"AvailabilityZone\": \"us-east-1b\", \"InstanceType\": "
		"\"g6.xlarge\", \"SpotPrice\": \"0.35\"},\n"
		"{\"AvailabilityZone\": \"us-east-1c\", \"InstanceType\": "
		"\"g6.xlarge\", \"SpotPrice\": \"0.40\"},\n"
		"{\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": "
		"\"g6.xlarge\", \"ProductDescription\": \"Windows\", "
		"\"SpotPrice\": \"0.90\", \"Timestamp\": "
		"\"2026-11-30T13:00:00+00:00\"},\n"
		"{\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": "
		"\"p5.48xlarge\", \"SpotPrice\": \"30\"},\n"
		"{\"AvailabilityZone\": \"us-east-1b\", \"InstanceType\": "
		"\"p5.48xlarge\", \"SpotPrice\": \"34\"},\n"
		"{\"AvailabilityZone\": \"us-east-1b\", \"InstanceType\": "
		"\"x9.huge\", \"SpotPrice\": \"1\"}\n"
		"], \"NextToken\": \"\"}\n";

	ck_assert_int_eq(spotprices_parse("s.json", j, strlen(j), cat, usd,
					  &info, &err), 0);
	USD_EQ(usd[type_idx("g6.xlarge")], 0.35);
	USD_EQ(usd[type_idx("p5.48xlarge")], 32.0);
	ck_assert(usd[type_idx("g6.2xlarge")] < 0);
	ck_assert_uint_eq(info.types, 2);
	ck_assert_str_eq(info.newest, "2026-11-30T12:00:00+00:00");
	{
		double v[] = { 3, 1, 2 }, w[] = { 4, 1 };
		USD_EQ(spotprices_median(v, 3), 2.0);
		USD_EQ(spotprices_median(w, 2), 2.5);
		ck_assert(spotprices_median(w, 0) < 0);
	}
	/* the spot floor and ceiling of a p5 gang: 16 nodes x 32 = 512 */
	{
		struct fx fx;
		struct capacity_prices pr;
		const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
		struct buf why = BUF_INIT;
		double *od = calloc(cat->ntypes, sizeof(*od));
		int n;

		model(&fx, AL, EFA_NET,
		      "    - name: train\n"
		      "      type: training\n"
		      "      gpu: h100\n"
		      "      gpusPerPod: 8\n"
		      "      gang: 16\n"
		      "      efa: true\n"
		      "      interruption: checkpointed\n"
		      "      maxGpus: 128\n",
		      0);
		capacity_builtin_prices(&pr, cat, od);
		pr.spot = usd;
		n = validate_families(&fx.in.workloads[0], cat, fams, &why);
		capacity_build(&fx.c, &fx.in, &fx.in.workloads[0], fams,
			       (size_t)n, cat, &pr, NULL);
		USD_EQ(fx.c.spot_min, 512.0);
		USD_EQ(fx.c.spot_max, 512.0);
		USD_EQ(fx.c.usd_min, 880.64);
		buf_release(&why);
		free(od);
		fx_release(&fx);
	}
	free(usd);
}
END_TEST

/* a bad spot file: FILE:LINE:COL */
START_TEST(test_spot_prices_bad)
{
	const struct catalog *cat = catalog_builtin();
	double *usd = calloc(cat->ntypes, sizeof(*usd));
	struct spotprices_info info;
	struct err err = ERR_INIT;
	const char *trunc = "{\"SpotPriceHistory\": [\n  {\"InstanceType\": ";
	const char *price = "{\"SpotPriceHistory\": [\n"
			    "{\"AvailabilityZone\": \"a\", \"InstanceType\": "
			    "\"g6.xlarge\", \"SpotPrice\": \"1\"},\n"
			    "  {\"AvailabilityZone\": \"a\", \"InstanceType\": "
			    "\"g6.xlarge\",\n   \"SpotPrice\": \"-1\"}]}";
	const char *none = "{\"Other\": []}";

	ck_assert_int_eq(spotprices_parse("t.json", trunc, strlen(trunc), cat,
					  usd, &info, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "t.json:2:"));
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "not valid JSON"));
	err_release(&err);
	ck_assert_int_eq(spotprices_parse("p.json", price, strlen(price), cat,
					  usd, &info, &err), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err),
				     "p.json:4:4: SpotPriceHistory[1]: "
				     "SpotPrice '-1' is not a price"));
	err_release(&err);
	ck_assert_int_eq(spotprices_parse("n.json", none, strlen(none), cat,
					  usd, &info, &err), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "n.json:1:1: no "));
	err_release(&err);
	free(usd);
}
END_TEST

Suite *capacity_suite(void)
{
	Suite *s = suite_create("capacity");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, test_p5_gang_of_16);
	tcase_add_test(tc, test_gang_cannot_fit_one_zone);
	tcase_add_test(tc, test_timesliced_l4);
	tcase_add_test(tc, test_density_kept);
	tcase_add_test(tc, test_density_left_out);
	tcase_add_test(tc, test_gang_memory_mix);
	tcase_add_test(tc, test_mig_slices);
	tcase_add_test(tc, test_class_range_mixed);
	tcase_add_test(tc, test_findings);
	tcase_add_test(tc, test_max_usd);
	tcase_add_test(tc, test_min_usd);
	tcase_add_test(tc, test_floor_and_ceiling);
	tcase_add_test(tc, test_spot_prices);
	tcase_add_test(tc, test_spot_prices_bad);
	tcase_add_test(tc, test_agrees_with_render);
	suite_add_tcase(s, tc);
	tc = tcase_create("pricelist");
	tcase_add_test(tc, test_pricelist_samples);
	tcase_add_test(tc, test_pricelist_truncated);
	tcase_add_test(tc, test_pricelist_malformed);
	tcase_add_test(tc, test_pricelist_ambiguous);
	tcase_add_test(tc, test_pricelist_price_decimal_bounded);
	tcase_add_test(tc, test_pricelist_row_cap);
	suite_add_tcase(s, tc);
	return s;
}
