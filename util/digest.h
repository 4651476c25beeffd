/*
 * reconcile/digest.h: content digests and wiping secrets — the only
 * OpenSSL user outside the Git module.
 */
#ifndef RECONCILE_DIGEST_H
#define RECONCILE_DIGEST_H

#include <stddef.h>

#include "util/buf.h"

/* digest_sha256_hex: lower-case hex SHA-256 of data, appended to out. */
void digest_sha256_hex(const void *data, size_t len, struct buf *out);
/* digest_sha256_b64url: unpadded base64url SHA-256 (as kubectl's ApplySet
 * id uses), appended to out. */
void digest_sha256_b64url(const void *data, size_t len, struct buf *out);

/* digest_wipe: overwrite a secret with zeros in a way the compiler may not
 * drop (OPENSSL_cleanse; a memset before free can be removed as a dead
 * store). NULL or 0 bytes: nothing. */
void digest_wipe(void *p, size_t len);
/* digest_wipe_buf: the same for a buffer's contents */
void digest_wipe_buf(struct buf *b);

#endif
