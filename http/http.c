/*
 * http/http.c: HTTP for gpuform (see http.h) -- the only libcurl user.
 *
 * One easy handle per http_conn, so the TLS connection (HTTP/2 where the
 * server offers it) is reused. Every request goes through
 * http_conn_request(), which owns timeouts, the run deadline, retries,
 * credentials and the body cap. Credentials (bearer tokens, exec plugin
 * output, keys) are held here and in kubeconfig.c only: they go into a
 * header list and TLS blobs, never into messages.
 *
 * Not here: what a path or a status means to Kubernetes (kube.c).
 */
#include "http/http.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "kube/kubejson.h"
#include "util/backoff.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define HTTP_CONNECT_TIMEOUT_MS 10000L
#define HTTP_BACKOFF_BASE_MS 200L
#define HTTP_BACKOFF_CAP_MS 5000L
#define HTTP_MAX_TOKEN_FILE (256u << 10)
#define HTTP_EXEC_EARLY_S 10 /* refresh exec credentials this early */

struct http_conn {
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	struct kube_config cfg; /* a private copy */
	struct http_conn_opts opts;
	char *user_agent;
	long long deadline; /* CLOCK_MONOTONIC ms */
	long requests, retries;
	uint64_t rng;

	/* bearer token from token_file, and what the file looked like */
	char *file_token;
	struct stat token_st;
	int token_st_ok;
	/* exec plugin credentials, cached until they expire */
	struct kube_exec_cred exec;
	int exec_ok;

	/* the response being received */
	struct buf body;
	cJSON *parsed; /* body, parsed by body_broken (take_* take it) */
	int body_over;
	long retry_after; /* seconds; -1 = no Retry-After header */
	int last_retries; /* retries of the last request (for messages) */

	/* a canned connection (unit tests): no libcurl, this answers */
	http_canned_fn canned;
	void *canned_ctx;
};

/* ---- small helpers ----------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long long ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static char *dup_blob(const char *p, size_t len)
{
	char *r;

	if (!p)
		return NULL;
	r = xmalloc(st_add(len, 1));
	memcpy(r, p, len);
	r[len] = '\0';
	return r;
}

static char **dup_strv(char *const *v)
{
	size_t n = 0;
	char **r;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	r = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		r[i] = xstrdup(v[i]);
	return r;
}

static void config_copy(struct kube_config *d, const struct kube_config *s)
{
	d->context = dup_or_null(s->context);
	d->cluster = dup_or_null(s->cluster);
	d->user = xstrdup(s->user && *s->user ? s->user : "anonymous");
	d->server = dup_or_null(s->server);
	d->ca_pem = dup_blob(s->ca_pem, s->ca_len);
	d->ca_len = s->ca_len;
	d->insecure = s->insecure;
	d->token = dup_or_null(s->token);
	d->token_file = dup_or_null(s->token_file);
	d->cert_pem = dup_blob(s->cert_pem, s->cert_len);
	d->cert_len = s->cert_len;
	d->key_pem = dup_blob(s->key_pem, s->key_len);
	d->key_len = s->key_len;
	d->exec_argv = dup_strv(s->exec_argv);
	d->exec_env = dup_strv(s->exec_env);
	d->exec_api_version = dup_or_null(s->exec_api_version);
	d->namespace_ = xstrdup(s->namespace_ && *s->namespace_ ? s->namespace_
								: "default");
	d->exec_provide_cluster_info = s->exec_provide_cluster_info;
}

static void describe_ms(struct buf *out, long long ms)
{
	if (ms % 1000 == 0)
		buf_addf(out, "%lld s", ms / 1000);
	else
		buf_addf(out, "%lld ms", ms);
}

/* ---- curl callbacks ---------------------------------------------------- */

