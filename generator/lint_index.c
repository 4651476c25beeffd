/*
 * generator/lint_index.c: the lint module's index of the set and its pod
 * sets, resolved to pools and queues (see lint_index.h).
 */
#include "generator/lint_index.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "generator/capacity.h"
#include "generator/catalog.h"
#include "generator/interruption.h"
#include "generator/lint_int.h"
#include "generator/units.h"
#include "util/vec.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* ---- index: pools, node classes, device plugins -------------------------- */

const struct doc *lint_find_doc(const struct lctx *c, const char *kind,
				const char *ns, const char *name)
{
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct doc *d = &c->docs[i];
		if (d->kind && !strcmp(d->kind, kind) && d->name &&
		    name && !strcmp(d->name, name) &&
		    (!ns || !d->ns || !strcmp(d->ns, ns)))
			return d;
	}
	return NULL;
}

/* the config text named `key` in any ConfigMap of the set */
const struct ynode *lint_plugin_config(const struct lctx *c,
				       const char *key,
				       const struct doc **cm)
{
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct ynode *v;
		if (!kind_is(&c->docs[i], "ConfigMap"))
			continue;
		v = kid(kid(c->docs[i].root, "data"), key);
		if (str(v)) {
			if (cm)
				*cm = &c->docs[i];
			return v;
		}
	}
	return NULL;
}

/* a ConfigMap that looks like NVIDIA device-plugin configuration */
const struct doc *lint_plugin_configmap(const struct lctx *c)
{
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct ynode *data = kid(c->docs[i].root, "data");
		if (!kind_is(&c->docs[i], "ConfigMap") || !data ||
		    data->type != YNODE_MAP)
			continue;
		for (size_t j = 0; j < YNODE_MAP_LEN(data); j++) {
			const char *s = str(YNODE_VAL(data, j));
			if (s && strstr(s, "version: v1") &&
			    (strstr(s, "migStrategy") || strstr(s, "sharing")))
				return &c->docs[i];
		}
	}
	return NULL;
}

/* time-slicing replicas in a device-plugin config text; 0 if none */
static long config_replicas(struct lctx *c, const char *text)
{
	struct ystream *s;
	struct err e = ERR_INIT;
	const struct ynode *res;
	long best = 0;

	if (!strstr(text, "timeSlicing"))
		return 0;
	s = lint_new_stream(c);
	if (yaml_parse(s, text, strlen(text), "config", &e) < 0 || s->nr < 1) {
		err_release(&e);
		return 0;
	}
	res = get(s->docs[0].root, "sharing.timeSlicing.resources");
	for (int i = 0; i < seq_len(res); i++) {
		long r = num(kid(res->kids[i], "replicas"));
		if (r > best)
			best = r;
	}
	return best;
}

/* Bottlerocket TOML: `key = "value"` / `key = N` after `needle` */
static long toml_int_after(const char *text, const char *needle,
			   const char *key)
{
	const char *p = strstr(text, needle);

	if (!p || !(p = strstr(p, key)))
		return 0;
	p += strlen(key);
	while (*p == ' ' || *p == '=' || *p == '"')
		p++;
	return strtol(p, NULL, 10);
}

/* the first MIG profile name in s ("all-1g.10gb", Bottlerocket TOML) into
 * out; 0 if there is none */
static int mig_profile_in(const char *s, char *out, size_t outlen)
{
	for (const char *p = s; p && *p; p++)
		if (isdigit((unsigned char)p[0]) && p[1] == 'g' && p[2] == '.' &&
		    (p == s || !isalnum((unsigned char)p[-1]))) {
			size_t n = 0;
			while ((isalnum((unsigned char)p[n]) || p[n] == '.') &&
			       n + 1 < outlen)
				n++;
			memcpy(out, p, n);
			out[n] = '\0';
			return 1;
		}
	return 0;
}

int lint_family_has_mig(const struct cat_family *f, const char *profile)
{
	for (size_t i = 0; f && i < f->nmig; i++)
		if (!strcmp(f->mig_profiles[i], profile))
			return 1;
	return 0;
}

/* MIG instances per GPU of the pool's profile: the smallest over the
 * families it can launch (instances differ by GPU model, units.h) */
static long pool_mig_mult(const struct lctx *c, const struct pool *p)
{
	long m = 0;

	for (size_t i = 0; i < c->cat->ntypes; i++) {
		long k;
		if (!p->admit[i] || c->cat->types[i].gpus <= 0)
			continue;
		k = catalog_mig_instances(fam_of(c, &c->cat->types[i]), p->mig);
		if (k > 0 && (!m || k < m))
			m = k;
	}
	return m ? m : 1;
}

