/*
 * tests/unit/test_check.c: Check suite for generator/check.c — the CEL
 * rules (x-kubernetes-validations) of the Karpenter v1 NodePool and
 * EC2NodeClass and the Kueue ResourceFlavor and ClusterQueue CRDs in
 * tests/fixtures/crds, which an API server without CEL never checks.
 *
 * For every rule check.c implements: an object that keeps it and one that
 * breaks it; check_object() must return the number of errors it added, and
 * the error must name the object (`where`), the field path and the rule.
 * Every object gpuform renders for the intents in specs/ must pass.
 *
 * Objects are JSON string literals written with ' for " (json() swaps them
 * back before cJSON_Parse), built from the macros below.
 *
 * Tests marked "Fixed bug (generator/check.c, function)" assert what the
 * CRD's CEL text does where check.c used to differ; check.c was fixed and
 * they pass: they stay as regression tests.
 */
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "generator/crdrules.h"
#include "generator/pipeline.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define WHERE "nodes.yaml"
#define CRDS "tests/fixtures/crds/"

/* ---- helpers ------------------------------------------------------------ */

/* json: parse text written with ' for " */
static cJSON *json(const char *text)
{
	char *s = xstrdup(text);
	cJSON *j;

	for (char *p = s; *p; p++)
		if (*p == '\'')
			*p = '"';
	j = cJSON_Parse(s);
	if (!j)
		ck_abort_msg("bad JSON in test: %s", s);
	free(s);
	return j;
}

static void dump(const struct diags *d, struct buf *b)
{
	diags_format(d, b);
	if (!d->nr)
		buf_adds(b, "(no diagnostics)\n");
}

/*
 * run: check_object() on text, appending to *d. The return value must be
 * the number of errors added, and every diagnostic an error naming WHERE
 * (no line: the object came from JSON, not a file position).
 */
static size_t run(struct diags *d, const char *text)
{
	cJSON *o = json(text);
	size_t before = d->errors, nr_before = d->nr, n;

	n = check_object(o, WHERE, d);
	cJSON_Delete(o);
	ck_assert_uint_eq(n, d->errors - before);
	ck_assert_uint_eq(d->nr - nr_before, n);
	for (size_t i = nr_before; i < d->nr; i++) {
		ck_assert_int_eq(d->items[i].sev, DIAG_ERROR);
		ck_assert_str_eq(d->items[i].file, WHERE);
		ck_assert_int_eq(d->items[i].line, 0);
	}
	return n;
}

/* has_v: some error of d contains every string of the NULL-ended list */
static void has_v(const struct diags *d, const char *first, va_list ap)
{
	const char *words[16];
	size_t nw = 0;
	struct buf b = BUF_INIT;

	for (const char *w = first; w; w = va_arg(ap, const char *)) {
		ck_assert_uint_lt(nw, sizeof(words) / sizeof(words[0]));
		words[nw++] = w;
	}
	for (size_t i = 0; i < d->nr; i++) {
		size_t k = 0;
		while (k < nw && strstr(d->items[i].msg, words[k]))
			k++;
		if (k == nw)
			return;
	}
	for (size_t k = 0; k < nw; k++)
		buf_addf(&b, "%s'%s'", k ? ", " : "", words[k]);
	buf_adds(&b, "\nhave:\n");
	dump(d, &b);
	ck_abort_msg("no error mentions all of %s", buf_cstr(&b));
}

static void has(const struct diags *d, const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	has_v(d, first, ap);
	va_end(ap);
}

/* ok: text breaks no rule */
static void ok(const char *text)
{
	struct diags d = DIAGS_INIT;
	struct buf b = BUF_INIT;
	size_t n = run(&d, text);

	if (n) {
		dump(&d, &b);
		ck_abort_msg("want no error, got %zu for\n%s\n%s", n, text,
			     buf_cstr(&b));
	}
	diags_release(&d);
}

/*
 * bad: text breaks exactly `want` rules, and one of the errors mentions
 * every string of the NULL-ended list (a field path first, then words).
 */
static void bad(const char *text, size_t want, const char *first, ...)
{
	struct diags d = DIAGS_INIT;
	struct buf b = BUF_INIT;
	size_t n = run(&d, text);
	va_list ap;

	if (n != want) {
		dump(&d, &b);
		ck_abort_msg("want %zu error(s), got %zu for\n%s\n%s", want, n,
			     text, buf_cstr(&b));
	}
	va_start(ap, first);
	has_v(&d, first, ap);
	va_end(ap);
	diags_release(&d);
}

/* count: text breaks exactly `want` rules (errors appended to *d) */
static void count(struct diags *d, const char *text, size_t want)
{
	struct buf b = BUF_INIT;
	size_t n = run(d, text);

	if (n != want) {
		dump(d, &b);
		ck_abort_msg("want %zu error(s), got %zu for\n%s\n%s", want, n,
			     text, buf_cstr(&b));
	}
}

/* fmt: a printf-built object; FMT(...) writes into the caller's `text` */
static const char *fmt(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static const char *fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && (size_t)n < size, "test object too long");
	return buf;
}
#define FMT(...) fmt(text, sizeof(text), __VA_ARGS__)

/* ---- objects ------------------------------------------------------------ */

/* NodePool: template metadata members, the nodeClassRef member, the
 * requirements, more members of spec (each starting with ',') */
#define NODEPOOL(META, REF, REQS, SPEC)                                        \
	"{'apiVersion':'karpenter.sh/v1','kind':'NodePool',"                   \
	"'metadata':{'name':'gpu'},'spec':{'template':{'metadata':{" META      \
	"},'spec':{" REF ",'requirements':[" REQS "]}}" SPEC "}}"
#define NP_REF                                                                 \
	"'nodeClassRef':{'group':'karpenter.k8s.aws','kind':'EC2NodeClass',"   \
	"'name':'gpu'}"
#define NP_REQ                                                                 \
	"{'key':'karpenter.sh/capacity-type','operator':'In',"                 \
	"'values':['on-demand']}"
/* a pool with these requirements (after a valid one: index [1]) */
#define NP_REQS(REQS) NODEPOOL("", NP_REF, NP_REQ "," REQS, "")
/* a pool with these template labels */
#define NP_LABELS(L) NODEPOOL("'labels':{" L "}", NP_REF, NP_REQ, "")
/* a pool with these members of spec */
#define NP_SPEC(S) NODEPOOL("", NP_REF, NP_REQ, S)

/* EC2NodeClass: the amiSelectorTerms, more members of spec (each starting
 * with ',') */
#define EC2NODECLASS(AMI, SPEC)                                                \
	"{'apiVersion':'karpenter.k8s.aws/v1','kind':'EC2NodeClass',"          \
	"'metadata':{'name':'gpu'},'spec':{'amiSelectorTerms':[" AMI "]" SPEC \
	"}}"
#define ALIAS "{'alias':'al2023@latest'}"
#define ROLE ",'role':'KarpenterNodeRole-ml'"
#define DISCOVERY "{'tags':{'karpenter.sh/discovery':'ml'}}"
#define SUBNETS(T) ",'subnetSelectorTerms':[" T "]"
#define SGS(T) ",'securityGroupSelectorTerms':[" T "]"
#define NET SUBNETS(DISCOVERY) SGS(DISCOVERY)
/* a class with role and network, these AMI terms and more members */
#define EC2(AMI, MORE) EC2NODECLASS(AMI, ROLE NET MORE)

/* ResourceFlavor (v1beta2) with these tolerations */
#define RF_V(V, TOLS)                                                          \
	"{'apiVersion':'kueue.x-k8s.io/" V "','kind':'ResourceFlavor',"        \
	"'metadata':{'name':'train'},'spec':{'nodeLabels':"                    \
	"{'gpuform.io/pool':'train'},'tolerations':[" TOLS "]}}"
#define RF(TOLS) RF_V("v1beta2", TOLS)
#define GPU_TOL                                                                \
	"{'key':'nvidia.com/gpu','operator':'Exists','effect':'NoSchedule'}"

/* ClusterQueue (v1beta2) with these resource groups */
#define CQ(GROUPS)                                                             \
	"{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue',"        \
	"'metadata':{'name':'train'},'spec':{'cohortName':'ml',"               \
	"'namespaceSelector':{},'resourceGroups':[" GROUPS "]}}"
#define QUOTA(R) "{'name':'" R "','nominalQuota':'8'}"
#define CPU_MEM_GROUP                                                          \
	"{'coveredResources':['cpu','memory'],'flavors':[{'name':'general',"   \
	"'resources':[" QUOTA("cpu") "," QUOTA("memory") "]}]}"

