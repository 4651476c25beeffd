/*
 * aws/sigv4.h: AWS Signature Version 4, for the requests of aws/aws.c
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
 *
 * Pure: the caller gives the time, the request and the keys, and gets the
 * header lines that sign it; util/digest.h does SHA-256 and HMAC. The test
 * vectors of AWS's SigV4 test suite (tests/fixtures/sigv4/) are checked in
 * tests/unit/test_aws.c; tests/preflight.sh has every signed request
 * verified by botocore.
 *
 * What is signed: every header given (names lower-cased, values trimmed
 * and inner runs of spaces collapsed, sorted by name; the caller gives
 * each name once), the path as sent (each byte but unreserved ones and
 * '/' percent-encoded, as the services other than S3 do), the query
 * (its parameters sorted) and the SHA-256 of the body.
 */
#ifndef AWS_SIGV4_H
#define AWS_SIGV4_H

#include <stddef.h>

#include "util/buf.h"

struct sigv4_req {
	const char *method;
	const char *url;             /* scheme://[user@]host[:port][/path][?query] */
	const char *const *headers;  /* "Name: value", NULL-terminated; may be
				      * NULL; not Host, not X-Amz-Date */
	const char *body;            /* may be NULL */
	size_t len;
	const char *region, *service;
	const char *key_id, *secret;
	long long now;               /* Unix seconds */
};

/*
 * sigv4_sign: appends to lines the three header lines to send with the
 * request, each NUL-terminated and in this order: "Host: <the URL's
 * host[:port], without user info and a default port>",
 * "X-Amz-Date: <YYYYMMDDTHHMMSSZ>", "Authorization: AWS4-HMAC-SHA256
 * Credential=..., SignedHeaders=..., Signature=...". *offsets gets where
 * each starts in lines->ptr.
 */
void sigv4_sign(const struct sigv4_req *r, struct buf *lines,
		size_t offsets[3]);

#endif