/*
 * lint_pool_launchable: pods of per_pod nvidia.com/gpu each that Karpenter can
 * launch nodes for under the pool's limit, with the same arithmetic as
 * the renderer (units_launchable). -1 when the pool can launch types the
 * catalog does not know (the answer would be a guess).
 */
long lint_pool_launchable(const struct lctx *c, const struct pool *p,
			  long per_pod)
{
	const struct cat_type *types[UNITS_MAX_TYPES];
	long per_gpu[UNITS_MAX_TYPES], can;
	size_t n = 0;
	long max_pods = 0;
	int holds;

	if (!p->confined || !p->has_limit)
		return -1;
	if (p->nc)
		max_pods = num(get(p->nc->root, "spec.kubelet.maxPods"));
	for (size_t i = 0; i < c->cat->ntypes && n < UNITS_MAX_TYPES; i++) {
		const struct cat_type *t = &c->cat->types[i];
		long g = 1;

		if (!p->admit[i] || t->gpus <= 0)
			continue;
		if (p->timesliced)
			g = p->mult;
		else if (p->mig[0])
			g = catalog_mig_instances(fam_of(c, t), p->mig);
		if (g <= 0)
			continue;
		types[n] = t;
		per_gpu[n++] = g;
	}
	/* the same arithmetic as validate and plan (capacity.h) */
	can = capacity_launchable(types, per_gpu, n, per_pod, max_pods,
				  p->limit, &holds);
	/* no type holds one such pod: GPU012's finding, not a limit's */
	return holds ? can : -1;
}

