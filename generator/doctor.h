/*
 * generator/doctor.h: what `gpuform doctor` decides — the running
 * controllers (their versions, Karpenter's FEATURE_GATES, Kueue's
 * configuration) against an intent's targets and its rendered add-ons.
 *
 * Pure: cmd/doctor.c reads the cluster and fills struct doctor_live; this
 * module turns it into findings (DIAG_ERROR: something rendered will not
 * work as rendered, with the fix) and notes (DIAG_WARNING: what could not
 * be checked).
 */
#ifndef GENERATOR_DOCTOR_H
#define GENERATOR_DOCTOR_H

#include "generator/render.h"
#include "generator/targets.h"
#include "util/diag.h"

/* one controller as read from the cluster */
struct doctor_ctl {
	const char *where;    /* "Deployment kube-system/karpenter", or NULL: not found */
	const char *image;    /* the controller container's image */
	const char *unreadable; /* why it could not be read (forbidden), or NULL */
};

struct doctor_live {
	struct doctor_ctl karpenter;
	const char *feature_gates; /* FEATURE_GATES env, NULL if not set */
	struct doctor_ctl kueue;
	const char *kueue_config_where; /* "ConfigMap kueue-system/..." or NULL */
	const char *kueue_config;       /* its controller_manager_config.yaml */
	const char *kueue_config_unreadable;
};

/*
 * doctor_image_version: the release in an image reference
 * ("public.ecr.aws/karpenter/controller:1.6.2@sha256:..." -> v1.6.2,
 * "registry.k8s.io/kueue/kueue:v0.13.4"); -1 when the tag is no release.
 */
int doctor_image_version(const char *image, struct targets_ver *out);

/*
 * doctor_gate: the value of gate `name` ("NodeOverlay") in a
 * FEATURE_GATES string ("NodeRepair=false,NodeOverlay=true"), else the
 * default of that gate in release v (docs/controller-versions.md).
 * 1 on, 0 off.
 */
int doctor_gate(const char *feature_gates, const char *name,
		const struct targets_ver *v);

/*
 * doctor_check: findings for one intent (`file`, its targets t, its
 * render r) against the live state, into *d.
 */
void doctor_check(const char *file, const struct targets *t,
		  const struct rendered *r, const struct doctor_live *l,
		  struct diags *d);

#endif
