/*
 * tests/unit/test_impact.c: Check suite for reconcile/impact.c — the node
 * impact of a change, per field family, with the Karpenter rule named:
 * NodePool template (static drift), requirements (dynamic drift, widened vs
 * narrowed), disruption (may disrupt vs tightened), behavioural fields,
 * object metadata, removal; EC2NodeClass AMI/subnets/security groups
 * (dynamic), hashed fields, unhashed fields, attribution to pools.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/impact.h"
#include "reconcile/nodecount.h"
#include "tests/unit/suites.h"
#include "util/buf.h"

static const char *const NODEPOOL =
	"{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodePool\","
	"\"metadata\":{\"name\":\"train\",\"labels\":{\"a\":\"1\"}},"
	"\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"gpuform.io/pool\":\"train\"}},"
	"\"spec\":{\"nodeClassRef\":{\"group\":\"karpenter.k8s.aws\",\"kind\":\"EC2NodeClass\",\"name\":\"gpu\"},"
	"\"requirements\":["
	"{\"key\":\"karpenter.k8s.aws/instance-family\",\"operator\":\"In\",\"values\":[\"p4d\",\"p5\"]},"
	"{\"key\":\"karpenter.k8s.aws/instance-gpu-count\",\"operator\":\"Gt\",\"values\":[\"3\"]},"
	"{\"key\":\"karpenter.sh/capacity-type\",\"operator\":\"In\",\"values\":[\"on-demand\"]}],"
	"\"taints\":[{\"key\":\"nvidia.com/gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"}],"
	"\"expireAfter\":\"Never\"}},"
	"\"disruption\":{\"consolidationPolicy\":\"WhenEmpty\",\"consolidateAfter\":\"30m\","
	"\"budgets\":[{\"nodes\":\"0\",\"schedule\":\"0 6 * * sat\",\"duration\":\"164h\","
	"\"reasons\":[\"Underutilized\",\"Drifted\"]},{\"nodes\":\"10%\"}]},"
	"\"limits\":{\"nvidia.com/gpu\":\"128\"}}}";

static const char *const NODECLASS =
	"{\"apiVersion\":\"karpenter.k8s.aws/v1\",\"kind\":\"EC2NodeClass\","
	"\"metadata\":{\"name\":\"gpu\"},"
	"\"spec\":{\"amiSelectorTerms\":[{\"alias\":\"bottlerocket@v1.26.1\"}],"
	"\"role\":\"NodeRole\","
	"\"subnetSelectorTerms\":[{\"tags\":{\"karpenter.sh/discovery\":\"c\"}}],"
	"\"securityGroupSelectorTerms\":[{\"tags\":{\"karpenter.sh/discovery\":\"c\"}}],"
	"\"blockDeviceMappings\":[{\"deviceName\":\"/dev/xvda\",\"ebs\":{\"volumeSize\":\"4Gi\"}},"
	"{\"deviceName\":\"/dev/xvdb\",\"ebs\":{\"volumeSize\":\"200Gi\"}}],"
	"\"kubelet\":{\"maxPods\":110},"
	"\"userData\":\"[settings]\","
	"\"tags\":{\"team\":\"ml\"}}}";

/* a copy of `json` with the value at dotted `path` replaced by `value`
 * (JSON text), or removed when value is NULL; "[n]" indexes arrays */
#define J_REQS(np)                                                             \
	cJSON_GetObjectItemCaseSensitive(                                      \
		cJSON_GetObjectItemCaseSensitive(                              \
			cJSON_GetObjectItemCaseSensitive(                      \
				cJSON_GetObjectItemCaseSensitive(np, "spec"),  \
				"template"),                                   \
			"spec"),                                               \
		"requirements")

static cJSON *mod(const char *json, const char *path, const char *value)
{
	cJSON *root = cJSON_Parse(json), *o = root;
	char buf[256], *p = buf, *dot;

	ck_assert_ptr_nonnull(root);
	ck_assert_uint_lt(strlen(path), sizeof(buf));
	strcpy(buf, path);
	while ((dot = strchr(p, '.'))) {
		*dot = '\0';
		if (*p == '[')
			o = cJSON_GetArrayItem(o, atoi(p + 1));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, p);
		ck_assert_msg(o != NULL, "no '%s' in %s", p, path);
		p = dot + 1;
	}
	if (*p == '[') {
		if (value)
			cJSON_ReplaceItemInArray(o, atoi(p + 1), cJSON_Parse(value));
		else
			cJSON_DeleteItemFromArray(o, atoi(p + 1));
	} else {
		cJSON_DeleteItemFromObjectCaseSensitive(o, p);
		if (value)
			cJSON_AddItemToObject(o, p, cJSON_Parse(value));
	}
	return root;
}

