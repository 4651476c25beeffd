/*
 * generator/lint.c: the checks of `gpuform lint` (see lint.h; the rule
 * table and explain texts are in lint_rules.c).
 *
 * Every input is parsed into position-keeping YAML trees. Intents are
 * rendered in memory (pipeline_render, as `gpuform render` does) and their
 * documents and add-on files (pod contracts, Helm values) join the set as
 * "synthetic" documents whose findings point at the intent's own text.
 * Then the set is indexed — NodePools with the catalog instance types they
 * can launch, EC2NodeClasses, Kueue queues and flavors, device-plugin
 * configuration, pod contracts — and every rule runs over it, so a Job is
 * checked against the pool and queue it really lands on.
 *
 * It does not talk to AWS or a cluster: facts about instance types come
 * from the compiled-in catalog, and what cannot be known offline (snapshot
 * sizes, security-group rules) comes from options or conventions that the
 * explain texts state. Unknown kinds are accepted silently.
 */
#include "generator/capacity.h"
#include "generator/units.h"
#include "generator/lint.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/interruption.h"
#include "generator/pipeline.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "generator/validate.h"
#include "util/yaml.h"
#include "util/vec.h"
#include "util/xalloc.h"

enum rule_idx {
	R_NARROW, R_AMI, R_ALLOWLIST, R_GENERAL, R_EFA_SG, R_EFA_TYPES,
	R_PLUGIN_TOL, R_TIMESLICE, R_DND, R_QUEUE, R_TOLERATION, R_GPUS,
	R_EXPIRE, R_GANG, R_LIMITS, R_S2S, R_CACHE, R_AL2023, R_NOLIMIT,
	R_QUEUE_PLACEMENT, R_OVERLAY, R_RESERVED, R_SNAP_INIT,
	R_SPOT_GRACE, R_HUGEPAGES, R_AGENT_TOL, R_COUNT
};

/* EC2 gives a spot instance 2 minutes between the interruption notice
 * and reclaiming it (EC2 user guide, "Spot Instance interruption
 * notices") */
#define SPOT_NOTICE_S 120
#define TGPS "terminationGracePeriodSeconds"

#define GPU_TAINT "nvidia.com/gpu"
#define RES_GPU "nvidia.com/gpu"
#define RES_EFA "vpc.amazonaws.com/efa"
#define LBL_QUEUE "kueue.x-k8s.io/queue-name"
#define ANN_DND "karpenter.sh/do-not-disrupt"
#define LBL_NODEPOOL "karpenter.sh/nodepool"
#define LBL_PLUGIN_CONFIG "nvidia.com/device-plugin.config"

/* ---- documents ----------------------------------------------------------- */

struct doc {
	size_t seq; /* input order, to keep one file's documents in order */
	const char *file;
	const struct ynode *root;
	const char *api, *kind, *name, *ns;
	const struct intent *in; /* rendered from this intent (synthetic) */
	struct pos at;           /* where a synthetic document's findings go */
};

struct pool {
	const struct doc *d;
	const char *name;
	const struct ynode *labels;  /* spec.template.metadata.labels */
	const struct ynode *tspec;   /* spec.template.spec */
	const struct ynode *reqs;    /* requirements */
	const struct doc *nc;        /* its EC2NodeClass, if in the set */
	int gpu, spot, protect;
	int confined;       /* launches catalog types only: counts are known */
	char *admit;        /* per catalog type: can launch it */
	size_t ntypes;      /* GPU types it can launch */
	size_t s2s_types;   /* of those, how many have 15 cheaper ones in the
			     * pool (single-node spot-to-spot can act) */
	int max_gpus;
	long mult;          /* schedulable GPUs per physical GPU */
	int timesliced;
	char mig[32];       /* MIG profile, "" if none */
	int has_limit;
	long limit;
};

struct queue {
	const struct doc *d; /* LocalQueue */
	const char *cq;
};

struct lctx {
	const struct lint_opts *o;
	const struct catalog *cat;
	struct lint_findings *out;
	struct doc *docs;
	size_t ndocs, adocs;
	struct ystream **streams;
	size_t nstreams, astreams;
	struct intent **intents;
	size_t nintents, aintents;
	struct pool *pools;
	size_t npools, apools;
	int has_nvidia_plugin;        /* DaemonSet or Helm values */
	const struct doc *s2s_gate;   /* Karpenter values/Deployment enabling it */
	const struct ynode *s2s_node;
	int s2s_justified; /* some spot pool offers 15+ types */
};

/* ---- small YAML helpers -------------------------------------------------- */

static const struct ynode *get(const struct ynode *n, const char *path)
{
	char key[128];

	while (n && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (n->type != YNODE_MAP || len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		n = ynode_get(n, key);
		path += len + (dot ? 1 : 0);
	}
	return n;
}

/* a child by a key that may contain dots ("nvidia.com/gpu") */
static const struct ynode *kid(const struct ynode *map, const char *key)
{
	return map && map->type == YNODE_MAP ? ynode_get(map, key) : NULL;
}

static const char *str(const struct ynode *n)
{
	if (!n || n->type != YNODE_SCALAR || yaml_scalar_kind(n) == YS_NULL)
		return NULL;
	return n->value;
}

static const char *sget(const struct ynode *n, const char *path)
{
	return str(get(n, path));
}

static int seq_len(const struct ynode *n)
{
	return n && n->type == YNODE_SEQ ? (int)n->nr : 0;
}

/* an integer or an integer string ("8"); -1 otherwise */
static long num(const struct ynode *n)
{
	const char *s = str(n);
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	return v;
}

static int is_true(const struct ynode *n)
{
	const char *s = str(n);

	if (!s)
		return 0;
	if (yaml_scalar_kind(n) == YS_BOOL)
		return yaml_scalar_bool(n);
	return !strcmp(s, "true");
}

static int seq_has(const struct ynode *seq, const char *v)
{
	for (int i = 0; i < seq_len(seq); i++) {
		const char *s = str(seq->kids[i]);
		if (s && !strcmp(s, v))
			return 1;
	}
	return 0;
}

/* ---- findings ------------------------------------------------------------ */

static void vreport(struct lctx *c, enum rule_idx r, enum lint_severity sev,
		    const struct doc *d, const struct ynode *n,
		    const char *fmt, va_list ap)
{
	struct lint_findings *f = c->out;
	struct lint_finding *x;
	struct buf b = BUF_INIT;

	GROW(f->items, f->nr + 1, f->alloc);
	x = &f->items[f->nr++];
	x->rule = &lint_rules[r];
	x->sev = sev;
	x->file = xstrdup(d->file);
	if (d->in) {
		x->line = d->at.line;
		x->col = d->at.col;
	} else {
		if (!n)
			n = d->root;
		x->line = n ? n->line : 0;
		x->col = n ? n->col : 0;
	}
	buf_vaddf(&b, fmt, ap);
	x->msg = buf_detach(&b, NULL);
}

__attribute__((format(printf, 5, 6))) static void
report(struct lctx *c, enum rule_idx r, const struct doc *d,
       const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, r, lint_rules[r].severity, d, n, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 6, 7))) static void
