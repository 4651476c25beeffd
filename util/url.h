/*
 * util/url.h: the user-info part of a URL ("scheme://user[:password]@host"),
 * to refuse or hide credentials written into a URL.
 */
#ifndef UTIL_URL_H
#define UTIL_URL_H

#include <stddef.h>

#include "util/buf.h"

/*
 * url_userinfo: 1 when url is "scheme://USERINFO@host..." (the '@' before
 * the first '/' after "://"), with *has_password set when USERINFO holds a
 * ':'; 0 otherwise (also for scp-like "user@host:path", which has no
 * scheme and carries no password).
 */
int url_userinfo(const char *url, int *has_password);

/* url_strip_userinfo: url without "USERINFO@" (appended to out) */
void url_strip_userinfo(const char *url, struct buf *out);

/* url_percent_decode: s[0..n) with %XX escapes decoded (malformed ones
 * kept as they are), NUL-terminated, to free() */
char *url_percent_decode(const char *s, size_t n);

/* url_form_encode: s as application/x-www-form-urlencoded (RFC 3986
 * unreserved characters kept, everything else %XX), appended to out */
void url_form_encode(struct buf *out, const char *s);

#endif
