/*
 * kube/kubeconfig.c: kubeconfig files (several, merged like kubectl),
 * the in-cluster service account, and exec credential plugins.
 *
 * YAML is read through util/yaml.h and kept as a ynode tree (not
 * cJSON) so that every complaint about a field can say file:line:col.
 * Secrets (tokens, keys) are copied only into struct kube_config, are never
 * put into messages and are wiped before they are freed. This file does not
 * talk to the network and does not configure TLS: kube.c does that.
 */
#include "kube/kubeconfig.h"

#include "util/digest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/yaml.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/time.h"
#include "util/xalloc.h"

extern char **environ;

/* caps: CA bundles, certificates and keys; token files; how much of an exec
 * plugin's stderr is kept (for the first line in messages) */
#define KC_MAX_PEM (8u << 20)
#define KC_MAX_TOKEN (256u << 10)
#define KC_MAX_STDERR 4096
#define KC_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define EXEC_GROUP "client.authentication.k8s.io/"

/* ---- small helpers ----------------------------------------------------- */


/*
 * b64_decode: standard or URL alphabet, padding optional, whitespace
 * ignored. Returns 0 and a NUL-terminated copy, or -1 for invalid input.
 */
static int b64_decode(const char *in, size_t len, char **out, size_t *out_len)
{
	struct buf b = BUF_INIT;

	if (base64_decode(&b, in, len, BASE64_URL | BASE64_SPACE) < 0)
		return -1;
	*out = buf_detach(&b, out_len);
	return 0;
}

/* has_ctl: s holds a control character or DEL (or, with space, a space):
 * what would split an HTTP header or a URL */
static int has_ctl(const char *s, int space)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ||
		    (space && *s == ' '))
			return 1;
	return 0;
}

/* trim_right: drop trailing whitespace (token files end with a newline) */
static void trim_right(struct buf *b)
{
	while (b->len && isspace((unsigned char)b->ptr[b->len - 1]))
		b->ptr[--b->len] = '\0';
}

static int looks_like_pem(const char *p, size_t len, const char *what)
{
	struct buf tag = BUF_INIT;
	int found = 0;

	buf_addf(&tag, "-----BEGIN %s", what);
	for (size_t i = 0; !found && i + tag.len <= len; i++)
		found = !memcmp(p + i, tag.ptr, tag.len);
	buf_release(&tag);
	return found;
}

/*
 * read_secret_file: a whole file (certificate, key, token) into *out;
 * the message names `what` and the file.
 */
static int read_secret_file(struct buf *out, const char *path, size_t max,
			    const char *what, struct err *err)
{
	if (fs_read_file(out, path, max, err) < 0) {
		digest_wipe_release(out);
		return err_wrap(err, "%s", what);
	}
	return 0;
}

/* ---- kubeconfig files -------------------------------------------------- */

struct kc_file {
	char *path; /* as named */
	char *dir;  /* its directory, for relative paths */
	struct ystream ys;
	const struct ynode *root; /* a map, or NULL for an empty file */
};

struct kc_set {
	struct kc_file *files;
	size_t nr, alloc;
};

static void kc_set_release(struct kc_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->files[i].path);
		free(s->files[i].dir);
		ystream_release(&s->files[i].ys);
	}
	free(s->files);
	s->files = NULL;
	s->nr = s->alloc = 0;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int kc_validate(const struct kc_file *f, struct err *err);

/*
 * kc_add_file: read and parse one kubeconfig. A file that does not exist is
 * skipped (return 0, nothing added) unless must_exist, as kubectl does for
 * KUBECONFIG lists.
 */
static int kc_add_file(struct kc_set *s, const char *path, int must_exist,
		       struct err *err)
{
	struct buf data = BUF_INIT;
	struct kc_file f = { NULL, NULL, YSTREAM_INIT, NULL };
	struct stat st;
	int ret = -1;

	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->files[i].path, path))
			return 0; /* named twice: the first one counts */
	if (stat(path, &st) < 0 && errno == ENOENT) {
		if (!must_exist)
			return 0;
		return err_set(err, ERR_NOTFOUND,
			       "kubeconfig '%s' does not exist", path);
	}
	if (fs_read_file(&data, path, YAML_MAX_INPUT, err) < 0)
		goto out;
	if (yaml_parse(&f.ys, buf_cstr(&data), data.len, path, err) < 0)
		goto out;
	if (f.ys.nr > 1) {
		err_set(err, ERR_INVALID,
			"%s:%d:%d: a kubeconfig holds one YAML document, not "
			"%zu",
			path, f.ys.docs[1].line, f.ys.docs[1].col, f.ys.nr);
		goto out;
	}
	if (f.ys.nr == 1 && f.ys.docs[0].root) {
		const struct ynode *r = f.ys.docs[0].root;
		if (r->type == YNODE_SCALAR && yaml_scalar_kind(r) == YS_NULL) {
			r = NULL;
		} else if (r->type != YNODE_MAP) {
			err_set(err, ERR_INVALID,
				"%s:%d:%d: a kubeconfig must be a mapping "
				"(apiVersion, clusters, users, contexts, ...)",
				path, r->line, r->col);
			goto out;
		}
		f.root = r;
	}
	f.path = xstrdup(path);
	f.dir = dir_of(path);
	if (kc_validate(&f, err) < 0)
		goto out;
	GROW(s->files, s->nr + 1, s->alloc);
	s->files[s->nr++] = f;
	f.ys = (struct ystream)YSTREAM_INIT;
	f.path = f.dir = NULL;
	ret = 0;
out:
	ystream_release(&f.ys);
	free(f.path);
	free(f.dir);
	buf_release(&data);
	return ret;
}

