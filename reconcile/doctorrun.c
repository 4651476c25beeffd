/*
 * reconcile/doctorrun.c: the run of `gpuform doctor` (see doctorrun.h).
 * The decisions are generator/doctor.c's; the controllers are read by
 * reconcile/ctlread.c (GETs only), which diff --live shares.
 */
#include "reconcile/doctorrun.h"

#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"
#include "generator/pipeline.h"
#include "reconcile/ctlread.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

static const cJSON *jget(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* every kind the render has must be served (the message names an older
 * release when the CRDs look like one) */
static int check_served(struct kube *k, const char *file,
			const struct rendered *r, struct diags *d,
			struct err *err)
{
	const cJSON *doc;

	cJSON_ArrayForEach(doc, r->docs) {
		const cJSON *av = jget(doc, "apiVersion"), *kind = jget(doc, "kind");
		const struct kube_resource *res;
		if (!cJSON_IsString(av) || !cJSON_IsString(kind))
			continue;
		if (kube_resource_for(k, av->valuestring, kind->valuestring,
				      &res, err) == 0)
			continue;
		if (err->code != ERR_NOTFOUND)
			return -1;
		/* once per kind */
		int seen = 0;
		for (size_t i = 0; i < d->nr && !seen; i++)
			seen = strstr(d->items[i].msg, err_msg(err)) != NULL;
		if (!seen)
			diags_add(d, DIAG_ERROR, file, 0, 0,
				  "install the CRDs of the targeted release, "
				  "or set spec.targets to what runs",
				  "%s", err_msg(err));
		err_clear(err);
	}
	return 0;
}

/* one intent: render it and read its targets */
static int load(const char *path, struct rendered *r, struct targets *t,
		const struct tmpl_set *ts, struct diags *d, struct err *err)
{
	struct buf data = BUF_INIT;
	struct intent in;
	struct diags ignore = DIAGS_INIT;
	int ret = -1;

	if (fs_read_file(&data, path, YAML_MAX_INPUT, err) < 0)
		goto out;
	if (pipeline_render(r, path, buf_cstr(&data), data.len, ts, d, err) < 0)
		goto out;
	intent_read(&in, path, buf_cstr(&data), data.len, &ignore);
	*t = in.targets;
	intent_release(&in);
	ret = 0;
out:
	diags_release(&ignore);
	buf_release(&data);
	return ret;
}

int doctorrun_run(struct kube *k, char **paths, size_t n,
		  const struct tmpl_set *ts, struct diags *d, struct err *err)
{
	struct ctlread lr = CTLREAD_INIT;
	int ret = -1;

	if (ctlread_read(k, &lr, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct rendered r = RENDERED_INIT;
		struct targets t;
		int rc = load(paths[i], &r, &t, ts, d, err);

		if (rc == 0 && check_served(k, paths[i], &r, d, err) < 0) {
			/* what was found so far is not shown with this */
			diags_release(d);
			rc = -1;
		}
		if (rc == 0)
			doctor_check(paths[i], &t, &r, &lr.l, d);
		rendered_release(&r);
		if (rc < 0)
			goto out;
	}
	ret = 0;
out:
	ctlread_release(&lr);
	return ret;
}
