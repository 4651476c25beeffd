/*
 * reconcile/writeback.h: what `gpuform commit` writes to Git: each rendered
 * intent as the files of <root>/<cluster>/ (exactly what `render
 * --output-dir` writes for it), and the commit's subject and trailers.
 * git/publish.c commits and pushes them; rendering is the generator's.
 */
#ifndef RECONCILE_WRITEBACK_H
#define RECONCILE_WRITEBACK_H

#include <stddef.h>

#include "generator/inputs.h"
#include "generator/tmpl.h"
#include "git/publish.h"
#include "util/buf.h"
#include "util/err.h"

/*
 * writeback_dirs: one directory per intent, <root>/<cluster>, holding its
 * rendered files (*out: ins->nr of them, writeback_dirs_free). Two intents
 * for one cluster, or a cluster name that cannot be a directory, are
 * ERR_INVALID; a root that names a cluster's own directory
 * ("clusters/ml-prod" for cluster ml-prod) fails with *usage set.
 */
int writeback_dirs(struct publish_dir **out, const struct inputs *ins,
		   const struct tmpl_set *t, const char *root, int *usage,
		   struct err *err);
void writeback_dirs_free(struct publish_dir *dirs, size_t n);

/* writeback_subject: "gpuform: render <cluster>, <cluster>" */
char *writeback_subject(const struct inputs *ins);

/* writeback_trailers: publish_trailers of the intent files, this version */
int writeback_trailers(struct buf *out, const struct inputs *ins,
		       const char *workdir, struct err *err);

#endif
