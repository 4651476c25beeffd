/*
 * reconcile/planner.h: the reconcile engine's planning phases — each
 * desired object's action (unchanged, created, configured; for an
 * existing object that is not ours: conflict, adopt or share) and the
 * prune candidates with their verdicts. Pure decisions on what the run
 * read (reconcile/owner.h's tables), in a `struct run`
 * (reconcile/engine.h); the report items say what and why.
 */
#ifndef RECONCILE_PLANNER_H
#define RECONCILE_PLANNER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "reconcile/inventory.h"
#include "reconcile/owner.h"

struct run;
struct want;

/* what happens to a stale inventory entry (in the old inventory, not
 * desired) */
struct stale {
	struct inv_entry *e;
	const cJSON *live; /* stub found with our label, or NULL */
	enum prune_verdict v;
};

/* each desired object's action from what the LISTs found. Pure */
void planner_objects(struct run *r);
/* a desired object that exists and is not (known to be) ours: conflict,
 * adopt or share; the item says which and why. Returns 1 for a conflict */
int planner_decide_owner(struct run *r, struct want *x);
/* the prune candidates (r->st) and their verdicts; more than half of the
 * inventory is refused without --force-prune. Pure; *deletable counts
 * PRUNE_DELETE */
int planner_prune(struct run *r, size_t *deletable);
/* an entry the LISTs did not return is forgotten only when a GET agrees;
 * -1 (nothing written) when the GET finds it labelled for us */
int planner_confirm_gone(struct run *r);
/* when something would be deleted, read the other gpuform inventories and
 * keep a candidate one of them lists (or any, when one cannot be read) */
int planner_read_shared(struct run *r, size_t deletable);

#endif
