/*
 * tests/unit/test_kueue.c: the rendered Kueue configuration against the
 * Kueue v0.19.2 chart's default (tests/fixtures/kueue/values.yaml, see
 * SOURCES.md there), key by key, for every example intent in specs/.
 *
 * Helm replaces managerConfig.controllerManagerConfigYaml whole, so a key
 * of the chart default missing from what gpuform renders is a default the
 * cluster silently loses. Every default leaf must be present with the same
 * value, every default list item (integrations) must be kept, and every
 * key or list item gpuform adds must be listed below with its reason.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/pipeline.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "util/yaml.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define CHART_VALUES "tests/fixtures/kueue/values.yaml"
#define SPECS "specs/"
#define NOT_LISTED \
	" is not in the chart default and not listed as deliberate"

/*
 * The deliberate differences from the chart default, each with its reason
 * (docs/kueue-and-disruption.md says more). A path names a key
 * ("waitForPodsReady") or a list item ("integrations.frameworks[pod]").
 */
static const struct {
	const char *path, *why;
} additions[] = {
	{ "waitForPodsReady",
	  "all-or-nothing gang start: a gang not Ready within the timeout is "
	  "evicted and requeued; blockAdmission stays false so one gang does "
	  "not freeze every ClusterQueue" },
	{ "integrations.frameworks[kubeflow.org/pytorchjob]",
	  "PyTorchJob gangs must go through Kueue (lint checks them against "
	  "the queues)" },
	{ "resources",
	  "excludeResourcePrefixes: ephemeral-storage and hugepages-* are "
	  "node-local and covered by no ClusterQueue; without it such pods "
	  "are never admitted" },
};

/* framework names Kueue v0.19 knows (apis/config/v1beta2/
 * configuration_types.go, Integrations.Frameworks) */
static const char *const known_frameworks[] = {
	"batch/job",
	"kubeflow.org/mpijob",
	"ray.io/rayjob",
	"ray.io/rayservice",
	"ray.io/raycluster",
	"jobset.x-k8s.io/jobset",
	"kubeflow.org/paddlejob",
	"kubeflow.org/pytorchjob",
	"kubeflow.org/tfjob",
	"kubeflow.org/xgboostjob",
	"kubeflow.org/jaxjob",
	"trainer.kubeflow.org/trainjob",
	"workload.codeflare.dev/appwrapper",
	"sparkoperator.k8s.io/sparkapplication",
	"pod",
	"deployment",
	"statefulset",
	"leaderworkerset.x-k8s.io/leaderworkerset",
	NULL
};

static int deliberate(const char *path)
{
	for (size_t i = 0; i < sizeof(additions) / sizeof(additions[0]); i++)
		if (!strcmp(additions[i].path, path))
			return 1;
	return 0;
}

static cJSON *yaml_json(const char *text, const char *file)
{
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;
	cJSON *j = NULL;

	ck_assert_msg(yaml_parse(&ys, text, strlen(text), file, &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_uint_eq(ys.nr, 1);
	ck_assert_int_eq(yaml_to_json(&j, ys.docs[0].root, file, &err), 0);
	ystream_release(&ys);
	err_release(&err);
	return j;
}

static const cJSON *at(const cJSON *j, const char *a, const char *b)
{
	j = cJSON_GetObjectItemCaseSensitive(j, a);
	return b ? cJSON_GetObjectItemCaseSensitive(j, b) : j;
}

/* the chart's default controller configuration */
static cJSON *chart_default(void)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	cJSON *values, *conf;
	const cJSON *s;

	ck_assert_msg(fs_read_file(&b, CHART_VALUES, 1 << 20, &err) == 0, "%s",
		      err_msg(&err));
	values = yaml_json(buf_cstr(&b), CHART_VALUES);
	s = at(values, "managerConfig", "controllerManagerConfigYaml");
	ck_assert_msg(cJSON_IsString(s), "no managerConfig."
					 "controllerManagerConfigYaml in %s",
		      CHART_VALUES);
	conf = yaml_json(s->valuestring, CHART_VALUES);
	cJSON_Delete(values);
	buf_release(&b);
	err_release(&err);
	return conf;
}

static int has_string(const cJSON *a, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, a)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
			return 1;
	return 0;
}

