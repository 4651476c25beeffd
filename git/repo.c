/*
 * git/repo.c: Git through libgit2 (see repo.h) — the only libgit2 user.
 *
 * Trees are built in memory with treebuilders on top of the branch tip and
 * refs move by compare-and-swap (git_reference_create_matching), so a
 * concurrent writer makes us fail with ERR_CONFLICT instead of losing its
 * commit. When the branch we move is checked out in a work tree, its index
 * and files follow (safe checkout: local changes stop us before the ref
 * moves). Transports: HTTP(S) with user/password or token, SSH with a key
 * file and our own known_hosts check — libgit2 1.5 does not check SSH host
 * keys at all, it only hands us the raw key in the certificate callback.
 *
 * Deliberately not here: merging, rebasing, signing, rendering, retries
 * (cmd/commit.c decides to fetch, reset and redo), printing.
 *
 * Beside it in git/: knownhosts.c (the SSH host key check), credstore.c
 * (GPUFORM_GIT_CREDENTIALS), loose.c (the loose-object check, zlib).
 */
#include "git/repo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <git2.h>

#include "git/credstore.h"
#include "git/knownhosts.h"
#include "util/digest.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"


struct repo {
	git_repository *git;
	char *path; /* as given, for messages */
};

/* ---- errors -------------------------------------------------------------- */

static enum err_code code_for(int gerr)
{
	const git_error *e = git_error_last();

	switch (gerr) {
	case GIT_ENOTFOUND:
		return ERR_NOTFOUND;
	case GIT_EAUTH:
	case GIT_ECERTIFICATE:
		return ERR_AUTH;
	case GIT_ENONFASTFORWARD:
	case GIT_EMODIFIED:
	case GIT_ELOCKED:
	case GIT_EEXISTS:
		return ERR_CONFLICT;
	case GIT_EINVALIDSPEC:
		return ERR_INVALID;
	default:
		break;
	}
	if (e && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSH ||
		  e->klass == GIT_ERROR_HTTP || e->klass == GIT_ERROR_SSL))
		return ERR_HTTP;
	return ERR_GIT;
}

/* scrub_userinfo: drop "user:password@" after every "://" in b */
static void scrub_userinfo(struct buf *b)
{
	struct buf out = BUF_INIT;
	const char *s = buf_cstr(b), *p;

	if (!strstr(s, "://"))
		return;
	while ((p = strstr(s, "://"))) {
		const char *auth = p + 3, *end = auth, *at = NULL;

		while (*end && !strchr("/ \t\n'\"", *end)) {
			if (*end == '@')
				at = end;
			end++;
		}
		buf_add(&out, s, (size_t)(auth - s));
		s = at ? at + 1 : auth;
	}
	buf_adds(&out, s);
	buf_release(b);
	*b = out;
}

/* scrub_secret: replace every occurrence of secret in b with "***" */
static void scrub_secret(struct buf *b, const char *secret)
{
	struct buf out = BUF_INIT;
	const char *s = buf_cstr(b), *p;
	size_t n = secret ? strlen(secret) : 0;

	if (n < 3 || !strstr(s, secret))
		return;
	while ((p = strstr(s, secret))) {
		buf_add(&out, s, (size_t)(p - s));
		buf_adds(&out, "***");
		s = p + n;
	}
	buf_adds(&out, s);
	buf_release(b);
	*b = out;
}

/*
 * git_fail: err from libgit2's last error, "<context>: <libgit2 message>"
 * (libgit2 messages name their subject already); returns -1.
 */
