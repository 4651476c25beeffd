/*
 * generator/targets.c: controller release targets and the feature table
 * (see targets.h). Sources are written repo@tag:path and repo#PR, "core" =
 * kubernetes-sigs/karpenter, "aws" = aws/karpenter-provider-aws, "kueue" =
 * kubernetes-sigs/kueue; docs/controller-versions.md has the whole table
 * and how it was derived, and tests/fixtures/crds/versions/ the real CRDs
 * of the releases the tests render for.
 */
#include "generator/targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/intent.h"
#include "generator/render.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* clang-format off */
const struct targets_feature targets_features[] = {
	{ "node-repair", TARGETS_KARPENTER, { 1, 1, 0 },
	  "node repair (feature gate NodeRepair)",
	  "core@v1.1.0:pkg/operator/options/options.go (FEATURE_GATES NodeRepair); core#1793" },
	{ "capacity-reservations", TARGETS_KARPENTER, { 1, 3, 0 },
	  "reserved capacity (EC2NodeClass capacityReservationSelectorTerms, capacity type 'reserved')",
	  "aws@v1.3.0:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; core@v1.3.0:pkg/apis/v1/labels.go; core#1911, aws#7726" },
	{ "reserved-capacity-on", TARGETS_KARPENTER, { 1, 6, 0 },
	  "the ReservedCapacity feature gate on by default (beta)",
	  "core#2365; aws@v1.14.1:website/content/en/docs/reference/settings.md (gate table)" },
	{ "volume-initialization-rate", TARGETS_KARPENTER, { 1, 5, 0 },
	  "EBS volume initialization rate (blockDeviceMappings[].ebs.volumeInitializationRate)",
	  "aws@v1.5.0:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; aws#8048" },
	{ "capacity-blocks", TARGETS_KARPENTER, { 1, 6, 0 },
	  "EC2 Capacity Blocks for ML (reservationType capacity-block)",
	  "aws@v1.6.0:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (status.capacityReservations[].reservationType); aws#8011" },
	{ "nodeoverlay", TARGETS_KARPENTER, { 1, 7, 0 },
	  "NodeOverlay (karpenter.sh/v1alpha1)",
	  "aws@v1.7.0:pkg/apis/crds/karpenter.sh_nodeoverlays.yaml; core#2296, core#2306" },
	{ "static-capacity", TARGETS_KARPENTER, { 1, 8, 0 },
	  "static capacity (NodePool spec.replicas)",
	  "aws@v1.8.0:pkg/apis/crds/karpenter.sh_nodepools.yaml; core#2405" },
	{ "gte-lte", TARGETS_KARPENTER, { 1, 9, 0 },
	  "requirement operators Gte/Lte",
	  "aws@v1.9.0:pkg/apis/crds/karpenter.sh_nodepools.yaml (operator enum); core#2674" },
	{ "network-interfaces", TARGETS_KARPENTER, { 1, 11, 0 },
	  "EC2NodeClass networkInterfaces (efa-only interfaces)",
	  "aws@v1.11.0:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; aws#9027" },
	{ "placement-group", TARGETS_KARPENTER, { 1, 11, 0 },
	  "EC2NodeClass placementGroupSelector",
	  "aws@v1.11.0:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml; aws#9030" },
	{ "consolidation-balanced", TARGETS_KARPENTER, { 1, 14, 0 },
	  "consolidationPolicy Balanced",
	  "aws@v1.14.0:pkg/apis/crds/karpenter.sh_nodepools.yaml; core#2962" },
	{ "recovery-timeout", TARGETS_KUEUE, { 0, 11, 0 },
	  "waitForPodsReady.recoveryTimeout",
	  "kueue@v0.11.0:apis/config/v1beta1/configuration_types.go; kueue#4302" },
	{ "covered-resources-64", TARGETS_KUEUE, { 0, 14, 0 },
	  "more than 16 resources or flavors in a ClusterQueue resource group",
	  "kueue@v0.13.10 vs @v0.14.0:config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml (maxItems 16 -> 64)" },
	{ "kueue-v1beta2", TARGETS_KUEUE, { 0, 15, 0 },
	  "the kueue.x-k8s.io/v1beta2 API",
	  "kueue@v0.15.0:config/components/crd/bases/ (spec.versions); kueue CHANGELOG/CHANGELOG-0.15.md (#7304)" },
	{ "kueue-config-v1beta2", TARGETS_KUEUE, { 0, 15, 0 },
	  "the config.kueue.x-k8s.io/v1beta2 Configuration",
	  "kueue@v0.15.0:apis/config/v1beta2/; kueue CHANGELOG/CHANGELOG-0.15.md (#7375)" },
	{ NULL, TARGETS_KARPENTER, { 0, 0, 0 }, NULL, NULL },
};

