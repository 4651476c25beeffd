/*
 * tests/unit/test_delivery.c: Check suite for generator/delivery.c through
 * pipeline_render — delivery values is the default output, flux renders a
 * HelmRelease per Helm add-on (values = the addons/ file) with its OCI or
 * https source and the chart versions of spec.targets, argocd renders
 * Applications, an unknown delivery is refused at its line:col.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/pipeline.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/yaml.h"

static const char intent_fmt[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: c1}\n"
	"spec:\n"
	"%s"
	"  nodeRole: r\n"
	"  ami: al2023@v20250505\n"
	"  workloads:\n"
	"    - {name: train, type: training, gpu: h100, maxGpus: 8}\n";

struct out {
	struct tmpl_set *t;
	struct rendered r;
	struct diags d;
	struct err err;
	int ret;
};

static void run(struct out *o, const char *extra)
{
	char text[2048];

	memset(o, 0, sizeof(*o));
	snprintf(text, sizeof(text), intent_fmt, extra);
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

/* the rendered object of kind/name, or NULL */
static const cJSON *find(const struct rendered *r, const char *kind,
			 const char *name)
{
	const cJSON *doc;

	cJSON_ArrayForEach(doc, r->docs)
	{
		if (!strcmp(json_text_at(doc, "kind", NULL), kind) &&
		    !strcmp(json_text_at(doc, "metadata", "name"), name))
			return doc;
	}
	return NULL;
}

START_TEST(values_is_default)
{
	struct out a, b;
	char *ya, *yb;

	run(&a, "");
	run(&b, "  addons: {delivery: values}\n");
	ck_assert_int_eq(a.ret, 0);
	ck_assert_int_eq(b.ret, 0);
	ya = all_yaml(&a.r);
	yb = all_yaml(&b.r);
	ck_assert_str_eq(ya, yb);
	ck_assert_ptr_null(strstr(ya, "HelmRelease"));
	free(ya);
	free(yb);
	done(&a);
	done(&b);
}
END_TEST

START_TEST(flux_objects)
{
	struct out o;
	const cJSON *hr, *src;

	run(&o, "  addons: {delivery: flux}\n"
		"  targets: {karpenter: v1.10.2, kueue: v0.15.8}\n");
	ck_assert_int_eq(o.ret, 0);
	hr = find(&o.r, "HelmRelease", "karpenter");
	ck_assert_ptr_nonnull(hr);
	ck_assert_str_eq(json_text_at(hr, "apiVersion", NULL),
			 "helm.toolkit.fluxcd.io/v2");
	ck_assert_str_eq(json_text_at(hr, "metadata", "namespace"),
			 "flux-system");
	/* the values are the addons/ file, whole */
	ck_assert(cJSON_Compare(
		cJSON_GetObjectItem(cJSON_GetObjectItem(hr, "spec"), "values"),
		cJSON_GetObjectItem(o.r.addons, "karpenter-values.yaml"), 1));
	src = find(&o.r, "OCIRepository", "karpenter");
	ck_assert_ptr_nonnull(src);
	ck_assert_str_eq(json_text_at(cJSON_GetObjectItem(src, "spec"), "ref",
				      "tag"),
			 "1.10.2");
	src = find(&o.r, "OCIRepository", "kueue");
	ck_assert_ptr_nonnull(src);
	ck_assert_str_eq(json_text_at(cJSON_GetObjectItem(src, "spec"), "ref",
				      "tag"),
			 "0.15.8");
	/* AL2023 GPU pools: the NVIDIA device plugin from its https repo */
	ck_assert_ptr_nonnull(find(&o.r, "HelmRelease", "nvidia-device-plugin"));
	ck_assert_ptr_nonnull(find(&o.r, "HelmRepository", "nvdp"));
	/* no EFA workload: no EFA plugin release */
	ck_assert_ptr_null(find(&o.r, "HelmRelease", "aws-efa-k8s-device-plugin"));
	ck_assert_ptr_null(find(&o.r, "Application", "karpenter"));
	done(&o);
}
END_TEST

START_TEST(argocd_objects)
{
	struct out o;
	const cJSON *app, *src;

	run(&o, "  addons: {delivery: argocd}\n");
	ck_assert_int_eq(o.ret, 0);
	app = find(&o.r, "Application", "kueue");
	ck_assert_ptr_nonnull(app);
	ck_assert_str_eq(json_text_at(app, "metadata", "namespace"), "argocd");
	src = cJSON_GetObjectItem(cJSON_GetObjectItem(app, "spec"), "source");
	ck_assert_str_eq(json_text_at(src, "repoURL", NULL),
			 "registry.k8s.io/kueue/charts");
	ck_assert_str_eq(json_text_at(src, "chart", NULL), "kueue");
	ck_assert_str_eq(json_text_at(src, "targetRevision", NULL), "0.19.2");
	ck_assert(cJSON_Compare(
		cJSON_GetObjectItem(cJSON_GetObjectItem(src, "helm"),
				    "valuesObject"),
		cJSON_GetObjectItem(o.r.addons, "kueue-values.yaml"), 1));
	ck_assert_ptr_null(find(&o.r, "HelmRelease", "kueue"));
	done(&o);
}
END_TEST

START_TEST(unknown_delivery)
{
	struct out o;
	struct buf b = BUF_INIT;

	run(&o, "  addons: {delivery: fluxcd}\n");
	ck_assert_int_ne(o.ret, 0);
	diags_format(&o.d, &b);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "i.yaml:5:"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "'fluxcd'"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&b), "did you mean 'flux'"));
	buf_release(&b);
	done(&o);
}
END_TEST

Suite *delivery_suite(void)
{
	Suite *s = suite_create("delivery");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, values_is_default);
	tcase_add_test(tc, flux_objects);
	tcase_add_test(tc, argocd_objects);
	tcase_add_test(tc, unknown_delivery);
	suite_add_tcase(s, tc);
	return s;
}
