/*
 * tests/unit/test_window.c: Check suite for generator/window.c — parsing a
 * maintenance window ("M H * * D" or "M H * * *" plus a duration), the
 * complement Karpenter's blocking budget uses, duration formatting, and
 * the minutes until the window next opens. Pure; no clock involved.
 */
#include <string.h>

#include <check.h>

#include "generator/window.h"
#include "tests/unit/suites.h"
#include "util/buf.h"

#define DAY 1440L
#define WEEK 10080L

/* minute of the week: day 0 = Sunday */
static long mow(int day, int hour, int minute)
{
	return day * DAY + hour * 60L + minute;
}

static void parse_ok(struct window *w, const char *schedule,
		     const char *duration)
{
	struct buf why = BUF_INIT;
	int r = window_parse(w, schedule, duration, &why);

	ck_assert_msg(r == 0, "'%s' + '%s': %s", schedule, duration,
		      buf_cstr(&why));
	ck_assert_str_eq(buf_cstr(&why), "");
	buf_release(&why);
}

/* must fail with a reason containing `reason` */
static void parse_fails(const char *schedule, const char *duration,
			const char *reason)
{
	struct window w;
	struct buf why = BUF_INIT;

	ck_assert_msg(window_parse(&w, schedule, duration, &why) == -1,
		      "'%s' + '%s' was accepted", schedule, duration);
	ck_assert_msg(strstr(buf_cstr(&why), reason) != NULL,
		      "'%s' + '%s': reason '%s' lacks '%s'", schedule, duration,
		      buf_cstr(&why), reason);
	ck_assert_ptr_null(strchr(buf_cstr(&why), '\n'));
	buf_release(&why);
}

static void expect_complement(const char *schedule, const char *duration,
			      const char *want_sched, const char *want_dur)
{
	struct window w;
	struct buf s = BUF_INIT, d = BUF_INIT;

	parse_ok(&w, schedule, duration);
	window_complement(&w, &s, &d);
	ck_assert_str_eq(buf_cstr(&s), want_sched);
	ck_assert_str_eq(buf_cstr(&d), want_dur);
	buf_release(&s);
	buf_release(&d);
}

/* ---- parse ---------------------------------------------------------------- */

START_TEST(test_parse_weekly_forms)
{
	static const char *const forms[] = { "0 2 * * sat", "0 2 * * 6",
					     "0 2 * * SAT", "0 2 * * Sat",
					     "  0  2 * *   sat  " };
	struct window w;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		parse_ok(&w, forms[i], "4h");
		ck_assert_int_eq(w.minute, 0);
		ck_assert_int_eq(w.hour, 2);
		ck_assert_int_eq(w.dow, 6);
		ck_assert_int_eq(w.duration, 240);
		ck_assert_int_eq(w.period, WEEK);
	}
	/* 0 and 7 are both Sunday */
	parse_ok(&w, "15 23 * * 7", "1h30m");
	ck_assert_int_eq(w.dow, 0);
	ck_assert_int_eq(w.minute, 15);
	ck_assert_int_eq(w.hour, 23);
	ck_assert_int_eq(w.duration, 90);
	parse_ok(&w, "0 0 * * 0", "30m");
	ck_assert_int_eq(w.dow, 0);
	ck_assert_int_eq(w.duration, 30);
	parse_ok(&w, "59 23 * * wed", "167h");
	ck_assert_int_eq(w.dow, 3);
	ck_assert_int_eq(w.duration, 167 * 60);
}
END_TEST

START_TEST(test_parse_daily)
{
	struct window w;

	parse_ok(&w, "30 3 * * *", "2h");
	ck_assert_int_eq(w.minute, 30);
	ck_assert_int_eq(w.hour, 3);
	ck_assert_int_eq(w.dow, -1);
	ck_assert_int_eq(w.duration, 120);
	ck_assert_int_eq(w.period, DAY);
	parse_ok(&w, "0 0 * * *", "23h59m");
	ck_assert_int_eq(w.duration, DAY - 1);
}
END_TEST

