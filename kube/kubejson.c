/*
 * kube/kubejson.c: response bodies of the Kubernetes API (see
 * kubejson.h). No libcurl here: kube/kube.c owns the transport.
 */
#include "kube/kubejson.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

cJSON *kubejson_parse(const char *body, size_t len)
{
	if (!body || !len)
		return NULL;
	return cJSON_ParseWithLength(body, len);
}

int kubejson_body(const char *method, const char *path, const char *server,
		  long status, const char *body, size_t len, cJSON **parsed,
		  struct err *err)
{
	*parsed = NULL;
	if (status < 200 || status > 299 || !len)
		return 0;
	*parsed = cJSON_ParseWithLength(body, len);
	if (*parsed || !strcmp(method, "POST") || !strcmp(method, "HEAD"))
		return 0;
	return err_set(err, ERR_HTTP,
		       "%s %s: the API server at %s answered %ld with a body "
		       "that is not whole JSON (%zu bytes; cut short on the "
		       "way?)",
		       method, path, server, status, len);
}

const char *kubejson_reason(long status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 406:
		return "Not Acceptable";
	case 409:
		return "Conflict";
	case 410:
		return "Gone";
	case 413:
		return "Request Entity Too Large";
	case 415:
		return "Unsupported Media Type";
	case 422:
		return "Unprocessable Entity";
	case 429:
		return "Too Many Requests";
	case 500:
		return "Internal Server Error";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		return "";
	}
}

void kubejson_message(struct buf *out, const char *body, const cJSON *j)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

	if (cJSON_IsString(m) && m->valuestring[0]) {
		buf_adds(out, m->valuestring);
		return;
	}
	buf_add_first_line(out, body ? body : "", 300);
}

int kubejson_http_fail(const char *what, long status, const char *body,
		       const cJSON *j, const char *server, const char *user,
		       struct err *err)
{
	struct buf m = BUF_INIT;

	kubejson_message(&m, body, j);
	if (status == 401) {
		err_set(err, ERR_AUTH,
			"the API server at %s rejected the credentials of "
			"user '%s' (401 Unauthorized)",
			server, user);
	} else if (status == 403) {
		if (m.len)
			err_set(err, ERR_AUTH, "%s (403 Forbidden)",
				buf_cstr(&m));
		else
			err_set(err, ERR_AUTH,
				"%s: user '%s' is not allowed (403 Forbidden)",
				what, user);
	} else {
		const char *r = kubejson_reason(status);
		err_set(err, ERR_HTTP, "%s: %s (%ld%s%s) from the API server "
				       "at %s",
			what, m.len ? buf_cstr(&m) : "no message from the server",
			status, *r ? " " : "", r, server);
	}
	buf_release(&m);
	return -1;
}

int kubejson_object(const char *body, size_t len, const char *what, cJSON **out,
		    struct err *err)
{
	cJSON *j = kubejson_parse(body, len);

	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return err_set(err, ERR_HTTP,
			       "%s: the API server did not answer with a JSON "
			       "object",
			       what);
	}
	*out = j;
	return 0;
}

void kubejson_resources_free(struct kube_resource *res, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(res[i].group);
		free(res[i].version);
		free(res[i].kind);
		free(res[i].resource);
	}
	free(res);
}

int kubejson_discovery(const cJSON *j, const char *group, const char *version,
		       const char *what, struct kube_resource **res_out,
		       size_t *nr_out, struct err *err)
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "resources");
	const cJSON *it;
	struct kube_resource *v = NULL;
	size_t nr = 0, alloc = 0;

	if (!cJSON_IsArray(res))
		return err_set(err, ERR_HTTP,
			       "%s: the API server sent no APIResourceList",
			       what);
	cJSON_ArrayForEach(it, res)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
		const cJSON *kd = cJSON_GetObjectItemCaseSensitive(it, "kind");
		const cJSON *ns =
			cJSON_GetObjectItemCaseSensitive(it, "namespaced");
		struct kube_resource *r;

		/* subresources ("pods/log") are not kinds of their own */
		if (!cJSON_IsString(n) || !cJSON_IsString(kd) ||
		    strchr(n->valuestring, '/'))
			continue;
		GROW(v, nr + 1, alloc);
		r = &v[nr++];
		r->group = xstrdup(group);
		r->version = xstrdup(version);
		r->kind = xstrdup(kd->valuestring);
		r->resource = xstrdup(n->valuestring);
		r->namespaced = cJSON_IsTrue(ns);
	}
	*res_out = v;
	*nr_out = nr;
	return 0;
}