/* ---- curl callbacks ---------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct http_conn *hc = ud;
	size_t len = size * n;

	if (buf_add(&hc->body, p, len) < 0) {
		hc->body_over = 1;
		return 0; /* CURLE_WRITE_ERROR */
	}
	return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct http_conn *hc = ud;
	size_t len = size * n;

	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		hc->retry_after = -1; /* a new response (after 100 Continue) */
	} else if (len > 12 && !strncasecmp(p, "retry-after:", 12)) {
		long v = 0;
		size_t i = 12;
		int any = 0;

		while (i < len && (p[i] == ' ' || p[i] == '\t'))
			i++;
		while (i < len && isdigit((unsigned char)p[i]) && v < 1000000) {
			v = v * 10 + (p[i++] - '0');
			any = 1;
		}
		/* the HTTP-date form is not used by Kubernetes: ignored */
		if (any)
			hc->retry_after = v;
	}
	return len;
}

/* ---- credentials ------------------------------------------------------- */

/* ---- credentials ------------------------------------------------------- */

static int set_client_cert(struct http_conn *hc, const char *cert, size_t cert_len,
			   const char *key, size_t key_len)
{
	struct curl_blob c = { (void *)(uintptr_t)cert, cert_len,
			       CURL_BLOB_COPY };
	struct curl_blob kb = { (void *)(uintptr_t)key, key_len,
				CURL_BLOB_COPY };

	curl_easy_setopt(hc->curl, CURLOPT_SSLCERTTYPE, "PEM");
	curl_easy_setopt(hc->curl, CURLOPT_SSLKEYTYPE, "PEM");
	if (curl_easy_setopt(hc->curl, CURLOPT_SSLCERT_BLOB, &c) != CURLE_OK ||
	    curl_easy_setopt(hc->curl, CURLOPT_SSLKEY_BLOB, &kb) != CURLE_OK)
		return -1;
	return 0;
}

/*
 * token_from_file: re-read the token file when it changed (projected
 * service-account tokens rotate). A file that cannot be read while we still
 * hold a token keeps the old one, as client-go does.
 */
static int token_from_file(struct http_conn *hc, struct err *err)
{
	struct stat st;
	struct buf b = BUF_INIT;

	if (stat(hc->cfg.token_file, &st) < 0) {
		if (hc->file_token)
			return 0;
		return err_errno(err, "cannot read tokenFile '%s' of user '%s'",
				 hc->cfg.token_file, hc->cfg.user);
	}
	if (hc->token_st_ok && st.st_dev == hc->token_st.st_dev &&
	    st.st_ino == hc->token_st.st_ino &&
	    st.st_size == hc->token_st.st_size &&
	    st.st_mtim.tv_sec == hc->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == hc->token_st.st_mtim.tv_nsec)
		return 0;
	if (fs_read_file(&b, hc->cfg.token_file, HTTP_MAX_TOKEN_FILE, err) < 0) {
		buf_release(&b);
		if (hc->file_token)
			return 0;
		return err_wrap(err, "tokenFile of user '%s'", hc->cfg.user);
	}
	while (b.len && isspace((unsigned char)b.ptr[b.len - 1]))
		b.ptr[--b.len] = '\0';
	digest_wipe_str(hc->file_token);
	hc->file_token = buf_detach(&b, NULL);
	hc->token_st = st;
	hc->token_st_ok = 1;
	return 0;
}

/*
 * credentials: make sure what authenticates the next request is current
 * and return the bearer token (NULL: none). force re-runs the exec plugin
 * (after a 401).
 */
