/*
 * cmd/commit.c: `gpuform commit` — render intents and commit exactly those
 * files at one path of a Git branch (bare repositories too, nothing checked
 * out), then optionally push. When the push loses a race (the branch moved
 * on the remote) it fetches, resets the local branch to the fetched tip and
 * redoes the commit on it: bounded attempts with jittered backoff, so an
 * update is either published whole or reported as failed, never half-made
 * and never written over someone else's commit.
 *
 * --path DIR names the directory that holds one directory per cluster,
 * whatever the number of intents: each intent's files go to DIR/<cluster>/
 * (default DIR: clusters), exactly what `render -o DIR/<cluster>` writes
 * for it, and nothing else under DIR changes. A cluster directory that is
 * not empty and has no kustomization.yaml of gpuform's (the marker `render
 * -o` checks too) is never replaced. Git itself is the git/ module.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd/cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#include "generator/inputs.h"
#include "git/repo.h"
#include "util/backoff.h"
#include "util/yaml.h"
#include "util/fs.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define COMMIT_ATTEMPTS 5    /* commit + push rounds before giving up */
#define COMMIT_BACKOFF_MS 100 /* first backoff; doubles, plus jitter */
#define COMMIT_LIST_MAX 200  /* changed files named in the message body */

struct commit_opts {
	const char *repo, *branch, *message, *templates, *remote;
	char *path; /* the directory of the cluster directories */
	char *author_name, *author_email;
	int push;
};

/* the files `render -o` would write for these intents (see render.c) */
/* intent_name: the intent's path relative to the work tree when it lies in
 * it (then its blob id matches the committed file), else as given */
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

/* trailers: "Gpuform-Intent: <path> <blob id>" per intent + the version */
static int make_trailers(const struct inputs *ins, const char *workdir,
			 struct buf *out, struct err *err)
{
	for (size_t i = 0; i < ins->nr; i++) {
		struct buf data = BUF_INIT;
		char id[REPO_OID_HEX], *name;

		if (fs_read_file(&data, ins->items[i].path, YAML_MAX_INPUT,
				 err) < 0) {
			buf_release(&data);
			return -1;
		}
		repo_blob_id(buf_cstr(&data), data.len, id);
		name = intent_name(ins->items[i].path, workdir);
		buf_addf(out, "Gpuform-Intent: %s %s\n", name, id);
		free(name);
		buf_release(&data);
	}
	buf_addf(out, "Gpuform-Version: %s\n", GPUFORM_VERSION);
	return 0;
}

enum { CH_ADDED, CH_MODIFIED, CH_REMOVED };

/* list_changes: old vs new (both sorted by path) as "  added:    x" lines */
static void list_changes(const struct fs_tree *old, const struct fs_tree *new,
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
			kind = CH_REMOVED;
			path = old->files[i++].path;
		} else if (c > 0) {
			kind = CH_ADDED;
			path = new->files[j++].path;
		} else {
			const struct fs_file *a = &old->files[i++];
			const struct fs_file *b = &new->files[j++];
			if (a->len == b->len &&
			    !memcmp(a->data, b->data, a->len))
				continue;
			kind = CH_MODIFIED;
			path = b->path;
		}
		counts[kind]++;
		if (listed++ < COMMIT_LIST_MAX)
			buf_addf(out, "  %s %s\n", label[kind], path);
	}
	if (listed > COMMIT_LIST_MAX)
		buf_addf(out, "  ... and %zu more\n", listed - COMMIT_LIST_MAX);
}

static char *subject(const struct inputs *ins)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "gpuform: render ");
	for (size_t i = 0; i < ins->nr; i++)
		buf_addf(&b, "%s%s", i ? ", " : "", ins->items[i].r.cluster);
	return buf_detach(&b, NULL);
}

struct outcome {
	char oid[REPO_OID_HEX];
	int changed;
	size_t counts[3];
};

/* one intent's output: the files of DIR/<cluster>/ */
struct cluster_out {
	char *dir;
	struct fs_tree files;
};