static void index_pool(struct lctx *c, const struct doc *d)
{
	struct pool *p;
	const struct ynode *taints, *ct, *lim;
	double *prices;
	const char *v;

	GROW(c->pools, c->npools + 1, c->apools);
	p = &c->pools[c->npools++];
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->name = d->name ? d->name : "(unnamed)";
	p->labels = get(d->root, "spec.template.metadata.labels");
	p->tspec = get(d->root, "spec.template.spec");
	p->reqs = kid(p->tspec, "requirements");
	p->mult = 1;
	if ((v = sget(p->tspec, "nodeClassRef.name")))
		p->nc = lint_find_doc(c, "EC2NodeClass", NULL, v);

	/* GPU pool? */
	taints = kid(p->tspec, "taints");
	for (int i = 0; i < seq_len(taints); i++)
		if ((v = sget(taints->kids[i], "key")) && !strcmp(v, GPU_TAINT))
			p->gpu = 1;
	lim = kid(get(d->root, "spec.limits"), RES_GPU);
	if (lim) {
		p->gpu = 1;
		p->has_limit = num(lim) >= 0;
		p->limit = num(lim);
	}
	for (int i = 0; i < seq_len(p->reqs); i++) {
		const struct ynode *r = p->reqs->kids[i], *vals = kid(r, "values");
		const char *k = sget(r, "key"), *op = sget(r, "operator");
		int all_gpu = seq_len(vals) > 0, all_cat = all_gpu;

		if (!k || !op)
			continue;
		if ((!strcmp(k, "karpenter.k8s.aws/instance-gpu-name") ||
		     !strcmp(k, "karpenter.k8s.aws/instance-gpu-count") ||
		     !strcmp(k, "karpenter.k8s.aws/instance-gpu-manufacturer")) &&
		    (!strcmp(op, "In") || !strcmp(op, "Gt") ||
		     !strcmp(op, "Gte") || !strcmp(op, "Exists"))) {
			p->gpu = 1;
			if (!strcmp(op, "In") &&
			    !strcmp(k, "karpenter.k8s.aws/instance-gpu-name"))
				p->confined = 1;
		}
		if (strcmp(op, "In"))
			continue;
		for (int j = 0; j < seq_len(vals); j++) {
			const char *s = str(vals->kids[j]);
			if (!s)
				continue;
			if (!strcmp(k, "karpenter.k8s.aws/instance-family")) {
				all_gpu &= lint_is_gpu_family(c, s);
				all_cat &= catalog_family(c->cat, s) != NULL;
			} else if (!strcmp(k,
					   "node.kubernetes.io/instance-type")) {
				all_cat &= lint_is_catalog_type(c, s);
				all_gpu &= all_cat;
			} else if (!strcmp(k,
					   "karpenter.k8s.aws/instance-category")) {
				all_gpu &= !strcmp(s, "g") || !strcmp(s, "p");
				all_cat = 0;
			} else {
				all_gpu = all_cat = 0;
			}
		}
		if (all_gpu)
			p->gpu = 1;
		if (all_cat && (!strcmp(k, "karpenter.k8s.aws/instance-family") ||
				!strcmp(k, "node.kubernetes.io/instance-type")))
			p->confined = 1;
	}

	/* what it can launch */
	p->admit = xcalloc(c->cat->ntypes ? c->cat->ntypes : 1, 1);
	prices = xcalloc(c->cat->ntypes ? c->cat->ntypes : 1, sizeof(*prices));
	for (size_t i = 0; i < c->cat->ntypes; i++) {
		const struct cat_type *t = &c->cat->types[i];
		if (!lint_reqs_admit(p->reqs, t, fam_of(c, t)))
			continue;
		p->admit[i] = 1;
		if (t->gpus > 0) {
			prices[p->ntypes++] = t->price;
			if (t->gpus > p->max_gpus)
				p->max_gpus = t->gpus;
		}
	}
	p->s2s_types = spot_to_spot_replaceable(prices, p->ntypes);
	free(prices);

	/* capacity: Karpenter launches on-demand when nothing is said */
	ct = lint_find_req(p->reqs, "karpenter.sh/capacity-type", NULL);
	if (ct) {
		const char *op = sget(ct, "operator");
		if (op && !strcmp(op, "In"))
			p->spot = seq_has(kid(ct, "values"), "spot");
		else if (op && !strcmp(op, "NotIn"))
			p->spot = !seq_has(kid(ct, "values"), "spot");
		else if (op && !strcmp(op, "Exists"))
			p->spot = 1;
	}
	/* uninterruptible: the interruption class gpuform wrote says so;
	 * otherwise on-demand and never expiring, or only empty nodes go
	 * (a checkpointed pool never expires either, but takes spot) */
	v = sget(p->tspec, "expireAfter");
	if ((v && !strcmp(v, "Never") && !p->spot) ||
	    ((v = sget(d->root, "spec.disruption.consolidationPolicy")) &&
	     !strcmp(v, "WhenEmpty") && !p->spot))
		p->protect = 1;
	if ((v = str(kid(get(d->root, "metadata.annotations"),
			 "gpuform.io/interruption"))))
		p->protect = !strcmp(v, "none");

	/* GPU sharing: device-plugin config label, GPU operator MIG label,
	 * Bottlerocket TOML */
	if ((v = str(kid(p->labels, LBL_PLUGIN_CONFIG)))) {
		const struct ynode *cfg = lint_plugin_config(c, v, NULL);
		long r = cfg ? config_replicas(c, str(cfg)) : 0;
		if (r > 1) {
			p->timesliced = 1;
			p->mult = r;
		}
	}
	if ((v = str(kid(p->labels, "nvidia.com/mig.config"))) &&
	    mig_profile_in(v, p->mig, sizeof(p->mig)))
		p->mult = pool_mig_mult(c, p);
	if (p->nc && (v = sget(p->nc->root, "spec.userData"))) {
		if (strstr(v, "time-slicing")) {
			long r = toml_int_after(v, "time-slicing]",
						"replicas");
			p->timesliced = 1;
			if (r > 1)
				p->mult = r;
		} else if (strstr(v, "\"mig\"") && strstr(v, "mig.profile") &&
			   mig_profile_in(strstr(v, "mig.profile") + 11, p->mig,
					  sizeof(p->mig))) {
			p->mult = pool_mig_mult(c, p);
		}
	}
}

int lint_nc_family(const struct doc *nc, const char *fam)
{
	const struct ynode *terms = get(nc->root, "spec.amiSelectorTerms");
	const char *af = sget(nc->root, "spec.amiFamily");
	size_t n = strlen(fam);

	for (int i = 0; i < seq_len(terms); i++) {
		const char *a = sget(terms->kids[i], "alias");
		if (a && !strncasecmp(a, fam, n) && a[n] == '@')
			return 1;
	}
	return af && !strcasecmp(af, fam);
}

int lint_image_is(const struct ynode *podspec, const char *needle)
{
	const struct ynode *cs = kid(podspec, "containers");

	for (int i = 0; i < seq_len(cs); i++) {
		const char *img = sget(cs->kids[i], "image");
		if (img && strstr(img, needle))
			return 1;
	}
	return 0;
}

