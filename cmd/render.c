/*
 * cmd/render.c: `gpuform render` — intents to manifests, on stdout or into
 * a directory written atomically.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/inputs.h"
#include "generator/yaml.h"
#include "util/fs.h"
#include "util/xalloc.h"

static int write_outputs(const struct inputs *ins, const char *dir,
			 const struct tmpl_set *t, enum render_format f,
			 struct err *err)
{
	struct fs_tree tree = FS_TREE_INIT;
	int ret = -1;

	if (inputs_tree(ins, t, f, &tree, err) == 0)
		ret = fs_tree_write_atomic(&tree, dir, RENDER_OWNER_FILE,
					   RENDER_OWNER_PREFIX, err);
	fs_tree_release(&tree);
	return ret;
}

int cmd_render(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "templates", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *templates = NULL;
	enum render_format fmt = RENDER_YAML;
	struct tmpl_set *t = NULL;
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	int c, code = EXIT_OK;

	while ((c = getopt_long(argc, argv, "+o:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'f':
			if (render_format_parse(optarg, &fmt) < 0)
				return cmd_usage_error("render",
						       "unknown format '%s' "
						       "(yaml or json)",
						       optarg);
			break;
		case 'T':
			templates = optarg;
			break;
		case 'h':
			return cmd_print_help("render");
		default:
			return cmd_usage_error("render", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("render", "no intent file given");

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
	if (dir) {
		if (write_outputs(&ins, dir, t, fmt, &err) < 0) {
			code = report_err(&err);
			goto out;
		}
		for (size_t i = 0; i < ins.nr; i++)
			fprintf(stderr, "rendered %s: %d objects, %d add-on files -> %s%s%s\n",
				ins.items[i].path,
				cJSON_GetArraySize(ins.items[i].r.docs),
				cJSON_GetArraySize(ins.items[i].r.addons), dir,
				ins.nr > 1 ? "/" : "",
				ins.nr > 1 ? ins.items[i].r.cluster : "");
		goto out;
	}
	if (fmt == RENDER_JSON) {
		for (size_t i = 0; i < ins.nr; i++)
			if (render_stream(&out, &ins.items[i].r, fmt, &err) < 0) {
				code = report_err(&err);
				goto out;
			}
		fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout);
		goto out;
	}
	/* YAML: write and free one object at a time */
	for (size_t i = 0, first = 1; i < ins.nr; i++) {
		cJSON *doc;
		while ((doc = cJSON_DetachItemFromArray(ins.items[i].r.docs, 0))) {
			int r;
			buf_reset(&out);
			if (!first)
				buf_adds(&out, "---\n");
			first = 0;
			r = yaml_emit(&out, doc, &err);
			cJSON_Delete(doc);
			if (r < 0) {
				code = report_err(&err);
				goto out;
			}
			fwrite(out.ptr, 1, out.len, stdout);
		}
	}
out:
	buf_release(&out);
	inputs_release(&ins);
	diags_release(&d);
	err_release(&err);
	tmpl_set_free(t);
	return code;
}
