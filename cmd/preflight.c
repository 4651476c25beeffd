/*
 * cmd/preflight.c: `gpuform preflight` — the options, the preflight run
 * (reconcile/pfrun.c: read and validate the intents, find credentials,
 * ask AWS, evaluate) and its findings printed as text, JSON or SARIF
 * 2.1.0 in the shapes `gpuform lint` uses; the exit code.
 */
#include "cmd/preflight.h"

#include "cmd/cluster.h"
#include "generator/sarif.h"
#include "cmd/testhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "generator/intent.h"
#include "generator/preflight.h"
#include "kube/kube.h"
#include "reconcile/pfrun.h"
#include "util/buf.h"
#include "util/diag.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

enum { OPT_REGION = 256, OPT_K8S, OPT_PF_TIMEOUT, OPT_POLICY };
enum pf_format { FMT_TEXT, FMT_JSON, FMT_SARIF };

const struct cmd_opt preflight_opts[] = {
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), json, or sarif (SARIF 2.1.0, for GitHub code "
	  "scanning)",
	  "text json sarif", 0 },
	{ "region", 0, OPT_REGION, CMD_ARG_REQUIRED, "REGION",
	  "the AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, the "
	  "profile's region, IMDS)",
	  NULL, 0 },
	{ "kubernetes-version", 0, OPT_K8S, CMD_ARG_REQUIRED, "X.Y",
	  "the cluster's Kubernetes version (e.g. 1.32), for the AMI check; "
	  "without it the AMI release is not checked",
	  NULL, 0 },
	{ "kubeconfig", 0, OPT_KUBECONFIG, CMD_ARG_REQUIRED, "PATH",
	  "read the Kubernetes version from this cluster (GET /version) when "
	  "--kubernetes-version is not given", "@file", 0 },
	{ "context", 0, OPT_CONTEXT, CMD_ARG_REQUIRED, "NAME",
	  "kubeconfig context (default: current)", NULL, 0 },
	{ "insecure-loopback-http", 0, OPT_INSECURE_LOOPBACK_HTTP, CMD_ARG_NONE,
	  NULL, "send the kubeconfig's credentials to a plain http:// API "
	  "server on loopback (a test server, a local proxy)", NULL, 0 },
	{ "timeout", 0, OPT_PF_TIMEOUT, CMD_ARG_REQUIRED, "DUR",
	  "per-request timeout, a duration like reconcile's (10s default, "
	  "at most 10m; a bare number of seconds still works); an endpoint "
	  "that does not answer in time is exit 4",
	  NULL, 0 },
	{ "iam-policy", 0, OPT_POLICY, CMD_ARG_NONE, NULL,
	  "print the IAM policy document preflight needs (JSON) and exit",
	  NULL, 0 },
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* an error as printed here: its control characters escaped, as report_err
 * does (the message may quote an AWS endpoint's or the API server's text) */
static const char *shown_err(const struct err *e)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	diag_escape(&b, err_msg(e), 1);
	return buf_cstr(&b);
}

static char *format_sarif(const struct lint_findings *f)
{
	cJSON *rules, *results,
	      *root = sarif_log_new("gpuform-preflight", &rules, &results);
	char *s;

	for (size_t i = 0; i < pf_nrules; i++)
		sarif_add_rule(rules, &pf_rules[i], 0);
	for (size_t i = 0; i < f->nr; i++)
		sarif_add_result(results, &f->items[i],
				 (size_t)(f->items[i].rule - pf_rules));
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

static char *format_json(const struct lint_findings *f, size_t nfiles,
			 const struct aws *a)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;

	cJSON_AddNumberToObject(root, "files", (double)nfiles);
	cJSON_AddStringToObject(root, "region", a->region ? a->region : "");
	cJSON_AddStringToObject(root, "credentials",
				a->creds.source ? a->creds.source : "");
	cJSON_AddNumberToObject(root, "errors", (double)f->counts[LINT_ERROR]);
	cJSON_AddNumberToObject(root, "warnings",
				(double)f->counts[LINT_WARNING]);
	arr = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < f->nr; i++)
		cJSON_AddItemToArray(arr, finding_json(&f->items[i]));
	s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

