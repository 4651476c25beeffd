/*
 * generator/install.c: the manifests that deploy gpuform (see install.h).
 */
#include "generator/install.h"
#include "util/url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "generator/delivery.h"
#include "generator/kobj.h"
#include "generator/render.h"
#include "util/vec.h"
#include "util/xalloc.h"

#ifndef GPUFORM_VERSION
#define GPUFORM_VERSION "0.0.0"
#endif

#define OWN_NS_DEFAULT "gpuform-system"
#define CACHE_DIR "/var/cache/gpuform"
#define GIT_SECRET_DIR "/etc/gpuform/git"

/* what a reconcile run does with a kind it renders: read it (GET, one LIST
 * per kind), server-side apply it (PATCH; an apply that creates also needs
 * create) and prune it (DELETE). Namespaces are pruned only with
 * --prune-namespaces, which the installed job never passes: no delete. */
#define VERBS_MANAGE "get,list,create,patch,delete"
#define VERBS_MANAGE_NO_DELETE "get,list,create,patch"
#define VERBS_READ "get,list"

/* read-only extras: node impact (which NodeClaims and Pods a change hits) */
static const struct {
	const char *group, *resource;
} node_impact_reads[] = {
	{ "", "pods" },
	{ "karpenter.sh", "nodeclaims" },
};

static void group_of(const char *api_version, char *buf, size_t n)
{
	const char *slash = strchr(api_version, '/');
	size_t len = slash ? (size_t)(slash - api_version) : 0;

	if (len >= n)
		len = n - 1;
	memcpy(buf, api_version, len);
	buf[len] = '\0';
}

static void add_grant(struct install_grant **g, size_t *n, size_t *alloc,
		      const char *ns, const char *group, const char *resource,
		      const char *verbs, const char *name)
{
	GROW(*g, *n + 1, *alloc);
	(*g)[*n] = (struct install_grant){ ns, group, resource, verbs,
					   name ? xstrdup(name) : NULL };
	(*n)++;
}

size_t install_grants(struct install_grant **out, const char *own_ns,
		      const char *cluster, const char *device_plugin_ns)
{
	struct install_grant *g = NULL;
	size_t n = 0, alloc = 0;
	static char groups[32][64];
	char *inv, *key;

	for (size_t i = 0; kobj_kinds[i].kind; i++) {
		const struct kobj_kind *rk = &kobj_kinds[i];
		const char *ns = rk->ns;
		if (i >= sizeof(groups) / sizeof(groups[0]))
			BUG("kobj_kinds has more than 32 entries");
		group_of(rk->api_version, groups[i], sizeof(groups[i]));
		/* kinds whose namespace an intent picks: cluster-wide */
		if (ns && !strcmp(ns, KOBJ_ANY_NAMESPACE))
			ns = NULL;
		/* the device-plugin ConfigMap follows the chart's namespace */
		if (ns && device_plugin_ns && !strcmp(rk->kind, "ConfigMap"))
			ns = device_plugin_ns;
		add_grant(&g, &n, &alloc, ns, groups[i], rk->resource,
			  strcmp(rk->kind, "Namespace") ? VERBS_MANAGE
							: VERBS_MANAGE_NO_DELETE,
			  NULL);
	}
	for (size_t i = 0; i < sizeof(node_impact_reads) / sizeof(node_impact_reads[0]); i++)
		add_grant(&g, &n, &alloc, NULL, node_impact_reads[i].group,
			  node_impact_reads[i].resource, VERBS_READ, NULL);
	/* every gpuform inventory on the server, in whatever namespace it
	 * was installed: a prune keeps an object another inventory still
	 * lists (shared objects), and prunes nothing when it cannot read
	 * them all. RBAC cannot narrow a list to a label selector, so this
	 * is list on every ConfigMap (docs/reconcile-safety.md argues it) */
	add_grant(&g, &n, &alloc, NULL, "", "configmaps", "list", NULL);
	/* own namespace: the inventory ConfigMap (created by the first
	 * apply, then read and patched by name: reconcile and status), the
	 * ownership key Secret (created once, then read by name: the HMAC
	 * key of the inventory's ownership proofs — the only Secret this
	 * identity may read), the Lease lock (created once, then read and
	 * updated by name) and Events (each one created) */
	inv = xasprintf("gpuform-%s", cluster);
	key = xasprintf("gpuform-%s-owner-key", cluster);
	add_grant(&g, &n, &alloc, own_ns, "", "configmaps", "create", NULL);
	add_grant(&g, &n, &alloc, own_ns, "", "configmaps", "get,patch", inv);
	add_grant(&g, &n, &alloc, own_ns, "", "secrets", "create", NULL);
	add_grant(&g, &n, &alloc, own_ns, "", "secrets", "get", key);
	add_grant(&g, &n, &alloc, own_ns, "coordination.k8s.io", "leases",
		  "create", NULL);
	add_grant(&g, &n, &alloc, own_ns, "coordination.k8s.io", "leases",
		  "get,update", inv);
	add_grant(&g, &n, &alloc, own_ns, "", "events", "create", NULL);
	free(inv);
	free(key);
	*out = g;
	return n;
}

