/* reconcile/writeback.c: commit's directories and message (see writeback.h). */
#include "reconcile/writeback.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

/* one intent's directory: the checks, then its files; 0 or -1 */
static int one_dir(struct publish_dir *out, const struct inputs *ins,
		   size_t i, const struct tmpl_set *t, const char *root,
		   int *usage, struct err *err)
{
	struct inputs one = { &ins->items[i], 1 };
	const char *name = ins->items[i].r.cluster;
	const char *base = strrchr(root, '/');
	char *dir;

	base = base ? base + 1 : root;
	if (!strcmp(base, name)) {
		*usage = 1;
		return err_set(err, ERR_INVALID,
			       "--path '%s' names the directory that holds one "
			       "directory per cluster; this would write "
			       "cluster '%s' to '%s/%s/' (use --path %.*s)",
			       root, name, root, name,
			       base == root ? 8 : (int)(base - root - 1),
			       base == root ? "clusters" : root);
	}
	for (size_t j = 0; j < i; j++)
		if (!strcmp(ins->items[j].r.cluster, name))
			return err_set(err, ERR_INVALID,
				       "'%s' and '%s' both describe cluster "
				       "'%s'; commit them separately",
				       ins->items[j].path, ins->items[i].path,
				       name);
	dir = xasprintf("%s/%s", root, name);
	out->path = publish_dir_path(dir);
	free(dir);
	if (!out->path)
		return err_set(err, ERR_INVALID,
			       "cluster name '%s' cannot be a directory name",
			       name);
	return inputs_tree(&one, t, RENDER_YAML, 0, &out->files, err);
}

int writeback_dirs(struct publish_dir **out, const struct inputs *ins,
		   const struct tmpl_set *t, const char *root, int *usage,
		   struct err *err)
{
	struct publish_dir *d = xcalloc(ins->nr ? ins->nr : 1, sizeof(*d));

	*usage = 0;
	for (size_t i = 0; i < ins->nr; i++)
		if (one_dir(&d[i], ins, i, t, root, usage, err) < 0) {
			writeback_dirs_free(d, ins->nr);
			*out = NULL;
			return -1;
		}
	*out = d;
	return 0;
}

void writeback_dirs_free(struct publish_dir *dirs, size_t n)
{
	for (size_t i = 0; dirs && i < n; i++) {
		free(dirs[i].path);
		fs_tree_release(&dirs[i].files);
	}
	free(dirs);
}

char *writeback_subject(const struct inputs *ins)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "gpuform: render ");
	for (size_t i = 0; i < ins->nr; i++)
		buf_addf(&b, "%s%s", i ? ", " : "", ins->items[i].r.cluster);
	return buf_detach(&b, NULL);
}

int writeback_trailers(struct buf *out, const struct inputs *ins,
		       const char *workdir, struct err *err)
{
	char **paths = xcalloc(ins->nr + 1, sizeof(*paths));
	int ret;

	for (size_t i = 0; i < ins->nr; i++)
		paths[i] = ins->items[i].path;
	ret = publish_trailers(out, paths, ins->nr, workdir, GPUFORM_VERSION,
			       err);
	free(paths);
	return ret;
}