/* integrations.frameworks of the rendered Configuration and the first
 * Kueue release that has each (kueue@TAG:pkg/controller/jobs/; the
 * CHANGELOGs of 0.3, 0.4, 0.5, 0.6, 0.9, 0.11, 0.14, 0.17) */
static const struct {
	const char *name;
	struct targets_ver first;
} frameworks[] = {
	{ "batch/job", { 0, 1, 0 } },
	{ "kubeflow.org/mpijob", { 0, 3, 0 } },
	{ "ray.io/rayjob", { 0, 4, 0 } },
	{ "jobset.x-k8s.io/jobset", { 0, 4, 0 } },
	{ "kubeflow.org/pytorchjob", { 0, 5, 0 } },
	{ "pod", { 0, 5, 0 } },
	{ "ray.io/raycluster", { 0, 6, 0 } },
	{ "deployment", { 0, 9, 0 } },
	{ "statefulset", { 0, 9, 0 } },
	{ "workload.codeflare.dev/appwrapper", { 0, 11, 0 } },
	{ "leaderworkerset.x-k8s.io/leaderworkerset", { 0, 11, 0 } },
	{ "trainer.kubeflow.org/trainjob", { 0, 14, 0 } },
	{ "ray.io/rayservice", { 0, 17, 0 } },
};

/* Karpenter chart feature gates (settings.featureGates.<key>) and the
 * first release whose chart reads them: aws@TAG:charts/karpenter/values.yaml */
static const struct {
	const char *key;
	struct targets_ver first;
} gates[] = {
	{ "spotToSpotConsolidation", { 0, 34, 0 } },
	{ "nodeRepair", { 1, 1, 0 } },
	{ "reservedCapacity", { 1, 3, 0 } },
	{ "nodeOverlay", { 1, 7, 0 } },
	{ "staticCapacity", { 1, 8, 0 } },
};
/* clang-format on */

static const struct targets_ver karpenter_oldest = { 1, 0, 0 };
static const struct targets_ver karpenter_newest = TARGETS_KARPENTER_NEWEST;
static const struct targets_ver kueue_oldest = { 0, 10, 0 };
static const struct targets_ver kueue_newest = TARGETS_KUEUE_NEWEST;

void targets_init(struct targets *t)
{
	static const struct targets_ver k = TARGETS_KARPENTER_NEWEST;
	static const struct targets_ver q = TARGETS_KUEUE_NEWEST;

	memset(t, 0, sizeof(*t));
	t->karpenter = k;
	t->kueue = q;
}

static int parse_num(const char **s, int *out)
{
	long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v > 99999)
			return -1;
	}
	*out = (int)v;
	*s = p;
	return 0;
}

int targets_parse_ver(const char *s, struct targets_ver *out)
{
	struct targets_ver v = { 0, 0, 0 };

	if (!s)
		return -1;
	if (*s == 'v')
		s++;
	if (parse_num(&s, &v.major) < 0 || *s++ != '.' ||
	    parse_num(&s, &v.minor) < 0)
		return -1;
	if (*s == '.' && (s++, parse_num(&s, &v.patch) < 0))
		return -1;
	if (*s)
		return -1;
	*out = v;
	return 0;
}

