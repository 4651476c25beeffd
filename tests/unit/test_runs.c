/*
 * tests/unit/test_runs.c: the runs moved out of cmd/ (issue 22), on the
 * fakes — reconcile/pfrun.c (the preflight run: intents read and
 * validated, credentials, AWS asked through tests/unit/aws_fake.c),
 * reconcile/unattended.c (the run lock and the report of an unattended
 * run, on tests/unit/kube_fake.c), reconcile/doctorrun.c (doctor's reads
 * and the served kinds) and reconcile/advrun.c (advise's intents and
 * token).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile/advrun.h"
#include "reconcile/ctlread.h"
#include "reconcile/doctorrun.h"
#include "reconcile/pfrun.h"
#include "reconcile/unattended.h"
#include "tests/unit/aws_fake.h"
#include "tests/unit/kube_fake.h"
#include "tests/unit/suites.h"
#include "util/fs.h"
#include "util/xalloc.h"

extern char **environ;

static char tmp[64];
static char ml_prod[] = "specs/ml-prod.yaml", bad_name[] = "bad.yaml";
static char research_mig[] = "specs/research-mig.yaml";

static void setup(void)
{
	/* no AWS_* variable, an empty HOME, no instance metadata */
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, "AWS_", 4)) {
				char *name = xstrndup(*e, strcspn(*e, "="));
				unsetenv(name);
				free(name);
				again = 1;
				break;
			}
	}
	strcpy(tmp, "/tmp/gpuform-unit-runs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	setenv("HOME", tmp, 1);
	setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int has_diag(const struct diags *d, const char *part)
{
	for (size_t i = 0; i < d->nr; i++)
		if (strstr(d->items[i].msg, part))
			return 1;
	return 0;
}

/* ---- reconcile/pfrun.c ----------------------------------------------------- */

START_TEST(test_pfrun_version)
{
	ck_assert(pfrun_version_ok("1.32"));
	ck_assert(pfrun_version_ok("10.0"));
	ck_assert(!pfrun_version_ok(""));
	ck_assert(!pfrun_version_ok("1"));
	ck_assert(!pfrun_version_ok("1."));
	ck_assert(!pfrun_version_ok(".1"));
	ck_assert(!pfrun_version_ok("1.2.3"));
	ck_assert(!pfrun_version_ok("1.32+"));
}
END_TEST

START_TEST(test_pfrun_read)
{
	struct pfrun r;
	struct buf spec = BUF_INIT, bad = BUF_INIT;
	struct buf mem[2];
	char *paths[2] = { ml_prod, bad_name };
	char *missing[1];
	struct err e = ERR_INIT;

	ck_assert_int_eq(fs_read_file(&spec, "specs/ml-prod.yaml", 1 << 20, &e), 0);
	/* a valid intent: planned */
	pfrun_init(&r);
	ck_assert_int_eq(pfrun_read(&r, paths, NULL, 1, NULL), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert(r.files[0].have_plan);
	ck_assert_uint_eq(r.d.errors, 0);
	pfrun_release(&r);
	/* of another cluster than the one reconciled: invalid, at its name */
	pfrun_init(&r);
	mem[0] = spec;
	ck_assert_int_eq(pfrun_read(&r, paths, mem, 1, "other"), PFRUN_INVALID);
	ck_assert(has_diag(&r.d, "this intent describes cluster 'ml-prod', "
				 "not 'other'"));
	/* only that: nothing of the plan (it ran through pipeline_run) */
	ck_assert_uint_eq(r.d.nr, 1);
	ck_assert(!r.files[0].have_plan);
	pfrun_release(&r);
	/* another cluster's intent whose plan warns (spot-to-spot): its
	 * intent's warnings, not the plan's (as before it was planned) */
	{
		char *mig[1] = { research_mig };
		pfrun_init(&r);
		ck_assert_int_eq(pfrun_read(&r, mig, NULL, 1, "other"),
				 PFRUN_INVALID);
		ck_assert(has_diag(&r.d, "not 'other'"));
		ck_assert(has_diag(&r.d, "gang of 2 pods"));
		ck_assert(!has_diag(&r.d, "spot-to-spot"));
		pfrun_release(&r);
		pfrun_init(&r);
		ck_assert_int_eq(pfrun_read(&r, mig, NULL, 1, NULL), 0);
		ck_assert(has_diag(&r.d, "spot-to-spot"));
		pfrun_release(&r);
	}
	/* an invalid one next to a valid one: invalid, nothing planned for it */
	buf_adds(&bad, "apiVersion: gpuform.io/v1alpha1\nkind: Nope\n");
	mem[1] = bad;
	pfrun_init(&r);
	ck_assert_int_eq(pfrun_read(&r, paths, mem, 2, NULL), PFRUN_INVALID);
	ck_assert(r.files[0].have_plan);
	ck_assert(!r.files[1].have_plan);
	ck_assert_uint_gt(r.d.errors, 0);
	pfrun_release(&r);
	/* a file that cannot be read: unreadable, said so */
	missing[0] = xasprintf("%s/none.yaml", tmp);
	pfrun_init(&r);
	ck_assert_int_eq(pfrun_read(&r, missing, NULL, 1, NULL),
			 PFRUN_UNREADABLE);
	ck_assert_uint_eq(r.d.errors, 1);
	pfrun_release(&r);
	free(missing[0]);
	buf_release(&spec);
	buf_release(&bad);
	err_release(&e);
}
END_TEST

START_TEST(test_pfrun_ask)
{
	struct pfrun r;
	struct aws_fake f;
	char *paths[1] = { ml_prod };
	struct err e = ERR_INIT;
	size_t denied = 0;

	/* no credentials: it cannot check, about no file */
	pfrun_init(&r);
	ck_assert_int_eq(pfrun_read(&r, paths, NULL, 1, NULL), 0);
	ck_assert_int_eq(pfrun_ask(&r, "us-west-2", "1.32", 0, &e), -1);
	ck_assert_ptr_null(r.failed_path);
	pfrun_release(&r);
	err_clear(&e);
	/* every question refused (AccessDenied): warnings naming the
	 * permission, no error, one request per question */
	setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
	pfrun_init(&r);
	aws_fake_init(&f, &r.aws);
	aws_fake_on(&f, NULL, "ssm", NULL, 400,
		    "{\"__type\":\"AccessDeniedException\",\"message\":\"no\"}", 0);
	aws_fake_on(&f, NULL, "sqs", NULL, 400,
		    "{\"__type\":\"AccessDenied\",\"message\":\"no\"}", 0);
	aws_fake_on(&f, NULL, "ec2", NULL, 403,
		    "<Response><Errors><Error><Code>UnauthorizedOperation"
		    "</Code><Message>no</Message></Error></Errors></Response>", 0);
	ck_assert_int_eq(pfrun_read(&r, paths, NULL, 1, NULL), 0);
	ck_assert_msg(pfrun_ask(&r, "us-west-2", "1.32", 0, &e) == 0, "%s",
		      err_msg(&e));
	ck_assert_str_eq(r.aws.creds.source, "environment");
	ck_assert_uint_eq(r.f.counts[LINT_ERROR], 0);
	for (size_t i = 0; i < r.f.nr; i++)
		denied += strstr(r.f.items[i].msg, "could not check") != NULL;
	ck_assert_uint_gt(denied, 0);
	ck_assert_uint_gt(f.requests, 0);
	/* an answer that is no answer: cannot check, about this file */
	pfrun_release(&r);
	aws_fake_release(&f);
	pfrun_init(&r);
	aws_fake_init(&f, &r.aws);
	aws_fake_on(&f, NULL, "", NULL, 200, "{}", 0);
	ck_assert_int_eq(pfrun_read(&r, paths, NULL, 1, NULL), 0);
	ck_assert_int_eq(pfrun_ask(&r, "us-west-2", "1.32", 0, &e), -1);
	ck_assert_str_eq(r.failed_path, "specs/ml-prod.yaml");
	pfrun_release(&r);
	aws_fake_release(&f);
	err_release(&e);
}
END_TEST

/* ---- reconcile/unattended.c ------------------------------------------------ */

static int warned;
static char warned_what[64];
static void count_warn(void *ctx, const char *what, const struct err *e)
{
	(void)ctx;
	(void)e;
	warned++;
	snprintf(warned_what, sizeof(warned_what), "%s", what);
}

START_TEST(test_unattended)
{
	struct kube_fake *f = kube_fake_new();
	struct kube *k = kube_fake_client(f);
	struct lease a = LEASE_INIT, b = LEASE_INIT;
	struct unattended_lock ua = { 0 }, ub = { 0 };
	struct unattended_report rep = { 0 };
	struct recon_report rr = RECON_REPORT_INIT;
	struct err e = ERR_INIT;
	struct buf text = BUF_INIT;
	char *metrics = xasprintf("%s/m.prom", tmp);

	ua.cluster = ub.cluster = "c1";
	ua.identity = "host/1";
	ub.identity = "host/2";
	ua.run_timeout_ms = 300000;
	ub.duration_s = 30;
	/* free: taken, for the run timeout + 60 s */
	ck_assert_int_eq(unattended_lock(&a, k, &ua, &e), 0);
	ck_assert_int_eq(ua.duration_used, 360);
	ck_assert_ptr_nonnull(kube_fake_find(f, "Lease", "gpuform-system",
					     "gpuform-c1"));
	/* held by a live run: 1, the holder and its times */
	ck_assert_int_eq(unattended_lock(&b, k, &ub, &e), 1);
	ck_assert_str_eq(b.holder, "host/1");
	ck_assert_int_eq(strlen(ub.renewed), 20);
	ck_assert_int_eq(ub.renewed[19], 'Z');
	ck_assert_int_eq(strlen(ub.until), 20);
	{
		cJSON *j = unattended_locked_json(&b, &ub);
		char *txt = cJSON_PrintUnformatted(j);
		ck_assert_ptr_nonnull(strstr(txt, "\"cluster\":\"c1\",\"locked\":"
					     "{\"lease\":\"gpuform-c1\",\"namespace\":"
					     "\"gpuform-system\",\"holder\":\"host/1\""));
		cJSON_free(txt);
		cJSON_Delete(j);
	}
	/* the report: Events and status on the inventory, the lease
	 * released, metrics written */
	{
		cJSON *cm = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":"
					"\"ConfigMap\",\"metadata\":{\"name\":"
					"\"gpuform-c1\",\"namespace\":"
					"\"gpuform-system\"}}");
		kube_fake_put(f, cm, NULL);
		cJSON_Delete(cm);
	}
	rr.counts[RA_CREATED] = 2;
	rep.cluster = "c1";
	rep.identity = "host/1";
	rep.rep = &rr;
	rep.events = 1;
	rep.metrics_file = metrics;
	rep.start = lease_now();
	rep.warn = count_warn;
	warned = 0;
	ck_assert_int_eq(unattended_finish(&a, k, &rep), 0);
	ck_assert_int_eq(warned, 0);
	ck_assert_int_gt(kube_fake_count(f, "CREATE Event gpuform-system/"), 0);
	ck_assert_int_eq(kube_fake_count(f, "PATCH ConfigMap gpuform-system/gpuform-c1"), 1);
	ck_assert_int_eq(fs_read_file(&text, metrics, 1 << 20, &e), 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&text),
				     "gpuform_runs_total{cluster=\"c1\","
				     "result=\"success\"} 1"));
	/* released: another run takes it now */
	lease_dispose(&b);
	b = (struct lease)LEASE_INIT;
	ck_assert_int_eq(unattended_lock(&b, k, &ub, &e), 0);
	/* the status patch refused: said so, and the lease still released */
	kube_fake_fail(f, FAKE_PATCH, 0, "ConfigMap", ERR_AUTH, "forbidden");
	warned = 0;
	ck_assert_int_eq(unattended_finish(&b, k, &rep), 1);
	ck_assert_str_eq(warned_what, "reporting to the cluster");
	ck_assert_ptr_null(b.obj);
	/* a locked-out run publishes nothing; a metrics file that cannot be
	 * written is one failure */
	rep.locked_out = 1;
	rep.rep = NULL;
	rep.metrics_file = "/nonexistent-dir/m.prom";
	warned = 0;
	ck_assert_int_eq(unattended_finish(&b, NULL, &rep), 1);
	ck_assert_str_eq(warned_what, "metrics");
	/* a default lock forbidden: the error says how to run without it */
	kube_fake_fail(f, FAKE_GET, 0, "Lease", ERR_AUTH, "leases is forbidden");
	ua.lock_default = 1;
	lease_dispose(&a);
	a = (struct lease)LEASE_INIT;
	ck_assert_int_eq(unattended_lock(&a, k, &ua, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "pass --no-lock"));
	lease_dispose(&a);
	lease_dispose(&b);
	buf_release(&text);
	err_release(&e);
	free(metrics);
	kube_free(k);
}
END_TEST

