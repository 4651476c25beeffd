/*
 * util/fs.c: capped file reads and atomic directory replacement.
 * Does not know what the files contain.
 */
#define _GNU_SOURCE /* renameat2 */
#include "util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/vec.h"
#include "util/xalloc.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int fs_read_file(struct buf *out, const char *path, size_t max,
		 struct err *err)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t start = out->len;
	int ret = -1;

	if (fd < 0)
		return err_errno(err, "cannot open '%s'", path);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		err_set(err, ERR_INVALID, "'%s' is a directory, not a file",
			path);
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_errno(err, "cannot read '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		if (max && out->len + (size_t)n > max) {
			err_set(err, ERR_INVALID,
				"'%s' is larger than the limit of %zu bytes",
				path, max);
			goto out;
		}
		buf_add(out, chunk, (size_t)n);
	}
	ret = 0;
out:
	close(fd);
	/* on failure *out is as it was (callers need not release a part) */
	if (ret < 0 && !start) {
		buf_release(out);
	} else if (ret < 0) {
		out->len = start;
		out->ptr[start] = '\0';
	}
	return ret;
}

void fs_tree_add(struct fs_tree *t, const char *path, char *data, size_t len)
{
	GROW(t->files, t->nr + 1, t->alloc);
	t->files[t->nr].path = xstrdup(path);
	t->files[t->nr].data = data;
	t->files[t->nr].len = len;
	t->nr++;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fs_file *)a)->path,
		      ((const struct fs_file *)b)->path);
}

void fs_tree_sort(struct fs_tree *t)
{
	if (t->nr > 1)
		qsort(t->files, t->nr, sizeof(*t->files), file_cmp);
}

const struct fs_file *fs_tree_find(const struct fs_tree *t, const char *path)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->files[i].path, path))
			return &t->files[i];
	return NULL;
}

void fs_tree_release(struct fs_tree *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->files[i].path);
		free(t->files[i].data);
	}
	free(t->files);
	t->files = NULL;
	t->nr = t->alloc = 0;
}

int fs_remove_tree(const char *path, struct err *err)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_errno(err, "cannot remove '%s'", path);
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0)
			return err_errno(err, "cannot remove '%s'", path);
		return 0;
	}
	d = opendir(path);
	if (!d)
		return err_errno(err, "cannot open directory '%s'", path);
	while ((de = readdir(d))) {
		char *sub;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (fs_remove_tree(sub, err) < 0)
			ret = -1;
		free(sub);
		if (ret)
			break;
	}
	closedir(d);
	if (!ret && rmdir(path) < 0)
		return err_errno(err, "cannot remove directory '%s'", path);
	return ret;
}

static int mkdirs_for(const char *root, const char *rel, struct buf *last,
		      struct err *err)
{
	const char *slash = strrchr(rel, '/');
	char *p;
	int ret = 0;

	/* files come sorted: most share the previous file's directory */
	if (!slash)
		return 0;
	if (last->len == (size_t)(slash - rel) &&
	    !strncmp(buf_cstr(last), rel, last->len))
		return 0;
	buf_reset(last);
	buf_add(last, rel, (size_t)(slash - rel));
	p = xstrdup(rel);

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		char *full;
		*s = '\0';
		full = xasprintf("%s/%s", root, p);
		if (mkdir(full, 0755) < 0 && errno != EEXIST)
			ret = err_errno(err, "cannot create directory '%s'",
					full);
		free(full);
		*s = '/';
		if (ret)
			break;
	}
	free(p);
	return ret;
}

/* mkdir_p: create path and its missing parents (mode 0755) */
static int mkdir_p(const char *path, struct err *err)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s)
			continue;
		{
			char saved = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				ret = err_errno(err, "cannot create directory '%s'", p);
				*s = saved;
				break;
			}
			*s = saved;
		}
		if (!*s)
			break;
	}
	free(p);
	return ret;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int valid_rel_path(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (*s == '/')
			s++;
	}
	return 1;
}

