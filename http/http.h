/*
 * http/http.h: HTTP for gpuform — the only libcurl user.
 *
 * Three ways to talk HTTP, none of which knows what Kubernetes is:
 *  - struct http_conn: one reused connection to a kubeconfig server (TLS
 *    with the cluster's CA, client certificates, bearer tokens from the
 *    config, a rotating token file or an exec plugin), per-request and
 *    per-run timeouts, retries with jittered exponential backoff on 429,
 *    5xx and transport errors (honouring Retry-After), response bodies
 *    capped. kube/kube.c builds the Kubernetes API on top of it.
 *  - http_send: one plain request with a body and no answer to read (the
 *    Prometheus Pushgateway).
 *  - http_exchange: one plain request with its answer, optionally signed
 *    with AWS SigV4 (aws/aws.c, aws/awscreds.c).
 * Bearer tokens, keys and URL user info never appear in messages, and
 * CURLOPT_VERBOSE is never set.
 */
#ifndef HTTP_HTTP_H
#define HTTP_HTTP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "kube/kubeconfig.h"
#include "util/buf.h"
#include "util/err.h"

struct http_conn;

struct http_conn_opts {
	long request_timeout_ms; /* one HTTP exchange */
	long run_timeout_ms;     /* all requests of this connection */
	int max_retries;         /* per request */
	size_t max_body;         /* per response */
	const char *user_agent;  /* NULL: "gpuform/<version>" */
	int http_loopback_credentials; /* see kube_opts */
};

/*
 * http_conn_new: refused before any request: credentials for a plain
 * http:// server that is not loopback (or is, without
 * opts->http_loopback_credentials), insecure-skip-tls-verify together
 * with a CA. Zero/negative options take the defaults of KUBE_OPTS_INIT.
 */
int http_conn_new(struct http_conn **out, const struct kube_config *cfg,
		  const struct http_conn_opts *opts, struct err *err);
void http_conn_free(struct http_conn *hc);

/*
 * http_conn_request: one logical request (path absolute, query may be
 * NULL), retried as needed. 0: *status is the final HTTP status and the
 * (capped) body can be read with the accessors below until the next
 * request. -1: transport failure, run deadline, credentials, body over the
 * cap, or a 2xx answer (not to POST) whose body is not whole JSON after
 * the retries.
 */
int http_conn_request(struct http_conn *hc, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err);
/*
 * A canned connection, for unit tests of the Kubernetes layer (kube.c)
 * without a server, in the manner of curl's test servers that replay
 * canned responses: every request is answered by fn (status and body; -1
 * is a connection that failed), with no libcurl, credentials or retries.
 */
typedef int (*http_canned_fn)(void *ctx, const char *method, const char *path,
			      const char *query, const char *body, size_t len,
			      long *status, struct buf *resp);
int http_conn_new_canned(struct http_conn **out, const char *server,
			 http_canned_fn fn, void *ctx);

/* the last response's body (NUL-terminated) */
const struct buf *http_conn_body(const struct http_conn *hc);
/* the last body as JSON (NULL: none or not JSON); the caller frees it */
cJSON *http_conn_take_json(struct http_conn *hc);
/* the last 2xx body if it parsed as a JSON object, else NULL; caller frees */
cJSON *http_conn_take_object(struct http_conn *hc);
/* retries the last request needed (for messages) */
int http_conn_last_retries(const struct http_conn *hc);
/* requests sent (retries included) and retries, over the connection's life */
void http_conn_counts(const struct http_conn *hc, long *requests,
		      long *retries);
/* what messages name: the server URL, the user, the default namespace */
const char *http_conn_server(const struct http_conn *hc);
const char *http_conn_user(const struct http_conn *hc);
const char *http_conn_namespace(const struct http_conn *hc);

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
 * `gpuform preflight`, aws/aws.c, and the credential endpoints,
 * aws/awscreds.c). No retries: the caller decides. When sigv4 is set
 * ("aws:amz:REGION:SERVICE") the request is signed by libcurl
 * (CURLOPT_AWS_SIGV4) with key_id/secret; headers are "Name: value" lines
 * (NULL-terminated, may be NULL). Returns 0 for any HTTP status (*status,
 * the body in *resp, capped at max_body); -1 for transport failures, with
 * *timed_out set when the time ran out. Secrets and user info never appear
 * in messages.
 */
struct http_req {
	const char *method, *url;
	const char *const *headers;
	const char *body;
	size_t len;
	const char *sigv4, *key_id, *secret;
	long timeout_ms;
	size_t max_body;
};
int http_exchange(const struct http_req *r, long *status, struct buf *resp,
		  int *timed_out, struct err *err);

#endif
