/*
 * cmd/incluster.c: run lock, Events/status and metrics around a reconcile
 * (see incluster.h).
 */
#include "cmd/incluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "generator/intent.h"
#include "reconcile/metrics.h"
#include "reconcile/notify.h"
#include "util/fs.h"
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

static void describe_time(struct buf *out, double t)
{
	struct buf s = BUF_INIT;
	lease_format_time((double)(long long)t, &s);
	buf_addf(out, "%.19sZ", buf_cstr(&s));
	buf_release(&s);
}

int incluster_lock(struct incluster *ic, struct kube *k, const char *cluster,
		   const char *inv_ns, struct err *err)
{
	char *name;
	long dur = ic->o.lock_duration_s;
	int acquired = 0, rc;

	if (!ic->o.lock)
		return 0;
	if (!dur)
		dur = ic->run_timeout_ms / 1000 + 60;
	name = xasprintf("gpuform-%s", cluster);
	rc = lease_acquire(&ic->lease, k, inv_ns ? inv_ns : RECON_INVENTORY_NS,
			   name, ic->identity, dur, &acquired, err);
	free(name);
	if (rc < 0) {
		if (err->code == ERR_AUTH && ic->o.lock_default) {
			char *m = xstrdup(err_msg(err));
			err_set(err, ERR_AUTH, "%s (every run that writes takes "
					       "the run lock; pass --no-lock for "
					       "credentials that may not write "
					       "Leases)", m);
			free(m);
		}
		return -1;
	}
	if (!acquired) {
		struct buf renewed = BUF_INIT, until = BUF_INIT;
		describe_time(&renewed, ic->lease.holder_renew);
		describe_time(&until, ic->lease.holder_renew +
					      (double)ic->lease.holder_duration);
		if (ic->json) {
			cJSON *j = cJSON_CreateObject(), *l;
			char *txt;
			cJSON_AddStringToObject(j, "cluster", cluster);
			l = cJSON_AddObjectToObject(j, "locked");
			cJSON_AddStringToObject(l, "lease", ic->lease.name);
			cJSON_AddStringToObject(l, "namespace", ic->lease.ns);
			cJSON_AddStringToObject(l, "holder", ic->lease.holder);
			cJSON_AddStringToObject(l, "renewTime", buf_cstr(&renewed));
			cJSON_AddStringToObject(l, "validUntil", buf_cstr(&until));
			txt = cJSON_Print(j);
			puts(txt);
			cJSON_free(txt);
			cJSON_Delete(j);
		} else {
			printf("not reconciling %s: the run lock (Lease %s/%s) is "
			       "held by %s (renewed %s, valid until %s)\n",
			       cluster, ic->lease.ns, ic->lease.name,
			       ic->lease.holder, buf_cstr(&renewed),
			       buf_cstr(&until));
		}
		buf_release(&renewed);
		buf_release(&until);
		ic->locked_out = 1;
		return 1;
	}
	if (ic->lease.taken_from) {
		struct buf renewed = BUF_INIT;
		describe_time(&renewed, ic->lease.holder_renew);
		fprintf(stderr,
			"gpuform: took over the stale run lock (Lease %s/%s) "
			"from %s (last renewed %s, duration %lds)\n",
			ic->lease.ns, ic->lease.name, ic->lease.taken_from,
			buf_cstr(&renewed), ic->lease.holder_duration);
		buf_release(&renewed);
	}
	if (!ic->o.lock_default) /* asked for: say so */
		fprintf(stderr, "gpuform: took the run lock (Lease %s/%s) as %s "
				"for up to %lds; released when this run ends\n",
			ic->lease.ns, ic->lease.name, ic->identity, dur);
	return 0;
}

static void warn(const char *what, const struct err *e)
{
	struct buf m = BUF_INIT;

	diag_escape(&m, err_msg(e), 1); /* as report_err: no terminal escapes */
	fprintf(stderr, "gpuform: error: %s: %s\n", what, buf_cstr(&m));
	buf_release(&m);
}

int incluster_finish(struct incluster *ic, struct kube *k, const char *cluster,
		     const char *inv_ns, const struct recon_report *rep,
		     const char *source_commit, int code,
		     const struct err *run_err)
{
	int failed = code != EXIT_OK && code != EXIT_DIFF;
	int held = code == EXIT_HELD; /* failed too: nothing node-replacing done */
	int ret = code;
	struct err e = ERR_INIT;

	if (k && cluster && ic->o.events && !ic->locked_out &&
	    !(rep && rep->dry_run)) {
		struct notify_run n = { 0 };
		n.cluster = cluster;
		n.inventory_ns = inv_ns;
		n.identity = ic->identity;
		n.rep = rep;
		n.error = failed ? (run_err && err_msg(run_err)[0]
					    ? err_msg(run_err)
					    : "the run failed")
				 : NULL;
		n.held = held;
		n.source_commit = source_commit;
		n.start = ic->start;
		n.duration_s = lease_now() - ic->start;
		if (notify_publish(k, &n, &e) < 0) {
			warn("reporting to the cluster", &e);
			if (!failed || held)
				ret = EXIT_RUNTIME;
		}
		err_clear(&e);
	}
	if (k && ic->lease.obj && lease_release(&ic->lease, k, &e) < 0) {
		warn("releasing", &e);
		if (!failed || held)
			ret = EXIT_RUNTIME;
		err_clear(&e);
	}
	if (ic->o.metrics_file || ic->o.pushgateway) {
		struct metrics_run m = { 0 };
		struct buf text = BUF_INIT, old = BUF_INIT;

		m.cluster = cluster ? cluster : "";
		m.result = ic->locked_out ? MR_LOCKED
			   : held	  ? MR_HELD
			   : failed	  ? MR_FAILED
					  : MR_SUCCESS;
		m.start = ic->start;
		m.duration_s = lease_now() - ic->start;
		if (rep)
			memcpy(m.counts, rep->counts, sizeof(m.counts));
		if (k)
			m.stats = *kube_get_stats(k);
		m.errors = (failed && !held ? 1 : 0) +
			   (rep ? (long)rep->counts[RA_FAILED] : 0);
		if (ic->o.metrics_file &&
		    fs_read_file(&old, ic->o.metrics_file, 1u << 20, NULL) == 0)
			metrics_carry(&m, buf_cstr(&old));
		metrics_format(&text, &m);
		if (ic->o.metrics_file &&
		    metrics_write_file(ic->o.metrics_file, &text, &e) < 0) {
			warn("metrics", &e);
			if (!failed || held)
				ret = EXIT_RUNTIME;
			err_clear(&e);
		}
		if (ic->o.pushgateway &&
		    metrics_push(ic->o.pushgateway, cluster, &text,
				 PUSH_TIMEOUT_MS, &e) < 0) {
			warn("pushgateway", &e);
			if (!failed || held)
				ret = EXIT_RUNTIME;
			err_clear(&e);
		}
		buf_release(&text);
		buf_release(&old);
	}
	/* recorded (nothing above failed to report it): not a failure */
	if (ret == EXIT_HELD)
		ret = ic->o.held_exit;
	lease_dispose(&ic->lease);
	free(ic->identity);
	ic->identity = NULL;
	err_release(&e);
	return ret;
}
