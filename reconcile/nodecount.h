/*
 * reconcile/nodecount.h: how many nodes a node-replacing change touches, live:
 * the NodeClaims of a NodePool (karpenter.sh/v1 NodeClaims labelled
 * karpenter.sh/nodepool=<pool>) and the pods on their nodes that carry
 * karpenter.sh/do-not-disrupt ("true" or a duration).
 *
 * Two LIST requests at most (the NodeClaims of all the pools in one label
 * selector, then the pods of the cluster, filtered here), and none when no
 * pool is asked for. Counting is best effort: a missing NodeClaim CRD, a 403
 * or any other failure makes the counts unknown (with the reason), never an
 * error.
 */
#ifndef RECONCILE_NODECOUNT_H
#define RECONCILE_NODECOUNT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "kube/kube.h"

struct nodecount {
	cJSON *claims; /* NodeClaims of the pools asked for; NULL: unknown */
	cJSON *pods;   /* protected pods on nodes (spec.nodeName); NULL: unknown */
	char *unknown; /* why something is unknown, or NULL */
};
#define NODECOUNT_INIT { NULL, NULL, NULL }

/* nodecount_fetch: list for every pool in `pools` (n names); *out must be
 * NODECOUNT_INIT. */
void nodecount_fetch(struct nodecount *out, struct kube *k,
		     char *const *pools, size_t n);

/*
 * nodecount_count: the NodeClaims of `pool` for which affected(claim, ctx)
 * holds (every one when affected is NULL) into *claims, and the pods with
 * do-not-disrupt on their nodes into *pods; -1 for what is unknown. Pure:
 * works on c->claims and c->pods (unit tests fill them directly).
 */
void nodecount_count(const struct nodecount *c, const char *pool,
		     int (*affected)(const cJSON *claim, void *ctx), void *ctx,
		     long *claims, long *pods);

/* nodecount_protects: 1 if a pod object carries do-not-disrupt and has not
 * finished */
int nodecount_protects(const cJSON *pod);

void nodecount_release(struct nodecount *c);

#endif
