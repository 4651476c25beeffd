/*
 * reconcile/doctorrun.h: the run of `gpuform doctor` — read what runs in
 * the cluster (GETs only: the Karpenter and Kueue Deployments, Kueue's
 * configuration ConfigMap), render each intent, check that every kind it
 * renders is served and hand both to the decisions of generator/doctor.c.
 * The findings come back as diagnostics; nothing here prints.
 */
#ifndef RECONCILE_DOCTORRUN_H
#define RECONCILE_DOCTORRUN_H

#include <stddef.h>

#include "generator/doctor.h"
#include "generator/tmpl.h"
#include "reconcile/kube.h"
#include "util/diag.h"
#include "util/err.h"

/* what was read from the cluster (the strings owned) */
struct doctorrun_live {
	struct doctor_live l;
	char *k_where, *k_image, *k_gates, *k_unread;
	char *q_where, *q_image, *q_unread;
	char *c_where, *c_text, *c_unread;
};

/* doctorrun_read_live: the controllers and Kueue's configuration; a
 * forbidden read is recorded as unreadable, not an error */
int doctorrun_read_live(struct kube *k, struct doctorrun_live *r,
			struct err *err);
void doctorrun_live_release(struct doctorrun_live *r);

/*
 * doctorrun_run: read the live state, then for each intent file render it
 * (its problems into *d), check its kinds are served and decide
 * (doctor_check), findings into *d. -1 (err set) stops at the first
 * failure; *d then holds what to show with it.
 */
int doctorrun_run(struct kube *k, char **paths, size_t n,
		  const struct tmpl_set *ts, struct diags *d, struct err *err);

#endif
