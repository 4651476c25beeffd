/*
 * cmd/diff.c: `gpuform diff --base` (between two Git revisions: the
 * pull-request diff, which needs no cluster) and `gpuform diff --live`
 * (against the cluster: a dry run of reconcile, cmd/live.c).
 */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/live.h"
#include "generator/addondiff.h"
#include "cmd/prices.h"
#include "generator/capplan.h"
#include "generator/objdiff.h"
#include "generator/pipeline.h"
#include "git/gitpath.h"
#include "git/repo.h"
#include "reconcile/ctlread.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* both modes of diff: --base (Git) and --live (the cluster) */
const struct cmd_opt diff_opts[] = {
	{ "base", 0, OPT_BASE, CMD_ARG_REQUIRED, "REV",
	  "compare with this revision (branch, tag, id): the pull-request "
	  "diff, from Git alone", NULL, 0 },
	{ "head", 0, OPT_HEAD, CMD_ARG_REQUIRED, "REV",
	  "with --base: the new side (default: the work tree)", NULL, 0 },
	{ "repo", 0, OPT_REPO, CMD_ARG_REQUIRED, "DIR",
	  "with --base: the repository (default: the one the current "
	  "directory is in)", "@dir", 0 },
	{ "live", 0, OPT_LIVE, CMD_ARG_NONE, NULL,
	  "compare with the cluster", NULL, 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), markdown (with --base: a PR comment, a table and "
	  "one diff per object) or json",
	  "text markdown json", 0 },
	{ "format", 0, OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "text markdown json", CMD_OPT_HIDDEN },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (see render), both sides", "@dir", 0 },
	{ "strict", 0, OPT_STRICT, CMD_ARG_NONE, NULL,
	  "with --base: fail (exit 3) on a warning of the new version that "
	  "spec.acknowledge does not accept", NULL, 0 },
	{ "prices", 0, OPT_PRICES, CMD_ARG_REQUIRED, "FILE",
	  "with --base: on-demand prices from an AWS Price List offer file "
	  "(as plan --prices), both sides", "@file", 0 },
	{ "spot-prices", 0, OPT_SPOT_PRICES, CMD_ARG_REQUIRED, "FILE",
	  "with --base: spot estimates from describe-spot-price-history JSON "
	  "(as plan --spot-prices), both sides", "@file", 0 },
	CLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* ---- diff --base: two Git revisions, rendered and compared ---------------- */

enum diff_format { DIFF_TEXT, DIFF_MARKDOWN, DIFF_JSON };
/* -o, in the enum's order (cmd_format) */
static const char *const diff_formats[] = { "text", "markdown", "json", NULL };

/* one side of the comparison: a revision, or the work tree (rev NULL) */
struct side {
	const char *what; /* "base" or "head" */
	const char *rev;
	char oid[REPO_OID_HEX];
	struct rendered *r; /* per intent path; r[i].docs NULL: absent */
	struct diags d;
	size_t failed;
	struct capplan cap; /* capacity and cost of its intents */
};

/* the file as the user can open it: REV:PATH, or its place on disk */
static char *side_label(const struct side *s, const char *repo_dir,
			const char *path, const char *arg)
{
	size_t n;

	if (s->rev)
		return xasprintf("%s:%s", s->rev, path);
	if (!repo_dir) /* found from the current directory: as typed */
		return xstrdup(arg);
	n = strlen(repo_dir);
	if (!strcmp(repo_dir, "."))
		return xstrdup(path);
	return xasprintf("%s%s%s", repo_dir,
			 n && repo_dir[n - 1] == '/' ? "" : "/", path);
}

/* read `path` at one side; *absent = 1 (and 0 returned) if it is not there */
static int side_read(struct buf *out, int *absent, struct repo *r,
		     const struct side *s, const char *path,
		     const char *label, struct err *err)
{
	const char *wd;
	struct stat st;
	char *file;
	int ret;

	*absent = 0;
	if (s->rev) {
		if (repo_read(r, s->oid, path, out, NULL, err) < 0) {
			if (err->code != ERR_NOTFOUND)
				return -1;
			err_clear(err);
			*absent = 1;
			return 0;
		}
		if (out->len > YAML_MAX_INPUT)
			return err_set(err, ERR_INVALID,
				       "'%s' is larger than %u bytes", label,
				       YAML_MAX_INPUT);
		return 0;
	}
	wd = repo_workdir(r);
	file = xasprintf("%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/",
			 path);
	if (lstat(file, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		free(file);
		*absent = 1;
		return 0;
	}
	ret = fs_read_file(out, file, YAML_MAX_INPUT, err);
	free(file);
	return ret;
}

/*
 * Render every path at one side. Invalid intents add diagnostics and are
 * counted in s->failed (all files are tried, so every problem is shown);
 * anything else (Git, I/O) stops with -1.
 */
static int side_render(struct side *s, struct repo *r, char **paths,
		       char *const *args, size_t n, const char *repo_dir,
		       const struct tmpl_set *t, struct err *err)
{
	s->r = xcalloc(n ? n : 1, sizeof(*s->r));
	for (size_t i = 0; i < n; i++) {
		char *label = side_label(s, repo_dir, paths[i], args[i]);
		struct buf data = BUF_INIT;
		struct err e = ERR_INIT;
		size_t before = s->d.errors;
		int absent, rc, fatal = 0;

		rc = side_read(&data, &absent, r, s, paths[i], label, &e);
		if (rc == 0 && !absent)
			rc = pipeline_render(&s->r[i], label, buf_cstr(&data),
					     data.len, t, &s->d, &e);
		if (rc == 0 && !absent) {
			/* valid: its capacity model cannot fail; the
			 * diagnostics were reported by the render */
			struct diags scratch = DIAGS_INIT;
			if (capplan_add(&s->cap, label, buf_cstr(&data),
					data.len, &scratch) < 0)
				BUG("capacity plan of a rendered intent failed");
			diags_release(&scratch);
		}
		if (rc < 0 && e.code == ERR_INVALID) {
			/* the diagnostics say it, unless the failure came
			 * later (templates, CRD rules) or earlier (size) */
			if (s->d.errors == before)
				diags_add(&s->d, DIAG_ERROR, label, 0, 0, NULL,
					  "%s", err_msg(&e));
			s->failed++;
		} else if (rc < 0) {
			err_set(err, e.code, "%s", err_msg(&e));
			fatal = 1;
		}
		err_release(&e);
		buf_release(&data);
		free(label);
		if (fatal)
			return -1;
	}
	return 0;
}

/* "at base 'origin/main'", "in the work tree" */
static void side_name(struct buf *out, const struct side *s)
{
	if (s->rev)
		buf_addf(out, "at %s '%s'", s->what, s->rev);
	else
		buf_adds(out, "in the work tree");
}

/* two intent files of one revision for the same cluster cannot be compared
 * object by object (nor rendered together) */
static int side_check_clusters(const struct side *s, char **paths, size_t n,
			       struct err *err)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; s->r[i].docs && j < i; j++)
			if (s->r[j].docs &&
			    !strcmp(s->r[i].cluster, s->r[j].cluster)) {
				struct buf where = BUF_INIT;
				side_name(&where, s);
				err_set(err, ERR_INVALID,
					"'%s' and '%s' both describe cluster "
					"'%s' %s", paths[j], paths[i],
					s->r[i].cluster, buf_cstr(&where));
				buf_release(&where);
				return -1;
			}
	return 0;
}

