/*
 * tests/unit/test_intent.c: Check suite for generator/intent.c — the
 * ClusterIntent reader (defaults, positions, value shapes, shape
 * diagnostics with "did you mean" hints) and its small parsers
 * (intent_parse_duration, intent_parse_gib, intent_suggest).
 *
 * Every intent is a string in this file; nothing touches the filesystem.
 * Line and column numbers in the assertions refer to the line comments
 * next to each YAML literal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/intent.h"
#include "tests/unit/suites.h"
#include "util/diag.h"

#define FILE_NAME "intent.yaml"

/* ---- helpers ------------------------------------------------------------ */

static void dump_diags(const struct diags *d, struct buf *out)
{
	diags_format(d, out);
}

/* read text; returns intent_read's result, diagnostics in *d */
static int read_text(struct intent *in, struct diags *d, const char *text)
{
	return intent_read(in, FILE_NAME, text, strlen(text), d);
}

/* read text that must give no diagnostics at all */
static void read_clean(struct intent *in, const char *text)
{
	struct diags d = DIAGS_INIT;
	struct buf b = BUF_INIT;
	int r = read_text(in, &d, text);

	dump_diags(&d, &b);
	ck_assert_msg(r == 0 && d.nr == 0, "intent_read: %d, diagnostics:\n%s",
		      r, buf_cstr(&b));
	buf_release(&b);
	diags_release(&d);
}

/*
 * find: the first diagnostic of severity sev whose message contains msg;
 * fails the test (listing all diagnostics) when there is none.
 */
static const struct diag *find(const struct diags *d, enum diag_severity sev,
			       const char *msg)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < d->nr; i++)
		if (d->items[i].sev == sev && strstr(d->items[i].msg, msg))
			return &d->items[i];
	dump_diags(d, &b);
	ck_abort_msg("no %s containing '%s'; have:\n%s",
		     sev == DIAG_ERROR ? "error" : "warning", msg, buf_cstr(&b));
	return NULL;
}

/* an error containing msg at line:col, whose hint contains hint (if set) */
static void expect_error(const struct diags *d, const char *msg, int line,
			 int col, const char *hint)
{
	const struct diag *g = find(d, DIAG_ERROR, msg);

	ck_assert_str_eq(g->file, FILE_NAME);
	ck_assert_msg(g->line == line && g->col == col,
		      "'%s' at %d:%d, want %d:%d", g->msg, g->line, g->col,
		      line, col);
	if (hint) {
		ck_assert_msg(g->hint != NULL, "'%s' has no hint", g->msg);
		ck_assert_msg(strstr(g->hint, hint) != NULL,
			      "hint '%s' does not contain '%s'", g->hint, hint);
	}
}

static void assert_pos(struct pos p, int line, int col)
{
	ck_assert_msg(p.line == line && p.col == col, "at %d:%d, want %d:%d",
		      p.line, p.col, line, col);
}

/* the common head of most intents here: lines 1-7 */
#define HEAD                                                                   \
	"apiVersion: gpuform.io/v1alpha1\n"          /* 1 */                  \
	"kind: ClusterIntent\n"                      /* 2 */                  \
	"metadata:\n"                                /* 3 */                  \
	"  name: ml-prod\n"                          /* 4 */                  \
	"spec:\n"                                    /* 5 */                  \
	"  nodeRole: KarpenterNodeRole-ml-prod\n"    /* 6 */                  \
	"  ami: bottlerocket@v1.26.1\n"              /* 7 */

/* ---- defaults ----------------------------------------------------------- */

static const char defaults_text[] =
	HEAD
	"  workloads:\n"                             /* 8 */
	"    - name: train\n"                        /* 9 */
	"      type: training\n"                     /* 10 */
	"      gpu: h100\n"                          /* 11 */
	"      maxGpus: 16\n"                        /* 12 */
	"    - name: serve\n"                        /* 13 */
	"      type: inference\n"                    /* 14 */
	"      gpu: l4\n"                            /* 15 */
	"      maxGpus: 4\n"                         /* 16 */
	"    - name: play\n"                         /* 17 */
	"      type: dev\n"                          /* 18 */
	"      gpu: t4\n"                            /* 19 */
	"      maxGpus: 2\n";                        /* 20 */

