/*
 * aws/aws.c: see aws.h. Wire formats from the AWS API references:
 * EC2 query API (POST form, Version=2016-11-15, XML answers, errors as
 * Response/Errors/Error/Code), STS (query, ErrorResponse/Error/Code),
 * SSM (awsJson1_1, X-Amz-Target AmazonSSM.*), SQS (awsJson1_0 since
 * November 2023, X-Amz-Target AmazonSQS.*; errors carry "__type").
 */
#include "aws/aws.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "aws/awsxml.h"
#include "aws/sigv4.h"
#include "http/http.h"
#include "util/backoff.h"
#include "util/diag.h"
#include "util/digest.h"
#include "util/url.h"
#include "util/xalloc.h"

#define AWS_MAX_BODY (32u << 20)

void aws_init(struct aws *a)
{
	memset(a, 0, sizeof(*a));
	a->timeout_ms = 10000;
	a->max_retries = 4;
	a->backoff_ms = 200;
	a->backoff_cap_ms = 3000;
}


void aws_creds_release(struct aws_creds *c)
{
	free(c->key_id);
	digest_wipe_str(c->secret);
	digest_wipe_str(c->token);
	free(c->source);
	memset(c, 0, sizeof(*c));
}

void aws_release(struct aws *a)
{
	aws_creds_release(&a->creds);
	free(a->region);
	a->region = NULL;
}

void aws_answer_release(struct aws_answer *ans)
{
	free(ans->code);
	free(ans->message);
	buf_release(&ans->body);
	ans->code = ans->message = NULL;
	ans->status = 0;
}

char *aws_endpoint(const char *service, const char *region)
{
	const char *ign = getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
	char var[64];
	const char *v;
	size_t i;

	if (!ign || strcasecmp(ign, "true")) {
		snprintf(var, sizeof(var), "AWS_ENDPOINT_URL_%s", service);
		for (i = strlen("AWS_ENDPOINT_URL_"); var[i]; i++)
			var[i] = (char)toupper((unsigned char)var[i]);
		if ((v = getenv(var)) && *v)
			return xstrdup(v);
		if ((v = getenv("AWS_ENDPOINT_URL")) && *v)
			return xstrdup(v);
	}
	return xasprintf("https://%s.%s.amazonaws.com", service, region);
}

int aws_endpoint_check(const char *url, const char *service, struct err *err)
{
	struct buf shown = BUF_INIT;
	char var[64];

	if (url_secret_safe(url))
		return 0;
	snprintf(var, sizeof(var), "AWS_ENDPOINT_URL_%s", service);
	for (size_t i = strlen("AWS_ENDPOINT_URL_"); var[i]; i++)
		var[i] = (char)toupper((unsigned char)var[i]);
	url_strip_userinfo(url, &shown);
	err_set(err, ERR_INVALID,
		"the %s endpoint '%s' (%s or AWS_ENDPOINT_URL) is not https://: "
		"the request would carry the SigV4 signature and the session "
		"token in clear; use https://, or plain http:// only to a "
		"loopback address (127.0.0.0/8, [::1], localhost)",
		service, buf_cstr(&shown), var);
	buf_release(&shown);
	return -1;
}

static void enc(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
			buf_addc(b, (char)c);
		else
			buf_addf(b, "%%%02X", c);
	}
}

void aws_form_add(struct buf *form, const char *key, const char *value)
{
	if (form->len)
		buf_addc(form, '&');
	enc(form, key);
	buf_addc(form, '=');
	enc(form, value);
}

int aws_exchange(struct aws *a, const struct http_req *r, long *status,
		 struct buf *resp, int *timed_out, struct err *err)
{
	if (a->transport)
		return a->transport->exchange(a->transport->ctx, r, status,
					      resp, timed_out, err);
	return http_exchange(r, status, resp, timed_out, err);
}

