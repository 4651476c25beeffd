/*
 * cmd/incluster.c: the options of an unattended run and what it prints
 * (see incluster.h); the lock, Events/status and metrics themselves are
 * reconcile/unattended.c's.
 */
#include "cmd/incluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "generator/intent.h"
#include "reconcile/unattended.h"
#include "util/xalloc.h"

#define PUSH_TIMEOUT_MS 15000L

int incluster_opt(struct incluster_opts *o, int id, const char *arg)
{
	long long s;

	switch (id) {
	case OPT_LOCK:
		o->lock = 1;
		return 0;
	case OPT_LOCK_DURATION:
		s = intent_parse_duration(arg);
		if (s <= 0)
			return -1;
		o->lock_duration_s = (long)s;
		return 0;
	case OPT_EVENTS:
		o->events = 1;
		return 0;
	case OPT_METRICS_FILE:
		if (!*arg)
			return -1;
		o->metrics_file = arg;
		return 0;
	case OPT_PUSHGATEWAY:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return -1;
		o->pushgateway = arg;
		return 0;
	case OPT_HELD_EXIT:
		if (strcmp(arg, "0") && strcmp(arg, "5"))
			return -1;
		o->held_exit = arg[0] - '0';
		return 0;
	}
	return -1;
}

void incluster_start(struct incluster *ic, const struct incluster_opts *o,
		     long run_timeout_ms)
{
	struct buf id = BUF_INIT;

	memset(ic, 0, sizeof(*ic));
	ic->o = *o;
	ic->start = lease_now();
	ic->run_timeout_ms = run_timeout_ms;
	ic->lease = (struct lease)LEASE_INIT;
	lease_identity(&id);
	ic->identity = buf_detach(&id, NULL);
}

int incluster_lock(struct incluster *ic, struct kube *k, const char *cluster,
		   const char *inv_ns, struct err *err)
{
	struct unattended_lock u = { 0 };
	int rc;

	if (!ic->o.lock)
		return 0;
	u.cluster = cluster;
	u.inventory_ns = inv_ns;
	u.identity = ic->identity;
	u.duration_s = ic->o.lock_duration_s;
	u.run_timeout_ms = ic->run_timeout_ms;
	u.lock_default = ic->o.lock_default;
	rc = unattended_lock(&ic->lease, k, &u, err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		if (ic->json) {
			cJSON *j = unattended_locked_json(&ic->lease, &u);
			char *txt = cJSON_Print(j);
			puts(txt);
			cJSON_free(txt);
			cJSON_Delete(j);
		} else {
			printf("not reconciling %s: the run lock (Lease %s/%s) is "
			       "held by %s (renewed %s, valid until %s)\n",
			       cluster, ic->lease.ns, ic->lease.name,
			       ic->lease.holder, u.renewed, u.until);
		}
		ic->locked_out = 1;
		return 1;
	}
	if (ic->lease.taken_from)
		fprintf(stderr,
			"gpuform: took over the stale run lock (Lease %s/%s) "
			"from %s (last renewed %s, duration %lds)\n",
			ic->lease.ns, ic->lease.name, ic->lease.taken_from,
			u.renewed, ic->lease.holder_duration);
	if (!ic->o.lock_default) /* asked for: say so */
		fprintf(stderr, "gpuform: took the run lock (Lease %s/%s) as %s "
				"for up to %lds; released when this run ends\n",
			ic->lease.ns, ic->lease.name, ic->identity,
			u.duration_used);
	return 0;
}

static void warn(void *ctx, const char *what, const struct err *e)
{
	struct buf m = BUF_INIT;

	(void)ctx;
	diag_escape(&m, err_msg(e), 1); /* as report_err: no terminal escapes */
	fprintf(stderr, "gpuform: error: %s: %s\n", what, buf_cstr(&m));
	buf_release(&m);
}

int incluster_finish(struct incluster *ic, struct kube *k, const char *cluster,
		     const char *inv_ns, const struct recon_report *rep,
		     const char *source_commit, int code,
		     const struct err *run_err)
{
	struct unattended_report r = { 0 };
	int ret = code;

	r.cluster = cluster;
	r.inventory_ns = inv_ns;
	r.identity = ic->identity;
	r.source_commit = source_commit;
	r.rep = rep;
	r.events = ic->o.events;
	r.metrics_file = ic->o.metrics_file;
	r.pushgateway = ic->o.pushgateway;
	r.push_timeout_ms = PUSH_TIMEOUT_MS;
	r.failed = code != EXIT_OK && code != EXIT_DIFF;
	r.held = code == EXIT_HELD; /* failed too: nothing node-replacing done */
	r.locked_out = ic->locked_out;
	r.error = run_err ? err_msg(run_err) : NULL;
	r.start = ic->start;
	r.warn = warn;
	/* a failure to report fails a run that did not fail already (a held
	 * run's hold must be recorded) */
	if (unattended_finish(&ic->lease, k, &r) && (!r.failed || r.held))
		ret = EXIT_RUNTIME;
	/* recorded (nothing above failed to report it): not a failure */
	if (ret == EXIT_HELD)
		ret = ic->o.held_exit;
	lease_dispose(&ic->lease);
	free(ic->identity);
	ic->identity = NULL;
	return ret;
}
