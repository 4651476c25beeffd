/*
 * generator/preflight.h: the decisions of `gpuform preflight`, without I/O.
 *
 * pf_questions() says what to ask AWS for one valid intent and its plan
 * (the SSM parameters of the AMI release, the instance types of each GPU
 * pool, ...); reconcile/preflight.c asks and fills struct pf_facts;
 * pf_evaluate() turns the facts into findings at the intent's
 * line:column. A question AWS refused (AccessDenied) becomes a warning
 * "could not check X: needs ec2:Action", never an intent error.
 */
#ifndef GENERATOR_PREFLIGHT_H
#define GENERATOR_PREFLIGHT_H

#include <stddef.h>

#include "generator/lint.h"
#include "generator/plan.h"

enum pf_state {
	PF_NOT_ASKED = 0, /* not applicable to this intent */
	PF_FOUND,
	PF_ABSENT,
	PF_DENIED,        /* AccessDenied: the permission is missing */
};

enum pf_check {
	PF_AMI, PF_SNAPSHOT, PF_EFA_SG, PF_SUBNETS, PF_DISCOVERY_SG,
	PF_OFFERINGS, PF_QUEUE, PF_RESERVATIONS, PF_NCHECKS
};

/* the IAM action each check needs ("ssm:GetParameter", ...) */
extern const char *const pf_actions[PF_NCHECKS];

struct pf_param {
	char *name;       /* SSM parameter */
	const char *arch; /* "x86_64" | "arm64" */
	enum pf_state st;
};

struct pf_offer {
	char *type, *zone;
};

/* one capacity reservation as DescribeCapacityReservations describes it */
struct pf_resv {
	char *id, *type, *zone, *state, *rtype; /* rtype: default|capacity-block */
	long total;
	double end; /* endDate in Unix seconds; 0: none (unlimited) */
};

/* the answer to one reservation term of one pool */
struct pf_rterm {
	size_t pool; /* index into plan.pools */
	size_t term; /* index into the workload's cap_terms */
	enum pf_state st; /* PF_FOUND with nr == 0: nothing matched */
	struct pf_resv *r;
	size_t nr, ar;
};

struct pf_facts {
	enum pf_state st[PF_NCHECKS];
	char *denied_msg[PF_NCHECKS]; /* the service's words, or NULL */
	/* PF_AMI: one state per parameter */
	struct pf_param *params;
	size_t nparams;
	/* PF_SNAPSHOT */
	char *snap_status; /* "completed", "pending", "error" */
	long long snap_gib;
	/* PF_EFA_SG */
	int sg_self_in, sg_self_out;
	/* PF_SUBNETS / PF_DISCOVERY_SG */
	size_t nsubnets, ndiscovery_sgs;
	char **zones; /* distinct zones of the discovered subnets, sorted */
	size_t nzones;
	/* PF_OFFERINGS: the instance types to ask about, and the answers */
	char **types;
	size_t ntypes;
	struct pf_offer *offers;
	size_t noffers, aoffers;
	/* PF_QUEUE */
	char *queue;
	/* PF_RESERVATIONS: one entry per term of each reserved pool */
	struct pf_rterm *rterms;
	size_t nrterms;
	double now; /* Unix seconds, for the reservations' end dates */
};

/*
 * pf_questions: fill params (for k8s_version; none when it is NULL), the
 * instance types of the GPU pools and the queue name, and mark as
 * PF_NOT_ASKED the checks that do not apply. Everything else starts as
 * PF_ABSENT until answered.
 */
void pf_questions(struct pf_facts *f, const struct plan *p,
		  const char *k8s_version);
void pf_facts_release(struct pf_facts *f);

/* pf_add_resv: record a reservation found for term t (copies the strings;
 * duplicates by id ignored) */
void pf_add_resv(struct pf_rterm *t, const struct pf_resv *r);

/* pf_add_zone / pf_add_offer: record answers (duplicates ignored) */
void pf_add_zone(struct pf_facts *f, const char *zone);
void pf_add_offer(struct pf_facts *f, const char *type, const char *zone);

/* the rules of the findings (ids PF000..PF007), for SARIF and --help */
extern const struct lint_rule pf_rules[];
extern const size_t pf_nrules;

/*
 * pf_evaluate: the findings for one intent (file as shown); k8s_version
 * NULL means the AMI check was not possible (a warning says how to give
 * it). Appends to *out.
 */
void pf_evaluate(struct lint_findings *out, const struct plan *p,
		 const struct pf_facts *f, const char *file,
		 const char *k8s_version);

/* pf_iam_policy: the IAM policy document (JSON, fresh memory) that allows
 * every action of pf_actions on the resources it needs */
char *pf_iam_policy(int pretty);

/* pf_iam_policy_configmap: ConfigMap gpuform-aws-iam-policy in ns with
 * the document as data "policy.json" (for `install --aws-iam-policy`) */
struct cJSON;
struct cJSON *pf_iam_policy_configmap(const char *ns);

#endif
