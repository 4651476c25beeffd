/*
 * reconcile/compare.h: a live object vs the desired one, for the reconcile
 * engine. Pure: no requests, no run state.
 *  - compare_subset_equal: does every desired field hold in live (live
 *    may have more: defaults, status, other managers' fields)? Quantities
 *    compare by value ("1000m" == "1");
 *  - managedFields: a manager's entry, a field we own but no longer want
 *    (server-side apply would remove it), and whether a conflict is real
 *    (another Apply manager) or drift (imperative edits);
 *  - the unified diff of two objects as YAML, without what the server
 *    owns.
 */
#ifndef RECONCILE_COMPARE_H
#define RECONCILE_COMPARE_H

#include <cjson/cJSON.h>

#include "util/buf.h"

/* every field of desired `d` holds in live `l` */
int compare_subset_equal(const cJSON *d, const cJSON *l);
/* the managedFields entry of `manager` with `operation`, or NULL */
const cJSON *compare_managed_entry(const cJSON *live, const char *manager,
				   const char *operation);
/* a map field we own (per `fields`, one manager's fieldsV1) that desired
 * no longer has: server-side apply would remove it */
int compare_owned_field_gone(const cJSON *fields, const cJSON *desired);
/* 1 = another Apply manager owns a field we set to a different value, 0 =
 * only imperative edits (drift); *why lists "field (manager)" */
int compare_real_conflict(const cJSON *live, const cJSON *desired,
			  const char *fm, struct buf *why);
/* a copy without what the server owns (status, managedFields, uid, ...) */
cJSON *compare_cleaned(const cJSON *o);
/* the unified diff live -> next as YAML ("live/<label>", "desired/<label>";
 * live NULL: a create), or NULL when they are the same */
char *compare_diff_text(const cJSON *live, const cJSON *next,
			const char *label);

#endif