static int is_null(const struct ynode *n)
{
	return !n ||
	       (n->type == YNODE_SCALAR && yaml_scalar_kind(n) == YS_NULL);
}

/*
 * kc_str: the string value of map[key]; *out = NULL when absent, null or
 * empty. Maps and lists there are an error at their position.
 */
static int kc_str(const struct kc_file *f, const struct ynode *map,
		  const char *key, const char **out, struct err *err)
{
	const struct ynode *n = map ? ynode_get(map, key) : NULL;

	*out = NULL;
	if (is_null(n))
		return 0;
	if (n->type != YNODE_SCALAR)
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: '%s' must be a string", f->path,
			       n->line, n->col, key);
	if (strlen(n->value) != n->len)
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: '%s' contains a NUL character",
			       f->path, n->line, n->col, key);
	if (n->len)
		*out = n->value;
	return 0;
}

/* kc_bool: map[key] as a YAML boolean; absent = 0 */
static int kc_bool(const struct kc_file *f, const struct ynode *map,
		   const char *key, int *out, struct err *err)
{
	const struct ynode *n = map ? ynode_get(map, key) : NULL;

	*out = 0;
	if (is_null(n))
		return 0;
	if (n->type != YNODE_SCALAR || yaml_scalar_kind(n) != YS_BOOL)
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: '%s' must be true or false", f->path,
			       n->line, n->col, key);
	*out = yaml_scalar_bool(n);
	return 0;
}

static int kc_map(const struct kc_file *f, const struct ynode *n,
		  const char *what, struct err *err)
{
	if (n->type != YNODE_MAP)
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: %s must be a mapping", f->path,
			       n->line, n->col, what);
	return 0;
}

/*
 * kc_find: the first entry named `name` in the list `list` ("clusters") of
 * the first file that has one; *body_out = its `inner` ("cluster") map
 * (NULL when that is missing or empty), *file_out = the file, or NULL when
 * no file defines the name. Malformed lists on the way are errors.
 */
static int kc_find(const struct kc_set *s, const char *list, const char *inner,
		   const char *name, const struct ynode **body_out,
		   const struct kc_file **file_out, struct err *err)
{
	*body_out = NULL;
	*file_out = NULL;
	for (size_t i = 0; i < s->nr; i++) {
		const struct kc_file *f = &s->files[i];
		const struct ynode *l =
			f->root ? ynode_get(f->root, list) : NULL;

		if (is_null(l))
			continue;
		if (l->type != YNODE_SEQ)
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: '%s' must be a list", f->path,
				       l->line, l->col, list);
		for (size_t j = 0; j < l->nr; j++) {
			const struct ynode *e = l->kids[j], *body;
			const char *n;

			if (kc_map(f, e,
				   "an entry of 'clusters', 'users' or "
				   "'contexts'",
				   err) < 0 ||
			    kc_str(f, e, "name", &n, err) < 0)
				return -1;
			if (!n || strcmp(n, name))
				continue;
			body = ynode_get(e, inner);
			if (is_null(body))
				body = NULL;
			else if (kc_map(f, body, inner, err) < 0)
				return -1;
			*body_out = body;
			*file_out = f;
			return 0;
		}
	}
	return 0;
}

/*
 * kc_validate: the shape kubectl insists on -- clusters, users and
 * contexts are lists of {name, <inner map>} -- checked for the whole file,
 * not only for the entries the chosen context needs.
 */
static int kc_validate(const struct kc_file *f, struct err *err)
{
	static const char *const lists[][2] = {
		{ "clusters", "cluster" },
		{ "users", "user" },
		{ "contexts", "context" },
	};
	const char *cur;

	if (!f->root)
		return 0;
	if (kc_str(f, f->root, "current-context", &cur, err) < 0)
		return -1;
	if (cur && has_ctl(cur, 0)) {
		const struct ynode *c = ynode_get(f->root, "current-context");
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: current-context contains a control "
			       "character",
			       f->path, c->line, c->col);
	}
	for (size_t i = 0; i < 3; i++) {
		const struct ynode *l = ynode_get(f->root, lists[i][0]);

		if (is_null(l))
			continue;
		if (l->type != YNODE_SEQ)
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: '%s' must be a list", f->path,
				       l->line, l->col, lists[i][0]);
		for (size_t j = 0; j < l->nr; j++) {
			const struct ynode *e = l->kids[j], *body;
			const char *n;

			if (kc_map(f, e,
				   "an entry of 'clusters', 'users' or "
				   "'contexts'",
				   err) < 0 ||
			    kc_str(f, e, "name", &n, err) < 0)
				return -1;
			if (!n)
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: an entry of '%s' "
					       "has no name",
					       f->path, e->line, e->col,
					       lists[i][0]);
			if (has_ctl(n, 0)) {
				const struct ynode *nn = ynode_get(e, "name");
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: a name in '%s' "
					       "contains a control character",
					       f->path, nn->line, nn->col,
					       lists[i][0]);
			}
			body = ynode_get(e, lists[i][1]);
			if (!is_null(body) &&
			    kc_map(f, body, lists[i][1], err) < 0)
				return -1;
		}
	}
	return 0;
}

/* files_desc: "'a'" or "'a', 'b'" for messages */
static void files_desc(struct buf *out, const struct kc_set *s)
{
	for (size_t i = 0; i < s->nr; i++)
		buf_addf(out, "%s'%s'", i ? ", " : "", s->files[i].path);
}

/* kc_path: a path from file f, relative ones against f's directory */
static char *kc_path(const struct kc_file *f, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	return xasprintf("%s/%s", f->dir, p);
}

