/*
 * cmd/cluster.h: the options every cluster-facing command shares
 * (--kubeconfig, --context, --timeout, --request-timeout) and connecting.
 */
#ifndef CMD_CLUSTER_H
#define CMD_CLUSTER_H

#include "reconcile/kube.h"
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
#define CLUSTER_LONG_OPTS                                                     \
	{ "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },            \
	{ "context", required_argument, NULL, OPT_CONTEXT },                  \
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },                  \
	{ "request-timeout", required_argument, NULL, OPT_REQ_TIMEOUT },      \
	{ "insecure-loopback-http", no_argument, NULL,                        \
	  OPT_INSECURE_LOOPBACK_HTTP }
#define CLUSTER_HELP                                                          \
	"      --kubeconfig PATH   kubeconfig (default $KUBECONFIG, then\n"   \
	"                          ~/.kube/config, then in-cluster)\n"        \
	"      --context NAME      kubeconfig context (default: current)\n"   \
	"      --timeout DUR       limit for the whole run (default 5m)\n"    \
	"      --request-timeout DUR  limit per API request (default 30s)\n"    \
	"      --insecure-loopback-http  send credentials to a plain http://\n" \
	"                          API server on loopback (a test server, a\n" \
	"                          local proxy); never to another host\n"

/* cluster_opt: handle one of the options above; 0 ok, -1 bad value */
int cluster_opt(struct cluster_opts *o, int id, const char *arg);
int cluster_connect(struct kube **out, const struct cluster_opts *o,
		    struct err *err);

#endif
