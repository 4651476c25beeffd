/* cmd/cluster.c: shared cluster options and connection (see cluster.h). */
#include "cmd/cluster.h"

#include <getopt.h>

#include "generator/intent.h"

int cluster_opt(struct cluster_opts *o, int id, const char *arg)
{
	long long s;

	switch (id) {
	case OPT_KUBECONFIG:
		o->kubeconfig = arg;
		return 0;
	case OPT_INSECURE_LOOPBACK_HTTP:
		o->insecure_loopback_http = 1;
		return 0;
	case OPT_CONTEXT:
		o->context = arg;
		return 0;
	case OPT_TIMEOUT:
	case OPT_REQ_TIMEOUT:
		s = intent_parse_duration(arg);
		if (s <= 0)
			return -1;
		if (id == OPT_TIMEOUT)
			o->timeout_ms = (long)(s * 1000);
		else
			o->request_timeout_ms = (long)(s * 1000);
		return 0;
	}
	return -1;
}

int cluster_connect(struct kube **out, const struct cluster_opts *o,
		    struct err *err)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_opts ko = KUBE_OPTS_INIT;
	int ret;

	if (kubeconfig_load(&cfg, o->kubeconfig, o->context, err) < 0)
		return -1;
	ko.run_timeout_ms = o->timeout_ms;
	ko.request_timeout_ms = o->request_timeout_ms;
	ko.http_loopback_credentials = o->insecure_loopback_http;
	ret = kube_new(out, &cfg, &ko, err);
	kube_config_release(&cfg);
	return ret;
}
