/*
 * kube/kubeexec.h: exec credential plugins (kube/kubeexec.c).
 */
#ifndef KUBE_KUBEEXEC_H
#define KUBE_KUBEEXEC_H

#include <stddef.h>

#include "kube/kubeconfig.h"
#include "util/err.h"

/*
 * Running an exec credential plugin (what `aws eks get-token` is). The
 * client's connection (kube/kubeconn.c) calls this when it needs
 * credentials and caches the result until `expires`; it is apart from
 * kubeconn.c because it is about "who we are" and needs no network.
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