/* classify old -> new; check class and that the rule text contains `rule` */
static const char *what = "";

static void expect(const cJSON *old, const cJSON *new, enum impact_class cls,
		   const char *rule)
{
	struct impact im = IMPACT_INIT;
	struct buf t = BUF_INIT;
	cJSON *pool = cJSON_Parse(NODEPOOL);
	const cJSON *pools[] = { pool };

	impact_classify(&im, old, new, pools, 1);
	impact_rules_text(&im, &t);
	ck_assert_msg(im.cls == cls, "%s: class '%s', expected '%s' (%s)", what,
		      impact_class_names[im.cls], impact_class_names[cls],
		      buf_cstr(&t));
	ck_assert_msg(strstr(buf_cstr(&t), rule), "rule '%s' lacks '%s'",
		      buf_cstr(&t), rule);
	buf_release(&t);
	impact_release(&im);
	cJSON_Delete(pool);
}

/* change the NodePool at path and expect cls + rule */
static void np(const char *path, const char *value, enum impact_class cls,
	       const char *rule)
{
	cJSON *a = cJSON_Parse(NODEPOOL), *b = mod(NODEPOOL, path, value);
	what = path;
	expect(a, b, cls, rule);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void nc(const char *path, const char *value, enum impact_class cls,
	       const char *rule)
{
	cJSON *a = cJSON_Parse(NODECLASS), *b = mod(NODECLASS, path, value);
	what = path;
	expect(a, b, cls, rule);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

START_TEST(test_template_labels_taints)
{
	np("spec.template.metadata.labels", "{\"gpuform.io/pool\":\"x\"}",
	   IMPACT_REPLACES,
	   "static drift: NodePool template hash (spec.template.metadata.labels)");
	np("spec.template.metadata.annotations", "{\"x\":\"y\"}", IMPACT_REPLACES,
	   "static drift: NodePool template hash (spec.template.metadata.annotations)");
	np("spec.template.spec.taints", "[]", IMPACT_REPLACES,
	   "static drift: NodePool template hash (spec.template.spec.taints)");
	np("spec.template.spec.startupTaints",
	   "[{\"key\":\"s\",\"effect\":\"NoSchedule\"}]", IMPACT_REPLACES,
	   "(spec.template.spec.startupTaints)");
	/* hashed as a set: reordering or an empty list vs none is no change */
	np("spec.template.metadata.annotations", "{}", IMPACT_NONE,
	   "no drift-relevant field changed");
}
END_TEST

START_TEST(test_template_lifetime_and_ref)
{
	np("spec.template.spec.expireAfter", "\"720h\"", IMPACT_REPLACES,
	   "static drift: NodePool template hash (spec.template.spec.expireAfter)");
	np("spec.template.spec.terminationGracePeriod", "\"1h\"", IMPACT_REPLACES,
	   "(spec.template.spec.terminationGracePeriod)");
	np("spec.template.spec.nodeClassRef.name", "\"gpu-efa\"", IMPACT_REPLACES,
	   "(spec.template.spec.nodeClassRef)");
}
END_TEST

START_TEST(test_requirements)
{
	/* widened: another family, a lower bound, a dropped requirement */
	np("spec.template.spec.requirements.[0]",
	   "{\"key\":\"karpenter.k8s.aws/instance-family\",\"operator\":\"In\","
	   "\"values\":[\"p4d\",\"p5\",\"p5e\"]}",
	   IMPACT_NONE, "dynamic drift: requirements only widened");
	np("spec.template.spec.requirements.[1]",
	   "{\"key\":\"karpenter.k8s.aws/instance-gpu-count\",\"operator\":\"Gt\","
	   "\"values\":[\"0\"]}",
	   IMPACT_NONE, "only widened");
	np("spec.template.spec.requirements.[2]", NULL, IMPACT_NONE,
	   "only widened");
	/* narrowed: nodes outside the new set drift */
	np("spec.template.spec.requirements.[0]",
	   "{\"key\":\"karpenter.k8s.aws/instance-family\",\"operator\":\"In\","
	   "\"values\":[\"p5\"]}",
	   IMPACT_REPLACES,
	   "dynamic drift: requirements (nodes whose labels no longer satisfy "
	   "karpenter.k8s.aws/instance-family are replaced)");
	np("spec.template.spec.requirements.[1]",
	   "{\"key\":\"karpenter.k8s.aws/instance-gpu-count\",\"operator\":\"Gt\","
	   "\"values\":[\"7\"]}",
	   IMPACT_REPLACES, "instance-gpu-count");
	np("spec.template.spec.requirements.[1]",
	   "{\"key\":\"topology.kubernetes.io/zone\",\"operator\":\"In\","
	   "\"values\":[\"us-east-1a\"]}",
	   IMPACT_REPLACES, "topology.kubernetes.io/zone");
}
END_TEST

START_TEST(test_labels_satisfy)
{
	cJSON *pool = cJSON_Parse(NODEPOOL);
	const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(pool, "spec"),
				    "template"), "spec"), "requirements");
	cJSON *ok = cJSON_Parse("{\"karpenter.k8s.aws/instance-family\":\"p5\","
				"\"karpenter.k8s.aws/instance-gpu-count\":\"8\","
				"\"karpenter.sh/capacity-type\":\"on-demand\"}");
	cJSON *bad = cJSON_Parse("{\"karpenter.k8s.aws/instance-family\":\"g5\","
				 "\"karpenter.k8s.aws/instance-gpu-count\":\"8\","
				 "\"karpenter.sh/capacity-type\":\"on-demand\"}");
	cJSON *few = cJSON_Parse("{\"karpenter.k8s.aws/instance-family\":\"p5\","
				 "\"karpenter.k8s.aws/instance-gpu-count\":\"2\","
				 "\"karpenter.sh/capacity-type\":\"on-demand\"}");

	ck_assert_int_eq(impact_labels_satisfy(r, ok), 1);
	ck_assert_int_eq(impact_labels_satisfy(r, bad), 0);
	ck_assert_int_eq(impact_labels_satisfy(r, few), 0);
	ck_assert_int_eq(impact_labels_satisfy(r, NULL), 0);
	cJSON_Delete(ok);
	cJSON_Delete(bad);
	cJSON_Delete(few);
	cJSON_Delete(pool);
}
END_TEST

