/*
 * generator/interruption.h: what each interruption class lets Karpenter do
 * to a pool's nodes, inside and outside the maintenance window — the one
 * definition the renderer (budgets, consolidation policy, expiry), the
 * node-impact rules (generator/impact.c) and the reconcile guard
 * (reconcile/nodeimpact.c) all read. docs/kueue-and-disruption.md has the table.
 *
 * Karpenter v1.14 facts it rests on (kubernetes-sigs/karpenter):
 *  - budgets restrict the graceful reasons Empty, Underutilized and
 *    Drifted; a budget applies while its schedule is active and the
 *    smallest applicable one wins; a reason no budget names is unlimited
 *    (pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason);
 *  - expiry is forceful: the expiration controller deletes the NodeClaim
 *    when expireAfter has passed, whatever the budgets say
 *    (pkg/controllers/nodeclaim/expiration/controller.go), so expiry cannot
 *    be confined to a window: a class allows it always or never;
 *  - drift is "eventual": with terminationGracePeriod set it proceeds past
 *    do-not-disrupt pods and blocking PDBs (pkg/controllers/disruption/
 *    types.go), without it those pods hold the node until they finish.
 *
 * Pure: no I/O, no clock.
 */
#ifndef GENERATOR_INTERRUPTION_H
#define GENERATOR_INTERRUPTION_H

#include <stddef.h>

#include "generator/intent.h"
#include "util/buf.h"

enum disr_reason { DR_EMPTY, DR_UNDERUTILIZED, DR_DRIFTED, DR_EXPIRED,
		   DR_NREASONS };
/* Karpenter's names: "Empty", "Underutilized", "Drifted", "Expired" */
extern const char *const disr_reason_names[DR_NREASONS];

enum disr_when { DW_NEVER, DW_IN_WINDOW, DW_ALWAYS };
/* "never", "only inside the maintenance window", "at any time" */
extern const char *const disr_when_names[];

/* what class `c` allows for reason `r` (DR_EXPIRED: never DW_IN_WINDOW) */
enum disr_when interruption_allows(enum wl_interruption c, enum disr_reason r);

/* spot capacity (reclaimed by EC2 at any hour) is allowed */
int interruption_spot(enum wl_interruption c);

/* terminationGracePeriod the class renders, or NULL: without one,
 * do-not-disrupt pods hold a drifted node until they finish */
const char *interruption_grace(enum wl_interruption c);

/* consolidateAfter the class renders */
const char *interruption_consolidate_after(enum wl_interruption c);

/* "none" -> INT_NONE; -1 for anything else (NULL included) */
int interruption_parse(const char *name, enum wl_interruption *out);

/*
 * The budgets that enforce the class: reasons blocked at every hour
 * (`never`) and reasons blocked outside the window (`outside`; with no
 * window they are blocked at every hour as well, "outside" being all the
 * time). Each list is DR_NREASONS long at most; n* are the counts.
 */
struct interruption_budgets {
	enum disr_reason never[DR_NREASONS], outside[DR_NREASONS];
	int nnever, noutside;
};
void interruption_budgets(enum wl_interruption c,
			  struct interruption_budgets *out);

/*
 * interruption_hold: the reconcile guard's decision for a node-replacing
 * change (drift) to a pool whose gpuform.io/interruption annotation is
 * `mode` and whose window annotations are `sched`/`dur` (NULL: none), at
 * minute `mow` of the week (0 = Sunday 00:00 UTC). 0: allowed now (the
 * class allows Drifted at any time, the window is open, or `mode` is no
 * class gpuform knows); 1: hold. On a hold, *mins is the time until the
 * window opens, or -1 when there is no usable window (a malformed one is
 * described in *why).
 */
int interruption_hold(const char *mode, const char *sched, const char *dur,
		      long mow, long *mins, struct buf *why);

/*
 * Spot-to-spot consolidation (Karpenter feature gate SpotToSpotConsolidation,
 * controller-wide). Replacing one spot node by a cheaper spot node needs at
 * least 15 instance types cheaper than the node's own among the types that
 * fit its pods (kubernetes-sigs/karpenter pkg/controllers/disruption/
 * consolidation.go, MinInstanceTypesForSpotToSpotConsolidation); replacing
 * several nodes by one has no such minimum. It is consolidation, so the
 * Underutilized budgets of the pool govern when it may happen.
 */
#define SPOT_TO_SPOT_MIN_CHEAPER 15

/* of n instance types with these prices, how many have at least
 * SPOT_TO_SPOT_MIN_CHEAPER strictly cheaper ones among the n: the types
 * whose nodes single-node spot-to-spot consolidation can ever replace (an
 * upper bound: a replacement must also fit the node's pods) */
size_t spot_to_spot_replaceable(const double *prices, size_t n);

#endif
