/*
 * git/repo_remote.c: the Git module's network side (see repo.h,
 * repo_int.h) — credentials, the transport callbacks (HTTP(S) user and
 * password or token, SSH key with our own known_hosts check), checking a
 * remote, fetch and push.
 */

#include "git/repo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "git/credstore.h"
#include "git/knownhosts.h"
#include "git/repo_int.h"
#include "util/digest.h"
#include "util/url.h"
#include "util/xalloc.h"

/* ---- credentials --------------------------------------------------------- */

static char *dupenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? xstrdup(v) : NULL;
}

void repo_cred_from_env(struct repo_cred *c)
{
	const char *home = getenv("HOME");

	c->username = dupenv("GPUFORM_GIT_USERNAME");
	c->password = dupenv("GPUFORM_GIT_PASSWORD");
	if (!c->password)
		c->password = dupenv("GPUFORM_GIT_TOKEN");
	c->ssh_key = dupenv("GPUFORM_GIT_SSH_KEY");
	c->ssh_pubkey = dupenv("GPUFORM_GIT_SSH_PUBKEY");
	c->ssh_passphrase = dupenv("GPUFORM_GIT_SSH_PASSPHRASE");
	c->known_hosts = dupenv("GPUFORM_GIT_SSH_KNOWN_HOSTS");
	if (!c->known_hosts && home && *home)
		c->known_hosts = xasprintf("%s/.ssh/known_hosts", home);
}

void repo_cred_release(struct repo_cred *c)
{
	free(c->username);
	digest_wipe_str(c->password);
	free(c->ssh_key);
	free(c->ssh_pubkey);
	digest_wipe_str(c->ssh_passphrase);
	free(c->known_hosts);
	memset(c, 0, sizeof(*c));
}

/* ---- transport callbacks ------------------------------------------------- */

struct net {
	const struct repo_cred *cred;
	char *url;  /* without userinfo, for messages */
	char *host; /* for known_hosts (SSH) */
	int port;
	int loopback; /* the remote is on loopback: never through a proxy */
	int userpass_tries, key_tries;
	char *file_user, *file_pass; /* from GPUFORM_GIT_CREDENTIALS */
	enum err_code fail_code;     /* a callback refused: why */
	struct buf fail;
	struct buf rejected; /* push: refs the server refused, with status */
	int conflict;        /* ... because they moved (retry helps) */
};