int targets_ver_cmp(const struct targets_ver *a, const struct targets_ver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return 0;
}

void targets_ver_format(struct buf *out, const struct targets_ver *v)
{
	buf_addf(out, "v%d.%d.%d", v->major, v->minor, v->patch);
}

/* same minor or between the two (patches of the newest minor included) */
static int in_range(const struct targets_ver *v, const struct targets_ver *lo,
		    const struct targets_ver *hi)
{
	struct targets_ver top = { hi->major, hi->minor, 99999 };
	return targets_ver_cmp(v, lo) >= 0 && targets_ver_cmp(v, &top) <= 0;
}

static void read_one(const struct ynode *n, const char *key, const char *file,
		     const struct targets_ver *lo, const struct targets_ver *hi,
		     struct targets_ver *out, int *set, struct diags *d)
{
	struct targets_ver v;
	struct buf a = BUF_INIT, b = BUF_INIT;

	if (n->type != YNODE_SCALAR || yaml_scalar_kind(n) != YS_STRING ||
	    memchr(n->value, '\0', n->len) ||
	    targets_parse_ver(n->value, &v) < 0) {
		diags_add(d, DIAG_ERROR, file, n->line, n->col,
			  "write a release as vMAJOR.MINOR.PATCH, e.g. "
			  "karpenter: v1.6.2",
			  "'targets.%s' must be a release such as v1.6.2, not "
			  "'%.40s'",
			  key, n->type == YNODE_SCALAR ? n->value : "a collection");
		return;
	}
	if (!in_range(&v, lo, hi)) {
		targets_ver_format(&a, lo);
		targets_ver_format(&b, hi);
		diags_add(d, DIAG_ERROR, file, n->line, n->col,
			  "gpuform renders for the releases in "
			  "docs/controller-versions.md",
			  "'targets.%s' is %s; gpuform supports %s to %s",
			  key, n->value, buf_cstr(&a), buf_cstr(&b));
		buf_release(&a);
		buf_release(&b);
		return;
	}
	*out = v;
	*set = 1;
}

void targets_read(struct targets *t, const struct ynode *node,
		  const char *file, struct diags *d)
{
	targets_init(t);
	if (!node || (node->type == YNODE_SCALAR &&
		      yaml_scalar_kind(node) == YS_NULL))
		return;
	t->line = node->line;
	t->col = node->col;
	if (node->type != YNODE_MAP) {
		diags_add(d, DIAG_ERROR, file, node->line, node->col,
			  "write targets: {karpenter: v1.14.1, kueue: v0.19.2}",
			  "'targets' must be a mapping (key: value)");
		return;
	}
	for (size_t i = 0; i < YNODE_MAP_LEN(node); i++) {
		const struct ynode *k = YNODE_KEY(node, i), *v = YNODE_VAL(node, i);
		if (!strcmp(k->value, "karpenter")) {
			t->karpenter_line = v->line;
			t->karpenter_col = v->col;
			read_one(v, "karpenter", file, &karpenter_oldest,
				 &karpenter_newest, &t->karpenter,
				 &t->karpenter_set, d);
		} else if (!strcmp(k->value, "kueue")) {
			t->kueue_line = v->line;
			t->kueue_col = v->col;
			read_one(v, "kueue", file, &kueue_oldest, &kueue_newest,
				 &t->kueue, &t->kueue_set, d);
		} else {
			diags_add(d, DIAG_ERROR, file, k->line, k->col,
				  "the keys are karpenter and kueue",
				  "unknown key '%.60s' in 'targets'", k->value);
		}
	}
}

const struct targets_feature *targets_feature(const char *id)
{
	for (const struct targets_feature *f = targets_features; f->id; f++)
		if (!strcmp(f->id, id))
			return f;
	return NULL;
}

static const struct targets_ver *target_of(const struct targets *t,
					   enum targets_ctl c)
{
	return c == TARGETS_KARPENTER ? &t->karpenter : &t->kueue;
}

