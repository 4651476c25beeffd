/*
 * tests/unit/test_lint.c: Check suite for generator/lint.c and its rule
 * table (lint_rules.c) — the rule table is well-formed, findings carry the
 * rule, severity and line:column of the node at fault, inputs are linted
 * together (a Job against the pool and the intent's pod contract), bad
 * inputs are reported without stopping the rest, and the result does not
 * depend on the order of the inputs.
 *
 * Inputs are YAML strings; line numbers refer to the comments next to
 * each line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/lint.h"
#include "generator/lint_int.h" /* enum rule_idx: what the checks report by */
#include "generator/sarif.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "tests/unit/suites.h"
#include "util/diag.h"
#include "util/err.h"

/* ---- helpers ------------------------------------------------------------ */

struct run {
	struct lint_findings f;
	struct diags d;
	struct err err;
	int ret;
};

static void lint(struct run *r, const struct lint_input *in, size_t n,
		 const struct lint_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->ret = lint_run(&r->f, in, n, o, &r->d, &r->err);
}

static void lint1(struct run *r, const char *path, const char *text)
{
	struct lint_input in = { path, text, strlen(text) };

	lint(r, &in, 1, NULL);
}

static void done(struct run *r)
{
	lint_findings_release(&r->f);
	diags_release(&r->d);
	err_release(&r->err);
}

static const struct lint_finding *find(const struct run *r, const char *id)
{
	for (size_t i = 0; i < r->f.nr; i++)
		if (!strcmp(r->f.items[i].rule->id, id))
			return &r->f.items[i];
	return NULL;
}

static size_t count(const struct run *r, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < r->f.nr; i++)
		n += !strcmp(r->f.items[i].rule->id, id);
	return n;
}

#define GPU_POOL_NO_LIMITS                                                   \
	"apiVersion: karpenter.sh/v1\n"                        /* 1 */       \
	"kind: NodePool\n"                                     /* 2 */       \
	"metadata:\n"                                          /* 3 */       \
	"  name: h200\n"                                       /* 4 */       \
	"spec:\n"                                              /* 5 */       \
	"  template:\n"                                        /* 6 */       \
	"    spec:\n"                                          /* 7 */       \
	"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n" \
	"      requirements:\n"                                /* 9 */       \
	"        - key: karpenter.k8s.aws/instance-family\n"   /* 10 */      \
	"          operator: In\n"                             /* 11 */      \
	"          values: [p5e, p5en]\n"                      /* 12 */      \
	"      taints:\n"                                      /* 13 */      \
	"        - {key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}\n"

/* ---- the rule table ------------------------------------------------------ */

START_TEST(test_rule_table)
{
	size_t ngpu = 0;

	ck_assert_uint_ge(lint_nrules, 19);
	for (size_t i = 0; i < lint_nrules; i++) {
		const struct lint_rule *r = &lint_rules[i];
		char id[32];

		/* the manifest rules GPU001..., then the intent's own
		 * warnings INT001... (generator/intent.h) */
		if (!strncmp(r->id, "GPU", 3))
			snprintf(id, sizeof(id), "GPU%03zu", ++ngpu);
		else
			snprintf(id, sizeof(id), "INT%03zu", i + 1 - ngpu);
		ck_assert_str_eq(r->id, id); /* stable, in order, no gaps */
		ck_assert_ptr_nonnull(strstr(r->explain, "Why: "));
		ck_assert_ptr_nonnull(strstr(r->explain, "Fix: "));
		ck_assert_uint_gt(strlen(r->summary), 10);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(lint_rules[j].name, r->name);
		ck_assert_ptr_eq(lint_rule_find(r->id), r);
		ck_assert_ptr_eq(lint_rule_find(r->name), r);
	}
	ck_assert_ptr_eq(lint_rule_find("gpu003"), &lint_rules[2]);
	ck_assert_ptr_null(lint_rule_find("GPU999"));
	ck_assert_ptr_null(lint_rule_find("latest"));
}
END_TEST

/* the indexes the checks report by (enum rule_idx, generator/lint_int.h)
 * are the table's, in order — R_NARROW is GPU001 — and the intent's own
 * warnings follow the last: a rule added to one and not the other, or in
 * another place, reports under the wrong id */
