/*
 * cmd/install.c: `gpuform install` — the manifests that run gpuform in the
 * cluster (see generator/install.h), on stdout or into a directory written
 * atomically like `render -o`.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/install.h"
#include "generator/intent.h"
#include "generator/render.h"
#include "util/fs.h"
#include "util/xalloc.h"

enum { OPT_GIT = 4000, OPT_REF, OPT_PATH, OPT_CLUSTER, OPT_SCHEDULE, OPT_IMAGE,
       OPT_SECRET, OPT_NS, OPT_CRONJOB_API, OPT_PUSHGW, OPT_PRUNE, OPT_TIMEOUT,
       OPT_TEMPLATES, OPT_DP_NS };

/* the cluster the path names: "clusters/ml-prod/" -> "ml-prod" */
static char *cluster_from_path(const char *path)
{
	size_t n = strlen(path), start;

	while (n && path[n - 1] == '/')
		n--;
	start = n;
	while (start && path[start - 1] != '/')
		start--;
	return xstrndup(path + start, n - start);
}

int cmd_install(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "git", required_argument, NULL, OPT_GIT },
		{ "ref", required_argument, NULL, OPT_REF },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "cluster", required_argument, NULL, OPT_CLUSTER },
		{ "schedule", required_argument, NULL, OPT_SCHEDULE },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "git-secret", required_argument, NULL, OPT_SECRET },
		{ "namespace", required_argument, NULL, OPT_NS },
		{ "device-plugin-namespace", required_argument, NULL, OPT_DP_NS },
		{ "cronjob-api-version", required_argument, NULL, OPT_CRONJOB_API },
		{ "pushgateway", required_argument, NULL, OPT_PUSHGW },
		{ "prune", no_argument, NULL, OPT_PRUNE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "templates", required_argument, NULL, OPT_TEMPLATES },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct install_opts io = { 0 };
	struct rendered r = RENDERED_INIT;
	struct fs_tree tree = FS_TREE_INIT;
	struct tmpl_set *t = NULL;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	enum render_format fmt = RENDER_YAML;
	const char *dir = NULL, *templates = NULL;
	char *cluster = NULL;
	long long s;
	int c, code = EXIT_OK;

	while ((c = getopt_long(argc, argv, "+o:f:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_GIT:
			io.git_url = optarg;
			break;
		case OPT_REF:
			io.git_ref = optarg;
			break;
		case OPT_PATH:
			io.git_path = optarg;
			break;
		case OPT_CLUSTER:
			io.cluster = optarg;
			break;
		case OPT_SCHEDULE:
			io.schedule = optarg;
			break;
		case OPT_IMAGE:
			io.image = optarg;
			break;
		case OPT_SECRET:
			io.git_secret = optarg;
			break;
		case OPT_NS:
			io.namespace_ = optarg;
			break;
		case OPT_DP_NS:
			io.device_plugin_ns = optarg;
			break;
		case OPT_CRONJOB_API:
			io.cronjob_api = optarg;
			break;
		case OPT_PUSHGW:
			io.pushgateway = optarg;
			break;
		case OPT_PRUNE:
			io.prune = 1;
			break;
		case OPT_TIMEOUT:
			s = intent_parse_duration(optarg);
			if (s <= 0)
				return cmd_usage_error("install", "bad --timeout "
								  "'%s' (a duration "
								  "like 5m)", optarg);
			io.timeout_s = (long)s;
			break;
		case OPT_TEMPLATES:
			templates = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'f':
			if (render_format_parse(optarg, &fmt) < 0)
				return cmd_usage_error("install", "unknown format "
								  "'%s' (yaml or json)",
						       optarg);
			break;
		case 'h':
			return cmd_print_help("install");
		default:
			return cmd_usage_error("install", "invalid option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("install", "unexpected argument '%s'",
				       argv[optind]);
	if (!io.git_url)
		return cmd_usage_error("install", "--git URL is required (the "
						  "repository the job reconciles "
						  "from)");
	if (!io.git_path)
		return cmd_usage_error("install", "--path DIR is required (the "
						  "cluster's directory in the "
						  "repository, e.g. clusters/ml-prod)");
	if (!io.cluster) {
		cluster = cluster_from_path(io.git_path);
		io.cluster = cluster;
	}

	if (tmpl_set_load(&t, templates, &err) < 0 ||
	    install_render(&r.docs, &io, t, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (dir) {
		r.cluster = xstrdup(io.cluster);
		r.addons = cJSON_CreateObject();
		if (render_tree(&tree, &r, "", t, fmt, &err) < 0 ||
		    fs_tree_write_atomic(&tree, dir, RENDER_OWNER_FILE,
					 RENDER_OWNER_PREFIX, &err) < 0) {
			code = report_err(&err);
			goto out;
		}
		fprintf(stderr, "install manifests for cluster %s: %d objects -> %s\n",
			io.cluster, cJSON_GetArraySize(r.docs), dir);
		goto out;
	}
	if (render_stream(&out, &r, fmt, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout);
out:
	buf_release(&out);
	fs_tree_release(&tree);
	rendered_release(&r);
	tmpl_set_free(t);
	err_release(&err);
	free(cluster);
	return code;
}
