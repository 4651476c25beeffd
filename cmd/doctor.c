/*
 * cmd/doctor.c: `gpuform doctor INTENT...` — read-only: are the CRDs the
 * render needs served, and do the running Karpenter and Kueue (their image
 * releases, Karpenter's FEATURE_GATES, Kueue's configuration ConfigMap)
 * match the intent's targets and its rendered add-ons? The decisions are
 * generator/doctor.c's, the run (GETs only) reconcile/doctorrun.c's; this
 * file parses, prints and picks the exit code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cluster.h"
#include "cmd/cmd.h"
#include "reconcile/doctorrun.h"

const struct cmd_opt doctor_opts[] = {
	CLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

int cmd_doctor(int argc, char **argv)
{
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct tmpl_set *ts = NULL;
	struct kube *k = NULL;
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
	    cluster_connect(&k, &co, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (doctorrun_run(k, argv + optind, (size_t)(argc - optind), ts, &d,
			  &err) < 0) {
		report_diags(&d);
		code = report_err(&err);
		goto out;
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
	diags_release(&d);
	err_release(&err);
	kube_free(k);
	tmpl_set_free(ts);
	return code;
}
