/*
 * reconcile/installrun.h: the `gpuform install` run — where the job
 * reconciles from (--path and --cluster, with the deprecated spelling) and
 * the manifests rendered to a stream or written into a directory
 * atomically like `render -o`. cmd/install.c parses, prints what these
 * return and picks the exit code.
 */
#ifndef RECONCILE_INSTALLRUN_H
#define RECONCILE_INSTALLRUN_H

#include "generator/install.h"
#include "generator/render.h"
#include "util/buf.h"
#include "util/err.h"

/*
 * installrun_where: io->git_path (NULL: "clusters") and io->cluster as the
 * job gets them. The path is cleaned; without a cluster, the deprecated
 * --path of one cluster's directory is split into the parent and the
 * cluster, and *warning (owned, else NULL) says so. *path and *cluster
 * (owned, *cluster NULL when io->cluster was given) back io->git_path and
 * io->cluster; free them after the run, also on failure. -1 (ERR_INVALID,
 * a usage error's text) when --path ends in the directory --cluster names.
 */
int installrun_where(struct install_opts *io, char **path, char **cluster,
		     char **warning, struct err *err);

/*
 * installrun_write: render the manifests (templates: an override
 * directory or NULL; aws_policy: add the IAM policy ConfigMap). dir NULL:
 * as one stream in fmt appended to *out; else written into dir atomically,
 * *nobjs set to the number of objects. 0 or -1.
 */
int installrun_write(const struct install_opts *io, const char *templates,
		     int aws_policy, enum render_format fmt, const char *dir,
		     struct buf *out, int *nobjs, struct err *err);

#endif
