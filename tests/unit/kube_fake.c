/*
 * tests/unit/kube_fake.c: the in-memory Kubernetes API of the unit tests
 * (see kube_fake.h).
 */
#include "tests/unit/kube_fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/kobj.h"
#include "kube/kubejson.h"
#include "util/vec.h"
#include "util/xalloc.h"

static const char *const op_names[] = { "DISCOVERY", "GET",    "LIST",
					"APPLY",     "DRYRUN", "DELETE",
					"CREATE",    "UPDATE", "PATCH" };

static struct kube_fake *fake_of(struct kube *k)
{
	return (struct kube_fake *)k;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static cJSON *md_of(const cJSON *o)
{
	return cJSON_GetObjectItemCaseSensitive(o, "metadata");
}

static void set_str(cJSON *o, const char *k, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddStringToObject(o, k, v);
}

/* group of an apiVersion, in buf */
static const char *group_of(const char *av, char *buf, size_t n)
{
	const char *slash = av ? strchr(av, '/') : NULL;
	size_t len;

	if (!slash)
		return "";
	len = (size_t)(slash - av) < n - 1 ? (size_t)(slash - av) : n - 1;
	memcpy(buf, av, len);
	buf[len] = '\0';
	return buf;
}

void kube_fake_serve(struct kube_fake *f, const char *av, const char *kind,
		  const char *resource, int namespaced)
{
	struct kube_resource *r;
	const char *slash = strchr(av, '/');

	GROW(f->served, f->nserved + 1, f->served_alloc);
	r = &f->served[f->nserved++];
	r->group = slash ? xstrndup(av, (size_t)(slash - av)) : xstrdup("");
	r->version = xstrdup(slash ? slash + 1 : av);
	r->kind = xstrdup(kind);
	r->resource = xstrdup(resource);
	r->namespaced = namespaced;
}

/* ---- faults, hook, log ---------------------------------------------------- */

/* enter: log the call, run the hook, fire a fault that is due (-1) */
static int enter(struct kube_fake *f, enum fake_op op, const char *kind,
		 const char *ns, const char *name, struct err *err)
{
	buf_addf(&f->log, "%s %s %s/%s\n", op_names[op], kind ? kind : "?",
		 ns ? ns : "", name ? name : "");
	if (f->hook)
		f->hook(f, op, kind, ns, name, f->hook_ctx);
	if (kind && ((f->forbid_kind && !strcmp(kind, f->forbid_kind)) ||
		     (op == FAKE_LIST && !ns && f->forbid_all_namespaces &&
		      !strcmp(kind, f->forbid_all_namespaces))))
		return err_set(err, ERR_AUTH, "%s %s: forbidden (403)",
			       op_names[op], kind);
	for (int i = 0; i < f->nfaults; i++) {
		if (f->faults[i].op != op ||
		    (f->faults[i].kind && kind && strcmp(f->faults[i].kind, kind)))
			continue;
		if (f->faults[i].after-- > 0)
			continue;
		err_set(err, f->faults[i].code, "%s", f->faults[i].msg);
		free(f->faults[i].msg);
		f->faults[i] = f->faults[--f->nfaults];
		return -1;
	}
	return 0;
}

void kube_fake_fail(struct kube_fake *f, enum fake_op op, int after,
		    const char *kind, enum err_code code, const char *msg)
{
	if (f->nfaults >= (int)(sizeof(f->faults) / sizeof(f->faults[0])))
		BUG("kube_fake: too many faults");
	f->faults[f->nfaults].op = op;
	f->faults[f->nfaults].after = after;
	f->faults[f->nfaults].kind = kind;
	f->faults[f->nfaults].code = code;
	f->faults[f->nfaults].msg = xstrdup(msg);
	f->nfaults++;
}

int kube_fake_count(const struct kube_fake *f, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = buf_cstr(&f->log); *p;) {
		if (!strncmp(p, prefix, len))
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static void count(struct kube_fake *f, enum fake_op op)
{
	struct kube_stats *s = &f->base.stats;

	s->requests++;
	switch (op) {
	case FAKE_DISCOVERY:
	case FAKE_GET:
		s->gets++;
		break;
	case FAKE_LIST:
		s->lists++;
		break;
	case FAKE_APPLY:
		s->applies++;
		s->writes++;
		break;
	case FAKE_DRY_RUN:
		s->dry_runs++;
		break;
	case FAKE_DELETE:
		s->deletes++;
		s->writes++;
		break;
	case FAKE_CREATE:
		s->creates++;
		s->writes++;
		break;
	case FAKE_UPDATE:
	case FAKE_PATCH:
		s->others++;
		s->writes++;
		break;
	case FAKE_OP_MAX:
		break;
	}
}

/* served: a kind the API server no longer serves answers 404 as the REST
 * client reports it */
static int served(struct kube_fake *f, const struct kube_resource *r,
		  const char *what, struct err *err)
{
	for (size_t i = 0; i < f->nserved; i++)
		if (!strcmp(f->served[i].group, r->group) &&
		    !strcmp(f->served[i].kind, r->kind))
			return 0;
	return err_set(err, ERR_HTTP,
		       "%s %s: the server could not find the requested "
		       "resource (404 Not Found)",
		       what, r->resource);
}

/* ---- the store ------------------------------------------------------------ */

static int same(const cJSON *o, const char *group, const char *kind,
		const char *ns, const char *name)
{
	char g[128];
	const char *ons = jstr(md_of(o), "namespace");

	return !strcmp(jstr(o, "kind"), kind) &&
	       !strcmp(group_of(jstr(o, "apiVersion"), g, sizeof(g)), group) &&
	       !strcmp(ons ? ons : "", ns ? ns : "") &&
	       !strcmp(jstr(md_of(o), "name"), name);
}

static cJSON *find(struct kube_fake *f, const struct kube_resource *r,
		   const char *ns, const char *name)
{
	cJSON *o;

	cJSON_ArrayForEach(o, f->objects)
	{
		if (same(o, r->group, r->kind, r->namespaced ? ns : NULL, name))
			return o;
	}
	return NULL;
}

cJSON *kube_fake_find(struct kube_fake *f, const char *kind, const char *ns,
		      const char *name)
{
	cJSON *o;

	cJSON_ArrayForEach(o, f->objects)
	{
		const char *ons = jstr(md_of(o), "namespace");
		if (!strcmp(jstr(o, "kind"), kind) &&
		    !strcmp(jstr(md_of(o), "name"), name) &&
		    !strcmp(ons ? ons : "", ns ? ns : ""))
			return o;
	}
	return NULL;
}

int kube_fake_remove(struct kube_fake *f, const char *kind, const char *ns,
		     const char *name)
{
	cJSON *o = kube_fake_find(f, kind, ns, name);

	if (!o)
		return 0;
	cJSON_Delete(cJSON_DetachItemViaPointer(f->objects, o));
	return 1;
}

static void new_rv(struct kube_fake *f, cJSON *o)
{
	char rv[32];

	snprintf(rv, sizeof(rv), "%ld", ++f->rev);
	set_str(md_of(o), "resourceVersion", rv);
}

void kube_fake_touch(cJSON *obj, struct kube_fake *f)
{
	new_rv(f, obj);
}

/* fieldsV1 of what obj sets (the fields a manager that applied it owns) */
static cJSON *fields_of(const cJSON *obj, int top)
{
	cJSON *fs = cJSON_CreateObject();
	const cJSON *kid;

	cJSON_ArrayForEach(kid, obj)
	{
		char *key;
		if (top && (!strcmp(kid->string, "apiVersion") ||
			    !strcmp(kid->string, "kind") ||
			    !strcmp(kid->string, "status")))
			continue;
		if (top == 2 && (!strcmp(kid->string, "name") ||
				 !strcmp(kid->string, "namespace") ||
				 !strcmp(kid->string, "uid") ||
				 !strcmp(kid->string, "resourceVersion") ||
				 !strcmp(kid->string, "managedFields")))
			continue;
		key = xasprintf("f:%s", kid->string);
		if (cJSON_IsObject(kid) && kid->child)
			cJSON_AddItemToObject(fs, key,
					      fields_of(kid, !strcmp(kid->string,
								     "metadata") && top
							     ? 2 : 0));
		else
			cJSON_AddObjectToObject(fs, key);
		free(key);
	}
	return fs;
}

static void set_manager(cJSON *o, const char *manager, const char *op,
			cJSON *fields)
{
	cJSON *md = md_of(o), *mf = cJSON_GetObjectItemCaseSensitive(md, "managedFields");
	cJSON *e, *ne;

	if (!mf)
		mf = cJSON_AddArrayToObject(md, "managedFields");
	cJSON_ArrayForEach(e, mf)
	{
		if (!strcmp(jstr(e, "manager"), manager) &&
		    !strcmp(jstr(e, "operation"), op)) {
			cJSON_ReplaceItemInObjectCaseSensitive(e, "fieldsV1", fields);
			return;
		}
	}
	ne = cJSON_CreateObject();
	cJSON_AddStringToObject(ne, "manager", manager);
	cJSON_AddStringToObject(ne, "operation", op);
	cJSON_AddStringToObject(ne, "apiVersion", jstr(o, "apiVersion"));
	cJSON_AddItemToObject(ne, "fieldsV1", fields);
	cJSON_AddItemToArray(mf, ne);
}

cJSON *kube_fake_put(struct kube_fake *f, const cJSON *obj, const char *manager)
{
	cJSON *o = cJSON_Duplicate(obj, 1), *md = md_of(o);

	if (!md)
		md = cJSON_AddObjectToObject(o, "metadata");
	if (!jstr(md, "uid")) {
		char uid[32];
		snprintf(uid, sizeof(uid), "uid-%ld", ++f->next_uid);
		cJSON_AddStringToObject(md, "uid", uid);
	}
	if (!jstr(md, "resourceVersion"))
		new_rv(f, o);
	if (manager)
		set_manager(o, manager, "Apply", fields_of(obj, 1));
	cJSON_AddItemToArray(f->objects, o);
	return o;
}

/* ---- server-side apply ---------------------------------------------------- */

/* fields `owned` (another manager's fieldsV1) that `obj` sets to a value
 * other than `live` has: appended to *paths; with `take`, removed from
 * owned (a forced apply takes them over) */
static void conflicts(cJSON *owned, const cJSON *obj, const cJSON *live,
		      struct buf *prefix, struct buf *paths, int take)
{
	cJSON *f = owned ? owned->child : NULL, *next;

	for (; f; f = next) {
		const cJSON *d, *l;
		size_t mark = prefix->len;
		next = f->next;
		if (strncmp(f->string, "f:", 2))
			continue;
		d = cJSON_GetObjectItemCaseSensitive(obj, f->string + 2);
		if (!d)
			continue;
		l = cJSON_GetObjectItemCaseSensitive(live, f->string + 2);
		buf_addf(prefix, ".%s", f->string + 2);
		if (cJSON_IsObject(d) && f->child) {
			conflicts(f, d, l, prefix, paths, take);
		} else if (!cJSON_IsObject(d) && !cJSON_Compare(d, l, 1)) {
			buf_addf(paths, "%s%s", paths->len ? ", " : "",
				 buf_cstr(prefix));
			if (take)
				cJSON_Delete(cJSON_DetachItemViaPointer(owned, f));
		}
		prefix->len = mark;
		prefix->ptr[mark] = '\0';
	}
}

/* remove from o the fields `old` (a manager's previous fieldsV1) owned
 * that `now` (what it applies) no longer has */
static void drop_released(cJSON *o, const cJSON *old, const cJSON *now)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, old)
	{
		const char *k;
		if (strncmp(f->string, "f:", 2))
			continue;
		k = f->string + 2;
		if (!cJSON_GetObjectItemCaseSensitive(now, k))
			cJSON_DeleteItemFromObjectCaseSensitive(o, k);
		else if (f->child)
			drop_released(cJSON_GetObjectItemCaseSensitive(o, k), f,
				      cJSON_GetObjectItemCaseSensitive(now, k));
	}
}

