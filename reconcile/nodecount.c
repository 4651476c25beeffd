/*
 * reconcile/nodecount.c: live NodeClaim and do-not-disrupt pod counts per
 * NodePool (see nodecount.h). Talks to the API only through kube.h.
 *
 * Deliberately not here: deciding which NodeClaims a change affects (the
 * caller's predicate) or what a count means.
 */
#include "reconcile/nodecount.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/json.h"
#include "util/xalloc.h"

#define NODEPOOL_LABEL "karpenter.sh/nodepool"
#define DO_NOT_DISRUPT "karpenter.sh/do-not-disrupt"

int nodecount_protects(const cJSON *pod)
{
	const char *v = json_meta_at(pod, "annotations", DO_NOT_DISRUPT);
	const char *phase = json_str_at(pod, "status", "phase");

	/* "true" or a duration protect a pod; "false" or "" do not */
	if (!v || !*v || !strcmp(v, "false"))
		return 0;
	return !(phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")));
}

void nodecount_count(const struct nodecount *c, const char *pool,
		     int (*affected)(const cJSON *claim, void *ctx), void *ctx,
		     long *claims, long *pods)
{
	const cJSON *nc, *pod;

	*claims = c->claims ? 0 : -1;
	*pods = c->claims && c->pods ? 0 : -1;
	cJSON_ArrayForEach(nc, c->claims) {
		const char *p = json_meta_at(nc, "labels", NODEPOOL_LABEL);
		const char *node = json_str_at(nc, "status", "nodeName");

		if (!p || strcmp(p, pool) || (affected && !affected(nc, ctx)))
			continue;
		(*claims)++;
		if (!node || *pods < 0)
			continue;
		cJSON_ArrayForEach(pod, c->pods) {
			const char *pn = json_str_at(pod, "spec", "nodeName");
			if (pn && !strcmp(pn, node) && nodecount_protects(pod))
				(*pods)++;
		}
	}
}

void nodecount_fetch(struct nodecount *out, struct kube *k,
		     char *const *pools, size_t n)
{
	static const struct kube_resource claims = {
		(char *)"karpenter.sh", (char *)"v1", (char *)"NodeClaim",
		(char *)"nodeclaims", 0
	};
	static const struct kube_resource pods_res = {
		(char *)"", (char *)"v1", (char *)"Pod", (char *)"pods", 1
	};
	struct buf sel = BUF_INIT, why = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *all = NULL, *pod;
	const cJSON *nc;
	int any_node = 0;

	if (!n) {
		out->claims = cJSON_CreateArray();
		out->pods = cJSON_CreateArray();
		return;
	}
	buf_addf(&sel, "%s in (", NODEPOOL_LABEL);
	for (size_t i = 0; i < n; i++)
		buf_addf(&sel, "%s%s", i ? "," : "", pools[i]);
	buf_addc(&sel, ')');
	if (kube_list(k, &claims, NULL, buf_cstr(&sel), &out->claims, &e) < 0) {
		out->claims = NULL;
		buf_addf(&why, "NodeClaims not readable: %s", err_msg(&e));
		out->unknown = buf_detach(&why, NULL);
		goto out;
	}
	cJSON_ArrayForEach(nc, out->claims)
		any_node |= json_str_at(nc, "status", "nodeName") != NULL;
	out->pods = cJSON_CreateArray();
	if (!any_node)
		goto out; /* no node registered yet: no pod on one */
	if (kube_list(k, &pods_res, NULL, NULL, &all, &e) < 0) {
		cJSON_Delete(out->pods);
		out->pods = NULL;
		buf_addf(&why, "pods not readable: %s", err_msg(&e));
		out->unknown = buf_detach(&why, NULL);
		goto out;
	}
	/* keep only what can protect a node: a cluster has many pods */
	while ((pod = cJSON_DetachItemFromArray(all, 0))) {
		if (json_str_at(pod, "spec", "nodeName") &&
		    nodecount_protects(pod))
			cJSON_AddItemToArray(out->pods, pod);
		else
			cJSON_Delete(pod);
	}
out:
	cJSON_Delete(all);
	buf_release(&sel);
	buf_release(&why);
	err_release(&e);
}

void nodecount_release(struct nodecount *c)
{
	cJSON_Delete(c->claims);
	cJSON_Delete(c->pods);
	free(c->unknown);
	*c = (struct nodecount)NODECOUNT_INIT;
}
