/*
 * tests/unit/test_validate.c: Check suite for generator/validate.c — every
 * semantic rule yields its diagnostic at the line:column of the value at
 * fault, warnings stay warnings, and validate_families() picks the right
 * instance families from the catalog.
 *
 * Intents are YAML strings read with intent_read(); the catalog is the
 * embedded one, or a small one parsed from a string where the embedded
 * catalog cannot show a case (a class without EFA, a misreporting family
 * inside a class). Line numbers refer to the comments next to each line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/validate.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"

#define FILE_NAME "cluster.yaml"

/* ---- helpers ------------------------------------------------------------ */

/*
 * run: read text (which must read without errors) and validate it against
 * cat (NULL: the embedded catalog). Returns validate_intent()'s count,
 * which must equal the number of errors it added.
 */
static size_t run(struct intent *in, struct diags *d,
		  const struct catalog *cat, const char *text)
{
	struct buf b = BUF_INIT;
	size_t n;

	ck_assert_int_eq(intent_read(in, FILE_NAME, text, strlen(text), d), 0);
	diags_format(d, &b);
	ck_assert_msg(d->errors == 0, "intent_read reported:\n%s", buf_cstr(&b));
	buf_release(&b);
	n = validate_intent(in, cat ? cat : catalog_builtin(), d);
	ck_assert_uint_eq(n, d->errors);
	return n;
}

static void done(struct intent *in, struct diags *d)
{
	intent_release(in);
	diags_release(d);
}

static const struct diag *find(const struct diags *d, enum diag_severity sev,
			       const char *msg)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->items[i].sev == sev && strstr(d->items[i].msg, msg))
			return &d->items[i];
	return NULL;
}

static void expect(const struct diags *d, enum diag_severity sev,
		   const char *msg, int line, int col, const char *hint)
{
	const struct diag *g = find(d, sev, msg);
	struct buf b = BUF_INIT;

	if (!g) {
		diags_format(d, &b);
		ck_abort_msg("no %s containing '%s'; have:\n%s",
			     sev == DIAG_ERROR ? "error" : "warning", msg,
			     buf_cstr(&b));
	}
	ck_assert_str_eq(g->file, FILE_NAME);
	ck_assert_msg(g->line == line && g->col == col,
		      "'%s' at %d:%d, want %d:%d", g->msg, g->line, g->col,
		      line, col);
	if (hint)
		ck_assert_msg(g->hint && strstr(g->hint, hint),
			      "hint '%s' of '%s' does not contain '%s'",
			      g->hint ? g->hint : "(none)", g->msg, hint);
}

static void expect_error(const struct diags *d, const char *msg, int line,
			 int col, const char *hint)
{
	expect(d, DIAG_ERROR, msg, line, col, hint);
}

static void expect_none(const struct diags *d, const char *msg)
{
	const struct diag *g = find(d, DIAG_ERROR, msg);

	if (!g)
		g = find(d, DIAG_WARNING, msg);
	ck_assert_msg(g == NULL, "unexpected diagnostic at %d:%d: %s",
		      g ? g->line : 0, g ? g->col : 0, g ? g->msg : "");
}

/* lines 1-7; ami value at 7:8 */
#define HEAD                                                                   \
	"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */                  \
	"kind: ClusterIntent\n"                      /* 2 */                  \
	"metadata:\n"                                /* 3 */                  \
	"  name: ml-prod\n"                          /* 4 */                  \
	"spec:\n"                                    /* 5 */                  \
	"  nodeRole: KarpenterNodeRole-ml-prod\n"    /* 6 */                  \
	"  ami: bottlerocket@v1.38.0\n"              /* 7 */

/* a window, so that training workloads do not warn: lines 8-10 */
#define WINDOW                                                                 \
	"  maintenanceWindow:\n"                     /* 8 */                  \
	"    schedule: \"0 2 * * sat\"\n"            /* 9 */                  \
	"    duration: 4h\n"                         /* 10 */

/*
 * one_workload: HEAD + WINDOW + "  workloads:" (11) + "    - name: w" (12)
 * + "      type: inference" (13) + extra lines from 14 on.
 */
static size_t one_workload(struct intent *in, struct diags *d,
			   const struct catalog *cat, const char *extra)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 HEAD WINDOW "  workloads:\n"
			     "    - name: w\n"
			     "      type: inference\n"
			     "%s",
		 extra);
	return run(in, d, cat, text);
}

/* a small catalog: v100 without EFA at all, and an l4 class that lists a
 * misreporting family */
static const char small_catalog[] =
	"class\tv100\t2\tp3\n"
	"class\tl4\t4\tg6,g6f\n"
	"family\tp3\tv100\t-\t-\t0\n"
	"family\tg6\tl4\t-\t-\t0\n"
	"family\tg6f\tl4\t-\t-\t1\n"
	"type\tp3.2xlarge\tp3\t1\t16384\t8\t62464\t0\t3.06\tamd64\n"
	"type\tp3.8xlarge\tp3\t4\t16384\t32\t249856\t0\t12.24\tamd64\n"
	"type\tg6.xlarge\tg6\t1\t22888\t4\t16384\t0\t0.805\tamd64\n"
	"type\tg6.8xlarge\tg6\t1\t22888\t32\t131072\t1\t2.014\tamd64\n"
	"type\tg6f.xlarge\tg6f\t1\t2861\t4\t16384\t1\t0.30\tamd64\n";

static void load_small(struct catalog *c)
{
	struct err err = ERR_INIT;

	ck_assert_msg(catalog_parse(c, small_catalog, strlen(small_catalog),
				    "small.tsv", &err) == 0,
		      "%s", err_msg(&err));
	err_release(&err);
}

/* ---- a valid intent ----------------------------------------------------- */

static const char ml_prod[] =
	HEAD
	"  discovery: ml-prod\n"
	"  imageCache:\n"
	"    snapshotID: snap-0123456789abcdef0\n"
	"    size: 200Gi\n"
	"  network:\n"
	"    prefixDelegation: true\n"
	"    efaSecurityGroup: sg-0123456789abcdef0\n"
	"  generalPurpose:\n"
	"    enabled: true\n"
	"  maintenanceWindow:\n"
	"    schedule: \"0 2 * * sat\"\n"
	"    duration: 4h\n"
	"  workloads:\n"
	"    - name: llm-pretrain\n"
	"      type: training\n"
	"      gpu: h100\n"
	"      gpusPerPod: 8\n"
	"      gang: 16\n"
	"      interruption: none\n"
	"      efa: true\n"
	"      sharing: none\n"
	"      maxGpus: 128\n"
	"      namespace: research\n"
	"      placement: {zone: us-east-1a}\n"
	"    - name: chat-serving\n"
	"      type: inference\n"
	"      gpu: l4+\n"
	"      interruption: checkpointed\n"
	"      maxGpus: 32\n"
	"      namespace: serving\n";