static int find_credentials(struct http_conn *hc, int force, const char **token,
			    struct err *err)
{
	*token = NULL;
	if (hc->cfg.exec_argv) {
		time_t now = time(NULL);

		if (force || !hc->exec_ok ||
		    (hc->exec.expires &&
		     (long long)now >= hc->exec.expires - HTTP_EXEC_EARLY_S)) {
			long long left = hc->deadline - now_ms();
			long t = KUBECONFIG_EXEC_TIMEOUT_MS;

			if (left < t)
				t = left > 0 ? (long)left : 1;
			kube_exec_cred_release(&hc->exec);
			hc->exec_ok = 0;
			if (kubeconfig_exec(&hc->exec, &hc->cfg, t, err) < 0)
				return -1;
			hc->exec_ok = 1;
			if (hc->exec.cert_pem &&
			    set_client_cert(hc, hc->exec.cert_pem,
					    hc->exec.cert_len, hc->exec.key_pem,
					    hc->exec.key_len) < 0)
				return err_set(err, ERR_AUTH,
					       "cannot use the client "
					       "certificate from exec plugin "
					       "'%s'",
					       hc->cfg.exec_argv[0]);
		}
		if (hc->exec.token) {
			*token = hc->exec.token;
			return 0;
		}
		/* a certificate only; a static token may still apply */
	}
	if (hc->cfg.token_file) {
		if (token_from_file(hc, err) < 0)
			return -1;
		*token = hc->file_token && *hc->file_token ? hc->file_token
							 : hc->cfg.token;
		return 0;
	}
	*token = hc->cfg.token && *hc->cfg.token ? hc->cfg.token : NULL;
	return 0;
}

/* header_safe: a bearer token that cannot split the Authorization header
 * (kubeconfig.c checks what it reads; this also covers rotated token files
 * and exec plugin output) */
static int header_safe(const char *token)
{
	for (const char *p = token; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static int credentials(struct http_conn *hc, int force, const char **token,
		       struct err *err)
{
	if (find_credentials(hc, force, token, err) < 0)
		return -1;
	if (!header_safe(*token)) {
		*token = NULL;
		return err_set(err, ERR_AUTH,
			       "the bearer token of user '%s' contains a "
			       "control character; it was not sent",
			       hc->cfg.user);
	}
	return 0;
}

/* ---- the request loop -------------------------------------------------- */

/* ---- the request loop -------------------------------------------------- */

static int retryable_status(long status, const char *method)
{
	/* a POST that got a 500/502/504 may have happened: not repeated */
	if (!strcmp(method, "POST"))
		return status == 429 || status == 503;
	return status == 429 || status == 500 || status == 502 ||
	       status == 503 || status == 504;
}

static int retryable_transport(CURLcode rc, const char *method)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		return 1; /* nothing was sent */
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return strcmp(method, "POST") != 0;
	default:
		return 0;
	}
}

/*
 * backoff: sleep before attempt `attempt` (1-based) -- Retry-After when
 * the server sent one, else 200 ms doubling to 5 s with jitter. Returns 0
 * (and does not sleep) when the run deadline would pass first.
 */
static int backoff(struct http_conn *hc, int attempt, long retry_after)
{
	long long d = backoff_delay_ms(HTTP_BACKOFF_BASE_MS,
				       HTTP_BACKOFF_CAP_MS, attempt, &hc->rng);
	long long left;

	if (retry_after > 0)
		d = (long long)retry_after * 1000;
	left = hc->deadline - now_ms();
	if (d >= left)
		return 0;
	sleep_ms(d);
	return 1;
}

static struct curl_slist *add_header(struct curl_slist *h, const char *line)
{
	struct curl_slist *n = curl_slist_append(h, line);

	if (!n)
		BUG("curl_slist_append failed (out of memory)");
	return n;
}

static void free_headers(struct curl_slist *h)
{
	/* the Authorization line holds the token: wipe curl's copies */
	for (struct curl_slist *p = h; p; p = p->next)
		if (p->data)
			digest_wipe(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

static void set_method(struct http_conn *hc, const char *method, const char *body,
		       size_t body_len)
{
	CURL *c = hc->curl;

	curl_easy_setopt(c, CURLOPT_NOBODY, 0L);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, (char *)NULL);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)body_len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		if (strcmp(method, "POST"))
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		if (!strcmp(method, "HEAD"))
			curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		else if (strcmp(method, "GET"))
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
}

/*
 * body_broken: a 2xx answer to anything but a POST whose body is not one
 * whole JSON document -- cut short on the way (a proxy, a connection that
 * died with a wrong Content-Length) or garbled. Such a request is repeated
 * like one that failed in transit: the methods that get here (GET, PATCH
 * as server-side apply, DELETE with a UID precondition) are idempotent. The
 * parsed body is kept for the take_* accessors.
 */
