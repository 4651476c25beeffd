/*
 * tests/unit/test_render.c: Check suite for generator/render.c (through
 * generator/pipeline.c): which objects a plan becomes and in what order,
 * the labels every object carries, the Karpenter disruption matrix per
 * interruption mode, the general-purpose pool's GPU exclusions, node
 * classes (block devices, EFA security group, maxPods, Bottlerocket TOML),
 * the AL2023 device-plugin ConfigMap, Kueue objects, add-ons, and the two
 * output shapes (stream and tree), byte for byte deterministic.
 *
 * Intents are YAML strings; templates are the embedded ones.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/interruption.h"
#include "generator/capplan.h"
#include "generator/inputs.h"
#include "generator/pipeline.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "generator/window.h"
#include "util/yaml.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* ---- intents ------------------------------------------------------------ */

/* Bottlerocket, image cache, EFA, general pool, weekly window; one
 * workload per interruption mode and sharing mode */
static const char br_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: ml-prod\n"
	"spec:\n"
	"  nodeRole: KarpenterNodeRole-ml-prod\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  imageCache: {snapshotID: snap-0123456789abcdef0, size: 300Gi}\n"
	"  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
	"  generalPurpose: {enabled: true}\n"
	"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
	"  workloads:\n"
	"    - {name: pretrain, type: training, gpu: h100, gpusPerPod: 8, gang: 2,\n"
	"       efa: true, maxGpus: 16, namespace: research}\n"
	"    - {name: serve, type: inference, gpu: l4+, maxGpus: 8, namespace: serving,\n"
	"       interruption: checkpointed}\n"
	"    - {name: play, type: dev, gpu: l4+, maxGpus: 4, namespace: dev}\n"
	"    - {name: ci, type: dev, gpu: t4, maxGpus: 2, namespace: ci,\n"
	"       sharing: {timeSlicing: 4}}\n"
	"    - {name: emb, type: inference, gpu: a100.80gb, maxGpus: 8, namespace: serving,\n"
	"       sharing: {mig: 1g.10gb}}\n";

/* AL2023, no window, no prefix delegation, sharing by node label */
static const char al_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: inf}\n"
	"spec:\n"
	"  nodeRole: KarpenterNodeRole-inf\n"
	"  ami: al2023@v20250505\n"
	"  network: {prefixDelegation: false}\n"
	"  workloads:\n"
	"    - {name: small, type: inference, gpu: [a10g, l4], interruption: tolerant,\n"
	"       maxGpus: 16, namespace: serving, sharing: {timeSlicing: 4}}\n"
	"    - {name: large, type: inference, gpu: l40s, gpusPerPod: 4, maxGpus: 64,\n"
	"       namespace: serving, interruption: checkpointed}\n"
	"    - {name: migw, type: inference, gpu: l4, maxGpus: 2}\n"
	"    - {name: train, type: training, gpu: h100, maxGpus: 8}\n";

/* Bottlerocket without image cache or window; few types */
static const char plain_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: c3}\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  workloads:\n"
	"    - {name: t, type: training, gpu: h100, maxGpus: 8}\n"
	"    - {name: ci, type: dev, gpu: t4, maxGpus: 2}\n";

/* ---- helpers ------------------------------------------------------------ */

struct fx {
	struct tmpl_set *t;
	struct rendered r;
	struct diags d;
};

static void render_intent(struct fx *fx, const char *text)
{
	struct err err = ERR_INIT;
	struct buf b = BUF_INIT;
	int ret;

	memset(fx, 0, sizeof(*fx));
	ck_assert_int_eq(tmpl_set_load(&fx->t, NULL, &err), 0);
	ret = pipeline_render(&fx->r, "intent.yaml", text, strlen(text), fx->t,
			      &fx->d, &err);
	diags_format(&fx->d, &b);
	ck_assert_msg(ret == 0, "pipeline_render: %s\n%s", err_msg(&err),
		      buf_cstr(&b));
	ck_assert_uint_eq(fx->d.errors, 0);
	ck_assert_ptr_nonnull(fx->r.docs);
	buf_release(&b);
	err_release(&err);
}

static void release(struct fx *fx)
{
	rendered_release(&fx->r);
	tmpl_set_free(fx->t);
	diags_release(&fx->d);
}

/* J(x, "a", "b", NULL): x.a.b, or NULL */
static const cJSON *J(const cJSON *j, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, j);
	while (j && (k = va_arg(ap, const char *)))
		j = cJSON_GetObjectItemCaseSensitive(j, k);
	va_end(ap);
	return j;
}

static const char *S(const cJSON *j)
{
	ck_assert_msg(cJSON_IsString(j), "not a string: %s",
		      j ? (j->string ? j->string : "(item)") : "(missing)");
	return j->valuestring;
}

static const char *kind_of(const cJSON *doc)
{
	return S(J(doc, "kind", NULL));
}

static const char *name_of(const cJSON *doc)
{
	return S(J(doc, "metadata", "name", NULL));
}

static const cJSON *doc(const struct fx *fx, const char *kind,
			const char *name)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, fx->r.docs)
	{
		if (!strcmp(kind_of(d), kind) && !strcmp(name_of(d), name))
			return d;
	}
	ck_abort_msg("no %s '%s'", kind, name);
	return NULL;
}

static size_t count_kind(const struct fx *fx, const char *kind)
{
	const cJSON *d;
	size_t n = 0;

	cJSON_ArrayForEach(d, fx->r.docs)
	{
		n += !strcmp(kind_of(d), kind);
	}
	return n;
}

/* JSON equality against a literal */
static void assert_json(const cJSON *got, const char *want_text)
{
	cJSON *want = cJSON_Parse(want_text);
	char *g = got ? cJSON_PrintUnformatted(got) : NULL;

	ck_assert_msg(want != NULL, "bad JSON in test: %s", want_text);
	ck_assert_msg(got && cJSON_Compare(got, want, 1), "got %s\nwant %s",
		      g ? g : "(missing)", want_text);
	free(g);
	cJSON_Delete(want);
}

static const cJSON *requirement(const cJSON *nodepool, const char *key)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, J(nodepool, "spec", "template", "spec",
				"requirements", NULL))
	{
		if (!strcmp(S(J(r, "key", NULL)), key))
			return r;
	}
	return NULL;
}

static int array_has(const cJSON *a, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, a)
	{
		if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
			return 1;
	}
	return 0;
}

/* a YAML text (a string inside a document) as JSON */
static cJSON *yaml_json(const char *text)
{
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;
	cJSON *j = NULL;

	ck_assert_msg(yaml_parse(&ys, text, strlen(text), "t", &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_uint_eq(ys.nr, 1);
	ck_assert_int_eq(yaml_to_json(&j, ys.docs[0].root, "t", &err), 0);
	ystream_release(&ys);
	err_release(&err);
	return j;
}

static const cJSON *addon(const struct fx *fx, const char *file)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(fx->r.addons, file);

	ck_assert_msg(a != NULL, "no add-on %s", file);
	return a;
}

/* ---- objects and order -------------------------------------------------- */

static int kind_rank(const char *kind)
{
	static const char *const order[] = {
		"Namespace",	     "ConfigMap",      "EC2NodeClass",
		"NodeOverlay",       "NodePool",       "WorkloadPriorityClass",
		"ResourceFlavor",    "ClusterQueue",   "LocalQueue",
	};
	for (int i = 0; i < 9; i++)
		if (!strcmp(kind, order[i]))
			return i;
	ck_abort_msg("unexpected kind %s", kind);
	return -1;
}

static void assert_ordered(const struct fx *fx)
{
	const cJSON *d, *prev = NULL;

	cJSON_ArrayForEach(d, fx->r.docs)
	{
		if (prev) {
			int rp = kind_rank(kind_of(prev)), rd = kind_rank(kind_of(d));
			ck_assert_msg(rp <= rd, "%s before %s", kind_of(prev),
				      kind_of(d));
			ck_assert_msg(render_doc_cmp(prev, d) < 0,
				      "%s/%s not before %s/%s", kind_of(prev),
				      name_of(prev), kind_of(d), name_of(d));
			ck_assert_int_gt(render_doc_cmp(d, prev), 0);
		}
		prev = d;
	}
}

START_TEST(test_objects_and_order_bottlerocket)
{
	struct fx fx;
	static const char *const first[] = { "Namespace/ci", "Namespace/dev",
					     "Namespace/research",
					     "Namespace/serving" };
	const cJSON *d;
	size_t i = 0;

	render_intent(&fx, br_intent);
	assert_ordered(&fx);
	ck_assert_uint_eq(count_kind(&fx, "Namespace"), 4);
	ck_assert_uint_eq(count_kind(&fx, "ConfigMap"), 0);
	ck_assert_uint_eq(count_kind(&fx, "EC2NodeClass"), 5);
	ck_assert_uint_eq(count_kind(&fx, "NodePool"), 6);
	ck_assert_uint_eq(count_kind(&fx, "WorkloadPriorityClass"), 3);
	ck_assert_uint_eq(count_kind(&fx, "ResourceFlavor"), 5);
	ck_assert_uint_eq(count_kind(&fx, "ClusterQueue"), 5);
	ck_assert_uint_eq(count_kind(&fx, "LocalQueue"), 5);
	/* ci (T4 x 4 replicas on 1-, 4- and 8-GPU types) and emb (p4de);
	 * pretrain's hugepages (EFA on Bottlerocket, p5.48xlarge) */
	ck_assert_uint_eq(count_kind(&fx, "NodeOverlay"), 3 + 1 + 1);
	ck_assert_int_eq(cJSON_GetArraySize(fx.r.docs),
			 4 + 5 + 5 + 6 + 3 + 5 * 3);
	/* Bottlerocket reserves 110 pages of 2 MiB per vCPU with EFA
	 * (corndog compute_hugepages_for_efa): 192 vCPUs */
	d = doc(&fx, "NodeOverlay", "pretrain-hugepages-192cpu");
	ck_assert_str_eq(S(J(d, "spec", "capacity", "hugepages-2Mi", NULL)),
			 "42240Mi");
	assert_json(J(d, "spec", "requirements", NULL),
		    "[{\"key\":\"karpenter.sh/nodepool\",\"operator\":\"In\","
		    "\"values\":[\"pretrain\"]},{\"key\":"
		    "\"node.kubernetes.io/instance-type\",\"operator\":\"In\","
		    "\"values\":[\"p5.48xlarge\"]}]");
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		char kn[128];
		if (i == 4)
			break;
		snprintf(kn, sizeof(kn), "%s/%s", kind_of(d), name_of(d));
		ck_assert_str_eq(kn, first[i]);
		i++;
	}
	/* node classes by name */
	doc(&fx, "EC2NodeClass", "general");
	doc(&fx, "EC2NodeClass", "gpu");
	doc(&fx, "EC2NodeClass", "gpu-efa");
	doc(&fx, "EC2NodeClass", "gpu-ts4");
	doc(&fx, "EC2NodeClass", "gpu-mig-1g-10gb");
	ck_assert_str_eq(fx.r.cluster, "ml-prod");
	/* the Kubernetes identity of each kind */
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "serve"), "apiVersion", NULL)),
			 "karpenter.sh/v1");
	ck_assert_str_eq(S(J(doc(&fx, "EC2NodeClass", "gpu"), "apiVersion",
			     NULL)),
			 "karpenter.k8s.aws/v1");
	ck_assert_str_eq(S(J(doc(&fx, "ClusterQueue", "serve"), "apiVersion",
			     NULL)),
			 "kueue.x-k8s.io/v1beta2");
	release(&fx);
}
END_TEST

