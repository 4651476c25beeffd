/* reconcile/prom.c: see prom.h. */
#include "reconcile/prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "http/http.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json.h"
#include "util/url.h"
#include "util/xalloc.h"

int prom_check_url(const char *url, struct err *err)
{
	int pw;
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return err_set(err, ERR_INVALID,
			       "--prometheus '%s' is not an http:// or "
			       "https:// URL",
			       url);
	if (url_userinfo(url, &pw))
		return err_set(err, ERR_INVALID,
			       "--prometheus must not carry user info (it "
			       "would be sent and shown); put a proxy with "
			       "credentials in front of Prometheus instead");
	return 0;
}

/* the query in messages: its first 80 characters */
static void short_query(struct buf *out, const char *q)
{
	buf_addf(out, "%.80s%s", q, strlen(q) > 80 ? "..." : "");
}

static int fail(struct err *err, const char *promql, const char *what,
		const char *detail)
{
	struct buf q = BUF_INIT, d = BUF_INIT;
	short_query(&q, promql);
	if (detail)
		diag_escape(&d, detail, 0);
	err_set(err, ERR_HTTP, "Prometheus query '%s': %s%s%s", buf_cstr(&q),
		what, detail ? ": " : "", buf_cstr(&d));
	buf_release(&q);
	buf_release(&d);
	return -1;
}

/* one sample [time, "value"] */
static int sample(const cJSON *v, const char *promql, double *val,
		  struct err *err)
{
	const cJSON *s = cJSON_GetArrayItem(v, 1);
	char *end;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 ||
	    !cJSON_IsString(s))
		return fail(err, promql, "a malformed sample", NULL);
	*val = strtod(s->valuestring, &end);
	if (end == s->valuestring || *end)
		return fail(err, promql, "a value that is not a number",
			    s->valuestring);
	return 0;
}

int prom_parse(long status, const char *body, size_t len, const char *promql,
	       int *present, double *val, struct err *err)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *data, *res;
	const char *st, *type;
	int ret = -1;

	*present = 0;
	*val = NAN;
	if (!cJSON_IsObject(j)) {
		struct buf b = BUF_INIT;
		buf_add_first_line(&b, body, 120);
		ret = fail(err, promql,
			   status >= 200 && status <= 299
				   ? "the answer is not the Prometheus API's JSON"
				   : "an HTTP error that is not the API's JSON",
			   buf_cstr(&b));
		buf_release(&b);
		goto out;
	}
	st = json_str(j, "status");
	if (!st || strcmp(st, "success")) {
		struct buf b = BUF_INIT;
		const char *et = json_str(j, "errorType"), *e = json_str(j, "error");
		buf_addf(&b, "HTTP %ld, %s: %s", status, et ? et : "error",
			 e ? e : "(no message)");
		ret = fail(err, promql, "refused", buf_cstr(&b));
		buf_release(&b);
		goto out;
	}
	if (cJSON_GetArraySize(json_get(j, "warnings")) > 0) {
		const cJSON *w = cJSON_GetArrayItem(json_get(j, "warnings"), 0);
		ret = fail(err, promql,
			   "answered only in part, no advice from partial "
			   "data; the warning",
			   cJSON_IsString(w) ? w->valuestring : "?");
		goto out;
	}
	data = json_get(j, "data");
	type = json_str(data, "resultType");
	res = json_get(data, "result");
	if (type && !strcmp(type, "scalar")) {
		if (sample(res, promql, val, err) < 0)
			goto out;
		*present = 1;
	} else if (type && !strcmp(type, "vector") && cJSON_IsArray(res)) {
		int n = cJSON_GetArraySize(res);
		if (n > 1) {
			char num[64];
			snprintf(num, sizeof(num), "%d series", n);
			ret = fail(err, promql,
				   "more than one series where gpuform asks "
				   "for one",
				   num);
			goto out;
		}
		if (n == 1) {
			if (sample(json_get(cJSON_GetArrayItem(res, 0), "value"),
				   promql, val, err) < 0)
				goto out;
			*present = 1;
		}
	} else {
		ret = fail(err, promql,
			   "a result that is neither a vector nor a scalar",
			   type ? type : "(no resultType)");
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(j);
	return ret;
}

int prom_query(struct prom *p, const char *promql, long long at, int *present,
	       double *val, struct err *err)
{
	const char *hdr[] = {
		"Content-Type: application/x-www-form-urlencoded",
		"Accept: application/json", NULL, NULL,
	};
	struct buf url = BUF_INIT, body = BUF_INIT, resp = BUF_INIT;
	struct buf auth = BUF_INIT;
	struct http_req r;
	long status = 0;
	int timed_out = 0, ret = -1;
	size_t ul = strlen(p->url);

	buf_add(&url, p->url, ul && p->url[ul - 1] == '/' ? ul - 1 : ul);
	buf_adds(&url, "/api/v1/query");
	buf_adds(&body, "query=");
	url_form_encode(&body, promql);
	buf_addf(&body, "&time=%lld", at);
	memset(&r, 0, sizeof(r));
	r.method = "POST";
	r.url = buf_cstr(&url);
	if (p->token) {
		buf_addf(&auth, "Authorization: Bearer %s", p->token);
		hdr[2] = buf_cstr(&auth);
	}
	r.headers = hdr;
	r.body = buf_cstr(&body);
	r.len = body.len;
	r.timeout_ms = p->timeout_ms;
	r.max_body = PROM_MAX_BODY;
	p->requests++;
	if (http_exchange(&r, &status, &resp, &timed_out, err) < 0) {
		if (timed_out) {
			err_release(err);
			err_set(err, ERR_HTTP,
				"Prometheus at %s did not answer within %ld ms",
				p->url, p->timeout_ms);
		}
		goto out;
	}
	ret = prom_parse(status, buf_cstr(&resp), resp.len, promql, present,
			 val, err);
out:
	if (auth.len)
		memset(auth.ptr, 0, auth.len);
	buf_release(&auth);
	buf_release(&url);
	buf_release(&body);
	buf_release(&resp);
	return ret;
}

int prom_observe(struct prom *p, const struct intent *in, long window_s,
		 long step_s, long long at, struct advise_obs *obs,
		 struct err *err)
{
	for (size_t i = 0; i < in->nworkloads; i++) {
		char *q[AQ_N];
		int ret = 0;

		memset(&obs[i], 0, sizeof(obs[i]));
		advise_queries(q, &in->workloads[i], window_s, step_s);
		for (int k = 0; k < AQ_N; k++) {
			int present = 0;
			double v = 0;
			if (!ret && prom_query(p, q[k], at, &present, &v, err) < 0)
				ret = -1;
			if (!ret)
				advise_obs_set(&obs[i], (enum advise_query_id)k,
					       present, v);
			free(q[k]);
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}
