/* cmd/cluster.c: shared cluster options and connection (see cluster.h). */
#include "cmd/cluster.h"

#include <getopt.h>

#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"
#include "reconcile/identity.h"
#include "util/xalloc.h"

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
	struct cluster_info info = { 0 };
	int ret = cluster_connect_info(out, o, &info, err);

	cluster_info_release(&info);
	return ret;
}

int cluster_bad_context(const struct cluster_opts *o, const struct err *e)
{
	char want[300];

	if (!o->context || e->code != ERR_NOTFOUND)
		return 0;
	snprintf(want, sizeof(want), "context '%s' is not defined", o->context);
	return strncmp(err_msg(e), want, strlen(want)) == 0;
}

void cluster_info_release(struct cluster_info *info)
{
	free(info->context);
	free(info->server);
	free(info->eks);
	memset(info, 0, sizeof(*info));
}

int cluster_connect_info(struct kube **out, const struct cluster_opts *o,
			 struct cluster_info *info, struct err *err)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_opts ko = KUBE_OPTS_INIT;
	struct buf eks = BUF_INIT;
	int ret;

	*out = NULL;
	if (kubeconfig_load(&cfg, o->kubeconfig, o->context, err) < 0)
		return -1;
	info->context = xstrdup(cfg.context ? cfg.context : "?");
	info->server = xstrdup(cfg.server ? cfg.server : "?");
	if (identity_eks_name(cfg.context, cfg.cluster,
			      (const char *const *)cfg.exec_argv, &eks,
			      err) < 0) {
		buf_release(&eks);
		kube_config_release(&cfg);
		return -1;
	}
	info->eks = buf_detach(&eks, NULL);
	ko.run_timeout_ms = o->timeout_ms;
	ko.request_timeout_ms = o->request_timeout_ms;
	ko.http_loopback_credentials = o->insecure_loopback_http;
	ret = kube_new(out, &cfg, &ko, err);
	kube_config_release(&cfg);
	return ret;
}
