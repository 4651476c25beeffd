/*
 * util/err.h: the error record every fallible function takes last.
 *
 * Rules (docs/development.md, "Errors and style"): a fallible function
 * returns 0 or -1 and fills *err on failure only; the code that detects the
 * problem writes a one-line, lower-case message with its subject first;
 * callers add context with err_wrap() only when it adds information; only
 * cmd/ prints.
 */
#ifndef UTIL_ERR_H
#define UTIL_ERR_H

#include "util/buf.h"

enum err_code {
	ERR_NONE = 0,
	ERR_INVALID,  /* user input: intent, manifest, template, flags */
	ERR_NOTFOUND, /* something the user named does not exist */
	ERR_CONFLICT, /* field-manager conflict, ref moved, ... */
	ERR_AUTH,     /* 401/403, missing credentials */
	ERR_IO,       /* filesystem / OS */
	ERR_GIT,      /* libgit2 failure */
	ERR_HTTP,     /* transport failure or unexpected status */
	ERR_INTERNAL, /* should be unreachable */
	ERR_WRONG_CLUSTER, /* the cluster is not the one the intent or the
			    * inventory names (reconcile/identity.h) */
};

struct err {
	enum err_code code;
	struct buf msg;
};
#define ERR_INIT { ERR_NONE, BUF_INIT }

/* err_set: record code + message; always returns -1 (for `return err_set`). */
int err_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* err_errno: ERR_IO with ": <strerror(errno)>" appended; returns -1. */
int err_errno(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* err_wrap: prepend "<context>: " to the message; returns -1. */
int err_wrap(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *err_msg(const struct err *e);
void err_clear(struct err *e);
void err_release(struct err *e);

#endif
