/*
 * cmd/cluster.h: the options every cluster-facing command shares
 * (--kubeconfig, --context, --timeout, --request-timeout) and connecting.
 */
#ifndef CMD_CLUSTER_H
#define CMD_CLUSTER_H

#include "cmd/options.h"
#include "kube/kube.h"
#include "util/err.h"

struct cluster_opts {
	const char *kubeconfig;
	const char *context;
	long timeout_ms;
	long request_timeout_ms;
	int insecure_loopback_http; /* credentials over http:// to loopback */
};
#define CLUSTER_OPTS_INIT { NULL, NULL, 300000, 30000, 0 }

/* option ids handed out to commands' getopt tables */
enum { OPT_KUBECONFIG = 1000, OPT_CONTEXT, OPT_TIMEOUT, OPT_REQ_TIMEOUT,
       OPT_INSECURE_LOOPBACK_HTTP };
/* their entries in a command's option table (cmd/options.h) */
#define CLUSTER_CMD_OPTS                                                      \
	{ "kubeconfig", 0, OPT_KUBECONFIG, CMD_ARG_REQUIRED, "PATH",          \
	  "kubeconfig (default $KUBECONFIG, then ~/.kube/config, then "       \
	  "in-cluster)", "@file", 0 },                                        \
	{ "context", 0, OPT_CONTEXT, CMD_ARG_REQUIRED, "NAME",                \
	  "kubeconfig context (default: current)", NULL, 0 },                 \
	{ "timeout", 0, OPT_TIMEOUT, CMD_ARG_REQUIRED, "DUR",                 \
	  "limit for the whole run (default 5m)", NULL, 0 },                  \
	{ "request-timeout", 0, OPT_REQ_TIMEOUT, CMD_ARG_REQUIRED, "DUR",     \
	  "limit per API request (default 30s)", NULL, 0 },                   \
	{ "insecure-loopback-http", 0, OPT_INSECURE_LOOPBACK_HTTP,            \
	  CMD_ARG_NONE, NULL,                                                 \
	  "send credentials to a plain http:// API server on loopback (a "    \
	  "test server, a local proxy); never to another host", NULL, 0 }

/* cluster_opt: handle one of the options above; 0 ok, -1 bad value */
int cluster_opt(struct cluster_opts *o, int id, const char *arg);
int cluster_connect(struct kube **out, const struct cluster_opts *o,
		    struct err *err);

/* what the kubeconfig said about the cluster a client talks to */
struct cluster_info {
	char *context; /* "in-cluster" in a pod */
	char *server;
	char *eks;     /* the EKS cluster it names, or "" */
};
/* cluster_connect_info: cluster_connect, and fill *info (released with
 * cluster_info_release, also after a failure) */
int cluster_connect_info(struct kube **out, const struct cluster_opts *o,
			 struct cluster_info *info, struct err *err);
void cluster_info_release(struct cluster_info *info);
/* cluster_bad_context: the connection failed because --context names no
 * context of the kubeconfig: a usage error (exit 2), as kubectl's */
int cluster_bad_context(const struct cluster_opts *o, const struct err *e);

#endif
