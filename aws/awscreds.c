/*
 * aws/awscreds.c: see awscreds.h. Endpoint formats: the STS API
 * reference (AssumeRoleWithWebIdentity, an unsigned query call), the
 * container credential provider of the AWS SDKs reference guide (GET with
 * the token in Authorization; JSON AccessKeyId/SecretAccessKey/Token) and
 * the EC2 user guide for IMDSv2 (PUT /latest/api/token, then
 * /latest/meta-data/iam/security-credentials/ROLE with the token header).
 */
#include "aws/awscreds.h"

#include "util/digest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "aws/awsxml.h"
#include "http/http.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/url.h"
#include "util/xalloc.h"

#define CREDS_MAX_FILE (1u << 20)
#define IMDS_TIMEOUT_MS 1000L

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int env_true(const char *name)
{
	const char *v = env(name);
	return v && !strcasecmp(v, "true");
}

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* walk the lines of [section]; cb gets key and value; stops on nonzero */
static char *ini_find(const char *text, const char *section, const char *key,
		      int *has)
{
	const char *p = text;
	int in = 0;

	*has = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *s = p;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		p = nl ? nl + 1 : NULL;
		trim(&s, &n);
		if (!n || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			const char *in_s = s + 1;
			size_t in_n = n >= 2 && s[n - 1] == ']' ? n - 2 : 0;
			trim(&in_s, &in_n);
			in = in_n == strlen(section) &&
			     !memcmp(in_s, section, in_n);
			*has |= in;
			continue;
		}
		if (in && key) {
			const char *eq = memchr(s, '=', n), *k = s, *v;
			size_t kn, vn;
			if (!eq)
				continue;
			kn = (size_t)(eq - s);
			trim(&k, &kn);
			v = eq + 1;
			vn = n - (size_t)(eq + 1 - s);
			trim(&v, &vn);
			if (kn == strlen(key) && !strncasecmp(k, key, kn))
				return xstrndup(v, vn);
		}
	}
	return NULL;
}

char *awscreds_ini_get(const char *text, const char *section,
		       const char *key)
{
	int has;
	return ini_find(text, section, key, &has);
}

int awscreds_ini_has(const char *text, const char *section)
{
	int has;
	ini_find(text, section, NULL, &has);
	return has;
}


static void set_creds(struct aws *a, const char *id, const char *secret,
		      const char *token, const char *source)
{
	aws_creds_release(&a->creds);
	a->creds.key_id = xstrdup(id);
	a->creds.secret = xstrdup(secret);
	a->creds.token = token && *token ? xstrdup(token) : NULL;
	a->creds.source = xstrdup(source);
}

static int read_small(struct buf *out, const char *path, const char *what,
		      struct err *err)
{
	if (fs_read_file(out, path, CREDS_MAX_FILE, err) < 0) {
		struct buf m = BUF_INIT;
		buf_addf(&m, "%s: %s", what, err_msg(err));
		err_release(err);
		err_set(err, ERR_INVALID, "%s", buf_cstr(&m));
		buf_release(&m);
		return -1;
	}
	return 0;
}

static char *home_path(const char *env_name, const char *rel)
{
	const char *v = env(env_name), *home = env("HOME");
	if (v)
		return xstrdup(v);
	return home ? xasprintf("%s/%s", home, rel) : NULL;
}

/* STS AssumeRoleWithWebIdentity: unsigned; the token is the proof */
static int web_identity(struct aws *a, const char *role, const char *file,
			const char *session, const char *source,
			struct err *err)
{
	struct buf tok = BUF_INIT, form = BUF_INIT, resp = BUF_INIT;
	const char *hdr[] = { "Content-Type: application/x-www-form-urlencoded; "
			      "charset=utf-8", NULL };
	char *url = a->region ? aws_endpoint("sts", a->region)
			      : (env("AWS_ENDPOINT_URL_STS")
					 ? xstrdup(env("AWS_ENDPOINT_URL_STS"))
					 : env("AWS_ENDPOINT_URL")
						   ? xstrdup(env("AWS_ENDPOINT_URL"))
						   : xstrdup("https://sts.amazonaws.com"));
	char *sess = session ? xstrdup(session)
			     : xasprintf("gpuform-%ld", (long)time(NULL));
	struct http_req r;
	struct xnode root;
	const struct xnode *c;
	long status;
	int timed_out, ret = -1;
	const char *id, *sec, *st;