/* file:line:col: severity: message [PF00N rule-name] */
static void print_findings(const struct lint_findings *f, FILE *out)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct lint_finding *x = &f->items[i];
		fprintf(out, "%s:%d:%d: %s: %s [%s %s]\n", x->file, x->line,
			x->col, lint_severity_names[x->sev], x->msg,
			x->rule->id, x->rule->name);
	}
}

/*
 * preflight_core: the preflight run (reconcile/pfrun.c) with its problems
 * printed: the intents' diagnostics, a clock or AWS failure. 0 (findings
 * in r->f), or EXIT_INVALID / EXIT_RUNTIME.
 */
static int preflight_core(struct pfrun *r, char **paths, const struct buf *mem,
			  size_t n, const char *region, const char *k8s,
			  const char *cluster)
{
	struct err err = ERR_INIT;
	struct buf why = BUF_INIT;
	int rc = pfrun_read(r, paths, mem, n, cluster), code = EXIT_OK;
	time_t now = 0;

	report_diags(&r->d);
	if (rc)
		return rc == PFRUN_INVALID ? EXIT_INVALID : EXIT_RUNTIME;
	if (testhooks_now(&now, &why) < 0) {
		fprintf(stderr, "gpuform preflight: %s\n", buf_cstr(&why));
		code = EXIT_RUNTIME;
	} else if (pfrun_ask(r, region, k8s, (double)now, &err) < 0) {
		if (r->failed_path)
			fprintf(stderr, "gpuform preflight: %s: cannot check: "
				"%s\n", r->failed_path, shown_err(&err));
		else
			fprintf(stderr, "gpuform preflight: cannot check: %s\n",
				shown_err(&err));
		code = EXIT_RUNTIME;
	}
	buf_release(&why);
	err_release(&err);
	return code;
}

