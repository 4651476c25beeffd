/*
 * git/gitpath.h: paths inside a repository: intent arguments of `diff
 * --base` the way git reads pathspecs, and the --path / --preflight-intent
 * options of reconcile --git and install.
 */
#ifndef GIT_GITPATH_H
#define GIT_GITPATH_H

#include "util/buf.h"

/*
 * git_path: an INTENT argument as a path inside the repository: relative to
 * the current directory anywhere inside the work tree (workdir). From
 * outside it with an explicit --repo, or for a bare repository (workdir
 * NULL), relative to the repository's top. NULL, with the reason in *why
 * when there is one, for a path outside the work tree.
 */
char *git_path(const char *arg, const char *workdir, int explicit_repo,
	       struct buf *why);

/*
 * git_path_clean: a path in the repository without leading "./" and
 * trailing "/": "./clusters/" -> "clusters"; "", "./" and "/" -> ".".
 * Allocated.
 */
char *git_path_clean(const char *p);

#endif