START_TEST(test_disruption)
{
	np("spec.disruption.consolidationPolicy", "\"WhenEmptyOrUnderutilized\"",
	   IMPACT_MAY_DISRUPT,
	   "consolidation loosened: consolidationPolicy WhenEmpty -> "
	   "WhenEmptyOrUnderutilized");
	np("spec.disruption.consolidateAfter", "\"5m\"", IMPACT_MAY_DISRUPT,
	   "consolidation loosened: consolidateAfter 30m -> 5m");
	np("spec.disruption.consolidateAfter", "\"1h\"", IMPACT_NONE,
	   "consolidation tightened: consolidateAfter 30m -> 1h");
	np("spec.disruption.consolidateAfter", "\"Never\"", IMPACT_NONE,
	   "tightened");
	/* the blocking budget dropped: drift and consolidation any time */
	np("spec.disruption.budgets.[0]", NULL, IMPACT_MAY_DISRUPT,
	   "disruption budget loosened: nodes \"0\" at \"0 6 * * sat\" for 164h "
	   "for Underutilized,Drifted removed or raised");
	np("spec.disruption.budgets.[1]", "{\"nodes\":\"20%\"}",
	   IMPACT_MAY_DISRUPT, "nodes \"10%\" removed or raised");
	np("spec.disruption.budgets.[1]", "{\"nodes\":\"5%\"}", IMPACT_NONE,
	   "disruption budgets tightened");
	/* no budgets at all: Karpenter's default 10% replaces the blocking one */
	np("spec.disruption.budgets", NULL, IMPACT_MAY_DISRUPT, "(default 10%)");
	np("spec.disruption.budgets.[0].reasons", "[\"Underutilized\"]",
	   IMPACT_MAY_DISRUPT, "disruption budget loosened");
}
END_TEST

/* the interruption class the renderer wrote onto the pool: a change that
 * lets Karpenter do more than the class allows says so (the definition in
 * generator/interruption.h, the one the budgets were rendered from) */
static cJSON *classed(const char *cls, const char *json)
{
	cJSON *o = cJSON_Parse(json), *a;

	a = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(o,
								     "metadata"),
				    "annotations");
	cJSON_AddStringToObject(a, "gpuform.io/interruption", cls);
	cJSON_AddStringToObject(a, "gpuform.io/maintenance-window",
				"0 2 * * sat");
	cJSON_AddStringToObject(a, "gpuform.io/maintenance-window-duration",
				"4h");
	return o;
}

