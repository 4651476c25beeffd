/*
 * generator/capacity.c: the capacity model of one workload (see capacity.h).
 */
#include "generator/capacity.h"

#include <string.h>

#include "util/buf.h"

#define AT(p) (p).line, (p).col

/* exact costliest mix only up to this many reduced units of work */
#define CAPACITY_DP_MAX 65536

void capacity_builtin_prices(struct capacity_prices *out,
			     const struct catalog *cat, double *usd)
{
	for (size_t i = 0; i < cat->ntypes; i++)
		usd[i] = cat->types[i].price;
	out->usd = usd;
	out->n = cat->ntypes;
	out->source = "built-in catalog (approximate)";
	out->region = CAPACITY_BUILTIN_REGION;
	out->date = CAPACITY_BUILTIN_DATE;
	out->spot = NULL;
	out->spot_source = NULL;
}

double capacity_month(double usd_per_hour)
{
	return usd_per_hour < 0 ? -1 : usd_per_hour * CAPACITY_HOURS_PER_MONTH;
}

double capacity_min_usd(const long *cap, const long *pods, const double *usd,
			size_t n, long need, long limit, int *bound)
{
	double best = -1, ratio = -1;

	*bound = 0;
	if (!n || need <= 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		long nodes;
		double v;

		if (usd[i] < 0)
			return -1;
		if (pods[i] < 1 || cap[i] < 1)
			continue;
		v = usd[i] / (double)pods[i];
		if (ratio < 0 || v < ratio)
			ratio = v;
		nodes = (need + pods[i] - 1) / pods[i];
		if (nodes > limit / cap[i])
			continue;
		v = (double)nodes * usd[i];
		if (best < 0 || v < best)
			best = v;
	}
	if (best >= 0)
		return best;
	if (ratio < 0)
		return 0;
	*bound = 1;
	return (double)need * ratio;
}

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The costliest mix: maximise sum(n_i * usd_i) with sum(n_i * cap_i) <=
 * limit (an unbounded knapsack). Some optimal mix uses fewer than cap_b
 * nodes other than the best-ratio type b (any cap_b of them have a subset
 * whose units are a multiple of cap_b, which b nodes replace at no loss),
 * so the other types need at most cap_b * cap_max units: an exact table
 * over that much, the rest filled with b. Units are divided by their gcd.
 */
double capacity_max_usd(const long *cap, const double *usd, size_t n,
			long limit, int *bound)
{
	static double best[CAPACITY_DP_MAX + 1];
	long g = 0, cmax = 0, span, lim;
	size_t b = 0;
	double ret = 0;

	*bound = 0;
	if (!n || limit <= 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (usd[i] < 0)
			return -1;
		g = gcd(g, cap[i]);
		if (cap[i] > cmax)
			cmax = cap[i];
		if (usd[i] * (double)cap[b] > usd[b] * (double)cap[i])
			b = i;
	}
	lim = limit / g;
	span = (cap[b] / g) * (cmax / g);
	if (span > lim)
		span = lim;
	if (span > CAPACITY_DP_MAX) {
		*bound = 1;
		return (double)limit * usd[b] / (double)cap[b];
	}
	for (long u = 0; u <= span; u++) {
		best[u] = 0;
		for (size_t i = 0; i < n; i++) {
			long c = cap[i] / g;
			if (c <= u && best[u - c] + usd[i] > best[u])
				best[u] = best[u - c] + usd[i];
		}
	}
	for (long u = 0; u <= span; u++) {
		double v = best[u] + (double)((lim - u) / (cap[b] / g)) * usd[b];
		if (v > ret)
			ret = v;
	}
	return ret;
}

long capacity_launchable(const struct cat_type *const *types,
			 const long *per_gpu, size_t n, long per_pod,
			 long max_pods, long limit, int *holds)
{
	struct units_node nodes[UNITS_MAX_TYPES];
	size_t k = 0;

	*holds = 0;
	for (size_t i = 0; i < n && k < UNITS_MAX_TYPES; i++) {
		if (per_gpu[i] <= 0)
			continue;
		nodes[k] = units_node_of(types[i]->gpus, per_gpu[i], per_pod,
					 units_pod_slots(types[i], 0, max_pods));
		*holds |= nodes[k].pods > 0;
		k++;
	}
	return units_launchable(nodes, k, limit);
}

