/*
 * util/diag.h: a list of diagnostics (file:line:col, message, hint).
 *
 * Validation reports every problem at once (docs/development.md, "Errors
 * and style"): readers and validators append here instead of stopping at
 * the first one.
 * Lines and columns are 1-based; 0 means "unknown" and is not printed.
 */
#ifndef UTIL_DIAG_H
#define UTIL_DIAG_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

enum diag_severity { DIAG_ERROR, DIAG_WARNING };

struct diag {
	enum diag_severity sev;
	char *file;
	int line, col;
	char *msg;
	char *hint; /* what to do; may be NULL */
	/* the rule a warning is an instance of ("INT003",
	 * "no-maintenance-window": static strings, `gpuform explain` knows
	 * them), shown as "[INT003 no-maintenance-window]"; NULL for none */
	const char *rule_id, *rule_name;
};

struct diags {
	struct diag *items;
	size_t nr, alloc;
	size_t errors, warnings;
	size_t max; /* stop recording past this many (0 = 100) */
};
#define DIAGS_INIT { NULL, 0, 0, 0, 0, 0 }

/*
 * diag_escape: appends s with control characters (C0, DEL, C1 as UTF-8) as
 * C escapes (\n, \x1b, \u009b), so a value quoted in a message can
 * neither start a line that looks like another diagnostic nor drive the
 * terminal; keep_newlines leaves newlines alone (multi-line messages).
 * diags_add() applies it to every message and file name.
 */
void diag_escape(struct buf *out, const char *s, int keep_newlines);
void diags_add(struct diags *d, enum diag_severity sev, const char *file,
	       int line, int col, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* diags_add_rule: diags_add for a diagnostic of a rule (the id and name
 * are static strings: generator/intent.h's INTENT_RULE_* give both) */
void diags_add_rule(struct diags *d, enum diag_severity sev, const char *id,
		    const char *name, const char *file, int line, int col,
		    const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));
/* diags_copy: appends a copy of g (from another list), rule included */
void diags_copy(struct diags *d, const struct diag *g);
/* diags_drop: removes entry i (counts adjusted), keeping the order */
void diags_drop(struct diags *d, size_t i);
/* diags_add_file_err: an error reading file `path` as a diagnostic whose
 * subject is `name`, without naming the file twice ("x: error: cannot
 * open: ..." rather than "x: error: cannot open 'x': ...") */
/* diags_count_file: the diagnostics of severity sev about `file` */
size_t diags_count_file(const struct diags *d, const char *file,
			enum diag_severity sev);
void diags_add_file_err(struct diags *d, const char *name, const char *path,
			const struct err *e);
/* diags_sort: stable order by file, line, column (then insertion). */
void diags_sort(struct diags *d);
/* diags_format: "file:line:col: error: msg\n  hint: ...\n" for each entry. */
void diags_format(const struct diags *d, struct buf *out);
void diags_release(struct diags *d);

#endif
