/*
 * generator/impact.h: what a change to one object does to running nodes,
 * by Karpenter's own drift rules (karpenter.sh/v1, karpenter.k8s.aws/v1).
 *
 * Karpenter marks a NodeClaim drifted in two ways:
 *  - static drift: a hash of the NodePool's spec.template (labels and
 *    annotations of template.metadata, taints, startupTaints, nodeClassRef,
 *    expireAfter, terminationGracePeriod; NOT requirements) and a hash of
 *    the EC2NodeClass spec (every field except amiSelectorTerms,
 *    subnetSelectorTerms, securityGroupSelectorTerms,
 *    capacityReservationSelectorTerms, ipPrefixCount and the literal
 *    amiFamily, which is hashed as the resolved family) is stamped on each
 *    NodeClaim; a different hash drifts every node of the pool;
 *  - dynamic drift: the NodeClaim's labels are checked against the pool's
 *    requirements (only nodes that no longer satisfy them drift), and the
 *    node's AMI, subnet and security groups against what the selector terms
 *    resolve to now.
 * spec.disruption, spec.limits and spec.weight are behavioural: they never
 * drift a node, but looser disruption settings let Karpenter remove more.
 *
 * Pure: no I/O, no clock; objects in, a classification out.
 */
#ifndef GENERATOR_IMPACT_H
#define GENERATOR_IMPACT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"

enum impact_class {
	IMPACT_NONE,        /* "no node effect" */
	IMPACT_MAY_DISRUPT, /* "may disrupt": looser budgets/consolidation */
	IMPACT_REPLACES,    /* "replaces nodes": drift or removal */
	IMPACT_NCLASSES
};
/* "no node effect", "may disrupt", "replaces nodes" */
extern const char *const impact_class_names[IMPACT_NCLASSES];

struct impact_rule {
	enum impact_class cls;
	char *text; /* "static drift: NodePool template hash (spec.template.spec.taints)" */
	int requirements; /* dynamic drift of requirements: only the nodes
			   * whose labels no longer satisfy them */
};

struct impact {
	enum impact_class cls; /* the strongest rule */
	struct impact_rule *rules;
	size_t nr, alloc;
	char **pools; /* NodePools whose nodes are affected, sorted, unique */
	size_t npools, apools;
};
#define IMPACT_INIT { IMPACT_NONE, NULL, 0, 0, NULL, 0, 0 }

/*
 * impact_classify: classify the change from `old` to `new` (either may be
 * NULL: created / removed). `nodepools` are the NodePool objects of the
 * same cluster, old and new (duplicates are fine): an EC2NodeClass change is
 * attributed to every pool whose spec.template.spec.nodeClassRef.name names
 * it; when none does, it affects no node. *out must be IMPACT_INIT.
 */
void impact_classify(struct impact *out, const cJSON *old, const cJSON *new,
		     const cJSON *const *nodepools, size_t npools);
void impact_release(struct impact *im);
/* impact_relevant: whether o's content can matter to impact_classify
 * (a Karpenter NodePool or EC2NodeClass); for any other object the class
 * follows from its kind alone. */
int impact_relevant(const cJSON *o);

/* impact_also_text: for a node-replacing change that also loosens
 * disruption, "; also may disrupt: <rules>"; nothing otherwise */
void impact_also_text(const struct impact *im, struct buf *out);

/* impact_requirements_only: 1 when the change replaces nodes only through
 * requirement drift (so only nodes outside the new requirements go) */
int impact_requirements_only(const struct impact *im);

/* impact_rules_text: the rules of the strongest class, "; "-separated */
void impact_rules_text(const struct impact *im, struct buf *out);

/* impact_describe: "replaces nodes [pools a, b]: <rules>[; also may
 * disrupt: <rules>]" */
void impact_describe(struct buf *out, const struct impact *im);

/* impact_json: {"class", "rules" (of the strongest class), "alsoMayDisrupt"
 * (node-replacing changes only), "pools"} */
cJSON *impact_json(const struct impact *im);

/* counts per class over several changes, and the pools whose nodes the
 * node-replacing ones replace */
struct impact_tally {
	size_t counts[IMPACT_NCLASSES];
	char **pools;
	size_t npools, apools;
};
#define IMPACT_TALLY_INIT { { 0, 0, 0 }, NULL, 0, 0 }
void impact_tally_add(struct impact_tally *t, const struct impact *im);
/* "2 node-replacing changes (pools a, b), 1 may disrupt, 3 no node effect" */
void impact_tally_summary(struct buf *out, const struct impact_tally *t);
void impact_tally_release(struct impact_tally *t);

/*
 * impact_labels_satisfy: 1 if a node with `labels` (an object of strings)
 * satisfies every requirement in `requirements` (NodePool
 * spec.template.spec.requirements), as Karpenter checks requirement drift.
 */
int impact_labels_satisfy(const cJSON *requirements, const cJSON *labels);

#endif