static void side_release(struct side *s, size_t n)
{
	for (size_t i = 0; s->r && i < n; i++)
		rendered_release(&s->r[i]);
	free(s->r);
	s->r = NULL;
	diags_release(&s->d);
	capplan_release(&s->cap);
}

static int invalid_error(const struct side *a, const struct side *b,
			 struct err *err)
{
	struct buf m = BUF_INIT;
	const struct side *sides[] = { a, b };
	int ret;

	buf_addf(&m, "invalid intent%s ", a->failed + b->failed > 1 ? "s" : "");
	for (int i = 0, first = 1; i < 2; i++) {
		if (!sides[i]->failed)
			continue;
		if (!first)
			buf_adds(&m, " and ");
		first = 0;
		side_name(&m, sides[i]);
		buf_addf(&m, " (%zu error%s)", sides[i]->d.errors,
			 sides[i]->d.errors == 1 ? "" : "s");
	}
	ret = err_set(err, ERR_INVALID, "%s; nothing compared", buf_cstr(&m));
	buf_release(&m);
	return ret;
}


/* diff --base: the options and what the run holds */
struct dbase {
	const char *repo_dir, *templates;
	enum diff_format fmt;
	struct side base, head;
	struct tmpl_set *t;
	struct repo *r;
	char **paths; /* the INTENT arguments as paths in the repository */
	size_t n;
	struct err err;
	int strict; /* --strict: the head's warnings fail */
	const char *prices, *spot_prices; /* --prices, --spot-prices */
	struct cmd_prices cpr;
};

