/*
 * reconcile/notify.h: telling operators what a run did, where they look —
 * Kubernetes Events on the inventory ConfigMap and a status summary in its
 * annotations.
 *
 * Events (core v1, involvedObject = the inventory ConfigMap, source
 * component "gpuform"):
 *   DriftCorrected  Normal   objects configured back to the desired state
 *   Created         Normal   objects created
 *   Pruned          Normal   objects pruned
 *   Conflict        Warning  fields another apply manager owns
 *   ReconcileFailed Warning  the run failed (the error)
 * Status (annotations, written with a JSON merge patch by field manager
 * "gpuform-status", so reconcile's own apply of the inventory never
 * conflicts with it):
 *   gpuform.io/last-run          RFC 3339 start time
 *   gpuform.io/last-result       success | failed
 *   gpuform.io/last-source-commit  the Git commit applied (absent: none)
 *   gpuform.io/last-counts       "created=N configured=N unchanged=N ..."
 *   gpuform.io/last-duration     "1.234s"
 *   gpuform.io/last-run-by       the run's identity (host/pid)
 *   gpuform.io/last-message      the summary, or the error
 */
#ifndef RECONCILE_NOTIFY_H
#define RECONCILE_NOTIFY_H

#include <cjson/cJSON.h>

#include "kube/kube.h"
#include "reconcile/reconcile.h"
#include "util/err.h"

#define NOTIFY_FIELD_MANAGER "gpuform-status"
#define NOTIFY_MAX_MESSAGE 1024

struct notify_run {
	const char *cluster;
	const char *inventory_ns; /* default RECON_INVENTORY_NS */
	const char *identity;     /* reportingInstance, last-run-by */
	const struct recon_report *rep; /* may be NULL (failed before) */
	const char *error;        /* the run's error, NULL on success */
	int held;                 /* error is the node-replacement guard's:
				   * nothing was applied on purpose */
	const char *source_commit;
	double start, duration_s;
};

/* notify_events: the Events for a run, as a new JSON array (may be empty).
 * uid (may be NULL) is the inventory's, for involvedObject. */
cJSON *notify_events(const struct notify_run *n, const char *uid, double now);

/* notify_status_patch: the merge patch with the status annotations. */
cJSON *notify_status_patch(const struct notify_run *n);

/*
 * notify_publish: patch the status onto the inventory (when it exists) and
 * create the Events. Every step is tried; the first failure is returned.
 */
int notify_publish(struct kube *k, const struct notify_run *n,
		   struct err *err);

#endif
