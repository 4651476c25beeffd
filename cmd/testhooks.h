/*
 * cmd/testhooks.h: the environment variables the test suites use to steer
 * gpuform — read here and only here, then passed down as plain values (a
 * time, a pause length, a callback), so no library code reads a test hook
 * from the environment. docs/development.md lists them.
 *
 *   GPUFORM_NOW                  "now" for the maintenance-window guard,
 *                                RFC 3339 UTC (2026-01-31T02:30:00Z)
 *   GPUFORM_TEST_LOCK_HOLD_S     hold the run lock this long (1..600 s)
 *                                after taking it
 *
 * Faults in the middle of a run (a change before a DELETE, the API server
 * gone after the N-th write) come from tests/tools/faultproxy.c, not from
 * hooks in here.
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

/* testhooks_seconds: a GPUFORM_TEST_*_S variable, or 0 when unset or
 * outside 1..600 */
long testhooks_seconds(const char *name);

/* testhooks_sleep: sleep s seconds (a test hook's pause) */
void testhooks_sleep(long s);

#endif