static void merge_into(cJSON *dst, const cJSON *src)
{
	const cJSON *kid;

	cJSON_ArrayForEach(kid, src)
	{
		cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, kid->string);
		if (cJSON_IsObject(kid) && cJSON_IsObject(d))
			merge_into(d, kid);
		else if (d)
			cJSON_ReplaceItemInObjectCaseSensitive(dst, kid->string,
							      cJSON_Duplicate(kid, 1));
		else
			cJSON_AddItemToObject(dst, kid->string,
					      cJSON_Duplicate(kid, 1));
	}
}

static const cJSON *mine(const cJSON *o, const char *manager)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(md_of(o), "managedFields"))
	{
		if (!strcmp(jstr(e, "manager"), manager) &&
		    !strcmp(jstr(e, "operation"), "Apply"))
			return cJSON_GetObjectItemCaseSensitive(e, "fieldsV1");
	}
	return NULL;
}

/* the apply of obj onto live (a copy; live NULL: a create) */
static int ssa(struct kube_fake *f, const cJSON *live, const cJSON *obj,
	       const char *manager, int force, cJSON **out, struct err *err)
{
	cJSON *res = live ? cJSON_Duplicate(live, 1) : NULL, *e, *clean;
	struct buf prefix = BUF_INIT, paths = BUF_INIT, all = BUF_INIT;
	const char *want_rv = jstr(md_of(obj), "resourceVersion");

	if (want_rv && (!live || strcmp(want_rv, jstr(md_of(live), "resourceVersion")))) {
		cJSON_Delete(res);
		return err_set(err, ERR_CONFLICT,
			       "Operation cannot be fulfilled on %s \"%s\": the "
			       "object has been modified",
			       jstr(obj, "kind"), jstr(md_of(obj), "name"));
	}
	clean = cJSON_Duplicate(obj, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(md_of(clean), "resourceVersion");
	if (!res) {
		*out = cJSON_Duplicate(clean, 1);
		set_manager(*out, manager, "Apply", fields_of(clean, 1));
		cJSON_Delete(clean);
		return 0;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(md_of(res), "managedFields"))
	{
		if (!strcmp(jstr(e, "manager"), manager))
			continue;
		buf_reset(&paths);
		conflicts(cJSON_GetObjectItemCaseSensitive(e, "fieldsV1"), clean,
			  live, &prefix, &paths, force);
		if (paths.len)
			buf_addf(&all, "%sconflict with \"%s\": %s",
				 all.len ? "; " : "", jstr(e, "manager"),
				 buf_cstr(&paths));
	}
	if (all.len && !force) {
		err_set(err, ERR_CONFLICT, "Apply failed with conflicts: %s",
			buf_cstr(&all));
		cJSON_Delete(res);
		res = NULL;
	} else {
		const cJSON *old = mine(res, manager);
		if (old)
			drop_released(res, old, clean);
		merge_into(res, clean);
		set_manager(res, manager, "Apply", fields_of(clean, 1));
	}
	cJSON_Delete(clean);
	buf_release(&prefix);
	buf_release(&paths);
	buf_release(&all);
	*out = res;
	return res ? 0 : -1;
}

/* ---- the operations ------------------------------------------------------- */

static int fake_resource_for(struct kube *k, const char *api_version,
			     const char *kind, const struct kube_resource **out,
			     struct err *err)
{
	struct kube_fake *f = fake_of(k);
	char g[128];
	const char *group = group_of(api_version, g, sizeof(g));
	const char *slash = strchr(api_version, '/');
	const char *version = slash ? slash + 1 : api_version;

	if (enter(f, FAKE_DISCOVERY, kind, NULL, api_version, err) < 0)
		return -1;
	for (size_t i = 0; i < f->nserved; i++)
		if (!strcmp(f->served[i].group, group) &&
		    !strcmp(f->served[i].version, version) &&
		    !strcmp(f->served[i].kind, kind)) {
			*out = &f->served[i];
			return 0;
		}
	return err_set(err, ERR_NOTFOUND,
		       "%s %s is not served by the API server at fake://",
		       api_version, kind);
}

static int fake_get(struct kube *k, const struct kube_resource *r,
		    const char *ns, const char *name, cJSON **out,
		    struct err *err)
{
	struct kube_fake *f = fake_of(k);
	cJSON *o;

	count(f, FAKE_GET);
	if (enter(f, FAKE_GET, r->kind, r->namespaced ? ns : NULL, name, err) < 0)
		return -1;
	o = find(f, r, ns, name);
	*out = o ? cJSON_Duplicate(o, 1) : NULL;
	return 0;
}

/* one selector term: "k", "k=v" or "k in (v1,v2)" */
static int term_holds(const cJSON *labels, const char *t, size_t len)
{
	char *s = xstrndup(t, len), *eq = strchr(s, '='), *in = strstr(s, " in (");
	const char *v;
	int ok;

	if (in) {
		char *vals = in + 5, *save = NULL, *x;
		*in = '\0';
		v = jstr(labels, s);
		ok = 0;
		vals[strcspn(vals, ")")] = '\0';
		for (x = strtok_r(vals, ",", &save); x && v && !ok;
		     x = strtok_r(NULL, ",", &save))
			ok = !strcmp(x, v);
	} else if (eq) {
		*eq = '\0';
		v = jstr(labels, s);
		ok = v && !strcmp(v, eq + 1);
	} else {
		ok = jstr(labels, s) != NULL;
	}
	free(s);
	return ok;
}

/* a label selector (terms joined by commas outside parentheses) against
 * an object's labels */
static int selected(const cJSON *o, const char *sel)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(md_of(o), "labels");
	const char *p = sel, *start = sel;
	int depth = 0;

	if (!sel || !*sel)
		return 1;
	for (;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if ((*p == ',' && !depth) || !*p) {
			if (!term_holds(labels, start, (size_t)(p - start)))
				return 0;
			if (!*p)
				return 1;
			start = p + 1;
		}
	}
}