START_TEST(test_valid_intent)
{
	struct diags d = DIAGS_INIT;
	struct intent in;
	struct buf b = BUF_INIT;

	ck_assert_uint_eq(run(&in, &d, NULL, ml_prod), 0);
	diags_format(&d, &b);
	ck_assert_msg(d.nr == 0, "diagnostics:\n%s", buf_cstr(&b));
	buf_release(&b);
	done(&in, &d);
}
END_TEST

/* ---- AMI ---------------------------------------------------------------- */

START_TEST(test_ami_rules)
{
	static const struct {
		const char *ami;
		const char *msg; /* NULL: valid */
		const char *hint;
	} cases[] = {
		{ "bottlerocket@v1.38.0", NULL, NULL },
		{ "bottlerocket@1.26.1", NULL, NULL },
		{ "al2023@v20250505", NULL, NULL },
		{ "bottlerocket", "AMI 'bottlerocket' is not pinned to a version",
		  "bottlerocket@v1.38.0" },
		{ "bottlerocket@", "is not pinned to a version", NULL },
		{ "al2023", "AMI 'al2023' is not pinned", "al2023@v20250505" },
		{ "bottlerocket@latest", "'@latest' AMI", "pin a release" },
		{ "al2023@latest", "'@latest' AMI", "al2023@v20250505" },
		{ "al2@v20240101", "AL2 AMIs stop at Kubernetes 1.32",
		  "al2023@vYYYYMMDD" },
		{ "al2", "AL2 AMIs", NULL },
		{ "windows2022@v1", "Windows AMIs cannot run", NULL },
		{ "ubuntu@v1", "unknown AMI family in 'ubuntu@v1'",
		  "family@version" },
		{ "bottlerocket@v1.26", "AMI version 'v1.26' is not a release "
					"version",
		  "bottlerocket@v1.38.0" },
		{ "bottlerocket@v1..1", "is not a release version", NULL },
		{ "bottlerocket@v1.26.1a", "is not a release version", NULL },
		{ "al2023@v2025050", "is not a release version",
		  "al2023@v20250505" },
		{ "al2023@v2025050x", "is not a release version", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct diags d = DIAGS_INIT;
		struct intent in;
		size_t n;

		snprintf(text, sizeof(text),
			 "apiVersion: gpuform.io/v1alpha1\n" /* 1 */
			 "kind: ClusterIntent\n"             /* 2 */
			 "metadata: {name: c}\n"             /* 3 */
			 "spec:\n"                           /* 4 */
			 "  nodeRole: r\n"                   /* 5 */
			 "  ami: \"%s\"\n"                   /* 6 */
			 "  generalPurpose: {enabled: true}\n",
			 cases[i].ami);
		n = run(&in, &d, NULL, text);
		if (!cases[i].msg) {
			ck_assert_msg(n == 0, "%s: %zu errors", cases[i].ami, n);
		} else {
			ck_assert_msg(n == 1, "%s: %zu errors", cases[i].ami, n);
			expect_error(&d, cases[i].msg, 6, 8, cases[i].hint);
		}
		done(&in, &d);
	}
}
END_TEST

START_TEST(test_ami_missing)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata: {name: c}\n"
		"spec:\n"
		"  nodeRole: r\n"
		"  generalPurpose: {enabled: true}\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 1);
	/* where the key belongs: the spec mapping */
	expect_error(&d, "missing 'spec.ami'", 5, 3, "bottlerocket@v1.38.0");
	done(&in, &d);
}
END_TEST

/* ---- GPU classes and families ------------------------------------------- */

/*
 * One workload's rules, a case a row: one_workload(extra) must give `nerr`
 * errors (-1: not counted) and, when `msg` is set, an error containing it at
 * line:col with a hint containing `hint` (NULL: any), whose message does not
 * contain `lacks`; `none`: no diagnostic contains it. extra starts at line 14.
 */
/* clang-format off: a table, laid out by hand */
static const struct workload_case {
	const char *extra;
	int nerr;
	const char *msg;
	int line, col;
	const char *hint, *lacks, *none;
} workload_cases[] = {
	/* unknown GPU class: a suggestion for a near miss */
	{ "      gpu: h10\n" /* 14 */
	  "      maxGpus: 8\n",
	  1, "unknown GPU class 'h10'; did you mean 'h100'?", 14, 12,
	  "classes: t4 v100 a10g l4", NULL, NULL },
	{ "      gpu: h10+\n" /* 14 */
	  "      maxGpus: 8\n",
	  1, "unknown GPU class 'h10+'; did you mean 'h100+'?", 14, 12,
	  "'l4+' means l4 or better", NULL, NULL },
	/* no class is close: no suggestion; at the list item */
	{ "      gpu: [l4, mi300x]\n" /* 14 */
	  "      maxGpus: 8\n",
	  1, "unknown GPU class 'mi300x'", 14, 17, NULL, "did you mean", NULL },
	{ "      gpu: l4\n"        /* 14 */
	  "      gpusPerPod: 16\n" /* 15 */
	  "      maxGpus: 32\n",
	  1, "no instance type of GPU class 'l4' has 16 GPUs", 15, 19,
	  "choose a GPU class", NULL, NULL },
	{ "      gpu: h100\n" /* 14 */
	  "      efa: true\n" /* 15 */
	  "      maxGpus: 8\n",
	  1, "workload 'w' uses EFA but no EFA security group is set", 15, 12,
	  "spec.network.efaSecurityGroup", NULL, NULL },
	{ "      gpu: l4\n"                 /* 14 */
	  "      sharing: {mig: 1g.10gb}\n" /* 15 */
	  "      maxGpus: 8\n",
	  1, "MIG requested, but the GPUs of class 'l4' do not support MIG", 15,
	  22, NULL, NULL, NULL },
	{ "      gpu: a100\n"      /* 14 */
	  "      sharing:\n"       /* 15 */
	  "        mig: 1g.99gb\n" /* 16 */
	  "      maxGpus: 8\n",
	  1,
	  "MIG profile '1g.99gb' does not exist on class 'a100'; "
	  "valid profiles: 1g.5gb 1g.10gb 2g.10gb 3g.20gb 4g.20gb 7g.40gb "
	  "1g.20gb 2g.20gb 3g.40gb 4g.40gb 7g.80gb",
	  16, 14, NULL, NULL, NULL },
	/* a profile of another GPU model is unknown here too */
	{ "      gpu: h200\n"
	  "      sharing: {mig: 1g.10gb}\n" /* 15 */
	  "      maxGpus: 8\n",
	  1, "MIG profile '1g.10gb' does not exist on class 'h200'", 15, 22,
	  NULL, NULL, NULL },
	{ "      gpu: l4\n"                   /* 14 */
	  "      gpusPerPod: 2\n"             /* 15 */
	  "      sharing: {timeSlicing: 4}\n" /* 16 */
	  "      maxGpus: 8\n",
	  1,
	  "time-sliced GPUs are requested one per pod "
	  "(failRequestsGreaterThanOne), but gpusPerPod is 2",
	  15, 19, "gpusPerPod: 1", NULL, NULL },
	/* a gang larger than the quota */
	{ "      gpu: h100\n"     /* 14 */
	  "      gpusPerPod: 8\n" /* 15 */
	  "      gang: 3\n"       /* 16 */
	  "      maxGpus: 16\n",  /* 17 */
	  1, "gang of 3 pods x 8 GPUs = 24 is more than maxGpus 16", 16, 13,
	  "raise maxGpus", NULL, NULL },
	/* exactly full is fine */
	{ "      gpu: h100\n"
	  "      gpusPerPod: 8\n"
	  "      gang: 2\n"
	  "      maxGpus: 16\n",
	  0, NULL, 0, 0, NULL, NULL, NULL },
	/* without a gang key the error points at maxGpus */
	{ "      gpu: h100\n"     /* 14 */
	  "      gpusPerPod: 8\n" /* 15 */
	  "      maxGpus: 4\n",   /* 16 */
	  1, "gang of 1 pods x 8 GPUs = 8 is more than maxGpus 4", 16, 16, NULL,
	  NULL, NULL },
	/* 2 GPUs x 4 replicas = 8 schedulable: a gang of 8 fits, 9 does not */
	{ "      gpu: l4\n"
	  "      gang: 8\n"
	  "      sharing: {timeSlicing: 4}\n"
	  "      maxGpus: 2\n",
	  0, NULL, 0, 0, NULL, NULL, NULL },
	{ "      gpu: l4\n"                   /* 14 */
	  "      gang: 9\n"                   /* 15 */
	  "      sharing: {timeSlicing: 4}\n" /* 16 */
	  "      maxGpus: 2\n",
	  1, "gang of 9 pods x 1 GPUs = 9 is more than maxGpus 8 (x replicas)",
	  15, 13, NULL, NULL, NULL },
	/*
	 * A MIG pool's gang is counted in MIG instances, per GPU model: an
	 * 80 GB A100 holds 7 x 1g.10gb, so maxGpus 8 (one p4de.24xlarge)
	 * takes a gang of 56 one-slice pods, and 57 is refused. (It once was
	 * refused at 7 because only time-slicing multiplied maxGpus.)
	 */
	{ "      gpu: a100.80gb\n"
	  "      gang: 56\n"
	  "      sharing: {mig: 1g.10gb}\n"
	  "      maxGpus: 8\n",
	  0, NULL, 0, 0, NULL, NULL, "gang of" },
	{ "      gpu: a100.80gb\n" /* 14 */
	  "      gang: 57\n"       /* 15 */
	  "      sharing: {mig: 1g.10gb}\n"
	  "      maxGpus: 8\n",
	  1,
	  "gang of 57 pods x 1 GPUs = 57 is more than maxGpus 56 (x MIG slices)",
	  15, 13, NULL, NULL, NULL },
	/* on the 40 GB A100, 1g.10gb is 4 per GPU (NVIDIA MIG user guide) */
	{ "      gpu: a100.40gb\n"
	  "      gang: 33\n" /* 15 */
	  "      sharing: {mig: 1g.10gb}\n"
	  "      maxGpus: 8\n",
	  -1,
	  "gang of 33 pods x 1 GPUs = 33 is more than maxGpus 32 (x MIG slices)",
	  15, 13, NULL, NULL, NULL },
};
/* clang-format on */

