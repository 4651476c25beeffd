/*
 * reconcile/preflight.h: ask AWS what generator/preflight.c needs to know.
 * Each question is one API call (paginated where the API pages); answers
 * go into struct pf_facts. AccessDenied marks the check PF_DENIED; a
 * failure that leaves nothing checkable (no answer, a timeout, rejected
 * credentials, a malformed answer) returns -1 with a message that names
 * the endpoint and the action.
 */
#ifndef RECONCILE_PREFLIGHT_H
#define RECONCILE_PREFLIGHT_H

#include "generator/preflight.h"
#include "aws/aws.h"
#include "util/err.h"

int preflight_ask(struct aws *a, const struct plan *p, struct pf_facts *f,
		  struct err *err);

/* the parsers of the answers, pure (unit-tested) */
int preflight_parse_snapshot(struct pf_facts *f, const char *xml, size_t len,
			     struct err *err);
/* the EFA group: found or not, and whether it refers to itself in and out */
int preflight_parse_efa_sg(struct pf_facts *f, const char *sg_id,
			   const char *xml, size_t len, struct err *err);

/* one page of DescribeCapacityReservations into term t; *next: the
 * nextToken (fresh memory) or NULL */
int preflight_parse_reservations(struct pf_rterm *t, const char *xml,
				 size_t len, char **next, struct err *err);

#endif
