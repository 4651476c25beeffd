/*
 * generator/crdrules.c: CEL rules of the Karpenter v1 (and the v1alpha1
 * NodeOverlay) and Kueue v1beta2 CRDs,
 * enforced locally (see check.h). Rules are taken from the CRDs in
 * tests/fixtures/crds; each function names the CRD it follows.
 */
#include "generator/crdrules.h"
#include "util/json.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define ERR(...) (diags_add(d, DIAG_ERROR, where, 0, 0, NULL, __VA_ARGS__), n++)

static int is_one_of(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* karpenter.k8s.aws/ keys a NodePool may use (nodepools CRD, v1.14.1) */
static const char *const aws_keys[] = {
	"karpenter.k8s.aws/capacity-reservation-id",
	"karpenter.k8s.aws/capacity-reservation-interruptible",
	"karpenter.k8s.aws/capacity-reservation-type",
	"karpenter.k8s.aws/ec2nodeclass",
	"karpenter.k8s.aws/instance-accelerator-count",
	"karpenter.k8s.aws/instance-accelerator-manufacturer",
	"karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-capability-flex",
	"karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
	"karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported",
	"karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation",
	"karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-manufacturer",
	"karpenter.k8s.aws/instance-gpu-memory",
	"karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-local-nvme",
	"karpenter.k8s.aws/instance-memory",
	"karpenter.k8s.aws/instance-network-bandwidth",
	"karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-tenancy",
	"karpenter.k8s.aws/placement-group-id",
	"karpenter.k8s.aws/placement-group-partition",
	NULL
};

/* the domain of a label key: the part before '/', if any */
static int domain_ends_with(const char *key, const char *suffix)
{
	const char *slash = strchr(key, '/');
	size_t dl, sl = strlen(suffix);

	/* as the CRD's find("^([^/]+)"): without '/', the key is the domain */
	dl = slash ? (size_t)(slash - key) : strlen(key);
	return dl >= sl && !strncmp(key + dl - sl, suffix, sl);
}

/* nodepools CRD: restricted label domains (requirements and labels) */
static size_t check_label_key(const char *key, const char *path,
			      const char *where, struct diags *d)
{
	size_t n = 0;

	if (!strcmp(key, "karpenter.sh/nodepool"))
		ERR("%s: label 'karpenter.sh/nodepool' is set by Karpenter and "
		    "may not be used here", path);
	else if (domain_ends_with(key, "karpenter.sh") &&
		 strcmp(key, "karpenter.sh/capacity-type"))
		ERR("%s: label domain 'karpenter.sh' is restricted (only "
		    "karpenter.sh/capacity-type is allowed): '%s'", path, key);
	if (!strcmp(key, "kubernetes.io/hostname"))
		ERR("%s: label 'kubernetes.io/hostname' is restricted", path);
	if (domain_ends_with(key, "karpenter.k8s.aws") &&
	    !is_one_of(key, aws_keys))
		ERR("%s: '%s' is not a well-known karpenter.k8s.aws label",
		    path, key);
	return n;
}

static int non_negative_int(const char *s)
{
	/* CEL's int() fails past a signed 64-bit value */
	if (!s || !*s)
		return 0;
	{
		size_t n = strlen(s);
		while (n > 1 && *s == '0') {
			s++;
			n--;
		}
		if (n > 19 || (n == 19 && strcmp(s, "9223372036854775807") > 0))
			return 0;
	}
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static size_t check_nodepool(const cJSON *o, const char *where,
			     struct diags *d)
{
	static const char *const ops[] = { "In", "NotIn", "Exists",
					   "DoesNotExist", "Gt", "Lt", "Gte",
					   "Lte", NULL };
	const cJSON *spec = json_get(o, "spec"), *tspec, *r, *b, *l, *labels;
	size_t n = 0, i = 0;

	tspec = json_get(json_get(spec, "template"), "spec");
	{
		const cJSON *ref = json_get(tspec, "nodeClassRef");
		const char *g = json_str(ref, "group"), *k = json_str(ref, "kind"),
			   *nm = json_str(ref, "name");
		if (!g || !*g || !k || !*k || !nm || !*nm)
			ERR("spec.template.spec.nodeClassRef needs non-empty "
			    "group, kind and name");
	}
	cJSON_ArrayForEach(r, json_get(tspec, "requirements"))
	{
		const char *key = json_str(r, "key"), *op = json_str(r, "operator");
		const cJSON *vals = json_get(r, "values");
		int nv = cJSON_GetArraySize(vals);
		char path[96];

		snprintf(path, sizeof(path),
			 "spec.template.spec.requirements[%zu]", i++);
		if (!key || !op) {
			ERR("%s: needs key and operator", path);
			continue;
		}
		n += check_label_key(key, path, where, d);
		if (!is_one_of(op, ops))
			ERR("%s: unknown operator '%s'", path, op);
		else if (!strcmp(op, "In") && nv == 0)
			ERR("%s: operator In needs at least one value", path);
		else if ((!strcmp(op, "Gt") || !strcmp(op, "Lt") ||
			  !strcmp(op, "Gte") || !strcmp(op, "Lte")) &&
			 (nv != 1 || !cJSON_IsString(vals->child) ||
			  !non_negative_int(vals->child->valuestring)))
			ERR("%s: operator %s needs exactly one non-negative "
			    "integer value", path, op);
		if (cJSON_IsNumber(json_get(r, "minValues")) && !strcmp(op, "In") &&
		    nv < json_get(r, "minValues")->valueint)
			ERR("%s: minValues %d is more than the %d values given",
			    path, json_get(r, "minValues")->valueint, nv);
	}
	labels = json_get(json_get(json_get(spec, "template"), "metadata"), "labels");
	if (labels && !cJSON_IsObject(labels)) {
		ERR("spec.template.metadata.labels must be a map");
		labels = NULL;
	}
	cJSON_ArrayForEach(l, labels)
	{
		n += check_label_key(l->string, "spec.template.metadata.labels",
				     where, d);
	}
	i = 0;
	cJSON_ArrayForEach(b, json_get(json_get(spec, "disruption"), "budgets"))
	{
		if ((json_get(b, "schedule") != NULL) != (json_get(b, "duration") != NULL))
			ERR("spec.disruption.budgets[%zu]: schedule and duration "
			    "must be set together", i);
		i++;
	}
	if (json_get(spec, "replicas") && json_get(spec, "weight"))
		ERR("spec: replicas (static capacity) and weight exclude each other");
	return n;
}

static size_t check_term_list(const cJSON *list, const char *field,
			      const char *const *allowed, const char *where,
			      struct diags *d)
{
	const cJSON *t;
	size_t n = 0, i = 0;

	if (cJSON_GetArraySize(list) == 0)
		ERR("spec.%s must have at least one term", field);
	cJSON_ArrayForEach(t, list)
	{
		int has_id = json_get(t, "id") != NULL, any = 0;
		for (const char *const *a = allowed; *a; a++)
			any |= json_get(t, *a) != NULL;
		if (!any)
			ERR("spec.%s[%zu]: needs one of its selectors (id, tags%s)",
			    field, i, allowed[2] ? ", name" : "");
		else if (has_id && cJSON_GetArraySize(t) > 1)
			ERR("spec.%s[%zu]: 'id' cannot be combined with other "
			    "fields", field, i);
		else if (json_get(t, "name") && (json_get(t, "tags") || has_id))
			ERR("spec.%s[%zu]: 'name' cannot be combined with other "
			    "fields", field, i);
		i++;
	}
	return n;
}

static size_t check_ec2nodeclass(const cJSON *o, const char *where,
				 struct diags *d)
{
	static const char *const families[] = { "al2", "al2023", "bottlerocket",
						"windows2019", "windows2022",
						"windows2025", NULL };
	static const char *const fam_names[] = { "AL2", "AL2023", "Bottlerocket",
						 "Windows2019", "Windows2022",
						 "Windows2025", NULL };
	static const char *const subnet_sel[] = { "id", "tags", NULL };
	static const char *const sg_sel[] = { "id", "tags", "name", NULL };
	const cJSON *spec = json_get(o, "spec"), *t, *bdm, *tag, *tags;
	const char *alias_family = NULL;
	size_t n = 0, i = 0;
	int aliases = 0, roots = 0;
	char famb[32];

	if ((json_get(spec, "role") != NULL) == (json_get(spec, "instanceProfile") != NULL))
		ERR("spec: exactly one of role and instanceProfile must be set");
	if (cJSON_GetArraySize(json_get(spec, "amiSelectorTerms")) == 0)
		ERR("spec.amiSelectorTerms must have at least one term");
	cJSON_ArrayForEach(t, json_get(spec, "amiSelectorTerms"))
	{
		const char *alias = json_str(t, "alias");
		if (alias) {
			const char *at = strchr(alias, '@');
			size_t fl = at ? (size_t)(at - alias) : 0;
			aliases++;
			if (!at || !at[1] || fl == 0 || fl >= sizeof(famb)) {
				ERR("spec.amiSelectorTerms[%zu].alias '%s' must be "
				    "family@version", i, alias);
			} else {
				memcpy(famb, alias, fl);
				famb[fl] = '\0';
				if (!is_one_of(famb, families))
					ERR("spec.amiSelectorTerms[%zu].alias: unknown "
					    "family '%s'", i, famb);
				else if (!strncmp(famb, "windows", 7) &&
					 strcmp(at + 1, "latest"))
					ERR("spec.amiSelectorTerms[%zu].alias: Windows "
					    "aliases take only @latest", i);
				else
					alias_family = famb;
			}
			if (json_get(t, "id") || json_get(t, "tags") || json_get(t, "name") ||
			    json_get(t, "owner"))
				ERR("spec.amiSelectorTerms[%zu]: 'alias' cannot be "
				    "combined with id, tags, name or owner", i);
			if (!alias_family) {
				/* the CRD reads the family even from a bad
				 * alias: find('^[^@]+') */
				fl = at ? fl : strlen(alias);
				if (fl && fl < sizeof(famb)) {
					memcpy(famb, alias, fl);
					famb[fl] = '\0';
					alias_family = famb;
				}
			}
		} else if (json_get(t, "id") && (json_get(t, "tags") || json_get(t, "name") ||
					    json_get(t, "owner"))) {
			ERR("spec.amiSelectorTerms[%zu]: 'id' cannot be combined "
			    "with tags, name or owner", i);
		} else if (!json_get(t, "id") && !json_get(t, "tags") && !json_get(t, "name") &&
			   !json_get(t, "ssmParameter")) {
			ERR("spec.amiSelectorTerms[%zu]: needs alias, id, tags, "
			    "name or ssmParameter", i);
		}
		i++;
	}
	if (aliases && cJSON_GetArraySize(json_get(spec, "amiSelectorTerms")) != 1)
		ERR("spec.amiSelectorTerms: an alias term must be the only term");
	if (!aliases && !json_str(spec, "amiFamily"))
		ERR("spec.amiFamily is required when no alias selects the AMI");
	if (alias_family && json_str(spec, "amiFamily") &&
	    strcmp(json_str(spec, "amiFamily"), "Custom")) {
		for (int f = 0; families[f]; f++)
			if (!strcmp(families[f], alias_family) &&
			    strcmp(fam_names[f], json_str(spec, "amiFamily")))
				ERR("spec.amiFamily '%s' does not match the alias "
				    "family '%s' (use %s or Custom)",
				    json_str(spec, "amiFamily"), alias_family,
				    fam_names[f]);
	}
	n += check_term_list(json_get(spec, "subnetSelectorTerms"),
			     "subnetSelectorTerms", subnet_sel, where, d);
	n += check_term_list(json_get(spec, "securityGroupSelectorTerms"),
			     "securityGroupSelectorTerms", sg_sel, where, d);
	i = 0;
	cJSON_ArrayForEach(bdm, json_get(spec, "blockDeviceMappings"))
	{
		const cJSON *e = json_get(bdm, "ebs");
		if (cJSON_IsTrue(json_get(bdm, "rootVolume")))
			roots++;
		if (e && !json_get(e, "snapshotID") && !json_get(e, "volumeSize"))
			ERR("spec.blockDeviceMappings[%zu].ebs needs volumeSize "
			    "or snapshotID", i);
		i++;
	}
	if (roots > 1)
		ERR("spec.blockDeviceMappings: at most one rootVolume");
	tags = json_get(spec, "tags");
	if (tags && !cJSON_IsObject(tags)) {
		ERR("spec.tags must be a map");
		tags = NULL;
	}
	cJSON_ArrayForEach(tag, tags)
	{
		const char *k = tag->string;
		if (!*k || !strcmp(k, "eks:eks-cluster-name") ||
		    !strncmp(k, "kubernetes.io/cluster", 21) ||
		    !strcmp(k, "karpenter.sh/nodepool") ||
		    !strcmp(k, "karpenter.sh/nodeclaim") ||
		    !strcmp(k, "karpenter.k8s.aws/ec2nodeclass"))
			ERR("spec.tags: '%s' is a restricted tag key", k);
	}
	return n;
}

static size_t check_tolerations(const cJSON *list, const char *path,
				const char *where, struct diags *d)
{
	static const char *const effects[] = { "NoSchedule", "PreferNoSchedule",
					       "NoExecute", NULL };
	const cJSON *t;
	size_t n = 0, i = 0;

	cJSON_ArrayForEach(t, list)
	{
		const char *op = json_str(t, "operator"), *eff = json_str(t, "effect");
		if (op && strcmp(op, "Equal") && strcmp(op, "Exists"))
			ERR("%s[%zu]: operator must be Equal or Exists", path, i);
		if (eff && !is_one_of(eff, effects))
			ERR("%s[%zu]: effect must be NoSchedule, "
			    "PreferNoSchedule or NoExecute", path, i);
		if (!json_get(t, "key") && (!op || strcmp(op, "Exists")))
			ERR("%s[%zu]: a toleration without key needs operator "
			    "Exists", path, i);
		if (op && !strcmp(op, "Exists") && json_get(t, "value"))
			ERR("%s[%zu]: operator Exists takes no value", path, i);
		if (json_get(t, "tolerationSeconds") &&
		    (!eff || strcmp(eff, "NoExecute")))
			ERR("%s[%zu]: tolerationSeconds needs effect NoExecute",
			    path, i);
		i++;
	}
	return n;
}

static size_t check_clusterqueue(const cJSON *o, const char *where,
				 struct diags *d)
{
	const cJSON *g, *f;
	size_t n = 0, gi = 0;

	cJSON_ArrayForEach(g, json_get(json_get(o, "spec"), "resourceGroups"))
	{
		const cJSON *cov = json_get(g, "coveredResources");
		cJSON_ArrayForEach(f, json_get(g, "flavors"))
		{
			const cJSON *res = json_get(f, "resources"), *a, *b;
			if (cJSON_GetArraySize(res) != cJSON_GetArraySize(cov)) {
				ERR("spec.resourceGroups[%zu]: flavor '%s' lists %d "
				    "resources but coveredResources has %d",
				    gi, json_str(f, "name") ? json_str(f, "name") : "?",
				    cJSON_GetArraySize(res), cJSON_GetArraySize(cov));
				continue;
			}
			for (a = res ? res->child : NULL, b = cov ? cov->child : NULL;
			     a && b; a = a->next, b = b->next)
				if (!cJSON_IsString(b) || !json_str(a, "name") ||
				    strcmp(json_str(a, "name"), b->valuestring))
					ERR("spec.resourceGroups[%zu]: flavor '%s' must "
					    "list the covered resources in the same "
					    "order",
					    gi, json_str(f, "name") ? json_str(f, "name") : "?");
		}
		gi++;
	}
	return n;
}

/* karpenter.k8s.aws/ keys a NodeOverlay requirement may use (nodeoverlays
 * CRD, karpenter.sh/v1alpha1, v1.14.1): a shorter list than a NodePool's */
static const char *const overlay_aws_keys[] = {
	"karpenter.k8s.aws/ec2nodeclass",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported",
	"karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation",
	"karpenter.k8s.aws/instance-local-nvme",
	"karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
	"karpenter.k8s.aws/instance-memory",
	"karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-network-bandwidth",
	"karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer",
	"karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-memory",
	"karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer",
	"karpenter.k8s.aws/instance-accelerator-count",
	"karpenter.k8s.aws/instance-capability-flex",
	NULL
};

/* nodeoverlays CRD (karpenter.sh/v1alpha1): the x-kubernetes-validations
 * on spec, spec.requirements[*].key and spec.capacity */
static size_t check_nodeoverlay(const cJSON *o, const char *where,
				struct diags *d)
{
	static const char *const ops[] = { "In", "NotIn", "Exists",
					   "DoesNotExist", "Gt", "Lt", "Gte",
					   "Lte", NULL };
	static const char *const std_res[] = { "cpu", "memory",
					       "ephemeral-storage", "pods",
					       NULL };
	const cJSON *spec = json_get(o, "spec"), *r, *c;
	size_t n = 0, i = 0;

	if (!cJSON_IsArray(json_get(spec, "requirements")))
		ERR("spec.requirements is required");
	cJSON_ArrayForEach(r, json_get(spec, "requirements"))
	{
		const char *key = json_str(r, "key"), *op = json_str(r, "operator");
		const cJSON *vals = json_get(r, "values");
		int nv = cJSON_GetArraySize(vals);
		char path[64];

		snprintf(path, sizeof(path), "spec.requirements[%zu]", i++);
		if (!key || !op) {
			ERR("%s: needs key and operator", path);
			continue;
		}
		if (domain_ends_with(key, "karpenter.sh") &&
		    strcmp(key, "karpenter.sh/capacity-type") &&
		    strcmp(key, "karpenter.sh/nodepool"))
			ERR("%s: label domain 'karpenter.sh' is restricted "
			    "(karpenter.sh/capacity-type and "
			    "karpenter.sh/nodepool are allowed): '%s'",
			    path, key);
		if (!strcmp(key, "kubernetes.io/hostname"))
			ERR("%s: label 'kubernetes.io/hostname' is restricted",
			    path);
		if (domain_ends_with(key, "karpenter.k8s.aws") &&
		    !is_one_of(key, overlay_aws_keys))
			ERR("%s: label domain 'karpenter.k8s.aws' is restricted: "
			    "'%s'", path, key);
		if (!is_one_of(op, ops))
			ERR("%s: unknown operator '%s'", path, op);
		else if ((!strcmp(op, "In") || !strcmp(op, "NotIn")) && nv == 0)
			ERR("%s: operator %s needs at least one value", path, op);
		else if ((!strcmp(op, "Gt") || !strcmp(op, "Lt") ||
			  !strcmp(op, "Gte") || !strcmp(op, "Lte")) &&
			 (nv != 1 || !cJSON_IsString(vals->child) ||
			  !non_negative_int(vals->child->valuestring)))
			ERR("%s: operator %s needs exactly one non-negative "
			    "integer value", path, op);
	}
	cJSON_ArrayForEach(c, json_get(spec, "capacity"))
	{
		if (is_one_of(c->string, std_res))
			ERR("spec.capacity: '%s' is restricted (a NodeOverlay "
			    "adds extended resources only)", c->string);
	}
	if (json_get(spec, "price") && json_get(spec, "priceAdjustment"))
		ERR("spec: cannot set both 'price' and 'priceAdjustment'");
	return n;
}

size_t check_object(const cJSON *obj, const char *where, struct diags *d)
{
	const char *av = json_str(obj, "apiVersion"), *kind = json_str(obj, "kind");

	if (!av || !kind)
		return 0;
	if (!strcmp(av, "karpenter.sh/v1") && !strcmp(kind, "NodePool"))
		return check_nodepool(obj, where, d);
	if (!strcmp(av, "karpenter.sh/v1alpha1") && !strcmp(kind, "NodeOverlay"))
		return check_nodeoverlay(obj, where, d);
	if (!strcmp(av, "karpenter.k8s.aws/v1") && !strcmp(kind, "EC2NodeClass"))
		return check_ec2nodeclass(obj, where, d);
	if (!strncmp(av, "kueue.x-k8s.io/", 15) && !strcmp(kind, "ResourceFlavor"))
		return check_tolerations(json_get(json_get(obj, "spec"), "tolerations"),
					 "spec.tolerations", where, d);
	if (!strncmp(av, "kueue.x-k8s.io/", 15) && !strcmp(kind, "ClusterQueue"))
		return check_clusterqueue(obj, where, d);
	return 0;
}
