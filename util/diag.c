/* util/diag.c: diagnostics list (see diag.h). */
#include "util/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

void diag_escape(struct buf *out, const char *s, int keep_newlines)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n' && keep_newlines)
			buf_addc(out, '\n');
		else if (*p == '\n')
			buf_adds(out, "\\n");
		else if (*p == '\r')
			buf_adds(out, "\\r");
		else if (*p == '\t')
			buf_adds(out, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			buf_addf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			buf_addf(out, "\\u%04x", *++p);
		else
			buf_addc(out, (char)*p);
	}
}

static void vadd(struct diags *d, enum diag_severity sev, const char *id,
		 const char *name, const char *file, int line, int col,
		 const char *hint, const char *fmt, va_list ap)
{
	struct buf raw = BUF_INIT, msg = BUF_INIT;
	struct diag *g;
	size_t max = d->max ? d->max : 100;

	if (sev == DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	if (d->nr >= max)
		return;
	buf_vaddf(&raw, fmt, ap);
	diag_escape(&msg, buf_cstr(&raw), 0);
	GROW(d->items, d->nr + 1, d->alloc);
	g = &d->items[d->nr++];
	g->sev = sev;
	buf_reset(&raw);
	diag_escape(&raw, file ? file : "", 0);
	g->file = buf_detach(&raw, NULL);
	g->line = line;
	g->col = col;
	g->msg = buf_detach(&msg, NULL);
	g->hint = hint ? xstrdup(hint) : NULL;
	g->rule_id = id;
	g->rule_name = name;
	buf_release(&raw);
}

void diags_add(struct diags *d, enum diag_severity sev, const char *file,
	       int line, int col, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(d, sev, NULL, NULL, file, line, col, hint, fmt, ap);
	va_end(ap);
}

void diags_add_rule(struct diags *d, enum diag_severity sev, const char *id,
		    const char *name, const char *file, int line, int col,
		    const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(d, sev, id, name, file, line, col, hint, fmt, ap);
	va_end(ap);
}

void diags_copy(struct diags *d, const struct diag *g)
{
	diags_add_rule(d, g->sev, g->rule_id, g->rule_name, g->file, g->line,
		       g->col, g->hint, "%s", g->msg);
}

void diags_sort(struct diags *d)
{
	/* insertion sort: stable, and lists are short (capped at d->max) */
	for (size_t i = 1; i < d->nr; i++) {
		struct diag t = d->items[i];
		size_t j = i;
		while (j > 0) {
			const struct diag *p = &d->items[j - 1];
			int c = strcmp(p->file, t.file);
			if (!c)
				c = p->line != t.line ? (p->line < t.line ? -1 : 1)
						      : (p->col < t.col ? -1 : p->col > t.col);
			if (c <= 0)
				break;
			d->items[j] = d->items[j - 1];
			j--;
		}
		d->items[j] = t;
	}
}

void diags_format(const struct diags *d, struct buf *out)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct diag *g = &d->items[i];
		const char *sev = g->sev == DIAG_ERROR ? "error" : "warning";

		if (g->line > 0 && g->col > 0)
			buf_addf(out, "%s:%d:%d: %s: %s", g->file, g->line,
				 g->col, sev, g->msg);
		else if (g->line > 0)
			buf_addf(out, "%s:%d: %s: %s", g->file, g->line, sev,
				 g->msg);
		else if (*g->file)
			buf_addf(out, "%s: %s: %s", g->file, sev, g->msg);
		else
			buf_addf(out, "%s: %s", sev, g->msg);
		if (g->rule_id)
			buf_addf(out, " [%s %s]", g->rule_id, g->rule_name);
		buf_addc(out, '\n');
		if (g->hint)
			buf_addf(out, "  hint: %s\n", g->hint);
	}
	if (d->nr < d->errors + d->warnings)
		buf_addf(out, "(%zu more diagnostics not shown)\n",
			 d->errors + d->warnings - d->nr);
}

void diags_drop(struct diags *d, size_t i)
{
	struct diag *g = &d->items[i];

	if (g->sev == DIAG_ERROR)
		d->errors--;
	else
		d->warnings--;
	free(g->file);
	free(g->msg);
	free(g->hint);
	memmove(g, g + 1, (d->nr - i - 1) * sizeof(*g));
	d->nr--;
}

void diags_release(struct diags *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->items[i].file);
		free(d->items[i].msg);
		free(d->items[i].hint);
	}
	free(d->items);
	d->items = NULL;
	d->nr = d->alloc = d->errors = d->warnings = 0;
}

void diags_add_file_err(struct diags *d, const char *name, const char *path,
			const struct err *e)
{
	const char *m = err_msg(e);
	char *quoted = xasprintf("'%s'", path);
	size_t ql = strlen(quoted);
	const char *at = strstr(m, quoted);

	if (at == m && m[ql] == ' ')
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "it%s", m + ql);
	else if (at && at > m && at[-1] == ' ')
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "%.*s%s",
			  (int)(at - m - 1), m, at + ql);
	else
		diags_add(d, DIAG_ERROR, name, 0, 0, NULL, "%s", m);
	free(quoted);
}

size_t diags_count_file(const struct diags *d, const char *file,
			enum diag_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += d->items[i].sev == sev && d->items[i].file &&
		     !strcmp(d->items[i].file, file);
	return n;
}
