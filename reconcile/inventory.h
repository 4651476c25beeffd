/*
 * reconcile/inventory.h: the reconcile engine's inventory — the ApplySet
 * parent ConfigMap gpuform-<cluster> that lists every object this
 * cluster's gpuform applied (identity, UID, owner of a shared object,
 * ownership proof), and the ownership key (the Secret whose HMAC key signs
 * the proofs, reconcile/owner.h). Reading it (with the part a run near
 * the size limit leaves in <parent>-pending, or rebuilt from labelled
 * objects), the other gpuform inventories on the server, writing it with
 * a resourceVersion precondition (the superset before any object is
 * written, the final one after the prune), and signing entries.
 *
 * The functions that take a `struct run` (reconcile/engine.h) are phases
 * or steps of recon_run; the rest is the entry set itself.
 */
#ifndef RECONCILE_INVENTORY_H
#define RECONCILE_INVENTORY_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/kobj.h"
#include "kube/kube.h"
#include "util/buf.h"

struct run;
struct want;

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

/* inv_push: append an entry; callers keep entries unique */
void inv_push(struct inventory *inv, const struct kobj_id *id,
	      const char *uid, const char *shared, const char *proof);
void inv_release(struct inventory *inv);
/* the entry with this identity (any version), or NULL */
struct inv_entry *inv_find(struct inventory *inv,
			   const struct kobj_id *id);
/* the identity of an entry (borrowed) */
void inv_entry_id(const struct inv_entry *e, struct kobj_id *id);
/* qsort order: apply order of entries (prune walks it backwards) */
int inv_apply_order(const void *a, const void *b);

/* the parent ConfigMap, refused when another tool owns it or it is
 * damaged (unless rebuilding it); sets r->inv_old, r->live_parent */
int inv_read(struct run *r);
/* the data.inventory of every other gpuform inventory on the server,
 * merged into *all; *damaged says why when one cannot be read */
int inv_read_others(struct run *r, const struct kube_resource *cm,
		    const char *self_name, struct inventory *all,
		    char **damaged);
/* the superset (old entries and new ones), written before any object */
int inv_write_superset(struct run *r);
/* the inventory of what is left after the prune (`final`), written last */
int inv_write_final(struct run *r, struct inventory *final);

/* the ownership key, read once per run; `create`: create its Secret when
 * there is none (a run about to write a proof) */
int inv_read_key(struct run *r, int create);
/* the key, when a stale entry carries a proof to check */
int inv_read_prune_key(struct run *r);
/* does an inventory entry carry a valid proof? */
int inv_entry_proven(const struct run *r, const struct inv_entry *e);
/* the proof an entry for a desired object gets (a new string, or NULL);
 * *fail set on an API error */
char *inv_sign_entry(struct run *r, const struct want *x, int *fail);

#endif
