/*
 * kube/kubeconfig.h: where the cluster is and who we are.
 *
 * Reads kubeconfig files (KUBECONFIG with several files, or
 * ~/.kube/config) the way kubectl does, or the in-cluster service-account
 * configuration. Produces a struct kube_config that the HTTP client
 * (kube.h) consumes. Secrets (tokens, keys) live only in memory here and
 * never appear in error messages.
 */
#ifndef KUBE_KUBECONFIG_H
#define KUBE_KUBECONFIG_H

#include <stddef.h>

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
 * set), falls back to kubeconfig_in_cluster(). Errors name the file and,
 * where it helps, the line:column.
 */
int kubeconfig_load(struct kube_config *out, const char *path,
		    const char *context, struct err *err);

/*
 * kubeconfig_in_cluster: service-account token and CA from
 * $GPUFORM_SERVICEACCOUNT_DIR (default
 * /var/run/secrets/kubernetes.io/serviceaccount) and the server from
 * KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT.
 */
int kubeconfig_in_cluster(struct kube_config *out, struct err *err);

void kube_config_release(struct kube_config *c);

/*
 * Running an exec credential plugin (what `aws eks get-token` is). The
 * client (kube.c) calls this when it needs credentials and caches the result
 * until `expires`; it is here, not in kube.c, because it is about "who we
 * are" and needs no network.
 */
#define KUBECONFIG_EXEC_TIMEOUT_MS 30000L
#define KUBECONFIG_EXEC_MAX_OUTPUT (1u << 20) /* stdout cap */

struct kube_exec_cred {
	char *token;              /* status.token, or NULL */
	char *cert_pem, *key_pem; /* status.clientCertificateData/KeyData */
	size_t cert_len, key_len;
	long long expires;        /* status.expirationTimestamp as Unix
				   * seconds; 0 = none given (valid for the
				   * client's life) */
};
#define KUBE_EXEC_CRED_INIT { NULL, NULL, NULL, 0, 0, 0 }

/*
 * kubeconfig_exec: run c->exec_argv with c->exec_env added to the
 * environment, KUBERNETES_EXEC_INFO set to an ExecCredential with
 * spec.interactive=false, stdin /dev/null, in its own process group.
 * stdout (capped at KUBECONFIG_EXEC_MAX_OUTPUT) is parsed as an
 * ExecCredential. The plugin is killed after timeout_ms. Failures are
 * ERR_AUTH naming the command, the user, the exit status and the first line
 * of the plugin's stderr -- never its stdout, which holds the token.
 */
int kubeconfig_exec(struct kube_exec_cred *out, const struct kube_config *c,
		    long timeout_ms, struct err *err);
void kube_exec_cred_release(struct kube_exec_cred *cred);

#endif
