/*
 * reconcile/source.h: the desired objects of a reconcile or live diff — intent
 * files rendered in memory, or a directory written by `render -o`.
 */
#ifndef RECONCILE_SOURCE_H
#define RECONCILE_SOURCE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

struct source {
	char *cluster; /* the one cluster these objects are for */
	cJSON *docs;   /* array of objects */
	char *desc;    /* what was read, for the inventory ("specs/a.yaml") */
	char *commit;  /* Git sources: the commit id the objects come from */
	struct buf intent; /* Git sources with source_git.intent: that file
			    * at the same commit */
	char *cache;   /* Git sources: the bare cache the commit is in */
	cJSON *addons; /* source_load: the add-on files (file name under
			* addons/ -> document) of the intents, or of a
			* rendered directory its karpenter-values.yaml and
			* kueue-values.yaml (what diff --live compares with
			* the running controllers); NULL for Git sources */
};
#define SOURCE_INIT { NULL, NULL, NULL, NULL, BUF_INIT, NULL, NULL }

struct source_git {
	const char *url;   /* repository URL (https://, ssh://, a path) */
	const char *ref;   /* branch, default "main" */
	const char *path;  /* the directory that holds one directory per
			    * cluster, as commit writes it (default
			    * "clusters"); the deprecated spelling: one
			    * cluster's directory, with cluster NULL */
	const char *cluster; /* the cluster: reads path/cluster/ */
	const char *intent; /* an intent file in the repository to read from
			     * the same commit (reconcile --preflight), or
			     * NULL */
	const char *cache; /* bare cache repository; default
			    * $XDG_CACHE_HOME or ~/.cache/gpuform/git/<sha256 of url> */
};

/*
 * source_load_git: fetch `ref` of `url` into the cache (a bare repository
 * reused between runs: only what changed is fetched), read the manifests
 * under `path`/`cluster` straight from the tree at the fetched commit (no
 * checkout) and load them as a rendered directory. Without `cluster`, a
 * `path` that is itself a cluster's directory (gpuform's kustomization.yaml
 * marker) is read with a deprecation warning in *d; `cluster` together
 * with such a `path` fails with *usage set (the message says which to
 * drop), and so does neither.
 */
int source_load_git(struct source *out, const struct source_git *g,
		    int *usage, struct diags *d, struct err *err);

/*
 * source_load: every path is an intent file, or there is exactly one path
 * and it is a rendered directory (its kustomization.yaml lists the files).
 * All objects must be for one cluster. Input problems go to *d and fail
 * with ERR_INVALID before anything else happens.
 */
int source_load(struct source *out, char **paths, size_t n,
		const char *templates, struct diags *d, struct err *err);
void source_release(struct source *s);

/*
 * source_git_descends: *out = 1 when the commit a Git source was loaded
 * from (s->commit) is `ancestor` or has it in its history (the cache holds
 * the branch's whole history), 0 when not: the branch was force-pushed to
 * older or other history since `ancestor` was applied.
 */
int source_git_descends(const struct source *s, const char *ancestor, int *out,
			struct err *err);

#endif