static int body_broken(struct http_conn *hc, long status, const char *method)
{
	cJSON_Delete(hc->parsed);
	hc->parsed = NULL;
	if (status < 200 || status > 299 || !hc->body.len)
		return 0;
	hc->parsed = cJSON_ParseWithLength(hc->body.ptr, hc->body.len);
	return !hc->parsed && strcmp(method, "POST") && strcmp(method, "HEAD");
}

/* transport_fail: the message for a request that never got an answer */
static void transport_fail(struct http_conn *hc, CURLcode rc,
			   const char *method, const char *path, long timeout,
			   const char *detail, struct err *err)
{
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		struct buf d = BUF_INIT;
		describe_ms(&d, timeout);
		err_set(err, ERR_HTTP,
			"%s %s: no answer from the API server at %s within %s",
			method, path, hc->cfg.server, buf_cstr(&d));
		buf_release(&d);
		return;
	}
	err_set(err, ERR_HTTP, "%s %s: cannot talk to the API server at %s: %s",
		method, path, hc->cfg.server, detail);
	if (rc == CURLE_PEER_FAILED_VERIFICATION)
		buf_addf(&err->msg,
			 " (check the certificate-authority of cluster '%s')",
			 hc->cfg.cluster ? hc->cfg.cluster : "");
}

/* a canned connection (unit tests): one answer from the responder */
static int canned_request(struct http_conn *hc, const char *method,
			  const char *path, const char *query,
			  const char *body, size_t body_len, long *status,
			  struct err *err)
{
	cJSON_Delete(hc->parsed);
	hc->parsed = NULL;
	buf_release(&hc->body);
	hc->requests++;
	hc->last_retries = 0;
	*status = 0;
	if (hc->canned(hc->canned_ctx, method, path, query, body, body_len,
		       status, &hc->body) < 0)
		return err_set(err, ERR_HTTP, "%s %s: cannot talk to the API "
					      "server at %s: connection refused",
			       method, path, hc->cfg.server);
	if (body_broken(hc, *status, method))
		return err_set(err, ERR_HTTP,
			       "%s %s: the API server at %s answered %ld with a "
			       "body that is not whole JSON (%zu bytes; cut "
			       "short on the way?)",
			       method, path, hc->cfg.server, *status,
			       hc->body.len);
	return 0;
}

