/*
 * util/buf.h: growable byte buffer, always NUL-terminated, optionally capped.
 *
 * Invariants (after git's strbuf and curl's dynbuf):
 *  - buf_cstr() never returns NULL; the content is always NUL-terminated;
 *  - a buffer with max != 0 refuses appends that would grow it past max:
 *    the append returns -1 and leaves the buffer as it was;
 *  - buf_detach() is the only way to take the memory; buf_release() returns
 *    the struct to its BUF_INIT state.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *ptr;  /* NULL until the first append; read with buf_cstr() */
	size_t len; /* bytes used, without the terminating NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* 0 = unlimited */
};
#define BUF_INIT { NULL, 0, 0, 0 }

void buf_init_capped(struct buf *b, size_t max);
int buf_add(struct buf *b, const void *data, size_t len);
int buf_adds(struct buf *b, const char *s);
int buf_addc(struct buf *b, char c);
int buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* buf_add_first_line: the first non-blank line of s, at most max bytes,
 * unprintable bytes as '?' (for quoting other programs' output in one-line
 * messages). */
void buf_add_first_line(struct buf *b, const char *s, size_t max);
const char *buf_cstr(const struct buf *b);
/* buf_detach: hands over the memory (never NULL); the caller free()s it. */
char *buf_detach(struct buf *b, size_t *len_out);
void buf_reset(struct buf *b);
void buf_release(struct buf *b);

#endif
