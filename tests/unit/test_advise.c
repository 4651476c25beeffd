/*
 * tests/unit/test_advise.c: Check suite for generator/advise.c (the rules of
 * `gpuform advise`, the minimal intent edit, the queries) and the pure
 * answer parser of reconcile/prom.c. The observations are built by hand;
 * each expected number is worked out in the comment from the catalog rows
 * (generator/catalog.tsv: p5.48xlarge 8 H100; g6.xlarge 1 L4; g5.xlarge
 * 1 A10G) and the thresholds of advise_opts_init.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/advise.h"
#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/tmpl.h"
#include "reconcile/prom.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

#define DAYS14 (14 * 86400.0)

static const char *head =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: c1\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: al2023@v20250505\n"
	"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
	"  workloads:\n";

/* a healthy, well-covered observation: peak = req, util 70% */
static struct advise_obs obs_of(double peak, double util, double fb,
				double fbtotal)
{
	struct advise_obs o;
	memset(&o, 0, sizeof(o));
	o.ksm_coverage = 1;
	o.nodepool_label = 1;
	o.have_requests = 1;
	o.req_peak = o.req_p95 = peak;
	o.req_p50 = peak / 2;
	o.have_util = 1;
	o.util_coverage = 1;
	o.util_p95 = util;
	o.util_p50 = util / 2;
	o.fb_used_p95 = fb;
	o.have_fb_peak = 1;
	o.fb_used_peak = fb;
	o.fb_total = fbtotal;
	o.have_queue = 1;
	o.queue_coverage = 1;
	return o;
}

struct fx {
	struct buf text;
	struct intent in;
	struct diags d;
	struct advise_result r;
	struct tmpl_set *t;
};

/* the head decide() uses: `head` unless a test sets another; the
 * prices: the catalog's unless set */
static const char *cur_head;
static const struct capacity_prices *cur_prices;

static void decide(struct fx *fx, const char *wl, struct advise_obs ob,
		   double window_s)
{
	struct advise_opts o;
	struct err err = ERR_INIT;

	memset(fx, 0, sizeof(*fx));
	buf_adds(&fx->text, cur_head ? cur_head : head);
	buf_adds(&fx->text, wl);
	ck_assert_int_eq(tmpl_set_load(&fx->t, NULL, &err), 0);
	intent_read(&fx->in, "t.yaml", buf_cstr(&fx->text), fx->text.len,
		    &fx->d);
	ck_assert_uint_eq(fx->d.errors, 0);
	advise_opts_init(&o, window_s);
	o.prices = cur_prices;
	ck_assert_msg(advise_decide(&fx->r, "t.yaml", buf_cstr(&fx->text),
				    fx->text.len, &ob, 1, &o, fx->t, &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_uint_eq(fx->r.n, 1);
	err_release(&err);
}

static void fx_release(struct fx *fx)
{
	advise_result_release(&fx->r);
	intent_release(&fx->in);
	diags_release(&fx->d);
	buf_release(&fx->text);
	tmpl_set_free(fx->t);
}

static const char *h100 =
	"    - name: ft\n"
	"      type: training\n"
	"      gpu: h100\n"
	"      gpusPerPod: 8\n"
	"      gang: 2\n"
	"      interruption: checkpointed\n"
	"      maxGpus: 64\n";

START_TEST(lower_to_peak_with_headroom)
{
	struct fx fx;
	/* peak 16 units: 16 x 1.25 = 20, gang 2 x 8 = 16, node 8 -> 24
	 * (whole p5.48xlarge nodes); 24 <= 64 x 0.75 */
	decide(&fx, h100, obs_of(16, 80, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_LOWER_MAX);
	ck_assert_int_eq(fx.r.recs[0].new_max, 24);
	/* the plan's ceiling: 8 x 55.04 -> 3 x 55.04 USD/h */
	ck_assert_double_eq_tol(fx.r.recs[0].usd_before, 440.32, 0.005);
	ck_assert_double_eq_tol(fx.r.recs[0].usd_after, 165.12, 0.005);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].impact, "0 node-replacing"));
	ck_assert_uint_eq(fx.r.changes, 1);
	fx_release(&fx);
}
END_TEST

