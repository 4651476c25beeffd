/*
 * tests/unit/suites.h: one Check suite per module, run by tests/unit/main.c.
 *
 * Each tests/unit/test_<mod>.c defines `Suite *<mod>_suite(void)`; the suite
 * is created as suite_create("<mod>") so that CK_RUN_SUITE=<mod> (and
 * CK_RUN_CASE=<tcase>) select it. Adding a suite: write test_<mod>.c,
 * declare its function below and add it to the table in main.c.
 */
#ifndef TESTS_UNIT_SUITES_H
#define TESTS_UNIT_SUITES_H

#include <check.h>

Suite *util_suite(void);    /* test_util.c: util/ (buf, err, diag, fs, xalloc, vec) */
Suite *yaml_suite(void);    /* test_yaml.c: generator/yaml.c */
Suite *catalog_suite(void); /* test_catalog.c: generator/catalog */

/*
 * ---- more suites go here ----
 * (intent_suite, validate_suite, plan_suite, tmpl_suite, render_suite, ...
 * once their test_<mod>.c exists; also add them to main.c)
 */

#endif