static int fake_list(struct kube *k, const struct kube_resource *r,
		     const char *ns, const char *sel, cJSON **items_out,
		     struct err *err)
{
	struct kube_fake *f = fake_of(k);
	cJSON *items = cJSON_CreateArray(), *o;
	int n = 0;

	if (!r->namespaced || (ns && !*ns))
		ns = NULL;
	count(f, FAKE_LIST);
	if (enter(f, FAKE_LIST, r->kind, ns, "", err) < 0 ||
	    served(f, r, "list", err) < 0) {
		cJSON_Delete(items);
		return -1;
	}
	cJSON_ArrayForEach(o, f->objects)
	{
		char g[128];
		const char *ons = jstr(md_of(o), "namespace");
		if (strcmp(jstr(o, "kind"), r->kind) ||
		    strcmp(group_of(jstr(o, "apiVersion"), g, sizeof(g)), r->group) ||
		    (ns && (!ons || strcmp(ons, ns))) || !selected(o, sel))
			continue;
		/* one more page: counted as the REST client counts them */
		if (n && f->page_size > 0 && n % f->page_size == 0) {
			count(f, FAKE_LIST);
			if (enter(f, FAKE_LIST, r->kind, ns, "continue", err) < 0) {
				cJSON_Delete(items);
				return -1;
			}
		}
		cJSON_AddItemToArray(items, cJSON_Duplicate(o, 1));
		n++;
	}
	*items_out = items;
	return 0;
}

