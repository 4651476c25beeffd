/*
 * cmd/main.c: entry point, subcommand table, help and version.
 */
#include "cmd/cmd.h"
#include "cmd/cluster.h"

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
	{ "reconcile", cmd_reconcile,
	  "make the cluster match the intents (server-side apply)",
	  "usage: gpuform reconcile [options] INTENT... | DIR\n"
	  "\n"
	  "Make the cluster match the intent files (rendered in memory) or a\n"
	  "directory written by 'render -o'. Objects that already match need\n"
	  "no request (one LIST per kind); every other object is server-side\n"
	  "applied as a dry run first, and nothing is written unless all dry\n"
	  "runs succeed. Membership is recorded in an ApplySet-compatible\n"
	  "inventory (ConfigMap gpuform-<cluster> in gpuform-system).\n"
	  "\n"
	  "      --dry-run           show what would change; exit 1 if anything\n"
	  "      --prune             delete objects gpuform created that are no\n"
	  "                          longer desired (inventory, label and UID\n"
	  "                          must all match)\n"
	  "      --force-prune       allow an empty desired set or pruning more\n"
	  "                          than half of the inventory\n"
	  "      --prune-namespaces  allow pruning Namespaces\n"
	  "      --force-conflicts   take over fields another apply manager owns\n"
	  "      --inventory-namespace NS  where the inventory lives\n"
	  "                          (default gpuform-system)\n"
	  "      --templates DIR     template overrides (see render)\n"
	  "  -o, --output FORMAT     text (default) or json (with request counts)\n"
	  CLUSTER_HELP
	  "\n"
	  "Exit: 0 in sync or fixed, 1 changes found with --dry-run, 3 invalid\n"
	  "input, 4 cluster or runtime error (conflicts included).\n" },
	{ "diff", cmd_diff, "show what would change (--live: against the cluster)",
	  "usage: gpuform diff --live [options] INTENT... | DIR\n"
	  "\n"
	  "Unified diff, per object, between the live cluster and what a\n"
	  "reconcile would make of it (computed with server-side dry runs, like\n"
	  "kubectl diff). Objects that a prune would delete are listed.\n"
	  "\n"
	  "      --live              compare with the cluster\n"
	  "      --templates DIR     template overrides (see render)\n"
	  CLUSTER_HELP
	  "\n"
	  "Exit: 0 no differences, 1 differences, >1 error (kubectl's convention).\n" },
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
