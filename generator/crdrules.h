/*
 * generator/crdrules.h: the rules the Karpenter and Kueue CRDs state as CEL
 * (x-kubernetes-validations) that an API server without CEL (1.20), a
 * server-side dry run against it, or a schema-only validator never checks.
 *
 * Pure. Used on every render (gpuform's own output must pass) and on every
 * object a reconcile is about to apply (hand-written or edited files).
 */
#ifndef GENERATOR_CRDRULES_H
#define GENERATOR_CRDRULES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/diag.h"

/* check_object: append one error per broken rule to *d, naming `where`
 * (a file, or "kind/name") and the field path. Returns the error count. */
size_t check_object(const cJSON *obj, const char *where, struct diags *d);

#endif
