/*
 * tests/unit/test_util.c: unit tests for util/ (buf, err, diag, fs, xalloc,
 * vec). Filesystem tests work in a mkdtemp directory under /tmp that the
 * parent process removes after the test case, even when a test fails.
 *
 * The tests run as root on the build machines, so permissions cannot make a
 * write fail; failures are provoked with paths instead (an invalid relative
 * path, a file where a directory must go).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <check.h>

#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* ---- buf --------------------------------------------------------------- */

START_TEST(test_buf_init_cstr_never_null)
{
	struct buf b = BUF_INIT;
	struct buf c;

	ck_assert_ptr_null(b.ptr);
	ck_assert_ptr_nonnull(buf_cstr(&b));
	ck_assert_str_eq(buf_cstr(&b), "");
	ck_assert_uint_eq(b.len, 0);

	buf_init_capped(&c, 10);
	ck_assert_ptr_nonnull(buf_cstr(&c));
	ck_assert_str_eq(buf_cstr(&c), "");
	ck_assert_uint_eq(c.max, 10);

	/* reset and release of a never-used buffer are harmless */
	buf_reset(&b);
	ck_assert_str_eq(buf_cstr(&b), "");
	buf_release(&b);
	ck_assert_str_eq(buf_cstr(&b), "");
}
END_TEST

START_TEST(test_buf_append)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(buf_add(&b, "ab", 2), 0);
	ck_assert_int_eq(buf_adds(&b, "cd"), 0);
	ck_assert_int_eq(buf_addc(&b, 'e'), 0);
	ck_assert_int_eq(buf_addf(&b, "-%d-%s-%zu", 42, "x", (size_t)7), 0);
	ck_assert_str_eq(buf_cstr(&b), "abcde-42-x-7");
	ck_assert_uint_eq(b.len, strlen("abcde-42-x-7"));
	ck_assert_uint_gt(b.cap, b.len);
	ck_assert_int_eq(b.ptr[b.len], '\0');

	/* zero-length appends change nothing */
	ck_assert_int_eq(buf_add(&b, "zzz", 0), 0);
	ck_assert_int_eq(buf_adds(&b, ""), 0);
	ck_assert_int_eq(buf_addf(&b, "%s", ""), 0);
	ck_assert_str_eq(buf_cstr(&b), "abcde-42-x-7");

	/* binary data: embedded NULs count in len, and a NUL still follows */
	buf_reset(&b);
	ck_assert_str_eq(buf_cstr(&b), "");
	ck_assert_uint_eq(b.len, 0);
	ck_assert_int_eq(buf_add(&b, "a\0b", 3), 0);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_mem_eq(b.ptr, "a\0b\0", 4);
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_growth)
{
	struct buf b = BUF_INIT;
	char big[1000];

	for (int i = 0; i < 10000; i++)
		ck_assert_int_eq(buf_addc(&b, (char)('a' + i % 26)), 0);
	ck_assert_uint_eq(b.len, 10000);
	ck_assert_uint_eq(strlen(buf_cstr(&b)), 10000);
	for (int i = 0; i < 10000; i++)
		ck_assert_int_eq(b.ptr[i], 'a' + i % 26);

	/* a formatted append much larger than the current capacity */
	buf_reset(&b);
	ck_assert_int_eq(buf_addf(&b, "<%0500d>", 7), 0);
	ck_assert_uint_eq(b.len, 502);
	ck_assert_int_eq(b.ptr[0], '<');
	ck_assert_int_eq(b.ptr[500], '7');
	ck_assert_int_eq(b.ptr[501], '>');
	ck_assert_int_eq(b.ptr[502], '\0');

	memset(big, 'q', sizeof(big));
	ck_assert_int_eq(buf_add(&b, big, sizeof(big)), 0);
	ck_assert_uint_eq(b.len, 1502);
	ck_assert_int_eq(b.ptr[1501], 'q');
	ck_assert_int_eq(b.ptr[1502], '\0');
	buf_release(&b);
}
END_TEST

static int vaddf_wrapper(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int vaddf_wrapper(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

START_TEST(test_buf_vaddf)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(vaddf_wrapper(&b, "%s=%d", "n", 3), 0);
	ck_assert_int_eq(vaddf_wrapper(&b, ";%c", 'z'), 0);
	ck_assert_str_eq(buf_cstr(&b), "n=3;z");
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_cap_refusal_leaves_buffer_intact)
{
	struct buf b;
	size_t cap_before;

	buf_init_capped(&b, 8);
	ck_assert_int_eq(buf_adds(&b, "12345"), 0);
	cap_before = b.cap;

	ck_assert_int_eq(buf_adds(&b, "6789"), -1);
	ck_assert_str_eq(buf_cstr(&b), "12345");
	ck_assert_uint_eq(b.len, 5);
	ck_assert_uint_eq(b.cap, cap_before);

	ck_assert_int_eq(buf_add(&b, "6789", 4), -1);
	ck_assert_int_eq(buf_addf(&b, "%d", 6789), -1);
	ck_assert_str_eq(buf_cstr(&b), "12345");
	ck_assert_uint_eq(b.len, 5);

	/* exactly up to the cap is allowed ... */
	ck_assert_int_eq(buf_addf(&b, "%d", 67), 0);
	ck_assert_int_eq(buf_addc(&b, '8'), 0);
	ck_assert_str_eq(buf_cstr(&b), "12345678");
	ck_assert_uint_eq(b.len, 8);
	/* ... one byte more is not, and an empty append still is */
	ck_assert_int_eq(buf_addc(&b, '9'), -1);
	ck_assert_int_eq(buf_add(&b, "", 0), 0);
	ck_assert_str_eq(buf_cstr(&b), "12345678");
	ck_assert_uint_eq(b.len, 8);

	/* after reset the whole cap is available again */
	buf_reset(&b);
	ck_assert_int_eq(buf_adds(&b, "abcdefgh"), 0);
	ck_assert_int_eq(buf_adds(&b, "i"), -1);
	ck_assert_str_eq(buf_cstr(&b), "abcdefgh");
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_cap_refusal_on_empty_buffer)
{
	struct buf b;

	buf_init_capped(&b, 3);
	ck_assert_int_eq(buf_adds(&b, "abcd"), -1);
	ck_assert_int_eq(buf_addf(&b, "%s", "abcd"), -1);
	ck_assert_str_eq(buf_cstr(&b), "");
	ck_assert_uint_eq(b.len, 0);
	ck_assert_int_eq(buf_adds(&b, "abc"), 0);
	ck_assert_str_eq(buf_cstr(&b), "abc");
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_detach)
{
	struct buf b = BUF_INIT;
	size_t len = 99;
	char *p;

	buf_adds(&b, "hello");
	p = buf_detach(&b, &len);
	ck_assert_str_eq(p, "hello");
	ck_assert_uint_eq(len, 5);
	ck_assert_ptr_null(b.ptr);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	ck_assert_str_eq(buf_cstr(&b), "");
	free(p);

	/* the struct is reusable after a detach */
	buf_adds(&b, "again");
	ck_assert_str_eq(buf_cstr(&b), "again");

	/* len_out may be NULL */
	p = buf_detach(&b, NULL);
	ck_assert_str_eq(p, "again");
	free(p);

	/* detaching an empty buffer still hands over freeable memory */
	len = 99;
	p = buf_detach(&b, &len);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p, "");
	ck_assert_uint_eq(len, 0);
	free(p);
	buf_release(&b);
}
END_TEST