/* owned_or_empty: the rule of `render -o` (util/fs.c), applied to a tree
 * read from Git: gpuform replaces a directory only if it is empty or has
 * a kustomization.yaml that gpuform wrote */
static int owned_or_empty(const struct fs_tree *old)
{
	const struct fs_file *k = fs_tree_find(old, RENDER_OWNER_FILE);

	return old->nr == 0 ||
	       (k && k->len >= strlen(RENDER_OWNER_PREFIX) &&
		!memcmp(k->data, RENDER_OWNER_PREFIX,
			strlen(RENDER_OWNER_PREFIX)));
}

/* check_root: DIR itself must not be one cluster's rendered directory (an
 * older gpuform wrote one intent's files straight into --path) */
static int check_root(struct repo *r, const char *tip,
		      const struct commit_opts *o, struct err *err)
{
	struct buf k = BUF_INIT;
	char *path = xasprintf("%s/%s", o->path, RENDER_OWNER_FILE);
	int ret = 0;

	if (repo_read(r, tip, path, &k, NULL, err) < 0) {
		if (err->code == ERR_NOTFOUND)
			err_clear(err);
		else
			ret = -1;
	} else if (!strncmp(buf_cstr(&k), RENDER_OWNER_PREFIX,
			    strlen(RENDER_OWNER_PREFIX)) &&
		   !strstr(buf_cstr(&k), "one directory per cluster")) {
		ret = err_set(err, ERR_INVALID,
			      "'%s/' on '%s' holds one cluster's rendered "
			      "files (an older gpuform wrote a single intent "
			      "straight into --path); --path now names the "
			      "directory that holds one directory per "
			      "cluster: give its parent instead; nothing "
			      "committed",
			      o->path, o->branch);
	}
	free(path);
	buf_release(&k);
	return ret;
}

/*
 * commit_once: on the current tip of the branch, commit each cluster's
 * files at DIR/<cluster>, with a message naming what changed there.
 */
static int commit_once(struct repo *r, const struct commit_opts *o,
		       const struct inputs *ins, const struct cluster_out *cl,
		       const struct buf *trailers, struct outcome *res,
		       struct err *err)
{
	struct fs_tree *old = xcalloc(ins->nr, sizeof(*old));
	struct repo_subtree *subs = xcalloc(ins->nr, sizeof(*subs));
	struct buf ref = BUF_INIT, msg = BUF_INIT, changes = BUF_INIT;
	char tip[REPO_OID_HEX];
	struct repo_commit rc = { o->branch, subs, ins->nr, NULL,
				  o->author_name, o->author_email };
	int ret = -1, have_tip = 0;

	res->changed = 0;
	res->counts[0] = res->counts[1] = res->counts[2] = 0;
	buf_addf(&ref, "refs/heads/%s", o->branch);
	if (repo_resolve(r, buf_cstr(&ref), tip, err) == 0) {
		have_tip = 1;
		if (check_root(r, tip, o, err) < 0)
			goto out;
	} else if (err->code == ERR_NOTFOUND) {
		err_clear(err); /* a new branch */
	} else {
		goto out;
	}
	for (size_t i = 0; i < ins->nr; i++) {
		size_t counts[3];

		subs[i].path = cl[i].dir;
		subs[i].files = &cl[i].files;
		if (have_tip && repo_read_tree(r, tip, cl[i].dir, &old[i],
					       err) < 0)
			goto out;
		if (!owned_or_empty(&old[i])) {
			err_set(err, ERR_INVALID,
				"'%s/' on '%s' is not empty and was not "
				"written by gpuform (no %s of ours in it); "
				"refusing to replace it: choose another "
				"--path; nothing committed",
				cl[i].dir, o->branch, RENDER_OWNER_FILE);
			goto out;
		}
		buf_reset(&changes);
		list_changes(&old[i], &cl[i].files, &changes, counts);
		for (int k = 0; k < 3; k++)
			res->counts[k] += counts[k];
		if (!changes.len)
			continue;
		if (!msg.len)
			buf_adds(&msg, "\n");
		buf_addf(&msg, "\nChanged under %s/:\n", cl[i].dir);
		buf_add(&msg, changes.ptr, changes.len);
	}
	if (!msg.len)
		buf_adds(&msg, "\n\n(file modes only)\n");
	{
		struct buf full = BUF_INIT;

		if (o->message) {
			size_t n = strlen(o->message);
			while (n && o->message[n - 1] == '\n')
				n--;
			buf_add(&full, o->message, n);
		} else {
			char *s = subject(ins);
			buf_adds(&full, s);
			free(s);
		}
		buf_add(&full, msg.ptr, msg.len);
		buf_addf(&full, "\n%s", buf_cstr(trailers));
		buf_release(&msg);
		msg = full;
	}
	rc.message = buf_cstr(&msg);
	ret = repo_commit_tree(r, &rc, res->oid, &res->changed, err);
out:
	buf_release(&changes);
	buf_release(&msg);
	buf_release(&ref);
	for (size_t i = 0; i < ins->nr; i++)
		fs_tree_release(&old[i]);
	free(old);
	free(subs);
	return ret;
}

