/*
 * kube/kubeconn.h: the connection the REST client (kube.c) talks over: a
 * struct kube_config turned into an HTTP connection of http/http.h.
 *
 * What is Kubernetes about it lives here, not in http/: refusing
 * credentials over plain http:// (kubectl sends none there; gpuform only
 * to a loopback server with --insecure-loopback-http) and a CA together
 * with insecure-skip-tls-verify; the credentials before every attempt (a
 * static token, a token file re-read when it rotates, an exec plugin's
 * credential cached until it expires and asked again after a 401); and
 * the body check (a 2xx answer that is not whole JSON is repeated).
 */
#ifndef KUBE_KUBECONN_H
#define KUBE_KUBECONN_H

#include "kube/kube.h"
#include "kube/kubeconfig.h"
#include "util/err.h"

/*
 * kubeconn_new: *out is a transport for kube_new_on() over a new HTTP
 * connection to cfg's server (a private copy of cfg is kept). Refused
 * before any request as kube_new() documents. opts NULL: KUBE_OPTS_INIT.
 */
int kubeconn_new(struct kube_transport *out, const struct kube_config *cfg,
		 const struct kube_opts *opts, struct err *err);

#endif
