/*
 * generator/advise.h: from what the GPUs did to a reviewed change of the
 * intent (`gpuform advise`, docs/advise.md).
 *
 * Pure: the observations come in (reconcile/observe.c asks Prometheus for
 * them, tests build them by hand), the recommendations and the edited
 * intent text go out. Nothing here reads a clock, a file or the network.
 *
 * The queries are written here too (advise_queries), so the PromQL that
 * defines an observation sits next to the rule that reads it.
 */
#ifndef GENERATOR_ADVISE_H
#define GENERATOR_ADVISE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/capplan.h"
#include "generator/intent.h"
#include "generator/tmpl.h"
#include "util/buf.h"
#include "util/err.h"

/* what one workload's pool, queue and GPUs did over the window; a value
 * is meaningful only where its have_ flag is set */
struct advise_obs {
	/* kube-state-metrics: the share of the window with any
	 * kube_node_labels sample (0..1), and whether some node carries the
	 * label_karpenter_sh_nodepool label at all (the allowlist) */
	double ksm_coverage;
	int nodepool_label;
	/* nvidia.com/gpu units requested by Running pods on the pool's
	 * nodes, sampled every step (0 when none ran) */
	int have_requests;
	double req_peak, req_p95, req_p50;
	/* dcgm-exporter, over the GPUs of the workload's pods: the busiest
	 * GPU's utilisation in percent and framebuffer in MiB */
	int have_util;
	double util_coverage; /* share of the window with samples */
	double util_p95, util_p50;
	double fb_used_p95, fb_total;
	int have_fb_peak;     /* the busiest GPU's framebuffer peak, MiB */
	double fb_used_peak;  /* (MIG: a slice's memory is a hard limit) */
	/* Kueue, the workload's ClusterQueue */
	int have_queue;
	double queue_coverage;
	double pending_hours; /* hours with a pending Workload */
	int have_wait;
	double wait_p90_s;    /* admission wait, 90th percentile */
};

/* the thresholds (docs/advise.md says why each is what it is) */
struct advise_opts {
	double window_s;       /* the window the observations cover */
	double min_coverage;   /* share of the window with data: 0.5 */
	double min_window_s;   /* shortest window judged: 7 days */
	double headroom;       /* over the peak when lowering: 0.25 */
	double lower_min;      /* lower only when it cuts at least: 0.25 */
	double starved_share;  /* pending for this share of the window: 0.05 */
	double starved_wait_s; /* and p90 admission wait of at least: 3600 */
	double full_share;     /* and the peak at this share of quota: 0.9 */
	double share_util;     /* busiest GPU p95 utilisation at most: 25 */
	double share_fb;       /* and p95 framebuffer share at most: 0.25 */
	/* MIG (a slice of `N`g of 7 compute, M GB of the GPU's memory) */
	double mig_busy;       /* the slice busy at most, percent: 60 */
	double mig_fb_p95;     /* p95 framebuffer within this of the slice: 0.8 */
	double mig_fb_peak;    /* and the peak within this of it: 0.9 */
	/* the prices of the cost model (plan --prices, --spot-prices);
	 * NULL: the catalog's */
	const struct capacity_prices *prices;
};
void advise_opts_init(struct advise_opts *o, double window_s);

enum advise_kind {
	ADVISE_NONE,         /* healthy: nothing to change */
	ADVISE_THIN,         /* too little data to judge */
	ADVISE_LOWER_MAX,    /* maxGpus down to the peak plus headroom */
	ADVISE_RAISE_MAX,    /* maxGpus up: gangs wait for quota */
	ADVISE_TIMESLICE,    /* sharing: {timeSlicing: N} */
	ADVISE_MIG,          /* sharing: {mig: PROFILE} (Bottlerocket) */
	ADVISE_SPOT,         /* capacity.whenExhausted: on-demand -> spot */
};
extern const char *const advise_kind_names[];