report_sev(struct lctx *c, enum rule_idx r, enum lint_severity sev,
	   const struct doc *d, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(c, r, sev, d, n, fmt, ap);
	va_end(ap);
}

/* "file:line" of a node, for messages that name a second place */
static void where(struct buf *b, const struct doc *d, const struct ynode *n)
{
	if (d->in)
		buf_addf(b, "%s:%d", d->file, d->at.line);
	else
		buf_addf(b, "%s:%d", d->file, n ? n->line : d->root->line);
}

/* ---- catalog: what labels an instance type carries ----------------------- */

static void type_label(const struct cat_type *t, const struct cat_family *f,
		       const char *key, char *out, size_t outlen, int *present)
{
	const char *fam = t->family;
	size_t i = 0;

	*present = 1;
	out[0] = '\0';
	if (!strcmp(key, "node.kubernetes.io/instance-type"))
		snprintf(out, outlen, "%s", t->name);
	else if (!strcmp(key, "karpenter.k8s.aws/instance-family"))
		snprintf(out, outlen, "%s", fam);
	else if (!strcmp(key, "karpenter.k8s.aws/instance-size"))
		snprintf(out, outlen, "%s", t->size);
	else if (!strcmp(key, "karpenter.k8s.aws/instance-category")) {
		while (fam[i] && !isdigit((unsigned char)fam[i]) && i + 1 < outlen)
			out[i] = fam[i], i++;
		out[i] = '\0';
	} else if (!strcmp(key, "karpenter.k8s.aws/instance-generation")) {
		while (fam[i] && !isdigit((unsigned char)fam[i]))
			i++;
		snprintf(out, outlen, "%c", fam[i] ? fam[i] : '0');
	} else if (!strcmp(key, "karpenter.k8s.aws/instance-gpu-name"))
		snprintf(out, outlen, "%s", f ? f->gpu : "");
	else if (!strcmp(key, "karpenter.k8s.aws/instance-gpu-manufacturer"))
		snprintf(out, outlen, "nvidia");
	else if (!strcmp(key, "karpenter.k8s.aws/instance-gpu-count")) {
		/* absent, not 0, on types reported without GPUs (#2132, #8368) */
		if (t->gpus > 0)
			snprintf(out, outlen, "%d", t->gpus);
		else
			*present = 0;
	} else if (!strcmp(key, "karpenter.k8s.aws/instance-gpu-memory")) {
		if (t->gpus > 0)
			snprintf(out, outlen, "%d", t->gpu_mem_mib);
		else
			*present = 0;
	} else if (!strcmp(key, "karpenter.k8s.aws/instance-cpu"))
		snprintf(out, outlen, "%d", t->vcpu);
	else if (!strcmp(key, "karpenter.k8s.aws/instance-memory"))
		snprintf(out, outlen, "%d", t->mem_mib);
	else if (!strcmp(key, "kubernetes.io/arch"))
		snprintf(out, outlen, "%s", t->arch);
	else if (!strcmp(key, "kubernetes.io/os"))
		snprintf(out, outlen, "linux");
	else
		*present = -1; /* a key the catalog knows nothing about */
}

/* one requirement {key, operator, values} against an instance type */
static int req_admits(const struct ynode *req, const struct cat_type *t,
		      const struct cat_family *f)
{
	const char *key = sget(req, "key"), *op = sget(req, "operator");
	const struct ynode *vals = kid(req, "values");
	char v[64];
	int present;
	long have, want;

	if (!key || !op)
		return 1;
	type_label(t, f, key, v, sizeof(v), &present);
	if (present < 0)
		return 1;
	if (!strcmp(op, "In"))
		return present && seq_has(vals, v);
	if (!strcmp(op, "NotIn"))
		return !present || !seq_has(vals, v);
	if (!strcmp(op, "Exists"))
		return present;
	if (!strcmp(op, "DoesNotExist"))
		return !present;
	if (!present || seq_len(vals) < 1)
		return 0;
	have = strtol(v, NULL, 10);
	want = num(vals->kids[0]);
	if (want < 0)
		return 1;
	if (!strcmp(op, "Gt"))
		return have > want;
	if (!strcmp(op, "Lt"))
		return have < want;
	if (!strcmp(op, "Gte"))
		return have >= want;
	if (!strcmp(op, "Lte"))
		return have <= want;
	return 1;
}

static int reqs_admit(const struct ynode *reqs, const struct cat_type *t,
		      const struct cat_family *f)
{
	for (int i = 0; i < seq_len(reqs); i++)
		if (!req_admits(reqs->kids[i], t, f))
			return 0;
	return 1;
}

/* a nodeSelector {key: value} against an instance type */
static int selector_admits(const struct ynode *sel, const struct cat_type *t,
			   const struct cat_family *f)
{
	for (size_t i = 0; sel && sel->type == YNODE_MAP &&
			   i < YNODE_MAP_LEN(sel); i++) {
		const char *k = str(YNODE_KEY(sel, i)),
			   *want = str(YNODE_VAL(sel, i));
		char v[64];
		int present;

		if (!k || !want)
			continue;
		type_label(t, f, k, v, sizeof(v), &present);
		if (present == 0 || (present > 0 && strcmp(v, want)))
			return 0;
	}
	return 1;
}

static int selector_narrows(const struct ynode *sel)
{
	static const char *const keys[] = {
		"node.kubernetes.io/instance-type",
		"karpenter.k8s.aws/instance-family",
		"karpenter.k8s.aws/instance-gpu-name", NULL
	};

	for (const char *const *k = keys; *k; k++)
		if (str(kid(sel, *k)))
			return 1;
	return 0;
}

static const struct cat_family *fam_of(const struct lctx *c,
				       const struct cat_type *t)
{
	return catalog_family(c->cat, t->family);
}

static int is_gpu_family(const struct lctx *c, const char *name)
{
	const struct cat_family *f = catalog_family(c->cat, name);
	return f && f->gpu;
}

static int is_catalog_type(const struct lctx *c, const char *name)
{
	for (size_t i = 0; i < c->cat->ntypes; i++)
		if (!strcmp(c->cat->types[i].name, name))
			return 1;
	return 0;
}

static const struct cat_class *class_of_family(const struct lctx *c,
					       const char *fam)
{
	for (size_t i = 0; i < c->cat->nclasses; i++)
		for (size_t j = 0; j < c->cat->classes[i].nfamilies; j++)
			if (!strcmp(c->cat->classes[i].families[j], fam))
				return &c->cat->classes[i];
	return NULL;
}

/* the requirement item with this key and one of these operators */
static const struct ynode *find_req(const struct ynode *reqs, const char *key,
				    const char *op)
{
	for (int i = 0; i < seq_len(reqs); i++) {
		const char *k = sget(reqs->kids[i], "key"),
			   *o = sget(reqs->kids[i], "operator");
		if (k && o && !strcmp(k, key) && (!op || !strcmp(o, op)))
			return reqs->kids[i];
	}
	return NULL;
}

/* ---- loading ------------------------------------------------------------- */

