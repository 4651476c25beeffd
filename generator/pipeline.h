/*
 * generator/pipeline.h: the whole render chain for one intent file:
 * read -> validate -> plan -> render. The one entry point cmd/ uses, so
 * `render`, `validate` and later `diff`/`commit` go through the same steps.
 */
#ifndef GENERATOR_PIPELINE_H
#define GENERATOR_PIPELINE_H

#include <stddef.h>

#include "generator/render.h"
#include "generator/tmpl.h"
#include "util/diag.h"
#include "util/err.h"

/*
 * pipeline_render: render the intent in data[0..len) (named `file` in
 * messages). Problems and warnings go to *d. Fails with ERR_INVALID when the
 * intent has errors (nothing rendered), other codes for internal failures.
 * out may be NULL to validate only.
 */
int pipeline_render(struct rendered *out, const char *file, const char *data,
		    size_t len, const struct tmpl_set *t, struct diags *d,
		    struct err *err);

#endif
