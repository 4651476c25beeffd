/* reconcile/identity.c: which cluster a run talks to (see identity.h). */
#include "reconcile/identity.h"

#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/xalloc.h"

int identity_read(struct kube *k, char **uid_out, struct err *err)
{
	/* the core Namespace resource is served by every API server: no
	 * discovery request for it */
	static char group[] = "", version[] = "v1", kind[] = "Namespace",
		    resource[] = "namespaces";
	static const struct kube_resource ns = { group, version, kind,
						 resource, 0 };
	cJSON *o = NULL;
	const char *uid;

	*uid_out = NULL;
	if (kube_get(k, &ns, NULL, "kube-system", &o, err) < 0)
		return err_wrap(err, "reading the cluster's identity "
				     "(Namespace kube-system)");
	uid = json_meta_at(o, "uid", NULL);
	if (!uid || !*uid) {
		cJSON_Delete(o);
		return err_set(err, ERR_HTTP,
			       "the cluster has no Namespace kube-system (or it "
			       "has no uid): gpuform cannot tell which cluster "
			       "this is");
	}
	*uid_out = xstrdup(uid);
	cJSON_Delete(o);
	return 0;
}

/* the NAME of "arn:aws:eks:REGION:ACCOUNT:cluster/NAME" (also aws-cn,
 * aws-us-gov), or NULL */
static const char *arn_name(const char *s)
{
	const char *p;

	if (!s || strncmp(s, "arn:aws", 7))
		return NULL;
	p = strchr(s, ':');           /* arn: */
	p = p ? strchr(p + 1, ':') : NULL; /* partition: */
	if (!p || strncmp(p, ":eks:", 5))
		return NULL;
	p = strstr(p, ":cluster/");
	return p && p[9] && !strchr(p + 9, '/') ? p + 9 : NULL;
}

/* the cluster an exec plugin names: --cluster-name NAME, --cluster-name=NAME
 * (aws eks get-token), --cluster-id / -i NAME (aws-iam-authenticator) */
static const char *exec_name(const char *const *argv)
{
	static const char *const flags[] = { "--cluster-name", "--cluster-id",
					     "-i" };

	for (size_t i = 0; argv && argv[i]; i++) {
		for (size_t f = 0; f < sizeof(flags) / sizeof(*flags); f++) {
			size_t l = strlen(flags[f]);
			if (!strcmp(argv[i], flags[f]) && argv[i + 1])
				return argv[i + 1];
			if (l > 2 && !strncmp(argv[i], flags[f], l) &&
			    argv[i][l] == '=')
				return argv[i] + l + 1;
		}
	}
	return NULL;
}

int identity_eks_name(const char *context, const char *cluster,
		      const char *const *exec_argv, struct buf *out, struct err *err)
{
	const char *names[3], *what[3] = { "the context", "the kubeconfig "
					   "cluster", "the exec plugin "
					   "(--cluster-name)" };
	const char *got = NULL, *from = NULL;

	buf_reset(out);
	names[0] = arn_name(context);
	names[1] = arn_name(cluster);
	names[2] = exec_name(exec_argv);
	for (int i = 0; i < 3; i++) {
		if (!names[i] || !*names[i])
			continue;
		if (got && strcmp(got, names[i]))
			return err_set(err, ERR_WRONG_CLUSTER,
				       "the kubeconfig names two EKS clusters: "
				       "'%s' (%s) and '%s' (%s); fix the "
				       "kubeconfig",
				       got, from, names[i], what[i]);
		got = names[i];
		from = what[i];
	}
	if (got)
		buf_adds(out, got);
	return 0;
}

int identity_check_eks(const char *eks, const char *want,
		       const char *context, struct err *err)
{
	if (!eks || !*eks || !want || !strcmp(eks, want))
		return 0;
	return err_set(err, ERR_WRONG_CLUSTER,
		       "context '%s' is EKS cluster '%s', but the intent is "
		       "for cluster '%s' (metadata.name); nothing was written. "
		       "Choose the right context with --context",
		       context ? context : "?", eks, want);
}

int identity_check(const cJSON *parent, const char *inventory,
		   const struct identity *id, int prune, int rebuild,
		   struct err *err)
{
	const char *uid = NULL, *server = NULL;

	if (parent && json_at(parent, "data", NULL)) {
		uid = json_meta_at(parent, "annotations",
				   IDENTITY_UID_ANNOTATION);
		server = json_meta_at(parent, "annotations",
				      IDENTITY_SERVER_ANNOTATION);
	} else if (!rebuild) {
		return 0; /* nothing recorded, nothing a prune could delete */
	}
	if (id->rebind)
		return 0;
	if (uid && id->uid && strcmp(uid, id->uid))
		return err_set(err, ERR_WRONG_CLUSTER,
			       "wrong cluster: inventory %s was written on "
			       "another cluster (kube-system uid %s, server "
			       "%s); this one is uid %s at %s. Nothing was "
			       "written. Check --context; if this cluster "
			       "really replaces that one (rebuilt, restored), "
			       "run again with --rebind-cluster",
			       inventory, uid, server ? server : "?", id->uid,
			       id->server ? id->server : "?");
	if (!uid && prune && !id->eks_verified)
		return err_set(err, ERR_WRONG_CLUSTER,
			       "unverified cluster: inventory %s records no "
			       "cluster identity (%s), so --prune could delete "
			       "on the wrong cluster; nothing was written. Run "
			       "once without --prune to record this cluster "
			       "(server %s), or pass --rebind-cluster",
			       inventory,
			       parent && json_at(parent, "data", NULL)
				       ? "written by an older gpuform"
				       : "there is none to rebuild from",
			       id->server ? id->server : "?");
	return 0;
}

void identity_annotate(cJSON *a, const cJSON *live_parent,
		       const struct identity *id)
{
	const char *uid = json_meta_at(live_parent, "annotations",
				       IDENTITY_UID_ANNOTATION);
	const char *server = json_meta_at(live_parent, "annotations",
					  IDENTITY_SERVER_ANNOTATION);

	if (!id || !id->uid)
		return;
	if (!uid || strcmp(uid, id->uid) || !server)
		server = id->server;
	cJSON_AddStringToObject(a, IDENTITY_UID_ANNOTATION, id->uid);
	if (server)
		cJSON_AddStringToObject(a, IDENTITY_SERVER_ANNOTATION, server);
}

int identity_check_live(struct kube *k, const cJSON *parent,
			const char *inventory, struct identity *id, int prune,
			int rebuild, struct err *err)
{
	if (!id->uid) {
		if (identity_read(k, &id->read_uid, err) < 0)
			return -1;
		id->uid = id->read_uid;
	}
	return identity_check(parent, inventory, id, prune, rebuild, err);
}