/* backoff: sleep 100 ms << (attempt - 1), plus up to as much again */
static void backoff(int attempt, uint64_t *seed)
{
	backoff_sleep_ms(backoff_delay_ms(2 * COMMIT_BACKOFF_MS, 0, attempt,
					  seed));
}

/* normalise_path: strip "./" and trailing '/'; NULL if not a plain
 * relative directory path */
static char *normalise_path(const char *p)
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

/* parse_author: "Name <email>" */
static int parse_author(const char *s, struct commit_opts *o)
{
	const char *lt = strchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	size_t n;

	if (!lt || !gt || gt[1] != '\0' || gt == lt + 1)
		return -1;
	n = (size_t)(lt - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n)
		return -1;
	o->author_name = xstrndup(s, n);
	o->author_email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	return 0;
}

/* looks_like_remote: after a bare --push, is this argument the REMOTE
 * rather than the first intent? A URL, an scp-like address, a directory
 * or a plain name ("origin") is; a file, or a path named like an intent,
 * is not (a mistyped intent then fails before anything is committed). */
static int looks_like_remote(const char *s)
{
	struct stat st;
	size_t n = strlen(s);
	const char *colon = strchr(s, ':'), *slash = strchr(s, '/');

	if (stat(s, &st) == 0)
		return S_ISDIR(st.st_mode);
	if ((n > 5 && !strcmp(s + n - 5, ".yaml")) ||
	    (n > 4 && !strcmp(s + n - 4, ".yml")) ||
	    (n > 5 && !strcmp(s + n - 5, ".json")))
		return 0;
	if (strstr(s, "://") || (colon && (!slash || colon < slash)))
		return 1;
	return !slash;
}

static void print_commit(const struct commit_opts *o,
			 const struct inputs *ins, const struct cluster_out *cl,
			 const struct outcome *res)
{
	struct buf dirs = BUF_INIT;

	for (size_t i = 0; i < ins->nr; i++)
		buf_addf(&dirs, "%s%s/", i ? ", " : "", cl[i].dir);
	if (res->changed)
		printf("committed %.12s to %s: %s (%zu added, %zu modified, "
		       "%zu removed)\n",
		       res->oid, o->branch, buf_cstr(&dirs),
		       res->counts[CH_ADDED], res->counts[CH_MODIFIED],
		       res->counts[CH_REMOVED]);
	else
		printf("no changes under %s on %s; nothing committed\n",
		       buf_cstr(&dirs), o->branch);
	buf_release(&dirs);
}

enum {
	OPT_REPO = 256,
	OPT_BRANCH,
	OPT_PATH,
	OPT_AUTHOR,
	OPT_PUSH,
	OPT_TEMPLATES,
};