long capacity_node_units(long gpus, long per_gpu)
{
	return units_node_of(gpus, per_gpu, 1, 1).cap;
}

/* c beats best as the cheapest way to run the gang */
static int cheaper(const struct capacity_choice *c,
		   const struct capacity_choice *best)
{
	if (!best->ty)
		return 1;
	if (c->usd >= 0 && best->usd >= 0 && c->usd != best->usd)
		return c->usd < best->usd;
	return c->nodes < best->nodes;
}

/* c beats best as the fewest, largest nodes */
static int larger(const struct capacity_choice *c,
		  const struct capacity_choice *best)
{
	if (!best->ty)
		return 1;
	if (c->nodes != best->nodes)
		return c->nodes < best->nodes;
	if (c->usd >= 0 && best->usd >= 0)
		return c->usd < best->usd;
	return 0;
}

size_t capacity_build(struct capacity *out, const struct intent *in,
		      const struct workload *w,
		      const struct cat_family *const *fams, size_t nfams,
		      const struct catalog *cat,
		      const struct capacity_prices *prices,
		      const struct capacity_opts *opts)
{
	long caps[UNITS_MAX_TYPES] = { 0 }, pods[UNITS_MAX_TYPES] = { 0 };
	double usds[UNITS_MAX_TYPES] = { 0 }, spots[UNITS_MAX_TYPES] = { 0 };
	size_t nfit = 0;
	int sb;

	memset(out, 0, sizeof(*out));
	out->w = w;
	out->cat = cat;
	out->per_pod = w->gpus_per_pod > 0 ? w->gpus_per_pod : 1;
	out->gang = w->gang > 0 ? w->gang : 1;
	out->max_gpus = w->max_gpus;
	out->needs_one_zone = w->efa && out->gang > 1;
	out->zone_max_nodes = opts ? opts->zone_max_nodes : 0;
	out->zone_fits = -1;
	units_plan_pool(&out->up, w, fams, nfams, cat, in->prefix_delegation);
	out->units = out->up.limit;
	out->quota = out->up.quota;
	out->pods_max = out->up.launchable;
	for (size_t i = 0; i < out->up.ntypes; i++) {
		struct capacity_type *ty = &out->types[out->ntypes++];
		const struct cat_type *t = out->up.types[i];
		size_t idx = (size_t)(t - cat->types);
		struct units_node nd;
		struct capacity_choice c;

		ty->t = t;
		ty->cap = out->up.cap[i];
		ty->slots = units_pod_slots(t, in->prefix_delegation, 0);
		nd = units_node_of(t->gpus, ty->cap / t->gpus, out->per_pod,
				   ty->slots);
		ty->pods = nd.pods;
		ty->usd = !prices ? t->price
			  : idx < prices->n ? prices->usd[idx] : -1;
		ty->spot = prices && prices->spot && idx < prices->n
				   ? prices->spot[idx] : -1;
		/* Karpenter never launches a type larger than the limit */
		if (ty->cap > out->units || ty->pods < 1)
			continue;
		if (!out->nodes_max || out->units / ty->cap > out->nodes_max)
			out->nodes_max = out->units / ty->cap;
		caps[nfit] = ty->cap;
		pods[nfit] = ty->pods;
		spots[nfit] = ty->spot;
		usds[nfit++] = ty->usd;
		c.ty = ty;
		c.nodes = (out->gang + ty->pods - 1) / ty->pods;
		c.usd = ty->usd >= 0 ? (double)c.nodes * ty->usd : -1;
		c.efa = c.nodes * t->efa;
		if (cheaper(&c, &out->cheapest))
			out->cheapest = c;
		if (larger(&c, &out->largest))
			out->largest = c;
	}
	out->usd_max = capacity_max_usd(caps, usds, nfit, out->units,
					&out->usd_bound);
	out->usd_min = capacity_min_usd(caps, pods, usds, nfit, out->pods_max,
					out->units, &out->usd_min_bound);
	out->spot_min = out->spot_max = -1;
	if (prices && prices->spot && nfit) {
		out->spot_min = capacity_min_usd(caps, pods, spots, nfit,
						 out->pods_max, out->units, &sb);
		out->spot_max = capacity_max_usd(caps, spots, nfit, out->units,
						 &sb);
	}
	if (out->zone_max_nodes > 0 && out->largest.ty)
		out->zone_fits = out->largest.nodes <= out->zone_max_nodes;
	return out->ntypes;
}

