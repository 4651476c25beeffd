/*
 * tests/unit/test_helpers.c: the helpers that exist once for every layer:
 * util/base64.c (OpenSSL underneath), util/backoff.c, util/time.c,
 * util/digest.c's secret wipe, util/json.c's cJSON getters.
 */
#include <stdint.h>
#include <string.h>

#include <check.h>

#include "tests/unit/suites.h"
#include "util/backoff.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/json.h"
#include "util/time.h"
#include "util/xalloc.h"

/* ---- base64 ------------------------------------------------------------ */

static const struct {
	const char *in;
	size_t n;
	int flags;
	const char *want;
} encode_cases[] = {
	/* RFC 4648, section 10 */
	{ "", 0, 0, "" },
	{ "f", 1, 0, "Zg==" },
	{ "fo", 2, 0, "Zm8=" },
	{ "foo", 3, 0, "Zm9v" },
	{ "foob", 4, 0, "Zm9vYg==" },
	{ "fooba", 5, 0, "Zm9vYmE=" },
	{ "foobar", 6, 0, "Zm9vYmFy" },
	{ "foob", 4, BASE64_NOPAD, "Zm9vYg" },
	/* the two alphabets differ in 62 and 63 */
	{ "\xfb\xff", 2, 0, "+/8=" },
	{ "\xfb\xff", 2, BASE64_URL | BASE64_NOPAD, "-_8" },
	{ "a\0b", 3, 0, "YQBi" },
};

START_TEST(test_base64_encode)
{
	struct buf b = BUF_INIT;

	base64_encode(&b, encode_cases[_i].in, encode_cases[_i].n,
		      encode_cases[_i].flags);
	ck_assert_str_eq(buf_cstr(&b), encode_cases[_i].want);
	buf_release(&b);
}
END_TEST

static const struct {
	const char *in;
	int flags;
	int ok;
	const char *want; /* NULL: compare want_n bytes of "\xfb\xff" */
} decode_cases[] = {
	{ "", 0, 1, "" },
	{ "Zm9vYg==", 0, 1, "foob" },
	{ "Zm9vYg", 0, 1, "foob" },      /* padding optional */
	{ "Zm9vYg=", 0, 1, "foob" },
	{ "Zm9vYmFy", 0, 1, "foobar" },
	{ " Zm9v\nYg== \t", BASE64_SPACE, 1, "foob" },
	{ "Zm9v Yg", 0, 0, NULL },       /* white space only when asked */
	{ "-_8", BASE64_URL, 1, "\xfb\xff" },
	{ "+/8=", BASE64_URL, 1, "\xfb\xff" }, /* both alphabets */
	{ "-_8", 0, 0, NULL },
	{ "Zm9vY", 0, 0, NULL },         /* a lone final character */
	{ "Zm=9v", 0, 0, NULL },         /* '=' inside */
	{ "Zg===", 0, 0, NULL },         /* three '=' */
	{ "Zm9v*g==", 0, 0, NULL },
};

START_TEST(test_base64_decode)
{
	struct buf b = BUF_INIT;
	int r;

	buf_adds(&b, "kept:");
	r = base64_decode(&b, decode_cases[_i].in, strlen(decode_cases[_i].in),
			  decode_cases[_i].flags);
	if (decode_cases[_i].ok) {
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(b.len, 5 + strlen(decode_cases[_i].want));
		ck_assert_mem_eq(b.ptr + 5, decode_cases[_i].want,
				 strlen(decode_cases[_i].want));
	} else {
		ck_assert_int_eq(r, -1);
		ck_assert_str_eq(buf_cstr(&b), "kept:"); /* unchanged */
	}
	buf_release(&b);
}
END_TEST

START_TEST(test_base64_round_trip)
{
	unsigned char data[256];
	struct buf e = BUF_INIT, d = BUF_INIT;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(255 - i);
	for (size_t n = 0; n <= sizeof(data); n += 37) {
		for (int f = 0; f < 4; f++) {
			buf_reset(&e);
			buf_reset(&d);
			base64_encode(&e, data, n, f);
			ck_assert_int_eq(base64_decode(&d, e.ptr ? e.ptr : "",
						       e.len, f & BASE64_URL),
					 0);
			ck_assert_uint_eq(d.len, n);
			if (n)
				ck_assert_mem_eq(d.ptr, data, n);
		}
	}
	buf_release(&e);
	buf_release(&d);
}
END_TEST

/* ---- backoff ----------------------------------------------------------- */

