/*
 * reconcile/kube.c: the Kubernetes API client (see kube.h) -- the only
 * libcurl user.
 *
 * One easy handle for the client's life, so the TLS connection (HTTP/2 where
 * the server offers it) is reused. Every request goes through do_request(),
 * which owns timeouts, the run deadline, retries, credentials and the body
 * cap; the operations above it only build paths and turn HTTP statuses into
 * meanings. Credentials (bearer tokens, exec plugin output, keys) are held
 * here and in kubeconfig.c only: they go into a header list and TLS blobs,
 * never into messages, and CURLOPT_VERBOSE is never set.
 *
 * What a response body means (JSON, Status messages, discovery documents,
 * List pages, apply conflicts) is decided in kubejson.c, which has no
 * libcurl and so can be fuzzed and unit-tested without a server.
 *
 * Not here: deciding what to apply (reconcile.c), reading kubeconfig
 * (kubeconfig.c), watches.
 */
#include "util/digest.h"
#include "reconcile/kube.h"

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

#include "reconcile/kubejson.h"
#include "util/backoff.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define KUBE_CONNECT_TIMEOUT_MS 10000L
#define KUBE_BACKOFF_BASE_MS 200L
#define KUBE_BACKOFF_CAP_MS 5000L
#define KUBE_LIST_LIMIT 500
#define KUBE_MAX_TOKEN_FILE (256u << 10)
#define KUBE_EXEC_EARLY_S 10 /* refresh exec credentials this early */

enum kube_op {
	/* one object, or a discovery document */
	OP_GET,
	/* one page of a list */
	OP_LIST,
	/* server-side apply, for real */
	OP_APPLY,
	/* apply or delete with dryRun=All */
	OP_DRY_RUN,
	OP_DELETE,
	OP_CREATE,
	/* kube_request: reads, and anything that may change the cluster */
	OP_OTHER,
	OP_OTHER_WRITE,
};

/* one discovery document: what a group-version serves */
struct kube_gv {
	char *gv; /* "v1", "karpenter.sh/v1" */
	int served;
	struct kube_resource *res;
	size_t nr, alloc;
};

struct kube {
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	struct kube_config cfg; /* a private copy */
	struct kube_opts opts;
	char *user_agent;
	long long deadline; /* CLOCK_MONOTONIC ms */
	struct kube_stats stats;
	uint64_t rng;

	/* bearer token from token_file, and what the file looked like */
	char *file_token;
	struct stat token_st;
	int token_st_ok;
	/* exec plugin credentials, cached until they expire */
	struct kube_exec_cred exec;
	int exec_ok;

	struct kube_gv **gvs;
	size_t gv_nr, gv_alloc;

	/* the response being received */
	struct buf body;
	cJSON *parsed; /* body, parsed by do_request (body_json takes it) */
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

/* enc: percent-encode everything but RFC 3986 unreserved characters */
static void enc(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '.' || c == '_' ||
		    c == '~') {
			buf_addc(b, (char)c);
		} else {
			buf_addc(b, '%');
			buf_addc(b, hex[c >> 4]);
			buf_addc(b, hex[c & 15]);
		}
	}
}

static void query_add(struct buf *q, const char *key, const char *value)
{
	buf_addf(q, "%s%s=", q->len ? "&" : "", key);
	enc(q, value);
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
	struct kube *k = ud;
	size_t len = size * n;

	if (buf_add(&k->body, p, len) < 0) {
		k->body_over = 1;
		return 0; /* CURLE_WRITE_ERROR */
	}
	return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct kube *k = ud;
	size_t len = size * n;

	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		k->retry_after = -1; /* a new response (after 100 Continue) */
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
			k->retry_after = v;
	}
	return len;
}

/* ---- credentials ------------------------------------------------------- */

static int set_client_cert(struct kube *k, const char *cert, size_t cert_len,
			   const char *key, size_t key_len)
{
	struct curl_blob c = { (void *)(uintptr_t)cert, cert_len,
			       CURL_BLOB_COPY };
	struct curl_blob kb = { (void *)(uintptr_t)key, key_len,
				CURL_BLOB_COPY };

	curl_easy_setopt(k->curl, CURLOPT_SSLCERTTYPE, "PEM");
	curl_easy_setopt(k->curl, CURLOPT_SSLKEYTYPE, "PEM");
	if (curl_easy_setopt(k->curl, CURLOPT_SSLCERT_BLOB, &c) != CURLE_OK ||
	    curl_easy_setopt(k->curl, CURLOPT_SSLKEY_BLOB, &kb) != CURLE_OK)
		return -1;
	return 0;
}

/*
 * token_from_file: re-read the token file when it changed (projected
 * service-account tokens rotate). A file that cannot be read while we still
 * hold a token keeps the old one, as client-go does.
 */
