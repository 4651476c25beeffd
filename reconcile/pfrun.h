/*
 * reconcile/pfrun.h: the preflight run — read and validate every intent,
 * plan it, find credentials, ask AWS what each intent refers to
 * (reconcile/preflight.c) and evaluate the answers (generator/preflight.c)
 * into findings. `gpuform preflight` and `reconcile --preflight` print what
 * it returns and pick the exit code.
 */
#ifndef RECONCILE_PFRUN_H
#define RECONCILE_PFRUN_H

#include <stddef.h>

#include "generator/intent.h"
#include "generator/lint.h"
#include "generator/pipeline.h"
#include "generator/plan.h"
#include "aws/aws.h"
#include "kube/kube.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

struct pfrun_file {
	const char *path;
	struct buf data;
	struct pipeline p; /* up to the plan; not copied (plan.in points
			    * into it) */
	int have_plan;
};

struct pfrun {
	struct pfrun_file *files;
	size_t n;
	struct diags d;             /* pfrun_read's, sorted */
	struct aws aws;             /* set aws.timeout_ms before pfrun_ask */
	struct lint_findings f;     /* pfrun_ask's, in file order */
	const char *failed_path;    /* pfrun_ask -1: the file it was asking
				     * about, NULL: finding credentials */
};

void pfrun_init(struct pfrun *r);
void pfrun_release(struct pfrun *r);

enum { PFRUN_INVALID = 1, PFRUN_UNREADABLE = 2 };
/*
 * pfrun_read: read (or take from mem, when not NULL: the files' contents,
 * e.g. from a Git commit), validate and plan every intent; problems go to
 * r->d. cluster, when not NULL, is the cluster reconciled: an intent of
 * another cluster is an error. 0: every intent valid; PFRUN_INVALID: one
 * is not; PFRUN_UNREADABLE: a file could not be read (and none invalid).
 */
int pfrun_read(struct pfrun *r, char **paths, const struct buf *mem, size_t n,
	       const char *cluster);

/*
 * pfrun_ask: find credentials (region: NULL for the SDKs' order), ask AWS
 * for every intent and evaluate, findings into r->f. k8s: the cluster's
 * Kubernetes version "X.Y", or NULL (the AMI is then not checked); now:
 * Unix seconds, for the reservations' end dates. -1: it could not check
 * (r->failed_path says about which file).
 */
int pfrun_ask(struct pfrun *r, const char *region, const char *k8s,
	      double now, struct err *err);

/* pfrun_version_ok: "1.32" (MAJOR.MINOR, digits) */
int pfrun_version_ok(const char *v);

/* pfrun_cluster_version: GET /version as "1.32" (EKS's minor "32+" too) */
int pfrun_cluster_version(struct kube *k, char *out, size_t size,
			  struct err *err);

#endif
