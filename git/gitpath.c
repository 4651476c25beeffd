/* git/gitpath.c: see gitpath.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "git/gitpath.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * The intent path as a path inside the repository: "./specs//a.yaml" ->
 * "specs/a.yaml"; an absolute path must lie in the work tree. NULL for a
 * path that leaves the repository ("..") or names nothing.
 */
static char *top_path(const char *arg, const char *workdir)
{
	struct buf b = BUF_INIT;
	const char *p = arg;

	if (*p == '/') {
		size_t n = workdir ? strlen(workdir) : 0;
		while (n && workdir[n - 1] == '/')
			n--;
		if (!n || strncmp(p, workdir, n) || p[n] != '/')
			return NULL;
		p += n;
	}
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2)) {
			buf_release(&b);
			return NULL;
		}
		if (n && !(n == 1 && *p == '.')) {
			if (b.len)
				buf_addc(&b, '/');
			buf_add(&b, p, n);
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (!b.len)
		return NULL;
	return buf_detach(&b, NULL);
}

/* normalise: "/a/./b//../c" -> "/a/c" (lexically; absolute paths only) */
static char *lexical_abs(const char *p)
{
	struct buf b = BUF_INIT;

	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2)) {
			while (b.len && b.ptr[b.len - 1] != '/')
				b.len--;
			if (b.len)
				b.len--;
			b.ptr[b.len] = '\0';
		} else if (n && !(n == 1 && *p == '.')) {
			buf_addc(&b, '/');
			buf_add(&b, p, n);
		}
		p += n;
	}
	if (!b.len)
		buf_addc(&b, '/');
	return buf_detach(&b, NULL);
}

/*
 * git_path: an INTENT argument as a path inside the repository, as git
 * reads paths: relative to the current directory anywhere inside the work
 * tree. From outside it with --repo, relative to the repository's top (the
 * older rule, kept); a bare repository has no work tree, so the same. NULL
 * with *why set when the path is outside the work tree.
 */
char *git_path(const char *arg, const char *workdir, int explicit_repo,
		      struct buf *why)
{
	char *cwd = realpath(".", NULL), *wd = workdir ? realpath(workdir, NULL)
						       : NULL;
	char *full = NULL, *ret = NULL, *real = NULL;
	size_t wl;
	int inside;

	if (!wd || !cwd) {
		ret = top_path(arg, workdir);
		goto out;
	}
	wl = strlen(wd);
	inside = !strncmp(cwd, wd, wl) && (cwd[wl] == '/' || !cwd[wl]);
	if (!inside && explicit_repo && arg[0] != '/') {
		ret = top_path(arg, workdir);
		goto out;
	}
	/* an existing file: follow symbolic links like git does not need
	 * to (the work tree itself may be reached through one) */
	real = realpath(arg, NULL);
	if (real)
		full = real, real = NULL;
	else if (arg[0] == '/')
		full = lexical_abs(arg);
	else {
		char *j = xasprintf("%s/%s", cwd, arg);
		full = lexical_abs(j);
		free(j);
	}
	if (!strncmp(full, wd, wl) && full[wl] == '/' && full[wl + 1])
		ret = xstrdup(full + wl + 1);
	else
		buf_addf(why, "'%s' is outside the work tree of the repository "
			      "at '%s' (paths are relative to the current "
			      "directory, as in git)",
			 arg, wd);
out:
	free(real);
	free(full);
	free(cwd);
	free(wd);
	return ret;
}

char *git_path_clean(const char *p)
{
	char *s;
	size_t n;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	s = xstrdup(p);
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	if (!n || !strcmp(s, "/")) {
		free(s);
		s = xstrdup(".");
	}
	return s;
}