/*
 * kc_blob: `<key>-data` (base64) or `<key>` (a file) into *out; data wins
 * as in kubectl. pem_tag ("CERTIFICATE") is checked so that a wrong file
 * fails here and not as an obscure TLS error. Missing both: *out = NULL.
 */
static int kc_blob(const struct kc_file *f, const struct ynode *map,
		   const char *key, const char *pem_tag, const char *owner,
		   char **out, size_t *out_len, struct err *err)
{
	char *data_key = xasprintf("%s-data", key);
	const char *data = NULL, *file = NULL;
	char *res = NULL, *path = NULL;
	size_t len = 0;
	int ret = -1;

	*out = NULL;
	*out_len = 0;
	if (kc_str(f, map, data_key, &data, err) < 0 ||
	    kc_str(f, map, key, &file, err) < 0)
		goto out;
	if (data) {
		const struct ynode *n = ynode_get(map, data_key);
		if (b64_decode(data, strlen(data), &res, &len) < 0) {
			err_set(err, ERR_INVALID,
				"%s:%d:%d: %s of %s is not valid base64",
				f->path, n->line, n->col, data_key, owner);
			goto out;
		}
		if (!looks_like_pem(res, len, pem_tag)) {
			err_set(err, ERR_INVALID,
				"%s:%d:%d: %s of %s does not hold a PEM %s",
				f->path, n->line, n->col, data_key, owner,
				pem_tag);
			goto out;
		}
	} else if (file) {
		struct buf b = BUF_INIT;
		char *what;

		path = kc_path(f, file);
		what = xasprintf("%s of %s (%s)", key, owner, f->path);
		ret = read_secret_file(&b, path, KC_MAX_PEM, what, err);
		free(what);
		if (ret < 0)
			goto out;
		ret = -1;
		if (!looks_like_pem(buf_cstr(&b), b.len, pem_tag)) {
			err_set(err, ERR_INVALID,
				"%s of %s (%s): '%s' does not hold a PEM %s",
				key, owner, f->path, path, pem_tag);
			digest_wipe_release(&b);
			goto out;
		}
		len = b.len;
		res = buf_detach(&b, NULL);
	}
	*out = res;
	*out_len = len;
	res = NULL;
	ret = 0;
out:
	if (res)
		digest_wipe_free(res, len);
	free(path);
	free(data_key);
	return ret;
}

/*
 * kc_find_of_context: kc_find for the cluster or user (`inner`, listed
 * under "<inner>s") that the context names; no file defining it is an
 * error (ERR_NOTFOUND) that names the context and the files read.
 */
static int kc_find_of_context(const struct kc_set *s,
			      const struct kube_config *c, const char *inner,
			      const char *name, const struct ynode **body_out,
			      const struct kc_file **file_out, struct err *err)
{
	char list[16];
	struct buf files = BUF_INIT;

	snprintf(list, sizeof(list), "%ss", inner);
	if (kc_find(s, list, inner, name, body_out, file_out, err) < 0)
		return -1;
	if (*file_out)
		return 0;
	files_desc(&files, s);
	err_set(err, ERR_NOTFOUND,
		"%s '%s' of context '%s' is not defined in kubeconfig %s",
		inner, name, c->context, buf_cstr(&files));
	buf_release(&files);
	return -1;
}

static int kc_cluster(struct kube_config *c, const struct kc_set *s,
		      struct err *err)
{
	const struct ynode *body;
	const struct kc_file *f;
	const char *server;
	char *owner = NULL;
	int ret = -1;

	if (kc_find_of_context(s, c, "cluster", c->cluster, &body, &f, err) < 0)
		return -1;
	owner = xasprintf("cluster '%s'", c->cluster);
	if (kc_str(f, body, "server", &server, err) < 0)
		goto out;
	if (!server) {
		err_set(err, ERR_INVALID, "%s: cluster '%s' has no server",
			f->path, c->cluster);
		goto out;
	}
	if (strncmp(server, "https://", 8) && strncmp(server, "http://", 7)) {
		const struct ynode *n = ynode_get(body, "server");
		err_set(err, ERR_INVALID,
			"%s:%d:%d: server '%s' of cluster '%s' is not an "
			"https:// or http:// URL",
			f->path, n->line, n->col, server, c->cluster);
		goto out;
	}
	if (has_ctl(server, 1)) {
		const struct ynode *n = ynode_get(body, "server");
		err_set(err, ERR_INVALID,
			"%s:%d:%d: server of cluster '%s' contains a space or "
			"control character",
			f->path, n->line, n->col, c->cluster);
		goto out;
	}
	c->server = xstrdup(server);
	/* one trailing '/' would double up with every request path */
	while (strlen(c->server) > 8 && c->server[strlen(c->server) - 1] == '/')
		c->server[strlen(c->server) - 1] = '\0';
	if (kc_bool(f, body, "insecure-skip-tls-verify", &c->insecure, err) < 0)
		goto out;
	if (kc_blob(f, body, "certificate-authority", "CERTIFICATE", owner,
		    &c->ca_pem, &c->ca_len, err) < 0)
		goto out;
	ret = 0;
out:
	free(owner);
	return ret;
}

