/*
 * reconcile/apply.h: the reconcile engine's writes, phases of a run
 * (reconcile/engine.h) in the order recon_run calls them: the server's dry
 * run of every planned write (nothing is written unless all succeed), the
 * caller's guard, then the objects in apply order, the prune in reverse
 * order with UID and resourceVersion preconditions, and the verdict on
 * what could not be done. Every function here talks to the API.
 */
#ifndef RECONCILE_APPLY_H
#define RECONCILE_APPLY_H

struct run;

/* dry-run every planned write; conflicts and rejected objects stop the
 * run here, before anything is written */
int apply_dry_run_all(struct run *r);
/* the caller's guard (recon_opts.guard) on every change: refuse all (-1)
 * or hold some back */
int apply_guard(struct run *r);
/* a dry run: what the prune would do */
void apply_report_dry_prune(struct run *r);
/* the planned writes, in apply order; the first failure stops */
int apply_objects(struct run *r);
/* prune in reverse dependency order, then write the final inventory */
int apply_prune(struct run *r);
/* a run that wrote what it could still fails for what it could not prune
 * or was held back */
int apply_finish(struct run *r);

#endif