/* problems, one line each, in *why; returns their count */
static int problem(struct buf *why, const char *what, const char *path,
		   const char *text)
{
	buf_addf(why, "%s %s%s\n", what, path, text);
	return 1;
}

/* every leaf and list item of `def` is in `got`, or deliberate */
static int keeps_defaults(const cJSON *def, const cJSON *got,
			  const char *path, struct buf *why)
{
	const cJSON *c;
	int n = 0;

	if (cJSON_IsObject(def)) {
		if (!cJSON_IsObject(got))
			return deliberate(path) ? 0
			       : problem(why, "", path,
					 " is not a map as in the chart "
					 "default");
		cJSON_ArrayForEach(c, def) {
			char *p = *path ? xasprintf("%s.%s", path, c->string)
					: xstrdup(c->string);
			const cJSON *g = cJSON_GetObjectItemCaseSensitive(got,
									  c->string);
			if (g)
				n += keeps_defaults(c, g, p, why);
			else if (!deliberate(p))
				n += problem(why, "chart default key", p,
					     " is missing");
			free(p);
		}
		return n;
	}
	if (cJSON_IsArray(def)) {
		cJSON_ArrayForEach(c, def) {
			char *p;
			if (!cJSON_IsString(c)) {
				n += problem(why, "non-string list item in", path, "");
				continue;
			}
			p = xasprintf("%s[%s]", path, c->valuestring);
			if (!has_string(got, c->valuestring) && !deliberate(p))
				n += problem(why, "chart default", p, " is missing");
			free(p);
		}
		return n;
	}
	if (!cJSON_Compare(def, got, 1) && !deliberate(path))
		n += problem(why, "", path,
			     " differs from the chart default");
	return n;
}

/* every key and list item of `got` not in `def` is deliberate */
static int additions_listed(const cJSON *def, const cJSON *got,
			    const char *path, struct buf *why)
{
	const cJSON *c;
	int n = 0;

	if (cJSON_IsObject(got)) {
		cJSON_ArrayForEach(c, got) {
			char *p = *path ? xasprintf("%s.%s", path, c->string)
					: xstrdup(c->string);
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(def,
									  c->string);
			if (!d) {
				if (!deliberate(p))
					n += problem(why, "", p, NOT_LISTED);
			} else {
				n += additions_listed(d, c, p, why);
			}
			free(p);
		}
	} else if (cJSON_IsArray(got)) {
		cJSON_ArrayForEach(c, got) {
			char *p;
			if (!cJSON_IsString(c))
				continue;
			p = xasprintf("%s[%s]", path, c->valuestring);
			if (!has_string(def, c->valuestring) && !deliberate(p))
				n += problem(why, "", p, NOT_LISTED);
			free(p);
		}
	}
	return n;
}

static int compare(const cJSON *def, const cJSON *got, struct buf *why)
{
	return keeps_defaults(def, got, "", why) +
	       additions_listed(def, got, "", why);
}

struct rendered_conf {
	char *spec;
	cJSON *conf;
	cJSON *addons; /* owned copy */
};

