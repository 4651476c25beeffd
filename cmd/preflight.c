/*
 * cmd/preflight.c: `gpuform preflight` — reads and validates the intents,
 * finds credentials, asks AWS (reconcile/preflight.c), evaluates
 * (generator/preflight.c) and prints text, JSON or SARIF 2.1.0 in the
 * shapes `gpuform lint` uses.
 */
#include "cmd/preflight.h"

#include "cmd/cluster.h"
#include "cmd/sarif.h"
#include "cmd/testhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/preflight.h"
#include "generator/validate.h"
#include "util/yaml.h"
#include "aws/aws.h"
#include "aws/awscreds.h"
#include "kube/kube.h"
#include "reconcile/preflight.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

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

struct one {
	const char *path;
	struct buf data;
	struct intent in;
	struct plan plan;
	int have_plan;
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

static int k8s_version_ok(const char *v)
{
	const char *p = v;
	int dots = 0;

	if (!*p || *p == '.')
		return 0;
	for (; *p; p++) {
		if (*p == '.')
			dots++;
		else if (*p < '0' || *p > '9')
			return 0;
	}
	return dots == 1 && p[-1] != '.';
}

/*
 * preflight_core: read and validate the intents (diagnostics on stderr),
 * find credentials, ask AWS and evaluate; findings into *f. Returns 0, or
 * EXIT_INVALID / EXIT_RUNTIME after printing why.
 */
static int preflight_core(char **paths, const struct buf *mem, size_t n,
			  const char *region, const char *k8s,
			  const char *cluster, struct aws *ap,
			  struct lint_findings *fp)
{
	struct one *files = NULL;
	size_t nfiles = 0;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int code = EXIT_OK, invalid = 0;
	time_t now = 0;

	/* every intent valid first: nothing is asked about an invalid one */
	files = xcalloc(n ? n : 1, sizeof(*files));
	for (size_t i = 0; i < n; i++) {
		struct one *o = &files[nfiles++];
		const struct catalog *cat = catalog_builtin();
		size_t before = d.errors;
		struct err e = ERR_INIT;

		o->path = paths[i];
		if (mem) {
			/* read already (reconcile --git: from the commit) */
			buf_add(&o->data, buf_cstr(&mem[i]), mem[i].len);
		} else if (fs_read_file(&o->data, o->path, YAML_MAX_INPUT,
					&e) < 0) {
			diags_add(&d, DIAG_ERROR, o->path, 0, 0, NULL, "%s",
				  err_msg(&e));
			err_release(&e);
			if (code < EXIT_RUNTIME)
				code = EXIT_RUNTIME;
			memset(&o->in, 0, sizeof(o->in));
			continue;
		}
		if (intent_read(&o->in, o->path, buf_cstr(&o->data),
				o->data.len, &d) < 0 ||
		    (validate_intent(&o->in, cat, &d), d.errors != before)) {
			invalid = 1;
			continue;
		}
		if (cluster && o->in.name && strcmp(o->in.name, cluster)) {
			/* the intent must be the one of the cluster reconciled */
			diags_add(&d, DIAG_ERROR, o->path, o->in.name_pos.line,
				  o->in.name_pos.col,
				  "name the intent file of this cluster with "
				  "--preflight-intent",
				  "this intent describes cluster '%s', not '%s' "
				  "(the cluster being reconciled)",
				  o->in.name, cluster);
			invalid = 1;
			continue;
		}
		if (plan_build(&o->plan, &o->in, cat, &d, &e) < 0) {
			diags_add(&d, DIAG_ERROR, o->path, 0, 0, NULL, "%s",
				  err_msg(&e));
			err_release(&e);
			invalid = 1;
			continue;
		}
		o->have_plan = 1;
	}
	diags_sort(&d);
	report_diags(&d);
	if (invalid) {
		code = EXIT_INVALID;
		goto out;
	}
	if (code)
		goto out;

	{
		struct buf why = BUF_INIT;
		if (testhooks_now(&now, &why) < 0) {
			fprintf(stderr, "gpuform preflight: %s\n",
				buf_cstr(&why));
			buf_release(&why);
			code = EXIT_RUNTIME;
			goto out;
		}
		buf_release(&why);
	}
	if (awscreds_load(ap, region, &err) < 0) {
		fprintf(stderr, "gpuform preflight: cannot check: %s\n",
			shown_err(&err));
		code = EXIT_RUNTIME;
		goto out;
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct pf_facts facts;

		pf_questions(&facts, &files[i].plan, k8s);
		facts.now = (double)now;
		if (preflight_ask(ap, &files[i].plan, &facts, &err) < 0) {
			fprintf(stderr, "gpuform preflight: %s: cannot check: "
				"%s\n", files[i].path, shown_err(&err));
			pf_facts_release(&facts);
			code = EXIT_RUNTIME;
			goto out;
		}
		pf_evaluate(fp, &files[i].plan, &facts, files[i].path, k8s);
		pf_facts_release(&facts);
	}

out:
	for (size_t i = 0; i < nfiles; i++) {
		if (files[i].have_plan)
			plan_release(&files[i].plan);
		intent_release(&files[i].in);
		buf_release(&files[i].data);
	}
	free(files);
	diags_release(&d);
	err_release(&err);
	return code;
}

/* "1" + "32+" -> "1.32" (EKS reports minor "32+") */
static int cluster_version(struct kube *k, char *out, size_t size,
			   struct err *err)
{
	cJSON *body = NULL;
	const cJSON *ma, *mi;
	long status;
	int ret = -1;

