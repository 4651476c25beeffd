/*
 * cmd/options.c: parsing, --help, man pages and completions, all made from
 * the option tables (see options.h).
 */
#include "cmd/options.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define MAX_OPTS 64
#define HELP_WIDTH 78
#define HELP_COL 26

int cmd_verbosity;

const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < cmd_table_nr; i++)
		if (!strcmp(cmd_table[i].name, name))
			return &cmd_table[i];
	return NULL;
}

/* ---- suggestions --------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row, ret;

	if (la > 64 || lb > 64)
		return 99;
	row = xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

const char *cmd_suggest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL, *prefix = NULL;
	size_t bestd = 3, nprefix = 0, wl = strlen(word);

	if (!wl)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, names[i]);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
		if (!strncmp(names[i], word, wl)) {
			prefix = names[i];
			nprefix++;
		}
	}
	/* a short word is close to everything: demand a real likeness */
	if (best && bestd >= wl)
		best = NULL;
	return best ? best : nprefix == 1 ? prefix : NULL;
}

/* ---- parsing ------------------------------------------------------------- */

static const struct cmd_opt *opt_by_val(const struct cmd *c, int val)
{
	for (const struct cmd_opt *o = c->opts; o && o->name; o++)
		if (o->val == val)
			return o;
	return NULL;
}

const char *cmd_opt_name(const char *cmd, int val)
{
	const struct cmd *c = cmd_find(cmd);
	const struct cmd_opt *o = c ? opt_by_val(c, val) : NULL;

	return o ? o->name : "?";
}

int cmd_getopt(const char *cmd, int argc, char **argv)
{
	static const struct cmd *built;
	static struct option longs[MAX_OPTS + 1];
	static char shorts[2 * MAX_OPTS + 4];
	const struct cmd *c = cmd_find(cmd);
	const struct cmd_opt *o;
	int r;

	if (!c || !c->opts)
		return -1;
	if (built != c) {
		size_t n = 0, s = 0;

		shorts[s++] = ':'; /* report a missing argument as ':' */
		for (o = c->opts; o->name && n < MAX_OPTS; o++, n++) {
			longs[n].name = o->name;
			longs[n].has_arg = o->arg == CMD_ARG_NONE ? no_argument
					   : o->arg == CMD_ARG_REQUIRED
						   ? required_argument
						   : optional_argument;
			longs[n].flag = NULL;
			longs[n].val = o->val;
			if (o->sh) {
				shorts[s++] = (char)o->sh;
				if (o->arg == CMD_ARG_REQUIRED)
					shorts[s++] = ':';
			}
		}
		memset(&longs[n], 0, sizeof(longs[n]));
		shorts[s] = '\0';
		built = c;
	}
	opterr = 0;
	r = getopt_long(argc, argv, shorts, longs, NULL);
	if (r == '?' || r == ':') {
		const char *arg = optind > 0 && optind <= argc ? argv[optind - 1]
							       : "";
		if (r == ':') {
			o = opt_by_val(c, optopt);
			if (o)
				fprintf(stderr,
					"gpuform %s: option '--%s' needs a "
					"value (%s); see 'gpuform %s --help'\n",
					cmd, o->name, o->meta ? o->meta : "",
					cmd);
			else
				fprintf(stderr,
					"gpuform %s: option '%s' needs a value; "
					"see 'gpuform %s --help'\n",
					cmd, arg, cmd);
		} else if (optopt && optopt != '-' && !(arg[0] == '-' && arg[1] == '-')) {
			fprintf(stderr,
				"gpuform %s: unknown option '-%c'%s; see "
				"'gpuform %s --help'\n",
				cmd, optopt,
				optopt == 'f'
					? " (files are operands: 'gpuform "
					  "COMMAND FILE...', not kubectl's -f "
					  "FILE; -o is the output format)"
					: "",
				cmd);
		} else {
			const char *names[MAX_OPTS];
			const char *sug;
			char word[128];
			size_t n = 0, l;

			if (arg[0] == '-' && arg[1] == '-')
				arg += 2;
			l = strcspn(arg, "=");
			if (l >= sizeof(word))
				l = sizeof(word) - 1;
			memcpy(word, arg, l);
			word[l] = '\0';
			for (o = c->opts; o->name && n < MAX_OPTS; o++)
				names[n++] = o->name;
			sug = cmd_suggest(word, names, n);
			fprintf(stderr,
				"gpuform %s: unknown or ambiguous option "
				"'--%s'%s%s%s; see 'gpuform %s --help'\n",
				cmd, word, sug ? " (did you mean '--" : "",
				sug ? sug : "", sug ? "'?)" : "", cmd);
		}
		return '?';
	}
	/* getopt_long returns a short option's letter: map it to its val */
	for (o = c->opts; r > 0 && r < 256 && o->name; o++)
		if (o->sh == r)
			return o->val;
	return r;
}

/* ---- -o FORMAT ----------------------------------------------------------- */