START_TEST(test_rule_index)
{
	static const struct {
		enum rule_idx idx;
		const char *id, *name;
	} want[] = {
		{ R_NARROW, "GPU001", "single-instance-choice" },
		{ R_AMI, "GPU002", "ami-unpinned" },
		{ R_ALLOWLIST, "GPU003", "gpu-family-allowlist" },
		{ R_GENERAL, "GPU004", "general-pool-gpu-families" },
		{ R_EFA_SG, "GPU005", "efa-security-group" },
		{ R_EFA_TYPES, "GPU006", "efa-instance-types" },
		{ R_PLUGIN_TOL, "GPU007", "device-plugin-toleration" },
		{ R_TIMESLICE, "GPU008", "time-slicing-inference" },
		{ R_DND, "GPU009", "do-not-disrupt-missing" },
		{ R_QUEUE, "GPU010", "kueue-queue-name" },
		{ R_TOLERATION, "GPU011", "gpu-toleration-missing" },
		{ R_GPUS, "GPU012", "gpus-exceed-instance" },
		{ R_EXPIRE, "GPU013", "expire-without-grace-period" },
		{ R_GANG, "GPU014", "quota-below-gang" },
		{ R_LIMITS, "GPU015", "limits-below-quota" },
		{ R_S2S, "GPU016", "spot-to-spot-narrow" },
		{ R_CACHE, "GPU017", "image-cache-volume" },
		{ R_AL2023, "GPU018", "al2023-device-plugin" },
		{ R_NOLIMIT, "GPU019", "gpu-pool-no-limits" },
		{ R_QUEUE_PLACEMENT, "GPU020", "kueue-queue-label-placement" },
		{ R_OVERLAY, "GPU021", "shared-gpu-no-overlay" },
		{ R_RESERVED, "GPU022", "reserved-without-reservations" },
		{ R_SNAP_INIT, "GPU023", "snapshot-volume-lazy" },
		{ R_SPOT_GRACE, "GPU024", "spot-grace-period" },
		{ R_HUGEPAGES, "GPU025", "hugepages-without-capacity" },
		{ R_AGENT_TOL, "GPU026", "node-agent-toleration" },
	};

	ck_assert_uint_eq(sizeof(want) / sizeof(want[0]), R_COUNT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_uint_eq(want[i].idx, i);
		ck_assert_str_eq(lint_rules[want[i].idx].id, want[i].id);
		ck_assert_str_eq(lint_rules[want[i].idx].name, want[i].name);
	}
	ck_assert_uint_gt(lint_nrules, R_COUNT);
	ck_assert_str_eq(lint_rules[R_COUNT].id, "INT001");
}
END_TEST

/* ---- single findings ----------------------------------------------------- */

START_TEST(test_position_and_severity)
{
	struct run r;
	const struct lint_finding *x;

	lint1(&r, "pool.yaml", GPU_POOL_NO_LIMITS);
	ck_assert_int_eq(r.ret, 0);
	ck_assert_uint_eq(r.f.nr, 1);
	x = find(&r, "GPU019");
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(x->file, "pool.yaml");
	ck_assert_int_eq(x->line, 6); /* spec's first key: where limits go */
	ck_assert_int_eq(x->col, 3);
	ck_assert_int_eq(x->sev, LINT_WARNING);
	ck_assert_uint_eq(r.f.counts[LINT_WARNING], 1);
	ck_assert_uint_eq(r.f.counts[LINT_ERROR], 0);
	ck_assert_ptr_nonnull(strstr(x->msg, "'h200'"));
	done(&r);
}
END_TEST

