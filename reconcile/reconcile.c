/*
 * reconcile/reconcile.c: desired objects vs the live cluster (see
 * reconcile.h). Talks to the API only through kube.h.
 */
#include "reconcile/reconcile.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator/crdrules.h"
#include "generator/kobj.h"
#include "generator/render.h"
#include "util/yaml.h"
#include "util/base64.h"
#include "util/digest.h"
#include "util/json.h"
#include "generator/impact.h"
#include "reconcile/owner.h"
#include "util/udiff.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define PART_OF "applyset.kubernetes.io/part-of"
/* a stub of a labelled object we do not want: our manager applied the
 * label (owner_applied_label); not a Kubernetes field */
#define STUB_APPLIED "gpuformAppliedLabel"

const char *const recon_action_names[] = { "unchanged", "created",
					   "configured", "pruned",
					   "conflict", "failed", "skipped" };

/* ---- identities ---------------------------------------------------------- */

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

/* ---- resources: the kinds gpuform renders (generator/kobj.h) need no
 * discovery request, so a no-op run makes none ------------------------------ */

static size_t known_count(void)
{
	size_t n = 0;

	while (kobj_kinds[n].kind)
		n++;
	return n;
}
#define NKNOWN known_count()

enum live_state { LIVE_ABSENT, LIVE_EQUAL, LIVE_DIFFERENT };
struct stale;

struct want {
	cJSON *obj; /* borrowed from desired */
	struct kobj_id id;
	char *key;  /* identity key, see kobj_key() */
	const struct kube_resource *res;
	enum live_state state;
	const cJSON *live; /* kept only when it differs (dry run, diff) */
	cJSON *next; /* the dry run's result, kept for the guard */
	size_t item; /* index into rep->items (the array grows) */
	int needs_write;
	int force;
	int skip_dry_run; /* its namespace is created in this run */
	int exists;       /* the object exists on the server */
	enum owner_class cls; /* who owns it (when it exists) */
	enum owner_write ow;
	const char *shared_with; /* OW_SHARE: the owner cluster (in live) */
	char *uid;
};

struct inv_entry {
	struct kobj_id id; /* owned (kobj_id_copy) */
	char *uid;
	char *shared; /* shared object: the gpuform cluster that owns it */
	char *proof;  /* ownership proof (owner_proof), or NULL */
};

struct inventory {
	struct inv_entry *e;
	size_t nr, alloc;
	char **keys;   /* index: identity key per entry (inv_index) */
	size_t *slots; /* open addressing: entry index + 1, 0 = empty */
	size_t cap;
};

struct rtype {
	char *api_version, *kind;
	struct kube_resource res; /* owned copy */
	int static_entry;         /* from kobj_kinds: verify on 404 */
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
	struct inventory *old; /* the inventory as read */
	size_t labelled; /* objects found with our part-of label */

	/* the run's state, phase to phase (recon_run) */
	struct recon_opts opts;   /* o points here: defaults filled in */
	const char *cluster;
	char *parent_name;        /* gpuform-<cluster> */
	const struct kube_resource *cm_res;
	cJSON *live_parent;       /* the inventory ConfigMap as last read */
	int inventory_missing;    /* none, or created bare and never filled */
	struct inventory inv_old, next, others;
	struct stale *st;         /* prune candidates (planned) */
	size_t nst;
	size_t held;              /* changes the guard held back */
	int conflicts, owner_conflicts, failures;
	char *first_fail;         /* the first prune failure's message */
	char *damaged_other;      /* another inventory that cannot be read */
	struct kube_stats before; /* the client's counters at the start */
	/* the ownership key (owner.h): read when a proof is checked or
	 * written; created by the first run that writes a proof */
	enum { KEY_UNREAD, KEY_OK, KEY_MISSING, KEY_UNREADABLE } key_state;
	unsigned char key[OWNER_KEY_LEN];
	char *key_why;         /* KEY_UNREADABLE: why */
	size_t unsigned_nr;    /* entries written without a proof (no key) */
	struct buf labelled_list; /* objects labelled for us (no inventory) */
	/* the superset did not fit in one ConfigMap: the entries being added
	 * are in the ConfigMap <parent>-pending, which the parent's
	 * PENDING_NOTE annotation names until the final write */
	int pending_on;    /* write the annotation with the parent */
	int pending_seen;  /* a pending part exists (read or written) */
};

#define PENDING_NOTE "gpuform.io/pending-inventory"

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

