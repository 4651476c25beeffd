/*
 * tests/unit/test_incluster.c: the pure parts of the in-cluster job —
 * generator/install.c (RBAC derived from kobj_kinds, the manifests),
 * reconcile/lease.c (staleness, times), reconcile/metrics.c (Prometheus
 * text) and reconcile/notify.c (Events, status).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/install.h"
#include "generator/kobj.h"
#include "generator/pipeline.h"
#include "generator/render.h"
#include "reconcile/installrun.h"
#include "reconcile/lease.h"
#include "reconcile/metrics.h"
#include "reconcile/notify.h"
#include "tests/unit/suites.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* ---- RBAC derivation ----------------------------------------------------- */

static const cJSON *find_rule(const cJSON *rules, const char *group,
			      const char *resource, const char *name)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rules)
	{
		const cJSON *g = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(r, "apiGroups"), 0);
		const cJSON *names = cJSON_GetObjectItemCaseSensitive(r, "resourceNames");
		const cJSON *res;
		if (strcmp(g->valuestring, group))
			continue;
		if (name ? !names || strcmp(cJSON_GetArrayItem(names, 0)->valuestring, name)
			 : names != NULL)
			continue;
		cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(r, "resources"))
			if (!strcmp(res->valuestring, resource))
				return r;
	}
	return NULL;
}

static char *verbs_of(const cJSON *rule)
{
	struct buf b = BUF_INIT;
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(rule, "verbs"))
		buf_addf(&b, "%s%s", b.len ? "," : "", v->valuestring);
	return buf_detach(&b, NULL);
}

static void assert_verbs(const cJSON *rules, const char *group,
			 const char *resource, const char *name, const char *want)
{
	const cJSON *r = find_rule(rules, group, resource, name);
	char *v;

	ck_assert_msg(r != NULL, "no rule for %s/%s", group, resource);
	v = verbs_of(r);
	ck_assert_msg(!strcmp(v, want), "%s/%s: verbs %s, want %s", group,
		      resource, v, want);
	free(v);
}

START_TEST(test_cluster_rules_follow_kobj_kinds)
{
	struct install_grant *g;
	size_t n = install_grants(&g, "gpuform-system", "ml-prod", NULL);
	cJSON *rules = install_rules(g, n, NULL);
	size_t kinds = 0;

	for (size_t i = 0; kobj_kinds[i].kind; i++) {
		const struct kobj_kind *k = &kobj_kinds[i];
		char group[64] = "";
		const char *slash = strchr(k->api_version, '/');
		if (slash)
			memcpy(group, k->api_version, (size_t)(slash - k->api_version));
		kinds++;
		if (k->ns && strcmp(k->ns, KOBJ_ANY_NAMESPACE)) {
			/* fixed namespace: never written cluster-wide (the
			 * ConfigMaps: only the list of every inventory) */
			if (!strcmp(k->kind, "ConfigMap"))
				assert_verbs(rules, group, k->resource, NULL, "list");
			else
				ck_assert_ptr_null(find_rule(rules, group,
							     k->resource, NULL));
			continue;
		}
		assert_verbs(rules, group, k->resource, NULL,
			     strcmp(k->kind, "Namespace") ? "get,list,create,patch,delete"
							  : "get,list,create,patch");
	}
	ck_assert_uint_ge(kinds, 8);
	assert_verbs(rules, "", "pods", NULL, "get,list");
	assert_verbs(rules, "karpenter.sh", "nodeclaims", NULL, "get,list");
	/* nothing else: no secrets, no cluster-wide ConfigMap but the list
	 * of every gpuform inventory (issue 21: a prune that cannot see
	 * another namespace's inventory deletes what it lists), no '*' */
	ck_assert_ptr_null(find_rule(rules, "", "secrets", NULL));
	assert_verbs(rules, "", "configmaps", NULL, "list");
	{
		char *s = cJSON_PrintUnformatted(rules);
		ck_assert_ptr_null(strstr(s, "\"*\""));
		free(s);
	}
	cJSON_Delete(rules);
	install_grants_free(g, n);
}
END_TEST

START_TEST(test_namespace_rules)
{
	struct install_grant *g;
	size_t n = install_grants(&g, "gpuform-system", "ml-prod", NULL);
	cJSON *own = install_rules(g, n, "gpuform-system");
	cJSON *ks = install_rules(g, n, "kube-system");
	cJSON *other = install_rules(g, n, "default");
	char *s;

	s = cJSON_PrintUnformatted(own);
	ck_assert_str_eq(s,
		"[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\",\"events\","
		"\"secrets\"],\"verbs\":[\"create\"]},"
		"{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
		"\"resourceNames\":[\"gpuform-ml-prod\"],\"verbs\":[\"get\",\"patch\"]},"
		/* the one Secret it may read: the ownership key (issue 21) */
		"{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
		"\"resourceNames\":[\"gpuform-ml-prod-owner-key\"],\"verbs\":[\"get\"]},"
		"{\"apiGroups\":[\"coordination.k8s.io\"],\"resources\":[\"leases\"],"
		"\"verbs\":[\"create\"]},"
		"{\"apiGroups\":[\"coordination.k8s.io\"],\"resources\":[\"leases\"],"
		"\"resourceNames\":[\"gpuform-ml-prod\"],\"verbs\":[\"get\",\"update\"]}]");
	free(s);
	/* the renderer's fixed-namespace ConfigMap (device plugin) */
	assert_verbs(ks, "", "configmaps", NULL, "get,list,create,patch,delete");
	ck_assert_int_eq(cJSON_GetArraySize(ks), 1);
	ck_assert_int_eq(cJSON_GetArraySize(other), 0);
	cJSON_Delete(own);
	cJSON_Delete(ks);
	cJSON_Delete(other);
	install_grants_free(g, n);

	/* --device-plugin-namespace: the ConfigMap grant follows the chart's
	 * namespace (spec.nvidiaDevicePlugin.namespace), kube-system gets none */
	n = install_grants(&g, "gpuform-system", "ml-prod", "nvidia-device-plugin");
	ks = install_rules(g, n, "kube-system");
	other = install_rules(g, n, "nvidia-device-plugin");
	ck_assert_int_eq(cJSON_GetArraySize(ks), 0);
	assert_verbs(other, "", "configmaps", NULL,
		     "get,list,create,patch,delete");
	ck_assert_int_eq(cJSON_GetArraySize(other), 1);
	cJSON_Delete(ks);
	cJSON_Delete(other);
	install_grants_free(g, n);
}
END_TEST

