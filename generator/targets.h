/*
 * generator/targets.h: the controller releases an intent renders for
 * (spec.targets: {karpenter: v1.6.2, kueue: v0.13.4}) and the table of
 * features x first release that decides what is rendered.
 *
 * The defaults are the newest supported releases, and for them
 * targets_apply() changes nothing: the default output is exactly what the
 * renderer wrote. For an older target it either renders a feature the
 * older way (Kueue v1beta1 objects and Configuration before v0.15, no
 * recoveryTimeout before v0.11, only the integrations and Helm feature
 * gates that release knows) or refuses it with the feature and the first
 * release that has it, at spec.targets' line:column.
 *
 * Pure: no I/O. The table and its upstream sources are in targets.c and
 * docs/controller-versions.md.
 */
#ifndef GENERATOR_TARGETS_H
#define GENERATOR_TARGETS_H

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

struct ynode;
struct intent;
struct rendered;

/* a release: v1.6.2 -> {1, 6, 2} */
struct targets_ver {
	int major, minor, patch;
};

enum targets_ctl { TARGETS_KARPENTER, TARGETS_KUEUE };

struct targets {
	struct targets_ver karpenter, kueue;
	int karpenter_set, kueue_set; /* written in the intent */
	int line, col;                /* spec.targets (0: not written) */
	int karpenter_line, karpenter_col, kueue_line, kueue_col;
};

/* the newest supported releases: the defaults */
#define TARGETS_KARPENTER_NEWEST { 1, 14, 1 }
#define TARGETS_KUEUE_NEWEST { 0, 19, 2 }

/* targets_init: the defaults (newest supported, nothing written) */
void targets_init(struct targets *t);

/*
 * targets_parse_ver: "v1.6.2", "1.6.2" or "v1.6" (patch 0) into *out;
 * -1 for anything else (pre-releases included).
 */
int targets_parse_ver(const char *s, struct targets_ver *out);
int targets_ver_cmp(const struct targets_ver *a, const struct targets_ver *b);
/* targets_ver_format: "v1.6.2" appended to out */
void targets_ver_format(struct buf *out, const struct targets_ver *v);

/*
 * targets_read: spec.targets (node may be NULL: the defaults) into *t,
 * shape and range problems into *d at file:line:col. Supported: Karpenter
 * v1.0.0 to v1.14.x, Kueue v0.10.0 to v0.19.x.
 */
void targets_read(struct targets *t, const struct ynode *node,
		  const char *file, struct diags *d);

/* one row of the feature table */
struct targets_feature {
	const char *id;   /* "nodeoverlay" */
	enum targets_ctl ctl;
	struct targets_ver first; /* the first release that has it */
	const char *what; /* "NodeOverlay (karpenter.sh/v1alpha1)" */
	const char *source; /* upstream evidence: repo@tag:path, PR */
};

/* the whole table, terminated by an entry with id NULL */
extern const struct targets_feature targets_features[];
const struct targets_feature *targets_feature(const char *id);
/* targets_has: does the target release of the feature's controller have
 * it? (an unknown id is a BUG) */
int targets_has(const struct targets *t, const char *id);

/*
 * targets_apply: fit the rendered output r to the targets of `in` (its
 * intent, for positions and the file name): rewrite what an older
 * release has in another form, refuse (DIAG_ERROR in *d) what it lacks,
 * and warn (DIAG_WARNING) where the older form behaves differently.
 * Returns -1 with ERR_INVALID in *err when it refused anything, -1 with
 * another code for an internal failure, else 0.
 */
int targets_apply(struct rendered *r, const struct intent *in,
		  struct diags *d, struct err *err);

/*
 * targets_explain_unserved: a kind gpuform renders is not served in the
 * version sent; given what the group does serve (the kind in v1, v1beta1,
 * v1beta2; any version of the group at all), say which release the CRDs
 * look like and what to do, appended to out as ": ..." (the tail of the
 * "is not served" message). Returns 0, or -1 (nothing appended) when the
 * CRDs are simply not installed.
 */
struct targets_served {
	int v1, v1beta1, v1beta2; /* the kind is served in that version */
	int group;                /* the group serves some version */
};
int targets_explain_unserved(const char *group, const char *kind,
			     const struct targets_served *s, struct buf *out);

#endif
