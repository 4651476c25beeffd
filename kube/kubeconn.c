/*
 * kube/kubeconn.c: a kube_config as a connection for the REST client (see
 * kubeconn.h): the checks before the first request, the credentials
 * callback and the body check of http/http.h's connection, and the
 * transport functions kube.c calls. Credentials (bearer tokens, exec
 * plugin output, keys) are held here and in kubeconfig.c only: they go to
 * http/ for the header and TLS blobs, never into messages.
 */
#include "kube/kubeconn.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "http/http.h"
#include "kube/kubeexec.h"
#include "kube/kubejson.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/xalloc.h"

#define KUBECONN_MAX_TOKEN_FILE (256u << 10)
#define KUBECONN_EXEC_EARLY_S 10 /* refresh exec credentials this early */

struct kubeconn {
	struct http_conn *hc;
	struct kube_config cfg; /* a private copy */
	char *exec_from;        /* "exec plugin 'aws'", for messages */

	/* bearer token from token_file, and what the file looked like */
	char *file_token;
	struct stat token_st;
	int token_st_ok;
	/* exec plugin credentials, cached until they expire */
	struct kube_exec_cred exec;
	int exec_ok;

	cJSON *parsed; /* the last body, parsed by the body check */
};

/* ---- a private copy of the configuration -------------------------------- */

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

/* ---- credentials ------------------------------------------------------- */

/*
 * token_from_file: re-read the token file when it changed (projected
 * service-account tokens rotate). A file that cannot be read while we still
 * hold a token keeps the old one, as client-go does.
 */