START_TEST(never_below_a_gang)
{
	struct fx fx;
	/* peak 0 (idle for 14 days): the gang of 2 x 8 GPUs still fits */
	decide(&fx, h100, obs_of(0, 0, 0, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_LOWER_MAX);
	ck_assert_int_eq(fx.r.recs[0].new_max, 16);
	fx_release(&fx);
}
END_TEST

START_TEST(never_below_the_peak)
{
	struct fx fx;
	/* peak 56 of 64: 56 x 1.25 = 70 > 64: not lowered, healthy */
	decide(&fx, h100, obs_of(56, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_int_eq(fx.r.recs[0].new_max, 64);
	ck_assert_uint_eq(fx.r.changes, 0);
	fx_release(&fx);
}
END_TEST

START_TEST(small_cuts_are_not_worth_a_pr)
{
	struct fx fx;
	/* peak 40: 50 -> 56 (whole nodes) > 64 x 0.75 = 48: nothing */
	decide(&fx, h100, obs_of(40, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	fx_release(&fx);
}
END_TEST

START_TEST(raise_when_gangs_wait_for_quota)
{
	struct fx fx;
	struct advise_obs ob = obs_of(64, 95, 70000, 81920);
	/* pending 100 h of 336 (>= 5%), p90 wait 3 h, quota full: up by
	 * max(gang 16, 64 / 4 = 16) = 80 */
	ob.pending_hours = 100;
	ob.have_wait = 1;
	ob.wait_p90_s = 3 * 3600;
	decide(&fx, h100, ob, DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_RAISE_MAX);
	ck_assert_int_eq(fx.r.recs[0].new_max, 80);
	fx_release(&fx);
}
END_TEST

START_TEST(waiting_without_a_full_quota_is_not_starved)
{
	struct fx fx;
	struct advise_obs ob = obs_of(16, 95, 70000, 81920);
	/* gangs wait but only 16 of 64 units were ever requested: the quota
	 * is not what they wait for, and with a queue waiting nothing is
	 * lowered either */
	ob.pending_hours = 100;
	ob.have_wait = 1;
	ob.wait_p90_s = 3 * 3600;
	decide(&fx, h100, ob, DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	fx_release(&fx);
}
END_TEST

static const char *l4 =
	"    - name: chat\n"
	"      type: inference\n"
	"      gpu: l4\n"
	"      interruption: checkpointed\n"
	"      maxGpus: 16\n"
	"      namespace: serving\n";

START_TEST(time_slice_idle_inference)
{
	struct fx fx;
	/* util 10%: 60 / 10 = 6; memory 3000 of 22528: 0.8 x 22528 / 3000 =
	 * 6; capped at 4 replicas. Peak 8 pods: 8 x 1.25 / 4 = 2.5 -> 3
	 * GPUs (g6.xlarge has 1) */
	decide(&fx, l4, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
	ck_assert_int_eq(fx.r.recs[0].replicas, 4);
	ck_assert_int_eq(fx.r.recs[0].new_max, 3);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].impact,
				     "1 node-replacing change (pool chat)"));
	fx_release(&fx);
}
END_TEST

START_TEST(replicas_follow_memory)
{
	struct fx fx;
	/* util 5% (12 by util) but 6000 of 22528 MiB: 0.8 x 22528 / 6000 =
	 * 3.0 -> 3 replicas; 6000 <= 0.25 x 22528 = 5632? no: not shared */
	decide(&fx, l4, obs_of(8, 5, 6000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_LOWER_MAX);
	fx_release(&fx);
	/* 5000 MiB: within a quarter; 0.8 x 22528 / 5000 = 3.6 -> 3 */
	decide(&fx, l4, obs_of(8, 5, 5000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
	ck_assert_int_eq(fx.r.recs[0].replicas, 3);
	fx_release(&fx);
}
END_TEST

START_TEST(no_sharing_for_training)
{
	struct fx fx;
	static const char *tr =
		"    - name: tr\n"
		"      type: training\n"
		"      gpu: l4\n"
		"      interruption: none\n"
		"      maxGpus: 16\n";
	/* idle GPUs, but a training pool: never time-sliced; the quota is
	 * lowered (8 x 1.25 = 10) instead */
	decide(&fx, tr, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_LOWER_MAX);
	ck_assert_int_eq(fx.r.recs[0].new_max, 10);
	fx_release(&fx);
}
END_TEST

START_TEST(sharing_that_would_not_validate_is_a_note)
{
	struct fx fx;
	static const char *open =
		"    - name: any\n"
		"      type: inference\n"
		"      gpu: l4+\n"
		"      interruption: checkpointed\n"
		"      maxGpus: 16\n";
	/* an open class (l4+) cannot be time-sliced (validate): the change
	 * is dropped with the reason, not made */
	decide(&fx, open, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_ptr_nonnull(fx.r.recs[0].note);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].note, "not recommended"));
	ck_assert_uint_eq(fx.r.changes, 0);
	fx_release(&fx);
}
END_TEST

START_TEST(thin_data)
{
	struct fx fx;
	struct advise_obs ob = obs_of(0, 0, 0, 0);
	decide(&fx, h100, ob, 3 * 86400.0);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_THIN);
	fx_release(&fx);
	ob.ksm_coverage = 0.3;
	decide(&fx, h100, ob, DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_THIN);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].why, "30%"));
	fx_release(&fx);
	ob.ksm_coverage = 1;
	ob.nodepool_label = 0;
	decide(&fx, h100, ob, DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_THIN);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].why, "allowlist"));
	fx_release(&fx);
}
END_TEST


