/* reconcile/source.c: load the desired objects (see source.h). */
#include "reconcile/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "generator/inputs.h"
#include "generator/pipeline.h"
#include "git/gitpath.h"
#include "git/repo.h"
#include "util/digest.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "generator/validate.h"
#include "util/yaml.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/url.h"
#include "util/xalloc.h"

/* the most gpuform reads of one file from a --git tree: the bound of a local
 * file (YAML_MAX_INPUT, 16 MiB); a rendered file is kilobytes */
#define SOURCE_MAX_FILE YAML_MAX_INPUT

/* add_yaml_diag: a YAML error ("<path>:<line>:<col>: <problem>") as a
 * diagnostic at that position, like the intent reader's */
static void add_yaml_diag(struct diags *d, const char *path,
			  const struct err *e)
{
	const char *m = err_msg(e);
	size_t plen = strlen(path);
	int line = 0, col = 0, used = 0;

	if (!strncmp(m, path, plen) && m[plen] == ':' &&
	    sscanf(m + plen, ":%d:%d: %n", &line, &col, &used) == 2 &&
	    used > 0) {
		diags_add(d, DIAG_ERROR, path, line, col, NULL, "%s",
			  m + plen + (size_t)used);
		return;
	}
	diags_add(d, DIAG_ERROR, "", 0, 0, NULL, "%s", m);
}

static int load_bytes_docs(cJSON *docs, const char *path, const char *bytes,
			   size_t len, struct diags *d)
{
	struct ystream ys = YSTREAM_INIT;
	struct err e = ERR_INIT;
	int ret = -1;

	if (yaml_parse(&ys, bytes, len, path, &e) < 0) {
		add_yaml_diag(d, path, &e);
		goto out;
	}
	for (size_t i = 0; i < ys.nr; i++) {
		cJSON *o;
		if (!ys.docs[i].root)
			continue;
		if (ys.docs[i].root->type != YNODE_MAP) {
			diags_add(d, DIAG_ERROR, path, ys.docs[i].line,
				  ys.docs[i].col, NULL,
				  "a Kubernetes object must be a mapping");
			goto out;
		}
		if (yaml_to_json(&o, ys.docs[i].root, path, &e) < 0) {
			add_yaml_diag(d, path, &e);
			goto out;
		}
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "apiVersion")) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "kind"))) {
			diags_add(d, DIAG_ERROR, path, ys.docs[i].line,
				  ys.docs[i].col, NULL,
				  "object has no apiVersion and kind");
			cJSON_Delete(o);
			goto out;
		}
		cJSON_AddItemToArray(docs, o);
	}
	ret = 0;
out:
	ystream_release(&ys);
	err_release(&e);
	return ret;
}

static int load_file_docs(cJSON *docs, const char *path, struct diags *d)
{
	struct buf data = BUF_INIT;
	struct err e = ERR_INIT;
	int ret;

	if (fs_read_file(&data, path, YAML_MAX_INPUT, &e) < 0) {
		diags_add(d, DIAG_ERROR, "", 0, 0, NULL, "%s", err_msg(&e));
		err_release(&e);
		return -1;
	}
	ret = load_bytes_docs(docs, path, buf_cstr(&data), data.len, d);
	buf_release(&data);
	return ret;
}

/* a rendered directory: from disk, or (tree != NULL) from a Git tree whose
 * paths are relative to the directory */
static int load_rendered(struct source *s, const char *dir,
			 const struct fs_tree *tree, struct diags *d,
			 struct err *err)
{
	char *kpath = xasprintf("%s/%s", dir, RENDER_OWNER_FILE);
	struct buf data = BUF_INIT;
	struct ystream ys = YSTREAM_INIT;
	const struct ynode *res;
	int ret = -1;