START_TEST(test_workload_rule)
{
	const struct workload_case *c = &workload_cases[_i];
	struct diags d = DIAGS_INIT;
	struct intent in;
	size_t n = one_workload(&in, &d, NULL, c->extra);

	if (c->msg) {
		expect_error(&d, c->msg, c->line, c->col, c->hint);
		if (c->lacks)
			ck_assert_ptr_null(
				strstr(find(&d, DIAG_ERROR, c->msg)->msg,
				       c->lacks));
	}
	if (c->none)
		expect_none(&d, c->none);
	if (c->nerr >= 0)
		ck_assert_msg(n == (size_t)c->nerr,
			      "case %d: %zu errors, want %d", _i, n, c->nerr);
	done(&in, &d);
}
END_TEST

/* the embedded catalog offers EFA for some size of every class, so this
 * uses the small catalog: v100 (p3) has no EFA at all */
START_TEST(test_efa_on_class_without_efa)
{
	struct catalog cat = CATALOG_INIT;
	struct diags d = DIAGS_INIT;
	struct intent in;
	static const char text[] =
		HEAD WINDOW
		"  network:\n"                            /* 11 */
		"    efaSecurityGroup: sg-0123456789abcdef0\n" /* 12 */
		"  workloads:\n"                          /* 13 */
		"    - name: w\n"                         /* 14 */
		"      type: training\n"                  /* 15 */
		"      gpu: v100\n"                       /* 16 */
		"      gpusPerPod: 4\n"                   /* 17 */
		"      efa: true\n"                       /* 18 */
		"      maxGpus: 8\n";                     /* 19 */

	load_small(&cat);
	ck_assert_uint_eq(run(&in, &d, &cat, text), 1);
	expect_error(&d, "EFA requested, but no instance family of GPU class "
			 "'v100' offers EFA with 4 GPUs",
		     18, 12, NULL);
	done(&in, &d);
	catalog_release(&cat);
}
END_TEST

/*
 * Bottlerocket release gating: each feature is refused on the release just
 * before its first one and accepted from that release on (catalog.tsv:
 * time-slicing v1.25.0, MIG v1.34.0, B200's R570 driver v1.38.0).
 */
static size_t gated(struct intent *in, struct diags *d, const char *ami,
		    const char *workload)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "apiVersion: gpuform.io/v1alpha1\n"
		 "kind: ClusterIntent\n"
		 "metadata: {name: ml-prod}\n"
		 "spec:\n"
		 "  nodeRole: R\n"
		 "  ami: %s\n" /* 6 */
		 "  network: {efaSecurityGroup: sg-0123456789abcdef0}\n"
		 "  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
		 "  workloads:\n"
		 "    - %s\n", /* 10 */
		 ami, workload);
	return run(in, d, NULL, text);
}

