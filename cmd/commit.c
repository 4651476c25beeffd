/*
 * cmd/commit.c: `gpuform commit` — render intents and commit exactly those
 * files at one path of a Git branch, then optionally push; the commit,
 * push, fetch and redo loop is git/publish.c.
 *
 * --path DIR names the directory that holds one directory per cluster,
 * whatever the number of intents: each intent's files go to DIR/<cluster>/
 * (default DIR: clusters), exactly what `render -o DIR/<cluster>` writes
 * for it, and nothing else under DIR changes. A cluster directory that is
 * not empty and has no kustomization.yaml of gpuform's (the marker `render
 * -o` checks too) is never replaced.
 */
#include "cmd/cmd.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#include "generator/inputs.h"
#include "git/publish.h"
#include "git/repo.h"
#include "reconcile/writeback.h"
#include "util/fs.h"
#include "util/xalloc.h"

struct commit_opts {
	const char *repo, *branch, *message, *templates, *remote;
	char *path; /* the directory of the cluster directories */
	char *author_name, *author_email;
	int push;
};

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
			 const struct inputs *ins, const struct publish_dir *cl,
			 const struct publish_result *res)
{
	struct buf dirs = BUF_INIT;

	for (size_t i = 0; i < ins->nr; i++)
		buf_addf(&dirs, "%s%s/", i ? ", " : "", cl[i].path);
	if (res->changed)
		printf("committed %.12s to %s: %s (%zu added, %zu modified, "
		       "%zu removed)\n",
		       res->oid, o->branch, buf_cstr(&dirs),
		       res->counts[PUBLISH_ADDED], res->counts[PUBLISH_MODIFIED],
		       res->counts[PUBLISH_REMOVED]);
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
	struct publish_dir *cl;
	size_t ncl;
	struct buf trailers;
	struct repo_cred cred;
	struct repo *r;
	struct publish_result res;
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
			o->path = publish_dir_path(optarg);
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
	int usage;

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
	cr->ncl = cr->ins.nr;
	if (writeback_dirs(&cr->cl, &cr->ins, cr->t, o->path, &usage,
			   &cr->err) < 0)
		return usage ? cmd_usage_error("commit", "%s", err_msg(&cr->err))
			     : report_err(&cr->err);
	return 0;
}

/* open the repository, the trailers, check the remote; 0 or the exit code */
static int commit_open(struct commit_run *cr)
{
	if (repo_open(&cr->r, cr->o.repo, &cr->err) < 0 ||
	    writeback_trailers(&cr->trailers, &cr->ins, repo_workdir(cr->r),
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

/* publish_run's retries, said on stderr */
static void say_retry(void *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, "gpuform commit: %s\n", what);
}

/* commit (and push), redoing the commit on the new tip when the branch
 * moved (git/publish.h); 0, or -1 with cr->err set */
static int commit_push(struct commit_run *cr)
{
	const struct commit_opts *o = &cr->o;
	char *subj = o->message ? NULL : writeback_subject(&cr->ins);
	struct publish p = {
		o->branch, o->path, "one directory per cluster",
		RENDER_OWNER_FILE, RENDER_OWNER_PREFIX, cr->cl, cr->ncl,
		o->message ? o->message : subj, buf_cstr(&cr->trailers),
		o->author_name, o->author_email, o->push ? o->remote : NULL,
		&cr->cred, 0, 0, say_retry, NULL,
	};
	int ret = publish_run(cr->r, &p, &cr->res, &cr->err);

	free(subj);
	return ret;
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
	writeback_dirs_free(cr.cl, cr.ncl);
	inputs_release(&cr.ins);
	diags_release(&cr.d);
	err_release(&cr.err);
	tmpl_set_free(cr.t);
	free(cr.o.path);
	free(cr.o.author_name);
	free(cr.o.author_email);
	return code;
}