	if (tree) {
		const struct fs_file *f = fs_tree_find(tree, RENDER_OWNER_FILE);
		if (!f) {
			err_set(err, ERR_INVALID, "%s: no %s (is it a directory "
						  "written by gpuform render --output-dir or "
						  "commit?)",
				dir, RENDER_OWNER_FILE);
			goto out;
		}
		buf_add(&data, f->data, f->len);
	} else if (access(kpath, F_OK) < 0 && errno == ENOENT) {
		err_set(err, ERR_INVALID, "%s: no %s (is it a directory "
					  "written by gpuform render --output-dir or "
					  "commit?)",
			dir, RENDER_OWNER_FILE);
		goto out;
	} else if (fs_read_file(&data, kpath, YAML_MAX_INPUT, err) < 0) {
		goto out;
	}
	if (yaml_parse(&ys, buf_cstr(&data), data.len, kpath, err) < 0)
		goto out;
	res = ys.nr ? ynode_get(ys.docs[0].root, "resources") : NULL;
	if (!res || res->type != YNODE_SEQ) {
		err_set(err, ERR_INVALID, "%s: no 'resources' list", kpath);
		goto out;
	}
	s->docs = cJSON_CreateArray();
	for (size_t i = 0; i < res->nr; i++) {
		const struct ynode *f = res->kids[i];
		char *p;
		if (f->type != YNODE_SCALAR || strstr(f->value, "..") ||
		    f->value[0] == '/') {
			diags_add(d, DIAG_ERROR, kpath, f->line, f->col, NULL,
				  "resources must be files inside the directory");
			continue;
		}
		p = xasprintf("%s/%s", dir, f->value);
		if (tree) {
			const struct fs_file *tf = fs_tree_find(tree, f->value);
			if (!tf)
				diags_add(d, DIAG_ERROR, kpath, f->line, f->col, NULL,
					  "'%s' is listed but not in the tree",
					  f->value);
			else
				load_bytes_docs(s->docs, p, tf->data, tf->len, d);
		} else {
			load_file_docs(s->docs, p, d);
		}
		free(p);
	}
	if (d->errors) {
		err_set(err, ERR_INVALID, "'%s' has invalid objects; nothing "
					  "was applied", dir);
		goto out;
	}
	s->desc = xstrdup(dir);
	ret = 0;
out:
	ystream_release(&ys);
	buf_release(&data);
	free(kpath);
	return ret;
}

static const char *cluster_label(const cJSON *o)
{
	return json_meta_at(o, "labels", "gpuform.io/cluster");
}

/* the one cluster the objects of a rendered directory are for */
static int find_cluster(struct source *s, const char *what, struct err *err)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, s->docs)
	{
		const char *c = cluster_label(o);
		if (!c)
			continue;
		/* it names the inventory (gpuform-<cluster>) and the ApplySet */
		if (!validate_dns_label(c, 63)) {
			struct buf q = BUF_INIT;
			diag_escape(&q, c, 0);
			err_set(err, ERR_INVALID,
				"'%s': gpuform.io/cluster label '%.80s' is not "
				"a valid cluster name (a DNS label)",
				what, buf_cstr(&q));
			buf_release(&q);
			return -1;
		}
		if (!s->cluster)
			s->cluster = xstrdup(c);
		else if (strcmp(s->cluster, c))
			return err_set(err, ERR_INVALID,
				       "'%s' mixes clusters '%s' and '%s'", what,
				       s->cluster, c);
	}
	if (!s->cluster)
		return err_set(err, ERR_INVALID,
			       "'%s': no object carries a gpuform.io/cluster "
			       "label; render it with gpuform",
			       what);
	return 0;
}

/* cluster_dir_marked: `dir`/kustomization.yaml at `oid` is gpuform's
 * marker of one cluster's rendered directory (not the "one directory per
 * cluster" marker of the directory above them); the rule commit's
 * check_root applies to --path */
static int cluster_dir_marked(struct repo *r, const char *oid, const char *dir,
			      int *marked, struct err *err)
{
	struct buf k = BUF_INIT;
	char *p = strcmp(dir, ".") ? xasprintf("%s/%s", dir, RENDER_OWNER_FILE)
				   : xstrdup(RENDER_OWNER_FILE);
	int ret = 0;

	*marked = 0;
	if (repo_read_max(r, oid, p, SOURCE_MAX_FILE, &k, err) < 0) {
		if (err->code == ERR_NOTFOUND || (err->code == ERR_INVALID &&
						  !strstr(err_msg(err), "over the limit")))
			err_clear(err); /* absent, or not a file */
		else
			ret = -1;
	} else {
		*marked = !strncmp(buf_cstr(&k), RENDER_OWNER_PREFIX,
				   strlen(RENDER_OWNER_PREFIX)) &&
			  !strstr(buf_cstr(&k), "one directory per cluster");
	}
	free(p);
	buf_release(&k);
	return ret;
}