START_TEST(test_latest_alias)
{
	static const char text[] =
		"apiVersion: karpenter.k8s.aws/v1\n"  /* 1 */
		"kind: EC2NodeClass\n"                /* 2 */
		"metadata: {name: gpu}\n"             /* 3 */
		"spec:\n"                             /* 4 */
		"  amiSelectorTerms:\n"               /* 5 */
		"    - alias: bottlerocket@latest\n"  /* 6 */
		"  role: R\n";
	struct run r;
	const struct lint_finding *x;

	lint1(&r, "nc.yaml", text);
	x = find(&r, "GPU002");
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(x->line, 6);
	ck_assert_int_eq(x->col, 14); /* the alias value */
	ck_assert_int_eq(x->sev, LINT_ERROR);
	done(&r);
	lint1(&r, "nc.yaml", "kind: EC2NodeClass\nmetadata: {name: gpu}\n"
			     "spec:\n  amiSelectorTerms:\n"
			     "    - alias: bottlerocket@v1.26.1\n");
	ck_assert_uint_eq(r.f.nr, 0);
	done(&r);
}
END_TEST

START_TEST(test_unknown_kinds_are_silent)
{
	struct run r;

	lint1(&r, "x.yaml",
	      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
	      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: b}\n"
	      "spec: {limits: {nvidia.com/gpu: 1}}\n---\n"
	      "- a list\n- not a mapping\n---\n"
	      "plain scalar\n---\n");
	ck_assert_int_eq(r.ret, 0);
	ck_assert_uint_eq(r.f.nr, 0);
	ck_assert_uint_eq(r.d.nr, 0);
	done(&r);
}
END_TEST

/* ---- inputs together ----------------------------------------------------- */

static const char intent_text[] =
	"apiVersion: gpuform.io/v1alpha1\n"     /* 1 */
	"kind: ClusterIntent\n"                 /* 2 */
	"metadata: {name: ml}\n"                /* 3 */
	"spec:\n"                               /* 4 */
	"  nodeRole: KarpenterNodeRole-ml\n"    /* 5 */
	"  ami: bottlerocket@v1.26.1\n"         /* 6 */
	"  workloads:\n"                        /* 7 */
	"    - name: pretrain\n"                /* 8 */
	"      type: training\n"                /* 9 */
	"      gpu: h200\n"                     /* 10 */
	"      gpusPerPod: 8\n"                 /* 11 */
	"      gang: 4\n"                       /* 12 */
	"      maxGpus: 32\n"                   /* 13 */
	"      namespace: research\n";          /* 14 */

static const char job_text[] =
	"apiVersion: batch/v1\n"                             /* 1 */
	"kind: Job\n"                                        /* 2 */
	"metadata:\n"                                        /* 3 */
	"  name: run\n"                                      /* 4 */
	"  namespace: research\n"                            /* 5 */
	"  labels: {kueue.x-k8s.io/queue-name: pretrain}\n"  /* 6 */
	"spec:\n"                                            /* 7 */
	"  parallelism: 4\n"                                 /* 8 */
	"  template:\n"                                      /* 9 */
	"    metadata: {labels: {app: run}}\n"               /* 10 */
	"    spec:\n"                                        /* 11 */
	"      tolerations:\n"                               /* 12 */
	"        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
	"      containers:\n"                                /* 14 */
	"        - name: t\n"                                /* 15 */
	"          image: x\n"                               /* 16 */
	"          resources: {limits: {nvidia.com/gpu: 8}}\n";

START_TEST(test_job_against_intent_contract)
{
	struct lint_input in[] = {
		{ "intent.yaml", intent_text, sizeof(intent_text) - 1 },
		{ "job.yaml", job_text, sizeof(job_text) - 1 },
	};
	struct run r;
	const struct lint_finding *x;

	lint(&r, in, 2, NULL);
	ck_assert_int_eq(r.ret, 0);
	/* interruption none (training default): the contract wants
	 * do-not-disrupt on the pods */
	ck_assert_uint_eq(r.f.nr, 1);
	x = find(&r, "GPU009");
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(x->file, "job.yaml");
	ck_assert_int_eq(x->line, 10);
	ck_assert_int_eq(x->col, 15);
	ck_assert_ptr_nonnull(strstr(x->msg, "pod contract of queue 'pretrain'"));
	done(&r);

	/* alone, the intent and the Job are clean, except that a gang of
	 * GPU pods without do-not-disrupt is still worth a warning */
	lint(&r, in, 1, NULL);
	ck_assert_uint_eq(r.f.nr, 0);
	done(&r);
	lint(&r, in + 1, 1, NULL);
	ck_assert_uint_eq(r.f.nr, 1);
	ck_assert_int_eq(r.f.items[0].sev, LINT_WARNING);
	ck_assert_str_eq(r.f.items[0].rule->id, "GPU009");
	done(&r);
}
END_TEST

