/*
 * git/repo.h: Git through libgit2 — the only libgit2 user.
 *
 * Everything works on object ids and trees in memory: no working tree is
 * needed (bare repositories are fine), nothing is checked out. Credentials
 * come from struct repo_cred and never appear in messages.
 */
#ifndef GIT_REPO_H
#define GIT_REPO_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"

struct repo;

#define REPO_OID_HEX 41 /* 40 hex digits + NUL */

struct repo_cred {
	/* HTTPS: username/password (or token as password); NULL = none.
	 * Filled by repo_cred_from_env() from GPUFORM_GIT_USERNAME /
	 * GPUFORM_GIT_PASSWORD (or GPUFORM_GIT_TOKEN), or a credential file
	 * named by GPUFORM_GIT_CREDENTIALS ("https://user:pass@host" lines,
	 * git's credential-store format). */
	char *username, *password;
	/* SSH: private key file (+ optional public key file and passphrase)
	 * and the known_hosts file that MUST list the server's host key
	 * (GPUFORM_GIT_SSH_KEY, GPUFORM_GIT_SSH_KNOWN_HOSTS, default
	 * ~/.ssh/known_hosts). An unknown or different host key is refused. */
	char *ssh_key, *ssh_pubkey, *ssh_passphrase, *known_hosts;
};
#define REPO_CRED_INIT { 0 }

void repo_cred_from_env(struct repo_cred *c);
void repo_cred_release(struct repo_cred *c);

/* repo_open: an existing repository (bare or not) at path. */
/* repo_blob_id: the id git gives data as a blob (git hash-object). */
void repo_blob_id(const char *data, size_t len, char hex[REPO_OID_HEX]);

int repo_open(struct repo **out, const char *path, struct err *err);
/* repo_discover: the repository `start` (a directory) is in, searching
 * upwards like git; ERR_NOTFOUND when there is none. */
int repo_discover(struct repo **out, const char *start, struct err *err);
/* repo_init_bare: create (or open) a bare repository at path. */
int repo_init_bare(struct repo **out, const char *path, struct err *err);
void repo_free(struct repo *r);

/* repo_resolve: a revision ("HEAD", "main", "origin/main", an id) to an
 * id; ERR_NOTFOUND when it does not exist. */
int repo_resolve(struct repo *r, const char *rev, char oid[REPO_OID_HEX],
		 struct err *err);

/* repo_descends: *out = 1 when commit `oid` is `ancestor` or has it in its
 * history, 0 when not (also when `ancestor` is not in the repository at
 * all, or is not a valid id: a force-push to other history). -1 only when
 * `oid` itself cannot be read. */
int repo_descends(struct repo *r, const char *oid, const char *ancestor,
		  int *out, struct err *err);

/* repo_read: the file at `path` in the tree of `rev`; ERR_NOTFOUND if absent.
 * blob_oid (may be NULL) receives the blob id. */
int repo_read(struct repo *r, const char *rev, const char *path,
	      struct buf *out, char blob_oid[REPO_OID_HEX], struct err *err);
/* repo_read_max: the same, refused (ERR_INVALID, with the size and the
 * limit) when the blob is over max bytes; its size is read from the object
 * header, so an oversized blob is never inflated */
int repo_read_max(struct repo *r, const char *rev, const char *path,
		  size_t max, struct buf *out, struct err *err);

/* repo_read_tree: every file below `dir` in the tree of `rev`, with paths
 * relative to dir. */
int repo_read_tree(struct repo *r, const char *rev, const char *dir,
		   struct fs_tree *out, struct err *err);

/* repo_verify: every commit reachable from the refs, and the whole tree of
 * each ref's tip, can be read (a damaged cache: missing or truncated pack,
 * truncated objects). -1 names the first object that cannot. */
int repo_verify(struct repo *r, struct err *err);

/* repo_check_loose: every loose object under gitdir/objects inflates to
 * its end. Run before libgit2 reads from a repository that may be damaged:
 * libgit2 1.5 loops forever on a truncated loose object (libgit2 #7342). */
int repo_check_loose(const char *gitdir, struct err *err);

/* repo_workdir: the work tree path, or NULL for a bare repository. */
const char *repo_workdir(struct repo *r);

/* one subtree of a commit: the directory `path` ("clusters/ml-prod")
 * holds exactly `files` (paths relative to it) afterwards */
struct repo_subtree {
	const char *path;
	const struct fs_tree *files;
};

struct repo_commit {
	const char *branch;  /* refs/heads/<branch>; created if missing */
	const struct repo_subtree *subs; /* the subtrees to replace */
	size_t nsubs;
	const char *message; /* full message (subject, body, trailers) */
	const char *author_name, *author_email; /* NULL: git config, then
						  * GIT_AUTHOR_NAME/EMAIL */
};

/*
 * repo_branch_name_valid: 1 if refs/heads/<branch> is a branch name git
 * accepts (git_branch_name_is_valid: check-ref-format's rules, no leading
 * '-', not "HEAD"; also not "@" and no DEL, which git refuses and libgit2
 * 1.5 lets through), else 0. Needs no repository.
 */
int repo_branch_name_valid(const char *branch);

/*
 * repo_commit_tree: on top of the branch tip (or as a root commit), make
 * each subtree o->subs[i].path hold exactly its files (stale files
 * disappear, other paths untouched) and commit it, in one commit.
 * *changed = 0 and no commit when the tree is the same. oid receives the
 * new (or unchanged tip) commit id.
 */
int repo_commit_tree(struct repo *r, const struct repo_commit *o,
		     char oid[REPO_OID_HEX], int *changed, struct err *err);

/* one file to commit: its path in the repository and its content */
struct repo_file {
	const char *path;
	const char *data;
	size_t len;
};

/*
 * repo_commit_files: a new branch refs/heads/<branch> (ERR_CONFLICT when
 * it exists) whose one commit has base's tree (a revision, NULL = HEAD)
 * with each file written (created or replaced), parent base. HEAD, the
 * index and the work tree are untouched: the branch is ready to push for
 * a pull request (`gpuform advise --commit`).
 */
int repo_commit_files(struct repo *r, const char *branch, const char *base,
		      const struct repo_file *files, size_t n,
		      const char *message, char oid[REPO_OID_HEX],
		      struct err *err);

/*
 * repo_remote_check: `remote` names a configured remote, or is a URL, an
 * scp-like address or the path of an existing directory; ERR_NOTFOUND
 * (with the remotes that exist) otherwise. No network access: `commit
 * --push` calls it before committing, so a typo commits nothing.
 */
int repo_remote_check(struct repo *r, const char *remote, struct err *err);

/*
 * repo_push: push refs/heads/<branch> to `remote` (a name or a URL).
 * A rejected non-fast-forward is ERR_CONFLICT (caller fetches, redoes,
 * retries); authentication failures ERR_AUTH; host key problems ERR_AUTH.
 */
int repo_push(struct repo *r, const char *remote, const char *branch,
	      const struct repo_cred *c, struct err *err);

/* repo_fetch: fetch refs/heads/<branch> from remote into
 * refs/remotes/gpuform/<branch>; oid receives the fetched tip. */
int repo_fetch(struct repo *r, const char *remote, const char *branch,
	       const struct repo_cred *c, char oid[REPO_OID_HEX],
	       struct err *err);

/* repo_reset_branch: point refs/heads/<branch> at oid (after a fetch). */
int repo_reset_branch(struct repo *r, const char *branch, const char *oid,
		      struct err *err);

#endif
