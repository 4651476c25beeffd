/*
 * cmd/incluster.h: what `reconcile` does around a run when it runs
 * unattended (the in-cluster CronJob): the Lease run lock (--lock),
 * Events and status on the inventory (--events), Prometheus metrics
 * (--metrics-file, --pushgateway). Kept apart from cmd/reconcile.c so the
 * run itself stays readable.
 */
#ifndef CMD_INCLUSTER_H
#define CMD_INCLUSTER_H

#include "cmd/options.h"
#include "kube/kube.h"
#include "reconcile/lease.h"
#include "reconcile/reconcile.h"
#include "util/err.h"

struct incluster_opts {
	int lock;
	int lock_default; /* taken because the run writes, not asked for */
	long lock_duration_s; /* 0: the run timeout + 60 s */
	int events;
	const char *metrics_file;
	const char *pushgateway;
	int held_exit; /* exit code of a run that held a change back: 5 or 0 */
};
#define INCLUSTER_OPTS_INIT { 0, 0, 0, 0, NULL, NULL, 5 }

enum { OPT_LOCK = 5000, OPT_LOCK_DURATION, OPT_EVENTS, OPT_METRICS_FILE,
       OPT_PUSHGATEWAY, OPT_HELD_EXIT };
/* their entries in reconcile's option table (cmd/options.h) */
#define INCLUSTER_CMD_OPTS                                                    \
	{ "lock", 0, OPT_LOCK, CMD_ARG_NONE, NULL,                            \
	  "take the run lock first (the default for every run that writes; "          \
	  "see --no-lock; Lease gpuform-<cluster> in the "          \
	  "inventory namespace); when another live run holds it, say who "    \
	  "and exit 0 without reconciling", NULL, 0 },                        \
	{ "lock-duration", 0, OPT_LOCK_DURATION, CMD_ARG_REQUIRED, "DUR",     \
	  "how long the lock holds without renewal (default: --timeout + "    \
	  "1m); a lease older than that is taken over", NULL, 0 },            \
	{ "events", 0, OPT_EVENTS, CMD_ARG_NONE, NULL,                        \
	  "Events and a status summary on the inventory ConfigMap", NULL,     \
	  0 },                                                                \
	{ "metrics-file", 0, OPT_METRICS_FILE, CMD_ARG_REQUIRED, "FILE",      \
	  "Prometheus text format, written atomically", "@file", 0 },         \
	{ "pushgateway", 0, OPT_PUSHGATEWAY, CMD_ARG_REQUIRED, "URL",         \
	  "push the same metrics (PUT URL/metrics/job/gpuform/cluster/"       \
	  "<cluster>)", NULL, 0 },                                            \
	{ "held-exit-code", 0, OPT_HELD_EXIT, CMD_ARG_REQUIRED, "N",          \
	  "exit code of a run the node-replacement guard held back: 5 "       \
	  "(default) or 0 (the CronJob: a held change is not a failed Job; "  \
	  "needs --events, --metrics-file or --pushgateway, which record it, "\
	  "and a failure to record it exits 4)", "0 5", 0 }

/* incluster_opt: one of the options above; 0 ok, -1 bad value */
int incluster_opt(struct incluster_opts *o, int id, const char *arg);

struct incluster {
	struct incluster_opts o;
	double start;
	long run_timeout_ms;
	char *identity;
	struct lease lease;
	int locked_out; /* another run holds the lock: nothing was done */
	int json;       /* say so as JSON (reconcile -o json) */
};

void incluster_start(struct incluster *ic, const struct incluster_opts *o,
		     long run_timeout_ms);
/*
 * incluster_lock: with --lock, take the Lease. 0: go on; 1: another live run
 * holds it (printed; the caller exits 0 without reconciling); -1: error.
 */
int incluster_lock(struct incluster *ic, struct kube *k, const char *cluster,
		   const char *inv_ns, struct err *err);
/*
 * incluster_finish: release the lock, publish Events/status and metrics.
 * rep may be NULL, k may be NULL (the run failed before connecting);
 * run_err is the run's error when code says it failed. Returns the exit
 * code: `code`, or EXIT_RUNTIME when reporting itself failed; a held run
 * (EXIT_HELD) whose hold was recorded exits with --held-exit-code.
 */
int incluster_finish(struct incluster *ic, struct kube *k, const char *cluster,
		     const char *inv_ns, const struct recon_report *rep,
		     const char *source_commit, int code,
		     const struct err *run_err);

#endif