START_TEST(test_order_does_not_matter)
{
	struct lint_input a[] = {
		{ "intent.yaml", intent_text, sizeof(intent_text) - 1 },
		{ "job.yaml", job_text, sizeof(job_text) - 1 },
		{ "pool.yaml", GPU_POOL_NO_LIMITS,
		  sizeof(GPU_POOL_NO_LIMITS) - 1 },
	};
	struct lint_input b[] = { a[2], a[1], a[0] };
	struct run r1, r2;

	lint(&r1, a, 3, NULL);
	lint(&r2, b, 3, NULL);
	ck_assert_uint_eq(r1.f.nr, r2.f.nr);
	ck_assert_uint_ge(r1.f.nr, 2);
	for (size_t i = 0; i < r1.f.nr; i++) {
		ck_assert_str_eq(r1.f.items[i].file, r2.f.items[i].file);
		ck_assert_int_eq(r1.f.items[i].line, r2.f.items[i].line);
		ck_assert_str_eq(r1.f.items[i].msg, r2.f.items[i].msg);
		if (i)
			ck_assert_int_le(strcmp(r1.f.items[i - 1].file,
						r1.f.items[i].file), 0);
	}
	done(&r1);
	done(&r2);
}
END_TEST

START_TEST(test_duplicates_collapse)
{
	struct lint_input in[] = {
		{ "pool.yaml", GPU_POOL_NO_LIMITS,
		  sizeof(GPU_POOL_NO_LIMITS) - 1 },
		{ "pool.yaml", GPU_POOL_NO_LIMITS,
		  sizeof(GPU_POOL_NO_LIMITS) - 1 },
	};
	struct run r;

	lint(&r, in, 2, NULL);
	ck_assert_uint_eq(count(&r, "GPU019"), 1);
	done(&r);
}
END_TEST

/* ---- bad inputs ---------------------------------------------------------- */

START_TEST(test_bad_yaml_reported_rest_linted)
{
	struct lint_input in[] = {
		{ "broken.yaml", "a: [1, 2\n", 9 },
		{ "pool.yaml", GPU_POOL_NO_LIMITS,
		  sizeof(GPU_POOL_NO_LIMITS) - 1 },
	};
	struct run r;

	lint(&r, in, 2, NULL);
	ck_assert_int_eq(r.ret, -1);
	ck_assert_int_eq(r.err.code, ERR_INVALID);
	ck_assert_uint_eq(r.d.errors, 1);
	ck_assert_ptr_nonnull(strstr(r.d.items[0].msg, "broken.yaml:"));
	ck_assert_ptr_nonnull(find(&r, "GPU019"));
	done(&r);
}
END_TEST

START_TEST(test_invalid_intent_is_input_error)
{
	char *text = strdup(intent_text);
	char *at = strstr(text, "v1.26.1");
	struct run r;

	memcpy(at, "latest\n", 7); /* bottlerocket@latest, line 6 */
	memmove(at + 6, at + 7, strlen(at + 7) + 1);
	lint1(&r, "intent.yaml", text);
	ck_assert_int_eq(r.ret, -1);
	ck_assert_int_eq(r.err.code, ERR_INVALID);
	ck_assert_uint_ge(r.d.errors, 1);
	ck_assert_int_eq(r.d.items[0].line, 6);
	ck_assert_ptr_nonnull(strstr(r.d.items[0].msg, "latest"));
	ck_assert_uint_eq(r.f.nr, 0);
	done(&r);
	free(text);
}
END_TEST

/* ---- options ------------------------------------------------------------- */

