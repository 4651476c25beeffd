/*
 * kube/kubeconfig.h: where the cluster is and who we are.
 *
 * Reads kubeconfig files (KUBECONFIG with several files, or
 * ~/.kube/config) the way kubectl does, or the in-cluster service-account
 * configuration (kube/incluster.h). Produces a struct kube_config that the
 * REST client's connection (kube/kubeconn.h) consumes; exec credential
 * plugins are run by kube/kubeexec.h. Secrets (tokens, keys) live only in memory here and
 * never appear in error messages.
 */
#ifndef KUBE_KUBECONFIG_H
#define KUBE_KUBECONFIG_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

struct kube_config {
	char *context; /* context name used ("in-cluster" for in-cluster) */
	char *cluster; /* cluster name, for messages */
	char *user;    /* kubeconfig user name or service account, for messages */
	char *server;  /* "https://127.0.0.1:6443" */
	char *ca_pem;  /* CA bundle (PEM) in memory; NULL = system store */
	size_t ca_len;
	int insecure;  /* insecure-skip-tls-verify: true in the kubeconfig */
	char *token;   /* static bearer token */
	char *token_file; /* bearer token read from this file (re-read when
			   * it changes: projected tokens rotate) */
	char *cert_pem, *key_pem; /* client certificate and key (PEM) */
	size_t cert_len, key_len;
	/* exec credential plugin (client.authentication.k8s.io/v1, v1beta1) */
	char **exec_argv;  /* command and args, NULL-terminated; NULL = none */
	char **exec_env;   /* "NAME=value", NULL-terminated (added to environ) */
	char *exec_api_version;
	char *namespace_;  /* default namespace (context or in-cluster) */
	/* exec: provideClusterInfo (spec.cluster in KUBERNETES_EXEC_INFO) */
	int exec_provide_cluster_info;
};
#define KUBE_CONFIG_INIT { 0 }

/*
 * kubeconfig_load: `path` (NULL = $KUBECONFIG, colon-separated and merged
 * like kubectl: for every name the first file that defines it wins; else
 * ~/.kube/config). `context` NULL = current-context. When no kubeconfig
 * exists at all and the process runs in a pod (KUBERNETES_SERVICE_HOST
 * set), falls back to kubeconfig_in_cluster() (kube/incluster.h). Errors name the file and,
 * where it helps, the line:column.
 */
int kubeconfig_load(struct kube_config *out, const char *path,
		    const char *context, struct err *err);

void kube_config_release(struct kube_config *c);

/*
 * Shared by kube/kubeconfig.c and kube/incluster.c (not an interface for
 * the rest of gpuform): base64 (standard or URL alphabet, padding
 * optional, whitespace ignored; a NUL-terminated copy, or -1); dropping
 * trailing whitespace; whether a PEM block "-----BEGIN <what>" is in p;
 * a whole secret file (the message names `what` and the file; wiped on
 * failure).
 */
int kubeconfig_b64_decode(const char *in, size_t len, char **out,
			  size_t *out_len);
void kubeconfig_trim_right(struct buf *b);
int kubeconfig_looks_like_pem(const char *p, size_t len, const char *what);
int kubeconfig_read_secret(struct buf *out, const char *path, size_t max,
			   const char *what, struct err *err);

#endif