/* what `gpuform doctor` reads (cmd/doctor.c), each object by name: the
 * Karpenter Deployment (kube-system or karpenter), Kueue's Deployment and
 * configuration ConfigMap. Discovery needs no grant (system:discovery). */
static size_t doctor_grants(struct install_grant **g, size_t n)
{
	size_t alloc = n;

	add_grant(g, &n, &alloc, "kube-system", "apps", "deployments", "get",
		  "karpenter");
	add_grant(g, &n, &alloc, "karpenter", "apps", "deployments", "get",
		  "karpenter");
	add_grant(g, &n, &alloc, "kueue-system", "apps", "deployments", "get",
		  "kueue-controller-manager");
	add_grant(g, &n, &alloc, "kueue-system", "", "configmaps", "get",
		  "kueue-manager-config");
	return n;
}

/*
 * what reconcile does with the objects spec.addons.delivery renders
 * (generator/delivery.c), in their one namespace: LIST each kind (by
 * label; RBAC cannot narrow a list by name), create (a server-side apply
 * that creates; a create cannot be narrowed by name either), and get,
 * patch, delete only the objects of those names — never another
 * HelmRelease or Application of that namespace (Argo CD's own, another
 * team's). Like the inventory ConfigMap's grants above.
 */
static size_t delivery_grants(struct install_grant **g, size_t n,
			      enum addons_delivery mode)
{
	struct delivery_obj objs[DELIVERY_OBJS_MAX];
	size_t alloc = n, no = delivery_objects(mode, objs);

	for (size_t i = 0; i < no; i++) {
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(objs[j].resource, objs[i].resource) != 0;
		if (first)
			add_grant(g, &n, &alloc, objs[i].ns, objs[i].group,
				  objs[i].resource, "list,create", NULL);
		add_grant(g, &n, &alloc, objs[i].ns, objs[i].group,
			  objs[i].resource, "get,patch,delete", objs[i].name);
	}
	return n;
}

void install_grants_free(struct install_grant *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].name);
	free(g);
}