static int token_from_file(struct kube *k, struct err *err)
{
	struct stat st;
	struct buf b = BUF_INIT;

	if (stat(k->cfg.token_file, &st) < 0) {
		if (k->file_token)
			return 0;
		return err_errno(err, "cannot read tokenFile '%s' of user '%s'",
				 k->cfg.token_file, k->cfg.user);
	}
	if (k->token_st_ok && st.st_dev == k->token_st.st_dev &&
	    st.st_ino == k->token_st.st_ino &&
	    st.st_size == k->token_st.st_size &&
	    st.st_mtim.tv_sec == k->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == k->token_st.st_mtim.tv_nsec)
		return 0;
	if (fs_read_file(&b, k->cfg.token_file, KUBE_MAX_TOKEN_FILE, err) < 0) {
		buf_release(&b);
		if (k->file_token)
			return 0;
		return err_wrap(err, "tokenFile of user '%s'", k->cfg.user);
	}
	while (b.len && isspace((unsigned char)b.ptr[b.len - 1]))
		b.ptr[--b.len] = '\0';
	digest_wipe_str(k->file_token);
	k->file_token = buf_detach(&b, NULL);
	k->token_st = st;
	k->token_st_ok = 1;
	return 0;
}

/*
 * credentials: make sure what authenticates the next request is current
 * and return the bearer token (NULL: none). force re-runs the exec plugin
 * (after a 401).
 */
