/* util/digest.c: SHA-256 and HMAC through OpenSSL's EVP interface, random
 * bytes from RAND_bytes. */
#include "util/digest.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "util/base64.h"
#include "util/xalloc.h"

static void sha256(const void *data, size_t len, unsigned char out[32])
{
	unsigned int n = 0;

	if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != 32)
		BUG("EVP_Digest(sha256) failed");
}

void digest_sha256_hex(const void *data, size_t len, struct buf *out)
{
	unsigned char d[32];

	sha256(data, len, d);
	for (int i = 0; i < 32; i++)
		buf_addf(out, "%02x", d[i]);
}

void digest_sha256_b64url(const void *data, size_t len, struct buf *out)
{
	unsigned char d[32];

	sha256(data, len, d);
	base64_encode(out, d, sizeof(d), BASE64_URL | BASE64_NOPAD);
}

void digest_hmac_sha256(const void *key, size_t keylen, const void *data,
			size_t len, unsigned char out[32])
{
	unsigned int n = 0;

	if (keylen > 0x7fffffff ||
	    !HMAC(EVP_sha256(), key, (int)keylen, data, len, out, &n) ||
	    n != 32)
		BUG("HMAC(sha256) failed");
}

int digest_equal(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

int digest_random(void *out, size_t n)
{
	return n <= 0x7fffffff && RAND_bytes(out, (int)n) == 1 ? 0 : -1;
}

void digest_wipe(void *p, size_t len)
{
	if (p && len)
		OPENSSL_cleanse(p, len);
}

void digest_wipe_buf(struct buf *b)
{
	digest_wipe(b->ptr, b->len);
}

void digest_wipe_free(void *p, size_t len)
{
	digest_wipe(p, len);
	free(p);
}

void digest_wipe_str(char *s)
{
	if (s)
		digest_wipe_free(s, strlen(s));
}

void digest_wipe_release(struct buf *b)
{
	digest_wipe(b->ptr, b->cap);
	buf_release(b);
}
