/* git/credstore.c: git's credential-store file format (see credstore.h). */
#include "git/credstore.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/digest.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/xalloc.h"

#define CRED_FILE_MAX (1u << 20)

/* url_authority: "host[:port]" of scheme://[userinfo@]host[:port]/...,
 * and the scheme; 0 if url has no "://" */
static int url_authority(const char *url, struct buf *scheme,
			 struct buf *auth)
{
	const char *p = strstr(url, "://"), *a, *end, *at;

	if (!p)
		return 0;
	buf_add(scheme, url, (size_t)(p - url));
	a = p + 3;
	end = a + strcspn(a, "/?#");
	at = NULL;
	for (const char *s = a; s < end; s++)
		if (*s == '@')
			at = s;
	if (at)
		a = at + 1;
	buf_add(auth, a, (size_t)(end - a));
	return 1;
}

/* credstore_lookup: see credstore.h */
int credstore_lookup(const char *file, const char *url, char **user,
		     char **pass, struct buf *why)
{
	struct buf data = BUF_INIT, scheme = BUF_INIT, auth = BUF_INIT;
	struct err e = ERR_INIT;
	const char *s;

	*user = *pass = NULL;
	if (!url_authority(url, &scheme, &auth))
		goto out;
	if (fs_read_file(&data, file, CRED_FILE_MAX, &e) < 0) {
		buf_addf(why, "GPUFORM_GIT_CREDENTIALS: %s", err_msg(&e));
		goto out;
	}
	for (s = buf_cstr(&data); *s;) {
		size_t n = strcspn(s, "\r\n");
		char *line = xstrndup(s, n);
		struct buf ls = BUF_INIT, la = BUF_INIT;
		const char *p = strstr(line, "://"), *at, *colon, *end;

		s += n;
		s += strspn(s, "\r\n");
		if (!p || !url_authority(line, &ls, &la) ||
		    strcasecmp(buf_cstr(&ls), buf_cstr(&scheme)) != 0 ||
		    strcasecmp(buf_cstr(&la), buf_cstr(&auth)) != 0)
			goto next;
		p += 3;
		end = p + strcspn(p, "/?#");
		at = NULL;
		for (const char *q = p; q < end; q++)
			if (*q == '@')
				at = q;
		if (!at)
			goto next;
		colon = memchr(p, ':', (size_t)(at - p));
		if (!colon)
			goto next;
		*user = url_percent_decode(p, (size_t)(colon - p));
		*pass = url_percent_decode(colon + 1, (size_t)(at - colon - 1));
	next:
		digest_wipe(line, n);
		free(line);
		buf_release(&ls);
		buf_release(&la);
		if (*user)
			break;
	}
out:
	if (data.ptr)
		digest_wipe(data.ptr, data.len);
	buf_release(&data);
	buf_release(&scheme);
	buf_release(&auth);
	err_release(&e);
	return 0;
}