static int find_credentials(struct kube *k, int force, const char **token,
			    struct err *err)
{
	*token = NULL;
	if (k->cfg.exec_argv) {
		time_t now = time(NULL);

		if (force || !k->exec_ok ||
		    (k->exec.expires &&
		     (long long)now >= k->exec.expires - KUBE_EXEC_EARLY_S)) {
			long long left = k->deadline - now_ms();
			long t = KUBECONFIG_EXEC_TIMEOUT_MS;

			if (left < t)
				t = left > 0 ? (long)left : 1;
			kube_exec_cred_release(&k->exec);
			k->exec_ok = 0;
			if (kubeconfig_exec(&k->exec, &k->cfg, t, err) < 0)
				return -1;
			k->exec_ok = 1;
			if (k->exec.cert_pem &&
			    set_client_cert(k, k->exec.cert_pem,
					    k->exec.cert_len, k->exec.key_pem,
					    k->exec.key_len) < 0)
				return err_set(err, ERR_AUTH,
					       "cannot use the client "
					       "certificate from exec plugin "
					       "'%s'",
					       k->cfg.exec_argv[0]);
		}
		if (k->exec.token) {
			*token = k->exec.token;
			return 0;
		}
		/* a certificate only; a static token may still apply */
	}
	if (k->cfg.token_file) {
		if (token_from_file(k, err) < 0)
			return -1;
		*token = k->file_token && *k->file_token ? k->file_token
							 : k->cfg.token;
		return 0;
	}
	*token = k->cfg.token && *k->cfg.token ? k->cfg.token : NULL;
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

static int credentials(struct kube *k, int force, const char **token,
		       struct err *err)
{
	if (find_credentials(k, force, token, err) < 0)
		return -1;
	if (!header_safe(*token)) {
		*token = NULL;
		return err_set(err, ERR_AUTH,
			       "the bearer token of user '%s' contains a "
			       "control character; it was not sent",
			       k->cfg.user);
	}
	return 0;
}

/* ---- the request loop -------------------------------------------------- */

static void count(struct kube *k, enum kube_op op)
{
	switch (op) {
	case OP_GET:
		k->stats.gets++;
		break;
	case OP_LIST:
		k->stats.lists++;
		break;
	case OP_APPLY:
		k->stats.applies++;
		k->stats.writes++;
		break;
	case OP_DRY_RUN:
		k->stats.dry_runs++;
		break;
	case OP_DELETE:
		k->stats.deletes++;
		k->stats.writes++;
		break;
	case OP_CREATE:
		k->stats.creates++;
		k->stats.writes++;
		break;
	case OP_OTHER:
		k->stats.others++;
		break;
	case OP_OTHER_WRITE:
		k->stats.others++;
		k->stats.writes++;
		break;
	}
}

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
static int backoff(struct kube *k, int attempt, long retry_after)
{
	long long d = backoff_delay_ms(KUBE_BACKOFF_BASE_MS,
				       KUBE_BACKOFF_CAP_MS, attempt, &k->rng);
	long long left;

	if (retry_after > 0)
		d = (long long)retry_after * 1000;
	left = k->deadline - now_ms();
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

static void set_method(struct kube *k, const char *method, const char *body,
		       size_t body_len)
{
	CURL *c = k->curl;

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
 * parsed body is kept for body_json().
 */
static int body_broken(struct kube *k, long status, const char *method)
{
	cJSON_Delete(k->parsed);
	k->parsed = NULL;
	if (status < 200 || status > 299 || !k->body.len)
		return 0;
	k->parsed = cJSON_ParseWithLength(k->body.ptr, k->body.len);
	return !k->parsed && strcmp(method, "POST") && strcmp(method, "HEAD");
}

/*
 * do_request: one logical request, retried as needed. On return 0,
 * *status is the final HTTP status and k->body holds the (capped) body.
 * -1: transport failure, deadline, credentials, body over the cap, or a
 * successful answer whose body is not whole JSON (after the retries).
 */
static int do_request(struct kube *k, enum kube_op op, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err)
{
	struct buf url = BUF_INIT;
	int attempt = 0, refreshed = 0, ret = -1;

	buf_addf(&url, "%s%s", k->cfg.server, path);
	if (query && *query)
		buf_addf(&url, "?%s", query);
	count(k, op);
	for (;;) {
		struct curl_slist *h = NULL;
		struct buf auth = BUF_INIT;
		const char *token;
		long long left = k->deadline - now_ms();
		long timeout;
		CURLcode rc;

		if (left <= 0) {
			struct buf d = BUF_INIT;
			describe_ms(&d, k->opts.run_timeout_ms);
			err_set(err, ERR_HTTP,
				"%s %s: the run timeout of %s ran out", method,
				path, buf_cstr(&d));
			buf_release(&d);
			goto out;
		}
		if (credentials(k, 0, &token, err) < 0)
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
		timeout = k->opts.request_timeout_ms < left
				  ? k->opts.request_timeout_ms
				  : (long)left;
		curl_easy_setopt(k->curl, CURLOPT_URL, buf_cstr(&url));
		curl_easy_setopt(k->curl, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(k->curl, CURLOPT_TIMEOUT_MS, timeout);
		curl_easy_setopt(k->curl, CURLOPT_CONNECTTIMEOUT_MS,
				 timeout < KUBE_CONNECT_TIMEOUT_MS
					 ? timeout
					 : KUBE_CONNECT_TIMEOUT_MS);
		set_method(k, method, body, body_len);
		cJSON_Delete(k->parsed);
		k->parsed = NULL;
		buf_release(&k->body);
		buf_init_capped(&k->body, k->opts.max_body);
		k->body_over = 0;
		k->retry_after = -1;
		k->errbuf[0] = '\0';
		k->stats.requests++;
		rc = curl_easy_perform(k->curl);
		curl_easy_setopt(k->curl, CURLOPT_HTTPHEADER,
				 (struct curl_slist *)NULL);
		free_headers(h);

		if (rc != CURLE_OK) {
			const char *detail = k->errbuf[0]
						     ? k->errbuf
						     : curl_easy_strerror(rc);
			if (k->body_over) {
				err_set(err, ERR_HTTP,
					"%s %s: the response is larger than "
					"the limit of %zu bytes",
					method, path, k->opts.max_body);
				goto out;
			}
			if (retryable_transport(rc, method) &&
			    attempt < k->opts.max_retries &&
			    backoff(k, attempt + 1, -1)) {
				attempt++;
				k->stats.retries++;
				continue;
			}
			if (rc == CURLE_OPERATION_TIMEDOUT) {
				struct buf d = BUF_INIT;
				describe_ms(&d, timeout);
				err_set(err, ERR_HTTP,
					"%s %s: no answer from the API server "
					"at %s within %s",
					method, path, k->cfg.server,
					buf_cstr(&d));
				buf_release(&d);
			} else {
				err_set(err, ERR_HTTP,
					"%s %s: cannot talk to the API server "
					"at %s: %s",
					method, path, k->cfg.server, detail);
				if (rc == CURLE_PEER_FAILED_VERIFICATION)
					buf_addf(&err->msg,
						 " (check the certificate-"
						 "authority of cluster '%s')",
						 k->cfg.cluster ? k->cfg.cluster
								: "");
			}
			if (attempt)
				buf_addf(&err->msg, " (after %d retr%s)",
					 attempt, attempt == 1 ? "y" : "ies");
			goto out;
		}
		curl_easy_getinfo(k->curl, CURLINFO_RESPONSE_CODE, status);
		if (*status == 401 && k->cfg.exec_argv && !refreshed) {
			/* the plugin's credential may have been revoked
			 * early: ask it once more, as client-go does */
			refreshed = 1;
			if (credentials(k, 1, &token, err) < 0)
				goto out;
			k->stats.retries++;
			continue;
		}
		if (retryable_status(*status, method) &&
		    attempt < k->opts.max_retries &&
		    backoff(k, attempt + 1, k->retry_after)) {
			attempt++;
			k->stats.retries++;
			continue;
		}
		if (body_broken(k, *status, method)) {
			if (attempt < k->opts.max_retries &&
			    backoff(k, attempt + 1, -1)) {
				attempt++;
				k->stats.retries++;
				continue;
			}
			err_set(err, ERR_HTTP,
				"%s %s: the API server at %s answered %ld with "
				"a body that is not whole JSON (%zu bytes; cut "
				"short on the way?)",
				method, path, k->cfg.server, *status,
				k->body.len);
			if (attempt)
				buf_addf(&err->msg, " (after %d retr%s)",
					 attempt, attempt == 1 ? "y" : "ies");
			goto out;
		}
		k->last_retries = attempt;
		ret = 0;
		break;
	}
out:
	buf_release(&url);
	return ret;
}

static cJSON *body_json(struct kube *k)
{
	cJSON *j = k->parsed;

	if (j) {
		k->parsed = NULL;
		return j;
	}
	return kubejson_parse(k->body.ptr, k->body.len);
}

/* http_fail: the message for a status that means failure */
static int http_fail(struct kube *k, const char *what, long status,
		     const cJSON *j, struct err *err)
{
	int ret = kubejson_http_fail(what, status, buf_cstr(&k->body), j,
				     k->cfg.server, k->cfg.user, err);

	if (err->code == ERR_HTTP && k->last_retries)
		buf_addf(&err->msg, " (after %d retr%s)", k->last_retries,
			 k->last_retries == 1 ? "y" : "ies");
	return ret;
}

/* ---- client life ------------------------------------------------------- */

/* is the host of an http(s) URL a loopback address? (127.0.0.0/8, ::1,
 * localhost) */
static int loopback_url(const char *url)
{
	const char *h = strstr(url, "://");
	size_t n;

	if (!h)
		return 0;
	h += 3;
	if (strchr(h, '@') && strchr(h, '@') < h + strcspn(h, "/"))
		h = strchr(h, '@') + 1;
	if (!strncmp(h, "[::1]", 5))
		return h[5] == '\0' || h[5] == ':' || h[5] == '/';
	n = strcspn(h, ":/");
	if (n == 9 && !strncmp(h, "localhost", 9))
		return 1;
	if (n >= 7 && !strncmp(h, "127.", 4)) {
		for (size_t i = 4; i < n; i++)
			if (!(isdigit((unsigned char)h[i]) || h[i] == '.'))
				return 0;
		return 1;
	}
	return 0;
}

int kube_new(struct kube **out, const struct kube_config *cfg,
	     const struct kube_opts *opts, struct err *err)
{
	static int curl_ready;
	static const struct kube_opts defaults = KUBE_OPTS_INIT;
	struct kube *k;
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
		if (!loopback_url(cfg->server))
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
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return err_set(err, ERR_HTTP,
				       "cannot initialise libcurl");
		curl_ready = 1;
	}
	c = curl_easy_init();
	if (!c)
		return err_set(err, ERR_HTTP, "cannot create a libcurl handle");

	k = xcalloc(1, sizeof(*k));
	k->curl = c;
	config_copy(&k->cfg, cfg);
	while (strlen(k->cfg.server) > 8 &&
	       k->cfg.server[strlen(k->cfg.server) - 1] == '/')
		k->cfg.server[strlen(k->cfg.server) - 1] = '\0';
	k->opts = opts ? *opts : defaults;
	if (k->opts.request_timeout_ms <= 0)
		k->opts.request_timeout_ms = defaults.request_timeout_ms;
	if (k->opts.run_timeout_ms <= 0)
		k->opts.run_timeout_ms = defaults.run_timeout_ms;
	if (k->opts.max_retries < 0)
		k->opts.max_retries = defaults.max_retries;
	if (!k->opts.max_body)
		k->opts.max_body = defaults.max_body;
	k->user_agent =
		xstrdup(k->opts.user_agent ? k->opts.user_agent
					   : "gpuform/" GPUFORM_VERSION);
	k->opts.user_agent = k->user_agent;
	k->deadline = now_ms() + k->opts.run_timeout_ms;
	k->rng = (uint64_t)now_ms() * 6364136223846793005ull ^
		 (uint64_t)getpid() ^ (uint64_t)(uintptr_t)k;
	if (!k->rng)
		k->rng = 88172645463325252ull;
	k->retry_after = -1;

	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, k->errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, k->user_agent);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, k);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, k);
	if (k->cfg.insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (k->cfg.ca_pem) {
		struct curl_blob b = { k->cfg.ca_pem, k->cfg.ca_len,
				       CURL_BLOB_COPY };
		/* only this CA, as kubectl: not the system store as well */
		curl_easy_setopt(c, CURLOPT_CAINFO, (char *)NULL);
		curl_easy_setopt(c, CURLOPT_CAPATH, (char *)NULL);
		if (curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &b) != CURLE_OK) {
			kube_free(k);
			return err_set(err, ERR_HTTP,
				       "this libcurl cannot take a CA from "
				       "memory (CURLOPT_CAINFO_BLOB)");
		}
	}
	if (k->cfg.cert_pem && k->cfg.key_pem &&
	    set_client_cert(k, k->cfg.cert_pem, k->cfg.cert_len, k->cfg.key_pem,
			    k->cfg.key_len) < 0) {
		kube_free(k);
		return err_set(err, ERR_HTTP,
			       "this libcurl cannot take a client certificate "
			       "from memory (CURLOPT_SSLCERT_BLOB)");
	}
	*out = k;
	return 0;
}