START_TEST(test_buf_release)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "some text");
	buf_release(&b);
	ck_assert_ptr_null(b.ptr);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	ck_assert_str_eq(buf_cstr(&b), "");
	/* release twice is harmless, and the struct is reusable */
	buf_release(&b);
	buf_adds(&b, "x");
	ck_assert_str_eq(buf_cstr(&b), "x");
	buf_release(&b);
}
END_TEST

/*
 * Fixed bug (util/buf.c, buf_release); the test guards the fix.
 * Before it: buf.h says buf_release() "returns the
 * struct to its BUF_INIT state", and BUF_INIT has max = 0, but buf_release
 * keeps b->max, so a released capped buffer stays capped. Either reset max
 * or change the header; this test asserts the header as written.
 */
START_TEST(test_buf_release_restores_buf_init)
{
	struct buf b;
	struct buf init = BUF_INIT;

	buf_init_capped(&b, 4);
	buf_adds(&b, "abc");
	buf_release(&b);
	ck_assert_ptr_eq(b.ptr, init.ptr);
	ck_assert_uint_eq(b.len, init.len);
	ck_assert_uint_eq(b.cap, init.cap);
	ck_assert_uint_eq(b.max, init.max);
}
END_TEST

/* ---- err --------------------------------------------------------------- */

START_TEST(test_err_set)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(e.code, ERR_NONE);
	ck_assert_str_eq(err_msg(&e), "");

	ck_assert_int_eq(err_set(&e, ERR_INVALID, "gpu '%s' is unknown", "x9"),
			 -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ck_assert_str_eq(err_msg(&e), "gpu 'x9' is unknown");

	/* a second err_set replaces code and message */
	ck_assert_int_eq(err_set(&e, ERR_NOTFOUND, "%d missing", 3), -1);
	ck_assert_int_eq(e.code, ERR_NOTFOUND);
	ck_assert_str_eq(err_msg(&e), "3 missing");

	/* a NULL record is allowed (caller not interested) */
	ck_assert_int_eq(err_set(NULL, ERR_IO, "ignored"), -1);
	ck_assert_int_eq(err_errno(NULL, "ignored"), -1);
	ck_assert_int_eq(err_wrap(NULL, "ignored"), -1);

	err_clear(&e);
	ck_assert_int_eq(e.code, ERR_NONE);
	ck_assert_str_eq(err_msg(&e), "");
	err_release(&e);
	ck_assert_int_eq(e.code, ERR_NONE);
	ck_assert_str_eq(err_msg(&e), "");
}
END_TEST

START_TEST(test_err_wrap_prepends)
{
	struct err e = ERR_INIT;

	err_set(&e, ERR_IO, "cannot open 'a.yaml'");
	ck_assert_int_eq(err_wrap(&e, "loading intent %d", 2), -1);
	ck_assert_str_eq(err_msg(&e), "loading intent 2: cannot open 'a.yaml'");
	ck_assert_int_eq(e.code, ERR_IO);

	err_wrap(&e, "render");
	ck_assert_str_eq(err_msg(&e),
			 "render: loading intent 2: cannot open 'a.yaml'");
	ck_assert_int_eq(e.code, ERR_IO);
	err_release(&e);

	/* wrapping a record nobody set is an internal error */
	ck_assert_int_eq(err_wrap(&e, "context"), -1);
	ck_assert_int_eq(e.code, ERR_INTERNAL);
	ck_assert_str_eq(err_msg(&e), "context: ");
	err_release(&e);
}
END_TEST

START_TEST(test_err_errno_appends_strerror)
{
	struct err e = ERR_INIT;
	char *want = xasprintf("cannot open '%s': %s", "x.yaml",
			       strerror(ENOENT));

	errno = ENOENT;
	ck_assert_int_eq(err_errno(&e, "cannot open '%s'", "x.yaml"), -1);
	ck_assert_int_eq(e.code, ERR_IO);
	ck_assert_str_eq(err_msg(&e), want);
	ck_assert_int_eq(errno, ENOENT); /* preserved for the caller */
	free(want);

	/* replaces an earlier message */
	errno = EACCES;
	err_errno(&e, "write");
	want = xasprintf("write: %s", strerror(EACCES));
	ck_assert_str_eq(err_msg(&e), want);
	free(want);
	err_release(&e);
}
END_TEST

/* ---- diag -------------------------------------------------------------- */

