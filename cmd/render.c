/*
 * cmd/render.c: `gpuform render` — intents to manifests, on stdout or into
 * a directory written atomically.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/inputs.h"
#include "util/fs.h"
#include "util/xalloc.h"

static int write_outputs(const struct inputs *ins, const char *dir,
			 const struct tmpl_set *t, enum render_format f,
			 int per_cluster, struct err *err)
{
	struct fs_tree tree = FS_TREE_INIT;
	int ret = -1;

	if (inputs_tree(ins, t, f, per_cluster, &tree, err) == 0)
		ret = fs_tree_write_atomic(&tree, dir, RENDER_OWNER_FILE,
					   RENDER_OWNER_PREFIX, err);
	fs_tree_release(&tree);
	return ret;
}

enum { OPT_FORMAT = 256, OPT_OUTPUT_DIR, OPT_TEMPLATES, OPT_PER_CLUSTER };

const struct cmd_opt render_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "yaml (default) or json (a v1 List)", "yaml json",
	  0 },
	{ "format", 0, OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "yaml json", CMD_OPT_HIDDEN },
	{ "output-dir", 0, OPT_OUTPUT_DIR, CMD_ARG_REQUIRED, "DIR",
	  "write a directory instead of stdout", "@dir", 0 },
	{ "per-cluster", 0, OPT_PER_CLUSTER, CMD_ARG_NONE, NULL,
	  "with --output-dir: DIR/<cluster>/ for one intent too, as for "
	  "several and as commit writes (DIR's kustomization.yaml lists the "
	  "cluster directories)", NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "override built-in templates by file name", "@dir", 0 },
	CMD_OPT_STRICT,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/*
 * cmd_output_format: -o FORMAT for render and install. -o used to name a
 * directory; an argument that is no format, does not look like a
 * misspelt one and is a path keeps that meaning with a warning (*dir set).
 */
int cmd_output_format(const char *cmd, int val, const char *arg,
		      enum render_format *fmt, const char **dir)
{
	static const char *const names[] = { "yaml", "json", NULL };
	const char *sug = NULL;
	int i = cmd_format(cmd, arg, names, 1, &sug);

	if (i >= 0) {
		*fmt = i == 0 ? RENDER_YAML : RENDER_JSON;
		return 0;
	}
	if (val == 'o' && !sug) {
		fprintf(stderr,
			"gpuform %s: warning: '-o %s' as a directory is "
			"deprecated: -o is the output format (yaml or json), "
			"as in kubectl; use --output-dir %s\n",
			cmd, arg, arg);
		*dir = arg;
		return 0;
	}
	return cmd_format(cmd, arg, names, 0, NULL);
}

static void to_stdout(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	fwrite(data, 1, len, stdout);
}

int cmd_render(int argc, char **argv)
{
	const char *dir = NULL, *templates = NULL;
	enum render_format fmt = RENDER_YAML;
	struct tmpl_set *t = NULL;
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	int c, code = EXIT_OK, per_cluster = 0, strict = 0;

	while ((c = cmd_getopt("render", argc, argv)) != -1) {
		switch (c) {
		case OPT_STRICT:
			strict = 1;
			break;
		case 'o':
		case OPT_FORMAT:
			if (cmd_output_format("render", c, optarg, &fmt,
					      &dir) < 0)
				return EXIT_USAGE;
			break;
		case OPT_OUTPUT_DIR:
			dir = optarg;
			break;
		case OPT_TEMPLATES:
			templates = optarg;
			break;
		case OPT_PER_CLUSTER:
			per_cluster = 1;
			break;
		case 'h':
			return cmd_print_help("render");
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cmd_usage_error("render", "no intent file given");
	if (per_cluster && !dir)
		return cmd_usage_error("render", "--per-cluster goes with "
						 "--output-dir");

	if (tmpl_set_load(&t, templates, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (inputs_render(&ins, argv + optind, (size_t)(argc - optind), t, 0,
			  &d, &err) < 0) {
		diags_sort(&d);
		report_diags(&d);
		code = report_err(&err);
		goto out;
	}
	diags_sort(&d);
	report_diags(&d); /* warnings */
	/* --strict: nothing written or printed */
	if ((code = cmd_strict("render", strict, &d, 0)))
		goto out;
	if (dir) {
		if (write_outputs(&ins, dir, t, fmt, per_cluster, &err) < 0) {
			code = report_err(&err);
			goto out;
		}
		if (cmd_verbosity >= 0) {
			inputs_summary(&ins, dir, per_cluster, &out);
			fputs(buf_cstr(&out), stderr);
		}
		goto out;
	}
	if (inputs_stream(&ins, fmt, to_stdout, NULL, &err) < 0)
		code = report_err(&err);
out:
	buf_release(&out);
	inputs_release(&ins);
	diags_release(&d);
	err_release(&err);
	tmpl_set_free(t);
	return code;
}
