/*
 * tests/unit/test_doctor.c: Check suite for generator/doctor.c (the
 * running controllers vs an intent's targets and add-ons) and
 * generator/addondiff.c (add-on files compared by key, with impact).
 */
#include <string.h>

#include <check.h>

#include "generator/addondiff.h"
#include "generator/doctor.h"
#include "tests/unit/suites.h"
#include "util/buf.h"

START_TEST(image_versions)
{
	struct targets_ver v;

	ck_assert_int_eq(doctor_image_version("public.ecr.aws/karpenter/controller:1.6.2@sha256:0123", &v), 0);
	ck_assert(v.major == 1 && v.minor == 6 && v.patch == 2);
	ck_assert_int_eq(doctor_image_version("registry.k8s.io/kueue/kueue:v0.13.4", &v), 0);
	ck_assert(v.minor == 13 && v.patch == 4);
	/* a registry port is no tag */
	ck_assert_int_lt(doctor_image_version("localhost:5000/karpenter/controller", &v), 0);
	ck_assert_int_lt(doctor_image_version("x/controller:latest", &v), 0);
	ck_assert_int_lt(doctor_image_version("x/controller@sha256:00", &v), 0);
	ck_assert_int_lt(doctor_image_version(NULL, &v), 0);
}
END_TEST

START_TEST(gates)
{
	struct targets_ver v15 = { 1, 5, 0 }, v16 = { 1, 6, 2 };

	ck_assert_int_eq(doctor_gate("NodeRepair=true,NodeOverlay=false", "NodeOverlay", &v16), 0);
	ck_assert_int_eq(doctor_gate("NodeRepair=true,NodeOverlay=true", "NodeOverlay", &v16), 1);
	ck_assert_int_eq(doctor_gate("NodeOverlay=trueish", "NodeOverlay", &v16), 0);
	/* not set: the release default (ReservedCapacity on from v1.6.0) */
	ck_assert_int_eq(doctor_gate("NodeRepair=true", "NodeOverlay", &v16), 0);
	ck_assert_int_eq(doctor_gate(NULL, "ReservedCapacity", &v16), 1);
	ck_assert_int_eq(doctor_gate(NULL, "ReservedCapacity", &v15), 0);
	/* a longer name with the same prefix is another gate */
	ck_assert_int_eq(doctor_gate("NodeOverlayX=true", "NodeOverlay", &v16), 0);
}
END_TEST

static cJSON *addons_with(int overlay, const char *frameworks_yaml)
{
	cJSON *a = cJSON_CreateObject();
	cJSON *kv = cJSON_AddObjectToObject(a, "karpenter-values.yaml");
	cJSON *fg = cJSON_AddObjectToObject(
		cJSON_AddObjectToObject(kv, "settings"), "featureGates");
	cJSON *q = cJSON_AddObjectToObject(a, "kueue-values.yaml");

	cJSON_AddBoolToObject(fg, "nodeOverlay", overlay);
	cJSON_AddBoolToObject(fg, "nodeRepair", 1);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(q, "managerConfig"),
				"controllerManagerConfigYaml", frameworks_yaml);
	return a;
}

static const char conf_a[] =
	"apiVersion: config.kueue.x-k8s.io/v1beta2\n"
	"kind: Configuration\n"
	"waitForPodsReady:\n  timeout: 25m\n"
	"integrations:\n  frameworks:\n  - batch/job\n  - kubeflow.org/pytorchjob\n";
static const char conf_b[] =
	"apiVersion: config.kueue.x-k8s.io/v1beta2\n"
	"kind: Configuration\n"
	"waitForPodsReady:\n  timeout: 25m\n"
	"integrations:\n  frameworks:\n  - batch/job\n";

static const char *fmt(const struct diags *d)
{
	static struct buf b = BUF_INIT;
	buf_reset(&b);
	diags_format(d, &b);
	return buf_cstr(&b);
}