void kube_free(struct kube *k)
{
	if (!k)
		return;
	if (k->curl)
		curl_easy_cleanup(k->curl);
	for (size_t i = 0; i < k->gv_nr; i++) {
		struct kube_gv *g = k->gvs[i];
		for (size_t j = 0; j < g->nr; j++) {
			free(g->res[j].group);
			free(g->res[j].version);
			free(g->res[j].kind);
			free(g->res[j].resource);
		}
		free(g->res);
		free(g->gv);
		free(g);
	}
	free(k->gvs);
	kube_exec_cred_release(&k->exec);
	digest_wipe_str(k->file_token);
	kube_config_release(&k->cfg);
	free(k->user_agent);
	cJSON_Delete(k->parsed);
	buf_release(&k->body);
	free(k);
}

const struct kube_stats *kube_get_stats(const struct kube *k)
{
	return &k->stats;
}

/* ---- discovery --------------------------------------------------------- */

static const char *crd_hint(const char *group)
{
	if (!strcmp(group, "karpenter.sh") ||
	    !strcmp(group, "karpenter.k8s.aws"))
		return ": the Karpenter CRDs are not installed";
	if (!strcmp(group, "kueue.x-k8s.io"))
		return ": the Kueue CRDs are not installed";
	return "";
}

static int discover(struct kube *k, const char *group, const char *version,
		    const char *gv, struct kube_gv **out, struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT;
	struct kube_gv *g = NULL;
	cJSON *j = NULL;
	long status = 0;
	int ret = -1;

	if (*group) {
		buf_adds(&path, "/apis/");
		enc(&path, group);
		buf_addc(&path, '/');
	} else {
		buf_adds(&path, "/api/");
	}
	enc(&path, version);
	buf_addf(&what, "discovery of %s", gv);
	if (do_request(k, OP_GET, "GET", buf_cstr(&path), NULL, NULL, NULL, 0,
		       &status, err) < 0)
		goto out;
	j = body_json(k);
	if (status != 200 && status != 404) {
		http_fail(k, buf_cstr(&what), status, j, err);
		goto out;
	}
	g = xcalloc(1, sizeof(*g));
	g->gv = xstrdup(gv);
	if (status == 200) {
		if (kubejson_discovery(j, group, version, buf_cstr(&what),
				       &g->res, &g->nr, err) < 0)
			goto out;
		g->alloc = g->nr;
		g->served = 1;
	}
	GROW(k->gvs, k->gv_nr + 1, k->gv_alloc);
	k->gvs[k->gv_nr++] = g;
	*out = g;
	g = NULL;
	ret = 0;
out:
	if (g) {
		kubejson_resources_free(g->res, g->nr);
		free(g->gv);
		free(g);
	}
	cJSON_Delete(j);
	buf_release(&path);
	buf_release(&what);
	return ret;
}

