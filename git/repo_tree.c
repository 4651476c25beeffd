/*
 * git/repo_tree.c: the Git module's writes (see repo.h, repo_int.h) —
 * trees built in memory with treebuilders on top of the branch tip, the
 * commit identity, the branch ref moved by compare-and-swap, and the
 * checked-out work tree kept in step (safe checkout).
 */

#include "git/repo.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "git/repo_int.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* ---- building trees ------------------------------------------------------ */

/* check_path: relative, '/'-separated, no empty, ".", ".." or ".git" parts */
static int check_path(const char *p, const char *what, struct err *err)
{
	const char *s = p;

	if (!*p)
		return err_set(err, ERR_INVALID, "empty %s", what);
	for (;;) {
		const char *end = strchr(s, '/');
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && !strncmp(s, "..", 2)) ||
		    (n == 4 && !strncasecmp(s, ".git", 4)))
			return err_set(err, ERR_INVALID,
				       "%s '%s' must be relative, without empty, "
				       "'.', '..' or '.git' components",
				       what, p);
		if (!end)
			return 0;
		s = end + 1;
	}
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct fs_file *const *)a)->path,
		      (*(const struct fs_file *const *)b)->path);
}

/*
 * build_dir: a tree from v[0..n) (sorted by path), whose paths all share a
 * prefix of length off that ends with '/' (or off == 0).
 */
static int build_dir(git_repository *g, const struct fs_file **v, size_t n,
		     size_t off, git_oid *out, struct err *err)
{
	git_treebuilder *b = NULL;
	int e, ret = -1;

	e = git_treebuilder_new(&b, g, NULL);
	if (e < 0)
		return repo_fail(err, e, "cannot build a tree");
	for (size_t i = 0; i < n;) {
		const char *name = v[i]->path + off;
		const char *slash = strchr(name, '/');
		git_oid id;

		if (!slash) {
			if (git_treebuilder_get(b, name)) {
				err_set(err, ERR_INVALID,
					"'%s' is given twice", v[i]->path);
				goto out;
			}
			e = git_blob_create_from_buffer(&id, g, v[i]->data,
							v[i]->len);
			if (e == 0)
				e = git_treebuilder_insert(NULL, b, name, &id,
							   GIT_FILEMODE_BLOB);
			if (e < 0) {
				repo_fail(err, e, "cannot store '%s'",
					  v[i]->path);
				goto out;
			}
			i++;
		} else {
			size_t cl = (size_t)(slash - name), j = i + 1;
			char *comp;

			while (j < n && !strncmp(v[j]->path + off, name, cl + 1))
				j++;
			comp = xstrndup(name, cl);
			if (git_treebuilder_get(b, comp)) {
				err_set(err, ERR_INVALID,
					"'%.*s' is both a file and a directory",
					(int)(off + cl), v[i]->path);
				free(comp);
				goto out;
			}
			if (build_dir(g, v + i, j - i, off + cl + 1, &id, err) <
			    0) {
				free(comp);
				goto out;
			}
			e = git_treebuilder_insert(NULL, b, comp, &id,
						   GIT_FILEMODE_TREE);
			free(comp);
			if (e < 0) {
				repo_fail(err, e, "cannot store '%.*s'",
					  (int)(off + cl), v[i]->path);
				goto out;
			}
			i = j;
		}
	}
	e = git_treebuilder_write(out, b);
	if (e < 0) {
		repo_fail(err, e, "cannot write a tree");
		goto out;
	}
	ret = 0;
out:
	git_treebuilder_free(b);
	return ret;
}

/*
 * splice: `tree` (NULL: none) with the entry at comps[k..nc) replaced by the
 * tree `sub` (NULL: removed). Directories left empty disappear; *empty
 * says whether the result has no entries (then *out is only written at the
 * top, k == 0). `where` names the revision for messages.
 */
