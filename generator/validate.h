/*
 * generator/validate.h: the semantic rules of a ClusterIntent.
 *
 * Pure: reads the intent and the catalog, appends diagnostics. Every
 * problem is reported (not just the first), each at the line:column of the
 * value at fault, with a hint saying what to do.
 */
#ifndef GENERATOR_VALIDATE_H
#define GENERATOR_VALIDATE_H

#include <stddef.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "util/buf.h"
#include "util/diag.h"

#define VALIDATE_MAX_FAMILIES 32

/*
 * validate_families: the instance families a workload may use — its GPU
 * classes ("h100", "l4+" = this class or better), narrowed to families with
 * an instance type that has gpusPerPod GPUs, EFA when asked, and the MIG
 * profile when asked. Families that misreport their GPU count are never
 * included. Returns the count (0 with a reason in *why when none is left;
 * -1 for an unknown class, reason in *why).
 */
int validate_families(const struct workload *w, const struct catalog *cat,
		      const struct cat_family **out, struct buf *why);

/* validate_intent: all rules; returns the number of errors it added. */
size_t validate_intent(const struct intent *in, const struct catalog *cat,
		       struct diags *d);
/* validate_intent_opts: the same; capacity 0 leaves out the capacity
 * findings (capacity_report), which `gpuform plan` reports itself */
size_t validate_intent_opts(const struct intent *in, const struct catalog *cat,
			    int capacity, struct diags *d);

/*
 * validate_acknowledge: drops the warnings d->items[from...] that an entry
 * of in->acks (spec.acknowledge) accepts: same rule, and inside the named
 * workload's list item if it names one. With report_unused, an entry that
 * accepted nothing is a warning itself (INT011). validate_intent checks
 * the entries (known INT rule, known workload).
 */
void validate_acknowledge(const struct intent *in, struct diags *d,
			  size_t from, int report_unused);

/* DNS-1123 label (lower-case alphanumerics and '-', max `max` chars). */
int validate_dns_label(const char *s, size_t max);

/* an availability zone name ("us-east-1a", Local Zone "us-west-2-lax-1a");
 * not a region ("us-east-1") nor a zone ID ("use1-az1"). */
int validate_zone_name(const char *s);

/* the network cards every EFA type workload w can launch has (for
 * network.efaOnlyInterfaces); 0 with the reason in *why when they differ,
 * are unknown or are one. */
int validate_efa_cards(const struct workload *w, const struct catalog *cat,
		       struct buf *why);

#endif