int kube_resource_for(struct kube *k, const char *api_version, const char *kind,
		      const struct kube_resource **out, struct err *err)
{
	const char *slash;
	char *group, *version;
	struct kube_gv *g = NULL;
	int ret = -1;

	if (!api_version || !*api_version || !kind || !*kind)
		return err_set(err, ERR_INVALID,
			       "an object needs apiVersion and kind");
	slash = strchr(api_version, '/');
	if (slash) {
		group = xstrndup(api_version, (size_t)(slash - api_version));
		version = xstrdup(slash + 1);
	} else {
		group = xstrdup("");
		version = xstrdup(api_version);
	}
	if ((slash && !*group) || !*version || strchr(version, '/')) {
		err_set(err, ERR_INVALID, "apiVersion '%s' is not valid",
			api_version);
		goto out;
	}
	for (size_t i = 0; i < k->gv_nr && !g; i++)
		if (!strcmp(k->gvs[i]->gv, api_version))
			g = k->gvs[i];
	if (!g && discover(k, group, version, api_version, &g, err) < 0)
		goto out;
	for (size_t i = 0; i < g->nr; i++) {
		if (!strcmp(g->res[i].kind, kind)) {
			*out = &g->res[i];
			ret = 0;
			goto out;
		}
	}
	err_set(err, ERR_NOTFOUND,
		"%s %s is not served by the API server at %s%s", api_version,
		kind, k->cfg.server, crd_hint(group));
out:
	free(group);
	free(version);
	return ret;
}

/* ---- objects ----------------------------------------------------------- */

/* res_path: /api[s]/.../[namespaces/<ns>/]<resource>[/<name>] */
static void res_path(struct buf *p, const struct kube_resource *r,
		     const char *ns, const char *name)
{
	if (*r->group) {
		buf_adds(p, "/apis/");
		enc(p, r->group);
		buf_addc(p, '/');
	} else {
		buf_adds(p, "/api/");
	}
	enc(p, r->version);
	if (r->namespaced && ns) {
		buf_adds(p, "/namespaces/");
		enc(p, ns);
	}
	buf_addc(p, '/');
	enc(p, r->resource);
	if (name) {
		buf_addc(p, '/');
		enc(p, name);
	}
}

