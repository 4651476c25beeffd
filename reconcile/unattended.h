/*
 * reconcile/unattended.h: what a reconcile run does around itself when it
 * runs unattended (the in-cluster CronJob): the run lock (the Lease
 * gpuform-<cluster> in the inventory namespace, reconcile/lease.c) and the
 * report of the run — Events and status on the inventory
 * (reconcile/notify.c) and Prometheus metrics (reconcile/metrics.c), to a
 * file and a Pushgateway. Nothing here prints: what happened comes back in
 * the structs, a step that failed to report through a callback.
 */
#ifndef RECONCILE_UNATTENDED_H
#define RECONCILE_UNATTENDED_H

#include "kube/kube.h"
#include "reconcile/lease.h"
#include "reconcile/reconcile.h"
#include "util/err.h"

struct unattended_lock {
	/* in */
	const char *cluster;
	const char *inventory_ns; /* NULL: RECON_INVENTORY_NS */
	const char *identity;     /* holderIdentity, lease_identity() */
	long duration_s;          /* 0: run_timeout_ms / 1000 + 60 */
	long run_timeout_ms;
	int lock_default; /* taken because the run writes, not asked for */
	/* out */
	long duration_used;
	/* the holder's renewTime and renewTime + duration
	 * ("2026-01-31T02:30:00Z"): of the live holder (1), of the stale
	 * holder taken over (0 with lease->taken_from) */
	char renewed[32], until[32];
};

/*
 * unattended_lock: take the run lock into *l. 0: taken (l->taken_from:
 * from a stale holder); 1: another live run holds it (l->holder, u->renewed,
 * u->until), nothing was written; -1: error (an ERR_AUTH of a default lock
 * says how to run without it).
 */
int unattended_lock(struct lease *l, struct kube *k, struct unattended_lock *u,
		    struct err *err);

/* unattended_locked_json: what -o json says of a run another run's lock
 * kept out: {"cluster", "locked": {lease, namespace, holder, renewTime,
 * validUntil}} (a new object) */
struct cJSON;
struct cJSON *unattended_locked_json(const struct lease *l,
				     const struct unattended_lock *u);

/* the run as it is reported */
struct unattended_report {
	const char *cluster; /* NULL: the run failed before it knew it */
	const char *inventory_ns;
	const char *identity;
	const char *source_commit;
	const struct recon_report *rep; /* NULL: no run */
	int events;               /* Events and status on the inventory */
	const char *metrics_file; /* Prometheus text, written atomically */
	const char *pushgateway;  /* PUT URL/metrics/job/gpuform/cluster/C */
	long push_timeout_ms;
	int failed;     /* the run failed (held too) */
	int held;       /* the node-replacement guard held a change back */
	int locked_out; /* another run held the lock: nothing was done */
	const char *error; /* the run's error, when failed */
	double start;      /* lease_now() when the run started */
	/* called for each step that failed to report (what: "reporting to
	 * the cluster", "releasing", "metrics", "pushgateway") */
	void (*warn)(void *ctx, const char *what, const struct err *e);
	void *warn_ctx;
};

/*
 * unattended_finish: publish the Events and status (with events, a cluster
 * and a run that was not a dry run or locked out), release the lock (when
 * l holds it) and write the metrics (carrying the counters of the file
 * before). Every step is tried; returns how many failed (each told to
 * warn). k may be NULL (the run failed before connecting).
 */
int unattended_finish(struct lease *l, struct kube *k,
		      const struct unattended_report *r);

#endif
