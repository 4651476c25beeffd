/* cmd/validate.c: `gpuform validate` — report every problem of each intent. */
#include "cmd/cmd.h"

#include <stdio.h>
#include <string.h>

#include "generator/inputs.h"

enum { OPT_TEMPLATES = 256 };

const struct cmd_opt validate_opts[] = {
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "accepted for symmetry with render (templates do not change what "
	  "is valid)", "@dir", 0 },
	CMD_OPT_STRICT,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

int cmd_validate(int argc, char **argv)
{
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int c, code = EXIT_OK, strict = 0;

	while ((c = cmd_getopt("validate", argc, argv)) != -1) {
		switch (c) {
		case OPT_TEMPLATES:
			break;
		case OPT_STRICT:
			strict = 1;
			break;
		case 'h':
			return cmd_print_help("validate");
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cmd_usage_error("validate", "no intent file given");
	if (inputs_render(&ins, argv + optind, (size_t)(argc - optind), NULL,
			  1, &d, &err) < 0)
		code = exit_code_for(&err);
	diags_sort(&d);
	report_diags(&d);
	for (size_t i = 0; i < ins.nr; i++) {
		size_t w = diags_count_file(&d, ins.items[i].path,
					    DIAG_WARNING);

		if (w && strict)
			printf("%s: failed (--strict: %zu warning%s)\n",
			       ins.items[i].path, w, w == 1 ? "" : "s");
		else if (w)
			printf("%s: ok (%zu warning%s)\n", ins.items[i].path, w,
			       w == 1 ? "" : "s");
		else
			printf("%s: ok\n", ins.items[i].path);
	}
	if (code)
		report_err(&err);
	else
		code = cmd_strict("validate", strict, &d, 0);
	inputs_release(&ins);
	diags_release(&d);
	err_release(&err);
	return code;
}