static int git_fail(struct err *err, int gerr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int git_fail(struct err *err, int gerr, const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	enum err_code code = code_for(gerr);
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	buf_reset(&err->msg);
	va_start(ap, fmt);
	buf_vaddf(&err->msg, fmt, ap);
	va_end(ap);
	if (ge && ge->message && *ge->message) {
		size_t len = strlen(ge->message);
		buf_adds(&err->msg, ": ");
		/* libgit2 messages sometimes end with a period or newline */
		while (len && strchr(".\n ", ge->message[len - 1]))
			len--;
		buf_add(&err->msg, ge->message, len);
	}
	scrub_userinfo(&err->msg);
	return -1;
}

/* ---- open, init, free ---------------------------------------------------- */

static struct repo *repo_wrap(git_repository *g, const char *path)
{
	struct repo *r = xcalloc(1, sizeof(*r));

	r->git = g;
	r->path = xstrdup(path);
	return r;
}

int repo_open(struct repo **out, const char *path, struct err *err)
{
	git_repository *g = NULL;
	int e;

	git_libgit2_init();
	e = git_repository_open_ext(&g, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL);
	if (e < 0) {
		if (e == GIT_ENOTFOUND)
			err_set(err, ERR_NOTFOUND, "'%s' is not a git repository",
				path);
		else
			git_fail(err, e, "cannot open repository '%s'", path);
		git_libgit2_shutdown();
		return -1;
	}
	/* libgit2 1.5 loops forever reading a truncated loose object: look
	 * at them first (the cache gets the same check in reconcile/source.c) */
	if (repo_check_loose(git_repository_path(g), err) < 0) {
		err_wrap(err, "cannot use repository '%s' ('git fsck' shows the "
			      "damage)", path);
		git_repository_free(g);
		git_libgit2_shutdown();
		return -1;
	}
	*out = repo_wrap(g, path);
	return 0;
}

int repo_discover(struct repo **out, const char *start, struct err *err)
{
	git_buf found = { NULL, 0, 0 };
	int e;

	git_libgit2_init();
	e = git_repository_discover(&found, start, 0, NULL);
	if (e < 0) {
		if (e == GIT_ENOTFOUND)
			err_set(err, ERR_NOTFOUND,
				"not inside a git repository (searched from "
				"'%s' upwards); run it in the repository or "
				"give --repo DIR",
				start);
		else
			git_fail(err, e, "cannot find the repository of '%s'",
				 start);
		git_libgit2_shutdown();
		return -1;
	}
	e = repo_open(out, found.ptr, err);
	git_buf_dispose(&found);
	git_libgit2_shutdown(); /* repo_open holds its own reference */
	return e;
}

int repo_init_bare(struct repo **out, const char *path, struct err *err)
{
	git_repository *g = NULL;
	int e;

	git_libgit2_init();
	e = git_repository_open_ext(&g, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL);
	if (e == GIT_ENOTFOUND)
		e = git_repository_init(&g, path, 1);
	if (e < 0) {
		git_fail(err, e, "cannot create repository '%s'", path);
		git_libgit2_shutdown();
		return -1;
	}
	*out = repo_wrap(g, path);
	return 0;
}

void repo_blob_id(const char *data, size_t len, char hex[REPO_OID_HEX])
{
	git_oid oid;

	git_libgit2_init();
	if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
		BUG("git_odb_hash failed");
	git_oid_tostr(hex, REPO_OID_HEX, &oid);
	git_libgit2_shutdown();
}

void repo_free(struct repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

/* ---- verify ------------------------------------------------------------- */

struct verify {
	git_repository *g;
	struct err *err;
};

static int verify_entry(const char *root, const git_tree_entry *te,
			void *payload)
{
	struct verify *v = payload;
	git_object *o = NULL;
	char id[GIT_OID_HEXSZ + 1];
	int e;

	if (git_tree_entry_type(te) != GIT_OBJECT_BLOB)
		return 0; /* trees are read by the walk; submodules skipped */
	e = git_tree_entry_to_object(&o, v->g, te);
	if (e < 0) {
		git_oid_tostr(id, sizeof(id), git_tree_entry_id(te));
		git_fail(v->err, e, "object %s ('%s%s') cannot be read", id,
			 root, git_tree_entry_name(te));
		return -1;
	}
	git_object_free(o);
	return 0;
}

int repo_verify(struct repo *r, struct err *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	git_revwalk *w = NULL;
	git_oid oid;
	char id[GIT_OID_HEXSZ + 1];
	const char *name;
	int e, ret = -1;

	if ((e = git_revwalk_new(&w, r->git)) < 0 ||
	    (e = git_reference_iterator_new(&it, r->git)) < 0) {
		git_fail(err, e, "cannot read the references of '%s'", r->path);
		goto out;
	}
	/* by name: the iterator skips a reference file it cannot parse */
	while ((e = git_reference_next_name(&name, it)) == 0) {
		git_object *tip = NULL;
		git_tree *tree = NULL;
		struct verify v = { r->git, err };

		e = git_reference_lookup(&ref, r->git, name);
		if (e == 0)
			e = git_reference_peel(&tip, ref, GIT_OBJECT_COMMIT);
		if (e == 0)
			e = git_commit_tree(&tree, (git_commit *)tip);
		if (e == 0)
			e = git_revwalk_push(w, git_object_id(tip));
		if (e < 0) {
			git_fail(err, e, "'%s' in '%s' cannot be read", name,
				 r->path);
		} else if (git_tree_walk(tree, GIT_TREEWALK_PRE, verify_entry,
					 &v) < 0) {
			if (!err_msg(err)[0])
				git_fail(err, -1, "the tree of '%s' in '%s' "
						  "cannot be read",
					 name, r->path);
			e = -1;
		}
		git_tree_free(tree);
		git_object_free(tip);
		git_reference_free(ref);
		ref = NULL;
		if (e < 0)
			goto out;
	}
	if (e != GIT_ITEROVER) {
		git_fail(err, e, "cannot list the references of '%s'", r->path);
		goto out;
	}
	while ((e = git_revwalk_next(&oid, w)) == 0) {
		git_commit *c = NULL;
		e = git_commit_lookup(&c, r->git, &oid);
		if (e < 0) {
			git_oid_tostr(id, sizeof(id), &oid);
			git_fail(err, e, "commit %s in '%s' cannot be read", id,
				 r->path);
			goto out;
		}
		git_commit_free(c);
	}
	if (e != GIT_ITEROVER) {
		git_fail(err, e, "the history in '%s' cannot be read", r->path);
		goto out;
	}
	ret = 0;
out:
	git_reference_iterator_free(it);
	git_revwalk_free(w);
	return ret;
}

const char *repo_workdir(struct repo *r)
{
	return git_repository_workdir(r->git);
}

/* ---- reading ------------------------------------------------------------- */

/* revparse: the object a revision names; an ambiguous short id counts as
 * an invalid revision */
static int revparse(struct repo *r, const char *rev, git_object **obj,
		    struct err *err)
{
	int e = git_revparse_single(obj, r->git, rev);

	if (e == GIT_ENOTFOUND && git_repository_is_shallow(r->git) == 1)
		return err_set(err, ERR_NOTFOUND,
			       "'%s' not found in '%s': the clone is shallow "
			       "(actions/checkout fetches one commit by "
			       "default); fetch the history: 'fetch-depth: 0' "
			       "in actions/checkout, or git fetch --unshallow",
			       rev, r->path);
	if (e == GIT_ENOTFOUND)
		return err_set(err, ERR_NOTFOUND, "'%s' not found in '%s'", rev,
			       r->path);
	if (e < 0)
		return git_fail(err, e == GIT_EAMBIGUOUS ? GIT_EINVALIDSPEC : e,
				"cannot resolve '%s'", rev);
	return 0;
}

int repo_resolve(struct repo *r, const char *rev, char oid[REPO_OID_HEX],
		 struct err *err)
{
	git_object *obj = NULL, *peeled = NULL;
	int e;

	if (revparse(r, rev, &obj, err) < 0)
		return -1;
	if (git_object_type(obj) == GIT_OBJECT_TAG) {
		e = git_object_peel(&peeled, obj, GIT_OBJECT_ANY);
		if (e < 0) {
			git_object_free(obj);
			return git_fail(err, e, "cannot peel tag '%s'", rev);
		}
	}
	git_oid_tostr(oid, REPO_OID_HEX, git_object_id(peeled ? peeled : obj));
	git_object_free(peeled);
	git_object_free(obj);
	return 0;
}

int repo_descends(struct repo *r, const char *oid, const char *ancestor,
		  int *out, struct err *err)
{
	git_oid o, a;
	git_commit *c = NULL;
	int e;

	*out = 0;
	if (git_oid_fromstr(&o, oid) < 0)
		return err_set(err, ERR_INVALID, "'%s' is not a commit id", oid);
	e = git_commit_lookup(&c, r->git, &o);
	if (e < 0)
		return git_fail(err, e, "cannot read commit %s", oid);
	git_commit_free(c);
	if (strlen(ancestor) != REPO_OID_HEX - 1 ||
	    git_oid_fromstr(&a, ancestor) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_oid_equal(&o, &a)) {
		*out = 1;
		return 0;
	}
	e = git_graph_descendant_of(r->git, &o, &a);
	git_error_clear();
	*out = e == 1;
	return 0;
}

/* rev_tree: the tree of a revision (commit, tag or tree) */
static int rev_tree(struct repo *r, const char *rev, git_tree **out,
		    struct err *err)
{
	git_object *obj = NULL, *tree = NULL;
	int e;

	if (revparse(r, rev, &obj, err) < 0)
		return -1;
	e = git_object_peel(&tree, obj, GIT_OBJECT_TREE);
	git_object_free(obj);
	if (e < 0)
		return git_fail(err, e, "'%s' has no tree", rev);
	*out = (git_tree *)tree;
	return 0;
}

static int read_blob(struct repo *r, const char *rev, const char *path,
		     size_t max, struct buf *out, char blob_oid[REPO_OID_HEX],
		     struct err *err);

int repo_read(struct repo *r, const char *rev, const char *path,
	      struct buf *out, char blob_oid[REPO_OID_HEX], struct err *err)
{
	return read_blob(r, rev, path, SIZE_MAX, out, blob_oid, err);
}

int repo_read_max(struct repo *r, const char *rev, const char *path,
		  size_t max, struct buf *out, struct err *err)
{
	return read_blob(r, rev, path, max, out, NULL, err);
}

/* the size of a blob from its object header (nothing inflated but that) */
static int blob_size(struct repo *r, const git_oid *id, size_t *size)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t len = 0;
	int e = git_repository_odb(&odb, r->git);

	if (e == 0)
		e = git_odb_read_header(&len, &type, odb, id);
	git_odb_free(odb);
	*size = len;
	return e;
}

static int read_blob(struct repo *r, const char *rev, const char *path,
		     size_t max, struct buf *out, char blob_oid[REPO_OID_HEX],
		     struct err *err)
{
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	git_blob *blob = NULL;
	size_t size;
	int e, ret = -1;

	if (rev_tree(r, rev, &tree, err) < 0)
		return -1;
	e = git_tree_entry_bypath(&ent, tree, path);
	if (e == GIT_ENOTFOUND) {
		err_set(err, ERR_NOTFOUND, "'%s' not found in '%s'", path, rev);
		goto out;
	}
	if (e < 0) {
		git_fail(err, e, "cannot read '%s' in '%s'", path, rev);
		goto out;
	}
	if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB) {
		err_set(err, ERR_INVALID, "'%s' in '%s' is not a file", path, rev);
		goto out;
	}
	if (max != SIZE_MAX) {
		e = blob_size(r, git_tree_entry_id(ent), &size);
		if (e < 0) {
			git_fail(err, e, "cannot read '%s' in '%s'", path, rev);
			goto out;
		}
		if (size > max) {
			err_set(err, ERR_INVALID,
				"'%s' in '%s' is %zu bytes, over the limit of "
				"%zu for one file: not read",
				path, rev, size, max);
			goto out;
		}
	}
	e = git_blob_lookup(&blob, r->git, git_tree_entry_id(ent));
	if (e < 0) {
		git_fail(err, e, "cannot read '%s' in '%s'", path, rev);
		goto out;
	}
	buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (blob_oid)
		git_oid_tostr(blob_oid, REPO_OID_HEX, git_tree_entry_id(ent));
	ret = 0;
out:
	git_blob_free(blob);
	git_tree_entry_free(ent);
	git_tree_free(tree);
	return ret;
}

