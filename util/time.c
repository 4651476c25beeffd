/* util/time.c: civil dates and RFC 3339 (see time.h). */
#include "util/time.h"

#include <stddef.h>
#include <string.h>

long long time_days_from_civil(long long y, unsigned m, unsigned d)
{
	long long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

/* n decimal digits at *p, advancing it */
static int digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	*out = v;
	return 0;
}

int time_parse_rfc3339(const char *s, long long *secs, double *frac)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	double f = 0, scale = 0.1;

	if (!s || digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) ||
	    *s++ != '-' || digits(&s, 2, &d) || (*s != 'T' && *s != 't'))
		return -1;
	s++;
	if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi) ||
	    *s++ != ':' || digits(&s, 2, &sec))
		return -1;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++, scale /= 10)
			f += (*s - '0') * scale;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '+' ? 1 : -1;
		if (digits(&s, 2, &oh) || *s++ != ':' || digits(&s, 2, &om) ||
		    oh > 23 || om > 59)
			return -1;
	} else {
		return -1;
	}
	if (*s || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		return -1;
	*secs = time_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
		h * 3600 + mi * 60 + sec - sign * (oh * 3600 + om * 60);
	if (frac)
		*frac = f;
	return 0;
}

/* the unit at s: its length in *n and its seconds, or 0 */
static double unit_seconds(const char *s, size_t *n, int hms)
{
	static const struct {
		const char *name;
		double secs;
		int hms;
	} units[] = {
		/* longest first: "ms" before "m" */
		{ "ns", 1e-9, 0 }, { "us", 1e-6, 0 }, { "\xc2\xb5s", 1e-6, 0 },
		{ "\xce\xbcs", 1e-6, 0 }, { "ms", 1e-3, 0 }, { "s", 1, 1 },
		{ "m", 60, 1 }, { "h", 3600, 1 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].name);
		if (!strncmp(s, units[i].name, l) && (units[i].hms || !hms)) {
			*n = l;
			return units[i].secs;
		}
	}
	return 0;
}

int time_parse_duration(const char *s, int flags, double *out)
{
	int hms = flags & TIME_DUR_HMS, neg = 0;
	double total = 0;

	if (!s || !*s)
		return -1;
	if (!hms && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	if (!hms && !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (!*s)
		return -1;
	while (*s) {
		double v = 0, scale = 1, unit;
		int digits = 0;
		size_t n;

		for (; *s >= '0' && *s <= '9'; s++, digits++) {
			v = v * 10 + (*s - '0');
			if (hms && v > 1000000000.0)
				return -1;
		}
		if (*s == '.' && !hms) {
			for (s++; *s >= '0' && *s <= '9'; s++, digits++)
				v += (*s - '0') * (scale /= 10);
		}
		if (!digits || !(unit = unit_seconds(s, &n, hms)))
			return -1;
		s += n;
		total += v * unit;
	}
	*out = neg ? -total : total;
	return 0;
}
