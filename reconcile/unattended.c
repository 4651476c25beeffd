/* reconcile/unattended.c: the run lock and the report of an unattended
 * run (see unattended.h). */
#include "reconcile/unattended.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "reconcile/metrics.h"
#include "reconcile/notify.h"
#include "util/fs.h"
#include "util/xalloc.h"

static void describe_time(char *out, size_t size, double t)
{
	struct buf s = BUF_INIT;

	lease_format_time((double)(long long)t, &s);
	snprintf(out, size, "%.19sZ", buf_cstr(&s));
	buf_release(&s);
}

int unattended_lock(struct lease *l, struct kube *k, struct unattended_lock *u,
		    struct err *err)
{
	char *name;
	long dur = u->duration_s;
	int acquired = 0, rc;

	if (!dur)
		dur = u->run_timeout_ms / 1000 + 60;
	u->duration_used = dur;
	name = xasprintf("gpuform-%s", u->cluster);
	rc = lease_acquire(l, k, u->inventory_ns ? u->inventory_ns
						 : RECON_INVENTORY_NS,
			   name, u->identity, dur, &acquired, err);
	free(name);
	if (rc < 0) {
		if (err->code == ERR_AUTH && u->lock_default) {
			char *m = xstrdup(err_msg(err));
			err_set(err, ERR_AUTH, "%s (every run that writes takes "
					       "the run lock; pass --no-lock for "
					       "credentials that may not write "
					       "Leases)", m);
			free(m);
		}
		return -1;
	}
	describe_time(u->renewed, sizeof(u->renewed), l->holder_renew);
	describe_time(u->until, sizeof(u->until),
		      l->holder_renew + (double)l->holder_duration);
	return acquired ? 0 : 1;
}

cJSON *unattended_locked_json(const struct lease *l,
			      const struct unattended_lock *u)
{
	cJSON *j = cJSON_CreateObject(), *o;

	cJSON_AddStringToObject(j, "cluster", u->cluster);
	o = cJSON_AddObjectToObject(j, "locked");
	cJSON_AddStringToObject(o, "lease", l->name);
	cJSON_AddStringToObject(o, "namespace", l->ns);
	cJSON_AddStringToObject(o, "holder", l->holder);
	cJSON_AddStringToObject(o, "renewTime", u->renewed);
	cJSON_AddStringToObject(o, "validUntil", u->until);
	return j;
}

static int warn(const struct unattended_report *r, const char *what,
		struct err *e)
{
	if (r->warn)
		r->warn(r->warn_ctx, what, e);
	err_clear(e);
	return 1;
}

static int publish(struct kube *k, const struct unattended_report *r,
		   struct err *e)
{
	struct notify_run n = { 0 };

	n.cluster = r->cluster;
	n.inventory_ns = r->inventory_ns;
	n.identity = r->identity;
	n.rep = r->rep;
	n.error = r->failed ? (r->error && *r->error ? r->error
						     : "the run failed")
			    : NULL;
	n.held = r->held;
	n.source_commit = r->source_commit;
	n.start = r->start;
	n.duration_s = lease_now() - r->start;
	return notify_publish(k, &n, e) < 0 ? warn(r, "reporting to the "
						      "cluster", e)
					    : 0;
}

static int metrics(struct kube *k, const struct unattended_report *r,
		   struct err *e)
{
	struct metrics_run m = { 0 };
	struct buf text = BUF_INIT, old = BUF_INIT;
	int failed = 0;

	m.cluster = r->cluster ? r->cluster : "";
	m.result = r->locked_out ? MR_LOCKED
		   : r->held	 ? MR_HELD
		   : r->failed	 ? MR_FAILED
				 : MR_SUCCESS;
	m.start = r->start;
	m.duration_s = lease_now() - r->start;
	if (r->rep)
		memcpy(m.counts, r->rep->counts, sizeof(m.counts));
	if (k)
		m.stats = *kube_get_stats(k);
	m.errors = (r->failed && !r->held ? 1 : 0) +
		   (r->rep ? (long)r->rep->counts[RA_FAILED] : 0);
	if (r->metrics_file &&
	    fs_read_file(&old, r->metrics_file, 1u << 20, NULL) == 0)
		metrics_carry(&m, buf_cstr(&old));
	metrics_format(&text, &m);
	if (r->metrics_file &&
	    metrics_write_file(r->metrics_file, &text, e) < 0)
		failed += warn(r, "metrics", e);
	if (r->pushgateway &&
	    metrics_push(r->pushgateway, r->cluster, &text, r->push_timeout_ms,
			 e) < 0)
		failed += warn(r, "pushgateway", e);
	buf_release(&text);
	buf_release(&old);
	return failed;
}

int unattended_finish(struct lease *l, struct kube *k,
		      const struct unattended_report *r)
{
	struct err e = ERR_INIT;
	int failed = 0;

	if (k && r->cluster && r->events && !r->locked_out &&
	    !(r->rep && r->rep->dry_run))
		failed += publish(k, r, &e);
	if (k && l->obj && lease_release(l, k, &e) < 0)
		failed += warn(r, "releasing", &e);
	if (r->metrics_file || r->pushgateway)
		failed += metrics(k, r, &e);
	err_release(&e);
	return failed;
}
