/*
 * reconcile/engine.h: the reconcile engine's shared state — one run of
 * recon_run (struct run) and the helpers of reconcile.c that the engine's
 * other files call. Internal: included only by the engine's files that
 * work on a run — reconcile.c (the run: the desired set, the LISTs, the
 * order of the phases), inventory.c (the ApplySet parent and the
 * ownership key), planner.c (what to do, from what was read) and apply.c
 * (dry runs, the guard, writes, prunes); compare.c (live vs desired) is
 * pure and needs none of it. Everything else uses reconcile/reconcile.h.
 *
 * Why one shared header and not a struct per module: every phase of a run
 * reads and writes the same state (the desired objects and their live
 * state, the inventory as read and as being written, the prune
 * candidates, the report), in the order recon_run calls them. Splitting
 * that state per file would mean passing half of it to every phase; the
 * engine's files are one module cut along its phases, and this header is
 * the seam between them. tests/check-layering.sh checks that nothing else
 * includes it.
 */
#ifndef RECONCILE_ENGINE_H
#define RECONCILE_ENGINE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/kobj.h"
#include "reconcile/inventory.h"
#include "kube/kube.h"
#include "reconcile/owner.h"
#include "reconcile/reconcile.h"
#include "util/buf.h"
#include "util/err.h"

#define PART_OF "applyset.kubernetes.io/part-of"
/* a stub of a labelled object we do not want: our manager applied the
 * label (owner_applied_label); not a Kubernetes field */
#define STUB_APPLIED "gpuformAppliedLabel"
#define PENDING_NOTE "gpuform.io/pending-inventory"

/* the kinds gpuform renders (generator/kobj.h) need no discovery request,
 * so a no-op run makes none */
size_t recon_known_count(void);
#define NKNOWN recon_known_count()

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

/* FNV-1a of an identity key, for the open-addressing indexes */
size_t recon_key_hash(const char *s);
/* index of the desired object with this identity, or -1 */
long recon_want_find(const struct run *r, const struct kobj_id *id);
/* the resource of a kind (static table, else discovery), kept per run */
int recon_resource_of(struct run *r, const char *api_version,
		      const char *kind, const struct kube_resource **out);
/* the apiVersion to reach an inventory entry's group/kind through, or
 * NULL when none is served (r->err cleared) */
const char *recon_served_version(struct run *r, const char *av,
				 const char *kind);
/* the report: a new item, or a new action (and detail) for one */
struct recon_item *recon_add_item(struct recon_report *rep,
				  const struct kobj_id *id,
				  enum recon_action a, const char *detail);
void recon_set_action(struct recon_report *rep, struct recon_item *it,
		      enum recon_action a, const char *detail);
/* LIST a namespaced kind in each namespace the desired set or `old` has
 * objects of it in (when the LIST across all namespaces is forbidden) */
int recon_list_in_namespaces(struct run *r, const struct kube_resource *res,
			     const char *kind, const struct inventory *old,
			     const char *sel, cJSON **items);
/* the one namespace gpuform renders objects of this kind in, or NULL */
const char *recon_fixed_namespace(const char *api_version, const char *kind);
int recon_is_namespace(const struct kobj_id *id);
/* the caller's keepalive (recon_opts.keepalive), between phases */
int recon_keepalive(struct run *r);

#endif