int aws_is_denied(const char *code)
{
	static const char *const denied[] = {
		"AccessDenied", "AccessDeniedException",
		"UnauthorizedOperation", "AuthorizationError",
		"UnauthorizedAccess", NULL,
	};
	for (size_t i = 0; code && denied[i]; i++)
		if (!strcmp(code, denied[i]))
			return 1;
	return 0;
}

int aws_is_throttle(long status, const char *code)
{
	static const char *const slow[] = {
		"Throttling", "ThrottlingException", "ThrottledException",
		"RequestThrottled", "RequestThrottledException",
		"RequestLimitExceeded", "TooManyRequestsException",
		"SlowDown", "ProvisionedThroughputExceededException",
		"InternalError", "InternalFailure", "ServiceUnavailable",
		NULL,
	};
	for (size_t i = 0; code && slow[i]; i++)
		if (!strcmp(code, slow[i]))
			return 1;
	return status == 429 || status == 500 || status == 502 ||
	       status == 503 || status == 504;
}

/* credentials the service refused outright: nothing can be checked */
static int is_bad_credentials(const char *code)
{
	static const char *const bad[] = {
		"SignatureDoesNotMatch", "InvalidClientTokenId",
		"UnrecognizedClientException", "ExpiredToken",
		"ExpiredTokenException", "AuthFailure",
		"InvalidSignatureException", "IncompleteSignature",
		"MissingAuthenticationToken", "InvalidAccessKeyId", NULL,
	};
	for (size_t i = 0; code && bad[i]; i++)
		if (!strcmp(code, bad[i]))
			return 1;
	return 0;
}

/* at most max bytes of server text, its control characters escaped
 * (diag_escape: ESC, CR, BEL, newlines, C1): an endpoint's error code or
 * message is printed in findings and errors and must not drive the
 * terminal or fake a line of output */
static char *dup_trunc(const char *s, size_t max)
{
	struct buf b = BUF_INIT;
	char *cut;

	if (!s)
		return NULL;
	cut = xstrndup(s, strnlen(s, max));
	diag_escape(&b, cut, 0);
	free(cut);
	return buf_detach(&b, NULL);
}

/* the code and message of an error answer (XML or JSON); absent -> NULL */
static void parse_error(struct aws_answer *ans, enum aws_proto proto)
{
	const char *b = buf_cstr(&ans->body);

	if (proto == AWS_QUERY) {
		struct xnode root;
		struct err e = ERR_INIT;
		const struct xnode *er;

		if (xml_parse(&root, b, ans->body.len, &e) < 0) {
			err_release(&e);
			return;
		}
		/* EC2: Response/Errors/Error; STS, SQS query: ErrorResponse/Error */
		er = xml_path(&root, "Errors/Error");
		if (!er)
			er = xml_child(&root, "Error");
		if (er) {
			ans->code = dup_trunc(xml_text(er, "Code"), 200);
			ans->message = dup_trunc(xml_text(er, "Message"), 500);
		}
		xml_release(&root);
	} else {
		cJSON *j = cJSON_ParseWithLength(b, ans->body.len);
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "__type");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

		if (!m)
			m = cJSON_GetObjectItemCaseSensitive(j, "Message");
		if (cJSON_IsString(t)) {
			/* "com.amazonaws.sqs#QueueDoesNotExist" -> after '#' */
			const char *h = strrchr(t->valuestring, '#');
			ans->code = dup_trunc(h ? h + 1 : t->valuestring, 200);
		}
		if (cJSON_IsString(m))
			ans->message = dup_trunc(m->valuestring, 500);
		cJSON_Delete(j);
	}
}

static int has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* sign: hdr[n..n+2] = the Host, X-Amz-Date and Authorization lines of a
 * SigV4 signature of r (now), in *lines; hdr[n+3] = NULL */
static void sign(const struct aws *a, const char *service,
		 const struct http_req *r, const char **hdr, size_t n,
		 struct buf *lines)
{
	struct sigv4_req s = { 0 };
	size_t at[3];