START_TEST(test_diag_format_exact)
{
	struct diags d = DIAGS_INIT;
	struct buf out = BUF_INIT;

	diags_add(&d, DIAG_ERROR, "intent.yaml", 3, 5,
		  "use one of: a100, h100", "unknown gpu '%s'", "x100");
	diags_add(&d, DIAG_WARNING, "intent.yaml", 1, 2, NULL,
		  "field '%s' is deprecated", "nodes");
	diags_add(&d, DIAG_ERROR, "other.yaml", 0, 0, NULL, "file is empty");
	diags_add(&d, DIAG_ERROR, NULL, 0, 0, "run 'gpuform init'",
		  "no intent given");
	ck_assert_uint_eq(d.nr, 4);
	ck_assert_uint_eq(d.errors, 3);
	ck_assert_uint_eq(d.warnings, 1);

	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out),
			 "intent.yaml:3:5: error: unknown gpu 'x100'\n"
			 "  hint: use one of: a100, h100\n"
			 "intent.yaml:1:2: warning: field 'nodes' is "
			 "deprecated\n"
			 "other.yaml: error: file is empty\n"
			 "error: no intent given\n"
			 "  hint: run 'gpuform init'\n");

	/* sorted: "" < "intent.yaml" < "other.yaml", then by line */
	diags_sort(&d);
	buf_reset(&out);
	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out),
			 "error: no intent given\n"
			 "  hint: run 'gpuform init'\n"
			 "intent.yaml:1:2: warning: field 'nodes' is "
			 "deprecated\n"
			 "intent.yaml:3:5: error: unknown gpu 'x100'\n"
			 "  hint: use one of: a100, h100\n"
			 "other.yaml: error: file is empty\n");

	buf_release(&out);
	diags_release(&d);
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_uint_eq(d.warnings, 0);
	ck_assert_ptr_null(d.items);

	/* an empty list formats to nothing */
	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out), "");
	buf_release(&out);
}
END_TEST

/* a rule's diagnostic ends in "[ID name]"; a copy keeps it; dropping one
 * keeps the order and the counts */
START_TEST(test_diag_rule_copy_drop)
{
	struct diags d = DIAGS_INIT, e = DIAGS_INIT;
	struct buf b = BUF_INIT;

	diags_add_rule(&d, DIAG_WARNING, "INT003", "no-maintenance-window",
		       "a.yaml", 3, 5, "add one", "no window for '%s'", "api");
	diags_add(&d, DIAG_ERROR, "a.yaml", 4, 1, NULL, "bad");
	diags_add_rule(&d, DIAG_WARNING, "INT009", "gang-mixed-gpu-memory",
		       "a.yaml", 5, 1, NULL, "mixed");
	diags_format(&d, &b);
	ck_assert_str_eq(buf_cstr(&b),
			 "a.yaml:3:5: warning: no window for 'api' "
			 "[INT003 no-maintenance-window]\n"
			 "  hint: add one\n"
			 "a.yaml:4:1: error: bad\n"
			 "a.yaml:5:1: warning: mixed [INT009 gang-mixed-gpu-memory]\n");
	diags_copy(&e, &d.items[0]);
	ck_assert_str_eq(e.items[0].rule_id, "INT003");
	ck_assert_str_eq(e.items[0].hint, "add one");
	ck_assert_uint_eq(e.warnings, 1);
	diags_drop(&d, 0);
	ck_assert_uint_eq(d.nr, 2);
	ck_assert_uint_eq(d.warnings, 1);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_str_eq(d.items[0].msg, "bad");
	ck_assert_str_eq(d.items[1].rule_id, "INT009");
	diags_drop(&d, 0);
	ck_assert_uint_eq(d.errors, 0);
	buf_release(&b);
	diags_release(&d);
	diags_release(&e);
}
END_TEST

START_TEST(test_diag_sort_stable)
{
	static const struct {
		const char *file;
		int line, col;
		const char *msg;
	} in[] = {
		{ "b.yaml", 1, 1, "b1" },      { "a.yaml", 2, 1, "a2-first" },
		{ "a.yaml", 10, 1, "a10" },    { "a.yaml", 1, 9, "a1c9" },
		{ "a.yaml", 2, 1, "a2-second" }, { "a.yaml", 9, 1, "a9" },
		{ "a.yaml", 1, 1, "a1c1" },    { "a.yaml", 2, 1, "a2-third" },
		{ "a.yaml", 1, 10, "a1c10" },  { "a.yaml", 0, 0, "a-noline" },
	};
	static const char *const want[] = {
		"a-noline", "a1c1",      "a1c9", "a1c10", "a2-first",
		"a2-second", "a2-third", "a9",   "a10",   "b1",
	};
	struct diags d = DIAGS_INIT;

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		diags_add(&d, DIAG_ERROR, in[i].file, in[i].line, in[i].col,
			  NULL, "%s", in[i].msg);
	diags_sort(&d);
	ck_assert_uint_eq(d.nr, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < d.nr; i++)
		ck_assert_msg(!strcmp(d.items[i].msg, want[i]),
			      "position %zu: got '%s', want '%s'", i,
			      d.items[i].msg, want[i]);
	diags_release(&d);
}
END_TEST

START_TEST(test_diag_cap_line)
{
	struct diags d = DIAGS_INIT;
	struct buf out = BUF_INIT;

	d.max = 2;
	diags_add(&d, DIAG_ERROR, "f.yaml", 1, 1, "h1", "one");
	diags_add(&d, DIAG_WARNING, "f.yaml", 2, 1, NULL, "two");
	diags_add(&d, DIAG_ERROR, "f.yaml", 3, 1, NULL, "three");
	diags_add(&d, DIAG_ERROR, "f.yaml", 4, 1, NULL, "four");
	diags_add(&d, DIAG_WARNING, "f.yaml", 5, 1, NULL, "five");
	ck_assert_uint_eq(d.nr, 2);
	ck_assert_uint_eq(d.errors, 3); /* counted even when not recorded */
	ck_assert_uint_eq(d.warnings, 2);
	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out),
			 "f.yaml:1:1: error: one\n"
			 "  hint: h1\n"
			 "f.yaml:2:1: warning: two\n"
			 "(3 more diagnostics not shown)\n");
	buf_release(&out);
	diags_release(&d);
}
END_TEST