START_TEST(test_objects_and_order_al2023)
{
	static const char *const want[] = {
		"Namespace//migw",
		"Namespace//serving",
		"Namespace//train",
		"ConfigMap/kube-system/gpuform-nvidia-device-plugin",
		"EC2NodeClass//gpu",
		"NodeOverlay//small-gpu-16",
		"NodeOverlay//small-gpu-32",
		"NodeOverlay//small-gpu-4",
		"NodePool//large",
		"NodePool//migw",
		"NodePool//small",
		"NodePool//train",
		"WorkloadPriorityClass//gpuform-inference",
		"WorkloadPriorityClass//gpuform-training",
		"ResourceFlavor//large",
		"ResourceFlavor//migw",
		"ResourceFlavor//small",
		"ResourceFlavor//train",
		"ClusterQueue//large",
		"ClusterQueue//migw",
		"ClusterQueue//small",
		"ClusterQueue//train",
		"LocalQueue/migw/migw",
		"LocalQueue/serving/large",
		"LocalQueue/serving/small",
		"LocalQueue/train/train",
	};
	struct fx fx;
	const cJSON *d;
	size_t i = 0;

	render_intent(&fx, al_intent);
	assert_ordered(&fx);
	ck_assert_int_eq(cJSON_GetArraySize(fx.r.docs),
			 (int)(sizeof(want) / sizeof(want[0])));
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		char kn[256];
		const cJSON *ns = J(d, "metadata", "namespace", NULL);
		snprintf(kn, sizeof(kn), "%s/%s/%s", kind_of(d),
			 ns ? S(ns) : "", name_of(d));
		ck_assert_str_eq(kn, want[i]);
		i++;
	}
	release(&fx);
}
END_TEST

START_TEST(test_labels)
{
	static const char *const intents[] = { br_intent, al_intent };

	for (size_t k = 0; k < 2; k++) {
		struct fx fx;
		const cJSON *d;

		render_intent(&fx, intents[k]);
		cJSON_ArrayForEach(d, fx.r.docs)
		{
			const cJSON *l = J(d, "metadata", "labels", NULL);
			const char *kind = kind_of(d);
			const cJSON *w = J(l, "gpuform.io/workload", NULL);
			int per_workload =
				!strcmp(kind, "ResourceFlavor") ||
				!strcmp(kind, "ClusterQueue") ||
				!strcmp(kind, "LocalQueue") ||
				!strcmp(kind, "NodeOverlay") ||
				(!strcmp(kind, "NodePool") &&
				 strcmp(name_of(d), "general"));

			ck_assert_str_eq(S(J(l, "app.kubernetes.io/managed-by",
					     NULL)),
					 "gpuform");
			ck_assert_str_eq(S(J(l, "gpuform.io/cluster", NULL)),
					 fx.r.cluster);
			if (per_workload && !strcmp(kind, "NodeOverlay"))
				/* "<workload>-gpu-<capacity>" */
				ck_assert_msg(w && !strncmp(S(w), name_of(d),
							    strlen(S(w))),
					      "%s/%s: workload label", kind,
					      name_of(d));
			else if (per_workload)
				ck_assert_msg(w && !strcmp(S(w), name_of(d)),
					      "%s/%s: workload label", kind,
					      name_of(d));
			else
				ck_assert_msg(w == NULL,
					      "%s/%s has a workload label", kind,
					      name_of(d));
		}
		release(&fx);
	}
}
END_TEST

/* ---- the disruption matrix ---------------------------------------------- */

/*
 * A NodePool's disruption settings per interruption class, a case a row:
 * spec.disruption equals `disruption`; when set, the capacity-type values
 * equal `capacity` and expireAfter is `expire`; terminationGracePeriod is
 * `grace` ("-": absent; NULL: not checked).
 */
/* clang-format off: a table, laid out by hand */
#define BLOCKED_IN_WINDOW                                                      \
	"{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\","               \
	"\"consolidateAfter\":\"30m\",\"budgets\":["                           \
	"{\"nodes\":\"0\",\"schedule\":\"0 6 * * sat\","                       \
	"\"duration\":\"164h\","                                               \
	"\"reasons\":[\"Underutilized\",\"Drifted\"]},"                        \
	"{\"nodes\":\"10%\"}]}"
#define ALWAYS_BLOCKED                                                         \
	"{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\","               \
	"\"consolidateAfter\":\"30m\",\"budgets\":["                           \
	"{\"nodes\":\"0\","                                                    \
	"\"reasons\":[\"Underutilized\",\"Drifted\"]},"                        \
	"{\"nodes\":\"10%\"}]}"

static const struct disruption_case {
	const char *what, *intent, *pool;
	const char *disruption, *capacity, *expire, *grace;
} disruption_cases[] = {
	/* none: blocked outside the window (its complement), 10% inside */
	{ "none", br_intent, "pretrain", BLOCKED_IN_WINDOW, "[\"on-demand\"]",
	  "Never", "-" },
	/* none, no window: always blocked; Empty still rate-limited */
	{ "none, no window", plain_intent, "t", ALWAYS_BLOCKED, NULL, NULL,
	  NULL },
	/* checkpointed: like none inside and outside the window, but spot,
	 * and a drifted node drains within terminationGracePeriod; never
	 * expired */
	{ "checkpointed", br_intent, "serve", BLOCKED_IN_WINDOW,
	  "[\"on-demand\",\"spot\"]", "Never", "1h" },
	/* checkpointed, no window: never outside it, i.e. always blocked */
	{ "checkpointed, no window", al_intent, "large", ALWAYS_BLOCKED, NULL,
	  NULL, NULL },
	{ "tolerant", br_intent, "play",
	  "{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\","
	  "\"consolidateAfter\":\"5m\"}",
	  "[\"on-demand\",\"spot\"]", "720h", "1h" },
};
/* clang-format on */

START_TEST(test_disruption_class)
{
	const struct disruption_case *c = &disruption_cases[_i];
	struct fx fx;
	const cJSON *np, *tgp;

	render_intent(&fx, c->intent);
	np = doc(&fx, "NodePool", c->pool);
	assert_json(J(np, "spec", "disruption", NULL), c->disruption);
	if (c->capacity)
		assert_json(J(requirement(np, "karpenter.sh/capacity-type"),
			      "values", NULL),
			    c->capacity);
	if (c->expire)
		ck_assert_str_eq(S(J(np, "spec", "template", "spec",
				     "expireAfter", NULL)),
				 c->expire);
	tgp = J(np, "spec", "template", "spec", "terminationGracePeriod", NULL);
	if (c->grace && !strcmp(c->grace, "-"))
		ck_assert_msg(tgp == NULL, "%s: terminationGracePeriod is set",
			      c->what);
	else if (c->grace)
		ck_assert_str_eq(S(tgp), c->grace);
	release(&fx);
}
END_TEST

START_TEST(test_disruption_daily_window)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: d1}\nspec:\n  nodeRole: r\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  maintenanceWindow: {schedule: \"30 3 * * *\", duration: 2h}\n"
		"  workloads:\n"
		"    - {name: t, type: training, gpu: h100, maxGpus: 8}\n";
	struct fx fx;
	const cJSON *b;

	render_intent(&fx, text);
	b = J(doc(&fx, "NodePool", "t"), "spec", "disruption", "budgets", NULL);
	ck_assert_int_eq(cJSON_GetArraySize(b), 2);
	ck_assert_str_eq(S(J(cJSON_GetArrayItem(b, 0), "schedule", NULL)),
			 "30 5 * * *");
	ck_assert_str_eq(S(J(cJSON_GetArrayItem(b, 0), "duration", NULL)),
			 "22h");
	release(&fx);
}
END_TEST

/*
 * What the rendered budgets let Karpenter do, evaluated as Karpenter does
 * (pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason: the smallest
 * active budget naming the reason wins, none = unlimited; WhenEmpty never
 * consolidates busy nodes), at a minute of the week (0 = Sunday 00:00 UTC)
 * — checked against the definition in generator/interruption.h for every
 * class, reason, and a minute inside and outside the window.
 */
static int allowed_at(const cJSON *np, enum disr_reason r, long mow)
{
	const cJSON *d = J(np, "spec", "disruption", NULL), *b, *x;
	const cJSON *pol = J(d, "consolidationPolicy", NULL);
	long n = 1000000;

	if (r == DR_EXPIRED) {
		const cJSON *ea = J(np, "spec", "template", "spec",
				    "expireAfter", NULL);
		return !(cJSON_IsString(ea) && !strcmp(ea->valuestring, "Never"));
	}
	if (r == DR_UNDERUTILIZED && cJSON_IsString(pol) &&
	    !strcmp(pol->valuestring, "WhenEmpty"))
		return 0;
	cJSON_ArrayForEach(b, J(d, "budgets", NULL))
	{
		const cJSON *rs = J(b, "reasons", NULL);
		const cJSON *sched = J(b, "schedule", NULL);
		int applies = !cJSON_GetArraySize(rs), active = 1;
		long v;

		cJSON_ArrayForEach(x, rs)
		{
			applies |= !strcmp(S(x), disr_reason_names[r]);
		}
		if (!applies)
			continue;
		if (sched) {
			struct window w;
			struct buf why = BUF_INIT;
			ck_assert_int_eq(window_parse(&w, S(sched),
						      S(J(b, "duration", NULL)),
						      &why),
					 0);
			buf_release(&why);
			active = window_next_start(&w, mow) == 0;
		}
		if (!active)
			continue;
		/* 10% of any pool rounds up to at least one node */
		v = strchr(S(J(b, "nodes", NULL)), '%') &&
				    atol(S(J(b, "nodes", NULL))) > 0
			    ? 1
			    : atol(S(J(b, "nodes", NULL)));
		if (v < n)
			n = v;
	}
	return n > 0;
}

START_TEST(test_disruption_behaviour)
{
	static const char with_window[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: b}\nspec:\n  nodeRole: r\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
		"  workloads:\n"
		"    - {name: none, type: training, gpu: l4+, interruption: none, maxGpus: 8}\n"
		"    - {name: checkpointed, type: training, gpu: l4+, interruption: checkpointed, maxGpus: 8}\n"
		"    - {name: tolerant, type: dev, gpu: l4+, interruption: tolerant, maxGpus: 8}\n"
		"    - {name: serving, type: inference, gpu: l4+, maxGpus: 8}\n";
	static const char *const pools[] = { "none", "checkpointed", "tolerant" };
	/* Saturday 02:00, 03:00, 05:59 inside; 06:00, Wednesday noon and
	 * Saturday 01:59 outside */
	static const long inside[] = { 6 * 1440 + 120, 6 * 1440 + 180,
				       6 * 1440 + 359 };
	static const long outside[] = { 6 * 1440 + 360, 3 * 1440 + 720,
					6 * 1440 + 119 };
	struct fx fx;

	for (int pass = 0; pass < 2; pass++) {
		/* pass 1: the same intent without a window */
		char *text = xstrdup(with_window);
		if (pass) {
			char *w = strstr(text, "  maintenanceWindow");
			char *e = strchr(w, '\n') + 1;
			memmove(w, e, strlen(e) + 1);
		}
		render_intent(&fx, text);
		for (int c = 0; c < 3; c++) {
			const cJSON *np = doc(&fx, "NodePool", pools[c]);
			for (int r = 0; r < DR_NREASONS; r++) {
				enum disr_when want = interruption_allows(
					(enum wl_interruption)c, (enum disr_reason)r);
				for (int i = 0; i < 3; i++) {
					int in = allowed_at(np, r, inside[i]);
					int out = allowed_at(np, r, outside[i]);
					int want_in = want == DW_ALWAYS ||
						      (want == DW_IN_WINDOW && !pass);
					ck_assert_msg(in == want_in &&
							      out == (want == DW_ALWAYS),
						      "%s %s%s: inside %d outside %d, "
						      "class says %s",
						      pools[c], disr_reason_names[r],
						      pass ? " (no window)" : "", in,
						      out, disr_when_names[want]);
				}
			}
		}
		/* serving defaults to none: the same NodePool behaviour */
		ck_assert_str_eq(S(J(doc(&fx, "NodePool", "serving"), "metadata",
				     "annotations", "gpuform.io/interruption",
				     NULL)),
				 "none");
		release(&fx);
		free(text);
	}
}
END_TEST