/* the option's completion words equal `names` (as sets) */
static int same_words(const char *complete, const char *const *names)
{
	size_t n = 0, words = 0;

	for (; names[n]; n++) {
		const char *p = complete;
		size_t l = strlen(names[n]), found = 0;
		while (p && *p) {
			size_t w = strcspn(p, " ");
			found |= w == l && !strncmp(p, names[n], l);
			p += w + (p[w] == ' ');
		}
		if (!found)
			return 0;
	}
	for (const char *p = complete; p && *p; words++)
		p += strcspn(p, " ") + (p[strcspn(p, " ")] == ' ');
	return words == n;
}

int cmd_format(const char *cmd, const char *arg, const char *const *names,
	       int quiet, const char **suggestion)
{
	const struct cmd *c = cmd_find(cmd);
	const struct cmd_opt *o = c ? opt_by_val(c, 'o') : NULL;
	struct buf list = BUF_INIT;
	const char *sug;
	size_t n = 0;

	if (!o || !same_words(o->complete, names))
		BUG("gpuform %s: -o formats differ from the option table", cmd);
	for (; names[n]; n++)
		if (!strcmp(arg, names[n]))
			return (int)n;
	sug = cmd_suggest(arg, names, n);
	if (suggestion)
		*suggestion = sug;
	if (quiet)
		return -1;
	for (size_t i = 0; i < n; i++)
		buf_addf(&list, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
			 names[i]);
	cmd_usage_error(cmd, "unknown output format '%s' (%s%s%s%s)", arg,
			buf_cstr(&list), sug ? "; did you mean '" : "",
			sug ? sug : "", sug ? "'?" : "");
	buf_release(&list);
	return -1;
}

/* ---- help ---------------------------------------------------------------- */

/* wrap: text from column `col` to HELP_WIDTH, later lines indented to col;
 * `at` is the column the cursor is at */
static void wrap(struct buf *out, const char *text, size_t at, size_t col)
{
	const char *p = text;

	while (*p) {
		size_t wl = strcspn(p, " \n");

		if (at > col && at + 1 + wl > HELP_WIDTH) {
			buf_addf(out, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			buf_adds(out, " ");
			at++;
		}
		while (at < col) {
			buf_adds(out, " ");
			at++;
		}
		buf_add(out, p, wl);
		at += wl;
		p += wl;
		while (*p == ' ' || *p == '\n')
			p++;
	}
	buf_adds(out, "\n");
}

static void opt_label(struct buf *out, const struct cmd_opt *o)
{
	if (o->sh)
		buf_addf(out, "-%c, ", o->sh);
	else
		buf_adds(out, "    ");
	buf_addf(out, "--%s", o->name);
	if (o->arg == CMD_ARG_REQUIRED)
		buf_addf(out, " %s", o->meta ? o->meta : "VALUE");
	else if (o->arg == CMD_ARG_OPTIONAL)
		buf_addf(out, "[=%s]", o->meta ? o->meta : "VALUE");
}

static void synopsis_lines(struct buf *out, const struct cmd *c,
			   const char *first, const char *rest)
{
	const char *p = c->synopsis;
	int i = 0;

	while (*p) {
		size_t l = strcspn(p, "\n");
		buf_addf(out, "%s gpuform %s %.*s\n", i++ ? rest : first,
			 c->name, (int)l, p);
		p += l;
		if (*p)
			p++;
	}
}

void cmd_format_help(struct buf *out, const struct cmd *c)
{
	synopsis_lines(out, c, "usage:", "   or:");
	buf_addf(out, "\n%s\n", c->summary);
	if (c->description)
		buf_addf(out, "\n%s", c->description);
	if (c->opts && c->opts->name) {
		buf_adds(out, "\noptions:\n");
		for (const struct cmd_opt *o = c->opts; o->name; o++) {
			struct buf l = BUF_INIT;

			if (o->flags & CMD_OPT_HIDDEN)
				continue;
			buf_adds(&l, "  ");
			opt_label(&l, o);
			buf_add(out, l.ptr, l.len);
			if (l.len + 2 > HELP_COL) {
				buf_adds(out, "\n");
				wrap(out, o->help, 0, HELP_COL);
			} else {
				wrap(out, o->help, l.len, HELP_COL);
			}
			buf_release(&l);
		}
	}
	if (c->notes)
		buf_addf(out, "\n%s", c->notes);
	if (c->exit) {
		buf_adds(out, "\n");
		wrap(out, c->exit, 0, 0);
	}
}

void cmd_format_overview(struct buf *out)
{
	buf_adds(out, "usage: gpuform [--version] [--help] [-q|-v] COMMAND "
		      "[ARGS]\n\n"
		      "GitOps for GPU capacity on Amazon EKS.\n\n"
		      "Options may come before or after the command and its "
		      "operands.\n"
		      "-q, --quiet: only results and errors; -v, --verbose: "
		      "every detail\n(e.g. the node impact of every object "
		      "reconcile writes).\n\ncommands:\n");
	for (size_t i = 0; i < cmd_table_nr; i++)
		if (!(cmd_table[i].flags & CMD_OPT_HIDDEN))
			buf_addf(out, "  %-10s %s\n", cmd_table[i].name,
				 cmd_table[i].summary);
	buf_adds(out, "\nexit codes: 0 ok, 1 differences found, 2 usage, "
		      "3 invalid input, 4 runtime error, 5 held back, 6 wrong "
		      "cluster\n"
		      "'gpuform help COMMAND' or 'gpuform COMMAND --help' for "
		      "details; 'man gpuform-COMMAND' once installed.\n");
}

/* ---- man pages ----------------------------------------------------------- */

/* roff: escape backslashes and hyphens, protect a leading '.' or '\'' */
static void roff(struct buf *out, const char *s, size_t n, int line_start)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (line_start && (ch == '.' || ch == '\''))
			buf_adds(out, "\\&");
		line_start = ch == '\n';
		if (ch == '\\')
			buf_adds(out, "\\e");
		else if (ch == '-')
			buf_adds(out, "\\-");
		else
			buf_add(out, &ch, 1);
	}
}