static void add_doc(struct lctx *c, const char *file, const struct ynode *root,
		    const struct intent *in, struct pos at)
{
	struct doc *d;

	if (!root || root->type != YNODE_MAP)
		return;
	GROW(c->docs, c->ndocs + 1, c->adocs);
	d = &c->docs[c->ndocs++];
	d->seq = c->ndocs;
	d->file = file;
	d->root = root;
	d->api = sget(root, "apiVersion");
	d->kind = sget(root, "kind");
	d->name = sget(root, "metadata.name");
	d->ns = sget(root, "metadata.namespace");
	d->in = in;
	d->at = at;
}

static struct ystream *new_stream(struct lctx *c)
{
	struct ystream *s = xcalloc(1, sizeof(*s));

	GROW(c->streams, c->nstreams + 1, c->astreams);
	c->streams[c->nstreams++] = s;
	return s;
}

static int is_intent(const struct ystream *s)
{
	const struct ynode *r;

	if (s->nr < 1 || !(r = s->docs[0].root) || r->type != YNODE_MAP)
		return 0;
	return (sget(r, "apiVersion") &&
		!strcmp(sget(r, "apiVersion"), "gpuform.io/v1alpha1") &&
		sget(r, "kind") && !strcmp(sget(r, "kind"), "ClusterIntent"));
}

/* where a rendered document's findings go in the intent */
static struct pos synthetic_pos(const struct intent *in, const cJSON *doc)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
	const char *kind = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(doc, "kind"));
	const char *w = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(labels, "gpuform.io/workload"));

	if (!w && kind && !strcmp(kind, "PodContract"))
		w = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(meta, "name"));
	for (size_t i = 0; w && i < in->nworkloads; i++)
		if (in->workloads[i].name && !strcmp(in->workloads[i].name, w))
			return in->workloads[i].name_pos;
	if (kind && !strcmp(kind, "EC2NodeClass"))
		return in->image_cache ? in->cache_pos : in->ami_pos;
	return in->spec_pos.line ? in->spec_pos : in->pos;
}

static int add_synthetic(struct lctx *c, const char *file,
			 const struct intent *in, const cJSON *doc,
			 struct err *err)
{
	struct buf b = BUF_INIT;
	struct ystream *s = new_stream(c);
	int r;

	if (yaml_emit(&b, doc, err) < 0) {
		buf_release(&b);
		return -1;
	}
	r = yaml_parse(s, buf_cstr(&b), b.len, file, err);
	buf_release(&b);
	if (r < 0)
		return -1;
	for (size_t i = 0; i < s->nr; i++)
		add_doc(c, file, s->docs[i].root, in, synthetic_pos(in, doc));
	return 0;
}

static int load_intent(struct lctx *c, const struct lint_input *x,
		       const struct tmpl_set *t, struct diags *d,
		       struct err *err)
{
	struct pipeline pl;
	struct diags own = DIAGS_INIT;
	struct intent *in;
	const cJSON *it;
	int ret = -1;

	if (pipeline_run(&pl, x->path, x->data, x->len, t, PIPELINE_RENDER,
			 &own, err) < 0) {
		/* what `gpuform validate` says, warnings included */
		for (size_t i = 0; i < own.nr; i++)
			diags_copy(d, &own.items[i]);
		if (err->code == ERR_INVALID && !own.errors)
			diags_add(d, DIAG_ERROR, x->path, 0, 0, NULL, "%s",
				  err_msg(err));
		goto out;
	}
	/* the warnings `gpuform validate` and `render` give for it */
	for (size_t i = 0; i < own.nr; i++)
		if (own.items[i].sev == DIAG_WARNING)
			diags_copy(d, &own.items[i]);
	/* the intent (with its positions) stays for the rules: taken out of
	 * the pipeline, whose plan pointed at it */
	plan_release(&pl.plan);
	in = xmalloc(sizeof(*in));
	*in = pl.in;
	memset(&pl.in, 0, sizeof(pl.in));
	GROW(c->intents, c->nintents + 1, c->aintents);
	c->intents[c->nintents++] = in;
	cJSON_ArrayForEach(it, pl.r.docs)
		if (add_synthetic(c, x->path, in, it, err) < 0)
			goto out;
	cJSON_ArrayForEach(it, pl.r.addons)
		if (cJSON_IsObject(it) &&
		    add_synthetic(c, x->path, in, it, err) < 0)
			goto out;
	ret = 0;
out:
	diags_release(&own);
	pipeline_release(&pl);
	return ret;
}

/* ---- index: pools, node classes, device plugins -------------------------- */