int http_conn_request(struct http_conn *hc, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err)
{
	struct buf url = BUF_INIT;
	int attempt = 0, refreshed = 0, ret = -1;

	if (hc->canned)
		return canned_request(hc, method, path, query, body, body_len,
				      status, err);
	buf_addf(&url, "%s%s", hc->cfg.server, path);
	if (query && *query)
		buf_addf(&url, "?%s", query);
	for (;;) {
		struct curl_slist *h = NULL;
		struct buf auth = BUF_INIT;
		const char *token;
		long long left = hc->deadline - now_ms();
		long timeout;
		CURLcode rc;

		if (left <= 0) {
			struct buf d = BUF_INIT;
			describe_ms(&d, hc->opts.run_timeout_ms);
			err_set(err, ERR_HTTP,
				"%s %s: the run timeout of %s ran out", method,
				path, buf_cstr(&d));
			buf_release(&d);
			goto out;
		}
		if (credentials(hc, 0, &token, err) < 0)
			goto out;
		h = add_header(h, "Accept: application/json");
		h = add_header(h, "Expect:");
		if (ctype) {
			struct buf ct = BUF_INIT;
			buf_addf(&ct, "Content-Type: %s", ctype);
			h = add_header(h, buf_cstr(&ct));
			buf_release(&ct);
		}
		if (token) {
			buf_addf(&auth, "Authorization: Bearer %s", token);
			h = add_header(h, buf_cstr(&auth));
			digest_wipe_buf(&auth);
			buf_release(&auth);
		}
		timeout = hc->opts.request_timeout_ms < left
				  ? hc->opts.request_timeout_ms
				  : (long)left;
		curl_easy_setopt(hc->curl, CURLOPT_URL, buf_cstr(&url));
		curl_easy_setopt(hc->curl, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(hc->curl, CURLOPT_TIMEOUT_MS, timeout);
		curl_easy_setopt(hc->curl, CURLOPT_CONNECTTIMEOUT_MS,
				 timeout < HTTP_CONNECT_TIMEOUT_MS
					 ? timeout
					 : HTTP_CONNECT_TIMEOUT_MS);
		set_method(hc, method, body, body_len);
		cJSON_Delete(hc->parsed);
		hc->parsed = NULL;
		buf_release(&hc->body);
		buf_init_capped(&hc->body, hc->opts.max_body);
		hc->body_over = 0;
		hc->retry_after = -1;
		hc->errbuf[0] = '\0';
		hc->requests++;
		rc = curl_easy_perform(hc->curl);
		curl_easy_setopt(hc->curl, CURLOPT_HTTPHEADER,
				 (struct curl_slist *)NULL);
		free_headers(h);

		if (rc != CURLE_OK) {
			const char *detail = hc->errbuf[0]
						     ? hc->errbuf
						     : curl_easy_strerror(rc);
			if (hc->body_over) {
				err_set(err, ERR_HTTP,
					"%s %s: the response is larger than "
					"the limit of %zu bytes",
					method, path, hc->opts.max_body);
				goto out;
			}
			if (retryable_transport(rc, method) &&
			    attempt < hc->opts.max_retries &&
			    backoff(hc, attempt + 1, -1)) {
				attempt++;
				hc->retries++;
				continue;
			}
			transport_fail(hc, rc, method, path, timeout, detail,
				       err);
			if (attempt)
				buf_addf(&err->msg, " (after %d retr%s)",
					 attempt, attempt == 1 ? "y" : "ies");
			goto out;
		}
		curl_easy_getinfo(hc->curl, CURLINFO_RESPONSE_CODE, status);
		if (*status == 401 && hc->cfg.exec_argv && !refreshed) {
			/* the plugin's credential may have been revoked
			 * early: ask it once more, as client-go does */
			refreshed = 1;
			if (credentials(hc, 1, &token, err) < 0)
				goto out;
			hc->retries++;
			continue;
		}
		if (retryable_status(*status, method) &&
		    attempt < hc->opts.max_retries &&
		    backoff(hc, attempt + 1, hc->retry_after)) {
			attempt++;
			hc->retries++;
			continue;
		}
		if (body_broken(hc, *status, method)) {
			if (attempt < hc->opts.max_retries &&
			    backoff(hc, attempt + 1, -1)) {
				attempt++;
				hc->retries++;
				continue;
			}
			err_set(err, ERR_HTTP,
				"%s %s: the API server at %s answered %ld with "
				"a body that is not whole JSON (%zu bytes; cut "
				"short on the way?)",
				method, path, hc->cfg.server, *status,
				hc->body.len);
			if (attempt)
				buf_addf(&err->msg, " (after %d retr%s)",
					 attempt, attempt == 1 ? "y" : "ies");
			goto out;
		}
		hc->last_retries = attempt;
		ret = 0;
		break;
	}
out:
	buf_release(&url);
	return ret;
}

cJSON *http_conn_take_json(struct http_conn *hc)
{
	cJSON *j = hc->parsed;

	if (j) {
		hc->parsed = NULL;
		return j;
	}
	return kubejson_parse(hc->body.ptr, hc->body.len);
}

/* ---- connection life --------------------------------------------------- */

/* a loopback destination never goes through http_proxy/HTTPS_PROXY/
 * ALL_PROXY (kubectl and Go's ProxyFromEnvironment never proxy loopback):
 * libcurl would hand the proxy the request, and over plain http its
 * Authorization header, in clear */
static void no_proxy_to_loopback(CURL *c, const char *url)
{
	if (url_host_loopback(url))
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
}

/* libcurl's global state, set up once (gpuform is single-threaded) */
static int curl_ready(struct err *err)
{
	static int ready;

	if (!ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return err_set(err, ERR_HTTP,
				       "cannot initialise libcurl");
		ready = 1;
	}
	return 0;
}

int http_conn_new(struct http_conn **out, const struct kube_config *cfg,
		  const struct http_conn_opts *opts, struct err *err)
{
	static const struct http_conn_opts defaults = { 30000, 300000, 5,
							64u << 20, NULL, 0 };
	struct http_conn *hc;
	CURL *c;

	if (!cfg || !cfg->server || !*cfg->server)
		return err_set(err, ERR_INVALID,
			       "no API server URL to talk to");
	if (strncmp(cfg->server, "https://", 8) &&
	    strncmp(cfg->server, "http://", 7))
		return err_set(err, ERR_INVALID,
			       "API server '%s' is not an https:// URL",
			       cfg->server);
	if (cfg->insecure && cfg->ca_pem)
		return err_set(err, ERR_INVALID,
			       "cluster '%s' sets insecure-skip-tls-verify and a "
			       "certificate authority: specifying a root "
			       "certificates file with the insecure flag is not "
			       "allowed (kubectl refuses it too); remove one",
			       cfg->cluster ? cfg->cluster : cfg->server);
	if (!strncmp(cfg->server, "http://", 7) &&
	    ((cfg->token && *cfg->token) || cfg->token_file || cfg->key_pem ||
	     cfg->exec_argv)) {
		if (!url_host_loopback(cfg->server))
			return err_set(err, ERR_INVALID,
				       "API server %s is plain http:// and user "
				       "'%s' has credentials: refusing to send them "
				       "in clear (kubectl sends none over http); "
				       "use the https:// address",
				       cfg->server, cfg->user ? cfg->user : "?");
		if (!opts || !opts->http_loopback_credentials)
			return err_set(err, ERR_INVALID,
				       "API server %s is plain http:// and user "
				       "'%s' has credentials: refusing to send them "
				       "in clear (kubectl sends none over http); use "
				       "the https:// address, or for a loopback test "
				       "server or local proxy pass "
				       "--insecure-loopback-http",
				       cfg->server, cfg->user ? cfg->user : "?");
	}
	if (curl_ready(err) < 0)
		return -1;
	c = curl_easy_init();
	if (!c)
		return err_set(err, ERR_HTTP, "cannot create a libcurl handle");

	hc = xcalloc(1, sizeof(*hc));
	hc->curl = c;
	config_copy(&hc->cfg, cfg);
	while (strlen(hc->cfg.server) > 8 &&
	       hc->cfg.server[strlen(hc->cfg.server) - 1] == '/')
		hc->cfg.server[strlen(hc->cfg.server) - 1] = '\0';
	hc->opts = opts ? *opts : defaults;
	if (hc->opts.request_timeout_ms <= 0)
		hc->opts.request_timeout_ms = defaults.request_timeout_ms;
	if (hc->opts.run_timeout_ms <= 0)
		hc->opts.run_timeout_ms = defaults.run_timeout_ms;
	if (hc->opts.max_retries < 0)
		hc->opts.max_retries = defaults.max_retries;
	if (!hc->opts.max_body)
		hc->opts.max_body = defaults.max_body;
	hc->user_agent =
		xstrdup(hc->opts.user_agent ? hc->opts.user_agent
					   : "gpuform/" GPUFORM_VERSION);
	hc->opts.user_agent = hc->user_agent;
	hc->deadline = now_ms() + hc->opts.run_timeout_ms;
	hc->rng = (uint64_t)now_ms() * 6364136223846793005ull ^
		 (uint64_t)getpid() ^ (uint64_t)(uintptr_t)hc;
	if (!hc->rng)
		hc->rng = 88172645463325252ull;
	hc->retry_after = -1;

	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, hc->errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, hc->user_agent);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	no_proxy_to_loopback(c, hc->cfg.server);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, hc);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, hc);
	if (hc->cfg.insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (hc->cfg.ca_pem) {
		struct curl_blob b = { hc->cfg.ca_pem, hc->cfg.ca_len,
				       CURL_BLOB_COPY };
		/* only this CA, as kubectl: not the system store as well */
		curl_easy_setopt(c, CURLOPT_CAINFO, (char *)NULL);
		curl_easy_setopt(c, CURLOPT_CAPATH, (char *)NULL);
		if (curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &b) != CURLE_OK) {
			http_conn_free(hc);
			return err_set(err, ERR_HTTP,
				       "this libcurl cannot take a CA from "
				       "memory (CURLOPT_CAINFO_BLOB)");
		}
	}
	if (hc->cfg.cert_pem && hc->cfg.key_pem &&
	    set_client_cert(hc, hc->cfg.cert_pem, hc->cfg.cert_len, hc->cfg.key_pem,
			    hc->cfg.key_len) < 0) {
		http_conn_free(hc);
		return err_set(err, ERR_HTTP,
			       "this libcurl cannot take a client certificate "
			       "from memory (CURLOPT_SSLCERT_BLOB)");
	}
	*out = hc;
	return 0;
}

