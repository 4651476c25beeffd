/*
 * reconcile/inventory.c: the ApplySet parent and the ownership key (see
 * inventory.h). A step of a run (reconcile/engine.h); talks to the API
 * only through kube.h.
 */
#include "reconcile/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "reconcile/compare.h"
#include "reconcile/engine.h"
#include "reconcile/identity.h"
#include "reconcile/owner.h"
#include "reconcile/planner.h"
#include "util/base64.h"
#include "util/digest.h"
#include "util/json.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

/* ---- the entries -------------------------------------------------------- */

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void inv_unindex(struct inventory *inv);

/* inv_push: append an entry; callers keep entries unique. The index is
 * dropped: inv_index() builds it again when needed */
void inv_push(struct inventory *inv, const struct kobj_id *id,
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
		for (h = recon_key_hash(inv->keys[i]) & (inv->cap - 1);
		     inv->slots[h]; h = (h + 1) & (inv->cap - 1))
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

void inv_release(struct inventory *inv)
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

void inv_entry_id(const struct inv_entry *e, struct kobj_id *id)
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
		inv_entry_id(&inv->e[i], &id);
		kobj_key(&id, &k);
		inv->keys[i] = xstrdup(buf_cstr(&k));
		for (h = recon_key_hash(inv->keys[i]) & (inv->cap - 1);
		     inv->slots[h]; h = (h + 1) & (inv->cap - 1))
			;
		inv->slots[h] = i + 1;
	}
	buf_release(&k);
}

/* inv_find: the entry with this identity (any version), or NULL */
struct inv_entry *inv_find(struct inventory *inv, const struct kobj_id *id)
{
	struct buf k = BUF_INIT;
	struct inv_entry *found = NULL;

