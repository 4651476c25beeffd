/*
 * cmd/testhooks.c: the test suites' environment variables, read in one
 * place (see testhooks.h).
 */
#include "cmd/testhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/time.h"

int testhooks_now(time_t *now, struct buf *why)
{
	const char *s = getenv("GPUFORM_NOW");
	long long t;

	if (!s || !*s) {
		*now = time(NULL);
		return 0;
	}
	/* UTC, whole seconds: 2026-01-31T02:30:00Z */
	if (strlen(s) != 20 || s[19] != 'Z' ||
	    time_parse_rfc3339(s, &t, NULL) < 0) {
		buf_addf(why, "GPUFORM_NOW='%s' is not an RFC 3339 UTC time "
			      "like 2026-01-31T02:30:00Z", s);
		return -1;
	}
	*now = (time_t)t;
	return 0;
}