/* the options; 0, -1 after --help (exit 0), or the exit code of a usage
 * error */
static int dbase_parse(struct dbase *b, int argc, char **argv)
{
	int c, i;

	while ((c = cmd_getopt("diff", argc, argv)) != -1) {
		switch (c) {
		case OPT_BASE:
			b->base.rev = optarg;
			break;
		case OPT_HEAD:
			b->head.rev = optarg;
			break;
		case OPT_REPO:
			b->repo_dir = optarg;
			break;
		case 'o':
		case OPT_FORMAT:
			if ((i = cmd_format("diff", optarg, diff_formats, 0,
					    NULL)) < 0)
				return EXIT_USAGE;
			b->fmt = (enum diff_format)i;
			break;
		case OPT_TEMPLATES:
			b->templates = optarg;
			break;
		case OPT_STRICT:
			b->strict = 1;
			break;
		case OPT_PRICES:
			b->prices = optarg;
			break;
		case OPT_SPOT_PRICES:
			b->spot_prices = optarg;
			break;
		case 'h':
			cmd_print_help("diff");
			return -1; /* done: exit 0 */
		case '?':
			return EXIT_USAGE;
		default:
			return cmd_usage_error("diff", "--%s goes with --live, "
						       "not --base",
					       cmd_opt_name("diff", c));
		}
	}
	if (!b->base.rev || !*b->base.rev)
		return cmd_usage_error("diff", "--base needs a revision");
	if (b->head.rev && !*b->head.rev)
		return cmd_usage_error("diff", "--head needs a revision");
	if (optind >= argc)
		return cmd_usage_error("diff", "no intent file given");
	return 0;
}

/* the templates, the repository, both revisions and the paths in it */
static int dbase_open(struct dbase *b, int argc, char **argv)
{
	if (tmpl_set_load(&b->t, b->templates, &b->err) < 0 ||
	    (b->repo_dir ? repo_open(&b->r, b->repo_dir, &b->err)
			 : repo_discover(&b->r, ".", &b->err)) < 0)
		return report_err(&b->err);
	if (repo_resolve(b->r, b->base.rev, b->base.oid, &b->err) < 0) {
		err_wrap(&b->err, "--base");
		return report_err(&b->err);
	}
	if (b->head.rev &&
	    repo_resolve(b->r, b->head.rev, b->head.oid, &b->err) < 0) {
		err_wrap(&b->err, "--head");
		return report_err(&b->err);
	}
	if (!b->head.rev && !repo_workdir(b->r))
		return cmd_usage_error("diff", "'%s' is a bare repository: "
					       "give --head REV",
				       b->repo_dir ? b->repo_dir : ".");
	b->n = (size_t)(argc - optind);
	b->paths = xcalloc(b->n, sizeof(*b->paths));
	for (size_t i = 0; i < b->n; i++) {
		struct buf why = BUF_INIT;
		int code = EXIT_OK;

		b->paths[i] = git_path(argv[optind + i], repo_workdir(b->r),
				       b->repo_dir != NULL, &why);
		if (!b->paths[i])
			code = cmd_usage_error("diff", "%s",
					       why.len ? buf_cstr(&why)
						       : "not a file in the "
							 "repository");
		buf_release(&why);
		if (code)
			return code;
	}
	return 0;
}