/* every kind any example intent renders is in kobj_kinds, with the
 * namespace rule it declares: the RBAC derived from it cannot go stale */
START_TEST(test_kobj_kinds_cover_examples)
{
	struct tmpl_set *t = NULL;
	struct err err = ERR_INIT;
	DIR *dir = opendir("specs");
	struct dirent *de;
	int files = 0;

	ck_assert_msg(dir != NULL, "run the unit tests from the top directory");
	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	while ((de = readdir(dir))) {
		struct rendered r = RENDERED_INIT;
		struct diags d = DIAGS_INIT;
		struct buf data = BUF_INIT;
		const cJSON *doc;
		char *path;
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		path = xasprintf("specs/%s", de->d_name);
		ck_assert_int_eq(fs_read_file(&data, path, 1 << 20, &err), 0);
		ck_assert_msg(pipeline_render(&r, path, buf_cstr(&data), data.len,
					      t, &d, &err) == 0,
			      "%s: %s", path, err_msg(&err));
		cJSON_ArrayForEach(doc, r.docs)
		{
			const char *av = cJSON_GetObjectItemCaseSensitive(doc, "apiVersion")->valuestring;
			const char *kind = cJSON_GetObjectItemCaseSensitive(doc, "kind")->valuestring;
			const cJSON *ns = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "namespace");
			int found = 0;
			for (size_t i = 0; kobj_kinds[i].kind; i++) {
				const struct kobj_kind *k = &kobj_kinds[i];
				if (strcmp(k->kind, kind) || strcmp(k->api_version, av))
					continue;
				found = 1;
				if (!k->ns)
					ck_assert_msg(ns == NULL, "%s %s is namespaced", path, kind);
				else if (strcmp(k->ns, KOBJ_ANY_NAMESPACE))
					ck_assert_str_eq(ns->valuestring, k->ns);
				else
					ck_assert_ptr_nonnull(ns);
			}
			ck_assert_msg(found, "%s renders %s %s, which kobj_kinds "
					     "does not list", path, av, kind);
		}
		files++;
		rendered_release(&r);
		diags_release(&d);
		buf_release(&data);
		free(path);
	}
	closedir(dir);
	ck_assert_int_ge(files, 5);
	tmpl_set_free(t);
	err_release(&err);
}
END_TEST

/* ---- install manifests --------------------------------------------------- */

static cJSON *install(const struct install_opts *o, struct err *err)
{
	struct tmpl_set *t = NULL;
	cJSON *docs = NULL;

	ck_assert_int_eq(tmpl_set_load(&t, NULL, err), 0);
	if (install_render(&docs, o, t, err) < 0)
		docs = NULL;
	tmpl_set_free(t);
	return docs;
}

static const cJSON *doc_of(const cJSON *docs, const char *kind, const char *ns)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, docs)
	{
		const cJSON *md = cJSON_GetObjectItemCaseSensitive(d, "metadata");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(md, "namespace");
		if (strcmp(cJSON_GetObjectItemCaseSensitive(d, "kind")->valuestring, kind))
			continue;
		if (!ns || (n && !strcmp(n->valuestring, ns)))
			return d;
	}
	return NULL;
}

static const cJSON *at(const cJSON *o, const char *path)
{
	char *p = xstrdup(path), *save = NULL;

	for (char *k = strtok_r(p, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k))
				     : cJSON_GetObjectItemCaseSensitive(o, k);
	free(p);
	return o;
}