START_TEST(test_bottlerocket_release_gating)
{
	/* block style, lines 10-: the error points at the feature's value */
	static const struct {
		const char *workload, *before, *first, *msg;
		int line, col;
	} cases[] = {
		{ "name: w\n      type: dev\n      gpu: t4\n      maxGpus: 4\n"
		  "      sharing:\n        timeSlicing: 4",
		  "bottlerocket@v1.24.9", "bottlerocket@v1.25.0",
		  "time-slicing needs Bottlerocket v1.25.0 or later", 15, 22 },
		{ "name: w\n      type: dev\n      gpu: h100\n      maxGpus: 8\n"
		  "      sharing:\n        mig: 1g.10gb",
		  "bottlerocket@v1.33.0", "bottlerocket@v1.34.0",
		  "MIG needs Bottlerocket v1.34.0 or later", 15, 14 },
		{ "name: w\n      type: training\n      gpu: b200\n"
		  "      gpusPerPod: 8\n      efa: true\n      maxGpus: 8",
		  "bottlerocket@v1.37.1", "bottlerocket@v1.38.0",
		  "GPU class 'b200' needs Bottlerocket v1.38.0 or later", 12,
		  12 },
		/* an open range that reaches b200 needs it too */
		{ "name: w\n      type: dev\n      gpu: l4+\n      maxGpus: 8",
		  "bottlerocket@v1.37.0", "bottlerocket@v1.38.0",
		  "GPU class 'b200' needs Bottlerocket v1.38.0 or later", 12,
		  12 },
	};
	struct diags d = DIAGS_INIT;
	struct intent in;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_uint_eq(gated(&in, &d, cases[i].before,
					cases[i].workload),
				  1);
		expect_error(&d, cases[i].msg, cases[i].line, cases[i].col,
			     "or later (line 6)");
		done(&in, &d);
		ck_assert_uint_eq(gated(&in, &d, cases[i].first,
					cases[i].workload),
				  0);
		expect_none(&d, "needs Bottlerocket");
		done(&in, &d);
		/* and later releases, compared as numbers */
		ck_assert_uint_eq(gated(&in, &d, "bottlerocket@v1.100.0",
					cases[i].workload),
				  0);
		done(&in, &d);
	}
	/* a bounded range below b200 does not need v1.38.0 */
	ck_assert_uint_eq(gated(&in, &d, "bottlerocket@v1.26.1",
				"name: w\n      type: dev\n      gpu: l4..h200\n"
				"      maxGpus: 8"),
			  0);
	done(&in, &d);
	/* AL2023 has no such table: nothing is gated */
	ck_assert_uint_eq(gated(&in, &d, "al2023@v20250505",
				"name: w\n      type: dev\n      gpu: t4\n"
				"      maxGpus: 4\n      sharing:\n"
				"        timeSlicing: 4"),
			  0);
	done(&in, &d);
}
END_TEST

/* MIG on AL2023 is refused (no MIG manager), at the sharing key */
START_TEST(test_mig_al2023_refused)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(gated(&in, &d, "al2023@v20250505",
				"name: w\n      type: dev\n      gpu: h100\n"
				"      maxGpus: 8\n      sharing:\n"
				"        mig: 1g.10gb"),
			  1);
	expect_error(&d, "MIG on AL2023 needs the NVIDIA GPU Operator's MIG "
			 "manager", 15, 14, "bottlerocket@v1.34.0 or later");
	done(&in, &d);
}
END_TEST

/* pod density: replicas x GPUs must fit the node's pods */
START_TEST(test_density)
{
	struct diags d = DIAGS_INIT;
	struct intent in;
	const char *text =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata: {name: ml-prod}\n"
		"spec:\n"
		"  nodeRole: R\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  network: {prefixDelegation: false}\n"
		"  maintenanceWindow: {schedule: \"0 2 * * sat\", duration: 4h}\n"
		"  workloads:\n"
		"    - name: w\n"
		"      type: dev\n"
		"      gpu: t4\n"
		"      maxGpus: 8\n"
		"      sharing: {timeSlicing: 24}\n"; /* 14 */

	/* T4 x 24 replicas without prefix delegation: g4dn.xlarge to
	 * 4xlarge (29 max pods, 23 after system pods) are left out with a
	 * warning that gives the numbers; 8xlarge and up stay */
	ck_assert_uint_eq(run(&in, &d, NULL, text), 0);
	expect(&d, DIAG_WARNING, "g4dn.xlarge needs 24 pods, has room for 23",
	       14, 30, "prefixDelegation");
	expect_none(&d, "g4dn.8xlarge needs");
	done(&in, &d);
}
END_TEST

/* ---- image cache, ids, names --------------------------------------------- */

START_TEST(test_image_cache_rules)
{
	static const char al2023[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata: {name: c}\n"                      /* 3 */
		"spec:\n"                                    /* 4 */
		"  nodeRole: r\n"                            /* 5 */
		"  ami: al2023@v20250505\n"                  /* 6 */
		"  generalPurpose: {enabled: true}\n"        /* 7 */
		"  imageCache:\n"                            /* 8 */
		"    snapshotID: snap-0123456789abcdef0\n"   /* 9 */
		"    size: 200Gi\n";                         /* 10 */
	static const char bad_values[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata: {name: c}\n"                      /* 3 */
		"spec:\n"                                    /* 4 */
		"  nodeRole: r\n"                            /* 5 */
		"  ami: bottlerocket@v1.38.0\n"              /* 6 */
		"  generalPurpose: {enabled: true}\n"        /* 7 */
		"  imageCache:\n"                            /* 8 */
		"    snapshotID: snap-123\n"                 /* 9 */
		"    size: 200GB\n";                         /* 10 */
	struct diags d = DIAGS_INIT;
	struct intent in;
	char text[1024];

	ck_assert_uint_eq(run(&in, &d, NULL, al2023), 1);
	expect_error(&d, "imageCache needs Bottlerocket", 9, 5,
		     "use a Bottlerocket AMI");
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, bad_values), 2);
	expect_error(&d, "'snap-123' is not an EBS snapshot id", 9, 17,
		     "snap-0123456789abcdef0");
	expect_error(&d, "'200GB' is not a disk size", 10, 11, "200Gi or 1Ti");
	done(&in, &d);

	/* sizes: 20Gi .. 16Ti */
	{
		static const struct {
			const char *size;
			int ok;
		} sizes[] = { { "20Gi", 1 }, { "16Ti", 1 }, { "500G", 1 },
			      { "19Gi", 0 }, { "17Ti", 0 }, { "0Gi", 0 } };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			snprintf(text, sizeof(text),
				 "apiVersion: gpuform.io/v1alpha1\n"
				 "kind: ClusterIntent\n"
				 "metadata: {name: c}\n"
				 "spec:\n"
				 "  nodeRole: r\n"
				 "  ami: bottlerocket@v1.38.0\n"
				 "  generalPurpose: {enabled: true}\n"
				 "  imageCache:\n"
				 "    snapshotID: snap-01234567\n"
				 "    size: %s\n",
				 sizes[i].size);
			ck_assert_uint_eq(run(&in, &d, NULL, text),
					  sizes[i].ok ? 0 : 1);
			if (!sizes[i].ok)
				expect_error(&d, "is out of range", 10, 11,
					     "20Gi to 16Ti");
			done(&in, &d);
		}
	}
}
END_TEST

START_TEST(test_bad_ids_and_names)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata:\n"                                /* 3 */
		"  name: ML_prod\n"                          /* 4 */
		"spec:\n"                                    /* 5 */
		"  nodeRole: \"role with spaces\"\n"         /* 6 */
		"  ami: bottlerocket@v1.38.0\n"              /* 7 */
		"  discovery: \"a*b\"\n"                     /* 8 */
		"  network:\n"                               /* 9 */
		"    efaSecurityGroup: sg-0123456g\n"        /* 10 */
		"  generalPurpose: {enabled: true}\n";       /* 11 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 4);
	expect_error(&d, "cluster name 'ML_prod' is not a valid DNS label", 4,
		     9, "EKS cluster name");
	expect_error(&d, "'role with spaces' is not a valid IAM role name", 6,
		     13, "+=,.@_-");
	expect_error(&d, "discovery tag 'a*b' has characters AWS tags do not "
			 "allow",
		     8, 14, "karpenter.sh/discovery");
	expect_error(&d, "'sg-0123456g' is not a security group id", 10, 23,
		     "sg-0123456789abcdef0");
	/* the SG is set but unused: also a warning, not an error */
	expect(&d, DIAG_WARNING,
	       "efaSecurityGroup is set but no workload uses EFA", 10, 23,
	       "efa: true");
	done(&in, &d);
}
END_TEST

