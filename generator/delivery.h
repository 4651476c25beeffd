/*
 * generator/delivery.h: spec.addons.delivery — the add-on values delivered
 * as Flux HelmReleases (with their OCIRepository/HelmRepository sources) or
 * Argo CD Applications, ordinary rendered objects. Pure.
 */
#ifndef GPUFORM_DELIVERY_H
#define GPUFORM_DELIVERY_H

#include "cJSON.h"
#include "generator/intent.h"

#define DELIVERY_FLUX_NS "flux-system"
#define DELIVERY_ARGOCD_NS "argocd"

/*
 * delivery_render: append to docs (an array) the objects that deliver the
 * Helm add-ons in addons (file name -> values) for in->delivery, charts
 * pinned to in->targets; nothing for DELIVERY_VALUES. Add-on files that
 * are not Helm values (vpc-cni.yaml, pod contracts) are left alone.
 */
void delivery_render(cJSON *docs, const cJSON *addons, const struct intent *in);

/* an object delivery_render can write: its API group, resource, namespace
 * and name */
struct delivery_obj {
	const char *group, *resource, *ns, *name;
};
#define DELIVERY_OBJS_MAX 16
/*
 * delivery_objects: every object delivery_render can write for mode (any
 * intent: every chart), each once, into out (DELIVERY_OBJS_MAX); the
 * count. For `gpuform install --delivery`: grants by name.
 */
size_t delivery_objects(enum addons_delivery mode,
			struct delivery_obj out[DELIVERY_OBJS_MAX]);

#endif
