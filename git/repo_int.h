/*
 * git/repo_int.h: what the files of the Git module share — repo.c
 * (errors, open, verify, reading), repo_tree.c (building trees, the
 * commit identity, refs and the work tree, commit) and repo_remote.c
 * (credentials, transport callbacks, fetch and push). Internal: only
 * those files include it; everything else uses repo.h. It includes
 * <git2.h> because struct repo holds the libgit2 handle: these four files
 * are the Git module that wraps libgit2, and tests/check-layering.sh lets
 * nothing else include it.
 */
#ifndef GIT_REPO_INT_H
#define GIT_REPO_INT_H

#include <git2.h>

#include "git/repo.h"
#include "util/buf.h"
#include "util/err.h"

struct repo {
	git_repository *git;
	char *path; /* as given, for messages */
};

/* err from libgit2's last error, "<context>: <libgit2 message>" (libgit2
 * messages name their subject already), userinfo scrubbed; returns -1 */
int repo_fail(struct err *err, int gerr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* drop "user:password@" after every "://" in b */
void repo_scrub_userinfo(struct buf *b);
/* replace every occurrence of secret in b with "***" */
void repo_scrub_secret(struct buf *b, const char *secret);
/* "refs/heads/<branch>" in out; -1 when it is not a valid branch name */
int repo_branch_refname(const char *branch, struct buf *out,
			struct err *err);

#endif