START_TEST(test_role_and_profile)
{
	static const char both[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata: {name: c}\n"                      /* 3 */
		"spec:\n"                                    /* 4 */
		"  nodeRole: r\n"                            /* 5 */
		"  instanceProfile: p\n"                     /* 6 */
		"  ami: bottlerocket@v1.38.0\n"              /* 7 */
		"  generalPurpose: {enabled: true}\n";       /* 8 */
	static const char neither[] =
		"apiVersion: gpuform.io/v1alpha1\n"
		"kind: ClusterIntent\n"
		"metadata: {name: c}\n"
		"spec:\n"
		"  ami: bottlerocket@v1.38.0\n"
		"  generalPurpose: {enabled: true}\n";
	static const char profile[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata: {name: c}\n"                      /* 3 */
		"spec:\n"                                    /* 4 */
		"  instanceProfile: \"bad profile\"\n"       /* 5 */
		"  ami: bottlerocket@v1.38.0\n"
		"  generalPurpose: {enabled: true}\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, both), 1);
	expect_error(&d, "both 'nodeRole' and 'instanceProfile' are set", 5,
		     13, "keep one");
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, neither), 1);
	expect_error(&d, "missing 'spec.nodeRole' (or 'spec.instanceProfile')",
		     5, 3, NULL);
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, profile), 1);
	expect_error(&d, "'bad profile' is not a valid instance profile name",
		     5, 20, NULL);
	done(&in, &d);
}
END_TEST

START_TEST(test_window_errors)
{
	static const struct {
		const char *schedule, *duration;
		const char *msg;
		int line, col; /* schedule is at 9:15, duration at 10:15 */
	} cases[] = {
		{ "0 2 * * funday", "4h", "schedule day must be one day", 9, 15 },
		{ "0 2 1 * sat", "4h", "day-of-month and month must be '*'", 9,
		  15 },
		{ "0 2 * *", "4h", "five cron fields", 9, 15 },
		{ "61 2 * * sat", "4h", "minute must be 0-59", 9, 15 },
		{ "0 2 * * sat", "4x", "duration must look like 4h", 10, 15 },
		{ "0 2 * * sat", "10m", "at least 30m", 10, 15 },
		{ "30 3 * * *", "24h", "shorter than the 24h daily period", 10,
		  15 },
		{ "0 2 * * sat", "168h", "168h weekly period", 10, 15 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct diags d = DIAGS_INIT;
		struct intent in;

		snprintf(text, sizeof(text),
			 HEAD
			 "  maintenanceWindow:\n"            /* 8 */
			 "    schedule: \"%s\"\n"            /* 9 */
			 "    duration: \"%s\"\n"            /* 10 */
			 "  generalPurpose: {enabled: true}\n",
			 cases[i].schedule, cases[i].duration);
		ck_assert_uint_eq(run(&in, &d, NULL, text), 1);
		expect_error(&d, "maintenance window: ", cases[i].line,
			     cases[i].col, "times are UTC");
		expect_error(&d, cases[i].msg, cases[i].line, cases[i].col,
			     NULL);
		done(&in, &d);
	}
}
END_TEST

START_TEST(test_duplicate_names_and_namespaces)
{
	static const char text[] =
		HEAD WINDOW
		"  workloads:\n"                     /* 11 */
		"    - name: a\n"                    /* 12 */
		"      type: dev\n"                  /* 13 */
		"      gpu: l4\n"                    /* 14 */
		"      maxGpus: 1\n"                 /* 15 */
		"      namespace: kube-system\n"     /* 16 */
		"    - name: a\n"                    /* 17 */
		"      type: dev\n"                  /* 18 */
		"      gpu: l4\n"                    /* 19 */
		"      maxGpus: 1\n"                 /* 20 */
		"      namespace: Team_A\n"          /* 21 */
		"    - name: Big-Model\n"            /* 22 */
		"      type: dev\n"                  /* 23 */
		"      gpu: l4\n"                    /* 24 */
		"      maxGpus: 1\n"                 /* 25 */
		"      namespace: ok\n";             /* 26 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 4);
	expect_error(&d, "namespace 'kube-system' is reserved for the system",
		     16, 18, NULL);
	expect_error(&d, "duplicate workload name 'a' (first at line 12)", 17,
		     13, "its own name");
	expect_error(&d, "namespace 'Team_A' is not a valid DNS label", 21,
		     18, NULL);
	expect_error(&d, "workload name 'Big-Model' is not a valid DNS label",
		     22, 13, "lower-case");
	done(&in, &d);
}
END_TEST

START_TEST(test_general_name_collision)
{
	static const char with_general[] =
		HEAD WINDOW
		"  generalPurpose: {enabled: true}\n" /* 11 */
		"  workloads:\n"                     /* 12 */
		"    - name: general\n"              /* 13 */
		"      type: dev\n"
		"      gpu: l4\n"
		"      maxGpus: 1\n";
	static const char without_general[] =
		HEAD WINDOW
		"  workloads:\n"
		"    - name: general\n"
		"      type: dev\n"
		"      gpu: l4\n"
		"      maxGpus: 1\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, with_general), 1);
	expect_error(&d, "workload name 'general' is taken by the "
			 "general-purpose NodePool",
		     13, 13, "rename");
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, without_general), 0);
	done(&in, &d);
}
END_TEST

START_TEST(test_nothing_to_render)
{
	static const char text[] =
		HEAD
		"  workloads: []\n";                 /* 8 */
	static const char general_only[] =
		HEAD
		"  generalPurpose: {enabled: true}\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 1);
	expect_error(&d, "no workloads and no general-purpose pool", 8, 14,
		     "add a workload");
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, HEAD), 1);
	/* no workloads key: at the spec mapping (line 6, nodeRole) */
	expect_error(&d, "no workloads and no general-purpose pool", 6, 3, NULL);
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, general_only), 0);
	ck_assert_uint_eq(d.nr, 0);
	done(&in, &d);
}
END_TEST

/* ---- warnings ----------------------------------------------------------- */

START_TEST(test_warning_none_without_window)
{
	static const char no_window[] =
		HEAD
		"  workloads:\n"                     /* 8 */
		"    - name: train\n"                /* 9 */
		"      type: training\n"             /* 10 */
		"      gpu: h100\n"
		"      maxGpus: 8\n"
		"    - name: serve\n"
		"      type: inference\n"
		"      gpu: l4\n"
		"      maxGpus: 8\n";
	static const char with_window[] =
		HEAD WINDOW
		"  workloads:\n"
		"    - name: train\n"
		"      type: training\n"
		"      gpu: h100\n"
		"      maxGpus: 8\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	/* inference defaults to none as well */
	ck_assert_uint_eq(run(&in, &d, NULL, no_window), 0);
	ck_assert_uint_eq(d.warnings, 2);
	expect(&d, DIAG_WARNING,
	       "workload 'train' is 'interruption: none' and there is no "
	       "maintenance window",
	       9, 13, "spec.maintenanceWindow");
	done(&in, &d);

	ck_assert_uint_eq(run(&in, &d, NULL, with_window), 0);
	ck_assert_uint_eq(d.nr, 0);
	done(&in, &d);
}
END_TEST

