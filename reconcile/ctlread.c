/* reconcile/ctlread.c: the running controllers, read (see ctlread.h). */
#include "reconcile/ctlread.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

void ctlread_release(struct ctlread *r)
{
	free(r->k_where), free(r->k_image), free(r->k_gates), free(r->k_unread);
	free(r->q_where), free(r->q_image), free(r->q_unread);
	free(r->c_where), free(r->c_text), free(r->c_unread);
	memset(r, 0, sizeof(*r));
}

static const cJSON *jget(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* the container named `name`, else the first */
static const cJSON *container(const cJSON *dep, const char *name)
{
	const cJSON *cs = jget(jget(jget(jget(dep, "spec"), "template"), "spec"),
			       "containers"), *c;
	cJSON_ArrayForEach(c, cs) {
		const cJSON *n = jget(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return c;
	}
	return cs ? cs->child : NULL;
}

static char *env_value(const cJSON *c, const char *name)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, jget(c, "env")) {
		const cJSON *n = jget(e, "name"), *v = jget(e, "value");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name) &&
		    cJSON_IsString(v))
			return xstrdup(v->valuestring);
	}
	return NULL;
}

/* get NS/NAME of res, trying each namespace: 0 found (*out), 1 not found,
 * 2 forbidden (*why), -1 other error */
static int get_one(struct kube *k, const struct kube_resource *res,
		   const char *const *nss, const char *name, cJSON **out,
		   char **where, char **why, struct err *err)
{
	for (size_t i = 0; nss[i]; i++) {
		struct buf w = BUF_INIT;
		buf_addf(&w, "%s %s/%s", res->kind, nss[i], name);
		if (kube_get(k, res, nss[i], name, out, err) < 0) {
			if (err->code != ERR_AUTH) {
				buf_release(&w);
				return -1;
			}
			buf_addf(&w, " cannot be read (%s)", err_msg(err));
			*why = buf_detach(&w, NULL);
			err_clear(err);
			return 2;
		}
		if (*out) {
			*where = buf_detach(&w, NULL);
			return 0;
		}
		buf_release(&w);
	}
	return 1;
}

/* the controller container's image (and FEATURE_GATES) of a Deployment */
static int read_deployment(struct kube *k, const struct kube_resource *dep,
			   const char *const *nss, const char *name,
			   const char *ctr, char **where, char **image,
			   char **gates, char **unread, struct err *err)
{
	cJSON *o = NULL;
	int rc = get_one(k, dep, nss, name, &o, where, unread, err);
	const cJSON *c, *img;

	if (rc < 0)
		return -1;
	if (rc != 0)
		return 0;
	c = container(o, ctr);
	img = jget(c, "image");
	*image = cJSON_IsString(img) ? xstrdup(img->valuestring) : NULL;
	if (gates)
		*gates = env_value(c, "FEATURE_GATES");
	cJSON_Delete(o);
	return 0;
}

int ctlread_read(struct kube *k, struct ctlread *r, struct err *err)
{
	static const char *const karpenter_ns[] = { "kube-system", "karpenter",
						    NULL };
	static const char *const kueue_ns[] = { "kueue-system", NULL };
	/* built-in, stable kinds: no discovery request */
	static const struct kube_resource dep = {
		(char *)"apps", (char *)"v1", (char *)"Deployment",
		(char *)"deployments", 1
	};
	static const struct kube_resource cm = {
		(char *)"", (char *)"v1", (char *)"ConfigMap",
		(char *)"configmaps", 1
	};
	cJSON *o = NULL;
	int rc;

	if (read_deployment(k, &dep, karpenter_ns, "karpenter", "controller",
			    &r->k_where, &r->k_image, &r->k_gates, &r->k_unread,
			    err) < 0 ||
	    read_deployment(k, &dep, kueue_ns, "kueue-controller-manager",
			    "manager", &r->q_where, &r->q_image, NULL,
			    &r->q_unread, err) < 0)
		return -1;
	rc = get_one(k, &cm, kueue_ns, "kueue-manager-config", &o, &r->c_where,
		     &r->c_unread, err);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		const cJSON *t = jget(jget(o, "data"),
				      "controller_manager_config.yaml");
		r->c_text = cJSON_IsString(t) ? xstrdup(t->valuestring) : NULL;
		cJSON_Delete(o);
	}
	r->l.karpenter.where = r->k_where;
	r->l.karpenter.image = r->k_image;
	r->l.karpenter.unreadable = r->k_unread;
	r->l.feature_gates = r->k_gates;
	r->l.kueue.where = r->q_where;
	r->l.kueue.image = r->q_image;
	r->l.kueue.unreadable = r->q_unread;
	r->l.kueue_config_where = r->c_text ? r->c_where : NULL;
	r->l.kueue_config = r->c_text;
	r->l.kueue_config_unreadable = r->c_unread;
	return 0;
}

void ctlread_addondiff(struct addondiff *out, struct kube *k,
		       const cJSON *addons, const cJSON *docs,
		       struct diags *notes)
{
	struct ctlread r = CTLREAD_INIT;
	struct err e = ERR_INIT;

	out->live = 1;
	if (!jget(addons, "karpenter-values.yaml") &&
	    !jget(addons, "kueue-values.yaml"))
		return;
	if (ctlread_read(k, &r, &e) < 0)
		diags_add(notes, DIAG_WARNING, "", 0, 0, NULL,
			  "add-ons: the running controllers could not be read "
			  "(%s); the add-on files are not compared",
			  err_msg(&e));
	else
		addondiff_live(out, NULL, addons, docs, &r.l, notes);
	ctlread_release(&r);
	err_release(&e);
}