/* the namespace a namespaced request uses; NULL for cluster scope */
static const char *req_ns(const struct kube *k, const struct kube_resource *r,
			  const char *ns)
{
	if (!r->namespaced)
		return NULL;
	return ns && *ns ? ns : k->cfg.namespace_;
}

/* label: "Kind/ns/name" or "Kind/name", for messages */
static void label(struct buf *b, const struct kube_resource *r, const char *ns,
		  const char *name)
{
	buf_addf(b, "%s/", r->kind);
	if (ns)
		buf_addf(b, "%s/", ns);
	buf_adds(b, name ? name : "(generated name)");
}

static int parse_object(struct kube *k, const char *what, cJSON **out,
			struct err *err)
{
	/* do_request already parsed a 2xx body (body_broken): take it */
	if (cJSON_IsObject(k->parsed)) {
		*out = k->parsed;
		k->parsed = NULL;
		return 0;
	}
	return kubejson_object(k->body.ptr, k->body.len, what, out, err);
}

int kube_get(struct kube *k, const struct kube_resource *r, const char *ns,
	     const char *name, cJSON **out, struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT;
	cJSON *j = NULL;
	long status = 0;
	int ret = -1;

	ns = req_ns(k, r, ns);
	res_path(&path, r, ns, name);
	buf_adds(&what, "get ");
	label(&what, r, ns, name);
	if (do_request(k, OP_GET, "GET", buf_cstr(&path), NULL, NULL, NULL, 0,
		       &status, err) < 0)
		goto out;
	if (status == 404) {
		*out = NULL;
		ret = 0;
	} else if (status == 200) {
		ret = parse_object(k, buf_cstr(&what), out, err);
	} else {
		j = body_json(k);
		http_fail(k, buf_cstr(&what), status, j, err);
	}
out:
	cJSON_Delete(j);
	buf_release(&path);
	buf_release(&what);
	return ret;
}

int kube_list(struct kube *k, const struct kube_resource *r, const char *ns,
	      const char *label_selector, cJSON **items_out, struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT, q = BUF_INIT;
	cJSON *items = cJSON_CreateArray(), *j = NULL;
	char *cont = NULL;
	int ret = -1;

	if (!r->namespaced || !ns || !*ns)
		ns = NULL;
	res_path(&path, r, ns, NULL);
	buf_addf(&what, "list %s", r->resource);
	if (ns)
		buf_addf(&what, " in namespace %s", ns);
	if (label_selector && *label_selector)
		buf_addf(&what, " with labels '%s'", label_selector);
	do {
		long status = 0;
		char lim[16];

		buf_reset(&q);
		snprintf(lim, sizeof(lim), "%d", KUBE_LIST_LIMIT);
		query_add(&q, "limit", lim);
		if (label_selector && *label_selector)
			query_add(&q, "labelSelector", label_selector);
		if (cont)
			query_add(&q, "continue", cont);
		if (do_request(k, OP_LIST, "GET", buf_cstr(&path), buf_cstr(&q),
			       NULL, NULL, 0, &status, err) < 0)
			goto out;
		cJSON_Delete(j);
		j = body_json(k);
		if (status != 200) {
			http_fail(k, buf_cstr(&what), status, j, err);
			goto out;
		}
		free(cont);
		if (kubejson_list_page(j, r, items, &cont, buf_cstr(&what),
				       err) < 0)
			goto out;
	} while (cont);
	*items_out = items;
	items = NULL;
	ret = 0;
out:
	free(cont);
	cJSON_Delete(j);
	cJSON_Delete(items);
	buf_release(&path);
	buf_release(&what);
	buf_release(&q);
	return ret;
}

static const char *meta_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(obj, "metadata"), key);
	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

int kube_apply(struct kube *k, const struct kube_resource *r, const cJSON *obj,
	       const char *field_manager, int force, int dry_run, cJSON **out,
	       struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT, q = BUF_INIT;
	const char *name = meta_str(obj, "name");
	const char *ns = req_ns(k, r, meta_str(obj, "namespace"));
	char *body = NULL;
	cJSON *j = NULL;
	long status = 0;
	int ret = -1;

	if (!name)
		return err_set(err, ERR_INVALID,
			       "%s without metadata.name "
			       "cannot be applied",
			       r->kind);
	if (!field_manager || !*field_manager)
		return err_set(err, ERR_INVALID, "apply needs a field manager");
	res_path(&path, r, ns, name);
	buf_addf(&what, "apply%s ", dry_run ? " (dry run)" : "");
	label(&what, r, ns, name);
	query_add(&q, "fieldManager", field_manager);
	if (force)
		query_add(&q, "force", "true");
	if (dry_run)
		query_add(&q, "dryRun", "All");
	body = cJSON_PrintUnformatted(obj);
	if (!body)
		BUG("cJSON_PrintUnformatted failed");
	/* JSON is YAML: the apply content type takes it as is */
	if (do_request(k, dry_run ? OP_DRY_RUN : OP_APPLY, "PATCH",
		       buf_cstr(&path), buf_cstr(&q),
		       "application/apply-patch+yaml", body, strlen(body),
		       &status, err) < 0)
		goto out;
	if (status == 200 || status == 201) {
		if (out)
			ret = parse_object(k, buf_cstr(&what), out, err);
		else
			ret = 0;
		goto out;
	}
	j = body_json(k);
	if (status == 409)
		kubejson_conflict(r->kind, name, buf_cstr(&k->body), j, err);
	else
		http_fail(k, buf_cstr(&what), status, j, err);
out:
	cJSON_Delete(j);
	cJSON_free(body);
	buf_release(&path);
	buf_release(&what);
	buf_release(&q);
	return ret;
}