START_TEST(test_warning_efa_sg_unused)
{
	static const char text[] =
		HEAD WINDOW
		"  network:\n"                            /* 11 */
		"    efaSecurityGroup: sg-0123456789abcdef0\n" /* 12 */
		"  workloads:\n"
		"    - name: w\n"
		"      type: inference\n"
		"      gpu: h100\n"
		"      maxGpus: 8\n";
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 0);
	ck_assert_uint_eq(d.warnings, 1);
	expect(&d, DIAG_WARNING,
	       "efaSecurityGroup is set but no workload uses EFA", 12, 23,
	       NULL);
	done(&in, &d);

	/* used: no warning */
	ck_assert_uint_eq(run(&in, &d, NULL, ml_prod), 0);
	expect_none(&d, "efaSecurityGroup is set");
	done(&in, &d);
}
END_TEST

START_TEST(test_reports_every_problem)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */
		"kind: ClusterIntent\n"                      /* 2 */
		"metadata: {name: c}\n"                      /* 3 */
		"spec:\n"                                    /* 4 */
		"  nodeRole: r\n"                            /* 5 */
		"  ami: bottlerocket@latest\n"               /* 6 */
		"  workloads:\n"                             /* 7 */
		"    - name: a\n"                            /* 8 */
		"      type: dev\n"                          /* 9 */
		"      gpu: zz\n"                            /* 10 */
		"      maxGpus: 1\n"                         /* 11 */
		"    - name: b\n"                            /* 12 */
		"      type: dev\n"                          /* 13 */
		"      gpu: l4\n"                            /* 14 */
		"      efa: true\n"                          /* 15 */
		"      maxGpus: 1\n";                        /* 16 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL, text), 3);
	expect_error(&d, "'@latest' AMI", 6, 8, NULL);
	expect_error(&d, "unknown GPU class 'zz'", 10, 12, NULL);
	expect_error(&d, "workload 'b' uses EFA", 15, 12, NULL);
	done(&in, &d);
}
END_TEST

/* ---- validate_families -------------------------------------------------- */

/* families of a workload built in memory */
static int families(const char *const *gpu, size_t ngpu, long gpus_per_pod,
		    int efa, const char *mig, const struct catalog *cat,
		    const char **names, struct buf *why)
{
	const struct cat_family *out[VALIDATE_MAX_FAMILIES];
	struct workload w;
	int n;

	memset(&w, 0, sizeof(w));
	w.gpu = (char **)(uintptr_t)gpu;
	w.ngpu = ngpu;
	w.gpus_per_pod = gpus_per_pod;
	w.gang = 1;
	w.efa = efa;
	w.max_gpus = 8;
	if (mig) {
		w.sharing = SHARE_MIG;
		w.mig_profile = (char *)(uintptr_t)mig;
	}
	n = validate_families(&w, cat ? cat : catalog_builtin(), out, why);
	for (int i = 0; i < n; i++)
		names[i] = out[i]->name;
	return n;
}

/* the names, joined with ',' */
static void joined(const char **names, int n, struct buf *out)
{
	for (int i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? "," : "", names[i]);
}

static void expect_families(const char *const *gpu, size_t ngpu,
			    long gpus_per_pod, int efa, const char *mig,
			    const char *want)
{
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT, got = BUF_INIT;
	int n = families(gpu, ngpu, gpus_per_pod, efa, mig, NULL, names, &why);

	ck_assert_msg(n > 0, "%s: %d families (%s)", gpu[0], n, buf_cstr(&why));
	joined(names, n, &got);
	ck_assert_str_eq(buf_cstr(&got), want);
	ck_assert_str_eq(buf_cstr(&why), "");
	buf_release(&why);
	buf_release(&got);
}

START_TEST(test_families_simple)
{
	static const char *const h100[] = { "h100" };
	static const char *const h200[] = { "h200" };
	static const char *const a100[] = { "a100" };
	static const char *const l4[] = { "l4" };
	static const char *const two[] = { "a10g", "l4", "a10g" };

	expect_families(h100, 1, 1, 0, NULL, "p5");
	expect_families(h100, 1, 8, 1, NULL, "p5");
	expect_families(a100, 1, 1, 0, NULL, "p4d,p4de");
	expect_families(l4, 1, 8, 0, NULL, "g6");
	/* gr6 is an L4 too (one GPU per type: not with 8 per pod) */
	expect_families(l4, 1, 1, 0, NULL, "g6,gr6");
	/* a list: union in order, no duplicates */
	expect_families(two, 3, 1, 0, NULL, "g5,g6,gr6");
	/* h200 with EFA and 8 GPUs per pod */
	expect_families(h200, 1, 8, 1, NULL, "p5e,p5en");
}
END_TEST

START_TEST(test_families_mig)
{
	static const char *const a100[] = { "a100" };
	static const char *const a40[] = { "a100.40gb" };
	static const char *const a80[] = { "a100.80gb" };
	static const char *const h100[] = { "h100" };
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;

	/* a GPU model selects its families (NVIDIA MIG user guide: 1g.10gb
	 * is on both A100s, 4 vs 7 per GPU) */
	expect_families(a80, 1, 1, 0, "1g.10gb", "p4de");
	expect_families(a40, 1, 1, 0, "1g.10gb", "p4d");
	expect_families(a40, 1, 1, 0, "1g.5gb", "p4d");
	expect_families(h100, 1, 1, 0, "1g.10gb", "p5");

	/* 'a100' names both models: never drop one silently */
	ck_assert_int_eq(families(a100, 1, 1, 0, "1g.5gb", NULL, names, &why),
			 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "is missing on some GPUs"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "p4de (a100.80gb) 0"));
	buf_reset(&why);
	ck_assert_int_eq(families(a100, 1, 1, 0, "1g.10gb", NULL, names, &why),
			 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why),
				     "p4d (a100.40gb) 4, p4de (a100.80gb) 7"));
	buf_release(&why);
}
END_TEST