/* pods per node: every schedulable GPU unit must fit the node's pods */
static void report_density(const struct intent *in, const struct workload *w,
			   const struct units_pool *up, enum diag_severity sev,
			   struct diags *d)
{
	struct buf msg = BUF_INIT;
	size_t shown = up->ndense < 4 ? up->ndense : 4;

	if (!up->ndense) {
		diags_add(d, DIAG_ERROR, in->file, AT(w->gpu_pos),
			  "choose a GPU class that offers it, or change the "
			  "request",
			  "no instance type fits this workload");
		return;
	}
	for (size_t i = 0; i < shown; i++)
		buf_addf(&msg, "%s%s needs %ld pods, has room for %ld",
			 i ? "; " : "", up->dense[i]->name, up->dense_need[i],
			 up->dense_slots[i]);
	if (up->ndense > shown)
		buf_addf(&msg, "; and %zu more", up->ndense - shown);
	if (sev == DIAG_ERROR)
		diags_add(d, sev, in->file, AT(w->sharing_pos),
			  in->prefix_delegation
				  ? "lower the replicas: a node runs at most "
				    "110 pods here"
				  : "turn on spec.network.prefixDelegation "
				    "(max pods 110) or lower the replicas",
			  "every schedulable GPU is a pod, and no instance "
			  "type can hold them (max pods %s, %d kept for system "
			  "pods): %s",
			  in->prefix_delegation ? "110 with prefix delegation"
						: "from the ENI limit",
			  UNITS_SYSTEM_PODS, buf_cstr(&msg));
	else
		diags_add_rule(d, sev, INTENT_RULE_DENSE_TYPES, in->file,
			  AT(w->sharing_pos),
			  in->prefix_delegation
				  ? "lower the replicas to use them"
				  : "turn on spec.network.prefixDelegation "
				    "(max pods 110) to use them",
			  "left out of the NodePool, too few pods per node for "
			  "every schedulable GPU (max pods %s, %d kept for "
			  "system pods): %s",
			  in->prefix_delegation ? "110 with prefix delegation"
						: "from the ENI limit",
			  UNITS_SYSTEM_PODS, buf_cstr(&msg));
	buf_release(&msg);
}

static const char *gpu_of(const struct catalog *cat, const struct cat_type *t)
{
	const struct cat_family *f = catalog_family(cat, t->family);

	return f ? f->gpu : t->family;
}

/* EFA types left out: their share of EFA devices is not the pods' request.
 * Said only when a GPU the intent names is left out entirely (gpu: [a100,
 * h100]): then a workload of its own can use it. p5en beside p5e (both
 * h200) or p5.4xlarge beside p5.48xlarge cannot be named apart, and
 * docs/placement-and-resilience.md explains them. */
static void report_efa_out(const struct intent *in, const struct capacity *c,
			   struct diags *d)
{
	const struct workload *w = c->w;
	const struct units_pool *up = &c->up;
	struct buf msg = BUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < up->nefa_out; i++) {
		const char *g = gpu_of(c->cat, up->efa_out[i]);
		int kept = 0;
		for (size_t k = 0; k < up->ntypes; k++)
			kept |= !strcmp(g, gpu_of(c->cat, up->types[k]));
		if (!kept)
			buf_addf(&msg, "%s%s (%ld)", n++ ? ", " : "",
				 up->efa_out[i]->name, up->efa_out_share[i]);
	}
	if (!n) {
		buf_release(&msg);
		return;
	}
	diags_add_rule(d, DIAG_WARNING, INTENT_RULE_EFA_SHARE, in->file,
		       AT(w->efa_pos),
		  "give that GPU class a workload of its own (its pods request "
		  "their share)",
		  "left out of the NodePool: each pod requests "
		  "vpc.amazonaws.com/efa %ld, its share of the EFA devices on "
		  "%s, and these types would give it another share (EFA x "
		  "gpusPerPod / GPUs): %s",
		  up->efa_share, up->types[0]->name, buf_cstr(&msg));
	buf_release(&msg);
}

/* a gang whose nodes may differ in GPU memory: the smallest bounds every
 * rank (a data-parallel step waits for the slowest, a model sharded for
 * 80 GB does not fit 40 GB) */
