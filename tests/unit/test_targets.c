/*
 * tests/unit/test_targets.c: Check suite for generator/targets.c — release
 * parsing and ordering, reading spec.targets (range, shape, positions), the
 * feature table, and what targets_apply does to a real render through
 * pipeline_render: refusals at spec.targets' line:col naming the feature and
 * the release that has it, Kueue v1beta1 objects and Configuration for older
 * Kueue, and no change at all for the default (newest) targets.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/pipeline.h"
#include "generator/targets.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/yaml.h"

/* ---- releases ----------------------------------------------------------- */

START_TEST(parse_versions)
{
	struct targets_ver v;

	ck_assert_int_eq(targets_parse_ver("v1.6.2", &v), 0);
	ck_assert(v.major == 1 && v.minor == 6 && v.patch == 2);
	ck_assert_int_eq(targets_parse_ver("0.13.10", &v), 0);
	ck_assert(v.major == 0 && v.minor == 13 && v.patch == 10);
	ck_assert_int_eq(targets_parse_ver("v1.7", &v), 0);
	ck_assert(v.major == 1 && v.minor == 7 && v.patch == 0);
	static const char *const bad[] = { "",        "v",       "1",
					   "v1.",     "v1..2",   "vv1.2",
					   "v1.6.2-rc.1", "v01.2", "v1.2.3.4",
					   "v1.6 ",   "latest",  "v1.-1",
					   "v1.9999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(targets_parse_ver(bad[i], &v) < 0, "'%s' parsed",
			      bad[i]);
	ck_assert_int_lt(targets_parse_ver(NULL, &v), 0);
}
END_TEST

START_TEST(compare_versions)
{
	struct targets_ver a = { 1, 9, 0 }, b = { 1, 10, 0 }, c = { 1, 10, 2 };
	struct buf out = BUF_INIT;

	ck_assert_int_lt(targets_ver_cmp(&a, &b), 0); /* numeric, not text */
	ck_assert_int_lt(targets_ver_cmp(&b, &c), 0);
	ck_assert_int_gt(targets_ver_cmp(&c, &a), 0);
	ck_assert_int_eq(targets_ver_cmp(&c, &c), 0);
	targets_ver_format(&out, &c);
	ck_assert_str_eq(buf_cstr(&out), "v1.10.2");
	buf_release(&out);
}
END_TEST

/* ---- reading spec.targets ------------------------------------------------ */

static void read_text(struct targets *t, struct diags *d, const char *yaml)
{
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(yaml_parse(&ys, yaml, strlen(yaml), "t.yaml", &err), 0);
	targets_read(t, ynode_get(ys.docs[0].root, "targets"), "t.yaml", d);
	ystream_release(&ys);
}

static const char *diag_text(const struct diags *d)
{
	static struct buf b = BUF_INIT;

	buf_reset(&b);
	diags_format(d, &b);
	return buf_cstr(&b);
}

START_TEST(read_defaults)
{
	struct targets t;
	struct diags d = DIAGS_INIT;
	struct targets_ver kn = TARGETS_KARPENTER_NEWEST;
	struct targets_ver qn = TARGETS_KUEUE_NEWEST;

	read_text(&t, &d, "other: 1\n");
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_int_eq(targets_ver_cmp(&t.karpenter, &kn), 0);
	ck_assert_int_eq(targets_ver_cmp(&t.kueue, &qn), 0);
	ck_assert(!t.karpenter_set && !t.kueue_set);
	/* the newest has every feature in the table */
	for (const struct targets_feature *f = targets_features; f->id; f++)
		ck_assert_msg(targets_has(&t, f->id), "%s", f->id);
	read_text(&t, &d, "targets:\n");
	ck_assert_uint_eq(d.errors, 0);
	diags_release(&d);
}
END_TEST