/* the last component of a normalised path, and the length of its parent
 * ("clusters/ml-prod": "ml-prod", 8; "ml-prod": "ml-prod", 0) */
static const char *last_component(const char *path, size_t *parent_len)
{
	const char *slash = strrchr(path, '/');

	*parent_len = slash ? (size_t)(slash - path) : 0;
	return slash ? slash + 1 : path;
}

/*
 * pick_dir: the directory to read. --path names the directory that holds
 * one directory per cluster and --cluster the one to read; a --path that
 * is itself a cluster's directory (the spelling before) is read as it is
 * when --cluster is absent (*old set), and refused with it.
 */
static int pick_dir(struct repo *r, const char *oid, const char *path,
		    const char *cluster, char **dir, int *old, int *usage,
		    struct err *err)
{
	size_t plen;
	const char *last = last_component(path, &plen);
	int marked;

	*old = 0;
	if (cluster_dir_marked(r, oid, path, &marked, err) < 0)
		return -1;
	if (marked && cluster) {
		*usage = 1;
		if (!strcmp(last, cluster))
			return err_set(err, ERR_INVALID,
				       "--path '%s' is the directory of cluster "
				       "'%s' and --cluster names it too: "
				       "drop '/%s' from --path (--path %.*s "
				       "--cluster %s)",
				       path, cluster, last,
				       plen ? (int)plen : 1, plen ? path : ".",
				       cluster);
		return err_set(err, ERR_INVALID,
			       "--path '%s' is one cluster's directory and "
			       "--cluster '%s' is given too: drop --cluster, or "
			       "give the directory that holds the cluster "
			       "directories (--path %.*s --cluster %s)",
			       path, cluster, plen ? (int)plen : 1,
			       plen ? path : ".", cluster);
	}
	if (cluster) {
		*dir = strcmp(path, ".") ? xasprintf("%s/%s", path, cluster)
					 : xstrdup(cluster);
		return 0;
	}
	if (marked) {
		*old = 1;
		*dir = xstrdup(path);
		return 0;
	}
	*usage = 1;
	return err_set(err, ERR_INVALID,
		       "--git needs --cluster NAME: '%s' is not one cluster's "
		       "directory, so say which directory under it to read "
		       "(--path %s --cluster NAME)",
		       path, path);
}

/*
 * read_listed: of the cluster's directory at oid, only the files gpuform
 * reads: kustomization.yaml and the resources it lists, each at most
 * SOURCE_MAX_FILE bytes, checked from the object header before it is
 * inflated (a large file beside them, listed or not, costs nothing). A
 * directory without kustomization.yaml leaves tree empty; a listed file
 * that is absent is left out (load_rendered says so).
 */
static int read_listed(struct repo *r, const char *oid, const char *dir,
		       struct fs_tree *tree, struct err *err)
{
	char *kpath = xasprintf("%s/%s", dir, RENDER_OWNER_FILE);
	struct buf k = BUF_INIT;
	struct ystream ys = YSTREAM_INIT;
	const struct ynode *res;
	int ret = -1;

	if (repo_read_max(r, oid, kpath, SOURCE_MAX_FILE, &k, err) < 0) {
		if (err->code == ERR_NOTFOUND) {
			err_clear(err);
			ret = 0;
		}
		goto out;
	}
	/* load_rendered reports what is wrong with it */
	if (yaml_parse(&ys, buf_cstr(&k), k.len, kpath, err) < 0) {
		err_clear(err);
		ystream_release(&ys);
		ys = (struct ystream)YSTREAM_INIT;
	}
	res = ys.nr ? ynode_get(ys.docs[0].root, "resources") : NULL;
	for (size_t i = 0; res && res->type == YNODE_SEQ && i < res->nr; i++) {
		const struct ynode *f = res->kids[i];
		struct buf b = BUF_INIT;
		char *p;
		int rr;
		if (f->type != YNODE_SCALAR || strstr(f->value, "..") ||
		    f->value[0] == '/' || fs_tree_find(tree, f->value))
			continue;
		p = xasprintf("%s/%s", dir, f->value);
		rr = repo_read_max(r, oid, p, SOURCE_MAX_FILE, &b, err);
		free(p);
		if (rr < 0 && err->code != ERR_NOTFOUND) {
			buf_release(&b);
			goto out;
		}
		if (rr < 0) {
			err_clear(err);
			buf_release(&b);
			continue;
		}
		{
			size_t len;
			char *data = buf_detach(&b, &len);
			fs_tree_add(tree, f->value, data, len);
		}
	}
	{
		size_t len;
		char *data = buf_detach(&k, &len);
		fs_tree_add(tree, RENDER_OWNER_FILE, data, len);
	}
	fs_tree_sort(tree);
	ret = 0;
out:
	ystream_release(&ys);
	buf_release(&k);
	free(kpath);
	return ret;
}

