/*
 * generator/delivery.c: Flux and Argo CD objects for the add-on values (see
 * delivery.h). Field names checked against the real CRDs in
 * tests/fixtures/crds/gitops/ (helm-controller v1.6.3, source-controller
 * v1.9.1, argo-cd v3.5.1; SOURCES.md there).
 */
#include "generator/delivery.h"

#include <stdlib.h>
#include <string.h>

#include "generator/targets.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* the Helm charts behind the addons/ values files */
struct chart {
	const char *file;    /* addons/ file */
	const char *release; /* Helm release (and object) name */
	const char *repo;    /* chart repository: oci://... or https://... */
	const char *chart;   /* chart name (https repositories) */
	const char *version; /* NULL: the intent's target (below) */
	const char *ns;      /* release namespace; NULL: in->dp_ns */
	const char *source;  /* Flux source name for https repositories */
};

/* clang-format off */
static const struct chart charts[] = {
	/* aws/karpenter-provider-aws website docs getting-started: helm
	 * upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter
	 * --version "${KARPENTER_VERSION}" --namespace kube-system; the chart
	 * version is the release without the "v" */
	{ "karpenter-values.yaml", "karpenter",
	  "oci://public.ecr.aws/karpenter/karpenter", "karpenter", NULL,
	  "kube-system", NULL },
	/* kubernetes-sigs/kueue site/content/en/docs/installation: helm
	 * install kueue oci://registry.k8s.io/kueue/charts/kueue
	 * --version=<release without v> --namespace kueue-system */
	{ "kueue-values.yaml", "kueue",
	  "oci://registry.k8s.io/kueue/charts/kueue", "kueue", NULL,
	  "kueue-system", NULL },
	/* NVIDIA/k8s-device-plugin v0.20.0 (1b826ac)
	 * deployments/helm/nvidia-device-plugin/Chart.yaml version "0.20.0";
	 * README: helm repo add nvdp https://nvidia.github.io/k8s-device-plugin */
	{ "nvidia-device-plugin-values.yaml", "nvidia-device-plugin",
	  "https://nvidia.github.io/k8s-device-plugin", "nvidia-device-plugin",
	  "0.20.0", NULL, "nvdp" },
	/* aws/eks-charts (5239609, 2026-08-03)
	 * stable/aws-efa-k8s-device-plugin/Chart.yaml version v0.5.30;
	 * README: helm repo add eks https://aws.github.io/eks-charts */
	{ "efa-device-plugin-values.yaml", "aws-efa-k8s-device-plugin",
	  "https://aws.github.io/eks-charts", "aws-efa-k8s-device-plugin",
	  "v0.5.30", "kube-system", "eks" },
	/* aws/eks-node-monitoring-agent (51af549)
	 * charts/eks-node-monitoring-agent/Chart.yaml version 1.7.0; the
	 * chart README: helm repo add eks-node-monitoring-agent
	 * https://aws.github.io/eks-node-monitoring-agent, installed into
	 * kube-system; the gh-pages index.yaml (98764fe) serves 1.7.0.
	 * Rendered only with node repair on (generator/render.c) */
	{ "eks-node-monitoring-agent-values.yaml", "eks-node-monitoring-agent",
	  "https://aws.github.io/eks-node-monitoring-agent",
	  "eks-node-monitoring-agent", "1.7.0", "kube-system",
	  "eks-node-monitoring-agent" },
};
/* clang-format on */

/* labelled like every rendered object (generator/render.c labels): the
 * ownership labels reconcile goes by */
static cJSON *object(cJSON *docs, const char *cluster, const char *api,
		     const char *kind, const char *name, const char *ns)
{
	cJSON *o = cJSON_CreateObject(), *md, *l;
	cJSON_AddStringToObject(o, "apiVersion", api);
	cJSON_AddStringToObject(o, "kind", kind);
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(md, "namespace", ns);
	l = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "gpuform");
	cJSON_AddStringToObject(l, "gpuform.io/cluster", cluster);
	cJSON_AddItemToArray(docs, o);
	return cJSON_AddObjectToObject(o, "spec");
}

static void version_of(const struct chart *c, const struct intent *in,
		       struct buf *out)
{
	const struct targets_ver *v;

	if (c->version) {
		buf_adds(out, c->version);
		return;
	}
	v = !strcmp(c->release, "karpenter") ? &in->targets.karpenter
					     : &in->targets.kueue;
	buf_addf(out, "%d.%d.%d", v->major, v->minor, v->patch);
}

static int is_oci(const struct chart *c)
{
	return !strncmp(c->repo, "oci://", 6);
}