START_TEST(test_defaults)
{
	struct intent in;

	read_clean(&in, defaults_text);
	ck_assert_str_eq(in.file, FILE_NAME);
	ck_assert_str_eq(in.name, "ml-prod");
	ck_assert_str_eq(in.node_role, "KarpenterNodeRole-ml-prod");
	ck_assert_ptr_null(in.instance_profile);
	ck_assert_str_eq(in.ami, "bottlerocket@v1.26.1");
	ck_assert_int_eq(in.ami_family, AMI_BOTTLEROCKET);
	ck_assert_str_eq(in.ami_version, "v1.26.1");
	/* discovery defaults to the cluster name, pointing at it */
	ck_assert_str_eq(in.discovery, "ml-prod");
	assert_pos(in.discovery_pos, 4, 9);
	ck_assert_int_eq(in.prefix_delegation, 1);
	ck_assert_int_eq(in.image_cache, 0);
	ck_assert_ptr_null(in.efa_sg);
	ck_assert_int_eq(in.general, 0);
	ck_assert_int_eq(in.window, 0);
	ck_assert_uint_eq(in.nworkloads, 3);

	for (size_t i = 0; i < 3; i++) {
		const struct workload *w = &in.workloads[i];
		ck_assert_int_eq(w->ok, 1);
		ck_assert_int_eq(w->gpus_per_pod, 1);
		ck_assert_int_eq(w->gang, 1);
		ck_assert_int_eq(w->efa, 0);
		ck_assert_int_eq(w->sharing, SHARE_NONE);
		/* namespace defaults to the workload name */
		ck_assert_str_eq(w->ns, w->name);
		ck_assert_uint_eq(w->ngpu, 1);
	}
	ck_assert_int_eq(in.workloads[0].type, WL_TRAINING);
	ck_assert_int_eq(in.workloads[0].interruption, INT_NONE);
	ck_assert_int_eq(in.workloads[1].type, WL_INFERENCE);
	/* serving: on-demand, disrupted only inside the window */
	ck_assert_int_eq(in.workloads[1].interruption, INT_NONE);
	ck_assert_int_eq(in.workloads[2].type, WL_DEV);
	ck_assert_int_eq(in.workloads[2].interruption, INT_TOLERANT);
	ck_assert_int_eq(in.workloads[0].max_gpus, 16);
	ck_assert_str_eq(in.workloads[1].gpu[0], "l4");
	/* the namespace position is the name's when defaulted */
	assert_pos(in.workloads[1].ns_pos, 13, 13);
	ck_assert_str_eq(wl_type_names[WL_DEV], "dev");
	ck_assert_str_eq(wl_interruption_names[INT_CHECKPOINTED],
			 "checkpointed");
	intent_release(&in);
	ck_assert_ptr_null(in.workloads);
	ck_assert_ptr_null(in.name);
}
END_TEST