/* render both sides; invalid intents, files on neither side and two files
 * for one cluster are reported */
static int dbase_render(struct dbase *b, char **args)
{
	if (side_render(&b->base, b->r, b->paths, args, b->n, b->repo_dir,
			b->t, &b->err) < 0 ||
	    side_render(&b->head, b->r, b->paths, args, b->n, b->repo_dir,
			b->t, &b->err) < 0)
		return report_err(&b->err);
	if (b->base.failed || b->head.failed) {
		diags_sort(&b->base.d);
		diags_sort(&b->head.d);
		report_diags(&b->base.d);
		report_diags(&b->head.d);
		invalid_error(&b->base, &b->head, &b->err);
		return report_err(&b->err);
	}
	diags_sort(&b->head.d);
	report_diags(&b->head.d); /* warnings of the new version only */
	if (cmd_strict("diff", b->strict, &b->head.d, 0))
		return EXIT_INVALID;
	for (size_t i = 0; i < b->n; i++)
		if (!b->base.r[i].docs && !b->head.r[i].docs) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "'%s' exists neither ", b->paths[i]);
			side_name(&m, &b->base);
			buf_adds(&m, " nor ");
			side_name(&m, &b->head);
			err_set(&b->err, ERR_NOTFOUND, "%s", buf_cstr(&m));
			buf_release(&m);
			return report_err(&b->err);
		}
	if (side_check_clusters(&b->base, b->paths, b->n, &b->err) < 0 ||
	    side_check_clusters(&b->head, b->paths, b->n, &b->err) < 0)
		return report_err(&b->err);
	return 0;
}

/* the comparison in b->fmt, with the capacity and cost before -> after
 * (generator/capplan.h); the markdown summary line leads with it when it
 * changes */
static void dbase_format(struct buf *out, const struct dbase *b,
			 const struct objdiff *d, const struct objdiff_rev *rb,
			 const struct objdiff_rev *rh,
			 const struct addondiff *ad)
{
	const struct capplan *cb = &b->base.cap, *ch = &b->head.cap;
	struct buf lead = BUF_INIT, sec = BUF_INIT;

	if (b->fmt == DIFF_MARKDOWN) {
		if (capplan_changed(cb, ch)) {
			buf_adds(&lead, "Capacity: ");
			capplan_diff_lead(&lead, cb, ch);
		}
		if (ad->nr)
			buf_addf(&lead, "%sadd-ons: %zu setting%s changed",
				 lead.len ? "; " : "", ad->nr,
				 ad->nr == 1 ? "" : "s");
		capplan_diff_markdown(&sec, cb, ch);
		addondiff_format_markdown(&sec, ad);
		objdiff_format_markdown_ext(out, d, rb, rh,
					    lead.len ? buf_cstr(&lead) : NULL,
					    buf_cstr(&sec));
	} else if (b->fmt == DIFF_JSON) {
		struct buf j = BUF_INIT;
		cJSON *root;
		char *s;
		objdiff_format_json_ext(&j, d, rb, rh, "capacity",
					capplan_diff_json(cb, ch));
		/* .addons when add-on settings changed (the same printer, so
		 * the rest is byte for byte what it was) */
		if (ad->nr && (root = cJSON_Parse(buf_cstr(&j)))) {
			cJSON_AddItemToObject(root, "addons", addondiff_json(ad));
			if ((s = cJSON_Print(root))) {
				buf_reset(&j);
				buf_adds(&j, s);
				buf_addc(&j, '\n');
				free(s);
			}
			cJSON_Delete(root);
		}
		buf_adds(out, buf_cstr(&j));
		buf_release(&j);
	} else {
		/* before the summary line, which stays last; nothing when
		 * the capacity did not change */
		if (capplan_changed(cb, ch))
			capplan_diff_text(&sec, cb, ch);
		addondiff_format_text(&sec, ad);
		objdiff_format_text_ext(out, d, sec.len ? buf_cstr(&sec) : NULL);
		/* the summary line (last) counts the add-on settings too */
		if (ad->nr && out->len && out->ptr[out->len - 1] == '\n') {
			out->len--;
			out->ptr[out->len] = '\0';
			buf_adds(out, "; ");
			addondiff_summary(out, ad);
			buf_addc(out, '\n');
		}
	}
	buf_release(&lead);
	buf_release(&sec);
}

