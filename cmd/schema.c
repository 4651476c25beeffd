/*
 * cmd/schema.c: `gpuform schema` prints the JSON Schema of an intent
 * (generator/schema.c) for editors and CI validators.
 */
#include <stdio.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "generator/schema.h"

int cmd_schema(int argc, char **argv)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	int c;

	while ((c = cmd_getopt("schema", argc, argv)) != -1) {
		if (c == 'h')
			return cmd_print_help("schema");
		return EXIT_USAGE;
	}
	if (argc - optind != 0)
		return cmd_usage_error("schema", "schema takes no arguments");
	if (schema_write(&b, &e) < 0) {
		fprintf(stderr, "gpuform schema: %s\n", buf_cstr(&e.msg));
		buf_release(&b);
		err_release(&e);
		return EXIT_RUNTIME;
	}
	fputs(buf_cstr(&b), stdout);
	buf_release(&b);
	return EXIT_OK;
}
