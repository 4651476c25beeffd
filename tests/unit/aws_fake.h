/*
 * tests/unit/aws_fake.h: an in-memory AWS behind struct aws_transport
 * (aws/aws.h), for unit tests of the AWS client, the credential
 * chain and preflight's questions without a server.
 *
 * It answers from rules, first match wins: a rule matches a request when
 * its method (NULL: any) equals, its `url` is a substring of the URL and
 * its `body` (NULL: any) a substring of the body (the query form, e.g.
 * "Action=DescribeSubnets", or the JSON). A rule answers `times` requests
 * (0: every one), then stops matching. status -1 is a transport failure
 * (http_exchange's -1), -2 a timeout. A request no rule matches is a
 * transport failure "aws_fake: no rule for ...", so a missing rule fails
 * the test rather than hanging. Every request is logged as one line
 * "METHOD URL Action" (the form's Action or the X-Amz-Target, else "-")
 * in `log`, and each request's headers as lines in `headers`.
 */
#ifndef TESTS_UNIT_AWS_FAKE_H
#define TESTS_UNIT_AWS_FAKE_H

#include "aws/aws.h"
#include "util/buf.h"

struct aws_fake_rule {
	const char *method, *url, *body;
	long status;
	const char *answer;
	int times;
	int used;
};

struct aws_fake {
	struct aws_transport t;
	struct aws_fake_rule rules[32];
	size_t nrules;
	struct buf log, headers;
	size_t requests;
};

/* aws_fake_init: an empty fake, installed as a->transport; a's backoff is
 * set to 0 ms so retries do not sleep */
void aws_fake_init(struct aws_fake *f, struct aws *a);
void aws_fake_release(struct aws_fake *f);
/* aws_fake_on: add a rule (strings are not copied: literals) */
void aws_fake_on(struct aws_fake *f, const char *method, const char *url,
		 const char *body, long status, const char *answer, int times);

#endif