START_TEST(check_findings)
{
	struct rendered r = RENDERED_INIT;
	struct targets t;
	struct doctor_live l;
	struct diags d = DIAGS_INIT;

	targets_init(&t);
	r.addons = addons_with(1, conf_a);
	memset(&l, 0, sizeof(l));
	l.karpenter.where = "Deployment kube-system/karpenter";
	l.karpenter.image = "public.ecr.aws/karpenter/controller:1.6.2";
	l.feature_gates = "NodeRepair=true,NodeOverlay=false";
	l.kueue.where = "Deployment kueue-system/kueue-controller-manager";
	l.kueue.image = "registry.k8s.io/kueue/kueue:v0.19.2";
	l.kueue_config_where = "ConfigMap kueue-system/kueue-manager-config";
	l.kueue_config = conf_b;
	doctor_check("i.yaml", &t, &r, &l, &d);
	ck_assert_msg(d.errors == 3, "%s", fmt(&d));
	ck_assert(strstr(fmt(&d), "the intent targets Karpenter v1.14.1 but Deployment kube-system/karpenter runs v1.6.2"));
	ck_assert(strstr(fmt(&d), "NodeOverlays rendered but the running Karpenter (Deployment kube-system/karpenter) has NodeOverlay=false"));
	ck_assert(strstr(fmt(&d), "integration kubeflow.org/pytorchjob is rendered but not in the running Kueue configuration"));
	diags_release(&d);

	/* matching: no finding */
	l.karpenter.image = "public.ecr.aws/karpenter/controller:1.14.1";
	l.feature_gates = "NodeRepair=true,NodeOverlay=true";
	l.kueue_config = conf_a;
	doctor_check("i.yaml", &t, &r, &l, &d);
	ck_assert_msg(d.errors == 0, "%s", fmt(&d));
	diags_release(&d);

	/* nothing readable: warnings only */
	memset(&l, 0, sizeof(l));
	l.karpenter.unreadable = "Deployment kube-system/karpenter cannot be read (403)";
	doctor_check("i.yaml", &t, &r, &l, &d);
	ck_assert_msg(d.errors == 0 && d.warnings == 3, "%s", fmt(&d));
	diags_release(&d);
	rendered_release(&r);
}
END_TEST

START_TEST(addon_changes)
{
	cJSON *a = addons_with(0, conf_a), *b = addons_with(1, conf_b);
	cJSON *docs_a = cJSON_CreateArray(), *docs_b = cJSON_CreateArray();
	struct addondiff d = ADDONDIFF_INIT;
	struct buf out = BUF_INIT;
	cJSON *ov = cJSON_CreateObject();

	cJSON_AddStringToObject(ov, "kind", "NodeOverlay");
	cJSON_AddItemToArray(docs_b, ov);
	cJSON_AddItemToObject(cJSON_GetObjectItem(b, "karpenter-values.yaml"),
			      "extra", cJSON_CreateString("x"));
	cJSON_AddItemToObject(b, "vpc-cni.yaml", cJSON_CreateObject());
	addondiff_add(&d, NULL, a, b, docs_a, docs_b);
	addondiff_format_text(&out, &d);
	/* sorted by file and key; the Kueue configuration compared inside */
	ck_assert_msg(d.nr == 4, "%s", buf_cstr(&out));
	ck_assert_str_eq(d.items[0].key, "extra");
	ck_assert_ptr_null(d.items[0].before);
	ck_assert_str_eq(d.items[1].key, "settings.featureGates.nodeOverlay");
	ck_assert_str_eq(d.items[1].before, "false");
	ck_assert_str_eq(d.items[1].after, "true");
	ck_assert(strstr(d.items[1].impact, "needed by the NodeOverlays this change adds; roll out the Helm release first"));
	ck_assert_str_eq(d.items[2].key, "managerConfig.controllerManagerConfigYaml:integrations.frameworks");
	ck_assert(strstr(d.items[2].impact, "Kueue configuration"));
	ck_assert_str_eq(d.items[3].file, "vpc-cni.yaml");
	ck_assert_str_eq(d.items[3].key, "(file)");
	ck_assert(strstr(buf_cstr(&out), "add-on addons/karpenter-values.yaml: settings.featureGates.nodeOverlay: false -> true\n"));
	{
		cJSON *j = addondiff_json(&d);
		const cJSON *it = cJSON_GetArrayItem(j, 1);
		ck_assert_int_eq(cJSON_GetArraySize(j), 4);
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(it, "before")));
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(it, "after")));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "before")));
		cJSON_Delete(j);
	}
	buf_reset(&out);
	addondiff_summary(&out, &d);
	ck_assert_str_eq(buf_cstr(&out), "4 add-on settings changed");
	addondiff_release(&d);
	/* the same on both sides: nothing */
	addondiff_add(&d, NULL, a, a, docs_a, docs_a);
	ck_assert_uint_eq(d.nr, 0);
	addondiff_release(&d);
	buf_release(&out);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(docs_a);
	cJSON_Delete(docs_b);
}
END_TEST