static int splice(git_repository *g, git_tree *tree, char **comps, size_t k,
		  size_t nc, const git_oid *sub, const char *where,
		  git_oid *out, int *empty, struct err *err)
{
	git_treebuilder *b = NULL;
	git_tree *child = NULL;
	const git_tree_entry *ent;
	int e, ret = -1;

	e = git_treebuilder_new(&b, g, tree);
	if (e < 0)
		return repo_fail(err, e, "cannot build a tree");
	ent = git_treebuilder_get(b, comps[k]);
	if (ent && git_tree_entry_type(ent) != GIT_OBJECT_TREE) {
		struct buf p = BUF_INIT;

		for (size_t i = 0; i <= k; i++)
			buf_addf(&p, "%s%s", i ? "/" : "", comps[i]);
		err_set(err, ERR_GIT, "'%s' is a file on '%s', not a directory",
			buf_cstr(&p), where);
		buf_release(&p);
		goto out;
	}
	if (k + 1 == nc) {
		if (sub)
			e = git_treebuilder_insert(NULL, b, comps[k], sub,
						   GIT_FILEMODE_TREE);
		else
			e = ent ? git_treebuilder_remove(b, comps[k]) : 0;
	} else {
		git_oid cid;
		int cempty = 0;

		if (ent) {
			e = git_tree_lookup(&child, g, git_tree_entry_id(ent));
			if (e < 0) {
				repo_fail(err, e, "cannot read '%s'", comps[k]);
				goto out;
			}
		}
		if (splice(g, child, comps, k + 1, nc, sub, where, &cid,
			   &cempty, err) < 0)
			goto out;
		if (cempty)
			e = ent ? git_treebuilder_remove(b, comps[k]) : 0;
		else
			e = git_treebuilder_insert(NULL, b, comps[k], &cid,
						   GIT_FILEMODE_TREE);
	}
	if (e < 0) {
		repo_fail(err, e, "cannot update '%s'", comps[k]);
		goto out;
	}
	*empty = git_treebuilder_entrycount(b) == 0;
	if (!*empty || k == 0) {
		e = git_treebuilder_write(out, b);
		if (e < 0) {
			repo_fail(err, e, "cannot write a tree");
			goto out;
		}
	}
	ret = 0;
out:
	git_tree_free(child);
	git_treebuilder_free(b);
	return ret;
}

