/*
 * generator/pipeline.h: the whole render chain for one intent file:
 * read -> validate -> plan -> render. The one entry point the commands use
 * (render, validate, plan, lint, diff, preflight): each runs the stages
 * once, up to the one it needs, and keeps what they made.
 */
#ifndef GENERATOR_PIPELINE_H
#define GENERATOR_PIPELINE_H

#include <stddef.h>

#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "util/diag.h"
#include "util/err.h"

enum pipeline_stage {
	PIPELINE_NONE = 0,
	PIPELINE_INTENT, /* read and valid (validate_intent: every rule) */
	PIPELINE_PLAN,   /* + the plan: pools, node classes, queues */
	PIPELINE_RENDER, /* + the rendered objects, fitted to spec.targets */
};

/* or'ed into pipeline_run's `upto` */
enum {
	PIPELINE_STAGES = 0x0f,
	/* validate without the capacity rules: the caller reports capacity
	 * as findings (plan, generator/capplan.c) */
	PIPELINE_NO_CAPACITY_RULES = 0x10,
	/* leave spec.acknowledge to the caller's pipeline_acknowledge, after
	 * the diagnostics of its own stage */
	PIPELINE_NO_ACK = 0x20,
};

/* the stages of one intent; plan.in points at in: do not copy it */
struct pipeline {
	enum pipeline_stage done; /* the last stage that completed */
	int read;                 /* intent_read succeeded (in may still be
				   * invalid) */
	size_t ack_from;          /* the first diagnostic of this intent */
	size_t plan_from;         /* the first diagnostic of the plan stage */
	struct intent in;         /* >= PIPELINE_INTENT */
	struct plan plan;         /* >= PIPELINE_PLAN */
	struct rendered r;        /* PIPELINE_RENDER */
};

/*
 * pipeline_run: run the stages on the intent in data[0..len) (named `file`
 * in messages) up to `upto`. Problems and warnings go to *d; the warnings
 * spec.acknowledge accepts are dropped (an acknowledgement that accepted
 * none is a warning only when every stage ran, PIPELINE_RENDER). Fails
 * with ERR_INVALID when the intent has errors, other codes for internal
 * failures; out->done says how far it got either way. t NULL: the built-in
 * templates. pipeline_release frees what was made.
 */
int pipeline_run(struct pipeline *out, const char *file, const char *data,
		 size_t len, const struct tmpl_set *t, unsigned upto,
		 struct diags *d, struct err *err);
void pipeline_release(struct pipeline *p);

/* pipeline_acknowledge: after PIPELINE_NO_ACK, drop the warnings of this
 * intent's diagnostics (d->items[p->ack_from...]) that spec.acknowledge
 * accepts; with report_unused, say an acknowledgement that accepted none */
void pipeline_acknowledge(struct pipeline *p, struct diags *d,
			  int report_unused);

/*
 * pipeline_render: render the intent (named `file` in messages) into *out,
 * keeping only the objects. out may be NULL to validate only: `gpuform
 * validate`, which plans, and renders too when the intent names
 * spec.targets, so it refuses what render would.
 */
int pipeline_render(struct rendered *out, const char *file, const char *data,
		    size_t len, const struct tmpl_set *t, struct diags *d,
		    struct err *err);

#endif