START_TEST(test_diag_default_cap_100)
{
	struct diags d = DIAGS_INIT;
	struct buf out = BUF_INIT;
	const char *tail;

	for (int i = 1; i <= 105; i++)
		diags_add(&d, DIAG_ERROR, "f.yaml", i, 1, NULL, "problem %d", i);
	ck_assert_uint_eq(d.nr, 100);
	ck_assert_uint_eq(d.errors, 105);
	diags_format(&d, &out);
	tail = strstr(buf_cstr(&out), "f.yaml:100:1: error: problem 100\n");
	ck_assert_ptr_nonnull(tail);
	ck_assert_str_eq(tail, "f.yaml:100:1: error: problem 100\n"
			       "(5 more diagnostics not shown)\n");
	ck_assert_ptr_null(strstr(buf_cstr(&out), "problem 101"));
	buf_release(&out);
	diags_release(&d);
}
END_TEST

/*
 * Fixed bug (util/diag.c, diags_format); the test guards the fix.
 * Before it: diag.h says "0 means unknown and is not
 * printed", but a diagnostic with a line and column 0 prints as
 * "f.yaml:7:0: error: ...". Expected "f.yaml:7: error: ...".
 */
START_TEST(test_diag_unknown_column_not_printed)
{
	struct diags d = DIAGS_INIT;
	struct buf out = BUF_INIT;

	diags_add(&d, DIAG_ERROR, "f.yaml", 7, 0, NULL, "bad value");
	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out), "f.yaml:7: error: bad value\n");
	buf_release(&out);
	diags_release(&d);
}
END_TEST

/* hostile-corpus find: a quoted value with a newline printed a line that
 * looked like another diagnostic, and ESC sequences drove the terminal */
START_TEST(test_diag_control_characters_escaped)
{
	struct diags d = DIAGS_INIT;
	struct buf out = BUF_INIT;

	diags_add(&d, DIAG_ERROR, "a\nb.yaml", 4, 9, NULL,
		  "name '%s' is not valid",
		  "x\nf.yaml:1:1: error: fake\r\t\x1b[31m\x7f\xc2\x9b\xc3\xa9");
	diags_format(&d, &out);
	ck_assert_str_eq(buf_cstr(&out),
			 "a\\nb.yaml:4:9: error: name 'x\\nf.yaml:1:1: error: "
			 "fake\\r\\t\\x1b[31m\\x7f\\u009b\xc3\xa9' is not valid\n");
	buf_release(&out);
	diags_release(&d);
}
END_TEST

/* ---- xalloc / vec ------------------------------------------------------ */

START_TEST(test_xalloc_helpers)
{
	char *s = xstrdup("hello");
	char *t = xstrndup("hello", 3);
	char *u = xstrndup("hi", 10);
	char *f = xasprintf("%s-%03d", "n", 7);
	unsigned char *z = xcalloc(16, 4);
	void *m = xmalloc(0);

	ck_assert_str_eq(s, "hello");
	ck_assert_str_eq(t, "hel");
	ck_assert_str_eq(u, "hi");
	ck_assert_str_eq(f, "n-007");
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(z[i], 0);
	ck_assert_ptr_nonnull(m);
	m = xrealloc(m, 100);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(st_add(2, 3), 5);
	ck_assert_uint_eq(st_mul(6, 7), 42);
	ck_assert_uint_eq(st_mul((size_t)-1, 0), 0);
	free(s);
	free(t);
	free(u);
	free(f);
	free(z);
	free(m);
}
END_TEST

static void silence_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
}

/* size overflow is a BUG(): prints and aborts (the test expects SIGABRT) */
START_TEST(test_st_mul_overflow_aborts)
{
	silence_stderr();
	st_mul((size_t)-1 / 2 + 1, 2);
}
END_TEST

START_TEST(test_st_add_overflow_aborts)
{
	silence_stderr();
	st_add((size_t)-1, 1);
}
END_TEST

START_TEST(test_vec_grow)
{
	int *items = NULL;
	size_t nr = 0, alloc = 0;

	for (int i = 0; i < 1000; i++) {
		GROW(items, nr + 1, alloc);
		ck_assert_uint_ge(alloc, nr + 1);
		items[nr++] = i;
	}
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(items[i], i);
	/* growing to a size already allocated does nothing */
	{
		size_t before = alloc;
		int *p = items;
		GROW(items, 10, alloc);
		ck_assert_uint_eq(alloc, before);
		ck_assert_ptr_eq(items, p);
	}
	/* a big jump allocates at least what was asked for */
	GROW(items, 5000, alloc);
	ck_assert_uint_ge(alloc, 5000);
	items[4999] = 1;
	free(items);
}
END_TEST

/* ---- fs: helpers ------------------------------------------------------- */

#define OWNER_FILE ".gpuform"
#define OWNER_PREFIX "# written by gpuform"

static char base_dir[64]; /* per test case, made and removed by the parent */
static char tdir[128];    /* per test, inside base_dir */

/* rm -rf without following symlinks; independent of fs_remove_tree */
static void rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			char *sub;
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			sub = xasprintf("%s/%s", path, de->d_name);
			rm_rf(sub);
			free(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

static void fs_base_setup(void)
{
	snprintf(base_dir, sizeof(base_dir), "/tmp/gpuform-unit-XXXXXX");
	if (!mkdtemp(base_dir)) {
		perror("mkdtemp");
		abort();
	}
}

static void fs_base_teardown(void)
{
	rm_rf(base_dir);
}

static void fs_setup(void)
{
	snprintf(tdir, sizeof(tdir), "%s/t-XXXXXX", base_dir);
	ck_assert_ptr_nonnull(mkdtemp(tdir));
}

static void fs_teardown(void)
{
	rm_rf(tdir);
}

/* P("a/b"): tdir + "/a/b" in one of a few rotating static buffers */
static const char *P(const char *rel)
{
	static char bufs[8][512];
	static int next;
	char *p = bufs[next++ % 8];

	snprintf(p, sizeof(bufs[0]), "%s/%s", tdir, rel);
	return p;
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot create %s: %s", path,
		      strerror(errno));
	ck_assert_uint_eq(fwrite(content, 1, strlen(content), f),
			  strlen(content));
	ck_assert_int_eq(fclose(f), 0);
}

/* whole file as a string, or NULL when it cannot be opened */
static char *slurp(const char *path)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_detach(&b, NULL);
}