START_TEST(read_values)
{
	struct targets t;
	struct diags d = DIAGS_INIT;

	read_text(&t, &d, "targets:\n  karpenter: v1.6.2\n  kueue: 0.13.4\n");
	ck_assert_msg(d.errors == 0, "%s", diag_text(&d));
	ck_assert(t.karpenter_set && t.kueue_set);
	ck_assert(t.karpenter.minor == 6 && t.kueue.minor == 13);
	ck_assert(t.karpenter_line == 2 && t.karpenter_col == 14);
	ck_assert(t.kueue_line == 3 && t.kueue_col == 10);
	ck_assert(!targets_has(&t, "nodeoverlay"));
	ck_assert(targets_has(&t, "capacity-blocks"));
	ck_assert(!targets_has(&t, "kueue-v1beta2"));
	ck_assert(targets_has(&t, "recovery-timeout"));
	/* any patch of a supported minor, the newest minor included */
	read_text(&t, &d, "targets: {karpenter: v1.14.9, kueue: v0.19.0}\n");
	ck_assert_msg(d.errors == 0, "%s", diag_text(&d));
	read_text(&t, &d, "targets: {karpenter: v1.0.0, kueue: v0.10.0}\n");
	ck_assert_msg(d.errors == 0, "%s", diag_text(&d));
	diags_release(&d);
}
END_TEST

START_TEST(read_errors)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "targets: {karpenter: v0.37.1}\n",
		  "t.yaml:1:22: error: 'targets.karpenter' is v0.37.1; gpuform "
		  "supports v1.0.0 to v1.14.1" },
		{ "targets: {karpenter: v1.15.0}\n", "supports v1.0.0 to v1.14.1" },
		{ "targets: {kueue: v0.9.6}\n",
		  "t.yaml:1:18: error: 'targets.kueue' is v0.9.6; gpuform "
		  "supports v0.10.0 to v0.19.2" },
		{ "targets: {kueue: v0.20.0}\n", "supports v0.10.0 to v0.19.2" },
		{ "targets: {karpenter: 1.6}\n",
		  "'targets.karpenter' must be a release such as v1.6.2" },
		{ "targets: {karpenter: v1.6.2-rc.0}\n",
		  "'targets.karpenter' must be a release such as v1.6.2, not "
		  "'v1.6.2-rc.0'" },
		{ "targets: {karpenter: [v1.6.2]}\n", "not 'a collection'" },
		{ "targets: {karpentr: v1.6.2}\n",
		  "t.yaml:1:11: error: unknown key 'karpentr' in 'targets'" },
		{ "targets: v1.6.2\n",
		  "t.yaml:1:10: error: 'targets' must be a mapping" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct targets t;
		struct diags d = DIAGS_INIT;
		read_text(&t, &d, cases[i].yaml);
		ck_assert_msg(d.errors == 1, "%s: %zu errors", cases[i].yaml,
			      d.errors);
		ck_assert_msg(strstr(diag_text(&d), cases[i].want), "%s: %s",
			      cases[i].yaml, diag_text(&d));
		/* an invalid value leaves the default */
		ck_assert(!t.karpenter_set && !t.kueue_set);
		diags_release(&d);
	}
}
END_TEST

START_TEST(feature_table)
{
	struct targets_ver kn = TARGETS_KARPENTER_NEWEST;
	struct targets_ver qn = TARGETS_KUEUE_NEWEST;
	size_t n = 0;

	for (const struct targets_feature *f = targets_features; f->id; f++) {
		n++;
		ck_assert_ptr_eq(targets_feature(f->id), f); /* unique ids */
		ck_assert(f->what && *f->what && f->source && *f->source);
		ck_assert_int_le(targets_ver_cmp(&f->first,
						 f->ctl == TARGETS_KARPENTER
							 ? &kn
							 : &qn),
				 0);
	}
	ck_assert_uint_ge(n, 10);
	/* cmd/main.c's `version` prints these */
	{
		struct buf b = BUF_INIT;
		targets_ver_format(&b, &kn);
		buf_adds(&b, " ");
		targets_ver_format(&b, &qn);
		ck_assert_str_eq(buf_cstr(&b), "v1.14.1 v0.19.2");
		buf_release(&b);
	}
	ck_assert_ptr_null(targets_feature("no-such-feature"));
	/* the rows the docs quote */
	ck_assert_int_eq(targets_feature("nodeoverlay")->first.minor, 7);
	ck_assert_int_eq(targets_feature("placement-group")->first.minor, 11);
	ck_assert_int_eq(targets_feature("kueue-v1beta2")->first.minor, 15);
}
END_TEST