static const char *obj_ns(const struct kube_resource *r, const cJSON *obj,
			  const char *ns)
{
	const char *m = jstr(md_of(obj), "namespace");

	if (!r->namespaced)
		return NULL;
	return m && *m ? m : ns && *ns ? ns : "default";
}

static int fake_apply(struct kube *k, const struct kube_resource *r,
		      const cJSON *obj, const char *manager, int force,
		      int dry_run, cJSON **out, struct err *err)
{
	struct kube_fake *f = fake_of(k);
	const char *name = jstr(md_of(obj), "name"), *ns = obj_ns(r, obj, NULL);
	enum fake_op op = dry_run ? FAKE_DRY_RUN : FAKE_APPLY;
	cJSON *live, *res = NULL;

	count(f, op);
	if (enter(f, op, r->kind, ns, name, err) < 0 ||
	    served(f, r, "apply", err) < 0)
		return -1;
	live = find(f, r, ns, name);
	if (ssa(f, live, obj, manager, force, &res, err) < 0)
		return -1;
	if (ns)
		set_str(md_of(res), "namespace", ns);
	if (!live) {
		char uid[32];
		snprintf(uid, sizeof(uid), "uid-%ld", dry_run ? f->next_uid + 1
							      : ++f->next_uid);
		set_str(md_of(res), "uid", uid);
		if (!dry_run)
			new_rv(f, res);
	} else if (!cJSON_Compare(res, live, 1) && !dry_run) {
		new_rv(f, res);
	}
	if (!dry_run) {
		if (live)
			cJSON_ReplaceItemViaPointer(f->objects, live,
						    cJSON_Duplicate(res, 1));
		else
			cJSON_AddItemToArray(f->objects, cJSON_Duplicate(res, 1));
	}
	if (out)
		*out = res;
	else
		cJSON_Delete(res);
	return 0;
}