START_TEST(test_install_documents)
{
	struct install_opts o = { 0 };
	struct err err = ERR_INIT;
	const cJSON *cj, *pod, *c, *a;
	cJSON *docs, *again;
	char *s1, *s2;
	struct buf args = BUF_INIT;

	o.git_url = "https://git.example.com/gitops.git";
	o.git_path = "clusters";
	o.cluster = "ml-prod";
	o.prune = 1;
	o.pushgateway = "http://pgw:9091";
	o.preflight_intent = "specs/ml-prod.yaml";
	docs = install(&o, &err);
	ck_assert_msg(docs != NULL, "%s", err_msg(&err));
	ck_assert_int_eq(cJSON_GetArraySize(docs), 9);
	ck_assert_str_eq(at(docs, "0.kind")->valuestring, "Namespace");
	ck_assert_str_eq(at(docs, "0.metadata.name")->valuestring, "gpuform-system");
	ck_assert_ptr_nonnull(doc_of(docs, "ServiceAccount", "gpuform-system"));
	ck_assert_ptr_nonnull(doc_of(docs, "Role", "kube-system"));
	/* Fixed bug (generator/install.c, install_render): every install
	 * named its objects gpuform/gpuform-reconcile, so a second cluster's
	 * install overwrote the first's (issue 21). Own namespace:
	 * gpuform-<cluster>; outside it: gpuform-<cluster>.<namespace> */
	ck_assert_str_eq(at(doc_of(docs, "ServiceAccount", "gpuform-system"),
			    "metadata.name")->valuestring, "gpuform-ml-prod");
	ck_assert_str_eq(at(doc_of(docs, "RoleBinding", "kube-system"), "roleRef.name")->valuestring,
			 "gpuform-ml-prod.gpuform-system");
	ck_assert_str_eq(at(doc_of(docs, "RoleBinding", "kube-system"),
			    "subjects.0.name")->valuestring, "gpuform-ml-prod");
	ck_assert_str_eq(at(doc_of(docs, "ClusterRoleBinding", NULL), "metadata.name")->valuestring,
			 "gpuform-ml-prod.gpuform-system");
	ck_assert_str_eq(at(doc_of(docs, "Role", "gpuform-system"), "metadata.name")->valuestring,
			 "gpuform-ml-prod");
	ck_assert_str_eq(at(doc_of(docs, "CronJob", "gpuform-system"), "metadata.name")->valuestring,
			 "gpuform-ml-prod");
	ck_assert_str_eq(at(doc_of(docs, "CronJob", "gpuform-system"),
			    "spec.jobTemplate.spec.template.spec.serviceAccountName")->valuestring,
			 "gpuform-ml-prod");
	ck_assert_str_eq(at(doc_of(docs, "ClusterRoleBinding", NULL), "subjects.0.namespace")->valuestring,
			 "gpuform-system");
	cj = doc_of(docs, "CronJob", "gpuform-system");
	ck_assert_ptr_nonnull(cj);
	ck_assert_str_eq(at(cj, "apiVersion")->valuestring, "batch/v1");
	ck_assert_str_eq(at(cj, "spec.schedule")->valuestring, "*/5 * * * *");
	ck_assert_str_eq(at(cj, "spec.concurrencyPolicy")->valuestring, "Forbid");
	ck_assert_int_gt(at(cj, "spec.startingDeadlineSeconds")->valueint, 0);
	ck_assert_int_gt(at(cj, "spec.jobTemplate.spec.activeDeadlineSeconds")->valueint, 300);
	ck_assert_int_gt(at(cj, "spec.jobTemplate.spec.backoffLimit")->valueint, 0);
	pod = at(cj, "spec.jobTemplate.spec.template.spec");
	ck_assert_str_eq(at(pod, "restartPolicy")->valuestring, "OnFailure");
	ck_assert(cJSON_IsTrue(at(pod, "securityContext.runAsNonRoot")));
	c = at(pod, "containers.0");
	ck_assert(cJSON_IsTrue(at(c, "securityContext.readOnlyRootFilesystem")));
	ck_assert(cJSON_IsFalse(at(c, "securityContext.allowPrivilegeEscalation")));
	ck_assert_str_eq(at(c, "resources.requests.memory")->valuestring, "128Mi");
	ck_assert_str_eq(at(c, "envFrom.0.secretRef.name")->valuestring, "gpuform-git");
	cJSON_ArrayForEach(a, at(c, "args"))
		buf_addf(&args, "%s ", a->valuestring);
	ck_assert_str_eq(buf_cstr(&args),
			 "reconcile --git https://git.example.com/gitops.git --ref main "
			 "--path clusters --cluster ml-prod "
			 "--git-cache /var/cache/gpuform/git "
			 "--lock --events --held-exit-code 0 --timeout 300s --prune "
			 "--preflight "
			 "--preflight-intent specs/ml-prod.yaml --pushgateway "
			 "http://pgw:9091 ");
	/* no SSH: no secret volume */
	ck_assert_int_eq(cJSON_GetArraySize(at(pod, "volumes")), 2);
	/* deterministic */
	again = install(&o, &err);
	s1 = cJSON_PrintUnformatted(docs);
	s2 = cJSON_PrintUnformatted(again);
	ck_assert_str_eq(s1, s2);
	free(s1);
	free(s2);
	cJSON_Delete(again);
	cJSON_Delete(docs);
	buf_release(&args);
	err_release(&err);
}
END_TEST

/* install --doctor: get on the controllers doctor reads, by name, in
 * their namespaces; nothing more (and nothing without the flag) */
START_TEST(test_install_doctor_grants)
{
	struct install_opts o = { 0 };
	struct err err = ERR_INIT;
	cJSON *docs;
	const cJSON *role, *rules, *r;
	size_t n = 0;

	o.git_url = "https://git.example.com/gitops.git";
	o.git_path = "clusters";
	o.cluster = "ml-prod";
	docs = install(&o, &err);
	ck_assert_ptr_nonnull(docs);
	ck_assert_ptr_null(doc_of(docs, "Role", "kueue-system"));
	ck_assert_ptr_null(doc_of(docs, "Role", "karpenter"));
	cJSON_Delete(docs);
	o.doctor = 1;
	docs = install(&o, &err);
	ck_assert_msg(docs != NULL, "%s", err_msg(&err));
	role = doc_of(docs, "Role", "kueue-system");
	ck_assert_ptr_nonnull(role);
	rules = at(role, "rules");
	cJSON_ArrayForEach(r, rules) {
		ck_assert_int_eq(cJSON_GetArraySize(at(r, "verbs")), 1);
		ck_assert_str_eq(at(r, "verbs.0")->valuestring, "get");
		ck_assert_int_eq(cJSON_GetArraySize(at(r, "resourceNames")), 1);
		n++;
	}
	ck_assert_uint_eq(n, 2); /* the Deployment and the ConfigMap */
	role = doc_of(docs, "Role", "karpenter");
	ck_assert_ptr_nonnull(role);
	ck_assert_str_eq(at(role, "rules.0.resourceNames.0")->valuestring, "karpenter");
	ck_assert_str_eq(at(role, "rules.0.resources.0")->valuestring, "deployments");
	ck_assert_ptr_nonnull(doc_of(docs, "RoleBinding", "kueue-system"));
	cJSON_Delete(docs);
	err_release(&err);
}
END_TEST

/* install --delivery flux/argocd: the delivered objects in their one
 * namespace — list and create, get/patch/delete by name only */
