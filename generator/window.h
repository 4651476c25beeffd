/*
 * generator/window.h: maintenance windows and their complement.
 *
 * Karpenter disruption budgets are active only while their cron schedule
 * runs, and the most restrictive active budget wins: a budget cannot
 * *allow* disruption inside a window. "Disrupt only in the window" is
 * therefore a blocking budget (nodes: "0") over the complement of the
 * window. This module parses the window ("M H * * D" weekly or "M H * * *"
 * daily, plus a duration) and computes that complement.
 */
#ifndef GENERATOR_WINDOW_H
#define GENERATOR_WINDOW_H

#include "util/buf.h"

struct window {
	int minute, hour;
	int dow;          /* 0 (sun) .. 6 (sat); -1 = every day */
	long duration;    /* minutes */
	long period;      /* 1440 (daily) or 10080 (weekly) */
};

/*
 * window_parse: 0 on success; on failure -1 and a one-line reason in *why
 * ("schedule must be 'M H * * D' ..."), to be turned into a diagnostic.
 */
int window_parse(struct window *out, const char *schedule,
		 const char *duration, struct buf *why);

/* window_complement: cron schedule and Karpenter duration ("164h") of the
 * time outside the window. */
void window_complement(const struct window *w, struct buf *schedule,
		       struct buf *duration);

/* window_format_duration: minutes as Karpenter writes durations ("1h30m"). */
void window_format_duration(long minutes, struct buf *out);

/* window_next_start: minutes from `now_minute_of_week` (0 = Sunday 00:00
 * UTC) until the window next opens (0 if it is open now). */
long window_next_start(const struct window *w, long now_minute_of_week);

#endif
