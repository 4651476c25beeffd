/*
 * tests/tools/kubectl-lite.c: a tiny CLI over kube/kube.h and
 * kube/kubeconfig.h, so tests/kube-client.sh can drive the real client
 * against a real API server. Not installed; not part of gpuform.
 *
 *   kubectl-lite [OPTIONS] CMD ARGS... [--and CMD ARGS...]...
 *
 * Options (before the first command):
 *   --kubeconfig FILE   (default: KUBECONFIG / ~/.kube/config, as gpuform)
 *   --context NAME      --in-cluster
 *   --timeout-ms N      request timeout      --run-timeout-ms N  run deadline
 *   --retries N         max retries          --max-body N        body cap
 *   --user-agent S
 *
 * Commands (NS "-" means none / all namespaces):
 *   config                                  the loaded config, no secrets
 *   resource APIVERSION KIND                discovery
 *   get APIVERSION KIND NS NAME             the object as JSON, or "absent"
 *   list APIVERSION KIND NS [SELECTOR]      "count N", then ns/name lines
 *   apply [--dry-run] [--force] [--manager M] FILE.json
 *                                           an object or an array of them
 *   create NS FILE.json
 *   delete [--dry-run] APIVERSION KIND NS NAME [UID [RESOURCEVERSION]]  (UID "" = none)
 *   raw METHOD PATH [QUERY [BODYFILE [CONTENT-TYPE]]]
 *   run SHELL-COMMAND                       system(), between requests
 *
 * Every command runs even if an earlier one failed. Errors go to stderr as
 * "error ERR_<CODE>: <message>"; at the end "stats {json}" goes to stderr.
 * Exit status: 0 if everything worked, 1 if a command failed, 2 for usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/kube.h"
#include "kube/incluster.h"
#include "kube/kubeconfig.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"

static const char *code_name(enum err_code c)
{
	static const char *const names[] = {
		"ERR_NONE",	"ERR_INVALID", "ERR_NOTFOUND",
		"ERR_CONFLICT", "ERR_AUTH",    "ERR_IO",
		"ERR_GIT",	"ERR_HTTP",    "ERR_INTERNAL",
	};
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c]
							      : "ERR_?";
}

static int fail(struct err *e)
{
	fprintf(stderr, "error %s: %s\n", code_name(e->code), err_msg(e));
	err_clear(e);
	return 1;
}

static const char *ns_arg(const char *s)
{
	return !strcmp(s, "-") ? NULL : s;
}

static int usage(void)
{
	fprintf(stderr, "usage: kubectl-lite [OPTIONS] CMD ARGS... "
			"[--and CMD ARGS...]... (see the source)\n");
	return 2;
}

static cJSON *read_json(const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	cJSON *j;

	if (fs_read_file(&b, path, 256u << 20, e) < 0) {
		buf_release(&b);
		return NULL;
	}
	j = cJSON_ParseWithLength(buf_cstr(&b), b.len);
	buf_release(&b);
	if (!j)
		err_set(e, ERR_INVALID, "'%s' is not JSON", path);
	return j;
}

static int cmd_resource(struct kube *k, int argc, char **argv, struct err *e)
{
	const struct kube_resource *r;

	if (argc != 3)
		return usage();
	if (kube_resource_for(k, argv[1], argv[2], &r, e) < 0)
		return fail(e);
	printf("group=%s version=%s kind=%s resource=%s namespaced=%d\n",
	       r->group, r->version, r->kind, r->resource, r->namespaced);
	return 0;
}

static int cmd_get(struct kube *k, int argc, char **argv, struct err *e)
{
	const struct kube_resource *r;
	cJSON *obj = NULL;
	char *s;

	if (argc != 5)
		return usage();
	if (kube_resource_for(k, argv[1], argv[2], &r, e) < 0 ||
	    kube_get(k, r, ns_arg(argv[3]), argv[4], &obj, e) < 0)
		return fail(e);
	if (!obj) {
		printf("absent\n");
		return 0;
	}
	s = cJSON_PrintUnformatted(obj);
	printf("%s\n", s);
	cJSON_free(s);
	cJSON_Delete(obj);
	return 0;
}

static int cmd_list(struct kube *k, int argc, char **argv, struct err *e)
{
	const struct kube_resource *r;
	cJSON *items = NULL;
	const cJSON *it;
	int bad = 0;

	if (argc != 4 && argc != 5)
		return usage();
	if (kube_resource_for(k, argv[1], argv[2], &r, e) < 0 ||
	    kube_list(k, r, ns_arg(argv[3]), argc == 5 ? argv[4] : NULL, &items,
		      e) < 0)
		return fail(e);
	printf("count %d\n", cJSON_GetArraySize(items));
	cJSON_ArrayForEach(it, items)
	{
		const cJSON *md =
			cJSON_GetObjectItemCaseSensitive(it, "metadata");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(md, "name");
		const cJSON *ns =
			cJSON_GetObjectItemCaseSensitive(md, "namespace");
		const cJSON *kind =
			cJSON_GetObjectItemCaseSensitive(it, "kind");
		const cJSON *av =
			cJSON_GetObjectItemCaseSensitive(it, "apiVersion");

		/* kube.h: every item has apiVersion and kind filled in */
		if (!cJSON_IsString(kind) || !cJSON_IsString(av))
			bad++;
		printf("%s/%s\n", cJSON_IsString(ns) ? ns->valuestring : "",
		       cJSON_IsString(n) ? n->valuestring : "?");
	}
	if (bad)
		printf("items-without-apiVersion-or-kind %d\n", bad);
	cJSON_Delete(items);
	return 0;
}

