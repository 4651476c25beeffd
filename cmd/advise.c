/*
 * cmd/advise.c: `gpuform advise` — what the GPUs did over a window, read
 * from Prometheus (reconcile/prom.c), turned into recommended changes of
 * the intent (generator/advise.c), printed, and with --write / --commit
 * made into the edited files or a branch for a pull request
 * (reconcile/advrun.c runs it; this file parses and prints). Never
 * applied to a cluster.
 */
#include "cmd/cmd.h"
#include "cmd/prices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generator/advise.h"
#include "git/repo.h"
#include "reconcile/advrun.h"
#include "util/time.h"

enum {
	OPT_PROM = 256, OPT_WINDOW, OPT_AT, OPT_STEP, OPT_WRITE, OPT_COMMIT,
	OPT_BRANCH, OPT_TIMEOUT, OPT_TEMPLATES, OPT_PRICES, OPT_SPOT_PRICES, OPT_TOKEN_FILE,
};

const struct cmd_opt advise_opts[] = {
	{ "prometheus", 0, OPT_PROM, CMD_ARG_REQUIRED, "URL",
	  "the Prometheus HTTP API to read (http:// or https://, no user "
	  "info), e.g. http://prometheus.monitoring:9090",
	  NULL, 0 },
	{ "window", 0, OPT_WINDOW, CMD_ARG_REQUIRED, "DURATION",
	  "how far back to look: 14d (default), 7d, 336h; at least 7 days are "
	  "needed to judge",
	  NULL, 0 },
	{ "at", 0, OPT_AT, CMD_ARG_REQUIRED, "TIME",
	  "the end of the window, RFC 3339 or Unix seconds (default: now)",
	  NULL, 0 },
	{ "step", 0, OPT_STEP, CMD_ARG_REQUIRED, "DURATION",
	  "the resolution of the window's samples (default 5m)", NULL, 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), markdown (a pull-request body) or json",
	  "text markdown json", 0 },
	{ "write", 0, OPT_WRITE, CMD_ARG_NONE, NULL,
	  "edit the intent files in place (the changed keys only; comments "
	  "and formatting kept; every result validates first)",
	  NULL, 0 },
	{ "commit", 0, OPT_COMMIT, CMD_ARG_NONE, NULL,
	  "commit the edited intents on a new branch (--branch) of the "
	  "repository that holds them, with the evidence in the message; "
	  "HEAD and the work tree are left alone",
	  NULL, 0 },
	{ "branch", 0, OPT_BRANCH, CMD_ARG_REQUIRED, "NAME",
	  "the new branch for --commit (must not exist)", NULL, 0 },
	{ "timeout", 0, OPT_TIMEOUT, CMD_ARG_REQUIRED, "DURATION",
	  "the most one query may take (default 30s)", NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "templates for the node-impact render, as render takes them",
	  "@dir", 0 },
	{ "prometheus-token-file", 0, OPT_TOKEN_FILE, CMD_ARG_REQUIRED,
	  "FILE",
	  "send the token in FILE as 'Authorization: Bearer' to Prometheus "
	  "(read at every run, e.g. a mounted service-account token; never "
	  "printed)",
	  "@file", 0 },
	{ "prices", 0, OPT_PRICES, CMD_ARG_REQUIRED, "FILE",
	  "on-demand prices of the cost effect from an AWS Price List offer "
	  "file (as plan --prices)", "@file", 0 },
	{ "spot-prices", 0, OPT_SPOT_PRICES, CMD_ARG_REQUIRED, "FILE",
	  "spot estimates of the cost effect from describe-spot-price-history "
	  "JSON (as plan --spot-prices)", "@file", 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* the command line, and the run (reconcile/advrun.c) */
struct advise_run {
	enum { A_TEXT, A_MARKDOWN, A_JSON } fmt;
	int write, commit;
	const char *templates;
	const char *prices, *spot_prices;
	struct cmd_prices cpr;
	struct advrun r;
};

static int parse_args(struct advise_run *a, int argc, char **argv)
{
	static const char *const formats[] = { "text", "markdown", "json", NULL };
	int c, f;
	double v;

	while ((c = cmd_getopt("advise", argc, argv)) != -1) {
		switch (c) {
		case OPT_PROM:
			a->r.prom.url = optarg;
			break;
		case OPT_WINDOW:
			if (advrun_parse_window(optarg, &a->r.window_s) < 0)
				return cmd_usage_error(
					"advise",
					"--window takes a duration such as 14d, "
					"7d or 336h (1s to 400 days), not '%s'",
					optarg);
			break;
		case OPT_AT:
			if (advrun_parse_at(optarg, &a->r.at) < 0)
				return cmd_usage_error(
					"advise",
					"--at takes RFC 3339 "
					"(2026-12-01T00:00:00Z) or Unix "
					"seconds, not '%s'",
					optarg);
			break;
		case OPT_STEP:
			if (time_parse_duration(optarg, TIME_DUR_HMS, &v) < 0 ||
			    v < 10 || v > 86400)
				return cmd_usage_error(
					"advise",
					"--step takes a duration from 10s to "
					"24h, not '%s'",
					optarg);
			a->r.step_s = (long)v;
			break;
		case OPT_TIMEOUT:
			if (time_parse_duration(optarg, TIME_DUR_HMS, &v) < 0 ||
			    v < 1 || v > 3600)
				return cmd_usage_error(
					"advise",
					"--timeout takes a duration from 1s to "
					"1h, not '%s'",
					optarg);
			a->r.prom.timeout_ms = (long)(v * 1000);
			break;
		case 'o':
			f = cmd_format("advise", optarg, formats, 0, NULL);
			if (f < 0)
				return EXIT_USAGE;
			a->fmt = f;
			break;
		case OPT_WRITE:
			a->write = 1;
			break;
		case OPT_COMMIT:
			a->commit = 1;
			break;
		case OPT_BRANCH:
			a->r.branch = optarg;
			break;
		case OPT_TEMPLATES:
			a->templates = optarg;
			break;
		case OPT_PRICES:
			a->prices = optarg;
			break;
		case OPT_TOKEN_FILE:
			a->r.token_file = optarg;
			break;
		case OPT_SPOT_PRICES:
			a->spot_prices = optarg;
			break;
		case 'h':
			return cmd_print_help("advise");
		default:
			return EXIT_USAGE;
		}
	}
	if (!a->r.prom.url)
		return cmd_usage_error("advise", "--prometheus URL is required");
	{
		struct err e = ERR_INIT;
		if (prom_check_url(a->r.prom.url, &e) < 0) {
			int rc = cmd_usage_error("advise", "%s", err_msg(&e));
			err_release(&e);
			return rc;
		}
	}
	if (a->commit && !a->r.branch)
		return cmd_usage_error("advise", "--commit needs --branch NAME");
	if (a->r.branch && !a->commit)
		return cmd_usage_error("advise", "--branch goes with --commit");
	if (a->r.step_s > a->r.window_s)
		return cmd_usage_error("advise", "--step is longer than --window");
	if (optind >= argc)
		return cmd_usage_error("advise", "no intent file given");
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "-"))
			return cmd_usage_error("advise",
					       "advise reads intent files, not "
					       "standard input (--write edits "
					       "them)");
	return -1;
}

