/*
 * util/digest.h: content digests (SHA-256) and wiping secrets
 * (OPENSSL_cleanse): the one home of both for every layer.
 */
#ifndef UTIL_DIGEST_H
#define UTIL_DIGEST_H

#include <stddef.h>

#include "util/buf.h"

/* digest_sha256_hex: lower-case hex SHA-256 of data, appended to out. */
void digest_sha256_hex(const void *data, size_t len, struct buf *out);
/* digest_sha256_b64url: unpadded base64url SHA-256 (as kubectl's ApplySet
 * id uses), appended to out. */
void digest_sha256_b64url(const void *data, size_t len, struct buf *out);

/* digest_hmac_sha256: HMAC-SHA-256 of data under key into out. */
void digest_hmac_sha256(const void *key, size_t keylen, const void *data,
			size_t len, unsigned char out[32]);
/* digest_equal: compare n bytes in constant time (secrets, MACs): 1 if
 * equal. */
int digest_equal(const void *a, const void *b, size_t n);
/* digest_random: n bytes from OpenSSL's CSPRNG; 0, or -1 when it has no
 * entropy (the caller reports it). */
int digest_random(void *out, size_t n);

/* digest_wipe: overwrite a secret with zeros in a way the compiler may not
 * drop (OPENSSL_cleanse; a memset before free can be removed as a dead
 * store). NULL or 0 bytes: nothing. */
void digest_wipe(void *p, size_t len);
/* digest_wipe_buf: the same for a buffer's contents */
void digest_wipe_buf(struct buf *b);
/* digest_wipe_free: wipe len bytes at p, then free it */
void digest_wipe_free(void *p, size_t len);
/* digest_wipe_str: wipe a NUL-terminated secret, then free it; NULL: nothing */
void digest_wipe_str(char *s);
/* digest_wipe_release: wipe a buffer's whole allocation, then release it */
void digest_wipe_release(struct buf *b);

#endif
