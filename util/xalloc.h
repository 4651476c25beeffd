/*
 * util/xalloc.h: allocation wrappers that never return NULL.
 *
 * gpuform is an application, not a library: running out of memory prints one
 * line and exits with the runtime-error status (4), as git's wrapper.h does.
 * This removes an out-of-memory path from every other function.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xasprintf: formatted string in fresh memory; the caller free()s it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* st_mul/st_add: size arithmetic that dies on overflow. */
size_t st_mul(size_t a, size_t b);
size_t st_add(size_t a, size_t b);

/* BUG: a broken internal invariant; prints file:line and aborts. */
#define BUG(...) xbug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void xbug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
