/* util/udiff.c: unified diff of two texts by longest common subsequence. */
#include "util/udiff.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct lines {
	const char **s;
	size_t *len;
	size_t n;
	int last_no_nl; /* the last line has no '\n' */
};

static void split(const char *t, struct lines *l)
{
	size_t cap = 16;

	l->s = xmalloc(cap * sizeof(*l->s));
	l->len = xmalloc(cap * sizeof(*l->len));
	l->n = 0;
	l->last_no_nl = 0;
	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		if (l->n == cap) {
			cap *= 2;
			l->s = xrealloc(l->s, cap * sizeof(*l->s));
			l->len = xrealloc(l->len, cap * sizeof(*l->len));
		}
		l->s[l->n] = t;
		l->len[l->n] = n;
		l->n++;
		if (!nl)
			l->last_no_nl = 1;
		t += n + (nl ? 1 : 0);
	}
}

static int no_nl(const struct lines *l, size_t i)
{
	return l->last_no_nl && i + 1 == l->n;
}

/* equal text and equal line ending ("y" at EOF differs from "y\n") */
static int line_eq(const struct lines *a, size_t i, const struct lines *b,
		   size_t j)
{
	return a->len[i] == b->len[j] && no_nl(a, i) == no_nl(b, j) &&
	       !memcmp(a->s[i], b->s[j], a->len[i]);
}

/* "@@ -start,count" in diff -u's form: ",1" is left out */
static void range(struct buf *out, char sign, size_t start, size_t count)
{
	if (count == 1)
		buf_addf(out, "%c%zu", sign, start);
	else
		buf_addf(out, "%c%zu,%zu", sign, start, count);
}

/* op per output line: ' ' same, '-' from a, '+' from b */
struct op {
	char kind;
	size_t ia, ib;
};

/*
 * align: the operations that turn a into b (' ', '-', '+'), in order, into
 * ops (room for n + m); returns how many. An LCS over lines that takes
 * equal lines as they come and prefers '+' on ties.
 */
static size_t align(const struct lines *la, const struct lines *lb,
		    struct op *ops)
{
	size_t nops = 0, n = la->n, m = lb->n, p = 0;
	unsigned *tbl;

	/* the common leading lines are matched first whatever the table
	 * says (the walk below takes equal lines as they come), so the
	 * table only covers what follows them */
	while (p < n && p < m && line_eq(la, p, lb, p)) {
		ops[nops++] = (struct op){ ' ', p, p };
		p++;
	}
	if ((n - p + 1) * (m - p + 1) <= UDIFF_MAX_CELLS) {
		/* tbl[i][j] = LCS length of a[p + i..] and b[p + j..] */
		size_t w = m - p + 1;
		tbl = xcalloc((n - p + 1) * w, sizeof(*tbl));
		for (size_t i = n - p; i-- > 0;)
			for (size_t j = m - p; j-- > 0;)
				tbl[i * w + j] =
					line_eq(la, p + i, lb, p + j)
						? tbl[(i + 1) * w + j + 1] + 1
					: tbl[(i + 1) * w + j] > tbl[i * w + j + 1]
						? tbl[(i + 1) * w + j]
						: tbl[i * w + j + 1];
		{
			size_t i = 0, j = 0, ni = n - p, mj = m - p;
			while (i < ni || j < mj) {
				if (i < ni && j < mj &&
				    line_eq(la, p + i, lb, p + j)) {
					ops[nops++] = (struct op){ ' ', p + i++,
								   p + j++ };
				} else if (j < mj &&
					   (i == ni || tbl[i * w + j + 1] >=
							       tbl[(i + 1) * w + j])) {
					ops[nops++] = (struct op){ '+', p + i,
								   p + j++ };
				} else {
					ops[nops++] = (struct op){ '-', p + i++,
								   p + j };
				}
			}
		}
		free(tbl);
	} else {
		for (size_t i = p; i < n; i++)
			ops[nops++] = (struct op){ '-', i, p };
		for (size_t j = p; j < m; j++)
			ops[nops++] = (struct op){ '+', n, j };
	}
	return nops;
}

