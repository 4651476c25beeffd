/* util/url.c: see url.h. */
#include "util/url.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util/xalloc.h"

/* the user info of url: [*start, *start + *len), or 0 when none */
static int find_userinfo(const char *url, size_t *start, size_t *len)
{
	const char *p = strstr(url, "://"), *end, *at;

	if (!p)
		return 0;
	p += 3;
	end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(end - p));
	if (!at)
		return 0;
	/* the last '@' of the authority ends the user info */
	for (const char *q = at; q < end; q++)
		if (*q == '@')
			at = q;
	*start = (size_t)(p - url);
	*len = (size_t)(at - p);
	return 1;
}

int url_userinfo(const char *url, int *has_password)
{
	size_t s, n;

	*has_password = 0;
	if (!url || !find_userinfo(url, &s, &n))
		return 0;
	*has_password = memchr(url + s, ':', n) != NULL;
	return 1;
}

void url_strip_userinfo(const char *url, struct buf *out)
{
	size_t s, n;

	if (!find_userinfo(url, &s, &n)) {
		buf_adds(out, url);
		return;
	}
	buf_add(out, url, s);
	buf_adds(out, url + s + n + 1);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *url_percent_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

void url_form_encode(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~') {
			buf_addc(out, (char)*p);
		} else {
			buf_addc(out, '%');
			buf_addc(out, hex[*p >> 4]);
			buf_addc(out, hex[*p & 15]);
		}
	}
}

int url_host_loopback(const char *url)
{
	const char *h = url ? strstr(url, "://") : NULL, *end;
	size_t s, n, dots = 0;

	if (!h)
		return 0;
	h += 3;
	if (find_userinfo(url, &s, &n))
		h = url + s + n + 1;
	end = h + strcspn(h, "/?#");
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(end - h));
		return rb && rb - h == 4 && !strncmp(h, "[::1]", 5) &&
		       (rb + 1 == end || rb[1] == ':');
	}
	n = strcspn(h, ":/?#");
	if (h + n != end && h[n] != ':')
		return 0;
	if (n == 9 && !strncasecmp(h, "localhost", 9))
		return 1;
	if (n < 7 || strncmp(h, "127.", 4))
		return 0;
	/* a dotted quad: 127.a.b.c, each part digits only */
	for (size_t i = 3; i < n; i++) {
		if (h[i] == '.') {
			if (!isdigit((unsigned char)h[i + 1]))
				return 0;
			dots++;
		} else if (!isdigit((unsigned char)h[i])) {
			return 0;
		}
	}
	return dots == 3;
}

int url_secret_safe(const char *url)
{
	if (!url)
		return 0;
	if (!strncasecmp(url, "https://", 8))
		return 1;
	return !strncasecmp(url, "http://", 7) && url_host_loopback(url);
}
