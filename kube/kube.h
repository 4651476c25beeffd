/*
 * kube/kube.h: a small Kubernetes API client, as a table of
 * operations (struct kube_ops, in the manner of git's transport vtable):
 * the REST implementation (kube_new: kube.c over the connection of
 * kube/kubeconn.h, on http/http.h) and the in-memory fake of the unit tests
 * (tests/unit/kube_fake.c) sit behind the same functions, so reconcile,
 * lease and notify run unchanged against either.
 *
 * The REST client: one reused connection; per-request and per-run
 * timeouts; retries with jittered exponential backoff on 429, 5xx and
 * transport errors (honouring Retry-After); response bodies capped (all in
 * http/http.c; credentials and the JSON body check in kube/kubeconn.c). HTTP outcomes are turned into meanings (here, kube.c):
 *   404 on get/delete  -> absent (return 0, *out = NULL)
 *   401, 403           -> ERR_AUTH; the message names the user and, for 403,
 *                         the API server's own sentence (verb, resource)
 *   409 on apply       -> ERR_CONFLICT listing each field and its manager
 *   kind not served    -> ERR_NOTFOUND "... the Karpenter CRDs are not installed"
 *   anything else      -> ERR_HTTP with status and the server's message
 * Bearer tokens and keys never appear in messages.
 */
#ifndef KUBE_KUBE_H
#define KUBE_KUBE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "kube/kubeconfig.h"
#include "kube/kubejson.h"
#include "util/buf.h"
#include "util/err.h"

struct kube;

struct kube_opts {
	long request_timeout_ms; /* one HTTP exchange (default 30000) */
	long run_timeout_ms;     /* all requests of this client together,
				  * retries included (default 300000) */
	int max_retries;         /* per request (default 5) */
	size_t max_body;         /* per response (default 64 MiB) */
	const char *user_agent;  /* default "gpuform/<version>" */
	/* send credentials over plain http:// to a loopback server (tests,
	 * a local proxy); any other http:// server with credentials is
	 * refused */
	int http_loopback_credentials;
};
#define KUBE_OPTS_INIT { 30000, 300000, 5, 64u << 20, NULL, 0 }

struct kube_stats {
	long requests; /* HTTP requests sent, retries included */
	long gets, lists, applies, dry_runs, deletes, creates, others;
	long writes;   /* requests that could change the cluster (applies that
			* are not dry runs, deletes, creates, updates) */
	long retries;
};

/*
 * kube_new: the client keeps a copy of what it needs from cfg. Refused
 * before any request: credentials (token, token file, client key, exec
 * plugin) for a plain http:// server — kubectl sends none there; gpuform
 * sends them only to a loopback server and only with
 * opts->http_loopback_credentials — and insecure-skip-tls-verify together
 * with a CA, which kubectl refuses too.
 */
int kube_new(struct kube **out, const struct kube_config *cfg,
	     const struct kube_opts *opts, struct err *err);
void kube_free(struct kube *k);

/*
 * The connection the REST client sends its requests over: what kube_new
 * makes of a kube_config (kube/kubeconn.h, over http/http.h), or the unit
 * suite's canned answers (tests/unit/test_kube.c).
 *   request: one logical request (path absolute, query may be NULL),
 *     retried as the transport sees fit; 0 with the final status in
 *     *status, -1 with err set when no answer came.
 *   body: the last answer's body (NUL-terminated), until the next request.
 *   take_parsed (may be NULL): the last body as JSON when the transport
 *     parsed it already (2xx answers), handed over; else NULL.
 *   last_retries (may be NULL): retries the last request needed.
 *   counts: requests sent (retries included) and retries, over its life.
 *   free (may be NULL): called by kube_free.
 *   server, user, namespace_: what messages name, and the default
 *     namespace; valid until free.
 */
struct kube_transport {
	void *ctx;
	int (*request)(void *ctx, const char *method, const char *path,
		       const char *query, const char *ctype, const char *body,
		       size_t body_len, long *status, struct err *err);
	const struct buf *(*body)(void *ctx);
	cJSON *(*take_parsed)(void *ctx);
	int (*last_retries)(void *ctx);
	void (*counts)(void *ctx, long *requests, long *retries);
	void (*free)(void *ctx);
	const char *server, *user, *namespace_;
};

/* kube_new_on: the REST client over a transport (a copy is kept; its ctx
 * is freed with the client) */
int kube_new_on(struct kube **out, const struct kube_transport *t);
const struct kube_stats *kube_get_stats(const struct kube *k);

/*
 * kube_resource_for: look up apiVersion ("karpenter.sh/v1", "v1") + kind.
 * One discovery request per group-version per client. The result is valid
 * until kube_free(). ERR_NOTFOUND when the API server does not serve it,
 * with a message that says which CRDs are missing (Karpenter, Kueue).
 */
int kube_resource_for(struct kube *k, const char *api_version,
		      const char *kind, const struct kube_resource **out,
		      struct err *err);

/* kube_get: *out = the object, or NULL when it does not exist (404). */
int kube_get(struct kube *k, const struct kube_resource *r, const char *ns,
	     const char *name, cJSON **out, struct err *err);