static void assert_file(const char *path, const char *want)
{
	char *got = slurp(path);

	ck_assert_msg(got != NULL, "%s: missing", path);
	ck_assert_msg(!strcmp(got, want), "%s: got '%s', want '%s'", path, got,
		      want);
	free(got);
}

static int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* the sorted, ','-joined names in a directory (no "." / "..") */
static char *list_dir(const char *path)
{
	char *names[256];
	size_t n = 0;
	struct buf b = BUF_INIT;
	DIR *d = opendir(path);
	struct dirent *de;

	ck_assert_msg(d != NULL, "cannot open %s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			ck_assert_uint_lt(n, 256);
			names[n++] = xstrdup(de->d_name);
		}
	closedir(d);
	/* insertion sort, byte order */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0;
		     j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(&b, ',');
		buf_adds(&b, names[i]);
		free(names[i]);
	}
	return buf_detach(&b, NULL);
}

static void assert_listing(const char *path, const char *want)
{
	char *got = list_dir(path);

	ck_assert_msg(!strcmp(got, want), "%s holds [%s], want [%s]", path,
		      got, want);
	free(got);
}

static void tree_add(struct fs_tree *t, const char *path, const char *content)
{
	fs_tree_add(t, path, xstrdup(content), strlen(content));
}

/* the first ("old") tree written into P("out") by several tests */
static void write_v1(void)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	tree_add(&t, OWNER_FILE, OWNER_PREFIX " v1\n");
	tree_add(&t, "keep.yaml", "v1\n");
	tree_add(&t, "stale.yaml", "stale\n");
	tree_add(&t, "old/nested/deep.yaml", "deep\n");
	ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "writing v1: %s", err_msg(&e));
	fs_tree_release(&t);
	err_release(&e);
}

static void assert_v1_intact(void)
{
	assert_listing(P("out"), OWNER_FILE ",keep.yaml,old,stale.yaml");
	assert_file(P("out/" OWNER_FILE), OWNER_PREFIX " v1\n");
	assert_file(P("out/keep.yaml"), "v1\n");
	assert_file(P("out/stale.yaml"), "stale\n");
	assert_listing(P("out/old"), "nested");
	assert_listing(P("out/old/nested"), "deep.yaml");
	assert_file(P("out/old/nested/deep.yaml"), "deep\n");
}

/* ---- fs_read_file ------------------------------------------------------ */

START_TEST(test_fs_read_file)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	write_file(P("f.txt"), "hello\n");
	ck_assert_int_eq(fs_read_file(&b, P("f.txt"), 0, &e), 0);
	ck_assert_str_eq(buf_cstr(&b), "hello\n");
	ck_assert_uint_eq(b.len, 6);
	ck_assert_int_eq(e.code, ERR_NONE);
	buf_release(&b);

	/* a file exactly at the cap is fine */
	ck_assert_int_eq(fs_read_file(&b, P("f.txt"), 6, &e), 0);
	ck_assert_str_eq(buf_cstr(&b), "hello\n");
	buf_release(&b);

	/* an empty file reads as "" */
	write_file(P("empty"), "");
	ck_assert_int_eq(fs_read_file(&b, P("empty"), 10, &e), 0);
	ck_assert_str_eq(buf_cstr(&b), "");
	ck_assert_uint_eq(b.len, 0);
	buf_release(&b);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_read_file_cap)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	char *big = xmalloc(200001);

	write_file(P("f.txt"), "hello\n");
	ck_assert_int_eq(fs_read_file(&b, P("f.txt"), 5, &e), -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), P("f.txt")));
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "5 bytes"));
	buf_release(&b);
	err_release(&e);

	/* bigger than one read() chunk */
	memset(big, 'x', 200000);
	big[200000] = '\0';
	write_file(P("big.txt"), big);
	ck_assert_int_eq(fs_read_file(&b, P("big.txt"), 100000, &e), -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	/* hostile-corpus find: the part read was left in b, and a caller
	 * that did not release b on failure leaked it */
	ck_assert_ptr_null(b.ptr);
	ck_assert_uint_eq(b.len, 0);
	err_release(&e);
	buf_adds(&b, "kept");
	ck_assert_int_eq(fs_read_file(&b, P("big.txt"), 100000, &e), -1);
	ck_assert_str_eq(buf_cstr(&b), "kept");
	buf_release(&b);
	err_release(&e);
	ck_assert_int_eq(fs_read_file(&b, P("big.txt"), 200000, &e), 0);
	ck_assert_uint_eq(b.len, 200000);
	ck_assert_str_eq(buf_cstr(&b), big);
	buf_release(&b);
	ck_assert_int_eq(fs_read_file(&b, P("big.txt"), 0, &e), 0);
	ck_assert_uint_eq(b.len, 200000);
	buf_release(&b);
	free(big);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_read_file_errors)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	ck_assert_int_eq(fs_read_file(&b, P("missing"), 0, &e), -1);
	ck_assert_int_eq(e.code, ERR_IO);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), P("missing")));
	ck_assert_ptr_nonnull(strstr(err_msg(&e), strerror(ENOENT)));
	err_release(&e);

	ck_assert_int_eq(fs_read_file(&b, tdir, 0, &e), -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "directory"));
	err_release(&e);
	buf_release(&b);
}
END_TEST

/* ---- fs_tree ----------------------------------------------------------- */

START_TEST(test_fs_tree_sort_find_release)
{
	struct fs_tree t = FS_TREE_INIT;
	const struct fs_file *f;
	static const char *const want[] = { "B", "a", "a/x", "a0", "b" };

	tree_add(&t, "b", "1");
	tree_add(&t, "a/x", "2");
	tree_add(&t, "a0", "3");
	tree_add(&t, "a", "4");
	tree_add(&t, "B", "5");
	fs_tree_sort(&t);
	ck_assert_uint_eq(t.nr, 5);
	for (size_t i = 0; i < t.nr; i++)
		ck_assert_str_eq(t.files[i].path, want[i]);

	f = fs_tree_find(&t, "a/x");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->len, 1);
	ck_assert_mem_eq(f->data, "2", 1);
	ck_assert_ptr_null(fs_tree_find(&t, "a/"));
	ck_assert_ptr_null(fs_tree_find(&t, "zz"));

	fs_tree_release(&t);
	ck_assert_ptr_null(t.files);
	ck_assert_uint_eq(t.nr, 0);
	ck_assert_uint_eq(t.alloc, 0);
	fs_tree_sort(&t); /* empty: nothing to do */
	ck_assert_ptr_null(fs_tree_find(&t, "a"));
}
END_TEST

