/*
 * kube/incluster.c: the in-cluster configuration (see incluster.h): the
 * pod's service-account token, CA and namespace, and the API server from
 * the environment Kubernetes sets in every pod.
 */
#include "kube/incluster.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/digest.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* caps (as kubeconfig.c's): the CA bundle, the token file */
#define KC_MAX_PEM (8u << 20)
#define KC_MAX_TOKEN (256u << 10)
#define KC_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* jwt_subject: the "sub" claim of a JWT (unverified; for messages only) */
static char *jwt_subject(const char *jwt)
{
	const char *dot1 = strchr(jwt, '.'), *dot2;
	char *payload = NULL, *res = NULL;
	size_t len;
	cJSON *j, *sub;

	if (!dot1 || !(dot2 = strchr(dot1 + 1, '.')))
		return NULL;
	if (kubeconfig_b64_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), &payload, &len) < 0)
		return NULL;
	j = cJSON_ParseWithLength(payload, len);
	sub = cJSON_GetObjectItemCaseSensitive(j, "sub");
	if (cJSON_IsString(sub) && sub->valuestring[0])
		res = xstrdup(sub->valuestring);
	cJSON_Delete(j);
	free(payload);
	return res;
}

int kubeconfig_in_cluster(struct kube_config *out, struct err *err)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	const char *dir = getenv("GPUFORM_SERVICEACCOUNT_DIR");
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	struct buf b = BUF_INIT;
	char *p = NULL;
	int ret = -1;

	if (!dir || !*dir)
		dir = KC_SA_DIR;
	if (!host || !*host || !port || !*port)
		return err_set(err, ERR_NOTFOUND,
			       "in-cluster configuration needs "
			       "KUBERNETES_SERVICE_HOST and "
			       "KUBERNETES_SERVICE_PORT (is this a pod?)");
	c.context = xstrdup("in-cluster");
	c.cluster = xstrdup("in-cluster");
	/* an IPv6 address goes in brackets */
	c.server = strchr(host, ':') ? xasprintf("https://[%s]:%s", host, port)
				     : xasprintf("https://%s:%s", host, port);

	c.token_file = xasprintf("%s/token", dir);
	if (kubeconfig_read_secret(&b, c.token_file, KC_MAX_TOKEN,
			     "in-cluster service-account token", err) < 0)
		goto out;
	kubeconfig_trim_right(&b);
	if (!b.len) {
		err_set(err, ERR_AUTH,
			"in-cluster service-account token '%s' "
			"is empty",
			c.token_file);
		goto out;
	}
	c.token = buf_detach(&b, NULL);

	p = xasprintf("%s/ca.crt", dir);
	if (kubeconfig_read_secret(&b, p, KC_MAX_PEM, "in-cluster CA", err) < 0)
		goto out;
	if (!kubeconfig_looks_like_pem(buf_cstr(&b), b.len, "CERTIFICATE")) {
		err_set(err, ERR_INVALID,
			"in-cluster CA '%s' does not hold a "
			"PEM certificate",
			p);
		goto out;
	}
	c.ca_len = b.len;
	c.ca_pem = buf_detach(&b, NULL);
	free(p);

	p = xasprintf("%s/namespace", dir);
	if (fs_read_file(&b, p, 4096, NULL) == 0) {
		kubeconfig_trim_right(&b);
		if (b.len)
			c.namespace_ = buf_detach(&b, NULL);
	}
	buf_release(&b);
	if (!c.namespace_)
		c.namespace_ = xstrdup("default");
	c.user = jwt_subject(c.token);
	if (!c.user)
		c.user = xstrdup("in-cluster service account");
	*out = c;
	c = (struct kube_config)KUBE_CONFIG_INIT;
	ret = 0;
out:
	free(p);
	digest_wipe_release(&b);
	kube_config_release(&c);
	return ret;
}

