/*
 * reconcile/nodecount.h: how many nodes a node-replacing change touches, live:
 * the NodeClaims of each NodePool (karpenter.sh/v1 NodeClaims labelled
 * karpenter.sh/nodepool=<pool>) and the pods on their nodes that carry
 * karpenter.sh/do-not-disrupt.
 *
 * Two LIST requests at most (NodeClaims of all the pools in one label
 * selector, then the pods of the cluster, filtered here), and none when no
 * pool is asked for. Counting is best effort: a missing NodeClaim CRD, a 403
 * or any other failure makes the counts unknown (with the reason), never an
 * error.
 */
#ifndef RECONCILE_NODECOUNT_H
#define RECONCILE_NODECOUNT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "reconcile/kube.h"

struct nodecount_pool {
	char *pool;
	long nodeclaims;   /* -1: unknown */
	long protected_pods; /* pods with do-not-disrupt on them; -1: unknown */
};

struct nodecount {
	struct nodecount_pool *p;
	size_t n;
	char *unknown; /* why the counts are unknown, or NULL */
};
#define NODECOUNT_INIT { NULL, 0, NULL }

/* nodecount_fetch: count for every pool in `pools` (n names). */
void nodecount_fetch(struct nodecount *out, struct kube *k,
		     char *const *pools, size_t n);

/* nodecount_count: from already-listed NodeClaims and pods (the pure part;
 * pods may be NULL: their count stays unknown) */
void nodecount_count(struct nodecount *out, char *const *pools, size_t n,
		     const cJSON *nodeclaims, const cJSON *pods);

/* nodecount_find: the entry of `pool`, or NULL */
const struct nodecount_pool *nodecount_find(const struct nodecount *c,
					    const char *pool);

void nodecount_release(struct nodecount *c);

#endif
