/*
 * generator/lint_int.h: what the files of the lint module share — lint.c
 * (documents, findings, the catalog's labels, loading, the driver),
 * lint_index.c (the set indexed: pools, node classes, device plugins, pod
 * sets resolved to pools and queues), lint_workload.c (the rules over
 * workloads) and lint_pools.c (the rules over pools, node classes, queues
 * and values); lint_rules.c holds the rule table. Internal: nothing but
 * those files includes it (tests/check-layering.sh), the public interface
 * is lint.h.
 *
 * One shared header (each file's own header declares what that file
 * exports: lint_index.h, lint_workload.h, lint_pools.h): the rules read
 * one indexed set (struct lctx) through the same small YAML helpers and
 * report through the same function, so every file needs all of it. The functions are the lint
 * module's, so they carry its prefix, lint_ (as lint_rules.c's do); the
 * small helpers (YAML access, report, where, kind_is) are static inline
 * and keep their short names.
 */
#ifndef GENERATOR_LINT_INT_H
#define GENERATOR_LINT_INT_H

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/lint.h"
#include "util/buf.h"
#include "util/yaml.h"

/*
 * The rules lint.c reports, by their index in lint_rules[] (lint_rules.c):
 * R_NARROW is GPU001, ... R_AGENT_TOL is GPU026, in that order, and the
 * intent's own warnings INT001... follow them in the table (R_COUNT is
 * INT001's index). tests/unit/test_lint.c checks every index against the
 * table's id and name. A new GPU rule goes last in both: before R_COUNT
 * here, after GPU026 (before INT001) there.
 */
enum rule_idx {
	R_NARROW, R_AMI, R_ALLOWLIST, R_GENERAL, R_EFA_SG, R_EFA_TYPES,
	R_PLUGIN_TOL, R_TIMESLICE, R_DND, R_QUEUE, R_TOLERATION, R_GPUS,
	R_EXPIRE, R_GANG, R_LIMITS, R_S2S, R_CACHE, R_AL2023, R_NOLIMIT,
	R_QUEUE_PLACEMENT, R_OVERLAY, R_RESERVED, R_SNAP_INIT,
	R_SPOT_GRACE, R_HUGEPAGES, R_AGENT_TOL, R_COUNT
};

/* EC2 gives a spot instance 2 minutes between the interruption notice
 * and reclaiming it (EC2 user guide, "Spot Instance interruption
 * notices") */
#define SPOT_NOTICE_S 120
#define TGPS "terminationGracePeriodSeconds"

#define GPU_TAINT "nvidia.com/gpu"
#define RES_GPU "nvidia.com/gpu"
#define RES_EFA "vpc.amazonaws.com/efa"
#define LBL_QUEUE "kueue.x-k8s.io/queue-name"
#define ANN_DND "karpenter.sh/do-not-disrupt"
#define LBL_NODEPOOL "karpenter.sh/nodepool"
#define LBL_PLUGIN_CONFIG "nvidia.com/device-plugin.config"

/* ---- documents ----------------------------------------------------------- */

struct doc {
	size_t seq; /* input order, to keep one file's documents in order */
	const char *file;
	const struct ynode *root;
	const char *api, *kind, *name, *ns;
	const struct intent *in; /* rendered from this intent (synthetic) */
	struct pos at;           /* where a synthetic document's findings go */
};

struct pool {
	const struct doc *d;
	const char *name;
	const struct ynode *labels;  /* spec.template.metadata.labels */
	const struct ynode *tspec;   /* spec.template.spec */
	const struct ynode *reqs;    /* requirements */
	const struct doc *nc;        /* its EC2NodeClass, if in the set */
	int gpu, spot, protect;
	int confined;       /* launches catalog types only: counts are known */
	char *admit;        /* per catalog type: can launch it */
	size_t ntypes;      /* GPU types it can launch */
	size_t s2s_types;   /* of those, how many have 15 cheaper ones in the
			     * pool (single-node spot-to-spot can act) */
	int max_gpus;
	long mult;          /* schedulable GPUs per physical GPU */
	int timesliced;
	char mig[32];       /* MIG profile, "" if none */
	int has_limit;
	long limit;
};

struct queue {
	const struct doc *d; /* LocalQueue */
	const char *cq;
};

