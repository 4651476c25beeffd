/*
 * generator/lint_workload.c: the lint rules over workloads (see
 * lint_workload.h).
 */
#include "generator/lint_workload.h"

#include <string.h>

#include "generator/capacity.h"
#include "generator/catalog.h"
#include "generator/lint_index.h"
#include "generator/lint_int.h"
#include "generator/lint_pools.h"
#include "util/buf.h"

/* ---- rules over workloads ------------------------------------------------ */

static long pool_mult(const struct resolved *r)
{
	long m = 1;

	for (size_t i = 0; i < r->npools; i++)
		if (r->pools[i]->mult > m)
			m = r->pools[i]->mult;
	return m;
}

void lint_pool_names(struct buf *b, const struct resolved *r)
{
	for (size_t i = 0; i < r->npools; i++)
		buf_addf(b, "%s'%s'", i ? ", " : "", r->pools[i]->name);
}

/* GPU012 (more GPUs than one instance has) and GPU006 (EFA on types
 * without enough EFA): both from the candidate instance types */
static void podset_fit(struct lctx *c, const struct workload_ref *w,
		       const struct podset *p, long gang, struct resolved r,
		       struct buf names, int dnd)
{
	const struct doc *d = w->d;
	int max_g = 0, max_e = 0, ncand;

	ncand = lint_candidates(c, p, &r, &max_g, &max_e, p->gpus);
	if (p->gpus > 0) {
		/* what one node reports (capacity.h, as validate and plan) */
		long cap = capacity_node_units(max_g, pool_mult(&r));
		if (ncand > 0 && p->gpus > cap)
			report(c, R_GPUS, d, p->gpu_node,
			       "pod requests %ld GPUs but the largest instance "
			       "type it can land on%s%s%s has %ld",
			       p->gpus, r.npools ? " (pool " : "",
			       r.npools ? buf_cstr(&names) : "",
			       r.npools ? ")" : "", cap);
		else if (ncand == 0 && r.npools)
			report(c, R_GPUS, d, p->gpu_node,
			       "pod requests %ld GPUs but pool %s can launch no "
			       "GPU instance type matching its nodeSelector",
			       p->gpus, buf_cstr(&names));
		else if (ncand < 0) {
			int catmax = 0;
			for (size_t i = 0; i < c->cat->ntypes; i++)
				if (c->cat->types[i].gpus > catmax)
					catmax = c->cat->types[i].gpus;
			if (p->gpus > (long)catmax * pool_mult(&r))
				report(c, R_GPUS, d, p->gpu_node,
				       "pod requests %ld GPUs; no EC2 GPU "
				       "instance has more than %d",
				       p->gpus, catmax);
		}
	}

	/* GPU006: EFA on types without (enough) EFA */
	if (p->efa > 0 && ncand >= 0 && max_e < p->efa) {
		struct buf what = BUF_INIT;
		if (r.npools)
			buf_addf(&what, "pool %s", buf_cstr(&names));
		else
			buf_adds(&what, "its nodeSelector");
		if (max_e)
			report(c, R_EFA_TYPES, d, p->efa_node,
			       "pod requests %ld EFA interfaces but the instance "
			       "types of %s have at most %d",
			       p->efa, buf_cstr(&what), max_e);
		else
			report(c, R_EFA_TYPES, d, p->efa_node,
			       "pod requests %ld EFA interface%s but no instance "
			       "type of %s has EFA",
			       p->efa, p->efa == 1 ? "" : "s", buf_cstr(&what));
		buf_release(&what);
	}
}

/* GPU005: EFA pods on a node class without an explicit SG term */
static void podset_efa_sg(struct lctx *c, const struct workload_ref *w,
			  const struct podset *p, long gang, struct resolved r,
			  struct buf names, int dnd)
{
	for (size_t i = 0; p->efa > 0 && i < r.npools; i++) {
		const struct doc *nc = r.pools[i]->nc;
		const struct ynode *sg;
		int explicit_sg = 0;
		if (!nc)
			continue;
		sg = get(nc->root, "spec.securityGroupSelectorTerms");
		for (int j = 0; j < seq_len(sg); j++)
			if (kid(sg->kids[j], "id") || kid(sg->kids[j], "name"))
				explicit_sg = 1;
		if (!explicit_sg)
			report(c, R_EFA_SG, nc, sg,
			       "EC2NodeClass '%s' serves EFA pods (pool '%s') "
			       "but selects security groups only by tags; add "
			       "a term with the id of the self-referencing EFA "
			       "group",
			       nc->name ? nc->name : "", r.pools[i]->name);
	}
}