int kube_delete(struct kube *k, const struct kube_resource *r, const char *ns,
		const char *name, const char *uid, const char *rv, int dry_run,
		int *deleted, struct err *err)
{
	cJSON *pre = NULL;
	struct buf path = BUF_INIT, what = BUF_INIT, m = BUF_INIT;
	cJSON *opts = cJSON_CreateObject(), *j = NULL;
	char *body = NULL;
	long status = 0;
	int ret = -1;

	ns = req_ns(k, r, ns);
	res_path(&path, r, ns, name);
	buf_addf(&what, "delete%s ", dry_run ? " (dry run)" : "");
	label(&what, r, ns, name);
	cJSON_AddStringToObject(opts, "kind", "DeleteOptions");
	cJSON_AddStringToObject(opts, "apiVersion", "v1");
	cJSON_AddStringToObject(opts, "propagationPolicy", "Background");
	/* with a body, the API server reads DeleteOptions from it and
	 * ignores ?dryRun= (seen on 1.20): dry run goes in both */
	if (dry_run)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(opts, "dryRun"),
				     cJSON_CreateString("All"));
	if ((uid && *uid) || (rv && *rv))
		pre = cJSON_AddObjectToObject(opts, "preconditions");
	if (uid && *uid)
		cJSON_AddStringToObject(pre, "uid", uid);
	if (rv && *rv)
		cJSON_AddStringToObject(pre, "resourceVersion", rv);
	body = cJSON_PrintUnformatted(opts);
	if (!body)
		BUG("cJSON_PrintUnformatted failed");
	if (do_request(k, dry_run ? OP_DRY_RUN : OP_DELETE, "DELETE",
		       buf_cstr(&path), dry_run ? "dryRun=All" : NULL,
		       "application/json", body, strlen(body), &status,
		       err) < 0)
		goto out;
	if (status == 200 || status == 202 || status == 404) {
		if (deleted)
			*deleted = status != 404;
		ret = 0;
		goto out;
	}
	j = body_json(k);
	if (status == 409) {
		/* a precondition that failed: the object was recreated
		 * (UID) or changed since it was read (resourceVersion) */
		kubejson_message(&m, buf_cstr(&k->body), j);
		err_set(err, ERR_CONFLICT, "%s: %s", buf_cstr(&what),
			m.len ? buf_cstr(&m) : "conflict (409)");
	} else {
		http_fail(k, buf_cstr(&what), status, j, err);
	}
out:
	cJSON_Delete(j);
	cJSON_Delete(opts);
	cJSON_free(body);
	buf_release(&path);
	buf_release(&what);
	buf_release(&m);
	return ret;
}

/*
 * send_object: one write of obj as the request body, and the answer read the
 * same way for every write: 200/201 (202 for a create) is success, with the
 * object in *out when asked; 404 is success when absent_ok; 409 is
 * ERR_CONFLICT with the server's message or `conflict`; anything else as
 * http_fail says. `what` names the write in messages.
 */
static int send_object(struct kube *k, enum kube_op op, const char *method,
		       const char *path, const char *query, const char *ctype,
		       const cJSON *obj, const char *what, int absent_ok,
		       const char *conflict, cJSON **out, struct err *err)
{
	struct buf m = BUF_INIT;
	char *body = cJSON_PrintUnformatted(obj);
	cJSON *j = NULL;
	long status = 0;
	int ret = -1;

	if (out)
		*out = NULL;
	if (!body)
		BUG("cJSON_PrintUnformatted failed");
	if (do_request(k, op, method, path, query, ctype, body, strlen(body),
		       &status, err) < 0)
		goto out;
	if (status == 200 || status == 201 || (op == OP_CREATE && status == 202)) {
		ret = out ? parse_object(k, what, out, err) : 0;
		goto out;
	}
	if (status == 404 && absent_ok) {
		ret = 0;
		goto out;
	}
	j = body_json(k);
	if (status == 409) {
		kubejson_message(&m, buf_cstr(&k->body), j);
		err_set(err, ERR_CONFLICT, "%s: %s", what,
			m.len ? buf_cstr(&m) : conflict);
	} else {
		http_fail(k, what, status, j, err);
	}
out:
	cJSON_Delete(j);
	cJSON_free(body);
	buf_release(&m);
	return ret;
}