	memset(&root, 0, sizeof(root));
	if (aws_endpoint_check(url, "sts", err) < 0)
		goto out;
	if (read_small(&tok, file, "web identity token file", err) < 0)
		goto out;
	while (tok.len && isspace((unsigned char)tok.ptr[tok.len - 1]))
		tok.ptr[--tok.len] = '\0';
	aws_form_add(&form, "Action", "AssumeRoleWithWebIdentity");
	aws_form_add(&form, "Version", "2011-06-15");
	aws_form_add(&form, "RoleArn", role);
	aws_form_add(&form, "RoleSessionName", sess);
	aws_form_add(&form, "WebIdentityToken", buf_cstr(&tok));
	memset(&r, 0, sizeof(r));
	r.method = "POST";
	r.url = url;
	r.headers = hdr;
	r.body = buf_cstr(&form);
	r.len = form.len;
	r.timeout_ms = a->timeout_ms;
	r.max_body = 1u << 20;
	a->requests++;
	if (aws_exchange(a, &r, &status, &resp, &timed_out, err) < 0) {
		struct buf m = BUF_INIT;
		buf_addf(&m, "web identity (STS %s): %s", url, err_msg(err));
		err_release(err);
		err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
		buf_release(&m);
		goto out;
	}
	if (xml_parse(&root, buf_cstr(&resp), resp.len, err) < 0) {
		struct buf m = BUF_INIT;
		buf_addf(&m, "STS AssumeRoleWithWebIdentity (%s), HTTP %ld: %s",
			 url, status, err_msg(err));
		err_release(err);
		err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
		buf_release(&m);
		goto out;
	}
	if (status != 200) {
		const char *code = xml_text(&root, "Error/Code");
		const char *msg = xml_text(&root, "Error/Message");
		err_set(err, ERR_AUTH,
			"STS AssumeRoleWithWebIdentity for %s refused (HTTP "
			"%ld): %.100s%s%.300s", role, status,
			code ? code : "no error code", msg ? ": " : "",
			msg ? msg : "");
		goto out;
	}
	c = xml_path(&root, "AssumeRoleWithWebIdentityResult/Credentials");
	id = xml_text(c, "AccessKeyId");
	sec = xml_text(c, "SecretAccessKey");
	st = xml_text(c, "SessionToken");
	if (!id || !*id || !sec || !*sec || !st || !*st) {
		err_set(err, ERR_HTTP,
			"STS AssumeRoleWithWebIdentity (%s) answered without "
			"credentials", url);
		goto out;
	}
	set_creds(a, id, sec, st, source);
	ret = 0;
out:
	xml_release(&root);
	digest_wipe_buf(&tok);
	digest_wipe_buf(&form);
	digest_wipe_buf(&resp);
	buf_release(&tok);
	buf_release(&form);
	buf_release(&resp);
	free(url);
	free(sess);
	return ret;
}

/* the JSON of the container endpoint and of IMDS role credentials */
static int json_creds(struct aws *a, const struct buf *resp, const char *what,
		      const char *source, struct err *err)
{
	cJSON *j = cJSON_ParseWithLength(buf_cstr(resp), resp->len);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "AccessKeyId");
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(j, "SecretAccessKey");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(j, "Token");
	int ret = 0;

	if (!cJSON_IsString(id) || !cJSON_IsString(sec) || !*id->valuestring ||
	    !*sec->valuestring)
		ret = err_set(err, ERR_HTTP,
			      "%s answered without credentials (not JSON with "
			      "AccessKeyId and SecretAccessKey)", what);
	else
		set_creds(a, id->valuestring, sec->valuestring,
			  cJSON_IsString(tok) ? tok->valuestring : NULL,
			  source);
	cJSON_Delete(j);
	return ret;
}

static int http_get(struct aws *a, const char *method, const char *url,
		    const char *const *hdr, long timeout_ms, struct buf *resp,
		    const char *what, struct err *err)
{
	struct http_req r;
	long status;
	int timed_out;

	memset(&r, 0, sizeof(r));
	r.method = method;
	r.url = url;
	r.headers = hdr;
	r.body = !strcmp(method, "PUT") ? "" : NULL;
	r.timeout_ms = timeout_ms;
	r.max_body = 1u << 20;
	a->requests++;
	buf_reset(resp);
	if (aws_exchange(a, &r, &status, resp, &timed_out, err) < 0) {
		struct buf m = BUF_INIT;
		buf_addf(&m, "%s: %s", what, err_msg(err));
		err_release(err);
		err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
		buf_release(&m);
		return -1;
	}
	if (status != 200)
		return err_set(err, status == 401 || status == 403 ? ERR_AUTH
								   : ERR_HTTP,
			       "%s: %s %s answered HTTP %ld", what, method,
			       url, status);
	return 0;
}

