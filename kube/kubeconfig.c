/*
 * kube/kubeconfig.c: kubeconfig files (several, merged like kubectl).
 * The in-cluster service account is kube/incluster.c, exec credential
 * plugins kube/kubeexec.c.
 *
 * YAML is read through util/yaml.h and kept as a ynode tree (not
 * cJSON) so that every complaint about a field can say file:line:col.
 * Secrets (tokens, keys) are copied only into struct kube_config, are never
 * put into messages and are wiped before they are freed. This file does not
 * talk to the network and does not configure TLS: kubeconn.c does that.
 */
#include "kube/kubeconfig.h"
#include "kube/incluster.h"

#include "util/digest.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/yaml.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* caps: CA bundles, certificates and keys; token files */
#define KC_MAX_PEM (8u << 20)
#define KC_MAX_TOKEN (256u << 10)
#define EXEC_GROUP "client.authentication.k8s.io/"

/* ---- small helpers ----------------------------------------------------- */


/*
 * kubeconfig_b64_decode: standard or URL alphabet, padding optional, whitespace
 * ignored. Returns 0 and a NUL-terminated copy, or -1 for invalid input.
 */
int kubeconfig_b64_decode(const char *in, size_t len, char **out, size_t *out_len)
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

/* kubeconfig_trim_right: drop trailing whitespace (token files end with a newline) */
void kubeconfig_trim_right(struct buf *b)
{
	while (b->len && isspace((unsigned char)b->ptr[b->len - 1]))
		b->ptr[--b->len] = '\0';
}

int kubeconfig_looks_like_pem(const char *p, size_t len, const char *what)
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
 * kubeconfig_read_secret: a whole file (certificate, key, token) into *out;
 * the message names `what` and the file.
 */
int kubeconfig_read_secret(struct buf *out, const char *path, size_t max,
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
		if (kubeconfig_b64_decode(data, strlen(data), &res, &len) < 0) {
			err_set(err, ERR_INVALID,
				"%s:%d:%d: %s of %s is not valid base64",
				f->path, n->line, n->col, data_key, owner);
			goto out;
		}
		if (!kubeconfig_looks_like_pem(res, len, pem_tag)) {
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
		ret = kubeconfig_read_secret(&b, path, KC_MAX_PEM, what, err);
		free(what);
		if (ret < 0)
			goto out;
		ret = -1;
		if (!kubeconfig_looks_like_pem(buf_cstr(&b), b.len, pem_tag)) {
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
		ret = kubeconfig_read_secret(&b, c->token_file, KC_MAX_TOKEN, what,
				       err);
		free(what);
		if (ret < 0)
			goto out;
		ret = -1;
		kubeconfig_trim_right(&b);
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
	if (c->key_pem && !kubeconfig_looks_like_pem(c->key_pem, c->key_len, "")) {
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