void lint_index_globals(struct lctx *c)
{
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct doc *d = &c->docs[i];
		const struct ynode *ps = get(d->root, "spec.template.spec");
		const struct ynode *v;

		if (kind_is(d, "DaemonSet") &&
		    lint_image_is(ps, "k8s-device-plugin") &&
		    !lint_image_is(ps, "efa"))
			c->has_nvidia_plugin = 1;
		if (is_values(d) && kid(d->root, "config") &&
		    (get(d->root, "config.map") || get(d->root, "config.name")))
			c->has_nvidia_plugin = 1;
		/* Karpenter chart values */
		if (is_values(d) &&
		    (v = get(d->root, "settings.featureGates.spotToSpotConsolidation")) &&
		    is_true(v)) {
			c->s2s_gate = d;
			c->s2s_node = v;
		}
		/* a Karpenter Deployment with FEATURE_GATES */
		if (kind_is(d, "Deployment")) {
			const struct ynode *cs = kid(ps, "containers");
			for (int j = 0; j < seq_len(cs); j++) {
				const struct ynode *env = kid(cs->kids[j], "env");
				for (int k = 0; k < seq_len(env); k++) {
					const char *n = sget(env->kids[k], "name"),
						   *val = sget(env->kids[k], "value");
					if (n && val && !strcmp(n, "FEATURE_GATES") &&
					    strstr(val, "SpotToSpotConsolidation=true")) {
						c->s2s_gate = d;
						c->s2s_node = kid(env->kids[k], "value");
					}
				}
			}
		}
	}
	for (size_t i = 0; i < c->ndocs; i++)
		if (kind_is(&c->docs[i], "NodePool"))
			index_pool(c, &c->docs[i]);
	/* the gate is controller-wide: one pool with types it can replace
	 * (15 cheaper types in the pool, generator/interruption.h) justifies
	 * it, and the other pools then simply do not take part */
	for (size_t i = 0; i < c->npools; i++)
		if (c->pools[i].spot && (!c->pools[i].confined ||
					 c->pools[i].s2s_types > 0))
			c->s2s_justified = 1;
}

/* ---- pod sets ------------------------------------------------------------ */

/* the first hugepages-* resource of a requests or limits map */
static void podset_hugepages_of(struct podset *p, const struct ynode *list)
{
	if (p->huge_node || !list || list->type != YNODE_MAP)
		return;
	for (size_t i = 0; i + 1 < list->nr; i += 2) {
		const char *k = str(list->kids[i]);
		if (k && !strncmp(k, "hugepages-", 10)) {
			p->huge_node = list->kids[i + 1];
			p->huge_res = k;
			return;
		}
	}
}

static void podset_resources(struct podset *p)
{
	static const char *const lists[] = { "containers", "initContainers",
					     NULL };

	for (const char *const *l = lists; *l; l++) {
		const struct ynode *cs = kid(p->spec, *l);
		for (int i = 0; i < seq_len(cs); i++) {
			const struct ynode *res = kid(cs->kids[i], "resources");
			const struct ynode *g = kid(kid(res, "limits"), RES_GPU),
					   *e = kid(kid(res, "limits"), RES_EFA);
			if (!g)
				g = kid(kid(res, "requests"), RES_GPU);
			if (!e)
				e = kid(kid(res, "requests"), RES_EFA);
			if (num(g) > 0) {
				if (!strcmp(*l, "containers"))
					p->gpus += num(g);
				else if (num(g) > p->gpus)
					p->gpus = num(g);
				if (!p->gpu_node)
					p->gpu_node = g;
			}
			if (num(e) > 0) {
				p->efa += num(e);
				if (!p->efa_node)
					p->efa_node = e;
			}
			podset_hugepages_of(p, kid(res, "limits"));
			podset_hugepages_of(p, kid(res, "requests"));
		}
	}
}

static void add_set(struct workload_ref *w, const struct ynode *tmpl,
		    long count, const struct ynode *count_node)
{
	struct podset *p;

	if (!tmpl || tmpl->type != YNODE_MAP || w->nsets >= 16)
		return;
	p = &w->sets[w->nsets++];
	memset(p, 0, sizeof(*p));
	p->tmpl = tmpl;
	p->meta = kid(tmpl, "metadata");
	p->spec = kid(tmpl, "spec");
	p->count = count < 0 ? 1 : count;
	p->count_node = count_node;
	podset_resources(p);
}