/* ---- the CRDs ----------------------------------------------------------- */

static void read_file(struct buf *b, const char *path)
{
	struct err err = ERR_INIT;

	if (fs_read_file(b, path, 16u << 20, &err) < 0)
		ck_abort_msg("%s: %s (the unit binary runs from the repo root)",
			     path, err_msg(&err));
	err_release(&err);
}

/* the rule texts the tests below follow are still those of the CRDs (a
 * newer CRD with a changed rule must make someone look at check.c) */
START_TEST(test_crd_rules_present)
{
	static const struct {
		const char *file, *rule;
	} rules[] = {
		{ "karpenter.sh_nodepools.yaml",
		  "rule: self.all(x, has(x.schedule) == has(x.duration))" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: self in [\"karpenter.sh/capacity-type\", "
		  "\"karpenter.sh/nodepool\"] || "
		  "!self.find(\"^([^/]+)\").endsWith(\"karpenter.sh\")" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: self.all(x, x in [\"karpenter.sh/capacity-type\", "
		  "\"karpenter.sh/nodepool\"] || "
		  "!x.find(\"^([^/]+)\").endsWith(\"karpenter.sh\"))" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: self != \"karpenter.sh/nodepool\"" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: self != \"kubernetes.io/hostname\"" },
		{ "karpenter.sh_nodepools.yaml",
		  "|| !self.find(\"^([^/]+)\").endsWith(\"karpenter.k8s.aws\")" },
		{ "karpenter.sh_nodepools.yaml",
		  "- message: name may not be empty\n"
		  "                                  rule: self != ''" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: 'self.all(x, x.operator == ''In'' ? x.values.size() "
		  "!= 0 : true)'" },
		{ "karpenter.sh_nodepools.yaml",
		  "? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)'" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: 'self.all(x, (x.operator == ''In'' && has(x.minValues)) "
		  "? x.values.size() >= x.minValues : true)'" },
		{ "karpenter.sh_nodepools.yaml",
		  "rule: '!has(self.replicas) || !has(self.weight)'" },
		/* the nodeoverlays CRD: check_nodeoverlay */
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: self.all(x, !(x in ['cpu', 'memory', "
		  "'ephemeral-storage', 'pods']))" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: self in [\"karpenter.sh/capacity-type\", "
		  "\"karpenter.sh/nodepool\"] || "
		  "!self.find(\"^([^/]+)\").endsWith(\"karpenter.sh\")" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: self != \"kubernetes.io/hostname\"" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "\"karpenter.k8s.aws/instance-capability-flex\"] || "
		  "!self.find(\"^([^/]+)\").endsWith(\"karpenter.k8s.aws\")" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: 'self.all(x, x.operator == ''NotIn'' ? x.values.size() "
		  "!= 0 : true)'" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: 'self.all(x, x.operator == ''In'' ? x.values.size() "
		  "!= 0 : true)'" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)'" },
		{ "karpenter.sh_nodeoverlays.yaml",
		  "rule: '!has(self.price) || !has(self.priceAdjustment)'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: self.matches('^[a-zA-Z0-9]+@.+$')" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: self.split('@')[0] in ['al2','al2023','bottlerocket',"
		  "'windows2019','windows2022','windows2025']" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "? self.split(''@'')[1] == ''latest'' : true'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: self.all(x, has(x.tags) || has(x.id) || has(x.name) || "
		  "has(x.alias) || has(x.ssmParameter))" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!self.exists(x, has(x.id) && (has(x.alias) || "
		  "has(x.tags) || has(x.name) || has(x.owner)))'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!self.exists(x, has(x.alias) && (has(x.id) || "
		  "has(x.tags) || has(x.name) || has(x.owner)))'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!(self.exists(x, has(x.alias)) && self.size() != 1)'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: has(self.snapshotID) || has(self.volumeSize)" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: self.filter(x, has(x.rootVolume)?x.rootVolume==true:"
		  "false).size() <= 1" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!self.all(x, has(x.id) && (has(x.tags) || has(x.name)))'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!self.all(x, has(x.name) && (has(x.tags) || has(x.id)))'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: '!self.all(x, has(x.id) && has(x.tags))'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: self.all(k, !k.startsWith('kubernetes.io/cluster') )" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: (has(self.role) && !has(self.instanceProfile)) || "
		  "(!has(self.role) && has(self.instanceProfile))" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "rule: 'self.amiSelectorTerms.exists(x, has(x.alias)) ? true : "
		  "has(self.amiFamily)'" },
		{ "karpenter.k8s.aws_ec2nodeclasses.yaml",
		  "x.alias.find(''^[^@]+'') == ''windows2025'') ? "
		  "(self.amiFamily == ''Custom'' || self.amiFamily == "
		  "''Windows2025'') : true)'" },
		{ "kueue.x-k8s.io_resourceflavors.yaml",
		  "rule: 'self.all(x, !has(x.key) ? x.operator == ''Exists'' : "
		  "true)'" },
		{ "kueue.x-k8s.io_resourceflavors.yaml",
		  "rule: 'self.all(x, has(x.tolerationSeconds) ? x.effect == "
		  "''NoExecute''" },
		{ "kueue.x-k8s.io_resourceflavors.yaml",
		  "rule: self.all(x, !has(x.operator) || x.operator in "
		  "['Equal', 'Exists'])" },
		{ "kueue.x-k8s.io_resourceflavors.yaml",
		  "rule: 'self.all(x, has(x.operator) && x.operator == "
		  "''Exists'' ?\n                    !has(x.value) : true)'" },
		{ "kueue.x-k8s.io_resourceflavors.yaml",
		  "rule: self.all(x, !has(x.effect) || x.effect in "
		  "['NoSchedule', 'PreferNoSchedule',\n" },
		{ "kueue.x-k8s.io_clusterqueues.yaml",
		  "rule: self.flavors.all(x, size(x.resources) == "
		  "size(self.coveredResources))" },
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct buf b = BUF_INIT, path = BUF_INIT;

		buf_addf(&path, CRDS "%s", rules[i].file);
		read_file(&b, buf_cstr(&path));
		ck_assert_msg(strstr(buf_cstr(&b), rules[i].rule),
			      "%s no longer has the rule\n%s", rules[i].file,
			      rules[i].rule);
		buf_release(&path);
		buf_release(&b);
	}
}
END_TEST

/* ---- NodePool ----------------------------------------------------------- */

START_TEST(test_nodepool_valid)
{
	ok(NP_SPEC(""));
	ok(NODEPOOL(
		"'labels':{'gpuform.io/pool':'gpu',"
		"'karpenter.sh/capacity-type':'on-demand',"
		"'karpenter.k8s.aws/instance-gpu-name':'h100',"
		"'kubernetes.io/arch':'amd64'}",
		NP_REF,
		NP_REQ ",{'key':'karpenter.k8s.aws/instance-family',"
		       "'operator':'In','values':['p5','p5e'],'minValues':2}"
		       ",{'key':'karpenter.k8s.aws/instance-gpu-count',"
		       "'operator':'Gt','values':['0']}"
		       ",{'key':'karpenter.k8s.aws/instance-generation',"
		       "'operator':'Gte','values':['5']}"
		       ",{'key':'nvidia.com/gpu.present','operator':'Exists'}"
		       ",{'key':'kubernetes.io/arch','operator':'NotIn',"
		       "'values':['arm64']}",
		",'disruption':{'consolidationPolicy':'WhenEmpty',"
		"'budgets':[{'nodes':'10%'},{'nodes':'0',"
		"'schedule':'0 2 * * sat','duration':'4h'}]},"
		"'limits':{'nvidia.com/gpu':'16'},'weight':10"));
	/* a static pool */
	ok(NP_SPEC(",'replicas':4,'limits':{'nodes':'4'}"));
}
END_TEST

/* nodeClassRef: group, kind and name are required (and the schema says
 * so too); check.c reports a missing one */
START_TEST(test_nodepool_node_class_ref_missing)
{
	static const char *const refs[] = {
		"'nodeClassRef':{'kind':'EC2NodeClass','name':'gpu'}",
		"'nodeClassRef':{'group':'karpenter.k8s.aws','name':'gpu'}",
		"'nodeClassRef':{'group':'karpenter.k8s.aws',"
		"'kind':'EC2NodeClass'}",
		"'nodeClassRef':{'group':'karpenter.k8s.aws',"
		"'kind':'EC2NodeClass','name':7}",
		"'nodeClassRef':null",
		"'other':{}",
	};
	char text[1024];

	ok(NODEPOOL("", NP_REF, NP_REQ, ""));
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		bad(FMT(NODEPOOL("", "%s", NP_REQ, ""), refs[i]), 1,
		    "spec.template.spec.nodeClassRef", "group, kind and name",
		    NULL);
}
END_TEST

/*
 * Fixed bug (generator/check.c, check_nodepool); the test guards the fix.
 * Before it: the CRD's only CEL rules on
 * nodeClassRef's fields are `self != ''` ("group/kind/name may not be
 * empty"); presence is the schema's `required`, which any server checks.
 * check.c tests presence only (str() != NULL), so "" passes it but is
 * rejected by a CEL-aware server.
 */
START_TEST(test_nodepool_node_class_ref_empty)
{
	bad(NODEPOOL("", "'nodeClassRef':{'group':'karpenter.k8s.aws',"
			 "'kind':'EC2NodeClass','name':''}", NP_REQ, ""),
	    1, "nodeClassRef", "name", NULL);
	bad(NODEPOOL("", "'nodeClassRef':{'group':'',"
			 "'kind':'EC2NodeClass','name':'gpu'}", NP_REQ, ""),
	    1, "nodeClassRef", "group", NULL);
	bad(NODEPOOL("", "'nodeClassRef':{'group':'karpenter.k8s.aws',"
			 "'kind':'','name':'gpu'}", NP_REQ, ""),
	    1, "nodeClassRef", "kind", NULL);
}
END_TEST

/* label domain "karpenter.sh" is restricted: only capacity-type (and
 * karpenter.sh/nodepool, which has its own rule) may be used; the domain
 * only has to end with "karpenter.sh" (no dot boundary in the CEL) */
START_TEST(test_nodepool_karpenter_sh_domain)
{
	ok(NP_REQS("{'key':'karpenter.sh/capacity-type','operator':'In',"
		   "'values':['spot']}"));
	ok(NP_LABELS("'karpenter.sh/capacity-type':'spot'"));
	ok(NP_REQS("{'key':'karpenter.shop/x','operator':'Exists'}"));
	ok(NP_REQS("{'key':'karpenter.sh.example.com/x','operator':'Exists'}"));
	ok(NP_LABELS("'team':'karpenter.sh'"));

	bad(NP_REQS("{'key':'karpenter.sh/do-not-disrupt','operator':'Exists'}"),
	    1, "spec.template.spec.requirements[1]", "karpenter.sh",
	    "restricted", "'karpenter.sh/do-not-disrupt'", NULL);
	bad(NP_REQS("{'key':'node.karpenter.sh/x','operator':'Exists'}"), 1,
	    "spec.template.spec.requirements[1]", "restricted",
	    "node.karpenter.sh/x", NULL);
	bad(NP_REQS("{'key':'xkarpenter.sh/x','operator':'Exists'}"), 1,
	    "spec.template.spec.requirements[1]", "restricted", NULL);
	bad(NP_LABELS("'karpenter.sh/initialized':'true'"), 1,
	    "spec.template.metadata.labels", "restricted",
	    "karpenter.sh/initialized", NULL);
}
END_TEST

START_TEST(test_nodepool_nodepool_label)
{
	/* one error: the domain rule lists karpenter.sh/nodepool as allowed */
	bad(NP_REQS("{'key':'karpenter.sh/nodepool','operator':'In',"
		    "'values':['a']}"),
	    1, "spec.template.spec.requirements[1]", "karpenter.sh/nodepool",
	    "may not be used", NULL);
	bad(NP_LABELS("'karpenter.sh/nodepool':'a'"), 1,
	    "spec.template.metadata.labels", "karpenter.sh/nodepool", NULL);
}
END_TEST

START_TEST(test_nodepool_hostname)
{
	ok(NP_REQS("{'key':'kubernetes.io/arch','operator':'In',"
		   "'values':['amd64']}"));
	ok(NP_REQS("{'key':'topology.kubernetes.io/zone','operator':'In',"
		   "'values':['us-east-1a']}"));
	bad(NP_REQS("{'key':'kubernetes.io/hostname','operator':'In',"
		    "'values':['ip-10-0-0-1']}"),
	    1, "spec.template.spec.requirements[1]", "kubernetes.io/hostname",
	    "restricted", NULL);
	bad(NP_LABELS("'kubernetes.io/hostname':'n'"), 1,
	    "spec.template.metadata.labels", "kubernetes.io/hostname",
	    "restricted", NULL);
}
END_TEST

START_TEST(test_nodepool_aws_domain)
{
	ok(NP_REQS("{'key':'karpenter.k8s.aws/instance-gpu-name','operator':"
		   "'In','values':['h100']}"));
	ok(NP_REQS("{'key':'karpenter.k8s.aws.example/x','operator':'Exists'}"));
	bad(NP_REQS("{'key':'karpenter.k8s.aws/instance-gpu-driver',"
		    "'operator':'Exists'}"),
	    1, "spec.template.spec.requirements[1]",
	    "'karpenter.k8s.aws/instance-gpu-driver'",
	    "not a well-known karpenter.k8s.aws label", NULL);
	/* the domain need only end with karpenter.k8s.aws */
	bad(NP_REQS("{'key':'x.karpenter.k8s.aws/instance-family',"
		    "'operator':'Exists'}"),
	    1, "spec.template.spec.requirements[1]", "karpenter.k8s.aws",
	    NULL);
	bad(NP_LABELS("'karpenter.k8s.aws/instance-ami-id':'ami-0'"), 1,
	    "spec.template.metadata.labels", "karpenter.k8s.aws/instance-ami-id",
	    NULL);
}
END_TEST

/* every karpenter.k8s.aws/ key the CRD's two rules list is accepted, as a
 * requirement key and as a label (the list is read from the CRD itself) */
START_TEST(test_nodepool_aws_keys_from_crd)
{
	static const char pfx[] = "\"karpenter.k8s.aws/";
	struct buf crd = BUF_INIT;
	const char *p;
	size_t keys = 0;
	char key[128], text[2048];

	read_file(&crd, CRDS "karpenter.sh_nodepools.yaml");
	for (p = buf_cstr(&crd); (p = strstr(p, pfx)) != NULL;) {
		const char *end = strchr(p + 1, '"');
		size_t len;

		ck_assert_ptr_nonnull(end);
		len = (size_t)(end - (p + 1));
		ck_assert_uint_lt(len, sizeof(key));
		memcpy(key, p + 1, len);
		key[len] = '\0';
		ok(FMT(NP_REQS("{'key':'%s','operator':'Exists'}"), key));
		ok(FMT(NP_LABELS("'%s':'x'"), key));
		keys++;
		p = end + 1;
	}
	buf_release(&crd);
	/* 28 keys in each of the two rules (one listed twice in the first) */
	ck_assert_uint_eq(keys, 57);
}
END_TEST

/*
 * Fixed bug (generator/check.c, domain_ends_with); the test guards the fix.
 * Before it: the CEL takes the domain as
 * x.find("^([^/]+)") — the part before the first '/', or the WHOLE key
 * when there is no '/'. So the unprefixed keys "karpenter.sh" and
 * "karpenter.k8s.aws" (valid label names by the key pattern) are
 * restricted by the CRD; domain_ends_with() returns 0 without a '/', and
 * check.c accepts them.
 */
START_TEST(test_nodepool_unprefixed_restricted_domain)
{
	bad(NP_REQS("{'key':'karpenter.sh','operator':'Exists'}"), 1,
	    "spec.template.spec.requirements[1]", "karpenter.sh", NULL);
	bad(NP_LABELS("'karpenter.k8s.aws':'x'"), 1,
	    "spec.template.metadata.labels", "karpenter.k8s.aws", NULL);
}
END_TEST

START_TEST(test_nodepool_requirement_key_operator)
{
	bad(NP_REQS("{'operator':'Exists'}"), 1,
	    "spec.template.spec.requirements[1]", "needs key and operator",
	    NULL);
	bad(NP_REQS("{'key':'a'}"), 1, "spec.template.spec.requirements[1]",
	    "needs key and operator", NULL);
	bad(NP_REQS("{'key':'a','operator':'Equals','values':['b']}"), 1,
	    "spec.template.spec.requirements[1]", "unknown operator 'Equals'",
	    NULL);
}
END_TEST

/* In needs a value; NotIn, Exists, DoesNotExist are not checked by CEL */
START_TEST(test_nodepool_in_needs_values)
{
	ok(NP_REQS("{'key':'a','operator':'NotIn','values':[]}"));
	ok(NP_REQS("{'key':'a','operator':'Exists'}"));
	ok(NP_REQS("{'key':'a','operator':'DoesNotExist','values':[]}"));
	bad(NP_REQS("{'key':'a','operator':'In','values':[]}"), 1,
	    "spec.template.spec.requirements[1]",
	    "operator In needs at least one value", NULL);
	/* x.values.size() on a missing field is an evaluation error: rejected */
	bad(NP_REQS("{'key':'a','operator':'In'}"), 1,
	    "spec.template.spec.requirements[1]",
	    "operator In needs at least one value", NULL);
}
END_TEST

/* Gt, Lt, Gte, Lte: values.size() == 1 && int(values[0]) >= 0 */
START_TEST(test_nodepool_comparison_operators)
{
	static const char *const ops[] = { "Gt", "Lt", "Gte", "Lte" };
	static const char *const good[] = { "['5']", "['0']", "['007']",
					    "['65536']" };
	static const char *const wrong[] = { "[]", "['1','2']", "['-1']",
					     "['1.5']", "['x']", "['']",
					     "['5Gi']" };
	char text[1024], want[96];

	for (size_t o = 0; o < 4; o++) {
		snprintf(want, sizeof(want),
			 "operator %s needs exactly one non-negative integer "
			 "value", ops[o]);
		for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
			ok(FMT(NP_REQS("{'key':'karpenter.k8s.aws/instance-cpu',"
				       "'operator':'%s','values':%s}"),
			       ops[o], good[i]));
		for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
			bad(FMT(NP_REQS("{'key':'karpenter.k8s.aws/instance-cpu',"
					"'operator':'%s','values':%s}"),
				ops[o], wrong[i]),
			    1, "spec.template.spec.requirements[1]", want, NULL);
		/* no values at all */
		bad(FMT(NP_REQS("{'key':'karpenter.k8s.aws/instance-cpu',"
				"'operator':'%s'}"), ops[o]),
		    1, "spec.template.spec.requirements[1]", want, NULL);
	}
}
END_TEST

/*
 * Fixed bug (generator/check.c, non_negative_int); the test guards the fix.
 * Before it: CEL's int(string) is a 64-bit
 * parse; "99999999999999999999" does not fit, int() fails, and a failed
 * evaluation rejects the object. non_negative_int() accepts any run of
 * digits.
 */
START_TEST(test_nodepool_comparison_overflow)
{
	ok(NP_REQS("{'key':'karpenter.k8s.aws/instance-memory','operator':'Gt',"
		   "'values':['9223372036854775807']}"));
	bad(NP_REQS("{'key':'karpenter.k8s.aws/instance-memory','operator':'Gt',"
		    "'values':['99999999999999999999']}"),
	    1, "spec.template.spec.requirements[1]", "operator Gt", NULL);
}
END_TEST

/* minValues: only for operator In, values.size() >= minValues */
START_TEST(test_nodepool_min_values)
{
	ok(NP_REQS("{'key':'a','operator':'In','values':['x','y'],"
		   "'minValues':2}"));
	ok(NP_REQS("{'key':'a','operator':'NotIn','values':['x'],"
		   "'minValues':3}"));
	ok(NP_REQS("{'key':'a','operator':'Exists','minValues':2}"));
	bad(NP_REQS("{'key':'a','operator':'In','values':['x','y'],"
		    "'minValues':3}"),
	    1, "spec.template.spec.requirements[1]",
	    "minValues 3 is more than the 2 values given", NULL);
}
END_TEST

START_TEST(test_nodepool_budgets)
{
	ok(NP_SPEC(",'disruption':{'budgets':[{'nodes':'1'}]}"));
	ok(NP_SPEC(",'disruption':{'budgets':[{'nodes':'0',"
		   "'schedule':'@daily','duration':'10m'}]}"));
	ok(NP_SPEC(",'disruption':{'budgets':[]}"));
	bad(NP_SPEC(",'disruption':{'budgets':[{'nodes':'1'},{'nodes':'0',"
		    "'schedule':'@daily'}]}"),
	    1, "spec.disruption.budgets[1]", "schedule and duration", NULL);
	bad(NP_SPEC(",'disruption':{'budgets':[{'nodes':'0',"
		    "'duration':'10m'}]}"),
	    1, "spec.disruption.budgets[0]", "schedule and duration", NULL);
}
END_TEST

START_TEST(test_nodepool_static_weight)
{
	ok(NP_SPEC(",'replicas':2"));
	ok(NP_SPEC(",'weight':50"));
	bad(NP_SPEC(",'replicas':2,'weight':50"), 1, "spec", "replicas",
	    "weight", NULL);
}
END_TEST

/* one error per broken rule, all reported at once */
START_TEST(test_nodepool_every_problem)
{
	struct diags d = DIAGS_INIT;

	count(&d,
	      NODEPOOL("'labels':{'karpenter.sh/registered':'true'}",
		       "'nodeClassRef':{'kind':'EC2NodeClass','name':'gpu'}",
		       "{'key':'kubernetes.io/hostname','operator':'In',"
		       "'values':[]},"
		       "{'key':'a','operator':'Lt','values':['x']}",
		       ",'disruption':{'budgets':[{'nodes':'1',"
		       "'duration':'1h'}]},'replicas':1,'weight':1"),
	      7);
	has(&d, "spec.template.spec.nodeClassRef", NULL);
	has(&d, "spec.template.spec.requirements[0]", "kubernetes.io/hostname",
	    NULL);
	has(&d, "spec.template.spec.requirements[0]", "operator In", NULL);
	has(&d, "spec.template.spec.requirements[1]", "operator Lt", NULL);
	has(&d, "spec.template.metadata.labels", "karpenter.sh/registered",
	    NULL);
	has(&d, "spec.disruption.budgets[0]", NULL);
	has(&d, "replicas", "weight", NULL);
	diags_release(&d);
}
END_TEST

/* ---- EC2NodeClass ------------------------------------------------------- */

START_TEST(test_ec2_valid)
{
	ok(EC2(ALIAS, ""));
	ok(EC2NODECLASS(ALIAS, ",'instanceProfile':'KarpenterNodeProfile'" NET));
	ok(EC2(ALIAS, ",'amiFamily':'AL2023'"));
	ok(EC2(ALIAS, ",'amiFamily':'Custom'"));
	ok(EC2("{'alias':'bottlerocket@v1.26.1'}", ""));
	ok(EC2("{'alias':'windows2022@latest'}", ",'amiFamily':'Windows2022'"));
	ok(EC2("{'id':'ami-0123456789abcdef0'}", ",'amiFamily':'AL2023'"));
	ok(EC2("{'tags':{'team':'ml'},'name':'my-ami-*','owner':'self'},"
	       "{'ssmParameter':'/my/ami'},{'name':'other','owner':'amazon'}",
	       ",'amiFamily':'Custom'"));
	ok(EC2(ALIAS,
	       ",'blockDeviceMappings':[{'deviceName':'/dev/xvda',"
	       "'rootVolume':true,'ebs':{'volumeSize':'200Gi',"
	       "'volumeType':'gp3'}},{'deviceName':'/dev/xvdb',"
	       "'rootVolume':false,'ebs':{'snapshotID':'snap-0123'}}],"
	       "'tags':{'team':'ml','karpenter.sh/discovery':'ml',"
	       "'kubernetes.io/role':'x'}"));
}
END_TEST

START_TEST(test_ec2_role_instance_profile)
{
	bad(EC2(ALIAS, ",'instanceProfile':'P'"), 1, "spec",
	    "exactly one of role and instanceProfile", NULL);
	bad(EC2NODECLASS(ALIAS, NET), 1, "spec",
	    "exactly one of role and instanceProfile", NULL);
}
END_TEST

/* alias: ^[a-zA-Z0-9]+@.+$ */
START_TEST(test_ec2_alias_format)
{
	bad(EC2("{'alias':'al2023'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias 'al2023'", "family@version", NULL);
	bad(EC2("{'alias':'al2023@'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias 'al2023@'", "family@version", NULL);
	bad(EC2("{'alias':'@latest'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias '@latest'", "family@version", NULL);
}
END_TEST

/* alias family: one of six, lower case */
START_TEST(test_ec2_alias_family)
{
	static const char *const fams[] = { "al2", "al2023", "bottlerocket",
					    "windows2019", "windows2022",
					    "windows2025" };
	char text[1024];

	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		ok(FMT(EC2("{'alias':'%s@latest'}", ""), fams[i]));
	bad(EC2("{'alias':'ubuntu@latest'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias", "unknown family 'ubuntu'", NULL);
	bad(EC2("{'alias':'AL2023@latest'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias", "unknown family 'AL2023'", NULL);
}
END_TEST

/* windows families: only @latest */
START_TEST(test_ec2_alias_windows)
{
	ok(EC2("{'alias':'al2023@v20250505'}", ""));
	ok(EC2("{'alias':'windows2025@latest'}", ""));
	bad(EC2("{'alias':'windows2019@v1'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias", "Windows", "@latest", NULL);
	bad(EC2("{'alias':'windows2022@2024.01'}", ""), 1,
	    "spec.amiSelectorTerms[0].alias", "Windows", "@latest", NULL);
}
END_TEST

/* 'alias' cannot be set with id, tags, name or owner in its term */
START_TEST(test_ec2_alias_alone_in_term)
{
	static const char *const others[] = { "'id':'ami-0123'",
					      "'tags':{'a':'b'}",
					      "'name':'my-ami'",
					      "'owner':'self'" };
	char text[1024];

	for (size_t i = 0; i < 4; i++)
		bad(FMT(EC2("{'alias':'al2023@latest',%s}", ""), others[i]), 1,
		    "spec.amiSelectorTerms[0]", "'alias' cannot be combined",
		    NULL);
}
END_TEST

/* an alias term must be the only term */
START_TEST(test_ec2_alias_only_term)
{
	bad(EC2(ALIAS ",{'tags':{'a':'b'}}", ""), 1, "spec.amiSelectorTerms",
	    "alias term must be the only term", NULL);
	bad(EC2("{'id':'ami-0123'}," ALIAS, ""), 1, "spec.amiSelectorTerms",
	    "alias term must be the only term", NULL);
}
END_TEST

/* 'id' cannot be set with alias, tags, name or owner in its term */
START_TEST(test_ec2_id_alone_in_term)
{
	static const char *const others[] = { "'tags':{'a':'b'}",
					      "'name':'my-ami'",
					      "'owner':'self'" };
	char text[1024];

	for (size_t i = 0; i < 3; i++)
		bad(FMT(EC2("{'id':'ami-0123',%s}", ",'amiFamily':'AL2023'"),
			others[i]),
		    1, "spec.amiSelectorTerms[0]", "'id' cannot be combined",
		    NULL);
	bad(EC2("{'name':'x'},{'owner':'self','id':'ami-0123'}",
		",'amiFamily':'AL2023'"),
	    1, "spec.amiSelectorTerms[1]", "'id' cannot be combined", NULL);
}
END_TEST

/*
 * Fixed bug (generator/check.c, check_ec2nodeclass); the test guards the fix.
 * Before it: the exclusivity rules list
 * the fields that may not join 'id' (alias, tags, name, owner) and 'alias'
 * (id, tags, name, owner); ssmParameter is in neither list, so the CRD
 * accepts {id, ssmParameter} and {alias, ssmParameter}. check.c rejects
 * any second member (cJSON_GetArraySize(t) > 1).
 */
START_TEST(test_ec2_ssm_parameter_combinations)
{
	ok(EC2("{'id':'ami-0123','ssmParameter':'/my/ami'}",
	       ",'amiFamily':'AL2023'"));
	ok(EC2("{'alias':'al2023@latest','ssmParameter':'/my/ami'}", ""));
}
END_TEST

/* a term needs tags, id, name, alias or ssmParameter (owner alone: no) */
START_TEST(test_ec2_term_needs_selector)
{
	ok(EC2("{'ssmParameter':'/aws/service/x'}", ",'amiFamily':'AL2023'"));
	ok(EC2("{'name':'x'}", ",'amiFamily':'AL2023'"));
	bad(EC2("{}", ",'amiFamily':'AL2023'"), 1, "spec.amiSelectorTerms[0]",
	    "needs alias, id, tags, name or ssmParameter", NULL);
	bad(EC2("{'name':'x'},{'owner':'self'}", ",'amiFamily':'AL2023'"), 1,
	    "spec.amiSelectorTerms[1]",
	    "needs alias, id, tags, name or ssmParameter", NULL);
}
END_TEST

START_TEST(test_ec2_ami_family_required)
{
	struct diags d = DIAGS_INIT;

	bad(EC2("{'id':'ami-0123'}", ""), 1, "spec.amiFamily",
	    "required when no alias", NULL);
	bad(EC2("{'tags':{'a':'b'}}", ""), 1, "spec.amiFamily",
	    "required when no alias", NULL);
	/* no terms at all (the schema's minItems; the CEL amiFamily rule
	 * fails too: exists() over nothing is false) */
	count(&d, EC2("", ""), 2);
	has(&d, "spec.amiSelectorTerms", "at least one term", NULL);
	has(&d, "spec.amiFamily", "required", NULL);
	diags_release(&d);
	bad(EC2("", ",'amiFamily':'AL2023'"), 1, "spec.amiSelectorTerms",
	    "at least one term", NULL);
}
END_TEST

/* with an alias, amiFamily may only be its family or Custom */
START_TEST(test_ec2_ami_family_matches_alias)
{
	static const struct {
		const char *alias, *family;
	} fams[] = {
		{ "al2", "AL2" },
		{ "al2023", "AL2023" },
		{ "bottlerocket", "Bottlerocket" },
		{ "windows2019", "Windows2019" },
		{ "windows2022", "Windows2022" },
		{ "windows2025", "Windows2025" },
	};
	char text[1024], want[128];

	for (size_t a = 0; a < 6; a++) {
		ok(FMT(EC2("{'alias':'%s@latest'}", ",'amiFamily':'Custom'"),
		       fams[a].alias));
		for (size_t f = 0; f < 6; f++) {
			FMT(EC2("{'alias':'%s@latest'}", ",'amiFamily':'%s'"),
			    fams[a].alias, fams[f].family);
			if (a == f) {
				ok(text);
				continue;
			}
			snprintf(want, sizeof(want),
				 "spec.amiFamily '%s' does not match the alias "
				 "family '%s'", fams[f].family, fams[a].alias);
			bad(text, 1, want, NULL);
		}
	}
}
END_TEST

/*
 * Fixed bug (generator/check.c, check_ec2nodeclass); the test guards the fix.
 * Before it: the amiFamily rules take
 * the family as alias.find('^[^@]+') whether or not the alias is otherwise
 * valid, so "windows2022@v1" with amiFamily AL2023 breaks two rules
 * (windows takes only latest; amiFamily must be Windows2022 or Custom),
 * and so does "al2023" (no '@') with amiFamily AL2 (format; amiFamily must
 * be AL2023 or Custom). check.c sets alias_family only for a fully valid
 * alias, and reports one error for each.
 */
START_TEST(test_ec2_ami_family_with_bad_alias)
{
	struct diags d = DIAGS_INIT;

	count(&d, EC2("{'alias':'windows2022@v1'}", ",'amiFamily':'AL2023'"),
	      2);
	has(&d, "spec.amiFamily 'AL2023'", NULL);
	diags_release(&d);
	count(&d, EC2("{'alias':'al2023'}", ",'amiFamily':'AL2'"), 2);
	has(&d, "spec.amiFamily 'AL2'", NULL);
	diags_release(&d);
}
END_TEST

START_TEST(test_ec2_subnet_terms)
{
	ok(EC2NODECLASS(ALIAS, ROLE SUBNETS("{'id':'subnet-0123'}")
				       SGS(DISCOVERY)));
	ok(EC2NODECLASS(ALIAS, ROLE SUBNETS("{'id':'subnet-0123'}," DISCOVERY)
				       SGS(DISCOVERY)));
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS("") SGS(DISCOVERY)), 1,
	    "spec.subnetSelectorTerms", "at least one term", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SGS(DISCOVERY)), 1,
	    "spec.subnetSelectorTerms", "at least one term", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY ",{}") SGS(DISCOVERY)),
	    1, "spec.subnetSelectorTerms[1]",
	    "needs one of its selectors (id, tags)", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS("{'id':'subnet-0123',"
					     "'tags':{'a':'b'}}")
				       SGS(DISCOVERY)),
	    1, "spec.subnetSelectorTerms[0]", "'id' cannot be combined", NULL);
}
END_TEST

START_TEST(test_ec2_security_group_terms)
{
	ok(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY) SGS("{'id':'sg-0123'}")));
	ok(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY) SGS("{'name':'nodes'}")));
	ok(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY)
				       SGS("{'name':'nodes'},{'id':'sg-0123'},"
					   DISCOVERY)));
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY) SGS("")), 1,
	    "spec.securityGroupSelectorTerms", "at least one term", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY)), 1,
	    "spec.securityGroupSelectorTerms", "at least one term", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY) SGS("{}")), 1,
	    "spec.securityGroupSelectorTerms[0]",
	    "needs one of its selectors (id, tags, name)", NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY)
					SGS("{'id':'sg-0123','name':'n'}")),
	    1, "spec.securityGroupSelectorTerms[0]", "'id' cannot be combined",
	    NULL);
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY)
					SGS("{'id':'sg-0123','tags':{'a':'b'}}")),
	    1, "spec.securityGroupSelectorTerms[0]", "'id' cannot be combined",
	    NULL);
}
END_TEST