void http_conn_free(struct http_conn *hc)
{
	if (!hc)
		return;
	if (hc->curl)
		curl_easy_cleanup(hc->curl);
	kube_exec_cred_release(&hc->exec);
	digest_wipe_str(hc->file_token);
	kube_config_release(&hc->cfg);
	free(hc->user_agent);
	cJSON_Delete(hc->parsed);
	buf_release(&hc->body);
	free(hc);
}

int http_conn_new_canned(struct http_conn **out, const char *server,
			 http_canned_fn fn, void *ctx)
{
	struct http_conn *hc = xcalloc(1, sizeof(*hc));

	hc->cfg.server = xstrdup(server);
	hc->cfg.user = xstrdup("anonymous");
	hc->cfg.namespace_ = xstrdup("default");
	hc->canned = fn;
	hc->canned_ctx = ctx;
	hc->retry_after = -1;
	*out = hc;
	return 0;
}

const struct buf *http_conn_body(const struct http_conn *hc)
{
	return &hc->body;
}

cJSON *http_conn_take_object(struct http_conn *hc)
{
	cJSON *j = NULL;

	if (cJSON_IsObject(hc->parsed)) {
		j = hc->parsed;
		hc->parsed = NULL;
	}
	return j;
}

int http_conn_last_retries(const struct http_conn *hc)
{
	return hc->last_retries;
}

