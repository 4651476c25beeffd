/*
 * aws/aws.h: calls to AWS APIs for `gpuform preflight`: endpoint
 * resolution (AWS_ENDPOINT_URL_<SERVICE>, AWS_ENDPOINT_URL, then the
 * regional default), the EC2/STS query protocol and the JSON 1.0/1.1
 * protocols (SSM, SQS), SigV4 signing (aws/sigv4.h) of requests sent
 * through http_exchange() (http/http.c, the only libcurl user),
 * bounded retries with backoff on throttling and 5xx, and the error code
 * of a failed call. Credentials come from aws/awscreds.h.
 */
#ifndef AWS_AWS_H
#define AWS_AWS_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

struct aws_creds {
	char *key_id, *secret, *token; /* token may be NULL */
	char *source; /* "environment", "profile 'ci'", "web identity", ... */
};

struct http_req;

/*
 * The transport every AWS request (the APIs and the credential endpoints)
 * goes through, with http_exchange()'s contract (http/http.h). NULL
 * in struct aws: http_exchange itself (libcurl). The unit suite puts its
 * in-memory AWS here (tests/unit/aws_fake.c).
 */
struct aws_transport {
	int (*exchange)(void *ctx, const struct http_req *r, long *status,
			struct buf *resp, int *timed_out, struct err *err);
	void *ctx;
};

struct aws {
	struct aws_creds creds;
	const struct aws_transport *transport; /* NULL: http_exchange */
	char *region;
	long timeout_ms;      /* per request (default 10000) */
	int max_retries;      /* on throttling and 5xx (default 4) */
	long backoff_ms;      /* first backoff (default 200), doubled, jittered */
	long backoff_cap_ms;  /* (default 3000) */
	long requests, retries;
};

enum aws_proto { AWS_QUERY, AWS_JSON10, AWS_JSON11 };

struct aws_answer {
	long status;
	char *code;    /* error code ("UnauthorizedOperation"), or NULL */
	char *message; /* the service's message, or NULL */
	struct buf body;
};

void aws_init(struct aws *a);
void aws_release(struct aws *a);
void aws_creds_release(struct aws_creds *c);
void aws_answer_release(struct aws_answer *ans);

/* aws_endpoint: the base URL of a service ("ec2", "ssm", "sqs", "sts") in
 * region: AWS_ENDPOINT_URL_EC2 (service id upper-cased), AWS_ENDPOINT_URL,
 * unless AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true; else
 * https://SERVICE.REGION.amazonaws.com. Fresh memory. */
char *aws_endpoint(const char *service, const char *region);

/* aws_endpoint_check: refuses an endpoint a signed request must not go to:
 * anything but https://, or plain http:// to a loopback address
 * (url_secret_safe; the SigV4 signature and the session token would travel
 * in clear) */
int aws_endpoint_check(const char *url, const char *service, struct err *err);

/* aws_form_add: "&key=value" (or "key=value" first), RFC 3986 encoded */
void aws_form_add(struct buf *form, const char *key, const char *value);

/*
 * aws_call: one API call, retried while throttled or 5xx. For AWS_QUERY,
 * body is the form (Action=...&Version=...); for JSON, target is the
 * X-Amz-Target ("AmazonSSM.GetParameter") and body the JSON document.
 * Returns 0 with any final HTTP status in *ans (code/message parsed from
 * an error answer); -1 when the endpoint could not be reached or timed
 * out (the message names the endpoint), or when credentials are rejected
 * (ERR_AUTH).
 */
int aws_call(struct aws *a, const char *service, enum aws_proto proto,
	     const char *target, const char *body, struct aws_answer *ans,
	     struct err *err);

/* aws_exchange: one request through a->transport (see above) */
int aws_exchange(struct aws *a, const struct http_req *r, long *status,
		 struct buf *resp, int *timed_out, struct err *err);

/* aws_is_denied: the code says a permission is missing */
int aws_is_denied(const char *code);
/* aws_is_throttle: the code or status asks to slow down */
int aws_is_throttle(long status, const char *code);

#endif
