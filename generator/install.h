/*
 * generator/install.h: the manifests that deploy gpuform itself in a
 * cluster (`gpuform install`): Namespace, ServiceAccount, least-privilege
 * RBAC and the CronJob that runs `gpuform reconcile --git` periodically.
 *
 * The RBAC rules are derived, not hand-listed: from kobj_kinds (every kind
 * the renderer can produce, render.h), from what a reconcile run does with
 * them (reconcile.h: read, one LIST per kind, server-side apply, prune) and
 * from the few objects a run touches in its own namespace (inventory
 * ConfigMap, ownership key Secret, Lease lock, Events) and the LIST of
 * every inventory. Names carry the cluster (and, outside the own
 * namespace, the namespace), so two installs on one server never
 * overwrite each other. Pure and deterministic like render.
 */
#ifndef GENERATOR_INSTALL_H
#define GENERATOR_INSTALL_H

#include <cjson/cJSON.h>

#include "generator/tmpl.h"
#include "util/err.h"

#define INSTALL_NAME "gpuform"
#define INSTALL_DEFAULT_SCHEDULE "*/5 * * * *"
#define INSTALL_DEFAULT_GIT_SECRET "gpuform-git"
/* the longest cluster name: the CronJob gpuform-<cluster> has at most 52 */
#define INSTALL_CLUSTER_MAX 44

struct install_opts {
	const char *git_url, *git_ref; /* what the job reconciles: */
	const char *git_path; /* the directory of the cluster directories */
	const char *cluster;     /* names the inventory and the Lease */
	const char *namespace_;  /* default "gpuform-system" */
	const char *device_plugin_ns; /* the rendered device-plugin ConfigMap's
					 namespace (default kube-system) */
	const char *schedule;    /* default INSTALL_DEFAULT_SCHEDULE */
	const char *image;       /* default "gpuform:<version>"; a tag or
				  * @sha256:<64 hex> */
	const char *git_cache_pvc; /* PersistentVolumeClaim for the Git cache
				    * (NULL: an emptyDir) */
	const char *git_secret;  /* Secret with GPUFORM_GIT_* keys */
	const char *cronjob_api; /* "batch/v1" (default) or "batch/v1beta1" */
	const char *pushgateway; /* passed to reconcile --pushgateway */
	int prune;               /* the job runs reconcile --prune */
	const char *preflight_intent; /* the job runs reconcile --preflight
				       * --preflight-intent PATH, or NULL */
	long timeout_s;          /* reconcile --timeout (default 300) */
	int doctor; /* also the reads of `gpuform doctor` (install --doctor) */
	int delivery_flux, delivery_argocd; /* install --delivery: also the
			* objects spec.addons.delivery flux / argocd renders
			* (HelmReleases and their sources in flux-system,
			* Applications in argocd), by name */
};

/*
 * A grant: verbs on one resource, cluster-wide (ns NULL) or in one
 * namespace, optionally for one object name. install_grants() lists every
 * grant gpuform needs; install_rules() groups the grants of one scope into
 * PolicyRules (one per API group + verbs + name, resources sorted).
 */
struct install_grant {
	const char *ns;    /* NULL: cluster-wide (ClusterRole) */
	const char *group; /* "" core */
	const char *resource;
	const char *verbs; /* comma-separated, in kubectl's usual order */
	char *name;        /* resourceNames entry, or NULL */
};

/* install_grants: the grants for a cluster's run; free with
 * install_grants_free(). own_ns is where the inventory and Lease live;
 * device_plugin_ns (NULL: kube-system) where the intent renders the NVIDIA
 * device-plugin ConfigMap (spec.nvidiaDevicePlugin.namespace). */
size_t install_grants(struct install_grant **out, const char *own_ns,
		      const char *cluster, const char *device_plugin_ns);
void install_grants_free(struct install_grant *g, size_t n);

/* install_rules: a new JSON array of PolicyRules for scope ns (NULL:
 * cluster-wide), deterministic order. */
cJSON *install_rules(const struct install_grant *g, size_t n, const char *ns);

/* install_render: *out = a new JSON array of the objects to apply, in apply
 * order. ERR_INVALID for a bad option (schedule, names, API version). */
int install_render(cJSON **out, const struct install_opts *o,
		   const struct tmpl_set *t, struct err *err);

#endif
