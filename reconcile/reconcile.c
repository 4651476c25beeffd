/*
 * reconcile/reconcile.c: desired objects vs the live cluster (see
 * reconcile.h). Talks to the API only through kube.h.
 */
#include "reconcile/reconcile.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator/check.h"
#include "generator/render.h"
#include "generator/yaml.h"
#include "reconcile/digest.h"
#include "reconcile/impact.h"
#include "util/udiff.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define PART_OF "applyset.kubernetes.io/part-of"

const char *const recon_action_names[] = { "unchanged", "created",
					   "configured", "pruned",
					   "conflict", "failed", "skipped" };

/* ---- identities ---------------------------------------------------------- */

struct ident {
	const char *api_version, *kind, *ns, *name; /* borrowed */
};

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *jpath(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
	return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

static void ident_of(const cJSON *o, struct ident *id)
{
	const cJSON *md = jpath(o, "metadata", NULL);
	id->api_version = jstr(o, "apiVersion");
	id->kind = jstr(o, "kind");
	id->name = jstr(md, "name");
	id->ns = jstr(md, "namespace");
	if (id->ns && !*id->ns)
		id->ns = NULL;
}

static const char *group_of(const char *api_version, char *buf, size_t n)
{
	const char *slash = strchr(api_version, '/');
	size_t len;

	if (!slash)
		return "";
	len = (size_t)(slash - api_version);
	if (len >= n)
		len = n - 1;
	memcpy(buf, api_version, len);
	buf[len] = '\0';
	return buf;
}

/* same object? group+kind+namespace+name (the version may differ) */
static int same_object(const struct ident *a, const struct ident *b)
{
	char ga[128], gb[128];

	return !strcmp(a->kind, b->kind) && !strcmp(a->name, b->name) &&
	       !strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "") &&
	       !strcmp(group_of(a->api_version, ga, sizeof(ga)),
		       group_of(b->api_version, gb, sizeof(gb)));
}

static void ident_display(const struct ident *id, struct buf *out)
{
	char g[128];
	const char *group = group_of(id->api_version, g, sizeof(g));

	for (const char *k = id->kind; *k; k++)
		buf_addc(out, (char)tolower((unsigned char)*k));
	if (*group)
		buf_addf(out, ".%s", group);
	buf_addf(out, "/%s", id->name);
	if (id->ns)
		buf_addf(out, " -n %s", id->ns);
}

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 253)
		return 0;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		      *p == '-' || *p == '.'))
			return 0;
	return isalnum((unsigned char)s[0]) && isalnum((unsigned char)s[n - 1]);
}

/* ---- resources: a built-in table for the kinds gpuform renders, so a
 * no-op run needs no discovery requests ----------------------------------- */

struct known {
	const char *api_version, *kind, *resource;
	int namespaced;
};
static const struct known known_kinds[] = {
	{ "v1", "Namespace", "namespaces", 0 },
	{ "v1", "ConfigMap", "configmaps", 1 },
	{ "karpenter.k8s.aws/v1", "EC2NodeClass", "ec2nodeclasses", 0 },
	{ "karpenter.sh/v1", "NodePool", "nodepools", 0 },
	{ "kueue.x-k8s.io/v1beta2", "ResourceFlavor", "resourceflavors", 0 },
	{ "kueue.x-k8s.io/v1beta2", "ClusterQueue", "clusterqueues", 0 },
	{ "kueue.x-k8s.io/v1beta2", "LocalQueue", "localqueues", 1 },
	{ "kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass",
	  "workloadpriorityclasses", 0 },
};

enum live_state { LIVE_ABSENT, LIVE_EQUAL, LIVE_DIFFERENT };

struct want {
	cJSON *obj; /* borrowed from desired */
	struct ident id;
	char *key;  /* identity key, see ident_key() */
	const struct kube_resource *res;
	enum live_state state;
	const cJSON *live; /* kept only when it differs (dry run, diff) */
	cJSON *next; /* the dry run's result, kept for the guard */
	size_t item; /* index into rep->items (the array grows) */
	int needs_write;
	int force;
	int skip_dry_run; /* its namespace is created in this run */
	char *uid;
};

struct rtype {
	char *api_version, *kind;
	struct kube_resource res; /* owned copy */
	int static_entry;         /* from known_kinds: verify on 404 */
};

struct run {
	struct kube *k;
	const struct recon_opts *o;
	struct recon_report *rep;
	struct err *err;
	char *applyset_id;
	/* each descriptor allocated on its own: callers keep pointers to
	 * t->res (cm_res, want.res) while the table grows */
	struct rtype **types;
	size_t ntypes, types_alloc;
	cJSON *live; /* live objects kept: ones that differ from what we want,
		      * and stubs (identity + uid) of ones we do not want */
	struct want *w; /* desired objects, with an index by identity */
	size_t nw;
	size_t *slots; /* open addressing: want index + 1, 0 = empty */
	size_t cap;
};

/* identity of an object across versions: group, kind, namespace, name */
static void ident_key(const struct ident *id, struct buf *out)
{
	char g[128];

	buf_reset(out);
	buf_addf(out, "%s\x1f%s\x1f%s\x1f%s", group_of(id->api_version, g, sizeof(g)),
		 id->kind, id->ns ? id->ns : "", id->name);
}

static size_t key_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* want_find: index of the desired object with this identity, or -1 */
static long want_find_key(const struct run *r, const char *key)
{
	if (!r->cap)
		return -1;
	for (size_t h = key_hash(key) & (r->cap - 1);; h = (h + 1) & (r->cap - 1)) {
		size_t v = r->slots[h];
		if (!v)
			return -1;
		if (!strcmp(r->w[v - 1].key, key))
			return (long)(v - 1);
	}
}

static long want_find(const struct run *r, const struct ident *id)
{
	struct buf k = BUF_INIT;
	long i;

	ident_key(id, &k);
	i = want_find_key(r, buf_cstr(&k));
	buf_release(&k);
	return i;
}

/* index the desired objects; a duplicate identity is an input error */
static int index_wants(struct run *r, struct err *err)
{
	struct buf k = BUF_INIT;

	r->cap = 16;
	while (r->cap < r->nw * 2 + 1)
		r->cap *= 2;
	r->slots = xcalloc(r->cap, sizeof(*r->slots));
	for (size_t i = 0; i < r->nw; i++) {
		size_t h;
		ident_key(&r->w[i].id, &k);
		r->w[i].key = xstrdup(buf_cstr(&k));
		if (want_find_key(r, r->w[i].key) >= 0) {
			buf_release(&k);
			return err_set(err, ERR_INVALID,
				       "%s %s appears twice in the desired set; "
				       "nothing was applied",
				       r->w[i].id.kind, r->w[i].id.name);
		}
		for (h = key_hash(r->w[i].key) & (r->cap - 1); r->slots[h];
		     h = (h + 1) & (r->cap - 1))
			;
		r->slots[h] = i + 1;
	}
	buf_release(&k);
	return 0;
}

