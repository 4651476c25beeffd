/*
 * cmd/main.c: entry point, subcommand table, help and version.
 */
#include "cmd/cmd.h"
#include "cmd/preflight.h"
#include "cmd/cluster.h"
#include "cmd/incluster.h"
#include "cmd/options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

/*
 * The default targets (the newest supported releases: generator/targets.h)
 * and the supported ranges (spec.targets, docs/controller-versions.md).
 */
#define TARGET_KARPENTER "v1.14.1"
#define TARGET_KUEUE "v0.19.2"
#define SUPPORTED_KARPENTER "v1.0.0 to v1.14.x"
#define SUPPORTED_KUEUE "v0.10.0 to v0.19.x"
#ifndef GPUFORM_COMMIT
#define GPUFORM_COMMIT "unknown"
#endif
#ifndef GPUFORM_RELEASE
#define GPUFORM_RELEASE "" /* "v<version>" only in a build of that tag */
#endif

/*
 * The commands: what `gpuform --help`, `gpuform COMMAND --help`, the man
 * pages (`gpuform help-man`) and the completions (`gpuform completion`)
 * are made of. The option tables live next to the code that reads them.
 */
const struct cmd cmd_table[] = {
	{ "render", cmd_render, "render intents into Kubernetes manifests",
	  "[-o yaml|json] [--output-dir DIR [--per-cluster]] [--templates DIR] INTENT...",
	  "Render each intent file ('-' reads standard input) into Karpenter,\n"
	  "Kueue and NVIDIA manifests. Without --output-dir, the Kubernetes\n"
	  "objects go to stdout as multi-document YAML (or, with -o json, a\n"
	  "JSON v1 List). With --output-dir DIR, DIR gets one file per object\n"
	  "(<kind>-<name>.yaml), a kustomization.yaml and addons/ (Helm values,\n"
	  "VPC CNI configuration, pod contracts); several intents (or one with\n"
	  "--per-cluster) go to DIR/<cluster>/, and DIR's kustomization.yaml\n"
	  "lists the cluster directories (never empty resources: point Flux or\n"
	  "Argo CD at DIR/<cluster>). DIR is replaced atomically; stale files vanish; a\n"
	  "directory gpuform did not write (no kustomization.yaml of its own)\n"
	  "is never replaced. Invalid input writes nothing.\n",
	  render_opts,
	  "'-o DIR' (the directory meaning -o had before) still works when DIR\n"
	  "is not a format name, with a deprecation warning; use --output-dir.\n",
	  "Exit: 0 rendered (warnings allowed), 2 usage, 3 invalid intent, 4 I/O\n"
	  "error.",
	  "@file", 0 },
	{ "validate", cmd_validate, "check intents and report every problem",
	  "[--templates DIR] INTENT...",
	  "Check each intent file ('-' reads standard input) and report every\n"
	  "problem as file:line:col: error: message, with a hint. The warnings\n"
	  "are the ones render and lint give for the same intent; a valid file\n"
	  "with warnings is reported as 'FILE: ok (N warnings)'. A Kubernetes\n"
	  "manifest (a NodePool, a Job...) is recognised and is an error that\n"
	  "points at 'gpuform lint', which checks manifests.\n",
	  validate_opts, NULL,
	  "Exit: 0 all valid (warnings allowed), 2 usage, 3 any error.",
	  "@file", 0 },
	{ "plan", cmd_plan,
	  "show what intents buy: instance types, GPUs, nodes, gangs, $/hour",
	  "[-o text|markdown|json] [--prices FILE] [--zone-max-nodes N] "
	  "INTENT...",
	  "For each workload of each intent file ('-' reads standard input):\n"
	  "the instance types its NodePool may launch, the physical GPUs\n"
	  "(maxGpus) and the schedulable GPU units (NodePool limit, Kueue\n"
	  "quota) with time-slicing or MIG, the most nodes and pods under the\n"
	  "limit, the gang on its cheapest instance type and on the fewest\n"
	  "nodes (with EFA interfaces, and whether an EFA gang fits one zone\n"
	  "when --zone-max-nodes says how many nodes a zone gives), and the\n"
	  "most it can cost per hour at full quota, on-demand. Totals per\n"
	  "cluster and for all inputs. One capacity model is used by plan,\n"
	  "validate and lint, so they agree.\n"
	  "\n"
	  "Prices are the built-in catalog's (approximate, us-east-1, dated)\n"
	  "unless --prices names an AWS Price List bulk offer file for\n"
	  "AmazonEC2 in one region (JSON or CSV); spot is not estimated (spot\n"
	  "pools fall back to on-demand, the ceiling shown).\n"
	  "\n"
	  "Findings (a gang that cannot fit maxGpus, the limit or one zone, a\n"
	  "quota no node can reach, replicas beyond a node's pod slots) are\n"
	  "printed as file:line:col on stderr, and in the markdown and json.\n",
	  plan_opts, NULL,
	  "Exit: 0 planned (warnings allowed), 1 a finding is an error (the\n"
	  "plan is printed), 2 usage, 3 invalid intent or price file (nothing\n"
	  "printed), 4 I/O error.",
	  "@file", 0 },
	{ "advise", cmd_advise,
	  "recommend intent changes from observed GPU usage (Prometheus)",
	  "--prometheus URL [--window 14d] [--at TIME] [-o text|markdown|json]\n"
	  "[--write] [--commit --branch NAME] INTENT...",
	  "Read from Prometheus what each workload's GPUs did over a window\n"
	  "(default the last 14 days): GPUs requested by running pods on the\n"
	  "workload's NodePool (kube-state-metrics), the busiest GPU's\n"
	  "utilisation and memory (dcgm-exporter), and the ClusterQueue's\n"
	  "pending Workloads and admission wait (Kueue). From them, recommend\n"
	  "changes of the intent, each with its evidence, the change of plan's\n"
	  "cost ceiling and the node impact diff would show: lower maxGpus to\n"
	  "the observed peak plus headroom, raise it when gangs wait for\n"
	  "quota, time-slice inference and dev GPUs that are mostly idle.\n"
	  "Nothing is recommended for a healthy workload, nor when the data\n"
	  "is too thin to judge (it says what is missing), nor anything that\n"
	  "would not validate (a quota below a gang or the peak, sharing on a\n"
	  "training pool).\n"
	  "\n"
	  "advise never changes a cluster. --write edits the intent files in\n"
	  "place (the changed keys only); --commit puts the edited files on a\n"
	  "new branch, the evidence in the commit message, ready for a pull\n"
	  "request; -o markdown is the pull request's body. See\n"
	  "docs/advise.md for the queries and the thresholds.\n",
	  advise_opts, NULL,
	  "Exit: 0 nothing to change, 1 changes recommended (written or\n"
	  "committed when asked), 2 usage, 3 invalid intent, 4 Prometheus,\n"
	  "Git or I/O error (nothing written).",
	  "@file", 0 },
	{ "reconcile", cmd_reconcile,
	  "make the cluster match the intents (server-side apply)",
	  "[options] INTENT... | DIR\n"
	  "[options] --git URL [--ref BRANCH] [--path DIR] --cluster NAME",
	  "Make the cluster match the intent files (rendered in memory) or a\n"
	  "directory written by 'render --output-dir' or, with --git, the\n"
	  "directory DIR/NAME/ (default clusters/NAME/) of a Git branch, as\n"
	  "'gpuform commit' writes it. Objects that already\n"
	  "match need no request (one LIST per kind); every other object is\n"
	  "server-side applied as a dry run first, and nothing is written\n"
	  "unless all dry runs succeed. Membership is recorded in an\n"
	  "ApplySet-compatible inventory (ConfigMap gpuform-<cluster> in\n"
	  "gpuform-system).\n"
	  "\n"
	  "The cluster is checked before anything is written: the inventory\n"
	  "records the cluster's identity (the kube-system Namespace UID and the\n"
	  "server URL) on the first run, and a later run on another cluster is\n"
	  "refused (exit 6) unless --rebind-cluster; a kubeconfig context or\n"
	  "exec plugin that names an EKS cluster (ARN, --cluster-name) must name\n"
	  "the intent's metadata.name; --prune never runs on an unverified\n"
	  "cluster. A writing run prints the context and server first.\n"
	  "\n"
	  "Each change is classified by its node impact (replaces nodes, may\n"
	  "disrupt, no node effect; Karpenter's drift rule named), with live\n"
	  "NodeClaim and do-not-disrupt pod counts for node-replacing changes,\n"
	  "and when a node-replacing change takes effect (immediately, or at\n"
	  "the opening of the pool's next maintenance window).\n"
	  "GPUFORM_NOW=2026-01-31T02:30:00Z sets the clock (a testing aid).\n",
	  reconcile_opts, NULL,
	  "Exit: 0 in sync or fixed (or the lock held by another run), 1 changes "
	  "found with --dry-run, 2 usage, 3 invalid input, 4 cluster or runtime "
	  "error (conflicts included), 5 a node-replacing change held back, 6\n"
	  "wrong or unverified cluster (nothing written; see --rebind-cluster).",
	  "@file", 0 },
	{ "diff", cmd_diff,
	  "show what would change (--base: Git revisions; --live: the cluster)",
	  "--base REV [--head REV] [--repo DIR] [-o FORMAT] INTENT...\n"
	  "--live [options] INTENT... | DIR",
	  "--base: the pull-request diff, from Git alone (no cluster). Each\n"
	  "INTENT, a path inside the repository's work tree (relative to the\n"
	  "current directory, as in git), is read at REV and at the head\n"
	  "(default: the file in the work tree), both are rendered, and the\n"
	  "Kubernetes objects are compared one by one (identity: cluster, API\n"
	  "group, kind, namespace, name; in render's order): added, removed or\n"
	  "modified, each with its node impact (replaces nodes, may disrupt, no\n"
	  "node effect, and Karpenter's drift rule), when a node-replacing\n"
	  "change takes effect, and a unified diff of the rendered YAML, then\n"
	  "\"R node-replacing changes (pools ...), D may disrupt, N no node\n"
	  "effect; N objects changed: A added, R removed, M modified\". A file\n"
	  "missing at one side counts as no objects. addons/ files are not\n"
	  "compared.\n"
	  "\n"
	  "--live: unified diff, per object, between the live cluster and what a\n"
	  "reconcile would make of it (computed with server-side dry runs, like\n"
	  "kubectl diff). Objects that a prune would delete are listed.\n",
	  diff_opts, NULL,
	  "Exit: 0 no differences, 1 differences, >1 error (kubectl's "
	  "convention): 2 usage, 3 invalid intent (at either revision), 4 Git, "
	  "cluster or runtime error, 6 --live: the wrong cluster (see "
	  "reconcile).",
	  "@file", 0 },
	{ "doctor", cmd_doctor,
	  "check the running Karpenter and Kueue against the intents",
	  "[--kubeconfig PATH] [--context NAME] INTENT...",
	  "Read-only (GET requests only). For each intent file: are the CRDs\n"
	  "of every rendered kind served in the version rendered (an older\n"
	  "release is named: 'Kueue is installed, but older: its CRDs serve\n"
	  "... v1beta1 only'); does the running Karpenter (Deployment karpenter\n"
	  "in kube-system or karpenter: the image's release and FEATURE_GATES)\n"
	  "and Kueue (Deployment kueue-controller-manager and ConfigMap\n"
	  "kueue-manager-config in kueue-system) match spec.targets and the\n"
	  "rendered add-ons — e.g. 'NodeOverlays rendered but the running\n"
	  "Karpenter has NodeOverlay=false'. Each finding says what to do.\n"
	  "What cannot be read (forbidden, not found) is a warning.\n",
	  doctor_opts, NULL,
	  "Exit: 0 no findings, 1 findings, 2 usage, 3 invalid intent, 4\n"
	  "cluster or I/O error.",
	  "@file", 0 },
	{ "commit", cmd_commit, "render intents and commit them to a Git branch",
	  "--repo PATH [--branch B] [--path DIR] [-m MSG] "
	  "[--author 'Name <email>'] [--push[=REMOTE]] [--templates DIR] "
	  "INTENT...",
	  "Render the intents and commit, for each intent, exactly the files\n"
	  "'render --output-dir' would write at DIR/<cluster>/ of branch B, on\n"
	  "top of its tip (or as its first commit), in one commit. DIR holds\n"
	  "one directory per cluster, whatever the number of intents. No work\n"
	  "tree is needed: bare repositories work, nothing is checked out. Only\n"
	  "the intents' cluster directories change: their stale files\n"
	  "disappear; other clusters and other paths stay. A cluster directory\n"
	  "that is not empty and has no kustomization.yaml written by gpuform\n"
	  "is never replaced. When the files are already there, nothing is\n"
	  "committed (exit 0). Invalid intents commit nothing (exit 3).\n"
	  "\n"
	  "The message: the subject, the files added, modified and removed\n"
	  "under each cluster directory, and trailers 'Gpuform-Intent: <path>\n"
	  "<blob id>' (one per intent; the id is what git hash-object prints)\n"
	  "and 'Gpuform-Version: <version>'. If B is checked out in a work\n"
	  "tree, its index and files follow the commit (local changes there\n"
	  "stop it before anything is written).\n"
	  "\n"
	  "With --push, B is pushed (never forced). If the remote's B moved\n"
	  "meanwhile, gpuform fetches it, resets the local B to it, commits the\n"
	  "same intents again on top and retries: at most 5 attempts with\n"
	  "jittered backoff. Local commits on B that the remote does not have\n"
	  "are replaced by that reset; their ids stay in the reflog.\n",
	  commit_opts,
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
	  "           unknown or different key is refused\n",
	  "Exit: 0 committed, pushed or nothing to do, 2 usage, 3 invalid "
	  "intents, 4 Git, network or authentication error (an unknown remote "
	  "or a directory gpuform did not write included; nothing committed).",
	  "@file", 0 },
	{ "lint", cmd_lint, "check intents and manifests for GPU pitfalls",
	  "[-o text|json|sarif] [--snapshot-size snap-ID=SIZE]... PATH...",
	  "Check intent files and Kubernetes manifests (NodePool, EC2NodeClass,\n"
	  "Kueue queues and flavors, Job, JobSet, PyTorchJob, Deployment,\n"
	  "StatefulSet, Pod, CronJob, device-plugin DaemonSets and Helm values)\n"
	  "for known GPU mistakes. Directories are walked for *.yaml and *.yml;\n"
	  "'-' reads standard input. Everything given is linted together, so a\n"
	  "Job is checked against the NodePool, queue and intent pod contract it\n"
	  "lands on. Intents are recognised by apiVersion gpuform.io/v1alpha1\n"
	  "and kind ClusterIntent and linted with what they render (with the\n"
	  "warnings validate and render give); unknown kinds are accepted\n"
	  "silently. Each finding is\n"
	  "file:line:col: severity: message [RULE-ID rule-name].\n"
	  "\n"
	  "'gpuform explain' lists the rules; 'gpuform explain RULE' says why\n"
	  "one matters and how to fix it.\n",
	  lint_opts, NULL,
	  "Exit: 0 no error-severity finding (warnings allowed), 1 findings at "
	  "error severity, 2 usage, 3 invalid input (not YAML, or an intent "
	  "that 'gpuform validate' rejects; its errors count), 4 unreadable "
	  "file.",
	  "@file", 0 },
	{ "explain", cmd_explain,
	  "explain a lint, intent or preflight rule, list them, or list the GPU classes",
	  "[RULE]\npreflight\n[-o text|markdown] classes",
	  "Without RULE, list every lint rule and the intent's warning rules\n"
	  "(INT001...): id, severity, name, summary; 'gpuform explain\n"
	  "preflight' lists the preflight rules (PF000...).\n"
	  "With RULE (an id such as GPU003, INT003 or PF003, or a name such as\n"
	  "gpu-family-allowlist), print why it matters and how to fix it.\n"
	  "'gpuform explain classes' prints the GPU classes an intent's 'gpu:'\n"
	  "may name and the instance families each one selects, from the\n"
	  "built-in catalog: a table on a terminal, Markdown otherwise or with\n"
	  "-o markdown.\n",
	  explain_opts, NULL, NULL, "@rule", 0 },
	PREFLIGHT_CMD,
	{ "install", cmd_install,
	  "render the manifests that run gpuform in the cluster (CronJob, RBAC)",
	  "--git URL [--ref BRANCH] [--path DIR] --cluster NAME [options]",
	  "Render the manifests that deploy gpuform itself: Namespace\n"
	  "gpuform-system, a ServiceAccount, least-privilege RBAC derived from\n"
	  "the kinds gpuform renders (a ClusterRole for them plus read access to\n"
	  "Pods and NodeClaims; Roles for the fixed-namespace kinds and, in\n"
	  "gpuform-system, for the inventory ConfigMap, the Lease lock and\n"
	  "Events), the bindings, and a CronJob running\n"
	  "'gpuform reconcile --git URL --ref BRANCH --path DIR --cluster NAME\n"
	  "--lock --events' (DIR/NAME/ as 'gpuform commit' writes it)\n"
	  "(concurrencyPolicy Forbid, deadlines, backoff, non-root, read-only\n"
	  "root filesystem, Git credentials from a Secret). Without\n"
	  "--output-dir, the objects go to stdout (kubectl apply --server-side\n"
	  "-f -); with --output-dir DIR, one file per object and a\n"
	  "kustomization.yaml (kubectl apply --server-side -k DIR), replaced\n"
	  "atomically like render --output-dir.\n",
	  install_opts, NULL,
	  "Exit: 0 written, 2 usage, 3 invalid option value, 4 I/O error.",
	  NULL, 0 },
	{ "version", cmd_version,
	  "print the version, the commit it was built from and the targets",
	  "[-o text|json]",
	  "Print gpuform's version, the Git commit it was built from, the\n"
	  "Karpenter and Kueue versions whose CRDs and behaviour the rendered\n"
	  "objects follow by default, and the releases spec.targets may name.\n",
	  version_opts, NULL, NULL, NULL, 0 },
	{ "init", cmd_init, "write a small commented intent to start from",
	  "[-n CLUSTER] [-g CLASS] [-w NAME:TYPE]... FILE",
	  "Write FILE, a commented intent that validates and renders as it\n"
	  "is. Never overwrites FILE; FILE appears whole or not at all.\n",
	  init_opts, NULL, "Exit: 0 written, 2 usage, 4 FILE exists or I/O error.",
	  "@file", 0 },
	{ "schema", cmd_schema, "print the JSON Schema of an intent", "",
	  "Print the JSON Schema (draft-07) of an intent file, generated from\n"
	  "the same key tables the intent reader uses: keys, types, enums,\n"
	  "ranges and required keys. Cross-field rules stay with 'gpuform\n"
	  "validate'. For editors (yaml-language-server), first line of an\n"
	  "intent:\n"
	  "\n"
	  "  # yaml-language-server: $schema=gpuform-intent.schema.json\n",
	  help_opts, NULL, "Exit: 0 printed, 2 usage.", NULL, 0 },
	{ "help", cmd_help, "show help for a command", "[COMMAND]", NULL,
	  help_opts, NULL, NULL, "@command", 0 },
	{ "completion", cmd_completion,
	  "print the bash or zsh completion script",
	  "bash|zsh",
	  "Print a completion script made from the same option tables as\n"
	  "--help and the man pages. 'make install' installs both; by hand:\n"
	  "\n"
	  "  source <(gpuform completion bash)\n"
	  "  gpuform completion zsh > \"${fpath[1]}/_gpuform\"\n",
	  help_opts, NULL, NULL, "bash zsh", 0 },
	{ "help-man", cmd_help_man, "print a man page (for the build)",
	  "[COMMAND]",
	  "Print the man page of COMMAND (gpuform-COMMAND(1)), or gpuform(1)\n"
	  "without one, in roff. The Makefile writes them to build/man/.\n",
	  help_opts, NULL, NULL, "@command", CMD_OPT_HIDDEN },
};

