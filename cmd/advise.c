/*
 * cmd/advise.c: `gpuform advise` — what the GPUs did over a window, read
 * from Prometheus (reconcile/prom.c), turned into recommended changes of
 * the intent (generator/advise.c), printed, and with --write / --commit
 * made into the edited files or a branch for a pull request. Never
 * applied to a cluster.
 */
#include "cmd/cmd.h"
#include "cmd/prices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "generator/advise.h"
#include "generator/intent.h"
#include "generator/pipeline.h"
#include "git/gitpath.h"
#include "git/repo.h"
#include "reconcile/prom.h"
#include "util/fs.h"
#include "util/time.h"
#include "util/xalloc.h"
#include "util/yaml.h"

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

struct advise_run {
	enum { A_TEXT, A_MARKDOWN, A_JSON } fmt;
	struct prom prom;
	long window_s, step_s;
	long long at;
	int write, commit;
	const char *branch, *templates;
	const char *prices, *spot_prices;
	struct cmd_prices cpr;
	const char *token_file;
	struct buf token;
	/* per intent file */
	size_t n;
	char **files;
	struct buf *data, *edited;
	struct intent *in;
	struct advise_obs **obs;
	struct advise_result *res;
	struct tmpl_set *t;
};

/* "14d", "7d", or a duration in h/m/s */
static int parse_window(const char *s, long *out)
{
	double v;
	char *end;
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == 'd') {
		long d = strtol(s, &end, 10);
		if (end != s + n - 1 || d < 1 || d > 400)
			return -1;
		*out = d * 86400;
		return 0;
	}
	if (time_parse_duration(s, TIME_DUR_HMS, &v) < 0 || v < 1 ||
	    v > 400 * 86400.0)
		return -1;
	*out = (long)v;
	return 0;
}

static int parse_at(const char *s, long long *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!errno && end != s && !*end && v > 0) {
		*out = v;
		return 0;
	}
	return time_parse_rfc3339(s, out, NULL);
}