/* GPU009: do-not-disrupt */
static void podset_dnd(struct lctx *c, const struct workload_ref *w,
		       const struct podset *p, long gang, struct resolved r,
		       struct buf names, int dnd)
{
	const struct doc *d = w->d;
	const struct ynode *at = p->meta ? p->meta : p->tmpl;

	if (!dnd && p->gpus > 0 && w->kind == WK_BATCH) {
		const struct pool *prot = NULL;
		for (size_t i = 0; i < r.npools; i++)
			if (r.pools[i]->protect)
				prot = r.pools[i];
		if (r.contract && str(kid(kid(r.contract->root, "annotations"),
					  ANN_DND)))
			report(c, R_DND, d, at,
			       "pods lack annotation %s: \"true\", which the "
			       "pod contract of queue '%s' requires (interruption "
			       "none)", ANN_DND, r.queue);
		else if (prot)
			report(c, R_DND, d, at,
			       "pods land on NodePool '%s', which must not be "
			       "interrupted, but lack annotation %s: \"true\"",
			       prot->name, ANN_DND);
		else if (!r.npools && gang > 1)
			report_sev(c, R_DND, LINT_WARNING, d, at,
				   "gang of %ld GPU pods without annotation "
				   "%s: \"true\": consolidation or drift can "
				   "evict one pod and restart the whole gang",
				   gang, ANN_DND);
	}
}

/* GPU010: Kueue queue */
static void podset_queue(struct lctx *c, const struct workload_ref *w,
			 const struct podset *p, long gang, struct resolved r,
			 struct buf names, int dnd)
{
	const struct doc *d = w->d;

	if (p->gpus > 0 && w->kind == WK_BATCH) {
		if (!r.queue && r.ns_has_queues)
			report(c, R_QUEUE, d, kid(d->root, "metadata"),
			       "GPU job in namespace '%s' has no label %s; "
			       "it bypasses Kueue's quota and gang admission",
			       d->ns, LBL_QUEUE);
		else if (r.queue && !r.lq) {
			int any = 0;
			for (size_t i = 0; i < c->ndocs; i++)
				if (kind_is(&c->docs[i], "LocalQueue"))
					any = 1;
			if (any)
				report(c, R_QUEUE, d, r.queue_node,
				       "label %s names LocalQueue '%s', which "
				       "does not exist%s%s; the job stays "
				       "suspended",
				       LBL_QUEUE, r.queue,
				       d->ns ? " in namespace " : "",
				       d->ns ? d->ns : "");
		}
	}
}

/* GPU011: toleration for the GPU taint */
static void podset_tolerations(struct lctx *c, const struct workload_ref *w,
			       const struct podset *p, long gang, struct resolved r,
			       struct buf names, int dnd)
{
	const struct doc *d = w->d;
	const struct ynode *tols = kid(p->spec, "tolerations");

	if (p->gpus > 0 && w->kind != WK_DAEMON) {
		const struct ynode *ctols = r.contract
			? kid(r.contract->root, "tolerations") : NULL;
		int done = 0;
		for (int i = 0; i < seq_len(ctols) && !done; i++) {
			const char *k = sget(ctols->kids[i], "key");
			const char *e = sget(ctols->kids[i], "effect");
			if (k && !lint_tolerates(tols, k,
						 sget(ctols->kids[i], "value"),
						 e)) {
				report(c, R_TOLERATION, d,
				       tols ? tols : p->spec,
				       "pods lack the toleration for %s%s%s "
				       "that the pod contract of queue '%s' "
				       "lists",
				       k, e ? ":" : "", e ? e : "", r.queue);
				done = 1;
			}
		}
		for (size_t i = 0; i < r.npools && !done && !r.contract; i++) {
			const struct ynode *ts = kid(r.pools[i]->tspec, "taints");
			for (int j = 0; j < seq_len(ts) && !done; j++) {
				const char *k = sget(ts->kids[j], "key"),
					   *v = sget(ts->kids[j], "value"),
					   *e = sget(ts->kids[j], "effect");
				int injected = 0;
				if (!k || (e && !strcmp(e, "PreferNoSchedule")))
					continue;
				for (size_t f = 0; f < r.nflavor_tols; f++)
					if (lint_tolerates(r.flavor_tols[f], k, v,
							   e))
						injected = 1;
				if (injected || lint_tolerates(tols, k, v, e))
					continue;
				report(c, R_TOLERATION, d, tols ? tols : p->spec,
				       "pods do not tolerate taint %s%s%s:%s of "
				       "NodePool '%s' and cannot schedule there",
				       k, v ? "=" : "", v ? v : "",
				       e ? e : "", r.pools[i]->name);
				done = 1;
			}
		}
		if (!done && !r.npools && !r.contract && !r.cq &&
		    !lint_tolerates(tols, GPU_TAINT, "true", "NoSchedule"))
			report_sev(c, R_TOLERATION, LINT_WARNING, d,
				   tols ? tols : p->spec,
				   "GPU pods without a toleration for %s; GPU "
				   "NodePools are conventionally tainted "
				   "%s=true:NoSchedule", GPU_TAINT, GPU_TAINT);
	}
}

