/*
 * reconcile/prom.h: the Prometheus HTTP API client of `gpuform advise`
 * (docs/advise.md): instant queries (POST /api/v1/query, form-encoded),
 * each answered by one sample or none, over http/http.c.
 *
 * Bounded: one request per query (no retries: a failed query fails the
 * run, nothing is written), a timeout per request, a cap on the answer's
 * size. A partial answer (Prometheus' "warnings") is an error, so a
 * recommendation is never made from a part of the data.
 */
#ifndef RECONCILE_PROM_H
#define RECONCILE_PROM_H

#include <stddef.h>

#include "generator/advise.h"
#include "generator/intent.h"
#include "util/err.h"

/* an answer is one sample: anything above this is not what we asked for */
#define PROM_MAX_BODY (1u << 20)

struct prom {
	const char *url;  /* "http://prometheus:9090" (a path prefix is kept) */
	long timeout_ms;  /* one request */
	long requests;    /* sent so far */
	/* a bearer token sent as "Authorization: Bearer TOKEN" (e.g. to a
	 * Prometheus behind an authenticating proxy); NULL: none. Never in a
	 * message. */
	const char *token;
};

/* prom_check_url: http:// or https://, no user info (a password in a URL
 * would be sent in clear and shown in messages). ERR_INVALID otherwise. */
int prom_check_url(const char *url, struct err *err);

/*
 * prom_parse: the answer (HTTP status, body) to query promql. 0 with
 * *present = 0 for an empty vector, 1 and *val for one sample (NaN and
 * infinities are returned as they are); -1 for an error answer (its
 * errorType and error, escaped), warnings (a partial answer), more than
 * one series, a matrix or anything that is not the API's JSON.
 */
int prom_parse(long status, const char *body, size_t len, const char *promql,
	       int *present, double *val, struct err *err);

/* prom_query: one instant query evaluated at Unix time `at` */
int prom_query(struct prom *p, const char *promql, long long at, int *present,
	       double *val, struct err *err);

/*
 * prom_observe: every observation of advise.h for each workload of in over
 * window_s seconds before `at`, sampled every step_s, into obs[0..n).
 * The first failed query stops it (-1).
 */
int prom_observe(struct prom *p, const struct intent *in, long window_s,
		 long step_s, long long at, struct advise_obs *obs,
		 struct err *err);

#endif
