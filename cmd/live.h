/*
 * cmd/live.h: what `reconcile` (cmd/reconcile.c) and `diff --live`
 * (cmd/diff.c) share: the option ids of their tables, loading the desired
 * objects, connecting, the node-impact guard, one reconcile run (a dry run
 * for diff) and printing its items. Each command parses its own options,
 * checks their combinations and prints its own report.
 */
#ifndef CMD_LIVE_H
#define CMD_LIVE_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/cluster.h"
#include "cmd/incluster.h"
#include "reconcile/identity.h"
#include "reconcile/nodeimpact.h"
#include "reconcile/reconcile.h"
#include "reconcile/source.h"
#include "util/diag.h"
#include "util/err.h"

/* option ids of reconcile_opts and diff_opts */
enum { OPT_DRY_RUN = 2000, OPT_PRUNE, OPT_FORCE_CONFLICTS, OPT_FORCE_PRUNE,
       OPT_PRUNE_NS, OPT_INV_NS, OPT_TEMPLATES, OPT_LIVE, OPT_GIT, OPT_REF,
       OPT_PATH, OPT_GIT_CACHE, OPT_ALLOW_REPLACE, OPT_BASE, OPT_HEAD,
       OPT_REPO, OPT_FORMAT, OPT_ADOPT, OPT_REBUILD_INV, OPT_NO_LOCK,
       OPT_PREFLIGHT, OPT_CLUSTER, OPT_PREFLIGHT_INTENT,
       OPT_ALLOW_NON_ANCESTOR, OPT_REBIND, OPT_PRICES, OPT_SPOT_PRICES };

struct live {
	/* set by the command */
	const char *cmd;
	struct cluster_opts co;
	struct incluster_opts io;
	struct recon_opts ro;
	struct source_git git; /* git.url NULL: the files in paths */
	char **paths;
	size_t npaths;
	const char *templates;
	int json, allow_replace, preflight;
	int allow_non_ancestor; /* --git: apply a commit that does not descend
				 * from the inventory's sourceCommit */
	/* filled by live_run */
	int started; /* incluster_start ran: live_finish reports */
	struct incluster ic;
	struct source src;
	struct recon_report rep;
	struct nodeimpact ni;
	struct diags d;
	struct err err;
	struct kube *k;
	struct cluster_info info; /* context, server, EKS name */
	struct identity id;       /* what the run checks and records */
	int rc; /* recon_run's result */
	cJSON *addons; /* diff --live: the add-on comparison, which live_json
			* prints as .addons (and frees), or NULL */
};
/* live_init: every field empty, the defaults of the options */
void live_init(struct live *l, const char *cmd);

/* live_opt: a --kubeconfig/--context/--timeout/... option; the exit code of
 * a usage error, or 0 */
int live_cluster_opt(struct live *l, int c, const char *arg);

/* live_output_opt: -o text|json; the exit code of a usage error, or 0 */
int live_output_opt(struct live *l, const char *arg);

/*
 * live_run: load the desired objects, connect, take the run lock (with
 * --lock), run recon_run and print the guard's notes. -1: it ran, l->rc is
 * recon_run's result and l->rep its report; else the exit code of a run
 * that stopped before. Either way live_finish comes next.
 */
int live_run(struct live *l);
/* live_json: print the report as JSON with the node impact (-o json) */
void live_json(struct live *l);
/* live_code: the exit code of a run that went ahead */
int live_code(struct live *l);
/* live_finish: release the lock, publish (incluster_finish), free; returns
 * the exit code */
int live_finish(struct live *l, int code);

#endif
