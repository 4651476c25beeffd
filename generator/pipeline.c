/* generator/pipeline.c: read -> validate -> plan -> render (see pipeline.h). */
#include "generator/pipeline.h"

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/validate.h"
#include "util/xalloc.h"

int pipeline_render(struct rendered *out, const char *file, const char *data,
		    size_t len, const struct tmpl_set *t, struct diags *d,
		    struct err *err)
{
	const struct catalog *cat = catalog_builtin();
	struct intent in;
	struct plan p;
	size_t before = d->errors;
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
	ret = out ? render_plan(out, &p, t, err) : 0;
	plan_release(&p);
	goto out;
invalid:
	err_set(err, ERR_INVALID, "'%s' has %zu error%s", file,
		d->errors - before, d->errors - before == 1 ? "" : "s");
out:
	intent_release(&in);
	return ret;
}