static int resource_of(struct run *r, const char *api_version,
		       const char *kind, const struct kube_resource **out)
{
	const struct kube_resource *disc = NULL;
	struct rtype *t;
	char g[128];
	const char *slash;

	for (size_t i = 0; i < r->ntypes; i++)
		if (!strcmp(r->types[i]->api_version, api_version) &&
		    !strcmp(r->types[i]->kind, kind)) {
			*out = &r->types[i]->res;
			return 0;
		}
	t = xcalloc(1, sizeof(*t));
	for (size_t i = 0; i < sizeof(known_kinds) / sizeof(known_kinds[0]); i++)
		if (!strcmp(known_kinds[i].api_version, api_version) &&
		    !strcmp(known_kinds[i].kind, kind)) {
			t->res.resource = xstrdup(known_kinds[i].resource);
			t->res.namespaced = known_kinds[i].namespaced;
			t->static_entry = 1;
		}
	if (!t->static_entry) {
		if (kube_resource_for(r->k, api_version, kind, &disc, r->err) < 0) {
			free(t);
			return -1;
		}
		t->res.resource = xstrdup(disc->resource);
		t->res.namespaced = disc->namespaced;
	}
	t->api_version = xstrdup(api_version);
	t->kind = xstrdup(kind);
	t->res.group = xstrdup(group_of(api_version, g, sizeof(g)));
	slash = strchr(api_version, '/');
	t->res.version = xstrdup(slash ? slash + 1 : api_version);
	t->res.kind = xstrdup(kind);
	GROW(r->types, r->ntypes + 1, r->types_alloc);
	r->types[r->ntypes++] = t;
	*out = &t->res;
	return 0;
}

/* a collection that answers 404 for a built-in kind: ask discovery, which
 * says precisely what is missing ("the Karpenter CRDs are not installed") */
static int explain_missing(struct run *r, const char *api_version,
			   const char *kind)
{
	const struct kube_resource *res;
	char *why = xstrdup(err_msg(r->err));

	err_clear(r->err);
	if (kube_resource_for(r->k, api_version, kind, &res, r->err) < 0) {
		free(why);
		return -1;
	}
	err_set(r->err, ERR_HTTP,
		"the API server serves %s %s but listing it failed: %s",
		api_version, kind, why);
	free(why);
	return -1;
}

/* ---- comparison ---------------------------------------------------------- */

/* quantity "1500m", "2Gi", "64" -> value; 0 if not a quantity */
static int quantity(const char *s, long double *out)
{
	static const struct {
		const char *suf;
		long double mul;
	} sufs[] = { { "Ki", 1024.0L }, { "Mi", 1048576.0L },
		     { "Gi", 1073741824.0L }, { "Ti", 1099511627776.0L },
		     { "Pi", 1125899906842624.0L }, { "n", 1e-9L },
		     { "u", 1e-6L }, { "m", 1e-3L }, { "k", 1e3L },
		     { "M", 1e6L }, { "G", 1e9L }, { "T", 1e12L },
		     { "P", 1e15L }, { "", 1.0L } };
	char *end;
	long double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+' ||
		    *s == '.'))
		return 0;
	v = strtold(s, &end);
	if (end == s)
		return 0;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
		if (!strcmp(end, sufs[i].suf)) {
			*out = v * sufs[i].mul;
			return 1;
		}
	return 0;
}

static int scalar_equal(const cJSON *d, const cJSON *l)
{
	long double a, b;

	if (cJSON_IsString(d) && cJSON_IsString(l)) {
		if (!strcmp(d->valuestring, l->valuestring))
			return 1;
		return quantity(d->valuestring, &a) &&
		       quantity(l->valuestring, &b) && fabsl(a - b) < 1e-9L;
	}
	if (cJSON_IsNumber(d) && cJSON_IsNumber(l))
		return d->valuedouble == l->valuedouble;
	if (cJSON_IsNumber(d) && cJSON_IsString(l))
		return quantity(l->valuestring, &b) &&
		       fabsl((long double)d->valuedouble - b) < 1e-9L;
	if (cJSON_IsString(d) && cJSON_IsNumber(l))
		return quantity(d->valuestring, &a) &&
		       fabsl(a - (long double)l->valuedouble) < 1e-9L;
	if (cJSON_IsBool(d) && cJSON_IsBool(l))
		return cJSON_IsTrue(d) == cJSON_IsTrue(l);
	if (cJSON_IsNull(d))
		return !l || cJSON_IsNull(l);
	return 0;
}

/* every field of desired holds in live (live may have more: defaults,
 * status, other managers' fields) */
static int subset_equal(const cJSON *d, const cJSON *l)
{
	if (!l)
		return cJSON_IsNull(d);
	if (cJSON_IsObject(d)) {
		const cJSON *kid;
		if (!cJSON_IsObject(l))
			return 0;
		cJSON_ArrayForEach(kid, d)
		{
			if (!subset_equal(kid, cJSON_GetObjectItemCaseSensitive(
						       l, kid->string)))
				return 0;
		}
		return 1;
	}
	if (cJSON_IsArray(d)) {
		const cJSON *a, *b;
		if (!cJSON_IsArray(l) ||
		    cJSON_GetArraySize(d) != cJSON_GetArraySize(l))
			return 0;
		for (a = d->child, b = l->child; a && b; a = a->next, b = b->next)
			if (!subset_equal(a, b))
				return 0;
		return 1;
	}
	return scalar_equal(d, l);
}

static const cJSON *managed_entry(const cJSON *live, const char *manager,
				  const char *operation)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, jpath(live, "metadata", "managedFields"))
	{
		const char *m = jstr(e, "manager"), *op = jstr(e, "operation");
		if (m && op && !strcmp(m, manager) && !strcmp(op, operation))
			return e;
	}
	return NULL;
}

/* a map field we own (per managedFields) that desired no longer has: SSA
 * would remove it, so the object needs an apply */
static int owned_field_gone(const cJSON *fields, const cJSON *desired)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *d;
		if (strncmp(f->string, "f:", 2))
			continue; /* ".", "k:", "v:", "i:": list internals */
		d = cJSON_GetObjectItemCaseSensitive(desired, f->string + 2);
		if (!d)
			return 1;
		if (cJSON_IsObject(d) && cJSON_IsObject(f) && f->child &&
		    owned_field_gone(f, d))
			return 1;
	}
	return 0;
}