/*
 * fetch_tree: the files of the cluster's directory (see pick_dir) at the
 * fetched tip of `ref`, through the cache repository. On failure, `damage`
 * says why the cache itself is the problem, when it is (a truncated loose
 * object, or objects that repo_verify cannot read); network and
 * credential failures are never blamed on the cache. A usage error is
 * checked against the cache too: in a damaged one the marker may look
 * absent.
 */
static int fetch_tree(const char *cache, const struct source_git *g,
		      const char *path, const char *ref,
		      const struct repo_cred *cred, char oid[REPO_OID_HEX],
		      struct fs_tree *tree, char **dir, int *old, int *usage,
		      struct buf *damage, struct err *err)
{
	struct repo *r = NULL;
	struct err ve = ERR_INIT;
	int ret = -1;

	if (repo_check_loose(cache, &ve) < 0) {
		buf_adds(damage, err_msg(&ve));
		err_set(err, ERR_GIT, "%s", err_msg(&ve));
		err_release(&ve);
		return -1;
	}
	if (repo_init_bare(&r, cache, err) < 0)
		return -1;
	if (repo_fetch(r, g->url, ref, cred, oid, err) == 0 &&
	    pick_dir(r, oid, path, g->cluster, dir, old, usage, err) == 0 &&
	    read_listed(r, oid, *dir, tree, err) == 0)
		ret = 0;
	else if (err->code != ERR_HTTP && err->code != ERR_AUTH &&
		 repo_verify(r, &ve) < 0)
		buf_adds(damage, err_msg(&ve));
	err_release(&ve);
	repo_free(r);
	return ret;
}

