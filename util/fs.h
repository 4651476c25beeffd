/*
 * util/fs.h: reading files with a size cap, and writing a whole directory
 * of files atomically.
 *
 * struct fs_tree is an in-memory set of files (relative path -> bytes). It is
 * what `render -o` writes and what `commit` turns into a Git tree, so both
 * produce the same files.
 */
#ifndef UTIL_FS_H
#define UTIL_FS_H

#include <stddef.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

/* fs_read_file: whole file appended to *out; files over max bytes fail
 * (ERR_INVALID); on failure *out is as it was (nothing to release when it
 * was empty). */
int fs_read_file(struct buf *out, const char *path, size_t max,
		 struct err *err);

struct fs_file {
	char *path; /* relative, '/'-separated, no "..", no leading '/' */
	char *data;
	size_t len;
};

struct fs_tree {
	struct fs_file *files;
	size_t nr, alloc;
};
#define FS_TREE_INIT { NULL, 0, 0 }

/* fs_tree_add: takes ownership of data (malloc'd), copies path. */
void fs_tree_add(struct fs_tree *t, const char *path, char *data, size_t len);
/* fs_tree_sort: order files by path (byte order). */
void fs_tree_sort(struct fs_tree *t);
const struct fs_file *fs_tree_find(const struct fs_tree *t, const char *path);
void fs_tree_release(struct fs_tree *t);

/*
 * fs_tree_write_atomic: make directory `dir` hold exactly the files of t.
 *
 * The files are written and synced (syncfs) in a temporary sibling directory which
 * then replaces `dir` in one rename (renameat2 RENAME_EXCHANGE where the
 * kernel has it), so readers see the old or the new tree, never a mixture,
 * and a failure leaves the previous `dir` untouched. Files in the old `dir`
 * that t does not name are gone afterwards.
 *
 * An existing non-empty `dir` is replaced only if it holds `owner_file`
 * whose content starts with `owner_prefix` (it was written by us earlier);
 * otherwise this fails with ERR_INVALID and touches nothing.
 */
int fs_tree_write_atomic(const struct fs_tree *t, const char *dir,
			 const char *owner_file, const char *owner_prefix,
			 struct err *err);

/*
 * fs_replace_files: replace the n existing regular files paths[i] with
 * data[i] (len[i] bytes), keeping each file's mode. Every new content is
 * written and synced to a temporary sibling first; only when all are
 * there are they renamed over the files, so a failure while writing
 * leaves every file as it was. (A failure between two renames, which
 * needs the directory to vanish under us, can leave a part renamed: the
 * message says which.)
 */
int fs_replace_files(char *const *paths, const char *const *data,
		     const size_t *len, size_t n, struct err *err);

/* fs_remove_tree: rm -rf without following symlinks. */
int fs_remove_tree(const char *path, struct err *err);

/*
 * fs_list_yaml: append every *.yaml and *.yml file under dir to *paths
 * (*n used, *alloc allocated, as GROW keeps them): sorted by name at each
 * level, hidden entries skipped, subdirectories walked. A directory that
 * cannot be read is an error in *d and -1; the rest is still listed.
 */
int fs_list_yaml(const char *dir, char ***paths, size_t *n, size_t *alloc,
		 struct diags *d);

#endif
