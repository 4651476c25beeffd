/*
 * tests/unit/test_objdiff.c: generator/objdiff.c (what a PR reviewer reads:
 * object-by-object changes, their order, the node impact and the text,
 * Markdown and JSON forms), generator/capplan.c (the capacity plan and its
 * before -> after) and generator/inputs.c (reading several intents, the
 * tree `render -o` and `commit` write) — all on inputs built here.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "generator/capplan.h"
#include "generator/inputs.h"
#include "generator/objdiff.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/xalloc.h"

#define CM(name, val)                                                        \
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":" \
	"\"" name "\",\"namespace\":\"ns\"},\"data\":{\"x\":\"" val "\"}}"
#define NP(name, ami)                                                          \
	"{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodePool\","            \
	"\"metadata\":{\"name\":\"" name "\"},\"spec\":{\"template\":{\"spec\":" \
	"{\"nodeClassRef\":{\"group\":\"karpenter.k8s.aws\",\"kind\":"          \
	"\"EC2NodeClass\",\"name\":\"" name "\"},\"requirements\":[]}},"        \
	"\"limits\":{\"nvidia.com/gpu\":\"" ami "\"}}}"
#define NC(name, ami)                                                          \
	"{\"apiVersion\":\"karpenter.k8s.aws/v1\",\"kind\":\"EC2NodeClass\","   \
	"\"metadata\":{\"name\":\"" name "\"},\"spec\":{\"role\":\"R\","         \
	"\"amiSelectorTerms\":[{\"id\":\"" ami "\"}]}}"

struct sides {
	cJSON *base, *head;
	struct objset b, h;
	struct objdiff d;
};

static void sides_init(struct sides *s, const char *base, const char *head)
{
	s->base = cJSON_Parse(base);
	s->head = cJSON_Parse(head);
	ck_assert_ptr_nonnull(s->base);
	ck_assert_ptr_nonnull(s->head);
	s->b = (struct objset)OBJSET_INIT;
	s->h = (struct objset)OBJSET_INIT;
	s->d = (struct objdiff)OBJDIFF_INIT;
	objset_add(&s->b, "c1", s->base);
	objset_add(&s->h, "c1", s->head);
}

static void sides_release(struct sides *s)
{
	objdiff_release(&s->d);
	objset_release(&s->b);
	objset_release(&s->h);
	cJSON_Delete(s->base);
	cJSON_Delete(s->head);
}

static int has(const struct buf *b, const char *s)
{
	return strstr(buf_cstr(b), s) != NULL;
}

START_TEST(test_objdiff_changes_and_order)
{
	struct sides s;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;

	sides_init(&s,
		   "[" CM("a", "1") "," CM("gone", "g") "," NP("p", "8") ","
		   NC("p", "ami-1") "," CM("same", "s") "]",
		   "[" CM("same", "s") "," CM("new", "n") "," CM("a", "2") ","
		   NP("p", "16") "," NC("p", "ami-2") "]");
	ck_assert_int_eq(objdiff_compute(&s.d, &s.b, &s.h, &err), 0);
	ck_assert_uint_eq(s.d.counts[OBJDIFF_ADDED], 1);
	ck_assert_uint_eq(s.d.counts[OBJDIFF_REMOVED], 1);
	ck_assert_uint_eq(s.d.counts[OBJDIFF_MODIFIED], 3);
	ck_assert_uint_eq(s.d.unchanged, 1);
	ck_assert_uint_eq(s.d.nr, 5);
	/* render order: within ConfigMaps by name; each change's diff */
	for (size_t i = 0; i < s.d.nr; i++) {
		const struct objdiff_item *it = &s.d.items[i];
		if (!strcmp(it->id.name, "new")) {
			ck_assert_int_eq(it->change, OBJDIFF_ADDED);
			ck_assert_ptr_nonnull(strstr(it->diff, "--- /dev/null"));
		} else if (!strcmp(it->id.name, "gone")) {
			ck_assert_int_eq(it->change, OBJDIFF_REMOVED);
			ck_assert_ptr_nonnull(strstr(it->diff, "+++ /dev/null"));
		} else if (!strcmp(it->id.name, "a")) {
			ck_assert_ptr_nonnull(strstr(it->diff, "-  x: \"1\""));
			ck_assert_ptr_nonnull(strstr(it->diff, "+  x: \"2\""));
		}
	}
	/* the AMI of the node class replaces nodes (Karpenter drift) */
	ck_assert_uint_ge(s.d.tally.counts[IMPACT_REPLACES], 1);

	objdiff_summary(&out, &s.d);
	ck_assert_msg(has(&out, "5 objects changed: 1 added, 1 removed, "
				"3 modified"), "%s", buf_cstr(&out));
	ck_assert_msg(has(&out, "node-replacing"), "%s", buf_cstr(&out));
	buf_reset(&out);
	objdiff_format_text_ext(&out, &s.d, "capacity: unchanged\n");
	ck_assert(has(&out, "added c1/ConfigMap/ns/new"));
	ck_assert(has(&out, "removed c1/ConfigMap/ns/gone"));
	ck_assert(has(&out, "node impact: "));
	ck_assert(has(&out, "capacity: unchanged\n"));
	buf_reset(&out);
	{
		struct objdiff_rev b = { "main", "0123456789abcdef" },
				   h = { NULL, NULL };
		cJSON *j, *sum;

		objdiff_format_markdown_ext(&out, &s.d, &b, &h, "lead", "SECTION");
		ck_assert(has(&out, "<details>"));
		ck_assert(has(&out, "```diff"));
		ck_assert(has(&out, "SECTION"));
		buf_reset(&out);
		objdiff_format_json_ext(&out, &s.d, &b, &h, "capacity",
					cJSON_CreateObject());
		j = cJSON_Parse(buf_cstr(&out));
		ck_assert_ptr_nonnull(j);
		sum = cJSON_GetObjectItem(j, "summary");
		ck_assert_int_eq(cJSON_GetObjectItem(sum, "changed")->valueint, 5);
		ck_assert_int_eq(cJSON_GetObjectItem(sum, "unchanged")->valueint, 1);
		ck_assert_str_eq(cJSON_GetObjectItem(j, "head")->valuestring,
				 "worktree");
		ck_assert_ptr_nonnull(cJSON_GetObjectItem(j, "capacity"));
		ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "objects")), 5);
		cJSON_Delete(j);
	}
	buf_release(&out);
	sides_release(&s);
	err_release(&err);
}
END_TEST