int udiff(struct buf *out, const char *a, const char *b, const char *label_a,
	  const char *label_b, int context)
{
	struct lines la, lb;
	struct op *ops;
	size_t nops, n, m;

	if (!strcmp(a, b))
		return 0;
	split(a, &la);
	split(b, &lb);
	n = la.n;
	m = lb.n;
	ops = xmalloc(st_mul(n + m + 1, sizeof(*ops)));
	nops = align(&la, &lb, ops);
	/* reorder so that within a change block removals come first */
	for (size_t k = 0; k < nops;) {
		size_t e = k;
		if (ops[k].kind == ' ') {
			k++;
			continue;
		}
		while (e < nops && ops[e].kind != ' ')
			e++;
		{
			struct op *tmp = xmalloc((e - k) * sizeof(*tmp));
			size_t t = 0;
			for (size_t x = k; x < e; x++)
				if (ops[x].kind == '-')
					tmp[t++] = ops[x];
			for (size_t x = k; x < e; x++)
				if (ops[x].kind == '+')
					tmp[t++] = ops[x];
			memcpy(ops + k, tmp, (e - k) * sizeof(*tmp));
			free(tmp);
		}
		k = e;
	}
	/* line numbers follow the final order of the operations */
	{
		size_t i = 0, j = 0;
		for (size_t k = 0; k < nops; k++) {
			ops[k].ia = i;
			ops[k].ib = j;
			if (ops[k].kind != '+')
				i++;
			if (ops[k].kind != '-')
				j++;
		}
	}

	buf_addf(out, "--- %s\n+++ %s\n", label_a, label_b);
	for (size_t k = 0; k < nops;) {
		size_t start, end, sa = 0, sb = 0, ca = 0, cb = 0;
		if (ops[k].kind == ' ') {
			k++;
			continue;
		}
		/* a hunk: from `context` before the change to `context` after
		 * the last change that is within 2*context of the previous */
		start = k > (size_t)context ? k - (size_t)context : 0;
		end = k;
		while (end < nops) {
			size_t run = 0, x = end;
			while (x < nops && ops[x].kind == ' ') {
				run++;
				x++;
			}
			if (x == nops || run > (size_t)(2 * context)) {
				end += run < (size_t)context ? run : (size_t)context;
				break;
			}
			end = x;
			while (end < nops && ops[end].kind != ' ')
				end++;
		}
		for (size_t x = start; x < end; x++) {
			if (ops[x].kind != '+')
				ca++;
			if (ops[x].kind != '-')
				cb++;
		}
		sa = ops[start].ia + (ca ? 1 : 0);
		sb = ops[start].ib + (cb ? 1 : 0);
		buf_adds(out, "@@ ");
		range(out, '-', sa, ca);
		buf_addc(out, ' ');
		range(out, '+', sb, cb);
		buf_adds(out, " @@\n");
		for (size_t x = start; x < end; x++) {
			const struct op *o = &ops[x];
			int eof;
			if (o->kind == '+') {
				buf_addc(out, '+');
				buf_add(out, lb.s[o->ib], lb.len[o->ib]);
				eof = no_nl(&lb, o->ib);
			} else {
				buf_addc(out, o->kind);
				buf_add(out, la.s[o->ia], la.len[o->ia]);
				eof = no_nl(&la, o->ia) ||
				      (o->kind == ' ' && no_nl(&lb, o->ib));
			}
			buf_addc(out, '\n');
			if (eof)
				buf_adds(out, "\\ No newline at end of file\n");
		}
		k = end;
	}
	free(ops);
	free(la.s);
	free(la.len);
	free(lb.s);
	free(lb.len);
	return 1;
}