/*
 * Fixed bug (generator/check.c, check_term_list); the test guards the fix.
 * Before it: the CRD also says "'name' is
 * mutually exclusive" for security group terms:
 *   !self.all(x, has(x.name) && (has(x.tags) || has(x.id)))
 * so a lone {name, tags} term is rejected by the API server. check.c
 * checks only 'id' against the other fields and accepts it.
 */
START_TEST(test_ec2_security_group_name_exclusive)
{
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY)
					SGS("{'name':'nodes','tags':{'a':'b'}}")),
	    1, "spec.securityGroupSelectorTerms", "name", NULL);
}
END_TEST

/*
 * NOTE (not a check.c bug to fix blindly): the CRD writes the subnet and
 * security group exclusivity rules as !self.all(...) — they fail only when
 * EVERY term combines id with another field (so [{id,tags},{tags}] passes
 * the API server), and an empty list fails them as well. The messages
 * ("cannot be set with a combination of other fields in a ... term") and
 * the AMI rules (!self.exists) say per term, which is what check.c does.
 * This test pins check.c's stricter per-term behaviour.
 */
START_TEST(test_ec2_exclusivity_per_term)
{
	bad(EC2NODECLASS(ALIAS, ROLE SUBNETS(DISCOVERY ",{'id':'subnet-0123',"
							"'tags':{'a':'b'}}")
				       SGS(DISCOVERY)),
	    1, "spec.subnetSelectorTerms[1]", "'id' cannot be combined", NULL);
}
END_TEST