/* as the SDKs: https, plain http only to loopback (url_secret_safe, the
 * rule every credential follows) or the ECS / EKS Pod Identity agent
 * addresses, so the authorization token cannot leak elsewhere */
static int container_url_allowed(const char *url)
{
	static const char *const hosts[] = {
		"169.254.170.2", "169.254.170.23", "[fd00:ec2::23]", NULL,
	};
	const char *h;
	size_t n;

	if (url_secret_safe(url))
		return 1;
	if (strncmp(url, "http://", 7))
		return 0;
	h = url + 7;
	n = strcspn(h, ":/?#");
	if (h[0] == '[')
		n = strcspn(h, "]") + 1;
	for (size_t i = 0; hosts[i]; i++)
		if (n == strlen(hosts[i]) && !strncmp(h, hosts[i], n))
			return 1;
	return 0;
}

static int container(struct aws *a, struct err *err)
{
	const char *full = env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	const char *rel = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	const char *tokfile = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	const char *tokenv = env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
	struct buf tok = BUF_INIT, auth = BUF_INIT, resp = BUF_INIT;
	const char *hdr[2] = { NULL, NULL };
	char *url = rel ? xasprintf("http://169.254.170.2%s", rel)
			: xstrdup(full);
	int ret = -1;

	if (!container_url_allowed(url)) {
		err_set(err, ERR_INVALID,
			"AWS_CONTAINER_CREDENTIALS_FULL_URI must be https://, or "
			"http:// to a loopback address or the ECS / EKS Pod "
			"Identity agent (169.254.170.2, 169.254.170.23)");
		goto out;
	}
	if (tokfile) {
		if (read_small(&tok, tokfile, "container authorization token "
					      "file", err) < 0)
			goto out;
		while (tok.len && isspace((unsigned char)tok.ptr[tok.len - 1]))
			tok.ptr[--tok.len] = '\0';
	} else if (tokenv) {
		buf_adds(&tok, tokenv);
	}
	if (tok.len) {
		if (strpbrk(buf_cstr(&tok), "\r\n")) {
			err_set(err, ERR_INVALID, "the container authorization "
				"token has a line break");
			goto out;
		}
		buf_addf(&auth, "Authorization: %s", buf_cstr(&tok));
		hdr[0] = buf_cstr(&auth);
	}
	if (http_get(a, "GET", url, hdr, a->timeout_ms, &resp,
		     "container credentials endpoint", err) < 0)
		goto out;
	ret = json_creds(a, &resp, "the container credentials endpoint",
			 "container credentials (EKS Pod Identity / ECS)", err);
out:
	digest_wipe_buf(&tok);
	digest_wipe_buf(&auth);
	digest_wipe_buf(&resp);
	buf_release(&tok);
	buf_release(&auth);
	buf_release(&resp);
	free(url);
	return ret;
}

/* IMDSv2: a session token first; credentials of the instance's role, and
 * the region when none was found elsewhere */
