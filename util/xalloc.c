/* util/xalloc.c: die-on-OOM allocation helpers (see xalloc.h). */
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "gpuform: fatal: out of memory allocating %zu bytes\n",
		n);
	exit(4);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(st_add(len, 1));
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

size_t st_mul(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b)
		BUG("size overflow: %zu * %zu", a, b);
	return a * b;
}

size_t st_add(size_t a, size_t b)
{
	if (a > SIZE_MAX - b)
		BUG("size overflow: %zu + %zu", a, b);
	return a + b;
}

void xbug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuform: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