const struct cmd_opt commit_opts[] = {
	{ "repo", 0, OPT_REPO, CMD_ARG_REQUIRED, "PATH",
	  "the repository (bare or not)", "@dir", 0 },
	{ "branch", 0, OPT_BRANCH, CMD_ARG_REQUIRED, "B",
	  "the branch (default main; created if missing)", NULL, 0 },
	{ "path", 0, OPT_PATH, CMD_ARG_REQUIRED, "DIR",
	  "the directory of the cluster directories (default clusters): each "
	  "intent goes to DIR/<cluster>/, with one intent as with several",
	  NULL, 0 },
	{ "message", 'm', 'm', CMD_ARG_REQUIRED, "MSG",
	  "subject (and body) instead of 'gpuform: render <clusters>'", NULL,
	  0 },
	{ "author", 0, OPT_AUTHOR, CMD_ARG_REQUIRED, "'Name <email>'",
	  "the author; otherwise user.name and user.email (git config), then "
	  "GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL. The committer: git config, "
	  "GIT_COMMITTER_NAME/GIT_COMMITTER_EMAIL, else the author",
	  NULL, 0 },
	{ "push", 0, OPT_PUSH, CMD_ARG_OPTIONAL, "REMOTE",
	  "push B to REMOTE (a remote name or URL; default origin). '--push "
	  "REMOTE INTENT...' works when REMOTE is not a file. An unknown "
	  "remote commits nothing",
	  NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (see render)", "@dir", 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* what one commit run holds */
struct commit_run {
	struct commit_opts o;
	struct tmpl_set *t;
	struct inputs ins;
	struct diags d;
	struct err err;
	struct cluster_out *cl;
	size_t ncl;
	struct buf trailers;
	struct repo_cred cred;
	struct repo *r;
	struct outcome res;
};

/* the options; 0, -1 after --help (exit 0), or the exit code of a usage
 * error */
static int commit_parse(struct commit_opts *o, int argc, char **argv)
{
	int c;

	while ((c = cmd_getopt("commit", argc, argv)) != -1) {
		switch (c) {
		case OPT_REPO:
			o->repo = optarg;
			break;
		case OPT_BRANCH:
			o->branch = optarg;
			break;
		case OPT_PATH:
			free(o->path);
			o->path = normalise_path(optarg);
			if (!o->path)
				return cmd_usage_error(
					"commit",
					"--path '%s' must be a directory below "
					"the top of the repository (relative, "
					"no '.', '..' or '.git' parts)",
					optarg);
			break;
		case 'm':
			if (!*optarg)
				return cmd_usage_error("commit",
						       "empty message (-m)");
			o->message = optarg;
			break;
		case OPT_AUTHOR:
			free(o->author_name);
			free(o->author_email);
			o->author_name = o->author_email = NULL;
			if (parse_author(optarg, o) < 0)
				return cmd_usage_error(
					"commit",
					"--author '%s': expected 'Name <email>'",
					optarg);
			break;
		case OPT_PUSH:
			o->push = 1;
			o->remote = optarg && *optarg ? optarg : NULL;
			break;
		case OPT_TEMPLATES:
			o->templates = optarg;
			break;
		case 'h':
			cmd_print_help("commit");
			return -1; /* done: exit 0 */
		default:
			return EXIT_USAGE;
		}
	}
	if (o->push && !o->remote && argc - optind >= 2 &&
	    looks_like_remote(argv[optind]))
		o->remote = argv[optind++];
	if (o->push && !o->remote)
		o->remote = "origin";
	if (!o->repo)
		return cmd_usage_error("commit", "--repo is required");
	if (!repo_branch_name_valid(o->branch))
		return cmd_usage_error("commit", "'%s' is not a valid branch name",
				       o->branch);
	if (optind >= argc)
		return cmd_usage_error("commit", "no intent file given");
	if (!o->path)
		o->path = xstrdup("clusters");
	return 0;
}

/* render every intent, then each cluster's files under PATH/<cluster>/;
 * invalid input commits nothing. 0 or the exit code. */
static int commit_render(struct commit_run *cr, char **paths, size_t n)
{
	const struct commit_opts *o = &cr->o;

	if (tmpl_set_load(&cr->t, o->templates, &cr->err) < 0)
		return report_err(&cr->err);
	if (inputs_render(&cr->ins, paths, n, cr->t, 0, &cr->d, &cr->err) < 0) {
		diags_sort(&cr->d);
		report_diags(&cr->d);
		if (cr->err.code == ERR_INVALID || cr->err.code == ERR_IO)
			err_set(&cr->err, cr->err.code,
				"%zu error%s; nothing committed", cr->d.errors,
				cr->d.errors == 1 ? "" : "s");
		return report_err(&cr->err);
	}
	diags_sort(&cr->d);
	report_diags(&cr->d); /* warnings */
	cr->cl = xcalloc(cr->ins.nr, sizeof(*cr->cl));
	cr->ncl = cr->ins.nr;
	for (size_t i = 0; i < cr->ins.nr; i++) {
		struct inputs one = { &cr->ins.items[i], 1 };
		const char *name = cr->ins.items[i].r.cluster;
		const char *base = strrchr(o->path, '/');
		char *dir;

		base = base ? base + 1 : o->path;
		if (!strcmp(base, name))
			return cmd_usage_error(
				"commit",
				"--path '%s' names the directory that holds one "
				"directory per cluster; this would write "
				"cluster '%s' to '%s/%s/' (use --path %.*s)",
				o->path, name, o->path, name,
				base == o->path ? 8 : (int)(base - o->path - 1),
				base == o->path ? "clusters" : o->path);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(cr->ins.items[j].r.cluster, name)) {
				err_set(&cr->err, ERR_INVALID,
					"'%s' and '%s' both describe cluster "
					"'%s'; commit them separately",
					cr->ins.items[j].path,
					cr->ins.items[i].path, name);
				return report_err(&cr->err);
			}
		dir = xasprintf("%s/%s", o->path, name);
		cr->cl[i].dir = normalise_path(dir);
		free(dir);
		if (!cr->cl[i].dir) {
			err_set(&cr->err, ERR_INVALID,
				"cluster name '%s' cannot be a directory name",
				name);
			return report_err(&cr->err);
		}
		if (inputs_tree(&one, cr->t, RENDER_YAML, 0, &cr->cl[i].files,
				&cr->err) < 0)
			return report_err(&cr->err);
	}
	return 0;
}

/* open the repository, the trailers, check the remote; 0 or the exit code */
static int commit_open(struct commit_run *cr)
{
	if (repo_open(&cr->r, cr->o.repo, &cr->err) < 0 ||
	    make_trailers(&cr->ins, repo_workdir(cr->r), &cr->trailers,
			  &cr->err) < 0)
		return report_err(&cr->err);
	/* an unknown remote is a typo: say so before committing anything */
	if (cr->o.push && repo_remote_check(cr->r, cr->o.remote, &cr->err) < 0) {
		err_wrap(&cr->err, "cannot push (nothing committed)");
		return report_err(&cr->err);
	}
	if (cr->o.push) {
		struct sigaction sa;

		/* a server that hangs up must be an error, not a kill */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &sa, NULL);
		repo_cred_from_env(&cr->cred);
	}
	return 0;
}