static void class_change(const char *cls, const char *path,
			 const char *value, enum impact_class want,
			 const char *rule, int has_rule)
{
	cJSON *a = classed(cls, NODEPOOL), *b = cJSON_Duplicate(a, 1);
	char *t = cJSON_PrintUnformatted(b);
	cJSON *c = mod(t, path, value);
	struct impact im = IMPACT_INIT;
	struct buf txt = BUF_INIT;

	impact_classify(&im, a, c, NULL, 0);
	for (size_t i = 0; i < im.nr; i++)
		buf_addf(&txt, "%s; ", im.rules[i].text);
	ck_assert_msg(im.cls == want, "%s %s: class %s (%s)", cls, path,
		      impact_class_names[im.cls], buf_cstr(&txt));
	ck_assert_msg(!strstr(buf_cstr(&txt), rule) == !has_rule,
		      "%s %s: '%s' %s in '%s'", cls, path, rule,
		      has_rule ? "missing" : "present", buf_cstr(&txt));
	buf_release(&txt);
	impact_release(&im);
	free(t);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

START_TEST(test_interruption_class)
{
	/* the rendered none pool conforms: a harmless change says nothing */
	class_change("none", "spec.limits", "{\"nvidia.com/gpu\":\"8\"}",
		     IMPACT_NONE, "beyond interruption", 0);
	/* the window budget dropped: drift outside the window */
	class_change("none", "spec.disruption.budgets.[0]", NULL,
		     IMPACT_MAY_DISRUPT,
		     "beyond interruption none: Drifted allowed outside the "
		     "maintenance window", 1);
	/* a budget over some other time does not hold the window */
	class_change("checkpointed", "spec.disruption.budgets.[0].schedule",
		     "\"0 0 * * sun\"", IMPACT_MAY_DISRUPT,
		     "beyond interruption checkpointed: Drifted allowed outside "
		     "the maintenance window", 1);
	/* Underutilized: WhenEmpty holds it; loosening the policy with the
	 * window budget still in place does not break the class */
	class_change("none", "spec.disruption.consolidationPolicy",
		     "\"WhenEmptyOrUnderutilized\"", IMPACT_MAY_DISRUPT,
		     "beyond interruption", 0);
	/* expiry: forceful, at any hour */
	class_change("none", "spec.template.spec.expireAfter", "\"720h\"",
		     IMPACT_REPLACES,
		     "beyond interruption none: expiry (expireAfter 720h) at "
		     "any hour", 1);
	class_change("checkpointed", "spec.template.spec.expireAfter", NULL,
		     IMPACT_REPLACES, "expireAfter 720h, the default", 1);
	/* none: a grace period lets drift evict do-not-disrupt pods */
	class_change("none", "spec.template.spec.terminationGracePeriod",
		     "\"1h\"", IMPACT_REPLACES,
		     "terminationGracePeriod lets drift evict", 1);
	class_change("checkpointed",
		     "spec.template.spec.terminationGracePeriod", "\"1h\"",
		     IMPACT_REPLACES, "beyond interruption", 0);
	/* tolerant allows anything */
	class_change("tolerant", "spec.disruption.budgets", NULL,
		     IMPACT_MAY_DISRUPT, "beyond interruption", 0);
	/* no class annotation: no class rule */
	np("spec.disruption.budgets.[0]", NULL, IMPACT_MAY_DISRUPT,
	   "disruption budget loosened");
}
END_TEST

START_TEST(test_behavioural)
{
	np("spec.limits", "{\"nvidia.com/gpu\":\"256\"}", IMPACT_NONE,
	   "behavioural field: spec.limits (not hashed)");
	np("spec.weight", "50", IMPACT_NONE,
	   "behavioural field: spec.weight (not hashed)");
	np("metadata.labels", "{\"a\":\"2\"}", IMPACT_NONE,
	   "NodePool metadata.labels: not part of any drift hash");
	np("metadata.annotations", "{\"karpenter.sh/nodepool-hash\":\"1\"}",
	   IMPACT_NONE, "NodePool metadata.annotations");
}
END_TEST

START_TEST(test_nodepool_add_remove)
{
	cJSON *a = cJSON_Parse(NODEPOOL);
	struct impact im = IMPACT_INIT;

	expect(NULL, a, IMPACT_NONE, "new NodePool: no nodes yet");
	expect(a, NULL, IMPACT_REPLACES,
	       "removal: deleting a NodePool deletes its NodeClaims");
	impact_classify(&im, a, NULL, NULL, 0);
	ck_assert_uint_eq(im.npools, 1);
	ck_assert_str_eq(im.pools[0], "train");
	impact_release(&im);
	cJSON_Delete(a);
}
END_TEST

START_TEST(test_nodeclass_dynamic)
{
	nc("spec.amiSelectorTerms", "[{\"alias\":\"bottlerocket@v1.27.0\"}]",
	   IMPACT_REPLACES,
	   "dynamic drift: AMI (bottlerocket@v1.26.1 -> bottlerocket@v1.27.0)");
	nc("spec.subnetSelectorTerms", "[{\"id\":\"subnet-1\"}]",
	   IMPACT_REPLACES, "dynamic drift: subnets");
	nc("spec.securityGroupSelectorTerms", "[{\"id\":\"sg-1\"}]",
	   IMPACT_REPLACES, "dynamic drift: security groups");
	/* no terms before: no node was launched as reserved */
	nc("spec.capacityReservationSelectorTerms", "[{\"id\":\"cr-1\"}]",
	   IMPACT_NONE, "not hashed: capacity reservations selected");
}
END_TEST

/* capacityReservationSelectorTerms: dynamic drift of reserved nodes only
 * (CapacityReservationDrift, aws/karpenter-provider-aws drift.go) */
START_TEST(test_nodeclass_reservations)
{
	const char *one = "[{\"id\":\"cr-0123456789abcdef0\"}]";
	const char *two = "[{\"id\":\"cr-0123456789abcdef0\"},"
			  "{\"tags\":{\"team\":\"ml\"}}]";
	cJSON *a = mod(NODECLASS, "spec.capacityReservationSelectorTerms", one);
	cJSON *b = mod(NODECLASS, "spec.capacityReservationSelectorTerms", two);
	cJSON *c = mod(NODECLASS, "spec.capacityReservationSelectorTerms",
		       "[{\"id\":\"cr-0fedcba9876543210\"}]");
	cJSON *none = cJSON_Parse(NODECLASS);

	what = "terms added";
	expect(a, b, IMPACT_NONE, "terms only added");
	what = "term removed";
	expect(b, a, IMPACT_REPLACES,
	       "dynamic drift: capacity reservations (reserved nodes in a "
	       "reservation no longer selected are replaced)");
	what = "term replaced";
	expect(a, c, IMPACT_REPLACES, "capacity reservations");
	what = "all terms removed";
	expect(a, none, IMPACT_REPLACES, "capacity reservations");
	what = "terms reordered";
	{
		cJSON *r = mod(NODECLASS, "spec.capacityReservationSelectorTerms",
			       "[{\"tags\":{\"team\":\"ml\"}},"
			       "{\"id\":\"cr-0123456789abcdef0\"}]");
		expect(b, r, IMPACT_NONE, "no drift-relevant field changed");
		cJSON_Delete(r);
	}
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	cJSON_Delete(none);
}
END_TEST

/* karpenter.sh/capacity-type: adding "reserved" widens (no node drifts);
 * dropping the fallback drifts the nodes launched on it */
START_TEST(test_capacity_type_reserved)
{
	np("spec.template.spec.requirements.[2]",
	   "{\"key\":\"karpenter.sh/capacity-type\",\"operator\":\"In\","
	   "\"values\":[\"on-demand\",\"reserved\"]}",
	   IMPACT_NONE, "only widened");
	np("spec.template.spec.requirements.[2]",
	   "{\"key\":\"karpenter.sh/capacity-type\",\"operator\":\"In\","
	   "\"values\":[\"reserved\"]}",
	   IMPACT_REPLACES, "karpenter.sh/capacity-type");
}
END_TEST

/* issue 12: the placement and image-cache fields gpuform renders.
 * aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go:
 * placementGroupSelector and blockDeviceMappings (with its
 * volumeInitializationRate) carry no hash:"ignore", so both are in the
 * static hash; a zone requirement is a NodePool requirement (dynamic) */
START_TEST(test_placement_fields)
{
	nc("spec.placementGroupSelector", "{\"name\":\"atlas-cpg\"}",
	   IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.placementGroupSelector)");
	nc("spec.blockDeviceMappings.[1].ebs.volumeInitializationRate", "300",
	   IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.blockDeviceMappings)");
	/* networkInterfaces: hashed too (and in the offering cache key,
	 * pkg/providers/instancetype/offering/base_resolver.go) */
	nc("spec.networkInterfaces",
	   "[{\"networkCardIndex\":0,\"deviceIndex\":0,"
	   "\"interfaceType\":\"interface\"}]",
	   IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.networkInterfaces)");
	nc("metadata.annotations",
	   "{\"gpuform.io/fast-snapshot-restore\":\"snap-0123456789abcdef0\"}",
	   IMPACT_NONE, "EC2NodeClass metadata.annotations");
	{
		/* widening a zone list, or dropping it, replaces nothing */
		static const char *const one =
			"{\"key\":\"topology.kubernetes.io/zone\","
			"\"operator\":\"In\",\"values\":[\"us-east-1a\"]}";
		cJSON *base = cJSON_Parse(NODEPOOL);
		cJSON *orig = cJSON_Parse(NODEPOOL);
		cJSON *a, *b;
		char *pa;

		cJSON_AddItemToArray(J_REQS(base), cJSON_Parse(one));
		pa = cJSON_PrintUnformatted(base);
		a = cJSON_Parse(pa);
		b = mod(pa, "spec.template.spec.requirements.[3]",
			"{\"key\":\"topology.kubernetes.io/zone\","
			"\"operator\":\"In\",\"values\":[\"us-east-1a\","
			"\"us-east-1b\"]}");
		/* pinning a pool to a zone replaces nodes outside it */
		what = "zone added";
		expect(orig, a, IMPACT_REPLACES,
		       "dynamic drift: requirements (nodes whose labels no "
		       "longer satisfy topology.kubernetes.io/zone are "
		       "replaced)");
		what = "zone widened";
		expect(a, b, IMPACT_NONE, "requirements only widened");
		cJSON_Delete(b);
		b = mod(pa, "spec.template.spec.requirements.[3]", NULL);
		what = "zone dropped";
		expect(a, b, IMPACT_NONE, "requirements only widened");
		cJSON_Delete(a);
		cJSON_Delete(b);
		cJSON_Delete(base);
		cJSON_Delete(orig);
		free(pa);
	}
}
END_TEST

START_TEST(test_nodeclass_static)
{
	nc("spec.blockDeviceMappings.[1].ebs.volumeSize", "\"300Gi\"",
	   IMPACT_REPLACES, "static drift: EC2NodeClass hash (spec.blockDeviceMappings)");
	nc("spec.userData", "\"[settings.kubernetes]\"", IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.userData)");
	nc("spec.tags", "{\"team\":\"research\"}", IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.tags)");
	nc("spec.role", "\"OtherRole\"", IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.role)");
	nc("spec.kubelet", "{\"maxPods\":50}", IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (spec.kubelet)");
	nc("spec.metadataOptions", "{\"httpTokens\":\"required\"}",
	   IMPACT_REPLACES, "(spec.metadataOptions)");
	/* not hashed, or hashed as the resolved value */
	nc("spec.ipPrefixCount", "2", IMPACT_NONE,
	   "not hashed: spec.ipPrefixCount");
	nc("spec.amiFamily", "\"Bottlerocket\"", IMPACT_NONE,
	   "not hashed: spec.amiFamily (the resolved family Bottlerocket is unchanged)");
	nc("spec.amiFamily", "\"Custom\"", IMPACT_REPLACES,
	   "static drift: EC2NodeClass hash (resolved AMI family Bottlerocket -> Custom)");
	nc("metadata.labels", "{\"x\":\"y\"}", IMPACT_NONE,
	   "EC2NodeClass metadata.labels");
	/* order of list items is not a change (hashed as sets) */
	nc("spec.blockDeviceMappings",
	   "[{\"deviceName\":\"/dev/xvdb\",\"ebs\":{\"volumeSize\":\"200Gi\"}},"
	   "{\"deviceName\":\"/dev/xvda\",\"ebs\":{\"volumeSize\":\"4Gi\"}}]",
	   IMPACT_NONE, "no drift-relevant field changed");
}
END_TEST

/* the change is attributed to every pool that references the class, and to
 * none when nothing does */
START_TEST(test_nodeclass_pools)
{
	cJSON *a = cJSON_Parse(NODECLASS);
	cJSON *b = mod(NODECLASS, "spec.amiSelectorTerms",
		       "[{\"alias\":\"bottlerocket@v1.27.0\"}]");
	cJSON *p1 = cJSON_Parse(NODEPOOL);
	cJSON *p2 = mod(NODEPOOL, "metadata.name", "\"serve\"");
	cJSON *p3 = mod(NODEPOOL, "metadata.name", "\"other\"");
	cJSON *other;
	const cJSON *pools[4];
	struct impact im = IMPACT_INIT;

	other = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(p3, "spec"), "template"),
		"spec"), "nodeClassRef"), "name");
	cJSON_SetValuestring(other, "gpu-efa");
	pools[0] = p2;
	pools[1] = p1;
	pools[2] = p3;
	pools[3] = p1; /* old and new side: duplicates are fine */
	impact_classify(&im, a, b, pools, 4);
	ck_assert_int_eq(im.cls, IMPACT_REPLACES);
	ck_assert_uint_eq(im.npools, 2);
	ck_assert_str_eq(im.pools[0], "serve");
	ck_assert_str_eq(im.pools[1], "train");
	impact_release(&im);

	impact_classify(&im, a, b, pools + 2, 1);
	ck_assert_int_eq(im.cls, IMPACT_NONE);
	ck_assert_uint_eq(im.npools, 0);
	impact_release(&im);

	impact_classify(&im, a, NULL, pools, 2);
	ck_assert_int_eq(im.cls, IMPACT_REPLACES);
	ck_assert_uint_eq(im.npools, 2);
	impact_release(&im);

	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(p1);
	cJSON_Delete(p2);
	cJSON_Delete(p3);
}
END_TEST

