/*
 * reconcile/advrun.h: the run of `gpuform advise` without its printing —
 * read the intents, ask Prometheus what their GPUs did over the window
 * (reconcile/prom.c), decide the changes (generator/advise.c), edit the
 * intents (each result validated), write them in place or commit them on a
 * new branch (git/repo.c). Never applied to a cluster.
 */
#ifndef RECONCILE_ADVRUN_H
#define RECONCILE_ADVRUN_H

#include <stddef.h>

#include "generator/advise.h"
#include "generator/intent.h"
#include "generator/tmpl.h"
#include "reconcile/prom.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

struct advrun {
	struct prom prom;
	long window_s, step_s;
	long long at; /* the end of the window, Unix seconds */
	const char *branch;     /* advrun_commit's new branch */
	const char *token_file; /* --prometheus-token-file, or NULL */
	struct buf token;
	struct tmpl_set *t;     /* for the node-impact render */
	/* per intent file */
	size_t n;
	char **files;
	struct buf *data, *edited;
	struct intent *in;
	struct advise_obs **obs;
	struct advise_result *res;
};

void advrun_release(struct advrun *a);

/* advrun_parse_window: "14d", "7d", or a duration in h/m/s, 1 s to 400
 * days; advrun_parse_at: RFC 3339 or Unix seconds. -1: not one */
int advrun_parse_window(const char *s, long *out);
int advrun_parse_at(const char *s, long long *out);

/* advrun_format: the results as text, markdown (a pull-request body) or
 * JSON, appended to *out */
enum advrun_format { ADVRUN_TEXT, ADVRUN_MARKDOWN, ADVRUN_JSON };
void advrun_format(struct buf *out, const struct advrun *a,
		   enum advrun_format fmt);

/*
 * advrun_read: read every intent; their problems into *d (sorted), all
 * together. 0, or -1 with err (ERR_INVALID: an intent is invalid, ERR_IO:
 * one could not be read) saying nothing was asked or written.
 */
int advrun_read(struct advrun *a, char **paths, size_t n, struct diags *d,
		struct err *err);

/* advrun_token: the bearer token of token_file: one line, trailing
 * whitespace dropped; empty or with control characters is an error that
 * names the file, never the content */
int advrun_token(struct advrun *a, struct err *err);

/* advrun_decide: every query first (a Prometheus error: nothing was
 * written), then the decisions; *changes: how many in all */
int advrun_decide(struct advrun *a, const struct advise_opts *o,
		  size_t *changes, struct err *err);

/* advrun_edit: every edit, each result validated before anything is
 * written (the problems of one that does not validate into *d) */
int advrun_edit(struct advrun *a, struct diags *d, struct err *err);

/* advrun_write: the edited files replaced (fs_replace_files: all or none) */
int advrun_write(struct advrun *a, struct err *err);

/* advrun_commit: the edited files committed on the new branch a->branch of
 * the repository holding them, the evidence in the message; HEAD and the
 * work tree left alone. *nfiles and oid: what was committed. */
int advrun_commit(struct advrun *a, size_t *nfiles, char *oid,
		  struct err *err);

#endif