START_TEST(test_objdiff_identical_and_apiversion)
{
	struct sides s;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;

	sides_init(&s, "[" CM("a", "1") "]", "[" CM("a", "1") "]");
	ck_assert_int_eq(objdiff_compute(&s.d, &s.b, &s.h, &err), 0);
	ck_assert_uint_eq(s.d.nr, 0);
	ck_assert_uint_eq(s.d.unchanged, 1);
	objdiff_summary(&out, &s.d);
	ck_assert_msg(has(&out, "0 objects changed"), "%s", buf_cstr(&out));
	sides_release(&s);
	/* another apiVersion of the same kind is the same object, modified */
	sides_init(&s,
		   "[{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Cohort\","
		   "\"metadata\":{\"name\":\"c\"}}]",
		   "[{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Cohort\","
		   "\"metadata\":{\"name\":\"c\"}}]");
	ck_assert_int_eq(objdiff_compute(&s.d, &s.b, &s.h, &err), 0);
	ck_assert_uint_eq(s.d.nr, 1);
	ck_assert_int_eq(s.d.items[0].change, OBJDIFF_MODIFIED);
	ck_assert_str_eq(s.d.items[0].id.api_version, "kueue.x-k8s.io/v1beta2");
	buf_release(&out);
	sides_release(&s);
	err_release(&err);
}
END_TEST