	hdr[n] = NULL;
	s.method = r->method;
	s.url = r->url;
	s.headers = hdr;
	s.body = r->body;
	s.len = r->len;
	s.region = a->region;
	s.service = service;
	s.key_id = a->creds.key_id;
	s.secret = a->creds.secret;
	s.now = (long long)time(NULL);
	buf_reset(lines);
	sigv4_sign(&s, lines, at);
	for (int i = 0; i < 3; i++)
		hdr[n + (size_t)i] = lines->ptr + at[i];
	hdr[n + 3] = NULL;
}

int aws_call(struct aws *a, const char *service, enum aws_proto proto,
	     const char *target, const char *body, struct aws_answer *ans,
	     struct err *err)
{
	char *url = aws_endpoint(service, a->region);
	char *tok = a->creds.token
			    ? xasprintf("X-Amz-Security-Token: %s", a->creds.token)
			    : NULL;
	char *tgt = target ? xasprintf("X-Amz-Target: %s", target) : NULL;
	const char *hdr[7];
	size_t nh = 0;
	struct buf signing = BUF_INIT;
	struct http_req r;
	uint64_t rng = backoff_seed((uint64_t)(uintptr_t)a);
	int ret = -1;

	memset(ans, 0, sizeof(*ans));
	if (aws_endpoint_check(url, service, err) < 0)
		goto out;
	if (has_control(a->creds.key_id) || has_control(a->creds.secret) ||
	    has_control(a->creds.token) || strchr(a->creds.key_id, ':')) {
		/* they go into headers: no line breaks, no header injection */
		err_set(err, ERR_INVALID, "the credentials from %s contain a "
			"control character (or the key id a ':')",
			a->creds.source);
		goto out;
	}
	hdr[nh++] = proto == AWS_QUERY
			    ? "Content-Type: application/x-www-form-urlencoded; "
			      "charset=utf-8"
			: proto == AWS_JSON10 ? "Content-Type: application/x-amz-json-1.0"
					      : "Content-Type: application/x-amz-json-1.1";
	if (tgt)
		hdr[nh++] = tgt;
	if (tok)
		hdr[nh++] = tok;
	hdr[nh] = NULL; /* then Host, X-Amz-Date, Authorization (sign) */
	memset(&r, 0, sizeof(r));
	r.method = "POST";
	r.url = url;
	r.headers = hdr;
	r.body = body;
	r.len = strlen(body);
	r.timeout_ms = a->timeout_ms;
	r.max_body = AWS_MAX_BODY;

	for (int attempt = 0;; attempt++) {
		int timed_out;

		aws_answer_release(ans);
		a->requests++;
		sign(a, service, &r, hdr, nh, &signing); /* a fresh date */
		if (aws_exchange(a, &r, &ans->status, &ans->body, &timed_out,
				 err) < 0) {
			if (timed_out) {
				err_release(err);
				err_set(err, ERR_HTTP,
					"%s did not answer within %ld ms "
					"(endpoint %s)",
					service, a->timeout_ms, url);
			}
			goto out;
		}
		if (ans->status >= 200 && ans->status <= 299)
			break;
		parse_error(ans, proto);
		if (is_bad_credentials(ans->code)) {
			err_set(err, ERR_AUTH,
				"%s (%s) rejected the credentials from %s: "
				"%s%s%s",
				service, url, a->creds.source, ans->code,
				ans->message ? ": " : "",
				ans->message ? ans->message : "");
			goto out;
		}
		if (!aws_is_throttle(ans->status, ans->code) ||
		    attempt >= a->max_retries)
			break;
		a->retries++;
		backoff_sleep_ms(backoff_delay_ms(a->backoff_ms,
						  a->backoff_cap_ms, attempt + 1,
						  &rng));
	}
	ret = 0;
out:
	if (ret < 0)
		aws_answer_release(ans);
	free(url);
	buf_release(&signing);
	digest_wipe_str(tok);
	free(tgt);
	return ret;
}
