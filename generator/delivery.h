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

#endif