/* ---- reconcile/doctorrun.c (and ctlread.c) ------------------------------------------------- */

START_TEST(test_doctorrun)
{
	struct kube_fake *f = kube_fake_new();
	struct kube *k = kube_fake_client(f);
	struct tmpl_set *ts = NULL;
	struct ctlread lr = CTLREAD_INIT;
	struct diags d = DIAGS_INIT;
	struct err e = ERR_INIT;
	char *paths[1] = { ml_prod };
	cJSON *dep = cJSON_Parse(
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
		"\"metadata\":{\"name\":\"karpenter\",\"namespace\":\"karpenter\"},"
		"\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
		"\"controller\",\"image\":\"public.ecr.aws/karpenter/controller:"
		"1.6.2\",\"env\":[{\"name\":\"FEATURE_GATES\",\"value\":"
		"\"NodeRepair=true\"}]}]}}}}");

	ck_assert_int_eq(tmpl_set_load(&ts, NULL, &e), 0);
	kube_fake_serve(f, "apps/v1", "Deployment", "deployments", 1);
	kube_fake_put(f, dep, NULL); /* stored: a copy */
	/* what runs: Karpenter found in its second namespace, Kueue not */
	ck_assert_int_eq(ctlread_read(k, &lr, &e), 0);
	ck_assert_str_eq(lr.l.karpenter.where, "Deployment karpenter/karpenter");
	ck_assert_str_eq(lr.l.karpenter.image,
			 "public.ecr.aws/karpenter/controller:1.6.2");
	ck_assert_str_eq(lr.l.feature_gates, "NodeRepair=true");
	ck_assert_ptr_null(lr.l.kueue.where);
	ctlread_release(&lr);
	/* a kind the render has that is not served: one finding with the fix */
	ck_assert_int_eq(doctorrun_run(k, paths, 1, ts, &d, &e), 0);
	ck_assert(!has_diag(&d, "is not served"));
	diags_release(&d);
	kube_fake_unserve(f, "karpenter.sh/v1", "NodePool");
	ck_assert_int_eq(doctorrun_run(k, paths, 1, ts, &d, &e), 0);
	ck_assert(has_diag(&d, "karpenter.sh/v1 NodePool is not served"));
	diags_release(&d);
	/* a failure to read: -1, the error says what */
	kube_fake_fail(f, FAKE_GET, 0, "Deployment", ERR_HTTP, "boom");
	ck_assert_int_eq(doctorrun_run(k, paths, 1, ts, &d, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "boom"));
	diags_release(&d);
	err_release(&e);
	cJSON_Delete(dep);
	tmpl_set_free(ts);
	kube_free(k);
}
END_TEST

