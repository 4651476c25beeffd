/* generator/addondiff.c: add-on files compared by key (addondiff.h). */
#include "generator/addondiff.h"

#include <stdlib.h>
#include <string.h>

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

static void add_item(struct addondiff *d, const char *cluster,
		     const char *file, const char *key, const char *before,
		     const char *after, const struct ctx *c)
{
	struct addondiff_item *it;
	struct buf imp = BUF_INIT;

	impact_of(&imp, file, key, after, c);
	GROW(d->items, d->nr + 1, d->alloc);
	it = &d->items[d->nr++];
	it->cluster = xstrdup(cluster ? cluster : "");
	it->file = xstrdup(file);
	it->key = xstrdup(key);
	it->before = before ? xstrdup(before) : NULL;
	it->after = after ? xstrdup(after) : NULL;
	it->impact = buf_detach(&imp, NULL);
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
		buf_addf(out, ": %s: %s -> %s\n  %s\n", it->key,
			 it->before ? it->before : "(absent)",
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
	buf_adds(out, "\n#### Add-ons\n\n| file | key | before | after | "
		      "impact |\n| --- | --- | --- | --- | --- |\n");
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
	buf_addf(out, "%zu add-on setting%s changed", d->nr,
		 d->nr == 1 ? "" : "s");
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
		cJSON_AddItemToObject(o, "before", v ? v : cJSON_CreateNull());
		v = it->after ? cJSON_Parse(it->after) : NULL;
		cJSON_AddItemToObject(o, "after", v ? v : cJSON_CreateNull());
		cJSON_AddStringToObject(o, "impact", it->impact);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
