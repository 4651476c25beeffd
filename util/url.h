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

/*
 * url_host_loopback: 1 when the host of "scheme://[userinfo@]host[:port]..."
 * is a loopback address: 127.0.0.0/8 written as a dotted quad of digits,
 * [::1] or localhost (case-insensitive). Never resolves a name.
 */
int url_host_loopback(const char *url);

/*
 * url_secret_safe: the one rule for sending a credential (a Kubernetes
 * token, a Git token, an AWS signature or session token) to url: 1 for
 * https://, or http:// to a loopback host (url_host_loopback); 0 for
 * anything else (plain http:// elsewhere, other schemes). The scheme is
 * compared case-insensitively.
 */
int url_secret_safe(const char *url);

#endif
