/*
 * aws/sigv4.c: AWS Signature Version 4 (see sigv4.h).
 */
#include "aws/sigv4.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/digest.h"
#include "util/xalloc.h"

/* the URL's host[:port] (no user info, no default port), path and query */
static void split_url(const char *url, struct buf *host, struct buf *path,
		      struct buf *query)
{
	const char *p = strstr(url, "://"), *auth, *at, *end, *q;
	int https = !strncmp(url, "https://", 8);
	size_t alen;

	auth = p ? p + 3 : url;
	alen = strcspn(auth, "/?#");
	at = memchr(auth, '@', alen);
	if (at) {
		alen -= (size_t)(at + 1 - auth);
		auth = at + 1;
	}
	if (alen > 4 && https && !memcmp(auth + alen - 4, ":443", 4))
		alen -= 4;
	else if (alen > 3 && !https && !memcmp(auth + alen - 3, ":80", 3))
		alen -= 3;
	buf_add(host, auth, alen);
	p = auth + strcspn(auth, "/?#");
	end = p + strcspn(p, "?#");
	buf_add(path, p, (size_t)(end - p));
	if (!path->len)
		buf_addc(path, '/');
	if (*end == '?') {
		q = end + 1;
		buf_add(query, q, strcspn(q, "#"));
	}
}

