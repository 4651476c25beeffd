/*
 * reconcile/metrics.h: a reconcile run in the Prometheus text exposition
 * format (version 0.0.4), for a node-exporter textfile (--metrics-file) or a
 * Pushgateway (--pushgateway).
 *
 * Metrics (label cluster on all):
 *   gpuform_runs_total{result}            counter: runs by result (success,
 *                                          failed, locked, held); carried over
 *                                          from the previous metrics file
 *   gpuform_errors_total                  counter: failed runs + failed
 *                                          objects, carried over likewise
 *   gpuform_last_run_timestamp_seconds    gauge: when the run started
 *   gpuform_last_run_success              gauge: 1 or 0
 *   gpuform_last_run_held                 gauge: 1 if the node-replacement
 *                                          guard held a change back
 *   gpuform_run_duration_seconds          gauge
 *   gpuform_objects{result}               gauge: objects by result of the run
 *   gpuform_drift_corrected_objects       gauge: objects configured
 *   gpuform_api_requests{type}            gauge: API requests of the run
 *   gpuform_run_errors                    gauge: errors of the run
 */
#ifndef RECONCILE_METRICS_H
#define RECONCILE_METRICS_H

#include <stddef.h>

#include "reconcile/reconcile.h"
#include "util/buf.h"
#include "util/err.h"

enum metrics_result { MR_SUCCESS, MR_FAILED, MR_LOCKED, MR_HELD, MR_MAX };
extern const char *const metrics_result_names[];

struct metrics_run {
	const char *cluster;       /* "" when unknown */
	enum metrics_result result;
	double start;              /* Unix seconds */
	double duration_s;
	size_t counts[RA_MAX];     /* objects by result */
	struct kube_stats stats;   /* requests of the whole run */
	long errors;               /* of this run */
	double runs_before[MR_MAX]; /* counters carried over */
	double errors_before;
};

/* metrics_carry: take gpuform_runs_total and gpuform_errors_total of
 * m->cluster from a previous exposition (NULL: none) into m. */
void metrics_carry(struct metrics_run *m, const char *previous);

/* metrics_format: the exposition, with HELP and TYPE lines. */
void metrics_format(struct buf *out, const struct metrics_run *m);

/* metrics_escape: a label value escaped (\\, \", \n) */
void metrics_escape(struct buf *out, const char *s);

/* metrics_write_file: replace path atomically (temporary file in the same
 * directory, fsync, rename). */
int metrics_write_file(const char *path, const struct buf *text,
		       struct err *err);

/*
 * metrics_push: PUT the exposition to a Prometheus Pushgateway at
 * <gateway>/metrics/job/gpuform[/cluster/<cluster>] over the HTTP layer
 * (http/http.h; one request, no retries, timeout_ms). ERR_HTTP with
 * the status and the gateway's first line when it refuses.
 */
int metrics_push(const char *gateway, const char *cluster,
		 const struct buf *text, long timeout_ms, struct err *err);

#endif