/* commit (and push), redoing the commit on the new tip when the branch
 * moved, up to COMMIT_ATTEMPTS times; 0, or -1 with cr->err set */
static int commit_push(struct commit_run *cr)
{
	const struct commit_opts *o = &cr->o;
	struct err *err = &cr->err;
	uint64_t seed = backoff_seed(0);

	for (int attempt = 1;; attempt++) {
		char tip[REPO_OID_HEX];

		if (commit_once(cr->r, o, &cr->ins, cr->cl, &cr->trailers,
				&cr->res, err) < 0) {
			/* the local branch moved under us (another local
			 * run): redo on its new tip */
			if (err->code == ERR_CONFLICT && attempt < COMMIT_ATTEMPTS) {
				fprintf(stderr, "gpuform commit: %s (attempt %d "
						"of %d)\n",
					err_msg(err), attempt + 1,
					COMMIT_ATTEMPTS);
				err_clear(err);
				backoff(attempt, &seed);
				continue;
			}
			return -1;
		}
		if (!o->push)
			return 0;
		if (repo_push(cr->r, o->remote, o->branch, &cr->cred, err) == 0)
			return 0;
		if (err->code != ERR_CONFLICT)
			return -1;
		if (attempt == COMMIT_ATTEMPTS) {
			err_wrap(err, "gave up after %d attempts",
				 COMMIT_ATTEMPTS);
			err->code = ERR_CONFLICT;
			return -1;
		}
		fprintf(stderr,
			"gpuform commit: push rejected, '%s' moved on '%s' "
			"(%s): fetching it and redoing the commit on its tip "
			"(attempt %d of %d)\n",
			o->branch, o->remote, err_msg(err), attempt + 1,
			COMMIT_ATTEMPTS);
		err_clear(err);
		backoff(attempt, &seed);
		if (repo_fetch(cr->r, o->remote, o->branch, &cr->cred, tip,
			       err) < 0 ||
		    repo_reset_branch(cr->r, o->branch, tip, err) < 0)
			return -1;
	}
}

