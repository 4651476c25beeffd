/*
 * generator/window.c: maintenance windows (see window.h). Pure: no clock.
 */
#include "generator/window.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"

static const char *const dow_names[] = { "sun", "mon", "tue", "wed",
					 "thu", "fri", "sat" };

static int parse_num(const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

int window_parse(struct window *out, const char *schedule,
		 const char *duration, struct buf *why)
{
	char f[5][64];
	int n = 0;
	const char *p = schedule;
	long long secs;

	memset(out, 0, sizeof(*out));
	while (*p && n < 6) {
		size_t len;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " ");
		if (n == 5) {
			n = 6;
			break;
		}
		{
			/* a field too long for any valid value is cut short;
			 * it then fails its own check */
			size_t copy = len < sizeof(f[0]) ? len : sizeof(f[0]) - 1;
			memcpy(f[n], p, copy);
			f[n][copy] = '\0';
		}
		n++;
		p += len;
	}
	if (n != 5) {
		buf_adds(why, "schedule must have five cron fields "
			      "'MINUTE HOUR * * DAY' (e.g. \"0 2 * * sat\")");
		return -1;
	}
	if (parse_num(f[0], 0, 59, &out->minute) < 0 ||
	    parse_num(f[1], 0, 23, &out->hour) < 0) {
		buf_adds(why, "schedule minute must be 0-59 and hour 0-23, "
			      "each a single number");
		return -1;
	}
	if (strcmp(f[2], "*") || strcmp(f[3], "*")) {
		buf_adds(why, "schedule day-of-month and month must be '*' "
			      "(gpuform supports daily or weekly windows)");
		return -1;
	}
	if (!strcmp(f[4], "*")) {
		out->dow = -1;
		out->period = 1440;
	} else {
		int d = -1;
		for (int i = 0; i < 7; i++) {
			char lower[16];
			size_t k;
			for (k = 0; f[4][k] && k < sizeof(lower) - 1; k++)
				lower[k] = (char)tolower((unsigned char)f[4][k]);
			lower[k] = '\0';
			if (!strcmp(lower, dow_names[i]))
				d = i;
		}
		if (d < 0 && parse_num(f[4], 0, 7, &d) == 0)
			d %= 7;
		if (d < 0) {
			buf_adds(why, "schedule day must be one day (0-7 or "
				      "sun..sat) or '*' for every day");
			return -1;
		}
		out->dow = d;
		out->period = 10080;
	}
	secs = intent_parse_duration(duration);
	if (secs < 0 || secs % 60) {
		buf_adds(why, "duration must look like 4h, 30m or 1h30m");
		return -1;
	}
	out->duration = (long)(secs / 60);
	if (out->duration < 30 || out->duration >= out->period) {
		buf_addf(why,
			 "duration must be at least 30m and shorter than the "
			 "%s period",
			 out->period == 1440 ? "24h daily" : "168h weekly");
		return -1;
	}
	return 0;
}

void window_format_duration(long minutes, struct buf *out)
{
	long h = minutes / 60, m = minutes % 60;

	if (h && m)
		buf_addf(out, "%ldh%ldm", h, m);
	else if (h)
		buf_addf(out, "%ldh", h);
	else
		buf_addf(out, "%ldm", m);
}

void window_complement(const struct window *w, struct buf *schedule,
		       struct buf *duration)
{
	long start = (w->dow < 0 ? 0 : w->dow * 1440L) + w->hour * 60L +
		     w->minute;
	long end = (start + w->duration) % w->period;

	if (w->dow < 0)
		buf_addf(schedule, "%ld %ld * * *", end % 60, (end / 60) % 24);
	else
		buf_addf(schedule, "%ld %ld * * %s", end % 60, (end / 60) % 24,
			 dow_names[end / 1440]);
	window_format_duration(w->period - w->duration, duration);
}

long window_next_start(const struct window *w, long now)
{
	long start = (w->dow < 0 ? 0 : w->dow * 1440L) + w->hour * 60L +
		     w->minute;
	long t = now % w->period;
	long since = ((t - start) % w->period + w->period) % w->period;

	if (since < w->duration)
		return 0;
	return w->period - since;
}