START_TEST(test_definition)
{
	/* expiry cannot be confined to a window: always or never */
	for (int c = 0; c < 3; c++)
		ck_assert_int_ne(interruption_allows((enum wl_interruption)c,
						     DR_EXPIRED),
				 DW_IN_WINDOW);
	/* an empty node runs no workload: always removable */
	for (int c = 0; c < 3; c++)
		ck_assert_int_eq(interruption_allows((enum wl_interruption)c,
						     DR_EMPTY),
				 DW_ALWAYS);
	ck_assert_int_eq(interruption_allows(INT_NONE, DR_DRIFTED), DW_IN_WINDOW);
	ck_assert_int_eq(interruption_allows(INT_CHECKPOINTED, DR_UNDERUTILIZED),
			 DW_IN_WINDOW);
	ck_assert_int_eq(interruption_allows(INT_TOLERANT, DR_EXPIRED), DW_ALWAYS);
	ck_assert(!interruption_spot(INT_NONE));
	ck_assert(interruption_spot(INT_CHECKPOINTED));
	ck_assert_ptr_null(interruption_grace(INT_NONE));
	ck_assert_str_eq(interruption_grace(INT_CHECKPOINTED), "1h");
}
END_TEST

/* the reconcile guard's decision (cmd/nodeimpact.c calls it) */
START_TEST(test_guard_hold)
{
	/* Saturday 02:00 for 4h; minutes of the week, 0 = Sunday 00:00 */
	static const char *const S = "0 2 * * sat", *const D = "4h";
	long mins;
	struct buf why = BUF_INIT;

	/* none and checkpointed: held outside the window, told when it opens */
	ck_assert_int_eq(interruption_hold("none", S, D, 3 * 1440 + 720, &mins,
					   &why),
			 1);
	ck_assert_int_eq(mins, 3 * 1440 - 720 + 120);
	ck_assert_int_eq(interruption_hold("checkpointed", S, D, 6 * 1440 + 360,
					   &mins, &why),
			 1);
	ck_assert_int_eq(mins, 7 * 1440 - 240);
	/* inside: allowed */
	ck_assert_int_eq(interruption_hold("none", S, D, 6 * 1440 + 120, &mins,
					   &why),
			 0);
	ck_assert_int_eq(interruption_hold("checkpointed", S, D, 6 * 1440 + 359,
					   &mins, &why),
			 0);
	/* tolerant and unknown classes are never held */
	ck_assert_int_eq(interruption_hold("tolerant", S, D, 3 * 1440, &mins,
					   &why),
			 0);
	ck_assert_int_eq(interruption_hold(NULL, S, D, 3 * 1440, &mins, &why), 0);
	ck_assert_int_eq(interruption_hold("None", S, D, 3 * 1440, &mins, &why),
			 0);
	/* no window, or a malformed one: always held, no opening time */
	ck_assert_int_eq(interruption_hold("checkpointed", NULL, NULL, 0, &mins,
					   &why),
			 1);
	ck_assert_int_eq(mins, -1);
	ck_assert_uint_eq(why.len, 0);
	ck_assert_int_eq(interruption_hold("none", "0 2 * *", D, 0, &mins, &why),
			 1);
	ck_assert_int_eq(mins, -1);
	ck_assert_uint_gt(why.len, 0);
	buf_release(&why);
}
END_TEST

/* ---- NodePools ------------------------------------------------------------ */

START_TEST(test_general_pool)
{
	struct fx fx;
	const cJSON *np, *r;

	render_intent(&fx, br_intent);
	np = doc(&fx, "NodePool", "general");
	r = requirement(np, "karpenter.k8s.aws/instance-gpu-count");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(S(J(r, "operator", NULL)), "DoesNotExist");
	ck_assert_ptr_null(J(r, "values", NULL));
	r = requirement(np, "karpenter.k8s.aws/instance-accelerator-count");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(S(J(r, "operator", NULL)), "DoesNotExist");
	r = requirement(np, "karpenter.k8s.aws/instance-family");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(S(J(r, "operator", NULL)), "NotIn");
	for (const char *const *f = (const char *const[]){ "g6f", "gr6f", "p5",
							   "g6", "p4de",
							   "g4dn", NULL };
	     *f; f++)
		ck_assert_msg(array_has(J(r, "values", NULL), *f),
			      "general pool does not exclude %s", *f);
	assert_json(J(requirement(np, "karpenter.k8s.aws/instance-category"),
		      "values", NULL),
		    "[\"c\",\"m\",\"r\"]");
	assert_json(J(requirement(np, "karpenter.sh/capacity-type"), "values",
		      NULL),
		    "[\"on-demand\",\"spot\"]");
	ck_assert_str_eq(S(J(np, "spec", "template", "spec", "nodeClassRef",
			     "name", NULL)),
			 "general");
	/* no GPU taint on CPU nodes */
	ck_assert_ptr_null(J(np, "spec", "template", "spec", "taints", NULL));
	assert_json(J(np, "spec", "disruption", NULL),
		    "{\"consolidationPolicy\":\"WhenEmptyOrUnderutilized\","
		    "\"consolidateAfter\":\"1m\"}");
	ck_assert_ptr_null(J(np, "spec", "template", "metadata", "labels",
			     "gpuform.io/workload", NULL));
	ck_assert_str_eq(S(J(np, "spec", "template", "metadata", "labels",
			     "gpuform.io/pool", NULL)),
			 "general");
	release(&fx);
}
END_TEST

START_TEST(test_gpu_pool_requirements)
{
	struct fx fx;
	const cJSON *np, *r;

	render_intent(&fx, br_intent);
	np = doc(&fx, "NodePool", "pretrain");
	r = requirement(np, "karpenter.k8s.aws/instance-family");
	ck_assert_str_eq(S(J(r, "operator", NULL)), "In");
	assert_json(J(r, "values", NULL), "[\"p5\"]");
	assert_json(J(requirement(np, "karpenter.k8s.aws/instance-gpu-name"),
		      "values", NULL),
		    "[\"h100\"]");
	r = requirement(np, "karpenter.k8s.aws/instance-gpu-count");
	ck_assert_str_eq(S(J(r, "operator", NULL)), "Gt");
	assert_json(J(r, "values", NULL), "[\"7\"]");
	assert_json(J(requirement(np, "kubernetes.io/arch"), "values", NULL),
		    "[\"amd64\"]");
	assert_json(J(np, "spec", "template", "spec", "taints", NULL),
		    "[{\"key\":\"nvidia.com/gpu\",\"value\":\"true\","
		    "\"effect\":\"NoSchedule\"}]");
	ck_assert_str_eq(S(J(np, "spec", "template", "spec", "nodeClassRef",
			     "name", NULL)),
			 "gpu-efa");
	assert_json(J(np, "spec", "limits", NULL), "{\"nvidia.com/gpu\":\"16\"}");
	assert_json(J(np, "spec", "template", "metadata", "labels", NULL),
		    "{\"gpuform.io/cluster\":\"ml-prod\","
		    "\"gpuform.io/pool\":\"pretrain\","
		    "\"gpuform.io/workload\":\"pretrain\","
		    "\"gpuform.io/workload-type\":\"training\"}");

	/* l4+: sorted family allow-list and GPU names; count > 0 */
	np = doc(&fx, "NodePool", "serve");
	assert_json(J(requirement(np, "karpenter.k8s.aws/instance-family"),
		      "values", NULL),
		    "[\"g6\",\"g6e\",\"gr6\",\"p4d\",\"p4de\",\"p5\",\"p5e\","
		    "\"p5en\",\"p6-b200\"]");
	assert_json(J(requirement(np, "karpenter.k8s.aws/instance-gpu-name"),
		      "values", NULL),
		    "[\"a100\",\"b200\",\"h100\",\"h200\",\"l4\",\"l40s\"]");
	assert_json(J(requirement(np, "karpenter.k8s.aws/instance-gpu-count"),
		      "values", NULL),
		    "[\"0\"]");
	ck_assert_str_eq(S(J(np, "spec", "template", "spec", "nodeClassRef",
			     "name", NULL)),
			 "gpu");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "ci"), "spec", "template",
			     "spec", "nodeClassRef", "name", NULL)),
			 "gpu-ts4");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "emb"), "spec", "template",
			     "spec", "nodeClassRef", "name", NULL)),
			 "gpu-mig-1g-10gb");
	/* Bottlerocket: no device-plugin labels */
	ck_assert_ptr_null(J(np, "spec", "template", "metadata", "labels",
			     "nvidia.com/device-plugin.config", NULL));
	release(&fx);
}
END_TEST

/* ---- EC2NodeClasses --------------------------------------------------------- */

START_TEST(test_bottlerocket_block_devices)
{
	struct fx fx;

	render_intent(&fx, br_intent);
	/* GPU classes: OS volume plus the data volume seeded from the
	 * snapshot, sized as the cache */
	assert_json(J(doc(&fx, "EC2NodeClass", "gpu-efa"), "spec",
		      "blockDeviceMappings", NULL),
		    "[{\"deviceName\":\"/dev/xvda\",\"ebs\":{\"volumeSize\":"
		    "\"4Gi\",\"volumeType\":\"gp3\",\"iops\":3000,"
		    "\"throughput\":125,\"encrypted\":true,"
		    "\"deleteOnTermination\":true}},"
		    "{\"deviceName\":\"/dev/xvdb\",\"rootVolume\":true,"
		    "\"ebs\":{\"volumeSize\":\"300Gi\",\"volumeType\":\"gp3\","
		    "\"iops\":6000,\"throughput\":500,\"encrypted\":true,"
		    "\"deleteOnTermination\":true,"
		    "\"snapshotID\":\"snap-0123456789abcdef0\","
		    "\"volumeInitializationRate\":300}}]");
	ck_assert_str_eq(S(J(cJSON_GetArrayItem(J(doc(&fx, "EC2NodeClass",
						    "gpu-ts4"),
						"spec", "blockDeviceMappings",
						NULL),
					      1),
			     "ebs", "snapshotID", NULL)),
			 "snap-0123456789abcdef0");
	/* the CPU class: both volumes, no snapshot */
	assert_json(J(doc(&fx, "EC2NodeClass", "general"), "spec",
		      "blockDeviceMappings", NULL),
		    "[{\"deviceName\":\"/dev/xvda\",\"ebs\":{\"volumeSize\":"
		    "\"4Gi\",\"volumeType\":\"gp3\",\"iops\":3000,"
		    "\"throughput\":125,\"encrypted\":true,"
		    "\"deleteOnTermination\":true}},"
		    "{\"deviceName\":\"/dev/xvdb\",\"rootVolume\":true,"
		    "\"ebs\":{\"volumeSize\":\"50Gi\",\"volumeType\":\"gp3\","
		    "\"iops\":3000,\"throughput\":125,\"encrypted\":true,"
		    "\"deleteOnTermination\":true}}]");
	release(&fx);

	/* no image cache: 200Gi data volume, no snapshot */
	render_intent(&fx, plain_intent);
	{
		const cJSON *b = J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
				   "blockDeviceMappings", NULL);
		ck_assert_int_eq(cJSON_GetArraySize(b), 2);
		ck_assert_str_eq(S(J(cJSON_GetArrayItem(b, 0), "deviceName",
				     NULL)),
				 "/dev/xvda");
		ck_assert_str_eq(S(J(cJSON_GetArrayItem(b, 1), "deviceName",
				     NULL)),
				 "/dev/xvdb");
		ck_assert_str_eq(S(J(cJSON_GetArrayItem(b, 1), "ebs",
				     "volumeSize", NULL)),
				 "200Gi");
		ck_assert_ptr_null(J(cJSON_GetArrayItem(b, 1), "ebs",
				     "snapshotID", NULL));
	}
	release(&fx);
}
END_TEST

