/*
 * generator/objdiff.c: object-by-object comparison of two rendered object sets,
 * and its text, Markdown and JSON forms (see objdiff.h).
 *
 * Deliberately not here: reading revisions, rendering intents, printing.
 */
#include "generator/objdiff.h"

#include <stdlib.h>
#include <string.h>

#include "generator/kobj.h"
#include "generator/render.h"
#include "util/yaml.h"
#include "util/udiff.h"
#include "util/vec.h"
#include "util/json.h"
#include "util/xalloc.h"

#define DIFF_CONTEXT 3
#define SHORT_ID 12

const char *const objdiff_change_names[OBJDIFF_NCHANGES] = {
	"added", "removed", "modified"
};

void objset_add(struct objset *s, const char *cluster, const cJSON *docs)
{
	const cJSON *doc;

	cJSON_ArrayForEach(doc, docs) {
		GROW(s->items, s->nr + 1, s->alloc);
		s->items[s->nr].cluster = cluster ? cluster : "";
		s->items[s->nr].doc = doc;
		s->nr++;
	}
}

void objset_release(struct objset *s)
{
	free(s->items);
	s->items = NULL;
	s->nr = s->alloc = 0;
}

/* ---- identity ------------------------------------------------------------ */

struct key {
	const char *cluster;
	struct kobj_id id; /* "" where absent, ns NULL for cluster scope */
	char *group;       /* "" for the core group */
	const cJSON *doc;
};

static struct key *make_keys(const struct objset *s)
{
	struct key *k = xcalloc(s->nr ? s->nr : 1, sizeof(*k));

	for (size_t i = 0; i < s->nr; i++) {
		const cJSON *doc = s->items[i].doc;
		struct kobj_id *id = &k[i].id;

		k[i].cluster = s->items[i].cluster;
		k[i].doc = doc;
		kobj_id_of(doc, id);
		id->api_version = id->api_version ? id->api_version : "";
		id->kind = id->kind ? id->kind : "";
		id->name = id->name ? id->name : "";
		k[i].group = kobj_group_dup(id->api_version);
	}
	return k;
}

static void free_keys(struct key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].group);
	free(k);
}

static int key_cmp(const struct key *a, const struct key *b)
{
	int c, ra, rb;

	if ((c = strcmp(a->cluster, b->cluster)))
		return c;
	ra = kobj_kind_rank(a->id.kind);
	rb = kobj_kind_rank(b->id.kind);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if ((c = strcmp(a->id.kind, b->id.kind)))
		return c;
	if ((c = strcmp(a->id.ns ? a->id.ns : "", b->id.ns ? b->id.ns : "")))
		return c;
	if ((c = strcmp(a->id.name, b->id.name)))
		return c;
	return strcmp(a->group, b->group);
}

static int key_qsort_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* "ml-prod/NodePool/chat-serving", "ml-prod/LocalQueue/serving/chat-serving" */
static void add_path(struct buf *out, const char *cluster,
		     const struct kobj_id *id)
{
	buf_addf(out, "%s/%s/", cluster, id->kind);
	if (id->ns && *id->ns)
		buf_addf(out, "%s/", id->ns);
	buf_adds(out, id->name);
}

static int sort_and_check(struct key *k, size_t n, const char *side,
			  struct err *err)
{
	if (n > 1)
		qsort(k, n, sizeof(*k), key_qsort_cmp);
	for (size_t i = 1; i < n; i++)
		if (!key_cmp(&k[i - 1], &k[i])) {
			struct buf p = BUF_INIT;
			add_path(&p, k[i].cluster, &k[i].id);
			err_set(err, ERR_INVALID,
				"'%s' appears twice in the %s objects",
				buf_cstr(&p), side);
			buf_release(&p);
			return -1;
		}
	return 0;
}

/* ---- comparison ---------------------------------------------------------- */

static int emit(struct buf *out, const struct key *k, struct err *err)
{
	if (!k)
		return 0;
	if (yaml_emit(out, k->doc, err) < 0) {
		struct buf p = BUF_INIT;
		add_path(&p, k->cluster, &k->id);
		err_wrap(err, "'%s'", buf_cstr(&p));
		buf_release(&p);
		return -1;
	}
	return 0;
}

/* NodePools of both sides, for attributing EC2NodeClass changes */
struct pools {
	const struct key **k;
	size_t nr, alloc;
	const cJSON **docs; /* scratch: one cluster's */
	size_t ndocs, adocs;
};

