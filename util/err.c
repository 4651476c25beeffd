/* util/err.c: the error record (see err.h). */
#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

int err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->code = code;
	buf_reset(&e->msg);
	va_start(ap, fmt);
	buf_vaddf(&e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (!e)
		return -1;
	e->code = ERR_IO;
	buf_reset(&e->msg);
	va_start(ap, fmt);
	buf_vaddf(&e->msg, fmt, ap);
	va_end(ap);
	buf_addf(&e->msg, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

int err_wrap(struct err *e, const char *fmt, ...)
{
	struct buf tmp = BUF_INIT;
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	buf_vaddf(&tmp, fmt, ap);
	va_end(ap);
	buf_adds(&tmp, ": ");
	buf_add(&tmp, buf_cstr(&e->msg), e->msg.len);
	buf_release(&e->msg);
	e->msg = tmp;
	if (e->code == ERR_NONE)
		e->code = ERR_INTERNAL;
	return -1;
}

const char *err_msg(const struct err *e)
{
	return buf_cstr(&e->msg);
}

void err_clear(struct err *e)
{
	e->code = ERR_NONE;
	buf_reset(&e->msg);
}

void err_release(struct err *e)
{
	buf_release(&e->msg);
	e->code = ERR_NONE;
}