START_TEST(test_ec2_block_devices)
{
	ok(EC2(ALIAS, ",'blockDeviceMappings':[{'deviceName':'/dev/xvda'}]"));
	ok(EC2(ALIAS, ",'blockDeviceMappings':[]"));
	bad(EC2(ALIAS, ",'blockDeviceMappings':[{'ebs':{'volumeSize':'20Gi'}},"
		       "{'deviceName':'/dev/xvdb','ebs':{'volumeType':'gp3'}}]"),
	    1, "spec.blockDeviceMappings[1].ebs", "volumeSize or snapshotID",
	    NULL);
	bad(EC2(ALIAS, ",'blockDeviceMappings':[{'ebs':{}}]"), 1,
	    "spec.blockDeviceMappings[0].ebs", "volumeSize or snapshotID",
	    NULL);
	bad(EC2(ALIAS, ",'blockDeviceMappings':["
		       "{'rootVolume':true,'ebs':{'volumeSize':'20Gi'}},"
		       "{'rootVolume':false,'ebs':{'volumeSize':'20Gi'}},"
		       "{'rootVolume':true,'ebs':{'volumeSize':'20Gi'}}]"),
	    1, "spec.blockDeviceMappings", "at most one rootVolume", NULL);
}
END_TEST

START_TEST(test_ec2_tags)
{
	static const char *const restricted[] = {
		"eks:eks-cluster-name", "kubernetes.io/cluster/ml",
		"kubernetes.io/cluster", "kubernetes.io/clusterx",
		"karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
		"karpenter.k8s.aws/ec2nodeclass", "",
	};
	struct diags d = DIAGS_INIT;
	char text[1024], want[96];

	ok(EC2(ALIAS, ",'tags':{'Name':'gpu','eks:cluster':'x',"
		      "'kubernetes.io/role':'x','karpenter.sh/discovery':'ml',"
		      "'karpenter.k8s.aws/cluster':'x'}"));
	for (size_t i = 0; i < 8; i++) {
		snprintf(want, sizeof(want), "'%s' is a restricted tag key",
			 restricted[i]);
		bad(FMT(EC2(ALIAS, ",'tags':{'team':'ml','%s':'v'}"),
			restricted[i]),
		    1, "spec.tags", want, NULL);
	}
	count(&d,
	      EC2(ALIAS, ",'tags':{'eks:eks-cluster-name':'a',"
			 "'kubernetes.io/cluster/ml':'owned',"
			 "'karpenter.sh/nodepool':'a',"
			 "'karpenter.sh/nodeclaim':'a',"
			 "'karpenter.k8s.aws/ec2nodeclass':'a'}"),
	      5);
	diags_release(&d);
}
END_TEST