START_TEST(test_install_delivery_grants)
{
	struct install_opts o = { 0 };
	struct err err = ERR_INIT;
	cJSON *docs;
	const cJSON *role, *r;
	size_t named = 0, any = 0;

	o.git_url = "https://git.example.com/gitops.git";
	o.git_path = "clusters";
	o.cluster = "ml-prod";
	docs = install(&o, &err);
	ck_assert_ptr_null(doc_of(docs, "Role", "flux-system"));
	ck_assert_ptr_null(doc_of(docs, "Role", "argocd"));
	cJSON_Delete(docs);
	o.delivery_flux = 1;
	docs = install(&o, &err);
	ck_assert_msg(docs != NULL, "%s", err_msg(&err));
	ck_assert_ptr_null(doc_of(docs, "Role", "argocd"));
	role = doc_of(docs, "Role", "flux-system");
	ck_assert_ptr_nonnull(role);
	ck_assert_ptr_nonnull(doc_of(docs, "RoleBinding", "flux-system"));
	cJSON_ArrayForEach(r, at(role, "rules")) {
		const char *g = at(r, "apiGroups.0")->valuestring;
		ck_assert(!strcmp(g, "helm.toolkit.fluxcd.io") ||
			  !strcmp(g, "source.toolkit.fluxcd.io"));
		if (at(r, "resourceNames")) {
			ck_assert_int_eq(cJSON_GetArraySize(at(r, "verbs")), 3);
			ck_assert_str_eq(at(r, "verbs.0")->valuestring, "get");
			ck_assert_str_eq(at(r, "verbs.2")->valuestring, "delete");
			named += (size_t)cJSON_GetArraySize(at(r, "resources"));
		} else {
			/* list and create of each kind, never get/patch */
			ck_assert_int_eq(cJSON_GetArraySize(at(r, "verbs")), 2);
			ck_assert_str_eq(at(r, "verbs.0")->valuestring, "list");
			ck_assert_str_eq(at(r, "verbs.1")->valuestring, "create");
			any += (size_t)cJSON_GetArraySize(at(r, "resources"));
		}
	}
	/* 5 HelmReleases, 2 OCIRepositories, 3 HelmRepositories */
	ck_assert_uint_eq(named, 10);
	ck_assert_uint_eq(any, 3);
	cJSON_Delete(docs);
	o.delivery_flux = 0;
	o.delivery_argocd = 1;
	docs = install(&o, &err);
	role = doc_of(docs, "Role", "argocd");
	ck_assert_ptr_nonnull(role);
	ck_assert_ptr_null(doc_of(docs, "Role", "flux-system"));
	ck_assert_str_eq(at(role, "rules.0.apiGroups.0")->valuestring, "argoproj.io");
	cJSON_Delete(docs);
	err_release(&err);
}
END_TEST

START_TEST(test_install_invalid)
{
	static const struct {
		const char *field, *value, *says;
	} bad[] = {
		{ "schedule", "every 5 minutes", "not a cron schedule" },
		{ "schedule", "* * * *", "not a cron schedule" },
		{ "cluster", "ML_prod", "not a DNS label" },
		{ "cluster", "", "not a DNS label" },
		/* 45 characters: the CronJob gpuform-<cluster> would have 53 */
		{ "cluster", "a23456789012345678901234567890123456789012345",
		  "a CronJob name has at most 52" },
		{ "cronjob", "batch/v2", "CronJob API version" },
		{ "secret", "Bad Secret", "not a DNS subdomain" },
		{ "image", "gpuform latest", "not an image reference" },
		{ "image", "gpuform:", "not an image reference" },
		{ "image", "/gpuform:1", "not an image reference" },
		{ "image", "r.example/gpuform@sha256:abc", "not an image reference" },
		{ "image", "r.example/gpuform@sha1:"
			   "0123456789abcdef0123456789abcdef01234567",
		  "not an image reference" },
		{ "image", "r.example/gpuform@sha256:"
			   "0123456789ABCDEF0123456789abcdef"
			   "0123456789abcdef0123456789abcdef",
		  "not an image reference" },
		{ "pvc", "Git_Cache", "not a PersistentVolumeClaim name" },
		{ "pushgateway", "pgw:9091", "not an http" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct install_opts o = { 0 };
		struct err err = ERR_INIT;
		cJSON *docs;

		o.git_url = "https://x/r.git";
		o.git_path = "clusters";
		o.cluster = "a";
		if (!strcmp(bad[i].field, "schedule"))
			o.schedule = bad[i].value;
		else if (!strcmp(bad[i].field, "cluster"))
			o.cluster = bad[i].value;
		else if (!strcmp(bad[i].field, "cronjob"))
			o.cronjob_api = bad[i].value;
		else if (!strcmp(bad[i].field, "secret"))
			o.git_secret = bad[i].value;
		else if (!strcmp(bad[i].field, "image"))
			o.image = bad[i].value;
		else if (!strcmp(bad[i].field, "pvc"))
			o.git_cache_pvc = bad[i].value;
		else
			o.pushgateway = bad[i].value;
		docs = install(&o, &err);
		ck_assert_msg(docs == NULL, "%s '%s' accepted", bad[i].field, bad[i].value);
		ck_assert_int_eq(err.code, ERR_INVALID);
		ck_assert_msg(strstr(err_msg(&err), bad[i].says), "%s", err_msg(&err));
		err_release(&err);
	}
}
END_TEST

/* --image as given (a tag, a digest), the default; --git-cache-pvc */
START_TEST(test_install_image_and_cache)
{
	static const char *const images[] = {
		"registry.example.com:5000/platform/gpuform:0.1.0",
		"registry.example.com/platform/gpuform@sha256:"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"r.example/gpuform:0.1.0@sha256:"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	};
	struct install_opts o = { 0 };
	struct err err = ERR_INIT;
	const cJSON *pod;
	cJSON *docs;

	o.git_url = "https://x/r.git";
	o.git_path = "clusters";
	o.cluster = "a";
	for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
		o.image = images[i];
		docs = install(&o, &err);
		ck_assert_msg(docs != NULL, "%s: %s", images[i], err_msg(&err));
		pod = at(doc_of(docs, "CronJob", "gpuform-system"),
			 "spec.jobTemplate.spec.template.spec");
		ck_assert_str_eq(at(pod, "containers.0.image")->valuestring,
				 images[i]);
		cJSON_Delete(docs);
	}
	o.image = NULL;
	docs = install(&o, &err);
	ck_assert_ptr_nonnull(docs);
	pod = at(doc_of(docs, "CronJob", "gpuform-system"),
		 "spec.jobTemplate.spec.template.spec");
	ck_assert_str_eq(at(pod, "containers.0.image")->valuestring,
			 "gpuform:" GPUFORM_VERSION);
	ck_assert_str_eq(at(pod, "volumes.0.name")->valuestring, "cache");
	ck_assert_ptr_nonnull(at(pod, "volumes.0.emptyDir"));
	cJSON_Delete(docs);
	o.git_cache_pvc = "gpuform-git-cache";
	docs = install(&o, &err);
	ck_assert_ptr_nonnull(docs);
	pod = at(doc_of(docs, "CronJob", "gpuform-system"),
		 "spec.jobTemplate.spec.template.spec");
	/* another name than the emptyDir's (server-side apply over an old
	 * install would merge the two: tests/incluster.sh) */
	ck_assert_str_eq(at(pod, "volumes.0.name")->valuestring, "git-cache");
	ck_assert_ptr_null(at(pod, "volumes.0.emptyDir"));
	ck_assert_str_eq(at(pod, "volumes.0.persistentVolumeClaim.claimName")->valuestring,
			 "gpuform-git-cache");
	ck_assert_str_eq(at(pod, "containers.0.volumeMounts.0.name")->valuestring,
			 "git-cache");
	ck_assert_str_eq(at(pod, "containers.0.volumeMounts.0.mountPath")->valuestring,
			 "/var/cache/gpuform");
	cJSON_Delete(docs);
	err_release(&err);
}
END_TEST