static void pools_add(struct pools *p, const struct key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k[i].id.kind, "NodePool") &&
		    !strcmp(k[i].group, "karpenter.sh")) {
			GROW(p->k, p->nr + 1, p->alloc);
			p->k[p->nr++] = &k[i];
		}
}

enum when { WHEN_NOW, WHEN_WINDOW, WHEN_NEVER };

static enum when when_of(const cJSON *pool, const char **sched,
			 const char **dur)
{
	const cJSON *b, *budgets = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(pool, "spec"),
			"disruption"),
		"budgets");
	const cJSON *ann = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(pool, "metadata"),
		"annotations");
	enum when w = WHEN_NOW;

	*sched = json_text_at(ann, "gpuform.io/maintenance-window", NULL);
	*dur = json_text_at(ann, "gpuform.io/maintenance-window-duration", NULL);
	cJSON_ArrayForEach(b, budgets) {
		const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(b,
								"reasons");
		const cJSON *r;
		int drift = !cJSON_IsArray(reasons);

		cJSON_ArrayForEach(r, reasons)
			if (cJSON_IsString(r) &&
			    !strcmp(r->valuestring, "Drifted"))
				drift = 1;
		if (!drift || strcmp(json_text_at(b, "nodes", NULL), "0"))
			continue;
		if (cJSON_GetObjectItemCaseSensitive(b, "schedule"))
			w = w == WHEN_NEVER ? WHEN_NEVER : WHEN_WINDOW;
		else
			w = WHEN_NEVER;
	}
	return w;
}

static void when_text(struct buf *out, enum when w, const char *sched,
		      const char *dur)
{
	if (w == WHEN_NOW)
		buf_adds(out, "immediately (Karpenter replaces drifted nodes "
			      "as the pool's disruption budgets allow)");
	else if (w == WHEN_WINDOW && *sched)
		buf_addf(out, "at the next opening of the maintenance window "
			      "\"%s\" (%s); drift is blocked outside it",
			 sched, *dur ? dur : "?");
	else if (w == WHEN_WINDOW)
		buf_adds(out, "when the pool's disruption budget schedule next "
			      "allows drift");
	else
		buf_adds(out, "not by itself: the pool's disruption budget "
			      "blocks drift and it has no maintenance window "
			      "(nodes are replaced as they empty or are "
			      "deleted)");
}

void objdiff_when(struct buf *out, char *const *names, size_t n,
		  const cJSON *const *docs, size_t ndocs)
{
	struct buf first = BUF_INIT, each = BUF_INIT;
	int same = 1;

	for (size_t i = 0; i < n; i++) {
		const cJSON *pool = NULL;
		const char *sched = "", *dur = "";
		struct buf t = BUF_INIT;
		enum when w;

		/* the last match: the new side's pool when both have it */
		for (size_t j = 0; j < ndocs; j++)
			if (!strcmp(json_text_at(docs[j], "metadata", "name"),
				    names[i]) &&
			    !strcmp(json_text_at(docs[j], "kind", NULL), "NodePool"))
				pool = docs[j];
		w = pool ? when_of(pool, &sched, &dur) : WHEN_NOW;
		when_text(&t, w, sched, dur);
		if (!i)
			buf_adds(&first, buf_cstr(&t));
		else if (strcmp(buf_cstr(&first), buf_cstr(&t)))
			same = 0;
		buf_addf(&each, "%spool %s: %s", i ? "; " : "", names[i],
			 buf_cstr(&t));
		buf_release(&t);
	}
	buf_adds(out, same ? buf_cstr(&first) : buf_cstr(&each));
	buf_release(&first);
	buf_release(&each);
}

static void classify(struct objdiff_item *it, struct pools *p,
		     const struct key *a, const struct key *b)
{
	p->ndocs = 0;
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->k[i]->cluster, it->cluster)) {
			GROW(p->docs, p->ndocs + 1, p->adocs);
			p->docs[p->ndocs++] = p->k[i]->doc;
		}
	impact_classify(&it->impact, a ? a->doc : NULL, b ? b->doc : NULL,
			p->docs, p->ndocs);
	it->when = NULL;
	if (it->impact.cls == IMPACT_REPLACES && it->impact.npools) {
		struct buf w = BUF_INIT;
		objdiff_when(&w, it->impact.pools, it->impact.npools, p->docs,
			     p->ndocs);
		it->when = buf_detach(&w, NULL);
	}
}

