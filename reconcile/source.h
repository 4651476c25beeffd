/*
 * reconcile/source.h: the desired objects of a reconcile or live diff — intent
 * files rendered in memory, or a directory written by `render -o`.
 */
#ifndef RECONCILE_SOURCE_H
#define RECONCILE_SOURCE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/addondiff.h"
#include "generator/capplan.h"
#include "generator/objdiff.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "git/repo.h"
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

/*
 * source_check_ancestor: reconcile --git's history rule: the commit a Git
 * source was loaded from must descend from `recorded`, the commit the
 * inventory was last reconciled from (ref: the branch, for the message).
 * When it does not: with allow (--allow-non-ancestor) 0 and the warning in
 * *warning; else ERR_CONFLICT, nothing to be written.
 */
int source_check_ancestor(const struct source *s, const char *recorded,
			  const char *ref, int allow, struct buf *warning,
			  struct err *err);

/* ---- diff --base: the intents at two revisions ------------------------------ */

/* one side of the comparison: a revision, or the work tree (rev NULL) */
struct source_side {
	const char *what; /* "base" or "head" */
	const char *rev;
	char oid[REPO_OID_HEX];
	struct rendered *r; /* per intent path; r[i].docs NULL: absent */
	struct diags d;     /* its intents' problems and warnings */
	size_t failed;      /* invalid intents */
	struct capplan cap; /* capacity and cost of its intents (set
			     * cap.prices before rendering) */
};

struct source_revs {
	const char *repo_dir; /* --repo, or NULL: found from "." */
	struct source_side base, head;
	struct repo *r;
	char **paths; /* the INTENT arguments as paths in the repository */
	char *const *args; /* as typed */
	size_t n;
};
#define SOURCE_SIDE_INIT(what) \
	{ what, NULL, "", NULL, DIAGS_INIT, 0, CAPPLAN_INIT }
#define SOURCE_REVS_INIT \
	{ NULL, SOURCE_SIDE_INIT("base"), SOURCE_SIDE_INIT("head"), NULL, \
	  NULL, NULL, 0 }

/*
 * source_revs_open: open the repository (s->repo_dir, else the one "." is
 * in), resolve s->base.rev and s->head.rev (NULL: the work tree) and turn
 * the n INTENT arguments into paths in it. A problem of the command line
 * (a bare repository without a head, a path outside the work tree) fails
 * with *usage set.
 */
int source_revs_open(struct source_revs *s, char *const *args, size_t n,
		     int *usage, struct err *err);

/*
 * source_revs_render: render every path at both sides. Invalid intents add
 * diagnostics to their side's d and fail with ERR_INVALID ("invalid intent
 * at base 'main' (2 errors); nothing compared") once both sides were
 * tried, so every problem is shown; Git and I/O problems fail at once.
 */
int source_revs_render(struct source_revs *s, const struct tmpl_set *t,
		       struct err *err);

/*
 * source_revs_check: after rendering, a path must exist at one side at
 * least (ERR_NOTFOUND), and no two paths of a side may describe one
 * cluster (ERR_INVALID).
 */
int source_revs_check(const struct source_revs *s, struct err *err);

/* source_revs_compare: the objects and the add-on files, base -> head */
int source_revs_compare(const struct source_revs *s, struct objdiff *d,
			struct addondiff *ad, struct err *err);

/* the output formats of diff --base, in -o's order */
enum source_revs_fmt { SOURCE_REVS_TEXT, SOURCE_REVS_MARKDOWN, SOURCE_REVS_JSON };

/*
 * source_revs_format: the comparison in fmt, with the capacity and cost
 * before -> after (generator/capplan.h) and the add-on settings: text (the
 * summary line last, counting the add-on settings too), markdown (a
 * pull-request comment whose summary line leads with the capacity when it
 * changes) or JSON (.capacity, and .addons when add-on settings changed).
 */
void source_revs_format(struct buf *out, enum source_revs_fmt fmt,
			const struct source_revs *s, const struct objdiff *d,
			const struct addondiff *ad);
void source_revs_release(struct source_revs *s);

#endif
