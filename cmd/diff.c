/*
 * cmd/diff.c: `gpuform diff --base` (between two Git revisions: the
 * pull-request diff, which needs no cluster) and `gpuform diff --live`
 * (against the cluster: a dry run of reconcile, cmd/live.c).
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/live.h"
#include "generator/addondiff.h"
#include "cmd/prices.h"
#include "generator/capplan.h"
#include "generator/objdiff.h"
#include "reconcile/ctlread.h"
#include "reconcile/source.h"

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

/* -o, in the enum's order (cmd_format) */
static const char *const diff_formats[] = { "text", "markdown", "json", NULL };

/* diff --base: the options and what the run holds */
struct dbase {
	struct source_revs s; /* the repository, both sides (source.h) */
	const char *templates;
	enum source_revs_fmt fmt;
	struct tmpl_set *t;
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
			b->s.base.rev = optarg;
			break;
		case OPT_HEAD:
			b->s.head.rev = optarg;
			break;
		case OPT_REPO:
			b->s.repo_dir = optarg;
			break;
		case 'o':
		case OPT_FORMAT:
			if ((i = cmd_format("diff", optarg, diff_formats, 0,
					    NULL)) < 0)
				return EXIT_USAGE;
			b->fmt = (enum source_revs_fmt)i;
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
	if (!b->s.base.rev || !*b->s.base.rev)
		return cmd_usage_error("diff", "--base needs a revision");
	if (b->s.head.rev && !*b->s.head.rev)
		return cmd_usage_error("diff", "--head needs a revision");
	if (optind >= argc)
		return cmd_usage_error("diff", "no intent file given");
	return 0;
}

/* the templates, the repository, both revisions and the paths in it */
static int dbase_open(struct dbase *b, int argc, char **argv)
{
	int usage;

	if (tmpl_set_load(&b->t, b->templates, &b->err) < 0)
		return report_err(&b->err);
	if (source_revs_open(&b->s, argv + optind, (size_t)(argc - optind),
			     &usage, &b->err) < 0)
		return usage ? cmd_usage_error("diff", "%s", err_msg(&b->err))
			     : report_err(&b->err);
	return 0;
}

/* render both sides; invalid intents, files on neither side and two files
 * for one cluster are reported */
static int dbase_render(struct dbase *b)
{
	struct source_revs *s = &b->s;

	if (source_revs_render(s, b->t, &b->err) < 0) {
		if (b->err.code == ERR_INVALID) { /* not Git or I/O */
			diags_sort(&s->base.d);
			diags_sort(&s->head.d);
			report_diags(&s->base.d);
			report_diags(&s->head.d);
		}
		return report_err(&b->err);
	}
	diags_sort(&s->head.d);
	report_diags(&s->head.d); /* warnings of the new version only */
	if (cmd_strict("diff", b->strict, &s->head.d, 0))
		return EXIT_INVALID;
	if (source_revs_check(s, &b->err) < 0)
		return report_err(&b->err);
	return 0;
}

/* compare the rendered objects and print the result in b->fmt */
static int dbase_compare(struct dbase *b)
{
	struct objdiff d = OBJDIFF_INIT;
	struct addondiff ad = ADDONDIFF_INIT;
	struct buf out = BUF_INIT;
	int code;

	if (source_revs_compare(&b->s, &d, &ad, &b->err) < 0) {
		code = report_err(&b->err);
	} else {
		source_revs_format(&out, b->fmt, &b->s, &d, &ad);
		fwrite(buf_cstr(&out), 1, out.len, stdout);
		code = d.nr || ad.nr ? EXIT_DIFF : EXIT_OK;
	}
	addondiff_release(&ad);
	buf_release(&out);
	objdiff_release(&d);
	return code;
}

static int diff_git(int argc, char **argv)
{
	struct dbase b = { SOURCE_REVS_INIT, NULL, SOURCE_REVS_TEXT, NULL, ERR_INIT, 0,
			   NULL, NULL, CMD_PRICES_INIT };
	int code;

	if ((code = dbase_parse(&b, argc, argv)))
		return code < 0 ? EXIT_OK : code;
	/* the price files first: a bad one prints no diff at all */
	if (cmd_prices_load(&b.cpr, "diff", b.prices, b.spot_prices,
			    &b.err) < 0) {
		code = report_err(&b.err);
		goto out;
	}
	b.s.base.cap.prices = b.s.head.cap.prices = cmd_prices_of(&b.cpr);
	if (!(code = dbase_open(&b, argc, argv)) &&
	    !(code = dbase_render(&b)))
		code = dbase_compare(&b);
out:
	cmd_prices_release(&b.cpr);
	source_revs_release(&b.s);
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
	{
		struct buf b = BUF_INIT;
		nodeimpact_diff_text(&b, &l.ni, &l.rep, cmd_verbosity > 0);
		fputs(buf_cstr(&b), stdout);
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