/* ---- targets_apply through the pipeline ---------------------------------- */

static const char shared_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: c1}\n"
	"spec:\n"
	"%s"
	"  nodeRole: r\n"
	"  ami: al2023@v20250505\n"
	"  workloads:\n"
	"    - {name: small, type: inference, gpu: l4, maxGpus: 16,\n"
	"       sharing: {timeSlicing: 4}}\n"
	"    - {name: train, type: training, gpu: h100, maxGpus: 8}\n";

struct out {
	struct tmpl_set *t;
	struct rendered r;
	struct diags d;
	struct err err;
	int ret;
};

static void run(struct out *o, const char *targets_line)
{
	char text[2048];

	memset(o, 0, sizeof(*o));
	snprintf(text, sizeof(text), shared_intent, targets_line);
	ck_assert_int_eq(tmpl_set_load(&o->t, NULL, &o->err), 0);
	o->ret = pipeline_render(&o->r, "i.yaml", text, strlen(text), o->t,
				 &o->d, &o->err);
}

static void done(struct out *o)
{
	rendered_release(&o->r);
	tmpl_set_free(o->t);
	diags_release(&o->d);
	err_release(&o->err);
}

static char *all_yaml(const struct rendered *r)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(render_stream(&b, r, RENDER_YAML, &err), 0);
	ck_assert_int_eq(yaml_emit(&b, r->addons, &err), 0);
	return buf_detach(&b, NULL);
}

START_TEST(default_unchanged)
{
	struct out a, b;
	char *ya, *yb;

	run(&a, "");
	run(&b, "  targets: {karpenter: v1.14.1, kueue: v0.19.2}\n");
	ck_assert_int_eq(a.ret, 0);
	ck_assert_int_eq(b.ret, 0);
	ya = all_yaml(&a.r);
	yb = all_yaml(&b.r);
	ck_assert_str_eq(ya, yb);
	ck_assert_ptr_nonnull(strstr(ya, "kind: NodeOverlay"));
	ck_assert_ptr_nonnull(strstr(ya, "apiVersion: kueue.x-k8s.io/v1beta2"));
	free(ya);
	free(yb);
	done(&a);
	done(&b);
}
END_TEST

START_TEST(refuses_nodeoverlay)
{
	struct out o;
	const char *text;

	run(&o, "  targets: {karpenter: v1.6.2}\n");
	ck_assert_int_lt(o.ret, 0);
	ck_assert_int_eq(o.err.code, ERR_INVALID);
	ck_assert_uint_eq(o.d.errors, 1);
	text = diag_text(&o.d);
	ck_assert_msg(strstr(text, "i.yaml:5:24: error: Karpenter v1.6.2 has no "
				   "NodeOverlay (karpenter.sh/v1alpha1): it "
				   "came in Karpenter v1.7.0, and NodeOverlay/"),
		      "%s", text);
	ck_assert_msg(strstr(text, "hint: target Karpenter v1.7.0 or later"),
		      "%s", text);
	/* nothing rendered */
	ck_assert_ptr_null(o.r.docs);
	done(&o);
	/* v1.7.0 has it */
	run(&o, "  targets: {karpenter: v1.7.0}\n");
	ck_assert_msg(o.ret == 0, "%s", diag_text(&o.d));
	done(&o);
}
END_TEST

/* an EFA training pool on Bottlerocket for Karpenter v1.6.8 (before
 * NodeOverlay); %s: more keys of its workload */