int targets_has(const struct targets *t, const char *id)
{
	const struct targets_feature *f = targets_feature(id);

	if (!f)
		BUG("unknown feature '%s'", id);
	return targets_ver_cmp(target_of(t, f->ctl), &f->first) >= 0;
}

/* ---- applying the targets to a render ---------------------------------- */

struct ctx {
	const struct intent *in;
	const struct targets *t;
	struct diags *d;
	size_t errors;
	const char *reported[32]; /* features refused so far (once each) */
	size_t nreported;
};

static const char *ctl_name(enum targets_ctl c)
{
	return c == TARGETS_KARPENTER ? "Karpenter" : "Kueue";
}

static void at_target(const struct ctx *c, enum targets_ctl ctl, int *line,
		      int *col)
{
	const struct targets *t = c->t;

	*line = ctl == TARGETS_KARPENTER ? t->karpenter_line : t->kueue_line;
	*col = ctl == TARGETS_KARPENTER ? t->karpenter_col : t->kueue_col;
}

/* refuse feature `id`, which `who` ("nodeoverlay/x") needs */
static void refuse(struct ctx *c, const char *id, const char *who,
		   const char *drop)
{
	const struct targets_feature *f = targets_feature(id);
	struct buf have = BUF_INIT, first = BUF_INIT, hint = BUF_INIT;
	int line, col;

	for (size_t i = 0; i < c->nreported; i++)
		if (!strcmp(c->reported[i], id))
			return;
	if (c->nreported < sizeof(c->reported) / sizeof(c->reported[0]))
		c->reported[c->nreported++] = id;
	at_target(c, f->ctl, &line, &col);
	targets_ver_format(&have, target_of(c->t, f->ctl));
	targets_ver_format(&first, &f->first);
	buf_addf(&hint, "target %s %s or later (upgrade the controller and "
			"its CRDs first)%s%s",
		 ctl_name(f->ctl), buf_cstr(&first), drop ? ", or " : "",
		 drop ? drop : "");
	diags_add(c->d, DIAG_ERROR, c->in->file, line, col, buf_cstr(&hint),
		  "%s %s has no %s: it came in %s %s, and %s needs it",
		  ctl_name(f->ctl), buf_cstr(&have), f->what, ctl_name(f->ctl),
		  buf_cstr(&first), who);
	c->errors++;
	buf_release(&have);
	buf_release(&first);
	buf_release(&hint);
}

static void need(struct ctx *c, const char *id, const cJSON *doc,
		 const char *drop)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(doc, "kind");
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
	struct buf who = BUF_INIT;

	if (targets_has(c->t, id))
		return;
	buf_addf(&who, "%s/%s",
		 cJSON_IsString(kind) ? kind->valuestring : "?",
		 cJSON_IsString(name) ? name->valuestring : "?");
	refuse(c, id, buf_cstr(&who), drop);
	buf_release(&who);
}

static const cJSON *path(const cJSON *j, const char *a, const char *b)
{
	j = cJSON_GetObjectItemCaseSensitive(j, a);
	return b ? cJSON_GetObjectItemCaseSensitive(j, b) : j;
}

static void check_nodeclass(struct ctx *c, const cJSON *doc)
{
	const cJSON *spec = path(doc, "spec", NULL), *bdm;

	if (path(spec, "placementGroupSelector", NULL))
		need(c, "placement-group", doc,
		     "drop workloads[].placement.placementGroup");
	if (path(spec, "networkInterfaces", NULL))
		need(c, "network-interfaces", doc,
		     "drop spec.network.efaOnlyInterfaces");
	if (path(spec, "capacityReservationSelectorTerms", NULL))
		need(c, "capacity-reservations", doc,
		     "drop workloads[].capacity");
	bdm = path(spec, "blockDeviceMappings", NULL);
	for (const cJSON *m = bdm ? bdm->child : NULL; m; m = m->next)
		if (path(m, "ebs", "volumeInitializationRate"))
			need(c, "volume-initialization-rate", doc,
			     "drop spec.imageCache.initializationRate");
}