cJSON *kubejson_typed(cJSON *obj, const struct kube_resource *r)
{
	cJSON *t = cJSON_CreateObject();
	struct buf av = BUF_INIT;

	if (*r->group)
		buf_addf(&av, "%s/%s", r->group, r->version);
	else
		buf_adds(&av, r->version);
	cJSON_AddStringToObject(t, "apiVersion", buf_cstr(&av));
	cJSON_AddStringToObject(t, "kind", r->kind);
	buf_release(&av);
	while (obj->child) {
		cJSON *c = cJSON_DetachItemViaPointer(obj, obj->child);
		if (c->string && (!strcmp(c->string, "apiVersion") ||
				  !strcmp(c->string, "kind")))
			cJSON_Delete(c);
		else
			cJSON_AddItemToArray(t, c); /* keeps c->string */
	}
	cJSON_Delete(obj);
	return t;
}

int kubejson_list_page(cJSON *j, const struct kube_resource *r, cJSON *items,
		       char **cont, const char *what, struct err *err)
{
	cJSON *page = cJSON_GetObjectItemCaseSensitive(j, "items");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	const cJSON *c;
	size_t kl = strlen(r->kind);

	*cont = NULL;
	if (!cJSON_IsObject(j) || !cJSON_IsArray(page))
		return err_set(err, ERR_HTTP,
			       "%s: the API server did not answer with a list%s",
			       what,
			       cJSON_IsNull(page)
				       ? " (\"items\": null; an API server "
					 "answers an empty list with [])"
				       : "");
	/* a list of another kind is not an answer to this LIST (a proxy or
	 * a cache in between mixed them up): nothing in it may count */
	if (kind && (!cJSON_IsString(kind) ||
		     strncmp(kind->valuestring, r->kind, kl) ||
		     strcmp(kind->valuestring + kl, "List")))
		return err_set(err, ERR_HTTP,
			       "%s: the API server answered with a list of "
			       "another kind ('%.80s', not '%sList')",
			       what,
			       cJSON_IsString(kind) ? kind->valuestring : "?",
			       r->kind);
	while (page->child) {
		cJSON *it = cJSON_DetachItemViaPointer(page, page->child);
		if (cJSON_IsObject(it))
			cJSON_AddItemToArray(items, kubejson_typed(it, r));
		else
			cJSON_Delete(it);
	}
	c = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "metadata"), "continue");
	if (cJSON_IsString(c) && c->valuestring[0])
		*cont = xstrdup(c->valuestring);
	return 0;
}

int kubejson_conflict(const char *kind, const char *name, const char *body,
		      const cJSON *j, struct err *err)
{
	const cJSON *causes = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "details"), "causes");
	const cJSON *c;
	struct buf m = BUF_INIT;
	int n = 0;

	cJSON_ArrayForEach(c, causes)
	{
		const cJSON *msg =
			cJSON_GetObjectItemCaseSensitive(c, "message");
		const cJSON *fld = cJSON_GetObjectItemCaseSensitive(c, "field");
		const char *s = cJSON_IsString(msg) ? msg->valuestring : "";
		const char *q = strstr(s, "conflict with \""), *e = NULL;
		struct buf mgr = BUF_INIT, field = BUF_INIT;

		if (q) {
			q += strlen("conflict with \"");
			e = strchr(q, '"');
		}
		if (q && e)
			buf_add(&mgr, q, (size_t)(e - q));
		else
			buf_adds(&mgr, "another manager");
		if (cJSON_IsString(fld) && fld->valuestring[0])
			buf_adds(&field, fld->valuestring);
		else if ((q = strstr(s, ": ")))
			buf_adds(&field, q + 2); /* older: "...: .spec.x" */
		else
			buf_adds(&field, "(unknown)");
		buf_addf(&m, "%sconflict: %s/%s: field %s is managed by %s",
			 n++ ? "; " : "", kind, name, buf_cstr(&field),
			 buf_cstr(&mgr));
		buf_release(&mgr);
		buf_release(&field);
	}
	if (!n) {
		buf_addf(&m, "conflict: %s/%s: ", kind, name);
		kubejson_message(&m, body, j);
	}
	err_set(err, ERR_CONFLICT, "%s", buf_cstr(&m));
	buf_release(&m);
	return -1;
}