/* does a fieldsV1 node own named sub-fields ("f:x"), not just itself? */
static int has_field_children(const cJSON *f)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, f)
	{
		if (!strncmp(c->string, "f:", 2))
			return 1;
	}
	return 0;
}

/* fields of desired that `fields` (one manager's fieldsV1) owns and where
 * live differs from desired: appended to *paths as ".a.b" */
static void conflicting_paths(const cJSON *fields, const cJSON *desired,
			      const cJSON *live, struct buf *prefix,
			      struct buf *paths)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *d, *l;
		size_t mark = prefix->len;
		if (strncmp(f->string, "f:", 2))
			continue;
		d = cJSON_GetObjectItemCaseSensitive(desired, f->string + 2);
		if (!d)
			continue;
		l = cJSON_GetObjectItemCaseSensitive(live, f->string + 2);
		buf_addf(prefix, ".%s", f->string + 2);
		if (cJSON_IsObject(d) && has_field_children(f))
			conflicting_paths(f, d, l, prefix, paths);
		else if (cJSON_IsObject(d))
			; /* owns only that the map exists, not its values */
		else if (!subset_equal(d, l))
			buf_addf(paths, "%s%s", paths->len ? ", " : "",
				 buf_cstr(prefix));
		prefix->len = mark;
		prefix->ptr[mark] = '\0';
	}
}

/*
 * classify a conflict: 1 = another Apply manager owns a field we set to a
 * different value (report it), 0 = only imperative edits (drift: take the
 * fields back). *why lists "field (manager)".
 */
static int real_conflict(const cJSON *live, const cJSON *desired,
			 const char *fm, struct buf *why)
{
	const cJSON *e;
	int real = 0;

	cJSON_ArrayForEach(e, jpath(live, "metadata", "managedFields"))
	{
		const char *m = jstr(e, "manager"), *op = jstr(e, "operation");
		struct buf prefix = BUF_INIT, paths = BUF_INIT;
		if (!m || !op || !strcmp(m, fm))
			continue;
		conflicting_paths(jpath(e, "fieldsV1", NULL), desired, live,
				  &prefix, &paths);
		if (paths.len) {
			buf_addf(why, "%sfield%s %s managed by '%s' (%s)",
				 why->len ? "; " : "",
				 strchr(buf_cstr(&paths), ',') ? "s" : "",
				 buf_cstr(&paths), m, op);
			if (!strcmp(op, "Apply"))
				real = 1;
		}
		buf_release(&prefix);
		buf_release(&paths);
	}
	return real;
}

/* strip what the server owns, for equality checks and diffs */
static cJSON *cleaned(const cJSON *o)
{
	cJSON *c = cJSON_Duplicate(o, 1), *md;
	static const char *const drop[] = { "managedFields", "resourceVersion",
					    "uid", "generation",
					    "creationTimestamp", "selfLink",
					    NULL };

	cJSON_DeleteItemFromObjectCaseSensitive(c, "status");
	md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
	for (const char *const *d = drop; *d; d++)
		cJSON_DeleteItemFromObjectCaseSensitive(md, *d);
	cJSON_DeleteItemFromObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(md, "annotations"),
		"kubectl.kubernetes.io/last-applied-configuration");
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(md, "annotations")) == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(md, "annotations");
	return c;
}

static char *diff_text(const cJSON *live, const cJSON *next, const char *label)
{
	struct buf a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	char *la, *lb;

	if (live) {
		cJSON *c = cleaned(live);
		yaml_emit(&a, c, &e);
		cJSON_Delete(c);
	}
	if (next) {
		cJSON *c = cleaned(next);
		yaml_emit(&b, c, &e);
		cJSON_Delete(c);
	}
	la = live ? xasprintf("live/%s", label) : xstrdup("/dev/null");
	lb = xasprintf("desired/%s", label);
	udiff(&out, buf_cstr(&a), buf_cstr(&b), la, lb, 3);
	free(la);
	free(lb);
	buf_release(&a);
	buf_release(&b);
	err_release(&e);
	return out.len ? buf_detach(&out, NULL) : (buf_release(&out), NULL);
}

/* ---- report ---------------------------------------------------------------- */

static struct recon_item *add_item(struct recon_report *rep,
				   const struct ident *id,
				   enum recon_action a, const char *detail)
{
	struct recon_item *it;

	GROW(rep->items, rep->nr + 1, rep->alloc);
	it = &rep->items[rep->nr++];
	memset(it, 0, sizeof(*it));
	it->api_version = xstrdup(id->api_version);
	it->kind = xstrdup(id->kind);
	it->ns = id->ns ? xstrdup(id->ns) : NULL;
	it->name = xstrdup(id->name);
	it->action = a;
	it->detail = detail ? xstrdup(detail) : NULL;
	it->dry = rep->dry_run;
	rep->counts[a]++;
	return it;
}

static void set_action(struct recon_report *rep, struct recon_item *it,
		       enum recon_action a, const char *detail)
{
	rep->counts[it->action]--;
	rep->counts[a]++;
	it->action = a;
	if (detail) {
		free(it->detail);
		it->detail = xstrdup(detail);
	}
}

void recon_report_release(struct recon_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct recon_item *it = &r->items[i];
		free(it->api_version);
		free(it->kind);
		free(it->ns);
		free(it->name);
		free(it->detail);
		free(it->diff);
	}
	free(r->items);
	free(r->cluster);
	free(r->source_commit);
	free(r->inventory);
	memset(r, 0, sizeof(*r));
}

size_t recon_changed(const struct recon_report *r)
{
	return r->counts[RA_CREATED] + r->counts[RA_CONFIGURED] +
	       r->counts[RA_PRUNED];
}