/* compare a (base, may be NULL) with b (head, may be NULL) */
static int compare_one(struct objdiff *d, struct pools *p, const struct key *a,
		       const struct key *b, struct err *err)
{
	const struct key *k = b ? b : a;
	struct buf ta = BUF_INIT, tb = BUF_INIT, diff = BUF_INIT;
	struct buf la = BUF_INIT, lb = BUF_INIT;
	struct objdiff_item *it;
	int ret = -1;

	if (emit(&ta, a, err) < 0 || emit(&tb, b, err) < 0)
		goto out;
	if (a) {
		buf_adds(&la, "a/");
		add_path(&la, a->cluster, &a->id);
	} else {
		buf_adds(&la, "/dev/null");
	}
	if (b) {
		buf_adds(&lb, "b/");
		add_path(&lb, b->cluster, &b->id);
	} else {
		buf_adds(&lb, "/dev/null");
	}
	if (!udiff(&diff, buf_cstr(&ta), buf_cstr(&tb), buf_cstr(&la),
		   buf_cstr(&lb), DIFF_CONTEXT)) {
		d->unchanged++;
		ret = 0;
		goto out;
	}
	GROW(d->items, d->nr + 1, d->alloc);
	it = &d->items[d->nr++];
	it->change = !a ? OBJDIFF_ADDED : !b ? OBJDIFF_REMOVED : OBJDIFF_MODIFIED;
	it->cluster = xstrdup(k->cluster);
	kobj_id_copy(&it->id, &k->id);
	it->diff = buf_detach(&diff, NULL);
	it->impact = (struct impact)IMPACT_INIT;
	classify(it, p, a, b);
	impact_tally_add(&d->tally, &it->impact);
	d->counts[it->change]++;
	ret = 0;
out:
	buf_release(&ta);
	buf_release(&tb);
	buf_release(&la);
	buf_release(&lb);
	buf_release(&diff);
	return ret;
}

int objdiff_compute(struct objdiff *out, const struct objset *base,
		    const struct objset *head, struct err *err)
{
	struct objdiff d = OBJDIFF_INIT;
	struct key *ka = make_keys(base), *kb = make_keys(head);
	struct pools p = { NULL, 0, 0, NULL, 0, 0 };
	size_t i = 0, j = 0;
	int ret = -1;

	if (sort_and_check(ka, base->nr, "base", err) < 0 ||
	    sort_and_check(kb, head->nr, "head", err) < 0)
		goto out;
	pools_add(&p, ka, base->nr);
	pools_add(&p, kb, head->nr);
	while (i < base->nr || j < head->nr) {
		int c = i == base->nr ? 1
			: j == head->nr ? -1
					: key_cmp(&ka[i], &kb[j]);
		const struct key *a = c <= 0 ? &ka[i++] : NULL;
		const struct key *b = c >= 0 ? &kb[j++] : NULL;

		if (compare_one(&d, &p, a, b, err) < 0)
			goto out;
	}
	*out = d;
	d = (struct objdiff)OBJDIFF_INIT;
	ret = 0;
out:
	free(p.k);
	free(p.docs);
	objdiff_release(&d);
	free_keys(ka, base->nr);
	free_keys(kb, head->nr);
	return ret;
}

void objdiff_release(struct objdiff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		struct objdiff_item *it = &d->items[i];
		free(it->cluster);
		kobj_id_clear(&it->id);
		free(it->diff);
		impact_release(&it->impact);
		free(it->when);
	}
	free(d->items);
	impact_tally_release(&d->tally);
	*d = (struct objdiff)OBJDIFF_INIT;
}

/* ---- output -------------------------------------------------------------- */

void objdiff_summary(struct buf *out, const struct objdiff *d)
{
	if (d->nr) {
		impact_tally_summary(out, &d->tally);
		buf_adds(out, "; ");
	}
	buf_addf(out, "%zu object%s changed: %zu added, %zu removed, %zu modified",
		 d->nr, d->nr == 1 ? "" : "s", d->counts[OBJDIFF_ADDED],
		 d->counts[OBJDIFF_REMOVED], d->counts[OBJDIFF_MODIFIED]);
}

static void item_path(struct buf *out, const struct objdiff_item *it)
{
	add_path(out, it->cluster, &it->id);
}

void objdiff_format_text(struct buf *out, const struct objdiff *d)
{
	objdiff_format_text_ext(out, d, NULL);
}