START_TEST(test_al2023_block_devices)
{
	struct fx fx;

	render_intent(&fx, al_intent);
	assert_json(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
		      "blockDeviceMappings", NULL),
		    "[{\"deviceName\":\"/dev/xvda\",\"rootVolume\":true,"
		    "\"ebs\":{\"volumeSize\":\"200Gi\",\"volumeType\":\"gp3\","
		    "\"iops\":6000,\"throughput\":500,\"encrypted\":true,"
		    "\"deleteOnTermination\":true}}]");
	assert_json(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
		      "amiSelectorTerms", NULL),
		    "[{\"alias\":\"al2023@v20250505\"}]");
	/* GPU nodes use their local NVMe (RAID0, ephemeral-storage) */
	ck_assert_str_eq(S(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
			     "instanceStorePolicy", NULL)),
			 "RAID0");
	release(&fx);
	/* not with a Bottlerocket image cache (the bind of /var/lib/
	 * containerd would hide it), never on the general class */
	render_intent(&fx, br_intent);
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
			     "instanceStorePolicy", NULL));
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "general"), "spec",
			     "instanceStorePolicy", NULL));
	release(&fx);
}
END_TEST

START_TEST(test_nodeclass_security_groups_and_identity)
{
	struct fx fx;
	const cJSON *nc;

	render_intent(&fx, br_intent);
	nc = doc(&fx, "EC2NodeClass", "gpu-efa");
	assert_json(J(nc, "spec", "securityGroupSelectorTerms", NULL),
		    "[{\"tags\":{\"karpenter.sh/discovery\":\"ml-prod\"}},"
		    "{\"id\":\"sg-0123456789abcdef0\"}]");
	assert_json(J(nc, "spec", "subnetSelectorTerms", NULL),
		    "[{\"tags\":{\"karpenter.sh/discovery\":\"ml-prod\"}}]");
	ck_assert_str_eq(S(J(nc, "spec", "role", NULL)),
			 "KarpenterNodeRole-ml-prod");
	ck_assert_ptr_null(J(nc, "spec", "instanceProfile", NULL));
	assert_json(J(nc, "spec", "amiSelectorTerms", NULL),
		    "[{\"alias\":\"bottlerocket@v1.38.0\"}]");
	assert_json(J(nc, "spec", "tags", NULL),
		    "{\"gpuform.io/cluster\":\"ml-prod\","
		    "\"gpuform.io/nodeclass\":\"gpu-efa\"}");
	ck_assert_str_eq(S(J(nc, "spec", "metadataOptions", "httpTokens", NULL)),
			 "required");
	/* without EFA: only the discovery tag */
	for (const char *const *n = (const char *const[]){ "gpu", "general",
							   "gpu-ts4", NULL };
	     *n; n++)
		assert_json(J(doc(&fx, "EC2NodeClass", *n), "spec",
			      "securityGroupSelectorTerms", NULL),
			    "[{\"tags\":{\"karpenter.sh/discovery\":"
			    "\"ml-prod\"}}]");
	release(&fx);
}
END_TEST

START_TEST(test_max_pods_with_prefix_delegation)
{
	struct fx fx;
	const cJSON *d;

	render_intent(&fx, br_intent);
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		if (strcmp(kind_of(d), "EC2NodeClass"))
			continue;
		assert_json(J(d, "spec", "kubelet", NULL), "{\"maxPods\":110}");
	}
	assert_json(J(addon(&fx, "vpc-cni.yaml"), "env", NULL),
		    "{\"ENABLE_PREFIX_DELEGATION\":\"true\","
		    "\"WARM_PREFIX_TARGET\":\"1\"}");
	release(&fx);

	render_intent(&fx, al_intent);
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu"), "spec", "kubelet",
			     NULL));
	assert_json(J(addon(&fx, "vpc-cni.yaml"), "env", NULL),
		    "{\"ENABLE_PREFIX_DELEGATION\":\"false\"}");
	release(&fx);
}
END_TEST

START_TEST(test_bottlerocket_user_data)
{
	struct fx fx;

	render_intent(&fx, br_intent);
	ck_assert_str_eq(
		S(J(doc(&fx, "EC2NodeClass", "gpu-ts4"), "spec", "userData",
		    NULL)),
		"[settings.kubelet-device-plugins.nvidia]\n"
		"device-sharing-strategy = \"time-slicing\"\n"
		"\n"
		"[settings.kubelet-device-plugins.nvidia.time-slicing]\n"
		"replicas = 4\n"
		"rename-by-default = false\n"
		"fail-requests-greater-than-one = true\n");
	ck_assert_str_eq(
		S(J(doc(&fx, "EC2NodeClass", "gpu-mig-1g-10gb"), "spec",
		    "userData", NULL)),
		"[settings.kubelet-device-plugins.nvidia]\n"
		"device-partitioning-strategy = \"mig\"\n"
		"\n"
		"[settings.kubelet-device-plugins.nvidia.mig.profile]\n"
		"\"a100.80gb\" = \"1g.10gb\"\n");
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
			     "userData", NULL));
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu-efa"), "spec",
			     "userData", NULL));
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "general"), "spec",
			     "userData", NULL));
	release(&fx);

	/* AL2023: sharing is not in userData */
	render_intent(&fx, al_intent);
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
			     "userData", NULL));
	release(&fx);
}
END_TEST

/* ---- AL2023 device plugin ------------------------------------------------- */

START_TEST(test_al2023_device_plugin_config)
{
	struct fx fx;
	const cJSON *cm, *data, *v;
	cJSON *conf;
	int n = 0;

	render_intent(&fx, al_intent);
	cm = doc(&fx, "ConfigMap", "gpuform-nvidia-device-plugin");
	ck_assert_str_eq(S(J(cm, "metadata", "namespace", NULL)), "kube-system");
	data = J(cm, "data", NULL);
	cJSON_ArrayForEach(v, data)
	{
		ck_assert_msg(!strcmp(v->string, "default") ||
				      !strcmp(v->string, "ts-4"),
			      "unexpected config %s", v->string);
		n++;
	}
	ck_assert_int_eq(n, 2);

	conf = yaml_json(S(J(data, "default", NULL)));
	assert_json(conf, "{\"version\":\"v1\",\"flags\":{\"migStrategy\":\"none\"}}");
	cJSON_Delete(conf);
	conf = yaml_json(S(J(data, "ts-4", NULL)));
	assert_json(conf, "{\"version\":\"v1\",\"flags\":{\"migStrategy\":\"none\"},"
			  "\"sharing\":{\"timeSlicing\":{\"renameByDefault\":false,"
			  "\"failRequestsGreaterThanOne\":true,\"resources\":"
			  "[{\"name\":\"nvidia.com/gpu\",\"replicas\":4}]}}}");
	cJSON_Delete(conf);

	/* each pool picks its config by node label */
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "small"), "spec", "template",
			     "metadata", "labels",
			     "nvidia.com/device-plugin.config", NULL)),
			 "ts-4");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "migw"), "spec", "template",
			     "metadata", "labels",
			     "nvidia.com/device-plugin.config", NULL)),
			 "default");
	/* no GPU Operator MIG label: MIG is refused on AL2023 */
	ck_assert_ptr_null(J(doc(&fx, "NodePool", "migw"), "spec", "template",
			     "metadata", "labels", "nvidia.com/mig.config",
			     NULL));
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "large"), "spec", "template",
			     "metadata", "labels",
			     "nvidia.com/device-plugin.config", NULL)),
			 "default");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "large"), "spec", "template",
			     "metadata", "labels", "nvidia.com/gpu.present",
			     NULL)),
			 "true");
	ck_assert_ptr_null(J(doc(&fx, "NodePool", "large"), "spec", "template",
			     "metadata", "labels", "nvidia.com/mig.config",
			     NULL));
	ck_assert_str_eq(S(J(addon(&fx, "nvidia-device-plugin-values.yaml"),
			     "config", "name", NULL)),
			 "gpuform-nvidia-device-plugin");
	release(&fx);

	/* the ConfigMap follows the chart's namespace, which is rendered */
	{
		char *text = xstrdup(al_intent);
		char *at = strstr(text, "  ami: al2023@v20250505\n");
		struct buf b = BUF_INIT;
		ck_assert_ptr_nonnull(at);
		buf_add(&b, text, (size_t)(at - text));
		buf_adds(&b, "  nvidiaDevicePlugin: {namespace: gpu-plugins}\n");
		buf_adds(&b, at);
		render_intent(&fx, buf_cstr(&b));
		ck_assert_str_eq(S(J(doc(&fx, "ConfigMap",
					 "gpuform-nvidia-device-plugin"),
				     "metadata", "namespace", NULL)),
				 "gpu-plugins");
		doc(&fx, "Namespace", "gpu-plugins");
		release(&fx);
		buf_release(&b);
		free(text);
	}

	/* Bottlerocket: plugin built in, nothing to deploy */
	render_intent(&fx, br_intent);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(
		fx.r.addons, "nvidia-device-plugin-values.yaml"));
	release(&fx);
}
END_TEST

/* ---- Kueue, add-ons --------------------------------------------------------- */

/* the numeric nominalQuota of resource in ClusterQueue cq */
static double quota(const struct fx *fx, const char *cq, const char *resource)
{
	const cJSON *groups = J(doc(fx, "ClusterQueue", cq), "spec",
				"resourceGroups", NULL);
	const cJSON *flavor = cJSON_GetArrayItem(
		J(cJSON_GetArrayItem(groups, 0), "flavors", NULL), 0);
	const cJSON *r;

	cJSON_ArrayForEach(r, J(flavor, "resources", NULL))
	{
		if (!strcmp(S(J(r, "name", NULL)), resource)) {
			ck_assert(cJSON_IsNumber(J(r, "nominalQuota", NULL)));
			return J(r, "nominalQuota", NULL)->valuedouble;
		}
	}
	ck_abort_msg("no %s quota in ClusterQueue %s", resource, cq);
	return -1;
}

