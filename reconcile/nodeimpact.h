/*
 * reconcile/nodeimpact.h: node impact in `reconcile` and `diff --live`, and the
 * guard that holds back node-replacing changes to protected pools.
 *
 * A node-replacing change (generator/impact.h) to a NodePool whose
 * annotation gpuform.io/interruption names a class that allows Drifted only
 * inside the maintenance window — "none" and "checkpointed", by the one
 * definition in generator/interruption.h that also renders the pool's
 * budgets (the renderer writes the annotation from the intent) — is
 * refused outside the pool's maintenance window (annotations
 * gpuform.io/maintenance-window and -duration; a pool without a window is
 * always outside it), unless allowed. The check runs after every dry run
 * succeeded and before the first write (recon_opts.guard), so a refusal
 * writes nothing. Live counts of NodeClaims and do-not-disrupt pods
 * (reconcile/nodecount.h) are fetched only when some change replaces nodes.
 */
#ifndef RECONCILE_NODEIMPACT_H
#define RECONCILE_NODEIMPACT_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "generator/impact.h"
#include "generator/kobj.h"
#include "reconcile/nodecount.h"
#include "reconcile/reconcile.h"
#include "util/buf.h"

struct ni_entry {
	struct kobj_id id; /* owned (kobj_id_copy) */
	struct impact im;
	long claims, pods; /* NodeClaims it replaces, do-not-disrupt pods on
			    * them; -1: unknown or not counted */
	int held; /* held back (or would be, when not enforcing) */
};

struct ni_pool {
	char *name;
	long claims, pods; /* over every node-replacing change; -1: unknown */
};

struct nodeimpact {
	/* set by the caller */
	const cJSON *desired; /* the desired objects */
	int allow_replacement; /* --allow-node-replacement */
	int enforce;           /* refuse (a real run); else only warn */
	time_t now;
	/* filled by nodeimpact_guard */
	struct ni_entry *e;
	size_t n, alloc;
	struct impact_tally tally;
	struct nodecount counts;
	struct ni_pool *pools; /* one per pool in tally.pools, once counted */
	size_t npools;
	int held; /* changes held back (or that would be, when not enforcing) */
	struct buf notes; /* one line per held change, for stderr */
};

void nodeimpact_init(struct nodeimpact *ni, const cJSON *desired);
void nodeimpact_release(struct nodeimpact *ni);

/* the recon_opts.guard callback; ctx is a struct nodeimpact */
int nodeimpact_guard(void *ctx, struct kube *k, struct recon_change *c,
		     size_t n, struct err *err);

/* the impact of a report item, or NULL */
const struct impact *nodeimpact_find(const struct nodeimpact *ni,
				     const struct recon_item *it);

/* "replaces nodes [pool a: 3 NodeClaims, 1 do-not-disrupt pod]: <rules>" */
void nodeimpact_describe(struct buf *out, const struct nodeimpact *ni,
			 const struct impact *im);

/* "2 node-replacing changes (pools a, b: 5 NodeClaims, 1 do-not-disrupt
 * pod), 0 may disrupt, 3 no node effect" */
void nodeimpact_summary(struct buf *out, const struct nodeimpact *ni);

/* nodeimpact_json: {"replacesNodes", "mayDisrupt", "noNodeEffect",
 * "pools": [{"name", "nodeClaims", "doNotDisruptPods"}] (null counts:
 * unknown), "countsUnknown": reason or absent, "heldBack"} */
cJSON *nodeimpact_json(const struct nodeimpact *ni);

/* ---- the report of a run, with the node impact -------------------------- */

/* nodeimpact_item_text: "nodepool.karpenter.sh/a configured (dry run):
 * <detail>\n" */
void nodeimpact_item_text(struct buf *out, const struct recon_item *it);

/*
 * nodeimpact_impact_text: "<indent>node impact: ...\n" for an item that is
 * (or would be) written: on Karpenter's objects (which launch and replace
 * nodes; "no node effect" is news there), on the others with verbose.
 */
void nodeimpact_impact_text(struct buf *out, const struct nodeimpact *ni,
			    const struct recon_item *it, const char *indent,
			    int verbose);

/* nodeimpact_run_text: reconcile's list: each item, its impact indented */
void nodeimpact_run_text(struct buf *out, const struct nodeimpact *ni,
			 const struct recon_report *rep, int verbose);

/*
 * nodeimpact_diff_text: diff --live's report: each change's impact and
 * diff, what a prune would delete, conflicts and failures, then the
 * summary of the node impact when something would change.
 */
void nodeimpact_diff_text(struct buf *out, const struct nodeimpact *ni,
			  const struct recon_report *rep, int verbose);

/* nodeimpact_summary_text: reconcile's last line, "reconciled <cluster>:
 * [<nodeimpact_summary>; ]2 created, ... (N API requests, M writes)[ from
 * commit C]\n" ("dry run for", "reconcile failed for" when failed) */
void nodeimpact_summary_text(struct buf *out, const struct nodeimpact *ni,
			     const struct recon_report *rep, int failed);

/* nodeimpact_report_json: recon_report_json with each changed item's
 * "impact", the run's "nodeImpact" and "error" (when not NULL) */
cJSON *nodeimpact_report_json(const struct nodeimpact *ni,
			      const struct recon_report *rep,
			      const char *error);

#endif