static int fake_delete(struct kube *k, const struct kube_resource *r,
		       const char *ns, const char *name, const char *uid,
		       const char *rv, int dry_run, int *deleted,
		       struct err *err)
{
	struct kube_fake *f = fake_of(k);
	enum fake_op op = dry_run ? FAKE_DRY_RUN : FAKE_DELETE;
	cJSON *o;

	ns = r->namespaced ? ns : NULL;
	count(f, op);
	if (enter(f, op, r->kind, ns, name, err) < 0 ||
	    served(f, r, "delete", err) < 0)
		return -1;
	o = find(f, r, ns, name);
	if (deleted)
		*deleted = 0;
	if (!o)
		return 0;
	if ((uid && *uid && strcmp(uid, jstr(md_of(o), "uid"))) ||
	    (rv && *rv && strcmp(rv, jstr(md_of(o), "resourceVersion"))))
		return err_set(err, ERR_CONFLICT,
			       "delete %s/%s: Precondition failed", r->kind,
			       name);
	if (!dry_run)
		cJSON_Delete(cJSON_DetachItemViaPointer(f->objects, o));
	if (deleted)
		*deleted = 1;
	return 0;
}

static int fake_create(struct kube *k, const struct kube_resource *r,
		       const char *ns, const cJSON *obj, cJSON **out,
		       struct err *err)
{
	struct kube_fake *f = fake_of(k);
	const char *name = jstr(md_of(obj), "name");
	cJSON *o;

