/*
 * cmd/sarif.h: lint-style findings as SARIF 2.1.0 logs and as gpuform's
 * JSON objects, for `gpuform lint` and `gpuform preflight` (the same rule and
 * finding records, one shape of output; tests/lint.sh and tests/preflight.sh
 * validate the SARIF against the OASIS schema).
 */
#ifndef CMD_SARIF_H
#define CMD_SARIF_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/lint.h"

/* sarif_log_new: a log with one run of the tool `name`; *rules and
 * *results are the run's arrays to fill */
cJSON *sarif_log_new(const char *name, cJSON **rules, cJSON **results);

/* sarif_add_rule: a reportingDescriptor; with `full`, a fullDescription
 * (summary and explanation) as well */
void sarif_add_rule(cJSON *rules, const struct lint_rule *r, int full);

/* sarif_add_result: one finding of the rule at `rule_index` in the run's
 * rules */
void sarif_add_result(cJSON *results, const struct lint_finding *x,
		      size_t rule_index);

/* finding_json: one finding as gpuform's JSON object (file, line, column,
 * severity, rule, name, message) */
cJSON *finding_json(const struct lint_finding *x);

/* sarif_level: "error", "warning" or "note" */
const char *sarif_level(enum lint_severity s);

#endif
