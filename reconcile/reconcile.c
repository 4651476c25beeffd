/*
 * reconcile/reconcile.c: desired objects vs the live cluster (see
 * reconcile.h): one run, recon_run, and what it reads itself — the
 * desired set, one LIST per kind. The engine's other phases are in
 * inventory.c (the ApplySet parent, the ownership key), planner.c (what
 * to do), apply.c (dry runs, the guard, writes, prunes) and compare.c
 * (live vs desired); engine.h is the run they share. Talks to the API
 * only through kube.h.
 */
#include "reconcile/reconcile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "generator/crdrules.h"
#include "generator/kobj.h"
#include "generator/render.h"
#include "reconcile/apply.h"
#include "reconcile/compare.h"
#include "reconcile/engine.h"
#include "reconcile/identity.h"
#include "reconcile/inventory.h"
#include "reconcile/owner.h"
#include "reconcile/planner.h"
#include "util/digest.h"
#include "util/json.h"
#include "util/vec.h"
#include "util/xalloc.h"

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

size_t recon_known_count(void)
{
	size_t n = 0;

	while (kobj_kinds[n].kind)
		n++;
	return n;
}

size_t recon_key_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* want_find_key: index of the desired object with this identity key, or
 * -1 */
static long want_find_key(const struct run *r, const char *key)
{
	if (!r->cap)
		return -1;
	for (size_t h = recon_key_hash(key) & (r->cap - 1);;
	     h = (h + 1) & (r->cap - 1)) {
		size_t v = r->slots[h];
		if (!v)
			return -1;
		if (!strcmp(r->w[v - 1].key, key))
			return (long)(v - 1);
	}
}

long recon_want_find(const struct run *r, const struct kobj_id *id)
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
		for (h = recon_key_hash(r->w[i].key) & (r->cap - 1);
		     r->slots[h]; h = (h + 1) & (r->cap - 1))
			;
		r->slots[h] = i + 1;
	}
	buf_release(&k);
	return 0;
}

int recon_resource_of(struct run *r, const char *api_version,
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

/*
 * recon_served_version: the apiVersion to reach an inventory entry's group/kind
 * through. Its own when the server serves it; else (a CRD version that was
 * dropped) the desired set's version of the same group and kind, or the
 * one gpuform renders (kobj_kinds), if served: an object is one object at
 * every version. NULL when none is served (r->err cleared).
 */
const char *recon_served_version(struct run *r, const char *av,
				 const char *kind)
{
	const struct kube_resource *res;
	size_t gl = kobj_group_len(av);

	if (recon_resource_of(r, av, kind, &res) == 0)
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
		if (recon_resource_of(r, v, k, &res) == 0)
			return v;
		err_clear(r->err);
	}
	return NULL;
}

/* ---- report ---------------------------------------------------------------- */

struct recon_item *recon_add_item(struct recon_report *rep,
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

void recon_set_action(struct recon_report *rep, struct recon_item *it,
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

/* ---- the ApplySet id (the inventory: inventory.c) ------------------------ */

void recon_applyset_id(const char *name, const char *ns, struct buf *out)
{
	char *key = xasprintf("%s.%s.ConfigMap.", name, ns);

	buf_adds(out, "applyset-");
	digest_sha256_b64url(key, strlen(key), out);
	buf_adds(out, "-v1");
	free(key);
}
/* ---- listing ------------------------------------------------------------ */

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
 * recon_list_in_namespaces: LIST a namespaced kind in each namespace the
 * desired set or the old inventory has objects of it in — for credentials
 * that may touch the kind only there (`gpuform install` grants the
 * ConfigMaps it renders in kube-system only), when the LIST across all
 * namespaces is forbidden.
 */
int recon_list_in_namespaces(struct run *r, const struct kube_resource *res,
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
const char *recon_fixed_namespace(const char *api_version, const char *kind)
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

	if (recon_resource_of(r, api_version, kind, &res) < 0) {
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
				? recon_fixed_namespace(api_version, kind)
				: NULL,
			sel, &items, r->err);
	if (ret < 0 && r->err->code == ERR_AUTH && res->namespaced) {
		err_clear(r->err);
		ret = recon_list_in_namespaces(r, res, kind, old, sel, &items);
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
		wi = recon_want_find(r, &id);
		if (wi >= 0) {
			struct want *x = &r->w[wi];
			const cJSON *mine = compare_managed_entry(
				o, r->o->field_manager, "Apply");
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
			if (x->cls == OWNER_OURS &&
			    compare_subset_equal(x->obj, o) &&
			    !(mine && compare_owned_field_gone(
					      json_at(mine, "fieldsV1", NULL),
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

int recon_is_namespace(const struct kobj_id *id)
{
	return !strcmp(id->kind, "Namespace") && !strcmp(id->api_version, "v1");
}

/* ---- reading: the desired set, one LIST per kind ------------------------- */

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
		if (recon_resource_of(r, w[i].id.api_version, w[i].id.kind,
				      &w[i].res) < 0)
			return -1;
	}
	return index_wants(r, r->err);
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

	if (inv_read_key(r, 0) < 0) {
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
			if ((av = recon_served_version(r, av, kd)) == NULL)
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

int recon_keepalive(struct run *r)
{
	return r->o->keepalive ? r->o->keepalive(r->o->keepalive_ctx, r->err)
			       : 0;
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
 * (planner_objects, planner_prune, planner_read_shared's decision;
 * owner_prune_step); every step that talks to the API says so in its name
 * (or its module does: apply.c).
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
	if (identify_desired(&r, desired) < 0 || inv_read(&r) < 0 ||
	    check_source(&r) < 0 || list_all(&r) < 0 || recon_keepalive(&r) < 0)
		goto out;
	planner_objects(&r);
	if (apply_dry_run_all(&r) < 0 || recon_keepalive(&r) < 0 ||
	    inv_read_prune_key(&r) < 0 || planner_prune(&r, &deletable) < 0 ||
	    planner_confirm_gone(&r) < 0 ||
	    planner_read_shared(&r, deletable) < 0 ||
	    (r.o->guard && apply_guard(&r) < 0))
		goto out;
	if (r.o->dry_run) {
		apply_report_dry_prune(&r);
		ret = 0;
		goto out;
	}
	if (recon_keepalive(&r) < 0 || inv_write_superset(&r) < 0 ||
	    apply_objects(&r) < 0 || recon_keepalive(&r) < 0 ||
	    apply_prune(&r) < 0 || apply_finish(&r) < 0)
		goto out;
	ret = 0;
out:
	run_stats(&r);
	run_release(&r);
	return ret;
}