int source_load_git(struct source *out, const struct source_git *g,
		    int *usage, struct diags *d, struct err *err)
{
	struct source s = SOURCE_INIT;
	struct repo_cred cred = REPO_CRED_INIT;
	struct fs_tree tree = FS_TREE_INIT;
	char oid[REPO_OID_HEX];
	char *cache = NULL, *label = NULL, *dir = NULL;
	char *path = git_path_clean(g->path ? g->path : "clusters");
	struct buf damage = BUF_INIT;
	const char *ref = g->ref ? g->ref : "main";
	struct buf shown = BUF_INIT; /* the URL without user info */
	int ret = -1, has_password = 0, old = 0;

	*usage = 0;
	/* the URL is in argv (/proc/PID/cmdline, shell history): say so,
	 * never repeat the password, and record the URL without it */
	url_strip_userinfo(g->url, &shown);
	if (url_userinfo(g->url, &has_password) && has_password)
		diags_add(d, DIAG_WARNING, "", 0, 0, NULL,
			  "the --git URL carries a password: it is visible to "
			  "every local user in the process list and stays in "
			  "shell history; give %s and the password in "
			  "GPUFORM_GIT_PASSWORD or GPUFORM_GIT_TOKEN (or a "
			  "GPUFORM_GIT_CREDENTIALS file) instead",
			  buf_cstr(&shown));
	if (g->cache) {
		cache = xstrdup(g->cache);
	} else {
		struct buf h = BUF_INIT;
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		digest_sha256_hex(g->url, strlen(g->url), &h);
		cache = xdg && *xdg ? xasprintf("%s/gpuform/git/%.16s", xdg, buf_cstr(&h))
				    : xasprintf("%s/.cache/gpuform/git/%.16s",
						home ? home : "/tmp", buf_cstr(&h));
		buf_release(&h);
	}
	repo_cred_from_env(&cred);
	if (fetch_tree(cache, g, path, ref, &cred, oid, &tree, &dir, &old,
		       usage, &damage, err) < 0) {
		char *aside;
		if (!damage.len)
			goto out;
		/* only a cache: set the damaged one aside (never delete what
		 * --git-cache may point at) and fetch into a new one */
		aside = xasprintf("%s.damaged-%ld-%ld", cache, (long)time(NULL),
				  (long)getpid());
		if (rename(cache, aside) < 0) {
			err_set(err, ERR_IO, "the Git cache '%s' is damaged (%s) "
					     "and cannot be moved aside: %s",
				cache, buf_cstr(&damage), strerror(errno));
			free(aside);
			goto out;
		}
		diags_add(d, DIAG_WARNING, "", 0, 0, NULL,
			  "the Git cache '%s' was damaged (%s); moved it to '%s' "
			  "and fetched again",
			  cache, buf_cstr(&damage), aside);
		free(aside);
		err_clear(err);
		buf_reset(&damage);
		fs_tree_release(&tree);
		free(dir);
		dir = NULL;
		*usage = 0;
		if (fetch_tree(cache, g, path, ref, &cred, oid, &tree, &dir,
			       &old, usage, &damage, err) < 0)
			goto out;
	}
	if (old) {
		size_t plen;
		const char *last = last_component(path, &plen);
		diags_add(d, DIAG_WARNING, "", 0, 0, NULL,
			  "--path %s names one cluster's directory: that "
			  "spelling is deprecated; use --path %.*s --cluster %s",
			  path, plen ? (int)plen : 1, plen ? path : ".", last);
	}
	if (!tree.nr) {
		err_set(err, ERR_NOTFOUND,
			"'%s' at %s (%s) has nothing under '%s' (no %s: "
			"nothing written by gpuform commit there)",
			buf_cstr(&shown), ref, oid, dir, RENDER_OWNER_FILE);
		goto out;
	}
	label = xasprintf("%s@%.12s:%s", ref, oid, dir);
	if (load_rendered(&s, label, &tree, d, err) < 0 ||
	    find_cluster(&s, label, err) < 0)
		goto out;
	if (g->cluster && strcmp(s.cluster, g->cluster)) {
		err_set(err, ERR_INVALID,
			"'%s' holds the objects of cluster '%s', not '%s'; "
			"nothing was applied", label, s.cluster, g->cluster);
		goto out;
	}
	if (g->intent) {
		/* the intent of the same commit, for reconcile --preflight:
		 * what the rendered directory is checked against */
		struct repo *r = NULL;
		char *ip = git_path_clean(g->intent);
		int rr = repo_open(&r, cache, err);

		if (rr == 0)
			rr = repo_read(r, oid, ip, &s.intent, NULL, err);
		repo_free(r);
		if (rr < 0) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "'%s' at %s (%.12s) has no intent file '%s' "
				     "(--preflight-intent): %s",
				 buf_cstr(&shown), ref, oid, ip, err_msg(err));
			err_release(err);
			err_set(err, ERR_NOTFOUND, "%s", buf_cstr(&m));
			buf_release(&m);
			free(ip);
			goto out;
		}
		free(ip);
	}
	free(s.desc);
	s.desc = xasprintf("%s %s:%s", buf_cstr(&shown), ref, dir);
	s.commit = xstrdup(oid);
	s.cache = xstrdup(cache);
	*out = s;
	memset(&s, 0, sizeof(s));
	ret = 0;
out:
	source_release(&s);
	fs_tree_release(&tree);
	repo_cred_release(&cred);
	buf_release(&damage);
	buf_release(&shown);
	free(cache);
	free(label);
	free(dir);
	free(path);
	return ret;
}

int source_git_descends(const struct source *s, const char *ancestor, int *out,
			struct err *err)
{
	struct repo *r = NULL;
	int ret;

	*out = 0;
	if (!s->cache || !s->commit)
		return err_set(err, ERR_INTERNAL, "not a Git source");
	if (repo_open(&r, s->cache, err) < 0)
		return -1;
	ret = repo_descends(r, s->commit, ancestor, out, err);
	repo_free(r);
	return ret;
}

/* the add-on files of a rendered directory that have a live counterpart
 * (the Karpenter feature gates, the Kueue configuration); one that is
 * absent or no YAML mapping is left out (nothing to compare) */