START_TEST(test_families_plus)
{
	static const char *const l4p[] = { "l4+" };
	static const char *const h200p[] = { "h200+" };
	static const char *const t4p[] = { "t4+" };
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;
	int n, i;

	n = families(l4p, 1, 1, 0, NULL, NULL, names, &why);
	ck_assert_int_eq(n, 9);
	for (const char *const *want = (const char *const[]){ "g6", "gr6", "g6e",
							     "p4d", "p4de",
							     "p5", "p5e",
							     "p5en",
							     "p6-b200",
							     NULL };
	     *want; want++) {
		for (i = 0; i < n && strcmp(names[i], *want); i++)
			;
		ck_assert_msg(i < n, "l4+ lacks %s", *want);
	}
	for (const char *const *bad = (const char *const[]){ "g4dn", "g5",
							    "p3", "p3dn",
							    "g6f", "gr6f",
							    NULL };
	     *bad; bad++)
		for (i = 0; i < n; i++)
			ck_assert_msg(strcmp(names[i], *bad),
				      "l4+ includes %s", *bad);
	buf_release(&why);

	expect_families(h200p, 1, 1, 0, NULL, "p5e,p5en,p6-b200");

	/* t4+ is every class but v100 (ranked lowest: Fixed bug, catalog.tsv
	 * ranked it between t4 and a10g, so t4..l4 admitted p3dn.24xlarge):
	 * still never the fractional, misreporting L4s */
	n = families(t4p, 1, 1, 0, NULL, NULL, names, &why);
	ck_assert_int_eq(n, 11);
	for (i = 0; i < n; i++)
		ck_assert_msg(strcmp(names[i], "g6f") && strcmp(names[i], "gr6f") &&
				      strcmp(names[i], "p3dn"),
			      "t4+ includes %s", names[i]);
	buf_release(&why);
}
END_TEST