START_TEST(test_kueue_objects)
{
	struct fx fx;
	const cJSON *cq;

	render_intent(&fx, br_intent);
	cq = doc(&fx, "ClusterQueue", "pretrain");
	/* one flavor per queue: a cohort would lend nothing */
	ck_assert_ptr_null(J(cq, "spec", "cohortName", NULL));
	assert_json(J(cq, "spec", "preemption", NULL),
		    "{\"withinClusterQueue\":\"LowerPriority\"}");
	ck_assert_str_eq(S(J(cq, "spec", "queueingStrategy", NULL)),
			 "StrictFIFO");
	ck_assert_str_eq(S(J(cq, "spec", "namespaceSelector", "matchLabels",
			     "kubernetes.io/metadata.name", NULL)),
			 "research");
	/* p5.48xlarge: 24 vCPU and 256 GiB per GPU; 32 EFA per 8-GPU pod */
	assert_json(J(cq, "spec", "resourceGroups", NULL),
		    "[{\"coveredResources\":[\"cpu\",\"memory\","
		    "\"nvidia.com/gpu\",\"vpc.amazonaws.com/efa\"],"
		    "\"flavors\":[{\"name\":\"pretrain\",\"resources\":["
		    "{\"name\":\"cpu\",\"nominalQuota\":384},"
		    "{\"name\":\"memory\",\"nominalQuota\":\"4096Gi\"},"
		    "{\"name\":\"nvidia.com/gpu\",\"nominalQuota\":16},"
		    "{\"name\":\"vpc.amazonaws.com/efa\",\"nominalQuota\":64}"
		    "]}]}]");
	cq = doc(&fx, "ClusterQueue", "serve");
	ck_assert_str_eq(S(J(cq, "spec", "queueingStrategy", NULL)),
			 "BestEffortFIFO");
	/* time-sliced and MIG quotas count what nodes advertise (an 80 GB
	 * A100 holds 7 x 1g.10gb: 8 GPUs, 56) */
	ck_assert_int_eq(quota(&fx, "ci", "nvidia.com/gpu"), 8);
	ck_assert_int_eq(quota(&fx, "emb", "nvidia.com/gpu"), 56);
	ck_assert_int_eq(quota(&fx, "serve", "nvidia.com/gpu"), 8);

	ck_assert_str_eq(S(J(doc(&fx, "ResourceFlavor", "pretrain"), "spec",
			     "nodeLabels", "gpuform.io/pool", NULL)),
			 "pretrain");
	ck_assert_str_eq(S(J(doc(&fx, "LocalQueue", "serve"), "metadata",
			     "namespace", NULL)),
			 "serving");
	ck_assert_str_eq(S(J(doc(&fx, "LocalQueue", "serve"), "spec",
			     "clusterQueue", NULL)),
			 "serve");
	ck_assert_int_eq(J(doc(&fx, "WorkloadPriorityClass",
			       "gpuform-inference"),
			   "value", NULL)
				 ->valueint,
			 1000);
	ck_assert_int_eq(J(doc(&fx, "WorkloadPriorityClass",
			       "gpuform-training"),
			   "value", NULL)
				 ->valueint,
			 500);
	ck_assert_int_eq(J(doc(&fx, "WorkloadPriorityClass", "gpuform-dev"),
			   "value", NULL)
				 ->valueint,
			 100);
	release(&fx);
}
END_TEST

START_TEST(test_spot_to_spot_consolidation)
{
	static const char t4_only[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: t4c}\nspec:\n  nodeRole: r\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  workloads:\n"
		"    - {name: ci, type: dev, gpu: t4, maxGpus: 2}\n";
	struct fx fx;
	const cJSON *k;

	/* "play" is tolerant on l4+ (23 types) */
	render_intent(&fx, br_intent);
	k = addon(&fx, "karpenter-values.yaml");
	ck_assert(cJSON_IsTrue(J(k, "settings", "featureGates",
				 "spotToSpotConsolidation", NULL)));
	ck_assert_str_eq(S(J(k, "settings", "clusterName", NULL)), "ml-prod");
	ck_assert_str_eq(S(J(k, "settings", "interruptionQueue", NULL)),
			 "ml-prod");
	release(&fx);

	/* a tolerant pool of 7 types does not count */
	render_intent(&fx, t4_only);
	k = addon(&fx, "karpenter-values.yaml");
	ck_assert(cJSON_IsFalse(J(k, "settings", "featureGates",
				  "spotToSpotConsolidation", NULL)));
	release(&fx);
}
END_TEST

START_TEST(test_pod_contract)
{
	struct fx fx;
	const cJSON *pc;

	render_intent(&fx, br_intent);
	pc = addon(&fx, "pod-contract-pretrain.yaml");
	ck_assert_str_eq(kind_of(pc), "PodContract");
	ck_assert_str_eq(S(J(pc, "metadata", "namespace", NULL)), "research");
	ck_assert_int_eq(J(pc, "gang", NULL)->valueint, 2);
	assert_json(J(pc, "annotations", NULL),
		    "{\"karpenter.sh/do-not-disrupt\":\"true\"}");
	assert_json(J(pc, "labels", NULL),
		    "{\"kueue.x-k8s.io/priority-class\":\"gpuform-training\","
		    "\"kueue.x-k8s.io/queue-name\":\"pretrain\"}");
	assert_json(J(pc, "nodeSelector", NULL),
		    "{\"gpuform.io/pool\":\"pretrain\"}");
	assert_json(J(pc, "resources", NULL),
		    "{\"requests\":{\"nvidia.com/gpu\":8,"
		    "\"vpc.amazonaws.com/efa\":32},"
		    "\"limits\":{\"nvidia.com/gpu\":8,"
		    "\"vpc.amazonaws.com/efa\":32}}");

	/* batch: no PodDisruptionBudget, no spread */
	ck_assert_ptr_null(J(pc, "podDisruptionBudget", NULL));
	ck_assert_ptr_null(J(pc, "topologySpreadConstraints", NULL));
	/* an EFA gang without placement.zone: all its pods in one zone,
	 * a required self pod affinity (Karpenter topologygroup.go
	 * nextDomainAffinity) */
	assert_json(J(pc, "affinity", NULL),
		    "{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
		    "Execution\":[{\"labelSelector\":{\"matchLabels\":"
		    "{\"kueue.x-k8s.io/queue-name\":\"pretrain\"}},"
		    "\"matchLabelKeys\":[\"gpuform.io/gang\"],"
		    "\"topologyKey\":\"topology.kubernetes.io/zone\"}]}}");
	/* NCCL's needs: /dev/shm in memory for a multi-GPU pod, the EFA
	 * provider with GPUDirect RDMA on p5.48xlarge */
	assert_json(J(pc, "shm", NULL),
		    "{\"mountPath\":\"/dev/shm\",\"emptyDir\":{\"medium\":"
		    "\"Memory\"}}");
	assert_json(J(pc, "env", NULL),
		    "{\"FI_PROVIDER\":\"efa\",\"FI_EFA_USE_DEVICE_RDMA\":\"1\"}");
	/* a 1-GPU pod without EFA: neither */
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-serve.yaml"), "shm", NULL));
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-serve.yaml"), "env", NULL));
	/* no gang, or no EFA: no affinity */
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-serve.yaml"), "affinity",
			     NULL));
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-play.yaml"), "affinity",
			     NULL));
	/* a shared serving pool: spread over zones only; over nodes every
	 * replica would get a node of its own under Karpenter's
	 * preferencePolicy Respect (Fixed bug: render.c serving_contract) */
	pc = addon(&fx, "pod-contract-emb.yaml");
	ck_assert_int_eq(cJSON_GetArraySize(J(pc, "topologySpreadConstraints",
					      NULL)),
			 1);
	ck_assert_str_eq(S(J(cJSON_GetArrayItem(J(pc, "topologySpreadConstraints",
						  NULL),
					       0),
			     "topologyKey", NULL)),
			 "topology.kubernetes.io/zone");
	/* serving: drained one replica at a time, spread over zones and
	 * nodes, selected by the queue label the contract puts on them */
	pc = addon(&fx, "pod-contract-serve.yaml");
	assert_json(J(pc, "podDisruptionBudget", NULL),
		    "{\"maxUnavailable\":1,\"selector\":{\"matchLabels\":"
		    "{\"kueue.x-k8s.io/queue-name\":\"serve\"}}}");
	ck_assert_int_eq(cJSON_GetArraySize(J(pc, "topologySpreadConstraints",
					      NULL)),
			 2);
	ck_assert_str_eq(S(J(cJSON_GetArrayItem(J(pc, "topologySpreadConstraints",
						  NULL),
					       0),
			     "topologyKey", NULL)),
			 "topology.kubernetes.io/zone");

	/* interruptible and without EFA */
	for (const char *const *n = (const char *const[]){
		     "pod-contract-serve.yaml", "pod-contract-play.yaml",
		     "pod-contract-ci.yaml", "pod-contract-emb.yaml", NULL };
	     *n; n++) {
		pc = addon(&fx, *n);
		ck_assert_msg(J(pc, "annotations", NULL) == NULL,
			      "%s has annotations", *n);
		ck_assert_ptr_null(J(pc, "resources", "requests",
				     "vpc.amazonaws.com/efa", NULL));
		ck_assert_int_eq(J(pc, "resources", "requests",
				   "nvidia.com/gpu", NULL)
					 ->valueint,
				 1);
	}
	release(&fx);
}
END_TEST

/* one EFA request per pool: the types whose share of EFA devices differs
 * from the request are out of the NodePool (Fixed bug: the request was the
 * smallest share, plan.c plan_gpu_pool) */
static const char efa_mix_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: mix}\n"
	"spec:\n"
	"  nodeRole: R\n"
	"  ami: al2023@v20250505\n"
	"  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
	"  workloads:\n"
	"    - {name: h200, type: training, gpu: h200, gpusPerPod: 8, gang: 2,\n"
	"       efa: true, maxGpus: 16, placement: {zone: us-east-1a}}\n"
	"    - {name: one, type: training, gpu: h100, efa: true, maxGpus: 16}\n";

START_TEST(test_efa_one_share)
{
	struct fx fx;
	const cJSON *r;

	render_intent(&fx, efa_mix_intent);
	r = requirement(doc(&fx, "NodePool", "h200"),
			"node.kubernetes.io/instance-type");
	assert_json(r, "{\"key\":\"node.kubernetes.io/instance-type\","
		       "\"operator\":\"NotIn\",\"values\":[\"p5e.48xlarge\"]}");
	/* p5en's 16 (p5e, 32, has no on-demand price in Karpenter's table:
	 * only reserved capacity launches it) */
	ck_assert_int_eq(J(addon(&fx, "pod-contract-h200.yaml"), "resources",
			   "requests", "vpc.amazonaws.com/efa", NULL)->valueint,
			 16);
	r = requirement(doc(&fx, "NodePool", "one"),
			"node.kubernetes.io/instance-type");
	assert_json(J(r, "values", NULL), "[\"p5.4xlarge\"]");
	ck_assert_int_eq(J(addon(&fx, "pod-contract-one.yaml"), "resources",
			   "requests", "vpc.amazonaws.com/efa", NULL)->valueint,
			 4);
	/* pinned to a zone: the NodePool does it, no affinity */
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-h200.yaml"), "affinity",
			     NULL));
	/* AL2023: gpuform reserves no hugepages, so no overlay (lint GPU025
	 * flags pods that request them) */
	ck_assert_uint_eq(count_kind(&fx, "NodeOverlay"), 0);
	release(&fx);
}
END_TEST

/* inference with interruption none (its default): on-demand, never
 * expired, consolidated and patched only inside the window — and never
 * do-not-disrupt, which would pin a long-running Deployment's nodes */
START_TEST(test_inference_defaults)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: s}\nspec:\n  nodeRole: r\n"
		"  ami: al2023@v20250505\n"
		"  maintenanceWindow: {schedule: \"30 3 * * *\", duration: 2h}\n"
		"  workloads:\n"
		"    - {name: api, type: inference, gpu: l4, maxGpus: 4}\n";
	struct fx fx;
	const cJSON *np, *pc;

	render_intent(&fx, text);
	np = doc(&fx, "NodePool", "api");
	ck_assert_str_eq(S(J(np, "metadata", "annotations",
			     "gpuform.io/interruption", NULL)),
			 "none");
	assert_json(J(requirement(np, "karpenter.sh/capacity-type"), "values",
		      NULL),
		    "[\"on-demand\"]");
	ck_assert_str_eq(S(J(np, "spec", "template", "spec", "expireAfter",
			     NULL)),
			 "Never");
	pc = addon(&fx, "pod-contract-api.yaml");
	ck_assert_ptr_null(J(pc, "annotations", NULL));
	ck_assert_ptr_nonnull(J(pc, "podDisruptionBudget", NULL));
	ck_assert_ptr_nonnull(J(pc, "topologySpreadConstraints", NULL));
	release(&fx);
}
END_TEST

/* ---- placement, image-cache rate, node repair ------------------------------ */

/* two EFA gangs in one placement group share a class; a third with another
 * group gets its own; the serving pool lists two zones */
