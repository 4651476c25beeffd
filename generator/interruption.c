/*
 * generator/interruption.c: the interruption classes (see interruption.h).
 */
#include "generator/interruption.h"

#include <string.h>

#include "generator/window.h"

const char *const disr_reason_names[DR_NREASONS] = { "Empty", "Underutilized",
						     "Drifted", "Expired" };
const char *const disr_when_names[] = { "never",
					"only inside the maintenance window",
					"at any time" };

/*
 * The definition. Rows: none, checkpointed, tolerant; columns: Empty,
 * Underutilized, Drifted, Expired.
 *  - Empty nodes run no workload pod: removing them interrupts nothing.
 *  - none and checkpointed: consolidation of busy nodes and drift (AMI
 *    bumps, patching) only inside the window; never expiry, which no budget
 *    can hold to a window. They differ in capacity (spot) and in whether a
 *    drifted node waits for its do-not-disrupt pods (none) or drains within
 *    terminationGracePeriod (checkpointed).
 *  - tolerant: anything at any time, 10% of the nodes at once.
 */
static const enum disr_when table[3][DR_NREASONS] = {
	[INT_NONE] = { DW_ALWAYS, DW_IN_WINDOW, DW_IN_WINDOW, DW_NEVER },
	[INT_CHECKPOINTED] = { DW_ALWAYS, DW_IN_WINDOW, DW_IN_WINDOW, DW_NEVER },
	[INT_TOLERANT] = { DW_ALWAYS, DW_ALWAYS, DW_ALWAYS, DW_ALWAYS },
};

enum disr_when interruption_allows(enum wl_interruption c, enum disr_reason r)
{
	return table[c][r];
}

int interruption_spot(enum wl_interruption c)
{
	return c != INT_NONE;
}

const char *interruption_grace(enum wl_interruption c)
{
	return c == INT_NONE ? NULL : "1h";
}

const char *interruption_consolidate_after(enum wl_interruption c)
{
	return c == INT_TOLERANT ? "5m" : "30m";
}

int interruption_parse(const char *name, enum wl_interruption *out)
{
	for (int i = 0; name && i < 3; i++)
		if (!strcmp(name, wl_interruption_names[i])) {
			*out = (enum wl_interruption)i;
			return 0;
		}
	return -1;
}

void interruption_budgets(enum wl_interruption c,
			  struct interruption_budgets *out)
{
	memset(out, 0, sizeof(*out));
	/* expiry is not a budget reason: expireAfter carries it */
	for (int r = DR_EMPTY; r < DR_EXPIRED; r++) {
		if (table[c][r] == DW_NEVER)
			out->never[out->nnever++] = (enum disr_reason)r;
		else if (table[c][r] == DW_IN_WINDOW)
			out->outside[out->noutside++] = (enum disr_reason)r;
	}
}

size_t spot_to_spot_replaceable(const double *prices, size_t n)
{
	size_t ok = 0;

	for (size_t i = 0; i < n; i++) {
		size_t cheaper = 0;
		for (size_t j = 0; j < n; j++)
			cheaper += prices[j] < prices[i];
		ok += cheaper >= SPOT_TO_SPOT_MIN_CHEAPER;
	}
	return ok;
}

int interruption_hold(const char *mode, const char *sched, const char *dur,
		      long mow, long *mins, struct buf *why)
{
	enum wl_interruption c;
	enum disr_when drift;
	struct window w;

	*mins = -1;
	/* node replacement is drift: held when the class allows Drifted only
	 * inside the window (or never), as the pool's budgets do */
	if (interruption_parse(mode, &c) < 0 ||
	    (drift = interruption_allows(c, DR_DRIFTED)) == DW_ALWAYS)
		return 0;
	if (drift == DW_NEVER || !sched || !dur ||
	    window_parse(&w, sched, dur, why) < 0)
		return 1;
	*mins = window_next_start(&w, mow);
	return *mins != 0;
}
