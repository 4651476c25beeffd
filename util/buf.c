/* util/buf.c: growable, NUL-terminated, optionally capped buffer. */
#include "util/buf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void buf_init_capped(struct buf *b, size_t max)
{
	b->ptr = NULL;
	b->len = b->cap = 0;
	b->max = max;
}

static int buf_grow(struct buf *b, size_t extra)
{
	size_t need = st_add(st_add(b->len, extra), 1);
	size_t n;

	if (b->max && need - 1 > b->max)
		return -1;
	if (need <= b->cap)
		return 0;
	n = b->cap < 64 ? 64 : b->cap;
	while (n < need)
		n = st_mul(n, 2);
	b->ptr = xrealloc(b->ptr, n);
	b->cap = n;
	return 0;
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len) < 0)
		return -1;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	if (buf_grow(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

void buf_add_first_line(struct buf *b, const char *s, size_t max)
{
	size_t n;

	while (*s && isspace((unsigned char)*s))
		s++;
	n = strcspn(s, "\r\n");
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		buf_addc(b, isprint((unsigned char)s[i]) ? s[i] : '?');
}

const char *buf_cstr(const struct buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *buf_detach(struct buf *b, size_t *len_out)
{
	char *p = b->ptr ? b->ptr : xstrdup("");

	if (len_out)
		*len_out = b->len;
	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = b->max = 0;
}