/* man_paragraphs: blank-line separated paragraphs; one with indented lines
 * stays as it is (.nf), the others are filled */
static void man_paragraphs(struct buf *out, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		int pre = 0;

		for (size_t i = 0; i < n; i++)
			if ((i == 0 || p[i - 1] == '\n') && p[i] == ' ' &&
			    i + 1 < n && p[i + 1] == ' ')
				pre = 1;
		while (n && p[n - 1] == '\n')
			n--;
		if (n) {
			buf_adds(out, pre ? ".PP\n.nf\n" : ".PP\n");
			roff(out, p, n, 1);
			buf_adds(out, pre ? "\n.fi\n" : "\n");
		}
		p += end ? (size_t)(end - p) + 2 : strlen(p);
	}
}

/*
 * The EXAMPLES, ENVIRONMENT and FILES sections, as data next to the option
 * tables. tests/docs.sh runs every example that needs nothing but the
 * repository's specs/ (in a scratch Git work tree with them committed) and
 * checks its exit status; the others (a cluster, an AWS account,
 * Prometheus) must use only options the command's --help lists. It also
 * checks that every variable below is a string the production code reads
 * (grep), so the list cannot go stale.
 */
struct man_example {
	const char *cmd;  /* the page: a command, or "" for gpuform(1) */
	const char *line; /* the command line, run with sh -c */
	const char *what;
	int exit;          /* the exit status it ends with */
	const char *needs; /* NULL: runs offline; else what it needs */
};