const size_t cmd_table_nr = sizeof(cmd_table) / sizeof(cmd_table[0]);

const struct cmd_opt version_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default) or json", "text json", 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

const struct cmd_opt help_opts[] = {
	CMD_OPT_HELP,
	CMD_OPT_END,
};

static void print_overview(FILE *f)
{
	struct buf b = BUF_INIT;

	cmd_format_overview(&b);
	fputs(buf_cstr(&b), f);
	buf_release(&b);
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuform %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see 'gpuform %s --help'\n", cmd);
	return EXIT_USAGE;
}

int cmd_print_help(const char *cmd)
{
	const struct cmd *c = cmd_find(cmd);
	struct buf b = BUF_INIT;

	if (!c)
		return EXIT_USAGE;
	cmd_format_help(&b, c);
	fputs(buf_cstr(&b), stdout);
	buf_release(&b);
	return EXIT_OK;
}

/* simple_args: a command whose only option is --help; returns -1 to go on
 * (optind: the first operand), else the exit code */
static int simple_args(const char *cmd, int argc, char **argv)
{
	int c;

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		if (c == 'h')
			return cmd_print_help(cmd);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_version(int argc, char **argv)
{
	int c, json = 0;

	while ((c = cmd_getopt("version", argc, argv)) != -1) {
		switch (c) {
		case 'h':
			return cmd_print_help("version");
		case 'o':
			{
				static const char *const names[] = { "text",
								     "json",
								     NULL };
				int i = cmd_format("version", optarg, names, 0,
						   NULL);
				if (i < 0)
					return EXIT_USAGE;
				json = i == 1;
			}
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("version", "unexpected argument '%s'",
				       argv[optind]);
	if (json) {
		cJSON *o = cJSON_CreateObject();
		char *s;

		cJSON_AddStringToObject(o, "version", GPUFORM_VERSION);
		cJSON_AddStringToObject(o, "commit", GPUFORM_COMMIT);
		if (GPUFORM_RELEASE[0])
			cJSON_AddStringToObject(o, "release", GPUFORM_RELEASE);
		else
			cJSON_AddNullToObject(o, "release");
		cJSON_AddStringToObject(o, "karpenter", TARGET_KARPENTER);
		cJSON_AddStringToObject(o, "kueue", TARGET_KUEUE);
		cJSON_AddStringToObject(o, "karpenterSupported",
					SUPPORTED_KARPENTER);
		cJSON_AddStringToObject(o, "kueueSupported", SUPPORTED_KUEUE);
		cJSON_AddStringToObject(o, "cjson", cJSON_Version());
		s = cJSON_Print(o);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
		return EXIT_OK;
	}
	if (GPUFORM_RELEASE[0])
		printf("gpuform %s\ncommit: %s (release %s)\n", GPUFORM_VERSION,
		       GPUFORM_COMMIT, GPUFORM_RELEASE);
	else
		printf("gpuform %s\ncommit: %s (development build, not "
		       "release v%s)\n",
		       GPUFORM_VERSION, GPUFORM_COMMIT, GPUFORM_VERSION);
	printf("targets: Karpenter %s, Kueue %s\n"
	       "supported (spec.targets): Karpenter %s, Kueue %s\n"
	       "built with: cJSON %s\n",
	       TARGET_KARPENTER, TARGET_KUEUE, SUPPORTED_KARPENTER,
	       SUPPORTED_KUEUE, cJSON_Version());
	return EXIT_OK;
}

static int unknown_command(const char *where, const char *name)
{
	const char *names[64];
	const char *sug;
	size_t n = 0;

	for (size_t i = 0; i < cmd_table_nr && n < 64; i++)
		if (!(cmd_table[i].flags & CMD_OPT_HIDDEN))
			names[n++] = cmd_table[i].name;
	sug = cmd_suggest(name, names, n);
	fprintf(stderr, "%s: '%s' is not a gpuform command%s%s%s; see "
			"'gpuform --help'\n",
		where, name, sug ? " (did you mean '" : "", sug ? sug : "",
		sug ? "'?)" : "");
	return EXIT_USAGE;
}

int cmd_help(int argc, char **argv)
{
	int r = simple_args("help", argc, argv);

	if (r >= 0)
		return r;
	if (optind >= argc) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (argc - optind > 1)
		return cmd_usage_error("help", "one command at a time");
	if (!cmd_find(argv[optind]))
		return unknown_command("gpuform help", argv[optind]);
	return cmd_print_help(argv[optind]);
}

int cmd_help_man(int argc, char **argv)
{
	struct buf b = BUF_INIT;
	const struct cmd *c = NULL;
	int r = simple_args("help-man", argc, argv);

	if (r >= 0)
		return r;
	if (argc - optind > 1)
		return cmd_usage_error("help-man", "one command at a time");
	if (optind < argc && !(c = cmd_find(argv[optind])))
		return unknown_command("gpuform help-man", argv[optind]);
	cmd_format_man(&b, c);
	fputs(buf_cstr(&b), stdout);
	buf_release(&b);
	return EXIT_OK;
}

int cmd_completion(int argc, char **argv)
{
	struct buf b = BUF_INIT;
	int r = simple_args("completion", argc, argv);

	if (r >= 0)
		return r;
	if (argc - optind != 1)
		return cmd_usage_error("completion", "name the shell: bash or "
						     "zsh");
	if (cmd_format_completion(&b, argv[optind]) < 0) {
		buf_release(&b);
		return cmd_usage_error("completion",
				       "no completion for '%s' (bash or zsh)",
				       argv[optind]);
	}
	fputs(buf_cstr(&b), stdout);
	buf_release(&b);
	return EXIT_OK;
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

/*
 * global_flags: -q/--quiet and -v/--verbose, anywhere before "--", as
 * everywhere; removed from argv. Returns the new argc.
 */
static int global_flags(int argc, char **argv)
{
	int n = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			cmd_verbosity = -1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			cmd_verbosity = 1;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

/*
 * command_first: options before the command (`gpuform -o json render x`,
 * as kubectl and helm allow): move the first word that names a command to
 * argv[1], the options after it, where the command's getopt reads them.
 * 0 when no command follows.
 */
static int command_first(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		char *c = argv[i];
		if (!strcmp(c, "--"))
			return 0;
		if (c[0] == '-' || !cmd_find(c))
			continue;
		memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof(*argv));
		argv[1] = c;
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		fprintf(stderr, "gpuform: no command given; see 'gpuform "
				"--help'\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_overview(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version"))
		return finish_stdout(cmd_version(1, argv));
	argc = global_flags(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "gpuform: no command given; see 'gpuform "
				"--help'\n");
		return EXIT_USAGE;
	}
	if (argv[1][0] == '-' && !command_first(argc, argv)) {
		fprintf(stderr, "gpuform: unknown option '%s' and no command "
				"after it; see 'gpuform --help'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	c = cmd_find(argv[1]);
	if (!c)
		return unknown_command("gpuform", argv[1]);
	optind = 0; /* each command runs its own getopt_long */
	return finish_stdout(c->fn(argc - 1, argv + 1));
}