static int token_from_file(struct kubeconn *hc, struct err *err)
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
	if (fs_read_file(&b, hc->cfg.token_file, KUBECONN_MAX_TOKEN_FILE, err) < 0) {
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
 * find_credentials: make sure what authenticates the next request is
 * current and set the bearer token (NULL: none) and, when the exec plugin
 * just gave one, the client certificate. force re-runs the exec plugin
 * (after a 401). left is what remains of the run timeout.
 */
static int find_credentials(struct kubeconn *hc, int force, long long left,
			    struct http_cred *out, struct err *err)
{
	const char **token = &out->token;

	*token = NULL;
	if (hc->cfg.exec_argv) {
		time_t now = time(NULL);

		if (force || !hc->exec_ok ||
		    (hc->exec.expires &&
		     (long long)now >= hc->exec.expires - KUBECONN_EXEC_EARLY_S)) {
			long t = KUBECONFIG_EXEC_TIMEOUT_MS;

			if (left < t)
				t = left > 0 ? (long)left : 1;
			kube_exec_cred_release(&hc->exec);
			hc->exec_ok = 0;
			if (kubeconfig_exec(&hc->exec, &hc->cfg, t, err) < 0)
				return -1;
			hc->exec_ok = 1;
			if (hc->exec.cert_pem) {
				out->cert_pem = hc->exec.cert_pem;
				out->cert_len = hc->exec.cert_len;
				out->key_pem = hc->exec.key_pem;
				out->key_len = hc->exec.key_len;
				out->cert_from = hc->exec_from;
			}
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

/* the credential callback of the HTTP connection */
static int credentials(void *ctx, int force, long long left,
		       struct http_cred *out, struct err *err)
{
	struct kubeconn *hc = ctx;

	if (find_credentials(hc, force, left, out, err) < 0)
		return -1;
	if (!header_safe(out->token)) {
		out->token = NULL;
		return err_set(err, ERR_AUTH,
			       "the bearer token of user '%s' contains a "
			       "control character; it was not sent",
			       hc->cfg.user);
	}
	return 0;
}

/* ---- the body check ------------------------------------------------------ */

/* the body check of the HTTP connection: a 2xx answer (not to POST or HEAD)
 * that is not one whole JSON document is repeated (kubejson_body) */
static int check_body(void *ctx, const char *method, const char *path,
		      long status, const struct buf *body, struct err *err)
{
	struct kubeconn *kc = ctx;

	cJSON_Delete(kc->parsed);
	kc->parsed = NULL;
	return kubejson_body(method, path, kc->cfg.server, status, body->ptr,
			     body->len, &kc->parsed, err);
}

/* ---- the transport ------------------------------------------------------- */

static int conn_request(void *ctx, const char *method, const char *path,
			const char *query, const char *ctype, const char *body,
			size_t body_len, long *status, struct err *err)
{
	struct kubeconn *kc = ctx;

	cJSON_Delete(kc->parsed);
	kc->parsed = NULL;
	return http_conn_request(kc->hc, method, path, query, ctype, body,
				 body_len, status, err);
}

static const struct buf *conn_body(void *ctx)
{
	return http_conn_body(((struct kubeconn *)ctx)->hc);
}

static cJSON *conn_take_parsed(void *ctx)
{
	struct kubeconn *kc = ctx;
	cJSON *j = kc->parsed;

	kc->parsed = NULL;
	return j;
}

static int conn_last_retries(void *ctx)
{
	return http_conn_last_retries(((struct kubeconn *)ctx)->hc);
}

static void conn_counts(void *ctx, long *requests, long *retries)
{
	http_conn_counts(((struct kubeconn *)ctx)->hc, requests, retries);
}

static void conn_free(void *ctx)
{
	struct kubeconn *kc = ctx;

	if (!kc)
		return;
	http_conn_free(kc->hc);
	kube_exec_cred_release(&kc->exec);
	digest_wipe_str(kc->file_token);
	kube_config_release(&kc->cfg);
	free(kc->exec_from);
	cJSON_Delete(kc->parsed);
	free(kc);
}

/* ---- connection life --------------------------------------------------- */

/* refused: what kubectl refuses, before any request */
static int refused(const struct kube_config *cfg, const struct kube_opts *o,
		   struct err *err)
{
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
		if (!o->http_loopback_credentials)
			return err_set(err, ERR_INVALID,
				       "API server %s is plain http:// and user "
				       "'%s' has credentials: refusing to send them "
				       "in clear (kubectl sends none over http); use "
				       "the https:// address, or for a loopback test "
				       "server or local proxy pass "
				       "--insecure-loopback-http",
				       cfg->server, cfg->user ? cfg->user : "?");
	}
	return 0;
}

int kubeconn_new(struct kube_transport *out, const struct kube_config *cfg,
		 const struct kube_opts *opts, struct err *err)
{
	static const struct kube_opts defaults = KUBE_OPTS_INIT;
	const struct kube_opts *o = opts ? opts : &defaults;
	struct http_conn_opts ho = {
		.request_timeout_ms = o->request_timeout_ms,
		.run_timeout_ms = o->run_timeout_ms,
		.max_retries = o->max_retries,
		.max_body = o->max_body,
		.user_agent = o->user_agent,
		.accept = "application/json",
		.peer = "the API server",
		.cred = credentials,
		.check_body = check_body,
	};
	struct http_tls tls = { 0 };
	struct kubeconn *kc;
	char *hint;

	if (refused(cfg, o, err) < 0)
		return -1;
	kc = xcalloc(1, sizeof(*kc));
	config_copy(&kc->cfg, cfg);
	if (kc->cfg.exec_argv)
		kc->exec_from = xasprintf("exec plugin '%s'", kc->cfg.exec_argv[0]);
	tls.ca_pem = kc->cfg.ca_pem;
	tls.ca_len = kc->cfg.ca_len;
	tls.insecure = kc->cfg.insecure;
	tls.cert_pem = kc->cfg.cert_pem;
	tls.cert_len = kc->cfg.cert_len;
	tls.key_pem = kc->cfg.key_pem;
	tls.key_len = kc->cfg.key_len;
	hint = xasprintf(" (check the certificate-authority of cluster '%s')",
			 kc->cfg.cluster ? kc->cfg.cluster : "");
	ho.verify_hint = hint;
	ho.cred_ctx = kc;
	ho.check_ctx = kc;
	ho.refresh_on_401 = kc->cfg.exec_argv != NULL;
	if (http_conn_new(&kc->hc, kc->cfg.server, &tls, &ho, err) < 0) {
		free(hint);
		conn_free(kc);
		return -1;
	}
	free(hint);
	/* messages name the server as the connection has it (no trailing /) */
	free(kc->cfg.server);
	kc->cfg.server = xstrdup(http_conn_server(kc->hc));
	out->ctx = kc;
	out->request = conn_request;
	out->body = conn_body;
	out->take_parsed = conn_take_parsed;
	out->last_retries = conn_last_retries;
	out->counts = conn_counts;
	out->free = conn_free;
	out->server = kc->cfg.server;
	out->user = kc->cfg.user;
	out->namespace_ = kc->cfg.namespace_;
	return 0;
}
