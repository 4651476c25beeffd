/*
 * cmd/reconcile.c: `gpuform reconcile` and `gpuform diff --live`.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cluster.h"
#include "cmd/source.h"
#include "reconcile/reconcile.h"
#include "util/xalloc.h"

static void print_item(const struct recon_item *it)
{
	const char *slash = strchr(it->api_version, '/');
	char group[128] = "";

	if (slash) {
		size_t n = (size_t)(slash - it->api_version);
		if (n >= sizeof(group))
			n = sizeof(group) - 1;
		memcpy(group, it->api_version, n);
		group[n] = '\0';
	}
	for (const char *k = it->kind; *k; k++)
		putchar(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
	if (*group)
		printf(".%s", group);
	printf("/%s", it->name);
	if (it->ns)
		printf(" -n %s", it->ns);
	printf(" %s%s", recon_action_names[it->action],
	       it->dry && it->action != RA_UNCHANGED &&
			       it->action != RA_CONFLICT && it->action != RA_FAILED &&
			       it->action != RA_SKIPPED
		       ? " (dry run)"
		       : "");
	if (it->detail)
		printf(": %s", it->detail);
	putchar('\n');
}

static void print_summary(const struct recon_report *r, int failed, FILE *f)
{
	fprintf(f, "%s %s: %zu created, %zu configured, %zu unchanged, %zu pruned",
		failed      ? "reconcile failed for"
		: r->dry_run ? "dry run for"
			     : "reconciled",
		r->cluster ? r->cluster : "?",
		r->counts[RA_CREATED], r->counts[RA_CONFIGURED],
		r->counts[RA_UNCHANGED], r->counts[RA_PRUNED]);
	if (r->counts[RA_SKIPPED])
		fprintf(f, ", %zu skipped", r->counts[RA_SKIPPED]);
	if (r->counts[RA_CONFLICT])
		fprintf(f, ", %zu conflicts", r->counts[RA_CONFLICT]);
	if (r->counts[RA_FAILED])
		fprintf(f, ", %zu failed", r->counts[RA_FAILED]);
	fprintf(f, " (%ld API requests, %ld writes)\n", r->stats.requests,
		r->stats.writes);
}

enum { OPT_DRY_RUN = 2000, OPT_PRUNE, OPT_FORCE_CONFLICTS, OPT_FORCE_PRUNE,
       OPT_PRUNE_NS, OPT_INV_NS, OPT_TEMPLATES, OPT_LIVE };

static int run(const char *cmd, int argc, char **argv, int diff_mode)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "prune", no_argument, NULL, OPT_PRUNE },
		{ "force-conflicts", no_argument, NULL, OPT_FORCE_CONFLICTS },
		{ "force-prune", no_argument, NULL, OPT_FORCE_PRUNE },
		{ "prune-namespaces", no_argument, NULL, OPT_PRUNE_NS },
		{ "inventory-namespace", required_argument, NULL, OPT_INV_NS },
		{ "templates", required_argument, NULL, OPT_TEMPLATES },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		CLUSTER_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct recon_opts ro = { 0 };
	struct source src = SOURCE_INIT;
	struct recon_report rep = RECON_REPORT_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct kube *k = NULL;
	const char *templates = NULL;
	int c, json = 0, live = 0, code = EXIT_OK, rc;

	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DRY_RUN:
			ro.dry_run = 1;
			break;
		case OPT_PRUNE:
			ro.prune = 1;
			break;
		case OPT_FORCE_CONFLICTS:
			ro.force_conflicts = 1;
			break;
		case OPT_FORCE_PRUNE:
			ro.force_prune = 1;
			break;
		case OPT_PRUNE_NS:
			ro.prune_namespaces = 1;
			break;
		case OPT_INV_NS:
			ro.inventory_ns = optarg;
			break;
		case OPT_TEMPLATES:
			templates = optarg;
			break;
		case OPT_LIVE:
			live = 1;
			break;
		case 'o':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (strcmp(optarg, "text"))
				return cmd_usage_error(cmd, "unknown output '%s' (text or json)", optarg);
			break;
		case 'h':
			return cmd_print_help(cmd);
		case OPT_KUBECONFIG:
		case OPT_CONTEXT:
		case OPT_TIMEOUT:
		case OPT_REQ_TIMEOUT:
			if (cluster_opt(&co, c, optarg) < 0)
				return cmd_usage_error(cmd, "bad value '%s' (a duration "
							    "like 30s or 5m)", optarg);
			break;
		default:
			return cmd_usage_error(cmd, "invalid option");
		}
	}
	if (diff_mode && !live)
		return cmd_usage_error(cmd, "say what to compare with: --live "
					    "(against the cluster)");
	if (diff_mode) {
		ro.dry_run = 1;
		ro.want_diffs = 1;
		ro.prune = 1; /* show what a prune would remove */
	}
	if (optind >= argc)
		return cmd_usage_error(cmd, "no intent file or rendered directory given");

	if (source_load(&src, argv + optind, (size_t)(argc - optind), templates,
			&d, &err) < 0) {
		diags_sort(&d);
		report_diags(&d);
		code = report_err(&err);
		goto out;
	}
	diags_sort(&d);
	report_diags(&d);
	ro.source = src.desc;
	if (cluster_connect(&k, &co, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	rc = recon_run(&rep, k, src.cluster, src.docs, &ro, &err);
	if (json) {
		cJSON *j = recon_report_json(&rep);
		char *s;
		if (rc < 0)
			cJSON_AddStringToObject(j, "error", err_msg(&err));
		s = cJSON_Print(j);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else if (diff_mode) {
		for (size_t i = 0; i < rep.nr; i++) {
			const struct recon_item *it = &rep.items[i];
			if (it->diff)
				fputs(it->diff, stdout);
			else if (it->action == RA_PRUNED)
				print_item(it);
			else if (it->action == RA_CONFLICT || it->action == RA_FAILED)
				print_item(it);
		}
	} else {
		for (size_t i = 0; i < rep.nr; i++)
			print_item(&rep.items[i]);
	}
	if (!diff_mode && !json)
		print_summary(&rep, rc < 0, stdout);
	if (rc < 0) {
		code = report_err(&err);
		goto out;
	}
	if (ro.dry_run && recon_changed(&rep))
		code = EXIT_DIFF;
out:
	recon_report_release(&rep);
	kube_free(k);
	source_release(&src);
	diags_release(&d);
	err_release(&err);
	return code;
}

int cmd_reconcile(int argc, char **argv)
{
	return run("reconcile", argc, argv, 0);
}

int cmd_diff(int argc, char **argv)
{
	return run("diff", argc, argv, 1);
}