static void load_addons(struct source *s, const char *dir)
{
	static const char *const files[] = { "karpenter-values.yaml",
					     "kueue-values.yaml" };

	s->addons = cJSON_CreateObject();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/addons/%s", dir, files[i]);
		struct buf data = BUF_INIT;
		struct ystream ys = YSTREAM_INIT;
		struct err e = ERR_INIT;
		cJSON *j = NULL;
		if (fs_read_file(&data, p, YAML_MAX_INPUT, &e) == 0 &&
		    yaml_parse(&ys, buf_cstr(&data), data.len, p, &e) == 0 &&
		    ys.nr == 1 && ys.docs[0].root &&
		    ys.docs[0].root->type == YNODE_MAP &&
		    yaml_to_json(&j, ys.docs[0].root, p, &e) == 0)
			cJSON_AddItemToObject(s->addons, files[i], j);
		ystream_release(&ys);
		buf_release(&data);
		err_release(&e);
		free(p);
	}
}

int source_load(struct source *out, char **paths, size_t n,
		const char *templates, struct diags *d, struct err *err)
{
	struct stat st;
	struct source s = SOURCE_INIT;
	int ret = -1;

	if (n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
		if (load_rendered(&s, paths[0], NULL, d, err) < 0 ||
		    find_cluster(&s, paths[0], err) < 0)
			goto out;
		load_addons(&s, paths[0]);
	} else {
		struct tmpl_set *t = NULL;
		struct inputs ins = INPUTS_INIT;
		struct buf desc = BUF_INIT;
		if (tmpl_set_load(&t, templates, err) < 0)
			goto out;
		if (inputs_render(&ins, paths, n, t, 0, d, err) < 0) {
			tmpl_set_free(t);
			inputs_release(&ins);
			goto out;
		}
		tmpl_set_free(t);
		s.docs = cJSON_CreateArray();
		for (size_t i = 0; i < ins.nr; i++) {
			cJSON *doc;
			if (s.cluster && strcmp(s.cluster, ins.items[i].r.cluster)) {
				err_set(err, ERR_INVALID,
					"'%s' is for cluster '%s' but '%s' is "
					"for '%s': reconcile one cluster at a "
					"time",
					ins.items[i].path, ins.items[i].r.cluster,
					ins.items[0].path, s.cluster);
				inputs_release(&ins);
				buf_release(&desc);
				goto out;
			}
			if (!s.cluster)
				s.cluster = xstrdup(ins.items[i].r.cluster);
			buf_addf(&desc, "%s%s", i ? " " : "", ins.items[i].path);
			while ((doc = cJSON_DetachItemFromArray(ins.items[i].r.docs, 0)))
				cJSON_AddItemToArray(s.docs, doc);
			/* one cluster: one set of add-on files (the first
			 * intent's file of a name wins) */
			if (!s.addons)
				s.addons = cJSON_CreateObject();
			while (ins.items[i].r.addons &&
			       (doc = ins.items[i].r.addons->child)) {
				doc = cJSON_DetachItemViaPointer(
					ins.items[i].r.addons, doc);
				if (cJSON_GetObjectItemCaseSensitive(
					    s.addons, doc->string))
					cJSON_Delete(doc);
				else
					cJSON_AddItemToObject(
						s.addons, doc->string, doc);
			}
		}
		inputs_release(&ins);
		s.desc = buf_detach(&desc, NULL);
	}
	*out = s;
	memset(&s, 0, sizeof(s));
	ret = 0;
out:
	source_release(&s);
	return ret;
}

void source_release(struct source *s)
{
	free(s->commit);
	free(s->cache);
	free(s->cluster);
	cJSON_Delete(s->docs);
	cJSON_Delete(s->addons);
	free(s->desc);
	buf_release(&s->intent);
	memset(s, 0, sizeof(*s));
}

int source_check_ancestor(const struct source *s, const char *recorded,
			  const char *ref, int allow, struct buf *warning,
			  struct err *err)
{
	int yes = 0;

	if (source_git_descends(s, recorded, &yes, err) < 0)
		return -1;
	if (yes)
		return 0;
	if (allow) {
		buf_addf(warning,
			 "commit %.12s does not descend from %.12s, the commit "
			 "the inventory was last reconciled from; applying it "
			 "(--allow-non-ancestor)",
			 s->commit, recorded);
		return 0;
	}
	return err_set(err, ERR_CONFLICT,
		       "commit %.12s (%s) does not descend from %.12s, the "
		       "commit the inventory was last reconciled from: the "
		       "branch was force-pushed to older or other history, "
		       "and applying it would undo (with --prune: delete) what "
		       "the newer commits created. Nothing was written. Check "
		       "the branch; to apply this commit anyway pass "
		       "--allow-non-ancestor",
		       s->commit, ref ? ref : "main", recorded);
}

