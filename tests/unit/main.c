/*
 * tests/unit/main.c: the unit-test runner. Every module suite (suites.h)
 * runs under one SRunner in Check's default fork mode, so each test is its
 * own process and, under ASan, reports its own leaks.
 *
 * Environment (all native to Check):
 *   CK_RUN_SUITE=yaml      run one suite (CK_RUN_CASE=emit: one test case)
 *   CK_VERBOSITY=verbose   print every test, not just failures
 *   CK_FORK=no             run in-process, for gdb
 *
 * Prints Check's summary line ("100%: Checks: N, Failures: 0, Errors: 0")
 * and exits 1 when any test failed or when the selection ran no test at all
 * (a misspelt CK_RUN_SUITE must not look like success). It deliberately
 * links only module objects, never cmd/main.o.
 */
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#include "tests/unit/suites.h"

/*
 * LeakSanitizer's built-in suppressions for this runner (read only under
 * ASan): libgit2 1.5 never frees the PCRE2 match data of the regex config
 * iterator each remote lookup runs (url.*.insteadOf), a leak inside
 * third-party code that tests/git-servers/lsan.supp suppresses for the
 * shell suites; test_source.c fetches through libgit2 too.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

static Suite *(*const suites[])(void) = {
	util_suite,
	yaml_suite,
	catalog_suite,
	intent_suite,
	validate_suite,
	window_suite,
	plan_suite,
	tmpl_suite,
	render_suite,
	udiff_suite,
	kubeconfig_suite,
	check_suite,
	digest_suite,
	yaml_fuzz_regressions_suite,
	check_fuzz_regressions_suite,
	lint_suite,
	impact_suite,
	kubejson_suite,
	incluster_suite,
	kueue_suite,
	units_suite,
	owner_suite,
	preflight_suite,
	helpers_suite,
	git_suite,
	capacity_suite,
	advise_suite,
	kobj_suite,
	kube_suite,
	reconcile_suite,
	nodeimpact_suite,
	repo_suite,
	publish_suite,
	aws_suite,
	objdiff_suite,
	source_suite,
	targets_suite,
	doctor_suite,
	identity_suite,
	runs_suite,
	delivery_suite,
	/* ---- more suites go here (declare them in suites.h first) ---- */
};

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed, run;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	run = srunner_ntests_run(sr);
	srunner_free(sr);

	if (run == 0) {
		const char *s = getenv("CK_RUN_SUITE");
		const char *c = getenv("CK_RUN_CASE");
		fprintf(stderr,
			"unit: no test ran; check CK_RUN_SUITE='%s' and "
			"CK_RUN_CASE='%s' (suites are named after modules: "
			"util, yaml, catalog, ...)\n",
			s ? s : "", c ? c : "");
		return EXIT_FAILURE;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