static const struct man_example man_examples[] = {
	{ "", "gpuform validate specs/*.yaml",
	  "Check every intent; warnings are allowed.", 0, NULL },
	{ "", "gpuform plan specs/ml-prod.yaml",
	  "What the intent buys: instance types, GPUs, nodes, $/hour.", 0,
	  NULL },
	{ "", "gpuform render --output-dir clusters --per-cluster "
	      "specs/ml-prod.yaml",
	  "Write clusters/ml-prod/ for Flux or Argo CD.", 0, NULL },
	{ "", "gpuform reconcile --dry-run clusters/ml-prod",
	  "Show what applying it would change in the current kubeconfig "
	  "context (1: there are changes).", 1, "a cluster" },
	{ "render", "gpuform render specs/minimal.yaml",
	  "The objects as multi-document YAML on standard output.", 0, NULL },
	{ "render", "gpuform render -o json specs/minimal.yaml",
	  "The same as one JSON v1 List.", 0, NULL },
	{ "render", "gpuform render --output-dir clusters specs/ml-prod.yaml "
		    "specs/minimal.yaml",
	  "One directory per cluster under clusters/, and a "
	  "kustomization.yaml that lists them.", 0, NULL },
	{ "validate", "gpuform validate specs/*.yaml",
	  "Every problem of every intent, as file:line:column.", 0, NULL },
	{ "validate", "gpuform validate - < specs/minimal.yaml",
	  "An intent on standard input.", 0, NULL },
	{ "validate", "gpuform validate --strict specs/bottlerocket-sharing.yaml",
	  "Fail on its warning, which spec.acknowledge does not accept.", 3,
	  NULL },
	{ "plan", "gpuform plan specs/ml-prod.yaml",
	  "Instance types, GPUs, nodes, gangs and $/hour per workload.", 0,
	  NULL },
	{ "plan", "gpuform plan -o markdown specs/ml-prod.yaml",
	  "The same as a Markdown table, e.g. for a pull request.", 0, NULL },
	{ "advise", "gpuform advise --prometheus "
		    "http://prometheus.monitoring:9090 specs/ml-prod.yaml",
	  "Recommend maxGpus and sharing changes from 14 days of GPU usage.",
	  0, "Prometheus" },
	{ "reconcile", "gpuform reconcile --dry-run specs/ml-prod.yaml",
	  "What would change, with its node impact (1: there are changes).",
	  1, "a cluster" },
	{ "reconcile", "gpuform reconcile specs/ml-prod.yaml",
	  "Apply it (server-side apply); a node-replacing change is held "
	  "back (exit 5) unless allowed.",
	  0, "a cluster" },
	{ "diff", "gpuform diff --base HEAD specs/ml-prod.yaml",
	  "What the working tree's intent changes against HEAD (0: "
	  "nothing).", 0, NULL },
	{ "diff", "gpuform diff --live specs/ml-prod.yaml",
	  "What reconcile would change in the cluster (1: there are "
	  "changes).", 1, "a cluster" },
	{ "doctor", "gpuform doctor specs/ml-prod.yaml",
	  "Check the running Karpenter and Kueue against the intent.", 0,
	  "a cluster" },
	{ "commit", "gpuform commit --repo . -m 'render ml-prod' "
		    "specs/ml-prod.yaml",
	  "Render into clusters/ml-prod/ of the Git work tree here and "
	  "commit it to main.", 0, NULL },
	{ "lint", "gpuform lint specs/ml-prod.yaml",
	  "GPU pitfalls of an intent.", 0, NULL },
	{ "lint", "gpuform lint -o sarif specs/ml-prod.yaml",
	  "The same findings as SARIF, for code scanning.", 0, NULL },
	{ "explain", "gpuform explain GPU025",
	  "What a rule checks, why, and the fix.", 0, NULL },
	{ "explain", "gpuform explain classes",
	  "The GPU classes and the instance families each selects.", 0,
	  NULL },
	{ "preflight", "gpuform preflight --region us-east-1 "
		       "--kubernetes-version 1.33 specs/ml-prod.yaml",
	  "Check subnets, security groups, quotas and AMIs in the account.",
	  0, "an AWS account" },
	{ "install", "gpuform install --git "
		     "https://github.com/example/gitops.git --cluster ml-prod",
	  "The CronJob and RBAC that reconcile clusters/ml-prod from Git.", 0,
	  NULL },
	{ "version", "gpuform version -o json",
	  "The version, commit and controller targets as JSON.", 0, NULL },
	{ "init", "gpuform init -n ml-dev -g l4 -w train:training "
		  "ml-dev.yaml",
	  "A commented starter intent with one training workload on L4.", 0,
	  NULL },
	{ "schema", "gpuform schema > intent.schema.json",
	  "The JSON Schema, for yaml-language-server or CI.", 0, NULL },
	{ "help", "gpuform help render", "The help of one command.", 0,
	  NULL },
	{ "completion", "gpuform completion zsh > _gpuform",
	  "The zsh completion; put it in a directory of $fpath.", 0, NULL },
};

/* the environment gpuform reads itself ("*": every command) */
struct man_env {
	const char *name; /* "<SERVICE>" stands for a part of the name */
	const char *cmds; /* the commands that read it, space-separated */
	const char *what;
};

#define K8S_CMDS "reconcile diff doctor preflight install"
#define GIT_CMDS "commit reconcile diff install"
#define AWS_CMDS "preflight reconcile"