/* ---- MIG on Bottlerocket, spot for checkpointed work ---------------------- */

static const char *br_head =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: c1\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
	"  workloads:\n";

static const char *embed =
	"    - name: embed\n"
	"      type: inference\n"
	"      gpu: h100\n"
	"      maxGpus: 8\n";

/* 4 pods x 1 H100 (p5.4xlarge), 8% busy, 6000 MiB at p95, 7000 at the
 * peak, of 81920 */
static struct advise_obs embed_obs(double util, double p95, double peak)
{
	struct advise_obs ob = obs_of(4, util, p95, 81920);
	ob.fb_used_peak = peak;
	return ob;
}

START_TEST(mig_smallest_profile_that_fits)
{
	struct fx fx;
	/* h100.80gb: 1g.10gb is 10/80 x 81920 = 10240 MiB: p95 6000 <=
	 * 0.8 x 10240 = 8192, peak 7000 <= 0.9 x 10240 = 9216; compute
	 * 8% x 7 / 1 = 56% <= 60%: 1g.10gb, 7 per GPU. maxGpus: peak 4 x
	 * 1.25 / 7 = 0.71 -> 1 (p5.4xlarge has 1 GPU) */
	cur_head = br_head;
	decide(&fx, embed, embed_obs(8, 6000, 7000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_MIG);
	ck_assert_str_eq(fx.r.recs[0].mig, "1g.10gb");
	ck_assert_int_eq(fx.r.recs[0].replicas, 7);
	ck_assert_int_eq(fx.r.recs[0].new_max, 1);
	/* the ceiling: 8 H100s = 1 x p5.48xlarge or 8 x p5.4xlarge, 55.04;
	 * after, 1 x p5.4xlarge 6.88 */
	ck_assert_double_eq_tol(fx.r.recs[0].usd_before, 55.04, 0.005);
	ck_assert_double_eq_tol(fx.r.recs[0].usd_after, 6.88, 0.005);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].impact,
				     "node-replacing change"));
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].why, "MIG 1g.10gb"));
	fx_release(&fx);
	cur_head = NULL;
}
END_TEST