/* bounded ranges "lo..hi" and GPU models ("a100.80gb") */
START_TEST(test_families_range)
{
	static const char *const mid[] = { "l4..l40s" };
	static const char *const one[] = { "h100..h100" };
	static const char *const rev[] = { "l40s..l4" };
	static const char *const typo[] = { "l4..l40" };
	static const char *const both[] = { "l4..l40s+" };
	static const char *const modelp[] = { "a100.80gb+" };
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;

	expect_families(mid, 1, 1, 0, NULL, "g6,gr6,g6e");
	expect_families(one, 1, 1, 0, NULL, "p5");
	ck_assert_int_eq(families(rev, 1, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_str_eq(buf_cstr(&why),
			 "GPU range 'l40s..l4' is empty: 'l40s' ranks above "
			 "'l4' (write the lower class first)");
	buf_reset(&why);
	ck_assert_int_eq(families(typo, 1, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_str_eq(buf_cstr(&why),
			 "unknown GPU class 'l40'; did you mean 'l4'?");
	buf_reset(&why);
	ck_assert_int_eq(families(both, 1, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "cannot also end in '+'"));
	buf_reset(&why);
	ck_assert_int_eq(families(modelp, 1, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "cannot end in '+'"));
	buf_release(&why);
}
END_TEST

START_TEST(test_families_none_left)
{
	static const char *const l4[] = { "l4" };
	static const char *const zz[] = { "l4", "mi300x" };
	static const char *const a10gp[] = { "a10x+" };
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;

	ck_assert_int_eq(families(l4, 1, 16, 0, NULL, NULL, names, &why), 0);
	ck_assert_str_eq(buf_cstr(&why),
			 "no instance type of GPU class 'l4' has 16 GPUs");
	buf_reset(&why);

	ck_assert_int_eq(families(l4, 1, 1, 0, "1g.10gb", NULL, names, &why), 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "do not support MIG"));
	buf_reset(&why);

	ck_assert_int_eq(families(zz, 2, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_str_eq(buf_cstr(&why), "unknown GPU class 'mi300x'");
	buf_reset(&why);

	ck_assert_int_eq(families(a10gp, 1, 1, 0, NULL, NULL, names, &why), -1);
	ck_assert_str_eq(buf_cstr(&why),
			 "unknown GPU class 'a10x+'; did you mean 'a10g+'?");
	buf_release(&why);
}
END_TEST

/* a misreporting family is skipped even when its class names it and its
 * types would fit */
START_TEST(test_families_misreport_excluded)
{
	static const char *const l4[] = { "l4" };
	static const char *const v100[] = { "v100" };
	struct catalog cat = CATALOG_INIT;
	const char *names[VALIDATE_MAX_FAMILIES];
	struct buf why = BUF_INIT;

	load_small(&cat);
	ck_assert_int_eq(families(l4, 1, 1, 0, NULL, &cat, names, &why), 1);
	ck_assert_str_eq(names[0], "g6");
	ck_assert_int_eq(families(l4, 1, 1, 1, NULL, &cat, names, &why), 1);
	ck_assert_str_eq(names[0], "g6");
	ck_assert_int_eq(families(v100, 1, 1, 1, NULL, &cat, names, &why), 0);
	ck_assert_str_eq(buf_cstr(&why),
			 "EFA requested, but no instance family of GPU class "
			 "'v100' offers EFA with 1 GPUs");
	buf_release(&why);
	catalog_release(&cat);
}
END_TEST

/* ---- placement ----------------------------------------------------------- */

START_TEST(test_zone_names)
{
	static const char *const good[] = { "us-east-1a", "eu-central-1c",
					    "us-gov-west-1a", "ap-southeast-2b",
					    "us-west-2-lax-1a" };
	static const char *const bad[] = { "us-east-1", "use1-az1",
					   "US-EAST-1A", "us-east-1ab",
					   "useast1a", "us--east-1a", "",
					   "us-east-1a-", "a-b-1a" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(validate_zone_name(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!validate_zone_name(bad[i]), "%s", bad[i]);
}
END_TEST

/* HEAD WINDOW + EFA group (11-12), workloads (13), one EFA gang from 14 */
#define EFA_GANG                                                               \
	HEAD WINDOW                                                            \
	"  network:\n"                               /* 11 */                 \
	"    efaSecurityGroup: sg-0123456789abcdef0\n" /* 12 */               \
	"  workloads:\n"                             /* 13 */                 \
	"    - name: g\n"                            /* 14 */                 \
	"      type: training\n"                     /* 15 */                 \
	"      gpu: h100\n"                          /* 16 */                 \
	"      gpusPerPod: 8\n"                      /* 17 */                 \
	"      gang: 2\n"                            /* 18 */                 \
	"      maxGpus: 16\n"                        /* 19 */

START_TEST(test_placement_rules)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	/* pinned: clean */
	ck_assert_uint_eq(run(&in, &d, NULL,
			      EFA_GANG "      efa: true\n"
				       "      placement:\n"
				       "        zone: us-east-1a\n"
				       "        placementGroup: pg-0abc\n"),
			  0);
	ck_assert_uint_eq(d.nr, 0);
	done(&in, &d);

	/* no zone: nothing to say, the pod contract's zone affinity keeps
	 * the gang in one zone (render.c gang_zone_affinity) */
	ck_assert_uint_eq(run(&in, &d, NULL, EFA_GANG "      efa: true\n"), 0);
	expect_none(&d, "with no zone");
	done(&in, &d);

	/* two zones for a gang, a zone ID, a placement group without EFA
	 * or with no single zone, topology */
	ck_assert_uint_eq(run(&in, &d, NULL,
			      EFA_GANG "      efa: true\n"      /* 20 */
				       "      placement:\n"     /* 21 */
				       "        zone: [us-east-1a, use1-az2]\n"
				       "        placementGroup: \"bad\\tname\"\n"
				       "        topology: block\n"),
			  5);
	expect_error(&d, "'use1-az2' is not an availability zone name (it is "
			 "a zone ID",
		     22, 28, "describe-availability-zones");
	expect_error(&d, "is an EFA gang of 2 pods on 2 zones", 22, 15,
		     "name one zone");
	expect_error(&d, "is not a placement group name or id", 23, 25, NULL);
	expect_error(&d, "has a placement group but several zones", 23, 25,
		     "add 'zone:");
	expect_error(&d, "Kueue topology-aware scheduling cannot place gangs",
		     24, 19, "remove 'topology'");
	done(&in, &d);

	ck_assert_uint_eq(one_workload(&in, &d, NULL,
				       "      gpu: l4\n"          /* 14 */
				       "      maxGpus: 8\n"       /* 15 */
				       "      placement:\n"       /* 16 */
				       "        placementGroup: cpg\n"),
			  2);
	expect_error(&d, "has a placement group but no EFA", 17, 25,
		     "efa: true");
	expect_error(&d, "has a placement group but no zone", 17, 25, NULL);
	done(&in, &d);

	/* a serving pool may use several zones; each once */
	ck_assert_uint_eq(one_workload(&in, &d, NULL,
				       "      gpu: l4\n"          /* 14 */
				       "      maxGpus: 8\n"       /* 15 */
				       "      placement:\n"       /* 16 */
				       "        zone: [us-east-1a, us-east-1b, "
				       "us-east-1a]\n"),
			  1);
	expect_error(&d, "zone 'us-east-1a' is listed twice", 17, 40, NULL);
	done(&in, &d);
}
END_TEST

START_TEST(test_image_cache_rate_and_fsr)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_uint_eq(run(&in, &d, NULL,
			      HEAD "  imageCache:\n"                  /* 8 */
				   "    snapshotID: snap-0123456789abcdef0\n"
				   "    size: 200Gi\n"                /* 10 */
				   "    initializationRate: 200\n"    /* 11 */
				   "    fastSnapshotRestore: true\n"  /* 12 */
				   "  workloads:\n"
				   "    - {name: t, type: dev, gpu: t4, maxGpus: 1}\n"),
			  1);
	expect_error(&d, "has both 'initializationRate' and "
			 "'fastSnapshotRestore: true'",
		     11, 25, "remove 'initializationRate'");
	done(&in, &d);
}
END_TEST

START_TEST(test_dns_label)
{
	ck_assert_int_eq(validate_dns_label("a", 63), 1);
	ck_assert_int_eq(validate_dns_label("ml-prod-1", 63), 1);
	ck_assert_int_eq(validate_dns_label("0abc", 63), 1);
	ck_assert_int_eq(validate_dns_label("", 63), 0);
	ck_assert_int_eq(validate_dns_label("-a", 63), 0);
	ck_assert_int_eq(validate_dns_label("a-", 63), 0);
	ck_assert_int_eq(validate_dns_label("A", 63), 0);
	ck_assert_int_eq(validate_dns_label("a_b", 63), 0);
	ck_assert_int_eq(validate_dns_label("a.b", 63), 0);
	ck_assert_int_eq(validate_dns_label("abcde", 5), 1);
	ck_assert_int_eq(validate_dns_label("abcdef", 5), 0);
}
END_TEST

/* spec.acknowledge: an entry drops the warnings of its rule inside its
 * workload's list item only; one that dropped nothing is INT011 */
START_TEST(test_acknowledge)
{
	struct intent in;
	struct diags d = DIAGS_INIT;
	size_t from;

	run(&in, &d, NULL,
	    HEAD
	    "  acknowledge:\n"                                     /* 8 */
	    "    - {rule: INT003, workload: b, reason: \"by hand\"}\n" /* 9 */
	    "    - {rule: INT009, reason: \"fits\"}\n"                /* 10 */
	    "  workloads:\n"                                       /* 11 */
	    "    - {name: a, type: inference, gpu: l4, maxGpus: 4}\n" /* 12 */
	    "    - {name: b, type: inference, gpu: l4, maxGpus: 4}\n");/* 13 */
	ck_assert_uint_eq(d.errors, 0);
	from = d.nr;
	diags_add_rule(&d, DIAG_WARNING, INTENT_RULE_NO_WINDOW, FILE_NAME, 12,
		       7, NULL, "a");
	diags_add_rule(&d, DIAG_WARNING, INTENT_RULE_NO_WINDOW, FILE_NAME, 13,
		       7, NULL, "b");
	diags_add(&d, DIAG_WARNING, FILE_NAME, 13, 7, NULL, "no rule");
	validate_acknowledge(&in, &d, from, 1);
	/* a's stays, b's goes, the rule-less one stays; INT009 unused */
	ck_assert_uint_eq(d.nr - from, 3);
	ck_assert_str_eq(d.items[from].msg, "a");
	ck_assert_str_eq(d.items[from + 1].msg, "no rule");
	ck_assert_str_eq(d.items[from + 2].rule_id, "INT011");
	ck_assert_int_eq(d.items[from + 2].line, 10);
	ck_assert_ptr_nonnull(strstr(d.items[from + 2].msg, "INT009"));
	done(&in, &d);
}
END_TEST

Suite *validate_suite(void)
{
	Suite *s = suite_create("validate");
	TCase *tc;

	tc = tcase_create("rules");
	tcase_add_test(tc, test_valid_intent);
	tcase_add_test(tc, test_acknowledge);
	tcase_add_test(tc, test_ami_rules);
	tcase_add_test(tc, test_ami_missing);
	tcase_add_loop_test(tc, test_workload_rule, 0,
			    (int)(sizeof(workload_cases) /
				  sizeof(workload_cases[0])));
	tcase_add_test(tc, test_efa_on_class_without_efa);
	tcase_add_test(tc, test_bottlerocket_release_gating);
	tcase_add_test(tc, test_mig_al2023_refused);
	tcase_add_test(tc, test_density);
	tcase_add_test(tc, test_image_cache_rules);
	tcase_add_test(tc, test_bad_ids_and_names);
	tcase_add_test(tc, test_role_and_profile);
	tcase_add_test(tc, test_window_errors);
	tcase_add_test(tc, test_duplicate_names_and_namespaces);
	tcase_add_test(tc, test_general_name_collision);
	tcase_add_test(tc, test_nothing_to_render);
	tcase_add_test(tc, test_warning_none_without_window);
	tcase_add_test(tc, test_warning_efa_sg_unused);
	tcase_add_test(tc, test_reports_every_problem);
	suite_add_tcase(s, tc);

	tc = tcase_create("families");
	tcase_add_test(tc, test_families_simple);
	tcase_add_test(tc, test_families_mig);
	tcase_add_test(tc, test_families_plus);
	tcase_add_test(tc, test_families_range);
	tcase_add_test(tc, test_families_none_left);
	tcase_add_test(tc, test_families_misreport_excluded);
	tcase_add_test(tc, test_dns_label);
	tcase_add_test(tc, test_zone_names);
	tcase_add_test(tc, test_placement_rules);
	tcase_add_test(tc, test_image_cache_rate_and_fsr);
	suite_add_tcase(s, tc);
	return s;
}
