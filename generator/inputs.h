/*
 * generator/inputs.h: read and render the intent files named on a command line,
 * collecting every diagnostic of every file before anything is written.
 */
#ifndef GENERATOR_INPUTS_H
#define GENERATOR_INPUTS_H

#include <stddef.h>

#include "generator/render.h"
#include "generator/tmpl.h"
#include "util/diag.h"
#include "util/err.h"

struct input {
	char *path;
	struct rendered r;
};

struct inputs {
	struct input *items;
	size_t nr;
};
#define INPUTS_INIT { NULL, 0 }

/* inputs_render: render (or, with validate_only, just check) every path.
 * All files are processed even after a failure, so every problem is
 * reported; returns -1 if any failed (ERR_INVALID for input errors). */
int inputs_render(struct inputs *out, char **paths, size_t n,
		  const struct tmpl_set *t, int validate_only,
		  struct diags *d, struct err *err);
void inputs_release(struct inputs *in);

/*
 * inputs_tree: the files `render --output-dir` writes for these rendered
 * intents — one intent directly (unless per_cluster), several (or one with
 * per_cluster) under <cluster>/ with a top-level kustomization that lists
 * the cluster directories — sorted. `commit` uses the same function, so a committed
 * tree always equals `render -o`. Two intents for one cluster are
 * ERR_INVALID.
 */
int inputs_tree(const struct inputs *ins, const struct tmpl_set *t,
		enum render_format f, int per_cluster, struct fs_tree *out,
		struct err *err);

/*
 * inputs_stream: the objects of every intent, in order, to write(ctx, ...):
 * YAML documents one at a time (each object is taken out of
 * ins->items[i].r.docs, written and freed, so a large render is never held
 * twice), or JSON — one v1 List per intent — written once whole. -1 with
 * err set when an object cannot be emitted (what was written stays).
 */
int inputs_stream(struct inputs *ins, enum render_format f,
		  void (*write)(void *ctx, const char *data, size_t len),
		  void *ctx, struct err *err);

/* inputs_summary: "rendered <path>: N objects, M add-on files -> DIR" (with
 * "/<cluster>" for several intents or per_cluster), a line per intent */
void inputs_summary(const struct inputs *ins, const char *dir, int per_cluster,
		    struct buf *out);

/*
 * inputs_plan: capplan_add for every path ("-" is standard input,
 * "<stdin>"), every file tried so every problem is in *d; two intents for
 * one cluster are an error. -1 with err set ("2 errors; no plan printed"):
 * ERR_INVALID for an intent that cannot be planned, else ERR_IO.
 */
struct capplan;
int inputs_plan(struct capplan *cp, char **paths, size_t n, struct diags *d,
		struct err *err);

#endif