static void run_efa(struct out *o, const char *more)
{
	char text[1024];

	memset(o, 0, sizeof(*o));
	snprintf(text, sizeof(text),
		 "apiVersion: gpuform.io/v1alpha1\n"
		 "kind: ClusterIntent\n"
		 "metadata: {name: c1}\n"
		 "spec:\n"
		 "  targets: {karpenter: v1.6.8}\n"
		 "  nodeRole: r\n"
		 "  ami: bottlerocket@v1.38.0\n"
		 "  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
		 "  workloads:\n"
		 "    - {name: t, type: training, gpu: h100, gpusPerPod: 8,\n"
		 "       efa: true,%s maxGpus: 16, placement: {zone: us-east-1a}}\n",
		 more);
	ck_assert_int_eq(tmpl_set_load(&o->t, NULL, &o->err), 0);
	o->ret = pipeline_render(&o->r, "i.yaml", text, strlen(text), o->t,
				 &o->d, &o->err);
}

/* the hugepages overlays of Bottlerocket EFA pools are left out (with a
 * warning) before NodeOverlay, not refused: the pool works for pods that
 * do not request hugepages */
START_TEST(drops_hugepages_overlays)
{
	struct out o;
	char *y;

	run_efa(&o, "");
	ck_assert_msg(o.ret == 0, "%s", diag_text(&o.d));
	y = all_yaml(&o.r);
	ck_assert_ptr_null(strstr(y, "kind: NodeOverlay"));
	free(y);
	ck_assert_msg(strstr(diag_text(&o.d), "warning: Karpenter before "
					      "v1.7.0 has no NodeOverlay: the "
					      "hugepages-2Mi capacity"),
		      "%s", diag_text(&o.d));
	done(&o);
}
END_TEST

/* ... but a workload whose pods request hugepages (hugepages2Mi) cannot
 * run without the overlay: refused, naming the release that has it */
START_TEST(refuses_hugepages_workload)
{
	struct out o;
	const char *d;

	run_efa(&o, " hugepages2Mi: 5120Mi,");
	ck_assert_int_lt(o.ret, 0);
	d = diag_text(&o.d);
	ck_assert_msg(strstr(d, "i.yaml:5:24: error: Karpenter v1.6.8 has no "
				"NodeOverlay (karpenter.sh/v1alpha1): it came "
				"in Karpenter v1.7.0, and workload 't' "
				"(hugepages2Mi) needs it"),
		      "%s", d);
	ck_assert_msg(strstr(d, "drop hugepages2Mi"), "%s", d);
	ck_assert_ptr_null(o.r.docs);
	done(&o);
}
END_TEST

static const cJSON *kueue_config(const struct rendered *r, cJSON **owned)
{
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(r->addons,
							   "kueue-values.yaml");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(kv, "managerConfig"),
		"controllerManagerConfigYaml");
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;

	ck_assert(cJSON_IsString(s));
	ck_assert_int_eq(yaml_parse(&ys, s->valuestring, strlen(s->valuestring),
				    "conf", &err), 0);
	ck_assert_int_eq(yaml_to_json(owned, ys.docs[0].root, "conf", &err), 0);
	ystream_release(&ys);
	return *owned;
}

static int has_string(const cJSON *arr, const char *s)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
			return 1;
	return 0;
}