START_TEST(test_install_ssh)
{
	struct install_opts o = { 0 };
	struct err err = ERR_INIT;
	const cJSON *pod;
	cJSON *docs;
	char *s;

	o.git_url = "git@github.com:acme/gitops.git";
	o.git_path = "clusters";
	o.cluster = "a";
	o.git_secret = "gitops-ssh";
	o.cronjob_api = "batch/v1beta1";
	o.schedule = "@hourly";
	docs = install(&o, &err);
	ck_assert_msg(docs != NULL, "%s", err_msg(&err));
	ck_assert_str_eq(at(doc_of(docs, "CronJob", NULL), "apiVersion")->valuestring,
			 "batch/v1beta1");
	pod = at(doc_of(docs, "CronJob", NULL), "spec.jobTemplate.spec.template.spec");
	ck_assert_str_eq(at(pod, "volumes.2.secret.secretName")->valuestring, "gitops-ssh");
	s = cJSON_PrintUnformatted(at(pod, "containers.0.env"));
	ck_assert_ptr_nonnull(strstr(s, "GPUFORM_GIT_SSH_KEY"));
	ck_assert_ptr_nonnull(strstr(s, "GPUFORM_GIT_SSH_KNOWN_HOSTS"));
	free(s);
	cJSON_Delete(docs);
	err_release(&err);
}
END_TEST

/* ---- lease --------------------------------------------------------------- */

START_TEST(test_lease_judge)
{
	const double now = 1800000000.0;

	ck_assert_int_eq(lease_judge(NULL, now, 0, 60, "me/1", now), LEASE_FREE);
	ck_assert_int_eq(lease_judge("", now, 0, 60, "me/1", now), LEASE_FREE);
	ck_assert_int_eq(lease_judge("me/1", now - 1000, 0, 60, "me/1", now), LEASE_MINE);
	ck_assert_int_eq(lease_judge("pod/1", now - 10, 0, 60, "me/1", now), LEASE_HELD);
	/* exactly at renew + duration: still held; a moment later: stale */
	ck_assert_int_eq(lease_judge("pod/1", now - 60, 0, 60, "me/1", now), LEASE_HELD);
	ck_assert_int_eq(lease_judge("pod/1", now - 60.001, 0, 60, "me/1", now), LEASE_STALE);
	ck_assert_int_eq(lease_judge("pod/1", now - 3600, 0, 60, "me/1", now), LEASE_STALE);
	/* nothing says the holder is alive */
	ck_assert_int_eq(lease_judge("pod/1", 0, 0, 60, "me/1", now), LEASE_STALE);
	ck_assert_int_eq(lease_judge("pod/1", now, 0, 0, "me/1", now), LEASE_STALE);
	/* a renewal in the future (clock skew) is held */
	ck_assert_int_eq(lease_judge("pod/1", now + 30, 0, 60, "me/1", now), LEASE_HELD);
	/* Fixed bug (reconcile/lease.c, lease_judge): a renewTime in the far
	 * future held the lock for years (every run exited 0, not
	 * reconciling). Beyond LEASE_MAX_SKEW_S it is judged by when the API
	 * server saw the lease written */
	ck_assert_int_eq(lease_judge("pod/1", now + 3e9, now - 61, 60, "me/1", now),
			 LEASE_STALE);
	ck_assert_int_eq(lease_judge("pod/1", now + 3e9, now - 10, 60, "me/1", now),
			 LEASE_HELD);
	ck_assert_int_eq(lease_judge("pod/1", now + 3e9, 0, 60, "me/1", now),
			 LEASE_STALE); /* nothing to judge by */
	ck_assert_int_eq(lease_judge("pod/1", now + 3e9, now + 3e9, 60, "me/1", now),
			 LEASE_STALE); /* nor a write time as far off */
	ck_assert_int_eq(lease_judge("pod/1", now + LEASE_MAX_SKEW_S, 0, 60, "me/1", now),
			 LEASE_HELD); /* at the skew bound: believed */
	/* renewing: after a third of the duration */
	ck_assert(!lease_renew_due(now, 60, now + 19.9));
	ck_assert(lease_renew_due(now, 60, now + 20));
	ck_assert(lease_renew_due(now, 3, now + 1));
}
END_TEST