static void report_gang_memory(const struct intent *in,
			       const struct workload *w,
			       const struct units_pool *up, struct diags *d)
{
	const struct cat_type *lo = NULL, *hi = NULL;

	if (w->gang <= 1)
		return;
	for (size_t i = 0; i < up->ntypes; i++) {
		const struct cat_type *t = up->types[i];
		if (!lo || t->gpu_mem_mib < lo->gpu_mem_mib)
			lo = t;
		if (!hi || t->gpu_mem_mib > hi->gpu_mem_mib)
			hi = t;
	}
	if (!lo || lo->gpu_mem_mib == hi->gpu_mem_mib)
		return;
	diags_add_rule(d, DIAG_WARNING, INTENT_RULE_GANG_MEMORY, in->file,
		       AT(w->gpu_pos),
		  "name one GPU model (e.g. 'a100.80gb') or class for the gang",
		  "gang of %ld pods may mix nodes with %d GiB (%s) and %d GiB "
		  "(%s) per GPU: Karpenter picks each node's type on its own, "
		  "and every rank is bound by the smallest",
		  w->gang, (lo->gpu_mem_mib + 512) / 1024, lo->name,
		  (hi->gpu_mem_mib + 512) / 1024, hi->name);
}

size_t capacity_report(const struct intent *in, const struct capacity *c,
		       struct diags *d)
{
	const struct workload *w = c->w;
	const struct units_pool *up = &c->up;
	const char *f = in->file;
	size_t before = d->errors;

	if (!up->ntypes) {
		report_density(in, w, up, DIAG_ERROR, d);
		return d->errors - before;
	}
	if (up->ndense)
		report_density(in, w, up, DIAG_WARNING, d);
	if (up->nefa_out)
		report_efa_out(in, c, d);
	report_gang_memory(in, w, up, d);
	if (w->gang * w->gpus_per_pod > up->limit)
		diags_add(d, DIAG_ERROR, f,
			  AT(w->gang_pos.line ? w->gang_pos : w->max_gpus_pos),
			  "raise maxGpus or shrink the gang: a gang "
			  "that cannot fit its quota never starts",
			  "gang of %ld pods x %ld GPUs = %ld is more "
			  "than maxGpus %ld%s",
			  w->gang, w->gpus_per_pod, w->gang * w->gpus_per_pod,
			  up->limit,
			  w->sharing == SHARE_TIMESLICING ? " (x replicas)"
			  : w->sharing == SHARE_MIG       ? " (x MIG slices)"
							  : "");
	else if (!up->launchable) {
		size_t k = 0;
		for (size_t i = 1; i < up->ntypes; i++)
			if (up->cap[i] < up->cap[k])
				k = i;
		diags_add(d, DIAG_ERROR, f, AT(w->max_gpus_pos),
			  "raise maxGpus to at least the GPUs of one node",
			  "maxGpus %ld is less than one node: the smallest "
			  "instance type this workload can use, %s, has %d "
			  "GPUs, so under the NodePool limit Karpenter "
			  "never launches a node",
			  w->max_gpus, up->types[k]->name, up->types[k]->gpus);
	} else if (w->gang > up->launchable)
		diags_add(d, DIAG_ERROR, f,
			  AT(w->gang_pos.line ? w->gang_pos : w->max_gpus_pos),
			  "raise maxGpus to a multiple of the GPUs per "
			  "node, or shrink the gang",
			  "gang of %ld pods x %ld GPUs fits maxGpus, "
			  "but under the NodePool limit of %ld GPUs "
			  "Karpenter can launch nodes for only %ld such "
			  "pods (whole nodes only)",
			  w->gang, w->gpus_per_pod, up->limit, up->launchable);
	else if (c->needs_one_zone && c->zone_fits == 0)
		diags_add(d, DIAG_ERROR, f,
			  AT(w->gang_pos.line ? w->gang_pos : w->efa_pos),
			  "shrink the gang, or get more capacity in one zone "
			  "(a larger capacity reservation)",
			  "gang of %ld pods needs %ld %s nodes in one "
			  "Availability Zone (EFA traffic does not leave its "
			  "subnet), but one zone gives at most %ld",
			  w->gang, c->largest.nodes, c->largest.ty->t->name,
			  c->zone_max_nodes);
	return d->errors - before;
}
