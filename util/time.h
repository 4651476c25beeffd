/*
 * util/time.h: calendar time without the C library's time zones: civil
 * dates to days (Howard Hinnant's days_from_civil, proleptic Gregorian) and
 * RFC 3339 timestamps ("2026-01-02T03:04:05[.123](Z|+01:00)") as Kubernetes
 * and client-go write them — one parser for Lease renew times, exec
 * credential expiry and GPUFORM_NOW — and Go's durations ("1h30m"), one
 * parser for the intent and for Karpenter's fields.
 */
#ifndef UTIL_TIME_H
#define UTIL_TIME_H

/* time_days_from_civil: days since 1970-01-01 of y-m-d (m 1..12) */
long long time_days_from_civil(long long y, unsigned m, unsigned d);

/*
 * time_parse_rfc3339: Unix seconds in *secs and the fraction of a second in
 * *frac (may be NULL). 'T'/'t' and 'Z'/'z' in either case; a fraction needs
 * a digit after the '.'; the offset is +HH:MM or -HH:MM (HH <= 23, MM <=
 * 59). Month, day, hour, minute and second are range-checked (second 60:
 * a leap second). Returns -1 for anything else, NULL included.
 */
int time_parse_rfc3339(const char *s, long long *secs, double *frac);

enum {
	/* whole numbers with units h, m or s only, no sign, each number at
	 * most 10^9 (the intent's durations, --timeout) */
	TIME_DUR_HMS = 1,
};

/*
 * time_parse_duration: Go's time.ParseDuration syntax — an optional sign,
 * then one or more numbers (digits, an optional fraction) each with a unit
 * ns, us, µs, ms, s, m or h; "0" alone is zero. The seconds go to *out.
 * Returns -1 for anything else.
 */
int time_parse_duration(const char *s, int flags, double *out);

#endif
