/*
 * git/knownhosts.c: OpenSSH's known_hosts check for SSH remotes (see
 * knownhosts.h). libgit2 1.5 does not check SSH host keys at all, it only
 * hands the raw key to the certificate callback (git/repo.c cert_cb).
 * Uses OpenSSL for HMAC-SHA1 (hashed entries) and SHA-256 (the
 * fingerprint shown when a key is refused).
 */
#include "git/knownhosts.h"

#include <ctype.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "util/base64.h"
#include "util/fs.h"

#define KNOWN_HOSTS_MAX (16u << 20)

/* glob_match: OpenSSH host patterns: '*' and '?', case-insensitive */
static int glob_match(const char *p, size_t pn, const char *s)
{
	if (!pn)
		return !*s;
	if (*p == '*') {
		for (;; s++) {
			if (glob_match(p + 1, pn - 1, s))
				return 1;
			if (!*s)
				return 0;
		}
	}
	if (!*s)
		return 0;
	if (*p != '?' &&
	    tolower((unsigned char)*p) != tolower((unsigned char)*s))
		return 0;
	return glob_match(p + 1, pn - 1, s + 1);
}

/* host_matches: the known_hosts host field (patterns, or |1|salt|hash) */
static int host_matches(const char *f, size_t n, const char *name)
{
	int pos = 0;

	if (n > 3 && !strncmp(f, "|1|", 3)) {
		const char *bar = memchr(f + 3, '|', n - 3);
		struct buf salt = BUF_INIT, hash = BUF_INIT;
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdlen = 0;
		int ok = 0;

		if (bar && base64_decode(&salt, f + 3, (size_t)(bar - f - 3), 0) == 0 &&
		    base64_decode(&hash, bar + 1, n - (size_t)(bar + 1 - f), 0) == 0 &&
		    HMAC(EVP_sha1(), salt.ptr, (int)salt.len,
			 (const unsigned char *)name, strlen(name), md,
			 &mdlen) &&
		    mdlen == hash.len && CRYPTO_memcmp(md, hash.ptr, mdlen) == 0)
			ok = 1;
		buf_release(&salt);
		buf_release(&hash);
		return ok;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int neg;

		while (j < n && f[j] != ',')
			j++;
		neg = f[i] == '!';
		if (glob_match(f + i + neg, j - i - (size_t)neg, name)) {
			if (neg)
				return 0;
			pos = 1;
		}
		i = j + 1;
	}
	return pos;
}

/* key_type: the algorithm name at the start of an SSH public key blob */
static void key_type(const unsigned char *k, size_t n, struct buf *out)
{
	size_t l;

	if (n < 4) {
		buf_adds(out, "unknown");
		return;
	}
	l = (size_t)k[0] << 24 | (size_t)k[1] << 16 | (size_t)k[2] << 8 | k[3];
	if (l > n - 4 || l > 64)
		buf_adds(out, "unknown");
	else
		buf_add(out, k + 4, l);
}

/* knownhosts_check: see knownhosts.h */
int knownhosts_check(const char *file, const char *host, int port,
		     const unsigned char *key, size_t keylen, struct err *err)
{
	struct buf data = BUF_INIT, name = BUF_INIT, type = BUF_INIT;
	struct buf fp = BUF_INIT, others = BUF_INIT;
	struct err e = ERR_INIT;
	unsigned char d[32];
	unsigned int dn = 0;
	int found = 0, revoked = 0, listed = 0, ret = -1;

	if (port == 22)
		buf_adds(&name, host);
	else
		buf_addf(&name, "[%s]:%d", host, port);
	key_type(key, keylen, &type);
	buf_adds(&fp, "SHA256:");
	if (EVP_Digest(key, keylen, d, &dn, EVP_sha256(), NULL))
		base64_encode(&fp, d, dn, BASE64_NOPAD);
	if (!file) {
		err_set(err, ERR_AUTH,
			  "cannot verify the host key of '%s': set "
			  "GPUFORM_GIT_SSH_KNOWN_HOSTS (or HOME)",
			  buf_cstr(&name));
		goto out;
	}
	if (fs_read_file(&data, file, KNOWN_HOSTS_MAX, &e) < 0) {
		err_set(err, ERR_AUTH,
			  "cannot verify the host key of '%s' (%s %s): %s",
			  buf_cstr(&name), buf_cstr(&type), buf_cstr(&fp),
			  err_msg(&e));
		goto out;
	}
	for (const char *s = buf_cstr(&data); *s && !found && !revoked;) {
		size_t ln = strcspn(s, "\r\n"), hn, tn, kn;
		const char *l = s, *end = s + ln, *h, *t, *k;
		struct buf blob = BUF_INIT;
		int marker = 0; /* 1 revoked, 2 cert-authority */

		s = end + strspn(end, "\r\n");
		while (l < end && (*l == ' ' || *l == '\t'))
			l++;
		if (l == end || *l == '#')
			continue;
		if (*l == '@') {
			size_t mn = strcspn(l, " \t\r\n");
			marker = mn == 8 && !strncmp(l, "@revoked", 8) ? 1 : 2;
			l += mn;
			while (l < end && (*l == ' ' || *l == '\t'))
				l++;
		}
		h = l;
		hn = strcspn(h, " \t\r\n");
		t = h + hn;
		while (t < end && (*t == ' ' || *t == '\t'))
			t++;
		tn = strcspn(t, " \t\r\n");
		k = t + tn;
		while (k < end && (*k == ' ' || *k == '\t'))
			k++;
		kn = strcspn(k, " \t\r\n");
		if (!hn || !tn || !kn || k + kn > end || marker == 2)
			continue;
		if (marker != 1 && !host_matches(h, hn, buf_cstr(&name)))
			continue;
		if (base64_decode(&blob, k, kn, 0) < 0) {
			buf_release(&blob);
			continue;
		}
		if (blob.len == keylen && !memcmp(blob.ptr, key, keylen)) {
			if (marker == 1)
				revoked = 1;
			else
				found = 1;
		} else if (marker != 1) {
			listed = 1;
			if (others.len)
				buf_adds(&others, ", ");
			buf_add(&others, t, tn);
		}
		buf_release(&blob);
	}
	if (revoked)
		err_set(err, ERR_AUTH,
			  "host key of '%s' (%s %s) is marked @revoked in '%s'; "
			  "refusing to connect",
			  buf_cstr(&name), buf_cstr(&type), buf_cstr(&fp), file);
	else if (found)
		ret = 0;
	else if (listed)
		err_set(err, ERR_AUTH,
			  "host key of '%s' (%s %s) does not match the key%s "
			  "listed in '%s' (%s): the server's key changed or "
			  "someone is intercepting the connection; refusing "
			  "to connect",
			  buf_cstr(&name), buf_cstr(&type), buf_cstr(&fp),
			  strchr(buf_cstr(&others), ',') ? "s" : "", file,
			  buf_cstr(&others));
	else
		err_set(err, ERR_AUTH,
			  "host key of '%s' (%s %s) is not in '%s'; refusing "
			  "to connect to an unknown host: add its verified key "
			  "to that file (GPUFORM_GIT_SSH_KNOWN_HOSTS names it)",
			  buf_cstr(&name), buf_cstr(&type), buf_cstr(&fp), file);
out:
	buf_release(&others);
	buf_release(&fp);
	buf_release(&type);
	buf_release(&name);
	buf_release(&data);
	err_release(&e);
	return ret;
}