static int nullcmp(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static int grant_cmp(const void *pa, const void *pb)
{
	const struct install_grant *a = *(const struct install_grant *const *)pa;
	const struct install_grant *b = *(const struct install_grant *const *)pb;
	int c;

	if ((c = strcmp(a->group, b->group)))
		return c;
	if ((c = nullcmp(a->name, b->name)))
		return c;
	if ((c = strcmp(a->verbs, b->verbs)))
		return c;
	return strcmp(a->resource, b->resource);
}

static cJSON *split_verbs(const char *verbs)
{
	cJSON *a = cJSON_CreateArray();
	const char *p = verbs;

	while (*p) {
		size_t len = strcspn(p, ",");
		char *v = xstrndup(p, len);
		cJSON_AddItemToArray(a, cJSON_CreateString(v));
		free(v);
		p += len;
		if (*p == ',')
			p++;
	}
	return a;
}

cJSON *install_rules(const struct install_grant *g, size_t n, const char *ns)
{
	const struct install_grant **sel = xcalloc(n ? n : 1, sizeof(*sel));
	cJSON *rules = cJSON_CreateArray(), *rule = NULL, *res = NULL;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!nullcmp(g[i].ns, ns))
			sel[m++] = &g[i];
	qsort(sel, m, sizeof(*sel), grant_cmp);
	for (size_t i = 0; i < m; i++) {
		const struct install_grant *x = sel[i];
		int new_rule = !i || strcmp(x->group, sel[i - 1]->group) ||
			       nullcmp(x->name, sel[i - 1]->name) ||
			       strcmp(x->verbs, sel[i - 1]->verbs);
		if (new_rule) {
			cJSON *groups;
			rule = cJSON_CreateObject();
			groups = cJSON_AddArrayToObject(rule, "apiGroups");
			cJSON_AddItemToArray(groups, cJSON_CreateString(x->group));
			res = cJSON_AddArrayToObject(rule, "resources");
			if (x->name) {
				cJSON *names = cJSON_AddArrayToObject(rule, "resourceNames");
				cJSON_AddItemToArray(names, cJSON_CreateString(x->name));
			}
			cJSON_AddItemToObject(rule, "verbs", split_verbs(x->verbs));
			cJSON_AddItemToArray(rules, rule);
		}
		if (new_rule || strcmp(x->resource, sel[i - 1]->resource))
			cJSON_AddItemToArray(res, cJSON_CreateString(x->resource));
	}
	free(sel);
	return rules;
}

/* ---- validation ---------------------------------------------------------- */

static int dns_label(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > max)
		return 0;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		      *p == '-'))
			return 0;
	return isalnum((unsigned char)s[0]) && isalnum((unsigned char)s[n - 1]);
}

static int dns_subdomain(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 253)
		return 0;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		      *p == '-' || *p == '.'))
			return 0;
	return isalnum((unsigned char)s[0]) && isalnum((unsigned char)s[n - 1]);
}

/* five fields of the characters cron accepts (Kubernetes validates the rest) */
static int cron_schedule(const char *s)
{
	int fields = 0, in = 0;

	if (s[0] == '@')
		return strspn(s + 1, "abcdefghijklmnopqrstuvwxyz") == strlen(s + 1) &&
		       s[1];
	for (const char *p = s; *p; p++) {
		if (*p == ' ') {
			in = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && !strchr("*/,-?", *p))
			return 0;
		if (!in)
			fields++;
		in = 1;
	}
	return fields == 5;
}

static int has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	return 0;
}

/* NAME[:TAG][@sha256:<64 lower-case hex>], no blanks */
static int image_ref(const char *s)
{
	const char *at = strchr(s, '@');
	size_t n = at ? (size_t)(at - s) : strlen(s);

	if (!n || has_space(s) || s[n - 1] == ':' || s[n - 1] == '/' ||
	    s[0] == '/')
		return 0;
	if (!at)
		return 1;
	if (strncmp(at + 1, "sha256:", 7) || strlen(at + 8) != 64)
		return 0;
	for (const char *p = at + 8; *p; p++)
		if (!isdigit((unsigned char)*p) && (*p < 'a' || *p > 'f'))
			return 0;
	return 1;
}

static int is_ssh_url(const char *url)
{
	if (!strncmp(url, "ssh://", 6))
		return 1;
	/* scp-like user@host:path */
	return !strstr(url, "://") && strchr(url, '@') && strchr(url, ':');
}

