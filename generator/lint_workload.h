/*
 * generator/lint_workload.h: the lint rules over workloads — each pod set
 * against the pools, queues and contract it resolves to (fit, EFA,
 * do-not-disrupt, queue, tolerations, time-slicing, expiry, spot grace,
 * hugepages, queue placement). Internal to the lint module (lint_int.h).
 */
#ifndef GENERATOR_LINT_WORKLOAD_H
#define GENERATOR_LINT_WORKLOAD_H

#include "generator/lint_index.h"
#include "generator/lint_int.h"

/* "a, b" of the pools a pod set resolved to */
void lint_pool_names(struct buf *b, const struct resolved *r);
void lint_check_workload(struct lctx *c, const struct workload_ref *w);

#endif
