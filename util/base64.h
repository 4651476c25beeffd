/*
 * util/base64.h: base64 (RFC 4648) through OpenSSL's EVP_EncodeBlock and
 * EVP_DecodeBlock — the one encoder and decoder (kubeconfig data fields and
 * JWT payloads, known_hosts keys and fingerprints, the ApplySet id).
 */
#ifndef UTIL_BASE64_H
#define UTIL_BASE64_H

#include <stddef.h>

#include "util/buf.h"

enum {
	BASE64_URL = 1,   /* encode: the URL alphabet (-_); decode: accept it
			   * as well as +/ */
	BASE64_NOPAD = 2, /* encode: no '=' padding */
	BASE64_SPACE = 4, /* decode: ignore white space anywhere */
};

/* base64_encode: append the encoding of n bytes to out */
void base64_encode(struct buf *out, const void *p, size_t n, int flags);

/*
 * base64_decode: append the bytes of s[0..n) to out (which stays
 * NUL-terminated). Padding is optional; '=' only at the end, at most two;
 * a lone final character is invalid. Returns -1, out unchanged, for
 * invalid input. The scratch copy is wiped, so secrets may pass through.
 */
int base64_decode(struct buf *out, const char *s, size_t n, int flags);

#endif