START_TEST(test_explicit_values_override_defaults)
{
	static const char text[] =
		HEAD
		"  discovery: shared-tag\n"          /* 8 */
		"  network:\n"                       /* 9 */
		"    prefixDelegation: false\n"      /* 10 */
		"    efaSecurityGroup: sg-0123456789abcdef0\n" /* 11 */
		"  generalPurpose:\n"                /* 12 */
		"    enabled: true\n"                /* 13 */
		"  imageCache:\n"                    /* 14 */
		"    snapshotID: snap-0123456789abcdef0\n" /* 15 */
		"    size: 200Gi\n"                  /* 16 */
		"  maintenanceWindow:\n"             /* 17 */
		"    schedule: \"0 2 * * sat\"\n"    /* 18 */
		"    duration: 4h\n"                 /* 19 */
		"  workloads:\n"                     /* 20 */
		"    - name: train\n"                /* 21 */
		"      type: training\n"             /* 22 */
		"      gpu: h100\n"                  /* 23 */
		"      gpusPerPod: 8\n"              /* 24 */
		"      gang: 4\n"                    /* 25 */
		"      interruption: checkpointed\n" /* 26 */
		"      efa: true\n"                  /* 27 */
		"      maxGpus: 64\n"                /* 28 */
		"      namespace: research\n";       /* 29 */
	struct intent in;
	const struct workload *w;

	read_clean(&in, text);
	ck_assert_str_eq(in.discovery, "shared-tag");
	assert_pos(in.discovery_pos, 8, 14);
	ck_assert_int_eq(in.prefix_delegation, 0);
	assert_pos(in.pd_pos, 10, 23);
	ck_assert_str_eq(in.efa_sg, "sg-0123456789abcdef0");
	assert_pos(in.efa_sg_pos, 11, 23);
	ck_assert_int_eq(in.general, 1);
	ck_assert_int_eq(in.image_cache, 1);
	ck_assert_str_eq(in.snapshot_id, "snap-0123456789abcdef0");
	ck_assert_str_eq(in.cache_size, "200Gi");
	assert_pos(in.snapshot_pos, 15, 17);
	assert_pos(in.cache_size_pos, 16, 11);
	ck_assert_int_eq(in.window, 1);
	ck_assert_str_eq(in.window_schedule, "0 2 * * sat");
	ck_assert_str_eq(in.window_duration, "4h");
	assert_pos(in.window_schedule_pos, 18, 15);
	assert_pos(in.window_duration_pos, 19, 15);

	w = &in.workloads[0];
	ck_assert_int_eq(w->ok, 1);
	ck_assert_int_eq(w->gpus_per_pod, 8);
	ck_assert_int_eq(w->gang, 4);
	ck_assert_int_eq(w->interruption, INT_CHECKPOINTED);
	ck_assert_int_eq(w->efa, 1);
	ck_assert_int_eq(w->max_gpus, 64);
	ck_assert_str_eq(w->ns, "research");
	assert_pos(w->ns_pos, 29, 18);
	intent_release(&in);
}
END_TEST

START_TEST(test_ami_family_and_version)
{
	static const struct {
		const char *ami;
		enum ami_family fam;
		const char *version; /* NULL: none */
	} cases[] = {
		{ "al2023@v20250505", AMI_AL2023, "v20250505" },
		{ "bottlerocket@v1.26.1", AMI_BOTTLEROCKET, "v1.26.1" },
		{ "bottlerocket", AMI_BOTTLEROCKET, NULL },
		{ "al2023@latest", AMI_AL2023, "latest" },
		{ "al2@v20240101", AMI_UNKNOWN, "v20240101" },
		{ "al20231@v1", AMI_UNKNOWN, "v1" },
		{ "bottlerockets@v1.2.3", AMI_UNKNOWN, "v1.2.3" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		struct intent in;
		snprintf(text, sizeof(text),
			 "apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
			 "metadata: {name: c}\nspec:\n  nodeRole: r\n"
			 "  ami: \"%s\"\n",
			 cases[i].ami);
		read_clean(&in, text);
		ck_assert_str_eq(in.ami, cases[i].ami);
		ck_assert_msg(in.ami_family == cases[i].fam, "%s: family %d",
			      cases[i].ami, (int)in.ami_family);
		if (cases[i].version)
			ck_assert_str_eq(in.ami_version, cases[i].version);
		else
			ck_assert_ptr_null(in.ami_version);
		assert_pos(in.ami_pos, 6, 8);
		intent_release(&in);
	}
}
END_TEST

/* ---- positions ---------------------------------------------------------- */

START_TEST(test_positions)
{
	static const char text[] =
		HEAD
		"  workloads:\n"                     /* 8 */
		"    - name: train\n"                /* 9 */
		"      type: training\n"             /* 10 */
		"      gpu: [h100, h200]\n"          /* 11 */
		"      gpusPerPod: 8\n"              /* 12 */
		"      gang: 2\n"                    /* 13 */
		"      interruption: none\n"         /* 14 */
		"      efa: false\n"                 /* 15 */
		"      sharing:\n"                   /* 16 */
		"        mig: 1g.18gb\n"             /* 17 */
		"      maxGpus: 32\n";               /* 18 */
	struct intent in;
	const struct workload *w;

	read_clean(&in, text);
	assert_pos(in.pos, 1, 1);
	assert_pos(in.name_pos, 4, 9);
	assert_pos(in.role_pos, 6, 13);
	assert_pos(in.ami_pos, 7, 8);
	assert_pos(in.workloads_pos, 9, 5);
	w = &in.workloads[0];
	assert_pos(w->pos, 9, 7);
	assert_pos(w->name_pos, 9, 13);
	assert_pos(w->type_pos, 10, 13);
	assert_pos(w->gpu_pos, 11, 12);
	assert_pos(w->gpus_per_pod_pos, 12, 19);
	assert_pos(w->gang_pos, 13, 13);
	assert_pos(w->interruption_pos, 14, 21);
	assert_pos(w->efa_pos, 15, 12);
	/* for {mig: ...} the position is the profile's */
	assert_pos(w->sharing_pos, 17, 14);
	assert_pos(w->max_gpus_pos, 18, 16);
	intent_release(&in);
}
END_TEST

/* ---- gpu and sharing shapes --------------------------------------------- */

/* one workload "w" with `extra` lines (each "      key: value\n") */
static void read_workload_with(struct intent *in, struct diags *d,
			       const char *extra)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 HEAD "  workloads:\n"
		      "    - name: w\n"
		      "      type: inference\n"
		      "      maxGpus: 8\n"
		      "%s",
		 extra);
	ck_assert_int_eq(read_text(in, d, text), 0);
}

