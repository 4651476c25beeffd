/*
 * cmd/reconcile.c: `gpuform reconcile` — apply the desired objects to the
 * cluster (the run itself is shared with diff --live: cmd/live.c).
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/live.h"
#include "generator/validate.h"

const struct cmd_opt reconcile_opts[] = {
	{ "dry-run", 0, OPT_DRY_RUN, CMD_ARG_OPTIONAL, "server",
	  "show what would change, from server-side dry runs (so "
	  "--dry-run=server, kubectl's spelling, is the same); exit 1 if "
	  "anything", "server", 0 },
	{ "prune", 0, OPT_PRUNE, CMD_ARG_NONE, NULL,
	  "delete objects gpuform created that are no longer desired "
	  "(inventory, label and UID must all match)", NULL, 0 },
	{ "force-prune", 0, OPT_FORCE_PRUNE, CMD_ARG_NONE, NULL,
	  "allow an empty desired set or pruning more than half of the "
	  "inventory", NULL, 0 },
	{ "prune-namespaces", 0, OPT_PRUNE_NS, CMD_ARG_NONE, NULL,
	  "allow pruning Namespaces", NULL, 0 },
	{ "force-conflicts", 0, OPT_FORCE_CONFLICTS, CMD_ARG_NONE, NULL,
	  "take over fields another apply manager owns", NULL, 0 },
	{ "allow-node-replacement", 0, OPT_ALLOW_REPLACE, CMD_ARG_NONE, NULL,
	  "apply node-replacing changes to 'interruption: none' or "
	  "'checkpointed' pools outside their maintenance window (held back "
	  "otherwise; everything else is applied)", NULL, 0 },
	{ "adopt", 0, OPT_ADOPT, CMD_ARG_NONE, NULL,
	  "take over existing objects that no gpuform inventory owns (else "
	  "they are conflicts)", NULL, 0 },
	{ "rebuild-inventory", 0, OPT_REBUILD_INV, CMD_ARG_NONE, NULL,
	  "rebuild a damaged or deleted inventory from the objects gpuform "
	  "labelled and applied", NULL, 0 },
	{ "allow-non-ancestor", 0, OPT_ALLOW_NON_ANCESTOR, CMD_ARG_NONE, NULL,
	  "with --git: apply a commit that does not descend from the one the "
	  "inventory was last reconciled from (refused otherwise: a "
	  "force-push to older history would undo, and --prune delete, what "
	  "newer commits created)", NULL, 0 },
	{ "rebind-cluster", 0, OPT_REBIND, CMD_ARG_NONE, NULL,
	  "record this cluster as the inventory's cluster although the "
	  "inventory names another (the cluster was rebuilt or restored) or "
	  "none; without it such a run is refused with exit 6", NULL, 0 },
	{ "no-lock", 0, OPT_NO_LOCK, CMD_ARG_NONE, NULL,
	  "do not take the run lock (taken by default for every run that "
	  "writes)", NULL, 0 },
	{ "inventory-namespace", 0, OPT_INV_NS, CMD_ARG_REQUIRED, "NS",
	  "where the inventory lives (default gpuform-system)", NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (see render)", "@dir", 0 },
	{ "git", 0, OPT_GIT, CMD_ARG_REQUIRED, "URL",
	  "read the manifests from this Git repository (https://, ssh:// or a "
	  "path; credentials as for commit --push), fetched into a bare cache "
	  "reused between runs; no checkout", NULL, 0 },
	{ "ref", 0, OPT_REF, CMD_ARG_REQUIRED, "BRANCH",
	  "branch to read (default main)", NULL, 0 },
	{ "path", 0, OPT_PATH, CMD_ARG_REQUIRED, "DIR",
	  "the directory that holds one directory per cluster, as commit "
	  "writes it (default clusters); with --git", NULL, 0 },
	{ "cluster", 0, OPT_CLUSTER, CMD_ARG_REQUIRED, "NAME",
	  "with --git: the cluster to reconcile, read from DIR/NAME/ (a --path "
	  "that is one cluster's directory, without --cluster, still works but "
	  "is deprecated)", NULL, 0 },
	{ "git-cache", 0, OPT_GIT_CACHE, CMD_ARG_REQUIRED, "DIR",
	  "cache location (default ~/.cache/gpuform/git/<hash of URL>)",
	  "@dir", 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default) or json (with request counts)", "text json", 0 },
	{ "preflight", 0, OPT_PREFLIGHT, CMD_ARG_NONE, NULL,
	  "first run 'gpuform preflight' on the intent files (the cluster's "
	  "Kubernetes version, AWS credentials as preflight finds them); an "
	  "error finding stops before anything is applied (exit 3); with "
	  "--git, on the file --preflight-intent names", NULL, 0 },
	{ "preflight-intent", 0, OPT_PREFLIGHT_INTENT, CMD_ARG_REQUIRED, "PATH",
	  "with --git --preflight: the cluster's intent file in the "
	  "repository (e.g. specs/ml-prod.yaml), read from the same commit "
	  "as the manifests; its metadata.name must be the cluster", NULL, 0 },
	CLUSTER_CMD_OPTS,
	INCLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* the options; 0, -1 after --help (exit 0), or the exit code of a usage
 * error */
