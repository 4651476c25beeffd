/*
 * cmd/main.c: entry point, subcommand table, help and version.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

static const struct cmd commands[] = {
	{ "render", cmd_render, "render intents into Kubernetes manifests",
	  "usage: gpuform render [-o DIR] [--format yaml|json] "
	  "[--templates DIR] INTENT...\n"
	  "\n"
	  "Render each intent file into Karpenter, Kueue and NVIDIA manifests.\n"
	  "Without -o, the Kubernetes objects go to stdout as multi-document\n"
	  "YAML (or a JSON v1 List). With -o DIR, DIR gets one file per object\n"
	  "(<kind>-<name>.yaml), a kustomization.yaml and addons/ (Helm values,\n"
	  "VPC CNI configuration, pod contracts); several intents go to\n"
	  "DIR/<cluster>/. DIR is replaced atomically; stale files vanish.\n"
	  "Invalid input writes nothing.\n"
	  "\n"
	  "  -o, --output DIR      write a directory instead of stdout\n"
	  "  -f, --format FORMAT   yaml (default) or json\n"
	  "      --templates DIR   override built-in templates by file name\n"
	  "  -h, --help            this text\n" },
	{ "validate", cmd_validate, "check intents and report every problem",
	  "usage: gpuform validate [--templates DIR] INTENT...\n"
	  "\n"
	  "Check each intent file and report every problem as\n"
	  "file:line:col: error: message, with a hint. Exit 0 when all are\n"
	  "valid (warnings allowed), 3 when any has an error.\n"
	  "\n"
	  "  -h, --help            this text\n" },
	{ "version", cmd_version, "print the version",
	  "usage: gpuform version\n" },
	{ "help", cmd_help, "show help for a command",
	  "usage: gpuform help [COMMAND]\n" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_overview(FILE *f)
{
	fprintf(f, "usage: gpuform [--version] [--help] COMMAND [ARGS]\n\n"
		   "GitOps for GPU capacity on Amazon EKS.\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\nexit codes: 0 ok, 1 differences found, 2 usage, "
		   "3 invalid input, 4 runtime error\n"
		   "'gpuform help COMMAND' or 'gpuform COMMAND --help' for "
		   "details.\n");
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct cmd *c = cmd_find(cmd);
	va_list ap;

	fprintf(stderr, "gpuform %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fputs(c->usage, stderr);
	return EXIT_USAGE;
}

int cmd_print_help(const char *cmd)
{
	const struct cmd *c = cmd_find(cmd);

	if (!c)
		return EXIT_USAGE;
	fputs(c->usage, stdout);
	return EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cmd_print_help("version");
	if (argc > 1)
		return cmd_usage_error("version", "unexpected argument '%s'",
				       argv[1]);
	printf("gpuform %s (cJSON %s)\n", GPUFORM_VERSION, cJSON_Version());
	return EXIT_OK;
}

int cmd_help(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cmd_print_help("help");
	if (argc < 2) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (!cmd_find(argv[1])) {
		fprintf(stderr, "gpuform help: unknown command '%s'\n", argv[1]);
		print_overview(stderr);
		return EXIT_USAGE;
	}
	return cmd_print_help(argv[1]);
}

/* like git's run_builtin: a failed write to stdout must not look like
 * success (e.g. `gpuform render > /full/disk`) */
static int finish_stdout(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gpuform: error: cannot write to standard output");
		return code ? code : EXIT_RUNTIME;
	}
	return code;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		print_overview(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version"))
		return finish_stdout(cmd_version(1, argv));
	if (argv[1][0] == '-') {
		fprintf(stderr, "gpuform: unknown option '%s'\n", argv[1]);
		print_overview(stderr);
		return EXIT_USAGE;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "gpuform: '%s' is not a gpuform command\n",
			argv[1]);
		print_overview(stderr);
		return EXIT_USAGE;
	}
	optind = 0; /* each command runs its own getopt_long */
	return finish_stdout(c->fn(argc - 1, argv + 1));
}