void http_conn_counts(const struct http_conn *hc, long *requests,
		      long *retries)
{
	*requests = hc->requests;
	*retries = hc->retries;
}

const char *http_conn_server(const struct http_conn *hc)
{
	return hc->cfg.server;
}

const char *http_conn_user(const struct http_conn *hc)
{
	return hc->cfg.user;
}

const char *http_conn_namespace(const struct http_conn *hc)
{
	return hc->cfg.namespace_;
}

/* ---- plain HTTP: the Prometheus Pushgateway, the AWS APIs --------------- */

static size_t discard_body(char *p, size_t size, size_t n, void *ud)
{
	struct buf *b = ud;
	size_t len = size * n;

	if (b->len < 4096)
		buf_add(b, p, len < 4096 - b->len ? len : 4096 - b->len);
	return len;
}

/* url without user info ("https://user:pw@host/" -> "https://host/") */
static void url_for_messages(struct buf *out, const char *url)
{
	const char *scheme = strstr(url, "://"), *host, *at;
	size_t hlen;

	if (!scheme) {
		buf_adds(out, url);
		return;
	}
	host = scheme + 3;
	hlen = strcspn(host, "/?#");
	at = memchr(host, '@', hlen);
	buf_add(out, url, (size_t)(host - url));
	buf_adds(out, at ? at + 1 : host);
}