static int check_opts(const struct install_opts *o, struct err *err)
{
	int has_password = 0;

	if (!o->git_url || !*o->git_url || has_space(o->git_url))
		return err_set(err, ERR_INVALID, "--git needs a repository URL");
	/* credentials in the URL would be written into the CronJob's
	 * arguments, readable by anyone who may read the CronJob or its
	 * pods; an SSH user name alone (ssh://git@host) is no secret */
	if (url_userinfo(o->git_url, &has_password) &&
	    (has_password || strncmp(o->git_url, "ssh://", 6))) {
		struct buf clean = BUF_INIT;
		url_strip_userinfo(o->git_url, &clean);
		err_set(err, ERR_INVALID,
			"--git URL carries credentials (the part before '@'): "
			"they would be written into the CronJob's arguments; give "
			"the URL without them (%s) and put the credentials in the "
			"Secret '%s' (key GPUFORM_GIT_TOKEN, or GPUFORM_GIT_USERNAME "
			"and GPUFORM_GIT_PASSWORD: the CronJob reads it as environment)",
			buf_cstr(&clean),
			o->git_secret ? o->git_secret : INSTALL_DEFAULT_GIT_SECRET);
		buf_release(&clean);
		return -1;
	}
	/* the CronJob sends the Git token with every fetch: never in clear */
	if (!strncasecmp(o->git_url, "http://", 7) &&
	    !url_secret_safe(o->git_url))
		return err_set(err, ERR_INVALID,
			       "--git '%s' is plain http://: the CronJob would "
			       "send the Git token (Secret '%s') in clear on "
			       "every run; use the https:// or ssh:// URL",
			       o->git_url,
			       o->git_secret ? o->git_secret
					     : INSTALL_DEFAULT_GIT_SECRET);
	if (!o->git_path || !*o->git_path || has_space(o->git_path))
		return err_set(err, ERR_INVALID,
			       "--path needs the directory in the repository "
			       "that holds the cluster directories (e.g. "
			       "clusters)");
	if (o->git_ref && (!*o->git_ref || has_space(o->git_ref)))
		return err_set(err, ERR_INVALID, "--ref '%s' is not a branch name",
			       o->git_ref);
	/* the CronJob gpuform-<cluster>: a CronJob name has at most 52
	 * characters (its Jobs' names add a suffix) */
	if (!dns_label(o->cluster, INSTALL_CLUSTER_MAX))
		return err_set(err, ERR_INVALID,
			       "cluster name '%s' is not a DNS label of at most "
			       "%d characters (lower-case letters, digits, '-'; "
			       "the CronJob is named gpuform-<cluster>, and a "
			       "CronJob name has at most 52)",
			       o->cluster ? o->cluster : "",
			       INSTALL_CLUSTER_MAX);
	if (o->namespace_ && !dns_label(o->namespace_, 63))
		return err_set(err, ERR_INVALID,
			       "namespace '%s' is not a DNS label", o->namespace_);
	if (o->device_plugin_ns && !dns_label(o->device_plugin_ns, 63))
		return err_set(err, ERR_INVALID,
			       "--device-plugin-namespace '%s' is not a DNS "
			       "label", o->device_plugin_ns);
	if (o->schedule && !cron_schedule(o->schedule))
		return err_set(err, ERR_INVALID,
			       "schedule '%s' is not a cron schedule (five "
			       "fields, e.g. \"*/5 * * * *\")",
			       o->schedule);
	if (o->image && !image_ref(o->image))
		return err_set(err, ERR_INVALID,
			       "image '%s' is not an image reference "
			       "(REGISTRY/REPO:TAG or REGISTRY/REPO@sha256: and "
			       "64 hex digits)", o->image);
	if (o->git_cache_pvc && !dns_subdomain(o->git_cache_pvc))
		return err_set(err, ERR_INVALID,
			       "--git-cache-pvc '%s' is not a "
			       "PersistentVolumeClaim name (a DNS subdomain)",
			       o->git_cache_pvc);
	if (o->git_secret && !dns_subdomain(o->git_secret))
		return err_set(err, ERR_INVALID,
			       "Secret name '%s' is not a DNS subdomain name",
			       o->git_secret);
	if (o->cronjob_api && strcmp(o->cronjob_api, "batch/v1") &&
	    strcmp(o->cronjob_api, "batch/v1beta1"))
		return err_set(err, ERR_INVALID,
			       "CronJob API version '%s': batch/v1 (Kubernetes "
			       "1.21 and later) or batch/v1beta1 (before 1.25)",
			       o->cronjob_api);
	if (o->pushgateway && (strncmp(o->pushgateway, "http://", 7) &&
			       strncmp(o->pushgateway, "https://", 8)))
		return err_set(err, ERR_INVALID,
			       "--pushgateway '%s' is not an http:// or https:// "
			       "URL",
			       o->pushgateway);
	if (o->timeout_s < 0 || o->timeout_s > 86400)
		return err_set(err, ERR_INVALID, "timeout out of range");
	return 0;
}