static void check_nodepool(struct ctx *c, const cJSON *doc)
{
	const cJSON *spec = path(doc, "spec", NULL);
	const cJSON *tspec = path(path(spec, "template", NULL), "spec", NULL);
	const cJSON *reqs = path(tspec, "requirements", NULL);
	const cJSON *pol = path(spec, "disruption", "consolidationPolicy");

	if (path(spec, "replicas", NULL))
		need(c, "static-capacity", doc, NULL);
	if (cJSON_IsString(pol) && !strcmp(pol->valuestring, "Balanced"))
		need(c, "consolidation-balanced", doc, NULL);
	for (const cJSON *r = reqs ? reqs->child : NULL; r; r = r->next) {
		const cJSON *op = path(r, "operator", NULL);
		const cJSON *key = path(r, "key", NULL), *v;
		if (cJSON_IsString(op) && (!strcmp(op->valuestring, "Gte") ||
					   !strcmp(op->valuestring, "Lte")))
			need(c, "gte-lte", doc, NULL);
		if (!cJSON_IsString(key) ||
		    strcmp(key->valuestring, "karpenter.sh/capacity-type"))
			continue;
		cJSON_ArrayForEach(v, path(r, "values", NULL))
			if (cJSON_IsString(v) &&
			    !strcmp(v->valuestring, "reserved"))
				need(c, "capacity-reservations", doc,
				     "drop workloads[].capacity");
	}
}

static int too_many(const cJSON *list)
{
	return cJSON_IsArray(list) && cJSON_GetArraySize(list) > 16;
}

static void check_clusterqueue(struct ctx *c, const cJSON *doc)
{
	const cJSON *rg, *f;

	cJSON_ArrayForEach(rg, path(path(doc, "spec", NULL), "resourceGroups",
				    NULL)) {
		int many = too_many(path(rg, "coveredResources", NULL)) ||
			   too_many(path(rg, "flavors", NULL));
		cJSON_ArrayForEach(f, path(rg, "flavors", NULL))
			many |= too_many(path(f, "resources", NULL));
		if (many)
			need(c, "covered-resources-64", doc, NULL);
	}
}

static int is_kueue_kind(const char *api_version)
{
	return !strcmp(api_version, "kueue.x-k8s.io/v1beta2");
}

static void fit_doc(struct ctx *c, cJSON *doc)
{
	const cJSON *kind = path(doc, "kind", NULL);
	cJSON *av = cJSON_GetObjectItemCaseSensitive(doc, "apiVersion");
	const char *k = cJSON_IsString(kind) ? kind->valuestring : "";

	if (!strcmp(k, "NodeOverlay"))
		need(c, "nodeoverlay", doc,
		     "drop workloads[].sharing (time-slicing and MIG pools "
		     "need NodeOverlays)");
	else if (!strcmp(k, "EC2NodeClass"))
		check_nodeclass(c, doc);
	else if (!strcmp(k, "NodePool"))
		check_nodepool(c, doc);
	else if (!strcmp(k, "ClusterQueue"))
		check_clusterqueue(c, doc);
	/* the older way: Kueue before v0.15 serves v1beta1 only; the kinds
	 * gpuform renders (ClusterQueue without cohort or admission checks,
	 * LocalQueue, ResourceFlavor, WorkloadPriorityClass) have the same
	 * fields there (docs/controller-versions.md Q5) */
	if (cJSON_IsString(av) && is_kueue_kind(av->valuestring) &&
	    !targets_has(c->t, "kueue-v1beta2"))
		cJSON_SetValuestring(av, "kueue.x-k8s.io/v1beta1");
}

static void warn(struct ctx *c, enum targets_ctl ctl, const char *hint,
		 const char *msg)
{
	int line, col;

	at_target(c, ctl, &line, &col);
	diags_add_rule(c->d, DIAG_WARNING, INTENT_RULE_TARGET_FEATURE,
		       c->in->file, line, col, hint, "%s", msg);
}

