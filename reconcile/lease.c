/*
 * reconcile/lease.c: the run lock (see lease.h).
 */
#include "reconcile/lease.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/json.h"
#include "util/time.h"
#include "util/xalloc.h"

static char lr_group[] = "coordination.k8s.io", lr_version[] = "v1",
	    lr_kind[] = "Lease", lr_resource[] = "leases";
static const struct kube_resource lease_res = {
	lr_group, lr_version, lr_kind, lr_resource, 1
};

enum lease_state lease_judge(const char *holder, double renew, double written,
			     long duration_s, const char *me, double now)
{
	if (!holder || !*holder)
		return LEASE_FREE;
	if (me && !strcmp(holder, me))
		return LEASE_MINE;
	if (renew > now + LEASE_MAX_SKEW_S)
		renew = written > 0 && written <= now + LEASE_MAX_SKEW_S ? written
									  : 0;
	if (renew <= 0 || duration_s <= 0 || renew + (double)duration_s < now)
		return LEASE_STALE;
	return LEASE_HELD;
}

int lease_renew_due(double last, long duration_s, double now)
{
	return now - last >= (double)duration_s / 3.0;
}

/* the API server's time of the lease's last write: the newest
 * metadata.managedFields[].time (0 when none) */
static double written_time(const cJSON *o)
{
	const cJSON *mf = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(o, "metadata"), "managedFields");
	const cJSON *e;
	double best = 0, t;

	cJSON_ArrayForEach(e, mf)
	{
		const char *s = json_str(e, "time");
		if (s && lease_parse_time(s, &t) == 0 && t > best)
			best = t;
	}
	return best;
}

int lease_parse_time(const char *s, double *out)
{
	long long secs;
	double frac;

	if (time_parse_rfc3339(s, &secs, &frac) < 0)
		return -1;
	*out = (double)secs + frac;
	return 0;
}

void lease_format_time(double t, struct buf *out)
{
	long long whole = (long long)t;
	long usec = (long)((t - (double)whole) * 1e6 + 0.5);
	time_t tt;
	struct tm tm;
	char s[64];

	if (usec >= 1000000) {
		whole++;
		usec -= 1000000;
	}
	tt = (time_t)whole;
	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	buf_addf(out, "%s.%06ldZ", s, usec);
}

double lease_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

void lease_identity(struct buf *out)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0 || !host[0])
		strcpy(host, "unknown-host");
	host[sizeof(host) - 1] = '\0';
	buf_addf(out, "%s/%ld", host, (long)getpid());
}

static void set_str(cJSON *o, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, v);
}

static void set_num(cJSON *o, const char *key, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddNumberToObject(o, key, v);
}

/* spec for us: holder, times, duration */
static void hold(cJSON *spec, const struct lease *l, int keep_acquire)
{
	struct buf now = BUF_INIT;

	lease_format_time(lease_now(), &now);
	set_str(spec, "holderIdentity", l->me);
	set_num(spec, "leaseDurationSeconds", (double)l->duration_s);
	if (!keep_acquire || !cJSON_GetObjectItemCaseSensitive(spec, "acquireTime"))
		set_str(spec, "acquireTime", buf_cstr(&now));
	set_str(spec, "renewTime", buf_cstr(&now));
	buf_release(&now);
}

static cJSON *new_lease(const struct lease *l)
{
	cJSON *o = cJSON_CreateObject(), *md, *lb;

	cJSON_AddStringToObject(o, "apiVersion", "coordination.k8s.io/v1");
	cJSON_AddStringToObject(o, "kind", "Lease");
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", l->name);
	cJSON_AddStringToObject(md, "namespace", l->ns);
	lb = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(lb, "app.kubernetes.io/managed-by", "gpuform");
	hold(cJSON_AddObjectToObject(o, "spec"), l, 0);
	set_num(cJSON_GetObjectItemCaseSensitive(o, "spec"), "leaseTransitions", 0);
	return o;
}

static char nr_group[] = "", nr_version[] = "v1", nr_kind[] = "Namespace",
	    nr_resource[] = "namespaces";
static const struct kube_resource ns_res = {
	nr_group, nr_version, nr_kind, nr_resource, 0
};

/* ensure_namespace: create the Namespace ns (one that exists is fine) */
static int ensure_namespace(struct kube *k, const char *ns, struct err *err)
{
	cJSON *o = cJSON_CreateObject();
	int rc;

	cJSON_AddStringToObject(o, "apiVersion", "v1");
	cJSON_AddStringToObject(o, "kind", "Namespace");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "name", ns);
	rc = kube_create(k, &ns_res, NULL, o, NULL, err);
	if (rc < 0 && err->code == ERR_CONFLICT) { /* created meanwhile */
		err_clear(err);
		rc = 0;
	}
	cJSON_Delete(o);
	return rc;
}

