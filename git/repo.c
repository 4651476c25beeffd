/*
 * git/repo.c: Git through libgit2 (see repo.h) — with repo_tree.c and
 * repo_remote.c, the only libgit2 user.
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
 * The module is three files sharing repo_int.h: this one (errors, open,
 * init, verify, reading), repo_tree.c (building trees, the commit
 * identity, refs and the work tree, commit) and repo_remote.c
 * (credentials, transport callbacks, fetch and push).
 *
 * Beside it in git/: knownhosts.c (the SSH host key check), credstore.c
 * (GPUFORM_GIT_CREDENTIALS), loose.c (the loose-object check, zlib).
 */
#include "git/repo.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "git/repo_int.h"
#include "util/xalloc.h"

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

/* repo_scrub_userinfo: drop "user:password@" after every "://" in b */
void repo_scrub_userinfo(struct buf *b)
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

/* repo_scrub_secret: replace every occurrence of secret in b with "***" */
void repo_scrub_secret(struct buf *b, const char *secret)
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
 * repo_fail: err from libgit2's last error, "<context>: <libgit2 message>"
 * (libgit2 messages name their subject already); returns -1.
 */
int repo_fail(struct err *err, int gerr, const char *fmt, ...)
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
	repo_scrub_userinfo(&err->msg);
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
			repo_fail(err, e, "cannot open repository '%s'", path);
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
			repo_fail(err, e, "cannot find the repository of '%s'",
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
		repo_fail(err, e, "cannot create repository '%s'", path);
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
		repo_fail(v->err, e, "object %s ('%s%s') cannot be read", id,
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
		repo_fail(err, e, "cannot read the references of '%s'", r->path);
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
			repo_fail(err, e, "'%s' in '%s' cannot be read", name,
				  r->path);
		} else if (git_tree_walk(tree, GIT_TREEWALK_PRE, verify_entry,
					 &v) < 0) {
			if (!err_msg(err)[0])
				repo_fail(err, -1, "the tree of '%s' in '%s' "
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
		repo_fail(err, e, "cannot list the references of '%s'", r->path);
		goto out;
	}
	while ((e = git_revwalk_next(&oid, w)) == 0) {
		git_commit *c = NULL;
		e = git_commit_lookup(&c, r->git, &oid);
		if (e < 0) {
			git_oid_tostr(id, sizeof(id), &oid);
			repo_fail(err, e, "commit %s in '%s' cannot be read", id,
				  r->path);
			goto out;
		}
		git_commit_free(c);
	}
	if (e != GIT_ITEROVER) {
		repo_fail(err, e, "the history in '%s' cannot be read", r->path);
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
		return repo_fail(err, e == GIT_EAMBIGUOUS ? GIT_EINVALIDSPEC : e,
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
			return repo_fail(err, e, "cannot peel tag '%s'", rev);
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
		return repo_fail(err, e, "cannot read commit %s", oid);
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
		return repo_fail(err, e, "'%s' has no tree", rev);
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
		repo_fail(err, e, "cannot read '%s' in '%s'", path, rev);
		goto out;
	}
	if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB) {
		err_set(err, ERR_INVALID, "'%s' in '%s' is not a file", path, rev);
		goto out;
	}
	if (max != SIZE_MAX) {
		e = blob_size(r, git_tree_entry_id(ent), &size);
		if (e < 0) {
			repo_fail(err, e, "cannot read '%s' in '%s'", path, rev);
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
		repo_fail(err, e, "cannot read '%s' in '%s'", path, rev);
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
			repo_fail(err, e, "cannot read '%s' in '%s'", dir, rev);
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
			repo_fail(err, e, "cannot read '%s' in '%s'", dir, rev);
			goto out;
		}
	}
	e = git_tree_walk(sub ? sub : tree, GIT_TREEWALK_PRE, walk_cb, &w);
	if (e < 0) {
		repo_fail(err, w.error ? w.error : e, "cannot read '%s' in '%s'",
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