static const char placed_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: atlas}\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  imageCache: {snapshotID: snap-0123456789abcdef0, size: 300Gi,\n"
	"               initializationRate: 150}\n"
	"  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
	"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
	"  nodeRepair: false\n"
	"  workloads:\n"
	"    - {name: a, type: training, gpu: h100, gpusPerPod: 8, gang: 2,\n"
	"       efa: true, maxGpus: 16,\n"
	"       placement: {zone: us-east-1a, placementGroup: Team_A.cpg}}\n"
	"    - {name: b, type: training, gpu: h100, gpusPerPod: 8, gang: 2,\n"
	"       efa: true, maxGpus: 16,\n"
	"       placement: {zone: us-east-1a, placementGroup: Team_A.cpg}}\n"
	"    - {name: c, type: training, gpu: h100, gpusPerPod: 8, gang: 2,\n"
	"       efa: true, maxGpus: 16,\n"
	"       placement: {zone: us-east-1b, placementGroup: pg-0abc123}}\n"
	"    - {name: s, type: inference, gpu: l4, maxGpus: 4,\n"
	"       placement: {zone: [us-east-1a, us-east-1b]}}\n";

static const cJSON *requirement_of(const cJSON *np, const char *key)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, J(np, "spec", "template", "spec", "requirements",
				NULL))
	{
		if (!strcmp(S(J(r, "key", NULL)), key))
			return r;
	}
	return NULL;
}

START_TEST(test_placement)
{
	struct fx fx;

	render_intent(&fx, placed_intent);
	/* one class per placement group, shared by workloads in the same */
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "a"), "spec", "template",
			     "spec", "nodeClassRef", "name", NULL)),
			 "gpu-efa-pg-team-a-cpg");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "b"), "spec", "template",
			     "spec", "nodeClassRef", "name", NULL)),
			 "gpu-efa-pg-team-a-cpg");
	ck_assert_str_eq(S(J(doc(&fx, "NodePool", "c"), "spec", "template",
			     "spec", "nodeClassRef", "name", NULL)),
			 "gpu-efa-pg-0abc123");
	assert_json(J(doc(&fx, "EC2NodeClass", "gpu-efa-pg-team-a-cpg"), "spec",
		      "placementGroupSelector", NULL),
		    "{\"name\":\"Team_A.cpg\"}");
	assert_json(J(doc(&fx, "EC2NodeClass", "gpu-efa-pg-0abc123"), "spec",
		      "placementGroupSelector", NULL),
		    "{\"id\":\"pg-0abc123\"}");
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu"), "spec",
			     "placementGroupSelector", NULL));
	/* zones as requirements */
	assert_json(requirement_of(doc(&fx, "NodePool", "a"),
				   "topology.kubernetes.io/zone"),
		    "{\"key\":\"topology.kubernetes.io/zone\",\"operator\":"
		    "\"In\",\"values\":[\"us-east-1a\"]}");
	assert_json(requirement_of(doc(&fx, "NodePool", "s"),
				   "topology.kubernetes.io/zone"),
		    "{\"key\":\"topology.kubernetes.io/zone\",\"operator\":"
		    "\"In\",\"values\":[\"us-east-1a\",\"us-east-1b\"]}");
	/* the written rate; node repair off as asked */
	ck_assert_int_eq((int)J(cJSON_GetArrayItem(J(doc(&fx, "EC2NodeClass",
							  "gpu"),
						      "spec",
						      "blockDeviceMappings",
						      NULL),
						    1),
				"ebs", "volumeInitializationRate",
				NULL)->valuedouble,
			 150);
	ck_assert(cJSON_IsFalse(J(addon(&fx, "karpenter-values.yaml"),
				  "settings", "featureGates", "nodeRepair",
				  NULL)));
	/* node repair off: no node monitoring agent values */
	ck_assert_ptr_null(cJSON_GetObjectItem(
		fx.r.addons, "eks-node-monitoring-agent-values.yaml"));
	release(&fx);

	/* no placement: no zone requirement, no selector; node repair on */
	render_intent(&fx, br_intent);
	ck_assert_ptr_null(requirement_of(doc(&fx, "NodePool", "pretrain"),
					  "topology.kubernetes.io/zone"));
	ck_assert_ptr_null(J(doc(&fx, "EC2NodeClass", "gpu-efa"), "spec",
			     "placementGroupSelector", NULL));
	ck_assert(cJSON_IsTrue(J(addon(&fx, "karpenter-values.yaml"),
				 "settings", "featureGates", "nodeRepair",
				 NULL)));
	release(&fx);
}
END_TEST

/* fast snapshot restore: no rate (it would override FSR), an annotation
 * for lint GPU023 */
START_TEST(test_image_cache_fsr)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata: {name: c}\n"
		"spec:\n"
		"  nodeRole: r\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  imageCache: {snapshotID: snap-0123456789abcdef0, size: 300Gi,\n"
		"               fastSnapshotRestore: true}\n"
		"  workloads:\n"
		"    - {name: t, type: dev, gpu: t4, maxGpus: 2}\n";
	struct fx fx;
	const cJSON *nc;

	render_intent(&fx, text);
	nc = doc(&fx, "EC2NodeClass", "gpu");
	ck_assert_ptr_null(J(cJSON_GetArrayItem(J(nc, "spec",
						  "blockDeviceMappings", NULL),
						1),
			     "ebs", "volumeInitializationRate", NULL));
	ck_assert_str_eq(S(J(nc, "metadata", "annotations",
			     "gpuform.io/fast-snapshot-restore", NULL)),
			 "snap-0123456789abcdef0");
	release(&fx);
}
END_TEST

/* pools that can be spot carry the grace-period bound lint GPU024 reads */
START_TEST(test_pod_contract_spot_grace)
{
	struct fx fx;

	render_intent(&fx, br_intent);
	/* play: dev, tolerant -> spot; pretrain: none -> on-demand only */
	ck_assert_int_eq((int)J(addon(&fx, "pod-contract-play.yaml"),
				"terminationGracePeriodSeconds",
				NULL)->valuedouble,
			 90);
	ck_assert_ptr_null(J(addon(&fx, "pod-contract-pretrain.yaml"),
			     "terminationGracePeriodSeconds", NULL));
	release(&fx);
}
END_TEST

/* network.efaOnlyInterfaces: one class per card count, the layout, a
 * pod's share of the EFA devices */
START_TEST(test_efa_only_interfaces)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata: {name: c}\n"
		"spec:\n"
		"  nodeRole: r\n"
		"  ami: al2023@v20250505\n"
		"  network: {efaSecurityGroup: sg-0123456789abcdef0,\n"
		"            efaOnlyInterfaces: true}\n"
		"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
		"  workloads:\n"
		"    - {name: b, type: training, gpu: b200, gpusPerPod: 8, gang: 2,\n"
		"       efa: true, maxGpus: 16, placement: {zone: us-east-1a}}\n"
		"    - {name: h, type: training, gpu: h100, gpusPerPod: 4, gang: 2,\n"
		"       efa: true, maxGpus: 16, placement: {zone: us-east-1a}}\n";
	struct fx fx;
	const cJSON *nis;

	render_intent(&fx, text);
	nis = J(doc(&fx, "EC2NodeClass", "gpu-efa-nic8"), "spec",
		"networkInterfaces", NULL);
	assert_json(nis,
		    "[{\"networkCardIndex\":0,\"deviceIndex\":0,"
		    "\"interfaceType\":\"interface\"},"
		    "{\"networkCardIndex\":0,\"deviceIndex\":1,"
		    "\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":1,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":2,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":3,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":4,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":5,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":6,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"},"
		    "{\"networkCardIndex\":7,\"deviceIndex\":0,\"interfaceType\":\"efa-only\"}]");
	ck_assert_int_eq(cJSON_GetArraySize(J(doc(&fx, "EC2NodeClass",
						  "gpu-efa-nic32"),
					      "spec", "networkInterfaces",
					      NULL)),
			 33);
	/* b200: 8 GPUs, 8 cards -> 8 per 8-GPU pod; h100 (p5.48xlarge):
	 * 32 cards, 8 GPUs -> 16 per 4-GPU pod */
	ck_assert_int_eq((int)J(addon(&fx, "pod-contract-b.yaml"), "resources",
				"requests", "vpc.amazonaws.com/efa",
				NULL)->valuedouble,
			 8);
	ck_assert_int_eq((int)J(addon(&fx, "pod-contract-h.yaml"), "resources",
				"requests", "vpc.amazonaws.com/efa",
				NULL)->valuedouble,
			 16);
	release(&fx);
}
END_TEST

START_TEST(test_addons)
{
	struct fx fx;
	const cJSON *a;
	cJSON *conf;
	int n = 0;

	render_intent(&fx, br_intent);
	cJSON_ArrayForEach(a, fx.r.addons)
	{
		n++;
	}
	/* karpenter, kueue, vpc-cni, efa, eks-node-monitoring-agent (node
	 * repair is on) + 5 pod contracts */
	ck_assert_int_eq(n, 10);
	ck_assert_ptr_nonnull(
		J(addon(&fx, "eks-node-monitoring-agent-values.yaml"),
		  "dcgmAgent", "tolerations", NULL));
	ck_assert(array_has(J(addon(&fx, "efa-device-plugin-values.yaml"),
			      "supportedInstanceLabels", "values", NULL),
			    "p5.48xlarge"));
	/* waitForPodsReady: 10 + 2 (snapshot) + 5 (8-GPU nodes) */
	conf = yaml_json(S(J(addon(&fx, "kueue-values.yaml"), "managerConfig",
			     "controllerManagerConfigYaml", NULL)));
	ck_assert_str_eq(S(J(conf, "kind", NULL)), "Configuration");
	ck_assert_str_eq(S(J(conf, "waitForPodsReady", "timeout", NULL)),
			 "17m");
	cJSON_Delete(conf);
	release(&fx);

	render_intent(&fx, al_intent);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(
		fx.r.addons, "efa-device-plugin-values.yaml"));
	conf = yaml_json(S(J(addon(&fx, "kueue-values.yaml"), "managerConfig",
			     "controllerManagerConfigYaml", NULL)));
	ck_assert_str_eq(S(J(conf, "waitForPodsReady", "timeout", NULL)),
			 "25m");
	cJSON_Delete(conf);
	release(&fx);
}
END_TEST

/* ---- output shapes ------------------------------------------------------- */

START_TEST(test_stream_yaml)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	struct ystream ys = YSTREAM_INIT;
	size_t i = 0;
	const cJSON *d;

	render_intent(&fx, br_intent);
	ck_assert_int_eq(render_stream(&out, &fx.r, RENDER_YAML, &err), 0);
	ck_assert_uint_gt(out.len, 0);
	ck_assert_int_eq(out.ptr[out.len - 1], '\n');
	ck_assert_msg(strncmp(out.ptr, "---", 3), "starts with a separator");
	ck_assert(!strncmp(out.ptr, "apiVersion: v1\nkind: Namespace\n", 31));
	/* parse it back: the same documents, in the same order */
	ck_assert_int_eq(yaml_parse(&ys, out.ptr, out.len, "out", &err), 0);
	ck_assert_int_eq((int)ys.nr, cJSON_GetArraySize(fx.r.docs));
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		cJSON *back = NULL;
		ck_assert_int_eq(yaml_to_json(&back, ys.docs[i].root, "out",
					      &err),
				 0);
		ck_assert_msg(cJSON_Compare(d, back, 1), "document %zu differs",
			      i);
		cJSON_Delete(back);
		i++;
	}
	ystream_release(&ys);
	buf_release(&out);
	err_release(&err);
	release(&fx);
}
END_TEST

