/*
 * reconcile/identity.h: which cluster a run talks to.
 *
 * A kubeconfig context is only a name; the cluster behind it is known by
 * the UID of its kube-system Namespace, which every cluster has, which
 * never changes while the cluster lives and which no two clusters share.
 * The first run that writes an inventory records that UID (and the server
 * URL it used) on the inventory's parent as annotations; every later run
 * compares. A different UID means the inventory was written on another
 * cluster (the wrong context, an etcd restore onto a new cluster, a copied
 * ConfigMap): the run refuses with nothing written unless the user re-binds
 * on purpose (`--rebind-cluster`). An inventory that records no identity
 * (written before identities were recorded) is bound by the next run, but a
 * prune never runs against it until the cluster is verified (bound, or the
 * kubeconfig names the intent's EKS cluster).
 *
 * Independently, a kubeconfig written by `aws eks update-kubeconfig` names
 * the EKS cluster: the context and cluster are the cluster's ARN
 * (arn:aws:eks:REGION:ACCOUNT:cluster/NAME) and the exec plugin runs
 * `aws eks get-token --cluster-name NAME` (aws-iam-authenticator:
 * `token -i NAME`). When it names one, it must be the intent's cluster.
 *
 * Everything but identity_read is pure.
 */
#ifndef RECONCILE_IDENTITY_H
#define RECONCILE_IDENTITY_H

#include <cjson/cJSON.h>

#include "kube/kube.h"
#include "util/buf.h"
#include "util/err.h"

#define IDENTITY_UID_ANNOTATION "gpuform.io/cluster-uid"
#define IDENTITY_SERVER_ANNOTATION "gpuform.io/cluster-server"

struct identity {
	const char *uid;    /* the kube-system Namespace's UID */
	const char *server; /* the server URL this run uses */
	int rebind;         /* --rebind-cluster: record this cluster */
	int eks_verified;   /* the kubeconfig names the intent's EKS cluster */
	char *read_uid;     /* identity_check_live: what it read (free it) */
};

/* identity_read: the kube-system Namespace's UID (*uid_out, malloc'd). */
int identity_read(struct kube *k, char **uid_out, struct err *err);

/*
 * identity_eks_name: the EKS cluster the kubeconfig names, into *out
 * (empty when it names none): an EKS ARN as context or cluster name, or
 * `--cluster-name NAME` / `--cluster-id NAME` / `-i NAME` in the exec
 * plugin's arguments. -1 when they name two different clusters.
 */
int identity_eks_name(const char *context, const char *cluster,
		      const char *const *exec_argv, struct buf *out,
		      struct err *err);

/*
 * identity_check_eks: the EKS cluster the kubeconfig names (`eks`, may be
 * empty: no check) against the intent's cluster `want` (its
 * spec.eks.clusterName, else metadata.name). ERR_WRONG_CLUSTER on a
 * mismatch, saying where each name came from.
 */
int identity_check_eks(const char *eks, const char *want,
		       const char *context, struct err *err);

/*
 * identity_check: the inventory's parent as read (NULL or never filled:
 * none yet) against this cluster. ERR_WRONG_CLUSTER when it records
 * another cluster's UID (unless rebind), or when `prune` and the cluster
 * is not verified: the parent records no UID (or there is none and
 * `rebuild` would fill it from labelled objects) and neither rebind nor
 * eks_verified.
 */
int identity_check(const cJSON *parent, const char *inventory,
		   const struct identity *id, int prune, int rebuild,
		   struct err *err);

/*
 * identity_check_live: read the cluster's uid (identity_read, one GET; into
 * id->uid and id->read_uid) unless id->uid is set, then identity_check
 * against the inventory parent as read. Called by recon_run right after it
 * read the inventory: after the desired objects passed the local checks,
 * before anything is written.
 */
int identity_check_live(struct kube *k, const cJSON *parent,
			const char *inventory, struct identity *id, int prune,
			int rebuild, struct err *err);

/*
 * identity_annotate: add the identity annotations to the annotations
 * object `a` of the parent about to be written; the server recorded at
 * binding is kept while the UID stays the same (a run through another
 * endpoint does not rewrite the inventory).
 */
void identity_annotate(cJSON *a, const cJSON *live_parent,
		       const struct identity *id);

#endif
