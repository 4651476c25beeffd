/*
 * reconcile/reconcile.h: make the cluster equal to the desired objects.
 *
 * One run:
 *  1. identify and check every desired object; nothing is written unless
 *     all of them are well-formed;
 *  2. read the inventory (an ApplySet-compatible ConfigMap parent) and LIST
 *     each kind once, filtered by the part-of label;
 *  3. an object whose desired fields already hold in the live object, and
 *     that has no field we own but no longer want, needs no request;
 *  4. every other object is server-side-applied as a dry run first; only
 *     when every dry run succeeded is anything written;
 *  5. apply in dependency order (Namespaces, ConfigMaps, EC2NodeClasses,
 *     NodePools, Kueue objects), then prune what the old inventory had and
 *     the new one has not — only objects this cluster's gpuform wrote
 *     (reconcile/owner.h), with UID and resourceVersion preconditions.
 * Ownership: an existing object that is not this cluster's (owner.h) is
 * never written unless adopted (--adopt); one another gpuform inventory
 * owns is never written nor pruned. The inventory is written with a
 * resourceVersion precondition; on a conflict it is read again and the
 * entries another writer added are kept.
 * Conflicts: a field that another *Apply* manager owns is a conflict that
 * fails the run (unless force_conflicts); a field last changed by an
 * imperative edit (an Update manager such as kubectl edit) is drift and is
 * taken back.
 */
#ifndef RECONCILE_RECONCILE_H
#define RECONCILE_RECONCILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/kobj.h"
#include "reconcile/identity.h"
#include "kube/kube.h"
#include "util/err.h"

#define RECON_FIELD_MANAGER "gpuform"
#define RECON_INVENTORY_NS "gpuform-system"
/* the most a ConfigMap's data (keys and values) may hold: the API
 * server's limit (k8s.io/api/core/v1 MaxSecretSize, which ConfigMap
 * validation uses) */
#define RECON_CM_DATA_MAX 1048576

/* one object a run would write: live state (NULL: created) and what the
 * server's dry run made of it (NULL: pruned; pruned NodePools come as a
 * stub: identity, uid and gpuform.io/ annotations) */
struct recon_change {
	const cJSON *live;
	const cJSON *next;
	int hold; /* set by the guard: do not write (or prune) this one */
};

struct recon_opts {
	const char *field_manager; /* default RECON_FIELD_MANAGER */
	const char *inventory_ns;  /* default RECON_INVENTORY_NS */
	const char *source;        /* recorded in the inventory (path, URL) */
	const char *source_commit; /* Git sources: the commit applied */
	int dry_run;
	int prune;
	int force_conflicts;
	int force_prune;      /* allow an empty desired set / a large shrink */
	int prune_namespaces; /* allow pruning Namespaces */
	int want_diffs;       /* compute a unified diff per changed object */
	int adopt;            /* take over existing objects that no gpuform
			       * inventory owns (else: a conflict) */
	int rebuild_inventory; /* rebuild a damaged or missing inventory from
				* the objects gpuform labelled and applied */
	size_t inventory_max;  /* bytes of data an inventory ConfigMap may hold
				* (0: RECON_CM_DATA_MAX; tests use less) */
	/*
	 * source_check (may be NULL; Git sources): called after the inventory
	 * was read and before anything is listed or written, when it records
	 * a sourceCommit other than source_commit, with that commit. -1 (err
	 * set) stops the run: the source went back to older or other history
	 * (a force-push), and applying it would undo what newer commits
	 * created (and --prune delete it).
	 */
	int (*source_check)(void *ctx, const char *recorded, struct err *err);
	void *source_check_ctx;
	/*
	 * keepalive (may be NULL): called between the phases and before each
	 * write, so a run lock can be renewed during a long run; -1 (err
	 * set: the lock was lost) stops the run before its next write.
	 */
	int (*keepalive)(void *ctx, struct err *err);
	void *keepalive_ctx;
	/* the cluster this run talks to (may be NULL: not checked): checked
	 * against the inventory and recorded on it (reconcile/identity.h) */
	struct identity *identity;
	/*
	 * guard (may be NULL): called once, after every dry run succeeded and
	 * before anything is written (in a dry run too), with every object the
	 * run would write or prune. Returning -1 (err set) stops the run with
	 * nothing written; its requests count in the report's stats. It may
	 * instead set `hold` on some changes and return 0: those are not
	 * written (nor pruned; reported skipped with held_detail), everything
	 * else is, and the run then fails with ERR_CONFLICT saying how many
	 * were held back.
	 */
	int (*guard)(void *ctx, struct kube *k, struct recon_change *c,
		     size_t n, struct err *err);
	const char *held_detail; /* the report's detail of a held change */
	void *guard_ctx;
};

enum recon_action {
	RA_UNCHANGED,
	RA_CREATED,
	RA_CONFIGURED,
	RA_PRUNED,
	RA_CONFLICT,
	RA_FAILED,
	RA_SKIPPED, /* would be pruned, but not asked to / not allowed */
	RA_MAX
};
extern const char *const recon_action_names[];

struct recon_item {
	struct kobj_id id; /* owned (kobj_id_copy) */
	enum recon_action action;
	int dry;      /* action is what would happen (dry run) */
	char *detail; /* conflict fields, error text, skip reason */
	char *diff;   /* live -> desired, when want_diffs and it changes */
};

struct recon_report {
	char *cluster;
	char *source_commit; /* the commit the objects came from, if any */
	char *inventory; /* "namespace/name" of the parent */
	struct recon_item *items;
	size_t nr, alloc;
	size_t counts[RA_MAX];
	struct kube_stats stats; /* requests of this run */
	int dry_run;
};
#define RECON_REPORT_INIT { 0 }

/*
 * recon_run: reconcile `desired` (a cJSON array of objects; labels are added
 * to it) for `cluster`. The report is filled as far as the run got, also on
 * failure. Fails with ERR_INVALID (bad desired objects: nothing written),
 * ERR_CONFLICT (conflicts: nothing written), ERR_AUTH/ERR_HTTP/... from the
 * API. A failure after some writes leaves the inventory a superset of what
 * exists, so the next run converges and prunes nothing wrongly.
 */
int recon_run(struct recon_report *out, struct kube *k, const char *cluster,
	      cJSON *desired, const struct recon_opts *o, struct err *err);
void recon_report_release(struct recon_report *r);

/* recon_report_json: the report as JSON (items, counts, requests). */
cJSON *recon_report_json(const struct recon_report *r);

/* recon_applyset_id: kubectl's ApplySet id for a ConfigMap parent. */
void recon_applyset_id(const char *name, const char *ns, struct buf *out);

/* recon_changed: number of items that were (or would be) written */
size_t recon_changed(const struct recon_report *r);

#endif
