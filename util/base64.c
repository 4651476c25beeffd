/* util/base64.c: base64 through OpenSSL (see base64.h). */
#include "util/base64.h"

#include <openssl/evp.h>

#include "util/digest.h"
#include "util/xalloc.h"

void base64_encode(struct buf *out, const void *p, size_t n, int flags)
{
	size_t len = 4 * ((n + 2) / 3);
	unsigned char *t = xmalloc(len + 1);
	int w = EVP_EncodeBlock(t, p, (int)n);

	if (w < 0 || (size_t)w != len)
		BUG("EVP_EncodeBlock returned %d for %zu bytes", w, n);
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '=' && (flags & BASE64_NOPAD))
			break;
		if (flags & BASE64_URL)
			t[i] = t[i] == '+' ? '-' : t[i] == '/' ? '_' : t[i];
		buf_addc(out, (char)t[i]);
	}
	free(t);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static int is_b64(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/';
}

int base64_decode(struct buf *out, const char *s, size_t n, int flags)
{
	/* the characters, URL alphabet mapped, padded to a multiple of 4 */
	unsigned char *t = xmalloc(n + 4);
	size_t m = 0, pad = 0, cap = n + 4;
	int ret = -1, got;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if ((flags & BASE64_SPACE) && is_space(c))
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if ((flags & BASE64_URL) && (c == '-' || c == '_'))
			c = c == '-' ? '+' : '/';
		if (!is_b64(c) || pad)
			goto out;
		t[m++] = (unsigned char)c;
	}
	if (pad > 2 || m % 4 == 1)
		goto out;
	pad = (4 - m % 4) % 4;
	for (size_t i = 0; i < pad; i++)
		t[m++] = '=';
	if (!m) {
		ret = 0;
		goto out;
	}
	{
		unsigned char *d = xmalloc(m / 4 * 3 + 1);
		got = EVP_DecodeBlock(d, t, (int)m);
		if (got >= 0 && (size_t)got >= pad &&
		    buf_add(out, d, (size_t)got - pad) == 0)
			ret = 0;
		digest_wipe(d, m / 4 * 3 + 1);
		free(d);
	}
out:
	digest_wipe(t, cap);
	free(t);
	return ret;
}
