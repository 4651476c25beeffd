/*
 * generator/objdiff.h: compare two sets of rendered Kubernetes objects (a "base"
 * and a "head"), object by object, and format the result as text, Markdown
 * or JSON. `gpuform diff --base` reads and renders the two revisions; this
 * module only compares the documents it is handed.
 *
 * Pure: no Git, no files, no clock, no printing; output goes into a struct
 * buf. The same inputs give byte-identical output.
 *
 * Identity of an object: cluster + API group + kind + namespace + name. The
 * API version is not part of it (v1beta1 -> v1beta2 of the same kind is a
 * modification, shown in the diff). Objects are compared as the YAML that
 * `gpuform render` writes (yaml_emit), so "modified" means "the rendered file
 * would change", and each modification comes with a unified diff of those
 * files (3 lines of context, like `diff -u`).
 *
 * Order: by cluster, then by kind in apply order (kobj_kind_rank), kind,
 * namespace, name, group: the order `gpuform render` writes them in.
 */
#ifndef GENERATOR_OBJDIFF_H
#define GENERATOR_OBJDIFF_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/impact.h"
#include "generator/kobj.h"
#include "util/buf.h"
#include "util/err.h"

/* One revision's objects: borrowed pointers, valid until the cJSON arrays
 * and cluster strings handed to objset_add are freed. */
struct objset_entry {
	const char *cluster;
	const cJSON *doc;
};

struct objset {
	struct objset_entry *items;
	size_t nr, alloc;
};
#define OBJSET_INIT { NULL, 0, 0 }

/* objset_add: every document of the array `docs`, as objects of `cluster`
 * (both borrowed). */
void objset_add(struct objset *s, const char *cluster, const cJSON *docs);
void objset_release(struct objset *s);

enum objdiff_change { OBJDIFF_ADDED, OBJDIFF_REMOVED, OBJDIFF_MODIFIED };
#define OBJDIFF_NCHANGES 3
/* "added", "removed", "modified" */
extern const char *const objdiff_change_names[OBJDIFF_NCHANGES];

struct objdiff_item {
	enum objdiff_change change;
	char *cluster;
	struct kobj_id id; /* owned (kobj_id_copy); apiVersion: head's
			    * (base's for a removed object) */
	char *diff; /* unified diff; "--- /dev/null" for added,
		     * "+++ /dev/null" for removed */
	struct impact impact; /* what the change does to running nodes */
	char *when; /* node-replacing: when it takes effect; else NULL */
};

struct objdiff {
	struct objdiff_item *items; /* changed objects only, in order */
	size_t nr, alloc;
	size_t counts[OBJDIFF_NCHANGES];
	size_t unchanged;
	struct impact_tally tally; /* node impact of the changed objects */
};
#define OBJDIFF_INIT { NULL, 0, 0, { 0, 0, 0 }, 0, IMPACT_TALLY_INIT }

/*
 * objdiff_compute: compare base with head into *out (which must be
 * OBJDIFF_INIT). Fails with ERR_INVALID when one side holds the same object
 * twice, or when an object cannot be written as YAML.
 */
int objdiff_compute(struct objdiff *out, const struct objset *base,
		    const struct objset *head, struct err *err);
void objdiff_release(struct objdiff *d);

/* A revision as shown in headings: `rev` as the user wrote it and its full
 * object id; both NULL for the working tree. */
struct objdiff_rev {
	const char *rev;
	const char *id;
};

/* objdiff_summary: "N objects changed: A added, R removed, M modified"
 * ("1 object changed: ..."), no newline; when something changed, led by
 * the node impact: "R node-replacing changes (pools a, b), D may disrupt,
 * N no node effect; ..." */
void objdiff_summary(struct buf *out, const struct objdiff *d);

/*
 * objdiff_format_text: for each changed object a header line
 * "<change> <cluster>/<Kind>/[<namespace>/]<name>", a line
 * "node impact: <class> [pools ...]: <rules>" and its unified diff
 * (labels a/<same path> and b/<same path>), then the summary line.
 */
void objdiff_format_text(struct buf *out, const struct objdiff *d);
/* the same with `section` (lines) before the summary line, which stays
 * last; NULL for none */
void objdiff_format_text_ext(struct buf *out, const struct objdiff *d,
			     const char *section);

/*
 * objdiff_format_markdown: a PR comment: heading naming both revisions,
 * the summary, a table (node impact | cluster | kind | name | change), then
 * one <details> block per changed object holding its rules and a ```diff
 * fence; node-replacing changes first, then "may disrupt", then the rest.
 */
void objdiff_format_markdown(struct buf *out, const struct objdiff *d,
			     const struct objdiff_rev *base,
			     const struct objdiff_rev *head);
/* the same, the summary line led by `lead` ("...; " before it) and
 * `section` (Markdown) right after it, when not NULL (diff --base: the
 * capacity and cost of cmd/capplan.h) */
void objdiff_format_markdown_ext(struct buf *out, const struct objdiff *d,
				 const struct objdiff_rev *base,
				 const struct objdiff_rev *head,
				 const char *lead, const char *section);

/*
 * objdiff_format_json: {"base": id, "head": id or "worktree",
 * "summary": {"changed", "added", "removed", "modified", "unchanged"},
 * "replacesNodes", "mayDisrupt", "noNodeEffect", "replacedPools"},
 * "objects": [{"cluster", "apiVersion", "kind", "namespace" (null when
 * cluster-scoped), "name", "change", "impact": {"class", "rules", "pools"},
 * "diff"}]}, pretty-printed, with a final newline.
 */
void objdiff_format_json(struct buf *out, const struct objdiff *d,
			 const struct objdiff_rev *base,
			 const struct objdiff_rev *head);
/* the same with a member `key` (taken: freed with the rest) added to the
 * top-level object, when extra is not NULL */
void objdiff_format_json_ext(struct buf *out, const struct objdiff *d,
			     const struct objdiff_rev *base,
			     const struct objdiff_rev *head, const char *key,
			     cJSON *extra);

/*
 * objdiff_when: when Karpenter acts on a node-replacing change to the pools
 * `names` (cluster objects `docs`, the new side's NodePools): "immediately",
 * "at the next opening of the maintenance window ..." (a Drifted budget of
 * 0 nodes with a schedule: gpuform's window), or "not by itself" (a budget
 * of 0 without a schedule: interruption none and no window). Karpenter
 * disrupts drifted nodes only as spec.disruption.budgets allow
 * (kubernetes-sigs/karpenter, designs/disruption-controls.md; the
 * NodePool CRD in tests/fixtures/crds describes budgets and reasons).
 */
void objdiff_when(struct buf *out, char *const *names, size_t n,
		  const cJSON *const *docs, size_t ndocs);

#endif