/* compare the rendered objects and print the result in b->fmt */
static int dbase_compare(struct dbase *b)
{
	struct objset sa = OBJSET_INIT, sb = OBJSET_INIT;
	struct objdiff d = OBJDIFF_INIT;
	struct addondiff ad = ADDONDIFF_INIT;
	struct objdiff_rev rb = { b->base.rev, b->base.oid };
	struct objdiff_rev rh = { b->head.rev, b->head.rev ? b->head.oid : NULL };
	struct buf out = BUF_INIT;
	int code;

	for (size_t i = 0; i < b->n; i++) {
		if (b->base.r[i].docs)
			objset_add(&sa, b->base.r[i].cluster, b->base.r[i].docs);
		if (b->head.r[i].docs)
			objset_add(&sb, b->head.r[i].cluster, b->head.r[i].docs);
		/* the add-on files by key (one intent: addons/ at the top) */
		addondiff_add(&ad,
			      b->n > 1 ? (b->head.r[i].cluster
					      ? b->head.r[i].cluster
					      : b->base.r[i].cluster)
				       : NULL,
			      b->base.r[i].addons, b->head.r[i].addons,
			      b->base.r[i].docs, b->head.r[i].docs);
	}
	if (objdiff_compute(&d, &sa, &sb, &b->err) < 0) {
		code = report_err(&b->err);
	} else {
		dbase_format(&out, b, &d, &rb, &rh, &ad);
		fwrite(buf_cstr(&out), 1, out.len, stdout);
		code = d.nr || ad.nr ? EXIT_DIFF : EXIT_OK;
	}
	addondiff_release(&ad);
	buf_release(&out);
	objdiff_release(&d);
	objset_release(&sa);
	objset_release(&sb);
	return code;
}

static int diff_git(int argc, char **argv)
{
	struct dbase b = { NULL, NULL, DIFF_TEXT,
			   { "base", NULL, "", NULL, DIAGS_INIT, 0, CAPPLAN_INIT },
			   { "head", NULL, "", NULL, DIAGS_INIT, 0, CAPPLAN_INIT },
			   NULL, NULL, NULL, 0, ERR_INIT, 0, NULL, NULL,
			   CMD_PRICES_INIT };
	int code;

	if ((code = dbase_parse(&b, argc, argv)))
		return code < 0 ? EXIT_OK : code;
	/* the price files first: a bad one prints no diff at all */
	if (cmd_prices_load(&b.cpr, "diff", b.prices, b.spot_prices,
			    &b.err) < 0) {
		code = report_err(&b.err);
		goto out;
	}
	b.base.cap.prices = b.head.cap.prices = cmd_prices_of(&b.cpr);
	if (!(code = dbase_open(&b, argc, argv)) &&
	    !(code = dbase_render(&b, argv + optind)))
		code = dbase_compare(&b);
out:
	cmd_prices_release(&b.cpr);
	side_release(&b.base, b.n);
	side_release(&b.head, b.n);
	for (size_t i = 0; b.paths && i < b.n; i++)
		free(b.paths[i]);
	free(b.paths);
	repo_free(b.r);
	tmpl_set_free(b.t);
	err_release(&b.err);
	return code;
}

/* ---- diff --live: a dry run of reconcile, its diffs printed -------------- */

