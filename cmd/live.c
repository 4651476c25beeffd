/* cmd/live.c: the run reconcile and diff --live share (see live.h). */
#include "cmd/live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/preflight.h"
#include "cmd/testhooks.h"
#include "util/buf.h"
#include "util/xalloc.h"

void live_init(struct live *l, const char *cmd)
{
	const struct cluster_opts co = CLUSTER_OPTS_INIT;
	const struct incluster_opts io = INCLUSTER_OPTS_INIT;
	const struct source src = SOURCE_INIT;
	const struct recon_report rep = RECON_REPORT_INIT;
	const struct diags d = DIAGS_INIT;
	const struct err err = ERR_INIT;

	memset(l, 0, sizeof(*l));
	l->cmd = cmd;
	l->co = co;
	l->io = io;
	l->src = src;
	l->rep = rep;
	l->d = d;
	l->err = err;
}

int live_cluster_opt(struct live *l, int c, const char *arg)
{
	if (cluster_opt(&l->co, c, arg) < 0)
		return cmd_usage_error(l->cmd, "bad value '%s' (a duration "
					       "like 30s or 5m)", arg);
	return 0;
}

int live_output_opt(struct live *l, const char *arg)
{
	/* diff's -o also offers markdown (for --base): said so by name */
	static const char *const recon[] = { "text", "json", NULL };
	static const char *const diff[] = { "text", "markdown", "json", NULL };
	int i = cmd_format(l->cmd, arg, strcmp(l->cmd, "diff") ? recon : diff,
			   0, NULL);

	if (i < 0)
		return EXIT_USAGE;
	if (!strcmp(arg, "markdown"))
		return cmd_usage_error(l->cmd, "diff --live prints text or "
					       "json; -o markdown is for diff "
					       "--base (a pull-request "
					       "comment)");
	l->json = !strcmp(arg, "json");
	return 0;
}

/* the node-impact guard, before anything is read (a bad GPUFORM_NOW is a
 * usage error) */
static int guard_init(struct live *l)
{
	struct buf why = BUF_INIT;
	int code;

	nodeimpact_init(&l->ni, NULL);
	l->ni.allow_replacement = l->allow_replace;
	l->ni.enforce = !l->ro.dry_run;
	if (testhooks_now(&l->ni.now, &why) < 0) {
		code = cmd_usage_error(l->cmd, "%s", buf_cstr(&why));
		buf_release(&why);
		return code;
	}
	return 0;
}

/* recon_opts.keepalive: renew the run lock once a third of its duration has
 * passed, so a run longer than --lock-duration keeps it; losing it stops the
 * run before its next write */
static int keep_lock(void *ctx, struct err *err)
{
	struct live *l = ctx;

	if (!lease_renew_due(l->ic.lease.renewed, l->ic.lease.duration_s,
			     lease_now()))
		return 0;
	return lease_renew(&l->ic.lease, l->k, err);
}

/* recon_opts.source_check for --git: the inventory's sourceCommit must be in
 * the history of the commit applied now */
static int source_check(void *ctx, const char *recorded, struct err *err)
{
	struct live *l = ctx;
	struct buf warning = BUF_INIT;
	int ret = source_check_ancestor(&l->src, recorded, l->git.ref,
					l->allow_non_ancestor, &warning, err);

	if (warning.len)
		fprintf(stderr, "gpuform %s: warning: %s\n", l->cmd,
			buf_cstr(&warning));
	buf_release(&warning);
	return ret;
}

/* the desired objects, from Git or the files; the diagnostics printed */
static int load(struct live *l)
{
	int usage = 0;

	if (l->git.url ? source_load_git(&l->src, &l->git, &usage, &l->d,
					 &l->err) < 0
		       : source_load(&l->src, l->paths, l->npaths, l->templates,
				     &l->d, &l->err) < 0) {
		diags_sort(&l->d);
		report_diags(&l->d);
		return usage ? cmd_usage_error(l->cmd, "%s", err_msg(&l->err))
			     : report_err(&l->err);
	}
	diags_sort(&l->d);
	report_diags(&l->d);
	l->ro.source = l->src.desc;
	l->ro.source_commit = l->src.commit;
	if (l->git.url) {
		l->ro.source_check = source_check;
		l->ro.source_check_ctx = l;
	}
	l->ni.desired = l->src.docs;
	l->ro.guard = nodeimpact_guard;
	l->ro.guard_ctx = &l->ni;
	l->ro.held_detail = "held back: a node-replacing change to a pool with "
			    "'interruption: none' or 'checkpointed' outside "
			    "its maintenance window; "
			    "pass --allow-node-replacement to apply it";
	return 0;
}