START_TEST(test_ec2_every_problem)
{
	struct diags d = DIAGS_INIT;

	count(&d,
	      EC2NODECLASS("{'alias':'windows2019@v2'},"
			   "{'id':'ami-1','name':'x'}",
			   ",'role':'r','instanceProfile':'p'"
			   SUBNETS("{}") SGS("{'id':'sg-1','name':'x'}")
			   ",'blockDeviceMappings':[{'ebs':{}}],"
			   "'tags':{'karpenter.sh/nodepool':'x'}"),
	      8);
	has(&d, "exactly one of role and instanceProfile", NULL);
	has(&d, "spec.amiSelectorTerms[0].alias", "Windows", NULL);
	has(&d, "spec.amiSelectorTerms[1]", "'id' cannot be combined", NULL);
	has(&d, "spec.amiSelectorTerms", "only term", NULL);
	has(&d, "spec.subnetSelectorTerms[0]", NULL);
	has(&d, "spec.securityGroupSelectorTerms[0]", NULL);
	has(&d, "spec.blockDeviceMappings[0].ebs", NULL);
	has(&d, "spec.tags", "karpenter.sh/nodepool", NULL);
	diags_release(&d);
}
END_TEST

/* ---- ResourceFlavor ----------------------------------------------------- */

START_TEST(test_rf_valid)
{
	ok(RF(""));
	ok(RF(GPU_TOL ",{'key':'a','operator':'Equal','value':'b',"
		      "'effect':'NoExecute','tolerationSeconds':30},"
		      "{'operator':'Exists'},{'key':'b','value':'c'},"
		      "{'key':'c','effect':'PreferNoSchedule'}"));
	ok(RF_V("v1beta1", GPU_TOL));
	ok("{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor',"
	   "'metadata':{'name':'default'},'spec':{}}");
}
END_TEST