/* ---- fs_tree_write_atomic ---------------------------------------------- */

START_TEST(test_fs_write_new_dir_nested)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;
	struct stat st;

	tree_add(&t, OWNER_FILE, OWNER_PREFIX "\n");
	tree_add(&t, "kustomization.yaml", "resources: []\n");
	tree_add(&t, "base/ns.yaml", "kind: Namespace\n");
	tree_add(&t, "clusters/a/b/deep.yaml", "deep\n");
	tree_add(&t, "clusters/a/top.yaml", "");
	ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	ck_assert_int_eq(e.code, ERR_NONE);

	ck_assert(is_dir(P("out")));
	ck_assert_int_eq(stat(P("out"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	assert_listing(P("out"),
		       OWNER_FILE ",base,clusters,kustomization.yaml");
	assert_listing(P("out/clusters/a"), "b,top.yaml");
	assert_file(P("out/" OWNER_FILE), OWNER_PREFIX "\n");
	assert_file(P("out/kustomization.yaml"), "resources: []\n");
	assert_file(P("out/base/ns.yaml"), "kind: Namespace\n");
	assert_file(P("out/clusters/a/b/deep.yaml"), "deep\n");
	assert_file(P("out/clusters/a/top.yaml"), "");
	/* nothing else in the parent: no .gpuform-tmp-* left over */
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_trailing_slash)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	tree_add(&t, OWNER_FILE, OWNER_PREFIX "\n");
	tree_add(&t, "a.yaml", "a\n");
	ck_assert_msg(fs_tree_write_atomic(&t, P("out/"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	assert_file(P("out/a.yaml"), "a\n");
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_replaces_owned_dir)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	write_v1();
	assert_v1_intact();

	tree_add(&t, OWNER_FILE, OWNER_PREFIX " v2\n");
	tree_add(&t, "keep.yaml", "v2\n");
	tree_add(&t, "new/file.yaml", "new\n");
	ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	/* stale files and directories from v1 are gone */
	assert_listing(P("out"), OWNER_FILE ",keep.yaml,new");
	ck_assert(!path_exists(P("out/stale.yaml")));
	ck_assert(!path_exists(P("out/old")));
	assert_file(P("out/" OWNER_FILE), OWNER_PREFIX " v2\n");
	assert_file(P("out/keep.yaml"), "v2\n");
	assert_file(P("out/new/file.yaml"), "new\n");
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_into_empty_dir)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	ck_assert_int_eq(mkdir(P("out"), 0700), 0);
	tree_add(&t, "a.yaml", "a\n");
	ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	assert_listing(P("out"), "a.yaml");
	assert_file(P("out/a.yaml"), "a\n");
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_refuses_unowned_dir)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	ck_assert_int_eq(mkdir(P("out"), 0755), 0);
	write_file(P("out/user.txt"), "mine\n");
	tree_add(&t, OWNER_FILE, OWNER_PREFIX "\n");
	tree_add(&t, "a.yaml", "a\n");

	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), P("out")));
	ck_assert_ptr_nonnull(strstr(err_msg(&e), OWNER_FILE));
	assert_listing(P("out"), "user.txt");
	assert_file(P("out/user.txt"), "mine\n");
	assert_listing(tdir, "out");
	err_release(&e);

	/* an owner file with someone else's content does not count */
	write_file(P("out/" OWNER_FILE), "# written by somebody else\n");
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	assert_listing(P("out"), OWNER_FILE ",user.txt");
	assert_file(P("out/user.txt"), "mine\n");
	assert_file(P("out/" OWNER_FILE), "# written by somebody else\n");
	assert_listing(tdir, "out");
	err_release(&e);

	/* nor does an owner "file" that is a directory */
	unlink(P("out/" OWNER_FILE));
	ck_assert_int_eq(mkdir(P("out/" OWNER_FILE), 0755), 0);
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	assert_listing(P("out"), OWNER_FILE ",user.txt");
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_refuses_regular_file)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	write_file(P("out"), "not a dir\n");
	tree_add(&t, "a.yaml", "a\n");
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), P("out")));
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "not a directory"));
	assert_file(P("out"), "not a dir\n");
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

/* an invalid path in the tree is a caller bug (ERR_INTERNAL) and must not
 * touch the previous output or leave a temporary directory behind */
START_TEST(test_fs_write_invalid_path_keeps_previous)
{
	static const char *const bad[] = {
		"../x", "/abs.yaml", "a/../b", "./a", "a//b", "", ".", "..",
		"a/./b",
	};
	struct err e = ERR_INIT;

	write_v1();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fs_tree t = FS_TREE_INIT;

		tree_add(&t, OWNER_FILE, OWNER_PREFIX " v2\n");
		tree_add(&t, "keep.yaml", "v2\n");
		tree_add(&t, bad[i], "evil\n");
		ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
						   OWNER_PREFIX, &e) == -1,
			      "path '%s' was accepted", bad[i]);
		ck_assert_msg(e.code == ERR_INTERNAL, "'%s': code %d (%s)",
			      bad[i], (int)e.code, err_msg(&e));
		assert_v1_intact();
		/* "../x" from the temporary sibling would land in tdir */
		assert_listing(tdir, "out");
		err_release(&e);
		fs_tree_release(&t);
	}
}
END_TEST

START_TEST(test_fs_write_invalid_path_new_dir)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	tree_add(&t, "ok.yaml", "ok\n");
	tree_add(&t, "../x", "evil\n");
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_INTERNAL);
	ck_assert(!path_exists(P("out")));
	assert_listing(tdir, "");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

/* an I/O failure half-way through (a file where a directory must go, the
 * same path twice) leaves the previous tree as it was */
