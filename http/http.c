/*
 * http/http.c: HTTP for gpuform (see http.h) -- the only libcurl user.
 *
 * One easy handle per http_conn, so the TLS connection (HTTP/2 where the
 * server offers it) is reused. Every request goes through
 * http_conn_request(), which owns timeouts, the run deadline, retries and
 * the body cap; credentials come from the caller's callback before every
 * attempt and go into a header list and TLS blobs, never into messages.
 *
 * Not here: what a server, a path or a body means (kube/, aws/).
 */
#include "http/http.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "util/backoff.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/url.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define HTTP_CONNECT_TIMEOUT_MS 10000L
#define HTTP_BACKOFF_BASE_MS 200L
#define HTTP_BACKOFF_CAP_MS 5000L

struct http_conn {
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	char *server;
	struct http_conn_opts opts; /* strings are private copies */
	char *user_agent, *accept, *peer, *verify_hint;
	long long deadline; /* CLOCK_MONOTONIC ms */
	long requests, retries;
	uint64_t rng;

	/* the response being received */
	struct buf body;
	int body_over;
	long retry_after; /* seconds; -1 = no Retry-After header */
	int last_retries; /* retries of the last request (for messages) */
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

static void describe_ms(struct buf *out, long long ms)
{
	if (ms % 1000 == 0)
		buf_addf(out, "%lld s", ms / 1000);
	else
		buf_addf(out, "%lld ms", ms);
}

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
		/* the HTTP-date form (not used by the API servers
		 * gpuform talks to) is ignored */
		if (any)
			hc->retry_after = v;
	}
	return len;
}

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

/* credentials: the callback's answer for the next attempt; a new client
 * certificate goes into the handle, a bearer token into *token */
static int credentials(struct http_conn *hc, int force, const char **token,
		       struct err *err)
{
	struct http_cred c = { 0 };

	*token = NULL;
	if (!hc->opts.cred)
		return 0;
	if (hc->opts.cred(hc->opts.cred_ctx, force, hc->deadline - now_ms(), &c,
			  err) < 0)
		return -1;
	if (c.cert_pem &&
	    set_client_cert(hc, c.cert_pem, c.cert_len, c.key_pem,
			    c.key_len) < 0)
		return err_set(err, ERR_AUTH,
			       "cannot use the client certificate from %s",
			       c.cert_from ? c.cert_from : "the credentials");
	*token = c.token;
	return 0;
}

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

/* body_refused: the caller's check said no (its message in *why) */
static int body_refused(struct http_conn *hc, const char *method,
			const char *path, long status, struct err *why)
{
	if (!hc->opts.check_body)
		return 0;
	return hc->opts.check_body(hc->opts.check_ctx, method, path, status,
				   &hc->body, why) < 0;
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
			"%s %s: no answer from %s at %s within %s", method,
			path, hc->peer, hc->server, buf_cstr(&d));
		buf_release(&d);
		return;
	}
	err_set(err, ERR_HTTP, "%s %s: cannot talk to %s at %s: %s", method,
		path, hc->peer, hc->server, detail);
	if (rc == CURLE_PEER_FAILED_VERIFICATION && hc->verify_hint)
		buf_adds(&err->msg, hc->verify_hint);
}

int http_conn_request(struct http_conn *hc, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err)
{
	struct buf url = BUF_INIT;
	struct err why = ERR_INIT;
	int attempt = 0, refreshed = 0, ret = -1;

	buf_addf(&url, "%s%s", hc->server, path);
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
		if (hc->accept) {
			struct buf a = BUF_INIT;
			buf_addf(&a, "Accept: %s", hc->accept);
			h = add_header(h, buf_cstr(&a));
			buf_release(&a);
		}
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
		if (*status == 401 && hc->opts.refresh_on_401 && !refreshed) {
			/* the credential may have been revoked early: ask
			 * for a fresh one, once (client-go does so for exec
			 * plugins) */
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
		if (body_refused(hc, method, path, *status, &why)) {
			if (attempt < hc->opts.max_retries &&
			    backoff(hc, attempt + 1, -1)) {
				err_release(&why);
				attempt++;
				hc->retries++;
				continue;
			}
			err_set(err, why.code, "%s", err_msg(&why));
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
	err_release(&why);
	buf_release(&url);
	return ret;
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

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int http_conn_new(struct http_conn **out, const char *server,
		  const struct http_tls *tls, const struct http_conn_opts *opts,
		  struct err *err)
{
	static const struct http_conn_opts defaults = {
		.request_timeout_ms = 30000,
		.run_timeout_ms = 300000,
		.max_retries = 5,
		.max_body = 64u << 20,
	};
	static const struct http_tls no_tls = { 0 };
	struct http_conn *hc;
	CURL *c;

	if (!server || (strncmp(server, "https://", 8) &&
			strncmp(server, "http://", 7)))
		return err_set(err, ERR_INVALID,
			       "'%s' is not an http:// or https:// URL",
			       server ? server : "");
	if (!tls)
		tls = &no_tls;
	if (curl_ready(err) < 0)
		return -1;
	c = curl_easy_init();
	if (!c)
		return err_set(err, ERR_HTTP, "cannot create a libcurl handle");

	hc = xcalloc(1, sizeof(*hc));
	hc->curl = c;
	hc->server = xstrdup(server);
	while (strlen(hc->server) > 8 &&
	       hc->server[strlen(hc->server) - 1] == '/')
		hc->server[strlen(hc->server) - 1] = '\0';
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
	hc->accept = dup_or_null(hc->opts.accept);
	hc->peer = xstrdup(hc->opts.peer ? hc->opts.peer : "the server");
	hc->verify_hint = dup_or_null(hc->opts.verify_hint);
	hc->opts.accept = hc->accept;
	hc->opts.peer = hc->peer;
	hc->opts.verify_hint = hc->verify_hint;
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
	no_proxy_to_loopback(c, hc->server);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, hc);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, hc);
	if (tls->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (tls->ca_pem) {
		struct curl_blob b = { (void *)(uintptr_t)tls->ca_pem,
				       tls->ca_len, CURL_BLOB_COPY };
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
	if (tls->cert_pem && tls->key_pem &&
	    set_client_cert(hc, tls->cert_pem, tls->cert_len, tls->key_pem,
			    tls->key_len) < 0) {
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
	free(hc->server);
	free(hc->user_agent);
	free(hc->accept);
	free(hc->peer);
	free(hc->verify_hint);
	buf_release(&hc->body);
	free(hc);
}

const struct buf *http_conn_body(const struct http_conn *hc)
{
	return &hc->body;
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
	return hc->server;
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
	struct buf shown = BUF_INIT;
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
	/* the headers as given: no "Expect:" line is added (when libcurl
	 * signed AWS requests, 7.88 signed such an empty header that it never
	 * sent; tests/preflight.sh caught it) */
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
	buf_release(&shown);
	return ret;
}
