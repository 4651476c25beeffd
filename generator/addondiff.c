/* generator/addondiff.c: add-on files compared by key (addondiff.h). */
#include "generator/addondiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/doctor.h"
#include "util/vec.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* a flat view: dotted key -> JSON text of the value */
struct flat {
	char **key, **val;
	size_t nr, alloc, valloc;
};

static void flat_put(struct flat *f, const char *key, const cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);

	GROW(f->key, f->nr + 1, f->alloc);
	GROW(f->val, f->nr + 1, f->valloc);
	f->key[f->nr] = xstrdup(key);
	f->val[f->nr] = s ? s : xstrdup("?");
	f->nr++;
}

static cJSON *yaml_map(const char *s)
{
	struct ystream ys = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = NULL;

	if (strchr(s, '\n') &&
	    yaml_parse(&ys, s, strlen(s), "value", &e) == 0 && ys.nr == 1 &&
	    ys.docs[0].root && ys.docs[0].root->type == YNODE_MAP &&
	    yaml_to_json(&j, ys.docs[0].root, "value", &e) < 0)
		j = NULL;
	ystream_release(&ys);
	err_release(&e);
	return j;
}

static void flatten(struct flat *f, const char *prefix, const cJSON *v)
{
	struct buf k = BUF_INIT;
	cJSON *inner;

	if (cJSON_IsObject(v) && v->child) {
		for (const cJSON *c = v->child; c; c = c->next) {
			buf_reset(&k);
			size_t pl = strlen(prefix);
			buf_addf(&k, "%s%s%s", prefix,
				 pl && prefix[pl - 1] != ':' ? "." : "",
				 c->string);
			flatten(f, buf_cstr(&k), c);
		}
	} else if (cJSON_IsString(v) && (inner = yaml_map(v->valuestring))) {
		buf_addf(&k, "%s:", prefix);
		flatten(f, buf_cstr(&k), inner);
		cJSON_Delete(inner);
	} else {
		flat_put(f, prefix, v);
	}
	buf_release(&k);
}

static void flat_release(struct flat *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->key[i]);
		free(f->val[i]);
	}
	free(f->key);
	free(f->val);
}

static const char *flat_get(const struct flat *f, const char *key)
{
	for (size_t i = 0; i < f->nr; i++)
		if (!strcmp(f->key[i], key))
			return f->val[i];
	return NULL;
}

static size_t count_kind(const cJSON *docs, const char *kind)
{
	const cJSON *d;
	size_t n = 0;

	cJSON_ArrayForEach(d, docs) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(d, "kind");
		n += cJSON_IsString(k) && !strcmp(k->valuestring, kind);
	}
	return n;
}

struct ctx {
	size_t overlays_base, overlays_head;
};

/* what a Karpenter gate change does */
static void gate_impact(struct buf *out, const char *gate, const char *after,
			const struct ctx *c)
{
	int on = after && !strcmp(after, "true");

	buf_addf(out, "Karpenter feature gate %s: ", gate);
	if (!strcmp(gate, "nodeOverlay")) {
		if (on)
			buf_adds(out, c->overlays_head > c->overlays_base
					      ? "needed by the NodeOverlays this "
						"change adds; roll out the Helm "
						"release first"
					      : "makes Karpenter honour the "
						"NodeOverlays; roll out the Helm "
						"release");
		else
			buf_adds(out, c->overlays_head
					      ? "Karpenter will ignore the "
						"NodeOverlays still rendered"
					      : "no NodeOverlays remain; roll "
						"out after the objects are gone");
	} else if (!strcmp(gate, "reservedCapacity")) {
		buf_adds(out, on ? "needed by the reserved-capacity pools; "
				   "roll out the Helm release first"
				 : "Karpenter makes no reserved offerings");
	} else if (!strcmp(gate, "nodeRepair")) {
		buf_adds(out, on ? "Karpenter replaces nodes whose GPUs or "
				   "kubelet stay unhealthy; roll out the Helm "
				   "release"
				 : "unhealthy nodes are no longer replaced");
	} else if (!strcmp(gate, "spotToSpotConsolidation")) {
		buf_adds(out, on ? "spot nodes may be replaced by cheaper spot "
				   "nodes (within Underutilized budgets); roll "
				   "out the Helm release"
				 : "spot nodes are no longer replaced by cheaper "
				   "spot nodes");
	} else {
		buf_adds(out, "roll out the Helm release");
	}
}