static int parse_args(struct advise_run *a, int argc, char **argv)
{
	int c;
	double v;

	while ((c = cmd_getopt("advise", argc, argv)) != -1) {
		switch (c) {
		case OPT_PROM:
			a->prom.url = optarg;
			break;
		case OPT_WINDOW:
			if (parse_window(optarg, &a->window_s) < 0)
				return cmd_usage_error(
					"advise",
					"--window takes a duration such as 14d, "
					"7d or 336h (1s to 400 days), not '%s'",
					optarg);
			break;
		case OPT_AT:
			if (parse_at(optarg, &a->at) < 0)
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
			a->step_s = (long)v;
			break;
		case OPT_TIMEOUT:
			if (time_parse_duration(optarg, TIME_DUR_HMS, &v) < 0 ||
			    v < 1 || v > 3600)
				return cmd_usage_error(
					"advise",
					"--timeout takes a duration from 1s to "
					"1h, not '%s'",
					optarg);
			a->prom.timeout_ms = (long)(v * 1000);
			break;
		case 'o':
			if (!strcmp(optarg, "text"))
				a->fmt = A_TEXT;
			else if (!strcmp(optarg, "markdown"))
				a->fmt = A_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				a->fmt = A_JSON;
			else
				return cmd_usage_error(
					"advise",
					"unknown format '%s' (text, markdown "
					"or json)",
					optarg);
			break;
		case OPT_WRITE:
			a->write = 1;
			break;
		case OPT_COMMIT:
			a->commit = 1;
			break;
		case OPT_BRANCH:
			a->branch = optarg;
			break;
		case OPT_TEMPLATES:
			a->templates = optarg;
			break;
		case OPT_PRICES:
			a->prices = optarg;
			break;
		case OPT_TOKEN_FILE:
			a->token_file = optarg;
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
	if (!a->prom.url)
		return cmd_usage_error("advise", "--prometheus URL is required");
	{
		struct err e = ERR_INIT;
		if (prom_check_url(a->prom.url, &e) < 0) {
			int rc = cmd_usage_error("advise", "%s", err_msg(&e));
			err_release(&e);
			return rc;
		}
	}
	if (a->commit && !a->branch)
		return cmd_usage_error("advise", "--commit needs --branch NAME");
	if (a->branch && !a->commit)
		return cmd_usage_error("advise", "--branch goes with --commit");
	if (a->step_s > a->window_s)
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

/* read every intent; their problems are reported together */
static int read_intents(struct advise_run *a, char **paths, struct err *err)
{
	struct diags d = DIAGS_INIT;
	int code = 0;

	a->data = xcalloc(a->n, sizeof(*a->data));
	a->edited = xcalloc(a->n, sizeof(*a->edited));
	a->in = xcalloc(a->n, sizeof(*a->in));
	a->obs = xcalloc(a->n, sizeof(*a->obs));
	a->res = xcalloc(a->n, sizeof(*a->res));
	a->files = paths;
	for (size_t i = 0; i < a->n; i++) {
		struct err e = ERR_INIT;
		if (fs_read_file(&a->data[i], paths[i], YAML_MAX_INPUT, &e) < 0) {
			diags_add_file_err(&d, paths[i], paths[i], &e);
			code = e.code == ERR_INVALID ? EXIT_INVALID : EXIT_RUNTIME;
			err_release(&e);
			intent_read(&a->in[i], paths[i], "", 0, &d);
			continue;
		}
		intent_read(&a->in[i], paths[i], buf_cstr(&a->data[i]),
			    a->data[i].len, &d);
		a->obs[i] = xcalloc(a->in[i].nworkloads + 1, sizeof(**a->obs));
	}
	if (d.errors && !code)
		code = EXIT_INVALID;
	diags_sort(&d);
	report_diags(&d);
	diags_release(&d);
	if (code)
		err_set(err, code == EXIT_INVALID ? ERR_INVALID : ERR_IO,
			"nothing was asked or written");
	return code;
}

static void print_results(const struct advise_run *a)
{
	struct buf out = BUF_INIT;

	if (a->fmt == A_JSON) {
		cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
		char *s;
		cJSON_AddStringToObject(o, "prometheus", a->prom.url);
		cJSON_AddNumberToObject(o, "windowSeconds", (double)a->window_s);
		cJSON_AddNumberToObject(o, "at", (double)a->at);
		for (size_t i = 0; i < a->n; i++)
			cJSON_AddItemToArray(arr, advise_json(a->files[i],
							      &a->in[i],
							      &a->res[i]));
		cJSON_AddItemToObject(o, "files", arr);
		if (!(s = cJSON_Print(o)))
			BUG("cJSON_Print failed");
		buf_adds(&out, s);
		buf_addc(&out, '\n');
		cJSON_free(s);
		cJSON_Delete(o);
	} else {
		for (size_t i = 0; i < a->n; i++) {
			if (i)
				buf_addc(&out, '\n');
			if (a->fmt == A_MARKDOWN)
				advise_markdown(&out, a->files[i], &a->in[i],
						&a->res[i]);
			else
				advise_text(&out, a->files[i], &a->in[i],
					    &a->res[i]);
		}
		if (a->fmt == A_MARKDOWN)
			buf_addf(&out, "\nFrom %s over %ld days before %lld "
				       "(Unix time); see docs/advise.md.\n",
				 a->prom.url, a->window_s / 86400, a->at);
	}
	fwrite(buf_cstr(&out), 1, out.len, stdout);
	buf_release(&out);
}

/* all edits, each result validated before anything is written */
static int edit_all(struct advise_run *a, struct err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		struct diags d = DIAGS_INIT;
		if (!a->res[i].changes)
			continue;
		if (advise_edit(&a->edited[i], a->files[i],
				buf_cstr(&a->data[i]), a->data[i].len,
				&a->in[i], &a->res[i], (size_t)-1, err) < 0)
			return -1;
		if (pipeline_render(NULL, a->files[i], buf_cstr(&a->edited[i]),
				    a->edited[i].len, a->t, &d, err) < 0) {
			report_diags(&d);
			diags_release(&d);
			err_release(err);
			return err_set(err, ERR_INVALID,
				       "%s: the edited intent does not "
				       "validate; nothing was written",
				       a->files[i]);
		}
		diags_release(&d);
	}
	return 0;
}

static int write_all(struct advise_run *a, struct err *err)
{
	char **paths = xcalloc(a->n, sizeof(*paths));
	const char **data = xcalloc(a->n, sizeof(*data));
	size_t *len = xcalloc(a->n, sizeof(*len)), k = 0;
	int ret;

	for (size_t i = 0; i < a->n; i++)
		if (a->res[i].changes) {
			paths[k] = a->files[i];
			data[k] = buf_cstr(&a->edited[i]);
			len[k++] = a->edited[i].len;
		}
	ret = fs_replace_files(paths, data, len, k, err);
	free(paths);
	free(data);
	free(len);
	return ret;
}

static int commit_all(struct advise_run *a, struct err *err)
{
	struct repo *r = NULL;
	struct repo_file *f = xcalloc(a->n, sizeof(*f));
	char **rel = xcalloc(a->n, sizeof(*rel));
	const char **files = xcalloc(a->n, sizeof(*files));
	const struct intent **ins = xcalloc(a->n, sizeof(*ins));
	const struct advise_result **rs = xcalloc(a->n, sizeof(*rs));
	struct buf msg = BUF_INIT, why = BUF_INIT;
	char oid[REPO_OID_HEX];
	size_t k = 0;
	int ret = -1;

	if (repo_discover(&r, a->files[0], err) < 0)
		goto out;
	for (size_t i = 0; i < a->n; i++) {
		files[i] = a->files[i];
		ins[i] = &a->in[i];
		rs[i] = &a->res[i];
		if (!a->res[i].changes)
			continue;
		rel[k] = git_path(a->files[i], repo_workdir(r), 0, &why);
		if (!rel[k]) {
			err_set(err, ERR_INVALID, "%s", buf_cstr(&why));
			goto out;
		}
		f[k].path = rel[k];
		f[k].data = buf_cstr(&a->edited[i]);
		f[k].len = a->edited[i].len;
		k++;
	}
	advise_commit_message(&msg, files, ins, rs, a->n);
	buf_addf(&msg, "\nObserved by gpuform advise from %s over %ld days "
		       "before %lld (Unix time).\n",
		 a->prom.url, a->window_s / 86400, a->at);
	if (repo_commit_files(r, a->branch, NULL, f, k, buf_cstr(&msg), oid,
			      err) < 0)
		goto out;
	fprintf(stderr, "gpuform advise: committed %zu file%s on branch '%s' "
			"(%.12s); open a pull request from it\n",
		k, k == 1 ? "" : "s", a->branch, oid);
	ret = 0;
out:
	for (size_t i = 0; i < k; i++)
		free(rel[i]);
	free(rel);
	free(f);
	free(files);
	free(ins);
	free(rs);
	buf_release(&msg);
	buf_release(&why);
	repo_free(r);
	return ret;
}

static void run_release(struct advise_run *a)
{
	for (size_t i = 0; a->data && i < a->n; i++) {
		buf_release(&a->data[i]);
		buf_release(&a->edited[i]);
		intent_release(&a->in[i]);
		free(a->obs[i]);
		advise_result_release(&a->res[i]);
	}
	free(a->data);
	free(a->edited);
	free(a->in);
	free(a->obs);
	free(a->res);
	tmpl_set_free(a->t);
	cmd_prices_release(&a->cpr);
	if (a->token.len)
		memset(a->token.ptr, 0, a->token.len);
	buf_release(&a->token);
}

/* the bearer token of --prometheus-token-file: one line, trailing
 * whitespace dropped; empty or with control characters is an error that
 * names the file, never the content */
#define TOKEN_MAX 16384
static int read_token(struct advise_run *a, struct err *err)
{
	size_t n;

	if (fs_read_file(&a->token, a->token_file, TOKEN_MAX, err) < 0) {
		err_wrap(err, "--prometheus-token-file");
		return -1;
	}
	n = a->token.len;
	while (n && strchr(" \t\r\n", a->token.ptr[n - 1]))
		n--;
	if (n)
		a->token.ptr[n] = '\0';
	a->token.len = n;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)a->token.ptr[i] < 0x20 ||
		    a->token.ptr[i] == 0x7f) {
			err_set(err, ERR_INVALID,
				"%s: the token has a control character or more "
				"than one line (byte %zu); give a file holding "
				"only the token",
				a->token_file, i + 1);
			return -1;
		}
	if (!n) {
		err_set(err, ERR_INVALID,
			"%s: the token file is empty; give a file holding the "
			"bearer token", a->token_file);
		return -1;
	}
	a->prom.token = a->token.ptr;
	return 0;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_run a;
	struct advise_opts o;
	struct err err = ERR_INIT;
	size_t changes = 0;
	int code;

	memset(&a, 0, sizeof(a));
	a.fmt = A_TEXT;
	a.window_s = 14 * 86400;
	a.step_s = 300;
	a.prom.timeout_ms = 30000;
	if ((code = parse_args(&a, argc, argv)) >= 0)
		return code;
	if (!a.at)
		a.at = (long long)time(NULL);
	a.n = (size_t)(argc - optind);
	if ((code = read_intents(&a, argv + optind, &err))) {
		report_err(&err);
		goto out;
	}
	if (tmpl_set_load(&a.t, a.templates, &err) < 0)
		goto fail;
	/* the token, read now (a rotated token is picked up by the next
	 * run); its text is never in a message */
	if (a.token_file && read_token(&a, &err) < 0)
		goto fail;
	/* the price files before any query: a bad one sends none */
	if (cmd_prices_load(&a.cpr, "advise", a.prices, a.spot_prices,
			    &err) < 0)
		goto fail;
	advise_opts_init(&o, (double)a.window_s);
	o.prices = cmd_prices_of(&a.cpr);
	/* every query first: a Prometheus error prints and writes nothing */
	for (size_t i = 0; i < a.n; i++)
		if (prom_observe(&a.prom, &a.in[i], a.window_s, a.step_s, a.at,
				 a.obs[i], &err) < 0) {
			err_wrap(&err, "%s: nothing was written", a.files[i]);
			goto fail;
		}
	for (size_t i = 0; i < a.n; i++) {
		if (advise_decide(&a.res[i], a.files[i], buf_cstr(&a.data[i]),
				  a.data[i].len, a.obs[i], a.in[i].nworkloads,
				  &o, a.t, &err) < 0)
			goto fail;
		changes += a.res[i].changes;
	}
	if ((a.write || a.commit) && edit_all(&a, &err) < 0)
		goto fail;
	print_results(&a);
	if (changes && a.write && write_all(&a, &err) < 0)
		goto fail;
	if (changes && a.commit && commit_all(&a, &err) < 0)
		goto fail;
	if (!changes && (a.write || a.commit))
		fprintf(stderr, "gpuform advise: no change to %s\n",
			a.write ? "write" : "commit");
	code = changes ? EXIT_DIFF : EXIT_OK;
	goto out;
fail:
	code = report_err(&err);
out:
	run_release(&a);
	err_release(&err);
	return code;
}