START_TEST(test_backoff_ranges)
{
	uint64_t rng = backoff_seed(1);

	ck_assert(rng != 0);
	for (int round = 0; round < 200; round++) {
		/* 200 ms doubling, cap 5 s: retry n waits between d/2 and d */
		for (int n = 1; n <= 8; n++) {
			long long d = 200LL << (n - 1);
			long long got;

			if (d > 5000)
				d = 5000;
			got = backoff_delay_ms(200, 5000, n, &rng);
			ck_assert_int_ge(got, d / 2);
			ck_assert_int_le(got, d);
		}
		/* no cap */
		ck_assert_int_ge(backoff_delay_ms(100, 0, 11, &rng), 51200);
		/* 0 and 1 ms: no sleep */
		ck_assert_int_eq(backoff_delay_ms(0, 0, 3, &rng), 0);
		ck_assert_int_eq(backoff_delay_ms(1, 1, 3, &rng), 0);
	}
}
END_TEST

START_TEST(test_backoff_jitters)
{
	uint64_t rng = backoff_seed(2);
	long long first = backoff_delay_ms(1000, 0, 1, &rng);
	int differs = 0;

	for (int i = 0; i < 50 && !differs; i++)
		differs = backoff_delay_ms(1000, 0, 1, &rng) != first;
	ck_assert(differs);
}
END_TEST

/* ---- time ------------------------------------------------------------- */

static const struct {
	const char *in;
	int ok;
	long long secs;
	double frac;
} rfc3339_cases[] = {
	{ "1970-01-01T00:00:00Z", 1, 0, 0 },
	{ "2026-11-30T02:03:31Z", 1, 1796004211LL, 0 },
	{ "2026-11-30t02:03:31z", 1, 1796004211LL, 0 },
	{ "2026-11-30T02:03:31.250000Z", 1, 1796004211LL, 0.25 },
	{ "2026-11-30T03:03:31+01:00", 1, 1796004211LL, 0 },
	{ "2026-11-30T01:33:31-00:30", 1, 1796004211LL, 0 },
	{ "2024-02-29T12:00:00Z", 1, 1709208000LL, 0 },
	{ "1969-12-31T23:59:59Z", 1, -1, 0 },
	{ "2000-03-01T00:00:00Z", 1, 951868800LL, 0 },
	{ "2026-12-31T23:59:60Z", 1, 1798761600LL, 0 }, /* leap second */
	{ "2026-11-30 02:03:31Z", 0, 0, 0 },
	{ "2026-13-30T02:03:31Z", 0, 0, 0 },
	{ "2026-11-32T02:03:31Z", 0, 0, 0 },
	{ "2026-11-30T24:00:00Z", 0, 0, 0 },
	{ "2026-11-30T02:03:31", 0, 0, 0 },
	{ "2026-11-30T02:03:31.Z", 0, 0, 0 },
	{ "2026-11-30T02:03:31+1:00", 0, 0, 0 },
	{ "2026-11-30T02:03:31+24:00", 0, 0, 0 },
	{ "2026-11-30T02:03:31Zx", 0, 0, 0 },
	{ "", 0, 0, 0 },
	{ NULL, 0, 0, 0 },
};

