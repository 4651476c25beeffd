/*
 * tests/unit/aws_fake.c: see aws_fake.h.
 */
#include "tests/unit/aws_fake.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "http/http.h"

/* the form's Action=, else the X-Amz-Target header's value, else "-" */
static void action_of(const struct http_req *r, struct buf *out)
{
	const char *b = r->body ? r->body : "";
	const char *a = strstr(b, "Action=");

	if (a && (a == b || a[-1] == '&')) {
		a += 7;
		buf_add(out, a, strcspn(a, "&"));
		return;
	}
	for (const char *const *h = r->headers; h && *h; h++)
		if (!strncmp(*h, "X-Amz-Target: ", 14)) {
			buf_adds(out, *h + 14);
			return;
		}
	buf_adds(out, "-");
}

static int fake_exchange(void *ctx, const struct http_req *r, long *status,
			 struct buf *resp, int *timed_out, struct err *err)
{
	struct aws_fake *f = ctx;
	const char *body = r->body ? r->body : "";

	f->requests++;
	*timed_out = 0;
	buf_addf(&f->log, "%s %s ", r->method, r->url);
	action_of(r, &f->log);
	buf_addc(&f->log, '\n');
	for (const char *const *h = r->headers; h && *h; h++)
		buf_addf(&f->headers, "%s\n", *h);
	for (size_t i = 0; i < f->nrules; i++) {
		struct aws_fake_rule *u = &f->rules[i];

		if ((u->method && strcmp(u->method, r->method)) ||
		    !strstr(r->url, u->url) ||
		    (u->body && !strstr(body, u->body)) ||
		    (u->times && u->used >= u->times))
			continue;
		u->used++;
		if (u->status < 0) {
			*timed_out = u->status == -2;
			return err_set(err, ERR_HTTP, "aws_fake: %s %s: %s",
				       r->method, r->url,
				       *timed_out ? "timed out"
						  : "connection refused");
		}
		*status = u->status;
		buf_adds(resp, u->answer ? u->answer : "");
		return 0;
	}
	return err_set(err, ERR_HTTP, "aws_fake: no rule for %s %s (%.80s)",
		       r->method, r->url, body);
}

void aws_fake_init(struct aws_fake *f, struct aws *a)
{
	memset(f, 0, sizeof(*f));
	f->t.exchange = fake_exchange;
	f->t.ctx = f;
	f->log = (struct buf)BUF_INIT;
	f->headers = (struct buf)BUF_INIT;
	a->transport = &f->t;
	a->backoff_ms = 0;
	a->backoff_cap_ms = 0;
}

void aws_fake_release(struct aws_fake *f)
{
	buf_release(&f->log);
	buf_release(&f->headers);
}

void aws_fake_on(struct aws_fake *f, const char *method, const char *url,
		 const char *body, long status, const char *answer, int times)
{
	ck_assert_uint_lt(f->nrules, sizeof(f->rules) / sizeof(f->rules[0]));
	f->rules[f->nrules++] = (struct aws_fake_rule){ method, url, body,
							status, answer, times,
							0 };
}
