/*
 * reconcile/doctorrun.c: the run of `gpuform doctor` (see doctorrun.h).
 * The decisions are generator/doctor.c's; this file only reads the cluster
 * (GETs only).
 */
#include "reconcile/doctorrun.h"

#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"
#include "generator/pipeline.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

void doctorrun_live_release(struct doctorrun_live *r)
{
	free(r->k_where), free(r->k_image), free(r->k_gates), free(r->k_unread);
	free(r->q_where), free(r->q_image), free(r->q_unread);
	free(r->c_where), free(r->c_text), free(r->c_unread);
	memset(r, 0, sizeof(*r));
}

static const cJSON *jget(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* the container named `name`, else the first */
static const cJSON *container(const cJSON *dep, const char *name)
{
	const cJSON *cs = jget(jget(jget(jget(dep, "spec"), "template"), "spec"),
			       "containers"), *c;
	cJSON_ArrayForEach(c, cs) {
		const cJSON *n = jget(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return c;
	}
	return cs ? cs->child : NULL;
}

static char *env_value(const cJSON *c, const char *name)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, jget(c, "env")) {
		const cJSON *n = jget(e, "name"), *v = jget(e, "value");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name) &&
		    cJSON_IsString(v))
			return xstrdup(v->valuestring);
	}
	return NULL;
}

/* get NS/NAME of res, trying each namespace: 0 found (*out), 1 not found,
 * 2 forbidden (*why), -1 other error */
static int get_one(struct kube *k, const struct kube_resource *res,
		   const char *const *nss, const char *name, cJSON **out,
		   char **where, char **why, struct err *err)
{
	for (size_t i = 0; nss[i]; i++) {
		struct buf w = BUF_INIT;
		buf_addf(&w, "%s %s/%s", res->kind, nss[i], name);
		if (kube_get(k, res, nss[i], name, out, err) < 0) {
			if (err->code != ERR_AUTH) {
				buf_release(&w);
				return -1;
			}
			buf_addf(&w, " cannot be read (%s)", err_msg(err));
			*why = buf_detach(&w, NULL);
			err_clear(err);
			return 2;
		}
		if (*out) {
			*where = buf_detach(&w, NULL);
			return 0;
		}
		buf_release(&w);
	}
	return 1;
}

int doctorrun_read_live(struct kube *k, struct doctorrun_live *r,
			struct err *err)
{
	static const char *const karpenter_ns[] = { "kube-system", "karpenter",
						    NULL };
	static const char *const kueue_ns[] = { "kueue-system", NULL };
	const struct kube_resource *dep, *cm;
	cJSON *o = NULL;
	int rc;

	if (kube_resource_for(k, "apps/v1", "Deployment", &dep, err) < 0 ||
	    kube_resource_for(k, "v1", "ConfigMap", &cm, err) < 0)
		return -1;
	rc = get_one(k, dep, karpenter_ns, "karpenter", &o, &r->k_where,
		     &r->k_unread, err);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		const cJSON *c = container(o, "controller"), *img = jget(c, "image");
		r->k_image = cJSON_IsString(img) ? xstrdup(img->valuestring) : NULL;
		r->k_gates = env_value(c, "FEATURE_GATES");
		cJSON_Delete(o);
		o = NULL;
	}
	rc = get_one(k, dep, kueue_ns, "kueue-controller-manager", &o,
		     &r->q_where, &r->q_unread, err);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		const cJSON *c = container(o, "manager"), *img = jget(c, "image");
		r->q_image = cJSON_IsString(img) ? xstrdup(img->valuestring) : NULL;
		cJSON_Delete(o);
		o = NULL;
	}
	rc = get_one(k, cm, kueue_ns, "kueue-manager-config", &o, &r->c_where,
		     &r->c_unread, err);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		const cJSON *t = jget(jget(o, "data"),
				      "controller_manager_config.yaml");
		r->c_text = cJSON_IsString(t) ? xstrdup(t->valuestring) : NULL;
		cJSON_Delete(o);
	}
	r->l.karpenter.where = r->k_where;
	r->l.karpenter.image = r->k_image;
	r->l.karpenter.unreadable = r->k_unread;
	r->l.feature_gates = r->k_gates;
	r->l.kueue.where = r->q_where;
	r->l.kueue.image = r->q_image;
	r->l.kueue.unreadable = r->q_unread;
	r->l.kueue_config_where = r->c_text ? r->c_where : NULL;
	r->l.kueue_config = r->c_text;
	r->l.kueue_config_unreadable = r->c_unread;
	return 0;
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
	struct doctorrun_live lr;
	int ret = -1;

	memset(&lr, 0, sizeof(lr));
	if (doctorrun_read_live(k, &lr, err) < 0)
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
	doctorrun_live_release(&lr);
	return ret;
}