/* ---- reconcile/advrun.c ---------------------------------------------------- */

START_TEST(test_advrun_read_and_token)
{
	struct advrun a;
	struct diags d = DIAGS_INIT;
	struct err e = ERR_INIT;
	char *paths[2];

	/* an invalid and an unreadable intent: reported together */
	memset(&a, 0, sizeof(a));
	paths[0] = write_tmp("bad.yaml", "kind: [\n");
	paths[1] = xasprintf("%s/none.yaml", tmp);
	ck_assert_int_eq(advrun_read(&a, paths, 2, &d, &e), -1);
	ck_assert_int_eq(e.code, ERR_IO);
	ck_assert_str_eq(err_msg(&e), "nothing was asked or written");
	ck_assert_uint_ge(d.errors, 2);
	advrun_release(&a);
	diags_release(&d);
	err_clear(&e);
	free(paths[0]);
	free(paths[1]);
	/* a valid one */
	memset(&a, 0, sizeof(a));
	paths[0] = ml_prod;
	ck_assert_int_eq(advrun_read(&a, paths, 1, &d, &e), 0);
	ck_assert_uint_eq(d.errors, 0);
	ck_assert_ptr_nonnull(a.obs[0]);
	/* the token: one line, trailing whitespace dropped */
	a.token_file = write_tmp("tok", "abc.def\n\n");
	ck_assert_int_eq(advrun_token(&a, &e), 0);
	ck_assert_str_eq(a.prom.token, "abc.def");
	free((char *)a.token_file);
	/* two lines, or empty: an error naming the file, never the token */
	buf_reset(&a.token);
	a.token_file = write_tmp("tok2", "secret1\nsecret2\n");
	ck_assert_int_eq(advrun_token(&a, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "control character"));
	ck_assert_ptr_null(strstr(err_msg(&e), "secret"));
	err_clear(&e);
	free((char *)a.token_file);
	buf_reset(&a.token);
	a.token_file = write_tmp("tok3", " \n");
	ck_assert_int_eq(advrun_token(&a, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "the token file is empty"));
	free((char *)a.token_file);
	advrun_release(&a);
	diags_release(&d);
	err_release(&e);
}
END_TEST