static void print_results(const struct advise_run *a)
{
	struct buf out = BUF_INIT;

	advrun_format(&out, &a->r, a->fmt == A_JSON ? ADVRUN_JSON
				 : a->fmt == A_MARKDOWN ? ADVRUN_MARKDOWN
							: ADVRUN_TEXT);
	fwrite(buf_cstr(&out), 1, out.len, stdout);
	buf_release(&out);
}

int cmd_advise(int argc, char **argv)
{
	struct advise_run a;
	struct advise_opts o;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	size_t changes = 0, k = 0;
	char oid[REPO_OID_HEX];
	int code;

	memset(&a, 0, sizeof(a));
	a.fmt = A_TEXT;
	a.r.window_s = 14 * 86400;
	a.r.step_s = 300;
	a.r.prom.timeout_ms = 30000;
	if ((code = parse_args(&a, argc, argv)) >= 0)
		return code;
	if (!a.r.at)
		a.r.at = (long long)time(NULL);
	if (advrun_read(&a.r, argv + optind, (size_t)(argc - optind), &d,
			&err) < 0) {
		report_diags(&d);
		report_err(&err);
		code = err.code == ERR_INVALID ? EXIT_INVALID : EXIT_RUNTIME;
		goto out;
	}
	report_diags(&d);
	diags_release(&d);
	if (tmpl_set_load(&a.r.t, a.templates, &err) < 0)
		goto fail;
	/* the token, read now (a rotated token is picked up by the next
	 * run); its text is never in a message */
	if (a.r.token_file && advrun_token(&a.r, &err) < 0)
		goto fail;
	/* the price files before any query: a bad one sends none */
	if (cmd_prices_load(&a.cpr, "advise", a.prices, a.spot_prices,
			    &err) < 0)
		goto fail;
	advise_opts_init(&o, (double)a.r.window_s);
	o.prices = cmd_prices_of(&a.cpr);
	if (advrun_decide(&a.r, &o, &changes, &err) < 0)
		goto fail;
	if ((a.write || a.commit) && advrun_edit(&a.r, &d, &err) < 0) {
		report_diags(&d);
		goto fail;
	}
	print_results(&a);
	if (changes && a.write && advrun_write(&a.r, &err) < 0)
		goto fail;
	if (changes && a.commit && advrun_commit(&a.r, &k, oid, &err) < 0)
		goto fail;
	if (changes && a.commit)
		fprintf(stderr, "gpuform advise: committed %zu file%s on branch "
				"'%s' (%.12s); open a pull request from it\n",
			k, k == 1 ? "" : "s", a.r.branch, oid);
	if (!changes && (a.write || a.commit))
		fprintf(stderr, "gpuform advise: no change to %s\n",
			a.write ? "write" : "commit");
	code = changes ? EXIT_DIFF : EXIT_OK;
	goto out;
fail:
	code = report_err(&err);
out:
	advrun_release(&a.r);
	cmd_prices_release(&a.cpr);
	diags_release(&d);
	err_release(&err);
	return code;
}