START_TEST(mig_compute_and_peak_memory)
{
	struct fx fx;
	cur_head = br_head;
	/* 12% busy: 1g would be 12 x 7 = 84% busy; 2g.20gb 12 x 7 / 2 =
	 * 42%, 3 per GPU */
	decide(&fx, embed, embed_obs(12, 6000, 7000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_MIG);
	ck_assert_str_eq(fx.r.recs[0].mig, "2g.20gb");
	ck_assert_int_eq(fx.r.recs[0].replicas, 3);
	fx_release(&fx);
	/* a peak of 9500 MiB passes 0.9 x 10240 = 9216: 1g.10gb is out,
	 * 1g.20gb (20480 MiB, 4 per GPU) holds it */
	decide(&fx, embed, embed_obs(8, 6000, 9500), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_MIG);
	ck_assert_str_eq(fx.r.recs[0].mig, "1g.20gb");
	ck_assert_int_eq(fx.r.recs[0].replicas, 4);
	fx_release(&fx);
	/* 30000 MiB at p95 (a third of the GPU, too much to time-slice)
	 * at 20%: 3g.40gb (40960 x 0.8 = 32768; 20 x 7 / 3 = 47%), 2 per
	 * GPU */
	decide(&fx, embed, embed_obs(20, 30000, 32000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_MIG);
	ck_assert_str_eq(fx.r.recs[0].mig, "3g.40gb");
	fx_release(&fx);
	cur_head = NULL;
}
END_TEST

START_TEST(no_mig_keeps_time_slicing)
{
	struct fx fx;
	static const char *old_br =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata:\n"
		"  name: c1\n"
		"spec:\n"
		"  nodeRole: r\n"
		"  ami: bottlerocket@v1.30.0\n"
		"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
		"  workloads:\n";
	/* AL2023: no MIG in gpuform; time-slicing min(4, 60 / 8 = 7,
	 * 0.8 x 81920 / 6000 = 10) = 4 */
	decide(&fx, embed, embed_obs(8, 6000, 7000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
	ck_assert_int_eq(fx.r.recs[0].replicas, 4);
	fx_release(&fx);
	/* Bottlerocket before v1.34.0 (MIG's release): time-slicing */
	cur_head = old_br;
	decide(&fx, embed, embed_obs(8, 6000, 7000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
	fx_release(&fx);
	/* Bottlerocket v1.38.0 but L4s (no MIG): time-slicing */
	cur_head = br_head;
	decide(&fx, "    - name: chat\n"
		    "      type: inference\n"
		    "      gpu: l4\n"
		    "      maxGpus: 16\n",
	       obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
	fx_release(&fx);
	/* no framebuffer peak: MIG is not judged, time-slicing is */
	{
		struct advise_obs ob = embed_obs(8, 6000, 7000);
		ob.have_fb_peak = 0;
		decide(&fx, embed, ob, DAYS14);
		ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_TIMESLICE);
		fx_release(&fx);
	}
	cur_head = NULL;
}
END_TEST

START_TEST(never_share_a_none_gang)
{
	struct fx fx;
	static const char *shard =
		"    - name: shard\n"
		"      type: inference\n"
		"      gpu: h100\n"
		"      gang: 4\n"
		"      interruption: none\n"
		"      maxGpus: 4\n";
	/* the same idle GPUs as embed, but a gang of 4 that cannot restart:
	 * no MIG, no time-slicing; peak 4 x 1.25 = 5 > 4: not lowered */
	cur_head = br_head;
	decide(&fx, shard, embed_obs(8, 6000, 7000), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].why,
				     "never moved to spot or shared"));
	ck_assert_ptr_null(fx.r.recs[0].note);
	ck_assert_uint_eq(fx.r.changes, 0);
	fx_release(&fx);
	cur_head = NULL;
}
END_TEST

/* a reserved workload: its interruption class and capacity.instances (a
 * macro, so the format stays a literal for -Wformat-nonliteral) */
#define RESERVED_FMT \
	"    - name: ft\n" \
	"      type: training\n" \
	"      gpu: h100\n" \
	"      gpusPerPod: 8\n" \
	"      interruption: %s\n" \
	"      maxGpus: 32\n" \
	"      capacity:\n" \
	"        instances: %s\n" \
	"        reservations:\n" \
	"          - id: cr-0123456789abcdef0\n" \
	"        whenExhausted: on-demand   # the overflow\n"

START_TEST(spot_for_checkpointed_overflow)
{
	struct fx fx;
	struct buf out = BUF_INIT, wl = BUF_INIT;
	struct err err = ERR_INIT;
	/* 1 reserved p5.48xlarge holds 8 units; the peak 24 passed it: the
	 * overflow ran on on-demand; checkpointed takes spot */
	buf_addf(&wl, RESERVED_FMT, "checkpointed", "1");
	decide(&fx, buf_cstr(&wl), obs_of(24, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_SPOT);
	ck_assert_int_eq(fx.r.recs[0].new_max, 32);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].why, "at most 8 units"));
	/* no spot price file: the note says how to get the estimate */
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].note, "--spot-prices"));
	ck_assert_int_eq(advise_edit(&out, "t.yaml", buf_cstr(&fx.text),
				     fx.text.len, &fx.in, &fx.r, (size_t)-1,
				     &err),
			 0);
	/* one word replaced, the comment kept */
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out),
				     "        whenExhausted: spot   # the "
				     "overflow\n"));
	ck_assert_uint_eq(out.len, fx.text.len - 9 + 4);
	buf_release(&out);
	fx_release(&fx);
	/* at spot prices of half the on-demand ones: before, 4 x p5.48xlarge
	 * on-demand = 220.16; after, the reserved node's share (8 of 32
	 * units) stays on-demand: 0.25 x 220.16 + 0.75 x 110.08 = 137.60 */
	{
		const struct catalog *cat = catalog_builtin();
		double *od = calloc(cat->ntypes, sizeof(*od));
		double *half = calloc(cat->ntypes, sizeof(*half));
		struct capacity_prices pr;
		capacity_builtin_prices(&pr, cat, od);
		for (size_t i = 0; i < cat->ntypes; i++)
			half[i] = od[i] / 2;
		pr.spot = half;
		cur_prices = &pr;
		decide(&fx, buf_cstr(&wl), obs_of(24, 90, 60000, 81920),
		       DAYS14);
		cur_prices = NULL;
		ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_SPOT);
		ck_assert_double_eq_tol(fx.r.recs[0].usd_before, 220.16, 0.005);
		ck_assert_double_eq_tol(fx.r.recs[0].usd_after, 220.16, 0.005);
		ck_assert_double_eq_tol(fx.r.recs[0].spot_before, 220.16,
					0.005);
		ck_assert_double_eq_tol(fx.r.recs[0].spot_after, 137.60, 0.005);
		ck_assert_ptr_null(fx.r.recs[0].note);
		fx_release(&fx);
		free(od);
		free(half);
	}
	/* the peak within the reservation (8 of 8): nothing to move */
	decide(&fx, buf_cstr(&wl), obs_of(8, 90, 60000, 81920), DAYS14);
	ck_assert_int_ne(fx.r.recs[0].kind, ADVISE_SPOT);
	fx_release(&fx);
	buf_release(&wl);
	err_release(&err);
}
END_TEST