static void fit_karpenter_values(struct ctx *c, cJSON *vals)
{
	cJSON *fg = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(vals, "settings"),
		"featureGates");
	const cJSON *g;

	if (!fg)
		return;
	/* a gate the target's chart does not read is left out: the values
	 * then say what the controller does */
	for (size_t i = 0; i < sizeof(gates) / sizeof(gates[0]); i++) {
		if (targets_ver_cmp(&c->t->karpenter, &gates[i].first) >= 0)
			continue;
		g = cJSON_GetObjectItemCaseSensitive(fg, gates[i].key);
		if (g && cJSON_IsTrue(g) && !strcmp(gates[i].key, "nodeRepair"))
			warn(c, TARGETS_KARPENTER,
			     "target Karpenter v1.1.0 or later for node repair",
			     "Karpenter before v1.1.0 has no node repair: GPU "
			     "nodes with failed hardware are not replaced; the "
			     "nodeRepair gate is left out of "
			     "addons/karpenter-values.yaml");
		cJSON_DeleteItemFromObjectCaseSensitive(fg, gates[i].key);
	}
	g = cJSON_GetObjectItemCaseSensitive(fg, "reservedCapacity");
	if (g && cJSON_IsTrue(g) && !targets_has(c->t, "reserved-capacity-on"))
		warn(c, TARGETS_KARPENTER,
		     "roll out addons/karpenter-values.yaml (the Helm release) "
		     "before the NodePools",
		     "the ReservedCapacity gate is alpha and off by default "
		     "before Karpenter v1.6.0: the reserved pools launch "
		     "nothing until the Helm values that turn it on are "
		     "rolled out");
}

/* the Kueue Configuration the older way: v1beta1 before v0.15 (where
 * waitForPodsReady does nothing without enable: true and blockAdmission
 * defaults to enable: kueue@v0.14:apis/config/v1beta1/defaults.go), no
 * recoveryTimeout before v0.11, only the integrations the release has */
static void fit_kueue_config(struct ctx *c, cJSON *conf)
{
	cJSON *w = cJSON_GetObjectItemCaseSensitive(conf, "waitForPodsReady");
	cJSON *fw = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(conf, "integrations"),
		"frameworks");

	if (!targets_has(c->t, "kueue-config-v1beta2")) {
		cJSON_ReplaceItemInObjectCaseSensitive(
			conf, "apiVersion",
			cJSON_CreateString("config.kueue.x-k8s.io/v1beta1"));
		if (w) {
			/* enable first, as the v1beta1 docs write it */
			cJSON *nw = cJSON_CreateObject();
			cJSON_AddTrueToObject(nw, "enable");
			while (w->child) {
				cJSON *it = cJSON_DetachItemViaPointer(w, w->child);
				cJSON_AddItemToObject(nw, it->string, it);
			}
			cJSON_ReplaceItemInObjectCaseSensitive(conf, "waitForPodsReady",
							       nw);
			w = nw;
		}
	}
	if (w && !targets_has(c->t, "recovery-timeout") &&
	    cJSON_GetObjectItemCaseSensitive(w, "recoveryTimeout")) {
		cJSON_DeleteItemFromObjectCaseSensitive(w, "recoveryTimeout");
		warn(c, TARGETS_KUEUE,
		     "target Kueue v0.11.0 or later for recoveryTimeout",
		     "Kueue before v0.11.0 has no waitForPodsReady."
		     "recoveryTimeout: a gang that loses a pod after it "
		     "started is not evicted and requeued; it is left out of "
		     "addons/kueue-values.yaml");
	}
	for (cJSON *it = fw ? fw->child : NULL, *next; it; it = next) {
		next = it->next;
		if (!cJSON_IsString(it))
			continue;
		for (size_t i = 0; i < sizeof(frameworks) / sizeof(frameworks[0]);
		     i++)
			if (!strcmp(frameworks[i].name, it->valuestring) &&
			    targets_ver_cmp(&c->t->kueue,
					    &frameworks[i].first) < 0) {
				cJSON_Delete(cJSON_DetachItemViaPointer(fw, it));
				break;
			}
	}
}