static int dir_owned_or_empty(const char *dir, const char *owner_file,
			      const char *owner_prefix, struct err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;
	char *path;
	struct buf content = BUF_INIT;
	struct err ignored = ERR_INIT;
	int owned;

	if (!d)
		return err_errno(err, "cannot open directory '%s'", dir);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	if (empty)
		return 0;
	path = xasprintf("%s/%s", dir, owner_file);
	owned = fs_read_file(&content, path, 1 << 20, &ignored) == 0 &&
		!strncmp(buf_cstr(&content), owner_prefix,
			 strlen(owner_prefix));
	free(path);
	buf_release(&content);
	err_release(&ignored);
	if (!owned)
		return err_set(err, ERR_INVALID,
			       "'%s' is not empty and was not written by "
			       "gpuform (no '%s' of ours in it); refusing to "
			       "replace it: choose a new or empty directory",
			       dir, owner_file);
	return 0;
}

int fs_tree_write_atomic(const struct fs_tree *t, const char *dir,
			 const char *owner_file, const char *owner_prefix,
			 struct err *err)
{
	char *parent = xstrdup(dir), *slash, *tmp = NULL;
	struct buf lastdir = BUF_INIT;
	struct stat st;
	int exists = 0, ret = -1, dfd;

	/* strip trailing slashes, then split off the parent directory */
	for (size_t n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--)
		parent[n - 1] = '\0';
	slash = strrchr(parent, '/');
	if (!slash) {
		free(parent);
		parent = xstrdup(".");
	} else if (slash == parent) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}

	if (lstat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			err_set(err, ERR_INVALID,
				"'%s' exists and is not a directory", dir);
			goto out;
		}
		if (dir_owned_or_empty(dir, owner_file, owner_prefix, err) < 0)
			goto out;
		exists = 1;
	} else if (errno != ENOENT) {
		err_errno(err, "cannot access '%s'", dir);
		goto out;
	}

	/* like mkdir -p for the parents of dir */
	if (mkdir_p(parent, err) < 0)
		goto out;
	tmp = xasprintf("%s/.gpuform-tmp-XXXXXX", parent);
	if (!mkdtemp(tmp)) {
		err_errno(err, "cannot create a temporary directory in '%s'",
			  parent);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (chmod(tmp, 0755) < 0) {
		err_errno(err, "cannot chmod '%s'", tmp);
		goto out;
	}

	for (size_t i = 0; i < t->nr; i++) {
		const struct fs_file *f = &t->files[i];
		char *path;
		int fd;

		if (!valid_rel_path(f->path)) {
			err_set(err, ERR_INTERNAL, "invalid output path '%s'",
				f->path);
			goto out;
		}
		if (mkdirs_for(tmp, f->path, &lastdir, err) < 0)
			goto out;
		path = xasprintf("%s/%s", tmp, f->path);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, f->data, f->len) < 0) {
			err_errno(err, "cannot write '%s'", path);
			if (fd >= 0)
				close(fd);
			free(path);
			goto out;
		}
		if (close(fd) < 0) {
			err_errno(err, "cannot write '%s'", path);
			free(path);
			goto out;
		}
		free(path);
	}

	/* make the new files durable before they become visible: one
	 * syncfs for the whole tree instead of an fsync per file */
	dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || syncfs(dfd) < 0) {
		err_errno(err, "cannot sync '%s'", tmp);
		if (dfd >= 0)
			close(dfd);
		goto out;
	}
	close(dfd);

	if (!exists) {
		if (rename(tmp, dir) < 0) {
			err_errno(err, "cannot move output into '%s'", dir);
			goto out;
		}
	} else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) < 0) {
		/* no RENAME_EXCHANGE (old kernel, some filesystems): two renames */
		char *old = xasprintf("%s.old", tmp);
		if (errno != EINVAL && errno != ENOSYS) {
			err_errno(err, "cannot replace '%s'", dir);
			free(old);
			goto out;
		}
		if (rename(dir, old) < 0) {
			err_errno(err, "cannot replace '%s'", dir);
			free(old);
			goto out;
		}
		if (rename(tmp, dir) < 0) {
			err_errno(err, "cannot replace '%s'", dir);
			if (rename(old, dir) < 0) {
				/* keep both; say where the old tree is */
				err_wrap(err, "previous output kept in '%s'", old);
			}
			free(old);
			goto out;
		}
		free(tmp);
		tmp = old; /* now holds the previous tree; removed below */
	}
	/* tmp now names the previous tree (or nothing): remove it */
	{
		struct err ignored = ERR_INIT;
		fs_remove_tree(tmp, &ignored);
		err_release(&ignored);
	}
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	tmp = NULL;
	ret = 0;
