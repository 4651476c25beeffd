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
Suite *yaml_suite(void);    /* test_yaml.c: util/yaml.c */
Suite *catalog_suite(void); /* test_catalog.c: generator/catalog */
Suite *intent_suite(void);   /* test_intent.c: generator/intent.c */
Suite *validate_suite(void); /* test_validate.c: generator/validate.c */
Suite *window_suite(void);   /* test_window.c: generator/window.c */
Suite *plan_suite(void);     /* test_plan.c: generator/plan.c */
Suite *tmpl_suite(void);     /* test_tmpl.c: generator/tmpl.c */
Suite *render_suite(void);   /* test_render.c: generator/render.c, pipeline.c */
Suite *udiff_suite(void);    /* test_udiff.c: util/udiff.c */
Suite *kubeconfig_suite(void); /* test_kubeconfig.c: kube/kubeconfig.c */
Suite *check_suite(void);    /* test_crdrules.c: generator/crdrules.c */
Suite *digest_suite(void);   /* test_digest.c: util/digest.c, ApplySet id */
Suite *yaml_fuzz_regressions_suite(void); /* test_yaml.c: fuzz finds */
Suite *check_fuzz_regressions_suite(void); /* test_check.c: fuzz finds */
Suite *impact_suite(void);   /* test_impact.c: generator/impact.c */

Suite *lint_suite(void);     /* test_lint.c: generator/lint.c, lint_rules.c */
Suite *kubejson_suite(void); /* test_kubejson.c: kube/kubejson.c */
Suite *incluster_suite(void); /* test_incluster.c: install, lease, metrics, notify */
Suite *kueue_suite(void);    /* test_kueue.c: Kueue configuration vs chart */
Suite *units_suite(void);    /* test_units.c: generator/units.c */
Suite *owner_suite(void);    /* test_owner.c: reconcile/owner.c (ownership, prune) */
Suite *capacity_suite(void); /* test_capacity.c: generator/capacity.c */
Suite *preflight_suite(void); /* test_preflight.c: aws*, generator+reconcile preflight */
Suite *git_suite(void);      /* test_git.c: git/knownhosts.c, credstore.c */
Suite *helpers_suite(void);  /* test_helpers.c: util/base64, backoff, time, wipe */
Suite *kobj_suite(void);      /* test_kobj.c: generator/kobj.c */
Suite *kube_suite(void);      /* test_kube.c: kube.c on canned answers (a kube_transport), nodecount.c */
Suite *reconcile_suite(void); /* test_reconcile.c: the engine (reconcile.c, inventory.c, planner.c, apply.c, compare.c) on tests/unit/kube_fake.c */
Suite *nodeimpact_suite(void); /* test_nodeimpact.c: the node-replacement guard */
Suite *advise_suite(void);    /* test_advise.c: generator/advise.c, reconcile/prom.c */
Suite *publish_suite(void); /* test_publish.c: git/publish.c */
Suite *repo_suite(void);      /* test_repo.c: git/repo_tree.c commit and tree code, temp repo */
Suite *aws_suite(void);       /* test_aws.c: aws.c, awscreds.c on tests/unit/aws_fake.c */
Suite *objdiff_suite(void);   /* test_objdiff.c: objdiff.c, capplan.c, inputs.c */
Suite *source_suite(void);    /* test_source.c: reconcile/source.c (files, Git via a local repo) */
Suite *targets_suite(void);   /* test_targets.c: generator/targets.c */
Suite *delivery_suite(void);  /* test_delivery.c: generator/delivery.c */
Suite *doctor_suite(void);    /* test_doctor.c: generator/doctor.c, addondiff.c */
Suite *identity_suite(void); /* test_identity.c: reconcile/identity.c (which cluster) */
Suite *runs_suite(void);     /* test_runs.c: pfrun, unattended, doctorrun, advrun (issue 22) */

/*
 * ---- more suites go here ----
 * (declare the new <mod>_suite here once its test_<mod>.c exists; also
 * add it to the table in main.c)
 */

#endif