START_TEST(test_lease_time)
{
	double t;
	struct buf b = BUF_INIT;

	ck_assert_int_eq(lease_parse_time("1970-01-01T00:00:00Z", &t), 0);
	ck_assert(t == 0);
	ck_assert_int_eq(lease_parse_time("2026-11-30T02:03:31Z", &t), 0);
	ck_assert(t == 1796004211.0);
	ck_assert_int_eq(lease_parse_time("2026-11-30T02:03:31.250000Z", &t), 0);
	ck_assert(t == 1796004211.25);
	ck_assert_int_eq(lease_parse_time("2026-11-30T03:03:31+01:00", &t), 0);
	ck_assert(t == 1796004211.0);
	ck_assert_int_eq(lease_parse_time("2024-02-29T12:00:00Z", &t), 0);
	ck_assert(t == 1709208000.0);
	ck_assert_int_eq(lease_parse_time("2026-11-30 02:03:31Z", &t), -1);
	ck_assert_int_eq(lease_parse_time("2026-13-30T02:03:31Z", &t), -1);
	ck_assert_int_eq(lease_parse_time("2026-11-30T02:03:31", &t), -1);
	ck_assert_int_eq(lease_parse_time("2026-11-30T02:03:31.Z", &t), -1);
	ck_assert_int_eq(lease_parse_time(NULL, &t), -1);
	lease_format_time(1796004211.25, &b);
	ck_assert_str_eq(buf_cstr(&b), "2026-11-30T02:03:31.250000Z");
	ck_assert_int_eq(lease_parse_time(buf_cstr(&b), &t), 0);
	ck_assert(t == 1796004211.25);
	buf_release(&b);
	lease_identity(&b);
	ck_assert_ptr_nonnull(strchr(buf_cstr(&b), '/'));
	buf_release(&b);
}
END_TEST

/* ---- metrics ------------------------------------------------------------- */

START_TEST(test_metrics_format)
{
	struct metrics_run m = { 0 };
	struct buf b = BUF_INIT;
	const char *s;

	m.cluster = "ml-prod";
	m.result = MR_SUCCESS;
	m.start = 1796004211.7;
	m.duration_s = 1.23456;
	m.counts[RA_CONFIGURED] = 2;
	m.counts[RA_UNCHANGED] = 14;
	m.stats.lists = 8;
	m.stats.applies = 2;
	metrics_format(&b, &m);
	s = buf_cstr(&b);
	ck_assert_ptr_nonnull(strstr(s, "# HELP gpuform_runs_total Reconcile runs by result.\n"
					"# TYPE gpuform_runs_total counter\n"
					"gpuform_runs_total{cluster=\"ml-prod\",result=\"success\"} 1\n"
					"gpuform_runs_total{cluster=\"ml-prod\",result=\"failed\"} 0\n"
					"gpuform_runs_total{cluster=\"ml-prod\",result=\"locked\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_last_run_timestamp_seconds{cluster=\"ml-prod\"} 1796004211\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_run_duration_seconds{cluster=\"ml-prod\"} 1.234000\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_objects{cluster=\"ml-prod\",result=\"configured\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(s, "# TYPE gpuform_drift_corrected_objects gauge\n"
					"gpuform_drift_corrected_objects{cluster=\"ml-prod\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_api_requests{cluster=\"ml-prod\",type=\"list\"} 8\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_last_run_success{cluster=\"ml-prod\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_last_run_held{cluster=\"ml-prod\"} 0\n"));
	ck_assert_int_eq(s[b.len - 1], '\n');
	/* a held run (issue 26): its own result, success 1, held 1 */
	buf_reset(&b);
	m.result = MR_HELD;
	metrics_format(&b, &m);
	s = buf_cstr(&b);
	ck_assert_ptr_nonnull(strstr(s, "gpuform_runs_total{cluster=\"ml-prod\",result=\"failed\"} 0\n"
					"gpuform_runs_total{cluster=\"ml-prod\",result=\"locked\"} 0\n"
					"gpuform_runs_total{cluster=\"ml-prod\",result=\"held\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(s, "gpuform_last_run_success{cluster=\"ml-prod\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(s, "# TYPE gpuform_last_run_held gauge\n"
					"gpuform_last_run_held{cluster=\"ml-prod\"} 1\n"));
	buf_release(&b);
}
END_TEST

START_TEST(test_metrics_escape_and_carry)
{
	struct metrics_run m = { 0 };
	struct buf b = BUF_INIT, prev = BUF_INIT;

	metrics_escape(&b, "a\"b\\c\nd");
	ck_assert_str_eq(buf_cstr(&b), "a\\\"b\\\\c\\nd");
	buf_reset(&b);

	m.cluster = "c1";
	m.result = MR_FAILED;
	m.errors = 2;
	buf_adds(&prev, "# TYPE gpuform_runs_total counter\n"
			"gpuform_runs_total{cluster=\"c1\",result=\"success\"} 41\n"
			"gpuform_runs_total{cluster=\"c1\",result=\"failed\"} 3\n"
			"gpuform_runs_total{cluster=\"other\",result=\"locked\"} 9\n"
			"gpuform_errors_total{cluster=\"c1\"} 5\n");
	metrics_carry(&m, buf_cstr(&prev));
	metrics_format(&b, &m);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "result=\"success\"} 41\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "result=\"failed\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "result=\"locked\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "gpuform_errors_total{cluster=\"c1\"} 7\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "gpuform_last_run_success{cluster=\"c1\"} 0\n"));
	/* garbage is ignored */
	memset(&m, 0, sizeof(m));
	m.cluster = "c1";
	metrics_carry(&m, "gpuform_runs_total{cluster=\"c1\",result=\"success\"} x\n");
	ck_assert(m.runs_before[MR_SUCCESS] == 0);
	buf_release(&b);
	buf_release(&prev);
}
END_TEST

/* ---- notify -------------------------------------------------------------- */

static void add(struct recon_report *r, const char *av, const char *kind,
		const char *ns, const char *name, enum recon_action a,
		const char *detail)
{
	struct recon_item *it;

	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 8;
		r->items = xrealloc(r->items, r->alloc * sizeof(*r->items));
	}
	it = &r->items[r->nr++];
	memset(it, 0, sizeof(*it));
	kobj_id_copy(&it->id, &(struct kobj_id){ av, kind, ns, name });
	it->action = a;
	it->detail = detail ? xstrdup(detail) : NULL;
	r->counts[a]++;
}