START_TEST(test_objdiff_duplicate)
{
	struct sides s;
	struct err err = ERR_INIT;

	sides_init(&s, "[" CM("a", "1") "," CM("a", "2") "]", "[]");
	ck_assert_int_eq(objdiff_compute(&s.d, &s.b, &s.h, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	sides_release(&s);
	err_release(&err);
}
END_TEST

START_TEST(test_objdiff_when)
{
	cJSON *np = cJSON_Parse(
		"{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":\"NodePool\","
		"\"metadata\":{\"name\":\"p\"},\"spec\":{\"disruption\":{"
		"\"budgets\":[{\"nodes\":\"0\",\"reasons\":[\"Drifted\"]}]}}}");
	const cJSON *docs[1] = { np };
	char *names[1] = { (char *)"p" };
	struct buf out = BUF_INIT;

	objdiff_when(&out, names, 1, docs, 1);
	ck_assert_msg(has(&out, "not by itself"), "%s", buf_cstr(&out));
	buf_reset(&out);
	names[0] = (char *)"other"; /* a pool with no budget: at once */
	objdiff_when(&out, names, 1, docs, 1);
	ck_assert_msg(has(&out, "immediately"), "%s", buf_cstr(&out));
	buf_release(&out);
	cJSON_Delete(np);
}
END_TEST

/* ---- capplan -------------------------------------------------------------- */

static const char *intent_text(long max_gpus)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf),
		 "apiVersion: gpuform.io/v1alpha1\n"
		 "kind: ClusterIntent\n"
		 "metadata:\n"
		 "  name: tiny\n"
		 "spec:\n"
		 "  nodeRole: R\n"
		 "  ami: al2023@v20250505\n"
		 "  workloads:\n"
		 "    - name: api\n"
		 "      type: inference\n"
		 "      gpu: l4\n"
		 "      maxGpus: %ld\n"
		 "    - name: train\n"
		 "      type: training\n"
		 "      gpu: h100\n"
		 "      gpusPerPod: 8\n"
		 "      gang: 2\n"
		 "      interruption: none\n"
		 "      maxGpus: 16\n",
		 max_gpus);
	return buf;
}

static void plan_of(struct capplan *p, long max_gpus)
{
	struct diags d = DIAGS_INIT;
	const char *t = intent_text(max_gpus);

	*p = (struct capplan)CAPPLAN_INIT;
	ck_assert_int_eq(capplan_add(p, "tiny.yaml", t, strlen(t), &d), 0);
	diags_release(&d);
}

START_TEST(test_capplan)
{
	struct capplan p;
	struct buf out = BUF_INIT;
	struct diags d = DIAGS_INIT;
	cJSON *j;

	plan_of(&p, 4);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_uint_eq(p.c[0].n, 2);
	ck_assert_int_eq(p.max_gpus, 20);
	ck_assert_int_eq(p.c[0].w[1].gang, 2);
	ck_assert_int_eq(p.c[0].w[1].per_pod, 8);
	ck_assert_str_eq(p.c[0].w[1].capacity, "on-demand");
	ck_assert(p.usd_max > 0);
	capplan_text(&out, &p);
	ck_assert_msg(has(&out, "tiny") && has(&out, "train"), "%s",
		      buf_cstr(&out));
	buf_reset(&out);
	capplan_markdown(&out, &p, &d);
	ck_assert(has(&out, "|"));
	buf_reset(&out);
	capplan_prices_label(&out, &p);
	ck_assert(has(&out, "catalog"));
	j = capplan_json(&p, &d);
	ck_assert_ptr_nonnull(j);
	cJSON_Delete(j);
	buf_release(&out);
	diags_release(&d);
	capplan_release(&p);
}
END_TEST

START_TEST(test_capplan_invalid)
{
	struct capplan p = CAPPLAN_INIT;
	struct diags d = DIAGS_INIT;
	static const char bad[] = "apiVersion: gpuform.io/v1alpha1\n"
				  "kind: ClusterIntent\nmetadata:\n  name: x\n"
				  "spec:\n  workloads: 3\n";

	ck_assert_int_eq(capplan_add(&p, "bad.yaml", bad, strlen(bad), &d), -1);
	ck_assert_uint_gt(d.errors, 0);
	ck_assert_uint_eq(p.n, 0);
	diags_release(&d);
	capplan_release(&p);
}
END_TEST

START_TEST(test_capplan_diff)
{
	struct capplan a, b;
	struct buf out = BUF_INIT;
	cJSON *j;

	plan_of(&a, 4);
	plan_of(&b, 8);
	ck_assert(!capplan_changed(&a, &a));
	ck_assert(capplan_changed(&a, &b));
	capplan_diff_lead(&out, &a, &b);
	ck_assert_msg(has(&out, "max GPUs 20 \xe2\x86\x92 24 (+4)"), "%s", buf_cstr(&out));
	buf_reset(&out);
	capplan_diff_text(&out, &a, &b);
	ck_assert_msg(has(&out, "api"), "%s", buf_cstr(&out));
	ck_assert_msg(!has(&out, "train"), "%s", buf_cstr(&out));
	buf_reset(&out);
	capplan_diff_markdown(&out, &a, &b);
	ck_assert(has(&out, "api"));
	j = capplan_diff_json(&a, &b);
	ck_assert_ptr_nonnull(j);
	cJSON_Delete(j);
	buf_release(&out);
	capplan_release(&a);
	capplan_release(&b);
}
END_TEST

