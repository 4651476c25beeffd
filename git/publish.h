/*
 * git/publish.h: `gpuform commit`'s write-back. Commit exactly the given
 * directories of one branch (bare repositories too, nothing checked out),
 * then optionally push. When the push loses a race (the branch moved on
 * the remote) it fetches, resets the local branch to the fetched tip and
 * redoes the commit on it: bounded attempts with jittered backoff, so an
 * update is either published whole or reported as failed, never half-made
 * and never written over someone else's commit. What to say about a retry
 * goes to a callback; nothing here prints.
 *
 * A directory that is not empty and has no owner marker (the file
 * `owner_file` starting with `owner_prefix`: gpuform's kustomization.yaml)
 * is never replaced. The files come from the caller (the render module
 * makes them), so git/ knows nothing of rendering.
 */
#ifndef GIT_PUBLISH_H
#define GIT_PUBLISH_H

#include <stddef.h>

#include "git/repo.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"

#define PUBLISH_ATTEMPTS 5     /* commit + push rounds before giving up */
#define PUBLISH_BACKOFF_MS 100 /* first backoff; doubles, plus jitter */
#define PUBLISH_LIST_MAX 200   /* changed files named in the message body */

/* one directory of the branch and the files it holds afterwards */
struct publish_dir {
	char *path; /* "clusters/ml-prod" */
	struct fs_tree files;
};

struct publish {
	const char *branch;
	const char *root; /* the directory of the directories (--path): must
			   * not itself be one rendered directory */
	const char *root_marker; /* text in root's owner file that says it
				  * lists directories (not an old
				  * one-directory write) */
	const char *owner_file, *owner_prefix; /* the owner marker */
	const struct publish_dir *dirs;
	size_t ndirs;
	const char *message; /* the subject (and body), trailing newlines
			      * dropped */
	const char *trailers; /* "Key: value\n" lines, after the body */
	const char *author_name, *author_email; /* NULL: git config, ... */
	const char *remote; /* NULL: commit only, no push */
	const struct repo_cred *cred;
	int attempts;        /* 0: PUBLISH_ATTEMPTS */
	long long backoff_ms; /* 0: PUBLISH_BACKOFF_MS; < 0: no sleep (tests) */
	/* a retry is about to happen: "push rejected, ... (attempt 2 of 5)" */
	void (*retry)(void *ctx, const char *what);
	void *retry_ctx;
};

enum { PUBLISH_ADDED, PUBLISH_MODIFIED, PUBLISH_REMOVED };

struct publish_result {
	char oid[REPO_OID_HEX]; /* the new commit, or the unchanged tip */
	int changed;            /* a commit was made */
	size_t counts[3];       /* files added, modified, removed */
	int attempts;           /* rounds it took */
};

/*
 * publish_run: commit p->dirs on p->branch (created if missing) with a
 * message naming what changed under each directory, and push it to
 * p->remote when set, redoing the commit on the remote's new tip when the
 * push is rejected (or the local branch moved under the commit), up to
 * p->attempts rounds. -1 with err set otherwise: ERR_CONFLICT after the
 * last round; res->changed says whether a local commit stands.
 */
int publish_run(struct repo *r, const struct publish *p,
		struct publish_result *res, struct err *err);

/*
 * publish_changes: old vs new (both sorted by path) as "  added:    x"
 * lines (at most PUBLISH_LIST_MAX, then "  ... and N more"); counts by
 * PUBLISH_ADDED/MODIFIED/REMOVED.
 */
void publish_changes(const struct fs_tree *old, const struct fs_tree *new,
		     struct buf *out, size_t counts[3]);

/*
 * publish_dir_path: a plain relative directory path without "./" and
 * trailing '/' ("./clusters/" -> "clusters"); NULL when it is absolute,
 * empty, or has a ".", ".." or ".git" part. Allocated.
 */
char *publish_dir_path(const char *p);

/*
 * publish_trailers: "Gpuform-Intent: <path> <blob id>" per file (the path
 * relative to workdir when the file lies in it, so the blob id matches the
 * committed file; else as given) and "Gpuform-Version: <version>".
 */
int publish_trailers(struct buf *out, char *const *paths, size_t n,
		     const char *workdir, const char *version,
		     struct err *err);

#endif