START_TEST(test_notify_events)
{
	struct recon_report rep = RECON_REPORT_INIT;
	struct notify_run n = { 0 };
	cJSON *ev;
	const cJSON *e;

	add(&rep, "karpenter.sh/v1", "NodePool", NULL, "llm", RA_CONFIGURED, NULL);
	add(&rep, "kueue.x-k8s.io/v1beta2", "LocalQueue", "research", "llm", RA_PRUNED, NULL);
	add(&rep, "karpenter.sh/v1", "NodePool", NULL, "chat", RA_CONFLICT,
	    ".spec.limits owned by other-gitops");
	add(&rep, "v1", "Namespace", NULL, "research", RA_UNCHANGED, NULL);
	n.cluster = "ml-prod";
	n.identity = "pod-x/1";
	n.rep = &rep;
	n.error = "1 conflict";
	ev = notify_events(&n, "uid-1", 1796004211.9);
	ck_assert_int_eq(cJSON_GetArraySize(ev), 4);
	e = cJSON_GetArrayItem(ev, 0);
	ck_assert_str_eq(at(e, "reason")->valuestring, "DriftCorrected");
	ck_assert_str_eq(at(e, "type")->valuestring, "Normal");
	ck_assert_str_eq(at(e, "message")->valuestring,
			 "1 object changed back to the desired state: nodepool.karpenter.sh/llm");
	ck_assert_str_eq(at(e, "involvedObject.kind")->valuestring, "ConfigMap");
	ck_assert_str_eq(at(e, "involvedObject.name")->valuestring, "gpuform-ml-prod");
	ck_assert_str_eq(at(e, "involvedObject.namespace")->valuestring, "gpuform-system");
	ck_assert_str_eq(at(e, "involvedObject.uid")->valuestring, "uid-1");
	ck_assert_str_eq(at(e, "metadata.generateName")->valuestring, "gpuform-ml-prod.");
	ck_assert_str_eq(at(e, "firstTimestamp")->valuestring, "2026-11-30T02:03:31Z");
	ck_assert_str_eq(at(e, "reportingInstance")->valuestring, "pod-x/1");
	e = cJSON_GetArrayItem(ev, 1);
	ck_assert_str_eq(at(e, "reason")->valuestring, "Pruned");
	ck_assert_str_eq(at(e, "message")->valuestring,
			 "1 object pruned: localqueue.kueue.x-k8s.io/llm -n research");
	e = cJSON_GetArrayItem(ev, 2);
	ck_assert_str_eq(at(e, "reason")->valuestring, "Conflict");
	ck_assert_str_eq(at(e, "type")->valuestring, "Warning");
	ck_assert_ptr_nonnull(strstr(at(e, "message")->valuestring, "other-gitops"));
	e = cJSON_GetArrayItem(ev, 3);
	ck_assert_str_eq(at(e, "reason")->valuestring, "ReconcileFailed");
	ck_assert_str_eq(at(e, "message")->valuestring, "reconcile failed: 1 conflict");
	cJSON_Delete(ev);

	/* a dry run reports no changes; nothing at all when nothing happened */
	rep.dry_run = 1;
	n.error = NULL;
	ev = notify_events(&n, NULL, 0);
	ck_assert_int_eq(cJSON_GetArraySize(ev), 1); /* the conflict */
	cJSON_Delete(ev);
	rep.counts[RA_CONFLICT] = 0;
	ev = notify_events(&n, NULL, 0);
	ck_assert_int_eq(cJSON_GetArraySize(ev), 0);
	cJSON_Delete(ev);
	recon_report_release(&rep);
}
END_TEST

START_TEST(test_notify_long_message_and_status)
{
	struct recon_report rep = RECON_REPORT_INIT;
	struct notify_run n = { 0 };
	char name[64];
	cJSON *ev, *st;
	const cJSON *a;

	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "pool-with-a-long-name-%02d", i);
		add(&rep, "karpenter.sh/v1", "NodePool", NULL, name, RA_CREATED, NULL);
	}
	rep.stats.requests = 70;
	rep.stats.writes = 61;
	n.cluster = "c";
	n.rep = &rep;
	n.source_commit = "0123abcd";
	n.start = 1796004211.9;
	n.duration_s = 2.5;
	n.identity = "h/9";
	ev = notify_events(&n, NULL, 0);
	ck_assert_int_eq(cJSON_GetArraySize(ev), 1);
	ck_assert_uint_le(strlen(at(ev, "0.message")->valuestring), NOTIFY_MAX_MESSAGE);
	ck_assert_ptr_nonnull(strstr(at(ev, "0.message")->valuestring, "60 objects created: "));
	ck_assert_ptr_null(at(ev, "0.involvedObject.uid"));
	cJSON_Delete(ev);

	st = notify_status_patch(&n);
	a = at(st, "metadata.annotations");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-run")->valuestring, "2026-11-30T02:03:31Z");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-result")->valuestring, "success");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-source-commit")->valuestring, "0123abcd");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-counts")->valuestring,
			 "unchanged=0 created=60 configured=0 pruned=0 conflict=0 "
			 "failed=0 skipped=0");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-duration")->valuestring, "2.500s");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-run-by")->valuestring, "h/9");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-message")->valuestring,
			 "60 created, 0 configured, 0 unchanged, 0 pruned (70 API "
			 "requests, 61 writes)");
	cJSON_Delete(st);
	n.error = "boom";
	n.source_commit = NULL;
	st = notify_status_patch(&n);
	a = at(st, "metadata.annotations");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-result")->valuestring, "failed");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-source-commit")));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-message")->valuestring, "boom");
	cJSON_Delete(st);

	/* the node-replacement guard held the run back: its own reason and result */
	n.error = "held back 1 node-replacing change";
	n.held = 1;
	st = notify_status_patch(&n);
	a = at(st, "metadata.annotations");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(a, "gpuform.io/last-result")->valuestring, "held");
	cJSON_Delete(st);
	rep.dry_run = 1; /* nothing else was applied: only the held event */
	ev = notify_events(&n, NULL, 0);
	ck_assert_int_eq(cJSON_GetArraySize(ev), 1);
	ck_assert_str_eq(at(ev, "0.reason")->valuestring, "NodeReplacementHeld");
	ck_assert_str_eq(at(ev, "0.type")->valuestring, "Warning");
	ck_assert_str_eq(at(ev, "0.message")->valuestring,
			 "held back: held back 1 node-replacing change");
	cJSON_Delete(ev);
	recon_report_release(&rep);
}
END_TEST