cJSON *recon_report_json(const struct recon_report *r)
{
	cJSON *j = cJSON_CreateObject(), *items, *counts, *req;
	const struct kube_stats *s = &r->stats;

	cJSON_AddStringToObject(j, "cluster", r->cluster ? r->cluster : "");
	cJSON_AddStringToObject(j, "inventory", r->inventory ? r->inventory : "");
	cJSON_AddBoolToObject(j, "dryRun", r->dry_run);
	if (r->source_commit)
		cJSON_AddStringToObject(j, "sourceCommit", r->source_commit);
	counts = cJSON_AddObjectToObject(j, "counts");
	for (int a = 0; a < RA_MAX; a++)
		cJSON_AddNumberToObject(counts, recon_action_names[a],
					(double)r->counts[a]);
	req = cJSON_AddObjectToObject(j, "requests");
	cJSON_AddNumberToObject(req, "total", (double)s->requests);
	cJSON_AddNumberToObject(req, "writes", (double)s->writes);
	cJSON_AddNumberToObject(req, "gets", (double)s->gets);
	cJSON_AddNumberToObject(req, "lists", (double)s->lists);
	cJSON_AddNumberToObject(req, "applies", (double)s->applies);
	cJSON_AddNumberToObject(req, "dryRuns", (double)s->dry_runs);
	cJSON_AddNumberToObject(req, "deletes", (double)s->deletes);
	cJSON_AddNumberToObject(req, "creates", (double)s->creates);
	cJSON_AddNumberToObject(req, "retries", (double)s->retries);
	items = cJSON_AddArrayToObject(j, "items");
	for (size_t i = 0; i < r->nr; i++) {
		const struct recon_item *it = &r->items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "apiVersion", it->api_version);
		cJSON_AddStringToObject(o, "kind", it->kind);
		if (it->ns)
			cJSON_AddStringToObject(o, "namespace", it->ns);
		cJSON_AddStringToObject(o, "name", it->name);
		cJSON_AddStringToObject(o, "result", recon_action_names[it->action]);
		if (it->detail)
			cJSON_AddStringToObject(o, "detail", it->detail);
		if (it->diff)
			cJSON_AddStringToObject(o, "diff", it->diff);
		cJSON_AddItemToArray(items, o);
	}
	return j;
}

/* ---- inventory (ApplySet parent) ------------------------------------------ */

void recon_applyset_id(const char *name, const char *ns, struct buf *out)
{
	char *key = xasprintf("%s.%s.ConfigMap.", name, ns);

	buf_adds(out, "applyset-");
	digest_sha256_b64url(key, strlen(key), out);
	buf_adds(out, "-v1");
	free(key);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct inv_entry {
	char *api_version, *kind, *ns, *name, *uid;
};

struct inventory {
	struct inv_entry *e;
	size_t nr, alloc;
};

/* inv_push: append an entry; callers keep entries unique */
static void inv_push(struct inventory *inv, const struct ident *id,
		     const char *uid)
{
	struct inv_entry *e;

	GROW(inv->e, inv->nr + 1, inv->alloc);
	e = &inv->e[inv->nr++];
	e->api_version = xstrdup(id->api_version);
	e->kind = xstrdup(id->kind);
	e->ns = id->ns ? xstrdup(id->ns) : NULL;
	e->name = xstrdup(id->name);
	e->uid = uid ? xstrdup(uid) : NULL;
}

static void inv_release(struct inventory *inv)
{
	for (size_t i = 0; i < inv->nr; i++) {
		free(inv->e[i].api_version);
		free(inv->e[i].kind);
		free(inv->e[i].ns);
		free(inv->e[i].name);
		free(inv->e[i].uid);
	}
	free(inv->e);
	memset(inv, 0, sizeof(*inv));
}

static void inv_parse(struct inventory *inv, const cJSON *parent)
{
	const char *text = jstr(jpath(parent, "data", NULL), "inventory");
	cJSON *arr = text ? cJSON_Parse(text) : NULL;
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
	{
		struct ident id = { jstr(e, "apiVersion"), jstr(e, "kind"),
				    jstr(e, "namespace"), jstr(e, "name") };
		if (id.api_version && id.kind && id.name)
			inv_push(inv, &id, jstr(e, "uid"));
	}
	cJSON_Delete(arr);
}

static int inv_cmp(const void *a, const void *b)
{
	const struct inv_entry *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);
	if (!c)
		c = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->api_version, y->api_version);
	return c;
}

/* apply order of inventory entries (prune walks it backwards) */
static int inv_apply_order(const void *a, const void *b)
{
	const struct inv_entry *x = a, *y = b;
	int ra = render_kind_rank(x->kind), rb = render_kind_rank(y->kind);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return inv_cmp(a, b);
}

static cJSON *parent_object(struct run *r, const char *cluster,
			    struct inventory *inv, const char *name)
{
	cJSON *p = cJSON_CreateObject(), *md, *l, *a, *data, *arr;
	struct buf gks = BUF_INIT, nss = BUF_INIT;
	char *text, *tool;

	if (inv->nr > 1)
		qsort(inv->e, inv->nr, sizeof(*inv->e), inv_cmp);
	cJSON_AddStringToObject(p, "apiVersion", "v1");
	cJSON_AddStringToObject(p, "kind", "ConfigMap");
	md = cJSON_AddObjectToObject(p, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(md, "namespace", r->o->inventory_ns);
	l = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "gpuform");
	cJSON_AddStringToObject(l, "applyset.kubernetes.io/id", r->applyset_id);
	cJSON_AddStringToObject(l, "gpuform.io/cluster", cluster);
	a = cJSON_AddObjectToObject(md, "annotations");
	/* contains-group-kinds: "<Kind>.<group>" (core: "<Kind>"), sorted */
	{
		char **list = xcalloc(inv->nr + 1, sizeof(char *));
		size_t n = 0;
		for (size_t i = 0; i < inv->nr; i++) {
			char g[128];
			const char *grp = group_of(inv->e[i].api_version, g, sizeof(g));
			char *gk = *grp ? xasprintf("%s.%s", inv->e[i].kind, grp)
					: xstrdup(inv->e[i].kind);
			int dup = 0;
			for (size_t j = 0; j < n; j++)
				dup |= !strcmp(list[j], gk);
			if (dup)
				free(gk);
			else
				list[n++] = gk;
		}
		qsort(list, n, sizeof(char *), str_cmp);
		for (size_t i = 0; i < n; i++) {
			buf_addf(&gks, "%s%s", i ? "," : "", list[i]);
			free(list[i]);
		}
		free(list);
	}
	{
		char **list = xcalloc(inv->nr + 1, sizeof(char *));
		size_t n = 0;
		for (size_t i = 0; i < inv->nr; i++) {
			int dup = 0;
			if (!inv->e[i].ns || !strcmp(inv->e[i].ns, r->o->inventory_ns))
				continue;
			for (size_t j = 0; j < n; j++)
				dup |= !strcmp(list[j], inv->e[i].ns);
			if (!dup)
				list[n++] = inv->e[i].ns;
		}
		qsort(list, n, sizeof(char *), str_cmp);
		for (size_t i = 0; i < n; i++)
			buf_addf(&nss, "%s%s", i ? "," : "", list[i]);
		free(list);
	}
	cJSON_AddStringToObject(a, "applyset.kubernetes.io/additional-namespaces",
				buf_cstr(&nss));
	cJSON_AddStringToObject(a, "applyset.kubernetes.io/contains-group-kinds",
				buf_cstr(&gks));
	tool = xasprintf("gpuform/v%s", GPUFORM_VERSION);
	cJSON_AddStringToObject(a, "applyset.kubernetes.io/tooling", tool);
	free(tool);
	data = cJSON_AddObjectToObject(p, "data");
	arr = cJSON_CreateArray();
	for (size_t i = 0; i < inv->nr; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "apiVersion", inv->e[i].api_version);
		cJSON_AddStringToObject(e, "kind", inv->e[i].kind);
		if (inv->e[i].ns)
			cJSON_AddStringToObject(e, "namespace", inv->e[i].ns);
		cJSON_AddStringToObject(e, "name", inv->e[i].name);
		if (inv->e[i].uid)
			cJSON_AddStringToObject(e, "uid", inv->e[i].uid);
		cJSON_AddItemToArray(arr, e);
	}
	text = cJSON_PrintUnformatted(arr);
	cJSON_AddStringToObject(data, "inventory", text);
	cJSON_free(text);
	cJSON_Delete(arr);
	if (r->o->source)
		cJSON_AddStringToObject(data, "source", r->o->source);
	if (r->o->source_commit)
		cJSON_AddStringToObject(data, "sourceCommit", r->o->source_commit);
	buf_release(&gks);
	buf_release(&nss);
	return p;
}

