/*
 * git/loose.c: check the loose objects of a repository before libgit2
 * reads them (repo_check_loose, repo.h) — the only zlib user. Debian 12's
 * libgit2 1.5 loops forever on a truncated loose object (libgit2 #7342,
 * fixed upstream after 1.5), so the --git cache is checked by inflating
 * each one to its end first.
 */
#include "git/repo.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/xalloc.h"

/* loose_ok: the loose object file inflates to its end */
static int loose_ok(const char *path)
{
	static unsigned char in[16384], out[16384];
	FILE *f = fopen(path, "rb");
	z_stream z;
	int zr = Z_OK;

	if (!f)
		return 0;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		fclose(f);
		return 0;
	}
	while (zr != Z_STREAM_END) {
		size_t n = fread(in, 1, sizeof(in), f);
		if (!n)
			break;
		z.next_in = in;
		z.avail_in = (uInt)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = inflate(&z, Z_NO_FLUSH);
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
				goto done;
		} while (z.avail_in && zr != Z_STREAM_END);
	}
done:
	inflateEnd(&z);
	fclose(f);
	return zr == Z_STREAM_END;
}

int repo_check_loose(const char *gitdir, struct err *err)
{
	char *objects = xasprintf("%s/objects", gitdir);
	DIR *d = opendir(objects);
	struct dirent *de;
	int ret = 0;

	while (d && ret == 0 && (de = readdir(d))) {
		char *sub;
		DIR *sd;
		struct dirent *fe;

		if (strlen(de->d_name) != 2 || !isxdigit((unsigned char)de->d_name[0]) ||
		    !isxdigit((unsigned char)de->d_name[1]))
			continue;
		sub = xasprintf("%s/%s", objects, de->d_name);
		sd = opendir(sub);
		while (sd && ret == 0 && (fe = readdir(sd))) {
			char *f;
			if (strlen(fe->d_name) != REPO_OID_HEX - 3)
				continue;
			f = xasprintf("%s/%s", sub, fe->d_name);
			if (!loose_ok(f))
				ret = err_set(err, ERR_GIT,
					      "object %s%s in '%s' is truncated "
					      "or corrupt",
					      de->d_name, fe->d_name, gitdir);
			free(f);
		}
		if (sd)
			closedir(sd);
		free(sub);
	}
	if (d)
		closedir(d);
	free(objects);
	return ret;
}