START_TEST(test_fs_write_io_failure_keeps_previous)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	write_v1();

	tree_add(&t, OWNER_FILE, OWNER_PREFIX " v2\n");
	tree_add(&t, "a", "file\n");
	tree_add(&t, "a/b", "under a file\n");
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_ne(e.code, ERR_NONE);
	ck_assert_str_ne(err_msg(&e), "");
	assert_v1_intact();
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);

	tree_add(&t, OWNER_FILE, OWNER_PREFIX " v2\n");
	tree_add(&t, "dup.yaml", "1\n");
	tree_add(&t, "dup.yaml", "2\n");
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_ne(e.code, ERR_NONE);
	assert_v1_intact();
	assert_listing(tdir, "out");
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_missing_parent)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	/* missing parents are created, like mkdir -p (render -o
	 * clusters/ml-prod in a fresh repository) */
	tree_add(&t, "a.yaml", "a\n");
	ck_assert_msg(fs_tree_write_atomic(&t, P("missing/deeper/out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	assert_listing(P("missing/deeper/out"), "a.yaml");
	assert_listing(P("missing/deeper"), "out");
	/* but a parent that is a regular file still fails, writing nothing */
	tree_add(&t, "b.yaml", "b\n");
	{
		FILE *f = fopen(P("plainfile"), "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	ck_assert_int_eq(fs_tree_write_atomic(&t, P("plainfile/out"), OWNER_FILE,
					      OWNER_PREFIX, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_IO);
	fs_tree_release(&t);
	err_release(&e);
}
END_TEST

START_TEST(test_fs_write_empty_tree)
{
	struct fs_tree t = FS_TREE_INIT;
	struct err e = ERR_INIT;

	write_v1();
	ck_assert_msg(fs_tree_write_atomic(&t, P("out"), OWNER_FILE,
					   OWNER_PREFIX, &e) == 0,
		      "%s", err_msg(&e));
	assert_listing(P("out"), "");
	assert_listing(tdir, "out");
	err_release(&e);
}
END_TEST

/* ---- fs_remove_tree ---------------------------------------------------- */

START_TEST(test_fs_remove_tree)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(mkdir(P("victim"), 0755), 0);
	ck_assert_int_eq(mkdir(P("victim/sub"), 0755), 0);
	write_file(P("victim/sub/f"), "f");
	write_file(P("victim/g"), "g");
	ck_assert_int_eq(mkdir(P("outside"), 0755), 0);
	write_file(P("outside/precious"), "keep me");
	ck_assert_int_eq(symlink(P("outside"), P("victim/link")), 0);
	ck_assert_int_eq(symlink(P("outside/precious"), P("victim/flink")), 0);

	ck_assert_msg(fs_remove_tree(P("victim"), &e) == 0, "%s", err_msg(&e));
	ck_assert(!path_exists(P("victim")));
	/* symlinks are removed, not followed */
	assert_file(P("outside/precious"), "keep me");

	/* a missing path is not an error; a plain file is removed */
	ck_assert_int_eq(fs_remove_tree(P("victim"), &e), 0);
	write_file(P("plain"), "x");
	ck_assert_int_eq(fs_remove_tree(P("plain"), &e), 0);
	ck_assert(!path_exists(P("plain")));
	assert_listing(tdir, "outside");
	err_release(&e);
}
END_TEST

/* ---- suite ------------------------------------------------------------- */

START_TEST(test_url_userinfo)
{
	struct buf b = BUF_INIT;
	int pw = -1;

	ck_assert_int_eq(url_userinfo("https://u:p@h/x.git", &pw), 1);
	ck_assert_int_eq(pw, 1);
	ck_assert_int_eq(url_userinfo("https://tok@h/x.git", &pw), 1);
	ck_assert_int_eq(pw, 0);
	ck_assert_int_eq(url_userinfo("https://h/a@b", &pw), 0); /* '@' in the path */
	ck_assert_int_eq(url_userinfo("git@h:x.git", &pw), 0);   /* scp-like */
	ck_assert_int_eq(url_userinfo("/srv/x.git", &pw), 0);
	ck_assert_int_eq(url_userinfo("https://a:b@c@h/x", &pw), 1);
	ck_assert_int_eq(pw, 1);
	url_strip_userinfo("https://a:b@c@h:443/x?y@z", &b);
	ck_assert_str_eq(buf_cstr(&b), "https://h:443/x?y@z");
	buf_reset(&b);
	url_strip_userinfo("ssh://git@h/x", &b);
	ck_assert_str_eq(buf_cstr(&b), "ssh://h/x");
	buf_reset(&b);
	url_strip_userinfo("https://h/x", &b);
	ck_assert_str_eq(buf_cstr(&b), "https://h/x");
	buf_release(&b);
}
END_TEST

/* the one rule for where a credential may go (issue 21 item 9): https, or
 * plain http only to a loopback host; names that merely start like one
 * (127.evil.example, localhost.evil) are not loopback */
START_TEST(test_url_secret_safe)
{
	static const char *const loop[] = {
		"http://127.0.0.1:6443", "http://127.1.2.3/x", "http://[::1]:80/",
		"http://localhost", "http://LOCALHOST:1/", "http://u:p@127.0.0.1/r.git",
		"http://127.0.0.1?q", NULL,
	};
	static const char *const not_loop[] = {
		"http://127.evil.example/", "http://127.0.0.1.evil.example/",
		"http://localhost.evil/", "http://[::1].evil/", "http://[::2]/",
		"http://10.0.0.1/", "http://127.0.0.1@evil.example/",
		"http://evil.example/127.0.0.1", "http://127.0.0/", "127.0.0.1",
		"http://127.0.0.1x/", "http://127.0.0.1./", NULL,
	};

	for (size_t i = 0; loop[i]; i++) {
		ck_assert_msg(url_host_loopback(loop[i]), "%s", loop[i]);
		ck_assert_msg(url_secret_safe(loop[i]), "%s", loop[i]);
	}
	for (size_t i = 0; not_loop[i]; i++) {
		ck_assert_msg(!url_host_loopback(not_loop[i]), "%s", not_loop[i]);
		ck_assert_msg(!url_secret_safe(not_loop[i]), "%s", not_loop[i]);
	}
	ck_assert(url_secret_safe("https://evil.example/"));
	ck_assert(url_secret_safe("HTTPS://eks.example/"));
	ck_assert(!url_secret_safe("ftp://127.0.0.1/"));
	ck_assert(!url_secret_safe("git://127.0.0.1/r.git"));
	ck_assert(!url_secret_safe(NULL));
}
END_TEST

/* fs_list_yaml: lint's directory arguments */
START_TEST(test_fs_list_yaml)
{
	char dir[64] = "/tmp/gpuform-unit-list.XXXXXX";
	static const char *const files[] = { "b.yaml", "a.yml", ".hidden.yaml",
					     "x.txt", "sub/c.yaml",
					     ".git/d.yaml", NULL };
	char **paths = NULL, *p;
	size_t n = 0, alloc = 0;
	struct diags d = DIAGS_INIT;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	p = xasprintf("%s/sub", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/.git", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	for (size_t i = 0; files[i]; i++) {
		FILE *f;
		p = xasprintf("%s/%s", dir, files[i]);
		f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
		free(p);
	}
	ck_assert_int_eq(fs_list_yaml(dir, &paths, &n, &alloc, &d), 0);
	ck_assert_uint_eq(n, 3);
	p = xasprintf("%s/a.yml|%s/b.yaml|%s/sub/c.yaml", dir, dir, dir);
	{
		struct buf got = BUF_INIT;
		for (size_t i = 0; i < n; i++)
			buf_addf(&got, "%s%s", i ? "|" : "", paths[i]);
		ck_assert_str_eq(buf_cstr(&got), p);
		buf_release(&got);
	}
	free(p);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	n = 0;
	/* a directory that is not there: a diagnostic, -1 */
	p = xasprintf("%s/none", dir);
	ck_assert_int_eq(fs_list_yaml(p, &paths, &n, &alloc, &d), -1);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(d.errors, 1);
	free(p);
	free(paths);
	diags_release(&d);
	p = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
	free(p);
}
END_TEST

START_TEST(test_diags_count_file)
{
	struct diags d = DIAGS_INIT;

	diags_add(&d, DIAG_WARNING, "a.yaml", 1, 1, NULL, "w1");
	diags_add(&d, DIAG_WARNING, "a.yaml", 2, 1, NULL, "w2");
	diags_add(&d, DIAG_ERROR, "a.yaml", 3, 1, NULL, "e");
	diags_add(&d, DIAG_WARNING, "b.yaml", 1, 1, NULL, "w");
	ck_assert_uint_eq(diags_count_file(&d, "a.yaml", DIAG_WARNING), 2);
	ck_assert_uint_eq(diags_count_file(&d, "a.yaml", DIAG_ERROR), 1);
	ck_assert_uint_eq(diags_count_file(&d, "c.yaml", DIAG_WARNING), 0);
	diags_release(&d);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc;

	tc = tcase_create("url");
	tcase_add_test(tc, test_url_userinfo);
	tcase_add_test(tc, test_url_secret_safe);
	suite_add_tcase(s, tc);

	tc = tcase_create("fs_list");
	tcase_add_test(tc, test_fs_list_yaml);
	tcase_add_test(tc, test_diags_count_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("buf");
	tcase_add_test(tc, test_buf_init_cstr_never_null);
	tcase_add_test(tc, test_buf_append);
	tcase_add_test(tc, test_buf_growth);
	tcase_add_test(tc, test_buf_vaddf);
	tcase_add_test(tc, test_buf_cap_refusal_leaves_buffer_intact);
	tcase_add_test(tc, test_buf_cap_refusal_on_empty_buffer);
	tcase_add_test(tc, test_buf_detach);
	tcase_add_test(tc, test_buf_release);
	tcase_add_test(tc, test_buf_release_restores_buf_init);
	suite_add_tcase(s, tc);

	tc = tcase_create("err");
	tcase_add_test(tc, test_err_set);
	tcase_add_test(tc, test_err_wrap_prepends);
	tcase_add_test(tc, test_err_errno_appends_strerror);
	suite_add_tcase(s, tc);

	tc = tcase_create("diag");
	tcase_add_test(tc, test_diag_format_exact);
	tcase_add_test(tc, test_diag_sort_stable);
	tcase_add_test(tc, test_diag_rule_copy_drop);
	tcase_add_test(tc, test_diag_cap_line);
	tcase_add_test(tc, test_diag_default_cap_100);
	tcase_add_test(tc, test_diag_unknown_column_not_printed);
	tcase_add_test(tc, test_diag_control_characters_escaped);
	suite_add_tcase(s, tc);

	tc = tcase_create("xalloc");
	tcase_add_test(tc, test_xalloc_helpers);
	tcase_add_test_raise_signal(tc, test_st_mul_overflow_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, test_st_add_overflow_aborts, SIGABRT);
	tcase_add_test(tc, test_vec_grow);
	suite_add_tcase(s, tc);

	tc = tcase_create("fs");
	tcase_add_unchecked_fixture(tc, fs_base_setup, fs_base_teardown);
	tcase_add_checked_fixture(tc, fs_setup, fs_teardown);
	tcase_add_test(tc, test_fs_read_file);
	tcase_add_test(tc, test_fs_read_file_cap);
	tcase_add_test(tc, test_fs_read_file_errors);
	tcase_add_test(tc, test_fs_tree_sort_find_release);
	tcase_add_test(tc, test_fs_write_new_dir_nested);
	tcase_add_test(tc, test_fs_write_trailing_slash);
	tcase_add_test(tc, test_fs_write_replaces_owned_dir);
	tcase_add_test(tc, test_fs_write_into_empty_dir);
	tcase_add_test(tc, test_fs_write_refuses_unowned_dir);
	tcase_add_test(tc, test_fs_write_refuses_regular_file);
	tcase_add_test(tc, test_fs_write_invalid_path_keeps_previous);
	tcase_add_test(tc, test_fs_write_invalid_path_new_dir);
	tcase_add_test(tc, test_fs_write_io_failure_keeps_previous);
	tcase_add_test(tc, test_fs_write_missing_parent);
	tcase_add_test(tc, test_fs_write_empty_tree);
	tcase_add_test(tc, test_fs_remove_tree);
	suite_add_tcase(s, tc);

	return s;
}
