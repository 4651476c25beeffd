/*
 * reconcile/nodecount.c: live NodeClaim and do-not-disrupt pod counts per
 * NodePool (see nodecount.h). Talks to the API only through kube.h.
 *
 * Deliberately not here: deciding what a count means for a change.
 */
#include "reconcile/nodecount.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

#define NODEPOOL_LABEL "karpenter.sh/nodepool"
#define DO_NOT_DISRUPT "karpenter.sh/do-not-disrupt"

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void init_pools(struct nodecount *out, char *const *pools, size_t n,
		       long value)
{
	out->p = xcalloc(n ? n : 1, sizeof(*out->p));
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		out->p[i].pool = xstrdup(pools[i]);
		out->p[i].nodeclaims = value;
		out->p[i].protected_pods = value;
	}
}

/* "true" or a duration protect a pod; "false" or "" do not */
static int protects(const char *v)
{
	return v && *v && strcmp(v, "false");
}

void nodecount_count(struct nodecount *out, char *const *pools, size_t n,
		     const cJSON *nodeclaims, const cJSON *pods)
{
	const cJSON *nc, *pod;

	init_pools(out, pools, n, 0);
	cJSON_ArrayForEach(nc, nodeclaims) {
		const char *pool = str_at(cJSON_GetObjectItemCaseSensitive(nc, "metadata"),
					  "labels", NODEPOOL_LABEL);
		const char *node = str_at(nc, "status", "nodeName");
		struct nodecount_pool *p = NULL;

		for (size_t i = 0; pool && i < n; i++)
			if (!strcmp(out->p[i].pool, pool))
				p = &out->p[i];
		if (!p)
			continue;
		p->nodeclaims++;
		if (!node)
			continue;
		cJSON_ArrayForEach(pod, pods) {
			const char *pn = str_at(pod, "spec", "nodeName");
			const char *phase = str_at(pod, "status", "phase");
			const char *dnd = str_at(cJSON_GetObjectItemCaseSensitive(pod, "metadata"),
						 "annotations", DO_NOT_DISRUPT);
			if (pn && !strcmp(pn, node) && protects(dnd) &&
			    !(phase && (!strcmp(phase, "Succeeded") ||
					!strcmp(phase, "Failed"))))
				p->protected_pods++;
		}
	}
	if (!pods)
		for (size_t i = 0; i < n; i++)
			out->p[i].protected_pods = -1;
}

static void unknown(struct nodecount *out, char *const *pools, size_t n,
		    const char *why)
{
	nodecount_release(out);
	init_pools(out, pools, n, -1);
	out->unknown = xstrdup(why);
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
	struct buf sel = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *ncs = NULL, *pods = NULL;
	const cJSON *nc;
	int any_node = 0;

	*out = (struct nodecount)NODECOUNT_INIT;
	if (!n) {
		init_pools(out, pools, n, 0);
		return;
	}
	buf_addf(&sel, "%s in (", NODEPOOL_LABEL);
	for (size_t i = 0; i < n; i++)
		buf_addf(&sel, "%s%s", i ? "," : "", pools[i]);
	buf_addc(&sel, ')');
	if (kube_list(k, &claims, NULL, buf_cstr(&sel), &ncs, &e) < 0) {
		struct buf why = BUF_INIT;
		buf_addf(&why, "NodeClaims not readable (%s)", err_msg(&e));
		unknown(out, pools, n, buf_cstr(&why));
		buf_release(&why);
		goto out;
	}
	cJSON_ArrayForEach(nc, ncs)
		any_node |= str_at(nc, "status", "nodeName") != NULL;
	if (any_node && kube_list(k, &pods_res, NULL, NULL, &pods, &e) < 0) {
		struct buf why = BUF_INIT;
		buf_addf(&why, "pods not readable (%s)", err_msg(&e));
		nodecount_count(out, pools, n, ncs, NULL);
		out->unknown = buf_detach(&why, NULL);
		goto out;
	}
	if (!any_node)
		pods = cJSON_CreateArray(); /* no node yet: no pod on one */
	nodecount_count(out, pools, n, ncs, pods);
out:
	cJSON_Delete(ncs);
	cJSON_Delete(pods);
	buf_release(&sel);
	err_release(&e);
}

const struct nodecount_pool *nodecount_find(const struct nodecount *c,
					    const char *pool)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].pool, pool))
			return &c->p[i];
	return NULL;
}

void nodecount_release(struct nodecount *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->p[i].pool);
	free(c->p);
	free(c->unknown);
	*c = (struct nodecount)NODECOUNT_INIT;
}
