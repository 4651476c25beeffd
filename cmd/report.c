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

void report_file_diag(struct diags *d, const char *name, const char *path,
		      const struct err *e)
{
	const char *m = err_msg(e);
	char *quoted = xasprintf("'%s'", path);
	size_t ql = strlen(quoted);
	const char *at = strstr(m, quoted);

	if (at == m && m[ql] == ' ')
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "it%s", m + ql);
	else if (at && at > m && at[-1] == ' ')
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "%.*s%s",
			  (int)(at - m - 1), m, at + ql);
	else
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "%s", m);
	free(quoted);
}

int exit_code_for(const struct err *e)
{
	switch (e->code) {
	case ERR_NONE:
		return EXIT_OK;
	case ERR_INVALID:
		return EXIT_INVALID;
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