	if (kube_request(k, "GET", "/version", NULL, NULL, NULL, 0, &status,
			 &body, err) < 0)
		return -1;
	ma = cJSON_GetObjectItemCaseSensitive(body, "major");
	mi = cJSON_GetObjectItemCaseSensitive(body, "minor");
	if (status != 200 || !cJSON_IsString(ma) || !cJSON_IsString(mi)) {
		err_set(err, ERR_HTTP, "GET /version: HTTP %ld without major "
			"and minor", status);
	} else {
		snprintf(out, size, "%.8s.%.*s", ma->valuestring,
			 (int)strspn(mi->valuestring, "0123456789"),
			 mi->valuestring);
		if (!k8s_version_ok(out))
			err_set(err, ERR_HTTP, "GET /version: unusable version "
				"'%.20s.%.20s'", ma->valuestring,
				mi->valuestring);
		else
			ret = 0;
	}
	cJSON_Delete(body);
	return ret;
}

int cmd_preflight(int argc, char **argv)
{
	enum pf_format fmt = FMT_TEXT;
	const char *region = NULL, *k8s = NULL;
	long timeout_ms = 10000;
	size_t nfiles;
	struct lint_findings f = LINT_FINDINGS_INIT;
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct aws a;
	char ver[32];
	int c, code = EXIT_OK, use_cluster = 0;

	aws_init(&a);
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
			if (!k8s_version_ok(optarg))
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
	a.timeout_ms = timeout_ms;
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
		if (!k || cluster_version(k, ver, sizeof(ver), &err) < 0) {
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

	code = preflight_core(argv + optind, NULL, (size_t)(argc - optind),
			      region, k8s, NULL, &a, &f);
	if (code)
		goto out;
	if (fmt == FMT_TEXT) {
		for (size_t i = 0; i < f.nr; i++) {
			const struct lint_finding *x = &f.items[i];
			printf("%s:%d:%d: %s: %s [%s %s]\n", x->file, x->line,
			       x->col, lint_severity_names[x->sev], x->msg,
			       x->rule->id, x->rule->name);
		}
		fprintf(stderr,
			"gpuform preflight: %zu file%s, region %s, credentials "
			"from %s, %ld request%s: %zu error%s, %zu warning%s\n",
			nfiles, nfiles == 1 ? "" : "s", a.region, a.creds.source,
			a.requests, a.requests == 1 ? "" : "s",
			f.counts[LINT_ERROR],
			f.counts[LINT_ERROR] == 1 ? "" : "s",
			f.counts[LINT_WARNING],
			f.counts[LINT_WARNING] == 1 ? "" : "s");
	} else {
		char *s = fmt == FMT_JSON ? format_json(&f, nfiles, &a)
					  : format_sarif(&f);
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	code = f.counts[LINT_ERROR] ? EXIT_DIFF : EXIT_OK;
out:
	lint_findings_release(&f);
	aws_release(&a);
	return code;
}

int preflight_gate(struct kube *k, char **paths, const struct buf *mem,
		   size_t n, const char *cluster)
{
	struct lint_findings f = LINT_FINDINGS_INIT;
	struct err err = ERR_INIT;
	struct aws a;
	char ver[32];
	int code;

	aws_init(&a);
	if (cluster_version(k, ver, sizeof(ver), &err) < 0) {
		fprintf(stderr, "gpuform reconcile: preflight: cannot read the "
			"cluster's Kubernetes version: %s\n", shown_err(&err));
		err_release(&err);
		return EXIT_RUNTIME;
	}
	code = preflight_core(paths, mem, n, NULL, ver, cluster, &a, &f);
	for (size_t i = 0; i < f.nr; i++) {
		const struct lint_finding *x = &f.items[i];
		fprintf(stderr, "%s:%d:%d: %s: %s [%s %s]\n", x->file, x->line,
			x->col, lint_severity_names[x->sev], x->msg,
			x->rule->id, x->rule->name);
	}
	if (!code) {
		fprintf(stderr,
			"gpuform reconcile: preflight (Kubernetes %s, region %s, "
			"credentials from %s): %zu error%s, %zu warning%s\n",
			ver, a.region, a.creds.source, f.counts[LINT_ERROR],
			f.counts[LINT_ERROR] == 1 ? "" : "s",
			f.counts[LINT_WARNING],
			f.counts[LINT_WARNING] == 1 ? "" : "s");
		if (f.counts[LINT_ERROR]) {
			fprintf(stderr, "gpuform reconcile: preflight found "
				"errors; nothing applied\n");
			code = EXIT_INVALID;
		}
	}
	lint_findings_release(&f);
	aws_release(&a);
	return code;
}