struct lctx {
	const struct lint_opts *o;
	const struct catalog *cat;
	struct lint_findings *out;
	struct doc *docs;
	size_t ndocs, adocs;
	struct ystream **streams;
	size_t nstreams, astreams;
	struct intent **intents;
	size_t nintents, aintents;
	struct pool *pools;
	size_t npools, apools;
	int has_nvidia_plugin;        /* DaemonSet or Helm values */
	const struct doc *s2s_gate;   /* Karpenter values/Deployment enabling it */
	const struct ynode *s2s_node;
	int s2s_justified; /* some spot pool offers 15+ types */
};

/* ---- small YAML helpers -------------------------------------------------- */

static inline const struct ynode *get(const struct ynode *n,
				      const char *path)
{
	char key[128];

	while (n && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (n->type != YNODE_MAP || len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		n = ynode_get(n, key);
		path += len + (dot ? 1 : 0);
	}
	return n;
}

/* a child by a key that may contain dots ("nvidia.com/gpu") */
static inline const struct ynode *kid(const struct ynode *map, const char *key)
{
	return map && map->type == YNODE_MAP ? ynode_get(map, key) : NULL;
}

static inline const char *str(const struct ynode *n)
{
	if (!n || n->type != YNODE_SCALAR || yaml_scalar_kind(n) == YS_NULL)
		return NULL;
	return n->value;
}

static inline const char *sget(const struct ynode *n, const char *path)
{
	return str(get(n, path));
}

static inline int seq_len(const struct ynode *n)
{
	return n && n->type == YNODE_SEQ ? (int)n->nr : 0;
}

/* an integer or an integer string ("8"); -1 otherwise */
static inline long num(const struct ynode *n)
{
	const char *s = str(n);
	char *end;
	long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	return v;
}

static inline int is_true(const struct ynode *n)
{
	const char *s = str(n);

	if (!s)
		return 0;
	if (yaml_scalar_kind(n) == YS_BOOL)
		return yaml_scalar_bool(n);
	return !strcmp(s, "true");
}

static inline int seq_has(const struct ynode *seq, const char *v)
{
	for (int i = 0; i < seq_len(seq); i++) {
		const char *s = str(seq->kids[i]);
		if (s && !strcmp(s, v))
			return 1;
	}
	return 0;
}

/* ---- findings, the catalog, loading: lint.c -------------------------- */

/* a finding of rule r with severity sev at node n of document d (n NULL:
 * the document; a synthetic document: where its intent says) */
void lint_vreport(struct lctx *c, enum rule_idx r, enum lint_severity sev,
		  const struct doc *d, const struct ynode *n, const char *fmt,
		  va_list ap);

__attribute__((format(printf, 5, 6))) static inline void
report(struct lctx *c, enum rule_idx r, const struct doc *d,
       const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lint_vreport(c, r, lint_rules[r].severity, d, n, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 6, 7))) static inline void
report_sev(struct lctx *c, enum rule_idx r, enum lint_severity sev,
	   const struct doc *d, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lint_vreport(c, r, sev, d, n, fmt, ap);
	va_end(ap);
}

/* "file:line" of a node, for messages that name a second place */
static inline void where(struct buf *b, const struct doc *d,
			 const struct ynode *n)
{
	if (d->in)
		buf_addf(b, "%s:%d", d->file, d->at.line);
	else
		buf_addf(b, "%s:%d", d->file, n ? n->line : d->root->line);
}

static inline const struct cat_family *fam_of(const struct lctx *c,
					      const struct cat_type *t)
{
	return catalog_family(c->cat, t->family);
}

static inline int kind_is(const struct doc *d, const char *kind)
{
	return d->kind && !strcmp(d->kind, kind);
}

static inline int is_values(const struct doc *d)
{
	return !d->kind && !d->api;
}

/* the NodePool requirements {key, operator, values} against an instance
 * type */
int lint_reqs_admit(const struct ynode *reqs, const struct cat_type *t,
		    const struct cat_family *f);
/* a nodeSelector {key: value} against an instance type */
int lint_selector_admits(const struct ynode *sel, const struct cat_type *t,
			 const struct cat_family *f);
int lint_selector_narrows(const struct ynode *sel);
int lint_is_gpu_family(const struct lctx *c, const char *name);
int lint_is_catalog_type(const struct lctx *c, const char *name);
const struct cat_class *lint_class_of_family(const struct lctx *c,
					     const char *fam);
/* the requirement item with this key and one of these operators */
const struct ynode *lint_find_req(const struct ynode *reqs, const char *key,
				  const char *op);
struct ystream *lint_new_stream(struct lctx *c);

#endif
