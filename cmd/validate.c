/* cmd/validate.c: `gpuform validate` — report every problem of each intent. */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/inputs.h"

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "templates", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int c, code = EXIT_OK;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			break; /* accepted for symmetry with render */
		case 'h':
			return cmd_print_help("validate");
		default:
			return cmd_usage_error("validate", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("validate", "no intent file given");
	if (inputs_render(&ins, argv + optind, (size_t)(argc - optind), NULL,
			  1, &d, &err) < 0)
		code = exit_code_for(&err);
	diags_sort(&d);
	report_diags(&d);
	for (size_t i = 0; i < ins.nr; i++)
		printf("%s: ok\n", ins.items[i].path);
	if (code)
		report_err(&err);
	inputs_release(&ins);
	diags_release(&d);
	err_release(&err);
	return code;
}
