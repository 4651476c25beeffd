/*
 * aws/awsxml.c: a small non-validating XML reader for AWS answers.
 * Depth and size are bounded so a hostile answer cannot exhaust the stack.
 */
#include "aws/awsxml.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define XML_MAX_DEPTH 64

struct xr {
	const char *start, *p, *end;
	struct err *err;
};

static int bad(struct xr *r, const char *what)
{
	return err_set(r->err, ERR_INVALID,
		       "malformed XML answer: %s (at byte %td)", what,
		       r->p - r->start);
}

static int starts(struct xr *r, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(r->end - r->p) >= n && !memcmp(r->p, s, n);
}

static int skip_past(struct xr *r, const char *s)
{
	size_t n = strlen(s);

	while (r->p + n <= r->end) {
		if (!memcmp(r->p, s, n)) {
			r->p += n;
			return 0;
		}
		r->p++;
	}
	return -1;
}

/* comments, processing instructions and DOCTYPE before or between tags */
static int skip_misc(struct xr *r)
{
	for (;;) {
		while (r->p < r->end && strchr(" \t\r\n", *r->p))
			r->p++;
		if (starts(r, "<?")) {
			if (skip_past(r, "?>") < 0)
				return bad(r, "unterminated <?");
		} else if (starts(r, "<!--")) {
			if (skip_past(r, "-->") < 0)
				return bad(r, "unterminated comment");
		} else if (starts(r, "<!")) {
			if (skip_past(r, ">") < 0)
				return bad(r, "unterminated <!");
		} else {
			return 0;
		}
	}
}

static int add_entity(struct xr *r, struct buf *b)
{
	static const struct { const char *n; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
		{ "&quot;", '"' }, { "&apos;", '\'' },
	};
	const char *semi = memchr(r->p, ';', (size_t)(r->end - r->p));
	size_t n;

	if (!semi || semi - r->p > 12)
		return bad(r, "bad entity");
	n = (size_t)(semi - r->p) + 1;
	for (size_t i = 0; i < sizeof(ents) / sizeof(*ents); i++)
		if (strlen(ents[i].n) == n && !memcmp(r->p, ents[i].n, n)) {
			buf_addc(b, ents[i].c);
			r->p = semi + 1;
			return 0;
		}
	if (n > 3 && r->p[1] == '#') {
		char *e;
		long v = r->p[2] == 'x' ? strtol(r->p + 3, &e, 16)
					: strtol(r->p + 2, &e, 10);
		if (e != semi || v <= 0 || v > 0x10FFFF)
			return bad(r, "bad character reference");
		if (v < 0x80) {
			buf_addc(b, (char)v);
		} else if (v < 0x800) {
			buf_addc(b, (char)(0xC0 | (v >> 6)));
			buf_addc(b, (char)(0x80 | (v & 0x3F)));
		} else if (v < 0x10000) {
			buf_addc(b, (char)(0xE0 | (v >> 12)));
			buf_addc(b, (char)(0x80 | ((v >> 6) & 0x3F)));
			buf_addc(b, (char)(0x80 | (v & 0x3F)));
		} else {
			buf_addc(b, (char)(0xF0 | (v >> 18)));
			buf_addc(b, (char)(0x80 | ((v >> 12) & 0x3F)));
			buf_addc(b, (char)(0x80 | ((v >> 6) & 0x3F)));
			buf_addc(b, (char)(0x80 | (v & 0x3F)));
		}
		r->p = semi + 1;
		return 0;
	}
	return bad(r, "unknown entity");
}

static char *trimmed(struct buf *b)
{
	const char *s = buf_cstr(b);
	size_t n = b->len;

	while (n && strchr(" \t\r\n", s[n - 1]))
		n--;
	while (n && strchr(" \t\r\n", *s)) {
		s++;
		n--;
	}
	return xstrndup(s, n);
}

