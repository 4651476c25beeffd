/*
 * kube/incluster.h: where the cluster is and who we are, inside a pod: the
 * service-account configuration (kube/incluster.c).
 */
#ifndef KUBE_INCLUSTER_H
#define KUBE_INCLUSTER_H

#include "kube/kubeconfig.h"
#include "util/err.h"

/*
 * kubeconfig_in_cluster: service-account token and CA from
 * $GPUFORM_SERVICEACCOUNT_DIR (default
 * /var/run/secrets/kubernetes.io/serviceaccount) and the server from
 * KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT.
 */
int kubeconfig_in_cluster(struct kube_config *out, struct err *err);

#endif