/* ---- documents ---------------------------------------------------------- */

static cJSON *labels(const struct install_opts *o)
{
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "app.kubernetes.io/name", INSTALL_NAME);
	cJSON_AddStringToObject(l, "app.kubernetes.io/instance", o->cluster);
	cJSON_AddStringToObject(l, "app.kubernetes.io/component", "reconcile");
	return l;
}

static cJSON *base_ctx(const struct install_opts *o, const char *name,
		       const char *ns)
{
	cJSON *ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "name", name);
	if (ns)
		cJSON_AddStringToObject(ctx, "namespace", ns);
	cJSON_AddItemToObject(ctx, "labels", labels(o));
	return ctx;
}

static void add_env(cJSON *env, const char *name, const char *value)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "value", value);
	cJSON_AddItemToArray(env, e);
}

static void add_mount(cJSON *mounts, cJSON *vols, const char *name,
		      const char *path, cJSON *source, const char *source_key,
		      int read_only)
{
	cJSON *m = cJSON_CreateObject(), *v = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", name);
	cJSON_AddStringToObject(m, "mountPath", path);
	if (read_only)
		cJSON_AddBoolToObject(m, "readOnly", 1);
	cJSON_AddItemToArray(mounts, m);
	cJSON_AddStringToObject(v, "name", name);
	cJSON_AddItemToObject(v, source_key, source);
	cJSON_AddItemToArray(vols, v);
}

/* the names: objects in the own namespace are "gpuform-<cluster>" (two
 * clusters installed in one namespace never share one); objects outside
 * it — cluster-scoped, or a Role in kube-system — are
 * "gpuform-<cluster>.<namespace>" (two installs in two namespaces never
 * share one either; cluster and namespace are DNS labels, without dots,
 * so the name is unambiguous) */
static char *own_name(const struct install_opts *o)
{
	return xasprintf(INSTALL_NAME "-%s", o->cluster);
}

static char *outside_name(const struct install_opts *o, const char *own_ns)
{
	return xasprintf(INSTALL_NAME "-%s.%s", o->cluster, own_ns);
}