static int parse(struct live *l, int argc, char **argv, int *no_lock)
{
	int c, code;

	while ((c = cmd_getopt("reconcile", argc, argv)) != -1) {
		switch (c) {
		case OPT_DRY_RUN:
			if (optarg && !strcmp(optarg, "client"))
				return cmd_usage_error("reconcile",
						       "--dry-run=client: gpuform "
						       "has no client-side dry "
						       "run (its dry run asks the "
						       "server); use --dry-run, or "
						       "'gpuform render' to see "
						       "the objects offline");
			if (optarg && strcmp(optarg, "server"))
				return cmd_usage_error("reconcile",
						       "--dry-run takes no value "
						       "or 'server', not '%s'",
						       optarg);
			l->ro.dry_run = 1;
			break;
		case OPT_PRUNE:
			l->ro.prune = 1;
			break;
		case OPT_FORCE_CONFLICTS:
			l->ro.force_conflicts = 1;
			break;
		case OPT_FORCE_PRUNE:
			l->ro.force_prune = 1;
			break;
		case OPT_PRUNE_NS:
			l->ro.prune_namespaces = 1;
			break;
		case OPT_INV_NS:
			l->ro.inventory_ns = optarg;
			break;
		case OPT_TEMPLATES:
			l->templates = optarg;
			break;
		case OPT_GIT:
			l->git.url = optarg;
			break;
		case OPT_REF:
			l->git.ref = optarg;
			break;
		case OPT_PATH:
			l->git.path = optarg;
			break;
		case OPT_CLUSTER:
			if (!validate_dns_label(optarg, 63))
				return cmd_usage_error("reconcile",
						       "--cluster '%s' is not a "
						       "cluster name (a DNS "
						       "label)", optarg);
			l->git.cluster = optarg;
			break;
		case OPT_GIT_CACHE:
			l->git.cache = optarg;
			break;
		case OPT_ALLOW_REPLACE:
			l->allow_replace = 1;
			break;
		case OPT_ADOPT:
			l->ro.adopt = 1;
			break;
		case OPT_REBUILD_INV:
			l->ro.rebuild_inventory = 1;
			break;
		case OPT_NO_LOCK:
			*no_lock = 1;
			break;
		case OPT_ALLOW_NON_ANCESTOR:
			l->allow_non_ancestor = 1;
			break;
		case OPT_REBIND:
			l->id.rebind = 1;
			break;
		case OPT_PREFLIGHT:
			l->preflight = 1;
			break;
		case OPT_PREFLIGHT_INTENT:
			if (!*optarg)
				return cmd_usage_error("reconcile",
						       "--preflight-intent needs "
						       "a path");
			l->git.intent = optarg;
			break;
		case 'o':
			if ((code = live_output_opt(l, optarg)))
				return code;
			break;
		case 'h':
			cmd_print_help("reconcile");
			return -1; /* done: exit 0 */
		case OPT_KUBECONFIG:
		case OPT_CONTEXT:
		case OPT_TIMEOUT:
		case OPT_REQ_TIMEOUT:
		case OPT_INSECURE_LOOPBACK_HTTP:
			if ((code = live_cluster_opt(l, c, optarg)))
				return code;
			break;
		case OPT_LOCK:
		case OPT_LOCK_DURATION:
		case OPT_EVENTS:
		case OPT_METRICS_FILE:
		case OPT_HELD_EXIT:
			if (incluster_opt(&l->io, c, optarg) < 0)
				return cmd_usage_error("reconcile",
						       "--held-exit-code '%s': "
						       "5 (the default) or 0",
						       optarg);
			break;
		case OPT_PUSHGATEWAY:
			if (incluster_opt(&l->io, c, optarg) < 0)
				return cmd_usage_error("reconcile",
						       "bad value '%s'", optarg);
			break;
		case '?':
		default:
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* the combinations of options; 0 or the exit code of a usage error */
static int check(struct live *l, int argc, char **argv, int no_lock)
{
	if (l->git.intent && (!l->preflight || !l->git.url))
		return cmd_usage_error("reconcile", "--preflight-intent goes "
						    "with --git and --preflight");
	/* Git holds rendered manifests, which carry no intent: the intent
	 * file is read from the same commit */
	if (l->preflight && l->git.url && !l->git.intent)
		return cmd_usage_error("reconcile", "--preflight with --git "
						    "needs --preflight-intent "
						    "PATH: the cluster's intent "
						    "file in the repository");
	for (int i = optind; l->preflight && i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && !S_ISREG(st.st_mode))
			return cmd_usage_error("reconcile", "--preflight needs "
							    "intent files, not "
							    "'%s'", argv[i]);
	}
	/* exit 0 for a held change only where the hold is recorded */
	if (l->io.held_exit == 0 && !l->io.events && !l->io.metrics_file &&
	    !l->io.pushgateway)
		return cmd_usage_error("reconcile", "--held-exit-code 0 needs "
						    "--events, --metrics-file "
						    "or --pushgateway: a held "
						    "change must be recorded "
						    "where it is seen");
	if (l->io.lock && no_lock)
		return cmd_usage_error("reconcile", "--lock and --no-lock "
						    "contradict each other");
	/* the run lock is the default for every run that writes: a manual
	 * run racing the CronJob must not prune what the other applies */
	if (!l->ro.dry_run && !no_lock && !l->io.lock) {
		l->io.lock = 1;
		l->io.lock_default = 1;
	}
	if (l->git.url) {
		if (optind < argc)
			return cmd_usage_error("reconcile", "--git reads the "
							    "manifests from "
							    "Git: give no files");
		if (l->git.path && !*l->git.path)
			return cmd_usage_error("reconcile", "--path needs the "
							    "directory that "
							    "holds the cluster "
							    "directories "
							    "(default clusters)");
	} else if (l->git.ref || l->git.path || l->git.cluster ||
		   l->git.cache) {
		return cmd_usage_error("reconcile", "--ref, --path, --cluster "
						    "and --git-cache go with "
						    "--git");
	} else if (optind >= argc) {
		return cmd_usage_error("reconcile", "no intent file or "
						    "rendered directory given");
	}
	return 0;
}

int cmd_reconcile(int argc, char **argv)
{
	struct live l;
	int no_lock = 0, code;

	live_init(&l, "reconcile");
	if ((code = parse(&l, argc, argv, &no_lock)) < 0)
		return EXIT_OK;
	if (code || (code = check(&l, argc, argv, no_lock)))
		return code;
	l.paths = argv + optind;
	l.npaths = (size_t)(argc - optind);
	if ((code = live_run(&l)) >= 0)
		return live_finish(&l, code);
	if (l.json) {
		live_json(&l);
	} else {
		struct buf b = BUF_INIT;
		nodeimpact_run_text(&b, &l.ni, &l.rep, cmd_verbosity > 0);
		nodeimpact_summary_text(&b, &l.ni, &l.rep, l.rc < 0);
		fputs(buf_cstr(&b), stdout);
		buf_release(&b);
	}
	return live_finish(&l, live_code(&l));
}