/* ---- inputs --------------------------------------------------------------- */

static char dir[64];

static char *write_intent(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static char *intent_named(const char *cluster)
{
	char *t = xstrdup(intent_text(4));
	char *p = strstr(t, "name: tiny");
	char *out;

	*p = '\0';
	out = xasprintf("%sname: %s%s", t, cluster, p + strlen("name: tiny"));
	free(t);
	return out;
}

START_TEST(test_inputs)
{
	struct tmpl_set *t = NULL;
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct fs_tree one = FS_TREE_INIT, two = FS_TREE_INIT;
	char *a_text = intent_named("alpha"), *b_text = intent_named("beta");
	char *paths[2];

	strcpy(dir, "/tmp/gpuform-unit-inputs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	paths[0] = write_intent("a.yaml", a_text);
	paths[1] = write_intent("b.yaml", b_text);
	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	ck_assert_int_eq(inputs_render(&ins, paths, 2, t, 0, &d, &err), 0);
	ck_assert_uint_eq(ins.nr, 2);
	ck_assert_str_eq(ins.items[1].r.cluster, "beta");
	/* one intent: its files directly; two: under <cluster>/ */
	{
		struct inputs first = { ins.items, 1 };
		ck_assert_int_eq(inputs_tree(&first, t, RENDER_YAML, 0, &one, &err), 0);
	}
	ck_assert_int_eq(inputs_tree(&ins, t, RENDER_YAML, 0, &two, &err), 0);
	ck_assert_ptr_nonnull(fs_tree_find(&one, "kustomization.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&two, "kustomization.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&two, "alpha/kustomization.yaml"));
	ck_assert_ptr_nonnull(fs_tree_find(&two, "beta/kustomization.yaml"));
	/* the root lists the cluster directories, never resources: [] */
	ck_assert_ptr_nonnull(strstr(fs_tree_find(&two, "kustomization.yaml")->data,
				     "- alpha"));
	ck_assert_ptr_null(strstr(fs_tree_find(&two, "kustomization.yaml")->data,
				  "resources: []"));
	for (size_t i = 1; i < two.nr; i++)
		ck_assert(strcmp(two.files[i - 1].path, two.files[i].path) < 0);
	fs_tree_release(&one);
	fs_tree_release(&two);
	inputs_release(&ins);

	/* two intents of one cluster: refused */
	free(paths[1]);
	paths[1] = write_intent("a2.yaml", a_text);
	ins = (struct inputs)INPUTS_INIT;
	ck_assert_int_eq(inputs_render(&ins, paths, 2, t, 0, &d, &err), 0);
	ck_assert_int_eq(inputs_tree(&ins, t, RENDER_YAML, 0, &two, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	err_clear(&err);
	fs_tree_release(&two);
	inputs_release(&ins);

	/* every file is read even after a bad one; each problem reported */
	free(paths[0]);
	paths[0] = write_intent("bad.yaml", "kind: [\n");
	free(paths[1]);
	paths[1] = xasprintf("%s/missing.yaml", dir);
	ins = (struct inputs)INPUTS_INIT;
	ck_assert_int_eq(inputs_render(&ins, paths, 2, t, 0, &d, &err), -1);
	ck_assert_uint_ge(d.errors, 2);
	inputs_release(&ins);
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);
		ck_assert_int_eq(system(cmd), 0);
		free(cmd);
	}
	free(paths[0]);
	free(paths[1]);
	free(a_text);
	free(b_text);
	tmpl_set_free(t);
	diags_release(&d);
	err_release(&err);
}
END_TEST

Suite *objdiff_suite(void)
{
	Suite *s = suite_create("objdiff");
	TCase *tc = tcase_create("objdiff");
	TCase *tp = tcase_create("capplan");
	TCase *ti = tcase_create("inputs");

	tcase_add_test(tc, test_objdiff_changes_and_order);
	tcase_add_test(tc, test_objdiff_identical_and_apiversion);
	tcase_add_test(tc, test_objdiff_duplicate);
	tcase_add_test(tc, test_objdiff_when);
	suite_add_tcase(s, tc);
	tcase_add_test(tp, test_capplan);
	tcase_add_test(tp, test_capplan_invalid);
	tcase_add_test(tp, test_capplan_diff);
	suite_add_tcase(s, tp);
	tcase_add_test(ti, test_inputs);
	suite_add_tcase(s, ti);
	return s;
}