/* render every example intent; its Kueue configuration and add-ons */
static size_t render_specs(struct rendered_conf *out, size_t max)
{
	DIR *dir = opendir(SPECS);
	struct dirent *e;
	struct tmpl_set *t;
	struct err err = ERR_INIT;
	size_t n = 0;

	ck_assert_msg(dir != NULL, "cannot open %s (run from the repo root)",
		      SPECS);
	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	while ((e = readdir(dir)) && n < max) {
		size_t len = strlen(e->d_name);
		struct buf path = BUF_INIT, data = BUF_INIT;
		struct rendered r = RENDERED_INIT;
		struct diags d = DIAGS_INIT;
		const cJSON *s;

		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		buf_addf(&path, "%s%s", SPECS, e->d_name);
		ck_assert_int_eq(fs_read_file(&data, buf_cstr(&path), 1 << 20,
					      &err), 0);
		ck_assert_msg(pipeline_render(&r, buf_cstr(&path),
					      buf_cstr(&data), data.len, t, &d,
					      &err) == 0,
			      "%s: %s", buf_cstr(&path), err_msg(&err));
		s = at(at(r.addons, "kueue-values.yaml", NULL), "managerConfig",
		       "controllerManagerConfigYaml");
		ck_assert_msg(cJSON_IsString(s), "%s: no Kueue configuration",
			      buf_cstr(&path));
		out[n].spec = xstrdup(e->d_name);
		out[n].conf = yaml_json(s->valuestring, e->d_name);
		out[n].addons = cJSON_Duplicate(r.addons, 1);
		n++;
		rendered_release(&r);
		diags_release(&d);
		buf_release(&path);
		buf_release(&data);
	}
	closedir(dir);
	tmpl_set_free(t);
	err_release(&err);
	ck_assert_uint_gt(n, 0);
	return n;
}

static void release_confs(struct rendered_conf *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].spec);
		cJSON_Delete(c[i].conf);
		cJSON_Delete(c[i].addons);
	}
}

START_TEST(test_keeps_chart_defaults)
{
	struct rendered_conf c[32];
	size_t n = render_specs(c, 32);
	cJSON *def = chart_default();

	/* the vendored default is what this test believes it is */
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(def, "kind")->valuestring,
			 "Configuration");
	ck_assert(has_string(at(def, "integrations", "frameworks"), "pod"));
	ck_assert_ptr_null(at(def, "waitForPodsReady", NULL));
	for (size_t i = 0; i < n; i++) {
		struct buf why = BUF_INIT;
		ck_assert_msg(compare(def, c[i].conf, &why) == 0, "%s:\n%s",
			      c[i].spec, buf_cstr(&why));
		buf_release(&why);
	}
	cJSON_Delete(def);
	release_confs(c, n);
}
END_TEST

/* the comparison itself can fail: a dropped default, a changed value and
 * an unlisted addition are each caught */
START_TEST(test_comparison_fails)
{
	cJSON *def = chart_default();
	cJSON *got = cJSON_Duplicate(def, 1);
	cJSON *fw = (cJSON *)at(got, "integrations", "frameworks");
	struct buf why = BUF_INIT;

	ck_assert_int_eq(compare(def, got, &why), 0);
	/* a dropped default list item */
	cJSON_DeleteItemFromArray(fw, 0);
	ck_assert_int_eq(compare(def, got, &why), 1);
	cJSON_Delete(got);
	/* a changed value, a dropped key */
	got = cJSON_Duplicate(def, 1);
	cJSON_ReplaceItemInObjectCaseSensitive(
		(cJSON *)at(got, "clientConnection", NULL), "qps",
		cJSON_CreateNumber(50));
	cJSON_DeleteItemFromObjectCaseSensitive(got, "health");
	ck_assert_int_eq(compare(def, got, &why), 2);
	cJSON_Delete(got);
	/* unlisted additions; listed ones pass */
	got = cJSON_Duplicate(def, 1);
	fw = (cJSON *)at(got, "integrations", "frameworks");
	cJSON_AddItemToArray(fw, cJSON_CreateString("kubeflow.org/tfjob"));
	cJSON_AddTrueToObject(got, "manageJobsWithoutQueueName");
	ck_assert_int_eq(compare(def, got, &why), 2);
	cJSON_AddItemToArray(fw, cJSON_CreateString("kubeflow.org/pytorchjob"));
	cJSON_AddObjectToObject(got, "waitForPodsReady");
	ck_assert_int_eq(compare(def, got, &why), 2);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "manageJobsWithoutQueueName"));
	buf_release(&why);
	cJSON_Delete(got);
	cJSON_Delete(def);
}
END_TEST