	ns = obj_ns(r, obj, ns);
	count(f, FAKE_CREATE);
	if (enter(f, FAKE_CREATE, r->kind, ns, name, err) < 0)
		return -1;
	if (name && find(f, r, ns, name))
		return err_set(err, ERR_CONFLICT, "create %s/%s: already exists",
			       r->kind, name);
	o = kube_fake_put(f, obj, NULL);
	if (ns)
		set_str(md_of(o), "namespace", ns);
	if (out)
		*out = cJSON_Duplicate(o, 1);
	return 0;
}

static int fake_update(struct kube *k, const struct kube_resource *r,
		       const char *ns, const cJSON *obj, cJSON **out,
		       struct err *err)
{
	struct kube_fake *f = fake_of(k);
	const char *name = jstr(md_of(obj), "name");
	const char *rv = jstr(md_of(obj), "resourceVersion");
	cJSON *live, *o;

	ns = obj_ns(r, obj, ns);
	count(f, FAKE_UPDATE);
	if (enter(f, FAKE_UPDATE, r->kind, ns, name, err) < 0)
		return -1;
	live = find(f, r, ns, name);
	if (!live)
		return err_set(err, ERR_HTTP, "update %s/%s: not found (404 Not Found)",
			       r->kind, name);
	if (rv && strcmp(rv, jstr(md_of(live), "resourceVersion")))
		return err_set(err, ERR_CONFLICT, "update %s/%s: changed meanwhile",
			       r->kind, name);
	o = cJSON_Duplicate(obj, 1);
	set_str(md_of(o), "uid", jstr(md_of(live), "uid"));
	if (ns)
		set_str(md_of(o), "namespace", ns);
	new_rv(f, o);
	cJSON_ReplaceItemViaPointer(f->objects, live, o);
	if (out)
		*out = cJSON_Duplicate(o, 1);
	return 0;
}