/* new_root: the tree of `base` (NULL: empty) with `path` holding `files` */
static int new_root(git_repository *g, git_tree *base, const char *path,
		    const struct fs_tree *files, const char *where,
		    git_oid *out, struct err *err)
{
	const struct fs_file **v = NULL;
	char *copy = NULL, **comps = NULL;
	git_oid sub;
	size_t nc = 0;
	int empty = 0, ret = -1;

	if (files->nr) {
		v = xcalloc(files->nr, sizeof(*v));
		for (size_t i = 0; i < files->nr; i++)
			v[i] = &files->files[i];
		qsort(v, files->nr, sizeof(*v), path_cmp);
		if (build_dir(g, v, files->nr, 0, &sub, err) < 0)
			goto out;
	}
	if (!*path || !strcmp(path, ".")) {
		/* the whole tree */
		if (files->nr) {
			*out = sub;
		} else {
			git_treebuilder *b = NULL;
			int e = git_treebuilder_new(&b, g, NULL);

			if (e == 0)
				e = git_treebuilder_write(out, b);
			git_treebuilder_free(b);
			if (e < 0) {
				repo_fail(err, e, "cannot write a tree");
				goto out;
			}
		}
		ret = 0;
		goto out;
	}
	copy = xstrdup(path);
	comps = xcalloc(strlen(path) / 2 + 2, sizeof(*comps));
	for (char *s = copy, *slash;; s = slash + 1) {
		comps[nc++] = s;
		slash = strchr(s, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	if (splice(g, base, comps, 0, nc, files->nr ? &sub : NULL, where, out,
		   &empty, err) < 0)
		goto out;
	ret = 0;
out:
	free(comps);
	free(copy);
	free(v);
	return ret;
}

/* ---- identity ------------------------------------------------------------ */

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/*
 * signatures: author from o (--author), then git config, then
 * GIT_AUTHOR_NAME/EMAIL; committer from git config, then
 * GIT_COMMITTER_NAME/EMAIL, then the author. Field by field, as git does.
 */
static int signatures(struct repo *r, const struct repo_commit *o,
		      git_signature **author, git_signature **committer,
		      struct err *err)
{
	git_config *cfg = NULL;
	const char *cn = NULL, *ce = NULL, *an, *ae;
	int e, ret = -1;

	if (git_repository_config_snapshot(&cfg, r->git) == 0) {
		if (git_config_get_string(&cn, cfg, "user.name") < 0)
			cn = NULL;
		if (git_config_get_string(&ce, cfg, "user.email") < 0)
			ce = NULL;
	}
	git_error_clear();
	cn = nonempty(cn);
	ce = nonempty(ce);
	an = nonempty(o->author_name);
	if (!an)
		an = cn ? cn : nonempty(getenv("GIT_AUTHOR_NAME"));
	ae = nonempty(o->author_email);
	if (!ae)
		ae = ce ? ce : nonempty(getenv("GIT_AUTHOR_EMAIL"));
	if (!cn)
		cn = nonempty(getenv("GIT_COMMITTER_NAME"));
	if (!cn)
		cn = an;
	if (!ce)
		ce = nonempty(getenv("GIT_COMMITTER_EMAIL"));
	if (!ce)
		ce = ae;
	if (!an || !ae) {
		err_set(err, ERR_GIT,
			"no author %s for the commit: pass --author "
			"'Name <email>', or set user.name and user.email "
			"(git config --global, or in '%s'), or "
			"GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL",
			!an ? (!ae ? "name and email" : "name") : "email",
			r->path);
		goto out;
	}
	e = git_signature_now(author, an, ae);
	if (e < 0) {
		repo_fail(err, GIT_EINVALIDSPEC, "invalid author '%s <%s>'", an,
			  ae);
		goto out;
	}
	e = git_signature_now(committer, cn, ce);
	if (e < 0) {
		git_signature_free(*author);
		*author = NULL;
		repo_fail(err, GIT_EINVALIDSPEC, "invalid committer '%s <%s>'",
			  cn, ce);
		goto out;
	}
	ret = 0;
out:
	git_config_free(cfg);
	return ret;
}

/* ---- refs and the work tree ---------------------------------------------- */

int repo_branch_name_valid(const char *branch)
{
	int valid = 0;

	git_libgit2_init(); /* idempotent; the library stays initialised */
	if (!branch || !*branch || git_branch_name_is_valid(&valid, branch) < 0)
		valid = 0;
	git_error_clear();
	/* git check-ref-format refuses these too; libgit2 1.5 accepts them */
	if (valid && (!strcmp(branch, "@") || strchr(branch, '\x7f')))
		valid = 0;
	return valid;
}

int repo_branch_refname(const char *branch, struct buf *out,
			struct err *err)
{
	buf_reset(out);
	buf_addf(out, "refs/heads/%s", branch ? branch : "");
	if (!repo_branch_name_valid(branch))
		return err_set(err, ERR_INVALID, "'%s' is not a valid branch name",
			       branch ? branch : "");
	return 0;
}

/* branch_tip: the commit refs/heads/<branch> points at; *out = NULL if the
 * branch does not exist yet */
static int branch_tip(struct repo *r, const char *refname, git_commit **out,
		      struct err *err)
{
	git_reference *ref = NULL;
	int e;

	*out = NULL;
	e = git_reference_lookup(&ref, r->git, refname);
	if (e == GIT_ENOTFOUND)
		return 0;
	if (e < 0)
		return repo_fail(err, e, "cannot read '%s'", refname);
	if (git_reference_type(ref) != GIT_REFERENCE_DIRECT) {
		err_set(err, ERR_GIT, "'%s' is a symbolic reference", refname);
		git_reference_free(ref);
		return -1;
	}
	e = git_commit_lookup(out, r->git, git_reference_target(ref));
	git_reference_free(ref);
	if (e < 0)
		return repo_fail(err, e, "cannot read the tip of '%s'", refname);
	return 0;
}

/* checked_out: is refname the branch HEAD names in a work tree? */
static int checked_out(struct repo *r, const char *refname)
{
	git_reference *head = NULL;
	int ret = 0;

	if (git_repository_is_bare(r->git))
		return 0;
	if (git_reference_lookup(&head, r->git, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    !strcmp(git_reference_symbolic_target(head), refname))
		ret = 1;
	git_reference_free(head);
	git_error_clear();
	return ret;
}

struct co_note {
	git_repository *git;
	struct buf unsafe; /* the first conflicting path with real changes */
	char **benign;     /* conflicting paths that already hold the target */
	size_t nr, alloc;
};

/*
 * conflict_cb: a file checkout would not touch because it differs from the
 * baseline (modified or untracked). Harmless when it already holds exactly
 * the target content (say `render -o` wrote it there first).
 */
static int conflict_cb(git_checkout_notify_t why, const char *path,
		       const git_diff_file *baseline,
		       const git_diff_file *target,
		       const git_diff_file *workdir, void *payload)
{
	struct co_note *n = payload;
	git_oid wd;

	if (why != GIT_CHECKOUT_NOTIFY_CONFLICT)
		return 0;
	if (target && !git_oid_is_zero(&target->id) &&
	    (target->mode == GIT_FILEMODE_BLOB ||
	     target->mode == GIT_FILEMODE_BLOB_EXECUTABLE) &&
	    git_repository_hashfile(&wd, n->git, path, GIT_OBJECT_BLOB,
				    NULL) == 0 &&
	    git_oid_equal(&wd, &target->id)) {
		GROW(n->benign, n->nr + 1, n->alloc);
		n->benign[n->nr++] = xstrdup(path);
		return 0;
	}
	git_error_clear();
	if (!n->unsafe.len)
		buf_adds(&n->unsafe, path);
	return 0;
}

/*
 * sync_worktree: move the index and files of the work tree from tree
 * `from` (NULL: empty) to `to`, leaving local changes alone (files that
 * already hold the new content count as unchanged); with dry_run, only
 * check that nothing is in the way.
 */
static int sync_worktree(struct repo *r, git_tree *from, git_tree *to,
			 int dry_run, struct err *err)
{
	git_checkout_options co;
	git_tree *empty = NULL;
	struct co_note note = { r->git, BUF_INIT, NULL, 0, 0 };
	int e, ret = -1;

	if (!from) {
		git_treebuilder *b = NULL;
		git_oid id;

		e = git_treebuilder_new(&b, r->git, NULL);
		if (e == 0)
			e = git_treebuilder_write(&id, b);
		git_treebuilder_free(b);
		if (e == 0)
			e = git_tree_lookup(&empty, r->git, &id);
		if (e < 0)
			return repo_fail(err, e, "cannot write a tree");
		from = empty;
	}
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE |
			       (dry_run ? GIT_CHECKOUT_DRY_RUN
					: GIT_CHECKOUT_ALLOW_CONFLICTS);
	co.baseline = from;
	co.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	co.notify_cb = conflict_cb;
	co.notify_payload = &note;
	e = git_checkout_tree(r->git, (const git_object *)to, &co);
	if (note.unsafe.len || (e == GIT_ECONFLICT && !note.nr)) {
		err_set(err, ERR_GIT,
			"'%s' has local changes in the work tree of '%s' (the "
			"branch is checked out there); commit or stash them "
			"first",
			note.unsafe.len ? buf_cstr(&note.unsafe) : "a file",
			r->path);
		goto out;
	}
	if (e < 0 && e != GIT_ECONFLICT) {
		repo_fail(err, e, "cannot update the work tree of '%s'",
			  r->path);
		goto out;
	}
	if (!dry_run && note.nr) {
		/* those files hold the new content already: take them over
		 * (index entries included), touching nothing else */
		git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
		co.checkout_strategy = GIT_CHECKOUT_FORCE |
				       GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		co.baseline = from;
		co.paths.strings = note.benign;
		co.paths.count = note.nr;
		e = git_checkout_tree(r->git, (const git_object *)to, &co);
		if (e < 0) {
			repo_fail(err, e, "cannot update the work tree of '%s'",
				  r->path);
			goto out;
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < note.nr; i++)
		free(note.benign[i]);
	free(note.benign);
	buf_release(&note.unsafe);
	git_tree_free(empty);
	return ret;
}

/*
 * move_ref: refs/heads/<branch> from `old` (NULL: must not exist) to
 * `new_id`, as a compare-and-swap; keeps a checked-out work tree in step.
 */
static int move_ref(struct repo *r, const char *refname, git_commit *old,
		    const git_oid *new_id, const char *log, struct err *err)
{
	git_reference *ref = NULL;
	git_commit *target = NULL;
	git_tree *from = NULL, *to = NULL;
	int wt = checked_out(r, refname), e, ret = -1;

	if (wt) {
		e = git_commit_lookup(&target, r->git, new_id);
		if (e == 0)
			e = git_commit_tree(&to, target);
		if (e == 0 && old)
			e = git_commit_tree(&from, old);
		if (e < 0) {
			repo_fail(err, e, "cannot read commit");
			goto out;
		}
		if (sync_worktree(r, from, to, 1, err) < 0)
			goto out;
	}
	if (old)
		e = git_reference_create_matching(&ref, r->git, refname, new_id,
						  1, git_commit_id(old), log);
	else
		e = git_reference_create(&ref, r->git, refname, new_id, 0, log);
	if (e == GIT_EMODIFIED || e == GIT_EEXISTS) {
		err_set(err, ERR_CONFLICT,
			"'%s' changed in '%s' while gpuform was writing; "
			"nothing was lost, try again",
			refname, r->path);
		goto out;
	}
	if (e < 0) {
		repo_fail(err, e, "cannot update '%s'", refname);
		goto out;
	}
	if (wt && sync_worktree(r, from, to, 0, err) < 0) {
		err_wrap(err, "'%s' was updated, but", refname);
		goto out;
	}
	ret = 0;
out:
	git_reference_free(ref);
	git_tree_free(to);
	git_tree_free(from);
	git_commit_free(target);
	return ret;
}

/* ---- commit -------------------------------------------------------------- */

int repo_commit_tree(struct repo *r, const struct repo_commit *o,
		     char oid[REPO_OID_HEX], int *changed, struct err *err)
{
	struct buf refname = BUF_INIT, log = BUF_INIT;
	git_commit *tip = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_oid root, id;
	const git_commit *parents[1];
	size_t nfiles = 0;
	int e, ret = -1;

	*changed = 0;
	if (repo_branch_refname(o->branch, &refname, err) < 0)
		goto out;
	for (size_t s = 0; s < o->nsubs; s++) {
		const char *path = o->subs[s].path ? o->subs[s].path : "";
		const struct fs_tree *files = o->subs[s].files;

		if (*path && strcmp(path, ".") != 0 &&
		    check_path(path, "path", err) < 0)
			goto out;
		for (size_t i = 0; i < files->nr; i++)
			if (check_path(files->files[i].path, "file name",
				       err) < 0)
				goto out;
		nfiles += files->nr;
	}
	if (!o->message || !*o->message) {
		err_set(err, ERR_INVALID, "empty commit message");
		goto out;
	}
	if (branch_tip(r, buf_cstr(&refname), &tip, err) < 0)
		goto out;
	if (tip) {
		e = git_commit_tree(&base, tip);
		if (e < 0) {
			repo_fail(err, e, "cannot read the tree of '%s'",
				  o->branch);
			goto out;
		}
	}
	/* one subtree after the other, each on the tree the last one made */
	for (size_t s = 0; s < o->nsubs; s++) {
		const char *path = o->subs[s].path ? o->subs[s].path : "";
		git_tree *next = NULL;

		if (new_root(r->git, s ? tree : base, path, o->subs[s].files,
			     o->branch, &root, err) < 0)
			goto out;
		e = git_tree_lookup(&next, r->git, &root);
		if (e < 0) {
			repo_fail(err, e, "cannot read the new tree");
			goto out;
		}
		git_tree_free(tree);
		tree = next;
	}
	if (!tree || (base ? git_oid_equal(&root, git_tree_id(base))
			   : nfiles == 0)) {
		/* nothing to do */
		if (tip)
			git_oid_tostr(oid, REPO_OID_HEX, git_commit_id(tip));
		else
			oid[0] = '\0';
		ret = 0;
		goto out;
	}
	if (signatures(r, o, &author, &committer, err) < 0)
		goto out;
	parents[0] = tip;
	e = git_commit_create(&id, r->git, NULL, author, committer, NULL,
			      o->message, tree, tip ? 1 : 0, parents);
	if (e < 0) {
		repo_fail(err, e, "cannot create the commit");
		goto out;
	}
	buf_adds(&log, "commit (gpuform): ");
	buf_add(&log, o->message, strcspn(o->message, "\n"));
	if (move_ref(r, buf_cstr(&refname), tip, &id, buf_cstr(&log), err) < 0)
		goto out;
	git_oid_tostr(oid, REPO_OID_HEX, &id);
	*changed = 1;
	ret = 0;
out:
	git_signature_free(committer);
	git_signature_free(author);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(tip);
	buf_release(&log);
	buf_release(&refname);
	return ret;
}

int repo_commit_files(struct repo *r, const char *branch, const char *base,
		      const struct repo_file *files, size_t n,
		      const char *message, char oid[REPO_OID_HEX],
		      struct err *err)
{
	struct buf refname = BUF_INIT, log = BUF_INIT;
	struct repo_commit o = { branch, NULL, 0, message, NULL, NULL };
	git_tree_update *up = xcalloc(n ? n : 1, sizeof(*up));
	git_object *obj = NULL;
	git_commit *parent = NULL, *tip = NULL;
	git_tree *tree = NULL;
	git_signature *author = NULL, *committer = NULL;
	git_reference *ref = NULL;
	git_oid root, id;
	const git_commit *parents[1];
	int e, ret = -1;

	if (repo_branch_refname(branch, &refname, err) < 0)
		goto out;
	if (!message || !*message) {
		err_set(err, ERR_INVALID, "empty commit message");
		goto out;
	}
	if (branch_tip(r, buf_cstr(&refname), &tip, err) < 0)
		goto out;
	if (tip) {
		err_set(err, ERR_CONFLICT,
			"branch '%s' exists already in '%s'; name a new one "
			"(nothing was committed)",
			branch, r->path);
		goto out;
	}
	e = git_revparse_single(&obj, r->git, base ? base : "HEAD");
	if (e == 0)
		e = git_object_peel((git_object **)&parent, obj,
				    GIT_OBJECT_COMMIT);
	if (e == 0)
		e = git_commit_tree(&tree, parent);
	if (e < 0) {
		repo_fail(err, e, "cannot read '%s'", base ? base : "HEAD");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (check_path(files[i].path, "file name", err) < 0)
			goto out;
		e = git_blob_create_from_buffer(&up[i].id, r->git, files[i].data,
						files[i].len);
		if (e < 0) {
			repo_fail(err, e, "cannot store '%s'", files[i].path);
			goto out;
		}
		up[i].action = GIT_TREE_UPDATE_UPSERT;
		up[i].filemode = GIT_FILEMODE_BLOB;
		up[i].path = files[i].path;
	}
	e = git_tree_create_updated(&root, r->git, tree, n, up);
	if (e < 0) {
		repo_fail(err, e, "cannot build the new tree");
		goto out;
	}
	git_tree_free(tree);
	tree = NULL;
	e = git_tree_lookup(&tree, r->git, &root);
	if (e < 0) {
		repo_fail(err, e, "cannot read the new tree");
		goto out;
	}
	if (signatures(r, &o, &author, &committer, err) < 0)
		goto out;
	parents[0] = parent;
	e = git_commit_create(&id, r->git, NULL, author, committer, NULL,
			      message, tree, 1, parents);
	if (e < 0) {
		repo_fail(err, e, "cannot create the commit");
		goto out;
	}
	buf_adds(&log, "branch (gpuform): ");
	buf_add(&log, message, strcspn(message, "\n"));
	e = git_reference_create(&ref, r->git, buf_cstr(&refname), &id, 0,
				 buf_cstr(&log));
	if (e < 0) {
		repo_fail(err, e, "cannot create '%s'", buf_cstr(&refname));
		goto out;
	}
	git_oid_tostr(oid, REPO_OID_HEX, &id);
	ret = 0;
out:
	git_reference_free(ref);
	git_signature_free(committer);
	git_signature_free(author);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(tip);
	git_object_free(obj);
	free(up);
	buf_release(&log);
	buf_release(&refname);
	return ret;
}

int repo_reset_branch(struct repo *r, const char *branch, const char *oid,
		      struct err *err)
{
	struct buf refname = BUF_INIT, log = BUF_INIT;
	git_commit *tip = NULL, *target = NULL;
	git_oid id;
	int e, ret = -1;

	if (repo_branch_refname(branch, &refname, err) < 0)
		goto out;
	if (git_oid_fromstr(&id, oid) < 0) {
		err_set(err, ERR_INVALID, "'%s' is not an object id", oid);
		goto out;
	}
	e = git_commit_lookup(&target, r->git, &id);
	if (e < 0) {
		repo_fail(err, e, "cannot reset '%s' to %s", branch, oid);
		goto out;
	}
	if (branch_tip(r, buf_cstr(&refname), &tip, err) < 0)
		goto out;
	if (tip && git_oid_equal(git_commit_id(tip), &id)) {
		ret = 0;
		goto out;
	}
	buf_addf(&log, "reset (gpuform): moving to %s", oid);
	ret = move_ref(r, buf_cstr(&refname), tip, &id, buf_cstr(&log), err);
out:
	git_commit_free(target);
	git_commit_free(tip);
	buf_release(&log);
	buf_release(&refname);
	return ret;
}
