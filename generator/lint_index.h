/*
 * generator/lint_index.h: the lint module's index of the set — NodePools
 * with the catalog types they can launch, EC2NodeClasses, device-plugin
 * configuration, Kueue objects — and its pod sets (a workload's pod
 * templates with their GPU and EFA requests), resolved to the pools,
 * queues and pod contract they land on. Internal to the lint module
 * (lint_int.h).
 */
#ifndef GENERATOR_LINT_INDEX_H
#define GENERATOR_LINT_INDEX_H

#include "generator/lint_int.h"

enum wl_kind { WK_NONE, WK_BATCH, WK_SERVING, WK_DAEMON };

struct podset {
	const struct ynode *tmpl; /* has metadata and spec (a Pod: the root) */
	const struct ynode *meta, *spec;
	long count;
	const struct ynode *count_node;
	long gpus, efa;
	const struct ynode *gpu_node, *efa_node;
	/* the first hugepages-<size> request and its resource name */
	const struct ynode *huge_node;
	const char *huge_res;
};

struct workload_ref {
	const struct doc *d;
	enum wl_kind kind;
	struct podset sets[16];
	size_t nsets;
};

struct resolved {
	const struct pool *pools[16];
	size_t npools;
	const struct doc *lq, *cq, *contract;
	const struct ynode *flavor_tols[16];
	size_t nflavor_tols;
	const char *queue;
	const struct ynode *queue_node;
	int ns_has_queues;
};

/* the document of this kind, namespace (NULL: any) and name, or NULL */
const struct doc *lint_find_doc(const struct lctx *c, const char *kind,
				const char *ns, const char *name);
/* the device plugin's configuration of `key` (and its ConfigMap) */
const struct ynode *lint_plugin_config(const struct lctx *c,
				       const char *key,
				       const struct doc **cm);
const struct doc *lint_plugin_configmap(const struct lctx *c);
int lint_family_has_mig(const struct cat_family *f, const char *profile);
/* how many pods of per_pod GPUs one node of the pool can hold */
long lint_pool_launchable(const struct lctx *c, const struct pool *p,
			  long per_pod);
int lint_nc_family(const struct doc *nc, const char *fam);
int lint_image_is(const struct ynode *podspec, const char *needle);
/* index the pools, node classes and device plugins of the set */
void lint_index_globals(struct lctx *c);
/* the pod sets of a workload document; 0 if it is none */
int lint_workload_of(const struct doc *d, struct workload_ref *w);
int lint_tolerates(const struct ynode *tols, const char *key,
		   const char *value, const char *effect);
void lint_pools_by_labels(const struct lctx *c, const struct ynode *sel,
			  struct resolved *r);
/* a pod set's pools, queues and contract */
void lint_resolve(const struct lctx *c, const struct doc *d,
		  const struct podset *p, struct resolved *r);
int lint_candidates(const struct lctx *c, const struct podset *p,
		    const struct resolved *r, int *max_gpus, int *max_efa,
		    long need_gpus);

#endif