struct advise_rec {
	size_t wl;                 /* index into intent.workloads */
	enum advise_kind kind;
	long old_max, new_max;     /* LOWER_MAX, RAISE_MAX */
	long replicas;             /* TIMESLICE; MIG: instances per GPU */
	const char *mig;           /* MIG: the profile (the catalog's) */
	char *why;                 /* one sentence: the evidence */
	char *note;                /* a refusal or a caveat; may be NULL */
	double usd_before, usd_after; /* plan's ceiling, USD/h; < 0 unknown */
	double floor_before, floor_after; /* plan's floor, USD/h; < 0 unknown */
	double spot_before, spot_after; /* the ceiling at spot prices; < 0
					 * unknown or no spot file */
	char *impact;              /* node impact of this change alone */
	struct advise_obs obs;     /* what it was decided from */
};

struct advise_result {
	struct advise_rec *recs; /* one per workload, in intent order */
	size_t n;
	size_t changes;          /* recs that change the intent */
};
#define ADVISE_RESULT_INIT { NULL, 0, 0 }
void advise_result_release(struct advise_result *r);

/*
 * advise_decide: the recommendation for every workload of the intent in
 * data (named file, already valid), from obs[i] for workloads[i].
 * Each change is checked by validating the edited intent; one that would
 * not validate is turned into a note (ADVISE_NONE with the reason).
 * The cost effect (plan's ceiling before and after) and the node impact
 * of each change alone (rendered and compared as `diff` does) are filled
 * in. -1 with ERR_INVALID when the intent itself is not valid.
 */
int advise_decide(struct advise_result *out, const char *file,
		  const char *data, size_t len, const struct advise_obs *obs,
		  size_t nobs, const struct advise_opts *o,
		  const struct tmpl_set *t, struct err *err);

/*
 * advise_edit: the intent text with the changes of r applied as minimal
 * text edits (the scalar of maxGpus replaced in place; a sharing line
 * inserted after the workload's maxGpus line, or the value of an existing
 * `sharing: none` replaced; the word of `whenExhausted: on-demand`
 * replaced by `spot`): comments, order and formatting kept.
 * only: the index of the one rec to apply, or (size_t)-1 for all.
 * -1 with ERR_INVALID when the text cannot be edited safely (a workload
 * in flow style), naming the key and line.
 */
int advise_edit(struct buf *out, const char *file, const char *data,
		size_t len, const struct intent *in,
		const struct advise_result *r, size_t only, struct err *err);

/* the observations' queries for one workload */
enum advise_query_id {
	AQ_KSM_COVERAGE,
	AQ_NODEPOOL_LABEL,
	AQ_REQ_PEAK,
	AQ_REQ_P95,
	AQ_REQ_P50,
	AQ_UTIL_COVERAGE,
	AQ_UTIL_P95,
	AQ_UTIL_P50,
	AQ_FB_USED_P95,
	AQ_FB_TOTAL,
	AQ_QUEUE_COVERAGE,
	AQ_PENDING_HOURS,
	AQ_WAIT_P90,
	AQ_FB_USED_PEAK,
	AQ_N
};
extern const char *const advise_query_names[AQ_N];

/* advise_queries: the PromQL of each observation of workload w over a
 * window of window_s seconds sampled every step_s; q[i] are owned
 * (free each) */
void advise_queries(char *q[AQ_N], const struct workload *w, long window_s,
		    long step_s);

/* advise_obs_set: store the answer of query id (present = a sample came
 * back) into *o, turning the have_ flags on as the values arrive */
void advise_obs_set(struct advise_obs *o, enum advise_query_id id,
		    int present, double v);

/* output: text, markdown (a pull-request body) and JSON */
void advise_text(struct buf *out, const char *file, const struct intent *in,
		 const struct advise_result *r);
void advise_markdown(struct buf *out, const char *file,
		     const struct intent *in, const struct advise_result *r);
cJSON *advise_json(const char *file, const struct intent *in,
		   const struct advise_result *r);
/* the commit message body: one line per change with its evidence */
void advise_commit_message(struct buf *out, const char *const *files,
			   const struct intent *const *ins,
			   const struct advise_result *const *rs, size_t n);

#endif