static void impact_of(struct buf *out, const char *file, const char *key,
		      const char *after, const struct ctx *c)
{
	static const char gates[] = "settings.featureGates.";

	if (!strcmp(file, "karpenter-values.yaml") &&
	    !strncmp(key, gates, sizeof(gates) - 1))
		gate_impact(out, key + sizeof(gates) - 1, after, c);
	else if (!strcmp(file, "karpenter-values.yaml"))
		buf_adds(out, "karpenter Helm values: roll out the Helm release");
	else if (!strcmp(file, "kueue-values.yaml"))
		buf_adds(out, "Kueue configuration: takes effect when the kueue "
			      "Helm release is rolled out and the controller "
			      "restarts");
	else if (!strcmp(file, "vpc-cni.yaml"))
		buf_adds(out, "VPC CNI add-on configuration: update the EKS "
			      "add-on (configuration values); affects new nodes");
	else if (!strncmp(file, "pod-contract-", 13))
		buf_adds(out, "pod contract: update the workloads' pod "
			      "templates to match");
	else
		buf_adds(out, "Helm values: roll out the chart");
}

static void put_item(struct addondiff *d, const char *cluster,
		     const char *file, const char *key, const char *before,
		     const char *after, struct buf *imp)
{
	struct addondiff_item *it;

	GROW(d->items, d->nr + 1, d->alloc);
	it = &d->items[d->nr++];
	it->cluster = xstrdup(cluster ? cluster : "");
	it->file = xstrdup(file);
	it->key = xstrdup(key);
	it->before = before ? xstrdup(before) : NULL;
	it->after = after ? xstrdup(after) : NULL;
	it->impact = buf_detach(imp, NULL);
}

static void add_item(struct addondiff *d, const char *cluster,
		     const char *file, const char *key, const char *before,
		     const char *after, const struct ctx *c)
{
	struct buf imp = BUF_INIT;

	impact_of(&imp, file, key, after, c);
	put_item(d, cluster, file, key, before, after, &imp);
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void compare_file(struct addondiff *d, const char *cluster,
			 const char *file, const cJSON *a, const cJSON *b,
			 const struct ctx *c)
{
	struct flat fa = { 0 }, fb = { 0 };
	char **keys;
	size_t nk = 0;

	/* a file added or removed whole (a new cluster, a workload gone):
	 * one line, not one per key */
	if (!a || !b) {
		add_item(d, cluster, file, "(file)", a ? "present" : NULL,
			 b ? "present" : NULL, c);
		return;
	}
	if (a)
		flatten(&fa, "", a);
	if (b)
		flatten(&fb, "", b);
	keys = xcalloc(fa.nr + fb.nr + 1, sizeof(*keys));
	for (size_t i = 0; i < fa.nr; i++)
		keys[nk++] = fa.key[i];
	for (size_t i = 0; i < fb.nr; i++)
		if (!flat_get(&fa, fb.key[i]))
			keys[nk++] = fb.key[i];
	qsort(keys, nk, sizeof(*keys), strp_cmp);
	for (size_t i = 0; i < nk; i++) {
		const char *va = flat_get(&fa, keys[i]);
		const char *vb = flat_get(&fb, keys[i]);
		if (va && vb && !strcmp(va, vb))
			continue;
		add_item(d, cluster, file, keys[i], va, vb, c);
	}
	free(keys);
	flat_release(&fa);
	flat_release(&fb);
}

void addondiff_add(struct addondiff *d, const char *cluster,
		   const cJSON *base, const cJSON *head,
		   const cJSON *base_docs, const cJSON *head_docs)
{
	struct ctx c = { count_kind(base_docs, "NodeOverlay"),
			 count_kind(head_docs, "NodeOverlay") };
	const char *names[512];
	size_t n = 0;
	const cJSON *f;

	cJSON_ArrayForEach(f, base)
		if (n < 512)
			names[n++] = f->string;
	cJSON_ArrayForEach(f, head) {
		int seen = 0;
		for (size_t i = 0; i < n && !seen; i++)
			seen = !strcmp(names[i], f->string);
		if (!seen && n < 512)
			names[n++] = f->string;
	}
	qsort(names, n, sizeof(*names), strp_cmp);
	for (size_t i = 0; i < n; i++)
		compare_file(d, cluster, names[i],
			     cJSON_GetObjectItemCaseSensitive(base, names[i]),
			     cJSON_GetObjectItemCaseSensitive(head, names[i]),
			     &c);
}

void addondiff_release(struct addondiff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		struct addondiff_item *it = &d->items[i];
		free(it->cluster), free(it->file), free(it->key);
		free(it->before), free(it->after), free(it->impact);
	}
	free(d->items);
	memset(d, 0, sizeof(*d));
}