static void net_failf(struct net *n, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void net_failf(struct net *n, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	n->fail_code = code;
	buf_reset(&n->fail);
	va_start(ap, fmt);
	buf_vaddf(&n->fail, fmt, ap);
	va_end(ap);
}

/* parse_ssh_url: host and port of ssh://[user@]host[:port]/path or the
 * scp-like [user@]host:path; 0 if url is not SSH */
static int parse_ssh_url(const char *url, char **host, int *port)
{
	const char *p = NULL, *end;

	*port = 22;
	if (!strncmp(url, "ssh://", 6))
		p = url + 6;
	else if (!strncmp(url, "ssh+git://", 10) ||
		 !strncmp(url, "git+ssh://", 10))
		p = url + 10;
	if (p) {
		const char *at, *colon;

		end = p + strcspn(p, "/");
		at = NULL;
		for (const char *s = p; s < end; s++)
			if (*s == '@')
				at = s;
		if (at)
			p = at + 1;
		if (*p == '[') {
			const char *rb = memchr(p, ']', (size_t)(end - p));
			if (!rb)
				return 0;
			*host = xstrndup(p + 1, (size_t)(rb - p - 1));
			colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		} else {
			colon = memchr(p, ':', (size_t)(end - p));
			*host = xstrndup(p, (size_t)((colon ? colon : end) - p));
		}
		if (colon && colon + 1 < end) {
			char *e = NULL;
			long v = strtol(colon + 1, &e, 10);
			if (e == end && v > 0 && v < 65536)
				*port = (int)v;
		}
		return 1;
	}
	if (strstr(url, "://"))
		return 0;
	/* scp-like: a ':' before any '/' */
	end = strchr(url, ':');
	if (!end || (strchr(url, '/') && strchr(url, '/') < end))
		return 0;
	p = memchr(url, '@', (size_t)(end - url));
	p = p ? p + 1 : url;
	if (*p == '[' && end[-1] == ']')
		*host = xstrndup(p + 1, (size_t)(end - p - 2));
	else
		*host = xstrndup(p, (size_t)(end - p));
	return 1;
}

static int cred_cb(git_credential **out, const char *url,
		   const char *user_from_url, unsigned int allowed,
		   void *payload)
{
	struct net *n = payload;
	const struct repo_cred *c = n->cred;

	if (allowed & GIT_CREDENTIAL_SSH_KEY) {
		FILE *f;

		if (!c->ssh_key) {
			net_failf(n, ERR_AUTH,
				  "'%s' wants an SSH key: set "
				  "GPUFORM_GIT_SSH_KEY to a private key file",
				  n->url);
			return GIT_EUSER;
		}
		if (n->key_tries++ > 0) {
			net_failf(n, ERR_AUTH,
				  "'%s' refused the SSH key '%s'", n->url,
				  c->ssh_key);
			return GIT_EUSER;
		}
		f = fopen(c->ssh_key, "r");
		if (!f) {
			net_failf(n, ERR_AUTH, "cannot read SSH key '%s': %s",
				  c->ssh_key, strerror(errno));
			return GIT_EUSER;
		}
		fclose(f);
		return git_credential_ssh_key_new(
			out, user_from_url ? user_from_url : "git",
			c->ssh_pubkey, c->ssh_key, c->ssh_passphrase);
	}
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(
			out, user_from_url ? user_from_url : "git");
	if (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) {
		const char *user = c->username, *pass = c->password;
		const char *src = "GPUFORM_GIT_USERNAME/GPUFORM_GIT_PASSWORD "
				  "(or GPUFORM_GIT_TOKEN)";

		if (!pass && getenv("GPUFORM_GIT_CREDENTIALS") &&
		    *getenv("GPUFORM_GIT_CREDENTIALS")) {
			if (!n->file_pass) {
				struct buf why = BUF_INIT;

				credstore_lookup(getenv("GPUFORM_GIT_CREDENTIALS"),
						 url, &n->file_user,
						 &n->file_pass, &why);
				if (why.len) {
					net_failf(n, ERR_AUTH, "%s",
						  buf_cstr(&why));
					buf_release(&why);
					return GIT_EUSER;
				}
			}
			user = n->file_user;
			pass = n->file_pass;
			src = "GPUFORM_GIT_CREDENTIALS";
		}
		if (pass && !url_secret_safe(url)) {
			/* a password or token never goes in clear to a host
			 * that is not this machine (nor to a proxy on the
			 * way): https://, or http:// only to loopback */
			net_failf(n, ERR_AUTH,
				  "'%s' asks for credentials over plain http://: "
				  "refusing to send %s in clear; use the https:// "
				  "URL (plain http:// only to a loopback address)",
				  n->url, src);
			return GIT_EUSER;
		}
		if (!pass) {
			net_failf(n, ERR_AUTH,
				  "'%s' requires authentication: set "
				  "GPUFORM_GIT_USERNAME and GPUFORM_GIT_PASSWORD "
				  "(or GPUFORM_GIT_TOKEN), or name a credential "
				  "file in GPUFORM_GIT_CREDENTIALS",
				  n->url);
			return GIT_EUSER;
		}
		if (n->userpass_tries++ > 0) {
			net_failf(n, ERR_AUTH,
				  "authentication failed for '%s' (credentials "
				  "from %s)",
				  n->url, src);
			return GIT_EUSER;
		}
		if (!user)
			user = user_from_url ? user_from_url : "x-access-token";
		return git_credential_userpass_plaintext_new(out, user, pass);
	}
	net_failf(n, ERR_AUTH, "'%s' offers no authentication method gpuform "
			      "supports", n->url);
	return GIT_EUSER;
}

static int cert_cb(git_cert *cert, int valid, const char *host, void *payload)
{
	struct net *n = payload;
	const git_cert_hostkey *hk;
	struct err e = ERR_INIT;

	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH; /* TLS: libgit2 verifies (valid) */
	hk = (const git_cert_hostkey *)cert;
	if (!n->host)
		n->host = xstrdup(host ? host : "");
	if (!(hk->type & GIT_CERT_SSH_RAW) || !hk->hostkey) {
		net_failf(n, ERR_AUTH,
			  "cannot verify the host key of '%s': libgit2 did not "
			  "provide it",
			  n->host);
		return GIT_EUSER;
	}
	if (knownhosts_check(n->cred->known_hosts, n->host, n->port,
			     (const unsigned char *)hk->hostkey,
			     hk->hostkey_len, &e) < 0) {
		net_failf(n, e.code, "%s", err_msg(&e));
		err_release(&e);
		return GIT_EUSER;
	}
	return 0;
}

static int push_ref_cb(const char *refname, const char *status, void *data)
{
	struct net *n = data;
	static const char *const moved[] = {
		"non-fast-forward", "fetch first", "failed to update",
		"failed to lock", "cannot lock", "stale info",
		"already exists", "incorrect old value",
	};

	if (!status)
		return 0;
	if (n->rejected.len)
		buf_adds(&n->rejected, "; ");
	buf_addf(&n->rejected, "%s: %s", refname, status);
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
		if (strstr(status, moved[i]))
			n->conflict = 1;
	return 0;
}

static void net_init(struct net *n, const struct repo_cred *c,
		     git_remote_callbacks *cb)
{
	memset(n, 0, sizeof(*n));
	n->cred = c;
	n->port = 22;
	cb->credentials = cred_cb;
	cb->certificate_check = cert_cb;
	cb->push_update_reference = push_ref_cb;
	cb->payload = n;
}

static void net_release(struct net *n)
{
	free(n->url);
	free(n->host);
	free(n->file_user);
	digest_wipe_str(n->file_pass);
	buf_release(&n->fail);
	buf_release(&n->rejected);
}

/* remote_get: a configured remote by name, else an anonymous one for a URL
 * or path; sets n->url (scrubbed) and the SSH host/port */
static int remote_get(struct repo *r, const char *name, int push,
		      git_remote **out, struct net *n, struct err *err)
{
	const char *url;
	struct buf u = BUF_INIT;
	int valid = 0, e;

	if (git_remote_name_is_valid(&valid, name) == 0 && valid) {
		e = git_remote_lookup(out, r->git, name);
		if (e < 0 && e != GIT_ENOTFOUND)
			return repo_fail(err, e, "cannot read remote '%s'", name);
		if (e < 0 && !strchr(name, ':') && !strchr(name, '/'))
			return err_set(err, ERR_NOTFOUND,
				       "no remote '%s' in '%s'", name, r->path);
		if (e == 0)
			goto found;
	}
	e = git_remote_create_anonymous(out, r->git, name);
	if (e < 0) {
		repo_fail(err, e, "invalid remote '%s'", name);
		buf_adds(&u, err_msg(err));
		repo_scrub_userinfo(&u);
		err_set(err, ERR_INVALID, "%s", buf_cstr(&u));
		buf_release(&u);
		return -1;
	}
found:
	url = push && git_remote_pushurl(*out) ? git_remote_pushurl(*out)
					       : git_remote_url(*out);
	buf_adds(&u, url ? url : name);
	repo_scrub_userinfo(&u);
	n->url = buf_detach(&u, NULL);
	n->loopback = url_host_loopback(url ? url : name);
	parse_ssh_url(url ? url : name, &n->host, &n->port);
	return 0;
}

int repo_remote_check(struct repo *r, const char *remote, struct err *err)
{
	git_remote *rem = NULL;
	git_strarray names = { NULL, 0 };
	struct buf have = BUF_INIT;
	const char *colon = strchr(remote, ':'), *slash = strchr(remote, '/');
	struct stat st;
	int valid = 0, e;

	if (git_remote_name_is_valid(&valid, remote) == 0 && valid) {
		e = git_remote_lookup(&rem, r->git, remote);
		git_remote_free(rem);
		if (e == 0)
			return 0;
		if (e != GIT_ENOTFOUND)
			return repo_fail(err, e, "cannot read remote '%s'",
					 remote);
	}
	/* a URL, an scp-like address (host:path), or an existing directory
	 * (a local repository); the push itself says whether it answers */
	if (strstr(remote, "://") || (colon && (!slash || colon < slash)) ||
	    (stat(remote, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	if (git_remote_list(&names, r->git) == 0)
		for (size_t i = 0; i < names.count; i++)
			buf_addf(&have, "%s'%s'", i ? ", " : "",
				 names.strings[i]);
	err_set(err, ERR_NOTFOUND,
		"no remote '%s' in '%s' (%s%s), and it is not a URL or an "
		"existing directory",
		remote, r->path, have.len ? "remotes: " : "it has no remotes",
		buf_cstr(&have));
	git_strarray_dispose(&names);
	buf_release(&have);
	return -1;
}

/* net_fail: err for a failed libgit2 network call; returns -1 */
static int net_fail(struct net *n, int gerr, struct err *err,
		    const char *what)
{
	if (n->fail_code != ERR_NONE)
		err_set(err, n->fail_code, "%s", buf_cstr(&n->fail));
	else if (gerr == GIT_ENONFASTFORWARD)
		err_set(err, ERR_CONFLICT,
			"%s: the branch has commits there that are not here "
			"(non-fast-forward)",
			what);
	else
		repo_fail(err, gerr, "%s", what);
	return -1;
}

static void net_scrub(const struct repo_cred *c, struct net *n,
		      struct err *err)
{
	repo_scrub_userinfo(&err->msg);
	repo_scrub_secret(&err->msg, c->password);
	repo_scrub_secret(&err->msg, c->ssh_passphrase);
	repo_scrub_secret(&err->msg, n->file_pass);
}

int repo_push(struct repo *r, const char *remote, const char *branch,
	      const struct repo_cred *c, struct err *err)
{
	git_push_options po;
	git_remote *rem = NULL;
	struct buf refname = BUF_INIT, spec = BUF_INIT, what = BUF_INIT;
	struct net n;
	char *specs[1];
	git_strarray arr = { specs, 1 };
	int e, ret = -1;

	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	net_init(&n, c, &po.callbacks);
	po.proxy_opts.type = GIT_PROXY_AUTO;
	if (repo_branch_refname(branch, &refname, err) < 0)
		goto out;
	if (remote_get(r, remote, 1, &rem, &n, err) < 0)
		goto out;
	if (n.loopback)
		po.proxy_opts.type = GIT_PROXY_NONE;
	buf_addf(&spec, "%s:%s", buf_cstr(&refname), buf_cstr(&refname));
	specs[0] = spec.ptr;
	buf_addf(&what, "cannot push '%s' to '%s'", branch, n.url);
	e = git_remote_push(rem, &arr, &po);
	if (e < 0) {
		net_fail(&n, e, err, buf_cstr(&what));
		goto out;
	}
	if (n.rejected.len) {
		err_set(err, n.conflict ? ERR_CONFLICT : ERR_GIT,
			"'%s' rejected the push (%s)", n.url,
			buf_cstr(&n.rejected));
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		net_scrub(c, &n, err);
	git_remote_free(rem);
	net_release(&n);
	buf_release(&what);
	buf_release(&spec);
	buf_release(&refname);
	return ret;
}

int repo_fetch(struct repo *r, const char *remote, const char *branch,
	       const struct repo_cred *c, char oid[REPO_OID_HEX],
	       struct err *err)
{
	git_fetch_options fo;
	git_remote *rem = NULL;
	git_reference *ref = NULL;
	git_commit *cm = NULL;
	const git_remote_head **heads = NULL;
	struct buf refname = BUF_INIT, track = BUF_INIT, spec = BUF_INIT;
	struct buf what = BUF_INIT;
	const git_oid *tip = NULL;
	size_t nheads = 0;
	struct net n;
	char *specs[1];
	git_strarray arr = { specs, 1 };
	int e, ret = -1;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	net_init(&n, c, &fo.callbacks);
	fo.proxy_opts.type = GIT_PROXY_AUTO;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	fo.prune = GIT_FETCH_NO_PRUNE;
	if (repo_branch_refname(branch, &refname, err) < 0)
		goto out;
	if (remote_get(r, remote, 0, &rem, &n, err) < 0)
		goto out;
	if (n.loopback)
		fo.proxy_opts.type = GIT_PROXY_NONE;
	buf_addf(&track, "refs/remotes/gpuform/%s", branch);
	buf_addf(&spec, "+%s:%s", buf_cstr(&refname), buf_cstr(&track));
	specs[0] = spec.ptr;
	buf_addf(&what, "cannot fetch '%s' from '%s'", branch, n.url);
	e = git_remote_fetch(rem, &arr, &fo, "fetch (gpuform)");
	if (e < 0) {
		net_fail(&n, e, err, buf_cstr(&what));
		goto out;
	}
	/* the advertised tip, not a possibly stale tracking ref */
	if (git_remote_ls(&heads, &nheads, rem) == 0)
		for (size_t i = 0; i < nheads; i++)
			if (!strcmp(heads[i]->name, buf_cstr(&refname)))
				tip = &heads[i]->oid;
	if (!tip) {
		if (git_reference_lookup(&ref, r->git, buf_cstr(&track)) == 0)
			git_reference_delete(ref);
		git_error_clear();
		err_set(err, ERR_NOTFOUND, "'%s' has no branch '%s'", n.url,
			branch);
		goto out;
	}
	e = git_commit_lookup(&cm, r->git, tip);
	if (e < 0) {
		repo_fail(err, e, "%s: the fetched tip is missing",
			  buf_cstr(&what));
		goto out;
	}
	git_oid_tostr(oid, REPO_OID_HEX, tip);
	ret = 0;
out:
	if (ret < 0)
		net_scrub(c, &n, err);
	git_commit_free(cm);
	git_reference_free(ref);
	git_remote_free(rem);
	net_release(&n);
	buf_release(&what);
	buf_release(&spec);
	buf_release(&track);
	buf_release(&refname);
	return ret;
}
