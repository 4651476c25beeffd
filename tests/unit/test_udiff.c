/*
 * tests/unit/test_udiff.c: Check suite for util/udiff.c — unified diffs of
 * two texts. Every expected diff below is what GNU `diff -u --label a
 * --label b` (diffutils 3.x) prints for the same inputs, written out
 * literally.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/udiff.h"
#include "util/xalloc.h"

/* lines "<prefix>1\n" .. "<prefix>n\n", with line `change` (1-based; 0 =
 * none) and `change2` written in upper case */
static char *numbered(int n, int change, int change2)
{
	struct buf b = BUF_INIT;

	for (int i = 1; i <= n; i++)
		buf_addf(&b, "%s%d\n", i == change || i == change2 ? "L" : "l",
			 i);
	return buf_detach(&b, NULL);
}

static void expect_diff(const char *a, const char *b, int context,
			const char *want)
{
	struct buf out = BUF_INIT;
	int r = udiff(&out, a, b, "a", "b", context);

	ck_assert_msg(r == 1, "udiff returned %d", r);
	ck_assert_msg(!strcmp(buf_cstr(&out), want), "got:\n%s\nwant:\n%s",
		      buf_cstr(&out), want);
	buf_release(&out);
}

START_TEST(test_equal)
{
	struct buf out = BUF_INIT;
	char *a = numbered(5, 0, 0);

	buf_adds(&out, "keep");
	ck_assert_int_eq(udiff(&out, a, a, "a", "b", 3), 0);
	ck_assert_int_eq(udiff(&out, "", "", "a", "b", 3), 0);
	ck_assert_int_eq(udiff(&out, "x", "x", "a", "b", 3), 0);
	/* nothing appended */
	ck_assert_str_eq(buf_cstr(&out), "keep");
	buf_release(&out);
	free(a);
}
END_TEST

START_TEST(test_one_change_middle)
{
	char *a = numbered(11, 0, 0), *b = numbered(11, 6, 0);
	struct buf out = BUF_INIT;

	expect_diff(a, b, 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -3,7 +3,7 @@\n"
		    " l3\n"
		    " l4\n"
		    " l5\n"
		    "-l6\n"
		    "+L6\n"
		    " l7\n"
		    " l8\n"
		    " l9\n");
	/* appends after what is there; labels as given */
	buf_adds(&out, "prior\n");
	ck_assert_int_eq(udiff(&out, a, b, "live/x.yaml", "desired/x.yaml", 3),
			 1);
	ck_assert(!strncmp(buf_cstr(&out),
			   "prior\n--- live/x.yaml\n+++ desired/x.yaml\n@@ ", 44));
	buf_release(&out);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_context_sizes)
{
	char *a = numbered(11, 0, 0), *b = numbered(11, 6, 0);

	expect_diff(a, b, 1,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -5,3 +5,3 @@\n"
		    " l5\n"
		    "-l6\n"
		    "+L6\n"
		    " l7\n");
	/* more context than there are lines */
	expect_diff(a, b, 20,
		    "--- a\n+++ b\n@@ -1,11 +1,11 @@\n"
		    " l1\n l2\n l3\n l4\n l5\n-l6\n+L6\n l7\n l8\n l9\n l10\n"
		    " l11\n");
	free(a);
	free(b);
}
END_TEST

START_TEST(test_addition_at_end)
{
	expect_diff("a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne\nf\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -3,3 +3,4 @@\n"
		    " c\n"
		    " d\n"
		    " e\n"
		    "+f\n");
}
END_TEST

START_TEST(test_addition_at_start)
{
	expect_diff("a\nb\nc\nd\ne\n", "z\na\nb\nc\nd\ne\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,3 +1,4 @@\n"
		    "+z\n"
		    " a\n"
		    " b\n"
		    " c\n");
}
END_TEST

START_TEST(test_removal_at_end)
{
	expect_diff("a\nb\nc\nd\n", "a\nb\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,4 +1,2 @@\n"
		    " a\n"
		    " b\n"
		    "-c\n"
		    "-d\n");
}
END_TEST

START_TEST(test_from_and_to_empty)
{
	expect_diff("", "x\ny\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -0,0 +1,2 @@\n"
		    "+x\n"
		    "+y\n");
	expect_diff("x\ny\n", "", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,2 +0,0 @@\n"
		    "-x\n"
		    "-y\n");
}
END_TEST