/* the exit code of a failed commit_push; a local commit that stands is
 * said next to the push error */
static int commit_failed(struct commit_run *cr)
{
	const struct err *err = &cr->err;
	int code;

	if (cr->res.changed &&
	    (err->code == ERR_HTTP || err->code == ERR_AUTH ||
	     err->code == ERR_GIT || err->code == ERR_CONFLICT ||
	     err->code == ERR_NOTFOUND)) {
		print_commit(&cr->o, &cr->ins, cr->cl, &cr->res);
		if (cr->o.push)
			fprintf(stderr, "gpuform commit: %.12s is committed "
					"locally but not pushed%s\n",
				cr->res.oid,
				err->code == ERR_HTTP || err->code == ERR_CONFLICT
					? "; run again to push it"
					: "");
	}
	code = report_err(err);
	if (code == EXIT_INVALID)
		code = EXIT_RUNTIME; /* bad branch names etc. are not intents */
	return code;
}

int cmd_commit(int argc, char **argv)
{
	struct commit_run cr;
	int code;

	memset(&cr, 0, sizeof(cr));
	cr.o.branch = "main";
	cr.ins = (struct inputs)INPUTS_INIT;
	cr.d = (struct diags)DIAGS_INIT;
	cr.err = (struct err)ERR_INIT;
	cr.trailers = (struct buf)BUF_INIT;
	cr.cred = (struct repo_cred)REPO_CRED_INIT;

	code = commit_parse(&cr.o, argc, argv);
	if (code < 0)
		code = EXIT_OK;
	else if (!code &&
		 !(code = commit_render(&cr, argv + optind,
					(size_t)(argc - optind))) &&
		 !(code = commit_open(&cr))) {
		if (commit_push(&cr) < 0) {
			code = commit_failed(&cr);
		} else {
			print_commit(&cr.o, &cr.ins, cr.cl, &cr.res);
			if (cr.o.push)
				printf("pushed %s to %s (%.12s)\n", cr.o.branch,
				       cr.o.remote, cr.res.oid);
		}
	}
	repo_cred_release(&cr.cred);
	repo_free(cr.r);
	buf_release(&cr.trailers);
	for (size_t i = 0; i < cr.ncl; i++) {
		free(cr.cl[i].dir);
		fs_tree_release(&cr.cl[i].files);
	}
	free(cr.cl);
	inputs_release(&cr.ins);
	diags_release(&cr.d);
	err_release(&cr.err);
	tmpl_set_free(cr.t);
	free(cr.o.path);
	free(cr.o.author_name);
	free(cr.o.author_email);
	return code;
}
