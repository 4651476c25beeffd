/*
 * reconcile/apply.c: the reconcile engine's writes (see apply.h). Talks to
 * the API only through kube.h.
 */
#include "reconcile/apply.h"

#include <stdlib.h>
#include <string.h>

#include "generator/impact.h"
#include "reconcile/compare.h"
#include "reconcile/engine.h"
#include "reconcile/inventory.h"
#include "reconcile/owner.h"
#include "reconcile/planner.h"
#include "util/json.h"
#include "util/vec.h"
#include "util/xalloc.h"

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

/* items planned as created/configured that were not written after all */
static void unplan(struct recon_report *rep, struct want *w, size_t n,
		   size_t from, const char *why)
{
	for (size_t i = from; i < n; i++) {
		struct recon_item *it = &rep->items[w[i].item];
		if (w[i].needs_write && (it->action == RA_CREATED ||
					 it->action == RA_CONFIGURED))
			recon_set_action(rep, it, RA_SKIPPED, why);
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

/* ---- dry runs ------------------------------------------------------------ */

static void want_diff(struct want *x, const cJSON *live, const cJSON *next,
		      struct recon_report *rep)
{
	struct buf lbl = BUF_INIT;

	kobj_display(&x->id, &lbl);
	rep->items[x->item].diff =
		compare_diff_text(live, next, buf_cstr(&lbl));
	buf_release(&lbl);
}

/* stop_before_writing: an API failure during the dry runs; nothing planned
 * is written */
static int stop_before_writing(struct run *r, struct want *x, const char *msg)
{
	recon_set_action(r->rep, &r->rep->items[x->item], RA_FAILED, msg);
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
			recon_set_action(rep, &rep->items[x->item],
					 RA_CONFIGURED, NULL);
			r->owner_conflicts += planner_decide_owner(r, x);
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
		if (compare_real_conflict(x->live, x->obj, o->field_manager,
					  &why)) {
			recon_set_action(rep, &rep->items[x->item], RA_CONFLICT,
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
		recon_set_action(rep, &rep->items[x->item], RA_FAILED,
				 err_msg(&e));
		r->failures++;
		err_release(&e);
		return 0;
	}
	err_release(&e);
	if (x->live && result && x->ow != OW_ADOPT) {
		cJSON *a = compare_cleaned(x->live);
		cJSON *bb = compare_cleaned(result);
		int same = compare_subset_equal(bb, a) &&
			   compare_subset_equal(a, bb);
		cJSON_Delete(a);
		cJSON_Delete(bb);
		if (same) {
			/* only normalisation differed: nothing to write */
			x->needs_write = 0;
			recon_set_action(rep, &rep->items[x->item],
					 RA_UNCHANGED, NULL);
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

/* apply_dry_run_all: dry-run every write; nothing is written unless all
 * succeed (conflicts and rejected objects stop the run here) */
int apply_dry_run_all(struct run *r)
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
			long j = recon_want_find(r, &nsid);
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

/*
 * apply_guard: the caller's last word, before anything is written, on every
 * change the run would make. It may refuse all (-1) or hold some back.
 */
int apply_guard(struct run *r)
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
		inv_entry_id(r->st[i].e, &oid);
		if (r->st[i].v != PRUNE_DELETE ||
		    (recon_is_namespace(&oid) && !o->prune_namespaces))
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
			recon_set_action(r->rep,
					 &r->rep->items[r->w[from[c]].item],
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

/* apply_report_dry_prune: what prune would do (a dry run stops after this) */
void apply_report_dry_prune(struct run *r)
{
	for (size_t i = 0; i < r->nst; i++) {
		struct kobj_id oid;
		struct prune_step s;
		inv_entry_id(r->st[i].e, &oid);
		s = owner_prune_step(r->st[i].v, recon_is_namespace(&oid),
				     r->o->prune, r->o->prune_namespaces,
				     r->o->held_detail, 1);
		if (s.report)
			recon_add_item(r->rep, &oid,
				       s.pruned ? RA_PRUNED : RA_SKIPPED, s.why);
	}
}

/* apply_objects: the planned writes, in apply order; the first failure stops */
int apply_objects(struct run *r)
{

	for (size_t i = 0; i < r->nw; i++) {
		struct want *x = &r->w[i];
		cJSON *result = NULL;
		const char *uid;
		if (!x->needs_write)
			continue;
		if (recon_keepalive(r) < 0 ||
		    kube_apply(r->k, x->res, x->obj, r->o->field_manager,
			       x->force, 0, &result, r->err) < 0) {
			recon_set_action(r->rep, &r->rep->items[x->item],
					 RA_FAILED, err_msg(r->err));
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

	if (recon_resource_of(r, av ? av : e->id.api_version, e->id.kind,
			      &res) == 0 &&
	    kube_delete(r->k, res, e->id.ns, e->id.name, e->uid,
			json_meta_at(s->live, "resourceVersion", NULL), 0,
			&deleted, &de) == 0) {
		err_release(&de);
		recon_add_item(r->rep, oid, RA_PRUNED, NULL);
		return;
	}
	inv_push(final, oid, e->uid, NULL, e->proof); /* the next run looks again */
	if (de.code == ERR_CONFLICT) {
		recon_add_item(r->rep, oid, RA_SKIPPED,
			       "changed since it was listed (UID or "
			       "resourceVersion precondition failed): not "
			       "pruned; the next run looks again");
		err_release(&de);
		return;
	}
	if (de.code == ERR_NONE)
		err_set(&de, r->err->code, "%s", err_msg(r->err));
	recon_add_item(r->rep, oid, RA_FAILED, err_msg(&de));
	if (!r->failures++)
		r->first_fail = xstrdup(err_msg(&de));
	err_release(&de);
}

/* apply_prune: prune last, in reverse dependency order, then write the
 * inventory of what is left */
int apply_prune(struct run *r)
{
	struct inventory final = { 0 };
	int ret, fail = 0;

	/* every object this run wrote or found ours gets its proof */
	for (size_t i = 0; i < r->nw && !fail; i++) {
		char *proof = inv_sign_entry(r, &r->w[i], &fail);
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
		inv_entry_id(r->st[m].e, &oid);
		s = owner_prune_step(r->st[m].v, recon_is_namespace(&oid),
				     r->o->prune, r->o->prune_namespaces,
				     r->o->held_detail, 0);
		if (s.report)
			recon_add_item(r->rep, &oid,
				       s.pruned ? RA_PRUNED : RA_SKIPPED, s.why);
		if (!s.delete_) {
			if (s.keep != KEEP_NONE)
				inv_push(&final, &oid, r->st[m].e->uid,
					 s.keep == KEEP_AS_IS ? r->st[m].e->shared
							      : NULL,
					 r->st[m].e->proof);
			continue;
		}
		if (recon_keepalive(r) < 0) {
			inv_release(&final);
			return -1;
		}
		delete_one(r, &r->st[m], &oid, &final);
	}
	ret = inv_write_final(r, &final);
	inv_release(&final);
	return ret;
}

/* apply_finish: a run that wrote what it could still fails for what it
 * could not prune or was held back */
int apply_finish(struct run *r)
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
