/*
 * git/credstore.h: user and password for a URL from a file in the format
 * of git's credential-store helper (GPUFORM_GIT_CREDENTIALS).
 */
#ifndef GIT_CREDSTORE_H
#define GIT_CREDSTORE_H

#include "util/buf.h"

/*
 * credstore_lookup: user and password for url from a git credential-store
 * file ("scheme://user:pass@host[:port][/path]" a line, percent-encoded);
 * the first line with the same scheme and host[:port] (case-insensitive)
 * wins. Returns 0; *user and *pass are NULL when nothing matches, and a
 * file that cannot be read is said in *why. The caller wipes *pass.
 */
int credstore_lookup(const char *file, const char *url, char **user,
		     char **pass, struct buf *why);

#endif