/*
 * the cluster's identity: the EKS cluster the kubeconfig names against the
 * intent's, before any request; recon_run compares the kube-system uid
 * with the inventory's (reconcile/identity.h)
 */
static int check_identity(struct live *l)
{
	const char *eks = l->info.eks;

	if (identity_check_eks(eks, l->src.cluster, l->info.context,
			       &l->err) < 0)
		return report_err(&l->err);
	l->id.server = l->info.server;
	l->id.eks_verified = eks && *eks && l->src.cluster &&
			     !strcmp(eks, l->src.cluster);
	l->ro.identity = &l->id;
	if (!l->ro.dry_run && !l->json && cmd_verbosity >= 0)
		fprintf(stderr, "gpuform: reconciling %s on context '%s' "
				"(server %s)\n",
			l->src.cluster ? l->src.cluster : "?", l->info.context,
			l->info.server);
	return 0;
}

int live_run(struct live *l)
{
	int code, rc;

	if ((code = guard_init(l)))
		return code;
	incluster_start(&l->ic, &l->io, l->co.timeout_ms);
	l->started = 1;
	l->ic.json = l->json;
	if ((code = load(l)))
		return code;
	if (cluster_connect_info(&l->k, &l->co, &l->info, &l->err) < 0)
		return cluster_bad_context(&l->co, &l->err)
			       ? cmd_usage_error(l->cmd, "%s", err_msg(&l->err))
			       : report_err(&l->err);
	if ((code = check_identity(l)))
		return code;
	if (l->preflight && l->git.url) {
		char *name = (char *)l->git.intent;
		if ((code = preflight_gate(l->k, &name, &l->src.intent, 1,
					   l->src.cluster)))
			return code;
	} else if (l->preflight &&
		   (code = preflight_gate(l->k, l->paths, NULL, l->npaths,
					  NULL))) {
		return code;
	}
	rc = incluster_lock(&l->ic, l->k, l->src.cluster, l->ro.inventory_ns,
			    &l->err);
	if (rc != 0)
		return rc > 0 ? EXIT_OK : report_err(&l->err);
	if (l->ic.lease.obj) {
		l->ro.keepalive = keep_lock;
		l->ro.keepalive_ctx = l;
	}
	l->rc = recon_run(&l->rep, l->k, l->src.cluster, l->src.docs, &l->ro,
			  &l->err);
	if (l->ni.notes.len) {
		/* one line per held (or allowed) node-replacing change */
		for (const char *p = buf_cstr(&l->ni.notes); *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(stderr, "gpuform: %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	return -1;
}

void live_json(struct live *l)
{
	cJSON *j = nodeimpact_report_json(&l->ni, &l->rep,
					  l->rc < 0 ? err_msg(&l->err) : NULL);
	char *s;

	if (l->addons) {
		/* the add-on comparison (diff --live), before the error */
		cJSON *e = cJSON_DetachItemFromObjectCaseSensitive(j, "error");

		cJSON_AddItemToObject(j, "addons", l->addons);
		l->addons = NULL;
		if (e)
			cJSON_AddItemToObject(j, "error", e);
	}
	s = cJSON_Print(j);
	puts(s);
	cJSON_free(s);
	cJSON_Delete(j);
}

int live_code(struct live *l)
{
	int code;

	if (l->rc < 0) {
		code = report_err(&l->err);
		if (l->ni.held && l->ni.enforce)
			code = EXIT_HELD;
		return code;
	}
	if (l->ro.dry_run && recon_changed(&l->rep))
		return EXIT_DIFF;
	return EXIT_OK;
}

int live_finish(struct live *l, int code)
{
	if (!l->started) /* stopped before anything was read */
		return code;
	nodeimpact_release(&l->ni);
	code = incluster_finish(&l->ic, l->k, l->src.cluster, l->ro.inventory_ns,
				l->src.cluster ? &l->rep : NULL, l->src.commit,
				code, &l->err);
	recon_report_release(&l->rep);
	cluster_info_release(&l->info);
	free(l->id.read_uid);
	kube_free(l->k);
	source_release(&l->src);
	diags_release(&l->d);
	err_release(&l->err);
	return code;
}
