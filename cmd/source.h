/*
 * cmd/source.h: the desired objects of a reconcile or live diff — intent
 * files rendered in memory, or a directory written by `render -o`.
 */
#ifndef CMD_SOURCE_H
#define CMD_SOURCE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/diag.h"
#include "util/err.h"

struct source {
	char *cluster; /* the one cluster these objects are for */
	cJSON *docs;   /* array of objects */
	char *desc;    /* what was read, for the inventory ("specs/a.yaml") */
};
#define SOURCE_INIT { NULL, NULL, NULL }

/*
 * source_load: every path is an intent file, or there is exactly one path
 * and it is a rendered directory (its kustomization.yaml lists the files).
 * All objects must be for one cluster. Input problems go to *d and fail
 * with ERR_INVALID before anything else happens.
 */
int source_load(struct source *out, char **paths, size_t n,
		const char *templates, struct diags *d, struct err *err);
void source_release(struct source *s);

#endif