static void path(struct buf *out, const struct addondiff_item *it)
{
	if (*it->cluster)
		buf_addf(out, "%s/", it->cluster);
	buf_addf(out, "addons/%s", it->file);
}

void addondiff_format_text(struct buf *out, const struct addondiff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct addondiff_item *it = &d->items[i];
		buf_adds(out, "add-on ");
		path(out, it);
		buf_addf(out, d->live ? ": %s: live %s, rendered %s\n  %s\n"
				      : ": %s: %s -> %s\n  %s\n",
			 it->key, it->before ? it->before : "(absent)",
			 it->after ? it->after : "(absent)", it->impact);
	}
}

static void md_cell(struct buf *out, const char *s)
{
	buf_adds(out, "`");
	for (; *s; s++)
		buf_addc(out, *s == '|' || *s == '`' ? '\'' : *s);
	buf_adds(out, "`");
}

void addondiff_format_markdown(struct buf *out, const struct addondiff *d)
{
	if (!d->nr)
		return;
	buf_addf(out, "\n#### Add-ons\n\n| file | key | %s | %s | "
		      "impact |\n| --- | --- | --- | --- | --- |\n",
		 d->live ? "live" : "before", d->live ? "rendered" : "after");
	for (size_t i = 0; i < d->nr; i++) {
		const struct addondiff_item *it = &d->items[i];
		struct buf p = BUF_INIT;
		path(&p, it);
		buf_adds(out, "| ");
		md_cell(out, buf_cstr(&p));
		buf_adds(out, " | ");
		md_cell(out, it->key);
		buf_adds(out, " | ");
		md_cell(out, it->before ? it->before : "(absent)");
		buf_adds(out, " | ");
		md_cell(out, it->after ? it->after : "(absent)");
		buf_addf(out, " | %s |\n", it->impact);
		buf_release(&p);
	}
}

void addondiff_summary(struct buf *out, const struct addondiff *d)
{
	buf_addf(out, "%zu add-on setting%s %s", d->nr, d->nr == 1 ? "" : "s",
		 d->live ? (d->nr == 1 ? "differs from the running controllers"
				       : "differ from the running controllers")
			 : "changed");
}

cJSON *addondiff_json(const struct addondiff *d)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < d->nr; i++) {
		const struct addondiff_item *it = &d->items[i];
		cJSON *o = cJSON_CreateObject(), *v;
		cJSON_AddStringToObject(o, "cluster", it->cluster);
		cJSON_AddStringToObject(o, "file", it->file);
		cJSON_AddStringToObject(o, "key", it->key);
		v = it->before ? cJSON_Parse(it->before) : NULL;
		cJSON_AddItemToObject(o, d->live ? "live" : "before",
				      v ? v : cJSON_CreateNull());
		v = it->after ? cJSON_Parse(it->after) : NULL;
		cJSON_AddItemToObject(o, d->live ? "rendered" : "after",
				      v ? v : cJSON_CreateNull());
		cJSON_AddStringToObject(o, "impact", it->impact);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* ---- addondiff_live: the render against the running controllers --------- */

static const cJSON *jget(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* what rolls the rendered file out: a HelmRelease or Application of the
 * same release among the rendered objects (spec.addons.delivery flux,
 * argocd), else the Helm release the values file is for */
static void until(struct buf *out, const cJSON *docs, const char *file,
		  const char *release)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, docs) {
		const cJSON *k = jget(d, "kind"), *md = jget(d, "metadata");
		const cJSON *n = jget(md, "name"), *ns = jget(md, "namespace");
		if (!cJSON_IsString(k) || !cJSON_IsString(n) ||
		    strcmp(n->valuestring, release) ||
		    (strcmp(k->valuestring, "HelmRelease") &&
		     strcmp(k->valuestring, "Application")))
			continue;
		buf_addf(out, "until %s %s%s%s (rendered) is synced",
			 k->valuestring,
			 cJSON_IsString(ns) ? ns->valuestring : "",
			 cJSON_IsString(ns) ? "/" : "", release);
		return;
	}
	buf_addf(out, "until addons/%s is rolled out to the %s Helm release",
		 file, release);
}