static int kc_exec(struct kube_config *c, const struct kc_file *f,
		   const struct ynode *ex, const char *owner, struct err *err)
{
	const char *api, *cmd, *mode;
	const struct ynode *args, *env;
	size_t nargs = 0, argc = 0, nenv = 0;

	if (kc_map(f, ex, "exec", err) < 0 ||
	    kc_str(f, ex, "apiVersion", &api, err) < 0 ||
	    kc_str(f, ex, "command", &cmd, err) < 0 ||
	    kc_str(f, ex, "interactiveMode", &mode, err) < 0 ||
	    kc_bool(f, ex, "provideClusterInfo", &c->exec_provide_cluster_info,
		    err) < 0)
		return -1;
	if (!cmd)
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: exec of %s has no command", f->path,
			       ex->line, ex->col, owner);
	if (!api ||
	    (strcmp(api, EXEC_GROUP "v1") && strcmp(api, EXEC_GROUP "v1beta1")))
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: exec apiVersion '%s' of %s is not "
			       "supported (use " EXEC_GROUP "v1 or v1beta1)",
			       f->path, ex->line, ex->col, api ? api : "",
			       owner);
	if (mode && !strcmp(mode, "Always"))
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: exec plugin '%s' of %s needs a "
			       "terminal (interactiveMode: Always); gpuform "
			       "runs plugins non-interactively",
			       f->path, ex->line, ex->col, cmd, owner);
	args = ynode_get(ex, "args");
	if (!is_null(args)) {
		if (args->type != YNODE_SEQ)
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: exec args must be a list",
				       f->path, args->line, args->col);
		for (size_t i = 0; i < args->nr; i++)
			if (args->kids[i]->type != YNODE_SCALAR)
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: exec args must be "
					       "strings",
					       f->path, args->kids[i]->line,
					       args->kids[i]->col);
		nargs = args->nr;
	}
	env = ynode_get(ex, "env");
	if (!is_null(env)) {
		if (env->type != YNODE_SEQ)
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: exec env must be a list of "
				       "{name, value}",
				       f->path, env->line, env->col);
		for (size_t i = 0; i < env->nr; i++) {
			const struct ynode *en = env->kids[i];
			const char *n, *v;

			if (kc_map(f, en, "an exec env entry", err) < 0 ||
			    kc_str(f, en, "name", &n, err) < 0 ||
			    kc_str(f, en, "value", &v, err) < 0)
				return -1;
			if (!n || strchr(n, '='))
				return err_set(err, ERR_INVALID,
					       "%s:%d:%d: exec env entry needs "
					       "a name without '='",
					       f->path, env->kids[i]->line,
					       env->kids[i]->col);
		}
		nenv = env->nr;
	}
	c->exec_argv = xcalloc(nargs + 2, sizeof(char *));
	/* like kubectl: a command with a '/' is relative to the kubeconfig */
	c->exec_argv[argc++] =
		strchr(cmd, '/') ? kc_path(f, cmd) : xstrdup(cmd);
	for (size_t i = 0; i < nargs; i++)
		c->exec_argv[argc++] = xstrdup(args->kids[i]->value);
	c->exec_env = xcalloc(nenv + 1, sizeof(char *));
	for (size_t i = 0; i < nenv; i++) {
		const char *n, *v;
		kc_str(f, env->kids[i], "name", &n, NULL);
		kc_str(f, env->kids[i], "value", &v, NULL);
		c->exec_env[i] = xasprintf("%s=%s", n, v ? v : "");
	}
	c->exec_api_version = xstrdup(api);
	return 0;
}

static int kc_user(struct kube_config *c, const struct kc_set *s,
		   struct err *err)
{
	const struct ynode *body, *ex, *ap;
	const struct kc_file *f;
	const char *token, *token_file;
	char *owner = NULL;
	int ret = -1;

	if (kc_find_of_context(s, c, "user", c->user, &body, &f, err) < 0)
		return -1;
	if (!body)
		return 0; /* an empty user: anonymous */
	owner = xasprintf("user '%s'", c->user);
	ap = ynode_get(body, "auth-provider");
	if (!is_null(ap)) {
		err_set(err, ERR_INVALID,
			"%s:%d:%d: %s uses an auth-provider, which gpuform "
			"does "
			"not support (kubectl dropped it too); use an exec "
			"credential plugin",
			f->path, ap->line, ap->col, owner);
		goto out;
	}
	if (kc_str(f, body, "token", &token, err) < 0 ||
	    kc_str(f, body, "tokenFile", &token_file, err) < 0)
		goto out;
	if (token && has_ctl(token, 0)) {
		const struct ynode *n = ynode_get(body, "token");
		/* never quote the token */
		err_set(err, ERR_INVALID,
			"%s:%d:%d: token of %s contains a control character",
			f->path, n->line, n->col, owner);
		goto out;
	}
	if (token && strlen(token) > KC_MAX_TOKEN) {
		const struct ynode *n = ynode_get(body, "token");
		err_set(err, ERR_INVALID,
			"%s:%d:%d: token of %s is longer than %u bytes",
			f->path, n->line, n->col, owner, KC_MAX_TOKEN);
		goto out;
	}
	if (token)
		c->token = xstrdup(token);
	if (token_file) {
		/* read now so a missing file fails early; kube.c re-reads it
		 * whenever it changes (and then it wins over `token`, as in
		 * client-go) */
		struct buf b = BUF_INIT;
		char *what = xasprintf("tokenFile of %s (%s)", owner, f->path);

		c->token_file = kc_path(f, token_file);
		ret = read_secret_file(&b, c->token_file, KC_MAX_TOKEN, what,
				       err);
		free(what);
		if (ret < 0)
			goto out;
		ret = -1;
		trim_right(&b);
		if (has_ctl(buf_cstr(&b), 0)) {
			err_set(err, ERR_INVALID,
				"tokenFile of %s (%s): the token contains a "
				"control character",
				owner, f->path);
			digest_wipe_str(buf_detach(&b, NULL));
			goto out;
		}
		digest_wipe_str(c->token);
		c->token = buf_detach(&b, NULL);
	}
	if (kc_blob(f, body, "client-certificate", "CERTIFICATE", owner,
		    &c->cert_pem, &c->cert_len, err) < 0 ||
	    kc_blob(f, body, "client-key", "", owner, &c->key_pem, &c->key_len,
		    err) < 0)
		goto out;
	if (!c->cert_pem != !c->key_pem) {
		err_set(err, ERR_INVALID,
			"%s: %s has a client %s but no client %s", f->path,
			owner, c->cert_pem ? "certificate" : "key",
			c->cert_pem ? "key" : "certificate");
		goto out;
	}
	if (c->key_pem && !looks_like_pem(c->key_pem, c->key_len, "")) {
		err_set(err, ERR_INVALID, "%s: client key of %s is not PEM",
			f->path, owner);
		goto out;
	}
	ex = ynode_get(body, "exec");
	if (!is_null(ex) && kc_exec(c, f, ex, owner, err) < 0)
		goto out;
	ret = 0;
out:
	free(owner);
	return ret;
}