/* GPU008: serving on time-sliced GPUs */
static void podset_timesliced(struct lctx *c, const struct workload_ref *w,
			      const struct podset *p, long gang, struct resolved r,
			      struct buf names, int dnd)
{
	const struct doc *d = w->d;

	for (size_t i = 0; w->kind == WK_SERVING && i < r.npools; i++)
		if (r.pools[i]->timesliced && !r.pools[i]->d->in) {
			report(c, R_TIMESLICE, d, p->gpu_node,
			       "%s '%s' serves on time-sliced NodePool '%s' "
			       "(%ld replicas per GPU, no memory isolation); "
			       "use MIG or whole GPUs for production inference",
			       d->kind, d->name ? d->name : "",
			       r.pools[i]->name, r.pools[i]->mult);
			break;
		}
}

/* GPU013: expiry vs do-not-disrupt */
static void podset_expiry(struct lctx *c, const struct workload_ref *w,
			  const struct podset *p, long gang, struct resolved r,
			  struct buf names, int dnd)
{
	const struct doc *d = w->d;

	for (size_t i = 0; dnd && i < r.npools; i++) {
		const struct pool *pl = r.pools[i];
		const char *ea = sget(pl->tspec, "expireAfter");
		if ((ea && !strcmp(ea, "Never")) ||
		    kid(pl->tspec, "terminationGracePeriod"))
			continue;
		report(c, R_EXPIRE, pl->d,
		       ea ? kid(pl->tspec, "expireAfter") : pl->tspec,
		       "NodePool '%s' expires nodes after %s but has no "
		       "terminationGracePeriod, and %s '%s' uses %s: draining "
		       "can hang forever",
		       pl->name, ea ? ea : "720h (the default)", d->kind,
		       d->name ? d->name : "", ANN_DND);
	}
}

/* GPU024: a grace period longer than a spot interruption notice */
static void podset_spot_grace(struct lctx *c, const struct workload_ref *w,
			      const struct podset *p, long gang,
			      struct resolved r, struct buf names, int dnd)
{
	const struct doc *d = w->d;

	if (w->kind != WK_DAEMON) {
		const struct ynode *tg = kid(p->spec, TGPS);
		const struct ynode *ctg = r.contract
			? kid(r.contract->root, TGPS) : NULL;
		const char *spot = NULL;
		long secs = num(tg), limit = SPOT_NOTICE_S;

		for (size_t i = 0; i < r.npools && !spot; i++)
			if (r.pools[i]->spot)
				spot = r.pools[i]->name;
		/* gpuform writes the bound into the contracts of pools
		 * that can be spot */
		if (ctg && num(ctg) >= 0) {
			limit = num(ctg);
			spot = r.queue;
		}
		if (spot && secs > limit)
			report(c, R_SPOT_GRACE, d, tg,
			       "terminationGracePeriodSeconds is %ld but the "
			       "pods can run on spot capacity (%s '%s'): EC2 "
			       "reclaims a spot instance 2 minutes after its "
			       "interruption notice, so the pods are killed "
			       "before their grace period ends; keep it at "
			       "most %ld and checkpoint on SIGTERM",
			       secs, ctg ? "queue" : "NodePool", spot, limit);
	}
}

/*
 * GPU025: pods that request hugepages on a pool where, for some instance
 * type it can launch, no NodeOverlay gives Karpenter that capacity:
 * Karpenter's AWS instance types have none (aws/karpenter-provider-aws
 * v1.14.1 pkg/providers/instancetype/types.go computeCapacity), a missing
 * resource does not fit, and the pods never get a node.
 */
