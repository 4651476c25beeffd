/*
 * cmd/reconcile.c: `gpuform reconcile`, `gpuform diff --live` (against the
 * cluster) and `gpuform diff --base` (between two Git revisions: the
 * pull-request diff, which needs no cluster).
 */
#include "cmd/cmd.h"
#include "cmd/preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd/cluster.h"
#include "cmd/gitpath.h"
#include "cmd/nodeimpact.h"
#include "cmd/incluster.h"
#include "cmd/objdiff.h"
#include "cmd/repo.h"
#include "cmd/source.h"
#include "cmd/testhooks.h"
#include "generator/pipeline.h"
#include "generator/validate.h"
#include "generator/yaml.h"
#include "reconcile/reconcile.h"
#include "util/xalloc.h"

static void print_item(const struct recon_item *it)
{
	const char *slash = strchr(it->api_version, '/');
	char group[128] = "";

	if (slash) {
		size_t n = (size_t)(slash - it->api_version);
		if (n >= sizeof(group))
			n = sizeof(group) - 1;
		memcpy(group, it->api_version, n);
		group[n] = '\0';
	}
	for (const char *k = it->kind; *k; k++)
		putchar(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
	if (*group)
		printf(".%s", group);
	printf("/%s", it->name);
	if (it->ns)
		printf(" -n %s", it->ns);
	printf(" %s%s", recon_action_names[it->action],
	       it->dry && it->action != RA_UNCHANGED &&
			       it->action != RA_CONFLICT && it->action != RA_FAILED &&
			       it->action != RA_SKIPPED
		       ? " (dry run)"
		       : "");
	if (it->detail)
		printf(": %s", it->detail);
	putchar('\n');
}

/* the node impact of an item that is (or would be) written */
static void print_impact(const struct nodeimpact *ni, const struct recon_item *it,
			 const char *indent)
{
	const struct impact *im = nodeimpact_find(ni, it);
	struct buf b = BUF_INIT;

	if (!im || (it->action != RA_CREATED && it->action != RA_CONFIGURED &&
		    it->action != RA_PRUNED && it->action != RA_SKIPPED))
		return;
	nodeimpact_describe(&b, ni, im);
	printf("%snode impact: %s\n", indent, buf_cstr(&b));
	buf_release(&b);
}

static void print_summary(const struct recon_report *r,
			  const struct nodeimpact *ni, int failed, FILE *f)
{
	fprintf(f, "%s %s: ",
		failed      ? "reconcile failed for"
		: r->dry_run ? "dry run for"
			     : "reconciled",
		r->cluster ? r->cluster : "?");
	if (ni->n) {
		struct buf b = BUF_INIT;
		nodeimpact_summary(&b, ni);
		fprintf(f, "%s; ", buf_cstr(&b));
		buf_release(&b);
	}
	fprintf(f, "%zu created, %zu configured, %zu unchanged, %zu pruned",
		r->counts[RA_CREATED], r->counts[RA_CONFIGURED],
		r->counts[RA_UNCHANGED], r->counts[RA_PRUNED]);
	if (r->counts[RA_SKIPPED])
		fprintf(f, ", %zu skipped", r->counts[RA_SKIPPED]);
	if (r->counts[RA_CONFLICT])
		fprintf(f, ", %zu conflicts", r->counts[RA_CONFLICT]);
	if (r->counts[RA_FAILED])
		fprintf(f, ", %zu failed", r->counts[RA_FAILED]);
	fprintf(f, " (%ld API requests, %ld writes)", r->stats.requests,
		r->stats.writes);
	if (r->source_commit)
		fprintf(f, " from commit %s", r->source_commit);
	fputc('\n', f);
}

enum { OPT_DRY_RUN = 2000, OPT_PRUNE, OPT_FORCE_CONFLICTS, OPT_FORCE_PRUNE,
       OPT_PRUNE_NS, OPT_INV_NS, OPT_TEMPLATES, OPT_LIVE, OPT_GIT, OPT_REF,
       OPT_PATH, OPT_GIT_CACHE, OPT_ALLOW_REPLACE, OPT_BASE, OPT_HEAD,
       OPT_REPO, OPT_FORMAT, OPT_ADOPT, OPT_REBUILD_INV, OPT_NO_LOCK,
       OPT_PREFLIGHT, OPT_CLUSTER };

/* tests only: pause between the LISTs and the first DELETE of a prune, so
 * a test can change an object meanwhile (GPUFORM_TEST_PRUNE_PAUSE_S) */
static void test_prune_pause(void *ctx)
{
	long n = *(const long *)ctx;

	fprintf(stderr, "gpuform: test: pausing %lds before pruning\n", n);
	testhooks_sleep(n);
}

const struct cmd_opt reconcile_opts[] = {
	{ "dry-run", 0, OPT_DRY_RUN, CMD_ARG_NONE, NULL,
	  "show what would change; exit 1 if anything", NULL, 0 },
	{ "prune", 0, OPT_PRUNE, CMD_ARG_NONE, NULL,
	  "delete objects gpuform created that are no longer desired "
	  "(inventory, label and UID must all match)", NULL, 0 },
	{ "force-prune", 0, OPT_FORCE_PRUNE, CMD_ARG_NONE, NULL,
	  "allow an empty desired set or pruning more than half of the "
	  "inventory", NULL, 0 },
	{ "prune-namespaces", 0, OPT_PRUNE_NS, CMD_ARG_NONE, NULL,
	  "allow pruning Namespaces", NULL, 0 },
	{ "force-conflicts", 0, OPT_FORCE_CONFLICTS, CMD_ARG_NONE, NULL,
	  "take over fields another apply manager owns", NULL, 0 },
	{ "allow-node-replacement", 0, OPT_ALLOW_REPLACE, CMD_ARG_NONE, NULL,
	  "apply node-replacing changes to 'interruption: none' or "
	  "'checkpointed' pools outside their maintenance window (held back "
	  "otherwise; everything else is applied)", NULL, 0 },
	{ "adopt", 0, OPT_ADOPT, CMD_ARG_NONE, NULL,
	  "take over existing objects that no gpuform inventory owns (else "
	  "they are conflicts)", NULL, 0 },
	{ "rebuild-inventory", 0, OPT_REBUILD_INV, CMD_ARG_NONE, NULL,
	  "rebuild a damaged or deleted inventory from the objects gpuform "
	  "labelled and applied", NULL, 0 },
	{ "no-lock", 0, OPT_NO_LOCK, CMD_ARG_NONE, NULL,
	  "do not take the run lock (taken by default for every run that "
	  "writes)", NULL, 0 },
	{ "inventory-namespace", 0, OPT_INV_NS, CMD_ARG_REQUIRED, "NS",
	  "where the inventory lives (default gpuform-system)", NULL, 0 },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (see render)", "@dir", 0 },
	{ "git", 0, OPT_GIT, CMD_ARG_REQUIRED, "URL",
	  "read the manifests from this Git repository (https://, ssh:// or a "
	  "path; credentials as for commit --push), fetched into a bare cache "
	  "reused between runs; no checkout", NULL, 0 },
	{ "ref", 0, OPT_REF, CMD_ARG_REQUIRED, "BRANCH",
	  "branch to read (default main)", NULL, 0 },
	{ "path", 0, OPT_PATH, CMD_ARG_REQUIRED, "DIR",
	  "the directory that holds one directory per cluster, as commit "
	  "writes it (default clusters); with --git", NULL, 0 },
	{ "cluster", 0, OPT_CLUSTER, CMD_ARG_REQUIRED, "NAME",
	  "with --git: the cluster to reconcile, read from DIR/NAME/ (a --path "
	  "that is one cluster's directory, without --cluster, still works but "
	  "is deprecated)", NULL, 0 },
	{ "git-cache", 0, OPT_GIT_CACHE, CMD_ARG_REQUIRED, "DIR",
	  "cache location (default ~/.cache/gpuform/git/<hash of URL>)",
	  "@dir", 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default) or json (with request counts)", "text json", 0 },
	{ "preflight", 0, OPT_PREFLIGHT, CMD_ARG_NONE, NULL,
	  "first run 'gpuform preflight' on the intent files (the cluster's "
	  "Kubernetes version, AWS credentials as preflight finds them); an "
	  "error finding stops before anything is applied (exit 3)",
	  NULL, 0 },
	CLUSTER_CMD_OPTS,
	INCLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

/* both modes of diff: --base (Git) and --live (the cluster) */
const struct cmd_opt diff_opts[] = {
	{ "base", 0, OPT_BASE, CMD_ARG_REQUIRED, "REV",
	  "compare with this revision (branch, tag, id): the pull-request "
	  "diff, from Git alone", NULL, 0 },
	{ "head", 0, OPT_HEAD, CMD_ARG_REQUIRED, "REV",
	  "with --base: the new side (default: the work tree)", NULL, 0 },
	{ "repo", 0, OPT_REPO, CMD_ARG_REQUIRED, "DIR",
	  "with --base: the repository (default: the one the current "
	  "directory is in)", "@dir", 0 },
	{ "live", 0, OPT_LIVE, CMD_ARG_NONE, NULL,
	  "compare with the cluster", NULL, 0 },
	{ "output", 'o', 'o', CMD_ARG_REQUIRED, "FORMAT",
	  "text (default), markdown (with --base: a PR comment, a table and "
	  "one diff per object) or json; also -f, --format",
	  "text markdown json", 0 },
	{ "format", 'f', OPT_FORMAT, CMD_ARG_REQUIRED, "FORMAT", "same as -o",
	  "text markdown json", CMD_OPT_HIDDEN },
	{ "templates", 0, OPT_TEMPLATES, CMD_ARG_REQUIRED, "DIR",
	  "template overrides (see render), both sides", "@dir", 0 },
	CLUSTER_CMD_OPTS,
	CMD_OPT_HELP,
	CMD_OPT_END,
};

static int run(const char *cmd, int argc, char **argv, int diff_mode)
{
	struct cluster_opts co = CLUSTER_OPTS_INIT;
	struct incluster_opts io = INCLUSTER_OPTS_INIT;
	struct incluster ic;
	int any_incluster = 0;
	struct recon_opts ro = { 0 };
	struct source src = SOURCE_INIT;
	struct source_git git = { NULL, NULL, NULL, NULL, NULL };
	struct recon_report rep = RECON_REPORT_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct kube *k = NULL;
	struct nodeimpact ni;
	struct buf why = BUF_INIT;
	const char *templates = NULL;
	int c, json = 0, live = 0, allow_replace = 0, code = EXIT_OK, rc;
	int no_lock = 0;
	long prune_pause = testhooks_seconds("GPUFORM_TEST_PRUNE_PAUSE_S");
	int preflight = 0, usage = 0;

	while ((c = cmd_getopt(cmd, argc, argv)) != -1) {
		switch (c) {
		case OPT_DRY_RUN:
			ro.dry_run = 1;
			break;
		case OPT_PRUNE:
			ro.prune = 1;
			break;
		case OPT_FORCE_CONFLICTS:
			ro.force_conflicts = 1;
			break;
		case OPT_FORCE_PRUNE:
			ro.force_prune = 1;
			break;
		case OPT_PRUNE_NS:
			ro.prune_namespaces = 1;
			break;
		case OPT_INV_NS:
			ro.inventory_ns = optarg;
			break;
		case OPT_TEMPLATES:
			templates = optarg;
			break;
		case OPT_LIVE:
			live = 1;
			break;
		case OPT_GIT:
			git.url = optarg;
			break;
		case OPT_REF:
			git.ref = optarg;
			break;
		case OPT_PATH:
			git.path = optarg;
			break;
		case OPT_CLUSTER:
			if (!validate_dns_label(optarg, 63))
				return cmd_usage_error(cmd, "--cluster '%s' is not "
							    "a cluster name (a DNS "
							    "label)", optarg);
			git.cluster = optarg;
			break;
		case OPT_GIT_CACHE:
			git.cache = optarg;
			break;
		case OPT_ALLOW_REPLACE:
			allow_replace = 1;
			break;
		case OPT_ADOPT:
			ro.adopt = 1;
			break;
		case OPT_REBUILD_INV:
			ro.rebuild_inventory = 1;
			break;
		case OPT_NO_LOCK:
			no_lock = 1;
			break;
		case OPT_PREFLIGHT:
			preflight = 1;
			break;
		case OPT_FORMAT:
		case 'o':
			if (!strcmp(optarg, "json"))
				json = 1;
			else if (strcmp(optarg, "text"))
				return cmd_usage_error(cmd, "unknown output '%s' (text or json)", optarg);
			break;
		case 'h':
			return cmd_print_help(cmd);
		case OPT_KUBECONFIG:
		case OPT_CONTEXT:
		case OPT_TIMEOUT:
		case OPT_REQ_TIMEOUT:
		case OPT_INSECURE_LOOPBACK_HTTP:
			if (cluster_opt(&co, c, optarg) < 0)
				return cmd_usage_error(cmd, "bad value '%s' (a duration "
							    "like 30s or 5m)", optarg);
			break;
		case OPT_LOCK:
		case OPT_LOCK_DURATION:
		case OPT_EVENTS:
		case OPT_METRICS_FILE:
		case OPT_PUSHGATEWAY:
			if (incluster_opt(&io, c, optarg) < 0)
				return cmd_usage_error(cmd, "bad value '%s'", optarg);
			any_incluster = 1;
			break;
		case '?':
			return EXIT_USAGE;
		default:
			return cmd_usage_error(cmd, "--%s goes with diff --base",
					       cmd_opt_name(cmd, c));
		}
	}
	if (diff_mode && any_incluster)
		return cmd_usage_error(cmd, "--lock, --events, --metrics-file and "
					    "--pushgateway go with reconcile");
	if (preflight && (diff_mode || git.url))
		return cmd_usage_error(cmd, "--preflight goes with reconcile "
					    "of intent files");
	for (int i = optind; preflight && i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && !S_ISREG(st.st_mode))
			return cmd_usage_error(cmd, "--preflight needs intent "
						    "files, not '%s'", argv[i]);
	}
	if (diff_mode && !live)
		return cmd_usage_error(cmd, "say what to compare with: --base REV "
					    "(Git revisions) or --live (the cluster)");
	if (diff_mode && (no_lock || ro.adopt || ro.rebuild_inventory))
		return cmd_usage_error(cmd, "--no-lock, --adopt and "
					    "--rebuild-inventory go with reconcile");
	if (io.lock && no_lock)
		return cmd_usage_error(cmd, "--lock and --no-lock contradict "
					    "each other");
	if (diff_mode) {
		ro.dry_run = 1;
		ro.want_diffs = 1;
		ro.prune = 1; /* show what a prune would remove */
	}
	/* the run lock is the default for every run that writes: a manual
	 * run racing the CronJob must not prune what the other applies */
	if (!ro.dry_run && !no_lock && !io.lock) {
		io.lock = 1;
		io.lock_default = 1;
	}
	if (prune_pause) {
		ro.before_prune = test_prune_pause;
		ro.before_prune_ctx = &prune_pause;
	}
	if (git.url) {
		if (optind < argc)
			return cmd_usage_error(cmd, "--git reads the manifests from "
						    "Git: give no files");
		if (git.path && !*git.path)
			return cmd_usage_error(cmd, "--path needs the directory "
						    "that holds the cluster "
						    "directories (default "
						    "clusters)");
	} else if (git.ref || git.path || git.cluster || git.cache) {
		return cmd_usage_error(cmd, "--ref, --path, --cluster and "
					    "--git-cache go with --git");
	} else if (optind >= argc) {
		return cmd_usage_error(cmd, "no intent file or rendered directory given");
	}
	nodeimpact_init(&ni, NULL);
	ni.allow_replacement = allow_replace;
	ni.enforce = !ro.dry_run;
	if (testhooks_now(&ni.now, &why) < 0) {
		code = cmd_usage_error(cmd, "%s", buf_cstr(&why));
		buf_release(&why);
		return code;
	}

	incluster_start(&ic, &io, co.timeout_ms);
	ic.json = json;
	if (git.url ? source_load_git(&src, &git, &usage, &d, &err) < 0
		    : source_load(&src, argv + optind, (size_t)(argc - optind),
				  templates, &d, &err) < 0) {
		diags_sort(&d);
		report_diags(&d);
		code = usage ? cmd_usage_error(cmd, "%s", err_msg(&err))
			     : report_err(&err);
		goto out;
	}
	diags_sort(&d);
	report_diags(&d);
	ro.source = src.desc;
	ro.source_commit = src.commit;
	ni.desired = src.docs;
	ro.guard = nodeimpact_guard;
	ro.guard_ctx = &ni;
	ro.held_detail = "held back: a node-replacing change to a pool with "
			 "'interruption: none' or 'checkpointed' outside its "
			 "maintenance window; "
			 "pass --allow-node-replacement to apply it";
	if (cluster_connect(&k, &co, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (preflight && (code = preflight_gate(k, argv + optind,
						(size_t)(argc - optind))))
		goto out;
	rc = incluster_lock(&ic, k, src.cluster, ro.inventory_ns, &err);
	if (rc != 0) {
		code = rc > 0 ? EXIT_OK : report_err(&err);
		goto out;
	}
	rc = recon_run(&rep, k, src.cluster, src.docs, &ro, &err);
	if (ni.notes.len) {
		/* one line per held (or allowed) node-replacing change */
		for (const char *p = buf_cstr(&ni.notes); *p;) {
			size_t l = strcspn(p, "\n");
			fprintf(stderr, "gpuform: %.*s\n", (int)l, p);
			p += l + (p[l] == '\n');
		}
	}
	if (json) {
		cJSON *j = recon_report_json(&rep);
		cJSON *items = cJSON_GetObjectItemCaseSensitive(j, "items");
		char *s;
		for (size_t i = 0; i < rep.nr; i++) {
			const struct impact *im = nodeimpact_find(&ni, &rep.items[i]);
			if (im && rep.items[i].action != RA_UNCHANGED)
				cJSON_AddItemToObject(cJSON_GetArrayItem(items, (int)i),
						      "impact", impact_json(im));
		}
		cJSON_AddItemToObject(j, "nodeImpact", nodeimpact_json(&ni));
		if (rc < 0)
			cJSON_AddStringToObject(j, "error", err_msg(&err));
		s = cJSON_Print(j);
		puts(s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else if (diff_mode) {
		for (size_t i = 0; i < rep.nr; i++) {
			const struct recon_item *it = &rep.items[i];
			if (it->diff) {
				print_impact(&ni, it, "");
				fputs(it->diff, stdout);
			} else if (it->action == RA_PRUNED) {
				print_item(it);
				print_impact(&ni, it, "");
			} else if (it->action == RA_CONFLICT || it->action == RA_FAILED) {
				print_item(it);
			}
		}
		if (recon_changed(&rep) && ni.n) {
			struct buf b = BUF_INIT;
			nodeimpact_summary(&b, &ni);
			printf("%s\n", buf_cstr(&b));
			buf_release(&b);
		}
	} else {
		for (size_t i = 0; i < rep.nr; i++) {
			print_item(&rep.items[i]);
			print_impact(&ni, &rep.items[i], "  ");
		}
	}
	if (!diff_mode && !json)
		print_summary(&rep, &ni, rc < 0, stdout);
	if (rc < 0) {
		code = report_err(&err);
		if (ni.held && ni.enforce)
			code = EXIT_HELD;
		goto out;
	}
	if (ro.dry_run && recon_changed(&rep))
		code = EXIT_DIFF;
out:
	nodeimpact_release(&ni);
	code = incluster_finish(&ic, k, src.cluster, ro.inventory_ns,
				src.cluster ? &rep : NULL, src.commit, code, &err);
	recon_report_release(&rep);
	kube_free(k);
	source_release(&src);
	diags_release(&d);
	err_release(&err);
	return code;
}

int cmd_reconcile(int argc, char **argv)
{
	return run("reconcile", argc, argv, 0);
}

/* ---- diff --base: two Git revisions, rendered and compared ---------------- */

enum diff_format { DIFF_TEXT, DIFF_MARKDOWN, DIFF_JSON };

/* one side of the comparison: a revision, or the work tree (rev NULL) */
struct side {
	const char *what; /* "base" or "head" */
	const char *rev;
	char oid[REPO_OID_HEX];
	struct rendered *r; /* per intent path; r[i].docs NULL: absent */
	struct diags d;
	size_t failed;
};

/* the file as the user can open it: REV:PATH, or its place on disk */
static char *side_label(const struct side *s, const char *repo_dir,
			const char *path, const char *arg)
{
	size_t n;

	if (s->rev)
		return xasprintf("%s:%s", s->rev, path);
	if (!repo_dir) /* found from the current directory: as typed */
		return xstrdup(arg);
	n = strlen(repo_dir);
	if (!strcmp(repo_dir, "."))
		return xstrdup(path);
	return xasprintf("%s%s%s", repo_dir,
			 n && repo_dir[n - 1] == '/' ? "" : "/", path);
}

/* read `path` at one side; *absent = 1 (and 0 returned) if it is not there */
static int side_read(struct buf *out, int *absent, struct repo *r,
		     const struct side *s, const char *path,
		     const char *label, struct err *err)
{
	const char *wd;
	struct stat st;
	char *file;
	int ret;

	*absent = 0;
	if (s->rev) {
		if (repo_read(r, s->oid, path, out, NULL, err) < 0) {
			if (err->code != ERR_NOTFOUND)
				return -1;
			err_clear(err);
			*absent = 1;
			return 0;
		}
		if (out->len > YAML_MAX_INPUT)
			return err_set(err, ERR_INVALID,
				       "'%s' is larger than %u bytes", label,
				       YAML_MAX_INPUT);
		return 0;
	}
	wd = repo_workdir(r);
	file = xasprintf("%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/",
			 path);
	if (lstat(file, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		free(file);
		*absent = 1;
		return 0;
	}
	ret = fs_read_file(out, file, YAML_MAX_INPUT, err);
	free(file);
	return ret;
}

/*
 * Render every path at one side. Invalid intents add diagnostics and are
 * counted in s->failed (all files are tried, so every problem is shown);
 * anything else (Git, I/O) stops with -1.
 */
static int side_render(struct side *s, struct repo *r, char **paths,
		       char *const *args, size_t n, const char *repo_dir,
		       const struct tmpl_set *t, struct err *err)
{
	s->r = xcalloc(n ? n : 1, sizeof(*s->r));
	for (size_t i = 0; i < n; i++) {
		char *label = side_label(s, repo_dir, paths[i], args[i]);
		struct buf data = BUF_INIT;
		struct err e = ERR_INIT;
		size_t before = s->d.errors;
		int absent, rc, fatal = 0;

		rc = side_read(&data, &absent, r, s, paths[i], label, &e);
		if (rc == 0 && !absent)
			rc = pipeline_render(&s->r[i], label, buf_cstr(&data),
					     data.len, t, &s->d, &e);
		if (rc < 0 && e.code == ERR_INVALID) {
			/* the diagnostics say it, unless the failure came
			 * later (templates, CRD rules) or earlier (size) */
			if (s->d.errors == before)
				diags_add(&s->d, DIAG_ERROR, label, 0, 0, NULL,
					  "%s", err_msg(&e));
			s->failed++;
		} else if (rc < 0) {
			err_set(err, e.code, "%s", err_msg(&e));
			fatal = 1;
		}
		err_release(&e);
		buf_release(&data);
		free(label);
		if (fatal)
			return -1;
	}
	return 0;
}

/* "at base 'origin/main'", "in the work tree" */
static void side_name(struct buf *out, const struct side *s)
{
	if (s->rev)
		buf_addf(out, "at %s '%s'", s->what, s->rev);
	else
		buf_adds(out, "in the work tree");
}

/* two intent files of one revision for the same cluster cannot be compared
 * object by object (nor rendered together) */
static int side_check_clusters(const struct side *s, char **paths, size_t n,
			       struct err *err)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; s->r[i].docs && j < i; j++)
			if (s->r[j].docs &&
			    !strcmp(s->r[i].cluster, s->r[j].cluster)) {
				struct buf where = BUF_INIT;
				side_name(&where, s);
				err_set(err, ERR_INVALID,
					"'%s' and '%s' both describe cluster "
					"'%s' %s", paths[j], paths[i],
					s->r[i].cluster, buf_cstr(&where));
				buf_release(&where);
				return -1;
			}
	return 0;
}

static void side_release(struct side *s, size_t n)
{
	for (size_t i = 0; s->r && i < n; i++)
		rendered_release(&s->r[i]);
	free(s->r);
	s->r = NULL;
	diags_release(&s->d);
}

static int invalid_error(const struct side *a, const struct side *b,
			 struct err *err)
{
	struct buf m = BUF_INIT;
	const struct side *sides[] = { a, b };
	int ret;

	buf_addf(&m, "invalid intent%s ", a->failed + b->failed > 1 ? "s" : "");
	for (int i = 0, first = 1; i < 2; i++) {
		if (!sides[i]->failed)
			continue;
		if (!first)
			buf_adds(&m, " and ");
		first = 0;
		side_name(&m, sides[i]);
		buf_addf(&m, " (%zu error%s)", sides[i]->d.errors,
			 sides[i]->d.errors == 1 ? "" : "s");
	}
	ret = err_set(err, ERR_INVALID, "%s; nothing compared", buf_cstr(&m));
	buf_release(&m);
	return ret;
}


static int diff_git(int argc, char **argv)
{
	const char *repo_dir = NULL, *templates = NULL;
	enum diff_format fmt = DIFF_TEXT;
	struct side base = { "base", NULL, "", NULL, DIAGS_INIT, 0 };
	struct side head = { "head", NULL, "", NULL, DIAGS_INIT, 0 };
	struct objset sa = OBJSET_INIT, sb = OBJSET_INIT;
	struct objdiff d = OBJDIFF_INIT;
	struct tmpl_set *t = NULL;
	struct repo *r = NULL;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	char **paths = NULL;
	size_t n = 0;
	int c, code = EXIT_OK;

	while ((c = cmd_getopt("diff", argc, argv)) != -1) {
		switch (c) {
		case OPT_BASE:
			base.rev = optarg;
			break;
		case OPT_HEAD:
			head.rev = optarg;
			break;
		case OPT_REPO:
			repo_dir = optarg;
			break;
		case 'o':
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				fmt = DIFF_TEXT;
			else if (!strcmp(optarg, "markdown"))
				fmt = DIFF_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				fmt = DIFF_JSON;
			else
				return cmd_usage_error("diff",
						       "unknown format '%s' (text, "
						       "markdown or json)", optarg);
			break;
		case OPT_TEMPLATES:
			templates = optarg;
			break;
		case 'h':
			return cmd_print_help("diff");
		case '?':
			return EXIT_USAGE;
		default:
			return cmd_usage_error("diff", "--%s goes with --live, "
						       "not --base",
					       cmd_opt_name("diff", c));
		}
	}
	if (!base.rev || !*base.rev)
		return cmd_usage_error("diff", "--base needs a revision");
	if (head.rev && !*head.rev)
		return cmd_usage_error("diff", "--head needs a revision");
	if (optind >= argc)
		return cmd_usage_error("diff", "no intent file given");

	if (tmpl_set_load(&t, templates, &err) < 0 ||
	    (repo_dir ? repo_open(&r, repo_dir, &err)
		      : repo_discover(&r, ".", &err)) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (repo_resolve(r, base.rev, base.oid, &err) < 0) {
		err_wrap(&err, "--base");
		code = report_err(&err);
		goto out;
	}
	if (head.rev && repo_resolve(r, head.rev, head.oid, &err) < 0) {
		err_wrap(&err, "--head");
		code = report_err(&err);
		goto out;
	}
	if (!head.rev && !repo_workdir(r)) {
		code = cmd_usage_error("diff", "'%s' is a bare repository: "
					       "give --head REV",
				       repo_dir ? repo_dir : ".");
		goto out;
	}
	n = (size_t)(argc - optind);
	paths = xcalloc(n, sizeof(*paths));
	for (size_t i = 0; i < n; i++) {
		struct buf why = BUF_INIT;

		paths[i] = git_path(argv[optind + i], repo_workdir(r),
				    repo_dir != NULL, &why);
		if (!paths[i]) {
			code = cmd_usage_error("diff", "%s",
					       why.len ? buf_cstr(&why)
						       : "not a file in the "
							 "repository");
			buf_release(&why);
			goto out;
		}
		buf_release(&why);
	}

	if (side_render(&base, r, paths, argv + optind, n, repo_dir, t,
			&err) < 0 ||
	    side_render(&head, r, paths, argv + optind, n, repo_dir, t,
			&err) < 0) {
		code = report_err(&err);
		goto out;
	}
	if (base.failed || head.failed) {
		diags_sort(&base.d);
		diags_sort(&head.d);
		report_diags(&base.d);
		report_diags(&head.d);
		invalid_error(&base, &head, &err);
		code = report_err(&err);
		goto out;
	}
	diags_sort(&head.d);
	report_diags(&head.d); /* warnings of the new version only */
	for (size_t i = 0; i < n; i++)
		if (!base.r[i].docs && !head.r[i].docs) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "'%s' exists neither ", paths[i]);
			side_name(&m, &base);
			buf_adds(&m, " nor ");
			side_name(&m, &head);
			err_set(&err, ERR_NOTFOUND, "%s", buf_cstr(&m));
			buf_release(&m);
			code = report_err(&err);
			goto out;
		}
	if (side_check_clusters(&base, paths, n, &err) < 0 ||
	    side_check_clusters(&head, paths, n, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (base.r[i].docs)
			objset_add(&sa, base.r[i].cluster, base.r[i].docs);
		if (head.r[i].docs)
			objset_add(&sb, head.r[i].cluster, head.r[i].docs);
	}
	if (objdiff_compute(&d, &sa, &sb, &err) < 0) {
		code = report_err(&err);
		goto out;
	}
	{
		struct objdiff_rev rb = { base.rev, base.oid };
		struct objdiff_rev rh = { head.rev, head.rev ? head.oid : NULL };

		if (fmt == DIFF_MARKDOWN)
			objdiff_format_markdown(&out, &d, &rb, &rh);
		else if (fmt == DIFF_JSON)
			objdiff_format_json(&out, &d, &rb, &rh);
		else
			objdiff_format_text(&out, &d);
	}
	fwrite(buf_cstr(&out), 1, out.len, stdout);
	code = d.nr ? EXIT_DIFF : EXIT_OK;
out:
	buf_release(&out);
	objdiff_release(&d);
	objset_release(&sa);
	objset_release(&sb);
	side_release(&base, n);
	side_release(&head, n);
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	repo_free(r);
	tmpl_set_free(t);
	err_release(&err);
	return code;
}

/* which mode: --base (Git) or --live (cluster); they take different options */
static int diff_mode_of(int argc, char **argv, int *base, int *live)
{
	*base = *live = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--base") || !strncmp(argv[i], "--base=", 7))
			*base = 1;
		else if (!strcmp(argv[i], "--live"))
			*live = 1;
	}
	return *base && *live ? -1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	int base, live;

	if (diff_mode_of(argc, argv, &base, &live) < 0)
		return cmd_usage_error("diff", "--base (Git revisions) and "
					       "--live (the cluster) cannot be "
					       "combined");
	if (base)
		return diff_git(argc, argv);
	return run("diff", argc, argv, 1);
}