/* write the parent unless the live one already says the same */
static int write_parent(struct run *r, const struct kube_resource *cm,
			const cJSON *live_parent, cJSON *parent)
{
	if (live_parent && subset_equal(parent, live_parent))
		return 0;
	return kube_apply(r->k, cm, parent, r->o->field_manager, 1, 0, NULL,
			  r->err);
}

/* ---- the run --------------------------------------------------------------- */


static const cJSON *find_live(const cJSON *live, const struct ident *id)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, live)
	{
		struct ident x;
		ident_of(o, &x);
		if (x.api_version && x.kind && x.name && same_object(&x, id))
			return o;
	}
	return NULL;
}

/* what the guard needs of a pruned object: its gpuform.io/ annotations
 * (interruption, maintenance window) */
static void keep_gpuform_annotations(cJSON *md, const cJSON *o)
{
	const cJSON *a;
	cJSON *keep = NULL;

	cJSON_ArrayForEach(a, jpath(o, "metadata", "annotations")) {
		if (!cJSON_IsString(a) || strncmp(a->string, "gpuform.io/", 11))
			continue;
		if (!keep)
			keep = cJSON_AddObjectToObject(md, "annotations");
		cJSON_AddStringToObject(keep, a->string, a->valuestring);
	}
}

/*
 * list_in_namespaces: LIST a namespaced kind in each namespace the desired
 * set or the old inventory has objects of it in — for credentials that may
 * touch the kind only there (`gpuform install` grants the ConfigMaps it
 * renders in kube-system only), when the LIST across all namespaces is
 * forbidden.
 */
static int list_in_namespaces(struct run *r, const struct kube_resource *res,
			      const char *kind, const struct inventory *old,
			      const char *sel, cJSON **items)
{
	const char **nss = xcalloc(r->nw + old->nr + 1, sizeof(*nss));
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; i < r->nw + old->nr; i++) {
		const char *k = i < r->nw ? r->w[i].id.kind : old->e[i - r->nw].kind;
		const char *ns = i < r->nw ? r->w[i].id.ns : old->e[i - r->nw].ns;
		int dup = 0;
		if (!ns || strcmp(k, kind))
			continue;
		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(nss[j], ns);
		if (!dup)
			nss[n++] = ns;
	}
	*items = cJSON_CreateArray();
	for (size_t i = 0; i < n && ret == 0; i++) {
		cJSON *part = NULL, *o;
		ret = kube_list(r->k, res, nss[i], sel, &part, r->err);
		while (ret == 0 && (o = cJSON_DetachItemFromArray(part, 0)))
			cJSON_AddItemToArray(*items, o);
		cJSON_Delete(part);
	}
	free(nss);
	if (ret < 0) {
		cJSON_Delete(*items);
		*items = NULL;
	}
	return ret;
}

static int list_kind(struct run *r, const char *api_version,
		     const char *kind, const struct inventory *old)
{
	const struct kube_resource *res;
	cJSON *items = NULL, *o;
	char *sel;
	int ret;

	if (resource_of(r, api_version, kind, &res) < 0)
		return -1;
	sel = xasprintf("%s=%s", PART_OF, r->applyset_id);
	ret = kube_list(r->k, res, NULL, sel, &items, r->err);
	if (ret < 0 && r->err->code == ERR_AUTH && res->namespaced) {
		err_clear(r->err);
		ret = list_in_namespaces(r, res, kind, old, sel, &items);
	}
	free(sel);
	if (ret < 0) {
		if (r->err->code == ERR_NOTFOUND ||
		    strstr(err_msg(r->err), "404"))
			return explain_missing(r, api_version, kind);
		return -1;
	}
	while ((o = cJSON_DetachItemFromArray(items, 0))) {
		struct ident id;
		long wi;
		ident_of(o, &id);
		if (!id.api_version || !id.kind || !id.name) {
			cJSON_Delete(o);
			continue;
		}
		wi = want_find(r, &id);
		if (wi >= 0) {
			struct want *x = &r->w[wi];
			const cJSON *mine = managed_entry(o, r->o->field_manager, "Apply");
			const char *uid = jstr(jpath(o, "metadata", NULL), "uid");
			free(x->uid);
			x->uid = uid ? xstrdup(uid) : NULL;
			if (subset_equal(x->obj, o) &&
			    !(mine && owned_field_gone(jpath(mine, "fieldsV1", NULL),
						       x->obj))) {
				x->state = LIVE_EQUAL;
				cJSON_Delete(o);
			} else {
				x->state = LIVE_DIFFERENT;
				x->live = o;
				cJSON_AddItemToArray(r->live, o);
			}
			continue;
		}
		/* not desired: keep what a prune needs to know */
		{
			cJSON *stub = cJSON_CreateObject(), *md;
			const char *uid = jstr(jpath(o, "metadata", NULL), "uid");
			cJSON_AddStringToObject(stub, "apiVersion", id.api_version);
			cJSON_AddStringToObject(stub, "kind", id.kind);
			md = cJSON_AddObjectToObject(stub, "metadata");
			cJSON_AddStringToObject(md, "name", id.name);
			if (id.ns)
				cJSON_AddStringToObject(md, "namespace", id.ns);
			if (uid)
				cJSON_AddStringToObject(md, "uid", uid);
			keep_gpuform_annotations(md, o);
			cJSON_AddItemToArray(r->live, stub);
		}
		cJSON_Delete(o);
	}
	cJSON_Delete(items);
	return 0;
}

