/*
 * kube/kubejson.h: what the Kubernetes client makes of a response body
 * -- JSON parsing, Status messages, HTTP failure messages, discovery
 * documents (APIResourceList), List pages and server-side apply conflicts.
 *
 * Pure functions of (body, status): no libcurl, no I/O, so the fuzzer
 * (tests/fuzz/fuzz_kube_response.c) and the unit tests reach them without
 * a server. kube/kube.c sends the requests and calls these on what
 * comes back (and kube/kubeconn.c kubejson_body, on every answer).
 *
 * A body is passed as (body, len) with body[len] == '\0' (what buf_cstr()
 * gives); it may contain NUL bytes, which end the text a message quotes.
 */
#ifndef KUBE_KUBEJSON_H
#define KUBE_KUBEJSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/err.h"

/* A served resource type, from discovery (cached for the client's life). */
struct kube_resource {
	char *group;    /* "" for the core group */
	char *version;  /* "v1" */
	char *kind;     /* "NodePool" */
	char *resource; /* "nodepools" */
	int namespaced;
};

/* kubejson_parse: the body as JSON, or NULL (empty or not JSON). */
cJSON *kubejson_parse(const char *body, size_t len);

/* kubejson_reason: "Not Found" for 404, ...; "" for a status without one. */
const char *kubejson_reason(long status);

/*
 * kubejson_body: the check of every answer's body. *parsed = the body
 * parsed when the status is 2xx (NULL: empty or not JSON; the caller
 * frees it). -1 (ERR_HTTP "<method> <path>: the API server at <server>
 * answered <status> with a body that is not whole JSON ...") for a 2xx
 * answer, not to POST or HEAD, whose body is not one whole JSON document:
 * cut short on the way (a proxy, a connection that died with a wrong
 * Content-Length) or garbled. The connection repeats such a request like
 * one that failed in transit: the methods that get here (GET, PATCH as
 * server-side apply, DELETE with a UID precondition) are idempotent.
 */
int kubejson_body(const char *method, const char *path, const char *server,
		  long status, const char *body, size_t len, cJSON **parsed,
		  struct err *err);

/*
 * kubejson_message: appends Status.message of j when it is a non-empty
 * string, else the first non-blank line of body (at most 300 bytes,
 * unprintable bytes as '?'); appends nothing for an empty body.
 */
void kubejson_message(struct buf *out, const char *body, const cJSON *j);

/*
 * kubejson_http_fail: sets err for a status that means failure and returns
 * -1. 401: ERR_AUTH naming server and user (never the server's text); 403:
 * ERR_AUTH with the server's message; anything else: ERR_HTTP
 * "<what>: <message> (<status> <reason>)". j is kubejson_parse(body) (may
 * be NULL).
 */
int kubejson_http_fail(const char *what, long status, const char *body,
		       const cJSON *j, const char *server, const char *user,
		       struct err *err);

/*
 * kubejson_object: *out = the body parsed, when it is a JSON object (the
 * caller cJSON_Delete()s it); else ERR_HTTP "<what>: the API server did
 * not answer with a JSON object".
 */
int kubejson_object(const char *body, size_t len, const char *what, cJSON **out,
		    struct err *err);

/*
 * kubejson_discovery: the kinds an APIResourceList j serves, as
 * kube_resource entries with the given group and version (subresources
 * such as "pods/log" and entries without a string name and kind are
 * skipped). *res (malloc'ed array, each string malloc'ed) and *nr are set
 * on success, and on success only; free with kubejson_resources_free().
 * ERR_HTTP "<what>: the API server sent no APIResourceList" when j has no
 * "resources" array.
 */
int kubejson_discovery(const cJSON *j, const char *group, const char *version,
		       const char *what, struct kube_resource **res, size_t *nr,
		       struct err *err);
void kubejson_resources_free(struct kube_resource *res, size_t nr);

/*
 * kubejson_typed: obj (consumed) as a new object with apiVersion and kind
 * of r first, then obj's other members in order (List items come without
 * apiVersion and kind; any they have are replaced).
 */
cJSON *kubejson_typed(cJSON *obj, const struct kube_resource *r);

/*
 * kubejson_list_page: one page of a List (j, consumed member by member:
 * its items are moved out). Appends every object item, typed for r, to the
 * array items (non-objects are dropped); *cont = metadata.continue when a
 * non-empty string (malloc'ed), else NULL. ERR_HTTP "<what>: the API
 * server did not answer with a list" when j is not an object or items is
 * not an array ("items": null is refused: an API server sends [], and a
 * null would read as "none of them exist"), and "... a list of another
 * kind" when j's kind is not "<r->kind>List" (items unchanged, *cont
 * NULL).
 */
int kubejson_list_page(cJSON *j, const struct kube_resource *r, cJSON *items,
		       char **cont, const char *what, struct err *err);

/*
 * kubejson_conflict: sets ERR_CONFLICT for a 409 answer to server-side
 * apply of kind/name and returns -1. One "conflict: <kind>/<name>: field F
 * is managed by M" per details.causes entry (M from 'conflict with "M"' in
 * the cause's message, F from its field or the text after ": "), joined by
 * "; "; without causes "conflict: <kind>/<name>: <message>".
 */
int kubejson_conflict(const char *kind, const char *name, const char *body,
		      const cJSON *j, struct err *err);

#endif