START_TEST(test_stream_json_list)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	cJSON *list;

	render_intent(&fx, al_intent);
	ck_assert_int_eq(render_stream(&out, &fx.r, RENDER_JSON, &err), 0);
	list = cJSON_Parse(out.ptr);
	ck_assert_ptr_nonnull(list);
	ck_assert_str_eq(S(J(list, "apiVersion", NULL)), "v1");
	ck_assert_str_eq(S(J(list, "kind", NULL)), "List");
	ck_assert(cJSON_Compare(J(list, "items", NULL), fx.r.docs, 1));
	ck_assert_int_eq(out.ptr[out.len - 1], '\n');
	cJSON_Delete(list);
	buf_release(&out);
	err_release(&err);
	release(&fx);
}
END_TEST

static char *stream_of(const char *intent, enum render_format f)
{
	struct fx fx;
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;

	render_intent(&fx, intent);
	ck_assert_int_eq(render_stream(&out, &fx.r, f, &err), 0);
	release(&fx);
	err_release(&err);
	return buf_detach(&out, NULL);
}

static void tree_of(const char *intent, const char *prefix,
		    enum render_format f, struct fs_tree *tree)
{
	struct fx fx;
	struct err err = ERR_INIT;

	render_intent(&fx, intent);
	ck_assert_msg(render_tree(tree, &fx.r, prefix, fx.t, f, &err) == 0,
		      "render_tree: %s", err_msg(&err));
	release(&fx);
	err_release(&err);
}

START_TEST(test_deterministic)
{
	static const char *const intents[] = { br_intent, al_intent,
					       plain_intent };

	for (size_t k = 0; k < 3; k++) {
		for (int f = RENDER_YAML; f <= RENDER_JSON; f++) {
			char *a = stream_of(intents[k], (enum render_format)f);
			char *b = stream_of(intents[k], (enum render_format)f);
			ck_assert_msg(!strcmp(a, b), "intent %zu format %d "
						     "differs between renders",
				      k, f);
			free(a);
			free(b);
		}
		{
			struct fs_tree t1 = FS_TREE_INIT, t2 = FS_TREE_INIT;
			tree_of(intents[k], "", RENDER_YAML, &t1);
			tree_of(intents[k], "", RENDER_YAML, &t2);
			ck_assert_uint_eq(t1.nr, t2.nr);
			for (size_t i = 0; i < t1.nr; i++) {
				ck_assert_str_eq(t1.files[i].path,
						 t2.files[i].path);
				ck_assert_uint_eq(t1.files[i].len,
						  t2.files[i].len);
				ck_assert(!memcmp(t1.files[i].data,
						  t2.files[i].data,
						  t1.files[i].len));
			}
			fs_tree_release(&t1);
			fs_tree_release(&t2);
		}
	}
}
END_TEST

START_TEST(test_tree)
{
	struct fx fx;
	struct fs_tree t = FS_TREE_INIT;
	struct err err = ERR_INIT;
	const struct fs_file *kf, *f;
	const cJSON *d, *res;
	cJSON *kust;
	size_t ndocs, naddons = 0, i = 0;

	render_intent(&fx, br_intent);
	ck_assert_int_eq(render_tree(&t, &fx.r, "", fx.t, RENDER_YAML, &err), 0);
	ndocs = (size_t)cJSON_GetArraySize(fx.r.docs);
	cJSON_ArrayForEach(d, fx.r.addons)
	{
		naddons++;
	}
	ck_assert_uint_eq(t.nr, ndocs + naddons + 1);

	kf = fs_tree_find(&t, "kustomization.yaml");
	ck_assert_ptr_nonnull(kf);
	ck_assert_msg(!strncmp(kf->data, RENDER_OWNER_PREFIX,
			       strlen(RENDER_OWNER_PREFIX)),
		      "kustomization.yaml starts with '%.40s'", kf->data);
	kust = yaml_json(kf->data);
	ck_assert_str_eq(S(J(kust, "kind", NULL)), "Kustomization");
	res = J(kust, "resources", NULL);
	ck_assert_int_eq(cJSON_GetArraySize(res), (int)ndocs);

	/* one file per object, "<kind>-<name>.yaml", listed in order */
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		struct buf want = BUF_INIT, body = BUF_INIT;
		const char *name = S(cJSON_GetArrayItem(res, (int)i));

		render_object_file(d, RENDER_YAML, &want);
		ck_assert_str_eq(name, buf_cstr(&want));
		f = fs_tree_find(&t, name);
		ck_assert_msg(f != NULL, "no file %s", name);
		ck_assert_int_eq(yaml_emit(&body, d, &err), 0);
		ck_assert_uint_eq(f->len, body.len);
		ck_assert(!memcmp(f->data, body.ptr, body.len));
		buf_release(&want);
		buf_release(&body);
		i++;
	}
	ck_assert_ptr_nonnull(fs_tree_find(&t, "namespace-research.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&t, "ec2nodeclass-gpu-efa.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&t, "nodepool-general.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(
		&t, "workloadpriorityclass-gpuform-training.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&t, "localqueue-serve.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&t, "addons/karpenter-values.yaml"));
	ck_assert_ptr_nonnull(
		fs_tree_find(&t, "addons/pod-contract-pretrain.yaml"));
	/* add-ons are not Kubernetes objects for kustomize */
	ck_assert(!array_has(res, "addons/karpenter-values.yaml"));
	cJSON_Delete(kust);
	fs_tree_release(&t);

	/* with a prefix, every path gets it */
	ck_assert_int_eq(render_tree(&t, &fx.r, "ml-prod/", fx.t, RENDER_YAML,
				     &err),
			 0);
	for (i = 0; i < t.nr; i++)
		ck_assert_msg(!strncmp(t.files[i].path, "ml-prod/", 8),
			      "path %s", t.files[i].path);
	ck_assert_ptr_nonnull(fs_tree_find(&t, "ml-prod/kustomization.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&t, "ml-prod/nodepool-serve.yaml"));
	ck_assert_ptr_nonnull(
		fs_tree_find(&t, "ml-prod/addons/vpc-cni.yaml"));
	fs_tree_release(&t);
	err_release(&err);
	release(&fx);
}
END_TEST

START_TEST(test_tree_json)
{
	struct fx fx;
	struct fs_tree t = FS_TREE_INIT;
	struct err err = ERR_INIT;
	const cJSON *d;

	render_intent(&fx, plain_intent);
	ck_assert_int_eq(render_tree(&t, &fx.r, "", fx.t, RENDER_JSON, &err), 0);
	cJSON_ArrayForEach(d, fx.r.docs)
	{
		struct buf name = BUF_INIT;
		const struct fs_file *f;
		cJSON *back;

		render_object_file(d, RENDER_JSON, &name);
		ck_assert_msg(strstr(buf_cstr(&name), ".json") != NULL, "%s",
			      buf_cstr(&name));
		f = fs_tree_find(&t, buf_cstr(&name));
		ck_assert_msg(f != NULL, "no file %s", buf_cstr(&name));
		back = cJSON_ParseWithLength(f->data, f->len);
		ck_assert_ptr_nonnull(back);
		ck_assert(cJSON_Compare(d, back, 1));
		cJSON_Delete(back);
		buf_release(&name);
	}
	ck_assert_ptr_nonnull(fs_tree_find(&t, "kustomization.yaml"));
	fs_tree_release(&t);
	err_release(&err);
	release(&fx);
}
END_TEST

START_TEST(test_object_file_and_cmp)
{
	cJSON *a = cJSON_Parse("{\"kind\":\"EC2NodeClass\",\"metadata\":{\"name\":\"gpu-efa\"}}");
	cJSON *b = cJSON_Parse("{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"z\"}}");
	cJSON *c = cJSON_Parse("{\"kind\":\"LocalQueue\",\"metadata\":{\"name\":\"a\",\"namespace\":\"y\"}}");
	cJSON *e = cJSON_Parse("{\"kind\":\"LocalQueue\",\"metadata\":{\"name\":\"b\",\"namespace\":\"x\"}}");
	struct buf n = BUF_INIT;

	render_object_file(a, RENDER_YAML, &n);
	ck_assert_str_eq(buf_cstr(&n), "ec2nodeclass-gpu-efa.yaml");
	buf_reset(&n);
	render_object_file(a, RENDER_JSON, &n);
	ck_assert_str_eq(buf_cstr(&n), "ec2nodeclass-gpu-efa.json");
	buf_release(&n);

	/* kind order first, then namespace, then name */
	ck_assert_int_lt(render_doc_cmp(b, a), 0);
	ck_assert_int_gt(render_doc_cmp(a, b), 0);
	ck_assert_int_lt(render_doc_cmp(a, c), 0);
	ck_assert_int_lt(render_doc_cmp(e, c), 0);
	ck_assert_int_eq(render_doc_cmp(c, c), 0);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	cJSON_Delete(e);
}
END_TEST

/* two objects that map to one file name: a hand-made rendered set */
static void colliding(struct rendered *r)
{
	r->cluster = xstrdup("c");
	r->docs = cJSON_Parse(
		"[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
		"{\"name\":\"a\",\"namespace\":\"x\"}},"
		"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
		"{\"name\":\"a\",\"namespace\":\"y\"}}]");
	r->addons = cJSON_CreateObject();
	ck_assert_ptr_nonnull(r->docs);
}

START_TEST(test_tree_name_collision)
{
	struct rendered r = RENDERED_INIT;
	struct fs_tree t = FS_TREE_INIT;
	struct err err = ERR_INIT;
	struct tmpl_set *set = NULL;

	ck_assert_int_eq(tmpl_set_load(&set, NULL, &err), 0);
	colliding(&r);
	ck_assert_int_eq(render_tree(&t, &r, "", set, RENDER_YAML, &err), -1);
	ck_assert_int_eq(err.code, ERR_INTERNAL);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "configmap-a.yaml"));
	fs_tree_release(&t);
	rendered_release(&r);
	tmpl_set_free(set);
	err_release(&err);
}
END_TEST

/*
 * Fixed bug (generator/render.c, render_tree); the test guards the fix.
 * Before it: the duplicate-file check looks up
 * the bare file name ("configmap-a.yaml") while the files are added as
 * prefix + name, so with a prefix ("ml-prod/") two objects mapping to the
 * same file are never detected: render_tree returns 0 with two entries
 * "ml-prod/configmap-a.yaml" in the tree. Expected: -1, ERR_INTERNAL, as
 * without a prefix.
 */
START_TEST(test_tree_name_collision_with_prefix)
{
	struct rendered r = RENDERED_INIT;
	struct fs_tree t = FS_TREE_INIT;
	struct err err = ERR_INIT;
	struct tmpl_set *set = NULL;
	int ret;

	ck_assert_int_eq(tmpl_set_load(&set, NULL, &err), 0);
	colliding(&r);
	ret = render_tree(&t, &r, "ml-prod/", set, RENDER_YAML, &err);
	fs_tree_release(&t);
	rendered_release(&r);
	tmpl_set_free(set);
	ck_assert_msg(ret == -1 && err.code == ERR_INTERNAL,
		      "render_tree with a prefix returned %d for two objects "
		      "in one file",
		      ret);
	err_release(&err);
}
END_TEST