static void podset_hugepages(struct lctx *c, const struct workload_ref *w,
			     const struct podset *p, struct resolved r)
{
	if (!p->huge_node || !c->cat)
		return;
	for (size_t k = 0; k < r.npools; k++) {
		const struct pool *pl = r.pools[k];
		const struct cat_type *miss = NULL;

		if (!pl->admit)
			continue;
		for (size_t i = 0; i < c->cat->ntypes && !miss; i++) {
			const struct cat_type *t = &c->cat->types[i];
			int ok = 0;

			if (!pl->admit[i] || t->gpus <= 0)
				continue;
			for (size_t j = 0; j < c->ndocs && !ok; j++) {
				const struct doc *ov = &c->docs[j];
				ok = kind_is(ov, "NodeOverlay") &&
				     lint_overlay_selects(c, ov, pl, t) &&
				     kid(get(ov->root, "spec.capacity"),
					 p->huge_res);
			}
			if (!ok)
				miss = t;
		}
		if (miss)
			report(c, R_HUGEPAGES, w->d, p->huge_node,
			       "the pods request %s but NodePool '%s' gives "
			       "Karpenter no such capacity for %s (no "
			       "NodeOverlay): its instance types carry no "
			       "hugepages, so Karpenter finds no type that "
			       "fits and the pods stay Pending",
			       p->huge_res, pl->name, miss->name);
	}
}

/* the rules about one pod set of a workload that asks for GPUs or EFA,
 * against the pools, queues and pod contract it resolves to */
static void check_podset(struct lctx *c, const struct workload_ref *w,
			 const struct podset *p, long gang)
{
	const struct doc *d = w->d;
	struct resolved r;
	const struct ynode *ann = kid(p->meta, "annotations");
	int dnd = str(kid(ann, ANN_DND)) != NULL;
	struct buf names = BUF_INIT;

	if (p->gpus <= 0 && p->efa <= 0)
		return;
	lint_resolve(c, d, p, &r);
	lint_pool_names(&names, &r);

	podset_fit(c, w, p, gang, r, names, dnd);
	podset_efa_sg(c, w, p, gang, r, names, dnd);
	podset_dnd(c, w, p, gang, r, names, dnd);
	podset_queue(c, w, p, gang, r, names, dnd);
	podset_tolerations(c, w, p, gang, r, names, dnd);
	podset_timesliced(c, w, p, gang, r, names, dnd);
	podset_expiry(c, w, p, gang, r, names, dnd);
	podset_spot_grace(c, w, p, gang, r, names, dnd);
	podset_hugepages(c, w, p, r);
	buf_release(&names);
}

static long cq_gpu_quota(const struct doc *cq, const struct ynode **at,
			 int *unbounded)
{
	const struct ynode *rgs = get(cq->root, "spec.resourceGroups");
	long total = 0;

	*unbounded = 0;
	*at = NULL;
	for (int i = 0; i < seq_len(rgs); i++) {
		const struct ynode *fl = kid(rgs->kids[i], "flavors");
		for (int j = 0; j < seq_len(fl); j++) {
			const struct ynode *res = kid(fl->kids[j], "resources");
			for (int k = 0; k < seq_len(res); k++) {
				const char *n = sget(res->kids[k], "name");
				const struct ynode *q;
				if (!n || strcmp(n, RES_GPU))
					continue;
				q = kid(res->kids[k], "nominalQuota");
				if (num(q) > 0)
					total += num(q);
				if (!*at)
					*at = q;
				if (sget(cq->root, "spec.cohortName") ||
				    sget(cq->root, "spec.cohort")) {
					const struct ynode *bl =
						kid(res->kids[k], "borrowingLimit");
					if (!bl)
						*unbounded = 1;
					else if (num(bl) > 0)
						total += num(bl);
				}
			}
		}
	}
	return total;
}

/*
 * GPU020: Kueue reads the queue label from the job object it manages
 * (kubernetes-sigs/kueue pkg/controller/jobframework/utils.go,
 * QueueNameForObject: the object's own labels), and the pod integration
 * leaves pods owned by a managed job kind alone. A label only on the pod
 * template of a Job, JobSet, PyTorchJob... therefore does nothing: the job
 * runs without quota. For a CronJob the object is the Job it creates, whose
 * labels come from spec.jobTemplate.metadata.labels. Bare Pods are their
 * own object; Deployments and StatefulSets propagate the label (and their
 * pods are managed one by one), so they are not checked.
 */