static int imds(struct aws *a, int want_creds, struct err *err)
{
	const char *base = env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
	const char *puth[] = { "X-aws-ec2-metadata-token-ttl-seconds: 300",
			       NULL };
	const char *geth[2] = { NULL, NULL };
	struct buf tok = BUF_INIT, th = BUF_INIT, resp = BUF_INIT;
	char *root = xstrdup(base ? base : "http://169.254.169.254");
	char *url = NULL, *role = NULL;
	int ret = -1;

	if (root[0] && root[strlen(root) - 1] == '/')
		root[strlen(root) - 1] = '\0';
	url = xasprintf("%s/latest/api/token", root);
	if (http_get(a, "PUT", url, puth, IMDS_TIMEOUT_MS, &tok,
		     "IMDSv2 token", err) < 0)
		goto out;
	while (tok.len && isspace((unsigned char)tok.ptr[tok.len - 1]))
		tok.ptr[--tok.len] = '\0';
	if (!tok.len || strpbrk(buf_cstr(&tok), "\r\n")) {
		err_set(err, ERR_HTTP, "IMDSv2 answered an unusable token");
		goto out;
	}
	buf_addf(&th, "X-aws-ec2-metadata-token: %s", buf_cstr(&tok));
	geth[0] = buf_cstr(&th);
	if (!a->region) {
		free(url);
		url = xasprintf("%s/latest/meta-data/placement/region", root);
		if (http_get(a, "GET", url, geth, IMDS_TIMEOUT_MS, &resp,
			     "IMDS region", err) == 0 && resp.len &&
		    resp.len < 64)
			a->region = xstrdup(buf_cstr(&resp));
		err_release(err);
	}
	if (!want_creds) {
		ret = 0;
		goto out;
	}
	free(url);
	url = xasprintf("%s/latest/meta-data/iam/security-credentials/", root);
	if (http_get(a, "GET", url, geth, IMDS_TIMEOUT_MS, &resp,
		     "IMDS role", err) < 0)
		goto out;
	{
		const char *s = buf_cstr(&resp);
		size_t n = strcspn(s, "\r\n");
		if (!n || n > 128 || strpbrk(s, "/?#")) {
			err_set(err, ERR_HTTP, "IMDS: the instance has no "
				"usable IAM role");
			goto out;
		}
		role = xstrndup(s, n);
	}
	free(url);
	url = xasprintf("%s/latest/meta-data/iam/security-credentials/%s",
			root, role);
	if (http_get(a, "GET", url, geth, IMDS_TIMEOUT_MS, &resp,
		     "IMDS role credentials", err) < 0)
		goto out;
	ret = json_creds(a, &resp, "IMDS", "instance role (IMDSv2)", err);
out:
	digest_wipe_buf(&tok);
	digest_wipe_buf(&th);
	digest_wipe_buf(&resp);
	buf_release(&tok);
	buf_release(&th);
	buf_release(&resp);
	free(url);
	free(role);
	free(root);
	return ret;
}

/*
 * 2. the shared files for the profile: the credentials file first, then
 * the config (static keys, then a web identity role). 1 when they decided
 * (*ret: 0 or -1 with err set); 0 to go on down the chain; -1 for a profile
 * named by AWS_PROFILE (named) that needs what gpuform does not support.
 */
static int from_profile(struct aws *a, const char *cfg, const char *cred,
			const char *profile, const char *csec, int named,
			int *ret, struct err *err)
{
	char *id = awscreds_ini_get(cred, profile, "aws_access_key_id");
	char *sec = awscreds_ini_get(cred, profile, "aws_secret_access_key");
	char *tok = awscreds_ini_get(cred, profile, "aws_session_token");
	char *role, *wif, *src = NULL, *v = NULL;

	if (!id || !sec) {
		free(id);
		digest_wipe_str(sec);
		digest_wipe_str(tok);
		id = awscreds_ini_get(cfg, csec, "aws_access_key_id");
		sec = awscreds_ini_get(cfg, csec, "aws_secret_access_key");
		tok = awscreds_ini_get(cfg, csec, "aws_session_token");
	}
	if (id && sec) {
		src = xasprintf("profile '%s'", profile);
		set_creds(a, id, sec, tok, src);
	}
	free(id);
	digest_wipe_str(sec);
	digest_wipe_str(tok);
	if (src) {
		free(src);
		*ret = 0;
		return 1;
	}
	role = awscreds_ini_get(cfg, csec, "role_arn");
	wif = awscreds_ini_get(cfg, csec, "web_identity_token_file");
	if (role && wif) {
		src = xasprintf("profile '%s' (web identity)", profile);
		*ret = web_identity(a, role, wif, NULL, src, err);
		free(src);
		free(role);
		free(wif);
		return 1;
	}
	free(wif);
	if (role || (v = awscreds_ini_get(cfg, csec, "sso_session")) ||
	    (v = awscreds_ini_get(cfg, csec, "credential_process"))) {
		free(v);
		free(role);
		if (named)
			return err_set(err, ERR_AUTH,
				       "profile '%s' uses a role with a source "
				       "profile, SSO or a credential process, "
				       "which gpuform does not support; export "
				       "its credentials (aws configure "
				       "export-credentials --format env)",
				       profile);
	}
	return 0;
}

