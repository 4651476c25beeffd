/* reconcile/digest.c: SHA-256 through OpenSSL's EVP interface. */
#include "util/digest.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

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
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char d[32];
	int i;

	sha256(data, len, d);
	for (i = 0; i + 2 < 32; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
		buf_addc(out, tbl[(v >> 18) & 63]);
		buf_addc(out, tbl[(v >> 12) & 63]);
		buf_addc(out, tbl[(v >> 6) & 63]);
		buf_addc(out, tbl[v & 63]);
	}
	/* 32 = 30 + 2 trailing bytes: three characters, no padding */
	{
		unsigned v = (unsigned)d[30] << 16 | (unsigned)d[31] << 8;
		buf_addc(out, tbl[(v >> 18) & 63]);
		buf_addc(out, tbl[(v >> 12) & 63]);
		buf_addc(out, tbl[(v >> 6) & 63]);
	}
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