/* one gate that differs: what the running Karpenter does meanwhile */
static void live_gate_impact(struct buf *out, const char *gate, int rendered,
			     const char *where, const cJSON *docs)
{
	static const struct {
		const char *gate, *off;
	} effects[] = {
		{ "nodeOverlay", "Karpenter ignores the NodeOverlays" },
		{ "reservedCapacity", "the reserved-capacity pools launch "
				      "nothing" },
		{ "nodeRepair", "unhealthy GPU nodes are not replaced" },
		{ "spotToSpotConsolidation", "spot nodes are not replaced by "
					     "cheaper spot nodes" },
	};
	const char *off = "the rendered setting does not apply";
	size_t overlays = count_kind(docs, "NodeOverlay");

	for (size_t i = 0; i < sizeof(effects) / sizeof(effects[0]); i++)
		if (!strcmp(effects[i].gate, gate))
			off = effects[i].off;
	buf_addf(out, "Karpenter feature gate %s (%s, FEATURE_GATES): ", gate,
		 where);
	if (!rendered)
		buf_adds(out, "the running Karpenter still has it on ");
	else if (!strcmp(gate, "nodeOverlay") && overlays)
		buf_addf(out, "the %zu NodeOverlay%s rendered %s ignored ",
			 overlays, overlays == 1 ? "" : "s",
			 overlays == 1 ? "is" : "are");
	else
		buf_addf(out, "%s ", off);
	until(out, docs, "karpenter-values.yaml", "karpenter");
}

static void live_gates(struct addondiff *d, const char *cluster,
		       const cJSON *addons, const cJSON *docs,
		       const struct doctor_live *l)
{
	static const char prefix[] = "settings.featureGates.";
	const cJSON *fg = jget(jget(jget(addons, "karpenter-values.yaml"),
				    "settings"), "featureGates"), *g;
	struct targets_ver run = TARGETS_KARPENTER_NEWEST;

	if (doctor_image_version(l->karpenter.image, &run) < 0) {
		const struct targets_ver newest = TARGETS_KARPENTER_NEWEST;
		run = newest; /* no release tag: the newest defaults */
	}
	cJSON_ArrayForEach(g, fg) {
		char name[64], key[96];
		struct buf imp = BUF_INIT;
		int want, have;
		/* the chart's settings.featureGates keys are the FEATURE_GATES
		 * names with a lower-case first letter (aws/karpenter-provider-
		 * aws charts/karpenter/templates/deployment.yaml) */
		if (!cJSON_IsBool(g) || strlen(g->string) >= sizeof(name))
			continue;
		memcpy(name, g->string, strlen(g->string) + 1);
		name[0] = (char)(name[0] >= 'a' && name[0] <= 'z'
					 ? name[0] - 'a' + 'A'
					 : name[0]);
		want = cJSON_IsTrue(g);
		have = doctor_gate(l->feature_gates, name, &run);
		if (want == have)
			continue;
		snprintf(key, sizeof(key), "%s%s", prefix, g->string);
		live_gate_impact(&imp, g->string, want, l->karpenter.where,
				 docs);
		put_item(d, cluster, "karpenter-values.yaml", key,
			 have ? "true" : "false", want ? "true" : "false",
			 &imp);
	}
}