/* live_finish, an add-on difference counted as a difference (exit 1) */
static int live_finish_addons(struct live *l, struct addondiff *ad)
{
	int code = live_code(l);

	if (code == EXIT_OK && ad->nr)
		code = EXIT_DIFF;
	addondiff_release(ad);
	cJSON_Delete(l->addons);
	l->addons = NULL;
	return live_finish(l, code);
}

static int diff_live(int argc, char **argv)
{
	struct live l;
	struct addondiff ad = ADDONDIFF_INIT;
	struct diags notes = DIAGS_INIT;
	int c, live = 0, code;

	live_init(&l, "diff");
	while ((c = cmd_getopt("diff", argc, argv)) != -1) {
		switch (c) {
		case OPT_TEMPLATES:
			l.templates = optarg;
			break;
		case OPT_LIVE:
			live = 1;
			break;
		case OPT_FORMAT:
		case 'o':
			if ((code = live_output_opt(&l, optarg)))
				return code;
			break;
		case 'h':
			return cmd_print_help("diff");
		case OPT_KUBECONFIG:
		case OPT_CONTEXT:
		case OPT_TIMEOUT:
		case OPT_REQ_TIMEOUT:
		case OPT_INSECURE_LOOPBACK_HTTP:
			if ((code = live_cluster_opt(&l, c, optarg)))
				return code;
			break;
		case '?':
			return EXIT_USAGE;
		default:
			return cmd_usage_error("diff", "--%s goes with diff --base",
					       cmd_opt_name("diff", c));
		}
	}
	if (!live)
		return cmd_usage_error("diff", "say what to compare with: --base "
					       "REV (Git revisions) or --live (the "
					       "cluster)");
	if (optind >= argc)
		return cmd_usage_error("diff", "no intent file or rendered "
					       "directory given");
	l.ro.dry_run = 1;
	l.ro.want_diffs = 1;
	l.ro.prune = 1; /* show what a prune would remove */
	l.paths = argv + optind;
	l.npaths = (size_t)(argc - optind);
	if ((code = live_run(&l)) >= 0)
		return live_finish(&l, code);
	/* the add-on files against the running controllers (values delivery:
	 * no object in the cluster holds them) */
	if (l.rc == 0)
		ctlread_addondiff(&ad, l.k, l.src.addons, l.src.docs, &notes);
	report_diags(&notes);
	diags_release(&notes);
	if (ad.nr)
		l.addons = addondiff_json(&ad);
	if (l.json) {
		live_json(&l);
		return live_finish_addons(&l, &ad);
	}
	for (size_t i = 0; i < l.rep.nr; i++) {
		const struct recon_item *it = &l.rep.items[i];
		if (it->diff) {
			live_print_impact(&l.ni, it, "");
			fputs(it->diff, stdout);
		} else if (it->action == RA_PRUNED) {
			live_print_item(it);
			live_print_impact(&l.ni, it, "");
		} else if (it->action == RA_CONFLICT || it->action == RA_FAILED) {
			live_print_item(it);
		}
	}
	if (recon_changed(&l.rep) && l.ni.n) {
		struct buf b = BUF_INIT;
		nodeimpact_summary(&b, &l.ni);
		printf("%s\n", buf_cstr(&b));
		buf_release(&b);
	}
	if (ad.nr) {
		struct buf b = BUF_INIT;
		addondiff_format_text(&b, &ad);
		addondiff_summary(&b, &ad);
		printf("%s\n", buf_cstr(&b));
		buf_release(&b);
	}
	return live_finish_addons(&l, &ad);
}

/* which mode: --base (Git) or --live (cluster); they take different options */
static int diff_mode_of(int argc, char **argv, int *base, int *live)
{
	*base = *live = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--base") || !strncmp(argv[i], "--base=", 7))
			*base = 1;
		else if (!strcmp(argv[i], "--live"))
			*live = 1;
	}
	return *base && *live ? -1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	int base, live;

	if (diff_mode_of(argc, argv, &base, &live) < 0)
		return cmd_usage_error("diff", "--base (Git revisions) and "
					       "--live (the cluster) cannot be "
					       "combined");
	if (base)
		return diff_git(argc, argv);
	return diff_live(argc, argv);
}
