/*
 * generator/capplan.h: the capacity plan of intent files (generator/capacity.h
 * per workload, totals per cluster and overall) and its output formats:
 * `gpuform plan` prints it; `diff --base` compares two of them.
 */
#ifndef GENERATOR_CAPPLAN_H
#define GENERATOR_CAPPLAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/capacity.h"
#include "util/buf.h"
#include "util/diag.h"

/* one instance type of a workload's pool */
struct capplan_type {
	const char *name; /* the catalog's */
	long gpus, units, slots, pods, efa;
	double usd;
};

struct capplan_wl {
	char *name, *gpu, *sharing;
	int spot;       /* spot first (interruption), on-demand fallback */
	/* what the NodePool launches, in Karpenter's order: "on-demand",
	 * "spot" (on-demand fallback), "reserved", "reserved+on-demand",
	 * "reserved+spot" (plan_capacity_types) */
	const char *capacity;
	int modelled;   /* some instance type fits: the numbers mean something */
	size_t ntypes;
	char *types;    /* "p5.48xlarge" or "g6.xlarge .. g6.48xlarge (10)" */
	long per_pod, gang, max_gpus, units, quota, pods_max, nodes_max;
	long slots_min, slots_max; /* pod slots per node over the types */
	struct capplan_type *ty;   /* ntypes */
	double usd_max;
	int usd_bound;
	double usd_min; /* the floor (capacity.h), < 0 unknown */
	int usd_min_bound;
	double spot_min, spot_max; /* at spot prices; < 0 unknown / none */
	char *cheapest, *largest; /* "16 x p5.48xlarge" or NULL */
	double cheapest_usd, largest_usd;
	long gang_efa;
	int needs_one_zone, zone_fits;
};

struct capplan_cluster {
	char *file, *name;
	struct capplan_wl *w;
	size_t n;
	long max_gpus, nodes_max;
	double usd_max, usd_min;
	int usd_unknown;
};

struct capplan {
	struct capplan_cluster *c;
	size_t n, alloc;
	long max_gpus, nodes_max;
	double usd_max, usd_min;
	int usd_unknown;
	const struct capacity_prices *prices; /* NULL: the catalog's */
	struct capacity_opts opts;
	size_t cap_errors; /* capacity findings that are errors */
};
#define CAPPLAN_INIT { NULL, 0, 0, 0, 0, 0, 0, 0, NULL, { 0 }, 0 }

/*
 * capplan_add: read and validate the intent in data (named file); its
 * problems go to *d. An intent with errors other than capacity findings
 * is not planned: returns -1 (ERR_INVALID is the caller's to say).
 * Capacity findings are added to *d and counted in cap_errors.
 */
int capplan_add(struct capplan *p, const char *file, const char *data,
		size_t len, struct diags *d);
/*
 * capplan_add_intent: the same for an intent read and validated already
 * (struct pipeline's in); only its capacity findings go to *d.
 */
struct intent;
void capplan_add_intent(struct capplan *p, const char *file,
			const struct intent *in, struct diags *d);
void capplan_release(struct capplan *p);

/* the price label: "built-in catalog (approximate), us-east-1, 2026-12-01" */
void capplan_prices_label(struct buf *out, const struct capplan *p);

void capplan_text(struct buf *out, const struct capplan *p);
void capplan_markdown(struct buf *out, const struct capplan *p,
		      const struct diags *findings);
cJSON *capplan_json(const struct capplan *p, const struct diags *findings);

/* ---- before -> after (diff --base) ------------------------------------- */

/* capplan_changed: whether max GPUs, nodes or $/hour differ anywhere */
int capplan_changed(const struct capplan *a, const struct capplan *b);
/* the one-sentence change: "max $/hour 440.32 -> 1761.28 (+1320.96), max
 * GPUs 64 -> 256 (+192), max nodes 8 -> 32 (+24)" */
void capplan_diff_lead(struct buf *out, const struct capplan *a,
		       const struct capplan *b);
/* capplan_diff_text: the changed workloads and the total, one line each
 * (diff prints it only when capplan_changed) */
void capplan_diff_text(struct buf *out, const struct capplan *a,
		       const struct capplan *b);
void capplan_diff_markdown(struct buf *out, const struct capplan *a,
			   const struct capplan *b);
cJSON *capplan_diff_json(const struct capplan *a, const struct capplan *b);

#endif
