/*
 * cmd/testhooks.c: the test suites' environment variables, read in one
 * place (see testhooks.h).
 */
#include "cmd/testhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil) */
static long days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int testhooks_now(time_t *now, struct buf *why)
{
	const char *s = getenv("GPUFORM_NOW");
	int y, mo, d, h, mi, sec, n = 0;

	if (!s || !*s) {
		*now = time(NULL);
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi,
		   &sec, &n) != 6 || (size_t)n != strlen(s) || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) {
		buf_addf(why, "GPUFORM_NOW='%s' is not an RFC 3339 UTC time "
			      "like 2026-01-31T02:30:00Z", s);
		return -1;
	}
	*now = (time_t)(days_from_civil(y, mo, d) * 86400L + h * 3600L +
			mi * 60L + sec);
	return 0;
}

long testhooks_seconds(const char *name)
{
	const char *s = getenv(name);
	long n;

	if (!s || (n = strtol(s, NULL, 10)) <= 0 || n > 600)
		return 0;
	return n;
}

void testhooks_sleep(long s)
{
	struct timespec ts = { (time_t)s, 0 };

	while (nanosleep(&ts, &ts) < 0)
		;
}