static long want_find(const struct run *r, const struct kobj_id *id)
{
	struct buf k = BUF_INIT;
	long i;

	kobj_key(id, &k);
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
		kobj_key(&r->w[i].id, &k);
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
	const struct kobj_kind *known;
	struct rtype *t;
	const char *slash;

	for (size_t i = 0; i < r->ntypes; i++)
		if (!strcmp(r->types[i]->api_version, api_version) &&
		    !strcmp(r->types[i]->kind, kind)) {
			*out = &r->types[i]->res;
			return 0;
		}
	t = xcalloc(1, sizeof(*t));
	if ((known = kobj_kind_find(api_version, kind))) {
		t->res.resource = xstrdup(known->resource);
		t->res.namespaced = known->ns != NULL;
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
	t->res.group = kobj_group_dup(api_version);
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
/*
 * served_version: the apiVersion to reach an inventory entry's group/kind
 * through. Its own when the server serves it; else (a CRD version that was
 * dropped) the desired set's version of the same group and kind, or the
 * one gpuform renders (kobj_kinds), if served: an object is one object at
 * every version. NULL when none is served (r->err cleared).
 */
static const char *served_version(struct run *r, const char *av,
				  const char *kind)
{
	const struct kube_resource *res;
	size_t gl = kobj_group_len(av);

	if (resource_of(r, av, kind, &res) == 0)
		return av;
	err_clear(r->err);
	for (size_t i = 0; i < r->nw + NKNOWN; i++) {
		const char *v = i < r->nw ? r->w[i].id.api_version
					  : kobj_kinds[i - r->nw].api_version;
		const char *k = i < r->nw ? r->w[i].id.kind
					  : kobj_kinds[i - r->nw].kind;
		if (strcmp(k, kind) || !strcmp(v, av) ||
		    kobj_group_len(v) != gl || memcmp(v, av, gl))
			continue;
		if (resource_of(r, v, k, &res) == 0)
			return v;
		err_clear(r->err);
	}
	return NULL;
}

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

	cJSON_ArrayForEach(e, json_at(live, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
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

	cJSON_ArrayForEach(e, json_at(live, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
		struct buf prefix = BUF_INIT, paths = BUF_INIT;
		if (!m || !op || !strcmp(m, fm))
			continue;
		conflicting_paths(json_at(e, "fieldsV1", NULL), desired, live,
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
				   const struct kobj_id *id,
				   enum recon_action a, const char *detail)
{
	struct recon_item *it;

	GROW(rep->items, rep->nr + 1, rep->alloc);
	it = &rep->items[rep->nr++];
	memset(it, 0, sizeof(*it));
	kobj_id_copy(&it->id, id);
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
		kobj_id_clear(&it->id);
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
		cJSON_AddStringToObject(o, "apiVersion", it->id.api_version);
		cJSON_AddStringToObject(o, "kind", it->id.kind);
		if (it->id.ns)
			cJSON_AddStringToObject(o, "namespace", it->id.ns);
		cJSON_AddStringToObject(o, "name", it->id.name);
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


static void inv_unindex(struct inventory *inv);

/* inv_push: append an entry; callers keep entries unique. The index is
 * dropped: inv_index() builds it again when needed */
static void inv_push(struct inventory *inv, const struct kobj_id *id,
		     const char *uid, const char *shared, const char *proof)
{
	struct inv_entry *e;

	if (inv->slots && (inv->nr + 1) * 2 + 1 > inv->cap)
		inv_unindex(inv); /* rebuilt larger on the next inv_find */
	GROW(inv->e, inv->nr + 1, inv->alloc);
	e = &inv->e[inv->nr++];
	kobj_id_copy(&e->id, id);
	e->uid = uid && *uid ? xstrdup(uid) : NULL;
	e->shared = shared ? xstrdup(shared) : NULL;
	e->proof = proof && *proof ? xstrdup(proof) : NULL;
	if (inv->slots) {
		struct buf k = BUF_INIT;
		size_t h, i = inv->nr - 1;
		kobj_key(id, &k);
		inv->keys[i] = buf_detach(&k, NULL);
		for (h = key_hash(inv->keys[i]) & (inv->cap - 1); inv->slots[h];
		     h = (h + 1) & (inv->cap - 1))
			;
		inv->slots[h] = i + 1;
	}
}

static void inv_unindex(struct inventory *inv)
{
	for (size_t i = 0; inv->keys && i < inv->cap; i++)
		free(inv->keys[i]);
	free(inv->keys);
	free(inv->slots);
	inv->keys = NULL;
	inv->slots = NULL;
	inv->cap = 0;
}

static void inv_release(struct inventory *inv)
{
	inv_unindex(inv);
	for (size_t i = 0; i < inv->nr; i++) {
		kobj_id_clear(&inv->e[i].id);
		free(inv->e[i].uid);
		free(inv->e[i].shared);
		free(inv->e[i].proof);
	}
	free(inv->e);
	memset(inv, 0, sizeof(*inv));
}

static void entry_ident(const struct inv_entry *e, struct kobj_id *id)
{
	*id = e->id;
}

/* inv_index: (re)build the identity index (keys[] parallels e[]) */
static void inv_index(struct inventory *inv)
{
	struct buf k = BUF_INIT;

	inv_unindex(inv);
	inv->cap = 16;
	while (inv->cap < inv->nr * 2 + 1)
		inv->cap *= 2;
	inv->slots = xcalloc(inv->cap, sizeof(*inv->slots));
	inv->keys = xcalloc(inv->cap, sizeof(*inv->keys));
	for (size_t i = 0; i < inv->nr; i++) {
		struct kobj_id id;
		size_t h;
		entry_ident(&inv->e[i], &id);
		kobj_key(&id, &k);
		inv->keys[i] = xstrdup(buf_cstr(&k));
		for (h = key_hash(inv->keys[i]) & (inv->cap - 1); inv->slots[h];
		     h = (h + 1) & (inv->cap - 1))
			;
		inv->slots[h] = i + 1;
	}
	buf_release(&k);
}

/* inv_find: the entry with this identity (any version), or NULL */
static struct inv_entry *inv_find(struct inventory *inv, const struct kobj_id *id)
{
	struct buf k = BUF_INIT;
	struct inv_entry *found = NULL;

	if (!inv->nr)
		return NULL;
	if (!inv->slots)
		inv_index(inv);
	kobj_key(id, &k);
	for (size_t h = key_hash(buf_cstr(&k)) & (inv->cap - 1); inv->slots[h];
	     h = (h + 1) & (inv->cap - 1)) {
		size_t v = inv->slots[h] - 1;
		if (!strcmp(inv->keys[v], buf_cstr(&k))) {
			found = &inv->e[v];
			break;
		}
	}
	buf_release(&k);
	return found;
}

/*
 * inv_parse: the entries of a parent's data.inventory. A parent whose
 * inventory is missing, does not parse or has an entry without
 * apiVersion, kind or name is damaged: -1 with the reason in *why.
 */
static int inv_parse(struct inventory *inv, const cJSON *parent, struct buf *why)
{
	const char *text = json_str_at(parent, "data", "inventory");
	cJSON *arr = text ? cJSON_Parse(text) : NULL;
	const cJSON *e;
	int i = 0, ret = 0;

	if (!text) {
		buf_adds(why, "it has no data.inventory");
		return -1;
	}
	if (!cJSON_IsArray(arr)) {
		buf_adds(why, arr ? "data.inventory is not a JSON array"
				  : "data.inventory is not valid JSON");
		cJSON_Delete(arr);
		return -1;
	}
	cJSON_ArrayForEach(e, arr)
	{
		struct kobj_id id = { json_str(e, "apiVersion"),
				      json_str(e, "kind"),
				      json_str(e, "namespace"),
				      json_str(e, "name") };
		i++;
		if (!id.api_version || !*id.api_version || !id.kind ||
		    !*id.kind || !id.name || !*id.name) {
			buf_addf(why, "entry %d of data.inventory has no "
				      "apiVersion, kind or name", i);
			ret = -1;
			break;
		}
		if (id.ns && !*id.ns)
			id.ns = NULL;
		inv_push(inv, &id, json_str(e, "uid"),
			 json_str(e, "sharedWith"), json_str(e, "proof"));
	}
	cJSON_Delete(arr);
	return ret;
}

static int inv_cmp(const void *a, const void *b)
{
	const struct inv_entry *x = a, *y = b;
	int c = strcmp(x->id.kind, y->id.kind);
	if (!c)
		c = strcmp(x->id.ns ? x->id.ns : "", y->id.ns ? y->id.ns : "");
	if (!c)
		c = strcmp(x->id.name, y->id.name);
	if (!c)
		c = strcmp(x->id.api_version, y->id.api_version);
	return c;
}

/* apply order of inventory entries (prune walks it backwards) */
static int inv_apply_order(const void *a, const void *b)
{
	const struct inv_entry *x = a, *y = b;
	int ra = kobj_kind_rank(x->id.kind), rb = kobj_kind_rank(y->id.kind);

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

	if (inv->nr > 1) {
		inv_unindex(inv);
		qsort(inv->e, inv->nr, sizeof(*inv->e), inv_cmp);
	}
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
			char *grp = kobj_group_dup(inv->e[i].id.api_version);
			char *gk = *grp ? xasprintf("%s.%s", inv->e[i].id.kind,
						    grp)
					: xstrdup(inv->e[i].id.kind);
			free(grp);
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
		const char **list = xcalloc(inv->nr + 1, sizeof(*list));
		size_t n = 0;
		for (size_t i = 0; i < inv->nr; i++) {
			int dup = 0;
			if (!inv->e[i].id.ns ||
			    !strcmp(inv->e[i].id.ns, r->o->inventory_ns))
				continue;
			for (size_t j = 0; j < n; j++)
				dup |= !strcmp(list[j], inv->e[i].id.ns);
			if (!dup)
				list[n++] = inv->e[i].id.ns;
		}
		qsort(list, n, sizeof(*list), str_cmp);
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
	if (r->pending_on) {
		char *pn = xasprintf("%s-pending", name);
		cJSON_AddStringToObject(a, PENDING_NOTE, pn);
		free(pn);
	}
	identity_annotate(a, r->live_parent, r->o->identity);
	data = cJSON_AddObjectToObject(p, "data");
	arr = cJSON_CreateArray();
	for (size_t i = 0; i < inv->nr; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "apiVersion",
					inv->e[i].id.api_version);
		cJSON_AddStringToObject(e, "kind", inv->e[i].id.kind);
		if (inv->e[i].id.ns)
			cJSON_AddStringToObject(e, "namespace", inv->e[i].id.ns);
		cJSON_AddStringToObject(e, "name", inv->e[i].id.name);
		if (inv->e[i].uid)
			cJSON_AddStringToObject(e, "uid", inv->e[i].uid);
		if (inv->e[i].shared)
			cJSON_AddStringToObject(e, "sharedWith", inv->e[i].shared);
		if (inv->e[i].proof)
			cJSON_AddStringToObject(e, "proof", inv->e[i].proof);
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

/* the desired identities and what the inventory said when read: an entry
 * of a live parent outside this set was added by another writer */
static int known_entry(struct run *r, const struct kobj_id *id)
{
	return want_find(r, id) >= 0 || inv_find(r->old, id) != NULL;
}

/* data_size: what the API server counts against RECON_CM_DATA_MAX: the
 * keys and values of data */
static size_t data_size(const cJSON *cm)
{
	const cJSON *d;
	size_t n = 0;

	cJSON_ArrayForEach(d, json_at(cm, "data", NULL))
		n += strlen(d->string) +
		     (cJSON_IsString(d) ? strlen(d->valuestring) : 0);
	return n;
}

static size_t inventory_max(const struct run *r)
{
	return r->o->inventory_max ? r->o->inventory_max : RECON_CM_DATA_MAX;
}

/* inv_size: the data size of the parent that would list `inv` */
static size_t inv_size(struct run *r, struct inventory *inv)
{
	cJSON *p = parent_object(r, r->cluster, inv, r->parent_name);
	size_t n = data_size(p);

	cJSON_Delete(p);
	return n;
}

/*
 * write_parent: write the inventory `inv` unless the live parent already
 * says the same. The write carries a precondition (create when there is
 * none, else the live parent's resourceVersion); when another writer got
 * there first, its parent is read again and the entries it added (ones
 * this run never knew) are kept in `inv`, then the write is tried again.
 * Nothing is ever dropped from the inventory by a concurrent write.
 */
static int write_parent(struct run *r, const struct kube_resource *cm,
			const char *cluster, const char *name,
			cJSON **live_parent, struct inventory *inv)
{
	for (int attempt = 0;; attempt++) {
		cJSON *parent, *got = NULL, *md;
		struct err e = ERR_INIT;
		int rc;

		/* entries another writer added since we read (a parent
		 * just created bare has none yet) */
		if (*live_parent && json_at(*live_parent, "data", "inventory")) {
			struct inventory theirs = { 0 };
			struct buf why = BUF_INIT;
			if (inv_parse(&theirs, *live_parent, &why) < 0 &&
			    !r->o->rebuild_inventory) {
				inv_release(&theirs);
				err_set(r->err, ERR_CONFLICT,
					"inventory %s was damaged while this run "
					"was writing (%s); nothing more was "
					"written: run again with "
					"--rebuild-inventory",
					r->rep->inventory, buf_cstr(&why));
				buf_release(&why);
				return -1;
			}
			buf_release(&why);
			for (size_t i = 0; i < theirs.nr; i++) {
				struct kobj_id id;
				entry_ident(&theirs.e[i], &id);
				if (!known_entry(r, &id) && !inv_find(inv, &id))
					inv_push(inv, &id, theirs.e[i].uid,
						 theirs.e[i].shared,
						 theirs.e[i].proof);
			}
			inv_release(&theirs);
		}
		parent = parent_object(r, cluster, inv, name);
		if (*live_parent && subset_equal(parent, *live_parent)) {
			cJSON_Delete(parent);
			return 0;
		}
		if (!*live_parent) {
			/* create it bare (identity and labels, which never
			 * change) — a create fails when another writer made it
			 * meanwhile — then apply the rest with a precondition:
			 * fields a create sets belong to an Update manager, so
			 * a later apply could never remove them */
			cJSON *bare = cJSON_CreateObject();
			cJSON_AddStringToObject(bare, "apiVersion", "v1");
			cJSON_AddStringToObject(bare, "kind", "ConfigMap");
			cJSON_AddItemToObject(bare, "metadata",
					      cJSON_Duplicate(json_at(parent,
								      "metadata",
								      NULL),
							      1));
			cJSON_DeleteItemFromObjectCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(bare, "metadata"),
				"annotations");
			rc = kube_create(r->k, cm, r->o->inventory_ns, bare, &got, &e);
			cJSON_Delete(bare);
			cJSON_Delete(parent);
			if (rc == 0) {
				err_release(&e);
				*live_parent = got;
				attempt--; /* not a retry */
				continue;
			}
		} else {
			const char *rv = json_meta_at(*live_parent,
						      "resourceVersion", NULL);
			md = cJSON_GetObjectItemCaseSensitive(parent, "metadata");
			if (rv)
				cJSON_AddStringToObject(md, "resourceVersion", rv);
			rc = kube_apply(r->k, cm, parent, r->o->field_manager, 1, 0,
					&got, &e);
			cJSON_Delete(parent);
		}
		if (rc == 0) {
			err_release(&e);
			cJSON_Delete(*live_parent);
			*live_parent = got;
			return 0;
		}
		if (e.code != ERR_CONFLICT || attempt >= 8) {
			err_release(r->err);
			*r->err = e;
			return -1;
		}
		/* someone else wrote it: read again, merge, retry */
		err_release(&e);
		cJSON_Delete(*live_parent);
		*live_parent = NULL;
		if (kube_get(r->k, cm, r->o->inventory_ns, name, live_parent,
			     r->err) < 0)
			return -1;
	}
}

/* ---- the run --------------------------------------------------------------- */


static const cJSON *find_live(const cJSON *live, const struct kobj_id *id)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, live)
	{
		struct kobj_id x;
		kobj_id_of(o, &x);
		if (x.api_version && x.kind && x.name && kobj_same(&x, id))
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

	cJSON_ArrayForEach(a, json_at(o, "metadata", "annotations")) {
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
		const char *k = i < r->nw ? r->w[i].id.kind
					  : old->e[i - r->nw].id.kind;
		const char *ns = i < r->nw ? r->w[i].id.ns
					   : old->e[i - r->nw].id.ns;
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

/* the one namespace gpuform renders objects of this kind in (ConfigMap:
 * the device plugin's), or NULL (cluster scope, or any namespace) */
static const char *fixed_namespace(const char *api_version, const char *kind)
{
	const struct kobj_kind *k = kobj_kind_find(api_version, kind);

	return k && k->ns && strcmp(k->ns, KOBJ_ANY_NAMESPACE) ? k->ns : NULL;
}

/* the objects a refusal names when there is no inventory (and how many
 * more there are) */
#define LABELLED_SHOWN 10

/* "; nodepool.karpenter.sh/x (managers: m (Apply), n (Update))" */
static void labelled_evidence(struct buf *out, const cJSON *o,
			      const struct kobj_id *id)
{
	const cJSON *e;
	int n = 0;

	if (out->len)
		buf_adds(out, "; ");
	kobj_display(id, out);
	cJSON_ArrayForEach(e, json_at(o, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
		if (m)
			buf_addf(out, "%s%s (%s)", n++ ? ", " : " (managers: ",
				 m, op ? op : "?");
	}
	buf_adds(out, n ? ")" : " (no field managers)");
}

/*
 * list_kind: LIST a kind by our part-of label. `optional` 1: a kind only
 * the old inventory has — one the server does not serve (a CRD removed, a
 * tampered entry) has no objects, and is skipped; 2: also a kind listed
 * only to find objects labelled for us (no inventory) — one gpuform
 * renders in a single namespace is listed there only (credentials from
 * `gpuform install` may read ConfigMaps there only).
 */
static int list_kind(struct run *r, const char *api_version,
		     const char *kind, const struct inventory *old, int optional)
{
	const struct kube_resource *res;
	cJSON *items = NULL, *o;
	char *sel;
	int ret;

	if (resource_of(r, api_version, kind, &res) < 0) {
		if (optional && (r->err->code == ERR_NOTFOUND ||
				 r->err->code == ERR_INVALID)) {
			err_clear(r->err);
			return 0;
		}
		return -1;
	}
	sel = xasprintf("%s=%s", PART_OF, r->applyset_id);
	ret = kube_list(r->k, res,
			optional == 2 && res->namespaced
				? fixed_namespace(api_version, kind)
				: NULL,
			sel, &items, r->err);
	if (ret < 0 && r->err->code == ERR_AUTH && res->namespaced) {
		err_clear(r->err);
		ret = list_in_namespaces(r, res, kind, old, sel, &items);
	}
	free(sel);
	if (ret < 0) {
		if (r->err->code == ERR_NOTFOUND ||
		    strstr(err_msg(r->err), "404")) {
			if (optional) {
				err_clear(r->err);
				return 0;
			}
			return explain_missing(r, api_version, kind);
		}
		return -1;
	}
	while ((o = cJSON_DetachItemFromArray(items, 0))) {
		struct kobj_id id;
		long wi;
		kobj_id_of(o, &id);
		if (!id.api_version || !id.kind || !id.name) {
			cJSON_Delete(o);
			continue;
		}
		r->labelled++;
		if (r->inventory_missing && r->labelled <= LABELLED_SHOWN)
			labelled_evidence(&r->labelled_list, o, &id);
		wi = want_find(r, &id);
		if (wi >= 0) {
			struct want *x = &r->w[wi];
			const cJSON *mine = managed_entry(o, r->o->field_manager, "Apply");
			const char *uid = json_meta_at(o, "uid", NULL);
			struct owner_facts f;
			const struct inv_entry *e = inv_find(r->old, &id);
			free(x->uid);
			x->uid = uid ? xstrdup(uid) : NULL;
			owner_facts_of(&f, o);
			f.listed = e && !e->shared;
			f.listed_uid = e ? e->uid : NULL;
			x->exists = 1;
			x->cls = owner_classify(&f, r->applyset_id);
			if (x->cls == OWNER_OURS && subset_equal(x->obj, o) &&
			    !(mine &&
			      owned_field_gone(json_at(mine, "fieldsV1", NULL),
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
			const char *uid = json_meta_at(o, "uid", NULL);
			const char *rv = json_meta_at(o, "resourceVersion",
						      NULL);
			cJSON_AddStringToObject(stub, "apiVersion", id.api_version);
			cJSON_AddStringToObject(stub, "kind", id.kind);
			md = cJSON_AddObjectToObject(stub, "metadata");
			cJSON_AddStringToObject(md, "name", id.name);
			if (id.ns)
				cJSON_AddStringToObject(md, "namespace", id.ns);
			if (uid)
				cJSON_AddStringToObject(md, "uid", uid);
			if (rv)
				cJSON_AddStringToObject(md, "resourceVersion", rv);
			keep_gpuform_annotations(md, o);
			/* evidence for prune: our manager applied the label */
			if (owner_applied_label(o, r->o->field_manager))
				cJSON_AddTrueToObject(stub, STUB_APPLIED);
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
		const struct kobj_id *id = &w[i].id;
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

static int is_namespace(const struct kobj_id *id)
{
	return !strcmp(id->kind, "Namespace") && !strcmp(id->api_version, "v1");
}

/* ---- ownership ------------------------------------------------------------ */

/* does live hold every desired field, apart from the owner labels? */
static int equal_but_owner(const cJSON *desired, const cJSON *live)
{
	cJSON *d = cJSON_Duplicate(desired, 1);
	cJSON *l = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(d, "metadata"), "labels");
	int eq;

	cJSON_DeleteItemFromObjectCaseSensitive(l, PART_OF);
	cJSON_DeleteItemFromObjectCaseSensitive(l, OWNER_CLUSTER_LABEL);
	eq = subset_equal(d, live);
	cJSON_Delete(d);
	return eq;
}

/* "labels a=b, c=d; managers m (Update), n (Apply)" of a live object */
static void owner_evidence(const cJSON *live, struct buf *out)
{
	static const char *const keys[] = { PART_OF, OWNER_CLUSTER_LABEL,
					    "app.kubernetes.io/managed-by",
					    NULL };
	const cJSON *labels = json_at(live, "metadata", "labels");
	const cJSON *e;
	size_t mark = out->len;
	int n = 0;

	for (const char *const *k = keys; *k; k++) {
		const char *v = json_str(labels, *k);
		if (v)
			buf_addf(out, "%s%s=%s", n++ ? ", " : "owner labels ", *k, v);
	}
	if (!n)
		buf_adds(out, "no owner labels");
	n = 0;
	cJSON_ArrayForEach(e, json_at(live, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
		if (m)
			buf_addf(out, "%s%s (%s)", n++ ? ", " : "; managers ", m,
				 op ? op : "?");
	}
	if (out->len == mark)
		buf_adds(out, "nothing known");
}

/*
 * decide_owner: a desired object exists on the server and is not (known
 * to be) ours: conflict, adopt or share, by owner_write_decision. The item
 * says which and why. Returns 1 for a conflict.
 */
static int decide_owner(struct run *r, struct want *x)
{
	struct recon_item *it = &r->rep->items[x->item];
	struct buf why = BUF_INIT;
	const char *other = json_meta_at(x->live, "labels", OWNER_CLUSTER_LABEL);
	struct owner_facts f;
	int conflict = 0;

	owner_facts_of(&f, x->live);
	x->ow = owner_write_decide(&f, x->cls, r->o->adopt,
				   equal_but_owner(x->obj, x->live));
	switch (x->ow) {
	case OW_TERMINATING:
		x->needs_write = 0;
		buf_addf(&why, "is being deleted (Terminating since %s); nothing "
			       "written — wait until it is gone (a Namespace "
			       "waits for its content) and run again",
			 f.deleting_since);
		set_action(r->rep, it, RA_CONFLICT, buf_cstr(&why));
		conflict = 1;
		break;
	case OW_WRITE:
		break;
	case OW_ADOPT:
		buf_adds(&why, "adopted (it existed: ");
		owner_evidence(x->live, &why);
		buf_adds(&why, ")");
		x->needs_write = 1;
		set_action(r->rep, it, RA_CONFIGURED, buf_cstr(&why));
		break;
	case OW_SHARE:
		x->needs_write = 0;
		x->shared_with = other;
		buf_addf(&why, "shared: gpuform cluster '%s' owns it and it is "
			       "already as desired; recorded as shared, not written",
			 other);
		set_action(r->rep, it, RA_UNCHANGED, buf_cstr(&why));
		break;
	case OW_CONFLICT:
		x->needs_write = 0;
		if (x->cls == OWNER_GPUFORM)
			buf_addf(&why, "owned by another gpuform inventory "
				       "(cluster '%s'); this cluster never writes "
				       "or prunes it — give it another name in one "
				       "of the intents (",
				 other);
		else
			buf_adds(&why, "exists and was not created by gpuform for "
				       "this cluster; nothing written — pass "
				       "--adopt to take it over (");
		owner_evidence(x->live, &why);
		buf_adds(&why, ")");
		set_action(r->rep, it, RA_CONFLICT, buf_cstr(&why));
		conflict = 1;
		break;
	}
	buf_release(&why);
	return conflict;
}

/*
 * found_existing: the dry run says a desired object we did not find with
 * our label exists: read it and classify. 0 with x->exists set (or not,
 * when it vanished meanwhile), -1 on an API error.
 */
static int found_existing(struct run *r, struct want *x)
{
	cJSON *live = NULL;
	struct owner_facts f;
	const struct inv_entry *e;

	if (kube_get(r->k, x->res, x->id.ns, x->id.name, &live, r->err) < 0)
		return -1;
	if (!live)
		return 0;
	cJSON_AddItemToArray(r->live, live);
	x->live = live;
	x->exists = 1;
	x->state = LIVE_DIFFERENT;
	owner_facts_of(&f, live);
	e = inv_find(r->old, &x->id);
	f.listed = e && !e->shared;
	f.listed_uid = e ? e->uid : NULL;
	x->cls = owner_classify(&f, r->applyset_id);
	return 0;
}

/* a dry run's answer for an object it says exists (not a create) */
static int has_resource_version(const cJSON *o)
{
	const char *rv = json_meta_at(o, "resourceVersion", NULL);
	return rv && *rv;
}

/* ---- the ownership key ------------------------------------------------------ */

static char s_core[] = "", s_v1[] = "v1", s_secret[] = "Secret",
	    s_secrets[] = "secrets";
static const struct kube_resource secret_res = { s_core, s_v1, s_secret,
						 s_secrets, 1 };

/* key_of: the key in a Secret read from the server; -1 when it holds none */
static int key_of(struct run *r, const cJSON *sec)
{
	const char *b64 = json_str_at(sec, "data", OWNER_KEY_DATA);
	struct buf raw = BUF_INIT;
	int ok = b64 && base64_decode(&raw, b64, strlen(b64), 0) == 0 &&
		 raw.len == OWNER_KEY_LEN;

	if (ok) {
		memcpy(r->key, raw.ptr, OWNER_KEY_LEN);
		r->key_state = KEY_OK;
	}
	digest_wipe_release(&raw);
	return ok ? 0 : -1;
}

static void key_unreadable(struct run *r, const char *name, const char *why)
{
	r->key_state = KEY_UNREADABLE;
	free(r->key_why);
	r->key_why = xasprintf("the ownership key Secret %s/%s %s",
			       r->o->inventory_ns, name, why);
}

/* create_key: a new random key in its Secret; another run that created it
 * first wins (read again) */
static int create_key(struct run *r, const char *name)
{
	unsigned char k[OWNER_KEY_LEN];
	cJSON *sec = cJSON_CreateObject(), *md, *l, *got = NULL;
	struct buf b64 = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (digest_random(k, sizeof(k)) < 0) {
		cJSON_Delete(sec);
		return err_set(r->err, ERR_INTERNAL, "no random bytes for the "
						     "ownership key");
	}
	base64_encode(&b64, k, sizeof(k), 0);
	digest_wipe(k, sizeof(k));
	cJSON_AddStringToObject(sec, "apiVersion", "v1");
	cJSON_AddStringToObject(sec, "kind", "Secret");
	md = cJSON_AddObjectToObject(sec, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(md, "namespace", r->o->inventory_ns);
	l = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "gpuform");
	cJSON_AddStringToObject(l, OWNER_CLUSTER_LABEL, r->cluster);
	cJSON_AddStringToObject(sec, "type", "Opaque");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(sec, "data"),
				OWNER_KEY_DATA, buf_cstr(&b64));
	digest_wipe_release(&b64);
	rc = kube_create(r->k, &secret_res, r->o->inventory_ns, sec, &got, &e);
	{ /* the key's text in the request object */
		cJSON *d = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(sec, "data"),
			OWNER_KEY_DATA);
		if (cJSON_IsString(d))
			digest_wipe(d->valuestring, strlen(d->valuestring));
	}
	cJSON_Delete(sec);
	if (rc == 0 || e.code == ERR_CONFLICT) {
		if (rc < 0) { /* created meanwhile by another run */
			cJSON_Delete(got);
			got = NULL;
			err_clear(&e);
			rc = kube_get(r->k, &secret_res, r->o->inventory_ns, name,
				      &got, &e);
		}
		if (rc == 0 && key_of(r, got) < 0)
			key_unreadable(r, name, "holds no key of 32 bytes");
	}
	cJSON_Delete(got);
	if (rc < 0 && e.code == ERR_AUTH) {
		key_unreadable(r, name, err_msg(&e));
		rc = 0;
	}
	if (rc < 0) {
		err_release(r->err);
		*r->err = e;
		return -1;
	}
	err_release(&e);
	return 0;
}

/*
 * read_key: the ownership key, read once per run (one GET); `create`: a
 * run about to write a proof creates the Secret when there is none. A
 * Secret this identity may not read (403) or that holds no key leaves
 * KEY_UNREADABLE: nothing is proven, nothing signed. -1 on other API
 * errors.
 */
static int read_key(struct run *r, int create)
{
	struct buf name = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *sec = NULL;
	int ret = 0;

	owner_key_name(r->cluster, &name);
	if (r->key_state == KEY_UNREAD) {
		if (kube_get(r->k, &secret_res, r->o->inventory_ns,
			     buf_cstr(&name), &sec, &e) < 0) {
			if (e.code == ERR_AUTH) {
				key_unreadable(r, buf_cstr(&name), err_msg(&e));
			} else {
				err_release(r->err);
				*r->err = e;
				e = (struct err)ERR_INIT;
				ret = -1;
			}
		} else if (!sec) {
			r->key_state = KEY_MISSING;
		} else if (key_of(r, sec) < 0) {
			key_unreadable(r, buf_cstr(&name),
				       "holds no key of 32 bytes (data.key)");
		}
		cJSON_Delete(sec);
	}
	if (ret == 0 && create && r->key_state == KEY_MISSING && !r->o->dry_run)
		ret = create_key(r, buf_cstr(&name));
	err_release(&e);
	buf_release(&name);
	return ret;
}

/* entry_proven: does an inventory entry carry a valid proof? */
static int entry_proven(const struct run *r, const struct inv_entry *e)
{
	return r->key_state == KEY_OK &&
	       owner_proof_ok(r->key, sizeof(r->key), r->applyset_id, &e->id,
			      e->uid, e->proof);
}

/*
 * sign_entry: the proof an entry for a desired object gets: the one it
 * had, when its UID is the same (proofs are checked when they are used,
 * at prune), else a new one under the key (created when there is none).
 * NULL without a UID, for a shared object, or when the key cannot be read
 * (counted: finish() says so). Returns a new string.
 */
static char *sign_entry(struct run *r, const struct want *x, int *fail)
{
	const struct inv_entry *old = inv_find(r->old, &x->id);
	struct buf p = BUF_INIT;

	if (!x->uid || x->shared_with)
		return NULL;
	if (old && old->proof && old->uid && !strcmp(old->uid, x->uid))
		return xstrdup(old->proof);
	if (read_key(r, 1) < 0) {
		*fail = 1;
		return NULL;
	}
	if (r->key_state != KEY_OK) {
		r->unsigned_nr++;
		return NULL;
	}
	owner_proof(r->key, sizeof(r->key), r->applyset_id, &x->id, x->uid, &p);
	return buf_detach(&p, NULL);
}

/*
 * other_inventories: the data.inventory of every other gpuform inventory
 * on the server (one LIST across all namespaces), merged into *all. When
 * that LIST is forbidden, or one inventory is damaged, *damaged says so:
 * then no object is pruned (PRUNE_UNSEEN). Listing only the inventory
 * namespace is not enough — another cluster's inventory may live in
 * another namespace (install --namespace) and list the same shared
 * object.
 */
static int other_inventories(struct run *r, const struct kube_resource *cm,
			     const char *self_name, struct inventory *all,
			     char **damaged)
{
	const char *sel = "app.kubernetes.io/managed-by=gpuform,"
			  "applyset.kubernetes.io/id";
	cJSON *items = NULL;
	const cJSON *p;

	if (kube_list(r->k, cm, NULL, sel, &items, r->err) < 0) {
		if (r->err->code != ERR_AUTH)
			return -1;
		/* cannot tell whether another inventory lists an object:
		 * prune none */
		*damaged = xasprintf("the other gpuform inventories cannot be "
				     "read: %s (this identity needs list on "
				     "ConfigMaps in all namespaces; `gpuform "
				     "install` grants it)",
				     err_msg(r->err));
		err_clear(r->err);
		return 0;
	}
	cJSON_ArrayForEach(p, items)
	{
		const char *ns = json_meta_at(p, "namespace", NULL);
		const char *name = json_meta_at(p, "name", NULL);
		struct buf why = BUF_INIT;
		if (ns && name && !strcmp(ns, r->o->inventory_ns) &&
		    !strcmp(name, self_name))
			continue;
		if (inv_parse(all, p, &why) < 0 && !*damaged)
			*damaged = xasprintf("gpuform inventory %s/%s is damaged "
					     "(%s)", ns ? ns : "?",
					     name ? name : "?", buf_cstr(&why));
		buf_release(&why);
	}
	cJSON_Delete(items);
	return 0;
}

/*
 * rebuild_inventory: the inventory from the objects of the kinds gpuform
 * renders (and the desired kinds) that carry our part-of label *and* whose
 * label our field manager applied; others labelled for us are reported
 * and left out.
 */
static int rebuild_inventory(struct run *r, struct inventory *inv)
{
	char *sel = xasprintf("%s=%s", PART_OF, r->applyset_id);
	char **seen = NULL;
	size_t nseen = 0, aseen = 0;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < r->nw + NKNOWN; i++) {
		const char *av = i < r->nw ? r->w[i].id.api_version : kobj_kinds[i - r->nw].api_version;
		const char *kd = i < r->nw ? r->w[i].id.kind : kobj_kinds[i - r->nw].kind;
		const struct kube_resource *res;
		char *key = xasprintf("%s %s", av, kd);
		cJSON *items = NULL;
		const cJSON *o;
		int dup = 0;
		for (size_t j = 0; j < nseen; j++)
			dup |= !strcmp(seen[j], key);
		if (dup) {
			free(key);
			continue;
		}
		GROW(seen, nseen + 1, aseen);
		seen[nseen++] = key;
		if (resource_of(r, av, kd, &res) == 0 &&
		    kube_list(r->k, res,
			      i >= r->nw && res->namespaced ? fixed_namespace(av, kd)
							    : NULL,
			      sel, &items, r->err) < 0 &&
		    r->err->code == ERR_AUTH && res->namespaced) {
			err_clear(r->err);
			list_in_namespaces(r, res, kd, inv, sel, &items);
		}
		if (r->err->code != ERR_NONE) {
			if (r->err->code == ERR_NOTFOUND ||
			    strstr(err_msg(r->err), "404")) {
				err_clear(r->err); /* kind not served */
				continue;
			}
			ret = -1;
			break;
		}
		cJSON_ArrayForEach(o, items)
		{
			struct kobj_id id;
			kobj_id_of(o, &id);
			if (!id.api_version || !id.kind || !id.name)
				continue;
			if (owner_applied_label(o, r->o->field_manager)) {
				/* a proof the damaged inventory still had is
				 * kept: it is checked against the UID at prune */
				const char *uid = json_meta_at(o, "uid", NULL);
				const struct inv_entry *was =
					inv_find(&r->inv_old, &id);
				inv_push(inv, &id, uid, NULL,
					 was && was->uid && uid &&
							 !strcmp(was->uid, uid)
						 ? was->proof
						 : NULL);
			}
			else
				add_item(r->rep, &id, RA_SKIPPED,
					 "labelled for this cluster, but the label "
					 "was not applied by gpuform: left out of the "
					 "rebuilt inventory");
		}
		cJSON_Delete(items);
	}
	for (size_t j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
	free(sel);
	return ret;
}

/* read_prune_key: the ownership key, when a stale entry carries a proof
 * to check (one GET; a run with nothing stale makes none) */
static int read_prune_key(struct run *r)
{
	for (size_t i = 0; i < r->inv_old.nr; i++) {
		const struct inv_entry *e = &r->inv_old.e[i];
		if (e->proof && !e->shared && want_find(r, &e->id) < 0)
			return read_key(r, 0);
	}
	return 0;
}

/* ---- planning: pure decisions on what was read --------------------------- */

/* what happens to a stale inventory entry (in the old inventory, not
 * desired) */
struct stale {
	struct inv_entry *e;
	const cJSON *live; /* stub found with our label, or NULL */
	enum prune_verdict v;
};

/*
 * plan_objects: each desired object's action from what the LISTs found —
 * unchanged, created, configured — and, for an existing object that is
 * not ours, conflict, adopt or share (decide_owner). Pure.
 */
static void plan_objects(struct run *r)
{
	for (size_t i = 0; i < r->nw; i++) {
		struct want *x = &r->w[i];
		add_item(r->rep, &x->id, RA_UNCHANGED, NULL);
		x->item = r->rep->nr - 1;
		if (x->state == LIVE_EQUAL)
			continue;
		x->needs_write = 1;
		set_action(r->rep, &r->rep->items[x->item],
			   x->state == LIVE_ABSENT ? RA_CREATED : RA_CONFIGURED,
			   NULL);
		if (x->exists && x->cls != OWNER_OURS)
			r->owner_conflicts += decide_owner(r, x);
	}
}

/*
 * plan_prune: the prune candidates — old inventory entries no longer
 * desired — with their verdicts (owner_prune_decision on the stubs the
 * LISTs kept). More than half of the inventory is refused without
 * --force-prune. Pure; *deletable counts the PRUNE_DELETE verdicts.
 */
static int plan_prune(struct run *r, size_t *deletable)
{
	struct inventory *old = &r->inv_old;

	r->st = xcalloc(old->nr + 1, sizeof(*r->st));
	*deletable = 0;
	for (size_t i = 0; i < old->nr; i++) {
		struct kobj_id oid;
		struct prune_facts pf = { 0 };
		struct stale *s = &r->st[r->nst];
		entry_ident(&old->e[i], &oid);
		if (want_find(r, &oid) >= 0)
			continue;
		s->e = &old->e[i];
		s->live = old->e[i].shared ? NULL : find_live(r->live, &oid);
		pf.entry_uid = old->e[i].uid;
		pf.entry_shared = old->e[i].shared != NULL;
		pf.found = s->live != NULL;
		pf.live_uid = json_meta_at(s->live, "uid", NULL);
		pf.applied_label = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(s->live, STUB_APPLIED));
		pf.proven = entry_proven(r, &old->e[i]);
		s->v = owner_prune_decision(&pf);
		*deletable += s->v == PRUNE_DELETE;
		r->nst++;
	}
	if (r->o->prune && !r->o->force_prune && old->nr && r->nst * 2 > old->nr)
		return err_set(r->err, ERR_INVALID,
			       "pruning would remove %zu of the %zu objects in "
			       "the inventory (more than half); refusing — pass "
			       "--force-prune if that is really meant",
			       r->nst, old->nr);
	return 0;
}

/*
 * confirm_gone: an entry the LISTs did not return is forgotten only when a
 * GET agrees (404, or the object no longer carries this cluster's label).
 * A GET that finds it labelled means the LIST answer was short (an empty
 * page, a first page without its continue token, a proxy in between):
 * the run stops before writing instead of dropping the entry and its UID.
 */
static int confirm_gone(struct run *r)
{
	for (size_t i = 0; i < r->nst; i++) {
		const struct inv_entry *e = r->st[i].e;
		const struct kube_resource *res;
		const char *av, *lab;
		cJSON *live = NULL;
		struct kobj_id id;
		struct buf d = BUF_INIT;

		if (r->st[i].v != PRUNE_GONE)
			continue;
		av = served_version(r, e->id.api_version, e->id.kind);
		if (!av)
			continue; /* the kind is not served at all: gone */
		if (resource_of(r, av, e->id.kind, &res) < 0 ||
		    kube_get(r->k, res, e->id.ns, e->id.name, &live, r->err) < 0)
			return -1;
		lab = json_meta_at(live, "labels", PART_OF);
		if (!live || !lab || strcmp(lab, r->applyset_id)) {
			cJSON_Delete(live);
			continue;
		}
		cJSON_Delete(live);
		entry_ident(e, &id);
		kobj_display(&id, &d);
		err_set(r->err, ERR_HTTP,
			"%s: the inventory lists it and a GET finds it with "
			"this cluster's label %s, but the LIST did not return "
			"it: the LIST answer was incomplete (an empty or cut "
			"page from the API server or a proxy in between). "
			"Nothing was written; run again",
			buf_cstr(&d), PART_OF);
		buf_release(&d);
		return -1;
	}
	return 0;
}

/* plan_shared: a candidate another inventory lists (or any, when one
 * cannot be read: PRUNE_UNSEEN) is kept. Pure, on what
 * other_inventories() read. */
static void plan_shared(struct run *r)
{
	for (size_t i = 0; i < r->nst; i++) {
		struct kobj_id oid;
		struct prune_facts pf = { 0 };
		if (r->st[i].v != PRUNE_DELETE)
			continue;
		entry_ident(r->st[i].e, &oid);
		pf.entry_uid = r->st[i].e->uid;
		pf.found = 1;
		pf.live_uid = pf.entry_uid;
		pf.applied_label = 1;
		pf.proven = 1;
		pf.listed_elsewhere = inv_find(&r->others, &oid) != NULL;
		pf.others_unseen = r->damaged_other != NULL;
		r->st[i].v = owner_prune_decision(&pf);
	}
}

/* sort_stale_apply_order: candidates in apply order (prune walks them
 * backwards) */
static void sort_stale_apply_order(struct run *r)
{
	for (size_t m = r->nst; m-- > 0;) {
		size_t best = m;
		for (size_t q = 0; q < m; q++)
			if (inv_apply_order(r->st[q].e, r->st[best].e) > 0)
				best = q;
		if (best != m) {
			struct stale t = r->st[m];
			r->st[m] = r->st[best];
			r->st[best] = t;
		}
	}
}

/* ---- execution: reading ----------------------------------------------------- */

/* identify_desired: identify and check everything before any request;
 * apply order; our part-of label on each; an index by identity */
static int identify_desired(struct run *r, cJSON *desired)
{
	size_t n = (size_t)cJSON_GetArraySize(desired), i = 0;
	struct want *w = xcalloc(n ? n : 1, sizeof(*w));
	cJSON *o_it;

	r->w = w;
	cJSON_ArrayForEach(o_it, desired)
	{
		w[i].obj = o_it;
		kobj_id_of(o_it, &w[i].id);
		i++;
	}
	r->nw = n;
	if (check_desired(w, n, r->err) < 0)
		return -1;
	if (n == 0 && !r->o->force_prune)
		return err_set(r->err, ERR_INVALID,
			       "the desired set is empty: refusing to reconcile "
			       "(and possibly prune) everything away; pass "
			       "--force-prune if that is really meant");
	/* apply order: Namespaces first, ... LocalQueues last */
	for (size_t x = 1; x < n; x++)
		for (size_t y = x; y > 0 && render_doc_cmp(w[y - 1].obj, w[y].obj) > 0; y--) {
			struct want t = w[y];
			w[y] = w[y - 1];
			w[y - 1] = t;
		}
	for (i = 0; i < n; i++) {
		label_member(w[i].obj, r->applyset_id);
		kobj_id_of(w[i].obj, &w[i].id); /* pointers may have moved */
		if (resource_of(r, w[i].id.api_version, w[i].id.kind, &w[i].res) < 0)
			return -1;
	}
	return index_wants(r, r->err);
}

/*
 * read_pending: the entries a run added in a second ConfigMap because the
 * superset did not fit in one (write_superset) — named by the parent's
 * PENDING_NOTE until that run's final write — belong to the inventory as
 * read. One GET, only when the note is there.
 */
static int read_pending(struct run *r)
{
	const char *name = json_meta_at(r->live_parent, "annotations",
					PENDING_NOTE);
	cJSON *part = NULL;
	struct inventory add = { 0 };
	struct buf why = BUF_INIT;
	char *want = xasprintf("%s-pending", r->parent_name);
	int ret = 0;

	if (!name || strcmp(name, want)) {
		free(want);
		return 0;
	}
	free(want);
	if (kube_get(r->k, r->cm_res, r->o->inventory_ns, name, &part,
		     r->err) < 0)
		return -1;
	r->pending_seen = part != NULL;
	if (part && inv_parse(&add, part, &why) < 0 && !r->o->rebuild_inventory)
		ret = err_set(r->err, ERR_CONFLICT,
			      "inventory %s is damaged: its part %s/%s: %s. "
			      "Nothing was written. Run this command again "
			      "with --rebuild-inventory (try it with --dry-run "
			      "first)",
			      r->rep->inventory, r->o->inventory_ns, name,
			      buf_cstr(&why));
	for (size_t i = 0; ret == 0 && i < add.nr; i++)
		if (!inv_find(&r->inv_old, &add.e[i].id))
			inv_push(&r->inv_old, &add.e[i].id, add.e[i].uid,
				 add.e[i].shared, add.e[i].proof);
	inv_release(&add);
	buf_release(&why);
	cJSON_Delete(part);
	return ret;
}

/* read_inventory: the parent ConfigMap, refused when another tool owns
 * it or it is damaged (unless rebuilding it) */
static int read_inventory(struct run *r)
{
	const char *tool;
	struct buf why = BUF_INIT;
	int ret = 0;

	if (resource_of(r, "v1", "ConfigMap", &r->cm_res) < 0 ||
	    kube_get(r->k, r->cm_res, r->o->inventory_ns, r->parent_name,
		     &r->live_parent, r->err) < 0)
		return -1;
	if (!r->live_parent) {
		r->inventory_missing = 1;
		goto rebuild;
	}
	tool = json_meta_at(r->live_parent, "annotations",
			    "applyset.kubernetes.io/tooling");
	if (tool && strncmp(tool, "gpuform/", 8))
		return err_set(r->err, ERR_CONFLICT,
			       "inventory %s belongs to '%s', not gpuform; "
			       "refusing to take it over",
			       r->rep->inventory, tool);
	if (!json_at(r->live_parent, "data", NULL)) {
		/* created bare, never filled (a run stopped right after
		 * creating it): like no inventory */
		r->inventory_missing = 1;
	} else if (inv_parse(&r->inv_old, r->live_parent, &why) < 0 &&
		   !r->o->rebuild_inventory) {
		err_set(r->err, ERR_CONFLICT,
			"inventory %s is damaged: %s. gpuform cannot tell "
			"which objects it owns, so nothing was written. "
			"To rebuild it from the objects labelled %s=%s "
			"(and applied by gpuform), run this command again "
			"with --rebuild-inventory (try it with --dry-run "
			"first)",
			r->rep->inventory, buf_cstr(&why), PART_OF,
			r->applyset_id);
		ret = -1;
	}
	buf_release(&why);
	if (ret < 0 || read_pending(r) < 0)
		return -1;
rebuild:
	if (r->o->identity &&
	    identity_check_live(r->k, r->live_parent, r->rep->inventory,
				r->o->identity, r->o->prune,
				r->o->rebuild_inventory, r->err) < 0)
		return -1;
	if (r->o->rebuild_inventory) {
		struct inventory rebuilt = { 0 };
		if (rebuild_inventory(r, &rebuilt) < 0) {
			inv_release(&rebuilt);
			return -1;
		}
		inv_release(&r->inv_old);
		r->inv_old = rebuilt;
	}
	return 0;
}

/*
 * refuse_unlisted: no inventory, but objects carry our label. Anyone who
 * may patch an object can set that label with any field manager, so the
 * message names the objects and their managers and says whether this
 * cluster's gpuform ever wrote a proof here (its key exists): it never
 * tells the operator to import objects without looking at them.
 */
static int refuse_unlisted(struct run *r)
{
	struct buf key = BUF_INIT;
	struct buf msg = BUF_INIT;
	size_t more = r->labelled > LABELLED_SHOWN ? r->labelled - LABELLED_SHOWN
						   : 0;
	char *more_s = more ? xasprintf(" and %zu more", more) : xstrdup("");

	if (read_key(r, 0) < 0) {
		free(more_s);
		return -1;
	}
	owner_key_name(r->cluster, &key);
	if (r->key_state == KEY_MISSING)
		buf_addf(&msg,
			 "Its ownership key Secret %s/%s does not exist either: "
			 "this cluster's gpuform has never recorded an object "
			 "on this server, so someone else most likely set these "
			 "labels (anyone who may patch an object can set a label "
			 "and name any field manager, gpuform too). Remove the "
			 "label from objects this cluster's gpuform did not "
			 "create (kubectl label KIND NAME %s-) and run again",
			 r->o->inventory_ns, buf_cstr(&key), PART_OF);
	else if (r->key_state == KEY_UNREADABLE)
		buf_addf(&msg,
			 "Whether this cluster's gpuform wrote here before cannot "
			 "be told: %s. Anyone who may patch an object can set "
			 "this label and name any field manager (gpuform too): "
			 "remove it from objects this cluster's gpuform did not "
			 "create (kubectl label KIND NAME %s-)",
			 r->key_why, PART_OF);
	else
		buf_addf(&msg,
			 "Its ownership key Secret %s/%s exists: this cluster's "
			 "gpuform has written here before, so the inventory was "
			 "probably deleted. Anyone who may patch an object can "
			 "set this label and name any field manager (gpuform "
			 "too): remove it from objects this cluster's gpuform "
			 "did not create (kubectl label KIND NAME %s-)",
			 r->o->inventory_ns, buf_cstr(&key), PART_OF);
	err_set(r->err, ERR_CONFLICT,
		"inventory %s does not exist, but %zu object%s this "
		"cluster's label %s=%s: %s%s. Nothing was written. %s. If this "
		"cluster's gpuform did create them, --rebuild-inventory "
		"records them again (try it with --dry-run first); rebuilt "
		"entries carry no ownership proof, so --prune never deletes "
		"those objects",
		r->rep->inventory, r->labelled,
		r->labelled == 1 ? " carries" : "s carry", PART_OF,
		r->applyset_id, buf_cstr(&r->labelled_list), more_s,
		buf_cstr(&msg));
	buf_release(&msg);
	free(more_s);
	buf_release(&key);
	return -1;
}

/*
 * list_all: one LIST per kind of the desired set and of the old inventory;
 * with no inventory, every kind gpuform renders too (are objects labelled
 * for this cluster out there?). Refused when there is no inventory but
 * objects carry our label (it was deleted).
 */
static int list_all(struct run *r)
{
	const struct inventory *old = &r->inv_old;
	size_t n = r->nw, nknown = r->inventory_missing ? NKNOWN : 0;
	char **kinds = NULL;
	int *optional = NULL, ret = 0;
	size_t nk = 0, ka = 0, ko = 0, i;

	for (i = 0; i < n + old->nr + nknown; i++) {
		const char *av, *kd;
		char *key;
		int dup = 0;
		if (i < n) {
			av = r->w[i].id.api_version;
			kd = r->w[i].id.kind;
		} else if (i < n + old->nr) {
			av = old->e[i - n].id.api_version;
			kd = old->e[i - n].id.kind;
			/* an entry at a version no longer served is listed
			 * through one that is */
			if ((av = served_version(r, av, kd)) == NULL)
				av = old->e[i - n].id.api_version;
		} else {
			av = kobj_kinds[i - n - old->nr].api_version;
			kd = kobj_kinds[i - n - old->nr].kind;
		}
		key = xasprintf("%s %s", av, kd);
		for (size_t j = 0; j < nk; j++)
			dup |= !strcmp(kinds[j], key);
		if (dup) {
			free(key);
			continue;
		}
		GROW(kinds, nk + 1, ka);
		GROW(optional, nk + 1, ko);
		optional[nk] = i < n ? 0 : i < n + old->nr ? 1 : 2;
		kinds[nk++] = key;
	}
	for (i = 0; i < nk && ret == 0; i++) {
		char *sp = strchr(kinds[i], ' ');
		*sp = '\0';
		ret = list_kind(r, kinds[i], sp + 1, old, optional[i]);
	}
	for (i = 0; i < nk; i++)
		free(kinds[i]);
	free(kinds);
	free(optional);
	if (ret < 0)
		return -1;
	if (r->inventory_missing && r->labelled && !r->o->rebuild_inventory)
		return refuse_unlisted(r);
	return 0;
}

/* ---- execution: dry runs ----------------------------------------------------- */

static void want_diff(struct want *x, const cJSON *live, const cJSON *next,
		      struct recon_report *rep)
{
	struct buf lbl = BUF_INIT;

	kobj_display(&x->id, &lbl);
	rep->items[x->item].diff = diff_text(live, next, buf_cstr(&lbl));
	buf_release(&lbl);
}

/* stop_before_writing: an API failure during the dry runs; nothing planned
 * is written */
static int stop_before_writing(struct run *r, struct want *x, const char *msg)
{
	set_action(r->rep, &r->rep->items[x->item], RA_FAILED, msg);
	if (!r->o->dry_run)
		unplan(r->rep, r->w, r->nw, 0, "not applied: the run stopped "
					       "before writing anything");
	return -1;
}

/*
 * dry_run_one: the server's dry run of one planned write. Learns what the
 * LISTs could not see (an object without our label: whose is it?),
 * classifies a 409 (another Apply manager: conflict; imperative edits:
 * drift, forced), and drops writes that would change nothing. -1 only when
 * the API failed (the run stops); an object the server rejects counts in
 * r->failures, a conflict in r->conflicts.
 */
static int dry_run_one(struct run *r, struct want *x)
{
	const struct recon_opts *o = r->o;
	struct recon_report *rep = r->rep;
	cJSON *result = NULL;
	struct err e = ERR_INIT;
	int rc;

	x->force = o->force_conflicts;
	rc = kube_apply(r->k, x->res, x->obj, o->field_manager, x->force, 1,
			&result, &e);
	if (x->state == LIVE_ABSENT &&
	    ((rc == 0 && has_resource_version(result)) ||
	     (rc < 0 && e.code == ERR_CONFLICT))) {
		/* it exists, without our label: whose is it? */
		cJSON_Delete(result);
		result = NULL;
		err_release(&e);
		if (found_existing(r, x) < 0)
			return stop_before_writing(r, x, err_msg(r->err));
		if (x->exists) {
			set_action(rep, &rep->items[x->item], RA_CONFIGURED, NULL);
			r->owner_conflicts += decide_owner(r, x);
			if (!x->needs_write)
				return 0;
		}
		rc = kube_apply(r->k, x->res, x->obj, o->field_manager,
				x->force, 1, &result, &e);
	}
	if (rc < 0 && e.code == ERR_CONFLICT) {
		struct buf why = BUF_INIT;
		cJSON_Delete(result);
		result = NULL;
		if (real_conflict(x->live, x->obj, o->field_manager, &why)) {
			set_action(rep, &rep->items[x->item], RA_CONFLICT,
				   why.len ? buf_cstr(&why) : err_msg(&e));
			r->conflicts++;
			buf_release(&why);
			err_release(&e);
			return 0;
		}
		/* imperative edits only: drift, take the fields back */
		buf_release(&why);
		err_clear(&e);
		x->force = 1;
		kube_apply(r->k, x->res, x->obj, o->field_manager, 1, 1, &result,
			   &e);
	}
	if (e.code != ERR_NONE) {
		if (e.code == ERR_AUTH || e.code == ERR_HTTP || e.code == ERR_IO) {
			/* the API failed, not the object: stop */
			stop_before_writing(r, x, err_msg(&e));
			err_release(r->err);
			*r->err = e;
			return -1;
		}
		set_action(rep, &rep->items[x->item], RA_FAILED, err_msg(&e));
		r->failures++;
		err_release(&e);
		return 0;
	}
	err_release(&e);
	if (x->live && result && x->ow != OW_ADOPT) {
		cJSON *a = cleaned(x->live), *bb = cleaned(result);
		int same = subset_equal(bb, a) && subset_equal(a, bb);
		cJSON_Delete(a);
		cJSON_Delete(bb);
		if (same) {
			/* only normalisation differed: nothing to write */
			x->needs_write = 0;
			set_action(rep, &rep->items[x->item], RA_UNCHANGED, NULL);
			cJSON_Delete(result);
			return 0;
		}
	}
	if (o->want_diffs)
		want_diff(x, x->live, result ? result : x->obj, rep);
	/* the guard classifies changes: only a changed Karpenter object's
	 * server-side result matters to it (the rest follows from the kind),
	 * and keeping every result costs memory */
	if (o->guard && x->live && impact_relevant(x->obj))
		x->next = result;
	else
		cJSON_Delete(result);
	return 0;
}

/* dry_run_all: dry-run every write; nothing is written unless all
 * succeed (conflicts and rejected objects stop the run here) */
static int dry_run_all(struct run *r)
{
	const struct recon_opts *o = r->o;
	int nconf, fails;

	for (size_t i = 0; i < r->nw; i++) {
		struct want *x = &r->w[i];
		if (!x->needs_write)
			continue;
		/* in a namespace this run creates, nothing can exist yet and
		 * nothing can be dry-run (Namespaces come first) */
		if (x->id.ns) {
			struct kobj_id nsid = { "v1", "Namespace", NULL, x->id.ns };
			long j = want_find(r, &nsid);
			x->skip_dry_run = j >= 0 && r->w[j].state == LIVE_ABSENT &&
					  !r->w[j].exists;
		}
		if (x->skip_dry_run) {
			if (o->want_diffs)
				want_diff(x, NULL, x->obj, r->rep);
			continue;
		}
		if (dry_run_one(r, x) < 0)
			return -1;
	}
	if (!r->conflicts && !r->owner_conflicts && !r->failures)
		return 0;
	if (!o->dry_run)
		unplan(r->rep, r->w, r->nw, 0, "not applied: the run stopped "
					       "before writing anything");
	nconf = r->conflicts + r->owner_conflicts;
	fails = r->failures;
	if (r->owner_conflicts && !r->conflicts && !fails)
		return err_set(r->err, ERR_CONFLICT,
			       "%d object%s already exist%s and %s not this "
			       "cluster's; nothing was applied (see each "
			       "conflict: --adopt takes over objects no gpuform "
			       "inventory owns)",
			       nconf, nconf == 1 ? "" : "s",
			       nconf == 1 ? "s" : "", nconf == 1 ? "is" : "are");
	return err_set(r->err, nconf ? ERR_CONFLICT : ERR_INVALID,
		       "%d conflict%s, %d rejected object%s; nothing was "
		       "applied%s",
		       nconf, nconf == 1 ? "" : "s", fails,
		       fails == 1 ? "" : "s",
		       r->conflicts ? " (use --force-conflicts to take the "
				      "fields over)"
				    : "");
}

/* read_shared: when something would be deleted, read the other gpuform
 * inventories (a shared object one of them lists is kept) */
static int read_shared(struct run *r, size_t deletable)
{
	if (!r->o->prune || !deletable)
		return 0;
	if (other_inventories(r, r->cm_res, r->parent_name, &r->others,
			      &r->damaged_other) < 0)
		return -1;
	plan_shared(r);
	return 0;
}

/*
 * call_guard: the caller's last word, before anything is written, on every
 * change the run would make. It may refuse all (-1) or hold some back.
 */
static int call_guard(struct run *r)
{
	const struct recon_opts *o = r->o;
	struct recon_change *ch = NULL;
	size_t *from = NULL; /* want index, or nw + stale index */
	size_t nc = 0, ac = 0, af = 0, n = r->nw;
	int rc;

	for (size_t i = 0; i < n; i++) {
		if (!r->w[i].needs_write)
			continue;
		GROW(ch, nc + 1, ac);
		GROW(from, nc + 1, af);
		memset(&ch[nc], 0, sizeof(ch[nc]));
		from[nc] = i;
		ch[nc].live = r->w[i].live;
		ch[nc++].next = r->w[i].next ? r->w[i].next : r->w[i].obj;
	}
	for (size_t i = 0; o->prune && i < r->nst; i++) {
		struct kobj_id oid;
		entry_ident(r->st[i].e, &oid);
		if (r->st[i].v != PRUNE_DELETE ||
		    (is_namespace(&oid) && !o->prune_namespaces))
			continue;
		GROW(ch, nc + 1, ac);
		GROW(from, nc + 1, af);
		memset(&ch[nc], 0, sizeof(ch[nc]));
		from[nc] = n + i;
		ch[nc].live = r->st[i].live;
		ch[nc++].next = NULL;
	}
	rc = o->guard(o->guard_ctx, r->k, ch, nc, r->err);
	/* held back: not written, not pruned; the rest goes ahead (in a dry
	 * run the guard holds nothing) */
	for (size_t c = 0; rc == 0 && c < nc; c++) {
		const char *why = o->held_detail ? o->held_detail
						 : "held back by the guard";
		if (!ch[c].hold)
			continue;
		r->held++;
		if (from[c] < n) {
			r->w[from[c]].needs_write = 0;
			set_action(r->rep, &r->rep->items[r->w[from[c]].item],
				   RA_SKIPPED, why);
		} else {
			r->st[from[c] - n].v = PRUNE_HELD;
		}
	}
	free(ch);
	free(from);
	if (rc < 0 && !o->dry_run)
		unplan(r->rep, r->w, n, 0, "not applied: held back before any "
					   "write");
	return rc;
}

/* report_dry_prune: what prune would do (a dry run stops after this) */
static void report_dry_prune(struct run *r)
{
	for (size_t i = 0; i < r->nst; i++) {
		struct kobj_id oid;
		struct prune_step s;
		entry_ident(r->st[i].e, &oid);
		s = owner_prune_step(r->st[i].v, is_namespace(&oid), r->o->prune,
				     r->o->prune_namespaces, r->o->held_detail, 1);
		if (s.report)
			add_item(r->rep, &oid, s.pruned ? RA_PRUNED : RA_SKIPPED,
				 s.why);
	}
}

/* ---- execution: writing --------------------------------------------------- */

static int write_superset_in_two(struct run *r);
static int check_final_fits(struct run *r);

/* write_superset: the inventory, old entries and new ones, before any
 * object is written, so a crash loses nothing (and the namespace it lives
 * in, the first time) */
static int write_superset(struct run *r)
{
	const struct inventory *old = &r->inv_old;
	int any = r->o->rebuild_inventory;
	size_t size;

	for (size_t i = 0; i < old->nr; i++) {
		struct kobj_id oid;
		entry_ident(&old->e[i], &oid);
		if (want_find(r, &oid) < 0)
			inv_push(&r->next, &oid, old->e[i].uid, old->e[i].shared,
				 old->e[i].proof);
	}
	for (size_t i = 0; i < r->nw; i++) {
		const struct want *x = &r->w[i];
		const struct inv_entry *was = inv_find(r->old, &x->id);
		inv_push(&r->next, &x->id, x->uid, x->shared_with,
			 was && was->uid && x->uid && !x->shared_with &&
					 !strcmp(was->uid, x->uid)
				 ? was->proof
				 : NULL);
		any |= x->needs_write;
	}
	if (r->live_parent && !any)
		return 0;
	/* the final inventory is at most the superset plus a UID and a
	 * proof for each desired object (81 bytes of JSON): checked only
	 * when that could be too much */
	size = inv_size(r, &r->next);
	if (size + 81 * r->nw > inventory_max(r) && check_final_fits(r) < 0)
		return -1;
	if (size > inventory_max(r))
		return write_superset_in_two(r);
	if (!r->live_parent) {
		cJSON *ns = cJSON_CreateObject();
		const struct kube_resource *ns_res;
		int rc;
		cJSON_AddStringToObject(ns, "apiVersion", "v1");
		cJSON_AddStringToObject(ns, "kind", "Namespace");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(ns, "metadata"),
					"name", r->o->inventory_ns);
		rc = resource_of(r, "v1", "Namespace", &ns_res) < 0 ||
		     kube_apply(r->k, ns_res, ns, r->o->field_manager, 1, 0,
				NULL, r->err) < 0;
		cJSON_Delete(ns);
		if (rc)
			return -1;
	}
	return write_parent(r, r->cm_res, r->cluster, r->parent_name,
			    &r->live_parent, &r->next);
}

/*
 * final_estimate: the inventory a real run will write last, if every
 * planned DELETE succeeds: the desired entries and the stale ones kept
 */
static void final_estimate(struct run *r, struct inventory *fin)
{
	/* a created object gets its UID and proof after the superset was
	 * written: count them at their length */
	for (size_t i = 0; i < r->nw; i++)
		inv_push(fin, &r->w[i].id,
			 r->w[i].uid ? r->w[i].uid
				     : "00000000-0000-0000-0000-000000000000",
			 r->w[i].shared_with,
			 r->w[i].shared_with ? NULL
					     : "v1.0123456789012345678901");
	for (size_t m = 0; m < r->nst; m++) {
		struct kobj_id oid;
		struct prune_step s;
		entry_ident(r->st[m].e, &oid);
		s = owner_prune_step(r->st[m].v, is_namespace(&oid), r->o->prune,
				     r->o->prune_namespaces, r->o->held_detail, 0);
		if (s.keep != KEEP_NONE && !s.delete_)
			inv_push(fin, &oid, r->st[m].e->uid, r->st[m].e->shared,
				 r->st[m].e->proof);
	}
}

/*
 * write_superset_in_two: the superset does not fit in one ConfigMap (a
 * rename near the limit: old and new names together). The parent keeps
 * the old entries; the ones being added go to the ConfigMap
 * <parent>-pending, written first, and the parent gets the annotation
 * that names it (a crash in between leaves a part nobody reads, and
 * nothing applied yet). The final write (prune_all) lists what is left in
 * the parent alone and drops the note; the part is then deleted.
 * check_final_fits has refused the run before any write when that final
 * inventory would not fit.
 */
static int check_final_fits(struct run *r)
{
	struct inventory fin = { 0 };
	size_t max = inventory_max(r), fsize;

	final_estimate(r, &fin);
	fsize = inv_size(r, &fin);
	if (fsize > max)
		err_set(r->err, ERR_INVALID,
			"inventory %s would list %zu objects in %zu bytes after "
			"this run, more than a ConfigMap holds (%zu bytes of "
			"data); nothing was written. %s",
			r->rep->inventory, fin.nr, fsize, max,
			r->o->prune ? "Split the cluster's objects over two "
				      "clusters (two intents)"
				    : "A rename keeps the old objects without "
				      "--prune: run with --prune, or rename in "
				      "parts");
	inv_release(&fin);
	return fsize > max ? -1 : 0;
}

static int write_superset_in_two(struct run *r)
{
	struct inventory add = { 0 }, keep = { 0 };
	cJSON *part = NULL, *md, *l;
	char *name = xasprintf("%s-pending", r->parent_name);
	int ret = -1;

	for (size_t i = 0; i < r->next.nr; i++)
		if (!inv_find(&r->inv_old, &r->next.e[i].id))
			inv_push(&add, &r->next.e[i].id, r->next.e[i].uid,
				 r->next.e[i].shared, r->next.e[i].proof);
	for (size_t i = 0; i < r->inv_old.nr; i++)
		inv_push(&keep, &r->inv_old.e[i].id, r->inv_old.e[i].uid,
			 r->inv_old.e[i].shared, r->inv_old.e[i].proof);
	part = parent_object(r, r->cluster, &add, name);
	md = cJSON_GetObjectItemCaseSensitive(part, "metadata");
	cJSON_DeleteItemFromObjectCaseSensitive(md, "annotations");
	l = cJSON_GetObjectItemCaseSensitive(md, "labels");
	/* not an ApplySet parent: other inventories' LISTs skip it */
	cJSON_DeleteItemFromObjectCaseSensitive(l, "applyset.kubernetes.io/id");
	cJSON_DeleteItemFromObjectCaseSensitive(l, "app.kubernetes.io/managed-by");
	cJSON_AddStringToObject(l, "gpuform.io/inventory-part", "pending");
	if (kube_apply(r->k, r->cm_res, part, r->o->field_manager, 1, 0, NULL,
		       r->err) < 0)
		goto out;
	r->pending_seen = 1;
	r->pending_on = 1;
	ret = write_parent(r, r->cm_res, r->cluster, r->parent_name,
			   &r->live_parent, &keep);
out:
	cJSON_Delete(part);
	inv_release(&add);
	inv_release(&keep);
	free(name);
	return ret;
}

/* drop_pending: after the final write, the part it replaced */
static int drop_pending(struct run *r)
{
	char *name = xasprintf("%s-pending", r->parent_name);
	int deleted = 0, ret;

	ret = kube_delete(r->k, r->cm_res, r->o->inventory_ns, name, NULL, NULL,
			  0, &deleted, r->err);
	free(name);
	return ret;
}

/* apply_all: the planned writes, in apply order; the first failure stops */
static int keepalive(struct run *r)
{
	return r->o->keepalive ? r->o->keepalive(r->o->keepalive_ctx, r->err)
			       : 0;
}

static int apply_all(struct run *r)
{

	for (size_t i = 0; i < r->nw; i++) {
		struct want *x = &r->w[i];
		cJSON *result = NULL;
		const char *uid;
		if (!x->needs_write)
			continue;
		if (keepalive(r) < 0 ||
		    kube_apply(r->k, x->res, x->obj, r->o->field_manager,
			       x->force, 0, &result, r->err) < 0) {
			set_action(r->rep, &r->rep->items[x->item], RA_FAILED,
				   err_msg(r->err));
			unplan(r->rep, r->w, r->nw, i + 1, "not applied: the run "
							   "stopped at an earlier "
							   "error");
			return -1;
		}
		uid = json_meta_at(result, "uid", NULL);
		free(x->uid);
		x->uid = uid ? xstrdup(uid) : NULL;
		cJSON_Delete(result);
	}
	return 0;
}

/*
 * delete_one: DELETE a stale object with preconditions — the UID we
 * recorded and the resourceVersion we listed (with our label on it): a
 * label removed or anything changed since is a 409, and the object stays.
 * Reports the outcome and keeps the entry unless it is gone.
 */
static void delete_one(struct run *r, struct stale *s, const struct kobj_id *oid,
		       struct inventory *final)
{
	struct inv_entry *e = s->e;
	const struct kube_resource *res;
	/* through the version the LIST found it at: the entry's own may no
	 * longer be served (a CRD version dropped since it was recorded) */
	const char *av = json_str(s->live, "apiVersion");
	int deleted = 0;
	struct err de = ERR_INIT;

	if (resource_of(r, av ? av : e->id.api_version, e->id.kind, &res) == 0 &&
	    kube_delete(r->k, res, e->id.ns, e->id.name, e->uid,
			json_meta_at(s->live, "resourceVersion", NULL), 0,
			&deleted, &de) == 0) {
		err_release(&de);
		add_item(r->rep, oid, RA_PRUNED, NULL);
		return;
	}
	inv_push(final, oid, e->uid, NULL, e->proof); /* the next run looks again */
	if (de.code == ERR_CONFLICT) {
		add_item(r->rep, oid, RA_SKIPPED,
			 "changed since it was listed (UID or resourceVersion "
			 "precondition failed): not pruned; the next run looks "
			 "again");
		err_release(&de);
		return;
	}
	if (de.code == ERR_NONE)
		err_set(&de, r->err->code, "%s", err_msg(r->err));
	add_item(r->rep, oid, RA_FAILED, err_msg(&de));
	if (!r->failures++)
		r->first_fail = xstrdup(err_msg(&de));
	err_release(&de);
}

/* prune_all: prune last, in reverse dependency order, then write the
 * inventory of what is left */
static int prune_all(struct run *r)
{
	struct inventory final = { 0 };
	int ret, fail = 0;

	/* every object this run wrote or found ours gets its proof */
	for (size_t i = 0; i < r->nw && !fail; i++) {
		char *proof = sign_entry(r, &r->w[i], &fail);
		inv_push(&final, &r->w[i].id, r->w[i].uid, r->w[i].shared_with,
			 proof);
		free(proof);
	}
	if (fail) {
		inv_release(&final);
		return -1;
	}
	sort_stale_apply_order(r);
	for (size_t m = r->nst; m-- > 0;) {
		struct kobj_id oid;
		struct prune_step s;
		entry_ident(r->st[m].e, &oid);
		s = owner_prune_step(r->st[m].v, is_namespace(&oid), r->o->prune,
				     r->o->prune_namespaces, r->o->held_detail, 0);
		if (s.report)
			add_item(r->rep, &oid, s.pruned ? RA_PRUNED : RA_SKIPPED,
				 s.why);
		if (!s.delete_) {
			if (s.keep != KEEP_NONE)
				inv_push(&final, &oid, r->st[m].e->uid,
					 s.keep == KEEP_AS_IS ? r->st[m].e->shared
							      : NULL,
					 r->st[m].e->proof);
			continue;
		}
		if (keepalive(r) < 0) {
			inv_release(&final);
			return -1;
		}
		delete_one(r, &r->st[m], &oid, &final);
	}
	if (r->pending_on && inv_size(r, &final) > inventory_max(r)) {
		/* prunes failed: the parent and its part still hold it all */
		inv_release(&final);
		return 0;
	}
	r->pending_on = 0;
	ret = write_parent(r, r->cm_res, r->cluster, r->parent_name,
			   &r->live_parent, &final);
	inv_release(&final);
	if (ret == 0 && r->pending_seen)
		ret = drop_pending(r);
	return ret;
}

/* finish: a run that wrote what it could still fails for what it could
 * not prune or was held back */
static int finish(struct run *r)
{
	if (r->failures)
		return err_set(r->err, ERR_HTTP,
			       "%d object%s could not be pruned (first: %s); "
			       "they stay in the inventory for the next run",
			       r->failures, r->failures == 1 ? "" : "s",
			       r->first_fail ? r->first_fail : "?");
	if (r->held)
		return err_set(r->err, ERR_CONFLICT,
			       "%zu change%s held back (%s); everything else "
			       "was applied",
			       r->held, r->held == 1 ? " was" : "s were",
			       r->o->held_detail ? r->o->held_detail
						 : "by the guard");
	if (r->o->prune) {
		size_t unseen = 0;
		for (size_t i = 0; i < r->nst; i++)
			unseen += r->st[i].v == PRUNE_UNSEEN;
		if (unseen)
			return err_set(r->err, ERR_CONFLICT,
				       "%zu object%s not pruned: %s; everything "
				       "else was applied",
				       unseen, unseen == 1 ? " was" : "s were",
				       r->damaged_other);
	}
	if (r->unsigned_nr)
		return err_set(r->err, ERR_AUTH,
			       "%zu inventory entr%s recorded without an "
			       "ownership proof, so a later --prune will not "
			       "delete %s: %s (this identity needs get, and "
			       "once create, on that Secret; `gpuform install` "
			       "grants it); everything else was applied",
			       r->unsigned_nr,
			       r->unsigned_nr == 1 ? "y was" : "ies were",
			       r->unsigned_nr == 1 ? "that object" : "those objects",
			       r->key_why ? r->key_why : "no ownership key");
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

static void run_init(struct run *r, struct kube *k, const char *cluster,
		     const struct recon_opts *opts, struct recon_report *rep,
		     struct err *err)
{
	struct buf b = BUF_INIT;

	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	if (!r->opts.field_manager)
		r->opts.field_manager = RECON_FIELD_MANAGER;
	if (!r->opts.inventory_ns)
		r->opts.inventory_ns = RECON_INVENTORY_NS;
	r->o = &r->opts;
	r->k = k;
	r->rep = rep;
	r->err = err;
	r->old = &r->inv_old;
	r->live = cJSON_CreateArray();
	r->cluster = cluster;
	r->before = *kube_get_stats(k);
	rep->cluster = xstrdup(cluster);
	rep->dry_run = r->o->dry_run;
	if (r->o->source_commit)
		rep->source_commit = xstrdup(r->o->source_commit);
	r->parent_name = xasprintf("gpuform-%s", cluster);
	rep->inventory = xasprintf("%s/%s", r->o->inventory_ns, r->parent_name);
	recon_applyset_id(r->parent_name, r->o->inventory_ns, &b);
	r->applyset_id = buf_detach(&b, NULL);
}

/* the requests of this run: the client's counters now minus at the start */
static void run_stats(struct run *r)
{
	const struct kube_stats *now = kube_get_stats(r->k);
	const struct kube_stats *b = &r->before;
	struct kube_stats *s = &r->rep->stats;

	s->requests = now->requests - b->requests;
	s->gets = now->gets - b->gets;
	s->lists = now->lists - b->lists;
	s->applies = now->applies - b->applies;
	s->dry_runs = now->dry_runs - b->dry_runs;
	s->deletes = now->deletes - b->deletes;
	s->creates = now->creates - b->creates;
	s->others = now->others - b->others;
	s->writes = now->writes - b->writes;
	s->retries = now->retries - b->retries;
}

static void run_release(struct run *r)
{
	for (size_t i = 0; r->w && i < r->nw; i++) {
		free(r->w[i].uid);
		free(r->w[i].key);
		cJSON_Delete(r->w[i].next);
	}
	free(r->slots);
	free(r->w);
	inv_release(&r->inv_old);
	inv_release(&r->next);
	inv_release(&r->others);
	free(r->st);
	free(r->damaged_other);
	free(r->key_why);
	digest_wipe(r->key, sizeof(r->key));
	buf_release(&r->labelled_list);
	cJSON_Delete(r->live_parent);
	cJSON_Delete(r->live);
	for (size_t i = 0; i < r->ntypes; i++) {
		free(r->types[i]->api_version);
		free(r->types[i]->kind);
		free(r->types[i]->res.group);
		free(r->types[i]->res.version);
		free(r->types[i]->res.kind);
		free(r->types[i]->res.resource);
		free(r->types[i]);
	}
	free(r->types);
	free(r->applyset_id);
	free(r->first_fail);
	free(r->parent_name);
}

/*
 * recon_run: read (inventory, one LIST per kind), plan (each object's
 * action, ownership), dry-run every write, plan the prune, let the guard
 * speak, then — unless a dry run — write the inventory superset, apply,
 * prune and write the final inventory. Every step that plans is pure
 * (plan_objects, plan_prune, plan_shared; owner_prune_step); every step that
 * talks to the API says so in its name.
 */
/* check_source: the commit the inventory was last reconciled from must be
 * in the history of the one applied now (recon_opts.source_check) */
static int check_source(struct run *r)
{
	const char *rec = json_str_at(r->live_parent, "data", "sourceCommit");

	if (!r->o->source_check || !r->o->source_commit || !rec ||
	    !strcmp(rec, r->o->source_commit))
		return 0;
	return r->o->source_check(r->o->source_check_ctx, rec, r->err);
}

int recon_run(struct recon_report *out, struct kube *k, const char *cluster,
	      cJSON *desired, const struct recon_opts *opts, struct err *err)
{
	struct run r;
	size_t deletable = 0;
	int ret = -1;

	run_init(&r, k, cluster, opts, out, err);
	if (identify_desired(&r, desired) < 0 || read_inventory(&r) < 0 ||
	    check_source(&r) < 0 || list_all(&r) < 0 || keepalive(&r) < 0)
		goto out;
	plan_objects(&r);
	if (dry_run_all(&r) < 0 || keepalive(&r) < 0 ||
	    read_prune_key(&r) < 0 || plan_prune(&r, &deletable) < 0 ||
	    confirm_gone(&r) < 0 || read_shared(&r, deletable) < 0 ||
	    (r.o->guard && call_guard(&r) < 0))
		goto out;
	if (r.o->dry_run) {
		report_dry_prune(&r);
		ret = 0;
		goto out;
	}
	if (keepalive(&r) < 0 || write_superset(&r) < 0 || apply_all(&r) < 0 ||
	    keepalive(&r) < 0 || prune_all(&r) < 0 ||
	    finish(&r) < 0)
		goto out;
	ret = 0;
out:
	run_stats(&r);
	run_release(&r);
	return ret;
}