static int apply_one(struct kube *k, const cJSON *obj, const char *manager,
		     int force, int dry_run, int verbose, struct err *e)
{
	const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
	const struct kube_resource *r;
	cJSON *res = NULL;

	if (kube_resource_for(k, cJSON_IsString(av) ? av->valuestring : "",
			      cJSON_IsString(kind) ? kind->valuestring : "", &r,
			      e) < 0 ||
	    kube_apply(k, r, obj, manager, force, dry_run, &res, e) < 0)
		return fail(e);
	if (verbose) {
		const cJSON *md =
			cJSON_GetObjectItemCaseSensitive(res, "metadata");
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(md, "uid");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(md, "name");
		printf("applied %s/%s uid=%s\n", r->kind,
		       cJSON_IsString(n) ? n->valuestring : "?",
		       cJSON_IsString(uid) ? uid->valuestring : "");
	}
	cJSON_Delete(res);
	return 0;
}

static int cmd_apply(struct kube *k, int argc, char **argv, struct err *e)
{
	const char *manager = "kubectl-lite", *file = NULL;
	int force = 0, dry_run = 0, rc = 0, n = 0;
	cJSON *j;
	const cJSON *it;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run"))
			dry_run = 1;
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (!strcmp(argv[i], "--manager") && i + 1 < argc)
			manager = argv[++i];
		else if (!file)
			file = argv[i];
		else
			return usage();
	}
	if (!file)
		return usage();
	if (!(j = read_json(file, e)))
		return fail(e);
	if (cJSON_IsArray(j)) {
		int total = cJSON_GetArraySize(j);
		cJSON_ArrayForEach(it, j)
		{
			if (apply_one(k, it, manager, force, dry_run,
				      total <= 20, e))
				rc = 1;
			else
				n++;
		}
	} else {
		rc = apply_one(k, j, manager, force, dry_run, 1, e);
		n = !rc;
	}
	printf("applied %d\n", n);
	cJSON_Delete(j);
	return rc;
}

static int cmd_create(struct kube *k, int argc, char **argv, struct err *e)
{
	const struct kube_resource *r;
	const cJSON *av, *kind;
	cJSON *j, *res = NULL;
	int rc = 0;

	if (argc != 3)
		return usage();
	if (!(j = read_json(argv[2], e)))
		return fail(e);
	av = cJSON_GetObjectItemCaseSensitive(j, "apiVersion");
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (kube_resource_for(k, cJSON_IsString(av) ? av->valuestring : "",
			      cJSON_IsString(kind) ? kind->valuestring : "", &r,
			      e) < 0 ||
	    kube_create(k, r, ns_arg(argv[1]), j, &res, e) < 0) {
		rc = fail(e);
	} else {
		char *s = cJSON_PrintUnformatted(res);
		printf("%s\n", s);
		cJSON_free(s);
	}
	cJSON_Delete(res);
	cJSON_Delete(j);
	return rc;
}

static int cmd_delete(struct kube *k, int argc, char **argv, struct err *e)
{
	const struct kube_resource *r;
	int dry_run = 0, deleted = -1;

	if (argc > 1 && !strcmp(argv[1], "--dry-run")) {
		dry_run = 1;
		argc--;
		argv++;
	}
	if (argc < 5 || argc > 7)
		return usage();
	if (kube_resource_for(k, argv[1], argv[2], &r, e) < 0 ||
	    kube_delete(k, r, ns_arg(argv[3]), argv[4],
			argc >= 6 && *argv[5] ? argv[5] : NULL,
			argc == 7 ? argv[6] : NULL, dry_run, &deleted, e) < 0)
		return fail(e);
	printf("%s\n", deleted ? "deleted" : "absent");
	return 0;
}