int kubeconfig_load(struct kube_config *out, const char *path,
		    const char *context, struct err *err)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kc_set s = { NULL, 0, 0 };
	struct buf names = BUF_INIT;
	const struct ynode *ctx;
	const struct kc_file *f;
	const char *cur = NULL, *v;
	int ret = -1;

	if (path) {
		if (kc_add_file(&s, path, 1, err) < 0)
			goto out;
	} else if ((v = getenv("KUBECONFIG")) && *v) {
		char *list = xstrdup(v), *p = list, *colon;

		do {
			colon = strchr(p, ':');
			if (colon)
				*colon = '\0';
			if (*p) {
				buf_addf(&names, "%s'%s'",
					 names.len ? ", " : "", p);
				if (kc_add_file(&s, p, 0, err) < 0) {
					free(list);
					goto out;
				}
			}
			if (colon)
				p = colon + 1;
		} while (colon);
		free(list);
	} else {
		const char *home = getenv("HOME");
		char *def = xasprintf("%s/.kube/config", home ? home : "");

		buf_addf(&names, "'%s'", def);
		ret = kc_add_file(&s, def, 0, err);
		free(def);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (!s.nr) {
		const char *host = getenv("KUBERNETES_SERVICE_HOST");
		if (host && *host &&
		    (!context || !strcmp(context, "in-cluster"))) {
			ret = kubeconfig_in_cluster(out, err);
			goto out;
		}
		if (getenv("KUBECONFIG") && *getenv("KUBECONFIG"))
			err_set(err, ERR_NOTFOUND,
				"no kubeconfig: none of the files in "
				"KUBECONFIG "
				"exists (%s)",
				buf_cstr(&names));
		else
			err_set(err, ERR_NOTFOUND,
				"no kubeconfig: %s does not exist and "
				"KUBECONFIG is not set",
				buf_cstr(&names));
		goto out;
	}
	buf_reset(&names);
	files_desc(&names, &s);

	if (context && *context) {
		c.context = xstrdup(context);
	} else {
		for (size_t i = 0; !cur && i < s.nr; i++)
			if (kc_str(&s.files[i], s.files[i].root,
				   "current-context", &cur, err) < 0)
				goto out;
		if (!cur) {
			err_set(err, ERR_INVALID,
				"kubeconfig %s sets no current-context; name a "
				"context",
				buf_cstr(&names));
			goto out;
		}
		c.context = xstrdup(cur);
	}
	if (kc_find(&s, "contexts", "context", c.context, &ctx, &f, err) < 0)
		goto out;
	if (!f) {
		err_set(err, ERR_NOTFOUND,
			"context '%s' is not defined in kubeconfig %s",
			c.context, buf_cstr(&names));
		goto out;
	}
	if (kc_str(f, ctx, "cluster", &v, err) < 0)
		goto out;
	if (!v) {
		err_set(err, ERR_INVALID, "%s: context '%s' names no cluster",
			f->path, c.context);
		goto out;
	}
	c.cluster = xstrdup(v);
	if (kc_str(f, ctx, "user", &v, err) < 0)
		goto out;
	c.user = v ? xstrdup(v) : NULL;
	if (kc_str(f, ctx, "namespace", &v, err) < 0)
		goto out;
	c.namespace_ = xstrdup(v ? v : "default");
	if (kc_cluster(&c, &s, err) < 0)
		goto out;
	if (c.user && kc_user(&c, &s, err) < 0)
		goto out;
	if (!c.user)
		c.user = xstrdup("anonymous");
	*out = c;
	c = (struct kube_config)KUBE_CONFIG_INIT;
	ret = 0;
out:
	kube_config_release(&c);
	buf_release(&names);
	kc_set_release(&s);
	return ret;
}

/* ---- in-cluster -------------------------------------------------------- */

/* jwt_subject: the "sub" claim of a JWT (unverified; for messages only) */
static char *jwt_subject(const char *jwt)
{
	const char *dot1 = strchr(jwt, '.'), *dot2;
	char *payload = NULL, *res = NULL;
	size_t len;
	cJSON *j, *sub;

	if (!dot1 || !(dot2 = strchr(dot1 + 1, '.')))
		return NULL;
	if (b64_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), &payload, &len) < 0)
		return NULL;
	j = cJSON_ParseWithLength(payload, len);
	sub = cJSON_GetObjectItemCaseSensitive(j, "sub");
	if (cJSON_IsString(sub) && sub->valuestring[0])
		res = xstrdup(sub->valuestring);
	cJSON_Delete(j);
	free(payload);
	return res;
}