/* the canonical URI: each byte but unreserved ones and '/' encoded */
static void canonical_uri(struct buf *out, const char *path)
{
	for (const char *s = path; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
		    c == '/')
			buf_addc(out, (char)c);
		else
			buf_addf(out, "%%%02X", c);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the canonical query: the parameters ("k=v", "k" as "k=") sorted */
static void canonical_query(struct buf *out, const char *query)
{
	char **v;
	size_t n = 0, i = 0;
	const char *p = query;

	if (!*query)
		return;
	for (const char *s = query; *s; s++)
		n += *s == '&';
	v = xcalloc(n + 1, sizeof(*v));
	for (;;) {
		size_t l = strcspn(p, "&");
		if (l)
			v[i++] = memchr(p, '=', l) ? xstrndup(p, l)
						   : xasprintf("%.*s=", (int)l, p);
		if (!p[l])
			break;
		p += l + 1;
	}
	qsort(v, i, sizeof(*v), cmp_str);
	for (size_t k = 0; k < i; k++) {
		buf_addf(out, "%s%s", k ? "&" : "", v[k]);
		free(v[k]);
	}
	free(v);
}

struct hdr {
	char *name;  /* lower case */
	char *value; /* trimmed, inner spaces collapsed */
};

static int cmp_hdr(const void *a, const void *b)
{
	return strcmp(((const struct hdr *)a)->name,
		      ((const struct hdr *)b)->name);
}

static void hdr_set(struct hdr *h, const char *line)
{
	const char *colon = strchr(line, ':'), *v;
	struct buf val = BUF_INIT;
	size_t nl;

	nl = colon ? (size_t)(colon - line) : strlen(line);
	while (nl && isspace((unsigned char)line[nl - 1]))
		nl--;
	h->name = xstrndup(line, nl);
	for (char *c = h->name; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	v = colon ? colon + 1 : "";
	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v; v++) {
		if (*v == ' ' || *v == '\t') {
			if (val.len && val.ptr[val.len - 1] != ' ')
				buf_addc(&val, ' ');
			continue;
		}
		buf_addc(&val, *v);
	}
	if (val.len && val.ptr[val.len - 1] == ' ')
		val.ptr[--val.len] = '\0';
	buf_cstr(&val);
	h->value = buf_detach(&val, NULL);
}

static void hmac(const unsigned char *key, size_t klen, const char *data,
		 unsigned char out[32])
{
	digest_hmac_sha256(key, klen, data, strlen(data), out);
}

static void hex(struct buf *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%02x", p[i]);
}

/* the signature of string_to_sign under the key for date/region/service */
static void signature(struct buf *out, const struct sigv4_req *r,
		      const char *date, const char *sts)
{
	struct buf k = BUF_INIT;
	unsigned char a[32], b[32];

	buf_addf(&k, "AWS4%s", r->secret);
	hmac((const unsigned char *)k.ptr, k.len, date, a);
	hmac(a, 32, r->region, b);
	hmac(b, 32, r->service, a);
	hmac(a, 32, "aws4_request", b);
	hmac(b, 32, sts, a);
	hex(out, a, 32);
	digest_wipe(b, sizeof(b));
	digest_wipe_release(&k);
}

void sigv4_sign(const struct sigv4_req *r, struct buf *lines,
		size_t offsets[3])
{
	struct buf host = BUF_INIT, path = BUF_INIT, query = BUF_INIT;
	struct buf creq = BUF_INIT, signed_h = BUF_INIT, sts = BUF_INIT;
	struct buf line = BUF_INIT, sig = BUF_INIT;
	char amz[32], date[16];
	time_t now = (time_t)r->now;
	struct tm tm;
	struct hdr *h;
	size_t n = 0, nh = 0;

	gmtime_r(&now, &tm);
	strftime(amz, sizeof(amz), "%Y%m%dT%H%M%SZ", &tm);
	strftime(date, sizeof(date), "%Y%m%d", &tm);
	split_url(r->url, &host, &path, &query);
	while (r->headers && r->headers[n])
		n++;
	h = xcalloc(n + 2, sizeof(*h));
	for (size_t i = 0; i < n; i++)
		hdr_set(&h[nh++], r->headers[i]);
	buf_addf(&line, "Host: %s", buf_cstr(&host));
	hdr_set(&h[nh++], buf_cstr(&line));
	buf_reset(&line);
	buf_addf(&line, "X-Amz-Date: %s", amz);
	hdr_set(&h[nh++], buf_cstr(&line));
	qsort(h, nh, sizeof(*h), cmp_hdr);

	buf_addf(&creq, "%s\n", r->method);
	canonical_uri(&creq, buf_cstr(&path));
	buf_addc(&creq, '\n');
	canonical_query(&creq, buf_cstr(&query));
	buf_addc(&creq, '\n');
	for (size_t i = 0; i < nh; i++) {
		buf_addf(&creq, "%s:%s\n", h[i].name, h[i].value);
		buf_addf(&signed_h, "%s%s", i ? ";" : "", h[i].name);
	}
	buf_addf(&creq, "\n%s\n", buf_cstr(&signed_h));
	digest_sha256_hex(r->body ? r->body : "", r->body ? r->len : 0, &creq);

	buf_addf(&sts, "AWS4-HMAC-SHA256\n%s\n%s/%s/%s/aws4_request\n", amz,
		 date, r->region, r->service);
	digest_sha256_hex(creq.ptr, creq.len, &sts);
	signature(&sig, r, date, buf_cstr(&sts));

	offsets[0] = lines->len;
	buf_addf(lines, "Host: %s", buf_cstr(&host));
	buf_addc(lines, '\0');
	offsets[1] = lines->len;
	buf_addf(lines, "X-Amz-Date: %s", amz);
	buf_addc(lines, '\0');
	offsets[2] = lines->len;
	buf_addf(lines,
		 "Authorization: AWS4-HMAC-SHA256 Credential=%s/%s/%s/%s/"
		 "aws4_request, SignedHeaders=%s, Signature=%s",
		 r->key_id, date, r->region, r->service, buf_cstr(&signed_h),
		 buf_cstr(&sig));

	for (size_t i = 0; i < nh; i++) {
		free(h[i].name);
		digest_wipe_str(h[i].value); /* the session token */
	}
	free(h);
	buf_release(&host);
	buf_release(&path);
	buf_release(&query);
	buf_release(&creq);
	buf_release(&signed_h);
	buf_release(&sts);
	buf_release(&line);
	buf_release(&sig);
}