/* addondiff_live: the rendered add-ons against what runs, key by key */
START_TEST(addon_live)
{
	cJSON *a = addons_with(1, conf_a);
	cJSON *docs = cJSON_CreateArray(), *ov = cJSON_CreateObject();
	struct addondiff d = ADDONDIFF_INIT;
	struct diags notes = DIAGS_INIT;
	struct doctor_live l;
	struct buf out = BUF_INIT;

	cJSON_AddStringToObject(ov, "kind", "NodeOverlay");
	cJSON_AddItemToArray(docs, ov);
	memset(&l, 0, sizeof(l));
	l.karpenter.where = "Deployment kube-system/karpenter";
	l.karpenter.image = "public.ecr.aws/karpenter/controller:1.14.1";
	l.feature_gates = "NodeRepair=true,NodeOverlay=false";
	l.kueue_config_where = "ConfigMap kueue-system/kueue-manager-config";
	l.kueue_config = conf_b;
	addondiff_live(&d, NULL, a, docs, &l, &notes);
	addondiff_format_text(&out, &d);
	ck_assert_msg(d.nr == 2 && notes.nr == 0, "%s", buf_cstr(&out));
	ck_assert(strstr(buf_cstr(&out),
			 "add-on addons/karpenter-values.yaml: "
			 "settings.featureGates.nodeOverlay: live false, "
			 "rendered true\n  Karpenter feature gate nodeOverlay "
			 "(Deployment kube-system/karpenter, FEATURE_GATES): "
			 "the 1 NodeOverlay rendered is ignored until "
			 "addons/karpenter-values.yaml is rolled out to the "
			 "karpenter Helm release\n"));
	ck_assert_str_eq(d.items[1].key, "managerConfig.controllerManagerConfigYaml:integrations.frameworks");
	ck_assert_str_eq(d.items[1].before, "[\"batch/job\"]");
	buf_reset(&out);
	addondiff_summary(&out, &d);
	ck_assert_str_eq(buf_cstr(&out), "2 add-on settings differ from the running controllers");
	{
		cJSON *j = addondiff_json(&d);
		const cJSON *it = cJSON_GetArrayItem(j, 0);
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(it, "live")));
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(it, "rendered")));
		ck_assert_ptr_null(cJSON_GetObjectItem(it, "before"));
		cJSON_Delete(j);
	}
	addondiff_release(&d);

	/* delivered by Flux: the HelmRelease rolls it out; a key only live */
	{
		cJSON *hr = cJSON_CreateObject(), *md;
		cJSON_AddStringToObject(hr, "kind", "HelmRelease");
		md = cJSON_AddObjectToObject(hr, "metadata");
		cJSON_AddStringToObject(md, "name", "karpenter");
		cJSON_AddStringToObject(md, "namespace", "flux-system");
		cJSON_AddItemToArray(docs, hr);
	}
	l.feature_gates = "NodeOverlay=false";
	l.kueue_config = "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
			 "kind: Configuration\nwaitForPodsReady:\n  timeout: 25m\n"
			 "integrations:\n  frameworks:\n  - batch/job\n"
			 "  - kubeflow.org/pytorchjob\nmanageJobsWithoutQueueName: true\n";
	addondiff_live(&d, NULL, a, docs, &l, &notes);
	buf_reset(&out);
	addondiff_format_text(&out, &d);
	/* nodeOverlay and nodeRepair (left out of FEATURE_GATES: off), and
	 * the Kueue key only the live configuration has */
	ck_assert_msg(d.nr == 3, "%s", buf_cstr(&out));
	ck_assert(strstr(buf_cstr(&out), "until HelmRelease flux-system/karpenter (rendered) is synced"));
	ck_assert(strstr(buf_cstr(&out), "settings.featureGates.nodeRepair: live false, rendered true"));
	ck_assert(strstr(buf_cstr(&out), "managerConfig.controllerManagerConfigYaml:manageJobsWithoutQueueName: live true, rendered (absent)"));
	addondiff_release(&d);

	/* as rendered: nothing; unreadable: a warning, nothing compared */
	l.feature_gates = "NodeRepair=true,NodeOverlay=true";
	l.kueue_config = conf_a;
	addondiff_live(&d, NULL, a, docs, &l, &notes);
	ck_assert_uint_eq(d.nr, 0);
	memset(&l, 0, sizeof(l));
	l.karpenter.unreadable = "Deployment kube-system/karpenter cannot be read (403)";
	addondiff_live(&d, NULL, a, docs, &l, &notes);
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_msg(notes.warnings == 1 && strstr(fmt(&notes), "its feature gates are not compared"), "%s", fmt(&notes));
	/* absent controllers: nothing to compare, nothing said */
	memset(&l, 0, sizeof(l));
	addondiff_live(&d, NULL, a, docs, &l, &notes);
	ck_assert_uint_eq(notes.warnings, 1);
	addondiff_release(&d);
	diags_release(&notes);
	buf_release(&out);
	cJSON_Delete(a);
	cJSON_Delete(docs);
}
END_TEST

Suite *doctor_suite(void)
{
	Suite *s = suite_create("doctor");
	TCase *tc = tcase_create("doctor");

	tcase_add_test(tc, image_versions);
	tcase_add_test(tc, gates);
	tcase_add_test(tc, check_findings);
	suite_add_tcase(s, tc);
	tc = tcase_create("addondiff");
	tcase_add_test(tc, addon_changes);
	tcase_add_test(tc, addon_live);
	suite_add_tcase(s, tc);
	return s;
}