static int element(struct xr *r, struct xnode *n, int depth)
{
	const char *name, *colon;
	size_t nlen;
	struct buf text = BUF_INIT;
	int ret = -1;

	if (depth > XML_MAX_DEPTH)
		return bad(r, "nested too deeply");
	if (!starts(r, "<"))
		return bad(r, "expected an element");
	name = ++r->p;
	while (r->p < r->end && !strchr(" \t\r\n/>", *r->p))
		r->p++;
	nlen = (size_t)(r->p - name);
	if (!nlen || r->p >= r->end)
		return bad(r, "truncated tag");
	colon = memchr(name, ':', nlen);
	n->name = colon ? xstrndup(colon + 1, nlen - (size_t)(colon + 1 - name))
			: xstrndup(name, nlen);
	/* attributes: skipped, quotes respected */
	while (r->p < r->end && *r->p != '>' && !starts(r, "/>")) {
		if (*r->p == '"' || *r->p == '\'') {
			const char *q = memchr(r->p + 1, *r->p,
					       (size_t)(r->end - r->p - 1));
			if (!q)
				return bad(r, "unterminated attribute");
			r->p = q;
		}
		r->p++;
	}
	if (r->p >= r->end)
		return bad(r, "truncated tag");
	if (starts(r, "/>")) {
		r->p += 2;
		n->text = xstrndup("", 0);
		return 0;
	}
	r->p++;
	for (;;) {
		if (r->p >= r->end) {
			bad(r, "truncated: element not closed");
			goto out;
		}
		if (starts(r, "</")) {
			r->p += 2;
			if ((size_t)(r->end - r->p) < nlen + 1 ||
			    memcmp(r->p, name, nlen) ||
			    !strchr(" \t\r\n>", r->p[nlen])) {
				bad(r, "mismatched end tag");
				goto out;
			}
			r->p += nlen;
			while (r->p < r->end && *r->p != '>')
				r->p++;
			if (r->p >= r->end) {
				bad(r, "truncated end tag");
				goto out;
			}
			r->p++;
			break;
		}
		if (starts(r, "<!--") || starts(r, "<?")) {
			if (skip_misc(r) < 0)
				goto out;
			continue;
		}
		if (starts(r, "<![CDATA[")) {
			const char *s = r->p + 9;
			r->p = s;
			if (skip_past(r, "]]>") < 0) {
				bad(r, "unterminated CDATA");
				goto out;
			}
			buf_add(&text, s, (size_t)(r->p - 3 - s));
			continue;
		}
		if (*r->p == '<') {
			GROW(n->kids, n->nkids + 1, n->alloc);
			memset(&n->kids[n->nkids], 0, sizeof(*n->kids));
			n->nkids++;
			if (element(r, &n->kids[n->nkids - 1], depth + 1) < 0)
				goto out;
			continue;
		}
		if (*r->p == '&') {
			if (add_entity(r, &text) < 0)
				goto out;
			continue;
		}
		buf_addc(&text, *r->p++);
	}
	n->text = trimmed(&text);
	ret = 0;
out:
	buf_release(&text);
	return ret;
}

int xml_parse(struct xnode *root, const char *data, size_t len,
	      struct err *err)
{
	struct xr r = { data, data, data + len, err };

	memset(root, 0, sizeof(*root));
	if (skip_misc(&r) < 0)
		return -1;
	if (r.p >= r.end)
		return err_set(err, ERR_INVALID, "malformed XML answer: empty");
	if (element(&r, root, 0) < 0) {
		xml_release(root);
		return -1;
	}
	if (skip_misc(&r) < 0 || r.p != r.end) {
		xml_release(root);
		return err_set(err, ERR_INVALID,
			       "malformed XML answer: content after the "
			       "document element");
	}
	return 0;
}

void xml_release(struct xnode *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		xml_release(&n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n->text);
	memset(n, 0, sizeof(*n));
}

const struct xnode *xml_child(const struct xnode *n, const char *name)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		if (n->kids[i].name && !strcmp(n->kids[i].name, name))
			return &n->kids[i];
	return NULL;
}

const struct xnode *xml_path(const struct xnode *n, const char *path)
{
	char part[128];

	while (n && *path) {
		size_t k = strcspn(path, "/");
		if (k >= sizeof(part))
			return NULL;
		memcpy(part, path, k);
		part[k] = '\0';
		n = xml_child(n, part);
		path += k + (path[k] == '/');
	}
	return n;
}

const char *xml_text(const struct xnode *n, const char *path)
{
	const struct xnode *x = xml_path(n, path);
	return x ? x->text : NULL;
}