START_TEST(never_spot_for_interruption_none)
{
	struct fx fx;
	struct buf wl = BUF_INIT;
	/* the same overflow, but 'interruption: none': on-demand stays */
	buf_addf(&wl, RESERVED_FMT, "none", "1");
	decide(&fx, buf_cstr(&wl), obs_of(24, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_ptr_null(fx.r.recs[0].note); /* not even tried */
	ck_assert_uint_eq(fx.r.changes, 0);
	fx_release(&fx);
	buf_release(&wl);
	/* already spot beyond the reservation: nothing to change */
	decide(&fx, "    - name: ft\n"
		    "      type: training\n"
		    "      gpu: h100\n"
		    "      gpusPerPod: 8\n"
		    "      interruption: checkpointed\n"
		    "      maxGpus: 32\n"
		    "      capacity:\n"
		    "        instances: 1\n"
		    "        reservations: [{id: cr-0123456789abcdef0}]\n"
		    "        whenExhausted: spot\n",
	       obs_of(24, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_ptr_null(fx.r.recs[0].note);
	fx_release(&fx);
	/* instances not stated: whether the fallback ran is unknown */
	decide(&fx, "    - name: ft\n"
		    "      type: training\n"
		    "      gpu: h100\n"
		    "      gpusPerPod: 8\n"
		    "      interruption: checkpointed\n"
		    "      maxGpus: 32\n"
		    "      capacity:\n"
		    "        reservations: [{id: cr-0123456789abcdef0}]\n"
		    "        whenExhausted: on-demand\n",
	       obs_of(24, 90, 60000, 81920), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	fx_release(&fx);
}
END_TEST

/* ---- the edit ------------------------------------------------------------ */

START_TEST(edit_keeps_comments_and_order)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	static const char *wl =
		"    # the chat service\n"
		"    - name: chat\n"
		"      type: inference\n"
		"      gpu: l4\n"
		"      interruption: checkpointed\n"
		"      maxGpus: 16   # one per replica\n"
		"      namespace: serving\n";

	decide(&fx, wl, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(advise_edit(&out, "t.yaml", buf_cstr(&fx.text),
				     fx.text.len, &fx.in, &fx.r, (size_t)-1,
				     &err),
			 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out),
				     "    # the chat service\n"
				     "    - name: chat\n"
				     "      type: inference\n"
				     "      gpu: l4\n"
				     "      interruption: checkpointed\n"
				     "      maxGpus: 3   # one per replica\n"
				     "      sharing: {timeSlicing: 4}\n"
				     "      namespace: serving\n"));
	/* "16" -> "3", and "\n" + 6 spaces + "sharing: {timeSlicing: 4}" */
	ck_assert_uint_eq(out.len, fx.text.len - 1 + 1 + 6 + 25);
	buf_release(&out);
	fx_release(&fx);
}
END_TEST

START_TEST(edit_replaces_sharing_none)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	static const char *wl =
		"    - name: chat\n"
		"      type: inference\n"
		"      gpu: l4\n"
		"      sharing: none\n"
		"      interruption: checkpointed\n"
		"      maxGpus: 16\n";

	decide(&fx, wl, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(advise_edit(&out, "t.yaml", buf_cstr(&fx.text),
				     fx.text.len, &fx.in, &fx.r, (size_t)-1,
				     &err),
			 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out),
				     "      sharing: {timeSlicing: 4}\n"
				     "      interruption: checkpointed\n"
				     "      maxGpus: 3\n"));
	buf_release(&out);
	fx_release(&fx);
}
END_TEST

START_TEST(edit_refuses_flow_style)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	static const char *wl =
		"    - {name: chat, type: inference, gpu: l4, interruption: "
		"checkpointed, maxGpus: 16}\n";

	/* the sharing line has nowhere to go: the rec becomes a note */
	decide(&fx, wl, obs_of(8, 10, 3000, 22528), DAYS14);
	ck_assert_int_eq(fx.r.recs[0].kind, ADVISE_NONE);
	ck_assert_ptr_nonnull(strstr(fx.r.recs[0].note, "block style"));
	/* a maxGpus alone is edited in place, flow style or not */
	fx.r.recs[0].kind = ADVISE_LOWER_MAX;
	fx.r.recs[0].new_max = 8;
	ck_assert_int_eq(advise_edit(&out, "t.yaml", buf_cstr(&fx.text),
				     fx.text.len, &fx.in, &fx.r, (size_t)-1,
				     &err),
			 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "maxGpus: 8}"));
	buf_release(&out);
	err_release(&err);
	fx_release(&fx);
}
END_TEST