static void flux(cJSON *docs, const char *cluster, const struct chart *c,
		 const char *ns, const char *version, const cJSON *values)
{
	cJSON *spec, *o;

	if (is_oci(c)) {
		spec = object(docs, cluster, "source.toolkit.fluxcd.io/v1",
			      "OCIRepository", c->release, DELIVERY_FLUX_NS);
		cJSON_AddStringToObject(spec, "interval", "1h");
		cJSON_AddStringToObject(spec, "url", c->repo);
		o = cJSON_AddObjectToObject(spec, "ref");
		cJSON_AddStringToObject(o, "tag", version);
		/* the chart layer of a Helm OCI artifact (source-controller
		 * docs/spec/v1/ocirepositories.md, layerSelector) */
		o = cJSON_AddObjectToObject(spec, "layerSelector");
		cJSON_AddStringToObject(
			o, "mediaType",
			"application/vnd.cncf.helm.chart.content.v1.tar+gzip");
		cJSON_AddStringToObject(o, "operation", "copy");
	}
	spec = object(docs, cluster, "helm.toolkit.fluxcd.io/v2",
		      "HelmRelease", c->release, DELIVERY_FLUX_NS);
	cJSON_AddStringToObject(spec, "interval", "1h");
	cJSON_AddStringToObject(spec, "releaseName", c->release);
	cJSON_AddStringToObject(spec, "targetNamespace", ns);
	if (is_oci(c)) {
		o = cJSON_AddObjectToObject(spec, "chartRef");
		cJSON_AddStringToObject(o, "kind", "OCIRepository");
		cJSON_AddStringToObject(o, "name", c->release);
	} else {
		cJSON *cs = cJSON_AddObjectToObject(
			cJSON_AddObjectToObject(spec, "chart"), "spec");
		cJSON_AddStringToObject(cs, "chart", c->chart);
		cJSON_AddStringToObject(cs, "version", version);
		o = cJSON_AddObjectToObject(cs, "sourceRef");
		cJSON_AddStringToObject(o, "kind", "HelmRepository");
		cJSON_AddStringToObject(o, "name", c->source);
	}
	o = cJSON_AddObjectToObject(spec, "install");
	cJSON_AddBoolToObject(o, "createNamespace", 1);
	cJSON_AddItemToObject(spec, "values", cJSON_Duplicate(values, 1));
}

static void argocd(cJSON *docs, const char *cluster, const struct chart *c,
		   const char *ns, const char *version, const cJSON *values)
{
	cJSON *spec, *o, *src, *helm;

	spec = object(docs, cluster, "argoproj.io/v1alpha1", "Application",
		      c->release, DELIVERY_ARGOCD_NS);
	cJSON_AddStringToObject(spec, "project", "default");
	src = cJSON_AddObjectToObject(spec, "source");
	/* Argo CD OCI Helm repositories are written without the scheme
	 * (argo-cd docs/user-guide/helm.md) */
	cJSON_AddStringToObject(src, "repoURL",
				is_oci(c) ? c->repo + 6 : c->repo);
	if (is_oci(c)) {
		/* host/path and the chart (the last path element) apart */
		const char *slash = strrchr(c->repo, '/');
		char *base = xstrndup(c->repo + 6,
				      (size_t)(slash - (c->repo + 6)));
		cJSON_ReplaceItemInObject(src, "repoURL",
					  cJSON_CreateString(base));
		free(base);
	}
	cJSON_AddStringToObject(src, "chart", c->chart);
	cJSON_AddStringToObject(src, "targetRevision", version);
	helm = cJSON_AddObjectToObject(src, "helm");
	cJSON_AddStringToObject(helm, "releaseName", c->release);
	cJSON_AddItemToObject(helm, "valuesObject", cJSON_Duplicate(values, 1));
	o = cJSON_AddObjectToObject(spec, "destination");
	cJSON_AddStringToObject(o, "server", "https://kubernetes.default.svc");
	cJSON_AddStringToObject(o, "namespace", ns);
	o = cJSON_AddObjectToObject(spec, "syncPolicy");
	cJSON_AddItemToObject(o, "syncOptions", cJSON_CreateArray());
	cJSON_AddItemToArray(cJSON_GetObjectItem(o, "syncOptions"),
			     cJSON_CreateString("CreateNamespace=true"));
}

void delivery_render(cJSON *docs, const cJSON *addons, const struct intent *in)
{
	struct buf ver = BUF_INIT;

	if (in->delivery == DELIVERY_VALUES)
		return;
	for (size_t i = 0; i < sizeof charts / sizeof charts[0]; i++) {
		const struct chart *c = &charts[i];
		const cJSON *values = cJSON_GetObjectItem(addons, c->file);
		const char *ns = c->ns ? c->ns : in->dp_ns;
		if (!values)
			continue;
		buf_reset(&ver);
		version_of(c, in, &ver);
		if (in->delivery == DELIVERY_FLUX) {
			flux(docs, in->name, c, ns, buf_cstr(&ver), values);
			if (!is_oci(c)) {
				cJSON *spec = object(
					docs, in->name, "source.toolkit.fluxcd.io/v1",
					"HelmRepository", c->source,
					DELIVERY_FLUX_NS);
				cJSON_AddStringToObject(spec, "interval", "24h");
				cJSON_AddStringToObject(spec, "url", c->repo);
			}
		} else
			argocd(docs, in->name, c, ns, buf_cstr(&ver), values);
	}
	buf_release(&ver);
}

static size_t put_obj(struct delivery_obj *out, size_t n, const char *group,
		      const char *resource, const char *ns, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].resource, resource) &&
		    !strcmp(out[i].name, name))
			return n;
	if (n >= DELIVERY_OBJS_MAX)
		BUG("delivery_objects: more than DELIVERY_OBJS_MAX objects");
	out[n] = (struct delivery_obj){ group, resource, ns, name };
	return n + 1;
}

size_t delivery_objects(enum addons_delivery mode,
			struct delivery_obj out[DELIVERY_OBJS_MAX])
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof charts / sizeof charts[0]; i++) {
		const struct chart *c = &charts[i];
		if (mode == DELIVERY_ARGOCD) {
			n = put_obj(out, n, "argoproj.io", "applications",
				    DELIVERY_ARGOCD_NS, c->release);
			continue;
		}
		if (mode != DELIVERY_FLUX)
			continue;
		n = put_obj(out, n, "helm.toolkit.fluxcd.io", "helmreleases",
			    DELIVERY_FLUX_NS, c->release);
		n = is_oci(c) ? put_obj(out, n, "source.toolkit.fluxcd.io",
					"ocirepositories", DELIVERY_FLUX_NS,
					c->release)
			      : put_obj(out, n, "source.toolkit.fluxcd.io",
					"helmrepositories", DELIVERY_FLUX_NS,
					c->source);
	}
	return n;
}
