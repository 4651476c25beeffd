/*
 * cmd/lint.c: `gpuform lint` — best-practice findings for intents and
 * Kubernetes manifests as text, JSON or SARIF 2.1.0 — and `gpuform explain`.
 *
 * This file reads the files (directories are walked for YAML files),
 * formats and picks the exit code; the checks are generator/lint.c.
 */
#include "cmd/cmd.h"
#include "generator/sarif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/lint.h"
#include "generator/preflight.h"
#include "util/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

enum lint_format { FMT_TEXT, FMT_JSON, FMT_SARIF };

struct pathlist {
	char **items;
	size_t nr, alloc;
};

static int parse_snapshot(const char *arg, struct lint_snapshot *out)
{
	const char *eq = strchr(arg, '=');

	out->id = NULL;
	if (!eq || eq == arg || strncmp(arg, "snap-", 5))
		return -1;
	out->gib = intent_parse_gib(eq + 1);
	if (out->gib <= 0)
		return -1;
	out->id = xstrndup(arg, (size_t)(eq - arg));
	return 0;
}

enum { OPT_FORMAT = 256, OPT_SNAPSHOT };

const struct cmd_opt lint_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), json, or sarif (SARIF 2.1.0, for GitHub code "
	  "scanning)",
	  "text json sarif", 0 },
	{ "format", 0, OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "text json sarif", CMD_OPT_HIDDEN },
	CMD_OPT_STRICT,
	{ "snapshot-size", 0, OPT_SNAPSHOT, CMD_ARG_REQUIRED, "snap-ID=SIZE",
	  "the size of an image-cache snapshot (e.g. snap-0123...=150Gi), "
	  "for GPU017; may be repeated",
	  NULL, 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

const struct cmd_opt explain_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "explain classes: text (a terminal table; the default on a "
	  "terminal) or markdown (the default otherwise)", "text markdown",
	  0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* the findings in the chosen format (text: with the summary line) */
static void print_findings(enum lint_format fmt,
			   const struct lint_findings *f,
			   const struct diags *d, size_t nin)
{
	if (fmt == FMT_TEXT) {
		struct buf b = BUF_INIT;
		sarif_lint_text(&b, f);
		fputs(buf_cstr(&b), stdout);
		buf_release(&b);
		fprintf(stderr,
			"gpuform lint: %zu file%s, %zu error%s, %zu warning%s, "
			"%zu info\n",
			nin, nin == 1 ? "" : "s",
			f->counts[LINT_ERROR] + d->errors,
			f->counts[LINT_ERROR] + d->errors == 1 ? "" : "s",
			f->counts[LINT_WARNING] + d->warnings,
			f->counts[LINT_WARNING] + d->warnings == 1 ? "" : "s",
			f->counts[LINT_INFO]);
	} else {
		char *s = fmt == FMT_JSON ? sarif_lint_json(f, d, nin)
					  : sarif_lint_log(f, d);
		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
		}
		free(s);
	}
}

