/*
 * kube/kube.c: the Kubernetes API client (see kube.h): the kube_*
 * functions every caller uses, and the REST implementation of struct
 * kube_ops over a struct kube_transport: kube/kubeconn.c's HTTP
 * connection (http/http.h owns libcurl, timeouts, retries and the body
 * cap; kubeconn.c the credentials and the body check).
 *
 * The operations here only build paths and queries and turn HTTP statuses
 * into meanings. What a response body means (JSON, Status messages,
 * discovery documents, List pages, apply conflicts) is decided in
 * kubejson.c, which can be fuzzed and unit-tested without a server.
 *
 * Not here: deciding what to apply (reconcile.c), reading kubeconfig
 * (kubeconfig.c), the connection (kubeconn.c, http/http.c), watches.
 */
#include "kube/kube.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kubeconn.h"
#include "kube/kubejson.h"
#include "generator/targets.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define KUBE_LIST_LIMIT 500

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

/* the REST client: struct kube first, so a struct kube * is one of these */
struct rest {
	struct kube base;
	struct kube_transport t;
	cJSON *parsed; /* the last body, parsed (body_json takes it) */
	struct kube_gv **gvs; /* discovery, cached for the client's life */
	size_t gv_nr, gv_alloc;
};

static struct rest *rest_of(struct kube *k)
{
	return (struct rest *)k;
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

/* ---- requests ---------------------------------------------------------- */

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

/* do_request: one logical request over the connection, counted */
static int do_request(struct kube *k, enum kube_op op, const char *method,
		      const char *path, const char *query, const char *ctype,
		      const char *body, size_t body_len, long *status,
		      struct err *err)
{
	struct rest *rs = rest_of(k);
	const struct buf *b;
	int rc;

	cJSON_Delete(rs->parsed);
	rs->parsed = NULL;
	count(k, op);
	rc = rs->t.request(rs->t.ctx, method, path, query, ctype, body,
			   body_len, status, err);
	rs->t.counts(rs->t.ctx, &k->stats.requests, &k->stats.retries);
	if (rc < 0)
		return -1;
	if (rs->t.take_parsed)
		rs->parsed = rs->t.take_parsed(rs->t.ctx);
	if (rs->parsed)
		return 0;
	/* a transport that did not check the body (kubeconn.c does) */
	b = rs->t.body(rs->t.ctx);
	return kubejson_body(method, path, rs->t.server, *status, b->ptr,
			     b->len, &rs->parsed, err);
}

static const char *body_text(struct kube *k)
{
	return buf_cstr(rest_of(k)->t.body(rest_of(k)->t.ctx));
}

/* body_json: the last body as JSON (NULL: none or not JSON); the caller
 * frees it */
static cJSON *body_json(struct kube *k)
{
	struct rest *rs = rest_of(k);
	cJSON *j = rs->parsed;
	const struct buf *b;

	if (j) {
		rs->parsed = NULL;
		return j;
	}
	b = rs->t.body(rs->t.ctx);
	return kubejson_parse(b->ptr, b->len);
}

/* body_object: the last 2xx body if it parsed as a JSON object, else
 * NULL; the caller frees it */
static cJSON *body_object(struct kube *k)
{
	struct rest *rs = rest_of(k);
	cJSON *j = NULL;

	if (cJSON_IsObject(rs->parsed)) {
		j = rs->parsed;
		rs->parsed = NULL;
	}
	return j;
}

/* http_fail: the message for a status that means failure */
static int http_fail(struct kube *k, const char *what, long status,
		     const cJSON *j, struct err *err)
{
	struct rest *rs = rest_of(k);
	int retries = rs->t.last_retries ? rs->t.last_retries(rs->t.ctx) : 0;
	int ret = kubejson_http_fail(what, status, body_text(k), j,
				     rs->t.server, rs->t.user, err);

	if (err->code == ERR_HTTP && retries)
		buf_addf(&err->msg, " (after %d retr%s)", retries,
			 retries == 1 ? "y" : "ies");
	return ret;
}

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
	GROW(rest_of(k)->gvs, rest_of(k)->gv_nr + 1, rest_of(k)->gv_alloc);
	rest_of(k)->gvs[rest_of(k)->gv_nr++] = g;
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

/* served_kind: is `kind` served in group/version? (discovery, cached);
 * *group_served is set when the version is served at all. Errors count as
 * "no": this only refines a message. */
static int served_kind(struct kube *k, const char *group, const char *version,
		       const char *kind, int *group_served)
{
	struct buf gv = BUF_INIT;
	struct kube_gv *g = NULL;
	struct err e = ERR_INIT;
	int found = 0;

	buf_addf(&gv, "%s/%s", group, version);
	for (size_t i = 0; i < rest_of(k)->gv_nr && !g; i++)
		if (!strcmp(rest_of(k)->gvs[i]->gv, buf_cstr(&gv)))
			g = rest_of(k)->gvs[i];
	if (!g && discover(k, group, version, buf_cstr(&gv), &g, &e) < 0)
		g = NULL;
	if (g && g->served) {
		*group_served = 1;
		for (size_t i = 0; i < g->nr && !found; i++)
			found = !strcmp(g->res[i].kind, kind);
	}
	err_release(&e);
	buf_release(&gv);
	return found;
}

/* unserved_hint: why api_version/kind is not served — an older release of
 * the controller (generator/targets.c says which), or no CRDs at all */
static void unserved_hint(struct kube *k, const char *group, const char *kind,
			  struct buf *out)
{
	struct targets_served s = { 0, 0, 0, 0 };