START_TEST(test_rf_operator)
{
	bad(RF(GPU_TOL ",{'key':'a','operator':'In','value':'b'}"), 1,
	    "spec.tolerations[1]", "operator must be Equal or Exists", NULL);
	bad(RF("{'key':'a','operator':'exists'}"), 1, "spec.tolerations[0]",
	    "operator must be Equal or Exists", NULL);
}
END_TEST

START_TEST(test_rf_effect)
{
	bad(RF(GPU_TOL ",{'key':'a','operator':'Exists','effect':'NoRun'}"), 1,
	    "spec.tolerations[1]",
	    "effect must be NoSchedule, PreferNoSchedule or NoExecute", NULL);
}
END_TEST

/* without key, operator must be Exists (a missing operator fails too:
 * x.operator on an absent field is an evaluation error) */
START_TEST(test_rf_keyless)
{
	ok(RF("{'operator':'Exists','effect':'NoSchedule'}"));
	bad(RF("{'operator':'Equal'}"), 1, "spec.tolerations[0]",
	    "without key needs operator Exists", NULL);
	bad(RF("{'effect':'NoSchedule'}"), 1, "spec.tolerations[0]",
	    "without key needs operator Exists", NULL);
	bad(RF(GPU_TOL ",{}"), 1, "spec.tolerations[1]",
	    "without key needs operator Exists", NULL);
}
END_TEST

START_TEST(test_rf_exists_value)
{
	ok(RF("{'key':'a','operator':'Equal','value':'x'}"));
	ok(RF("{'key':'a','value':'x'}"));
	bad(RF("{'key':'a','operator':'Exists','value':'x'}"), 1,
	    "spec.tolerations[0]", "operator Exists takes no value", NULL);
}
END_TEST

/*
 * Fixed bug (generator/check.c, check_tolerations); the test guards the fix.
 * Before it: the rule is
 *   has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true
 * — has() is presence, so an explicit "value": "" with Exists is rejected
 * by the API server; check.c only rejects a non-empty value.
 */
