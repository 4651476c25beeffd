/* reconcile/installrun.c: see installrun.h */
#include "reconcile/installrun.h"

#include <stdlib.h>
#include <string.h>

#include "generator/preflight.h"
#include "git/gitpath.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* split "clusters/ml-prod" into "clusters" and "ml-prod" ("ml-prod": "."
 * and "ml-prod") */
static void split_last(const char *path, char **parent, char **last)
{
	const char *slash = strrchr(path, '/');

	*last = xstrdup(slash ? slash + 1 : path);
	*parent = slash && slash > path ? xstrndup(path, (size_t)(slash - path))
					: xstrdup(".");
}

int installrun_where(struct install_opts *io, char **path, char **cluster,
		     char **warning, struct err *err)
{
	*cluster = *warning = NULL;
	*path = git_path_clean(io->git_path ? io->git_path : "clusters");
	if (!io->cluster) {
		/* the spelling before: --path was the cluster's directory;
		 * the job gets the new one */
		char *parent;
		struct buf w = BUF_INIT;
		split_last(*path, &parent, cluster);
		buf_addf(&w,
			 "--path %s names one cluster's directory: that "
			 "spelling is deprecated; use --path %s --cluster %s",
			 *path, parent, *cluster);
		*warning = buf_detach(&w, NULL);
		free(*path);
		*path = parent;
		io->cluster = *cluster;
	} else {
		const char *slash = strrchr(*path, '/');
		const char *last = slash ? slash + 1 : *path;
		if (!strcmp(last, io->cluster))
			return err_set(
				err, ERR_INVALID,
				"--path '%s' ends in the directory of cluster '%s' "
				"and --cluster names it too: drop '/%s' from "
				"--path (--path %.*s --cluster %s)",
				*path, io->cluster, last,
				slash ? (int)(slash - *path) : 1,
				slash ? *path : ".", io->cluster);
	}
	io->git_path = *path;
	return 0;
}

int installrun_write(const struct install_opts *io, const char *templates,
		     int aws_policy, enum render_format fmt, const char *dir,
		     struct buf *out, int *nobjs, struct err *err)
{
	struct rendered r = RENDERED_INIT;
	struct fs_tree tree = FS_TREE_INIT;
	struct tmpl_set *t = NULL;
	int rc = -1;

	if (tmpl_set_load(&t, templates, err) < 0 ||
	    install_render(&r.docs, io, t, err) < 0)
		goto out;
	if (aws_policy)
		cJSON_AddItemToArray(r.docs,
				     pf_iam_policy_configmap(io->namespace_));
	if (dir) {
		r.cluster = xstrdup(io->cluster);
		r.addons = cJSON_CreateObject();
		if (render_tree(&tree, &r, "", t, fmt, err) < 0 ||
		    fs_tree_write_atomic(&tree, dir, RENDER_OWNER_FILE,
					 RENDER_OWNER_PREFIX, err) < 0)
			goto out;
		*nobjs = cJSON_GetArraySize(r.docs);
	} else if (render_stream(out, &r, fmt, err) < 0) {
		goto out;
	}
	rc = 0;
out:
	fs_tree_release(&tree);
	rendered_release(&r);
	tmpl_set_free(t);
	return rc;
}
