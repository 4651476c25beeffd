/*
 * cmd/testhooks.h: the environment variable the test suites use to steer
 * gpuform — read here and only here, then passed down as a plain value (a
 * time), so no library code reads a test hook from the environment.
 * docs/development.md lists it.
 *
 *   GPUFORM_NOW                  "now" for the maintenance-window guard,
 *                                RFC 3339 UTC (2026-01-31T02:30:00Z): the
 *                                injectable clock, the only hook
 *
 * Faults in the middle of a run (a change before a DELETE, the API server
 * gone after the N-th write, a run that holds its lock while the test
 * acts) come from tests/tools/faultproxy.c, not from hooks in here.
 *
 * (GPUFORM_SERVICEACCOUNT_DIR, the in-cluster credentials directory, is
 * configuration read by kube/kubeconfig.c, as kubectl reads
 * KUBECONFIG.)
 */
#ifndef CMD_TESTHOOKS_H
#define CMD_TESTHOOKS_H

#include <time.h>

#include "util/buf.h"

/* testhooks_now: $GPUFORM_NOW or the clock; -1 (and a message in *why)
 * for a GPUFORM_NOW that is not an RFC 3339 UTC time */
int testhooks_now(time_t *now, struct buf *why);

#endif