START_TEST(test_parse_rejects)
{
	parse_fails("0 2 * *", "4h", "five cron fields");
	parse_fails("0 2 * * sat *", "4h", "five cron fields");
	parse_fails("", "4h", "five cron fields");
	/* a field too long for any value fails too, whatever the reason */
	parse_fails("0 2 * * saturdaysaturdaysaturdaysaturdaysaturdaysaturdaysaturdaysaturday",
		    "4h", "schedule");
	parse_fails("60 2 * * sat", "4h", "minute must be 0-59");
	parse_fails("0 24 * * sat", "4h", "hour 0-23");
	parse_fails("*/5 2 * * sat", "4h", "each a single number");
	parse_fails("0 2-4 * * sat", "4h", "each a single number");
	parse_fails("-1 2 * * sat", "4h", "minute must be 0-59");
	parse_fails("0 2 1 * sat", "4h", "day-of-month and month must be '*'");
	parse_fails("0 2 * 1 sat", "4h", "day-of-month and month must be '*'");
	parse_fails("0 2 * * 8", "4h", "schedule day must be one day");
	parse_fails("0 2 * * sat,sun", "4h", "schedule day must be one day");
	parse_fails("0 2 * * 1-5", "4h", "schedule day must be one day");
	parse_fails("0 2 * * saturday", "4h", "schedule day must be one day");
	parse_fails("@weekly", "4h", "five cron fields");

	parse_fails("0 2 * * sat", "4", "duration must look like 4h");
	parse_fails("0 2 * * sat", "", "duration must look like 4h");
	parse_fails("0 2 * * sat", "4d", "duration must look like 4h");
	/* whole minutes only */
	parse_fails("0 2 * * sat", "3601s", "duration must look like 4h");
	parse_fails("0 2 * * sat", "29m", "at least 30m");
	parse_fails("0 2 * * sat", "168h", "168h weekly period");
	parse_fails("30 3 * * *", "24h", "24h daily period");
	parse_fails("30 3 * * *", "25h", "24h daily period");
}
END_TEST

/* ---- complement --------------------------------------------------------- */

START_TEST(test_complement_weekly)
{
	/* Saturday 02:00 + 4h: blocked from Saturday 06:00 for 164h */
	expect_complement("0 2 * * sat", "4h", "0 6 * * sat", "164h");
	expect_complement("0 2 * * 6", "4h", "0 6 * * sat", "164h");
	expect_complement("45 1 * * mon", "1h30m", "15 3 * * mon", "166h30m");
	/* ends at the next day */
	expect_complement("0 20 * * wed", "6h", "0 2 * * thu", "162h");
}
END_TEST

START_TEST(test_complement_across_week_end)
{
	/* Saturday 22:00 + 4h ends Sunday 02:00 */
	expect_complement("0 22 * * sat", "4h", "0 2 * * sun", "164h");
	/* ending exactly at the week boundary */
	expect_complement("0 20 * * sat", "4h", "0 0 * * sun", "164h");
	/* Sunday written as 7 */
	expect_complement("30 23 * * 7", "1h", "30 0 * * mon", "167h");
}
END_TEST

START_TEST(test_complement_daily)
{
	expect_complement("30 3 * * *", "2h", "30 5 * * *", "22h");
	/* across midnight */
	expect_complement("0 23 * * *", "3h", "0 2 * * *", "21h");
	expect_complement("15 0 * * *", "30m", "45 0 * * *", "23h30m");
}
END_TEST

START_TEST(test_format_duration)
{
	static const struct {
		long minutes;
		const char *want;
	} cases[] = {
		{ 90, "1h30m" }, { 60, "1h" },	   { 30, "30m" },
		{ 0, "0m" },	 { 9840, "164h" }, { 1441, "24h1m" },
		{ 59, "59m" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "x=");
		window_format_duration(cases[i].minutes, &b);
		/* appends */
		ck_assert_ptr_eq(strstr(buf_cstr(&b), "x="), buf_cstr(&b));
		ck_assert_str_eq(buf_cstr(&b) + 2, cases[i].want);
		buf_release(&b);
	}
}
END_TEST