int lint_workload_of(const struct doc *d, struct workload_ref *w)
{
	const struct ynode *spec = kid(d->root, "spec"), *n;
	static const char *const replica_specs[] = {
		"pytorchReplicaSpecs", "mpiReplicaSpecs", "tfReplicaSpecs",
		"xgboostReplicaSpecs", "paddleReplicaSpecs", NULL
	};

	memset(w, 0, sizeof(*w));
	w->d = d;
	if (!d->kind || d->in)
		return 0;
	if (!strcmp(d->kind, "Pod")) {
		w->kind = WK_BATCH;
		add_set(w, d->root, 1, NULL);
	} else if (!strcmp(d->kind, "Job")) {
		n = kid(spec, "parallelism");
		w->kind = WK_BATCH;
		add_set(w, kid(spec, "template"), num(n), n);
	} else if (!strcmp(d->kind, "CronJob")) {
		const struct ynode *js = get(spec, "jobTemplate.spec");
		n = kid(js, "parallelism");
		w->kind = WK_BATCH;
		add_set(w, kid(js, "template"), num(n), n);
	} else if (!strcmp(d->kind, "JobSet")) {
		const struct ynode *rj = kid(spec, "replicatedJobs");
		w->kind = WK_BATCH;
		for (int i = 0; i < seq_len(rj); i++) {
			const struct ynode *r = kid(rj->kids[i], "replicas"),
					   *js = get(rj->kids[i], "template.spec"),
					   *par = kid(js, "parallelism");
			long cnt = (num(r) < 0 ? 1 : num(r)) *
				   (num(par) < 0 ? 1 : num(par));
			add_set(w, kid(js, "template"), cnt,
				num(r) > 1 || !par ? r : par);
		}
	} else if (!strcmp(d->kind, "Deployment") ||
		   !strcmp(d->kind, "StatefulSet") ||
		   !strcmp(d->kind, "ReplicaSet")) {
		n = kid(spec, "replicas");
		w->kind = WK_SERVING;
		add_set(w, kid(spec, "template"), num(n), n);
	} else if (!strcmp(d->kind, "DaemonSet")) {
		w->kind = WK_DAEMON;
		add_set(w, kid(spec, "template"), 1, NULL);
	} else {
		for (const char *const *rs = replica_specs; *rs; rs++) {
			const struct ynode *m = kid(spec, *rs);
			if (!m || m->type != YNODE_MAP)
				continue;
			w->kind = WK_BATCH;
			for (size_t i = 0; i < YNODE_MAP_LEN(m); i++) {
				const struct ynode *role = YNODE_VAL(m, i);
				n = kid(role, "replicas");
				add_set(w, kid(role, "template"), num(n), n);
			}
		}
	}
	return w->nsets > 0;
}

static const struct ynode *meta_label(const struct doc *d,
				      const struct podset *p, const char *key)
{
	/* a CronJob's Jobs take their labels from its jobTemplate */
	const struct ynode *v =
		d->kind && !strcmp(d->kind, "CronJob")
			? kid(get(d->root, "spec.jobTemplate.metadata.labels"),
			      key)
			: NULL;

	if (!v)
		v = kid(get(d->root, "metadata.labels"), key);

	return v ? v : kid(kid(p->meta, "labels"), key);
}

/* does a toleration list tolerate taint key=value:effect? */
int lint_tolerates(const struct ynode *tols, const char *key,
		   const char *value, const char *effect)
{
	for (int i = 0; i < seq_len(tols); i++) {
		const struct ynode *t = tols->kids[i];
		const char *k = sget(t, "key"), *op = sget(t, "operator"),
			   *e = sget(t, "effect"), *v = sget(t, "value");
		int exists = op && !strcmp(op, "Exists");

		if (k && *k && strcmp(k, key))
			continue;
		if ((!k || !*k) && !exists)
			continue;
		if (e && *e && effect && strcmp(e, effect))
			continue;
		if (exists || (value && v && !strcmp(v, value)) ||
		    (!value && !v))
			return 1;
	}
	return 0;
}

/* ---- resolving a pod set to pools, queues and a contract ----------------- */

static void add_pool(struct resolved *r, const struct pool *p)
{
	for (size_t i = 0; i < r->npools; i++)
		if (r->pools[i] == p)
			return;
	if (r->npools < 16)
		r->pools[r->npools++] = p;
}

/* pools whose template labels include every pair of `sel` that names a
 * pool label (well-known node labels are ignored) */
