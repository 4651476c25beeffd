/* generator/pipeline.c: read -> validate -> plan -> render (see pipeline.h). */
#include "generator/pipeline.h"

#include <string.h>

#include "generator/catalog.h"
#include "generator/targets.h"
#include "generator/validate.h"
#include "util/xalloc.h"

/* render the plan and fit it to the targets; 0 or -1 */
static int render_stage(struct pipeline *out, const struct tmpl_set *t,
			struct diags *d, struct err *err)
{
	struct tmpl_set *builtin = NULL;
	int ret;

	/* validating may come without templates: the built-in ones */
	if (!t && tmpl_set_load(&builtin, NULL, err) < 0)
		return -1;
	ret = render_plan(&out->r, &out->plan, t ? t : builtin, err);
	if (ret == 0 && targets_apply(&out->r, &out->in, d, err) < 0) {
		rendered_release(&out->r);
		ret = -1;
	}
	tmpl_set_free(builtin);
	return ret;
}

/* the stages; check: validating, which renders only with targets */
static int run(struct pipeline *out, const char *file, const char *data,
	       size_t len, const struct tmpl_set *t, unsigned flags, int check,
	       struct diags *d, struct err *err)
{
	const struct catalog *cat = catalog_builtin();
	unsigned upto = flags & PIPELINE_STAGES;
	int ack = !(flags & PIPELINE_NO_ACK);
	size_t before = d->errors, from = d->nr;
	int ret = -1, all = 0;

	memset(out, 0, sizeof(*out));
	out->r = (struct rendered)RENDERED_INIT;
	out->ack_from = from;
	if (intent_read(&out->in, file, data, len, d) < 0) {
		if (d->errors == before)
			BUG("intent_read failed without a diagnostic");
		goto invalid;
	}
	out->read = 1;
	/* semantic rules run on whatever was read, so every problem is
	 * reported at once; malformed values were left out by the reader */
	validate_intent_opts(&out->in, cat,
			     !(flags & PIPELINE_NO_CAPACITY_RULES), d);
	if (d->errors != before)
		goto invalid;
	out->done = PIPELINE_INTENT;
	ret = 0;
	if (upto >= PIPELINE_PLAN || check) {
		/* the plan too when only validating: its warnings
		 * (spot-to-spot consolidation, ...) are the ones render gives */
		out->plan_from = d->nr;
		if ((ret = plan_build(&out->plan, &out->in, cat, d, err)) < 0)
			return ret; /* an internal failure: no acknowledging */
		out->done = PIPELINE_PLAN;
	}
	/* fit the render to the controller releases it is for; refusing
	 * here leaves nothing rendered. Validating renders too when the
	 * intent names targets, so validate refuses what render would. */
	if (upto >= PIPELINE_RENDER ||
	    (check && (out->in.targets.karpenter_set ||
		       out->in.targets.kueue_set))) {
		if ((ret = render_stage(out, t, d, err)) == 0)
			out->done = PIPELINE_RENDER;
	}
	all = check || upto >= PIPELINE_RENDER;
	/* spec.acknowledge: the accepted warnings go; an acknowledgement
	 * that accepted none is said when every stage has run */
	if (ack)
		validate_acknowledge(&out->in, d, from, ret == 0 && all);
	return ret;
invalid:
	if (ack)
		validate_acknowledge(&out->in, d, from, 0);
	return err_set(err, ERR_INVALID, "'%s' has %zu error%s", file,
		       d->errors - before, d->errors - before == 1 ? "" : "s");
}

int pipeline_run(struct pipeline *out, const char *file, const char *data,
		 size_t len, const struct tmpl_set *t, unsigned upto,
		 struct diags *d, struct err *err)
{
	return run(out, file, data, len, t, upto, 0, d, err);
}

void pipeline_acknowledge(struct pipeline *p, struct diags *d,
			  int report_unused)
{
	validate_acknowledge(&p->in, d, p->ack_from, report_unused);
}

void pipeline_release(struct pipeline *p)
{
	rendered_release(&p->r);
	plan_release(&p->plan); /* zeroed by run when it did not plan */
	intent_release(&p->in);
	memset(p, 0, sizeof(*p));
}

int pipeline_render(struct rendered *out, const char *file, const char *data,
		    size_t len, const struct tmpl_set *t, struct diags *d,
		    struct err *err)
{
	struct pipeline p;
	int ret = run(&p, file, data, len, t,
		      out ? PIPELINE_RENDER : PIPELINE_INTENT, !out, d, err);

	if (ret == 0 && out) {
		*out = p.r;
		p.r = (struct rendered)RENDERED_INIT;
	}
	pipeline_release(&p);
	return ret;
}