START_TEST(kueue_older_way)
{
	struct out o;
	const cJSON *doc, *conf, *w, *fw;
	cJSON *owned = NULL;
	size_t nkueue = 0;

	run(&o, "  targets: {kueue: v0.10.6}\n");
	ck_assert_msg(o.ret == 0, "%s", diag_text(&o.d));
	cJSON_ArrayForEach(doc, o.r.docs) {
		const char *av = cJSON_GetObjectItemCaseSensitive(
					 doc, "apiVersion")->valuestring;
		if (!strncmp(av, "kueue.x-k8s.io/", 15)) {
			ck_assert_str_eq(av, "kueue.x-k8s.io/v1beta1");
			nkueue++;
		}
	}
	ck_assert_uint_ge(nkueue, 5);
	conf = kueue_config(&o.r, &owned);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(conf, "apiVersion")
				 ->valuestring,
			 "config.kueue.x-k8s.io/v1beta1");
	w = cJSON_GetObjectItemCaseSensitive(conf, "waitForPodsReady");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "enable")));
	ck_assert_str_eq(w->child->string, "enable");
	ck_assert(cJSON_IsFalse(
		cJSON_GetObjectItemCaseSensitive(w, "blockAdmission")));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(w, "recoveryTimeout"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(w, "timeout"));
	fw = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(conf, "integrations"),
		"frameworks");
	ck_assert(has_string(fw, "kubeflow.org/pytorchjob"));
	ck_assert(has_string(fw, "statefulset"));
	ck_assert(!has_string(fw, "trainer.kubeflow.org/trainjob"));
	ck_assert(!has_string(fw, "ray.io/rayservice"));
	ck_assert(!has_string(fw, "leaderworkerset.x-k8s.io/leaderworkerset"));
	/* the dropped recoveryTimeout is a warning at the target */
	ck_assert_msg(strstr(diag_text(&o.d), "i.yaml:5:20: warning: Kueue "
					      "before v0.11.0 has no "
					      "waitForPodsReady.recoveryTimeout"),
		      "%s", diag_text(&o.d));
	cJSON_Delete(owned);
	done(&o);

	/* v0.15: v1beta2 objects and configuration, rayservice still out */
	run(&o, "  targets: {kueue: v0.15.8}\n");
	ck_assert_msg(o.ret == 0, "%s", diag_text(&o.d));
	conf = kueue_config(&o.r, &owned);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(conf, "apiVersion")
				 ->valuestring,
			 "config.kueue.x-k8s.io/v1beta2");
	w = cJSON_GetObjectItemCaseSensitive(conf, "waitForPodsReady");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(w, "enable"));
	ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(w, "recoveryTimeout"));
	fw = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(conf, "integrations"),
		"frameworks");
	ck_assert(!has_string(fw, "ray.io/rayservice"));
	ck_assert(has_string(fw, "trainer.kubeflow.org/trainjob"));
	cJSON_Delete(owned);
	done(&o);
}
END_TEST

START_TEST(karpenter_gates)
{
	struct out o;
	const cJSON *fg;

	run(&o, "  targets: {karpenter: v1.0.14}\n");
	/* the time-sliced pool needs NodeOverlays: refused */
	ck_assert_int_lt(o.ret, 0);
	done(&o);
	run(&o, "  targets: {karpenter: v1.7.0}\n");
	ck_assert_msg(o.ret == 0, "%s", diag_text(&o.d));
	fg = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(o.r.addons,
							 "karpenter-values.yaml"),
			"settings"),
		"featureGates");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fg, "nodeOverlay")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fg, "nodeRepair")));
	done(&o);
}
END_TEST

Suite *targets_suite(void)
{
	Suite *s = suite_create("targets");
	TCase *tc = tcase_create("versions");

	tcase_add_test(tc, parse_versions);
	tcase_add_test(tc, compare_versions);
	suite_add_tcase(s, tc);
	tc = tcase_create("read");
	tcase_add_test(tc, read_defaults);
	tcase_add_test(tc, read_values);
	tcase_add_test(tc, read_errors);
	tcase_add_test(tc, feature_table);
	suite_add_tcase(s, tc);
	tc = tcase_create("apply");
	tcase_add_test(tc, default_unchanged);
	tcase_add_test(tc, refuses_nodeoverlay);
	tcase_add_test(tc, drops_hugepages_overlays);
	tcase_add_test(tc, refuses_hugepages_workload);
	tcase_add_test(tc, kueue_older_way);
	tcase_add_test(tc, karpenter_gates);
	suite_add_tcase(s, tc);
	return s;
}