static int check_desired(struct want *w, size_t n, struct err *err)
{
	struct buf bad = BUF_INIT;
	int nbad = 0;
	struct diags d = DIAGS_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct ident *id = &w[i].id;
		if (!id->api_version || !id->kind || !id->name ||
		    !valid_name(id->name) || (id->ns && !valid_name(id->ns))) {
			buf_addf(&bad, "%sobject %zu (%s %s) has no valid apiVersion, "
				       "kind and metadata.name",
				 nbad ? "; " : "", i + 1,
				 id->kind ? id->kind : "?",
				 id->name ? id->name : "?");
			nbad++;
			continue;
		}
		/* the CRDs' CEL rules, which a server without CEL skips */
		{
			char *where = xasprintf("%s/%s", id->kind, id->name);
			size_t before = d.nr;
			if (check_object(w[i].obj, where, &d)) {
				for (size_t e = before; e < d.nr; e++)
					buf_addf(&bad, "%s%s: %s", nbad++ ? "; " : "",
						 where, d.items[e].msg);
			}
			free(where);
		}
	}
	diags_release(&d);
	if (nbad) {
		err_set(err, ERR_INVALID, "%s; nothing was applied", buf_cstr(&bad));
		buf_release(&bad);
		return -1;
	}
	return 0;
}

static void label_member(cJSON *obj, const char *id)
{
	cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	cJSON *l = cJSON_GetObjectItemCaseSensitive(md, "labels");

	if (!md)
		md = cJSON_AddObjectToObject(obj, "metadata");
	if (!l)
		l = cJSON_AddObjectToObject(md, "labels");
	cJSON_DeleteItemFromObjectCaseSensitive(l, PART_OF);
	cJSON_AddStringToObject(l, PART_OF, id);
}

/* items planned as created/configured that were not written after all */
static void unplan(struct recon_report *rep, struct want *w, size_t n,
		   size_t from, const char *why)
{
	for (size_t i = from; i < n; i++) {
		struct recon_item *it = &rep->items[w[i].item];
		if (w[i].needs_write && (it->action == RA_CREATED ||
					 it->action == RA_CONFIGURED))
			set_action(rep, it, RA_SKIPPED, why);
	}
}

static int is_namespace(const struct ident *id)
{
	return !strcmp(id->kind, "Namespace") && !strcmp(id->api_version, "v1");
}