int kube_create(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT;
	const char *name = meta_str(obj, "name");
	int ret;

	ns = req_ns(k, r,
		    meta_str(obj, "namespace") ? meta_str(obj, "namespace")
					       : ns);
	res_path(&path, r, ns, NULL);
	buf_adds(&what, "create ");
	label(&what, r, ns, name);
	ret = send_object(k, OP_CREATE, "POST", buf_cstr(&path), NULL,
			  "application/json", obj, buf_cstr(&what), 0,
			  "already exists (409)", out, err);
	buf_release(&path);
	buf_release(&what);
	return ret;
}

int kube_request(struct kube *k, const char *method, const char *path,
		 const char *query, const char *content_type, const char *body,
		 size_t body_len, long *status, cJSON **body_out,
		 struct err *err)
{
	enum kube_op op = OP_OTHER_WRITE;

	if (!method || !path || path[0] != '/')
		return err_set(err, ERR_INVALID,
			       "kube_request needs a method and an absolute "
			       "path");
	if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
		op = OP_OTHER;
	else if (query && strstr(query, "dryRun=All"))
		op = OP_DRY_RUN;
	if (do_request(k, op, method, path, query, content_type, body, body_len,
		       status, err) < 0)
		return -1;
	if (body_out) {
		cJSON *j = body_json(k);
		*body_out = j;
	}
	return 0;
}

/* ---- update, merge patch (Leases, status) ------------------------------ */

/* one write of a whole object (PUT) or of a JSON merge patch (PATCH) */
static int write_object(struct kube *k, const struct kube_resource *r,
			const char *ns, const char *name, const char *method,
			const char *ctype, const char *field_manager,
			const cJSON *obj, int absent_ok, cJSON **out,
			struct err *err)
{
	struct buf path = BUF_INIT, what = BUF_INIT, q = BUF_INIT;
	int ret;

	ns = req_ns(k, r, ns);
	res_path(&path, r, ns, name);
	buf_addf(&what, "%s ", strcmp(method, "PUT") ? "patch" : "update");
	label(&what, r, ns, name);
	if (field_manager)
		query_add(&q, "fieldManager", field_manager);
	ret = send_object(k, OP_OTHER_WRITE, method, buf_cstr(&path),
			  q.len ? buf_cstr(&q) : NULL, ctype, obj,
			  buf_cstr(&what), absent_ok,
			  "changed meanwhile (409)", out, err);
	buf_release(&path);
	buf_release(&what);
	buf_release(&q);
	return ret;
}

int kube_update(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err)
{
	return write_object(k, r, ns, meta_str(obj, "name"), "PUT",
			    "application/json", NULL, obj, 0, out, err);
}

int kube_merge_patch(struct kube *k, const struct kube_resource *r,
		     const char *ns, const char *name, const cJSON *patch,
		     const char *field_manager, cJSON **out, struct err *err)
{
	return write_object(k, r, ns, name, "PATCH",
			    "application/merge-patch+json", field_manager,
			    patch, 1, out, err);
}

/* ---- plain HTTP: the Prometheus Pushgateway ---------------------------- */

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

int kube_http_send(const char *method, const char *url,
		   const char *content_type, const char *body, size_t len,
		   long timeout_ms, long *status, struct err *err)
{
	static int ready;
	struct curl_slist *h = NULL;
	struct buf resp = BUF_INIT, ct = BUF_INIT, shown = BUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c;
	CURLcode rc;
	int ret = -1;

	*status = 0;
	url_for_messages(&shown, url);
	if (!ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return err_set(err, ERR_HTTP, "cannot initialise libcurl");
		ready = 1;
	}
	if (!(c = curl_easy_init()))
		return err_set(err, ERR_HTTP, "cannot initialise libcurl");
	buf_addf(&ct, "Content-Type: %s", content_type);
	h = curl_slist_append(h, buf_cstr(&ct));
	curl_easy_setopt(c, CURLOPT_URL, url);
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

int kube_http_exchange(const struct kube_http_req *r, long *status,
		       struct buf *resp, int *timed_out, struct err *err)
{
	static int ready;
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
	if (!ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return err_set(err, ERR_HTTP, "cannot initialise libcurl");
		ready = 1;
	}
	if (!(c = curl_easy_init()))
		return err_set(err, ERR_HTTP, "cannot initialise libcurl");
	/* no "Expect:" line to suppress 100-continue: libcurl 7.88 would
	 * sign an empty expect header that is never sent (tests/preflight.sh
	 * caught it) */
	for (size_t i = 0; r->headers && r->headers[i]; i++)
		h = curl_slist_append(h, r->headers[i]);
	curl_easy_setopt(c, CURLOPT_URL, r->url);
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
			 r->timeout_ms < KUBE_CONNECT_TIMEOUT_MS
				 ? r->timeout_ms
				 : KUBE_CONNECT_TIMEOUT_MS);
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