START_TEST(test_other_kinds)
{
	cJSON *a = cJSON_Parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\","
			       "\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"q\"},"
			       "\"spec\":{\"resourceGroups\":[{\"flavors\":[{\"name\":\"f\","
			       "\"resources\":[{\"name\":\"nvidia.com/gpu\",\"nominalQuota\":8}]}]}]}}");
	cJSON *b = cJSON_Parse("{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\","
			       "\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"q\"},"
			       "\"spec\":{\"resourceGroups\":[{\"flavors\":[{\"name\":\"f\","
			       "\"resources\":[{\"name\":\"nvidia.com/gpu\",\"nominalQuota\":16}]}]}]}}");
	cJSON *cm = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				"\"metadata\":{\"name\":\"c\"}}");

	expect(a, b, IMPACT_NONE, "Kueue object: admission and quota only");
	expect(NULL, cm, IMPACT_NONE, "not a Karpenter object");
	expect(cm, NULL, IMPACT_NONE, "not a Karpenter object");
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(cm);
}
END_TEST

/* several rules: the strongest class wins, and only its rules are shown */
START_TEST(test_strongest)
{
	cJSON *a = cJSON_Parse(NODEPOOL);
	cJSON *b = mod(NODEPOOL, "spec.limits", "{\"nvidia.com/gpu\":\"8\"}");
	cJSON *c;
	struct impact im = IMPACT_INIT;
	struct buf t = BUF_INIT;

	c = mod(NODEPOOL, "spec.limits", "{\"nvidia.com/gpu\":\"8\"}");
	cJSON_ReplaceItemInObject(
		cJSON_GetObjectItem(cJSON_GetObjectItem(c, "spec"), "disruption"),
		"consolidateAfter", cJSON_CreateString("1m"));
	cJSON_ReplaceItemInObject(
		cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetObjectItem(c, "spec"), "template"), "spec"),
		"expireAfter", cJSON_CreateString("24h"));
	impact_classify(&im, a, c, NULL, 0);
	impact_rules_text(&im, &t);
	ck_assert_int_eq(im.cls, IMPACT_REPLACES);
	ck_assert_str_eq(buf_cstr(&t),
			 "static drift: NodePool template hash "
			 "(spec.template.spec.expireAfter)");
	ck_assert_uint_eq(im.nr, 3);
	ck_assert_uint_eq(im.npools, 1);
	/* the looser disruption is still told, after the strongest rules */
	buf_reset(&t);
	impact_also_text(&im, &t);
	ck_assert_str_eq(buf_cstr(&t), "; also may disrupt: consolidation "
					"loosened: consolidateAfter 30m -> 1m");
	buf_reset(&t);
	impact_describe(&t, &im);
	ck_assert_str_eq(buf_cstr(&t),
			 "replaces nodes [pool train]: static drift: NodePool "
			 "template hash (spec.template.spec.expireAfter); also "
			 "may disrupt: consolidation loosened: consolidateAfter "
			 "30m -> 1m");
	buf_release(&t);
	impact_release(&im);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}