/* a change far from the missing final newline: no marker involved */
START_TEST(test_no_trailing_newline)
{
	char *a = numbered(10, 0, 0), *b = numbered(10, 2, 0);

	a[strlen(a) - 1] = '\0';
	b[strlen(b) - 1] = '\0';
	expect_diff(a, b, 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,5 +1,5 @@\n"
		    " l1\n"
		    "-l2\n"
		    "+L2\n"
		    " l3\n"
		    " l4\n"
		    " l5\n");
	free(a);
	free(b);
}
END_TEST

/*
 * Fixed bug (util/udiff.c, udiff); the test guards the fix.
 * Before it: split() drops the final newline, so texts that
 * differ only in it ("x\ny" vs "x\ny\n") give identical line lists: udiff()
 * returns 1 ("they differ") but appends only the two header lines, no hunk.
 * diff -u prints the last line as changed, with "\ No newline at end of
 * file" after the line that lacks it (expected text below). The same
 * marker is missing whenever a hunk reaches a last line without newline.
 */
START_TEST(test_only_final_newline_differs)
{
	expect_diff("x\ny", "x\ny\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,2 +1,2 @@\n"
		    " x\n"
		    "-y\n"
		    "\\ No newline at end of file\n"
		    "+y\n");
}
END_TEST

/*
 * Fixed bug (util/udiff.c, udiff); the test guards the fix.
 * Before it: the "+" start of a hunk is taken from the
 * first op after removals were moved before additions; when the LCS walk
 * emitted the additions first, that op's b index is past them. So a hunk
 * that begins with a change block (a change on the first line, or any
 * change with context 0) gets a wrong "+start": "a\nb\n" -> "c\nd\n"
 * gives "@@ -1,2 +3,2 @@" instead of "@@ -1,2 +1,2 @@".
 */
START_TEST(test_completely_different)
{
	expect_diff("a\nb\n", "c\nd\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,2 +1,2 @@\n"
		    "-a\n"
		    "-b\n"
		    "+c\n"
		    "+d\n");
}
END_TEST

/* Fixed bug (util/udiff.c, udiff); the test guards the fix.
 * Before it: same as test_completely_different; a
 * changed first line gives "@@ -1,4 +2,4 @@" */
START_TEST(test_first_line_changed)
{
	expect_diff("a\nx\ny\nz\n", "b\nx\ny\nz\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,4 +1,4 @@\n"
		    "-a\n"
		    "+b\n"
		    " x\n"
		    " y\n"
		    " z\n");
}
END_TEST

/* Fixed bug (util/udiff.c, udiff); the test guards the fix.
 * Before it: same as test_completely_different; with
 * context 0, "@@ -6,2 +6,2 @@" comes out as "@@ -6,2 +8,2 @@" */
START_TEST(test_context_zero)
{
	char *a = numbered(11, 0, 0), *b = numbered(11, 6, 7);

	expect_diff(a, b, 0,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -6,2 +6,2 @@\n"
		    "-l6\n"
		    "-l7\n"
		    "+L6\n"
		    "+L7\n");
	free(a);
	free(b);
}
END_TEST

START_TEST(test_two_hunks_far_apart)
{
	char *a = numbered(20, 0, 0), *b = numbered(20, 3, 17);

	expect_diff(a, b, 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,6 +1,6 @@\n"
		    " l1\n"
		    " l2\n"
		    "-l3\n"
		    "+L3\n"
		    " l4\n"
		    " l5\n"
		    " l6\n"
		    "@@ -14,7 +14,7 @@\n"
		    " l14\n"
		    " l15\n"
		    " l16\n"
		    "-l17\n"
		    "+L17\n"
		    " l18\n"
		    " l19\n"
		    " l20\n");
	free(a);
	free(b);
}
END_TEST

START_TEST(test_close_changes_one_hunk)
{
	/* 6 unchanged lines between (2 x context): still one hunk */
	char *a = numbered(20, 0, 0), *b = numbered(20, 5, 12);

	expect_diff(a, b, 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -2,14 +2,14 @@\n"
		    " l2\n"
		    " l3\n"
		    " l4\n"
		    "-l5\n"
		    "+L5\n"
		    " l6\n"
		    " l7\n"
		    " l8\n"
		    " l9\n"
		    " l10\n"
		    " l11\n"
		    "-l12\n"
		    "+L12\n"
		    " l13\n"
		    " l14\n"
		    " l15\n");
	free(b);
	/* 7 between: two hunks */
	b = numbered(20, 5, 13);
	expect_diff(a, b, 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -2,7 +2,7 @@\n"
		    " l2\n"
		    " l3\n"
		    " l4\n"
		    "-l5\n"
		    "+L5\n"
		    " l6\n"
		    " l7\n"
		    " l8\n"
		    "@@ -10,7 +10,7 @@\n"
		    " l10\n"
		    " l11\n"
		    " l12\n"
		    "-l13\n"
		    "+L13\n"
		    " l14\n"
		    " l15\n"
		    " l16\n");
	free(a);
	free(b);
}
END_TEST