/* ---- next start ----------------------------------------------------------- */

START_TEST(test_next_start_weekly)
{
	struct window w;

	parse_ok(&w, "0 2 * * sat", "4h");
	/* open from the first minute up to (not including) the end */
	ck_assert_int_eq(window_next_start(&w, mow(6, 2, 0)), 0);
	ck_assert_int_eq(window_next_start(&w, mow(6, 5, 59)), 0);
	ck_assert_int_eq(window_next_start(&w, mow(6, 6, 0)), WEEK - 240);
	/* just before */
	ck_assert_int_eq(window_next_start(&w, mow(6, 1, 59)), 1);
	/* Sunday 00:00: six days and two hours */
	ck_assert_int_eq(window_next_start(&w, 0), mow(6, 2, 0));
	ck_assert_int_eq(window_next_start(&w, mow(3, 12, 0)),
			 mow(6, 2, 0) - mow(3, 12, 0));
	/* the clock may be given past the week: taken modulo */
	ck_assert_int_eq(window_next_start(&w, WEEK + mow(6, 1, 0)), 60);
}
END_TEST

START_TEST(test_next_start_wrapping)
{
	struct window w;

	/* Saturday 22:00 + 4h: open until Sunday 02:00 */
	parse_ok(&w, "0 22 * * sat", "4h");
	ck_assert_int_eq(window_next_start(&w, mow(6, 22, 0)), 0);
	ck_assert_int_eq(window_next_start(&w, WEEK - 1), 0);
	ck_assert_int_eq(window_next_start(&w, 0), 0);
	ck_assert_int_eq(window_next_start(&w, mow(0, 1, 59)), 0);
	ck_assert_int_eq(window_next_start(&w, mow(0, 2, 0)), WEEK - 240);
	ck_assert_int_eq(window_next_start(&w, mow(6, 21, 0)), 60);
}
END_TEST

START_TEST(test_next_start_daily)
{
	struct window w;

	parse_ok(&w, "30 3 * * *", "2h");
	ck_assert_int_eq(window_next_start(&w, mow(0, 3, 30)), 0);
	/* any day of the week */
	ck_assert_int_eq(window_next_start(&w, mow(4, 5, 29)), 0);
	ck_assert_int_eq(window_next_start(&w, mow(4, 5, 30)), DAY - 120);
	ck_assert_int_eq(window_next_start(&w, mow(2, 3, 20)), 10);
	ck_assert_int_eq(window_next_start(&w, mow(2, 0, 0)), 210);

	/* a daily window over midnight */
	parse_ok(&w, "0 23 * * *", "3h");
	ck_assert_int_eq(window_next_start(&w, mow(1, 1, 0)), 0);
	ck_assert_int_eq(window_next_start(&w, mow(1, 2, 0)), DAY - 180);
	ck_assert_int_eq(window_next_start(&w, mow(1, 22, 0)), 60);
}
END_TEST

Suite *window_suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_weekly_forms);
	tcase_add_test(tc, test_parse_daily);
	tcase_add_test(tc, test_parse_rejects);
	suite_add_tcase(s, tc);

	tc = tcase_create("complement");
	tcase_add_test(tc, test_complement_weekly);
	tcase_add_test(tc, test_complement_across_week_end);
	tcase_add_test(tc, test_complement_daily);
	tcase_add_test(tc, test_format_duration);
	suite_add_tcase(s, tc);

	tc = tcase_create("next");
	tcase_add_test(tc, test_next_start_weekly);
	tcase_add_test(tc, test_next_start_wrapping);
	tcase_add_test(tc, test_next_start_daily);
	suite_add_tcase(s, tc);
	return s;
}