	if (!inv->nr)
		return NULL;
	if (!inv->slots)
		inv_index(inv);
	kobj_key(id, &k);
	for (size_t h = recon_key_hash(buf_cstr(&k)) & (inv->cap - 1);
	     inv->slots[h]; h = (h + 1) & (inv->cap - 1)) {
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
int inv_apply_order(const void *a, const void *b)
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
	return recon_want_find(r, id) >= 0 || inv_find(r->old, id) != NULL;
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
				inv_entry_id(&theirs.e[i], &id);
				if (!known_entry(r, &id) && !inv_find(inv, &id))
					inv_push(inv, &id, theirs.e[i].uid,
						 theirs.e[i].shared,
						 theirs.e[i].proof);
			}
			inv_release(&theirs);
		}
		parent = parent_object(r, cluster, inv, name);
		if (*live_parent && compare_subset_equal(parent, *live_parent)) {
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
 * inv_read_key: the ownership key, read once per run (one GET); `create`: a
 * run about to write a proof creates the Secret when there is none. A
 * Secret this identity may not read (403) or that holds no key leaves
 * KEY_UNREADABLE: nothing is proven, nothing signed. -1 on other API
 * errors.
 */
int inv_read_key(struct run *r, int create)
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

/* inv_entry_proven: does an inventory entry carry a valid proof? */
int inv_entry_proven(const struct run *r, const struct inv_entry *e)
{
	return r->key_state == KEY_OK &&
	       owner_proof_ok(r->key, sizeof(r->key), r->applyset_id, &e->id,
			      e->uid, e->proof);
}

/*
 * inv_sign_entry: the proof an entry for a desired object gets: the one it
 * had, when its UID is the same (proofs are checked when they are used,
 * at prune), else a new one under the key (created when there is none).
 * NULL without a UID, for a shared object, or when the key cannot be read
 * (counted: apply_finish() says so). Returns a new string.
 */
char *inv_sign_entry(struct run *r, const struct want *x, int *fail)
{
	const struct inv_entry *old = inv_find(r->old, &x->id);
	struct buf p = BUF_INIT;

	if (!x->uid || x->shared_with)
		return NULL;
	if (old && old->proof && old->uid && !strcmp(old->uid, x->uid))
		return xstrdup(old->proof);
	if (inv_read_key(r, 1) < 0) {
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
 * inv_read_others: the data.inventory of every other gpuform inventory
 * on the server (one LIST across all namespaces), merged into *all. When
 * that LIST is forbidden, or one inventory is damaged, *damaged says so:
 * then no object is pruned (PRUNE_UNSEEN). Listing only the inventory
 * namespace is not enough — another cluster's inventory may live in
 * another namespace (install --namespace) and list the same shared
 * object.
 */
int inv_read_others(struct run *r, const struct kube_resource *cm,
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
		if (recon_resource_of(r, av, kd, &res) == 0 &&
		    kube_list(r->k, res,
			      i >= r->nw && res->namespaced
				      ? recon_fixed_namespace(av, kd)
				      : NULL,
			      sel, &items, r->err) < 0 &&
		    r->err->code == ERR_AUTH && res->namespaced) {
			err_clear(r->err);
			recon_list_in_namespaces(r, res, kd, inv, sel, &items);
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
				recon_add_item(
					r->rep, &id, RA_SKIPPED,
					"labelled for this cluster, but the "
					"label was not applied by gpuform: left "
					"out of the rebuilt inventory");
		}
		cJSON_Delete(items);
	}
	for (size_t j = 0; j < nseen; j++)
		free(seen[j]);
	free(seen);
	free(sel);
	return ret;
}

/* inv_read_prune_key: the ownership key, when a stale entry carries a proof
 * to check (one GET; a run with nothing stale makes none) */
int inv_read_prune_key(struct run *r)
{
	for (size_t i = 0; i < r->inv_old.nr; i++) {
		const struct inv_entry *e = &r->inv_old.e[i];
		if (e->proof && !e->shared && recon_want_find(r, &e->id) < 0)
			return inv_read_key(r, 0);
	}
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

/*
 * read_pending: the entries a run added in a second ConfigMap because the
 * superset did not fit in one (inv_write_superset) — named by the parent's
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

/* inv_read: the parent ConfigMap, refused when another tool owns
 * it or it is damaged (unless rebuilding it) */
int inv_read(struct run *r)
{
	const char *tool;
	struct buf why = BUF_INIT;
	int ret = 0;

	if (recon_resource_of(r, "v1", "ConfigMap", &r->cm_res) < 0 ||
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

/* ---- writing ------------------------------------------------------------- */

static int write_superset_in_two(struct run *r);
static int check_final_fits(struct run *r);

/* inv_write_superset: the inventory, old entries and new ones, before any
 * object is written, so a crash loses nothing (and the namespace it lives
 * in, the first time) */
int inv_write_superset(struct run *r)
{
	const struct inventory *old = &r->inv_old;
	int any = r->o->rebuild_inventory;
	size_t size;

	for (size_t i = 0; i < old->nr; i++) {
		struct kobj_id oid;
		inv_entry_id(&old->e[i], &oid);
		if (recon_want_find(r, &oid) < 0)
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
		rc = recon_resource_of(r, "v1", "Namespace", &ns_res) < 0 ||
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
		inv_entry_id(r->st[m].e, &oid);
		s = owner_prune_step(r->st[m].v, recon_is_namespace(&oid),
				     r->o->prune, r->o->prune_namespaces,
				     r->o->held_detail, 0);
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
 * nothing applied yet). The final write (apply_prune) lists what is left in
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

/*
 * inv_write_final: after the prune, the inventory of what is left
 * (`final`) in the parent alone, without the pending note; the part it
 * replaced is then deleted. When prunes failed and what is left still
 * does not fit, nothing is written: the parent and its part hold it all.
 */
int inv_write_final(struct run *r, struct inventory *final)
{
	int ret;

	if (r->pending_on && inv_size(r, final) > inventory_max(r))
		return 0;
	r->pending_on = 0;
	ret = write_parent(r, r->cm_res, r->cluster, r->parent_name,
			   &r->live_parent, final);
	if (ret == 0 && r->pending_seen)
		ret = drop_pending(r);
	return ret;
}
