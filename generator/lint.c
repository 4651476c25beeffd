/*
 * generator/lint.c: the checks of `gpuform lint` (see lint.h; the rule
 * table and explain texts are in lint_rules.c): documents, findings,
 * loading and the driver, lint_run. The index of the set is in
 * lint_index.c, the rules in lint_workload.c and lint_pools.c;
 * lint_int.h is what they share.
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
#include "generator/lint.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/lint_index.h"
#include "generator/lint_int.h"
#include "generator/lint_pools.h"
#include "generator/lint_workload.h"
#include "generator/pipeline.h"
#include "generator/tmpl.h"
#include "util/vec.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* ---- findings ------------------------------------------------------------ */

void lint_vreport(struct lctx *c, enum rule_idx r, enum lint_severity sev,
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

int lint_reqs_admit(const struct ynode *reqs, const struct cat_type *t,
		    const struct cat_family *f)
{
	for (int i = 0; i < seq_len(reqs); i++)
		if (!req_admits(reqs->kids[i], t, f))
			return 0;
	return 1;
}

/* a nodeSelector {key: value} against an instance type */
int lint_selector_admits(const struct ynode *sel, const struct cat_type *t,
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

int lint_selector_narrows(const struct ynode *sel)
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

int lint_is_gpu_family(const struct lctx *c, const char *name)
{
	const struct cat_family *f = catalog_family(c->cat, name);
	return f && f->gpu;
}

int lint_is_catalog_type(const struct lctx *c, const char *name)
{
	for (size_t i = 0; i < c->cat->ntypes; i++)
		if (!strcmp(c->cat->types[i].name, name))
			return 1;
	return 0;
}

const struct cat_class *lint_class_of_family(const struct lctx *c,
					     const char *fam)
{
	for (size_t i = 0; i < c->cat->nclasses; i++)
		for (size_t j = 0; j < c->cat->classes[i].nfamilies; j++)
			if (!strcmp(c->cat->classes[i].families[j], fam))
				return &c->cat->classes[i];
	return NULL;
}

/* the requirement item with this key and one of these operators */
const struct ynode *lint_find_req(const struct ynode *reqs, const char *key,
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

struct ystream *lint_new_stream(struct lctx *c)
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
	struct ystream *s = lint_new_stream(c);
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
		struct ystream *s = lint_new_stream(&c);
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
	lint_index_globals(&c);
	for (size_t i = 0; i < c.nintents; i++)
		if (c.intents[i]->file)
			lint_check_intent(&c, c.intents[i]);
	for (size_t i = 0; i < c.npools; i++)
		lint_check_pool(&c, &c.pools[i]);
	for (size_t i = 0; i < c.ndocs; i++) {
		const struct doc *dd = &c.docs[i];
		struct workload_ref *w;

		if (kind_is(dd, "EC2NodeClass"))
			lint_check_nodeclass(&c, dd);
		else if (kind_is(dd, "ClusterQueue"))
			lint_check_clusterqueue(&c, dd);
		else if (is_values(dd))
			lint_check_values(&c, dd);
		w = xcalloc(1, sizeof(*w));
		if (lint_workload_of(dd, w))
			lint_check_workload(&c, w);
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
