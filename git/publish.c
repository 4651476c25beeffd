/* git/publish.c: commit, push, fetch and redo (see publish.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "git/publish.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/backoff.h"
#include "util/xalloc.h"
#include "util/yaml.h"

static char *intent_name(const char *path, const char *workdir)
{
	char *abs = realpath(path, NULL), *wd = NULL, *ret = NULL;

	if (abs && workdir && (wd = realpath(workdir, NULL))) {
		size_t n = strlen(wd);
		if (!strncmp(abs, wd, n) && abs[n] == '/')
			ret = xstrdup(abs + n + 1);
	}
	free(wd);
	free(abs);
	return ret ? ret : xstrdup(path);
}

int publish_trailers(struct buf *out, char *const *paths, size_t n,
		     const char *workdir, const char *version,
		     struct err *err)
{
	for (size_t i = 0; i < n; i++) {
		struct buf data = BUF_INIT;
		char id[REPO_OID_HEX], *name;

		if (fs_read_file(&data, paths[i], YAML_MAX_INPUT, err) < 0) {
			buf_release(&data);
			return -1;
		}
		repo_blob_id(buf_cstr(&data), data.len, id);
		name = intent_name(paths[i], workdir);
		buf_addf(out, "Gpuform-Intent: %s %s\n", name, id);
		free(name);
		buf_release(&data);
	}
	buf_addf(out, "Gpuform-Version: %s\n", version);
	return 0;
}

void publish_changes(const struct fs_tree *old, const struct fs_tree *new,
		     struct buf *out, size_t counts[3])
{
	static const char *const label[] = { "added:   ", "modified:",
					     "removed: " };
	size_t i = 0, j = 0, listed = 0;

	counts[0] = counts[1] = counts[2] = 0;
	while (i < old->nr || j < new->nr) {
		int c = i == old->nr   ? 1
			: j == new->nr ? -1
				       : strcmp(old->files[i].path,
						new->files[j].path);
		const char *path;
		int kind;

		if (c < 0) {
			kind = PUBLISH_REMOVED;
			path = old->files[i++].path;
		} else if (c > 0) {
			kind = PUBLISH_ADDED;
			path = new->files[j++].path;
		} else {
			const struct fs_file *a = &old->files[i++];
			const struct fs_file *b = &new->files[j++];
			if (a->len == b->len &&
			    !memcmp(a->data, b->data, a->len))
				continue;
			kind = PUBLISH_MODIFIED;
			path = b->path;
		}
		counts[kind]++;
		if (listed++ < PUBLISH_LIST_MAX)
			buf_addf(out, "  %s %s\n", label[kind], path);
	}
	if (listed > PUBLISH_LIST_MAX)
		buf_addf(out, "  ... and %zu more\n", listed - PUBLISH_LIST_MAX);
}

char *publish_dir_path(const char *p)
{
	char *s, *q;
	size_t n;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	s = xstrdup(p);
	n = strlen(s);
	while (n && s[n - 1] == '/')
		s[--n] = '\0';
	if (!n || s[0] == '/')
		goto bad;
	for (q = s;;) {
		size_t l = strcspn(q, "/");
		if (!l || (l == 1 && q[0] == '.') ||
		    (l == 2 && !strncmp(q, "..", 2)) ||
		    (l == 4 && !strncmp(q, ".git", 4)))
			goto bad;
		if (!q[l])
			break;
		q += l + 1;
	}
	return s;
bad:
	free(s);
	return NULL;
}

/* owned_or_empty: the rule of `render -o` (util/fs.c), applied to a tree
 * read from Git: replace a directory only if it is empty or has the owner
 * marker */
static int owned_or_empty(const struct publish *p, const struct fs_tree *old)
{
	const struct fs_file *k = fs_tree_find(old, p->owner_file);
	size_t n = strlen(p->owner_prefix);

	return old->nr == 0 ||
	       (k && k->len >= n && !memcmp(k->data, p->owner_prefix, n));
}

/* check_root: the root must not be one rendered directory (an older
 * gpuform wrote one intent's files straight into --path) */
static int check_root(struct repo *r, const char *tip, const struct publish *p,
		      struct err *err)
{
	struct buf k = BUF_INIT;
	char *path = xasprintf("%s/%s", p->root, p->owner_file);
	int ret = 0;

	if (repo_read(r, tip, path, &k, NULL, err) < 0) {
		if (err->code == ERR_NOTFOUND)
			err_clear(err);
		else
			ret = -1;
	} else if (!strncmp(buf_cstr(&k), p->owner_prefix,
			    strlen(p->owner_prefix)) &&
		   !strstr(buf_cstr(&k), p->root_marker)) {
		ret = err_set(err, ERR_INVALID,
			      "'%s/' on '%s' holds one cluster's rendered "
			      "files (an older gpuform wrote a single intent "
			      "straight into --path); --path now names the "
			      "directory that holds one directory per "
			      "cluster: give its parent instead; nothing "
			      "committed",
			      p->root, p->branch);
	}
	free(path);
	buf_release(&k);
	return ret;
}

/* the message: subject, the changes per directory, the trailers */
static void make_message(struct buf *out, const struct publish *p,
			 const struct buf *changes)
{
	size_t n = strlen(p->message);

	while (n && p->message[n - 1] == '\n')
		n--;
	buf_add(out, p->message, n);
	if (changes->len)
		buf_add(out, changes->ptr, changes->len);
	else
		buf_adds(out, "\n\n(file modes only)\n");
	buf_addf(out, "\n%s", p->trailers ? p->trailers : "");
}