START_TEST(test_gpu_string_list_plus)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	read_workload_with(&in, &d, "      gpu: h100\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_uint_eq(in.workloads[0].ngpu, 1);
	ck_assert_str_eq(in.workloads[0].gpu[0], "h100");
	intent_release(&in);

	read_workload_with(&in, &d, "      gpu: [a10g, l4, \"l40s\"]\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_uint_eq(in.workloads[0].ngpu, 3);
	ck_assert_str_eq(in.workloads[0].gpu[0], "a10g");
	ck_assert_str_eq(in.workloads[0].gpu[1], "l4");
	ck_assert_str_eq(in.workloads[0].gpu[2], "l40s");
	intent_release(&in);

	read_workload_with(&in, &d, "      gpu:\n        - l4+\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_uint_eq(in.workloads[0].ngpu, 1);
	/* the '+' is kept for validate_families */
	ck_assert_str_eq(in.workloads[0].gpu[0], "l4+");
	ck_assert_int_eq(in.workloads[0].ok, 1);
	intent_release(&in);

	read_workload_with(&in, &d, "      gpu: l4+\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_str_eq(in.workloads[0].gpu[0], "l4+");
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_gpu_bad_shapes)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	/* line 12 is the first extra line */
	read_workload_with(&in, &d, "      gpu: []\n");
	expect_error(&d, "'gpu' is an empty list", 12, 12,
		     "at least one GPU class");
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);

	read_workload_with(&in, &d, "      gpu: [l4, 7]\n");
	expect_error(&d, "'gpu' must be a string, not an integer", 12, 17,
		     "quotes");
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);

	read_workload_with(&in, &d, "      gpu: {class: l4}\n");
	expect_error(&d, "'gpu' must be a string, not a mapping", 12, 12,
		     NULL);
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_sharing_modes)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	read_workload_with(&in, &d, "      gpu: l4\n      sharing: none\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_int_eq(in.workloads[0].sharing, SHARE_NONE);
	assert_pos(in.workloads[0].sharing_pos, 13, 16);
	intent_release(&in);

	read_workload_with(&in, &d,
			   "      gpu: l4\n      sharing:\n        timeSlicing: 4\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_int_eq(in.workloads[0].sharing, SHARE_TIMESLICING);
	ck_assert_int_eq(in.workloads[0].ts_replicas, 4);
	assert_pos(in.workloads[0].sharing_pos, 14, 22);
	ck_assert_ptr_null(in.workloads[0].mig_profile);
	intent_release(&in);

	read_workload_with(&in, &d, "      gpu: a100\n      sharing: {mig: 1g.10gb}\n");
	ck_assert_uint_eq(d.nr, 0);
	ck_assert_int_eq(in.workloads[0].sharing, SHARE_MIG);
	ck_assert_str_eq(in.workloads[0].mig_profile, "1g.10gb");
	assert_pos(in.workloads[0].sharing_pos, 13, 22);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_sharing_errors)
{
	struct diags d = DIAGS_INIT;
	struct intent in;

	read_workload_with(&in, &d, "      gpu: l4\n      sharing: full\n");
	expect_error(&d, "'sharing' has unknown value 'full'", 13, 16,
		     "timeSlicing");
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);

	read_workload_with(&in, &d,
			   "      gpu: l4\n      sharing: {timeSlicing: 2, mig: 1g.10gb}\n");
	expect_error(&d, "exactly one of 'timeSlicing' and 'mig'", 13, 16,
		     "choose one");
	ck_assert_int_eq(in.workloads[0].sharing, SHARE_NONE);
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);

	read_workload_with(&in, &d,
			   "      gpu: l4\n      sharing: {timeSlicing: 1}\n");
	expect_error(&d, "'timeSlicing' is 1; it must be from 2 to 48", 13,
		     30, NULL);
	ck_assert_int_eq(in.workloads[0].sharing, SHARE_NONE);
	intent_release(&in);
	diags_release(&d);

	read_workload_with(&in, &d,
			   "      gpu: l4\n      sharing: {timeSlicng: 2}\n");
	expect_error(&d, "unknown key 'timeSlicng' in 'sharing'", 13, 17,
		     "did you mean 'timeSlicing'?");
	intent_release(&in);
	diags_release(&d);
}
END_TEST