static int fake_merge_patch(struct kube *k, const struct kube_resource *r,
			    const char *ns, const char *name,
			    const cJSON *patch, const char *manager,
			    cJSON **out, struct err *err)
{
	struct kube_fake *f = fake_of(k);
	cJSON *live;

	(void)manager;
	ns = r->namespaced ? ns : NULL;
	count(f, FAKE_PATCH);
	if (out)
		*out = NULL;
	if (enter(f, FAKE_PATCH, r->kind, ns, name, err) < 0)
		return -1;
	live = find(f, r, ns, name);
	if (!live)
		return 0;
	merge_into(live, patch);
	new_rv(f, live);
	if (out)
		*out = cJSON_Duplicate(live, 1);
	return 0;
}

static void fake_free(struct kube *k)
{
	struct kube_fake *f = fake_of(k);

	cJSON_Delete(f->objects);
	kubejson_resources_free(f->served, f->nserved);
	for (int i = 0; i < f->nfaults; i++)
		free(f->faults[i].msg);
	buf_release(&f->log);
	free(f);
}

static const struct kube_ops fake_ops = {
	"fake",		  fake_resource_for, fake_get,	  fake_list,
	fake_apply,	  fake_delete,	     fake_create, fake_update,
	fake_merge_patch, NULL,		     fake_free,
};

/* ---- life ----------------------------------------------------------------- */

struct kube_fake *kube_fake_new(void)
{
	struct kube_fake *f = xcalloc(1, sizeof(*f));

	f->base.ops = &fake_ops;
	f->objects = cJSON_CreateArray();
	f->page_size = 2;
	kube_fake_serve(f, "v1", "Event", "events", 1);
	kube_fake_serve(f, "v1", "Secret", "secrets", 1);
	kube_fake_serve(f, "coordination.k8s.io/v1", "Lease", "leases", 1);
	for (size_t i = 0; kobj_kinds[i].kind; i++)
		kube_fake_serve(f, kobj_kinds[i].api_version, kobj_kinds[i].kind,
		      kobj_kinds[i].resource, kobj_kinds[i].ns != NULL);
	return f;
}

struct kube *kube_fake_client(struct kube_fake *f)
{
	return &f->base;
}

void kube_fake_unserve(struct kube_fake *f, const char *api_version,
		       const char *kind)
{
	const struct kube_resource *r;
	struct err e = ERR_INIT;

	if (fake_resource_for(&f->base, api_version, kind, &r, &e) == 0)
		f->served[r - f->served].kind[0] = '\0';
	err_release(&e);
}

void kube_fake_free(struct kube_fake *f)
{
	if (f)
		kube_free(&f->base);
}