/* ---- install --path / --cluster (reconcile/installrun.c) ---------------- */

/* one row: the options given, what the job gets, the warning or error */
struct where_row {
	const char *path, *cluster;   /* as given (NULL: not given) */
	const char *want_path, *want_cluster;
	const char *want_msg;         /* warning (rc 0) or error (rc -1) */
	int rc;
};

START_TEST(test_install_where)
{
	static const struct where_row rows[] = {
		{ NULL, "a", "clusters", "a", NULL, 0 },
		{ "./gitops/clusters/", "a", "gitops/clusters", "a", NULL, 0 },
		{ "clusters/a", NULL, "clusters", "a",
		  "--path clusters/a names one cluster's directory: that "
		  "spelling is deprecated; use --path clusters --cluster a", 0 },
		{ "a", NULL, ".", "a",
		  "--path a names one cluster's directory: that spelling is "
		  "deprecated; use --path . --cluster a", 0 },
		{ "x/clusters/a/", NULL, "x/clusters", "a",
		  "--path x/clusters/a names one cluster's directory: that "
		  "spelling is deprecated; use --path x/clusters --cluster a", 0 },
		{ "clusters/a", "a", NULL, NULL,
		  "--path 'clusters/a' ends in the directory of cluster 'a' and "
		  "--cluster names it too: drop '/a' from --path (--path "
		  "clusters --cluster a)", -1 },
		{ "a", "a", NULL, NULL,
		  "--path 'a' ends in the directory of cluster 'a' and --cluster "
		  "names it too: drop '/a' from --path (--path . --cluster a)",
		  -1 },
		{ "clusters/ab", "a", "clusters/ab", "a", NULL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct where_row *w = &rows[i];
		struct install_opts io = { 0 };
		struct err err = ERR_INIT;
		char *path, *cluster, *warning;
		int rc;

		io.git_path = w->path;
		io.cluster = w->cluster;
		rc = installrun_where(&io, &path, &cluster, &warning, &err);
		ck_assert_msg(rc == w->rc, "row %zu: rc %d", i, rc);
		if (rc == 0) {
			ck_assert_str_eq(io.git_path, w->want_path);
			ck_assert_str_eq(io.cluster, w->want_cluster);
			if (w->want_msg)
				ck_assert_str_eq(warning, w->want_msg);
			else
				ck_assert_ptr_null(warning);
		} else {
			ck_assert_int_eq(err.code, ERR_INVALID);
			ck_assert_str_eq(err_msg(&err), w->want_msg);
			ck_assert_ptr_null(warning);
		}
		free(path);
		free(cluster);
		free(warning);
		err_release(&err);
	}
}
END_TEST

/* render to a stream and to a directory: same objects, the count */
START_TEST(test_install_write)
{
	struct install_opts io = { 0 };
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT, plain = BUF_INIT;
	char dir[] = "/tmp/gpuform-installrun-XXXXXX";
	int n = -1, m = -1;

	io.git_url = "https://x.test/r.git";
	io.git_path = "clusters";
	io.cluster = "a";
	ck_assert_int_eq(installrun_write(&io, NULL, 0, RENDER_YAML, NULL,
					  &plain, &n, &err), 0);
	ck_assert_int_eq(n, -1);
	ck_assert_ptr_null(strstr(plain.ptr, "gpuform-aws-iam-policy"));
	ck_assert_int_eq(installrun_write(&io, NULL, 1, RENDER_YAML, NULL,
					  &out, &n, &err), 0);
	ck_assert_ptr_nonnull(strstr(out.ptr, "gpuform-aws-iam-policy"));
	ck_assert_ptr_nonnull(strstr(out.ptr, "kind: CronJob"));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(installrun_write(&io, NULL, 1, RENDER_YAML, dir,
					  &out, &m, &err), 0);
	ck_assert_int_gt(m, 5);
	ck_assert_int_eq(installrun_write(&io, "/nonexistent-templates", 0,
					  RENDER_YAML, NULL, &out, &n, &err), -1);
	ck_assert_ptr_nonnull(err_msg(&err));
	ck_assert_int_eq(fs_remove_tree(dir, &err), 0);
	buf_release(&out);
	buf_release(&plain);
	err_release(&err);
}
END_TEST

Suite *incluster_suite(void)
{
	Suite *s = suite_create("incluster");
	TCase *rbac = tcase_create("rbac");
	TCase *inst = tcase_create("install");
	TCase *lease = tcase_create("lease");
	TCase *metrics = tcase_create("metrics");
	TCase *notify = tcase_create("notify");

	tcase_add_test(rbac, test_cluster_rules_follow_kobj_kinds);
	tcase_add_test(rbac, test_namespace_rules);
	tcase_add_test(rbac, test_kobj_kinds_cover_examples);
	tcase_add_test(inst, test_install_documents);
	tcase_add_test(inst, test_install_invalid);
	tcase_add_test(inst, test_install_doctor_grants);
	tcase_add_test(inst, test_install_delivery_grants);
	tcase_add_test(inst, test_install_ssh);
	tcase_add_test(inst, test_install_image_and_cache);
	tcase_add_test(inst, test_install_where);
	tcase_add_test(inst, test_install_write);
	tcase_add_test(lease, test_lease_judge);
	tcase_add_test(lease, test_lease_time);
	tcase_add_test(metrics, test_metrics_format);
	tcase_add_test(metrics, test_metrics_escape_and_carry);
	tcase_add_test(notify, test_notify_events);
	tcase_add_test(notify, test_notify_long_message_and_status);
	suite_add_tcase(s, rbac);
	suite_add_tcase(s, inst);
	suite_add_tcase(s, lease);
	suite_add_tcase(s, metrics);
	suite_add_tcase(s, notify);
	return s;
}