/* ---- shape diagnostics -------------------------------------------------- */

START_TEST(test_unknown_key_did_you_mean)
{
	static const char text[] =
		HEAD
		"  nodeRoel: x\n"                    /* 8 */
		"  workloads:\n"                     /* 9 */
		"    - name: w\n"                    /* 10 */
		"      type: dev\n"                  /* 11 */
		"      gpu: l4\n"                    /* 12 */
		"      maxGpus: 1\n"                 /* 13 */
		"      gpusPerPods: 2\n"             /* 14 */
		"      colour: blue\n"               /* 15 */
		"spce: {}\n";                        /* 16 */
	struct diags d = DIAGS_INIT;
	struct intent in;
	const struct diag *g;

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	expect_error(&d, "unknown key 'nodeRoel' in 'spec'", 8, 3,
		     "did you mean 'nodeRole'?");
	expect_error(&d, "unknown key 'gpusPerPods' in a workload", 14, 7,
		     "did you mean 'gpusPerPod'?");
	expect_error(&d, "unknown key 'spce' in the intent", 16, 1,
		     "did you mean 'spec'?");
	/* nothing close: the hint lists the known keys instead */
	g = find(&d, DIAG_ERROR, "unknown key 'colour'");
	ck_assert_int_eq(g->line, 15);
	ck_assert_ptr_nonnull(g->hint);
	ck_assert_ptr_null(strstr(g->hint, "did you mean"));
	ck_assert_ptr_nonnull(strstr(g->hint, "known keys:"));
	ck_assert_ptr_nonnull(strstr(g->hint, "gpusPerPod"));
	ck_assert_ptr_nonnull(strstr(g->hint, "namespace"));
	ck_assert_uint_eq(d.errors, 4);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_bad_enum_values)
{
	struct diags d = DIAGS_INIT;
	struct intent in;
	static const char text[] =
		HEAD
		"  workloads:\n"                     /* 8 */
		"    - name: w\n"                    /* 9 */
		"      type: trainng\n"              /* 10 */
		"      gpu: l4\n"                    /* 11 */
		"      interruption: sometimes\n"    /* 12 */
		"      maxGpus: 1\n";                /* 13 */

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	expect_error(&d, "'type' has unknown value 'trainng'", 10, 13,
		     "did you mean 'training'?");
	expect_error(&d, "'interruption' has unknown value 'sometimes'", 12,
		     21, "one of: none checkpointed tolerant");
	ck_assert_int_eq(in.workloads[0].ok, 0);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_wrong_types)
{
	static const char text[] =
		HEAD
		"  network:\n"                       /* 8 */
		"    prefixDelegation: 1\n"          /* 9 */
		"  workloads:\n"                     /* 10 */
		"    - name: 123\n"                  /* 11 */
		"      type: dev\n"                  /* 12 */
		"      gpu: l4\n"                    /* 13 */
		"      gpusPerPod: two\n"            /* 14 */
		"      gang: 1.5\n"                  /* 15 */
		"      efa: \"true\"\n"              /* 16 */
		"      maxGpus: 200000\n"            /* 17 */
		"      namespace: [a]\n";            /* 18 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	expect_error(&d, "'prefixDelegation' must be true or false, not an "
			 "integer",
		     9, 23, "write true or false");
	expect_error(&d, "'name' must be a string, not an integer", 11, 13,
		     "put the value in quotes");
	expect_error(&d, "'gpusPerPod' must be a whole number, not a string",
		     14, 19, NULL);
	expect_error(&d, "'gang' must be a whole number", 15, 13, NULL);
	expect_error(&d, "'efa' must be true or false, not a string", 16, 12,
		     NULL);
	expect_error(&d, "'maxGpus' is 200000; it must be from 1 to 100000",
		     17, 16, NULL);
	expect_error(&d, "'namespace' must be a string, not a list", 18, 18,
		     NULL);
	ck_assert_uint_eq(d.errors, 7);
	/* a bad prefixDelegation keeps the default */
	ck_assert_int_eq(in.prefix_delegation, 1);
	ck_assert_int_eq(in.workloads[0].ok, 0);
	ck_assert_ptr_null(in.workloads[0].name);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_missing_required_keys)
{
	static const char text[] =
		HEAD
		"  workloads:\n"                     /* 8 */
		"    - name: w\n"                    /* 9 */
		"      gpu: l4\n"                    /* 10 */
		"    - type: dev\n"                  /* 11 */
		"      maxGpus: ~\n";                /* 12 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	ck_assert_uint_eq(in.nworkloads, 2);
	expect_error(&d, "missing required key 'type'", 9, 7, "add 'type:");
	expect_error(&d, "missing required key 'maxGpus'", 9, 7, NULL);
	/* null counts as missing */
	expect_error(&d, "missing required key 'name'", 11, 7, NULL);
	expect_error(&d, "missing required key 'gpu'", 11, 7, NULL);
	ck_assert_uint_eq(d.errors, 5);
	ck_assert_int_eq(in.workloads[0].ok, 0);
	ck_assert_int_eq(in.workloads[1].ok, 0);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_top_level_problems)
{
	static const char text[] =
		"apiVersion: gpuform.io/v1\n"        /* 1 */
		"kind: Intent\n"                     /* 2 */
		"metadata: {}\n"                     /* 3 */
		"spec:\n"                            /* 4 */
		"  ami: bottlerocket@v1.26.1\n"      /* 5 */
		"  workloads: {a: 1}\n"              /* 6 */
		"  imageCache: {}\n"                 /* 7 */
		"  maintenanceWindow: {duration: 4h}\n"; /* 8 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	expect_error(&d, "unsupported apiVersion 'gpuform.io/v1'", 1, 13,
		     "gpuform.io/v1alpha1");
	expect_error(&d, "unsupported kind 'Intent'", 2, 7, NULL);
	expect_error(&d, "missing 'metadata.name'", 3, 11, NULL);
	expect_error(&d, "'workloads' must be a list, not a mapping", 6, 14,
		     NULL);
	expect_error(&d, "'imageCache' is missing 'snapshotID'", 7, 15, NULL);
	expect_error(&d, "'imageCache' is missing 'size'", 7, 15, "200Gi");
	expect_error(&d, "'maintenanceWindow' is missing 'schedule'", 8, 22,
		     NULL);
	ck_assert_ptr_null(in.name);
	/* without a name there is nothing to default discovery to */
	ck_assert_ptr_null(in.discovery);
	intent_release(&in);
	diags_release(&d);

	ck_assert_int_eq(read_text(&in, &d, "metadata: {name: x}\n"), 0);
	expect_error(&d, "missing 'apiVersion'", 1, 1, NULL);
	expect_error(&d, "missing 'kind'", 1, 1, NULL);
	expect_error(&d, "missing 'spec'", 1, 1, NULL);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_unusable_inputs)
{
	struct diags d = DIAGS_INIT;
	struct intent in;
	const struct diag *g;

	/* empty */
	ck_assert_int_eq(read_text(&in, &d, ""), -1);
	expect_error(&d, "the file is empty", 1, 1, "one ClusterIntent");
	ck_assert_str_eq(in.file, FILE_NAME);
	intent_release(&in);
	diags_release(&d);

	/* two documents: pointed at the second */
	ck_assert_int_eq(read_text(&in, &d, "a: 1\n---\nb: 2\n"), -1);
	expect_error(&d, "more than one YAML document", 2, 1, NULL);
	intent_release(&in);
	diags_release(&d);

	/* a YAML syntax error keeps the parser's position, without the
	 * file name repeated in the message */
	ck_assert_int_eq(read_text(&in, &d, "a: [1, 2\nb: 3\n"), -1);
	ck_assert_uint_eq(d.errors, 1);
	g = &d.items[0];
	ck_assert_int_gt(g->line, 0);
	ck_assert_int_gt(g->col, 0);
	ck_assert_str_eq(g->file, FILE_NAME);
	ck_assert_ptr_null(strstr(g->msg, FILE_NAME));
	ck_assert_str_eq(g->hint, "fix the YAML at that position");
	intent_release(&in);
	diags_release(&d);

	/* a scalar root: readable, but not a mapping */
	ck_assert_int_eq(read_text(&in, &d, "just text\n"), -1);
	expect_error(&d, "the intent must be a mapping", 1, 1, NULL);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

START_TEST(test_workload_not_a_mapping)
{
	static const char text[] =
		HEAD
		"  workloads:\n"                     /* 8 */
		"    - train\n";                     /* 9 */
	struct diags d = DIAGS_INIT;
	struct intent in;

	ck_assert_int_eq(read_text(&in, &d, text), 0);
	expect_error(&d, "a workload must be a mapping", 9, 7, NULL);
	ck_assert_uint_eq(in.nworkloads, 1);
	ck_assert_int_eq(in.workloads[0].ok, 0);
	ck_assert_ptr_null(in.workloads[0].name);
	intent_release(&in);
	diags_release(&d);
}
END_TEST

/* ---- small parsers ------------------------------------------------------ */

START_TEST(test_parse_duration)
{
	ck_assert_int_eq(intent_parse_duration("4h"), 4 * 3600);
	ck_assert_int_eq(intent_parse_duration("30m"), 30 * 60);
	ck_assert_int_eq(intent_parse_duration("1h30m"), 5400);
	ck_assert_int_eq(intent_parse_duration("90s"), 90);
	ck_assert_int_eq(intent_parse_duration("2h0m15s"), 7215);
	ck_assert_int_eq(intent_parse_duration("168h"), 168 * 3600);
	ck_assert_int_eq(intent_parse_duration("0m"), 0);

	ck_assert_int_eq(intent_parse_duration(NULL), -1);
	ck_assert_int_eq(intent_parse_duration(""), -1);
	ck_assert_int_eq(intent_parse_duration("4"), -1);
	ck_assert_int_eq(intent_parse_duration("h"), -1);
	ck_assert_int_eq(intent_parse_duration("4d"), -1);
	ck_assert_int_eq(intent_parse_duration("4 h"), -1);
	ck_assert_int_eq(intent_parse_duration("-4h"), -1);
	ck_assert_int_eq(intent_parse_duration("4h "), -1);
	ck_assert_int_eq(intent_parse_duration("1.5h"), -1);
	ck_assert_int_eq(intent_parse_duration("99999999999h"), -1);
}
END_TEST

START_TEST(test_parse_gib)
{
	ck_assert_int_eq(intent_parse_gib("200Gi"), 200);
	ck_assert_int_eq(intent_parse_gib("1Ti"), 1024);
	ck_assert_int_eq(intent_parse_gib("16Ti"), 16384);
	/* 500 * 10^9 bytes = 465.66 GiB: rounded up */
	ck_assert_int_eq(intent_parse_gib("500G"), 466);
	/* 10^12 bytes = 931.32 GiB: rounded up */
	ck_assert_int_eq(intent_parse_gib("1T"), 932);
	ck_assert_int_eq(intent_parse_gib("0Gi"), 0);

	ck_assert_int_eq(intent_parse_gib(NULL), -1);
	ck_assert_int_eq(intent_parse_gib(""), -1);
	ck_assert_int_eq(intent_parse_gib("200"), -1);
	ck_assert_int_eq(intent_parse_gib("Gi"), -1);
	ck_assert_int_eq(intent_parse_gib("200GB"), -1);
	ck_assert_int_eq(intent_parse_gib("200gi"), -1);
	ck_assert_int_eq(intent_parse_gib("200Mi"), -1);
	ck_assert_int_eq(intent_parse_gib("1.5Ti"), -1);
	ck_assert_int_eq(intent_parse_gib("-1Gi"), -1);
	ck_assert_int_eq(intent_parse_gib(" 1Gi"), -1);
	ck_assert_int_eq(intent_parse_gib("99999999999Gi"), -1);
}
END_TEST

/*
 * "T" multiplies by 10^12: values that would overflow a long long must not
 * (UBSan aborts the test if they do) and must come out unusable: -1, or a
 * size far beyond the 16Ti validate accepts. Below that they are exact.
 */
START_TEST(test_parse_gib_large_terabytes)
{
	long long v = intent_parse_gib("10000000T");

	ck_assert_msg(v == -1 || v > 16384, "intent_parse_gib(\"10000000T\") = %lld",
		      v);
	v = intent_parse_gib("999999999T");
	ck_assert_msg(v == -1 || v > 16384, "intent_parse_gib(\"999999999T\") = %lld",
		      v);
	/* 10^18 bytes = 931322574.6 GiB */
	ck_assert_int_eq(intent_parse_gib("1000000T"), 931322575LL);
	ck_assert_int_eq(intent_parse_gib("999999999G"), 931322574LL);
}
END_TEST

START_TEST(test_suggest)
{
	static const char *const words[] = { "training", "inference", "dev",
					     NULL };
	static const char *const keys[] = { "prefixDelegation",
					    "efaSecurityGroup", NULL };

	ck_assert_str_eq(intent_suggest("trainng", words), "training");
	ck_assert_str_eq(intent_suggest("inferense", words), "inference");
	ck_assert_str_eq(intent_suggest("training", words), "training");
	/* case does not count */
	ck_assert_str_eq(intent_suggest("DEV", words), "dev");
	ck_assert_str_eq(intent_suggest("devv", words), "dev");
	ck_assert_ptr_null(intent_suggest("batch", words));
	ck_assert_ptr_null(intent_suggest("xyz", words));
	ck_assert_str_eq(intent_suggest("prefixDelegaton", keys),
			 "prefixDelegation");
	/* nearest wins over the first within reach */
	{
		static const char *const w2[] = { "h200", "h100", NULL };
		ck_assert_str_eq(intent_suggest("h10", w2), "h100");
	}
	/* very long inputs are never close */
	ck_assert_ptr_null(intent_suggest(
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		words));
}
END_TEST

/*
 * intent.h: the closest word "(edit distance <= 2 or prefix)": a truncated
 * key such as "efaSecurity" (edit distance 5 from "efaSecurityGroup") still
 * gets its suggestion.
 */
START_TEST(test_suggest_prefix)
{
	static const char *const keys[] = { "prefixDelegation",
					    "efaSecurityGroup", NULL };
	const char *s = intent_suggest("efaSecurity", keys);

	ck_assert_msg(s && !strcmp(s, "efaSecurityGroup"),
		      "intent_suggest(\"efaSecurity\") = %s", s ? s : "NULL");
}
END_TEST

Suite *intent_suite(void)
{
	Suite *s = suite_create("intent");
	TCase *tc;

	tc = tcase_create("read");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_explicit_values_override_defaults);
	tcase_add_test(tc, test_ami_family_and_version);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_gpu_string_list_plus);
	tcase_add_test(tc, test_gpu_bad_shapes);
	tcase_add_test(tc, test_sharing_modes);
	tcase_add_test(tc, test_sharing_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("diagnostics");
	tcase_add_test(tc, test_unknown_key_did_you_mean);
	tcase_add_test(tc, test_bad_enum_values);
	tcase_add_test(tc, test_wrong_types);
	tcase_add_test(tc, test_missing_required_keys);
	tcase_add_test(tc, test_top_level_problems);
	tcase_add_test(tc, test_unusable_inputs);
	tcase_add_test(tc, test_workload_not_a_mapping);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsers");
	tcase_add_test(tc, test_parse_duration);
	tcase_add_test(tc, test_parse_gib);
	tcase_add_test(tc, test_parse_gib_large_terabytes);
	tcase_add_test(tc, test_suggest);
	tcase_add_test(tc, test_suggest_prefix);
	suite_add_tcase(s, tc);
	return s;
}
