/*
 * reconcile/lease.h: a run lock on a coordination.k8s.io/v1 Lease.
 *
 * One Lease per cluster (gpuform-<cluster> in gpuform-system). Acquiring:
 * create it, or take it over with an update whose resourceVersion is the one
 * just read (two runs racing: the API server lets exactly one write win).
 * A lease is free when nobody holds it (released), ours when we hold it, and
 * stale when renewTime + leaseDurationSeconds lies in the past (the holder
 * died without releasing): free and stale leases are taken over. Releasing
 * clears holderIdentity (again with the resourceVersion precondition, so a
 * lease someone else took over is left alone).
 */
#ifndef RECONCILE_LEASE_H
#define RECONCILE_LEASE_H

#include <cjson/cJSON.h>

#include "kube/kube.h"
#include "util/buf.h"
#include "util/err.h"

enum lease_state { LEASE_FREE, LEASE_MINE, LEASE_STALE, LEASE_HELD };

/* how far ahead of this run's clock a renewTime may lie (clock skew) before
 * the holder's word is not taken for it */
#define LEASE_MAX_SKEW_S 60

/*
 * lease_judge: the state of a lease held by `holder` (NULL or "" = nobody),
 * last renewed at `renew` (Unix seconds, the holder's clock; <= 0 unknown)
 * for duration_s seconds, last written at `written` (the API server's
 * clock: the newest managedFields time; <= 0 unknown), seen by `me` at
 * `now`. Unknown renewal or a duration <= 0 is stale (nothing says the
 * holder is alive). A renewTime more than LEASE_MAX_SKEW_S ahead of now is
 * not believed: the lease is judged from when the API server saw it written
 * (as client-go's leader election judges by when it observed the record
 * change), so a far-future renewTime cannot hold the lock for years.
 */
enum lease_state lease_judge(const char *holder, double renew, double written,
			     long duration_s, const char *me, double now);

/* lease_renew_due: a holder that renewed at `last` renews again once a
 * third of the duration has passed (client-go renews well before expiry) */
int lease_renew_due(double last, long duration_s, double now);

/* lease_parse_time: RFC 3339 ("2026-11-30T02:03:31.123456Z", offsets too)
 * to Unix seconds; -1 when it is not one. */
int lease_parse_time(const char *s, double *out);
/* lease_format_time: a MicroTime, "2026-11-30T02:03:31.123456Z" */
void lease_format_time(double t, struct buf *out);
/* lease_now: the current time in Unix seconds (microsecond resolution) */
double lease_now(void);
/* lease_identity: "<hostname>/<pid>" (in a pod the hostname is the pod) */
void lease_identity(struct buf *out);

struct lease {
	char *ns, *name, *me;
	long duration_s;
	cJSON *obj;    /* the lease as we last wrote it, while we hold it */
	char *holder;  /* who holds it when we could not take it */
	char *taken_from; /* the stale holder we took it over from */
	double holder_renew; /* their renewTime */
	long holder_duration;
	double renewed; /* when we last wrote it (our clock) */
};
#define LEASE_INIT { NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0 }

/*
 * lease_acquire: *acquired = 1 when we hold the lock now, 0 when another
 * live run holds it (l->holder, l->holder_renew, l->holder_duration say
 * who and until when). -1 for API errors (for example 403 when the role
 * lacks Lease access).
 */
int lease_acquire(struct lease *l, struct kube *k, const char *ns,
		  const char *name, const char *me, long duration_s,
		  int *acquired, struct err *err);
/*
 * lease_renew: while we hold it, a new renewTime (an update with the
 * resourceVersion we last wrote: if someone took the lease over, ERR_CONFLICT
 * "the run lock ... was taken over" and we no longer hold it).
 */
int lease_renew(struct lease *l, struct kube *k, struct err *err);
/* lease_release: clear holderIdentity if we still hold it. */
int lease_release(struct lease *l, struct kube *k, struct err *err);
void lease_dispose(struct lease *l);

#endif
