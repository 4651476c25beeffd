/*
 * util/udiff.h: line-based unified diff of two texts (like `diff -u`).
 *
 * LCS over lines; meant for Kubernetes objects (hundreds of lines), not for
 * huge files. The common leading lines are matched without the table, so
 * only the rest counts: past UDIFF_MAX_CELLS of that (n-k)*(m-k) table it
 * falls back to "the rest removed, the rest added". Why this and not
 * libgit2's diff: docs/development.md, "The text diff".
 */
#ifndef UTIL_UDIFF_H
#define UTIL_UDIFF_H

#include "util/buf.h"

#define UDIFF_MAX_CELLS (4u << 20)

/*
 * udiff: append a unified diff of a -> b with `context` lines of context and
 * "--- label_a" / "+++ label_b" headers to out. Returns 1 when the texts
 * differ, 0 when equal (nothing appended).
 */
int udiff(struct buf *out, const char *a, const char *b, const char *label_a,
	  const char *label_b, int context);

#endif