int http_send(const char *method, const char *url,
		   const char *content_type, const char *body, size_t len,
		   long timeout_ms, long *status, struct err *err)
{
	struct curl_slist *h = NULL;
	struct buf resp = BUF_INIT, ct = BUF_INIT, shown = BUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c;
	CURLcode rc;
	int ret = -1;

	*status = 0;
	url_for_messages(&shown, url);
	if (curl_ready(err) < 0)
		return -1;
	if (!(c = curl_easy_init()))
		return err_set(err, ERR_HTTP, "cannot initialise libcurl");
	buf_addf(&ct, "Content-Type: %s", content_type);
	h = curl_slist_append(h, buf_cstr(&ct));
	curl_easy_setopt(c, CURLOPT_URL, url);
	no_proxy_to_loopback(c, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuform/" GPUFORM_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		err_set(err, ERR_HTTP, "%s %s: %s", method, buf_cstr(&shown),
			*errbuf ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (*status < 200 || *status > 299) {
		struct buf first = BUF_INIT;
		buf_add_first_line(&first, buf_cstr(&resp), 200);
		err_set(err, ERR_HTTP, "%s %s: HTTP %ld%s%s", method,
			buf_cstr(&shown),
			*status, first.len ? ": " : "", buf_cstr(&first));
		buf_release(&first);
		goto out;
	}
	ret = 0;
out:
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	buf_release(&resp);
	buf_release(&ct);
	buf_release(&shown);
	return ret;
}

struct capped {
	struct buf *b;
	size_t max;
	int over;
};

static size_t on_capped(char *p, size_t size, size_t n, void *ud)
{
	struct capped *c = ud;
	size_t len = size * n;

	if (c->b->len + len > c->max) {
		c->over = 1;
		return 0; /* CURLE_WRITE_ERROR */
	}
	buf_add(c->b, p, len);
	return len;
}

int http_exchange(const struct http_req *r, long *status,
		       struct buf *resp, int *timed_out, struct err *err)
{
	struct curl_slist *h = NULL;
	struct buf shown = BUF_INIT, up = BUF_INIT;
	struct capped cap = { resp, r->max_body ? r->max_body : 16u << 20, 0 };
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c;
	CURLcode rc;
	int ret = -1;

	*status = 0;
	*timed_out = 0;
	url_for_messages(&shown, r->url);
	if (curl_ready(err) < 0)
		return -1;
	if (!(c = curl_easy_init()))
		return err_set(err, ERR_HTTP, "cannot initialise libcurl");
	/* no "Expect:" line to suppress 100-continue: libcurl 7.88 would
	 * sign an empty expect header that is never sent (tests/preflight.sh
	 * caught it) */
	for (size_t i = 0; r->headers && r->headers[i]; i++)
		h = curl_slist_append(h, r->headers[i]);
	curl_easy_setopt(c, CURLOPT_URL, r->url);
	no_proxy_to_loopback(c, r->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r->method);
	if (r->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)r->len);
	}
	if (r->sigv4) {
		/* libcurl computes the canonical request, the payload hash
		 * (x-amz-content-sha256 is not sent) and the Authorization
		 * header; x-amz-* headers given here (the session token) are
		 * signed with it */
		curl_easy_setopt(c, CURLOPT_AWS_SIGV4, r->sigv4);
		buf_addf(&up, "%s:%s", r->key_id, r->secret);
		curl_easy_setopt(c, CURLOPT_USERPWD, buf_cstr(&up));
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 r->timeout_ms < HTTP_CONNECT_TIMEOUT_MS
				 ? r->timeout_ms
				 : HTTP_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuform/" GPUFORM_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_capped);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &cap);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		*timed_out = 1;
	if (cap.over) {
		err_set(err, ERR_HTTP, "%s %s: answer larger than %zu bytes",
			r->method, buf_cstr(&shown), cap.max);
		goto out;
	}
	if (rc != CURLE_OK) {
		err_set(err, ERR_HTTP, "%s %s: %s", r->method, buf_cstr(&shown),
			*errbuf ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	ret = 0;
out:
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	digest_wipe_buf(&up);
	buf_release(&up);
	buf_release(&shown);
	return ret;
}