struct walk {
	git_repository *git;
	struct fs_tree *out;
	int error;
};

static int walk_cb(const char *root, const git_tree_entry *ent, void *payload)
{
	struct walk *w = payload;
	git_blob *blob = NULL;
	char *path, *data;
	size_t len;

	if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB)
		return 0; /* trees are walked into; submodules skipped */
	w->error = git_blob_lookup(&blob, w->git, git_tree_entry_id(ent));
	if (w->error < 0)
		return -1;
	len = (size_t)git_blob_rawsize(blob);
	data = xmalloc(len + 1);
	memcpy(data, git_blob_rawcontent(blob), len);
	data[len] = '\0';
	path = xasprintf("%s%s", root, git_tree_entry_name(ent));
	fs_tree_add(w->out, path, data, len);
	free(path);
	git_blob_free(blob);
	return 0;
}

int repo_read_tree(struct repo *r, const char *rev, const char *dir,
		   struct fs_tree *out, struct err *err)
{
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *ent = NULL;
	struct walk w = { r->git, out, 0 };
	int e, ret = -1;

	if (rev_tree(r, rev, &tree, err) < 0)
		return -1;
	if (dir && *dir && strcmp(dir, ".") != 0) {
		e = git_tree_entry_bypath(&ent, tree, dir);
		if (e == GIT_ENOTFOUND) {
			ret = 0; /* no such directory: no files */
			goto out;
		}
		if (e < 0) {
			git_fail(err, e, "cannot read '%s' in '%s'", dir, rev);
			goto out;
		}
		if (git_tree_entry_type(ent) != GIT_OBJECT_TREE) {
			err_set(err, ERR_INVALID,
				"'%s' in '%s' is a file, not a directory", dir,
				rev);
			goto out;
		}
		e = git_tree_lookup(&sub, r->git, git_tree_entry_id(ent));
		if (e < 0) {
			git_fail(err, e, "cannot read '%s' in '%s'", dir, rev);
			goto out;
		}
	}
	e = git_tree_walk(sub ? sub : tree, GIT_TREEWALK_PRE, walk_cb, &w);
	if (e < 0) {
		git_fail(err, w.error ? w.error : e, "cannot read '%s' in '%s'",
			 dir && *dir ? dir : "/", rev);
		goto out;
	}
	fs_tree_sort(out);
	ret = 0;
out:
	git_tree_free(sub);
	git_tree_entry_free(ent);
	git_tree_free(tree);
	return ret;
}

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
		return git_fail(err, e, "cannot build a tree");
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
				git_fail(err, e, "cannot store '%s'",
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
				git_fail(err, e, "cannot store '%.*s'",
					 (int)(off + cl), v[i]->path);
				goto out;
			}
			i = j;
		}
	}
	e = git_treebuilder_write(out, b);
	if (e < 0) {
		git_fail(err, e, "cannot write a tree");
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
		return git_fail(err, e, "cannot build a tree");
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
				git_fail(err, e, "cannot read '%s'", comps[k]);
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
		git_fail(err, e, "cannot update '%s'", comps[k]);
		goto out;
	}
	*empty = git_treebuilder_entrycount(b) == 0;
	if (!*empty || k == 0) {
		e = git_treebuilder_write(out, b);
		if (e < 0) {
			git_fail(err, e, "cannot write a tree");
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
				git_fail(err, e, "cannot write a tree");
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
		git_fail(err, GIT_EINVALIDSPEC, "invalid author '%s <%s>'", an,
			 ae);
		goto out;
	}
	e = git_signature_now(committer, cn, ce);
	if (e < 0) {
		git_signature_free(*author);
		*author = NULL;
		git_fail(err, GIT_EINVALIDSPEC, "invalid committer '%s <%s>'",
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

static int branch_refname(const char *branch, struct buf *out,
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
		return git_fail(err, e, "cannot read '%s'", refname);
	if (git_reference_type(ref) != GIT_REFERENCE_DIRECT) {
		err_set(err, ERR_GIT, "'%s' is a symbolic reference", refname);
		git_reference_free(ref);
		return -1;
	}
	e = git_commit_lookup(out, r->git, git_reference_target(ref));
	git_reference_free(ref);
	if (e < 0)
		return git_fail(err, e, "cannot read the tip of '%s'", refname);
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
			return git_fail(err, e, "cannot write a tree");
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
		git_fail(err, e, "cannot update the work tree of '%s'",
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
			git_fail(err, e, "cannot update the work tree of '%s'",
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
			git_fail(err, e, "cannot read commit");
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
		git_fail(err, e, "cannot update '%s'", refname);
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
	if (branch_refname(o->branch, &refname, err) < 0)
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
			git_fail(err, e, "cannot read the tree of '%s'",
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
			git_fail(err, e, "cannot read the new tree");
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
		git_fail(err, e, "cannot create the commit");
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

	if (branch_refname(branch, &refname, err) < 0)
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
		git_fail(err, e, "cannot read '%s'", base ? base : "HEAD");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (check_path(files[i].path, "file name", err) < 0)
			goto out;
		e = git_blob_create_from_buffer(&up[i].id, r->git, files[i].data,
						files[i].len);
		if (e < 0) {
			git_fail(err, e, "cannot store '%s'", files[i].path);
			goto out;
		}
		up[i].action = GIT_TREE_UPDATE_UPSERT;
		up[i].filemode = GIT_FILEMODE_BLOB;
		up[i].path = files[i].path;
	}
	e = git_tree_create_updated(&root, r->git, tree, n, up);
	if (e < 0) {
		git_fail(err, e, "cannot build the new tree");
		goto out;
	}
	git_tree_free(tree);
	tree = NULL;
	e = git_tree_lookup(&tree, r->git, &root);
	if (e < 0) {
		git_fail(err, e, "cannot read the new tree");
		goto out;
	}
	if (signatures(r, &o, &author, &committer, err) < 0)
		goto out;
	parents[0] = parent;
	e = git_commit_create(&id, r->git, NULL, author, committer, NULL,
			      message, tree, 1, parents);
	if (e < 0) {
		git_fail(err, e, "cannot create the commit");
		goto out;
	}
	buf_adds(&log, "branch (gpuform): ");
	buf_add(&log, message, strcspn(message, "\n"));
	e = git_reference_create(&ref, r->git, buf_cstr(&refname), &id, 0,
				 buf_cstr(&log));
	if (e < 0) {
		git_fail(err, e, "cannot create '%s'", buf_cstr(&refname));
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

	if (branch_refname(branch, &refname, err) < 0)
		goto out;
	if (git_oid_fromstr(&id, oid) < 0) {
		err_set(err, ERR_INVALID, "'%s' is not an object id", oid);
		goto out;
	}
	e = git_commit_lookup(&target, r->git, &id);
	if (e < 0) {
		git_fail(err, e, "cannot reset '%s' to %s", branch, oid);
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

/* ---- credentials --------------------------------------------------------- */

static char *dupenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? xstrdup(v) : NULL;
}

void repo_cred_from_env(struct repo_cred *c)
{
	const char *home = getenv("HOME");

	c->username = dupenv("GPUFORM_GIT_USERNAME");
	c->password = dupenv("GPUFORM_GIT_PASSWORD");
	if (!c->password)
		c->password = dupenv("GPUFORM_GIT_TOKEN");
	c->ssh_key = dupenv("GPUFORM_GIT_SSH_KEY");
	c->ssh_pubkey = dupenv("GPUFORM_GIT_SSH_PUBKEY");
	c->ssh_passphrase = dupenv("GPUFORM_GIT_SSH_PASSPHRASE");
	c->known_hosts = dupenv("GPUFORM_GIT_SSH_KNOWN_HOSTS");
	if (!c->known_hosts && home && *home)
		c->known_hosts = xasprintf("%s/.ssh/known_hosts", home);
}


void repo_cred_release(struct repo_cred *c)
{
	free(c->username);
	digest_wipe_str(c->password);
	free(c->ssh_key);
	free(c->ssh_pubkey);
	digest_wipe_str(c->ssh_passphrase);
	free(c->known_hosts);
	memset(c, 0, sizeof(*c));
}

/* ---- transport callbacks ------------------------------------------------- */

struct net {
	const struct repo_cred *cred;
	char *url;  /* without userinfo, for messages */
	char *host; /* for known_hosts (SSH) */
	int port;
	int loopback; /* the remote is on loopback: never through a proxy */
	int userpass_tries, key_tries;
	char *file_user, *file_pass; /* from GPUFORM_GIT_CREDENTIALS */
	enum err_code fail_code;     /* a callback refused: why */
	struct buf fail;
	struct buf rejected; /* push: refs the server refused, with status */
	int conflict;        /* ... because they moved (retry helps) */
};

static void net_failf(struct net *n, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void net_failf(struct net *n, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	n->fail_code = code;
	buf_reset(&n->fail);
	va_start(ap, fmt);
	buf_vaddf(&n->fail, fmt, ap);
	va_end(ap);
}

/* parse_ssh_url: host and port of ssh://[user@]host[:port]/path or the
 * scp-like [user@]host:path; 0 if url is not SSH */
static int parse_ssh_url(const char *url, char **host, int *port)
{
	const char *p = NULL, *end;

	*port = 22;
	if (!strncmp(url, "ssh://", 6))
		p = url + 6;
	else if (!strncmp(url, "ssh+git://", 10) ||
		 !strncmp(url, "git+ssh://", 10))
		p = url + 10;
	if (p) {
		const char *at, *colon;

		end = p + strcspn(p, "/");
		at = NULL;
		for (const char *s = p; s < end; s++)
			if (*s == '@')
				at = s;
		if (at)
			p = at + 1;
		if (*p == '[') {
			const char *rb = memchr(p, ']', (size_t)(end - p));
			if (!rb)
				return 0;
			*host = xstrndup(p + 1, (size_t)(rb - p - 1));
			colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		} else {
			colon = memchr(p, ':', (size_t)(end - p));
			*host = xstrndup(p, (size_t)((colon ? colon : end) - p));
		}
		if (colon && colon + 1 < end) {
			char *e = NULL;
			long v = strtol(colon + 1, &e, 10);
			if (e == end && v > 0 && v < 65536)
				*port = (int)v;
		}
		return 1;
	}
	if (strstr(url, "://"))
		return 0;
	/* scp-like: a ':' before any '/' */
	end = strchr(url, ':');
	if (!end || (strchr(url, '/') && strchr(url, '/') < end))
		return 0;
	p = memchr(url, '@', (size_t)(end - url));
	p = p ? p + 1 : url;
	if (*p == '[' && end[-1] == ']')
		*host = xstrndup(p + 1, (size_t)(end - p - 2));
	else
		*host = xstrndup(p, (size_t)(end - p));
	return 1;
}

static int cred_cb(git_credential **out, const char *url,
		   const char *user_from_url, unsigned int allowed,
		   void *payload)
{
	struct net *n = payload;
	const struct repo_cred *c = n->cred;

	if (allowed & GIT_CREDENTIAL_SSH_KEY) {
		FILE *f;

		if (!c->ssh_key) {
			net_failf(n, ERR_AUTH,
				  "'%s' wants an SSH key: set "
				  "GPUFORM_GIT_SSH_KEY to a private key file",
				  n->url);
			return GIT_EUSER;
		}
		if (n->key_tries++ > 0) {
			net_failf(n, ERR_AUTH,
				  "'%s' refused the SSH key '%s'", n->url,
				  c->ssh_key);
			return GIT_EUSER;
		}
		f = fopen(c->ssh_key, "r");
		if (!f) {
			net_failf(n, ERR_AUTH, "cannot read SSH key '%s': %s",
				  c->ssh_key, strerror(errno));
			return GIT_EUSER;
		}
		fclose(f);
		return git_credential_ssh_key_new(
			out, user_from_url ? user_from_url : "git",
			c->ssh_pubkey, c->ssh_key, c->ssh_passphrase);
	}
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(
			out, user_from_url ? user_from_url : "git");
	if (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) {
		const char *user = c->username, *pass = c->password;
		const char *src = "GPUFORM_GIT_USERNAME/GPUFORM_GIT_PASSWORD "
				  "(or GPUFORM_GIT_TOKEN)";

		if (!pass && getenv("GPUFORM_GIT_CREDENTIALS") &&
		    *getenv("GPUFORM_GIT_CREDENTIALS")) {
			if (!n->file_pass) {
				struct buf why = BUF_INIT;

				credstore_lookup(getenv("GPUFORM_GIT_CREDENTIALS"),
						 url, &n->file_user,
						 &n->file_pass, &why);
				if (why.len) {
					net_failf(n, ERR_AUTH, "%s",
						  buf_cstr(&why));
					buf_release(&why);
					return GIT_EUSER;
				}
			}
			user = n->file_user;
			pass = n->file_pass;
			src = "GPUFORM_GIT_CREDENTIALS";
		}
		if (pass && !url_secret_safe(url)) {
			/* a password or token never goes in clear to a host
			 * that is not this machine (nor to a proxy on the
			 * way): https://, or http:// only to loopback */
			net_failf(n, ERR_AUTH,
				  "'%s' asks for credentials over plain http://: "
				  "refusing to send %s in clear; use the https:// "
				  "URL (plain http:// only to a loopback address)",
				  n->url, src);
			return GIT_EUSER;
		}
		if (!pass) {
			net_failf(n, ERR_AUTH,
				  "'%s' requires authentication: set "
				  "GPUFORM_GIT_USERNAME and GPUFORM_GIT_PASSWORD "
				  "(or GPUFORM_GIT_TOKEN), or name a credential "
				  "file in GPUFORM_GIT_CREDENTIALS",
				  n->url);
			return GIT_EUSER;
		}
		if (n->userpass_tries++ > 0) {
			net_failf(n, ERR_AUTH,
				  "authentication failed for '%s' (credentials "
				  "from %s)",
				  n->url, src);
			return GIT_EUSER;
		}
		if (!user)
			user = user_from_url ? user_from_url : "x-access-token";
		return git_credential_userpass_plaintext_new(out, user, pass);
	}
	net_failf(n, ERR_AUTH, "'%s' offers no authentication method gpuform "
			      "supports", n->url);
	return GIT_EUSER;
}

static int cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct net *n = payload;
	const git_cert_hostkey *hk;
	struct err e = ERR_INIT;

	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH; /* TLS: libgit2 verifies (valid) */
	hk = (const git_cert_hostkey *)cert;
	if (!n->host)
		n->host = xstrdup(host ? host : "");
	if (!(hk->type & GIT_CERT_SSH_RAW) || !hk->hostkey) {
		net_failf(n, ERR_AUTH,
			  "cannot verify the host key of '%s': libgit2 did not "
			  "provide it",
			  n->host);
		return GIT_EUSER;
	}
	if (knownhosts_check(n->cred->known_hosts, n->host, n->port,
			     (const unsigned char *)hk->hostkey,
			     hk->hostkey_len, &e) < 0) {
		net_failf(n, e.code, "%s", err_msg(&e));
		err_release(&e);
		return GIT_EUSER;
	}
	return 0;
}

static int push_ref_cb(const char *refname, const char *status, void *data)
{
	struct net *n = data;
	static const char *const moved[] = {
		"non-fast-forward", "fetch first", "failed to update",
		"failed to lock", "cannot lock", "stale info",
		"already exists", "incorrect old value",
	};

	if (!status)
		return 0;
	if (n->rejected.len)
		buf_adds(&n->rejected, "; ");
	buf_addf(&n->rejected, "%s: %s", refname, status);
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
		if (strstr(status, moved[i]))
			n->conflict = 1;
	return 0;
}

static void net_init(struct net *n, const struct repo_cred *c,
		     git_remote_callbacks *cb)
{
	memset(n, 0, sizeof(*n));
	n->cred = c;
	n->port = 22;
	cb->credentials = cred_cb;
	cb->certificate_check = cert_cb;
	cb->push_update_reference = push_ref_cb;
	cb->payload = n;
}

static void net_release(struct net *n)
{
	free(n->url);
	free(n->host);
	free(n->file_user);
	digest_wipe_str(n->file_pass);
	buf_release(&n->fail);
	buf_release(&n->rejected);
}

/* remote_get: a configured remote by name, else an anonymous one for a URL
 * or path; sets n->url (scrubbed) and the SSH host/port */
static int remote_get(struct repo *r, const char *name, int push,
		      git_remote **out, struct net *n, struct err *err)
{
	const char *url;
	struct buf u = BUF_INIT;
	int valid = 0, e;

	if (git_remote_name_is_valid(&valid, name) == 0 && valid) {
		e = git_remote_lookup(out, r->git, name);
		if (e < 0 && e != GIT_ENOTFOUND)
			return git_fail(err, e, "cannot read remote '%s'", name);
		if (e < 0 && !strchr(name, ':') && !strchr(name, '/'))
			return err_set(err, ERR_NOTFOUND,
				       "no remote '%s' in '%s'", name, r->path);
		if (e == 0)
			goto found;
	}
	e = git_remote_create_anonymous(out, r->git, name);
	if (e < 0) {
		git_fail(err, e, "invalid remote '%s'", name);
		buf_adds(&u, err_msg(err));
		scrub_userinfo(&u);
		err_set(err, ERR_INVALID, "%s", buf_cstr(&u));
		buf_release(&u);
		return -1;
	}
found:
	url = push && git_remote_pushurl(*out) ? git_remote_pushurl(*out)
					       : git_remote_url(*out);
	buf_adds(&u, url ? url : name);
	scrub_userinfo(&u);
	n->url = buf_detach(&u, NULL);
	n->loopback = url_host_loopback(url ? url : name);
	parse_ssh_url(url ? url : name, &n->host, &n->port);
	return 0;
}

int repo_remote_check(struct repo *r, const char *remote, struct err *err)
{
	git_remote *rem = NULL;
	git_strarray names = { NULL, 0 };
	struct buf have = BUF_INIT;
	const char *colon = strchr(remote, ':'), *slash = strchr(remote, '/');
	struct stat st;
	int valid = 0, e;

	if (git_remote_name_is_valid(&valid, remote) == 0 && valid) {
		e = git_remote_lookup(&rem, r->git, remote);
		git_remote_free(rem);
		if (e == 0)
			return 0;
		if (e != GIT_ENOTFOUND)
			return git_fail(err, e, "cannot read remote '%s'",
					remote);
	}
	/* a URL, an scp-like address (host:path), or an existing directory
	 * (a local repository); the push itself says whether it answers */
	if (strstr(remote, "://") || (colon && (!slash || colon < slash)) ||
	    (stat(remote, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	if (git_remote_list(&names, r->git) == 0)
		for (size_t i = 0; i < names.count; i++)
			buf_addf(&have, "%s'%s'", i ? ", " : "",
				 names.strings[i]);
	err_set(err, ERR_NOTFOUND,
		"no remote '%s' in '%s' (%s%s), and it is not a URL or an "
		"existing directory",
		remote, r->path, have.len ? "remotes: " : "it has no remotes",
		buf_cstr(&have));
	git_strarray_dispose(&names);
	buf_release(&have);
	return -1;
}

/* net_fail: err for a failed libgit2 network call; returns -1 */
static int net_fail(struct net *n, int gerr, struct err *err,
		    const char *what)
{
	if (n->fail_code != ERR_NONE)
		err_set(err, n->fail_code, "%s", buf_cstr(&n->fail));
	else if (gerr == GIT_ENONFASTFORWARD)
		err_set(err, ERR_CONFLICT,
			"%s: the branch has commits there that are not here "
			"(non-fast-forward)",
			what);
	else
		git_fail(err, gerr, "%s", what);
	return -1;
}

static void net_scrub(const struct repo_cred *c, struct net *n,
		      struct err *err)
{
	scrub_userinfo(&err->msg);
	scrub_secret(&err->msg, c->password);
	scrub_secret(&err->msg, c->ssh_passphrase);
	scrub_secret(&err->msg, n->file_pass);
}

int repo_push(struct repo *r, const char *remote, const char *branch,
	      const struct repo_cred *c, struct err *err)
{
	git_push_options po;
	git_remote *rem = NULL;
	struct buf refname = BUF_INIT, spec = BUF_INIT, what = BUF_INIT;
	struct net n;
	char *specs[1];
	git_strarray arr = { specs, 1 };
	int e, ret = -1;

	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	net_init(&n, c, &po.callbacks);
	po.proxy_opts.type = GIT_PROXY_AUTO;
	if (branch_refname(branch, &refname, err) < 0)
		goto out;
	if (remote_get(r, remote, 1, &rem, &n, err) < 0)
		goto out;
	if (n.loopback)
		po.proxy_opts.type = GIT_PROXY_NONE;
	buf_addf(&spec, "%s:%s", buf_cstr(&refname), buf_cstr(&refname));
	specs[0] = spec.ptr;
	buf_addf(&what, "cannot push '%s' to '%s'", branch, n.url);
	e = git_remote_push(rem, &arr, &po);
	if (e < 0) {
		net_fail(&n, e, err, buf_cstr(&what));
		goto out;
	}
	if (n.rejected.len) {
		err_set(err, n.conflict ? ERR_CONFLICT : ERR_GIT,
			"'%s' rejected the push (%s)", n.url,
			buf_cstr(&n.rejected));
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		net_scrub(c, &n, err);
	git_remote_free(rem);
	net_release(&n);
	buf_release(&what);
	buf_release(&spec);
	buf_release(&refname);
	return ret;
}

int repo_fetch(struct repo *r, const char *remote, const char *branch,
	       const struct repo_cred *c, char oid[REPO_OID_HEX],
	       struct err *err)
{
	git_fetch_options fo;
	git_remote *rem = NULL;
	git_reference *ref = NULL;
	git_commit *cm = NULL;
	const git_remote_head **heads = NULL;
	struct buf refname = BUF_INIT, track = BUF_INIT, spec = BUF_INIT;
	struct buf what = BUF_INIT;
	const git_oid *tip = NULL;
	size_t nheads = 0;
	struct net n;
	char *specs[1];
	git_strarray arr = { specs, 1 };
	int e, ret = -1;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	net_init(&n, c, &fo.callbacks);
	fo.proxy_opts.type = GIT_PROXY_AUTO;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	fo.prune = GIT_FETCH_NO_PRUNE;
	if (branch_refname(branch, &refname, err) < 0)
		goto out;
	if (remote_get(r, remote, 0, &rem, &n, err) < 0)
		goto out;
	if (n.loopback)
		fo.proxy_opts.type = GIT_PROXY_NONE;
	buf_addf(&track, "refs/remotes/gpuform/%s", branch);
	buf_addf(&spec, "+%s:%s", buf_cstr(&refname), buf_cstr(&track));
	specs[0] = spec.ptr;
	buf_addf(&what, "cannot fetch '%s' from '%s'", branch, n.url);
	e = git_remote_fetch(rem, &arr, &fo, "fetch (gpuform)");
	if (e < 0) {
		net_fail(&n, e, err, buf_cstr(&what));
		goto out;
	}
	/* the advertised tip, not a possibly stale tracking ref */
	if (git_remote_ls(&heads, &nheads, rem) == 0)
		for (size_t i = 0; i < nheads; i++)
			if (!strcmp(heads[i]->name, buf_cstr(&refname)))
				tip = &heads[i]->oid;
	if (!tip) {
		if (git_reference_lookup(&ref, r->git, buf_cstr(&track)) == 0)
			git_reference_delete(ref);
		git_error_clear();
		err_set(err, ERR_NOTFOUND, "'%s' has no branch '%s'", n.url,
			branch);
		goto out;
	}
	e = git_commit_lookup(&cm, r->git, tip);
	if (e < 0) {
		git_fail(err, e, "%s: the fetched tip is missing",
			 buf_cstr(&what));
		goto out;
	}
	git_oid_tostr(oid, REPO_OID_HEX, tip);
	ret = 0;
out:
	if (ret < 0)
		net_scrub(c, &n, err);
	git_commit_free(cm);
	git_reference_free(ref);
	git_remote_free(rem);
	net_release(&n);
	buf_release(&what);
	buf_release(&spec);
	buf_release(&track);
	buf_release(&refname);
	return ret;
}
