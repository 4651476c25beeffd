/*
 * generator/kobj.c: the Kubernetes object model (see kobj.h).
 */
#include "generator/kobj.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"
#include "util/json.h"
#include "util/xalloc.h"

void kobj_id_of(const cJSON *obj, struct kobj_id *id)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

	id->api_version = json_str(obj, "apiVersion");
	id->kind = json_str(obj, "kind");
	id->name = json_str(md, "name");
	id->ns = json_str(md, "namespace");
	if (id->ns && !*id->ns)
		id->ns = NULL;
}

const char *kobj_group(const char *api_version, char *buf, size_t n)
{
	const char *slash = strchr(api_version, '/');
	size_t len;

	if (!slash)
		return "";
	len = (size_t)(slash - api_version);
	if (len >= n)
		len = n - 1;
	memcpy(buf, api_version, len);
	buf[len] = '\0';
	return buf;
}

size_t kobj_group_len(const char *api_version)
{
	const char *slash = strchr(api_version, '/');

	return slash ? (size_t)(slash - api_version) : 0;
}

char *kobj_group_dup(const char *api_version)
{
	size_t len = kobj_group_len(api_version);
	char *g = xmalloc(len + 1);

	memcpy(g, api_version, len);
	g[len] = '\0';
	return g;
}

static const char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void kobj_id_copy(struct kobj_id *dst, const struct kobj_id *src)
{
	dst->api_version = dup_or_null(src->api_version);
	dst->kind = dup_or_null(src->kind);
	dst->ns = dup_or_null(src->ns);
	dst->name = dup_or_null(src->name);
}

/* the one place an identity's strings are owned (kobj_id_copy) */
void kobj_id_clear(struct kobj_id *id)
{
	free((char *)id->api_version);
	free((char *)id->kind);
	free((char *)id->ns);
	free((char *)id->name);
	*id = (struct kobj_id){ NULL, NULL, NULL, NULL };
}

/* the groups are compared in place, whole: no buffer to cut them */
int kobj_same(const struct kobj_id *a, const struct kobj_id *b)
{
	size_t la = kobj_group_len(a->api_version);

	return !strcmp(a->kind, b->kind) && !strcmp(a->name, b->name) &&
	       !strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "") &&
	       la == kobj_group_len(b->api_version) &&
	       !memcmp(a->api_version, b->api_version, la);
}

void kobj_key(const struct kobj_id *id, struct buf *out)
{
	size_t gl = kobj_group_len(id->api_version);

	buf_reset(out);
	buf_add(out, id->api_version, gl);
	buf_addf(out, "\x1f%s\x1f%s\x1f%s", id->kind, id->ns ? id->ns : "",
		 id->name);
}

void kobj_display(const struct kobj_id *id, struct buf *out)
{
	size_t gl = kobj_group_len(id->api_version);

	for (const char *k = id->kind; *k; k++)
		buf_addc(out, (char)tolower((unsigned char)*k));
	if (gl) {
		buf_addc(out, '.');
		buf_add(out, id->api_version, gl);
	}
	buf_addf(out, "/%s", id->name);
	if (id->ns)
		buf_addf(out, " -n %s", id->ns);
}

const struct kobj_kind kobj_kinds[] = {
	{ "v1", "Namespace", "namespaces", NULL },
	{ "v1", "ConfigMap", "configmaps", INTENT_DEVICE_PLUGIN_NS },
	{ "karpenter.k8s.aws/v1", "EC2NodeClass", "ec2nodeclasses", NULL },
	/* before the NodePools, so their first scheduling already sees it */
	{ "karpenter.sh/v1alpha1", "NodeOverlay", "nodeoverlays", NULL },
	{ "karpenter.sh/v1", "NodePool", "nodepools", NULL },
	{ "kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass",
	  "workloadpriorityclasses", NULL },
	{ "kueue.x-k8s.io/v1beta2", "ResourceFlavor", "resourceflavors", NULL },
	{ "kueue.x-k8s.io/v1beta2", "ClusterQueue", "clusterqueues", NULL },
	{ "kueue.x-k8s.io/v1beta2", "LocalQueue", "localqueues",
	  KOBJ_ANY_NAMESPACE },
	{ NULL, NULL, NULL, NULL },
};

const struct kobj_kind *kobj_kind_find(const char *api_version,
				       const char *kind)
{
	for (size_t i = 0; kobj_kinds[i].kind; i++)
		if (!strcmp(kobj_kinds[i].kind, kind) &&
		    !strcmp(kobj_kinds[i].api_version, api_version))
			return &kobj_kinds[i];
	return NULL;
}

int kobj_kind_rank(const char *kind)
{
	for (int i = 0; kobj_kinds[i].kind; i++)
		if (!strcmp(kind, kobj_kinds[i].kind))
			return i;
	return 100;
}
