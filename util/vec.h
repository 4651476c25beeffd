/*
 * util/vec.h: one macro to grow a dynamic array, as git's ALLOC_GROW.
 *
 *	struct item *items = NULL; size_t nr = 0, alloc = 0;
 *	GROW(items, nr + 1, alloc);
 *	items[nr++] = x;
 */
#ifndef UTIL_VEC_H
#define UTIL_VEC_H

#include "util/xalloc.h"

#define GROW(arr, need, alloc)                                               \
	do {                                                                 \
		if ((need) > (alloc)) {                                      \
			size_t grow_n_ = (alloc) < 8 ? 8 : (alloc) * 2;      \
			if (grow_n_ < (need))                                \
				grow_n_ = (need);                            \
			(arr) = xrealloc((arr), st_mul(grow_n_, sizeof(*(arr)))); \
			(alloc) = grow_n_;                                   \
		}                                                            \
	} while (0)

#endif
