/*
 * cmd/report.c: the one place that turns errors and diagnostics into text on
 * stderr and an exit code.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void report_diags(const struct diags *d)
{
	struct buf b = BUF_INIT;

	diags_format(d, &b);
	fputs(buf_cstr(&b), stderr);
	buf_release(&b);
}

int cmd_strict(const char *cmd, int strict, const struct diags *d, size_t n)
{
	size_t w = d->warnings + n;

	if (!strict || !w)
		return 0;
	fprintf(stderr,
		"gpuform %s: --strict: %zu warning%s not acknowledged (fix %s, "
		"or accept %s in spec.acknowledge with a reason)\n",
		cmd, w, w == 1 ? "" : "s", w == 1 ? "it" : "them",
		w == 1 ? "it" : "them");
	return EXIT_INVALID;
}

int exit_code_for(const struct err *e)
{
	switch (e->code) {
	case ERR_NONE:
		return EXIT_OK;
	case ERR_INVALID:
		return EXIT_INVALID;
	case ERR_WRONG_CLUSTER:
		return EXIT_WRONG_CLUSTER;
	default:
		return EXIT_RUNTIME;
	}
}

int report_err(const struct err *e)
{
	struct buf m = BUF_INIT;

	/* messages quote file contents and server answers: no terminal
	 * escapes (the newlines of multi-line messages stay) */
	diag_escape(&m, err_msg(e), 1);
	fprintf(stderr, "gpuform: %s%s\n",
		e->code == ERR_INTERNAL ? "internal error: " : "error: ",
		buf_cstr(&m));
	buf_release(&m);
	return exit_code_for(e);
}