void objdiff_format_text_ext(struct buf *out, const struct objdiff *d,
			     const char *section)
{
	for (size_t i = 0; i < d->nr; i++) {
		buf_addf(out, "%s ", objdiff_change_names[d->items[i].change]);
		item_path(out, &d->items[i]);
		buf_adds(out, "\nnode impact: ");
		impact_describe(out, &d->items[i].impact);
		buf_addc(out, '\n');
		if (d->items[i].when)
			buf_addf(out, "takes effect: %s\n", d->items[i].when);
		buf_adds(out, d->items[i].diff);
	}
	if (section)
		buf_adds(out, section);
	objdiff_summary(out, d);
	buf_addc(out, '\n');
}

/* text inside HTML (the <summary> line) */
static void add_html(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			buf_adds(out, "&amp;");
		else if (*s == '<')
			buf_adds(out, "&lt;");
		else if (*s == '>')
			buf_adds(out, "&gt;");
		else
			buf_addc(out, *s);
	}
}

/* a Markdown table cell: no '|', no markup, no HTML (Kubernetes names never
 * need this; it is here so that no input can break the table) */
static void add_cell(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r')
			buf_addc(out, ' ');
		else if (strchr("\\|`*_[]<>&#", *s))
			buf_addf(out, "&#%d;", (unsigned char)*s);
		else
			buf_addc(out, *s);
	}
}

/* an inline code span holding a revision name */
static void add_code(struct buf *out, const char *s)
{
	buf_addc(out, '`');
	for (; *s; s++)
		buf_addc(out, *s == '`' ? '\'' : *s == '\n' ? ' ' : *s);
	buf_addc(out, '`');
}

static void add_rev(struct buf *out, const char *what,
		    const struct objdiff_rev *r)
{
	if (!r->id) {
		buf_addf(out, "the working tree");
		return;
	}
	buf_addf(out, "%s ", what);
	add_code(out, r->rev ? r->rev : r->id);
	/* a bare 12-digit id: GitHub links it to the commit */
	buf_addf(out, " (%.*s)", SHORT_ID, r->id);
}

/* a fence longer than any run of backticks in the text (CommonMark) */
static size_t fence_len(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best < 3 ? 3 : best + 1;
}

static void add_fence(struct buf *out, size_t n)
{
	while (n--)
		buf_addc(out, '`');
}

/* the order the PR comment lists objects in: node-replacing changes first,
 * then "may disrupt", then the rest; render order within each */
static size_t *by_impact(const struct objdiff *d)
{
	size_t *ix = xcalloc(d->nr ? d->nr : 1, sizeof(*ix)), n = 0;

	for (int c = IMPACT_NCLASSES - 1; c >= 0; c--)
		for (size_t i = 0; i < d->nr; i++)
			if ((int)d->items[i].impact.cls == c)
				ix[n++] = i;
	return ix;
}

static void add_impact_md(struct buf *out, const struct impact *im)
{
	struct buf r = BUF_INIT;

	buf_addf(out, "Node impact: **%s**", impact_class_names[im->cls]);
	if (im->npools) {
		buf_addf(out, " (pool%s ", im->npools == 1 ? "" : "s");
		for (size_t i = 0; i < im->npools; i++) {
			if (i)
				buf_adds(out, ", ");
			add_code(out, im->pools[i]);
		}
		buf_addc(out, ')');
	}
	buf_adds(out, ": ");
	impact_rules_text(im, &r);
	impact_also_text(im, &r);
	add_cell(out, buf_cstr(&r));
	buf_adds(out, "\n\n");
	buf_release(&r);
}

void objdiff_format_markdown(struct buf *out, const struct objdiff *d,
			     const struct objdiff_rev *base,
			     const struct objdiff_rev *head)
{
	objdiff_format_markdown_ext(out, d, base, head, NULL, NULL);
}