/* the tip of the branch (*have 0: a new branch) and the checks on it */
static int read_tip(struct repo *r, const struct publish *p,
		    char tip[REPO_OID_HEX], int *have, struct err *err)
{
	char *ref = xasprintf("refs/heads/%s", p->branch);
	int ret = 0;

	*have = 0;
	if (repo_resolve(r, ref, tip, err) == 0) {
		*have = 1;
		ret = check_root(r, tip, p, err);
	} else if (err->code == ERR_NOTFOUND) {
		err_clear(err);
	} else {
		ret = -1;
	}
	free(ref);
	return ret;
}

/* commit_once: on the current tip of the branch, commit each directory's
 * files, with a message naming what changed there */
static int commit_once(struct repo *r, const struct publish *p,
		       struct publish_result *res, struct err *err)
{
	struct fs_tree *old = xcalloc(p->ndirs ? p->ndirs : 1, sizeof(*old));
	struct repo_subtree *subs = xcalloc(p->ndirs ? p->ndirs : 1,
					    sizeof(*subs));
	struct buf msg = BUF_INIT, changes = BUF_INIT, body = BUF_INIT;
	char tip[REPO_OID_HEX];
	struct repo_commit rc = { p->branch, subs, p->ndirs, NULL,
				  p->author_name, p->author_email };
	int ret = -1, have_tip;

	res->changed = 0;
	res->counts[0] = res->counts[1] = res->counts[2] = 0;
	if (read_tip(r, p, tip, &have_tip, err) < 0)
		goto out;
	for (size_t i = 0; i < p->ndirs; i++) {
		size_t counts[3];

		subs[i].path = p->dirs[i].path;
		subs[i].files = &p->dirs[i].files;
		if (have_tip && repo_read_tree(r, tip, p->dirs[i].path, &old[i],
					       err) < 0)
			goto out;
		if (!owned_or_empty(p, &old[i])) {
			err_set(err, ERR_INVALID,
				"'%s/' on '%s' is not empty and was not "
				"written by gpuform (no %s of ours in it); "
				"refusing to replace it: choose another "
				"--path; nothing committed",
				p->dirs[i].path, p->branch, p->owner_file);
			goto out;
		}
		buf_reset(&changes);
		publish_changes(&old[i], &p->dirs[i].files, &changes, counts);
		for (int k = 0; k < 3; k++)
			res->counts[k] += counts[k];
		if (!changes.len)
			continue;
		if (!body.len)
			buf_adds(&body, "\n");
		buf_addf(&body, "\nChanged under %s/:\n", p->dirs[i].path);
		buf_add(&body, changes.ptr, changes.len);
	}
	make_message(&msg, p, &body);
	rc.message = buf_cstr(&msg);
	ret = repo_commit_tree(r, &rc, res->oid, &res->changed, err);
out:
	buf_release(&changes);
	buf_release(&body);
	buf_release(&msg);
	for (size_t i = 0; i < p->ndirs; i++)
		fs_tree_release(&old[i]);
	free(old);
	free(subs);
	return ret;
}

/* say the retry, then back off: base << (attempt - 1), plus up to as much
 * again */
static void retry(const struct publish *p, int attempt, uint64_t *seed,
		  struct buf *what)
{
	long long base = p->backoff_ms ? p->backoff_ms : PUBLISH_BACKOFF_MS;
	int max = p->attempts ? p->attempts : PUBLISH_ATTEMPTS;

	buf_addf(what, " (attempt %d of %d)", attempt + 1, max);
	if (p->retry)
		p->retry(p->retry_ctx, buf_cstr(what));
	buf_release(what);
	if (base > 0)
		backoff_sleep_ms(backoff_delay_ms(2 * base, 0, attempt, seed));
}

int publish_run(struct repo *r, const struct publish *p,
		struct publish_result *res, struct err *err)
{
	int max = p->attempts ? p->attempts : PUBLISH_ATTEMPTS;
	uint64_t seed = backoff_seed(0);

	for (int attempt = 1;; attempt++) {
		char tip[REPO_OID_HEX];
		struct buf what = BUF_INIT;

		res->attempts = attempt;
		if (commit_once(r, p, res, err) < 0) {
			/* the local branch moved under us (another local
			 * run): redo on its new tip */
			if (err->code == ERR_CONFLICT && attempt < max) {
				buf_adds(&what, err_msg(err));
				err_clear(err);
				retry(p, attempt, &seed, &what);
				continue;
			}
			return -1;
		}
		if (!p->remote)
			return 0;
		if (repo_push(r, p->remote, p->branch, p->cred, err) == 0)
			return 0;
		if (err->code != ERR_CONFLICT)
			return -1;
		if (attempt == max) {
			err_wrap(err, "gave up after %d attempts", max);
			err->code = ERR_CONFLICT;
			return -1;
		}
		buf_addf(&what, "push rejected, '%s' moved on '%s' (%s): "
				"fetching it and redoing the commit on its tip",
			 p->branch, p->remote, err_msg(err));
		err_clear(err);
		retry(p, attempt, &seed, &what);
		if (repo_fetch(r, p->remote, p->branch, p->cred, tip, err) < 0 ||
		    repo_reset_branch(r, p->branch, tip, err) < 0)
			return -1;
	}
}