START_TEST(test_rf_exists_empty_value)
{
	bad(RF("{'key':'a','operator':'Exists','value':''}"), 1,
	    "spec.tolerations[0]", "Exists", NULL);
}
END_TEST

START_TEST(test_rf_toleration_seconds)
{
	ok(RF("{'key':'a','operator':'Exists','effect':'NoExecute',"
	      "'tolerationSeconds':60}"));
	bad(RF("{'key':'a','operator':'Exists','effect':'NoSchedule',"
	       "'tolerationSeconds':60}"),
	    1, "spec.tolerations[0]", "tolerationSeconds needs effect NoExecute",
	    NULL);
	bad(RF("{'key':'a','operator':'Exists','tolerationSeconds':60}"), 1,
	    "spec.tolerations[0]", "tolerationSeconds needs effect NoExecute",
	    NULL);
}
END_TEST

START_TEST(test_rf_every_problem)
{
	struct diags d = DIAGS_INIT;

	/* v1beta1 has the same rules */
	count(&d,
	      RF_V("v1beta1", "{'operator':'Exists','value':'x','effect':'Bad',"
			      "'tolerationSeconds':1},{'operator':'Equal'},"
			      "{'key':'k','operator':'Is'}"),
	      5);
	has(&d, "spec.tolerations[0]", "effect must be", NULL);
	has(&d, "spec.tolerations[0]", "takes no value", NULL);
	has(&d, "spec.tolerations[0]", "tolerationSeconds", NULL);
	has(&d, "spec.tolerations[1]", "without key", NULL);
	has(&d, "spec.tolerations[2]", "operator must be Equal or Exists",
	    NULL);
	diags_release(&d);
}
END_TEST

/* ---- ClusterQueue ------------------------------------------------------- */

START_TEST(test_cq_valid)
{
	ok(CQ(""));
	ok(CQ(CPU_MEM_GROUP ",{'coveredResources':['nvidia.com/gpu'],"
			    "'flavors':[{'name':'h100','resources':["
			    QUOTA("nvidia.com/gpu") "]},{'name':'a100',"
			    "'resources':[" QUOTA("nvidia.com/gpu") "]}]}"));
	ok("{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue',"
	   "'metadata':{'name':'q'},'spec':{}}");
}
END_TEST

/* flavors.all(x, size(x.resources) == size(self.coveredResources)) */
START_TEST(test_cq_resource_count)
{
	bad(CQ(CPU_MEM_GROUP ",{'coveredResources':['cpu','memory'],"
			     "'flavors':[{'name':'on-demand','resources':["
			     QUOTA("cpu") "," QUOTA("memory") "]},"
			     "{'name':'spot','resources':[" QUOTA("cpu") "]}]}"),
	    1, "spec.resourceGroups[1]",
	    "flavor 'spot' lists 1 resources but coveredResources has 2", NULL);
	bad(CQ("{'coveredResources':['cpu'],'flavors':[{'name':'x'}]}"), 1,
	    "spec.resourceGroups[0]",
	    "flavor 'x' lists 0 resources but coveredResources has 1", NULL);
	bad(CQ("{'coveredResources':['cpu'],'flavors':[{'name':'x','resources':["
	       QUOTA("cpu") "," QUOTA("memory") "]}]}"),
	    1, "spec.resourceGroups[0]", "lists 2 resources", NULL);
}
END_TEST

/* not a CEL rule: Kueue's validating webhook wants each flavor's resources
 * to be coveredResources in order; check.c checks it as well (one error per
 * resource out of place) */
START_TEST(test_cq_resource_order)
{
	struct diags d = DIAGS_INIT;

	bad(CQ("{'coveredResources':['cpu','memory'],'flavors':[{'name':'x',"
	       "'resources':[" QUOTA("cpu") "," QUOTA("nvidia.com/gpu") "]}]}"),
	    1, "spec.resourceGroups[0]",
	    "flavor 'x' must list the covered resources in the same order",
	    NULL);
	count(&d,
	      CQ("{'coveredResources':['cpu','memory'],'flavors':"
		 "[{'name':'x','resources':[" QUOTA("memory") "," QUOTA("cpu")
		 "]}]}"),
	      2);
	has(&d, "spec.resourceGroups[0]", "same order", NULL);
	diags_release(&d);
}
END_TEST

/* ---- dispatch ----------------------------------------------------------- */

/* only the four kinds, in their API groups, are checked */
START_TEST(test_other_objects)
{
	/* would break rules as a v1 NodePool / v1 EC2NodeClass */
	ok("{'apiVersion':'karpenter.sh/v1beta1','kind':'NodePool','spec':{}}");
	ok("{'apiVersion':'karpenter.k8s.aws/v1beta1','kind':'EC2NodeClass',"
	   "'spec':{}}");
	ok("{'apiVersion':'v1','kind':'NodePool','spec':{}}");
	ok("{'apiVersion':'example.com/v1','kind':'ResourceFlavor','spec':"
	   "{'tolerations':[{'operator':'Bad'}]}}");
	ok("{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue',"
	   "'metadata':{'name':'q','namespace':'n'},'spec':"
	   "{'clusterQueue':'q'}}");
	ok("{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'c'},"
	   "'data':{'tags':'karpenter.sh/nodepool'}}");
	ok("{'kind':'NodePool','spec':{}}");
	ok("{'apiVersion':'karpenter.sh/v1','spec':{}}");
	ok("{'apiVersion':1,'kind':'NodePool'}");
	ok("[]");
	ok("{}");
}
END_TEST

/* errors are appended after what *d already holds; the return value counts
 * only this object's */
START_TEST(test_appends)
{
	struct diags d = DIAGS_INIT;

	diags_add(&d, DIAG_WARNING, "other.yaml", 3, 1, NULL, "earlier");
	diags_add(&d, DIAG_ERROR, "other.yaml", 4, 1, NULL, "earlier too");
	count(&d, NP_SPEC(",'replicas':1,'weight':1"), 1);
	count(&d, EC2(ALIAS, ""), 0);
	ck_assert_uint_eq(d.nr, 3);
	ck_assert_uint_eq(d.errors, 2);
	ck_assert_uint_eq(d.warnings, 1);
	ck_assert_str_eq(d.items[2].file, WHERE);
	diags_release(&d);
}
END_TEST

/* ---- gpuform's own output ----------------------------------------------- */

