/*
 * cmd/doctor.c: `gpuform doctor INTENT...` — read-only: are the CRDs the
 * render needs served, and do the running Karpenter and Kueue (their image
 * releases, Karpenter's FEATURE_GATES, Kueue's configuration ConfigMap)
 * match the intent's targets and its rendered add-ons? The decisions are
 * generator/doctor.c's; reconcile/ctlread.c reads the controllers (GETs
 * only).
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
#include "reconcile/ctlread.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

const struct cmd_opt doctor_opts[] = {
	CLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

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

int cmd_doctor(int argc, char **argv)
{
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct tmpl_set *ts = NULL;
	struct kube *k = NULL;
	struct ctlread lr = CTLREAD_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int c, code = EXIT_OK;

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
	    cluster_connect(&k, &co, &err) < 0 || ctlread_read(k, &lr, &err) < 0) {
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
	ctlread_release(&lr);
	diags_release(&d);
	err_release(&err);
	kube_free(k);
	tmpl_set_free(ts);
	return code;
}