START_TEST(test_semantics)
{
	struct rendered_conf c[32];
	size_t n = render_specs(c, 32);

	for (size_t i = 0; i < n; i++) {
		const cJSON *w = at(c[i].conf, "waitForPodsReady", NULL), *v;
		const cJSON *fw = at(at(c[i].conf, "integrations", NULL),
				     "frameworks", NULL);
		const cJSON *ex = at(at(c[i].conf, "resources", NULL),
				     "excludeResourcePrefixes", NULL);
		const cJSON *a;

		/* gangs: evicted and requeued, never a cluster-wide freeze */
		ck_assert_msg(cJSON_IsFalse(at(w, "blockAdmission", NULL)),
			      "%s: blockAdmission must be false", c[i].spec);
		ck_assert(cJSON_IsString(at(w, "timeout", NULL)));
		ck_assert_str_eq(at(w, "recoveryTimeout", NULL)->valuestring,
				 at(w, "timeout", NULL)->valuestring);
		ck_assert_str_eq(at(at(w, "requeuingStrategy", NULL),
				    "timestamp", NULL)->valuestring,
				 "Eviction");
		/* Fixed bug (render.c render_addons): a gang waiting for a
		 * Capacity Block was deactivated after 5 requeues, long
		 * before the block started; with a waiting workload there is
		 * no limit, otherwise 5 */
		if (strstr(c[i].spec, "capacity-block-training"))
			ck_assert_ptr_null(at(at(w, "requeuingStrategy", NULL),
					      "backoffLimitCount", NULL));
		else if (strstr(c[i].spec, "ml-prod"))
			ck_assert_int_eq(at(at(w, "requeuingStrategy", NULL),
					    "backoffLimitCount", NULL)->valueint,
					 5);
		/* every framework name is one Kueue v0.19 knows */
		cJSON_ArrayForEach(v, fw) {
			int ok = 0;
			for (const char *const *k = known_frameworks; *k; k++)
				ok |= !strcmp(*k, v->valuestring);
			ck_assert_msg(ok, "%s: unknown framework %s", c[i].spec,
				      v->valuestring);
		}
		/* what the rendered contracts and lint rely on */
		for (const char *const *k = (const char *const[]){
			     "batch/job", "jobset.x-k8s.io/jobset",
			     "kubeflow.org/pytorchjob", "kubeflow.org/mpijob",
			     "trainer.kubeflow.org/trainjob", "pod",
			     "deployment", "statefulset",
			     "leaderworkerset.x-k8s.io/leaderworkerset", NULL };
		     *k; k++)
			ck_assert_msg(has_string(fw, *k), "%s: %s not enabled",
				      c[i].spec, *k);
		ck_assert(has_string(ex, "ephemeral-storage"));
		ck_assert(has_string(ex, "hugepages-"));
		/* never a prefix that would hide a covered resource */
		cJSON_ArrayForEach(v, ex) {
			for (const char *const *r = (const char *const[]){
				     "cpu", "memory", "nvidia.com/gpu",
				     "vpc.amazonaws.com/efa", NULL };
			     *r; r++)
				ck_assert_msg(strncmp(*r, v->valuestring,
						      strlen(v->valuestring)),
					      "%s: prefix %s hides %s", c[i].spec,
					      v->valuestring, *r);
		}
		/* IgnoreUndeclared would let a GPU pod into a CPU queue */
		ck_assert_ptr_null(at(at(c[i].conf, "resources", NULL),
				      "quotaCheckStrategy", NULL));
		/* every queue a contract names is honoured by some framework:
		 * the contract's kinds (Jobs, Deployments) are enabled above */
		cJSON_ArrayForEach(a, c[i].addons) {
			if (strncmp(a->string, "pod-contract-", 13))
				continue;
			ck_assert(cJSON_IsString(at(at(a, "labels", NULL),
						    "kueue.x-k8s.io/queue-name",
						    NULL)));
		}
	}
	release_confs(c, n);
}
END_TEST

Suite *kueue_suite(void)
{
	Suite *s = suite_create("kueue");
	TCase *tc = tcase_create("configuration");

	tcase_add_test(tc, test_keeps_chart_defaults);
	tcase_add_test(tc, test_comparison_fails);
	tcase_add_test(tc, test_semantics);
	suite_add_tcase(s, tc);
	return s;
}