out:
	if (tmp) {
		struct err ignored = ERR_INIT;
		fs_remove_tree(tmp, &ignored);
		err_release(&ignored);
		free(tmp);
	}
	free(parent);
	buf_release(&lastdir);
	return ret;
}

/* write data to a fresh temporary sibling of path with mode, synced */
static int write_sibling(const char *path, const char *data, size_t len,
			 mode_t mode, char **tmp_out, struct err *err)
{
	char *tmp = xasprintf("%s.gpuform-XXXXXX", path);
	int fd = mkstemp(tmp);
	size_t off = 0;

	if (fd < 0) {
		err_errno(err, "cannot write next to '%s'", path);
		free(tmp);
		return -1;
	}
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_errno(err, "cannot write '%s'", tmp);
			goto fail;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, mode & 07777) < 0 || fsync(fd) < 0) {
		err_errno(err, "cannot write '%s'", tmp);
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		err_errno(err, "cannot write '%s'", tmp);
		goto fail;
	}
	*tmp_out = tmp;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

int fs_replace_files(char *const *paths, const char *const *data,
		     const size_t *len, size_t n, struct err *err)
{
	char **tmp = xcalloc(n ? n : 1, sizeof(*tmp));
	size_t i, done = 0;
	int ret = -1;

	for (i = 0; i < n; i++) {
		struct stat st;
		if (lstat(paths[i], &st) < 0) {
			err_errno(err, "cannot read '%s'", paths[i]);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			err_set(err, ERR_INVALID,
				"'%s' is not a regular file; it was not "
				"changed",
				paths[i]);
			goto out;
		}
		if (write_sibling(paths[i], data[i], len[i], st.st_mode,
				  &tmp[i], err) < 0)
			goto out;
	}
	for (done = 0; done < n; done++)
		if (rename(tmp[done], paths[done]) < 0) {
			err_errno(err, "cannot replace '%s' (%zu of %zu files "
				       "were replaced)",
				  paths[done], done, n);
			goto out;
		}
	ret = 0;
out:
	for (i = done; i < n; i++)
		if (tmp[i])
			unlink(tmp[i]);
	for (i = 0; i < n; i++)
		free(tmp[i]);
	free(tmp);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_yaml_name(const char *n)
{
	size_t len = strlen(n);

	return (len > 5 && !strcmp(n + len - 5, ".yaml")) ||
	       (len > 4 && !strcmp(n + len - 4, ".yml"));
}

int fs_list_yaml(const char *dir, char ***paths, size_t *n, size_t *alloc,
		 struct diags *d)
{
	char **here = NULL;
	size_t nhere = 0, ahere = 0;
	DIR *dh = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!dh) {
		diags_add(d, DIAG_ERROR, dir, 0, 0, NULL,
			  "cannot read directory: %s", strerror(errno));
		return -1;
	}
	while ((e = readdir(dh)))
		if (e->d_name[0] != '.') {
			GROW(here, nhere + 1, ahere);
			here[nhere++] =
				!strcmp(dir, ".")
					? xstrdup(e->d_name)
					: xasprintf("%s%s%s", dir,
						    dir[strlen(dir) - 1] == '/'
							    ? ""
							    : "/",
						    e->d_name);
		}
	closedir(dh);
	if (nhere)
		qsort(here, nhere, sizeof(*here), cmp_str);
	for (size_t i = 0; i < nhere; i++) {
		struct stat st;
		if (stat(here[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (fs_list_yaml(here[i], paths, n, alloc, d) < 0)
				ret = -1;
			free(here[i]);
		} else if (is_yaml_name(here[i])) {
			GROW(*paths, *n + 1, *alloc);
			(*paths)[(*n)++] = here[i];
		} else {
			free(here[i]);
		}
	}
	free(here);
	return ret;
}