	if (!strcmp(group, "kueue.x-k8s.io") || !strcmp(group, "karpenter.sh") ||
	    !strcmp(group, "karpenter.k8s.aws")) {
		s.v1 = served_kind(k, group, "v1", kind, &s.group);
		s.v1beta1 = served_kind(k, group, "v1beta1", kind, &s.group);
		s.v1beta2 = served_kind(k, group, "v1beta2", kind, &s.group);
		if (!strcmp(kind, "NodeOverlay"))
			s.group |= served_kind(k, group, "v1", "NodePool",
					       &s.group);
		if (targets_explain_unserved(group, kind, &s, out) == 0)
			return;
	}
	buf_adds(out, crd_hint(group));
}

static int rest_resource_for(struct kube *k, const char *api_version, const char *kind,
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
	for (size_t i = 0; i < rest_of(k)->gv_nr && !g; i++)
		if (!strcmp(rest_of(k)->gvs[i]->gv, api_version))
			g = rest_of(k)->gvs[i];
	if (!g && discover(k, group, version, api_version, &g, err) < 0)
		goto out;
	for (size_t i = 0; i < g->nr; i++) {
		if (!strcmp(g->res[i].kind, kind)) {
			*out = &g->res[i];
			ret = 0;
			goto out;
		}
	}
	{
		struct buf hint = BUF_INIT;
		unserved_hint(k, group, kind, &hint);
		err_set(err, ERR_NOTFOUND,
			"%s %s is not served by the API server at %s%s",
			api_version, kind, rest_of(k)->t.server,
			buf_cstr(&hint));
		buf_release(&hint);
	}
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
static const char *req_ns(struct kube *k, const struct kube_resource *r,
			  const char *ns)
{
	if (!r->namespaced)
		return NULL;
	return ns && *ns ? ns : rest_of(k)->t.namespace_;
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
	const struct buf *b = rest_of(k)->t.body(rest_of(k)->t.ctx);

	/* a 2xx body is parsed already: take it */
	*out = body_object(k);
	if (*out)
		return 0;
	return kubejson_object(b->ptr, b->len, what, out, err);
}

static int rest_get(struct kube *k, const struct kube_resource *r, const char *ns,
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

static int rest_list(struct kube *k, const struct kube_resource *r, const char *ns,
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
	const char *s = json_meta_at(obj, key, NULL);

	return s && *s ? s : NULL; /* "" is no name */
}

static int rest_apply(struct kube *k, const struct kube_resource *r, const cJSON *obj,
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
		kubejson_conflict(r->kind, name, body_text(k), j, err);
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

static int rest_delete(struct kube *k, const struct kube_resource *r, const char *ns,
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
		kubejson_message(&m, body_text(k), j);
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
		kubejson_message(&m, body_text(k), j);
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

static int rest_create(struct kube *k, const struct kube_resource *r, const char *ns,
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

static int rest_request(struct kube *k, const char *method, const char *path,
		 const char *query, const char *content_type, const char *body,
		 size_t body_len, long *status, cJSON **body_out,
		 struct err *err)
{
	enum kube_op op = OP_OTHER_WRITE;

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

static int rest_update(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err)
{
	return write_object(k, r, ns, meta_str(obj, "name"), "PUT",
			    "application/json", NULL, obj, 0, out, err);
}

static int rest_merge_patch(struct kube *k, const struct kube_resource *r,
		     const char *ns, const char *name, const cJSON *patch,
		     const char *field_manager, cJSON **out, struct err *err)
{
	return write_object(k, r, ns, name, "PATCH",
			    "application/merge-patch+json", field_manager,
			    patch, 1, out, err);
}

/* ---- client life ------------------------------------------------------- */

static void rest_free(struct kube *k)
{
	struct rest *rs = rest_of(k);

	for (size_t i = 0; i < rs->gv_nr; i++) {
		struct kube_gv *g = rs->gvs[i];
		kubejson_resources_free(g->res, g->nr);
		free(g->gv);
		free(g);
	}
	free(rs->gvs);
	cJSON_Delete(rs->parsed);
	if (rs->t.free)
		rs->t.free(rs->t.ctx);
	free(rs);
}

static const struct kube_ops rest_ops = {
	"rest",
	rest_resource_for,
	rest_get,
	rest_list,
	rest_apply,
	rest_delete,
	rest_create,
	rest_update,
	rest_merge_patch,
	rest_request,
	rest_free,
};

int kube_new(struct kube **out, const struct kube_config *cfg,
	     const struct kube_opts *opts, struct err *err)
{
	struct kube_transport t;

	if (kubeconn_new(&t, cfg, opts, err) < 0)
		return -1;
	return kube_new_on(out, &t);
}

int kube_new_on(struct kube **out, const struct kube_transport *t)
{
	struct rest *rs = xcalloc(1, sizeof(*rs));

	rs->base.ops = &rest_ops;
	rs->t = *t;
	*out = &rs->base;
	return 0;
}

/* ---- the operations, whatever the implementation ---------------------- */

void kube_free(struct kube *k)
{
	if (k)
		k->ops->free(k);
}

const struct kube_stats *kube_get_stats(const struct kube *k)
{
	return &k->stats;
}

int kube_resource_for(struct kube *k, const char *api_version, const char *kind,
		      const struct kube_resource **out, struct err *err)
{
	return k->ops->resource_for(k, api_version, kind, out, err);
}

int kube_get(struct kube *k, const struct kube_resource *r, const char *ns,
	     const char *name, cJSON **out, struct err *err)
{
	return k->ops->get(k, r, ns, name, out, err);
}

int kube_list(struct kube *k, const struct kube_resource *r, const char *ns,
	      const char *label_selector, cJSON **items_out, struct err *err)
{
	return k->ops->list(k, r, ns, label_selector, items_out, err);
}

int kube_apply(struct kube *k, const struct kube_resource *r, const cJSON *obj,
	       const char *field_manager, int force, int dry_run, cJSON **out,
	       struct err *err)
{
	if (!meta_str(obj, "name"))
		return err_set(err, ERR_INVALID,
			       "%s without metadata.name "
			       "cannot be applied",
			       r->kind);
	if (!field_manager || !*field_manager)
		return err_set(err, ERR_INVALID, "apply needs a field manager");
	return k->ops->apply(k, r, obj, field_manager, force, dry_run, out,
			     err);
}

int kube_delete(struct kube *k, const struct kube_resource *r, const char *ns,
		const char *name, const char *uid, const char *rv, int dry_run,
		int *deleted, struct err *err)
{
	return k->ops->delete_(k, r, ns, name, uid, rv, dry_run, deleted, err);
}

int kube_create(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err)
{
	return k->ops->create(k, r, ns, obj, out, err);
}

int kube_update(struct kube *k, const struct kube_resource *r, const char *ns,
		const cJSON *obj, cJSON **out, struct err *err)
{
	return k->ops->update(k, r, ns, obj, out, err);
}

int kube_merge_patch(struct kube *k, const struct kube_resource *r,
		     const char *ns, const char *name, const cJSON *patch,
		     const char *field_manager, cJSON **out, struct err *err)
{
	return k->ops->merge_patch(k, r, ns, name, patch, field_manager, out,
				   err);
}

int kube_request(struct kube *k, const char *method, const char *path,
		 const char *query, const char *content_type, const char *body,
		 size_t body_len, long *status, cJSON **body_out,
		 struct err *err)
{
	if (!method || !path || path[0] != '/')
		return err_set(err, ERR_INVALID,
			       "kube_request needs a method and an absolute "
			       "path");
	if (!k->ops->request)
		return err_set(err, ERR_INVALID,
			       "this Kubernetes client (%s) sends no raw "
			       "requests", k->ops->name);
	return k->ops->request(k, method, path, query, content_type, body,
			       body_len, status, body_out, err);
}