/* does the Configuration need a change for this target? (the default
 * output must stay byte-identical: it is not even re-emitted) */
static int kueue_config_changes(const struct targets *t)
{
	static const struct targets_ver last_fw = { 0, 17, 0 };
	return targets_ver_cmp(&t->kueue, &last_fw) < 0;
}

static int fit_kueue_values(struct ctx *c, cJSON *vals, struct err *err)
{
	cJSON *mc = cJSON_GetObjectItemCaseSensitive(vals, "managerConfig");
	cJSON *s = cJSON_GetObjectItemCaseSensitive(
		mc, "controllerManagerConfigYaml");
	struct ystream ys = YSTREAM_INIT;
	struct buf out = BUF_INIT;
	cJSON *conf = NULL;
	int ret = -1;

	if (!cJSON_IsString(s) || !kueue_config_changes(c->t))
		return 0;
	if (yaml_parse(&ys, s->valuestring, strlen(s->valuestring),
		       "kueue-values.yaml controllerManagerConfigYaml",
		       err) < 0)
		goto out;
	if (ys.nr != 1 || !ys.docs[0].root) {
		err_set(err, ERR_INTERNAL,
			"the rendered Kueue configuration is not one document");
		goto out;
	}
	if (yaml_to_json(&conf, ys.docs[0].root, "kueue configuration",
			 err) < 0)
		goto out;
	fit_kueue_config(c, conf);
	if (yaml_emit(&out, conf, err) < 0)
		goto out;
	cJSON_SetValuestring(s, buf_cstr(&out));
	ret = 0;
out:
	cJSON_Delete(conf);
	ystream_release(&ys);
	buf_release(&out);
	return ret;
}

/* a NodeOverlay that only adds hugepages-2Mi capacity (the EFA pools of
 * Bottlerocket, generator/render.c render_hugepages_overlays) */
static int hugepages_only(const cJSON *doc)
{
	const cJSON *kind = path(doc, "kind", NULL);
	const cJSON *cap = path(doc, "spec", "capacity");
	return cJSON_IsString(kind) && !strcmp(kind->valuestring, "NodeOverlay") &&
	       cJSON_IsObject(cap) && cJSON_GetArraySize(cap) == 1 &&
	       cJSON_GetObjectItemCaseSensitive(cap, "hugepages-2Mi") &&
	       !path(doc, "spec", "price") &&
	       !path(doc, "spec", "priceAdjustment");
}

/*
 * Before NodeOverlay (Karpenter v1.7.0) the hugepages overlays cannot be
 * rendered, but the pools work without them for pods that do not request
 * hugepages: leave them out with a warning rather than refuse the intent
 * (a workload whose contract requests them, hugepages2Mi, is refused in
 * targets_apply)
 * (the overlays of time-slicing and MIG pools are refused in fit_doc:
 * without them those pools schedule nothing).
 */
static void drop_hugepages_overlays(struct ctx *c, struct rendered *r)
{
	cJSON *doc, *next;
	int dropped = 0;

	if (targets_has(c->t, "nodeoverlay"))
		return;
	for (doc = r->docs ? r->docs->child : NULL; doc; doc = next) {
		next = doc->next;
		if (hugepages_only(doc)) {
			cJSON_Delete(cJSON_DetachItemViaPointer(r->docs, doc));
			dropped++;
		}
	}
	if (dropped)
		warn(c, TARGETS_KARPENTER,
		     "target Karpenter v1.7.0 or later, or keep hugepages-2Mi "
		     "out of the EFA pods (lint GPU025)",
		     "Karpenter before v1.7.0 has no NodeOverlay: the "
		     "hugepages-2Mi capacity of the EFA pools is left out, and a "
		     "pod that requests hugepages-2Mi gets no node");
}