/* ---- diff --base: the intents at two revisions ---------------------------- */

/* the file as the user can open it: REV:PATH, or its place on disk */
static char *side_label(const struct source_side *s, const char *repo_dir,
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
		     const struct source_side *s, const char *path,
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
static int side_render(struct source_side *s, struct repo *r, char **paths,
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
		if (rc == 0 && !absent) {
			struct pipeline pl;

			rc = pipeline_run(&pl, label, buf_cstr(&data), data.len,
					  t, PIPELINE_RENDER, &s->d, &e);
			if (rc == 0) {
				/* its capacity findings were said by the
				 * render's validation */
				struct diags scratch = DIAGS_INIT;
				capplan_add_intent(&s->cap, label, &pl.in,
						   &scratch);
				diags_release(&scratch);
				s->r[i] = pl.r;
				pl.r = (struct rendered)RENDERED_INIT;
			}
			pipeline_release(&pl);
		}
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
static void side_name(struct buf *out, const struct source_side *s)
{
	if (s->rev)
		buf_addf(out, "at %s '%s'", s->what, s->rev);
	else
		buf_adds(out, "in the work tree");
}

/* two intent files of one revision for the same cluster cannot be compared
 * object by object (nor rendered together) */
static int side_check_clusters(const struct source_side *s, char **paths, size_t n,
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

static void side_release(struct source_side *s, size_t n)
{
	for (size_t i = 0; s->r && i < n; i++)
		rendered_release(&s->r[i]);
	free(s->r);
	s->r = NULL;
	diags_release(&s->d);
	capplan_release(&s->cap);
}

static int invalid_error(const struct source_side *a, const struct source_side *b,
			 struct err *err)
{
	struct buf m = BUF_INIT;
	const struct source_side *sides[] = { a, b };
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

int source_revs_open(struct source_revs *s, char *const *args, size_t n,
		     int *usage, struct err *err)
{
	*usage = 0;
	if ((s->repo_dir ? repo_open(&s->r, s->repo_dir, err)
			 : repo_discover(&s->r, ".", err)) < 0)
		return -1;
	if (repo_resolve(s->r, s->base.rev, s->base.oid, err) < 0)
		return err_wrap(err, "--base");
	if (s->head.rev && repo_resolve(s->r, s->head.rev, s->head.oid, err) < 0)
		return err_wrap(err, "--head");
	if (!s->head.rev && !repo_workdir(s->r)) {
		*usage = 1;
		return err_set(err, ERR_INVALID, "'%s' is a bare repository: "
				"give --head REV",
			       s->repo_dir ? s->repo_dir : ".");
	}
	s->args = args;
	s->n = n;
	s->paths = xcalloc(n ? n : 1, sizeof(*s->paths));
	for (size_t i = 0; i < n; i++) {
		struct buf why = BUF_INIT;

		s->paths[i] = git_path(args[i], repo_workdir(s->r),
				       s->repo_dir != NULL, &why);
		if (!s->paths[i]) {
			*usage = 1;
			err_set(err, ERR_INVALID, "%s",
				why.len ? buf_cstr(&why)
					: "not a file in the repository");
		}
		buf_release(&why);
		if (*usage)
			return -1;
	}
	return 0;
}

int source_revs_render(struct source_revs *s, const struct tmpl_set *t,
		       struct err *err)
{
	if (side_render(&s->base, s->r, s->paths, s->args, s->n, s->repo_dir,
			t, err) < 0 ||
	    side_render(&s->head, s->r, s->paths, s->args, s->n, s->repo_dir,
			t, err) < 0)
		return -1;
	if (s->base.failed || s->head.failed)
		return invalid_error(&s->base, &s->head, err);
	return 0;
}

int source_revs_check(const struct source_revs *s, struct err *err)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->base.r[i].docs && !s->head.r[i].docs) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "'%s' exists neither ", s->paths[i]);
			side_name(&m, &s->base);
			buf_adds(&m, " nor ");
			side_name(&m, &s->head);
			err_set(err, ERR_NOTFOUND, "%s", buf_cstr(&m));
			buf_release(&m);
			return -1;
		}
	if (side_check_clusters(&s->base, s->paths, s->n, err) < 0 ||
	    side_check_clusters(&s->head, s->paths, s->n, err) < 0)
		return -1;
	return 0;
}