static const struct doc *find_doc(const struct lctx *c, const char *kind,
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

static int kind_is(const struct doc *d, const char *kind)
{
	return d->kind && !strcmp(d->kind, kind);
}

static int is_values(const struct doc *d)
{
	return !d->kind && !d->api;
}

/* the config text named `key` in any ConfigMap of the set */
static const struct ynode *plugin_config(const struct lctx *c,
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
static const struct doc *plugin_configmap(const struct lctx *c)
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
	s = new_stream(c);
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

static int family_has_mig(const struct cat_family *f, const char *profile)
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
 * pool_launchable: pods of per_pod nvidia.com/gpu each that Karpenter can
 * launch nodes for under the pool's limit, with the same arithmetic as
 * the renderer (units_launchable). -1 when the pool can launch types the
 * catalog does not know (the answer would be a guess).
 */
static long pool_launchable(const struct lctx *c, const struct pool *p,
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
		p->nc = find_doc(c, "EC2NodeClass", NULL, v);

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
				all_gpu &= is_gpu_family(c, s);
				all_cat &= catalog_family(c->cat, s) != NULL;
			} else if (!strcmp(k,
					   "node.kubernetes.io/instance-type")) {
				all_cat &= is_catalog_type(c, s);
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
		if (!reqs_admit(p->reqs, t, fam_of(c, t)))
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
	ct = find_req(p->reqs, "karpenter.sh/capacity-type", NULL);
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
		const struct ynode *cfg = plugin_config(c, v, NULL);
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

static int nc_family(const struct doc *nc, const char *fam)
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

static int image_is(const struct ynode *podspec, const char *needle)
{
	const struct ynode *cs = kid(podspec, "containers");

	for (int i = 0; i < seq_len(cs); i++) {
		const char *img = sget(cs->kids[i], "image");
		if (img && strstr(img, needle))
			return 1;
	}
	return 0;
}

static void index_globals(struct lctx *c)
{
	for (size_t i = 0; i < c->ndocs; i++) {
		const struct doc *d = &c->docs[i];
		const struct ynode *ps = get(d->root, "spec.template.spec");
		const struct ynode *v;

		if (kind_is(d, "DaemonSet") && image_is(ps, "k8s-device-plugin") &&
		    !image_is(ps, "efa"))
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

static int workload_of(const struct doc *d, struct workload_ref *w)
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
static int tolerates(const struct ynode *tols, const char *key,
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
static void pools_by_labels(const struct lctx *c, const struct ynode *sel,
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

static void resolve(const struct lctx *c, const struct doc *d,
		    const struct podset *p, struct resolved *r)
{
	const struct ynode *q;

	memset(r, 0, sizeof(*r));
	pools_by_labels(c, kid(p->spec, "nodeSelector"), r);
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
		r->cq = cqn ? find_doc(c, "ClusterQueue", NULL, cqn) : NULL;
	}
	if (r->cq) {
		const struct ynode *rgs = get(r->cq->root, "spec.resourceGroups");
		for (int i = 0; i < seq_len(rgs); i++) {
			const struct ynode *fl = kid(rgs->kids[i], "flavors");
			for (int j = 0; j < seq_len(fl); j++) {
				const char *fn = sget(fl->kids[j], "name");
				const struct doc *rf = fn ? find_doc(c,
					"ResourceFlavor", NULL, fn) : NULL;
				if (!rf)
					continue;
				pools_by_labels(c, get(rf->root,
						       "spec.nodeLabels"), r);
				if (r->nflavor_tols < 16)
					r->flavor_tols[r->nflavor_tols++] =
						get(rf->root, "spec.tolerations");
			}
		}
	}
}

/* the catalog types the pod can land on; -1 when unknown */
static int candidates(const struct lctx *c, const struct podset *p,
		      const struct resolved *r, int *max_gpus, int *max_efa,
		      long need_gpus)
{
	const struct ynode *sel = kid(p->spec, "nodeSelector");
	int confined = selector_narrows(sel), n = 0;

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
		    !selector_admits(sel, t, fam_of(c, t)))
			continue;
		n++;
		if (t->gpus > *max_gpus)
			*max_gpus = t->gpus;
		if (t->gpus >= need_gpus && t->efa > *max_efa)
			*max_efa = t->efa;
	}
	return n;
}

/* ---- rules over workloads ------------------------------------------------ */

static long pool_mult(const struct resolved *r)
{
	long m = 1;

	for (size_t i = 0; i < r->npools; i++)
		if (r->pools[i]->mult > m)
			m = r->pools[i]->mult;
	return m;
}

static void pool_names(struct buf *b, const struct resolved *r)
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

	ncand = candidates(c, p, &r, &max_g, &max_e, p->gpus);
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
			if (k && !tolerates(tols, k, sget(ctols->kids[i], "value"),
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
					if (tolerates(r.flavor_tols[f], k, v, e))
						injected = 1;
				if (injected || tolerates(tols, k, v, e))
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
		    !tolerates(tols, GPU_TAINT, "true", "NoSchedule"))
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

static int overlay_selects(const struct lctx *c, const struct doc *ov,
			   const struct pool *p, const struct cat_type *t);

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
				     overlay_selects(c, ov, pl, t) &&
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
	resolve(c, d, p, &r);
	pool_names(&names, &r);

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

static void check_workload(struct lctx *c, const struct workload_ref *w)
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
		const char *what = image_is(p->spec, "efa-k8s-device-plugin")
			? "EFA" : image_is(p->spec, "k8s-device-plugin")
			? "NVIDIA" : NULL;
		if (what && !tolerates(tols, GPU_TAINT, "true", "NoSchedule"))
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
	resolve(c, w->d, &w->sets[0], &r);
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
			long l = pool_launchable(c, r.pools[i], w->sets[0].gpus);
			if (l < 0)
				known = 0;
			can += l;
		}
		if (known && can < gang) {
			struct buf names = BUF_INIT, b = BUF_INIT;
			const struct ynode *at = w->sets[0].count_node;
			pool_names(&names, &r);
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

/* ---- rules over pools, node classes, queues, values ---------------------- */

/* an overlay's requirements select (pool, type): karpenter.sh/nodepool
 * by name, the rest as a NodePool requirement would (unknown keys admit) */
static int overlay_selects(const struct lctx *c, const struct doc *ov,
			   const struct pool *p, const struct cat_type *t)
{
	const struct ynode *reqs = get(ov->root, "spec.requirements");

	for (int i = 0; i < seq_len(reqs); i++) {
		const char *k = sget(reqs->kids[i], "key"),
			   *op = sget(reqs->kids[i], "operator");
		const struct ynode *vals = kid(reqs->kids[i], "values");
		if (!k || !op || strcmp(k, "karpenter.sh/nodepool"))
			continue;
		if ((!strcmp(op, "In") && !seq_has(vals, p->name)) ||
		    (!strcmp(op, "NotIn") && seq_has(vals, p->name)) ||
		    !strcmp(op, "DoesNotExist"))
			return 0;
	}
	return reqs_admit(reqs, t, fam_of(c, t));
}

/*
 * GPU021: a time-sliced or MIG pool where Karpenter's model of some
 * instance type still says physical GPUs: no NodeOverlay gives it the
 * nvidia.com/gpu the node will report (GPUs x replicas or MIG instances,
 * units.h), or the Karpenter values turn the NodeOverlay gate off.
 */
/*
 * gate_off: the Karpenter values of p's cluster that turn feature gate
 * `gate` (settings.featureGates.<gate>) off, and in *node the gate's node;
 * NULL when none does. Of the same cluster: from the same intent when the
 * pool was rendered from one, else the values whose settings.clusterName
 * is the NodePool's gpuform.io/cluster label when both say (linting
 * several clusters together mixes their add-ons otherwise).
 */
static const struct doc *gate_off(const struct lctx *c, const struct pool *p,
				  const char *gate, const struct ynode **node)
{
	const char *cluster = str(
		kid(get(p->d->root, "metadata.labels"), "gpuform.io/cluster"));
	char path[64];

	snprintf(path, sizeof(path), "settings.featureGates.%s", gate);
	for (size_t j = 0; j < c->ndocs; j++) {
		const struct doc *v = &c->docs[j];
		const char *vc;

		if (!is_values(v) || (p->d->in && v->in != p->d->in))
			continue;
		vc = str(get(v->root, "settings.clusterName"));
		if (cluster && vc && strcmp(cluster, vc))
			continue;
		*node = get(v->root, path);
		if (*node && !is_true(*node))
			return v;
	}
	*node = NULL;
	return NULL;
}

static void check_overlays(struct lctx *c, const struct pool *p)
{
	const struct cat_type *example = NULL;
	long want_ex = 0, got_ex = -1;
	size_t missing = 0, total = 0, noverlays = 0;

	if (!p->gpu || p->mult <= 1 || !p->confined || !c->cat)
		return;
	for (size_t i = 0; i < c->cat->ntypes; i++) {
		const struct cat_type *t = &c->cat->types[i];
		long per_gpu = p->timesliced ? p->mult
				: catalog_mig_instances(fam_of(c, t), p->mig);
		long want, got = -1;

		if (!p->admit[i] || t->gpus <= 0 || per_gpu <= 0)
			continue;
		want = (long)t->gpus * per_gpu;
		total++;
		for (size_t j = 0; j < c->ndocs; j++) {
			const struct doc *ov = &c->docs[j];
			if (!kind_is(ov, "NodeOverlay") ||
			    !overlay_selects(c, ov, p, t))
				continue;
			got = num(get(ov->root, "spec.capacity")
					  ? kid(get(ov->root, "spec.capacity"),
						RES_GPU)
					  : NULL);
			if (got == want)
				break;
		}
		if (got == want) {
			noverlays++;
			continue;
		}
		if (!missing++) {
			example = t;
			want_ex = want;
			got_ex = got;
		}
	}
	if (missing) {
		struct buf b = BUF_INIT;
		if (got_ex >= 0)
			buf_addf(&b, "a NodeOverlay says %ld", got_ex);
		else
			buf_adds(&b, "no NodeOverlay");
		report(c, R_OVERLAY, p->d, p->labels ? p->labels : p->tspec,
		       "NodePool '%s' shares its GPUs (%ld per GPU) but for %zu "
		       "of its %zu instance types Karpenter's model is not what "
		       "the nodes report (e.g. %s reports nvidia.com/gpu %ld, "
		       "%s): without the right capacity it launches a node per "
		       "GPU pod and fills the limit early "
		       "(kubernetes-sigs/karpenter#729)",
		       p->name, p->mult, missing, total, example->name, want_ex,
		       buf_cstr(&b));
		buf_release(&b);
	} else if (noverlays) {
		/* Karpenter values of the pool's cluster that keep the
		 * gate off */
		const struct ynode *node = NULL;
		const struct doc *off = gate_off(c, p, "nodeOverlay", &node);
		struct buf b = BUF_INIT;

		if (!off)
			return;
		where(&b, off, node);
		report(c, R_OVERLAY, p->d, p->labels ? p->labels : p->tspec,
		       "NodePool '%s' relies on NodeOverlays, but the Karpenter "
		       "values turn the NodeOverlay feature gate off (%s): "
		       "Karpenter ignores them", p->name, buf_cstr(&b));
		buf_release(&b);
	}
}

/*
 * GPU022: a NodePool that admits karpenter.sh/capacity-type "reserved"
 * while nothing gives Karpenter a reservation to launch into: its
 * EC2NodeClass (in the set) has no capacityReservationSelectorTerms, or
 * the Karpenter values of the cluster turn the ReservedCapacity gate off.
 * Karpenter makes reserved offerings only from the reservations an
 * EC2NodeClass selects (aws/karpenter-provider-aws v1.14.1
 * pkg/providers/instancetype/offering/reserved_capacity_resolver.go) and
 * only with the gate on (kubernetes-sigs/karpenter v1.14.1
 * pkg/controllers/provisioning/scheduling/nodeclaim.go). Reserved as the
 * only type: nothing ever launches (error); with a fallback: the pool
 * always falls back (warning).
 */
static void check_reserved(struct lctx *c, const struct pool *p)
{
	const struct ynode *ct = find_req(p->reqs, "karpenter.sh/capacity-type",
					  "In");
	const struct ynode *vals = ct ? kid(ct, "values") : NULL;
	const struct ynode *terms, *g;
	const struct doc *v;
	enum lint_severity sev;
	struct buf why = BUF_INIT;

	if (!vals || !seq_has(vals, "reserved"))
		return;
	sev = seq_len(vals) == 1 ? LINT_ERROR : LINT_WARNING;
	if (p->nc) {
		terms = get(p->nc->root, "spec.capacityReservationSelectorTerms");
		if (seq_len(terms) <= 0)
			buf_addf(&why, "its EC2NodeClass '%s' selects no "
				 "capacity reservations "
				 "(spec.capacityReservationSelectorTerms)",
				 p->nc->name ? p->nc->name : "");
	}
	if (!why.len && (v = gate_off(c, p, "reservedCapacity", &g))) {
		buf_adds(&why, "the Karpenter values turn the "
			       "ReservedCapacity feature gate off (");
		where(&why, v, g);
		buf_adds(&why, ")");
	}
	if (why.len)
		report_sev(c, R_RESERVED, sev, p->d, ct,
			   "NodePool '%s' asks for reserved capacity, but %s: "
			   "Karpenter has no reservation to launch into, so %s",
			   p->name, buf_cstr(&why),
			   sev == LINT_ERROR ? "it never launches a node"
					     : "every node is a fallback");
	buf_release(&why);
}

/* GPU001: one type or one family where the class has more */
static void pool_confined(struct lctx *c, struct pool *p,
			  const struct ynode *fam, const struct ynode *typ)
{
	const struct doc *d = p->d;
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;

	if (p->confined && p->ntypes > 0) {
		const struct cat_type *only = NULL;
		const char *onefam = NULL;
		int nfam = 0, min_gpus = INT_MAX, alt_types = 0, alt_fams = 0;
		const struct cat_class *cls = NULL;
		/* types the pool leaves out by name are a choice, not a
		 * narrow selector (gpuform leaves out the EFA types whose
		 * share differs from the pods' request, units.h) */
		const struct ynode *notin = kid(
			find_req(p->reqs, "node.kubernetes.io/instance-type",
				 "NotIn"),
			"values");
		for (size_t i = 0; i < c->cat->ntypes; i++) {
			const struct cat_type *t = &c->cat->types[i];
			if (!p->admit[i] || t->gpus <= 0)
				continue;
			only = t;
			if (t->gpus < min_gpus)
				min_gpus = t->gpus;
			/* types of a family are contiguous in the catalog */
			if (!onefam || strcmp(onefam, t->family))
				nfam++;
			onefam = t->family;
			cls = class_of_family(c, t->family);
		}
		for (size_t j = 0; cls && j < cls->nfamilies; j++) {
			const struct cat_type *ft;
			size_t n = catalog_types_of(c->cat, cls->families[j], &ft);
			int fits = 0;
			/* that MIG profile does not exist there, or gives
			 * another number of instances per GPU (one limit cannot
			 * count both, units.h) */
			if (p->mig[0] &&
			    (!family_has_mig(catalog_family(c->cat,
							   cls->families[j]),
					     p->mig) ||
			     catalog_mig_instances(
				     catalog_family(c->cat, cls->families[j]),
				     p->mig) !=
				     catalog_mig_instances(
					     catalog_family(c->cat, onefam),
					     p->mig)))
				continue;
			for (size_t k = 0; k < n; k++)
				if (ft[k].gpus >= min_gpus &&
				    !seq_has(notin, ft[k].name) &&
				    (!only || strcmp(ft[k].name, only->name))) {
					alt_types++;
					fits = 1;
				}
			if (fits && strcmp(cls->families[j], onefam))
				alt_fams++;
		}
		if (p->ntypes == 1 && alt_types > 0)
			report(c, R_NARROW, d, typ ? typ : fam ? fam : at_reqs,
			       "GPU NodePool '%s' can launch only %s; the %s "
			       "class has %d more type%s with at least %d GPU%s "
			       "(insufficient-capacity risk, worse on spot)",
			       p->name, only->name, cls->name, alt_types,
			       alt_types == 1 ? "" : "s", min_gpus,
			       min_gpus == 1 ? "" : "s");
		else if (p->ntypes > 1 && nfam == 1 && alt_fams > 0)
			report(c, R_NARROW, d, fam ? fam : typ ? typ : at_reqs,
			       "GPU NodePool '%s' allows only family %s; the %s "
			       "class also offers %d more famil%s "
			       "(insufficient-capacity risk, worse on spot)",
			       p->name, onefam, cls->name, alt_fams,
			       alt_fams == 1 ? "y" : "ies");
	}
}

/* GPU006: static EFA interfaces on types without EFA */
static void pool_efa_interfaces(struct lctx *c, struct pool *p,
				const struct ynode *fam, const struct ynode *typ)
{
	const struct doc *d = p->d;
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;

	if (p->nc && p->confined) {
		const struct ynode *nis = get(p->nc->root,
					      "spec.networkInterfaces");
		int efa_ifs = 0, without = 0;
		const char *example = NULL;
		for (int i = 0; i < seq_len(nis); i++) {
			const char *it = sget(nis->kids[i], "interfaceType");
			if (it && !strncmp(it, "efa", 3))
				efa_ifs++;
		}
		for (size_t i = 0; efa_ifs && i < c->cat->ntypes; i++)
			if (p->admit[i] && c->cat->types[i].gpus > 0 &&
			    c->cat->types[i].efa < efa_ifs) {
				without++;
				if (!example)
					example = c->cat->types[i].name;
			}
		if (without)
			report(c, R_EFA_TYPES, d, fam ? fam : typ ? typ : at_reqs,
			       "NodePool '%s' uses EC2NodeClass '%s' with %d EFA "
			       "interface%s, but %d of its instance types (e.g. "
			       "%s) have fewer; launches there fail",
			       p->name, p->nc->name ? p->nc->name : "", efa_ifs,
			       efa_ifs == 1 ? "" : "s", without, example);
	}
}

static void check_pool(struct lctx *c, struct pool *p)
{
	const struct ynode *fam = find_req(p->reqs,
					   "karpenter.k8s.aws/instance-family",
					   "In"),
			   *typ = find_req(p->reqs,
					   "node.kubernetes.io/instance-type",
					   "In");
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;
	const struct doc *d = p->d;
	struct buf b = BUF_INIT;

	/* GPU022: reserved capacity with nothing to reserve */
	check_reserved(c, p);

	if (!p->gpu) {
		/* GPU004: a general pool that can launch GPU types */
		int gpu = 0, mis = 0;
		for (size_t i = 0; i < c->cat->ntypes; i++) {
			const struct cat_family *f;
			if (!p->admit[i])
				continue;
			f = fam_of(c, &c->cat->types[i]);
			if (f && f->misreports)
				mis = 1;
			else if (c->cat->types[i].gpus > 0)
				gpu = 1;
		}
		if (gpu || mis)
			report(c, R_GENERAL, d, at_reqs,
			       "NodePool '%s' has no GPU taint or requirement "
			       "but can launch %s%s%s", p->name,
			       gpu ? "GPU instances (g/p families)" : "",
			       gpu && mis ? " and " : "",
			       mis ? "g6f/gr6f, which report 0 GPUs "
				     "(aws/karpenter-provider-aws#8368)" : "");
		return;
	}

	/* GPU003: explicit family allow-list, without misreporting ones */
	if (!fam && !typ && !(p->d->in))
		report(c, R_ALLOWLIST, d, at_reqs,
		       "GPU NodePool '%s' has no instance-family In [...] "
		       "allow-list; families that misreport their GPU count "
		       "(g6f, gr6f; aws/karpenter-provider-aws#8368) or new "
		       "ones can be launched", p->name);
	else if (fam) {
		const struct ynode *vals = kid(fam, "values");
		for (int i = 0; i < seq_len(vals); i++) {
			const struct cat_family *f =
				catalog_family(c->cat, str(vals->kids[i]) ?
						       str(vals->kids[i]) : "");
			if (f && f->misreports)
				report(c, R_ALLOWLIST, d, vals->kids[i],
				       "instance family '%s' reports 0 GPUs "
				       "(aws/karpenter-provider-aws#8368, #8324); "
				       "pods asking for a GPU can get a fraction",
				       f->name);
		}
	}

	/* GPU001: one type or one family where the class has more */
	pool_confined(c, p, fam, typ);

	/* GPU006: static EFA interfaces on types without EFA */
	pool_efa_interfaces(c, p, fam, typ);

	/* GPU021: a shared pool whose capacity Karpenter does not know */
	check_overlays(c, p);

	/* GPU019: no GPU limit */
	if (!p->has_limit)
		report(c, R_NOLIMIT, d, kid(d->root, "spec"),
		       "GPU NodePool '%s' has no limits.%s; nothing bounds "
		       "how many GPU instances it launches", p->name, RES_GPU);

	/* GPU016: spot-to-spot with a narrow pool */
	if (c->s2s_gate && !c->s2s_justified && p->spot && p->confined &&
	    !p->s2s_types) {
		const struct ynode *ct = find_req(p->reqs,
						  "karpenter.sh/capacity-type",
						  NULL);
		where(&b, c->s2s_gate, c->s2s_node);
		report(c, R_S2S, d, ct ? ct : at_reqs,
		       "spotToSpotConsolidation is enabled (%s) but spot "
		       "NodePool '%s' offers %zu instance type%s and none has "
		       "%d cheaper ones in the pool, which spot-to-spot "
		       "replacement of a node needs",
		       buf_cstr(&b), p->name, p->ntypes,
		       p->ntypes == 1 ? "" : "s", SPOT_TO_SPOT_MIN_CHEAPER);
		buf_reset(&b);
	}

	/* GPU018: AL2023 without the NVIDIA device plugin */
	if (p->nc && nc_family(p->nc, "al2023")) {
		const char *cfg = str(kid(p->labels, LBL_PLUGIN_CONFIG));
		const struct doc *cm = plugin_configmap(c);
		if (!cfg && !cm && !c->has_nvidia_plugin)
			report(c, R_AL2023, d,
			       get(d->root, "spec.template.spec.nodeClassRef"),
			       "GPU NodePool '%s' runs AL2023 (EC2NodeClass "
			       "'%s'), whose AMI has no NVIDIA device plugin, and "
			       "nothing here deploys or configures one",
			       p->name, p->nc->name ? p->nc->name : "");
		else if (cfg && cm && !plugin_config(c, cfg, NULL))
			report(c, R_AL2023, d, kid(p->labels, LBL_PLUGIN_CONFIG),
			       "GPU NodePool '%s' selects device-plugin config "
			       "'%s', which ConfigMap '%s' does not define",
			       p->name, cfg, cm->name ? cm->name : "");
	}

	/* GPU008: an inference pool on time-slicing, from its labels */
	if (p->timesliced && !d->in) {
		const char *wt = str(kid(p->labels, "gpuform.io/workload-type"));
		if (wt && !strcmp(wt, "inference") && !p->spot)
			report(c, R_TIMESLICE, d, p->labels,
			       "inference NodePool '%s' time-slices its GPUs "
			       "(%ld replicas per GPU, no memory isolation); use "
			       "MIG or whole GPUs for production inference",
			       p->name, p->mult);
	}
	buf_release(&b);
}

static void check_nodeclass(struct lctx *c, const struct doc *d)
{
	const struct ynode *terms = get(d->root, "spec.amiSelectorTerms");
	const struct ynode *bdm = get(d->root, "spec.blockDeviceMappings");
	const struct ynode *nis = get(d->root, "spec.networkInterfaces");

	/* GPU002 */
	for (int i = 0; i < seq_len(terms); i++) {
		const struct ynode *t = terms->kids[i];
		const char *a = sget(t, "alias"), *nm = sget(t, "name"),
			   *ssm = sget(t, "ssmParameter");
		const char *at = a ? strchr(a, '@') : NULL;
		/* Windows aliases accept only @latest: nothing to pin */
		if (a && !strncasecmp(a, "windows", 7))
			continue;
		if (a && (!at || !strcmp(at, "@latest") || !at[1]))
			report(c, R_AMI, d, kid(t, "alias"),
			       "AMI alias '%s' is not pinned: every new release "
			       "drifts and replaces all nodes of the pools using "
			       "EC2NodeClass '%s'", a, d->name ? d->name : "");
		else if (!a && !kid(t, "id") &&
			 ((nm && strchr(nm, '*')) ||
			  (ssm && (strstr(ssm, "latest") ||
				   strstr(ssm, "recommended"))) ||
			  (!nm && !ssm && kid(t, "tags"))))
			report_sev(c, R_AMI, LINT_WARNING, d, t,
				   "AMI selector term matches whatever AMI is "
				   "newest (%s); a new image drifts and "
				   "replaces every node",
				   nm ? "wildcard name" : ssm ? "moving SSM "
				   "parameter" : "tags only");
	}

	/* GPU017: image cache on Bottlerocket */
	for (int i = 0; nc_family(d, "bottlerocket") && i < seq_len(bdm); i++) {
		const struct ynode *m = bdm->kids[i];
		const char *dev = sget(m, "deviceName");
		const char *snap = sget(m, "ebs.snapshotID");
		const char *size = sget(m, "ebs.volumeSize");
		long long gib = size ? intent_parse_gib(size) : -1;
		if (!snap)
			continue;
		if (dev && !strcmp(dev, "/dev/xvda"))
			report(c, R_CACHE, d, get(m, "ebs.snapshotID"),
			       "image-cache snapshot %s is on the OS volume "
			       "/dev/xvda; Bottlerocket keeps images on the data "
			       "volume /dev/xvdb", snap);
		for (size_t s = 0; c->o && s < c->o->nsnapshots; s++)
			if (!strcmp(c->o->snapshots[s].id, snap) && gib > 0 &&
			    gib < c->o->snapshots[s].gib)
				report(c, R_CACHE, d, get(m, "ebs.volumeSize"),
				       "data volume %s (%lldGi) is smaller than "
				       "its image-cache snapshot %s (%lldGi); "
				       "EC2 refuses to launch the nodes",
				       dev ? dev : "", gib, snap,
				       c->o->snapshots[s].gib);
	}

	/* GPU023: a snapshot-backed volume is initialized lazily from S3
	 * unless it has a provisioned rate or the snapshot has fast
	 * snapshot restore (gpuform.io/fast-snapshot-restore names it) */
	for (int i = 0; i < seq_len(bdm); i++) {
		const struct ynode *m = bdm->kids[i];
		const char *snap = sget(m, "ebs.snapshotID");
		const char *fsr = str(kid(kid(kid(d->root, "metadata"),
					      "annotations"),
					  "gpuform.io/fast-snapshot-restore"));
		if (!snap || get(m, "ebs.volumeInitializationRate") ||
		    (fsr && !strcmp(fsr, snap)))
			continue;
		report(c, R_SNAP_INIT, d, get(m, "ebs.snapshotID"),
		       "volume %s of EC2NodeClass '%s' is restored from "
		       "snapshot %s with neither volumeInitializationRate nor "
		       "fast snapshot restore: its blocks load from S3 on "
		       "first read, so the first image pull can be slower "
		       "than the registry",
		       sget(m, "deviceName") ? sget(m, "deviceName") : "",
		       d->name ? d->name : "", snap);
	}

	/* GPU005: static EFA interfaces without an explicit SG */
	for (int i = 0; i < seq_len(nis); i++) {
		const char *it = sget(nis->kids[i], "interfaceType");
		const struct ynode *sg = get(d->root,
					     "spec.securityGroupSelectorTerms");
		int explicit_sg = 0;
		if (!it || strncmp(it, "efa", 3))
			continue;
		for (int j = 0; j < seq_len(sg); j++)
			if (kid(sg->kids[j], "id") || kid(sg->kids[j], "name"))
				explicit_sg = 1;
		if (!explicit_sg)
			report(c, R_EFA_SG, d, sg ? sg : kid(d->root, "spec"),
			       "EC2NodeClass '%s' attaches EFA interfaces but "
			       "selects security groups only by tags; add a "
			       "term with the id of the self-referencing EFA "
			       "group", d->name ? d->name : "");
		break;
	}
}

static void check_clusterqueue(struct lctx *c, const struct doc *d)
{
	const struct ynode *rgs = get(d->root, "spec.resourceGroups");

	/* GPU015: quota above the limits of the pools it feeds */
	for (int i = 0; i < seq_len(rgs); i++) {
		const struct ynode *fl = kid(rgs->kids[i], "flavors");
		for (int j = 0; j < seq_len(fl); j++) {
			const char *fn = sget(fl->kids[j], "name");
			const struct ynode *res = kid(fl->kids[j], "resources");
			const struct doc *rf = fn ? find_doc(c, "ResourceFlavor",
							     NULL, fn) : NULL;
			struct resolved r;
			long limit = 0, mult = 1;
			int bounded = 1;
			if (!rf)
				continue;
			memset(&r, 0, sizeof(r));
			pools_by_labels(c, get(rf->root, "spec.nodeLabels"), &r);
			if (!r.npools)
				continue;
			/* the limit counts what nodes report (replicas, MIG
			 * instances); whole nodes only: what can be launched
			 * under it, one-GPU pods (units.h) */
			for (size_t k = 0; k < r.npools; k++) {
				long l;
				if (!r.pools[k]->has_limit)
					bounded = 0;
				l = pool_launchable(c, r.pools[k], 1);
				limit += l >= 0 ? l : r.pools[k]->limit;
				if (r.pools[k]->mult > mult)
					mult = r.pools[k]->mult;
			}
			for (int k = 0; bounded && k < seq_len(res); k++) {
				const char *n = sget(res->kids[k], "name");
				const struct ynode *q =
					kid(res->kids[k], "nominalQuota");
				struct buf b = BUF_INIT, names = BUF_INIT;
				if (!n || strcmp(n, RES_GPU) || num(q) <= limit)
					continue;
				pool_names(&names, &r);
				where(&b, r.pools[0]->d,
				      kid(get(r.pools[0]->d->root, "spec.limits"),
					  RES_GPU));
				report(c, R_LIMITS, d, q,
				       "ClusterQueue '%s' admits %ld GPUs of "
				       "flavor '%s' but NodePool %s may launch "
				       "only %ld%s (%s)",
				       d->name ? d->name : "", num(q), fn,
				       buf_cstr(&names), limit,
				       mult > 1 ? " schedulable GPUs" : "",
				       buf_cstr(&b));
				buf_release(&b);
				buf_release(&names);
			}
		}
	}
}

static void check_values(struct lctx *c, const struct doc *d)
{
	/* GPU007: aws-efa-k8s-device-plugin chart values */
	if (kid(d->root, "supportedInstanceLabels") &&
	    !tolerates(kid(d->root, "tolerations"), GPU_TAINT, "true",
		       "NoSchedule"))
		report(c, R_PLUGIN_TOL, d,
		       kid(d->root, "tolerations") ? kid(d->root, "tolerations")
						   : d->root,
		       "EFA device plugin values have no toleration for "
		       "%s:NoSchedule (the chart's default is none), so the "
		       "plugin never runs on GPU nodes", GPU_TAINT);
	/* GPU026: eks-node-monitoring-agent chart values (nodeAgent,
	 * dcgmAgent): the DCGM DaemonSet ships no tolerations; the node
	 * agent's default (operator: Exists) covers the taint when left out */
	if (kid(d->root, "nodeAgent") || kid(d->root, "dcgmAgent")) {
		static const char *const parts[] = { "nodeAgent", "dcgmAgent" };
		for (int i = 0; i < 2; i++) {
			const struct ynode *part = kid(d->root, parts[i]);
			const struct ynode *tols = kid(part, "tolerations");
			if ((i == 0 && !tols) ||
			    tolerates(tols, GPU_TAINT, "true", "NoSchedule"))
				continue;
			report(c, R_AGENT_TOL, d,
			       tols ? tols : part ? part : d->root,
			       "EKS node monitoring agent values: %s has no "
			       "toleration for %s:NoSchedule%s, so it never "
			       "runs on GPU nodes and node repair sees no GPU "
			       "health condition", parts[i], GPU_TAINT,
			       i == 1 && !tols ? " (the chart's default is "
						 "none)"
					       : "");
		}
	}
}

static void check_intent(struct lctx *c, const struct intent *in)
{
	/* GPU008 at the intent's own text: inference that cannot be
	 * interrupted (none, checkpointed) is production */
	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		struct doc d = { 0 };
		if (w->type != WL_INFERENCE || w->sharing != SHARE_TIMESLICING ||
		    w->interruption == INT_TOLERANT)
			continue;
		d.file = in->file;
		d.in = in;
		d.at = w->sharing_pos;
		report(c, R_TIMESLICE, &d, NULL,
		       "inference workload '%s' (interruption: %s) time-slices "
		       "its GPUs (%ld replicas, no memory isolation); use "
		       "sharing: {mig: PROFILE} on A100/H100/H200/B200, or whole "
		       "GPUs", w->name, wl_interruption_names[w->interruption],
		       w->ts_replicas);
	}
}

/* ---- driver -------------------------------------------------------------- */

/* documents by file name, then in file order: name lookups that several
 * files answer then give the same result whatever the argument order */
static int doc_cmp(const void *pa, const void *pb)
{
	const struct doc *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);

	if (r)
		return r;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int finding_cmp(const void *pa, const void *pb)
{
	const struct lint_finding *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);

	if (r)
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	if ((r = strcmp(a->rule->id, b->rule->id)))
		return r;
	return strcmp(a->msg, b->msg);
}

static void finish(struct lint_findings *f)
{
	size_t n = 0;

	if (f->nr)
		qsort(f->items, f->nr, sizeof(*f->items), finding_cmp);
	for (size_t i = 0; i < f->nr; i++) {
		if (n && !finding_cmp(&f->items[n - 1], &f->items[i])) {
			free(f->items[i].file);
			free(f->items[i].msg);
			continue;
		}
		f->items[n++] = f->items[i];
	}
	f->nr = n;
	memset(f->counts, 0, sizeof(f->counts));
	for (size_t i = 0; i < n; i++)
		f->counts[f->items[i].sev]++;
}

int lint_run(struct lint_findings *out, const struct lint_input *in,
	     size_t n, const struct lint_opts *o, struct diags *d,
	     struct err *err)
{
	struct lctx c;
	struct tmpl_set *t = NULL;
	int bad = 0, ret = -1;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.cat = catalog_builtin();
	c.out = out;
	if (tmpl_set_load(&t, NULL, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct ystream *s = new_stream(&c);
		struct err e = ERR_INIT;

		if (yaml_parse(s, in[i].data, in[i].len, in[i].path, &e) < 0) {
			diags_add(d, DIAG_ERROR, in[i].path, 0, 0, NULL, "%s",
				  err_msg(&e));
			err_release(&e);
			bad = 1;
			continue;
		}
		if (is_intent(s)) {
			if (load_intent(&c, &in[i], t, d, &e) < 0) {
				if (e.code != ERR_INVALID) {
					err_set(err, e.code, "%s", err_msg(&e));
					err_release(&e);
					goto out;
				}
				bad = 1;
			}
			err_release(&e);
			continue;
		}
		for (size_t j = 0; j < s->nr; j++) {
			struct pos none = { 0, 0 };
			add_doc(&c, in[i].path, s->docs[j].root, NULL, none);
		}
	}

	if (c.ndocs)
		qsort(c.docs, c.ndocs, sizeof(*c.docs), doc_cmp);
	index_globals(&c);
	for (size_t i = 0; i < c.nintents; i++)
		if (c.intents[i]->file)
			check_intent(&c, c.intents[i]);
	for (size_t i = 0; i < c.npools; i++)
		check_pool(&c, &c.pools[i]);
	for (size_t i = 0; i < c.ndocs; i++) {
		const struct doc *dd = &c.docs[i];
		struct workload_ref *w;

		if (kind_is(dd, "EC2NodeClass"))
			check_nodeclass(&c, dd);
		else if (kind_is(dd, "ClusterQueue"))
			check_clusterqueue(&c, dd);
		else if (is_values(dd))
			check_values(&c, dd);
		w = xcalloc(1, sizeof(*w));
		if (workload_of(dd, w))
			check_workload(&c, w);
		free(w);
	}
	finish(out);
	ret = 0;
	if (bad)
		ret = err_set(err, ERR_INVALID, "%zu input error%s", d->errors,
			      d->errors == 1 ? "" : "s");
out:
	for (size_t i = 0; i < c.npools; i++)
		free(c.pools[i].admit);
	free(c.pools);
	for (size_t i = 0; i < c.nstreams; i++) {
		ystream_release(c.streams[i]);
		free(c.streams[i]);
	}
	free(c.streams);
	for (size_t i = 0; i < c.nintents; i++) {
		intent_release(c.intents[i]);
		free(c.intents[i]);
	}
	free(c.intents);
	free(c.docs);
	tmpl_set_free(t);
	return ret;
}

void lint_findings_release(struct lint_findings *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->items[i].file);
		free(f->items[i].msg);
	}
	free(f->items);
	memset(f, 0, sizeof(*f));
}
