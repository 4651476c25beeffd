/*
 * generator/sarif.h: lint-style findings as SARIF 2.1.0 logs and as gpuform's
 * JSON objects, for `gpuform lint` and `gpuform preflight` (the same rule and
 * finding records, one shape of output; tests/lint.sh and tests/preflight.sh
 * validate the SARIF against the OASIS schema).
 */
#ifndef GENERATOR_SARIF_H
#define GENERATOR_SARIF_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/lint.h"
#include "util/buf.h"
#include "util/diag.h"

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

/* ---- gpuform lint's report: the findings and the intents' diagnostics -- */

/* the rule of an intent's own errors and warnings (what `gpuform validate`
 * reports), next to the lint rules in JSON and SARIF */
extern const struct lint_rule sarif_intent_rule;

/* sarif_lint_log: the findings and the diagnostics *d as a SARIF log
 * (every lint rule and the intent rule described); allocated text */
char *sarif_lint_log(const struct lint_findings *f, const struct diags *d);

/* sarif_lint_json: {files, errors, warnings, info, findings: [...]};
 * allocated text */
char *sarif_lint_json(const struct lint_findings *f, const struct diags *d,
		      size_t nfiles);

/* sarif_lint_text: "file:line:col: severity: message [ID name]" lines */
void sarif_lint_text(struct buf *out, const struct lint_findings *f);

#endif
