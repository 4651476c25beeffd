/*
 * reconcile/digest.h: content digests — the only OpenSSL user.
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

#endif