END_TEST

static int family_is_p5(const cJSON *claim, void *ctx)
{
	const cJSON *l = cJSON_GetObjectItem(cJSON_GetObjectItem(claim, "metadata"),
					     "labels");
	(void)ctx;
	return !strcmp(cJSON_GetObjectItem(l, "f")->valuestring, "p5");
}

/* counts per pool from listed NodeClaims and pods: other pools, nodes not
 * registered, "false", finished pods and pods elsewhere do not count */
START_TEST(test_nodecount)
{
	struct nodecount c = NODECOUNT_INIT;
	long claims, pods;

	c.claims = cJSON_Parse(
		"[{\"metadata\":{\"labels\":{\"karpenter.sh/nodepool\":\"a\",\"f\":\"p5\"}},\"status\":{\"nodeName\":\"n1\"}},"
		"{\"metadata\":{\"labels\":{\"karpenter.sh/nodepool\":\"a\",\"f\":\"p4d\"}},\"status\":{\"nodeName\":\"n2\"}},"
		"{\"metadata\":{\"labels\":{\"karpenter.sh/nodepool\":\"a\",\"f\":\"p5\"}}},"
		"{\"metadata\":{\"labels\":{\"karpenter.sh/nodepool\":\"b\",\"f\":\"p5\"}},\"status\":{\"nodeName\":\"n3\"}}]");
	c.pods = cJSON_Parse(
		"[{\"metadata\":{\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"true\"}},\"spec\":{\"nodeName\":\"n1\"}},"
		"{\"metadata\":{\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"30m\"}},\"spec\":{\"nodeName\":\"n2\"}},"
		"{\"metadata\":{\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"false\"}},\"spec\":{\"nodeName\":\"n1\"}},"
		"{\"metadata\":{\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"true\"}},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Succeeded\"}},"
		"{\"metadata\":{\"annotations\":{\"karpenter.sh/do-not-disrupt\":\"true\"}},\"spec\":{\"nodeName\":\"n3\"}},"
		"{\"metadata\":{},\"spec\":{\"nodeName\":\"n1\"}}]");
	nodecount_count(&c, "a", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 3);
	ck_assert_int_eq(pods, 2);
	nodecount_count(&c, "a", family_is_p5, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 2);
	ck_assert_int_eq(pods, 1);
	nodecount_count(&c, "b", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 1);
	ck_assert_int_eq(pods, 1);
	nodecount_count(&c, "none", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 0);
	ck_assert_int_eq(pods, 0);
	/* pods unknown (403): NodeClaims still counted */
	cJSON_Delete(c.pods);
	c.pods = NULL;
	nodecount_count(&c, "a", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, 3);
	ck_assert_int_eq(pods, -1);
	nodecount_release(&c);
	nodecount_count(&c, "a", NULL, NULL, &claims, &pods);
	ck_assert_int_eq(claims, -1);
	ck_assert_int_eq(pods, -1);
}
END_TEST

