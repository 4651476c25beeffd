/*
 * generator/capacity.h: what one workload of an intent buys — the capacity
 * model that validation, lint and `gpuform plan` share, so they can never
 * disagree (issue 13; docs/plan.md).
 *
 * Built on the unit arithmetic of units.h (Karpenter's limits, Kueue's
 * quota, pods per node); this module adds what the arithmetic means for
 * nodes, gangs, zones and dollars, and owns the findings about them
 * (a gang that cannot fit, a quota that cannot be reached, replicas that
 * exceed the pod slots), which validate_intent() and `plan` report with
 * the same words.
 *
 * Pure: no I/O. Prices come in as an array parallel to the catalog's
 * types (capacity_builtin_prices, or one read from an AWS Price List
 * file by generator/pricelist.c).
 */
#ifndef GENERATOR_CAPACITY_H
#define GENERATOR_CAPACITY_H

#include <stddef.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/units.h"
#include "util/diag.h"

/* what the catalog's PRICE column is: generator/catalog.tsv says the prices
 * are approximate on-demand USD/hour in us-east-1; the date is that of the
 * last edit of the price column (commit a1ed874, 2026-12-01) */
#define CAPACITY_BUILTIN_REGION "us-east-1"
#define CAPACITY_BUILTIN_DATE "2026-12-01"

/* hours in the month every $/month of gpuform is (plan, diff, advise):
 * 365 x 24 / 12 = 730, the figure AWS's pricing pages and calculator use */
#define CAPACITY_HOURS_PER_MONTH 730.0

/* capacity_month: USD/hour -> USD/month (negative, i.e. unknown, stays -1) */
double capacity_month(double usd_per_hour);

/* on-demand USD/hour per catalog type (index = type - cat->types); a
 * negative price means "not known" */
struct capacity_prices {
	const double *usd; /* cat->ntypes entries */
	size_t n;
	const char *source; /* "built-in catalog", "AWS Price List (file)" */
	const char *region; /* "us-east-1" */
	const char *date;   /* "2026-12-01" (publication date of a file) */
	/* spot USD/hour per catalog type from a describe-spot-price-history
	 * file (generator/spotprices.h), n entries, < 0 not known; NULL: no
	 * spot estimate */
	const double *spot;
	const char *spot_source; /* "FILE (newest TIMESTAMP)" */
};

/* the built-in prices of the catalog (static storage, for cat) */
void capacity_builtin_prices(struct capacity_prices *out,
			     const struct catalog *cat, double *usd);

struct capacity_opts {
	/*
	 * Nodes of one instance type one Availability Zone can give the
	 * workload (an On-Demand Capacity Reservation or Capacity Block
	 * size, what the account gets there), 0 = not stated. gpuform cannot
	 * know EC2's per-zone capacity; without this number "fits one zone"
	 * is unknown (-1), never assumed.
	 */
	long zone_max_nodes;
};

/* one instance type the workload's pool may launch */
struct capacity_type {
	const struct cat_type *t;
	long cap;    /* nvidia.com/gpu a node reports (units.h) */
	long slots;  /* workload pod slots (max pods less system pods) */
	long pods;   /* workload pods a node holds: min(cap / per pod, slots) */
	double usd;  /* on-demand USD/hour, < 0 unknown */
	double spot; /* spot USD/hour, < 0 unknown or not given */
};

/* how a gang would be placed on one instance type */
struct capacity_choice {
	const struct capacity_type *ty; /* NULL: none */
	long nodes;
	double usd; /* nodes x price, < 0 unknown */
	long efa;   /* EFA interfaces on those nodes */
};

struct capacity {
	const struct workload *w;
	const struct catalog *cat;
	struct units_pool up; /* limit, quota, launchable, dense types */
	struct capacity_type types[UNITS_MAX_TYPES];
	size_t ntypes;
	long per_pod;      /* units a pod requests (gpusPerPod) */
	long max_gpus;     /* physical GPUs the pool may hold (maxGpus) */
	long units;        /* schedulable nvidia.com/gpu: NodePool limit */
	long quota;        /* Kueue nominalQuota (units) */
	long pods_max;     /* pods of per_pod units launchable under the limit */
	long nodes_max;    /* most nodes under the limit (smallest type) */
	double usd_max;    /* costliest mix of nodes within the limit, USD/h;
			    * < 0 when a type has no price */
	int usd_bound;     /* usd_max is the ratio bound (limit too large for
			    * the exact sum; never below the exact one) */
	/* the floor: the full quota (pods_max pods) on the one instance type
	 * that runs it cheapest, whole nodes within the limit; < 0 when a
	 * type has no price */
	double usd_min;
	int usd_min_bound; /* no single type holds the quota within the
			    * limit: the per-pod price bound (never above) */
	/* the same floor and ceiling at spot prices (prices->spot); < 0 when
	 * not given or a type has no spot price */
	double spot_min, spot_max;
	/* the gang (1 pod for workloads without one) */
	long gang;
	struct capacity_choice cheapest, largest;
	int needs_one_zone; /* EFA: OS-bypass traffic stays in one subnet */
	int zone_fits;      /* 1, 0, or -1 unknown (no per-zone limit) */
	long zone_max_nodes;
};

/*
 * capacity_build: the model of workload w (whose families fams come from
 * validate_families) under prices (NULL: the catalog's). Returns the
 * number of instance types the pool may launch (0: none).
 */
size_t capacity_build(struct capacity *out, const struct intent *in,
		      const struct workload *w,
		      const struct cat_family *const *fams, size_t nfams,
		      const struct catalog *cat,
		      const struct capacity_prices *prices,
		      const struct capacity_opts *opts);

/*
 * capacity_report: the findings about c as diagnostics at the intent's
 * line:column — no type fits (error), types left out for pod density
 * (warning), gang above maxGpus, maxGpus below one node, gang not
 * launchable under the limit (errors), and, when a per-zone limit is
 * stated, an EFA gang that does not fit one zone (error). Returns the
 * number of errors added.
 */
size_t capacity_report(const struct intent *in, const struct capacity *c,
		       struct diags *d);

/*
 * capacity_launchable: pods of per_pod units Karpenter can launch nodes for
 * under `limit` when the pool may launch `n` types with `gpus[i]` GPUs and
 * `per_gpu[i]` units per GPU (0: not launchable), pods per node bounded by
 * units_pod_slots(types[i], 0, max_pods). *holds = whether some type holds
 * one such pod. Lint (GPU014, GPU015) models a rendered NodePool with it.
 */
long capacity_launchable(const struct cat_type *const *types,
			 const long *per_gpu, size_t n, long per_pod,
			 long max_pods, long limit, int *holds);

/* capacity_node_units: nvidia.com/gpu a node with `gpus` GPUs of
 * `per_gpu` units each reports (0 if either is not positive) */
long capacity_node_units(long gpus, long per_gpu);

/* capacity_max_usd: the costliest mix of nodes (caps cap[i], prices
 * usd[i]) whose units stay within limit; *bound set when the ratio bound
 * was used. -1 when a price is unknown. */
double capacity_max_usd(const long *cap, const double *usd, size_t n,
			long limit, int *bound);

/* capacity_min_usd: the floor — the fewest dollars for `need` pods when
 * all nodes are of one type i (cap[i] units, pods[i] pods per node, usd[i]
 * per hour) and ceil(need / pods[i]) x cap[i] stays within limit; when no
 * type can, the bound need x min(usd[i] / pods[i]) with *bound set. -1
 * when a price is unknown; 0 when need <= 0. */
double capacity_min_usd(const long *cap, const long *pods, const double *usd,
			size_t n, long need, long limit, int *bound);

#endif