static const struct man_env man_envs[] = {
	{ "KUBECONFIG", K8S_CMDS,
	  "the kubeconfig files, ':'-separated (default ~/.kube/config); "
	  "--kubeconfig wins" },
	{ "KUBERNETES_SERVICE_HOST", K8S_CMDS,
	  "with KUBERNETES_SERVICE_PORT: in a pod without a kubeconfig, the "
	  "in-cluster API server and the ServiceAccount token" },
	{ "KUBERNETES_SERVICE_PORT", K8S_CMDS, "see KUBERNETES_SERVICE_HOST" },
	{ "HOME", "*",
	  "~/.kube/config, ~/.ssh/known_hosts, ~/.aws/ and the Git cache "
	  "are found under it" },
	{ "XDG_CACHE_HOME", GIT_CMDS,
	  "the Git cache of --git is $XDG_CACHE_HOME/gpuform/git/ (default "
	  "~/.cache/gpuform/git/)" },
	{ "GPUFORM_GIT_USERNAME", GIT_CMDS, "the HTTPS user name for Git" },
	{ "GPUFORM_GIT_PASSWORD", GIT_CMDS, "the HTTPS password for Git" },
	{ "GPUFORM_GIT_TOKEN", GIT_CMDS,
	  "an HTTPS token for Git, when GPUFORM_GIT_PASSWORD is unset" },
	{ "GPUFORM_GIT_CREDENTIALS", GIT_CMDS,
	  "a git-credential-store file to look the password up in" },
	{ "GPUFORM_GIT_SSH_KEY", GIT_CMDS,
	  "the private key for Git over SSH" },
	{ "GPUFORM_GIT_SSH_PUBKEY", GIT_CMDS,
	  "the public key file of that key" },
	{ "GPUFORM_GIT_SSH_PASSPHRASE", GIT_CMDS, "the key's passphrase" },
	{ "GPUFORM_GIT_SSH_KNOWN_HOSTS", GIT_CMDS,
	  "the known_hosts file (default ~/.ssh/known_hosts)" },
	{ "GIT_AUTHOR_NAME", "commit",
	  "with GIT_AUTHOR_EMAIL: the author when --author and git config "
	  "do not name one" },
	{ "GIT_AUTHOR_EMAIL", "commit", "see GIT_AUTHOR_NAME" },
	{ "GIT_COMMITTER_NAME", "commit",
	  "with GIT_COMMITTER_EMAIL: the committer when git config does not "
	  "name one (else the author)" },
	{ "GIT_COMMITTER_EMAIL", "commit", "see GIT_COMMITTER_NAME" },
	{ "AWS_ACCESS_KEY_ID", AWS_CMDS,
	  "with AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN: static "
	  "credentials, first in the credential chain" },
	{ "AWS_SECRET_ACCESS_KEY", AWS_CMDS, "see AWS_ACCESS_KEY_ID" },
	{ "AWS_SESSION_TOKEN", AWS_CMDS, "see AWS_ACCESS_KEY_ID" },
	{ "AWS_PROFILE", AWS_CMDS, "the profile of ~/.aws/config" },
	{ "AWS_CONFIG_FILE", AWS_CMDS, "instead of ~/.aws/config" },
	{ "AWS_SHARED_CREDENTIALS_FILE", AWS_CMDS,
	  "instead of ~/.aws/credentials" },
	{ "AWS_REGION", AWS_CMDS,
	  "the region when --region is not given (then AWS_DEFAULT_REGION)" },
	{ "AWS_DEFAULT_REGION", AWS_CMDS, "see AWS_REGION" },
	{ "AWS_ROLE_ARN", AWS_CMDS,
	  "with AWS_WEB_IDENTITY_TOKEN_FILE: web identity (IRSA)" },
	{ "AWS_WEB_IDENTITY_TOKEN_FILE", AWS_CMDS, "see AWS_ROLE_ARN" },
	{ "AWS_ROLE_SESSION_NAME", AWS_CMDS, "the web identity session name" },
	{ "AWS_CONTAINER_CREDENTIALS_FULL_URI", AWS_CMDS,
	  "container credentials (EKS Pod Identity, ECS)" },
	{ "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", AWS_CMDS,
	  "container credentials under 169.254.170.2" },
	{ "AWS_CONTAINER_AUTHORIZATION_TOKEN", AWS_CMDS,
	  "the container credentials' authorization token" },
	{ "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", AWS_CMDS,
	  "a file holding that token (EKS Pod Identity)" },
	{ "AWS_ENDPOINT_URL", AWS_CMDS, "another endpoint for every service" },
	{ "AWS_ENDPOINT_URL_<SERVICE>", AWS_CMDS,
	  "another endpoint for one service (EC2, STS, ...)" },
	{ "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", AWS_CMDS,
	  "true: ignore the two above" },
	{ "COLUMNS", "lint", "the width of the text report" },
};

/* the files gpuform reads or writes */
struct man_file {
	const char *path;
	const char *cmds;
	const char *what;
};

static const struct man_file man_files[] = {
	{ "INTENT.yaml", "render validate plan advise reconcile diff doctor "
			 "commit lint preflight",
	  "an intent file (kind ClusterIntent); '-' is standard input" },
	{ "DIR/", "render reconcile lint",
	  "a rendered directory: <kind>-<name>.yaml per object, "
	  "kustomization.yaml, addons/; render --output-dir replaces it "
	  "atomically, and never a directory it did not write" },
	{ "DIR/<cluster>/", "render commit",
	  "one cluster's directory when there are several intents "
	  "(commit: --path, default clusters)" },
	{ "~/.kube/config", K8S_CMDS, "the kubeconfig (see KUBECONFIG)" },
	{ "/var/run/secrets/kubernetes.io/serviceaccount/", K8S_CMDS,
	  "token, ca.crt and namespace of the in-cluster ServiceAccount" },
	{ "~/.cache/gpuform/git/", GIT_CMDS,
	  "the clones of --git repositories, one per URL (--git-cache "
	  "elsewhere)" },
	{ "~/.ssh/known_hosts", GIT_CMDS,
	  "the SSH host keys Git over SSH is checked against" },
	{ "~/.aws/config", AWS_CMDS, "AWS profiles and regions" },
	{ "~/.aws/credentials", AWS_CMDS, "AWS credentials" },
};

