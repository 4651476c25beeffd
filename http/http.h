/*
 * http/http.h: HTTP for gpuform -- the only libcurl user.
 *
 * Generic: it takes a server URL, TLS material and a credential callback
 * and returns bytes (status and body); it knows neither Kubernetes nor AWS
 * (kube/ and aws/ sit above it). Three ways to talk HTTP:
 *  - struct http_conn: one reused connection to one server (TLS with the
 *    given CA, client certificate, a bearer token from the credential
 *    callback before every attempt), per-request and per-run timeouts,
 *    retries with jittered exponential backoff on 429, 5xx and transport
 *    errors (honouring Retry-After), and on answers the caller's body
 *    check refuses; response bodies capped. kube/kubeconn.c builds the
 *    Kubernetes connection on top of it.
 *  - http_send: one plain request with a body and no answer to read (the
 *    Prometheus Pushgateway).
 *  - http_exchange: one plain request with its answer (aws/ signs its
 *    requests itself: the signature is header lines like any other).
 * Bearer tokens, keys and URL user info never appear in messages, and
 * CURLOPT_VERBOSE is never set.
 */
#ifndef HTTP_HTTP_H
#define HTTP_HTTP_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

struct http_conn;

/* TLS material (PEM, in memory; copied by http_conn_new) */
struct http_tls {
	const char *ca_pem; /* the only CA trusted; NULL: the system store */
	size_t ca_len;
	int insecure;       /* no verification of the server's certificate */
	const char *cert_pem, *key_pem; /* client certificate, or NULL */
	size_t cert_len, key_len;
};

/*
 * What authenticates the next attempt, from the credential callback:
 * token is the bearer token (NULL: none; it must stay valid until the
 * callback is called again); cert_pem/key_pem, when set, a client
 * certificate that replaces the current one from now on (cert_from names
 * where it came from, for the message when libcurl cannot use it).
 */
struct http_cred {
	const char *token;
	const char *cert_pem, *key_pem;
	size_t cert_len, key_len;
	const char *cert_from;
};

/*
 * The credential callback: called before every attempt, with force set
 * once after a 401 when opts->refresh_on_401 is set (the credential may
 * have been revoked early: ask for a fresh one). left_ms is what remains
 * of the run timeout. 0, or -1 with err set (the request fails with it).
 */
typedef int (*http_cred_fn)(void *ctx, int force, long long left_ms,
			    struct http_cred *out, struct err *err);

/*
 * The body check: called on every answer that is not retried for its
 * status. 0: accepted. -1 with err set: refused, and the request is
 * repeated like one that failed in transit (the caller promises the
 * methods that get a refusal are idempotent); after the last retry the
 * request fails with err.
 */
typedef int (*http_body_fn)(void *ctx, const char *method, const char *path,
			    long status, const struct buf *body,
			    struct err *err);

struct http_conn_opts {
	long request_timeout_ms; /* one HTTP exchange */
	long run_timeout_ms;     /* all requests of this connection */
	int max_retries;         /* per request */
	size_t max_body;         /* per response */
	const char *user_agent;  /* NULL: "gpuform/<version>" */
	const char *accept;      /* the Accept header, or NULL */
	const char *peer;        /* in messages: "cannot talk to PEER at URL" */
	const char *verify_hint; /* appended to a certificate verification
				  * failure, or NULL */
	http_cred_fn cred;       /* NULL: no credentials */
	void *cred_ctx;
	int refresh_on_401;
	http_body_fn check_body; /* NULL: every body is accepted */
	void *check_ctx;
};

/*
 * http_conn_new: server is an http:// or https:// base URL (trailing
 * slashes dropped); tls may be NULL. Zero/negative numbers in opts take
 * the defaults (30 s, 300 s, 5 retries, 64 MiB). Whether credentials may
 * go to this server is the caller's decision.
 */
int http_conn_new(struct http_conn **out, const char *server,
		  const struct http_tls *tls, const struct http_conn_opts *opts,
		  struct err *err);
void http_conn_free(struct http_conn *hc);

/*
 * http_conn_request: one logical request (path absolute, query may be
 * NULL), retried as needed. 0: *status is the final HTTP status and the
 * (capped) body can be read with the accessors below until the next
 * request. -1: transport failure, run deadline, credentials, body over the
 * cap, or a body the check refused after the retries.
 */
int http_conn_request(struct http_conn *hc, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err);

/* the last response's body (NUL-terminated) */
const struct buf *http_conn_body(const struct http_conn *hc);
/* retries the last request needed (for messages) */
int http_conn_last_retries(const struct http_conn *hc);
/* requests sent (retries included) and retries, over the connection's life */
void http_conn_counts(const struct http_conn *hc, long *requests,
		      long *retries);
/* the server URL (what messages name) */
const char *http_conn_server(const struct http_conn *hc);

/*
 * http_send: one plain HTTP(S) request (the Prometheus Pushgateway):
 * method, url, body; no retries. A status outside 2xx is ERR_HTTP with the
 * status and the first line of the answer; user info in url never appears
 * in messages.
 */
int http_send(const char *method, const char *url, const char *content_type,
	      const char *body, size_t len, long timeout_ms, long *status,
	      struct err *err);

/*
 * http_exchange: one plain HTTP request with its answer (the AWS APIs of
 * `gpuform preflight`, aws/aws.c, the credential endpoints,
 * aws/awscreds.c, and Prometheus, reconcile/prom.c). No retries: the
 * caller decides. headers are "Name: value" lines (NULL-terminated, may be
 * NULL), sent as given (a Host line replaces libcurl's). Returns 0 for any
 * HTTP status (*status, the body in *resp, capped at max_body); -1 for
 * transport failures, with *timed_out set when the time ran out. User
 * info never appears in messages.
 */
struct http_req {
	const char *method, *url;
	const char *const *headers;
	const char *body;
	size_t len;
	long timeout_ms;
	size_t max_body;
};
int http_exchange(const struct http_req *r, long *status, struct buf *resp,
		  int *timed_out, struct err *err);

#endif