void objdiff_format_markdown_ext(struct buf *out, const struct objdiff *d,
				 const struct objdiff_rev *base,
				 const struct objdiff_rev *head,
				 const char *lead, const char *section)
{
	size_t *ix;

	buf_adds(out, "### gpuform diff\n\nComparing ");
	add_rev(out, "base", base);
	buf_adds(out, " with ");
	add_rev(out, "head", head);
	buf_adds(out, ".\n\n**");
	if (lead)
		buf_addf(out, "%s; ", lead);
	objdiff_summary(out, d);
	buf_adds(out, "**\n");
	if (section)
		buf_adds(out, section);
	if (!d->nr)
		return;
	ix = by_impact(d);
	buf_adds(out, "\n| node impact | cluster | kind | name | change |\n"
		      "| --- | --- | --- | --- | --- |\n");
	for (size_t n = 0; n < d->nr; n++) {
		const struct objdiff_item *it = &d->items[ix[n]];
		const char *em = it->impact.cls == IMPACT_REPLACES ? "**" : "";
		buf_addf(out, "| %s%s%s | ", em,
			 impact_class_names[it->impact.cls], em);
		add_cell(out, it->cluster);
		buf_adds(out, " | ");
		add_cell(out, it->id.kind);
		buf_adds(out, " | ");
		if (it->id.ns) {
			add_cell(out, it->id.ns);
			buf_addc(out, '/');
		}
		add_cell(out, it->id.name);
		buf_addf(out, " | %s |\n", objdiff_change_names[it->change]);
	}
	for (size_t n = 0; n < d->nr; n++) {
		const struct objdiff_item *it = &d->items[ix[n]];
		struct buf p = BUF_INIT;
		size_t f = fence_len(it->diff);

		item_path(&p, it);
		buf_addf(out, "\n<details><summary>%s: ",
			 objdiff_change_names[it->change]);
		add_html(out, buf_cstr(&p));
		buf_addf(out, " (%s)</summary>\n\n",
			 impact_class_names[it->impact.cls]);
		add_impact_md(out, &it->impact);
		if (it->when) {
			buf_adds(out, "Takes effect: ");
			add_cell(out, it->when);
			buf_adds(out, "\n\n");
		}
		add_fence(out, f);
		buf_adds(out, "diff\n");
		buf_adds(out, it->diff);
		add_fence(out, f);
		buf_adds(out, "\n\n</details>\n");
		buf_release(&p);
	}
	free(ix);
}

void objdiff_format_json(struct buf *out, const struct objdiff *d,
			 const struct objdiff_rev *base,
			 const struct objdiff_rev *head)
{
	objdiff_format_json_ext(out, d, base, head, NULL, NULL);
}

void objdiff_format_json_ext(struct buf *out, const struct objdiff *d,
			     const struct objdiff_rev *base,
			     const struct objdiff_rev *head, const char *key,
			     cJSON *extra)
{
	cJSON *root = cJSON_CreateObject(), *sum, *objs;
	char *s;

	cJSON_AddStringToObject(root, "base", base->id ? base->id : "worktree");
	cJSON_AddStringToObject(root, "head", head->id ? head->id : "worktree");
	sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "changed", (double)d->nr);
	for (int c = 0; c < OBJDIFF_NCHANGES; c++)
		cJSON_AddNumberToObject(sum, objdiff_change_names[c],
					(double)d->counts[c]);
	cJSON_AddNumberToObject(sum, "unchanged", (double)d->unchanged);
	cJSON_AddNumberToObject(sum, "replacesNodes",
				(double)d->tally.counts[IMPACT_REPLACES]);
	cJSON_AddNumberToObject(sum, "mayDisrupt",
				(double)d->tally.counts[IMPACT_MAY_DISRUPT]);
	cJSON_AddNumberToObject(sum, "noNodeEffect",
				(double)d->tally.counts[IMPACT_NONE]);
	{
		cJSON *pl = cJSON_AddArrayToObject(sum, "replacedPools");
		for (size_t i = 0; i < d->tally.npools; i++)
			cJSON_AddItemToArray(pl, cJSON_CreateString(d->tally.pools[i]));
	}
	objs = cJSON_AddArrayToObject(root, "objects");
	for (size_t i = 0; i < d->nr; i++) {
		const struct objdiff_item *it = &d->items[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "cluster", it->cluster);
		cJSON_AddStringToObject(o, "apiVersion", it->id.api_version);
		cJSON_AddStringToObject(o, "kind", it->id.kind);
		if (it->id.ns)
			cJSON_AddStringToObject(o, "namespace", it->id.ns);
		else
			cJSON_AddNullToObject(o, "namespace");
		cJSON_AddStringToObject(o, "name", it->id.name);
		cJSON_AddStringToObject(o, "change",
					objdiff_change_names[it->change]);
		cJSON_AddItemToObject(o, "impact", impact_json(&it->impact));
		if (it->when)
			cJSON_AddStringToObject(o, "takesEffect", it->when);
		cJSON_AddStringToObject(o, "diff", it->diff);
		cJSON_AddItemToArray(objs, o);
	}
	if (extra)
		cJSON_AddItemToObject(root, key, extra);
	s = cJSON_Print(root);
	if (!s)
		BUG("cJSON_Print failed");
	buf_adds(out, s);
	buf_addc(out, '\n');
	cJSON_free(s);
	cJSON_Delete(root);
}