/* does the space-separated list name the command ("*": every one) */
static int man_for(const char *cmds, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(cmds, "*"))
		return 1;
	for (const char *p = cmds; (p = strstr(p, name)); p += n)
		if ((p == cmds || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

static void man_text_line(struct buf *out, const char *s)
{
	roff(out, s, strlen(s), 1);
	buf_adds(out, "\n");
}

/* ENVIRONMENT, FILES and EXAMPLES of a page (name "" is gpuform(1)) */
static void man_tables(struct buf *out, const char *name, int examples)
{
	int any = 0;

	if (examples) {
		for (size_t i = 0; i < (sizeof(man_examples) / sizeof(man_examples[0])); i++) {
			const struct man_example *e = &man_examples[i];
			if (strcmp(e->cmd, name))
				continue;
			if (!any++)
				buf_adds(out, ".SH EXAMPLES\n");
			buf_adds(out, ".TP\n\\fB");
			roff(out, e->line, strlen(e->line), 0);
			buf_adds(out, "\\fR\n");
			roff(out, e->what, strlen(e->what), 1);
			buf_addf(out, " Exit status: %d.", e->exit);
			if (e->needs)
				buf_addf(out, " Needs %s.", e->needs);
			buf_adds(out, "\n");
		}
		return;
	}
	for (size_t i = 0; i < (sizeof(man_envs) / sizeof(man_envs[0])); i++) {
		const struct man_env *v = &man_envs[i];
		if (*name && !man_for(v->cmds, name))
			continue;
		if (!any++)
			buf_adds(out, ".SH ENVIRONMENT\n");
		buf_adds(out, ".TP\n.B ");
		man_text_line(out, v->name);
		man_text_line(out, v->what);
	}
	any = 0;
	for (size_t i = 0; i < (sizeof(man_files) / sizeof(man_files[0])); i++) {
		const struct man_file *f = &man_files[i];
		if (*name && !man_for(f->cmds, name))
			continue;
		if (!any++)
			buf_adds(out, ".SH FILES\n");
		buf_adds(out, ".TP\n.I ");
		man_text_line(out, f->path);
		man_text_line(out, f->what);
	}
}

static void man_head(struct buf *out, const char *title, const char *name,
		     const char *summary)
{
	buf_addf(out,
		 ".\\\" generated by 'gpuform help-man'; do not edit\n"
		 ".TH \"%s\" \"1\" \"\" \"gpuform %s\" \"gpuform manual\"\n"
		 ".SH NAME\n",
		 title, GPUFORM_VERSION);
	roff(out, name, strlen(name), 1);
	buf_adds(out, " \\- ");
	roff(out, summary, strlen(summary), 0);
	buf_adds(out, "\n");
}

void cmd_format_man(struct buf *out, const struct cmd *c)
{
	if (!c) {
		man_head(out, "GPUFORM", "gpuform",
			 "GitOps for GPU capacity on Amazon EKS");
		buf_adds(out, ".SH SYNOPSIS\n.B gpuform\n[\\fB\\-\\-version\\fR] "
			      "[\\fB\\-\\-help\\fR] \\fICOMMAND\\fR "
			      "[\\fIARGS\\fR]\n.SH DESCRIPTION\n");
		man_paragraphs(out,
			       "gpuform renders Karpenter NodePools and "
			       "EC2NodeClasses, the NVIDIA device plugin's "
			       "configuration and Kueue queues from one intent "
			       "file per cluster; shows what a change would do "
			       "to the nodes (diff); commits the rendered files "
			       "to Git (commit); and makes a cluster match them "
			       "(reconcile).\n\n"
			       "Options may be given before or after the "
			       "operands; '--' ends the options. '-o' (or "
			       "'--output') is always the output format, as in "
			       "kubectl.");
		buf_adds(out, ".SH COMMANDS\n");
		for (size_t i = 0; i < cmd_table_nr; i++) {
			const struct cmd *k = &cmd_table[i];
			if (k->flags & CMD_OPT_HIDDEN)
				continue;
			buf_addf(out, ".TP\n.BR gpuform\\-%s (1)\n", k->name);
			roff(out, k->summary, strlen(k->summary), 1);
			buf_adds(out, "\n");
		}
		buf_adds(out, ".SH \"EXIT STATUS\"\n");
		man_paragraphs(out, "0 ok, 1 differences found (diff, "
				    "reconcile --dry-run), 2 usage, 3 invalid "
				    "input, 4 runtime error (I/O, Git, cluster), "
				    "5 a node-replacing change held back "
				    "(reconcile).");
		man_tables(out, "", 0);
		man_tables(out, "", 1);
		buf_adds(out, ".SH \"SEE ALSO\"\n");
		for (size_t i = 0, first = 1; i < cmd_table_nr; i++) {
			if (cmd_table[i].flags & CMD_OPT_HIDDEN)
				continue;
			buf_addf(out, "%s.BR gpuform\\-%s (1)", first ? "" : ",\n",
				 cmd_table[i].name);
			first = 0;
		}
		buf_adds(out, "\n");
		return;
	}
	{
		char *title = xasprintf("GPUFORM-%s", c->name), *name;
		for (char *q = title; *q; q++)
			*q = (char)toupper((unsigned char)*q);
		name = xasprintf("gpuform-%s", c->name);
		man_head(out, title, name, c->summary);
		free(title);
		free(name);
	}
	buf_adds(out, ".SH SYNOPSIS\n.nf\n");
	for (const char *p = c->synopsis; *p;) {
		size_t l = strcspn(p, "\n");
		buf_addf(out, "\\fBgpuform %s\\fR ", c->name);
		roff(out, p, l, 0);
		buf_adds(out, "\n");
		p += l;
		if (*p)
			p++;
	}
	buf_adds(out, ".fi\n.SH DESCRIPTION\n");
	if (c->description)
		man_paragraphs(out, c->description);
	else
		man_paragraphs(out, c->summary);
	if (c->opts && c->opts->name) {
		buf_adds(out, ".SH OPTIONS\n");
		for (const struct cmd_opt *o = c->opts; o->name; o++) {
			if (o->flags & CMD_OPT_HIDDEN)
				continue;
			buf_adds(out, ".TP\n");
			if (o->sh)
				buf_addf(out, "\\fB\\-%c\\fR, ", o->sh);
			buf_adds(out, "\\fB\\-\\-");
			roff(out, o->name, strlen(o->name), 0);
			buf_adds(out, "\\fR");
			if (o->arg != CMD_ARG_NONE) {
				buf_adds(out, o->arg == CMD_ARG_REQUIRED ? " \\fI"
									 : "[=\\fI");
				roff(out, o->meta ? o->meta : "VALUE",
				     strlen(o->meta ? o->meta : "VALUE"), 0);
				buf_adds(out, o->arg == CMD_ARG_REQUIRED ? "\\fR"
									 : "\\fR]");
			}
			buf_adds(out, "\n");
			roff(out, o->help, strlen(o->help), 1);
			buf_adds(out, "\n");
		}
	}
	if (c->notes) {
		buf_adds(out, ".SH NOTES\n");
		man_paragraphs(out, c->notes);
	}
	if (c->exit) {
		buf_adds(out, ".SH \"EXIT STATUS\"\n");
		man_paragraphs(out, c->exit);
	}
	man_tables(out, c->name, 0);
	man_tables(out, c->name, 1);
	buf_adds(out, ".SH \"SEE ALSO\"\n.BR gpuform (1)\n");
}

/* ---- completion ---------------------------------------------------------- */

/* a word safe inside single quotes and zsh's [...] descriptions */
static void plain(struct buf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++, n++) {
		if (*s == '\'' || *s == '[' || *s == ']' || *s == ':' ||
		    *s == '\\' || *s == '"' || *s == '`' || *s == '$')
			continue;
		if (*s == '.' && (s[1] == ' ' || !s[1]))
			break;
		buf_add(out, s, 1);
	}
}

static void bash_value(struct buf *out, const char *complete)
{
	if (!strcmp(complete, "@dir"))
		buf_adds(out, "COMPREPLY=($(compgen -d -- \"$cur\"))");
	else if (!strcmp(complete, "@file"))
		buf_adds(out, "COMPREPLY=($(compgen -f -- \"$cur\"))");
	else
		buf_addf(out, "COMPREPLY=($(compgen -W '%s' -- \"$cur\"))",
			 complete);
}

static void bash_completion(struct buf *out)
{
	buf_adds(out, "# bash completion for gpuform; generated by "
		      "'gpuform completion bash' from its option tables\n"
		      "_gpuform() {\n"
		      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
		      "prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
		      "\tCOMPREPLY=()\n"
		      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		      "\t\tcase ${COMP_WORDS[i]} in -*) ;; *) "
		      "cmd=${COMP_WORDS[i]}; break ;; esac\n"
		      "\tdone\n"
		      "\tif [[ -z $cmd ]]; then\n"
		      "\t\tCOMPREPLY=($(compgen -W '");
	for (size_t i = 0; i < cmd_table_nr; i++)
		if (!(cmd_table[i].flags & CMD_OPT_HIDDEN))
			buf_addf(out, "%s ", cmd_table[i].name);
	buf_adds(out, "--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n"
		      "\tcase $cmd in\n");
	for (size_t i = 0; i < cmd_table_nr; i++) {
		const struct cmd *c = &cmd_table[i];
		const char *ops = c->operands;

		buf_addf(out, "\t%s)\n\t\tcase $prev in\n", c->name);
		for (const struct cmd_opt *o = c->opts; o && o->name; o++) {
			if (o->arg != CMD_ARG_REQUIRED)
				continue;
			buf_addf(out, "\t\t--%s", o->name);
			if (o->sh)
				buf_addf(out, " | -%c", o->sh);
			buf_adds(out, ") ");
			if (o->complete)
				bash_value(out, o->complete);
			else
				buf_adds(out, "COMPREPLY=()");
			buf_adds(out, "; return ;;\n");
		}
		buf_adds(out, "\t\tesac\n\t\tif [[ $cur == -* ]]; then\n"
			      "\t\t\tCOMPREPLY=($(compgen -W '");
		for (const struct cmd_opt *o = c->opts; o && o->name; o++)
			if (!(o->flags & CMD_OPT_HIDDEN))
				buf_addf(out, "--%s%s ", o->name,
					 o->arg == CMD_ARG_NONE ? "" : "");
		buf_adds(out, "' -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\t");
		if (!ops || !strcmp(ops, "@file"))
			buf_adds(out, ops ? "COMPREPLY=($(compgen -f -- \"$cur\"))"
					  : ":");
		else if (!strcmp(ops, "@dir"))
			buf_adds(out, "COMPREPLY=($(compgen -d -- \"$cur\"))");
		else if (!strcmp(ops, "@command")) {
			buf_adds(out, "COMPREPLY=($(compgen -W '");
			for (size_t j = 0; j < cmd_table_nr; j++)
				if (!(cmd_table[j].flags & CMD_OPT_HIDDEN))
					buf_addf(out, "%s ", cmd_table[j].name);
			buf_adds(out, "' -- \"$cur\"))");
		} else if (ops[0] != '@') {
			bash_value(out, ops);
		} else {
			buf_adds(out, ":");
		}
		buf_adds(out, "\n\t\t;;\n");
	}
	buf_adds(out, "\tesac\n}\ncomplete -o filenames -o bashdefault "
		      "-F _gpuform gpuform\n");
}

static void zsh_action(struct buf *out, const char *complete)
{
	if (!complete)
		buf_adds(out, " ");
	else if (!strcmp(complete, "@dir"))
		buf_adds(out, "_files -/");
	else if (!strcmp(complete, "@file"))
		buf_adds(out, "_files");
	else
		buf_addf(out, "(%s)", complete);
}

static void zsh_completion(struct buf *out)
{
	buf_adds(out, "#compdef gpuform\n"
		      "# zsh completion for gpuform; generated by "
		      "'gpuform completion zsh' from its option tables\n"
		      "_gpuform() {\n"
		      "\tlocal -a commands\n"
		      "\tcommands=(\n");
	for (size_t i = 0; i < cmd_table_nr; i++) {
		if (cmd_table[i].flags & CMD_OPT_HIDDEN)
			continue;
		buf_addf(out, "\t\t'%s:", cmd_table[i].name);
		plain(out, cmd_table[i].summary, 70);
		buf_adds(out, "'\n");
	}
	buf_adds(out, "\t)\n"
		      "\tif (( CURRENT == 2 )); then\n"
		      "\t\t_describe -t commands 'gpuform command' commands\n"
		      "\t\treturn\n\tfi\n"
		      "\tlocal cmd=$words[2]\n"
		      "\tshift words\n\t(( CURRENT-- ))\n"
		      "\tcase $cmd in\n");
	for (size_t i = 0; i < cmd_table_nr; i++) {
		const struct cmd *c = &cmd_table[i];
		const char *ops = c->operands;

		buf_addf(out, "\t%s)\n\t\t_arguments -S", c->name);
		for (const struct cmd_opt *o = c->opts; o && o->name; o++) {
			if (o->flags & CMD_OPT_HIDDEN)
				continue;
			for (int form = 0; form < 2; form++) {
				if (form == 1 && !o->sh)
					break;
				buf_adds(out, " \\\n\t\t\t'");
				if (form == 0)
					buf_addf(out, "--%s%s", o->name,
						 o->arg == CMD_ARG_NONE ? ""
						 : o->arg == CMD_ARG_REQUIRED
							 ? "="
							 : "=-");
				else
					buf_addf(out, "-%c%s", o->sh,
						 o->arg == CMD_ARG_REQUIRED ? "+"
									    : "");
				buf_adds(out, "[");
				plain(out, o->help, 60);
				buf_adds(out, "]");
				if (o->arg != CMD_ARG_NONE) {
					buf_adds(out, ":");
					plain(out, o->meta ? o->meta : "value",
					      30);
					buf_adds(out, ":");
					zsh_action(out, o->complete);
				}
				buf_adds(out, "'");
			}
		}
		if (ops) {
			buf_adds(out, " \\\n\t\t\t'*:operand:");
			if (!strcmp(ops, "@command")) {
				buf_adds(out, "(");
				for (size_t j = 0; j < cmd_table_nr; j++)
					if (!(cmd_table[j].flags & CMD_OPT_HIDDEN))
						buf_addf(out, "%s%s", j ? " " : "",
							 cmd_table[j].name);
				buf_adds(out, ")");
			} else {
				zsh_action(out, ops[0] == '@' &&
							 strcmp(ops, "@file") &&
							 strcmp(ops, "@dir")
						       ? NULL
						       : ops);
			}
			buf_adds(out, "'");
		}
		buf_adds(out, "\n\t\t;;\n");
	}
	buf_adds(out, "\tesac\n}\n_gpuform \"$@\"\n");
}

int cmd_format_completion(struct buf *out, const char *shell)
{
	if (!strcmp(shell, "bash"))
		bash_completion(out);
	else if (!strcmp(shell, "zsh"))
		zsh_completion(out);
	else
		return -1;
	return 0;
}
