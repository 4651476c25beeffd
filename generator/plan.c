/*
 * generator/plan.c: intent -> plan (see plan.h). Pure and deterministic.
 */
#include "generator/plan.h"

#include <stdlib.h>
#include <string.h>

#include "generator/interruption.h"
#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "-pg-" and the placement group as a DNS-label-ish suffix (lower-case,
 * other characters as '-', at most 40) */
static void add_pg_suffix(struct buf *name, const char *pg)
{
	size_t n = 0;
	int dash = 1;

	if (!strncmp(pg, "pg-", 3))
		pg += 3;
	buf_adds(name, "-pg-");
	for (; *pg && n < 40; pg++) {
		char c = *pg;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			if (dash)
				continue;
			c = '-';
		}
		dash = c == '-';
		buf_addc(name, c);
		n++;
	}
	while (name->len && name->ptr[name->len - 1] == '-')
		name->ptr[--name->len] = '\0';
}

static int same_pg(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static size_t find_or_add_nodeclass(struct plan *p, size_t *alloc,
				    const struct workload *w, int efa_cards)
{
	struct buf name = BUF_INIT;
	const char *pg = w ? w->pg : NULL;
	size_t base_len;
	int clash = 1;
	int efa = w ? w->efa : 0;
	enum sharing_mode sh = SHARE_NONE;

	/* on AL2023 sharing is chosen per node by a label, so it does not
	 * split node classes; on Bottlerocket it lives in userData */
	if (w && p->in->ami_family == AMI_BOTTLEROCKET)
		sh = w->sharing;
	if (!w)
		buf_adds(&name, "general");
	else {
		buf_adds(&name, "gpu");
		if (efa)
			buf_adds(&name, "-efa");
		if (efa && efa_cards)
			buf_addf(&name, "-nic%d", efa_cards);
		if (sh == SHARE_TIMESLICING)
			buf_addf(&name, "-ts%ld", w->ts_replicas);
		else if (sh == SHARE_MIG) {
			buf_adds(&name, "-mig-");
			for (const char *c = w->mig_profile; *c; c++)
				buf_addc(&name, *c == '.' ? '-' : *c);
		}
		/* no other class name contains "-reserved-" */
		if (w->capacity)
			buf_addf(&name, "-reserved-%s", w->name);
		if (pg)
			add_pg_suffix(&name, pg);
	}
	/* two placement groups whose names differ only in characters a
	 * Kubernetes name cannot hold get "-2", "-3", ... in intent order */
	base_len = name.len;
	for (int tries = 1; clash; tries++) {
		clash = 0;
		if (tries > 1) {
			name.len = base_len;
			name.ptr[base_len] = '\0';
			buf_addf(&name, "-%d", tries);
		}
		for (size_t i = 0; i < p->nnodeclasses; i++) {
			if (strcmp(p->nodeclasses[i].name, buf_cstr(&name)))
				continue;
			if (same_pg(p->nodeclasses[i].pg, pg)) {
				buf_release(&name);
				return i;
			}
			clash = 1;
		}
	}
	GROW(p->nodeclasses, p->nnodeclasses + 1, *alloc);
	{
		struct plan_nodeclass *nc = &p->nodeclasses[p->nnodeclasses];
		memset(nc, 0, sizeof(*nc));
		nc->name = buf_detach(&name, NULL);
		nc->general = !w;
		nc->efa = efa;
		nc->pg = pg;
		nc->efa_cards = efa ? efa_cards : 0;
		nc->sharing = sh;
		if (sh == SHARE_TIMESLICING)
			nc->ts_replicas = w->ts_replicas;
		if (sh == SHARE_MIG)
			nc->mig_profile = w->mig_profile;
		if (w && w->capacity)
			nc->reserved_for = w;
	}
	return p->nnodeclasses++;
}

static void add_mig_models(struct plan_nodeclass *nc,
			   const struct plan_pool *pool)
{
	for (size_t i = 0; i < pool->nfams; i++) {
		const char *m = pool->fams[i]->mig_model;
		int seen = 0;
		if (!m)
			continue;
		for (size_t j = 0; j < nc->nmig_models; j++)
			seen |= !strcmp(nc->mig_models[j], m);
		if (!seen && nc->nmig_models < VALIDATE_MAX_FAMILIES)
			nc->mig_models[nc->nmig_models++] = m;
	}
	qsort(nc->mig_models, nc->nmig_models, sizeof(char *), str_cmp);
}

/* a pod's share of `cards` EFA devices on the pool's largest-GPU type */
static long pool_efa_share(int cards, const struct plan_pool *pool,
			   const struct workload *w)
{
	long gpus = 0, share;

	for (size_t j = 0; j < pool->units.ntypes; j++)
		if (pool->units.types[j]->efa &&
		    pool->units.types[j]->gpus > gpus)
			gpus = pool->units.types[j]->gpus;
	share = gpus ? cards * w->gpus_per_pod / gpus : 1;
	return share < 1 ? 1 : share;
}

static int plan_gpu_pool(struct plan *p, struct plan_pool *pool,
			 const struct workload *w, const struct catalog *cat,
			 struct diags *d, struct err *err)
{
	struct buf why = BUF_INIT;
	long cpu_per_gpu = 0, mem_per_gpu_mib = 0;
	double prices[256];
	size_t nprices = 0;
	int n;

	pool->name = xstrdup(w->name);
	pool->w = w;
	n = validate_families(w, cat, pool->fams, &why);
	if (n <= 0) {
		err_set(err, ERR_INTERNAL,
			"workload '%s' was not validated: %s", w->name,
			buf_cstr(&why));
		buf_release(&why);
		return -1;
	}
	buf_release(&why);
	pool->nfams = (size_t)n;
	for (size_t i = 0; i < pool->nfams; i++) {
		int seen = 0;

		for (size_t j = 0; j < pool->ngpu_names; j++)
			seen |= !strcmp(pool->gpu_names[j], pool->fams[i]->gpu);
		if (!seen)
			pool->gpu_names[pool->ngpu_names++] = pool->fams[i]->gpu;
	}
	/* the types it launches, the limit and the quota: one arithmetic
	 * with validate and lint (units.h) */
	units_plan_pool(&pool->units, w, pool->fams, pool->nfams, cat,
			p->in->prefix_delegation);
	for (size_t j = 0; j < pool->units.ntypes; j++) {
		const struct cat_type *t = pool->units.types[j];
		long cpg, mpg;

		pool->ntypes++;
		/* the pool requires amd64 */
		if (!strcmp(t->arch, "amd64") && nprices < 256)
			prices[nprices++] = t->price;
		cpg = (t->vcpu + t->gpus - 1) / t->gpus;
		mpg = ((long)t->mem_mib + t->gpus - 1) / t->gpus;
		if (cpg > cpu_per_gpu)
			cpu_per_gpu = cpg;
		if (mpg > mem_per_gpu_mib)
			mem_per_gpu_mib = mpg;
	}
	if (!pool->ntypes) {
		err_set(err, ERR_INTERNAL,
			"workload '%s' was not validated: no instance type "
			"fits it", w->name);
		return -1;
	}
	qsort(pool->gpu_names, pool->ngpu_names, sizeof(char *), str_cmp);
	/*
	 * capacity types: Karpenter launches reserved first, then spot, then
	 * on-demand among those a NodePool allows (aws/karpenter-provider-aws
	 * v1.14.1 pkg/providers/instance/instance.go getCapacityType); a
	 * reserved workload allows on-demand or spot only as its stated
	 * fallback (docs/reserved-capacity.md)
	 */
	pool->spot = plan_capacity_types(w, pool->captypes, &pool->ncaptypes);
	pool->multiplier = pool->units.per_gpu_min;
	pool->limit_gpu = pool->units.limit;
	pool->quota_gpu = pool->units.quota;
	pool->quota_cpu = w->max_gpus * cpu_per_gpu;
	pool->quota_mem_gib = (w->max_gpus * mem_per_gpu_mib + 1023) / 1024;
	if (w->efa) {
		/* a pod asks for its share of the node's EFA devices, the
		 * same on every type the pool keeps (units.h efa_share) */
		pool->efa_per_pod = pool->units.efa_share > 0
					    ? pool->units.efa_share : 1;
		pool->quota_efa = (w->max_gpus / w->gpus_per_pod) *
				  pool->efa_per_pod;
	}
	/* AL2023 time-slicing: a device-plugin config per replica count
	 * (MIG on AL2023 is refused by validate) */
	if (p->in->ami_family == AMI_AL2023 &&
	    w->sharing == SHARE_TIMESLICING) {
		pool->share_config_buf = xasprintf("ts-%ld", w->ts_replicas);
		pool->share_config = pool->share_config_buf;
	}
	/* spot-to-spot consolidation: which of the pool's types have 15
	 * cheaper ones in the pool (catalog on-demand prices as the order of
	 * spot prices) */
	pool->s2s_types = spot_to_spot_replaceable(prices, nprices);
	if (pool->spot && w->interruption == INT_TOLERANT && !pool->s2s_types)
		diags_add_rule(d, DIAG_WARNING, INTENT_RULE_SPOT_TO_SPOT,
			       p->in->file, w->gpu_pos.line,
			  w->gpu_pos.col,
			  "widen the GPU class (e.g. 'l4+') if cheaper spot "
			  "replacement matters for this pool",
			  "pool '%s' offers %zu instance type%s and none has "
			  "%d cheaper ones in the pool: Karpenter's "
			  "single-node spot-to-spot consolidation never "
			  "replaces its spot nodes by cheaper spot nodes",
			  pool->name, nprices, nprices == 1 ? "" : "s",
			  SPOT_TO_SPOT_MIN_CHEAPER);
	return 0;
}

int plan_capacity_types(const struct workload *w, const char **types, size_t *n)
{
	int spot = interruption_spot(w->interruption);

	if (w->capacity)
		spot = w->cap_fallback == CAPF_SPOT;
	*n = 0;
	if (!w->capacity || w->cap_fallback != CAPF_WAIT)
		types[(*n)++] = "on-demand";
	if (w->capacity)
		types[(*n)++] = "reserved";
	if (spot)
		types[(*n)++] = "spot";
	return spot;
}

int plan_build(struct plan *out, const struct intent *in,
	       const struct catalog *cat, struct diags *d, struct err *err)
{
	struct plan p;
	size_t nc_alloc = 0, ns_alloc = 0;
	long max_gpus_node = 0;

	memset(&p, 0, sizeof(p));
	p.in = in;
	p.al2023 = in->ami_family == AMI_AL2023;
	/* node repair replaces GPU nodes whose health conditions stay bad
	 * (docs/placement-and-resilience.md); only GPU pools need it */
	p.node_repair = in->node_repair && in->nworkloads > 0;
	p.npools = in->nworkloads + (in->general ? 1 : 0);
	p.pools = xcalloc(p.npools ? p.npools : 1, sizeof(*p.pools));
	if (in->window) {
		struct buf why = BUF_INIT;
		p.has_window = window_parse(&p.window, in->window_schedule,
					    in->window_duration, &why) == 0;
		buf_release(&why);
	}

	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		struct plan_pool *pool = &p.pools[i];
		int seen = 0;

		if (plan_gpu_pool(&p, pool, w, cat, d, err) < 0)
			goto fail;
		{
			struct buf why = BUF_INIT;
			int cards = in->efa_only && w->efa
					    ? validate_efa_cards(w, cat, &why)
					    : 0;
			buf_release(&why);
			pool->nodeclass = find_or_add_nodeclass(&p, &nc_alloc,
								w, cards);
			/* with the layout a node has one EFA device per
			 * efa-only interface, i.e. per network card */
			if (cards)
				pool->efa_per_pod =
					pool_efa_share(cards, pool, w);
			if (cards)
				pool->quota_efa = (w->max_gpus /
						   w->gpus_per_pod) *
						  pool->efa_per_pod;
		}
		if (p.nodeclasses[pool->nodeclass].sharing == SHARE_MIG)
			add_mig_models(&p.nodeclasses[pool->nodeclass], pool);
		p.types_used[w->type] = 1;
		p.any_efa |= w->efa;
		/* the gate is controller-wide: it acts on every spot pool,
		 * within the Underutilized budgets of each (never outside the
		 * window of a checkpointed pool); worth it when some pool's
		 * nodes can be replaced by cheaper ones */
		if (pool->spot && pool->s2s_types &&
		    interruption_allows(w->interruption, DR_UNDERUTILIZED) !=
			    DW_NEVER)
			p.spot_to_spot = 1;
		for (size_t j = 0; j < p.nnamespaces; j++)
			seen |= !strcmp(p.namespaces[j], w->ns);
		if (!seen) {
			GROW(p.namespaces, p.nnamespaces + 1, ns_alloc);
			p.namespaces[p.nnamespaces++] = xstrdup(w->ns);
		}
		for (size_t f = 0; f < pool->nfams; f++) {
			const struct cat_type *t;
			size_t nt = catalog_types_of(cat, pool->fams[f]->name, &t);
			for (size_t j = 0; j < nt; j++)
				if (t[j].gpus > max_gpus_node)
					max_gpus_node = t[j].gpus;
		}
	}
	if (in->general) {
		struct plan_pool *pool = &p.pools[in->nworkloads];
		pool->name = xstrdup("general");
		pool->nodeclass = find_or_add_nodeclass(&p, &nc_alloc, NULL, 0);
		pool->spot = 1;
		pool->multiplier = 1;
	}
	/* the device-plugin ConfigMap's namespace must exist before it;
	 * the system namespaces always do */
	if (p.al2023 && in->nworkloads && in->dp_ns &&
	    strcmp(in->dp_ns, "kube-system") && strcmp(in->dp_ns, "default")) {
		int seen = 0;
		for (size_t j = 0; j < p.nnamespaces; j++)
			seen |= !strcmp(p.namespaces[j], in->dp_ns);
		if (!seen) {
			GROW(p.namespaces, p.nnamespaces + 1, ns_alloc);
			p.namespaces[p.nnamespaces++] = xstrdup(in->dp_ns);
		}
	}
	if (p.nnamespaces > 1)
		qsort(p.namespaces, p.nnamespaces, sizeof(char *), str_cmp);

	/* every family that has GPUs or misreports them: the general pool
	 * must never land there (aws/karpenter-provider-aws#8368, #8324) */
	for (size_t i = 0; i < cat->nfamilies; i++) {
		p.gpu_families = xrealloc(p.gpu_families,
					  (p.ngpu_families + 1) * sizeof(char *));
		p.gpu_families[p.ngpu_families++] = cat->families[i].name;
	}
	qsort(p.gpu_families, p.ngpu_families, sizeof(char *), str_cmp);

	/* Kueue waitForPodsReady must outlast node launch + GPU driver start
	 * (~10m), image pull (10m cold, 2m from a pre-seeded snapshot) and the
	 * slower boot of 8-GPU EFA instances (+5m). */
	p.wait_for_pods_ready_min = 10 + (in->image_cache ? 2 : 10) +
				    (max_gpus_node >= 8 ? 5 : 0);
	*out = p;
	return 0;
fail:
	plan_release(&p);
	return -1;
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nnodeclasses; i++)
		free(p->nodeclasses[i].name);
	free(p->nodeclasses);
	for (size_t i = 0; i < p->npools; i++) {
		free(p->pools[i].name);
		free(p->pools[i].share_config_buf);
	}
	free(p->pools);
	for (size_t i = 0; i < p->nnamespaces; i++)
		free(p->namespaces[i]);
	free(p->namespaces);
	free(p->gpu_families);
	memset(p, 0, sizeof(*p));
}