static int cmd_raw(struct kube *k, int argc, char **argv, struct err *e)
{
	struct buf body = BUF_INIT;
	cJSON *j = NULL;
	long status = 0;
	int has_body = argc >= 5;

	if (argc < 3 || argc > 6)
		return usage();
	if (has_body && fs_read_file(&body, argv[4], 64u << 20, e) < 0) {
		buf_release(&body);
		return fail(e);
	}
	if (kube_request(k, argv[1], argv[2], argc >= 4 ? argv[3] : NULL,
			 has_body ? (argc == 6 ? argv[5] : "application/json")
				  : NULL,
			 has_body ? buf_cstr(&body) : NULL, body.len, &status,
			 &j, e) < 0) {
		buf_release(&body);
		return fail(e);
	}
	printf("status %ld\n", status);
	if (j) {
		char *s = cJSON_PrintUnformatted(j);
		printf("%s\n", s);
		cJSON_free(s);
	}
	cJSON_Delete(j);
	buf_release(&body);
	return status >= 200 && status < 300 ? 0 : 1;
}

static void print_config(const struct kube_config *c)
{
	printf("context=%s cluster=%s user=%s server=%s namespace=%s "
	       "insecure=%d ca=%s token=%s token_file=%s cert=%s exec=%s\n",
	       c->context, c->cluster, c->user, c->server, c->namespace_,
	       c->insecure, c->ca_pem ? "yes" : "no", c->token ? "yes" : "no",
	       c->token_file ? c->token_file : "-", c->cert_pem ? "yes" : "no",
	       c->exec_argv ? c->exec_argv[0] : "-");
}

static void print_stats(const struct kube *k)
{
	const struct kube_stats *s = kube_get_stats(k);

	fprintf(stderr,
		"stats {\"requests\":%ld,\"gets\":%ld,\"lists\":%ld,"
		"\"applies\":%ld,\"dry_runs\":%ld,\"deletes\":%ld,"
		"\"creates\":%ld,\"others\":%ld,\"writes\":%ld,"
		"\"retries\":%ld}\n",
		s->requests, s->gets, s->lists, s->applies, s->dry_runs,
		s->deletes, s->creates, s->others, s->writes, s->retries);
}

int main(int argc, char **argv)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_opts opts = KUBE_OPTS_INIT;
	struct err e = ERR_INIT;
	struct kube *k = NULL;
	const char *kubeconfig = NULL, *context = NULL;
	int in_cluster = 0, i = 1, rc = 0;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--in-cluster")) {
			in_cluster = 1;
			continue;
		}
		if (!strcmp(o, "--insecure-loopback-http")) {
			opts.http_loopback_credentials = 1;
			continue;
		}
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(o, "--kubeconfig"))
			kubeconfig = argv[++i];
		else if (!strcmp(o, "--context"))
			context = argv[++i];
		else if (!strcmp(o, "--timeout-ms"))
			opts.request_timeout_ms = atol(argv[++i]);
		else if (!strcmp(o, "--run-timeout-ms"))
			opts.run_timeout_ms = atol(argv[++i]);
		else if (!strcmp(o, "--retries"))
			opts.max_retries = atoi(argv[++i]);
		else if (!strcmp(o, "--max-body"))
			opts.max_body = (size_t)atol(argv[++i]);
		else if (!strcmp(o, "--user-agent"))
			opts.user_agent = argv[++i];
		else
			return usage();
	}
	if (i >= argc)
		return usage();
	if ((in_cluster ? kubeconfig_in_cluster(&cfg, &e)
			: kubeconfig_load(&cfg, kubeconfig, context, &e)) < 0) {
		fail(&e);
		err_release(&e);
		return 1;
	}
	if (kube_new(&k, &cfg, &opts, &e) < 0) {
		fail(&e);
		err_release(&e);
		kube_config_release(&cfg);
		return 1;
	}
	while (i < argc) {
		int start = i, n, r;
		char **av = argv + start;
		const char *cmd;

		while (i < argc && strcmp(argv[i], "--and"))
			i++;
		n = i - start;
		if (i < argc)
			i++; /* skip --and */
		if (!n) {
			rc = usage();
			break;
		}
		cmd = av[0];
		if (!strcmp(cmd, "config")) {
			print_config(&cfg);
			r = 0;
		} else if (!strcmp(cmd, "resource")) {
			r = cmd_resource(k, n, av, &e);
		} else if (!strcmp(cmd, "get")) {
			r = cmd_get(k, n, av, &e);
		} else if (!strcmp(cmd, "list")) {
			r = cmd_list(k, n, av, &e);
		} else if (!strcmp(cmd, "apply")) {
			r = cmd_apply(k, n, av, &e);
		} else if (!strcmp(cmd, "create")) {
			r = cmd_create(k, n, av, &e);
		} else if (!strcmp(cmd, "delete")) {
			r = cmd_delete(k, n, av, &e);
		} else if (!strcmp(cmd, "raw")) {
			r = cmd_raw(k, n, av, &e);
		} else if (!strcmp(cmd, "run") && n == 2) {
			fflush(stdout);
			r = system(av[1]) != 0;
		} else {
			r = usage();
		}
		fflush(stdout);
		if (r > rc)
			rc = r;
	}
	print_stats(k);
	kube_free(k);
	kube_config_release(&cfg);
	err_release(&e);
	return rc;
}