/* requirement drift only: the class stays "replaces nodes" and says so */
START_TEST(test_requirements_only)
{
	cJSON *a = cJSON_Parse(NODEPOOL), *b, *c;
	struct impact im = IMPACT_INIT;

	b = mod(NODEPOOL, "spec.template.spec.requirements.[0]",
		"{\"key\":\"karpenter.k8s.aws/instance-family\",\"operator\":\"In\","
		"\"values\":[\"p5\"]}");
	impact_classify(&im, a, b, NULL, 0);
	ck_assert_int_eq(impact_requirements_only(&im), 1);
	impact_release(&im);
	c = mod(NODEPOOL, "spec.template.spec.taints", "[]");
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(c, "spec"), "template"), "spec"), "requirements",
		cJSON_Duplicate(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetObjectItem(b, "spec"), "template"), "spec"), "requirements"), 1));
	impact_classify(&im, a, c, NULL, 0);
	ck_assert_int_eq(im.cls, IMPACT_REPLACES);
	ck_assert_int_eq(impact_requirements_only(&im), 0);
	impact_release(&im);
	impact_classify(&im, a, NULL, NULL, 0);
	ck_assert_int_eq(impact_requirements_only(&im), 0);
	impact_release(&im);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}
END_TEST

Suite *impact_suite(void)
{
	Suite *s = suite_create("impact");
	TCase *tc;

	tc = tcase_create("nodepool");
	tcase_add_test(tc, test_template_labels_taints);
	tcase_add_test(tc, test_template_lifetime_and_ref);
	tcase_add_test(tc, test_requirements);
	tcase_add_test(tc, test_labels_satisfy);
	tcase_add_test(tc, test_disruption);
	tcase_add_test(tc, test_interruption_class);
	tcase_add_test(tc, test_behavioural);
	tcase_add_test(tc, test_nodepool_add_remove);
	tcase_add_test(tc, test_strongest);
	tcase_add_test(tc, test_requirements_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("nodeclass");
	tcase_add_test(tc, test_nodeclass_dynamic);
	tcase_add_test(tc, test_nodeclass_reservations);
	tcase_add_test(tc, test_capacity_type_reserved);
	tcase_add_test(tc, test_nodeclass_static);
	tcase_add_test(tc, test_placement_fields);
	tcase_add_test(tc, test_nodeclass_pools);
	suite_add_tcase(s, tc);

	tc = tcase_create("other");
	tcase_add_test(tc, test_other_kinds);
	tcase_add_test(tc, test_nodecount);
	suite_add_tcase(s, tc);
	return s;
}
