/*
 * generator/plan.h: decide what to render for a valid intent.
 *
 * Pure: from the intent and the catalog, work out the EC2NodeClasses (one
 * per distinct node setup), the NodePools (one per workload, plus the
 * general-purpose pool), the namespaces, the quotas and the disruption
 * settings. render.c turns a plan into documents; nothing here knows YAML.
 */
#ifndef GENERATOR_PLAN_H
#define GENERATOR_PLAN_H

#include <stddef.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/units.h"
#include "generator/validate.h"
#include "generator/window.h"
#include "util/diag.h"

struct plan_nodeclass {
	char *name;      /* "gpu", "gpu-efa", "gpu-ts4", "gpu-mig-1g.10gb"->"gpu-mig-1g-10gb", "general" */
	int general;
	int efa;
	enum sharing_mode sharing;
	long ts_replicas;
	const char *mig_profile;
	/* placementGroupSelector: the workload's placement group (name, or
	 * id when it starts with "pg-"); NULL = none. The selector is per
	 * EC2NodeClass, so each placement group gets its own class. */
	const char *pg;
	/* network.efaOnlyInterfaces: the network cards of the class's EFA
	 * types (one layout for all of them); 0 = no networkInterfaces */
	int efa_cards;
	/* Bottlerocket MIG keys of the families using this class */
	const char *mig_models[VALIDATE_MAX_FAMILIES];
	size_t nmig_models;
	/* the one workload whose reservations this class selects, or NULL:
	 * capacityReservationSelectorTerms apply to every NodePool that
	 * references the class, so a reserved workload gets its own */
	const struct workload *reserved_for;
};

struct plan_pool {
	char *name;
	const struct workload *w; /* NULL for the general-purpose pool */
	size_t nodeclass;         /* index into plan.nodeclasses */
	const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
	size_t nfams;
	const char *gpu_names[VALIDATE_MAX_FAMILIES]; /* distinct, sorted */
	size_t ngpu_names;
	int spot;        /* spot allowed (with on-demand fallback) */
	/* karpenter.sh/capacity-type values, sorted ("on-demand",
	 * "reserved", "spot") */
	const char *captypes[3];
	size_t ncaptypes;
	size_t ntypes;   /* instance types the pool can launch */
	size_t s2s_types; /* of those, how many single-node spot-to-spot
			   * consolidation can replace (15 cheaper types) */
	long multiplier; /* schedulable GPUs per physical GPU (time-slicing, MIG) */
	long limit_gpu;  /* NodePool limits.nvidia.com/gpu, in the units the
			    nodes report (units.h) */
	long quota_gpu;  /* Kueue nvidia.com/gpu quota: what can be launched
			    under limit_gpu */
	struct units_pool units; /* types, per-type capacity, density */
	long quota_cpu;  /* vCPU */
	long quota_mem_gib;
	long efa_per_pod;
	long quota_efa;
	const char *share_config; /* device-plugin config name; NULL = default */
	char *share_config_buf;
};

struct plan {
	const struct intent *in;
	struct plan_nodeclass *nodeclasses;
	size_t nnodeclasses;
	struct plan_pool *pools;
	size_t npools;
	char **namespaces; /* distinct, sorted */
	size_t nnamespaces;
	int types_used[3];  /* indexed by enum wl_type */
	int has_window;
	struct window window;
	int any_efa;
	int node_repair;     /* render Karpenter's NodeRepair gate */
	int spot_to_spot;    /* render the SpotToSpotConsolidation gate: some
			      * spot pool has types it can replace */
	int al2023;
	long wait_for_pods_ready_min; /* Kueue waitForPodsReady timeout */
	/* every GPU family in the catalog, including those that misreport
	 * their GPU count: the general-purpose pool excludes them by name */
	const char **gpu_families;
	size_t ngpu_families;
};

/* plan_build: the intent must have passed validate_intent() without errors.
 * Warnings (e.g. a spot pool with fewer than 15 instance types) go to *d. */
int plan_build(struct plan *out, const struct intent *in,
	       const struct catalog *cat, struct diags *d, struct err *err);
void plan_release(struct plan *p);

/*
 * plan_capacity_types: the karpenter.sh/capacity-type values workload w's
 * NodePool allows, sorted ("on-demand", "reserved", "spot"), into types
 * (room for 3) and *n; returns 1 when spot is among them. One decision for
 * render and `gpuform plan` (docs/reserved-capacity.md).
 */
int plan_capacity_types(const struct workload *w, const char **types, size_t *n);

#endif