START_TEST(test_rfc3339)
{
	long long secs = 42;
	double frac = -1;
	int r = time_parse_rfc3339(rfc3339_cases[_i].in, &secs, &frac);

	if (!rfc3339_cases[_i].ok) {
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(secs, 42); /* untouched */
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(secs, rfc3339_cases[_i].secs);
	ck_assert_double_eq_tol(frac, rfc3339_cases[_i].frac, 1e-9);
}
END_TEST

START_TEST(test_days_from_civil)
{
	ck_assert_int_eq(time_days_from_civil(1970, 1, 1), 0);
	ck_assert_int_eq(time_days_from_civil(1969, 12, 31), -1);
	ck_assert_int_eq(time_days_from_civil(2000, 2, 29), 11016);
	ck_assert_int_eq(time_days_from_civil(2000, 3, 1), 11017);
	ck_assert_int_eq(time_days_from_civil(1600, 1, 1), -135140);
}
END_TEST

static const struct {
	const char *in;
	int flags;
	int ok;
	double secs;
} duration_cases[] = {
	{ "90s", TIME_DUR_HMS, 1, 90 },
	{ "1h30m", TIME_DUR_HMS, 1, 5400 },
	{ "1m1m", TIME_DUR_HMS, 1, 120 },
	{ "1000000000s", TIME_DUR_HMS, 1, 1e9 },
	{ "1000000001s", TIME_DUR_HMS, 0, 0 },
	{ "1.5h", TIME_DUR_HMS, 0, 0 },  /* whole numbers only */
	{ "500ms", TIME_DUR_HMS, 0, 0 }, /* h, m, s only */
	{ "-5m", TIME_DUR_HMS, 0, 0 },
	{ "0", TIME_DUR_HMS, 0, 0 },
	{ "5", TIME_DUR_HMS, 0, 0 },
	{ "", TIME_DUR_HMS, 0, 0 },
	{ NULL, TIME_DUR_HMS, 0, 0 },
	/* Go's syntax */
	{ "0", 0, 1, 0 },
	{ "1.5h", 0, 1, 5400 },
	{ "500ms", 0, 1, 0.5 },
	{ "2h45m30.5s", 0, 1, 9930.5 },
	{ "-1m", 0, 1, -60 },
	{ "+1m", 0, 1, 60 },
	{ "1\xc2\xb5s", 0, 1, 1e-6 },
	{ "100ns", 0, 1, 1e-7 },
	{ ".5s", 0, 1, 0.5 },
	{ "1", 0, 0, 0 },
	{ "1d", 0, 0, 0 },
	{ "Never", 0, 0, 0 },
	{ "-", 0, 0, 0 },
	{ ".s", 0, 0, 0 },
	{ " 1s", 0, 0, 0 },
};

START_TEST(test_duration)
{
	double secs = 42;
	int r = time_parse_duration(duration_cases[_i].in,
				    duration_cases[_i].flags, &secs);

	ck_assert_int_eq(r, duration_cases[_i].ok ? 0 : -1);
	ck_assert_double_eq_tol(secs, duration_cases[_i].ok
					      ? duration_cases[_i].secs : 42,
				1e-12);
}
END_TEST

/* ---- wipe -------------------------------------------------------------- */

START_TEST(test_wipe)
{
	char s[] = "secret";
	struct buf b = BUF_INIT;

	digest_wipe(s, sizeof(s) - 1);
	ck_assert_mem_eq(s, "\0\0\0\0\0\0", 6);
	digest_wipe(NULL, 3); /* nothing */
	digest_wipe_str(NULL);
	digest_wipe_str(xstrdup("token"));
	buf_adds(&b, "password");
	digest_wipe_release(&b);
	ck_assert_ptr_null(b.ptr);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

/* ---- json getters -------------------------------------------------------- */

START_TEST(test_json_getters)
{
	cJSON *o = cJSON_Parse("{\"metadata\":{\"name\":\"a\",\"uid\":7,"
			       "\"labels\":{\"k\":\"v\"}},\"spec\":{\"n\":3},"
			       "\"list\":[{\"name\":\"x\"}],\"s\":\"t\"}");

	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_str(o, "s"), "t");
	ck_assert_ptr_null(json_str(o, "metadata")); /* not a string */
	ck_assert_ptr_null(json_str(NULL, "s"));
	ck_assert_str_eq(json_str_at(o, "metadata", "name"), "a");
	ck_assert_str_eq(json_str_at(o, "s", NULL), "t");
	ck_assert_ptr_null(json_str_at(o, "metadata", "uid"));
	ck_assert_ptr_null(json_str_at(o, "nope", "name"));
	ck_assert_str_eq(json_text_at(o, "metadata", "uid"), "");
	ck_assert_str_eq(json_text_at(o, "metadata", "name"), "a");
	ck_assert_ptr_eq(json_at(o, "metadata", "labels"),
			 cJSON_GetObjectItemCaseSensitive(json_get(o, "metadata"),
							  "labels"));
	ck_assert_ptr_eq(json_at(o, "spec", NULL), json_get(o, "spec"));
	ck_assert_ptr_null(json_at(o, "s", "x")); /* a string has no keys */
	ck_assert_ptr_null(json_get(json_get(o, "list"), "name")); /* array */
	ck_assert_str_eq(json_meta_at(o, "name", NULL), "a");
	ck_assert_str_eq(json_meta_at(o, "labels", "k"), "v");
	ck_assert_ptr_null(json_meta_at(o, "labels", "nope"));
	ck_assert_ptr_null(json_meta_at(json_get(o, "spec"), "name", NULL));
	ck_assert(json_num_at(o, "spec", "n") == 3);
	ck_assert(json_num_at(o, "metadata", "uid") == 7);
	ck_assert(json_num_at(o, "metadata", "name") == 0);
	ck_assert(json_num_at(NULL, "spec", "n") == 0);
	cJSON_Delete(o);
}
END_TEST

Suite *helpers_suite(void)
{
	Suite *s = suite_create("helpers");
	TCase *tc = tcase_create("base64");

	tcase_add_loop_test(tc, test_base64_encode, 0,
			    (int)(sizeof(encode_cases) / sizeof(encode_cases[0])));
	tcase_add_loop_test(tc, test_base64_decode, 0,
			    (int)(sizeof(decode_cases) / sizeof(decode_cases[0])));
	tcase_add_test(tc, test_base64_round_trip);
	suite_add_tcase(s, tc);

	tc = tcase_create("backoff");
	tcase_add_test(tc, test_backoff_ranges);
	tcase_add_test(tc, test_backoff_jitters);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	tcase_add_loop_test(tc, test_rfc3339, 0,
			    (int)(sizeof(rfc3339_cases) / sizeof(rfc3339_cases[0])));
	tcase_add_test(tc, test_days_from_civil);
	tcase_add_loop_test(tc, test_duration, 0,
			    (int)(sizeof(duration_cases) / sizeof(duration_cases[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("wipe");
	tcase_add_test(tc, test_wipe);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_getters);
	suite_add_tcase(s, tc);
	return s;
}