static cJSON *cronjob_ctx(const struct install_opts *o, const char *ns)
{
	char *name = own_name(o);
	cJSON *ctx = base_ctx(o, name, ns);
	cJSON *args = cJSON_CreateArray(), *env = cJSON_CreateArray();
	cJSON *mounts = cJSON_CreateArray(), *vols = cJSON_CreateArray(), *src;
	long timeout = o->timeout_s ? o->timeout_s : 300;
	const char *const fixed[] = { "reconcile", "--git", o->git_url, "--ref",
				      o->git_ref ? o->git_ref : "main", "--path",
				      o->git_path, "--cluster", o->cluster,
				      "--git-cache",
				      CACHE_DIR "/git", "--lock", "--events",
				      "--held-exit-code", "0" };
	char *s;

	cJSON_AddStringToObject(ctx, "apiVersion",
				o->cronjob_api ? o->cronjob_api : "batch/v1");
	cJSON_AddStringToObject(ctx, "schedule",
				o->schedule ? o->schedule : INSTALL_DEFAULT_SCHEDULE);
	cJSON_AddNumberToObject(ctx, "startingDeadlineSeconds", 120);
	cJSON_AddNumberToObject(ctx, "backoffLimit", 2);
	/* the API part of a run is bounded by --timeout; Git gets as long */
	cJSON_AddNumberToObject(ctx, "activeDeadlineSeconds", (double)(2 * timeout + 60));
	cJSON_AddStringToObject(ctx, "serviceAccount", name);
	free(name);
	s = o->image ? xstrdup(o->image) : xstrdup(INSTALL_NAME ":" GPUFORM_VERSION);
	cJSON_AddStringToObject(ctx, "image", s);
	free(s);
	cJSON_AddStringToObject(ctx, "gitSecret",
				o->git_secret ? o->git_secret : INSTALL_DEFAULT_GIT_SECRET);

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		cJSON_AddItemToArray(args, cJSON_CreateString(fixed[i]));
	if (o->namespace_ && strcmp(o->namespace_, OWN_NS_DEFAULT)) {
		cJSON_AddItemToArray(args, cJSON_CreateString("--inventory-namespace"));
		cJSON_AddItemToArray(args, cJSON_CreateString(o->namespace_));
	}
	s = xasprintf("%lds", timeout);
	cJSON_AddItemToArray(args, cJSON_CreateString("--timeout"));
	cJSON_AddItemToArray(args, cJSON_CreateString(s));
	free(s);
	if (o->prune)
		cJSON_AddItemToArray(args, cJSON_CreateString("--prune"));
	if (o->preflight_intent) {
		/* the intent file of the same commit (docs/preflight.md) */
		cJSON_AddItemToArray(args, cJSON_CreateString("--preflight"));
		cJSON_AddItemToArray(args, cJSON_CreateString("--preflight-intent"));
		cJSON_AddItemToArray(args, cJSON_CreateString(o->preflight_intent));
	}
	if (o->pushgateway) {
		cJSON_AddItemToArray(args, cJSON_CreateString("--pushgateway"));
		cJSON_AddItemToArray(args, cJSON_CreateString(o->pushgateway));
	}
	cJSON_AddItemToObject(ctx, "args", args);

	/* a read-only root: the Git cache and HOME live in an emptyDir, or
	 * on the claim that keeps the cache between runs */
	add_env(env, "HOME", CACHE_DIR);
	src = cJSON_CreateObject();
	if (o->git_cache_pvc)
		cJSON_AddStringToObject(src, "claimName", o->git_cache_pvc);
	/* another volume name for the claim: applied over an install with the
	 * emptyDir, server-side apply would merge the two entries of the same
	 * name into one volume of two types, which the API server refuses */
	add_mount(mounts, vols, o->git_cache_pvc ? "git-cache" : "cache",
		  CACHE_DIR, src,
		  o->git_cache_pvc ? "persistentVolumeClaim" : "emptyDir", 0);
	src = cJSON_CreateObject();
	add_mount(mounts, vols, "tmp", "/tmp", src, "emptyDir", 0);
	if (is_ssh_url(o->git_url)) {
		/* SSH needs files: the key and known_hosts from the Secret */
		add_env(env, "GPUFORM_GIT_SSH_KEY", GIT_SECRET_DIR "/ssh-privatekey");
		add_env(env, "GPUFORM_GIT_SSH_KNOWN_HOSTS", GIT_SECRET_DIR "/known_hosts");
		src = cJSON_CreateObject();
		cJSON_AddStringToObject(src, "secretName",
					o->git_secret ? o->git_secret
						      : INSTALL_DEFAULT_GIT_SECRET);
		cJSON_AddNumberToObject(src, "defaultMode", 0440);
		add_mount(mounts, vols, "git-credentials", GIT_SECRET_DIR, src,
			  "secret", 1);
	}
	cJSON_AddItemToObject(ctx, "env", env);
	cJSON_AddItemToObject(ctx, "volumeMounts", mounts);
	cJSON_AddItemToObject(ctx, "volumes", vols);
	return ctx;
}

