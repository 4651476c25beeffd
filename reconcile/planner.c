/*
 * reconcile/planner.c: what a run does, from what it read (see
 * planner.h). The decisions are pure (reconcile/owner.h gives the
 * verdicts); the two reads they need are named so: planner_confirm_gone's
 * GET and planner_read_shared's LIST of the other inventories.
 */
#include "reconcile/planner.h"

#include <string.h>

#include "reconcile/compare.h"
#include "reconcile/engine.h"
#include "reconcile/inventory.h"
#include "reconcile/owner.h"
#include "util/json.h"
#include "util/xalloc.h"

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
	eq = compare_subset_equal(d, live);
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
 * planner_decide_owner: a desired object exists on the server and is not (known
 * to be) ours: conflict, adopt or share, by owner_write_decision. The item
 * says which and why. Returns 1 for a conflict.
 */
int planner_decide_owner(struct run *r, struct want *x)
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
		recon_set_action(r->rep, it, RA_CONFLICT, buf_cstr(&why));
		conflict = 1;
		break;
	case OW_WRITE:
		break;
	case OW_ADOPT:
		buf_adds(&why, "adopted (it existed: ");
		owner_evidence(x->live, &why);
		buf_adds(&why, ")");
		x->needs_write = 1;
		recon_set_action(r->rep, it, RA_CONFIGURED, buf_cstr(&why));
		break;
	case OW_SHARE:
		x->needs_write = 0;
		x->shared_with = other;
		buf_addf(&why, "shared: gpuform cluster '%s' owns it and it is "
			       "already as desired; recorded as shared, not written",
			 other);
		recon_set_action(r->rep, it, RA_UNCHANGED, buf_cstr(&why));
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
		recon_set_action(r->rep, it, RA_CONFLICT, buf_cstr(&why));
		conflict = 1;
		break;
	}
	buf_release(&why);
	return conflict;
}

/* the live object (or stub) with this identity, or NULL */
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

/* ---- planning: pure decisions on what was read --------------------------- */

/*
 * planner_objects: each desired object's action from what the LISTs found —
 * unchanged, created, configured — and, for an existing object that is
 * not ours, conflict, adopt or share (planner_decide_owner). Pure.
 */
void planner_objects(struct run *r)
{
	for (size_t i = 0; i < r->nw; i++) {
		struct want *x = &r->w[i];
		recon_add_item(r->rep, &x->id, RA_UNCHANGED, NULL);
		x->item = r->rep->nr - 1;
		if (x->state == LIVE_EQUAL)
			continue;
		x->needs_write = 1;
		recon_set_action(r->rep, &r->rep->items[x->item],
				 x->state == LIVE_ABSENT ? RA_CREATED
							 : RA_CONFIGURED,
				 NULL);
		if (x->exists && x->cls != OWNER_OURS)
			r->owner_conflicts += planner_decide_owner(r, x);
	}
}

/*
 * planner_prune: the prune candidates — old inventory entries no longer
 * desired — with their verdicts (owner_prune_decision on the stubs the
 * LISTs kept). More than half of the inventory is refused without
 * --force-prune. Pure; *deletable counts the PRUNE_DELETE verdicts.
 */
int planner_prune(struct run *r, size_t *deletable)
{
	struct inventory *old = &r->inv_old;

	r->st = xcalloc(old->nr + 1, sizeof(*r->st));
	*deletable = 0;
	for (size_t i = 0; i < old->nr; i++) {
		struct kobj_id oid;
		struct prune_facts pf = { 0 };
		struct stale *s = &r->st[r->nst];
		inv_entry_id(&old->e[i], &oid);
		if (recon_want_find(r, &oid) >= 0)
			continue;
		s->e = &old->e[i];
		s->live = old->e[i].shared ? NULL : find_live(r->live, &oid);
		pf.entry_uid = old->e[i].uid;
		pf.entry_shared = old->e[i].shared != NULL;
		pf.found = s->live != NULL;
		pf.live_uid = json_meta_at(s->live, "uid", NULL);
		pf.applied_label = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(s->live, STUB_APPLIED));
		pf.proven = inv_entry_proven(r, &old->e[i]);
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
 * planner_confirm_gone: an entry the LISTs did not return is forgotten
 * only when a GET agrees (404, or the object no longer carries this
 * cluster's label).
 * A GET that finds it labelled means the LIST answer was short (an empty
 * page, a first page without its continue token, a proxy in between):
 * the run stops before writing instead of dropping the entry and its UID.
 */
int planner_confirm_gone(struct run *r)
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
		av = recon_served_version(r, e->id.api_version, e->id.kind);
		if (!av)
			continue; /* the kind is not served at all: gone */
		if (recon_resource_of(r, av, e->id.kind, &res) < 0 ||
		    kube_get(r->k, res, e->id.ns, e->id.name, &live, r->err) < 0)
			return -1;
		lab = json_meta_at(live, "labels", PART_OF);
		if (!live || !lab || strcmp(lab, r->applyset_id)) {
			cJSON_Delete(live);
			continue;
		}
		cJSON_Delete(live);
		inv_entry_id(e, &id);
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
 * inv_read_others() read. */
static void plan_shared(struct run *r)
{
	for (size_t i = 0; i < r->nst; i++) {
		struct kobj_id oid;
		struct prune_facts pf = { 0 };
		if (r->st[i].v != PRUNE_DELETE)
			continue;
		inv_entry_id(r->st[i].e, &oid);
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

/* planner_read_shared: when something would be deleted, read the other gpuform
 * inventories (a shared object one of them lists is kept) */
int planner_read_shared(struct run *r, size_t deletable)
{
	if (!r->o->prune || !deletable)
		return 0;
	if (inv_read_others(r, r->cm_res, r->parent_name, &r->others,
			    &r->damaged_other) < 0)
		return -1;
	plan_shared(r);
	return 0;
}