START_TEST(test_pipeline_invalid_and_validate_only)
{
	static const char bad[] =
		"apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		"metadata: {name: c}\nspec:\n  nodeRole: r\n"
		"  ami: bottlerocket@latest\n"
		"  workloads:\n"
		"    - {name: w, type: dev, gpu: nosuch, maxGpus: 1}\n";
	struct tmpl_set *set = NULL;
	struct rendered r = RENDERED_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(tmpl_set_load(&set, NULL, &err), 0);
	ck_assert_int_eq(pipeline_render(&r, "bad.yaml", bad, strlen(bad), set,
					 &d, &err),
			 -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_str_eq(err_msg(&err), "'bad.yaml' has 2 errors");
	ck_assert_uint_eq(d.errors, 2);
	ck_assert_ptr_null(r.docs);
	diags_release(&d);
	err_release(&err);

	/* out == NULL: validate only */
	ck_assert_int_eq(pipeline_render(NULL, "ok.yaml", plain_intent,
					 strlen(plain_intent), set, &d, &err),
			 0);
	ck_assert_uint_eq(d.errors, 0);
	diags_release(&d);
	err_release(&err);
	tmpl_set_free(set);
}
END_TEST

/* ---- pipeline_run: the stages kept, up to the one asked for --------------- */

static const char ack_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: c3}\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  acknowledge:\n"
	"    - {rule: INT006, reason: spot}\n"
	"  workloads:\n"
	"    - {name: t, type: training, gpu: h100, maxGpus: 8}\n"
	"    - {name: ci, type: dev, gpu: t4, maxGpus: 2}\n";

static size_t count_rule(const struct diags *d, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += d->items[i].rule_id && !strcmp(d->items[i].rule_id, rule);
	return n;
}

START_TEST(test_pipeline_stages)
{
	static const enum pipeline_stage upto[] = {
		PIPELINE_INTENT, PIPELINE_PLAN, PIPELINE_RENDER
	};
	enum pipeline_stage u = upto[_i];
	struct pipeline p;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;

	ck_assert_msg(pipeline_run(&p, "i.yaml", plain_intent,
				   strlen(plain_intent), NULL, u, &d,
				   &err) == 0, "%s", err_msg(&err));
	ck_assert_int_eq(p.done, u);
	ck_assert_int_eq(p.read, 1);
	ck_assert_str_eq(p.in.name, "c3");
	ck_assert_uint_eq(p.in.nworkloads, 2);
	if (u >= PIPELINE_PLAN)
		ck_assert_uint_gt(p.plan.npools, 0);
	else
		ck_assert_uint_eq(p.plan.npools, 0);
	if (u == PIPELINE_RENDER) {
		ck_assert_ptr_nonnull(p.r.docs);
		ck_assert_str_eq(p.r.cluster, "c3");
	} else {
		ck_assert_ptr_null(p.r.docs);
	}
	/* the plan's warning (INT006) only once the plan ran */
	ck_assert_uint_eq(count_rule(&d, "INT006"), u >= PIPELINE_PLAN);
	ck_assert_uint_eq(count_rule(&d, "INT003"), 1);
	pipeline_release(&p);
	diags_release(&d);
	err_release(&err);
}
END_TEST

START_TEST(test_pipeline_invalid)
{
	static const char bad[] = "apiVersion: gpuform.io/v1alpha1\n"
				  "kind: ClusterIntent\n"
				  "metadata: {name: Not_A_Label}\n"
				  "spec:\n"
				  "  nodeRole: r\n"
				  "  ami: bottlerocket@v1.38.0\n"
				  "  workloads:\n"
				  "    - {name: t, type: training, gpu: h100, "
				  "maxGpus: 8}\n";
	struct pipeline p;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(pipeline_run(&p, "i.yaml", bad, strlen(bad), NULL,
				      PIPELINE_RENDER, &d, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_int_eq(p.done, PIPELINE_NONE);
	ck_assert_int_eq(p.read, 1);
	ck_assert_ptr_null(p.r.docs);
	ck_assert_uint_eq(d.errors, 1);
	pipeline_release(&p);
	err_clear(&err);
	/* not YAML at all: nothing read */
	ck_assert_int_eq(pipeline_run(&p, "i.yaml", "a: [", 4, NULL,
				      PIPELINE_INTENT, &d, &err), -1);
	ck_assert_int_eq(p.read, 0);
	pipeline_release(&p);
	diags_release(&d);
	err_release(&err);
}
END_TEST

/* spec.acknowledge: applied by the pipeline, or left to the caller
 * (PIPELINE_NO_ACK); an unused one is said only after every stage */
START_TEST(test_pipeline_acknowledge)
{
	struct pipeline p;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	size_t n = strlen(ack_intent);

	ck_assert_int_eq(pipeline_run(&p, "i.yaml", ack_intent, n, NULL,
				      PIPELINE_RENDER, &d, &err), 0);
	ck_assert_uint_eq(count_rule(&d, "INT006"), 0);
	ck_assert_uint_eq(count_rule(&d, "INT011"), 0);
	pipeline_release(&p);
	diags_release(&d);
	/* stopped before the plan: INT006 never came, and nobody says the
	 * acknowledgement went unused */
	ck_assert_int_eq(pipeline_run(&p, "i.yaml", ack_intent, n, NULL,
				      PIPELINE_INTENT, &d, &err), 0);
	ck_assert_uint_eq(count_rule(&d, "INT011"), 0);
	pipeline_release(&p);
	diags_release(&d);
	/* left to the caller */
	ck_assert_int_eq(pipeline_run(&p, "i.yaml", ack_intent, n, NULL,
				      PIPELINE_PLAN | PIPELINE_NO_ACK, &d,
				      &err), 0);
	ck_assert_uint_eq(count_rule(&d, "INT006"), 1);
	pipeline_acknowledge(&p, &d, 1);
	ck_assert_uint_eq(count_rule(&d, "INT006"), 0);
	ck_assert_uint_eq(count_rule(&d, "INT011"), 0);
	pipeline_release(&p);
	diags_release(&d);
	/* without the capacity rules, left to plan's findings */
	ck_assert_int_eq(pipeline_run(&p, "i.yaml", plain_intent,
				      strlen(plain_intent), NULL,
				      PIPELINE_INTENT |
					      PIPELINE_NO_CAPACITY_RULES,
				      &d, &err), 0);
	ck_assert_int_eq(p.done, PIPELINE_INTENT);
	pipeline_release(&p);
	diags_release(&d);
	err_release(&err);
}
END_TEST

/* inputs_stream: render's stdout, one YAML document at a time */
static void collect(void *ctx, const char *data, size_t len)
{
	buf_add(ctx, data, len);
}

START_TEST(test_inputs_stream)
{
	struct input item = { (char *)"c3.yaml", RENDERED_INIT };
	struct inputs ins = { &item, 1 };
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT, sum = BUF_INIT;
	int n;

	ck_assert_int_eq(pipeline_render(&item.r, "c3.yaml", plain_intent,
					 strlen(plain_intent), NULL, &d, &err),
			 0);
	n = cJSON_GetArraySize(item.r.docs);
	inputs_summary(&ins, "out", 0, &sum);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&sum), "rendered c3.yaml: "));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&sum), " -> out\n"));
	buf_reset(&sum);
	inputs_summary(&ins, "out", 1, &sum);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&sum), " -> out/c3\n"));
	ck_assert_int_eq(inputs_stream(&ins, RENDER_YAML, collect, &out, &err),
			 0);
	/* n documents, n - 1 separators, the objects consumed */
	{
		size_t seps = 0;
		for (const char *p = buf_cstr(&out); (p = strstr(p, "\n---\n"));
		     p++)
			seps++;
		ck_assert_uint_eq(seps, (size_t)n - 1);
	}
	ck_assert_int_eq(strncmp(buf_cstr(&out), "---", 3) != 0, 1);
	ck_assert_int_eq(cJSON_GetArraySize(item.r.docs), 0);
	rendered_release(&item.r);
	buf_release(&out);
	buf_release(&sum);
	diags_release(&d);
	err_release(&err);
}
END_TEST

/* inputs_plan: plan's files, every one tried; one cluster twice, a file
 * that is not there */
START_TEST(test_inputs_plan)
{
	char dir[64] = "/tmp/gpuform-unit-plan.XXXXXX";
	struct capplan cp = CAPPLAN_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	char *paths[3], *cmd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		FILE *f;
		paths[i] = xasprintf("%s/%d.yaml", dir, i);
		f = fopen(paths[i], "w");
		ck_assert_ptr_nonnull(f);
		fputs(plain_intent, f);
		fclose(f);
	}
	paths[2] = xasprintf("%s/none.yaml", dir);
	ck_assert_int_eq(inputs_plan(&cp, paths, 1, &d, &err), 0);
	ck_assert_uint_eq(cp.n, 1);
	capplan_release(&cp);
	cp = (struct capplan)CAPPLAN_INIT;
	ck_assert_int_eq(inputs_plan(&cp, paths, 2, &d, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_uint_eq(d.errors, 1);
	ck_assert_ptr_nonnull(strstr(d.items[d.nr - 1].msg,
				     "both describe cluster 'c3'"));
	ck_assert_str_eq(err_msg(&err), "1 error; no plan printed");
	capplan_release(&cp);
	cp = (struct capplan)CAPPLAN_INIT;
	err_clear(&err);
	ck_assert_int_eq(inputs_plan(&cp, paths + 2, 1, &d, &err), -1);
	ck_assert_int_eq(err.code, ERR_IO);
	capplan_release(&cp);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	diags_release(&d);
	err_release(&err);
}
END_TEST

Suite *render_suite(void)
{
	Suite *s = suite_create("render");
	TCase *tc;

	tc = tcase_create("pipeline");
	tcase_add_loop_test(tc, test_pipeline_stages, 0, 3);
	tcase_add_test(tc, test_pipeline_invalid);
	tcase_add_test(tc, test_pipeline_acknowledge);
	tcase_add_test(tc, test_inputs_stream);
	tcase_add_test(tc, test_inputs_plan);
	suite_add_tcase(s, tc);

	tc = tcase_create("objects");
	tcase_add_test(tc, test_objects_and_order_bottlerocket);
	tcase_add_test(tc, test_objects_and_order_al2023);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_general_pool);
	tcase_add_test(tc, test_gpu_pool_requirements);
	tcase_add_test(tc, test_kueue_objects);
	suite_add_tcase(s, tc);

	tc = tcase_create("disruption");
	tcase_add_loop_test(tc, test_disruption_class, 0,
			    (int)(sizeof(disruption_cases) /
				  sizeof(disruption_cases[0])));
	tcase_add_test(tc, test_disruption_daily_window);
	tcase_add_test(tc, test_disruption_behaviour);
	tcase_add_test(tc, test_definition);
	tcase_add_test(tc, test_guard_hold);
	suite_add_tcase(s, tc);

	tc = tcase_create("nodeclass");
	tcase_add_test(tc, test_bottlerocket_block_devices);
	tcase_add_test(tc, test_al2023_block_devices);
	tcase_add_test(tc, test_nodeclass_security_groups_and_identity);
	tcase_add_test(tc, test_max_pods_with_prefix_delegation);
	tcase_add_test(tc, test_bottlerocket_user_data);
	tcase_add_test(tc, test_al2023_device_plugin_config);
	suite_add_tcase(s, tc);

	tc = tcase_create("addons");
	tcase_add_test(tc, test_spot_to_spot_consolidation);
	tcase_add_test(tc, test_pod_contract);
	tcase_add_test(tc, test_efa_one_share);
	tcase_add_test(tc, test_inference_defaults);
	tcase_add_test(tc, test_addons);
	tcase_add_test(tc, test_placement);
	tcase_add_test(tc, test_efa_only_interfaces);
	tcase_add_test(tc, test_pod_contract_spot_grace);
	tcase_add_test(tc, test_image_cache_fsr);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_test(tc, test_stream_yaml);
	tcase_add_test(tc, test_stream_json_list);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_tree);
	tcase_add_test(tc, test_tree_json);
	tcase_add_test(tc, test_object_file_and_cmp);
	tcase_add_test(tc, test_tree_name_collision);
	tcase_add_test(tc, test_tree_name_collision_with_prefix);
	tcase_add_test(tc, test_pipeline_invalid_and_validate_only);
	suite_add_tcase(s, tc);
	return s;
}