int source_revs_compare(const struct source_revs *s, struct objdiff *d,
			struct addondiff *ad, struct err *err)
{
	struct objset sa = OBJSET_INIT, sb = OBJSET_INIT;
	const struct rendered *rb = s->base.r, *rh = s->head.r;
	int ret;

	for (size_t i = 0; i < s->n; i++) {
		if (rb[i].docs)
			objset_add(&sa, rb[i].cluster, rb[i].docs);
		if (rh[i].docs)
			objset_add(&sb, rh[i].cluster, rh[i].docs);
		/* the add-on files by key (one intent: addons/ at the top) */
		addondiff_add(ad,
			      s->n > 1 ? (rh[i].cluster ? rh[i].cluster
							: rb[i].cluster)
				       : NULL,
			      rb[i].addons, rh[i].addons, rb[i].docs,
			      rh[i].docs);
	}
	ret = objdiff_compute(d, &sa, &sb, err);
	objset_release(&sa);
	objset_release(&sb);
	return ret;
}

void source_revs_release(struct source_revs *s)
{
	side_release(&s->base, s->n);
	side_release(&s->head, s->n);
	for (size_t i = 0; s->paths && i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	s->paths = NULL;
	repo_free(s->r);
	s->r = NULL;
}

void source_revs_format(struct buf *out, enum source_revs_fmt fmt,
			const struct source_revs *s, const struct objdiff *d,
			const struct addondiff *ad)
{
	const struct capplan *cb = &s->base.cap, *ch = &s->head.cap;
	struct objdiff_rev revb = { s->base.rev, s->base.oid };
	struct objdiff_rev revh = { s->head.rev,
				    s->head.rev ? s->head.oid : NULL };
	const struct objdiff_rev *rb = &revb, *rh = &revh;
	struct buf lead = BUF_INIT, sec = BUF_INIT;

	if (fmt == SOURCE_REVS_MARKDOWN) {
		if (capplan_changed(cb, ch)) {
			buf_adds(&lead, "Capacity: ");
			capplan_diff_lead(&lead, cb, ch);
		}
		if (ad->nr)
			buf_addf(&lead, "%sadd-ons: %zu setting%s changed",
				 lead.len ? "; " : "", ad->nr,
				 ad->nr == 1 ? "" : "s");
		capplan_diff_markdown(&sec, cb, ch);
		addondiff_format_markdown(&sec, ad);
		objdiff_format_markdown_ext(out, d, rb, rh,
					    lead.len ? buf_cstr(&lead) : NULL,
					    buf_cstr(&sec));
	} else if (fmt == SOURCE_REVS_JSON) {
		struct buf j = BUF_INIT;
		cJSON *root;
		char *txt;
		objdiff_format_json_ext(&j, d, rb, rh, "capacity",
					capplan_diff_json(cb, ch));
		/* .addons when add-on settings changed (the same printer, so
		 * the rest is byte for byte what it was) */
		if (ad->nr && (root = cJSON_Parse(buf_cstr(&j)))) {
			cJSON_AddItemToObject(root, "addons", addondiff_json(ad));
			if ((txt = cJSON_Print(root))) {
				buf_reset(&j);
				buf_adds(&j, txt);
				buf_addc(&j, '\n');
				free(txt);
			}
			cJSON_Delete(root);
		}
		buf_adds(out, buf_cstr(&j));
		buf_release(&j);
	} else {
		/* before the summary line, which stays last; nothing when
		 * the capacity did not change */
		if (capplan_changed(cb, ch))
			capplan_diff_text(&sec, cb, ch);
		addondiff_format_text(&sec, ad);
		objdiff_format_text_ext(out, d, sec.len ? buf_cstr(&sec) : NULL);
		/* the summary line (last) counts the add-on settings too */
		if (ad->nr && out->len && out->ptr[out->len - 1] == '\n') {
			out->len--;
			out->ptr[out->len] = '\0';
			buf_adds(out, "; ");
			addondiff_summary(out, ad);
			buf_addc(out, '\n');
		}
	}
	buf_release(&lead);
	buf_release(&sec);
}