void lint_pools_by_labels(const struct lctx *c, const struct ynode *sel,
			  struct resolved *r)
{
	if (!sel || sel->type != YNODE_MAP || !YNODE_MAP_LEN(sel))
		return;
	if (str(kid(sel, LBL_NODEPOOL))) {
		for (size_t i = 0; i < c->npools; i++)
			if (!strcmp(c->pools[i].name, str(kid(sel, LBL_NODEPOOL))))
				add_pool(r, &c->pools[i]);
		return;
	}
	for (size_t i = 0; i < c->npools; i++) {
		const struct pool *p = &c->pools[i];
		int used = 0, ok = 1;
		for (size_t j = 0; j < YNODE_MAP_LEN(sel); j++) {
			const char *k = str(YNODE_KEY(sel, j)),
				   *v = str(YNODE_VAL(sel, j));
			const char *have = str(kid(p->labels, k ? k : ""));
			if (!k || !v || !have)
				continue; /* not a pool label */
			used = 1;
			if (strcmp(have, v))
				ok = 0;
		}
		if (used && ok)
			add_pool(r, p);
	}
}

void lint_resolve(const struct lctx *c, const struct doc *d,
		  const struct podset *p, struct resolved *r)
{
	const struct ynode *q;

	memset(r, 0, sizeof(*r));
	lint_pools_by_labels(c, kid(p->spec, "nodeSelector"), r);
	q = meta_label(d, p, LBL_QUEUE);
	r->queue = str(q);
	r->queue_node = q;
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct doc *lq = &c->docs[i];
		if (!kind_is(lq, "LocalQueue") || (d->ns && lq->ns &&
						   strcmp(d->ns, lq->ns)))
			continue;
		if (d->ns)
			r->ns_has_queues = 1;
		if (r->queue && lq->name && !strcmp(lq->name, r->queue) &&
		    !r->lq)
			r->lq = lq;
	}
	for (size_t i = 0; r->queue && i < c->ndocs; i++) {
		const struct doc *pc = &c->docs[i];
		const char *qn;
		if (!kind_is(pc, "PodContract") ||
		    (d->ns && pc->ns && strcmp(d->ns, pc->ns)))
			continue;
		qn = str(kid(kid(pc->root, "labels"), LBL_QUEUE));
		if (qn && !strcmp(qn, r->queue)) {
			r->contract = pc;
			break;
		}
	}
	if (r->lq) {
		const char *cqn = sget(r->lq->root, "spec.clusterQueue");
		r->cq = cqn ? lint_find_doc(c, "ClusterQueue", NULL, cqn)
			    : NULL;
	}
	if (r->cq) {
		const struct ynode *rgs = get(r->cq->root, "spec.resourceGroups");
		for (int i = 0; i < seq_len(rgs); i++) {
			const struct ynode *fl = kid(rgs->kids[i], "flavors");
			for (int j = 0; j < seq_len(fl); j++) {
				const char *fn = sget(fl->kids[j], "name");
				const struct doc *rf = fn ? lint_find_doc(c,
					"ResourceFlavor", NULL, fn) : NULL;
				if (!rf)
					continue;
				lint_pools_by_labels(
					c, get(rf->root, "spec.nodeLabels"), r);
				if (r->nflavor_tols < 16)
					r->flavor_tols[r->nflavor_tols++] =
						get(rf->root, "spec.tolerations");
			}
		}
	}
}

/* the catalog types the pod can land on; -1 when unknown */
int lint_candidates(const struct lctx *c, const struct podset *p,
		    const struct resolved *r, int *max_gpus, int *max_efa,
		    long need_gpus)
{
	const struct ynode *sel = kid(p->spec, "nodeSelector");
	int confined = lint_selector_narrows(sel), n = 0;

	for (size_t i = 0; i < r->npools; i++)
		if (r->pools[i]->confined)
			confined = 1;
	if (!confined)
		return -1;
	*max_gpus = 0;
	*max_efa = 0;
	for (size_t i = 0; i < c->cat->ntypes; i++) {
		const struct cat_type *t = &c->cat->types[i];
		int in_pool = r->npools == 0;
		for (size_t j = 0; j < r->npools; j++)
			if (r->pools[j]->admit[i])
				in_pool = 1;
		if (!in_pool || t->gpus <= 0 ||
		    !lint_selector_admits(sel, t, fam_of(c, t)))
			continue;
		n++;
		if (t->gpus > *max_gpus)
			*max_gpus = t->gpus;
		if (t->gpus >= need_gpus && t->efa > *max_efa)
			*max_efa = t->efa;
	}
	return n;
}