static const cJSON *field(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* ---- NodeOverlay (karpenter.sh/v1alpha1, nodeoverlays CRD) ---------------- */

#define OVERLAY(reqs, extra)                                                  \
	"{'apiVersion':'karpenter.sh/v1alpha1','kind':'NodeOverlay',"        \
	"'metadata':{'name':'ci-gpu-8'},'spec':{'requirements':" reqs        \
	extra "}}"
#define OV_REQS                                                               \
	"[{'key':'karpenter.sh/nodepool','operator':'In','values':['ci']},"  \
	"{'key':'node.kubernetes.io/instance-type','operator':'In',"         \
	"'values':['g4dn.xlarge']}]"
#define OV_CAP ",'capacity':{'nvidia.com/gpu':'8'}"

START_TEST(test_nodeoverlay_rules)
{
	/* what gpuform renders: the nodepool key is allowed here */
	ok(OVERLAY(OV_REQS, OV_CAP));
	ok(OVERLAY("[{'key':'karpenter.k8s.aws/instance-gpu-count',"
		   "'operator':'Gt','values':['0']}]", OV_CAP));
	/* requirements are required */
	bad("{'apiVersion':'karpenter.sh/v1alpha1','kind':'NodeOverlay',"
	    "'metadata':{'name':'x'},'spec':{'capacity':{'nvidia.com/gpu':'8'}}}",
	    1, "spec.requirements", "required", NULL);
	/* restricted label domains (a shorter aws list than a NodePool's) */
	bad(OVERLAY("[{'key':'karpenter.sh/nodeclaim','operator':'Exists'}]",
		    OV_CAP),
	    1, "spec.requirements[0]", "karpenter.sh", NULL);
	bad(OVERLAY("[{'key':'kubernetes.io/hostname','operator':'Exists'}]",
		    OV_CAP),
	    1, "spec.requirements[0]", "hostname", NULL);
	bad(OVERLAY("[{'key':'karpenter.k8s.aws/capacity-reservation-id',"
		    "'operator':'Exists'}]", OV_CAP),
	    1, "spec.requirements[0]", "karpenter.k8s.aws", NULL);
	/* In and NotIn need values; Gt one non-negative integer */
	bad(OVERLAY("[{'key':'node.kubernetes.io/instance-type','operator':"
		    "'NotIn','values':[]}]", OV_CAP),
	    1, "spec.requirements[0]", "NotIn", NULL);
	bad(OVERLAY("[{'key':'karpenter.k8s.aws/instance-gpu-count',"
		    "'operator':'Gt','values':['-1']}]", OV_CAP),
	    1, "spec.requirements[0]", "non-negative", NULL);
	/* capacity adds extended resources only */
	bad(OVERLAY(OV_REQS, ",'capacity':{'pods':'200'}"), 1,
	    "spec.capacity", "pods", NULL);
	bad(OVERLAY(OV_REQS, ",'capacity':{'memory':'1Gi','cpu':'1'}"), 2,
	    "spec.capacity", "cpu", NULL);
	/* price and priceAdjustment exclude each other */
	bad(OVERLAY(OV_REQS, ",'price':'1.5','priceAdjustment':'-10%'"), 1,
	    "spec", "price", NULL);
}
END_TEST

/* every object rendered for the intents in specs/ passes (pipeline_render runs
 * check_object itself and fails when they do not; this checks again,
 * object by object, and that the four kinds were really seen) */
START_TEST(test_rendered_specs_pass)
{
	static const char *const kinds[] = { "NodePool", "EC2NodeClass",
					     "ResourceFlavor", "ClusterQueue",
					     "NodeOverlay" };
	size_t seen[5] = { 0 }, objs = 0;
	struct tmpl_set *t = NULL;
	struct err err = ERR_INIT;
	glob_t g;

	ck_assert_int_eq(glob("specs/*.yaml", 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 1);
	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		struct rendered r = RENDERED_INIT;
		struct diags d = DIAGS_INIT;
		struct buf data = BUF_INIT, msg = BUF_INIT;
		const cJSON *doc;
		int ret;

		read_file(&data, path);
		ret = pipeline_render(&r, path, buf_cstr(&data), data.len, t,
				      &d, &err);
		diags_format(&d, &msg);
		ck_assert_msg(ret == 0, "%s: %s\n%s", path, err_msg(&err),
			      buf_cstr(&msg));
		ck_assert_uint_eq(d.errors, 0);
		diags_release(&d);
		ck_assert_ptr_nonnull(r.docs);
		cJSON_ArrayForEach(doc, r.docs)
		{
			const cJSON *k = field(doc, "kind");
			const cJSON *nm = field(field(doc, "metadata"), "name");
			struct buf where = BUF_INIT;
			size_t n;

			ck_assert(cJSON_IsString(k) && cJSON_IsString(nm));
			buf_addf(&where, "%s: %s/%s", path, k->valuestring,
				 nm->valuestring);
			n = check_object(doc, buf_cstr(&where), &d);
			buf_reset(&msg);
			diags_format(&d, &msg);
			ck_assert_msg(n == 0 && d.nr == 0, "%s breaks:\n%s",
				      buf_cstr(&where), buf_cstr(&msg));
			for (size_t j = 0; j < 5; j++)
				seen[j] += !strcmp(k->valuestring, kinds[j]);
			objs++;
			buf_release(&where);
		}
		rendered_release(&r);
		diags_release(&d);
		buf_release(&data);
		buf_release(&msg);
	}
	for (size_t j = 0; j < 5; j++)
		ck_assert_msg(seen[j] > 0, "no %s rendered from specs/",
			      kinds[j]);
	ck_assert_uint_gt(objs, 0);
	tmpl_set_free(t);
	err_release(&err);
	globfree(&g);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

Suite *check_suite(void)
{
	Suite *s = suite_create("check");
	TCase *tc;

	tc = tcase_create("crds");
	tcase_add_test(tc, test_crd_rules_present);
	suite_add_tcase(s, tc);

	tc = tcase_create("nodepool");
	tcase_add_test(tc, test_nodepool_valid);
	tcase_add_test(tc, test_nodeoverlay_rules);
	tcase_add_test(tc, test_nodepool_node_class_ref_missing);
	tcase_add_test(tc, test_nodepool_node_class_ref_empty);
	tcase_add_test(tc, test_nodepool_karpenter_sh_domain);
	tcase_add_test(tc, test_nodepool_nodepool_label);
	tcase_add_test(tc, test_nodepool_hostname);
	tcase_add_test(tc, test_nodepool_aws_domain);
	tcase_add_test(tc, test_nodepool_aws_keys_from_crd);
	tcase_add_test(tc, test_nodepool_unprefixed_restricted_domain);
	tcase_add_test(tc, test_nodepool_requirement_key_operator);
	tcase_add_test(tc, test_nodepool_in_needs_values);
	tcase_add_test(tc, test_nodepool_comparison_operators);
	tcase_add_test(tc, test_nodepool_comparison_overflow);
	tcase_add_test(tc, test_nodepool_min_values);
	tcase_add_test(tc, test_nodepool_budgets);
	tcase_add_test(tc, test_nodepool_static_weight);
	tcase_add_test(tc, test_nodepool_every_problem);
	suite_add_tcase(s, tc);

	tc = tcase_create("ec2nodeclass");
	tcase_add_test(tc, test_ec2_valid);
	tcase_add_test(tc, test_ec2_role_instance_profile);
	tcase_add_test(tc, test_ec2_alias_format);
	tcase_add_test(tc, test_ec2_alias_family);
	tcase_add_test(tc, test_ec2_alias_windows);
	tcase_add_test(tc, test_ec2_alias_alone_in_term);
	tcase_add_test(tc, test_ec2_alias_only_term);
	tcase_add_test(tc, test_ec2_id_alone_in_term);
	tcase_add_test(tc, test_ec2_ssm_parameter_combinations);
	tcase_add_test(tc, test_ec2_term_needs_selector);
	tcase_add_test(tc, test_ec2_ami_family_required);
	tcase_add_test(tc, test_ec2_ami_family_matches_alias);
	tcase_add_test(tc, test_ec2_ami_family_with_bad_alias);
	tcase_add_test(tc, test_ec2_subnet_terms);
	tcase_add_test(tc, test_ec2_security_group_terms);
	tcase_add_test(tc, test_ec2_security_group_name_exclusive);
	tcase_add_test(tc, test_ec2_exclusivity_per_term);
	tcase_add_test(tc, test_ec2_block_devices);
	tcase_add_test(tc, test_ec2_tags);
	tcase_add_test(tc, test_ec2_every_problem);
	suite_add_tcase(s, tc);

	tc = tcase_create("resourceflavor");
	tcase_add_test(tc, test_rf_valid);
	tcase_add_test(tc, test_rf_operator);
	tcase_add_test(tc, test_rf_effect);
	tcase_add_test(tc, test_rf_keyless);
	tcase_add_test(tc, test_rf_exists_value);
	tcase_add_test(tc, test_rf_exists_empty_value);
	tcase_add_test(tc, test_rf_toleration_seconds);
	tcase_add_test(tc, test_rf_every_problem);
	suite_add_tcase(s, tc);

	tc = tcase_create("clusterqueue");
	tcase_add_test(tc, test_cq_valid);
	tcase_add_test(tc, test_cq_resource_count);
	tcase_add_test(tc, test_cq_resource_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("dispatch");
	tcase_add_test(tc, test_other_objects);
	tcase_add_test(tc, test_appends);
	suite_add_tcase(s, tc);

	tc = tcase_create("rendered");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rendered_specs_pass);
	suite_add_tcase(s, tc);
	return s;
}

/* regressions found by fuzzing: server-shaped objects whose maps are lists */
START_TEST(test_fuzz_maps_that_are_lists)
{
	struct diags d = DIAGS_INIT;
	cJSON *a = cJSON_Parse("{\"apiVersion\":\"karpenter.k8s.aws/v1\","
			       "\"kind\":\"EC2NodeClass\",\"spec\":{\"tags\":[\"a\"]}}");
	cJSON *b = cJSON_Parse("{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			       "\"NodePool\",\"spec\":{\"template\":{\"metadata\":"
			       "{\"labels\":[\"a\"]}}}}");

	ck_assert_uint_gt(check_object(a, "a", &d), 0);
	ck_assert_uint_gt(check_object(b, "b", &d), 0);
	cJSON_Delete(a);
	cJSON_Delete(b);
	diags_release(&d);
}
END_TEST

Suite *check_fuzz_regressions_suite(void);
Suite *check_fuzz_regressions_suite(void)
{
	Suite *s = suite_create("check_fuzz");
	TCase *tc = tcase_create("regressions");

	tcase_add_test(tc, test_fuzz_maps_that_are_lists);
	suite_add_tcase(s, tc);
	return s;
}