int targets_apply(struct rendered *r, const struct intent *in,
		  struct diags *d, struct err *err)
{
	struct ctx c = { in, &in->targets, d, 0, { NULL }, 0 };
	cJSON *doc;

	/* capacity blocks look like any reservation in the objects */
	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		char who[200];
		if (!w->capacity || w->cap_type != CAP_BLOCK ||
		    targets_has(c.t, "capacity-blocks"))
			continue;
		snprintf(who, sizeof(who), "workload '%.100s'",
			 w->name ? w->name : "?");
		refuse(&c, "capacity-blocks", who,
		       "use capacity.type: reservation for an On-Demand "
		       "Capacity Reservation");
	}
	/* pods that request hugepages get a node only through the hugepages
	 * NodeOverlay (Karpenter's AWS instance types have no hugepages
	 * capacity: render_hugepages_overlays); before NodeOverlay such a
	 * workload cannot run at all */
	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		char who[200];
		if (!w->hugepages_mi || targets_has(c.t, "nodeoverlay"))
			continue;
		snprintf(who, sizeof(who), "workload '%.100s' (hugepages2Mi)",
			 w->name ? w->name : "?");
		refuse(&c, "nodeoverlay", who,
		       "drop hugepages2Mi (libfabric falls back to regular "
		       "pages)");
	}
	drop_hugepages_overlays(&c, r);
	cJSON_ArrayForEach(doc, r->docs)
		fit_doc(&c, doc);
	if (r->addons) {
		cJSON *kv = cJSON_GetObjectItemCaseSensitive(
			r->addons, "karpenter-values.yaml");
		if (kv)
			fit_karpenter_values(&c, kv);
		kv = cJSON_GetObjectItemCaseSensitive(r->addons,
						      "kueue-values.yaml");
		if (kv && fit_kueue_values(&c, kv, err) < 0)
			return -1;
	}
	if (c.errors)
		return err_set(err, ERR_INVALID,
			       "'%s' needs features its targets lack", in->file);
	return 0;
}

/* ---- what served CRD versions say --------------------------------------- */

/* docs/controller-versions.md "Detecting": served versions per release
 * (tests/fixtures/crds/versions/SOURCES.md) */
int targets_explain_unserved(const char *group, const char *kind,
			     const struct targets_served *s, struct buf *out)
{
	if (!strcmp(group, "kueue.x-k8s.io")) {
		if (!s->v1beta1 || s->v1beta2)
			return -1;
		buf_addf(out,
			 ": Kueue is installed, but older: its CRDs serve %s "
			 "in kueue.x-k8s.io/v1beta1 only, as Kueue v0.3 to "
			 "v0.14 do; set spec.targets.kueue to the release "
			 "that runs (gpuform supports v0.10.0 to v0.14.x "
			 "there and renders v1beta1 for it)",
			 kind);
		return 0;
	}
	if (strcmp(group, "karpenter.sh") && strcmp(group, "karpenter.k8s.aws"))
		return -1;
	if (!strcmp(kind, "NodeOverlay") && !s->v1 && !s->v1beta1 &&
	    s->group) {
		buf_adds(out, ": Karpenter is installed, but its CRDs have no "
			      "NodeOverlay, as before Karpenter v1.7.0; set "
			      "spec.targets.karpenter to the release that "
			      "runs (gpuform then refuses the time-sliced and "
			      "MIG pools that need NodeOverlays), or upgrade "
			      "Karpenter and its CRDs to v1.7.0 or later");
		return 0;
	}
	if (s->v1beta1 && !s->v1) {
		buf_addf(out,
			 ": Karpenter is installed, but older: its CRDs serve "
			 "%s in %s/v1beta1 only, as Karpenter v0.32 to v0.37 "
			 "do, which gpuform does not render for; upgrade "
			 "Karpenter to v1.0 or later (docs/"
			 "controller-versions.md)",
			 kind, group);
		return 0;
	}
	return -1;
}
