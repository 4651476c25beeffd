/*
 * cmd/doctor.c: `gpuform doctor INTENT...` — read-only: are the CRDs the
 * render needs served, and do the running Karpenter and Kueue (their image
 * releases, Karpenter's FEATURE_GATES, Kueue's configuration ConfigMap)
 * match the intent's targets and its rendered add-ons? The decisions are
 * generator/doctor.c's; this file only reads the cluster (GETs only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cluster.h"
#include "cmd/cmd.h"
#include "generator/doctor.h"
#include "generator/intent.h"
#include "generator/pipeline.h"
#include "kube/kube.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

const struct cmd_opt doctor_opts[] = {
	CLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* what was read from the cluster (owned strings) */
struct live_read {
	struct doctor_live l;
	char *k_where, *k_image, *k_gates, *k_unread;
	char *q_where, *q_image, *q_unread;
	char *c_where, *c_text, *c_unread;
};

static void live_read_release(struct live_read *r)
{
	free(r->k_where), free(r->k_image), free(r->k_gates), free(r->k_unread);
	free(r->q_where), free(r->q_image), free(r->q_unread);
	free(r->c_where), free(r->c_text), free(r->c_unread);
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

static int read_live(struct kube *k, struct live_read *r, struct err *err)
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

int cmd_doctor(int argc, char **argv)
{
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct tmpl_set *ts = NULL;
	struct kube *k = NULL;
	struct live_read lr;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int c, code = EXIT_OK;

	memset(&lr, 0, sizeof(lr));
	while ((c = cmd_getopt("doctor", argc, argv)) != -1) {
		if (c == 'h')
			return cmd_print_help("doctor");
		if (c >= OPT_KUBECONFIG && c <= OPT_INSECURE_LOOPBACK_HTTP) {
			if (cluster_opt(&co, c, optarg) < 0)
				return cmd_usage_error("doctor",
						       "bad value '%s' (a "
						       "duration like 30s or "
						       "5m)",
						       optarg);
			continue;
		}
		return EXIT_USAGE;
	}
	if (optind >= argc)
		return cmd_usage_error("doctor", "no intent file given");
	if (tmpl_set_load(&ts, NULL, &err) < 0 ||
	    cluster_connect(&k, &co, &err) < 0 || read_live(k, &lr, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		struct rendered r = RENDERED_INIT;
		struct targets t;
		if (load(argv[i], &r, &t, ts, &d, &err) < 0) {
			report_diags(&d);
			code = report_err(&err);
			rendered_release(&r);
			goto out;
		}
		if (check_served(k, argv[i], &r, &d, &err) < 0) {
			code = report_err(&err);
			rendered_release(&r);
			goto out;
		}
		doctor_check(argv[i], &t, &r, &lr.l, &d);
		rendered_release(&r);
	}
	report_diags(&d);
	if (d.errors) {
		printf("%zu finding%s\n", d.errors, d.errors == 1 ? "" : "s");
		code = EXIT_DIFF;
	} else {
		printf("ok: the cluster runs what the intent%s render%s for\n",
		       argc - optind == 1 ? "" : "s",
		       argc - optind == 1 ? "s" : "");
	}
out:
	live_read_release(&lr);
	diags_release(&d);
	err_release(&err);
	kube_free(k);
	tmpl_set_free(ts);
	return code;
}