/* 3.-5. web identity (IRSA), container credentials, IMDSv2: 0 or -1 */
static int from_environment(struct aws *a, const char *profile,
			    struct err *err)
{
	/* 3. web identity (IRSA) */
	if (env("AWS_WEB_IDENTITY_TOKEN_FILE") && env("AWS_ROLE_ARN"))
		return web_identity(a, env("AWS_ROLE_ARN"),
				    env("AWS_WEB_IDENTITY_TOKEN_FILE"),
				    env("AWS_ROLE_SESSION_NAME"),
				    "web identity (AWS_ROLE_ARN)", err);
	/* 4. container credentials (EKS Pod Identity, ECS) */
	if (env("AWS_CONTAINER_CREDENTIALS_FULL_URI") ||
	    env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"))
		return container(a, err);
	/* 5. IMDSv2 */
	if (!env_true("AWS_EC2_METADATA_DISABLED")) {
		if (imds(a, 1, err) == 0)
			return 0;
		err_release(err);
	}
	return err_set(err, ERR_AUTH,
		       "no AWS credentials: tried the environment "
		       "(AWS_ACCESS_KEY_ID), profile '%s' in the shared files, "
		       "web identity (AWS_WEB_IDENTITY_TOKEN_FILE + "
		       "AWS_ROLE_ARN), container credentials "
		       "(AWS_CONTAINER_CREDENTIALS_FULL_URI) and IMDSv2",
		       profile);
}

/* the region when no flag, variable or profile gave one: IMDS */
static int region_fallback(struct aws *a, struct err *err)
{
	struct err e = ERR_INIT;

	if (!a->region) {
		if (!env_true("AWS_EC2_METADATA_DISABLED") &&
		    imds(a, 0, &e) < 0)
			err_release(&e);
		if (!a->region)
			return err_set(err, ERR_INVALID,
				       "no AWS region: give --region, or set "
				       "AWS_REGION or the profile's region");
	}
	return 0;
}

int awscreds_load(struct aws *a, const char *region_flag, struct err *err)
{
	const char *prof_env = env("AWS_PROFILE");
	const char *profile = prof_env ? prof_env : "default";
	char *cpath = home_path("AWS_CONFIG_FILE", ".aws/config");
	char *kpath = home_path("AWS_SHARED_CREDENTIALS_FILE",
				".aws/credentials");
	struct buf cfg = BUF_INIT, cred = BUF_INIT;
	char *csec = !strcmp(profile, "default")
			     ? xstrdup("default")
			     : xasprintf("profile %s", profile);
	char *v;
	int have_profile = 0, ret = -1, r;
	struct err e = ERR_INIT;

	/* the files are optional; unreadable ones count as absent, as in
	 * the SDKs */
	if (cpath && fs_read_file(&cfg, cpath, CREDS_MAX_FILE, &e) < 0)
		err_release(&e);
	if (kpath && fs_read_file(&cred, kpath, CREDS_MAX_FILE, &e) < 0)
		err_release(&e);
	have_profile = awscreds_ini_has(buf_cstr(&cfg), csec) ||
		       awscreds_ini_has(buf_cstr(&cred), profile);
	if (prof_env && !have_profile) {
		err_set(err, ERR_INVALID,
			"AWS_PROFILE names profile '%s', which is in neither "
			"%s nor %s", profile, cpath ? cpath : "~/.aws/config",
			kpath ? kpath : "~/.aws/credentials");
		goto out;
	}

	/* region */
	if (region_flag && *region_flag)
		a->region = xstrdup(region_flag);
	else if (env("AWS_REGION"))
		a->region = xstrdup(env("AWS_REGION"));
	else if (env("AWS_DEFAULT_REGION"))
		a->region = xstrdup(env("AWS_DEFAULT_REGION"));
	else if ((v = awscreds_ini_get(buf_cstr(&cfg), csec, "region")))
		a->region = v;

	/* 1. environment */
	if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
		set_creds(a, env("AWS_ACCESS_KEY_ID"),
			  env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"),
			  "environment");
		ret = 0;
	} else if (have_profile &&
		   (r = from_profile(a, buf_cstr(&cfg), buf_cstr(&cred),
				     profile, csec, prof_env != NULL, &ret,
				     err)) != 0) {
		if (r < 0)
			goto out; /* ret is -1 */
	} else {
		ret = from_environment(a, profile, err);
	}
	if (ret == 0)
		ret = region_fallback(a, err);
out:
	digest_wipe_buf(&cred);
	digest_wipe_buf(&cfg);
	buf_release(&cfg);
	buf_release(&cred);
	free(cpath);
	free(kpath);
	free(csec);
	return ret;
}
