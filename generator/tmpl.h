/*
 * generator/tmpl.h: YAML templates with values substituted into parsed nodes.
 *
 * A template is a YAML document in templates/<name>.yaml (compiled into the
 * binary; `--templates DIR` overrides any of them by file name). Rendering
 * walks the parsed template and builds a cJSON value:
 *  - a scalar that is exactly "${a.b}" becomes the context value at a.b
 *    (any JSON type, copied); when that value is missing or null, the map
 *    entry or list item holding it is dropped, so optional fields vanish;
 *  - "${a.b}" inside a longer scalar is replaced by the value's text (a
 *    string or a number; anything else, or a missing value, is an error);
 *  - everything else is converted with the usual YAML scalar rules.
 * Values never pass through a YAML parser, so no intent string can add
 * structure to a document.
 */
#ifndef GENERATOR_TMPL_H
#define GENERATOR_TMPL_H

#include <cjson/cJSON.h>

#include "util/err.h"

struct tmpl_set;

/* tmpl_set_load: embedded templates, each overridden by DIR/<name>.yaml when
 * dir is not NULL and that file exists. Fails (ERR_INVALID) on a template
 * that is not a single YAML document, or on a DIR that does not exist. */
int tmpl_set_load(struct tmpl_set **out, const char *dir, struct err *err);
void tmpl_set_free(struct tmpl_set *set);

/* tmpl_render: render template `name` with `ctx`; *out is new. */
int tmpl_render(cJSON **out, const struct tmpl_set *set, const char *name,
		const cJSON *ctx, struct err *err);
/* tmpl_append: tmpl_render, the result appended to the array docs; takes
 * (and always frees) ctx. */
int tmpl_append(cJSON *docs, const struct tmpl_set *set, const char *name,
		cJSON *ctx, struct err *err);

/* tmpl_names: NULL-terminated list of the known template names. */
const char *const *tmpl_names(void);

#endif