int kubeconfig_in_cluster(struct kube_config *out, struct err *err)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	const char *dir = getenv("GPUFORM_SERVICEACCOUNT_DIR");
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	struct buf b = BUF_INIT;
	char *p = NULL;
	int ret = -1;

	if (!dir || !*dir)
		dir = KC_SA_DIR;
	if (!host || !*host || !port || !*port)
		return err_set(err, ERR_NOTFOUND,
			       "in-cluster configuration needs "
			       "KUBERNETES_SERVICE_HOST and "
			       "KUBERNETES_SERVICE_PORT (is this a pod?)");
	c.context = xstrdup("in-cluster");
	c.cluster = xstrdup("in-cluster");
	/* an IPv6 address goes in brackets */
	c.server = strchr(host, ':') ? xasprintf("https://[%s]:%s", host, port)
				     : xasprintf("https://%s:%s", host, port);

	c.token_file = xasprintf("%s/token", dir);
	if (read_secret_file(&b, c.token_file, KC_MAX_TOKEN,
			     "in-cluster service-account token", err) < 0)
		goto out;
	trim_right(&b);
	if (!b.len) {
		err_set(err, ERR_AUTH,
			"in-cluster service-account token '%s' "
			"is empty",
			c.token_file);
		goto out;
	}
	c.token = buf_detach(&b, NULL);

	p = xasprintf("%s/ca.crt", dir);
	if (read_secret_file(&b, p, KC_MAX_PEM, "in-cluster CA", err) < 0)
		goto out;
	if (!looks_like_pem(buf_cstr(&b), b.len, "CERTIFICATE")) {
		err_set(err, ERR_INVALID,
			"in-cluster CA '%s' does not hold a "
			"PEM certificate",
			p);
		goto out;
	}
	c.ca_len = b.len;
	c.ca_pem = buf_detach(&b, NULL);
	free(p);

	p = xasprintf("%s/namespace", dir);
	if (fs_read_file(&b, p, 4096, NULL) == 0) {
		trim_right(&b);
		if (b.len)
			c.namespace_ = buf_detach(&b, NULL);
	}
	buf_release(&b);
	if (!c.namespace_)
		c.namespace_ = xstrdup("default");
	c.user = jwt_subject(c.token);
	if (!c.user)
		c.user = xstrdup("in-cluster service account");
	*out = c;
	c = (struct kube_config)KUBE_CONFIG_INIT;
	ret = 0;
out:
	free(p);
	digest_wipe_release(&b);
	kube_config_release(&c);
	return ret;
}

static void free_strv(char **v, int secret)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++) {
		if (secret)
			digest_wipe_str(v[i]);
		else
			free(v[i]);
	}
	free(v);
}

void kube_config_release(struct kube_config *c)
{
	if (!c)
		return;
	free(c->context);
	free(c->cluster);
	free(c->user);
	free(c->server);
	free(c->ca_pem);
	digest_wipe_str(c->token);
	free(c->token_file);
	digest_wipe_free(c->cert_pem, c->cert_len);
	digest_wipe_free(c->key_pem, c->key_len);
	free_strv(c->exec_argv, 0);
	free_strv(c->exec_env, 1); /* AWS_PROFILE is harmless, but env may
				    * carry secrets too */
	free(c->exec_api_version);
	free(c->namespace_);
	*c = (struct kube_config)KUBE_CONFIG_INIT;
}

/* ---- exec credential plugins ------------------------------------------- */

void kube_exec_cred_release(struct kube_exec_cred *cred)
{
	if (!cred)
		return;
	digest_wipe_str(cred->token);
	digest_wipe_free(cred->cert_pem, cred->cert_len);
	digest_wipe_free(cred->key_pem, cred->key_len);
	*cred = (struct kube_exec_cred)KUBE_EXEC_CRED_INIT;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* exec_info: the ExecCredential for KUBERNETES_EXEC_INFO */
static char *exec_info(const struct kube_config *c)
{
	cJSON *j = cJSON_CreateObject(), *spec;
	char *s, *res;

	cJSON_AddStringToObject(j, "apiVersion", c->exec_api_version);
	cJSON_AddStringToObject(j, "kind", "ExecCredential");
	spec = cJSON_AddObjectToObject(j, "spec");
	if (c->exec_provide_cluster_info) {
		cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
		cJSON_AddStringToObject(cl, "server",
					c->server ? c->server : "");
		if (c->ca_pem) {
			struct buf b = BUF_INIT;
			base64_encode(&b, c->ca_pem, c->ca_len, 0);
			cJSON_AddStringToObject(
				cl, "certificate-authority-data", buf_cstr(&b));
			buf_release(&b);
		}
		if (c->insecure)
			cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify");
	}
	cJSON_AddFalseToObject(spec, "interactive");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!s)
		BUG("cJSON_PrintUnformatted failed");
	res = xasprintf("KUBERNETES_EXEC_INFO=%s", s);
	cJSON_free(s);
	return res;
}

static int env_overridden(const char *entry, char *const *adds)
{
	size_t n = strcspn(entry, "=");

	if (!strncmp(entry, "KUBERNETES_EXEC_INFO=", 21) && n == 20)
		return 1;
	for (size_t i = 0; adds && adds[i]; i++)
		if (!strncmp(entry, adds[i], n) && adds[i][n] == '=')
			return 1;
	return 0;
}

/* exec_envp: environ, minus what the plugin's env overrides, plus it */
static char **exec_envp(const struct kube_config *c, char *info)
{
	size_t n = 0, k = 0, nadd = 0;
	char **envp;

	while (environ && environ[n])
		n++;
	while (c->exec_env && c->exec_env[nadd])
		nadd++;
	envp = xcalloc(n + nadd + 2, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		if (!env_overridden(environ[i], c->exec_env))
			envp[k++] = environ[i];
	for (size_t i = 0; i < nadd; i++)
		envp[k++] = c->exec_env[i];
	envp[k++] = info;
	envp[k] = NULL;
	return envp;
}

/* first_line: the first non-empty line of a plugin's stderr, for messages */
static void first_line(struct buf *out, const struct buf *in)
{
	buf_add_first_line(out, buf_cstr(in), 300);
}

static int set_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);
	return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* drain: read once from fd into b (up to max; the rest is dropped and
 * *over set); returns 1 at EOF or error, 2 when it would block, else 0 */