int recon_run(struct recon_report *out, struct kube *k, const char *cluster,
	      cJSON *desired, const struct recon_opts *opts, struct err *err)
{
	struct recon_opts o = *opts;
	struct run r;
	struct recon_report *rep = out;
	struct want *w = NULL;
	size_t n = (size_t)cJSON_GetArraySize(desired), i;
	struct buf b = BUF_INIT;
	char *parent_name = NULL;
	const struct kube_resource *cm_res;
	cJSON *live_parent = NULL, *parent = NULL, *o_it;
	struct inventory old = { 0 }, next = { 0 };
	struct kube_stats before = *kube_get_stats(k);
	int ret = -1, conflicts = 0, failures = 0;
	char *first_fail = NULL; /* the first prune failure's message */

	if (!o.field_manager)
		o.field_manager = RECON_FIELD_MANAGER;
	if (!o.inventory_ns)
		o.inventory_ns = RECON_INVENTORY_NS;
	memset(&r, 0, sizeof(r));
	r.k = k;
	r.o = &o;
	r.rep = rep;
	r.err = err;
	r.live = cJSON_CreateArray();
	rep->cluster = xstrdup(cluster);
	rep->dry_run = o.dry_run;
	if (o.source_commit)
		rep->source_commit = xstrdup(o.source_commit);

	parent_name = xasprintf("gpuform-%s", cluster);
	rep->inventory = xasprintf("%s/%s", o.inventory_ns, parent_name);
	recon_applyset_id(parent_name, o.inventory_ns, &b);
	r.applyset_id = buf_detach(&b, NULL);

	/* 1. identify and check everything before any request */
	w = xcalloc(n ? n : 1, sizeof(*w));
	i = 0;
	cJSON_ArrayForEach(o_it, desired)
	{
		w[i].obj = o_it;
		ident_of(o_it, &w[i].id);
		i++;
	}
	if (check_desired(w, n, err) < 0)
		goto out;
	if (n == 0 && !o.force_prune) {
		err_set(err, ERR_INVALID,
			"the desired set is empty: refusing to reconcile (and "
			"possibly prune) everything away; pass --force-prune if "
			"that is really meant");
		goto out;
	}
	/* apply order: Namespaces first, ... LocalQueues last */
	for (size_t x = 1; x < n; x++)
		for (size_t y = x; y > 0 && render_doc_cmp(w[y - 1].obj, w[y].obj) > 0; y--) {
			struct want t = w[y];
			w[y] = w[y - 1];
			w[y - 1] = t;
		}
	for (i = 0; i < n; i++) {
		label_member(w[i].obj, r.applyset_id);
		ident_of(w[i].obj, &w[i].id); /* pointers may have moved */
		if (resource_of(&r, w[i].id.api_version, w[i].id.kind, &w[i].res) < 0)
			goto out;
	}
	r.w = w;
	r.nw = n;
	if (index_wants(&r, err) < 0)
		goto out;

	/* 2. inventory and one LIST per kind */
	if (resource_of(&r, "v1", "ConfigMap", &cm_res) < 0 ||
	    kube_get(k, cm_res, o.inventory_ns, parent_name, &live_parent, err) < 0)
		goto out;
	if (live_parent) {
		const char *tool = jstr(jpath(live_parent, "metadata", "annotations"),
					"applyset.kubernetes.io/tooling");
		if (tool && strncmp(tool, "gpuform/", 8)) {
			err_set(err, ERR_CONFLICT,
				"inventory %s belongs to '%s', not gpuform; "
				"refusing to take it over",
				rep->inventory, tool);
			goto out;
		}
		inv_parse(&old, live_parent);
	}
	{
		/* kinds of the desired set and of the old inventory */
		char **kinds = NULL;
		size_t nk = 0, ka = 0;
		for (i = 0; i < n + old.nr; i++) {
			const char *av = i < n ? w[i].id.api_version : old.e[i - n].api_version;
			const char *kd = i < n ? w[i].id.kind : old.e[i - n].kind;
			char *key = xasprintf("%s %s", av, kd);
			int dup = 0;
			for (size_t j = 0; j < nk; j++)
				dup |= !strcmp(kinds[j], key);
			if (dup) {
				free(key);
				continue;
			}
			GROW(kinds, nk + 1, ka);
			kinds[nk++] = key;
		}
		for (i = 0; i < nk; i++) {
			char *sp = strchr(kinds[i], ' ');
			int rc;
			*sp = '\0';
			rc = list_kind(&r, kinds[i], sp + 1, &old);
			if (rc < 0) {
				for (size_t j = 0; j < nk; j++)
					free(kinds[j]);
				free(kinds);
				goto out;
			}
		}
		for (i = 0; i < nk; i++)
			free(kinds[i]);
		free(kinds);
	}

	/* 3. compare */
	for (i = 0; i < n; i++) {
		struct want *x = &w[i];
		add_item(rep, &x->id, RA_UNCHANGED, NULL);
		x->item = rep->nr - 1;
		if (x->state == LIVE_EQUAL)
			continue;
		x->needs_write = 1;
		set_action(rep, &rep->items[x->item],
			   x->state == LIVE_ABSENT ? RA_CREATED : RA_CONFIGURED,
			   NULL);
	}
	/* namespaces this run creates: their members cannot be dry-run yet */
	for (i = 0; i < n; i++) {
		struct ident nsid = { "v1", "Namespace", NULL, w[i].id.ns };
		long j;
		if (!w[i].needs_write || !w[i].id.ns)
			continue;
		j = want_find(&r, &nsid);
		if (j >= 0 && w[j].state == LIVE_ABSENT)
			w[i].skip_dry_run = 1;
	}

	/* 4. dry-run every write; nothing is written unless all succeed */
	for (i = 0; i < n; i++) {
		struct want *x = &w[i];
		cJSON *result = NULL;
		struct err e = ERR_INIT;

		if (!x->needs_write)
			continue;
		if (x->skip_dry_run) {
			if (o.want_diffs) {
				struct buf lbl = BUF_INIT;
				ident_display(&x->id, &lbl);
				rep->items[x->item].diff = diff_text(NULL, x->obj, buf_cstr(&lbl));
				buf_release(&lbl);
			}
			continue;
		}
		x->force = o.force_conflicts;
		if (kube_apply(k, x->res, x->obj, o.field_manager, x->force, 1,
			       &result, &e) < 0 && e.code == ERR_CONFLICT) {
			struct buf why = BUF_INIT;
			if (real_conflict(x->live, x->obj, o.field_manager, &why)) {
				set_action(rep, &rep->items[x->item], RA_CONFLICT,
					   why.len ? buf_cstr(&why) : err_msg(&e));
				conflicts++;
				buf_release(&why);
				err_release(&e);
				continue;
			}
			/* imperative edits only: drift, take the fields back */
			buf_release(&why);
			err_clear(&e);
			x->force = 1;
			kube_apply(k, x->res, x->obj, o.field_manager, 1, 1,
				   &result, &e);
		}
		if (e.code != ERR_NONE) {
			if (e.code == ERR_AUTH || e.code == ERR_HTTP ||
			    e.code == ERR_IO) {
				/* the API failed, not the object: stop */
				set_action(rep, &rep->items[x->item], RA_FAILED,
					   err_msg(&e));
				if (!o.dry_run)
					unplan(rep, w, n, 0, "not applied: the run "
							     "stopped before writing "
							     "anything");
				err_release(err);
				*err = e;
				goto out;
			}
			set_action(rep, &rep->items[x->item], RA_FAILED, err_msg(&e));
			failures++;
			err_release(&e);
			continue;
		}
		err_release(&e);
		if (x->live && result) {
			cJSON *a = cleaned(x->live), *bb = cleaned(result);
			int same = subset_equal(bb, a) && subset_equal(a, bb);
			cJSON_Delete(a);
			cJSON_Delete(bb);
			if (same) {
				/* only normalisation differed: nothing to write */
				x->needs_write = 0;
				set_action(rep, &rep->items[x->item], RA_UNCHANGED, NULL);
				cJSON_Delete(result);
				continue;
			}
		}
		if (o.want_diffs) {
			struct buf lbl = BUF_INIT;
			ident_display(&x->id, &lbl);
			rep->items[x->item].diff = diff_text(x->live, result ? result : x->obj,
						  buf_cstr(&lbl));
			buf_release(&lbl);
		}
		/* the guard classifies changes: only a changed Karpenter
		 * object's server-side result matters to it (the rest follows
		 * from the kind), and keeping every result costs memory */
		if (o.guard && x->live && impact_relevant(x->obj))
			x->next = result;
		else
			cJSON_Delete(result);
	}
	if (conflicts || failures) {
		if (!o.dry_run)
			unplan(rep, w, n, 0, "not applied: the run stopped "
					     "before writing anything");
		err_set(err, conflicts ? ERR_CONFLICT : ERR_INVALID,
			"%d conflict%s, %d rejected object%s; nothing was applied%s",
			conflicts, conflicts == 1 ? "" : "s", failures,
			failures == 1 ? "" : "s",
			conflicts ? " (use --force-conflicts to take the fields over)"
				  : "");
		goto out;
	}

	/* prune candidates: in the old inventory, not desired */
	{
		size_t stale = 0;
		for (i = 0; i < old.nr; i++) {
			struct ident oid = { old.e[i].api_version, old.e[i].kind,
					     old.e[i].ns, old.e[i].name };
			int wanted = want_find(&r, &oid) >= 0;
			if (!wanted)
				stale++;
		}
		if (o.prune && !o.force_prune && old.nr && stale * 2 > old.nr) {
			err_set(err, ERR_INVALID,
				"pruning would remove %zu of the %zu objects in the "
				"inventory (more than half); refusing — pass "
				"--force-prune if that is really meant",
				stale, old.nr);
			goto out;
		}
	}

	/* the caller's last word, before anything is written */
	if (o.guard) {
		struct recon_change *ch = NULL;
		size_t nc = 0, ac = 0;
		int rc;
		for (i = 0; i < n; i++) {
			if (!w[i].needs_write)
				continue;
			GROW(ch, nc + 1, ac);
			ch[nc].live = w[i].live;
			ch[nc++].next = w[i].next ? w[i].next : w[i].obj;
		}
		for (i = 0; o.prune && i < old.nr; i++) {
			struct ident oid = { old.e[i].api_version, old.e[i].kind,
					     old.e[i].ns, old.e[i].name };
			const cJSON *live = find_live(r.live, &oid);
			if (want_find(&r, &oid) >= 0 || !live ||
			    (is_namespace(&oid) && !o.prune_namespaces))
				continue;
			GROW(ch, nc + 1, ac);
			ch[nc].live = live;
			ch[nc++].next = NULL;
		}
		rc = o.guard(o.guard_ctx, k, ch, nc, err);
		free(ch);
		if (rc < 0) {
			if (!o.dry_run)
				unplan(rep, w, n, 0, "not applied: held back "
						     "before any write");
			goto out;
		}
	}

	if (o.dry_run) {
		/* report what prune would do, then stop */
		for (i = 0; i < old.nr; i++) {
			struct ident oid = { old.e[i].api_version, old.e[i].kind,
					     old.e[i].ns, old.e[i].name };
			int wanted = want_find(&r, &oid) >= 0;
			if (wanted || !find_live(r.live, &oid))
				continue;
			if (o.prune && (!is_namespace(&oid) || o.prune_namespaces))
				add_item(rep, &oid, RA_PRUNED, NULL);
			else
				add_item(rep, &oid, RA_SKIPPED,
					 o.prune ? "namespaces are pruned only with --prune-namespaces"
						 : "not in the desired set (use --prune)");
		}
		ret = 0;
		goto out;
	}

	/* 5. write: inventory superset first, so a crash loses nothing */
	for (i = 0; i < old.nr; i++) {
		struct ident oid = { old.e[i].api_version, old.e[i].kind,
				     old.e[i].ns, old.e[i].name };
		if (want_find(&r, &oid) < 0)
			inv_push(&next, &oid, old.e[i].uid);
	}
	for (i = 0; i < n; i++)
		inv_push(&next, &w[i].id, w[i].uid);
	{
		int any = 0;
		for (i = 0; i < n; i++)
			any |= w[i].needs_write;
		if (!live_parent || any) {
			if (!live_parent) {
				cJSON *ns = cJSON_CreateObject();
				const struct kube_resource *ns_res;
				cJSON_AddStringToObject(ns, "apiVersion", "v1");
				cJSON_AddStringToObject(ns, "kind", "Namespace");
				cJSON_AddStringToObject(cJSON_AddObjectToObject(ns, "metadata"),
							"name", o.inventory_ns);
				if (resource_of(&r, "v1", "Namespace", &ns_res) < 0 ||
				    kube_apply(k, ns_res, ns, o.field_manager, 1, 0,
					       NULL, err) < 0) {
					cJSON_Delete(ns);
					goto out;
				}
				cJSON_Delete(ns);
			}
			parent = parent_object(&r, cluster, &next, parent_name);
			if (write_parent(&r, cm_res, live_parent, parent) < 0)
				goto out;
			cJSON_Delete(live_parent);
			live_parent = parent;
			parent = NULL;
		}
	}
	for (i = 0; i < n; i++) {
		struct want *x = &w[i];
		cJSON *result = NULL;
		const char *uid;
		if (!x->needs_write)
			continue;
		if (kube_apply(k, x->res, x->obj, o.field_manager, x->force, 0,
			       &result, err) < 0) {
			set_action(rep, &rep->items[x->item], RA_FAILED, err_msg(err));
			unplan(rep, w, n, i + 1, "not applied: the run stopped at "
						 "an earlier error");
			goto out;
		}
		uid = jstr(jpath(result, "metadata", NULL), "uid");
		free(x->uid);
		x->uid = uid ? xstrdup(uid) : NULL;
		cJSON_Delete(result);
	}

	/* 6. prune last, in reverse dependency order */
	{
		struct inventory final = { 0 };
		if (old.nr > 1)
			qsort(old.e, old.nr, sizeof(*old.e), inv_apply_order);
		for (i = 0; i < n; i++)
			inv_push(&final, &w[i].id, w[i].uid);
		for (size_t m = old.nr; m-- > 0;) {
			struct inv_entry *e = &old.e[m];
			struct ident oid = { e->api_version, e->kind, e->ns, e->name };
			const cJSON *live;
			const char *luid;
			const struct kube_resource *res;
			int wanted = want_find(&r, &oid) >= 0, deleted = 0;
			struct err de = ERR_INIT;

			if (wanted)
				continue;
			live = find_live(r.live, &oid);
			if (!live)
				continue; /* gone, or no longer ours: forget it */
			luid = jstr(jpath(live, "metadata", NULL), "uid");
			if (!o.prune || (is_namespace(&oid) && !o.prune_namespaces)) {
				add_item(rep, &oid, RA_SKIPPED,
					 o.prune ? "namespaces are pruned only with --prune-namespaces"
						 : "not in the desired set (use --prune)");
				inv_push(&final, &oid, e->uid);
				continue;
			}
			if (e->uid && luid && strcmp(e->uid, luid)) {
				add_item(rep, &oid, RA_SKIPPED,
					 "recreated by someone else (UID changed); not pruned");
				continue;
			}
			if (resource_of(&r, e->api_version, e->kind, &res) < 0 ||
			    kube_delete(k, res, e->ns, e->name, luid, NULL, 0, &deleted,
					&de) < 0) {
				add_item(rep, &oid, RA_FAILED, err_msg(&de));
				inv_push(&final, &oid, e->uid); /* retry next run */
				if (!failures++)
					first_fail = xstrdup(err_msg(&de));
				err_release(&de);
				continue;
			}
			err_release(&de);
			add_item(rep, &oid, RA_PRUNED, NULL);
		}
		parent = parent_object(&r, cluster, &final, parent_name);
		inv_release(&final);
		if (write_parent(&r, cm_res, live_parent, parent) < 0)
			goto out;
	}
	if (failures) {
		err_set(err, ERR_HTTP, "%d object%s could not be pruned (first: "
				       "%s); they stay in the inventory for the "
				       "next run",
			failures, failures == 1 ? "" : "s",
			first_fail ? first_fail : "?");
		goto out;
	}
	ret = 0;
out:
	{
		const struct kube_stats *now = kube_get_stats(k);
		rep->stats.requests = now->requests - before.requests;
		rep->stats.gets = now->gets - before.gets;
		rep->stats.lists = now->lists - before.lists;
		rep->stats.applies = now->applies - before.applies;
		rep->stats.dry_runs = now->dry_runs - before.dry_runs;
		rep->stats.deletes = now->deletes - before.deletes;
		rep->stats.creates = now->creates - before.creates;
		rep->stats.others = now->others - before.others;
		rep->stats.writes = now->writes - before.writes;
		rep->stats.retries = now->retries - before.retries;
	}
	for (i = 0; w && i < n; i++) {
		free(w[i].uid);
		free(w[i].key);
		cJSON_Delete(w[i].next);
	}
	free(r.slots);
	free(w);
	inv_release(&old);
	inv_release(&next);
	cJSON_Delete(live_parent);
	cJSON_Delete(parent);
	cJSON_Delete(r.live);
	for (i = 0; i < r.ntypes; i++) {
		free(r.types[i]->api_version);
		free(r.types[i]->kind);
		free(r.types[i]->res.group);
		free(r.types[i]->res.version);
		free(r.types[i]->res.kind);
		free(r.types[i]->res.resource);
		free(r.types[i]);
	}
	free(r.types);
	free(r.applyset_id);
	free(first_fail);
	free(parent_name);
	buf_release(&b);
	return ret;
}