START_TEST(test_advrun_parse_and_format)
{
	struct advrun a;
	struct diags d = DIAGS_INIT;
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	char *paths[1] = { ml_prod };
	long w = 0;
	long long at = 0;

	ck_assert_int_eq(advrun_parse_window("14d", &w), 0);
	ck_assert_int_eq(w, 14 * 86400);
	ck_assert_int_eq(advrun_parse_window("336h", &w), 0);
	ck_assert_int_eq(w, 336 * 3600);
	ck_assert_int_eq(advrun_parse_window("401d", &w), -1);
	ck_assert_int_eq(advrun_parse_window("0d", &w), -1);
	ck_assert_int_eq(advrun_parse_window("xd", &w), -1);
	ck_assert_int_eq(advrun_parse_at("1764547200", &at), 0);
	ck_assert_int_eq(at, 1764547200);
	ck_assert_int_eq(advrun_parse_at("2025-12-01T00:00:00Z", &at), 0);
	ck_assert_int_eq(at, 1764547200);
	ck_assert_int_eq(advrun_parse_at("yesterday", &at), -1);
	/* the report of a run with no result yet: the file named, JSON with
	 * the window */
	memset(&a, 0, sizeof(a));
	a.prom.url = "http://prom:9090";
	a.window_s = 7 * 86400;
	a.at = 1764547200;
	ck_assert_int_eq(advrun_read(&a, paths, 1, &d, &e), 0);
	advrun_format(&out, &a, ADVRUN_JSON);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "\"windowSeconds\":\t604800"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "specs/ml-prod.yaml"));
	buf_reset(&out);
	advrun_format(&out, &a, ADVRUN_MARKDOWN);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "From http://prom:9090 over "
						     "7 days before 1764547200"));
	advrun_release(&a);
	buf_release(&out);
	diags_release(&d);
	err_release(&e);
}
END_TEST

Suite *runs_suite(void)
{
	Suite *s = suite_create("runs");
	TCase *t = tcase_create("runs");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_pfrun_version);
	tcase_add_test(t, test_pfrun_read);
	tcase_add_test(t, test_pfrun_ask);
	tcase_add_test(t, test_unattended);
	tcase_add_test(t, test_doctorrun);
	tcase_add_test(t, test_advrun_read_and_token);
	tcase_add_test(t, test_advrun_parse_and_format);
	suite_add_tcase(s, t);
	return s;
}