static int drain(int fd, struct buf *b, size_t max, int *over)
{
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR ? 0 : errno == EAGAIN ? 2 : 1;
	if (n == 0)
		return 1;
	if (b->len + (size_t)n > max) {
		if (over)
			*over = 1;
		n = (ssize_t)(max - b->len);
	}
	buf_add(b, chunk, (size_t)n);
	return 0;
}

static void describe_ms(struct buf *out, long ms)
{
	if (ms % 1000 == 0)
		buf_addf(out, "%ld s", ms / 1000);
	else
		buf_addf(out, "%ld ms", ms);
}

/*
 * run_plugin: spawn, collect stdout/stderr, wait. On failure the message is
 * complete except for the subject ("exec plugin 'x' of user 'u'"), which
 * the caller adds.
 */
/* start the plugin with stdout and stderr on pipes (the read ends in
 * opipe[0], epipe[0]; the write ends closed here) */
static int spawn_plugin(const struct kube_config *c, char **envp,
			int opipe[2], int epipe[2], pid_t *pid,
			struct err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigs;
	int rc;

	if (pipe(opipe) < 0 || pipe(epipe) < 0)
		return err_errno(err, "cannot create a pipe");
	set_cloexec(opipe[0]);
	set_cloexec(epipe[0]);
	set_cloexec(opipe[1]);
	set_cloexec(epipe[1]);
	if (posix_spawn_file_actions_init(&fa))
		return err_set(err, ERR_IO, "cannot prepare to run it");
	if (posix_spawnattr_init(&attr)) {
		posix_spawn_file_actions_destroy(&fa);
		return err_set(err, ERR_IO, "cannot prepare to run it");
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, opipe[1], 1);
	posix_spawn_file_actions_adddup2(&fa, epipe[1], 2);
	/* its own process group, so a timeout kills its children too; the
	 * default disposition for every signal we might be ignoring */
	posix_spawnattr_setpgroup(&attr, 0);
	sigemptyset(&sigs);
	posix_spawnattr_setsigmask(&attr, &sigs);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGPIPE);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	posix_spawnattr_setsigdefault(&attr, &sigs);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
						POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(pid, c->exec_argv[0], &fa, &attr, c->exec_argv,
			  envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		*pid = -1;
		return err_set(err, ERR_AUTH, "cannot run it: %s%s",
			       strerror(rc),
			       rc == ENOENT ? " (is it installed and on PATH?)"
					    : "");
	}
	close(opipe[1]);
	close(epipe[1]);
	opipe[1] = epipe[1] = -1;
	return 0;
}

/*
 * read the plugin's stdout and stderr until both close or it exits, the
 * deadline passes (*timed_out) or stdout is too long (*over), then reap it
 * (killing its process group in the last two cases). -1 only for a failed
 * poll.
 */
