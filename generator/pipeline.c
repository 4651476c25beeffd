/* generator/pipeline.c: read -> validate -> plan -> render (see pipeline.h). */
#include "generator/pipeline.h"

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/targets.h"
#include "generator/validate.h"
#include "util/xalloc.h"

int pipeline_render(struct rendered *out, const char *file, const char *data,
		    size_t len, const struct tmpl_set *t, struct diags *d,
		    struct err *err)
{
	const struct catalog *cat = catalog_builtin();
	struct intent in;
	struct plan p;
	size_t before = d->errors, from = d->nr;
	int ret = -1;

	if (intent_read(&in, file, data, len, d) < 0) {
		if (d->errors == before)
			BUG("intent_read failed without a diagnostic");
		goto invalid;
	}
	/* semantic rules run on whatever was read, so every problem is
	 * reported at once; malformed values were left out by the reader */
	validate_intent(&in, cat, d);
	if (d->errors != before)
		goto invalid;
	/* the plan too when only validating: its warnings (spot-to-spot
	 * consolidation, ...) are the ones render gives */
	if (plan_build(&p, &in, cat, d, err) < 0)
		goto out;
	/* fit the render to the controller releases it is for; refusing
	 * here leaves nothing rendered. Validating renders too when the
	 * intent names targets, so validate refuses what render would. */
	if (out || in.targets.karpenter_set || in.targets.kueue_set) {
		struct rendered tmp = RENDERED_INIT, *r = out ? out : &tmp;
		struct tmpl_set *builtin = NULL;
		/* validating may come without templates: the built-in ones */
		if (!t && tmpl_set_load(&builtin, NULL, err) < 0) {
			plan_release(&p);
			goto out;
		}
		ret = render_plan(r, &p, t ? t : builtin, err);
		if (ret == 0 && targets_apply(r, &in, d, err) < 0) {
			rendered_release(r);
			ret = -1;
		}
		rendered_release(&tmp);
		tmpl_set_free(builtin);
	} else {
		ret = 0;
	}
	plan_release(&p);
	/* spec.acknowledge: the accepted warnings go; an acknowledgement
	 * that accepted none is said (every stage has run) */
	validate_acknowledge(&in, d, from, ret == 0);
	goto out;
invalid:
	validate_acknowledge(&in, d, from, 0);
	err_set(err, ERR_INVALID, "'%s' has %zu error%s", file,
		d->errors - before, d->errors - before == 1 ? "" : "s");
out:
	intent_release(&in);
	return ret;
}