START_TEST(test_snapshot_size_option)
{
	static const char text[] =
		"kind: EC2NodeClass\n"                         /* 1 */
		"metadata: {name: gpu}\n"                      /* 2 */
		"spec:\n"                                      /* 3 */
		"  amiSelectorTerms: [{alias: bottlerocket@v1.26.1}]\n"
		"  blockDeviceMappings:\n"                     /* 5 */
		"    - deviceName: /dev/xvdb\n"                /* 6 */
		"      ebs:\n"                                 /* 7 */
		"        volumeSize: 100Gi\n"                  /* 8 */
		"        snapshotID: snap-0123456789abcdef0\n" /* 9 */
		"        volumeInitializationRate: 300\n";
	struct lint_snapshot big = { "snap-0123456789abcdef0", 150 };
	struct lint_snapshot small = { "snap-0123456789abcdef0", 80 };
	struct lint_opts o = { &big, 1 };
	struct lint_input in = { "nc.yaml", text, sizeof(text) - 1 };
	struct run r;
	const struct lint_finding *x;

	lint(&r, &in, 1, NULL); /* size unknown: nothing to say */
	ck_assert_uint_eq(r.f.nr, 0);
	done(&r);
	lint(&r, &in, 1, &o);
	x = find(&r, "GPU017");
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(x->line, 8);
	ck_assert_int_eq(x->col, 21);
	done(&r);
	o.snapshots = &small;
	lint(&r, &in, 1, &o);
	ck_assert_uint_eq(r.f.nr, 0);
	done(&r);
}
END_TEST

/* lint's report: the findings and the intents' own diagnostics together,
 * counted once each; the intent rule for diagnostics without a rule id */
START_TEST(test_report_formats)
{
	static char file[] = "a.yaml", msg[] = "m";
	struct lint_finding x = { &lint_rules[0], LINT_WARNING, file, 3, 5,
				  msg };
	struct lint_findings f = { &x, 1, 1, { 0, 1, 0 } };
	struct diags d = DIAGS_INIT;
	struct buf b = BUF_INIT;
	char *j, *want;
	cJSON *root;

	diags_add(&d, DIAG_ERROR, "i.yaml", 2, 1, NULL, "bad");
	sarif_lint_text(&b, &f);
	want = xasprintf("a.yaml:3:5: warning: m [%s %s]\n", lint_rules[0].id,
			 lint_rules[0].name);
	ck_assert_str_eq(buf_cstr(&b), want);
	free(want);
	j = sarif_lint_json(&f, &d, 2);
	root = cJSON_Parse(j);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(cJSON_GetObjectItem(root, "files")->valueint, 2);
	ck_assert_int_eq(cJSON_GetObjectItem(root, "errors")->valueint, 1);
	ck_assert_int_eq(cJSON_GetObjectItem(root, "warnings")->valueint, 1);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root,
								"findings")),
			 2);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(
			     cJSON_GetObjectItem(root, "findings"), 1), "rule")
				 ->valuestring,
			 sarif_intent_rule.id);
	cJSON_Delete(root);
	free(j);
	j = sarif_lint_log(&f, &d);
	ck_assert_ptr_nonnull(strstr(j, "\"INTENT\""));
	free(j);
	buf_release(&b);
	diags_release(&d);
}
END_TEST

Suite *lint_suite(void)
{
	Suite *s = suite_create("lint");
	TCase *t = tcase_create("rules");

	tcase_add_test(t, test_rule_table);
	tcase_add_test(t, test_rule_index);
	tcase_add_test(t, test_report_formats);
	suite_add_tcase(s, t);
	t = tcase_create("findings");
	tcase_add_test(t, test_position_and_severity);
	tcase_add_test(t, test_latest_alias);
	tcase_add_test(t, test_unknown_kinds_are_silent);
	tcase_add_test(t, test_snapshot_size_option);
	suite_add_tcase(s, t);
	t = tcase_create("together");
	tcase_add_test(t, test_job_against_intent_contract);
	tcase_add_test(t, test_order_does_not_matter);
	tcase_add_test(t, test_duplicates_collapse);
	suite_add_tcase(s, t);
	t = tcase_create("inputs");
	tcase_add_test(t, test_bad_yaml_reported_rest_linted);
	tcase_add_test(t, test_invalid_intent_is_input_error);
	suite_add_tcase(s, t);
	return s;
}
