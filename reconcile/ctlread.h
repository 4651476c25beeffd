/*
 * reconcile/ctlread.h: what runs — the Karpenter and Kueue controllers as
 * the cluster shows them (the Karpenter Deployment's image and
 * FEATURE_GATES, Kueue's Deployment image and configuration ConfigMap),
 * read for `gpuform doctor` and `diff --live`. GETs by name only (the
 * grants of `gpuform install --doctor`); the decisions are
 * generator/doctor.c's and generator/addondiff.c's.
 */
#ifndef RECONCILE_CTLREAD_H
#define RECONCILE_CTLREAD_H

#include "generator/addondiff.h"
#include "generator/doctor.h"
#include "kube/kube.h"
#include "util/err.h"

/* what was read (owned strings; l points into them) */
struct ctlread {
	struct doctor_live l;
	char *k_where, *k_image, *k_gates, *k_unread;
	char *q_where, *q_image, *q_unread;
	char *c_where, *c_text, *c_unread;
};
#define CTLREAD_INIT { { { NULL, NULL, NULL }, NULL, { NULL, NULL, NULL }, \
			 NULL, NULL, NULL }, \
		       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/*
 * ctlread_read: the Deployment karpenter (kube-system, else karpenter),
 * the Deployment kueue-system/kueue-controller-manager and the ConfigMap
 * kueue-system/kueue-manager-config. An object that is absent is NULL in
 * r->l; one that may not be read (403) says so in its *unreadable field.
 * -1 only for other errors (the connection).
 */
int ctlread_read(struct kube *k, struct ctlread *r, struct err *err);
void ctlread_release(struct ctlread *r);

struct addondiff;
/*
 * ctlread_addondiff: read the controllers and compare the rendered add-on
 * files with them (generator/addondiff.h addondiff_live), for diff --live.
 * No add-on file with a live counterpart: nothing is read. A read that
 * fails (other than 403/404, which addondiff_live words) is a warning in
 * *notes, never a failure: the objects' diff is still worth printing.
 */
void ctlread_addondiff(struct addondiff *out, struct kube *k,
		       const cJSON *addons, const cJSON *docs,
		       struct diags *notes);

#endif