/* ---- queries and answers -------------------------------------------------- */

START_TEST(queries_name_the_workload)
{
	struct intent in;
	struct diags d = DIAGS_INIT;
	struct buf t = BUF_INIT;
	char *q[AQ_N];

	buf_adds(&t, head);
	buf_adds(&t, h100);
	intent_read(&in, "t.yaml", buf_cstr(&t), t.len, &d);
	advise_queries(q, &in.workloads[0], 1209600, 300);
	ck_assert_ptr_nonnull(strstr(q[AQ_REQ_PEAK],
				     "label_karpenter_sh_nodepool=\"ft\""));
	ck_assert_ptr_nonnull(strstr(q[AQ_REQ_PEAK], "[1209600s:300s]"));
	ck_assert_ptr_nonnull(strstr(q[AQ_REQ_PEAK],
				     "resource=\"nvidia_com_gpu\""));
	ck_assert_ptr_nonnull(strstr(q[AQ_PENDING_HOURS],
				     "kueue_pending_workloads{cluster_queue="
				     "\"ft\"}"));
	ck_assert_ptr_nonnull(strstr(q[AQ_WAIT_P90],
				     "kueue_admission_wait_time_seconds_bucket"));
	ck_assert_ptr_nonnull(strstr(q[AQ_UTIL_P95], "DCGM_FI_DEV_GPU_UTIL"));
	for (int i = 0; i < AQ_N; i++)
		free(q[i]);
	intent_release(&in);
	diags_release(&d);
	buf_release(&t);
}
END_TEST

static int parse(long st, const char *body, int *present, double *v,
		 struct err *err)
{
	return prom_parse(st, body, strlen(body), "up", present, v, err);
}

