/*
 * cmd/main.c: entry point, subcommand table, help and version.
 */
#include "cmd/cmd.h"
#include "cmd/cluster.h"
#include "cmd/incluster.h"

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
	  "       gpuform reconcile [options] --git URL [--ref BRANCH] --path DIR\n"
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
	  "      --allow-node-replacement  apply node-replacing changes to\n"
	  "                          'interruption: none' pools outside their\n"
	  "                          maintenance window (held back otherwise)\n"
	  "      --inventory-namespace NS  where the inventory lives\n"
	  "                          (default gpuform-system)\n"
	  "      --templates DIR     template overrides (see render)\n"
	  "      --git URL           read the manifests from this Git repository\n"
	  "                          (https://, ssh:// or a path; credentials as\n"
	  "                          for commit --push), fetched into a bare cache\n"
	  "                          reused between runs; no checkout\n"
	  "      --ref BRANCH        branch to read (default main)\n"
	  "      --path DIR          directory of the manifests in the tree\n"
	  "                          (as written by render -o or commit)\n"
	  "      --git-cache DIR     cache location (default\n"
	  "                          ~/.cache/gpuform/git/<hash of URL>)\n"
	  "  -o, --output FORMAT     text (default) or json (with request counts)\n"
	  CLUSTER_HELP
	  "In-cluster runs (see gpuform install):\n"
	  INCLUSTER_HELP
	  "\n"
	  "Each change is classified by its node impact (replaces nodes, may\n"
	  "disrupt, no node effect; Karpenter's drift rule named), with live\n"
	  "NodeClaim and do-not-disrupt pod counts for node-replacing changes.\n"
	  "GPUFORM_NOW=2026-01-31T02:30:00Z sets the clock (a testing aid).\n"
	  "\n"
	  "Exit: 0 in sync or fixed (or the lock held by another run), 1 changes\n"
	  "found with --dry-run, 3 invalid input, 4 cluster or runtime error\n"
	  "(conflicts included), 5 a node-replacing change held back (nothing\n"
	  "applied).\n" },
	{ "diff", cmd_diff,
	  "show what would change (--base: Git revisions; --live: the cluster)",
	  "usage: gpuform diff --base REV [--head REV] [--repo DIR] "
	  "[--format FORMAT] INTENT...\n"
	  "   or: gpuform diff --live [options] INTENT... | DIR\n"
	  "\n"
	  "--base: the pull-request diff, from Git alone (no cluster). Each\n"
	  "INTENT, a path inside the repository, is read at REV and at the head\n"
	  "(default: the file in the work tree), both are rendered, and the\n"
	  "Kubernetes objects are compared one by one (identity: cluster, API\n"
	  "group, kind, namespace, name; in render's order): added, removed or\n"
	  "modified, each with its node impact (replaces nodes, may disrupt, no\n"
	  "node effect, and Karpenter's drift rule) and a unified diff of the\n"
	  "rendered YAML, then \"R node-replacing changes (pools ...), D may\n"
	  "disrupt, N no node effect; N objects changed: A added, R removed, M\n"
	  "modified\". A file missing\n"
	  "at one side counts as no objects. addons/ files are not compared.\n"
	  "\n"
	  "      --base REV          compare with this revision (branch, tag, id)\n"
	  "      --head REV          the new side (default: the work tree)\n"
	  "      --repo DIR          the repository's top directory (default .)\n"
	  "  -f, --format FORMAT     text (default), markdown (a PR comment:\n"
	  "                          table + one diff per object) or json\n"
	  "      --templates DIR     template overrides (see render), both sides\n"
	  "\n"
	  "--live: unified diff, per object, between the live cluster and what a\n"
	  "reconcile would make of it (computed with server-side dry runs, like\n"
	  "kubectl diff). Objects that a prune would delete are listed.\n"
	  "\n"
	  "      --live              compare with the cluster\n"
	  "      --templates DIR     template overrides (see render)\n"
	  CLUSTER_HELP
	  "\n"
	  "Exit: 0 no differences, 1 differences, >1 error (kubectl's convention):\n"
	  "2 usage, 3 invalid intent (at either revision), 4 Git, cluster or\n"
	  "runtime error.\n" },
	/* commit: Git write-back (cmd/commit.c, cmd/repo.c) */
	{ "commit", cmd_commit, "render intents and commit them to a Git branch",
	  "usage: gpuform commit --repo PATH [--branch B] [--path DIR] [-m MSG]\n"
	  "                      [--author 'Name <email>'] [--push[=REMOTE]]\n"
	  "                      [--templates DIR] INTENT...\n"
	  "\n"
	  "Render the intents and commit, for each intent, exactly the files\n"
	  "'render -o' would write at DIR/<cluster>/ of branch B, on top of its\n"
	  "tip (or as its first commit), in one commit. DIR holds one directory\n"
	  "per cluster, whatever the number of intents. No work tree is needed:\n"
	  "bare repositories work, nothing is checked out. Only the intents'\n"
	  "cluster directories change: their stale files disappear; other\n"
	  "clusters and other paths stay. A cluster directory that is not empty\n"
	  "and has no kustomization.yaml written by gpuform is never replaced.\n"
	  "When the files are already there, nothing is committed (exit 0).\n"
	  "Invalid intents commit nothing (exit 3).\n"
	  "\n"
	  "The message: the subject, the files added, modified and removed\n"
	  "under DIR, and trailers 'Gpuform-Intent: <path> <blob id>' (one per\n"
	  "intent; the id is what git hash-object prints) and\n"
	  "'Gpuform-Version: <version>'. If B is checked out in a work tree,\n"
	  "its index and files follow the commit (local changes under DIR stop\n"
	  "it before anything is written).\n"
	  "\n"
	  "With --push, B is pushed (never forced). If the remote's B moved\n"
	  "meanwhile, gpuform fetches it, resets the local B to it, commits the\n"
	  "same intents again on top and retries: at most 5 attempts with\n"
	  "jittered backoff. Local commits on B that the remote does not have are\n"
	  "replaced by that reset; their ids stay in the reflog.\n"
	  "\n"
	  "  --repo PATH            the repository (bare or not)\n"
	  "  --branch B             the branch (default main; created if missing)\n"
	  "  --path DIR             the directory of the cluster directories\n"
	  "                         (default clusters): intents go to\n"
	  "                         DIR/<cluster>/\n"
	  "  -m, --message MSG      subject (and body) instead of\n"
	  "                         'gpuform: render <clusters>'\n"
	  "      --author 'Name <email>'  the author; otherwise user.name and\n"
	  "                         user.email (git config), then\n"
	  "                         GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL. The\n"
	  "                         committer: git config, GIT_COMMITTER_NAME/\n"
	  "                         GIT_COMMITTER_EMAIL, else the author\n"
	  "      --push[=REMOTE]    push B to REMOTE (a remote name or URL;\n"
	  "                         default origin). '--push REMOTE INTENT...'\n"
	  "                         works when REMOTE is not a file. An\n"
	  "                         unknown remote commits nothing\n"
	  "      --templates DIR    template overrides (see render)\n"
	  "  -h, --help             this text\n"
	  "\n"
	  "Credentials (never printed):\n"
	  "  HTTP(S)  GPUFORM_GIT_USERNAME + GPUFORM_GIT_PASSWORD, or\n"
	  "           GPUFORM_GIT_TOKEN (user: GPUFORM_GIT_USERNAME, the URL's,\n"
	  "           else x-access-token), or GPUFORM_GIT_CREDENTIALS naming a\n"
	  "           git credential-store file (https://user:pass@host lines;\n"
	  "           matched by scheme and host[:port])\n"
	  "  SSH      GPUFORM_GIT_SSH_KEY (private key file), optional\n"
	  "           GPUFORM_GIT_SSH_PUBKEY and GPUFORM_GIT_SSH_PASSPHRASE; the\n"
	  "           server's host key must be in GPUFORM_GIT_SSH_KNOWN_HOSTS\n"
	  "           (default ~/.ssh/known_hosts; hashed entries work): an\n"
	  "           unknown or different key is refused\n"
	  "\n"
	  "Exit: 0 committed, pushed or nothing to do, 2 usage, 3 invalid\n"
	  "intents, 4 Git, network or authentication error.\n" },
	/* lint, explain: best-practice checks (cmd/lint.c, generator/lint.c) */
	{ "lint", cmd_lint, "check intents and manifests for GPU pitfalls",
	  "usage: gpuform lint [--format text|json|sarif] "
	  "[--snapshot-size snap-ID=SIZE]... PATH...\n"
	  "\n"
	  "Check intent files and Kubernetes manifests (NodePool, EC2NodeClass,\n"
	  "Kueue queues and flavors, Job, JobSet, PyTorchJob, Deployment,\n"
	  "StatefulSet, Pod, CronJob, device-plugin DaemonSets and Helm values)\n"
	  "for known GPU mistakes. Directories are walked for *.yaml and *.yml;\n"
	  "'-' reads standard input. Everything given is linted together, so a\n"
	  "Job is checked against the NodePool, queue and intent pod contract it\n"
	  "lands on. Intents are recognised by apiVersion gpuform.io/v1alpha1\n"
	  "and kind ClusterIntent and linted with what they render; unknown\n"
	  "kinds are accepted silently. Each finding is\n"
	  "file:line:col: severity: message [RULE-ID rule-name].\n"
	  "\n"
	  "  -f, --format FORMAT   text (default), json, or sarif (SARIF 2.1.0,\n"
	  "                        for GitHub code scanning)\n"
	  "      --snapshot-size snap-ID=SIZE  the size of an image-cache\n"
	  "                        snapshot (e.g. snap-0123...=150Gi), for GPU017\n"
	  "  -h, --help            this text\n"
	  "\n"
	  "'gpuform explain' lists the rules; 'gpuform explain RULE' says why\n"
	  "one matters and how to fix it.\n"
	  "\n"
	  "Exit: 0 no error-severity finding (warnings allowed), 1 findings at\n"
	  "error severity, 2 usage, 3 invalid input (not YAML, or an intent\n"
	  "that 'gpuform validate' rejects), 4 unreadable file.\n" },
	{ "explain", cmd_explain, "explain a lint rule (or list them all)",
	  "usage: gpuform explain [RULE]\n"
	  "\n"
	  "Without RULE, list every lint rule: id, severity, name, summary.\n"
	  "With RULE (an id such as GPU003, or a name such as\n"
	  "gpu-family-allowlist), print why it matters and how to fix it.\n" },
	/* install: the in-cluster periodic reconcile (cmd/install.c) */
	{ "install", cmd_install,
	  "render the manifests that run gpuform in the cluster (CronJob, RBAC)",
	  "usage: gpuform install --git URL [--ref BRANCH] --path DIR [options]\n"
	  "\n"
	  "Render the manifests that deploy gpuform itself: Namespace\n"
	  "gpuform-system, a ServiceAccount, least-privilege RBAC derived from\n"
	  "the kinds gpuform renders (a ClusterRole for them plus read access to\n"
	  "Pods and NodeClaims; Roles for the fixed-namespace kinds and, in\n"
	  "gpuform-system, for the inventory ConfigMap, the Lease lock and\n"
	  "Events), the bindings, and a CronJob running\n"
	  "'gpuform reconcile --git URL --ref BRANCH --path DIR --lock --events'\n"
	  "(concurrencyPolicy Forbid, deadlines, backoff, non-root, read-only\n"
	  "root filesystem, Git credentials from a Secret). Without -o, the\n"
	  "objects go to stdout (kubectl apply --server-side -f -); with -o DIR,\n"
	  "one file per object and a kustomization.yaml (kubectl apply\n"
	  "--server-side -k DIR), replaced atomically like render -o.\n"
	  "\n"
	  "      --git URL           the repository the job reconciles from\n"
	  "      --ref BRANCH        branch (default main)\n"
	  "      --path DIR          the cluster's directory in the repository\n"
	  "      --cluster NAME      cluster name (default: the last part of\n"
	  "                          --path); names the inventory and the Lease\n"
	  "      --schedule CRON     default \"*/5 * * * *\"\n"
	  "      --image IMAGE       default gpuform:<version>\n"
	  "      --git-secret NAME   Secret with GPUFORM_GIT_* keys, as environment\n"
	  "                          (SSH URLs: also mounted for ssh-privatekey and\n"
	  "                          known_hosts); default gpuform-git\n"
	  "      --namespace NS      where gpuform runs (default gpuform-system)\n"
	  "      --cronjob-api-version V  batch/v1 (default) or batch/v1beta1\n"
	  "                          (Kubernetes before 1.21)\n"
	  "      --prune             the job runs reconcile --prune\n"
	  "      --pushgateway URL   the job pushes metrics there\n"
	  "      --timeout DUR       the job's reconcile --timeout (default 5m)\n"
	  "      --templates DIR     template overrides (templates/install-*.yaml)\n"
	  "  -o, --output DIR        write a directory instead of stdout\n"
	  "  -f, --format FORMAT     yaml (default) or json\n"
	  "  -h, --help              this text\n"
	  "\n"
	  "Exit: 0 written, 2 usage, 3 invalid option value, 4 I/O error.\n" },
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
		   "3 invalid input, 4 runtime error, 5 held back\n"
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
