/*
 * generator/lint.h: best-practice checks for GPU capacity manifests and
 * intents (`gpuform lint`).
 *
 * Pure: documents in, findings out. The caller reads the files; lint_run
 * parses them (util/yaml.c keeps line:column for every node), tells
 * intents (apiVersion gpuform.io/v1alpha1, kind ClusterIntent) from plain
 * Kubernetes manifests by content, renders intents in memory the way
 * `gpuform render` does, and runs every rule over the whole set at once, so
 * a Job can be checked against the NodePool, Kueue queues and pod contract
 * it lands on. Nothing here prints.
 */
#ifndef GENERATOR_LINT_H
#define GENERATOR_LINT_H

#include <stddef.h>

#include "util/diag.h"
#include "util/err.h"

enum lint_severity { LINT_ERROR, LINT_WARNING, LINT_INFO };

extern const char *const lint_severity_names[]; /* "error", ... */

struct lint_rule {
	const char *id;   /* stable: "GPU001" */
	const char *name; /* stable: "single-instance-choice" */
	enum lint_severity severity; /* default; a finding may be milder */
	const char *summary; /* one line */
	const char *explain; /* why it matters and how to fix it */
};

extern const struct lint_rule lint_rules[];
extern const size_t lint_nrules;

/* lint_rule_find: by id ("GPU001", any case) or name; NULL if none. */
const struct lint_rule *lint_rule_find(const char *id_or_name);

struct lint_finding {
	const struct lint_rule *rule;
	enum lint_severity sev;
	char *file;
	int line, col; /* 1-based */
	char *msg;
};

struct lint_findings {
	struct lint_finding *items;
	size_t nr, alloc;
	size_t counts[3]; /* by severity */
};
#define LINT_FINDINGS_INIT { NULL, 0, 0, { 0, 0, 0 } }

struct lint_input {
	const char *path; /* as shown in findings */
	const char *data;
	size_t len;
};

/* a known snapshot size (`--snapshot-size snap-...=200Gi`) */
struct lint_snapshot {
	const char *id;
	long long gib;
};

struct lint_opts {
	const struct lint_snapshot *snapshots;
	size_t nsnapshots;
};

/*
 * lint_run: lint every input together. Inputs that are not YAML, and
 * intents that `gpuform validate` rejects, are reported to *d and left out;
 * the rest are still linted. Findings are sorted by file, line, column,
 * rule and message, without duplicates. Returns -1 (ERR_INVALID) when an
 * input was unusable, 0 otherwise — findings are not failures.
 */
int lint_run(struct lint_findings *out, const struct lint_input *in,
	     size_t n, const struct lint_opts *o, struct diags *d,
	     struct err *err);
void lint_findings_release(struct lint_findings *f);

#endif