static cJSON *binding_ctx(const struct install_opts *o, const char *kind,
			  const char *name, const char *ns, const char *own_ns)
{
	cJSON *ctx = base_ctx(o, name, ns);
	char *sa = own_name(o);
	cJSON_AddStringToObject(ctx, "kind", kind);
	cJSON_AddStringToObject(ctx, "roleKind",
				strcmp(kind, "RoleBinding") ? "ClusterRole" : "Role");
	cJSON_AddStringToObject(ctx, "serviceAccount", sa);
	free(sa);
	cJSON_AddStringToObject(ctx, "serviceAccountNamespace", own_ns);
	return ctx;
}

int install_render(cJSON **out, const struct install_opts *o,
		   const struct tmpl_set *t, struct err *err)
{
	const char *own = o->namespace_ ? o->namespace_ : OWN_NS_DEFAULT;
	struct install_grant *g = NULL;
	const char **nss = NULL;
	size_t ng, nns = 0, i;
	cJSON *docs = cJSON_CreateArray(), *ctx;
	char *own_nm = NULL, *out_nm = NULL;
	int ret = -1;

	*out = NULL;
	if (check_opts(o, err) < 0) {
		cJSON_Delete(docs);
		return -1;
	}
	own_nm = own_name(o);
	out_nm = outside_name(o, own);
	ng = install_grants(&g, own, o->cluster, o->device_plugin_ns);
	if (o->doctor)
		ng = doctor_grants(&g, ng);
	if (o->delivery_flux)
		ng = delivery_grants(&g, ng, DELIVERY_FLUX);
	if (o->delivery_argocd)
		ng = delivery_grants(&g, ng, DELIVERY_ARGOCD);
	/* namespaces with a Role: our own first, then the others sorted */
	nss = xcalloc(ng + 1, sizeof(*nss));
	nss[nns++] = own;
	for (i = 0; i < ng; i++) {
		int seen = 0;
		if (!g[i].ns)
			continue;
		for (size_t j = 0; j < nns; j++)
			seen |= !strcmp(nss[j], g[i].ns);
		if (!seen)
			nss[nns++] = g[i].ns;
	}
	for (size_t x = 2; x < nns; x++)
		for (size_t y = x; y > 1 && strcmp(nss[y - 1], nss[y]) > 0; y--) {
			const char *tmp = nss[y];
			nss[y] = nss[y - 1];
			nss[y - 1] = tmp;
		}

	/* the Namespace may hold several clusters' installs: no instance
	 * label, so one install's apply never rewrites another's */
	ctx = base_ctx(o, own, NULL);
	cJSON_DeleteItemFromObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(ctx, "labels"),
		"app.kubernetes.io/instance");
	if (tmpl_append(docs, t, "namespace", ctx, err) < 0)
		goto out;
	if (tmpl_append(docs, t, "install-serviceaccount",
			base_ctx(o, own_nm, own), err) < 0)
		goto out;
	ctx = base_ctx(o, out_nm, NULL);
	cJSON_AddItemToObject(ctx, "rules", install_rules(g, ng, NULL));
	if (tmpl_append(docs, t, "install-clusterrole", ctx, err) < 0)
		goto out;
	if (tmpl_append(docs, t, "install-binding",
			binding_ctx(o, "ClusterRoleBinding", out_nm, NULL, own),
			err) < 0)
		goto out;
	for (i = 0; i < nns; i++) {
		char *name = xstrdup(i ? out_nm : own_nm);
		ctx = base_ctx(o, name, nss[i]);
		cJSON_AddItemToObject(ctx, "rules", install_rules(g, ng, nss[i]));
		if (tmpl_append(docs, t, "install-role", ctx, err) < 0 ||
		    tmpl_append(docs, t, "install-binding",
				binding_ctx(o, "RoleBinding", name, nss[i], own),
				err) < 0) {
			free(name);
			goto out;
		}
		free(name);
	}
	if (tmpl_append(docs, t, "install-cronjob", cronjob_ctx(o, own),
			err) < 0)
		goto out;
	*out = docs;
	docs = NULL;
	ret = 0;
out:
	cJSON_Delete(docs);
	free(nss);
	free(own_nm);
	free(out_nm);
	install_grants_free(g, ng);
	return ret;
}