int cmd_preflight(int argc, char **argv)
{
	enum pf_format fmt = FMT_TEXT;
	const char *region = NULL, *k8s = NULL;
	long timeout_ms = 10000;
	size_t nfiles;
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct pfrun r;
	char ver[32];
	int c, code = EXIT_OK, use_cluster = 0;

	while ((c = cmd_getopt("preflight", argc, argv)) != -1) {
		switch (c) {
		case 'o':
			{
				static const char *const names[] = {
					"text", "json", "sarif", NULL
				};
				int i = cmd_format("preflight", optarg, names,
						   0, NULL);
				if (i < 0)
					return EXIT_USAGE;
				fmt = (enum pf_format)i;
			}
			break;
		case OPT_REGION:
			region = optarg;
			break;
		case OPT_K8S:
			if (!pfrun_version_ok(optarg))
				return cmd_usage_error(
					"preflight",
					"--kubernetes-version wants MAJOR.MINOR "
					"(e.g. 1.32), not '%s'", optarg);
			k8s = optarg;
			break;
		case OPT_KUBECONFIG:
		case OPT_CONTEXT:
			cluster_opt(&co, c, optarg);
			use_cluster = 1;
			break;
		case OPT_INSECURE_LOOPBACK_HTTP:
			cluster_opt(&co, c, optarg);
			break;
		case OPT_PF_TIMEOUT: {
			char *end;
			double s = strtod(optarg, &end);
			/* one duration syntax with reconcile (30s, 5m, 1m30s);
			 * the bare seconds of before stay accepted */
			if (*end)
				s = (double)intent_parse_duration(optarg);
			if (!(s > 0) || s > 600)
				return cmd_usage_error(
					"preflight",
					"--timeout wants a duration up to 10m "
					"(like 30s or 2m), not '%s'", optarg);
			timeout_ms = (long)(s * 1000);
			if (timeout_ms < 1)
				timeout_ms = 1;
			break;
		}
		case OPT_POLICY: {
			char *pol = pf_iam_policy(1);
			puts(pol);
			free(pol);
			return EXIT_OK;
		}
		case 'h':
			return cmd_print_help("preflight");
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cmd_usage_error("preflight", "no intent file given");
	nfiles = (size_t)(argc - optind);
	if (use_cluster && !k8s) {
		struct kube *k = NULL;
		struct err err = ERR_INIT;

		co.request_timeout_ms = co.timeout_ms = timeout_ms;
		if (cluster_connect(&k, &co, &err) < 0 &&
		    cluster_bad_context(&co, &err)) {
			cmd_usage_error("preflight", "%s", err_msg(&err));
			err_release(&err);
			return EXIT_USAGE;
		}
		if (!k || pfrun_cluster_version(k, ver, sizeof(ver), &err) < 0) {
			fprintf(stderr, "gpuform preflight: cannot read the "
				"cluster's Kubernetes version: %s\n",
				shown_err(&err));
			err_release(&err);
			kube_free(k);
			return EXIT_RUNTIME;
		}
		kube_free(k);
		k8s = ver;
	}

	pfrun_init(&r);
	r.aws.timeout_ms = timeout_ms;
	code = preflight_core(&r, argv + optind, NULL, (size_t)(argc - optind),
			      region, k8s, NULL);
	if (code)
		goto out;
	if (fmt == FMT_TEXT) {
		print_findings(&r.f, stdout);
		fprintf(stderr,
			"gpuform preflight: %zu file%s, region %s, credentials "
			"from %s, %ld request%s: %zu error%s, %zu warning%s\n",
			nfiles, nfiles == 1 ? "" : "s", r.aws.region,
			r.aws.creds.source, r.aws.requests,
			r.aws.requests == 1 ? "" : "s", r.f.counts[LINT_ERROR],
			r.f.counts[LINT_ERROR] == 1 ? "" : "s",
			r.f.counts[LINT_WARNING],
			r.f.counts[LINT_WARNING] == 1 ? "" : "s");
	} else {
		char *s = fmt == FMT_JSON ? format_json(&r.f, nfiles, &r.aws)
					  : format_sarif(&r.f);
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	code = r.f.counts[LINT_ERROR] ? EXIT_DIFF : EXIT_OK;
out:
	pfrun_release(&r);
	return code;
}

int preflight_gate(struct kube *k, char **paths, const struct buf *mem,
		   size_t n, const char *cluster)
{
	struct err err = ERR_INIT;
	struct pfrun r;
	char ver[32];
	int code;

	if (pfrun_cluster_version(k, ver, sizeof(ver), &err) < 0) {
		fprintf(stderr, "gpuform reconcile: preflight: cannot read the "
			"cluster's Kubernetes version: %s\n", shown_err(&err));
		err_release(&err);
		return EXIT_RUNTIME;
	}
	pfrun_init(&r);
	code = preflight_core(&r, paths, mem, n, NULL, ver, cluster);
	print_findings(&r.f, stderr);
	if (!code) {
		fprintf(stderr,
			"gpuform reconcile: preflight (Kubernetes %s, region %s, "
			"credentials from %s): %zu error%s, %zu warning%s\n",
			ver, r.aws.region, r.aws.creds.source,
			r.f.counts[LINT_ERROR],
			r.f.counts[LINT_ERROR] == 1 ? "" : "s",
			r.f.counts[LINT_WARNING],
			r.f.counts[LINT_WARNING] == 1 ? "" : "s");
		if (r.f.counts[LINT_ERROR]) {
			fprintf(stderr, "gpuform reconcile: preflight found "
				"errors; nothing applied\n");
			code = EXIT_INVALID;
		}
	}
	pfrun_release(&r);
	return code;
}
