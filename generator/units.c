/*
 * generator/units.c: GPU units under sharing (see units.h).
 */
#include "generator/units.h"

#include <string.h>

#include "util/xalloc.h"

long units_per_gpu(const struct cat_family *f, enum sharing_mode sh,
		   long replicas, const char *mig_profile)
{
	switch (sh) {
	case SHARE_TIMESLICING:
		return replicas > 0 ? replicas : 1;
	case SHARE_MIG:
		return catalog_mig_instances(f, mig_profile);
	case SHARE_NONE:
		break;
	}
	return 1;
}

long units_pod_slots(const struct cat_type *t, int prefix_delegation,
		     long max_pods_override)
{
	long max = max_pods_override > 0    ? max_pods_override
		   : prefix_delegation ? UNITS_PD_MAX_PODS
				       : catalog_max_pods(t);

	return max > UNITS_SYSTEM_PODS ? max - UNITS_SYSTEM_PODS : 0;
}

long units_efa_share(const struct cat_type *t, long gpus_per_pod)
{
	long share;

	if (!t->efa || t->gpus <= 0)
		return 0;
	share = (long)t->efa * gpus_per_pod / t->gpus;
	return share < 1 ? 1 : share;
}

/*
 * One request per pool: Karpenter attaches every EFA interface of the type
 * it launches (aws/karpenter-provider-aws v1.14.1 pkg/providers/instance/
 * instance.go getEFACountForInstance) and the EFA device plugin hands a pod
 * exactly what it requests, so on a type whose share is larger than the
 * request the pod uses part of the fabric, and on one whose share is
 * smaller it does not fit (fewer than gang pods per node). Keep the types
 * with the largest share (the full fabric per GPU); move the others out.
 */
static void efa_keep_largest(struct units_pool *out, struct units_node *nodes,
			     long per_pod, int reserved)
{
	size_t k = 0;

	/* a type only reserved capacity launches (no on-demand price in
	 * Karpenter's table: its offerings are unavailable, aws/karpenter-
	 * provider-aws v1.14.1 pkg/providers/instancetype/offering/
	 * base_resolver.go, Available needs hasPrice) cannot set the share
	 * of a pool without reservations: the pool would ask for a share
	 * only that type has, and launch nothing (found by tests/oracle.sh) */
	for (size_t i = 0; i < out->ntypes; i++) {
		long s = units_efa_share(out->types[i], per_pod);
		if (out->types[i]->reserved_only && !reserved)
			continue;
		if (s > out->efa_share)
			out->efa_share = s;
	}
	if (!out->efa_share) /* only reserved-only types: keep the largest */
		for (size_t i = 0; i < out->ntypes; i++) {
			long s = units_efa_share(out->types[i], per_pod);
			if (s > out->efa_share)
				out->efa_share = s;
		}
	for (size_t i = 0; i < out->ntypes; i++) {
		long s = units_efa_share(out->types[i], per_pod);
		if (s != out->efa_share) {
			out->efa_out[out->nefa_out] = out->types[i];
			out->efa_out_share[out->nefa_out++] = s;
			continue;
		}
		out->types[k] = out->types[i];
		out->cap[k] = out->cap[i];
		nodes[k++] = nodes[i];
	}
	out->ntypes = k;
}

struct units_node units_node_of(long gpus, long per_gpu, long per_pod,
				long slots)
{
	struct units_node n;

	n.cap = gpus > 0 && per_gpu > 0 ? gpus * per_gpu : 0;
	n.pods = per_pod > 0 ? n.cap / per_pod : 0;
	if (n.pods > slots)
		n.pods = slots > 0 ? slots : 0;
	return n;
}

long units_launchable(const struct units_node *n, size_t nn, long limit)
{
	long placed = 0, rest = limit;

	/* each pass lowers `rest` by at least one, and a pass covers every
	 * step with the same choice, so there are at most 2 * nn passes */
	for (size_t pass = 0; pass <= 2 * nn + 1; pass++) {
		long pods = 0, reserve = 0, cmax = 0, k;

		for (size_t i = 0; i < nn; i++) {
			if (n[i].cap <= 0 || n[i].cap > rest || n[i].pods < 1)
				continue;
			if (n[i].cap > cmax)
				cmax = n[i].cap;
			if (n[i].pods > pods) {
				pods = n[i].pods;
				reserve = n[i].cap;
			} else if (n[i].pods == pods && n[i].cap > reserve) {
				reserve = n[i].cap;
			}
		}
		if (!pods)
			break;
		k = 1 + (rest - cmax) / reserve;
		placed += k * pods;
		rest -= k * reserve;
	}
	return placed;
}

size_t units_plan_pool(struct units_pool *out, const struct workload *w,
		       const struct cat_family *const *fams, size_t nfams,
		       const struct catalog *cat, int prefix_delegation)
{
	struct units_node nodes[UNITS_MAX_TYPES];
	long per_pod = w->gpus_per_pod > 0 ? w->gpus_per_pod : 1;

	memset(out, 0, sizeof(*out));
	for (size_t f = 0; f < nfams; f++) {
		const struct cat_type *t;
		size_t nt = catalog_types_of(cat, fams[f]->name, &t);
		long per_gpu = units_per_gpu(fams[f], w->sharing,
					     w->ts_replicas, w->mig_profile);

		for (size_t j = 0; j < nt && per_gpu > 0; j++) {
			long cap, slots;

			if (t[j].gpus < w->gpus_per_pod || t[j].gpus < 1 ||
			    (w->efa && t[j].efa == 0))
				continue;
			cap = (long)t[j].gpus * per_gpu;
			slots = units_pod_slots(&t[j], prefix_delegation, 0);
			if (out->ntypes + out->ndense == UNITS_MAX_TYPES)
				BUG("more than %d instance types in one pool",
				    UNITS_MAX_TYPES);
			if (cap / per_pod > slots) {
				out->dense[out->ndense] = &t[j];
				out->dense_need[out->ndense] = cap / per_pod;
				out->dense_slots[out->ndense++] = slots;
				continue;
			}
			out->types[out->ntypes] = &t[j];
			out->cap[out->ntypes] = cap;
			nodes[out->ntypes] =
				units_node_of(t[j].gpus, per_gpu, per_pod, slots);
			out->ntypes++;
		}
	}
	if (w->efa)
		efa_keep_largest(out, nodes, per_pod, w->capacity);
	if (!out->ntypes)
		return 0;
	for (size_t i = 0; i < out->ntypes; i++) {
		long per_gpu = out->cap[i] / out->types[i]->gpus;
		if (!out->per_gpu_min || per_gpu < out->per_gpu_min)
			out->per_gpu_min = per_gpu;
	}
	out->limit = w->max_gpus * out->per_gpu_min;
	out->launchable = units_launchable(nodes, out->ntypes, out->limit);
	out->quota = out->launchable * per_pod;
	if (out->quota > out->limit)
		out->quota = out->limit;
	return out->ntypes;
}
