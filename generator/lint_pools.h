/*
 * generator/lint_pools.h: the lint rules over NodePools, EC2NodeClasses,
 * NodeOverlays, ClusterQueues, Helm values and intents. Internal to the
 * lint module (lint_int.h).
 */
#ifndef GENERATOR_LINT_POOLS_H
#define GENERATOR_LINT_POOLS_H

#include "generator/lint_int.h"

/* does NodeOverlay `ov` apply to instance type t launched by pool p? */
int lint_overlay_selects(const struct lctx *c, const struct doc *ov,
			 const struct pool *p, const struct cat_type *t);
void lint_check_pool(struct lctx *c, struct pool *p);
void lint_check_nodeclass(struct lctx *c, const struct doc *d);
void lint_check_clusterqueue(struct lctx *c, const struct doc *d);
void lint_check_values(struct lctx *c, const struct doc *d);
void lint_check_intent(struct lctx *c, const struct intent *in);

#endif