static cJSON *parse_doc(const char *text)
{
	struct ystream ys = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = NULL;

	if (text && yaml_parse(&ys, text, strlen(text), "config", &e) == 0 &&
	    ys.nr == 1 && ys.docs[0].root &&
	    ys.docs[0].root->type == YNODE_MAP &&
	    yaml_to_json(&j, ys.docs[0].root, "config", &e) < 0)
		j = NULL;
	ystream_release(&ys);
	err_release(&e);
	return j;
}

static void live_kueue_impact(struct buf *out, const char *key,
			      const char *where, const cJSON *docs)
{
	buf_addf(out, "Kueue configuration (%s): ", where);
	if (strstr(key, ":integrations.frameworks"))
		buf_adds(out, "the jobs of a framework not in the running "
			      "configuration are not queued by Kueue ");
	else if (strstr(key, ":waitForPodsReady."))
		buf_adds(out, "gangs are not started all-or-nothing as rendered ");
	else
		buf_adds(out, "the running Kueue keeps the live value ");
	until(out, docs, "kueue-values.yaml", "kueue");
	buf_adds(out, " and the controller restarts");
}

static void live_kueue(struct addondiff *d, const char *cluster,
		       const cJSON *addons, const cJSON *docs,
		       const struct doctor_live *l, struct diags *notes)
{
	static const char prefix[] = "managerConfig.controllerManagerConfigYaml:";
	const cJSON *s = jget(jget(jget(addons, "kueue-values.yaml"),
				   "managerConfig"),
			      "controllerManagerConfigYaml");
	struct flat fr = { 0 }, fl = { 0 };
	cJSON *want, *run;

	if (!cJSON_IsString(s) || !(want = parse_doc(s->valuestring)))
		return;
	if (!(run = parse_doc(l->kueue_config))) {
		diags_add(notes, DIAG_WARNING, "", 0, 0, NULL,
			  "add-ons: %s: controller_manager_config.yaml is not "
			  "one YAML mapping; the Kueue configuration is not "
			  "compared",
			  l->kueue_config_where);
		cJSON_Delete(want);
		return;
	}
	flatten(&fr, prefix, want);
	flatten(&fl, prefix, run);
	for (size_t pass = 0; pass < 2; pass++) {
		const struct flat *f = pass ? &fl : &fr;
		for (size_t i = 0; i < f->nr; i++) {
			const char *vr = flat_get(&fr, f->key[i]);
			const char *vl = flat_get(&fl, f->key[i]);
			struct buf imp = BUF_INIT;
			if ((vr && vl && !strcmp(vr, vl)) || (pass && vr))
				continue;
			live_kueue_impact(&imp, f->key[i],
					  l->kueue_config_where, docs);
			put_item(d, cluster, "kueue-values.yaml", f->key[i], vl,
				 vr, &imp);
		}
	}
	flat_release(&fr);
	flat_release(&fl);
	cJSON_Delete(want);
	cJSON_Delete(run);
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct addondiff_item *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	return c ? c : strcmp(a->key, b->key);
}

void addondiff_live(struct addondiff *d, const char *cluster,
		    const cJSON *addons, const cJSON *docs,
		    const struct doctor_live *l, struct diags *notes)
{
	size_t first = d->nr;

	d->live = 1;
	if (l->karpenter.unreadable && jget(addons, "karpenter-values.yaml"))
		diags_add(notes, DIAG_WARNING, "", 0, 0,
			  "gpuform install --doctor grants that read",
			  "add-ons: Karpenter: %s; its feature gates are not "
			  "compared",
			  l->karpenter.unreadable);
	else if (l->karpenter.where)
		live_gates(d, cluster, addons, docs, l);
	if (l->kueue_config_unreadable && jget(addons, "kueue-values.yaml"))
		diags_add(notes, DIAG_WARNING, "", 0, 0,
			  "gpuform install --doctor grants that read",
			  "add-ons: Kueue: %s; its configuration is not "
			  "compared",
			  l->kueue_config_unreadable);
	else if (l->kueue_config_where)
		live_kueue(d, cluster, addons, docs, l, notes);
	if (d->nr > first) /* d->items is NULL when nothing was added */
		qsort(d->items + first, d->nr - first, sizeof(*d->items),
		      item_cmp);
}