int lease_acquire(struct lease *l, struct kube *k, const char *ns,
		  const char *name, const char *me, long duration_s,
		  int *acquired, struct err *err)
{
	*acquired = 0;
	l->ns = xstrdup(ns);
	l->name = xstrdup(name);
	l->me = xstrdup(me);
	l->duration_s = duration_s;

	/* a race lost (409) means someone else wrote it: look again */
	for (int attempt = 0; attempt < 3; attempt++) {
		cJSON *cur = NULL, *res = NULL, *spec;
		const char *holder, *renew_s;
		double renew = 0;
		enum lease_state st;
		int rc;

		if (kube_get(k, &lease_res, ns, name, &cur, err) < 0)
			return err_wrap(err, "run lock");
		if (!cur) {
			cJSON *o = new_lease(l);
			rc = kube_create(k, &lease_res, ns, o, &res, err);
			if (rc < 0 && strstr(err_msg(err), "(404")) {
				/* the first run on a cluster: the inventory
				 * namespace does not exist yet */
				err_clear(err);
				rc = ensure_namespace(k, ns, err);
				if (rc == 0)
					rc = kube_create(k, &lease_res, ns, o, &res, err);
			}
			cJSON_Delete(o);
			goto written;
		}
		holder = json_str_at(cur, "spec", "holderIdentity");
		renew_s = json_str_at(cur, "spec", "renewTime");
		if (!renew_s)
			renew_s = json_str_at(cur, "spec", "acquireTime");
		if (!renew_s || lease_parse_time(renew_s, &renew) < 0)
			renew = 0;
		st = lease_judge(holder, renew, written_time(cur),
				 (long)json_num_at(cur, "spec",
						   "leaseDurationSeconds"),
				 me, lease_now());
		if (st == LEASE_HELD) {
			free(l->holder);
			l->holder = xstrdup(holder);
			l->holder_renew = renew;
			l->holder_duration = (long)json_num_at(
				cur, "spec", "leaseDurationSeconds");
			cJSON_Delete(cur);
			return 0;
		}
		spec = cJSON_GetObjectItemCaseSensitive(cur, "spec");
		if (!cJSON_IsObject(spec)) {
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "spec");
			spec = cJSON_AddObjectToObject(cur, "spec");
		}
		if (st != LEASE_MINE)
			set_num(spec, "leaseTransitions",
				json_num_at(cur, "spec", "leaseTransitions") +
					1);
		free(l->taken_from);
		l->taken_from = st == LEASE_STALE ? xstrdup(holder) : NULL;
		l->holder_renew = renew;
		l->holder_duration = (long)json_num_at(cur, "spec",
						       "leaseDurationSeconds");
		hold(spec, l, st == LEASE_MINE);
		/* the resourceVersion we read stays: it is the precondition */
		rc = kube_update(k, &lease_res, ns, cur, &res, err);
		cJSON_Delete(cur);
	written:
		/* created or updated: ours; a 409 means another run got
		 * there first: read it again */
		if (rc == 0) {
			l->obj = res;
			l->renewed = lease_now();
			*acquired = 1;
			return 0;
		}
		if (err->code != ERR_CONFLICT)
			return err_wrap(err, "run lock");
		err_clear(err);
	}
	return err_set(err, ERR_CONFLICT,
		       "run lock: Lease %s/%s keeps changing under us; giving up",
		       ns, name);
}

int lease_renew(struct lease *l, struct kube *k, struct err *err)
{
	cJSON *spec, *res = NULL;
	struct buf now = BUF_INIT;
	double t = lease_now();
	int rc;

	if (!l->obj)
		return err_set(err, ERR_CONFLICT,
			       "the run lock (Lease %s/%s) is no longer held",
			       l->ns, l->name);
	spec = cJSON_GetObjectItemCaseSensitive(l->obj, "spec");
	lease_format_time(t, &now);
	set_str(spec, "renewTime", buf_cstr(&now));
	buf_release(&now);
	rc = kube_update(k, &lease_res, l->ns, l->obj, &res, err);
	if (rc < 0) {
		if (err->code == ERR_CONFLICT) {
			err_release(err);
			err_set(err, ERR_CONFLICT,
				"the run lock (Lease %s/%s) was taken over by "
				"another run while this one held it; stopping",
				l->ns, l->name);
			cJSON_Delete(l->obj);
			l->obj = NULL;
		}
		return -1;
	}
	cJSON_Delete(l->obj);
	l->obj = res;
	l->renewed = t;
	return 0;
}

int lease_release(struct lease *l, struct kube *k, struct err *err)
{
	cJSON *spec;
	int rc;

	if (!l->obj)
		return 0;
	spec = cJSON_GetObjectItemCaseSensitive(l->obj, "spec");
	cJSON_DeleteItemFromObjectCaseSensitive(spec, "holderIdentity");
	rc = kube_update(k, &lease_res, l->ns, l->obj, NULL, err);
	cJSON_Delete(l->obj);
	l->obj = NULL;
	if (rc < 0 && err->code == ERR_CONFLICT) {
		/* taken over meanwhile (we ran past our duration): theirs now */
		err_clear(err);
		return 0;
	}
	return rc < 0 ? err_wrap(err, "run lock: release") : 0;
}

void lease_dispose(struct lease *l)
{
	free(l->ns);
	free(l->name);
	free(l->me);
	free(l->holder);
	free(l->taken_from);
	cJSON_Delete(l->obj);
	*l = (struct lease)LEASE_INIT;
}