int cmd_lint(int argc, char **argv)
{
	enum lint_format fmt = FMT_TEXT;
	struct lint_snapshot *snaps = NULL;
	size_t nsnaps = 0, asnaps = 0;
	struct pathlist paths = { NULL, 0, 0 };
	struct lint_input *ins = NULL;
	struct buf *data = NULL;
	struct lint_findings f = LINT_FINDINGS_INIT;
	struct lint_opts o;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int c, code = EXIT_OK, input_err = 0, strict = 0;
	size_t nin = 0;

	while ((c = cmd_getopt("lint", argc, argv)) != -1) {
		switch (c) {
		case 'o':
		case OPT_FORMAT:
			{
				static const char *const names[] = {
					"text", "json", "sarif", NULL
				};
				int i = cmd_format("lint", optarg, names, 0,
						   NULL);
				if (i < 0) {
					code = EXIT_USAGE;
					goto out;
				}
				fmt = (enum lint_format)i;
			}
			break;
		case OPT_SNAPSHOT:
			GROW(snaps, nsnaps + 1, asnaps);
			if (parse_snapshot(optarg, &snaps[nsnaps]) < 0) {
				for (size_t i = 0; i < nsnaps; i++)
					free((char *)snaps[i].id);
				free(snaps);
				return cmd_usage_error(
					"lint",
					"--snapshot-size wants snap-ID=SIZE "
					"(e.g. snap-0123456789abcdef0=200Gi), "
					"not '%s'", optarg);
			}
			nsnaps++;
			break;
		case OPT_STRICT:
			strict = 1;
			break;
		case 'h':
			code = cmd_print_help("lint");
			goto out;
		default:
			code = EXIT_USAGE;
			goto out;
		}
	}
	if (optind >= argc) {
		code = cmd_usage_error("lint", "no file or directory given");
		goto out;
	}

	for (int i = optind; i < argc; i++) {
		struct stat st;
		if (strcmp(argv[i], "-") && stat(argv[i], &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			if (fs_list_yaml(argv[i], &paths.items, &paths.nr,
					 &paths.alloc, &d) < 0)
				input_err = EXIT_RUNTIME;
		} else {
			GROW(paths.items, paths.nr + 1, paths.alloc);
			paths.items[paths.nr++] = xstrdup(argv[i]);
		}
	}
	ins = xcalloc(paths.nr ? paths.nr : 1, sizeof(*ins));
	data = xcalloc(paths.nr ? paths.nr : 1, sizeof(*data));
	for (size_t i = 0; i < paths.nr; i++) {
		struct err e = ERR_INIT;
		const char *p = paths.items[i];
		int r = !strcmp(p, "-")
			? fs_read_file(&data[i], "/dev/stdin", YAML_MAX_INPUT, &e)
			: fs_read_file(&data[i], p, YAML_MAX_INPUT, &e);
		if (r < 0) {
			diags_add_file_err(&d, p, !strcmp(p, "-") ? "/dev/stdin" : p,
					   &e);
			if (input_err < (e.code == ERR_INVALID ? EXIT_INVALID
							       : EXIT_RUNTIME))
				input_err = e.code == ERR_INVALID
						    ? EXIT_INVALID
						    : EXIT_RUNTIME;
			err_release(&e);
			continue;
		}
		ins[nin].path = !strcmp(p, "-") ? "<stdin>" : p;
		ins[nin].data = buf_cstr(&data[i]);
		ins[nin].len = data[i].len;
		nin++;
	}

	o.snapshots = snaps;
	o.nsnapshots = nsnaps;
	if (lint_run(&f, ins, nin, &o, &d, &err) < 0) {
		if (err.code != ERR_INVALID) {
			report_diags(&d);
			code = report_err(&err);
			goto out;
		}
		if (input_err < EXIT_INVALID)
			input_err = EXIT_INVALID;
	}
	diags_sort(&d);
	report_diags(&d);

	print_findings(fmt, &f, &d, nin);
	if (input_err)
		code = input_err;
	else if (f.counts[LINT_ERROR])
		code = EXIT_DIFF;
	/* --strict: a warning (finding or the intent's) fails like an
	 * error finding, exit 1 */
	else if (cmd_strict("lint", strict, &d, f.counts[LINT_WARNING]))
		code = EXIT_DIFF;
out:
	lint_findings_release(&f);
	for (size_t i = 0; i < paths.nr; i++) {
		free(paths.items[i]);
		buf_release(&data[i]);
	}
	free(paths.items);
	free(data);
	free(ins);
	for (size_t i = 0; i < nsnaps; i++)
		free((char *)snaps[i].id);
	free(snaps);
	diags_release(&d);
	err_release(&err);
	return code;
}

static int explain_one(const struct lint_rule *r)
{
	printf("%s %s (%s)\n\n%s.\n\n%s", r->id, r->name,
	       lint_severity_names[r->severity], r->summary, r->explain);
	return EXIT_OK;
}

int cmd_explain(int argc, char **argv)
{
	const struct lint_rule *r;
	int c, markdown = !isatty(STDOUT_FILENO);

	while ((c = cmd_getopt("explain", argc, argv)) != -1) {
		if (c == 'h')
			return cmd_print_help("explain");
		if (c == 'o') {
			static const char *const names[] = { "text", "markdown",
							     NULL };
			int i = cmd_format("explain", optarg, names, 0, NULL);
			if (i < 0)
				return EXIT_USAGE;
			markdown = i == 1;
			continue;
		}
		return EXIT_USAGE;
	}
	if (argc - optind > 1)
		return cmd_usage_error("explain", "one rule at a time");
	if (argc - optind < 1) {
		for (size_t i = 0; i < lint_nrules; i++)
			printf("%-7s %-8s %-28s %s\n", lint_rules[i].id,
			       lint_severity_names[lint_rules[i].severity],
			       lint_rules[i].name, lint_rules[i].summary);
		return EXIT_OK;
	}
	if (!strcmp(argv[optind], "classes")) {
		struct buf b = BUF_INIT;
		const char *cols = getenv("COLUMNS");

		catalog_classes_table(&b, catalog_builtin(), markdown,
				      cols && atoi(cols) >= 40 ? (size_t)atoi(cols)
							       : 100);
		fputs(buf_cstr(&b), stdout);
		buf_release(&b);
		return EXIT_OK;
	}
	/* the preflight rules (PF000...): what SARIF of preflight names */
	if (!strcmp(argv[optind], "preflight")) {
		for (size_t i = 0; i < pf_nrules; i++)
			printf("%-7s %-8s %-28s %s\n", pf_rules[i].id,
			       lint_severity_names[pf_rules[i].severity],
			       pf_rules[i].name, pf_rules[i].summary);
		return EXIT_OK;
	}
	r = lint_rule_find(argv[optind]);
	if (r)
		return explain_one(r);
	for (size_t i = 0; i < pf_nrules; i++)
		if (!strcasecmp(pf_rules[i].id, argv[optind]) ||
		    !strcmp(pf_rules[i].name, argv[optind]))
			return explain_one(&pf_rules[i]);
	return cmd_usage_error("explain",
			       "unknown rule '%s' ('gpuform explain' lists the "
			       "lint and intent rules, 'gpuform explain "
			       "preflight' the preflight rules)", argv[optind]);
}