START_TEST(prometheus_answers)
{
	struct err err = ERR_INIT;
	int present;
	double v;

	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"vector\",\"result\":[{"
				    "\"metric\":{},\"value\":[1,\"2.5\"]}]}}",
			       &present, &v, &err),
			 0);
	ck_assert(present && v == 2.5);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"vector\",\"result\":[]}}",
			       &present, &v, &err),
			 0);
	ck_assert(!present);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"scalar\",\"result\":"
				    "[1,\"NaN\"]}}",
			       &present, &v, &err),
			 0);
	ck_assert(present && isnan(v));
	/* refused, partial, two series, a matrix, not a number, not JSON */
	ck_assert_int_eq(parse(400, "{\"status\":\"error\",\"errorType\":"
				    "\"bad_data\",\"error\":\"parse error\"}",
			       &present, &v, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "bad_data: parse error"));
	err_release(&err);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"warnings\":"
				    "[\"partial\"],\"data\":{\"resultType\":"
				    "\"vector\",\"result\":[]}}",
			       &present, &v, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "only in part"));
	err_release(&err);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"vector\",\"result\":[{"
				    "\"metric\":{},\"value\":[1,\"1\"]},{"
				    "\"metric\":{},\"value\":[1,\"1\"]}]}}",
			       &present, &v, &err),
			 -1);
	err_release(&err);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"matrix\",\"result\":[]}}",
			       &present, &v, &err),
			 -1);
	err_release(&err);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"scalar\",\"result\":"
				    "[1,\"0x1p4\"]}}",
			       &present, &v, &err),
			 0); /* strtod reads hex: Prometheus never writes it */
	err_release(&err);
	ck_assert_int_eq(parse(200, "{\"status\":\"success\",\"data\":{"
				    "\"resultType\":\"scalar\",\"result\":"
				    "[1,\"12abc\"]}}",
			       &present, &v, &err),
			 -1);
	err_release(&err);
	ck_assert_int_eq(parse(502, "<html>\x1b[2J</html>", &present, &v, &err),
			 -1);
	ck_assert_ptr_null(strchr(err_msg(&err), '\x1b'));
	err_release(&err);
}
END_TEST

START_TEST(coverage_clamped)
{
	struct advise_obs o;
	memset(&o, 0, sizeof(o));
	advise_obs_set(&o, AQ_KSM_COVERAGE, 1, 1.0007);
	ck_assert(o.ksm_coverage == 1);
	advise_obs_set(&o, AQ_WAIT_P90, 1, NAN);
	ck_assert(!o.have_wait);
	advise_obs_set(&o, AQ_QUEUE_COVERAGE, 0, 0);
	ck_assert(!o.have_queue);
}
END_TEST

Suite *advise_suite(void)
{
	Suite *s = suite_create("advise");
	TCase *t = tcase_create("rules");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, lower_to_peak_with_headroom);
	tcase_add_test(t, never_below_a_gang);
	tcase_add_test(t, never_below_the_peak);
	tcase_add_test(t, small_cuts_are_not_worth_a_pr);
	tcase_add_test(t, raise_when_gangs_wait_for_quota);
	tcase_add_test(t, waiting_without_a_full_quota_is_not_starved);
	tcase_add_test(t, time_slice_idle_inference);
	tcase_add_test(t, replicas_follow_memory);
	tcase_add_test(t, no_sharing_for_training);
	tcase_add_test(t, sharing_that_would_not_validate_is_a_note);
	tcase_add_test(t, thin_data);
	tcase_add_test(t, mig_smallest_profile_that_fits);
	tcase_add_test(t, mig_compute_and_peak_memory);
	tcase_add_test(t, no_mig_keeps_time_slicing);
	tcase_add_test(t, never_share_a_none_gang);
	tcase_add_test(t, spot_for_checkpointed_overflow);
	tcase_add_test(t, never_spot_for_interruption_none);
	suite_add_tcase(s, t);
	t = tcase_create("edit");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, edit_keeps_comments_and_order);
	tcase_add_test(t, edit_replaces_sharing_none);
	tcase_add_test(t, edit_refuses_flow_style);
	suite_add_tcase(s, t);
	t = tcase_create("prom");
	tcase_add_test(t, queries_name_the_workload);
	tcase_add_test(t, prometheus_answers);
	tcase_add_test(t, coverage_clamped);
	suite_add_tcase(s, t);
	return s;
}