/*
 * kube_list: every object of r (in namespace ns, or all namespaces/cluster
 * scope when ns is NULL) matching label_selector (may be NULL), following
 * `continue` pages. *items_out is a new cJSON array of objects, each with
 * apiVersion and kind filled in.
 */
int kube_list(struct kube *k, const struct kube_resource *r, const char *ns,
	      const char *label_selector, cJSON **items_out, struct err *err);

/*
 * kube_apply: server-side apply of obj (PATCH, application/apply-patch+yaml,
 * fieldManager=field_manager, force when asked, dryRun=All when dry_run).
 * *out (may be NULL) receives the object the server returned.
 */
int kube_apply(struct kube *k, const struct kube_resource *r,
	       const cJSON *obj, const char *field_manager, int force,
	       int dry_run, cJSON **out, struct err *err);

/*
 * kube_delete: delete with propagationPolicy=Background and, when uid / rv
 * are not NULL, UID and resourceVersion preconditions (a recreated object
 * of the same name, or one changed since it was read — a label removed,
 * say — is never deleted). Absent (404) is success; *deleted (may be NULL)
 * says whether this call deleted it. A failed precondition (409) is
 * ERR_CONFLICT.
 */
int kube_delete(struct kube *k, const struct kube_resource *r, const char *ns,
		const char *name, const char *uid, const char *rv, int dry_run,
		int *deleted, struct err *err);

/*
 * kube_create: POST obj (for Events, Leases, TokenRequests...); *out may be
 * NULL. 409 AlreadyExists is ERR_CONFLICT.
 */
int kube_create(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err);

/*
 * kube_update: PUT obj (Leases). obj's metadata.resourceVersion, when set,
 * is a precondition: an object changed meanwhile is ERR_CONFLICT (409).
 */
int kube_update(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err);

/*
 * kube_merge_patch: a JSON merge patch (RFC 7386) of ns/name by
 * field_manager (may be NULL). An absent object is not an error: returns 0
 * with *out (may be NULL) = NULL.
 */
int kube_merge_patch(struct kube *k, const struct kube_resource *r,
		     const char *ns, const char *name, const cJSON *patch,
		     const char *field_manager, cJSON **out, struct err *err);

/*
 * kube_request: a raw request for what the helpers above do not cover.
 * path is absolute ("/api/v1/namespaces"); query may be NULL. Returns 0 for
 * any HTTP status (in *status); -1 only for transport failures after the
 * retries. *body_out (may be NULL) is the parsed JSON body or NULL.
 */
int kube_request(struct kube *k, const char *method, const char *path,
		 const char *query, const char *content_type,
		 const char *body, size_t body_len, long *status,
		 cJSON **body_out, struct err *err);

/*
 * ---- implementing a client -------------------------------------------------
 * A client is a struct kube (first member of the implementation's own
 * struct) whose ops say how each operation is done. The kube_* functions
 * above check their arguments, then call these; an implementation keeps
 * k->stats as the REST client does (one request per GET, LIST page,
 * apply, delete, create; writes counted apart). Every operation returns 0
 * or -1 with err set, and means what the kube_* function of the same name
 * documents (404 on get: *out = NULL; 409: ERR_CONFLICT; ...).
 */
struct kube_ops {
	const char *name; /* "rest", "fake" */
	int (*resource_for)(struct kube *k, const char *api_version,
			    const char *kind, const struct kube_resource **out,
			    struct err *err);
	int (*get)(struct kube *k, const struct kube_resource *r,
		   const char *ns, const char *name, cJSON **out,
		   struct err *err);
	int (*list)(struct kube *k, const struct kube_resource *r,
		    const char *ns, const char *label_selector,
		    cJSON **items_out, struct err *err);
	int (*apply)(struct kube *k, const struct kube_resource *r,
		     const cJSON *obj, const char *field_manager, int force,
		     int dry_run, cJSON **out, struct err *err);
	int (*delete_)(struct kube *k, const struct kube_resource *r,
		       const char *ns, const char *name, const char *uid,
		       const char *rv, int dry_run, int *deleted,
		       struct err *err);
	int (*create)(struct kube *k, const struct kube_resource *r,
		      const char *ns, const cJSON *obj, cJSON **out,
		      struct err *err);
	int (*update)(struct kube *k, const struct kube_resource *r,
		      const char *ns, const cJSON *obj, cJSON **out,
		      struct err *err);
	int (*merge_patch)(struct kube *k, const struct kube_resource *r,
			   const char *ns, const char *name,
			   const cJSON *patch, const char *field_manager,
			   cJSON **out, struct err *err);
	/* may be NULL: kube_request then fails with ERR_INVALID */
	int (*request)(struct kube *k, const char *method, const char *path,
		       const char *query, const char *content_type,
		       const char *body, size_t body_len, long *status,
		       cJSON **body_out, struct err *err);
	void (*free)(struct kube *k);
};

struct kube {
	const struct kube_ops *ops;
	struct kube_stats stats;
};

#endif