static void check_queue_placement(struct lctx *c, const struct workload_ref *w)
{
	const struct doc *d = w->d;
	int cron = !strcmp(d->kind, "CronJob");
	const struct ynode *obj = cron
		? get(d->root, "spec.jobTemplate.metadata.labels")
		: get(d->root, "metadata.labels");
	const struct ynode *at = NULL;

	if (w->kind != WK_BATCH || !strcmp(d->kind, "Pod") ||
	    kid(obj, LBL_QUEUE))
		return;
	for (size_t i = 0; i < w->nsets && !at; i++)
		at = kid(kid(w->sets[i].meta, "labels"), LBL_QUEUE);
	if (cron && !at)
		at = kid(get(d->root, "metadata.labels"), LBL_QUEUE);
	if (!at)
		return;
	if (cron)
		report(c, R_QUEUE_PLACEMENT, d, at,
		       "label %s is not in spec.jobTemplate.metadata.labels: "
		       "Kueue reads the label of the Job the CronJob creates, "
		       "so its Jobs run without quota or gang admission",
		       LBL_QUEUE);
	else
		report(c, R_QUEUE_PLACEMENT, d, at,
		       "label %s is on the pod template but not on the %s "
		       "itself: Kueue reads the %s's own label, so it runs "
		       "without quota or gang admission",
		       LBL_QUEUE, d->kind, d->kind);
}

void lint_check_workload(struct lctx *c, const struct workload_ref *w)
{
	long gang = 0, total = 0;
	struct resolved r;
	const struct ynode *qat;
	int unbounded;
	long quota;

	for (size_t i = 0; i < w->nsets; i++) {
		gang += w->sets[i].count;
		if (w->sets[i].gpus > 0)
			total += w->sets[i].count * w->sets[i].gpus;
	}
	if (w->kind == WK_DAEMON) {
		const struct podset *p = &w->sets[0];
		const struct ynode *tols = kid(p->spec, "tolerations");
		const char *what =
			lint_image_is(p->spec, "efa-k8s-device-plugin") ? "EFA"
			: lint_image_is(p->spec, "k8s-device-plugin")
				? "NVIDIA"
				: NULL;
		if (what &&
		    !lint_tolerates(tols, GPU_TAINT, "true", "NoSchedule"))
			report(c, R_PLUGIN_TOL, w->d, tols ? tols : p->spec,
			       "%s device plugin DaemonSet '%s' does not tolerate "
			       "%s:NoSchedule, so it never runs on GPU nodes",
			       what, w->d->name ? w->d->name : "", GPU_TAINT);
		return;
	}
	for (size_t i = 0; i < w->nsets; i++)
		check_podset(c, w, &w->sets[i], gang);

	/* GPU020: the queue label where Kueue reads it */
	check_queue_placement(c, w);

	/* GPU014: gang vs the ClusterQueue's quota */
	if (w->kind != WK_BATCH || total <= 0 || !w->nsets)
		return;
	lint_resolve(c, w->d, &w->sets[0], &r);
	if (!r.cq)
		return;
	quota = cq_gpu_quota(r.cq, &qat, &unbounded);
	if (w->nsets == 1 && w->sets[0].gpus > 0 && r.npools &&
	    (unbounded || !qat || total <= quota)) {
		/* the gang fits the quota; can Karpenter launch it under the
		 * limits of the pools it lands on? (same arithmetic, units.h) */
		long can = 0;
		int known = 1;
		for (size_t i = 0; i < r.npools; i++) {
			long l = lint_pool_launchable(c, r.pools[i],
						      w->sets[0].gpus);
			if (l < 0)
				known = 0;
			can += l;
		}
		if (known && can < gang) {
			struct buf names = BUF_INIT, b = BUF_INIT;
			const struct ynode *at = w->sets[0].count_node;
			lint_pool_names(&names, &r);
			where(&b, r.pools[0]->d,
			      kid(get(r.pools[0]->d->root, "spec.limits"),
				  RES_GPU));
			report(c, R_GANG, w->d, at ? at : kid(w->d->root, "spec"),
			       "the gang needs %ld pods of %ld GPUs at once but "
			       "under the limits.nvidia.com/gpu of NodePool %s "
			       "(%s) Karpenter can launch nodes for only %ld of "
			       "them; Kueue admits it and the rest stay Pending",
			       gang, w->sets[0].gpus, buf_cstr(&names),
			       buf_cstr(&b), can);
			buf_release(&names);
			buf_release(&b);
		}
	}
	if (!unbounded && qat && total > quota) {
		struct buf b = BUF_INIT;
		const struct ynode *at = w->sets[0].count_node;
		where(&b, r.cq, qat);
		report(c, R_GANG, w->d, at ? at : kid(w->d->root, "spec"),
		       "the gang needs %ld GPUs at once (%ld pods) but "
		       "ClusterQueue '%s' has a quota of %ld (%s); Kueue never "
		       "admits it",
		       total, gang, r.cq->name ? r.cq->name : "", quota,
		       buf_cstr(&b));
		buf_release(&b);
	}
}
