/*
 * cmd/install.c: `gpuform install` — the manifests that run gpuform in the
 * cluster (see generator/install.h), on stdout or into a directory written
 * atomically like `render -o`.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/install.h"
#include "generator/intent.h"
#include "generator/render.h"
#include "reconcile/installrun.h"

enum { OPT_GIT = 4000, OPT_REF, OPT_PATH, OPT_CLUSTER, OPT_SCHEDULE, OPT_IMAGE,
       OPT_SECRET, OPT_NS, OPT_CRONJOB_API, OPT_PUSHGW, OPT_PRUNE, OPT_TIMEOUT,
       OPT_TEMPLATES, OPT_FORMAT, OPT_OUTPUT_DIR, OPT_DP_NS,
       OPT_AWS_POLICY, OPT_PREFLIGHT_INTENT, OPT_CACHE_PVC, OPT_DOCTOR,
       OPT_DELIVERY };

const struct cmd_opt install_opts[] = {
	{ "git", 0, OPT_GIT, CMD_ARG_REQUIRED, "URL",
	  "the repository the job reconciles from", NULL, 0 },
	{ "ref", 0, OPT_REF, CMD_ARG_REQUIRED, "BRANCH", "branch (default main)",
	  NULL, 0 },
	{ "path", 0, OPT_PATH, CMD_ARG_REQUIRED, "DIR",
	  "the directory in the repository that holds one directory per "
	  "cluster, as commit writes it (default clusters)", NULL, 0 },
	{ "cluster", 0, OPT_CLUSTER, CMD_ARG_REQUIRED, "NAME",
	  "the cluster: the job reconciles DIR/NAME/; names the inventory and "
	  "the Lease (without it, --path DIR/NAME still works but is "
	  "deprecated)", NULL, 0 },
	{ "schedule", 0, OPT_SCHEDULE, CMD_ARG_REQUIRED, "CRON",
	  "default \"*/5 * * * *\"", NULL, 0 },
	{ "image", 0, OPT_IMAGE, CMD_ARG_REQUIRED, "IMAGE",
	  "the job's image, REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:DIGEST "
	  "(default gpuform:<version>, the name 'make image' gives: no public "
	  "registry serves it; push it to yours, docs/in-cluster.md)", NULL,
	  0 },
	{ "git-cache-pvc", 0, OPT_CACHE_PVC, CMD_ARG_REQUIRED, "CLAIM",
	  "keep the job's Git cache between runs on this PersistentVolumeClaim "
	  "(in the job's namespace; created by you) instead of an emptyDir "
	  "that every run clones into afresh", NULL, 0 },
	{ "git-secret", 0, OPT_SECRET, CMD_ARG_REQUIRED, "NAME",
	  "Secret with GPUFORM_GIT_* keys, as environment (SSH URLs: also "
	  "mounted for ssh-privatekey and known_hosts); default gpuform-git",
	  NULL, 0 },
	{ "namespace", 0, OPT_NS, CMD_ARG_REQUIRED, "NS",
	  "where gpuform runs (default gpuform-system)", NULL, 0 },
	{ "device-plugin-namespace", 0, OPT_DP_NS, CMD_ARG_REQUIRED, "NS",
	  "the intents' spec.nvidiaDevicePlugin.namespace (default "
	  "kube-system): where the job may write the device-plugin ConfigMap",
	  NULL, 0 },
	{ "cronjob-api-version", 0, OPT_CRONJOB_API, CMD_ARG_REQUIRED, "V",
	  "batch/v1 (default) or batch/v1beta1 (Kubernetes before 1.21)",
	  "batch/v1 batch/v1beta1", 0 },
	{ "prune", 0, OPT_PRUNE, CMD_ARG_NONE, NULL,
	  "the job runs reconcile --prune", NULL, 0 },
	{ "doctor", 0, OPT_DOCTOR, CMD_ARG_NONE, NULL,
	  "also grant what 'gpuform doctor' (and diff --live's add-on "
	  "comparison) reads, by name: get on Deployment "
	  "karpenter (kube-system, karpenter), Deployment "
	  "kueue-controller-manager and ConfigMap kueue-manager-config "
	  "(kueue-system)", NULL, 0 },
	{ "delivery", 0, OPT_DELIVERY, CMD_ARG_REQUIRED, "MODE",
	  "the intents' spec.addons.delivery, flux or argocd (may be given "
	  "twice): let the job apply the HelmReleases and their sources "
	  "(flux-system) or the Applications (argocd) gpuform renders — list "
	  "and create, and get, patch, delete by name",
	  "flux argocd", 0 },
	{ "pushgateway", 0, OPT_PUSHGW, CMD_ARG_REQUIRED, "URL",
	  "the job pushes metrics there", NULL, 0 },
	{ "timeout", 0, OPT_TIMEOUT, CMD_ARG_REQUIRED, "DUR",
	  "the job's reconcile --timeout (default 5m)", NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (templates/install-*.yaml)", "@dir", 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "yaml (default) or json", "yaml json", 0 },
	{ "format", 0, OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "yaml json", CMD_OPT_HIDDEN },
	{ "output-dir", 0, OPT_OUTPUT_DIR, CMD_ARG_REQUIRED, "DIR",
	  "write a directory instead of stdout", "@dir", 0 },
	{ "aws-iam-policy", 0, OPT_AWS_POLICY, CMD_ARG_NONE, NULL,
	  "add ConfigMap gpuform-aws-iam-policy: the IAM policy document "
	  "'gpuform preflight' needs (docs/preflight.md)", NULL, 0 },
	{ "preflight-intent", 0, OPT_PREFLIGHT_INTENT, CMD_ARG_REQUIRED, "PATH",
	  "the job runs reconcile --preflight on this intent file of the "
	  "repository (e.g. specs/ml-prod.yaml), read from the commit it "
	  "applies; give the job's service account AWS credentials (IRSA or "
	  "Pod Identity) and the --aws-iam-policy permissions", NULL, 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* the command line of install */
struct install_cli {
	struct install_opts io;
	enum render_format fmt;
	const char *dir, *templates;
	int aws_policy;
	char *cluster, *path; /* owned: io.cluster, io.git_path */
};

/* the options; 0, -1 after --help (exit 0), or the exit code of a usage
 * error */
static int install_parse(struct install_cli *ic, int argc, char **argv)
{
	struct install_opts *io = &ic->io;
	long long s;
	int c;

	while ((c = cmd_getopt("install", argc, argv)) != -1) {
		switch (c) {
		case OPT_GIT:
			io->git_url = optarg;
			break;
		case OPT_REF:
			io->git_ref = optarg;
			break;
		case OPT_PATH:
			io->git_path = optarg;
			break;
		case OPT_CLUSTER:
			io->cluster = optarg;
			break;
		case OPT_SCHEDULE:
			io->schedule = optarg;
			break;
		case OPT_IMAGE:
			io->image = optarg;
			break;
		case OPT_CACHE_PVC:
			io->git_cache_pvc = optarg;
			break;
		case OPT_SECRET:
			io->git_secret = optarg;
			break;
		case OPT_NS:
			io->namespace_ = optarg;
			break;
		case OPT_DP_NS:
			io->device_plugin_ns = optarg;
			break;
		case OPT_CRONJOB_API:
			io->cronjob_api = optarg;
			break;
		case OPT_PUSHGW:
			io->pushgateway = optarg;
			break;
		case OPT_PRUNE:
			io->prune = 1;
			break;
		case OPT_DOCTOR:
			io->doctor = 1;
			break;
		case OPT_DELIVERY:
			if (!strcmp(optarg, "flux"))
				io->delivery_flux = 1;
			else if (!strcmp(optarg, "argocd"))
				io->delivery_argocd = 1;
			else
				return cmd_usage_error("install",
						       "--delivery '%s': flux "
						       "or argocd (delivery "
						       "values needs no grant)",
						       optarg);
			break;
		case OPT_PREFLIGHT_INTENT:
			if (!*optarg || optarg[0] == '/')
				return cmd_usage_error("install",
						       "--preflight-intent needs "
						       "a path in the repository, "
						       "like specs/ml-prod.yaml");
			io->preflight_intent = optarg;
			break;
		case OPT_TIMEOUT:
			s = intent_parse_duration(optarg);
			if (s <= 0)
				return cmd_usage_error("install", "bad --timeout "
								  "'%s' (a duration "
								  "like 5m)", optarg);
			io->timeout_s = (long)s;
			break;
		case OPT_TEMPLATES:
			ic->templates = optarg;
			break;
		case 'o':
		case OPT_FORMAT:
			if (cmd_output_format("install", c, optarg, &ic->fmt,
					      &ic->dir) < 0)
				return EXIT_USAGE;
			break;
		case OPT_OUTPUT_DIR:
			ic->dir = optarg;
			break;
		case OPT_AWS_POLICY:
			ic->aws_policy = 1;
			break;
		case 'h':
			cmd_print_help("install");
			return -1; /* done: exit 0 */
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("install", "unexpected argument '%s'",
				       argv[optind]);
	if (!io->git_url)
		return cmd_usage_error("install", "--git URL is required (the "
						  "repository the job reconciles "
						  "from)");
	if (io->git_path && !*io->git_path)
		return cmd_usage_error("install", "--path needs the directory "
						  "that holds the cluster "
						  "directories (default clusters)");
	if (!io->cluster && !io->git_path)
		return cmd_usage_error("install", "--cluster NAME is required "
						  "(the job reconciles "
						  "clusters/NAME/ of the "
						  "repository)");
	return 0;
}

/* --path and --cluster as the job gets them (reconcile/installrun.h); 0 or
 * a usage error's code */
static int install_where(struct install_cli *ic)
{
	struct err err = ERR_INIT;
	char *warning;
	int code = 0;

	if (installrun_where(&ic->io, &ic->path, &ic->cluster, &warning,
			     &err) < 0)
		code = cmd_usage_error("install", "%s", err_msg(&err));
	else if (warning)
		fprintf(stderr, "gpuform install: warning: %s\n", warning);
	free(warning);
	err_release(&err);
	return code;
}

/* render the manifests to stdout or -o DIR; the exit code */
static int install_write(struct install_cli *ic)
{
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	int code = EXIT_OK, n = 0;

	if (installrun_write(&ic->io, ic->templates, ic->aws_policy, ic->fmt,
			     ic->dir, &out, &n, &err) < 0)
		code = report_err(&err);
	else if (ic->dir)
		fprintf(stderr, "install manifests for cluster %s: %d objects -> %s\n",
			ic->io.cluster, n, ic->dir);
	else
		fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout);
	buf_release(&out);
	err_release(&err);
	return code;
}

int cmd_install(int argc, char **argv)
{
	struct install_cli ic;
	int code;

	memset(&ic, 0, sizeof(ic));
	ic.fmt = RENDER_YAML;
	code = install_parse(&ic, argc, argv);
	if (code)
		return code < 0 ? EXIT_OK : code;
	if (!(code = install_where(&ic)))
		code = install_write(&ic);
	free(ic.cluster);
	free(ic.path);
	return code;
}