static int read_plugin(pid_t pid, int ofd, int efd, long long deadline,
		       struct buf *out, struct buf *errout, int *status,
		       int *timed_out, int *over, struct err *err)
{
	struct pollfd pfd[2];
	int reaped = 0, rc;

	pfd[0].fd = ofd;
	pfd[1].fd = efd;
	pfd[0].events = pfd[1].events = POLLIN;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long long left = deadline - mono_ms();
		int n;

		if (left <= 0) {
			*timed_out = 1;
			break;
		}
		/* wake up now and then: if the plugin exited but left a child
		 * holding the pipes, stop at what is there */
		n = poll(pfd, 2, (int)(left < 100 ? left : 100));
		if (n < 0 && errno != EINTR)
			return err_errno(err, "poll");
		for (int i = 0; n > 0 && i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			rc = drain(pfd[i].fd, i ? errout : out,
				   i ? KC_MAX_STDERR
				     : KUBECONFIG_EXEC_MAX_OUTPUT,
				   i ? NULL : over);
			if (rc == 1)
				pfd[i].fd = -1;
		}
		if (*over)
			break;
		if (!reaped && waitpid(pid, status, WNOHANG) == pid) {
			reaped = 1;
			/* take what is still buffered in the pipes, without
			 * waiting for grandchildren that may hold them */
			for (int i = 0; i < 2 && !*over; i++) {
				if (pfd[i].fd < 0)
					continue;
				fcntl(pfd[i].fd, F_SETFL,
				      fcntl(pfd[i].fd, F_GETFL) | O_NONBLOCK);
				do {
					rc = drain(
						pfd[i].fd, i ? errout : out,
						i ? KC_MAX_STDERR
						  : KUBECONFIG_EXEC_MAX_OUTPUT,
						i ? NULL : over);
				} while (rc == 0 && !*over);
				pfd[i].fd = -1;
			}
		}
	}
	if (*timed_out || *over) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (!reaped) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			reaped = 1;
			break;
		}
		if (mono_ms() >= deadline && !*timed_out) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		{
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

static int run_plugin(const struct kube_config *c, long timeout_ms,
		      struct buf *out, struct buf *errout, int *status,
		      struct err *err)
{
	int opipe[2] = { -1, -1 }, epipe[2] = { -1, -1 };
	char *info = exec_info(c);
	char **envp = exec_envp(c, info);
	long long deadline = mono_ms() + timeout_ms;
	int over = 0, timed_out = 0, ret = -1;
	pid_t pid = -1;

	if (spawn_plugin(c, envp, opipe, epipe, &pid, err) < 0 ||
	    read_plugin(pid, opipe[0], epipe[0], deadline, out, errout,
			status, &timed_out, &over, err) < 0)
		goto out;
	if (timed_out) {
		struct buf d = BUF_INIT;
		describe_ms(&d, timeout_ms);
		err_set(err, ERR_AUTH, "it did not finish within %s",
			buf_cstr(&d));
		buf_release(&d);
		goto out;
	}
	if (over) {
		err_set(err, ERR_AUTH, "it wrote more than %u bytes to stdout",
			KUBECONFIG_EXEC_MAX_OUTPUT);
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (opipe[i] >= 0)
			close(opipe[i]);
		if (epipe[i] >= 0)
			close(epipe[i]);
	}
	free(envp);
	digest_wipe_str(info);
	return ret;
}

/* parse_cred: the ExecCredential on stdout; never quotes stdout */
static int parse_cred(struct kube_exec_cred *cred, const struct kube_config *c,
		      const struct buf *out, struct err *err)
{
	cJSON *j = cJSON_ParseWithLength(buf_cstr(out), out->len);
	const cJSON *api, *kind, *st, *tok, *cert, *key, *exp;
	int ret = -1;

	if (!cJSON_IsObject(j)) {
		err_set(err, ERR_AUTH,
			"it did not write an ExecCredential "
			"(JSON) to stdout");
		goto out;
	}
	api = cJSON_GetObjectItemCaseSensitive(j, "apiVersion");
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (!cJSON_IsString(kind) ||
	    strcmp(kind->valuestring, "ExecCredential")) {
		err_set(err, ERR_AUTH,
			"it did not write an ExecCredential "
			"to stdout (kind is not ExecCredential)");
		goto out;
	}
	if (!cJSON_IsString(api) ||
	    strcmp(api->valuestring, c->exec_api_version)) {
		err_set(err, ERR_AUTH,
			"it returned apiVersion '%.80s', but the "
			"kubeconfig asks for '%s'",
			cJSON_IsString(api) ? api->valuestring : "",
			c->exec_api_version);
		goto out;
	}
	st = cJSON_GetObjectItemCaseSensitive(j, "status");
	tok = cJSON_GetObjectItemCaseSensitive(st, "token");
	cert = cJSON_GetObjectItemCaseSensitive(st, "clientCertificateData");
	key = cJSON_GetObjectItemCaseSensitive(st, "clientKeyData");
	exp = cJSON_GetObjectItemCaseSensitive(st, "expirationTimestamp");
	if (cJSON_IsString(tok) && tok->valuestring[0])
		cred->token = xstrdup(tok->valuestring);
	if (cJSON_IsString(cert) && cert->valuestring[0] &&
	    cJSON_IsString(key) && key->valuestring[0]) {
		cred->cert_pem = xstrdup(cert->valuestring);
		cred->cert_len = strlen(cred->cert_pem);
		cred->key_pem = xstrdup(key->valuestring);
		cred->key_len = strlen(cred->key_pem);
	} else if (cJSON_IsString(cert) != cJSON_IsString(key)) {
		err_set(err, ERR_AUTH,
			"it returned only one of "
			"status.clientCertificateData and "
			"status.clientKeyData");
		goto out;
	}
	if (!cred->token && !cred->cert_pem) {
		err_set(err, ERR_AUTH,
			"it returned neither status.token nor a "
			"client certificate");
		goto out;
	}
	if (cJSON_IsString(exp) && exp->valuestring[0]) {
		if (time_parse_rfc3339(exp->valuestring, &cred->expires, NULL) < 0) {
			err_set(err, ERR_AUTH,
				"it returned an invalid "
				"status.expirationTimestamp '%.40s'",
				exp->valuestring);
			goto out;
		}
	} else if (exp && !cJSON_IsNull(exp) && !cJSON_IsString(exp)) {
		err_set(err, ERR_AUTH,
			"its status.expirationTimestamp is not "
			"a string");
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(j);
	return ret;
}

int kubeconfig_exec(struct kube_exec_cred *out, const struct kube_config *c,
		    long timeout_ms, struct err *err)
{
	struct kube_exec_cred cred = KUBE_EXEC_CRED_INIT;
	struct buf so = BUF_INIT, se = BUF_INIT;
	int status = 0, ret = -1;

	if (!c->exec_argv || !c->exec_argv[0] || !c->exec_api_version)
		return err_set(err, ERR_INTERNAL,
			       "user '%s' has no exec credential plugin",
			       c->user ? c->user : "");
	if (timeout_ms <= 0)
		timeout_ms = KUBECONFIG_EXEC_TIMEOUT_MS;
	if (run_plugin(c, timeout_ms, &so, &se, &status, err) < 0)
		goto fail;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		struct buf line = BUF_INIT;

		first_line(&line, &se);
		if (WIFSIGNALED(status))
			err_set(err, ERR_AUTH, "it was killed by signal %d",
				WTERMSIG(status));
		else
			err_set(err, ERR_AUTH, "it failed with exit status %d",
				WEXITSTATUS(status));
		if (line.len)
			buf_addf(&err->msg, ": %s", buf_cstr(&line));
		else
			buf_adds(&err->msg, " and wrote nothing to stderr");
		buf_release(&line);
		goto fail;
	}
	if (parse_cred(&cred, c, &so, err) < 0)
		goto fail;
	*out = cred;
	cred = (struct kube_exec_cred)KUBE_EXEC_CRED_INIT;
	ret = 0;
	goto out;
fail:
	err_wrap(err, "exec plugin '%s' of user '%s'", c->exec_argv[0],
		 c->user ? c->user : "");
out:
	kube_exec_cred_release(&cred);
	digest_wipe_release(&so);
	buf_release(&se);
	return ret;
}
