/*
 * tests/unit/test_digest.c: reconcile/digest.c and the ApplySet id.
 * Expected values were computed independently (Python hashlib/base64).
 */
#include <check.h>
#include <string.h>

#include "util/digest.h"
#include "reconcile/reconcile.h"
#include "tests/unit/suites.h"

START_TEST(test_sha256_hex)
{
	struct buf b = BUF_INIT;

	digest_sha256_hex("abc", 3, &b);
	ck_assert_str_eq(buf_cstr(&b), "ba7816bf8f01cfea414140de5dae2223"
				       "b00361a396177a9cb410ff61f20015ad");
	buf_reset(&b);
	digest_sha256_hex("", 0, &b);
	ck_assert_str_eq(buf_cstr(&b), "e3b0c44298fc1c149afbf4c8996fb924"
				       "27ae41e4649b934ca495991b7852b855");
	buf_release(&b);
}
END_TEST

START_TEST(test_sha256_b64url)
{
	struct buf b = BUF_INIT;

	/* unpadded base64url: 43 characters, '-' and '_' instead of '+' '/' */
	digest_sha256_b64url("abc", 3, &b);
	ck_assert_str_eq(buf_cstr(&b), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
	ck_assert_uint_eq(b.len, 43);
	buf_release(&b);
}
END_TEST

/* kubectl's ApplySet id: base64url(sha256("<name>.<ns>.<kind>.<group>")),
 * with an empty group for a ConfigMap parent */
START_TEST(test_applyset_id)
{
	struct buf b = BUF_INIT;

	recon_applyset_id("gpuform-ml-prod", "gpuform-system", &b);
	ck_assert_str_eq(buf_cstr(&b),
			 "applyset-Wwflc2fkdhYUNuplurwYSxcg7uROE_jIK3rEldYqJjs-v1");
	buf_release(&b);
}
END_TEST

Suite *digest_suite(void)
{
	Suite *s = suite_create("digest");
	TCase *tc = tcase_create("digest");

	tcase_add_test(tc, test_sha256_hex);
	tcase_add_test(tc, test_sha256_b64url);
	tcase_add_test(tc, test_applyset_id);
	suite_add_tcase(s, tc);
	return s;
}
