/*
 * reconcile/doctorrun.h: the run of `gpuform doctor` — read what runs in
 * the cluster (reconcile/ctlread.h: GETs only), render each intent, check that every kind it
 * renders is served and hand both to the decisions of generator/doctor.c.
 * The findings come back as diagnostics; nothing here prints.
 */
#ifndef RECONCILE_DOCTORRUN_H
#define RECONCILE_DOCTORRUN_H

#include <stddef.h>

#include "generator/doctor.h"
#include "generator/tmpl.h"
#include "kube/kube.h"
#include "util/diag.h"
#include "util/err.h"

/*
 * doctorrun_run: read the live state, then for each intent file render it
 * (its problems into *d), check its kinds are served and decide
 * (doctor_check), findings into *d. -1 (err set) stops at the first
 * failure; *d then holds what to show with it.
 */
int doctorrun_run(struct kube *k, char **paths, size_t n,
		  const struct tmpl_set *ts, struct diags *d, struct err *err);

#endif