START_TEST(test_mixed_block)
{
	/* removals of a change block come before its additions */
	expect_diff("k\na\nb\nm\n", "k\nx\nm\ny\n", 3,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -1,4 +1,4 @@\n"
		    " k\n"
		    "-a\n"
		    "-b\n"
		    "+x\n"
		    " m\n"
		    "+y\n");
}
END_TEST

/*
 * Fixed bug (util/udiff.c, udiff; minor); the test guards the fix.
 * Before it: a range of exactly one line is printed
 * as "-2,1"; diff -u (and POSIX) print just the start line, "@@ -2 +1,0 @@"
 * here (git and patch accept both, but the header promises diff -u's
 * output).
 */
START_TEST(test_one_line_ranges)
{
	expect_diff("a\nb\nc\n", "a\nc\n", 0,
		    "--- a\n"
		    "+++ b\n"
		    "@@ -2 +1,0 @@\n"
		    "-b\n");
}
END_TEST

/* past UDIFF_MAX_CELLS (the lines after the common leading ones): the
 * rest removed, the rest added */
START_TEST(test_huge_fallback)
{
	int n = 2100; /* (n + 1)^2 > 4 Mi cells */
	char *a = numbered(n, 0, 0), *b = numbered(n, 2, 0);
	struct buf out = BUF_INIT, want = BUF_INIT;

	ck_assert_uint_gt((unsigned)n * (unsigned)n, UDIFF_MAX_CELLS);
	/* line 1 is common: matched, shown as context */
	buf_addf(&want, "--- a\n+++ b\n@@ -1,%d +1,%d @@\n l1\n", n, n);
	for (int i = 2; i <= n; i++)
		buf_addf(&want, "-l%d\n", i);
	for (int i = 2; i <= n; i++)
		buf_addf(&want, "+%s%d\n", i == 2 ? "L" : "l", i);
	ck_assert_int_eq(udiff(&out, a, b, "a", "b", 3), 1);
	ck_assert(!strcmp(buf_cstr(&out), buf_cstr(&want)));
	buf_release(&out);
	buf_release(&want);
	free(a);
	free(b);
}
END_TEST

/* a big object with a change far down: the common leading lines do not
 * count against the table, so it gets a real hunk (before: the fallback) */
START_TEST(test_huge_common_prefix)
{
	int n = 2100;
	char *a = numbered(n, 0, 0), *b = numbered(n, 1500, 0);

	expect_diff(a, b, 3,
		    "--- a\n+++ b\n@@ -1497,7 +1497,7 @@\n"
		    " l1497\n l1498\n l1499\n-l1500\n+L1500\n l1501\n l1502\n"
		    " l1503\n");
	free(a);
	free(b);
}
END_TEST

Suite *udiff_suite(void)
{
	Suite *s = suite_create("udiff");
	TCase *tc = tcase_create("udiff");

	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_one_change_middle);
	tcase_add_test(tc, test_context_sizes);
	tcase_add_test(tc, test_addition_at_end);
	tcase_add_test(tc, test_addition_at_start);
	tcase_add_test(tc, test_removal_at_end);
	tcase_add_test(tc, test_from_and_to_empty);
	tcase_add_test(tc, test_no_trailing_newline);
	tcase_add_test(tc, test_only_final_newline_differs);
	tcase_add_test(tc, test_completely_different);
	tcase_add_test(tc, test_first_line_changed);
	tcase_add_test(tc, test_context_zero);
	tcase_add_test(tc, test_two_hunks_far_apart);
	tcase_add_test(tc, test_close_changes_one_hunk);
	tcase_add_test(tc, test_mixed_block);
	tcase_add_test(tc, test_one_line_ranges);
	tcase_add_test(tc, test_huge_fallback);
	tcase_add_test(tc, test_huge_common_prefix);
	suite_add_tcase(s, tc);
	return s;
}
