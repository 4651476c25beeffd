/*
 * tests/unit/test_catalog.c: Check suite for generator/catalog.c.
 *
 * Two halves: the embedded catalog (generator/catalog.tsv, linked in through
 * the build's generated embedded table) must parse and hold the classes and
 * families the renderer relies on; and the parser must reject malformed text
 * with "<file>:<line>: <problem>", leaving its output untouched.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"

Suite *catalog_suite(void);

/* ---- helpers ------------------------------------------------------------ */

static const struct cat_type *find_type(const struct catalog *c,
					const char *family, const char *name)
{
	const struct cat_type *t;
	size_t n = catalog_types_of(c, family, &t), i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static int class_has_family(const struct cat_class *cl, const char *family)
{
	size_t i;

	for (i = 0; i < cl->nfamilies; i++)
		if (!strcmp(cl->families[i], family))
			return 1;
	return 0;
}

static void assert_empty(const struct catalog *c)
{
	ck_assert_ptr_null(c->classes);
	ck_assert_ptr_null(c->families);
	ck_assert_ptr_null(c->types);
	ck_assert_ptr_null(c->text);
	ck_assert_uint_eq(c->nclasses, 0);
	ck_assert_uint_eq(c->nfamilies, 0);
	ck_assert_uint_eq(c->ntypes, 0);
}

/*
 * expect_fail: text must fail with ERR_INVALID, a message starting with
 * want_prefix ("t.tsv:3: ") and containing want_sub, and leave out empty.
 */
static void expect_fail(const char *text, const char *want_prefix,
			const char *want_sub)
{
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(catalog_parse(&c, text, strlen(text), "t.tsv", &err),
			 -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_msg(!strncmp(err_msg(&err), want_prefix,
			       strlen(want_prefix)),
		      "message '%s' does not start with '%s'", err_msg(&err),
		      want_prefix);
	ck_assert_msg(strstr(err_msg(&err), want_sub) != NULL,
		      "message '%s' does not mention '%s'", err_msg(&err),
		      want_sub);
	assert_empty(&c);
	err_release(&err);
}

/* a small valid catalog the malformed cases are variations of */
#define OK_CLASS "class\ta100\t6\tp4d,p4de\n"
#define OK_P4D "family\tp4d\ta100\ta100.40gb\t1g.5gb:7,7g.40gb:1\t0\n"
#define OK_P4DE "family\tp4de\ta100\t-\t-\t0\n"
#define OK_T1 "type\tp4d.24xlarge\tp4d\t8\t40960\t96\t1179648\t4\t32.77\tamd64\n"
#define OK_T2 "type\tp4de.24xlarge\tp4de\t8\t81920\t96\t1179648\t4\t40\tamd64\n"

/* ---- the embedded catalog ----------------------------------------------- */

START_TEST(test_builtin_parses)
{
	const struct catalog *c = catalog_builtin();

	ck_assert_ptr_nonnull(c);
	ck_assert_uint_ge(c->nclasses, 9);
	ck_assert_uint_ge(c->nfamilies, 14);
	ck_assert_uint_ge(c->ntypes, 40);
	/* parsed once: the same object every time */
	ck_assert_ptr_eq(catalog_builtin(), c);
	/* the one type Karpenter has no on-demand price for; every other
	 * type's reserved_only is 0 (parse_type zeroes it) */
	for (size_t i = 0; i < c->ntypes; i++)
		ck_assert_int_eq(c->types[i].reserved_only,
				 !strcmp(c->types[i].name, "p5e.48xlarge"));
}
END_TEST

static const struct {
	const char *name;
	int rank;
	const char *families[3]; /* NULL-terminated */
} want_classes[] = {
	/* p3 is not in Karpenter v1.14.1's instance-type table; v100 ranks
	 * lowest so that t4..l4 and t4+ do not admit p3dn.24xlarge */
	{ "v100", 0, { "p3dn", NULL } },
	{ "t4", 1, { "g4dn", NULL } },
	{ "a10g", 3, { "g5", NULL } },
	{ "l4", 4, { "g6", "gr6", NULL } },
	{ "l40s", 5, { "g6e", NULL } },
	{ "a100", 6, { "p4d", "p4de", NULL } },
	{ "h100", 7, { "p5", NULL } },
	{ "h200", 8, { "p5e", "p5en", NULL } },
	{ "b200", 9, { "p6-b200", NULL } },
};

START_TEST(test_builtin_classes)
{
	const struct catalog *c = catalog_builtin();
	size_t i, j;

	ck_assert_uint_eq(c->nclasses,
			  sizeof(want_classes) / sizeof(want_classes[0]));
	for (i = 0; i < sizeof(want_classes) / sizeof(want_classes[0]); i++) {
		const struct cat_class *cl =
			catalog_class(c, want_classes[i].name);

		ck_assert_msg(cl != NULL, "class '%s' missing",
			      want_classes[i].name);
		ck_assert_int_eq(cl->rank, want_classes[i].rank);
		for (j = 0; want_classes[i].families[j]; j++) {
			ck_assert_uint_gt(cl->nfamilies, j);
			ck_assert_str_eq(cl->families[j],
					 want_classes[i].families[j]);
		}
		ck_assert_uint_eq(cl->nfamilies, j);
	}
	ck_assert_ptr_null(catalog_class(c, "a100+"));
	ck_assert_ptr_null(catalog_class(c, "A100"));
	ck_assert_ptr_null(catalog_class(c, ""));
}
END_TEST

START_TEST(test_builtin_class_families_sane)
{
	const struct catalog *c = catalog_builtin();
	size_t i, j, k;

	for (i = 0; i < c->nclasses; i++) {
		const struct cat_class *cl = &c->classes[i];

		for (j = 0; j < cl->nfamilies; j++) {
			const struct cat_family *f =
				catalog_family(c, cl->families[j]);
			const struct cat_type *t;
			size_t n;

			ck_assert_ptr_nonnull(f);
			/* class name = Karpenter instance-gpu-name value */
			ck_assert_str_eq(f->gpu, cl->name);
			ck_assert_int_eq(f->misreports, 0);
			n = catalog_types_of(c, f->name, &t);
			ck_assert_msg(n > 0, "family '%s' has no types",
				      f->name);
			for (k = 0; k < n; k++) {
				ck_assert_int_gt(t[k].gpus, 0);
				ck_assert_int_gt(t[k].gpu_mem_mib, 0);
			}
		}
	}
}
END_TEST

START_TEST(test_builtin_l4_excludes_fractional)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_class *l4 = catalog_class(c, "l4");
	size_t i;

	ck_assert_ptr_nonnull(l4);
	ck_assert(!class_has_family(l4, "g6f"));
	ck_assert(!class_has_family(l4, "gr6f"));
	/* and no other class picks them up either */
	for (i = 0; i < c->nclasses; i++) {
		ck_assert(!class_has_family(&c->classes[i], "g6f"));
		ck_assert(!class_has_family(&c->classes[i], "gr6f"));
	}
}
END_TEST

START_TEST(test_builtin_misreports)
{
	const struct catalog *c = catalog_builtin();
	const char *bad[] = { "g6f", "gr6f" };
	size_t i, k, n;

	for (i = 0; i < 2; i++) {
		const struct cat_family *f = catalog_family(c, bad[i]);
		const struct cat_type *t;

		ck_assert_msg(f != NULL, "family '%s' missing", bad[i]);
		ck_assert_int_eq(f->misreports, 1);
		ck_assert_str_eq(f->gpu, "l4");
		n = catalog_types_of(c, bad[i], &t);
		ck_assert_uint_gt(n, 0);
		for (k = 0; k < n; k++)
			ck_assert_int_eq(t[k].gpus, 0); /* as Karpenter says */
	}
	/* only those two */
	for (i = 0, n = 0; i < c->nfamilies; i++)
		n += c->families[i].misreports != 0;
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(catalog_family(c, "p5")->misreports, 0);
	ck_assert_int_eq(find_type(c, "p5", "p5.4xlarge")->gpus, 1);
}
END_TEST

START_TEST(test_builtin_p5)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_type *t = find_type(c, "p5", "p5.48xlarge");

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->gpus, 8);
	ck_assert_int_eq(t->efa, 32);
	ck_assert_int_eq(t->gpu_mem_mib, 81920);
	ck_assert_int_eq(t->vcpu, 192);
	ck_assert_str_eq(t->family, "p5");
	ck_assert_str_eq(t->size, "48xlarge");
	ck_assert_str_eq(t->arch, "amd64");
	ck_assert(t->price > 0.0);

	t = find_type(c, "p5en", "p5en.48xlarge");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->efa, 16);
	ck_assert_int_eq(t->gpu_mem_mib, 144384);
}
END_TEST

START_TEST(test_builtin_mig)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_class *a100 = catalog_class(c, "a100");
	const struct cat_family *f;
	size_t i;

	ck_assert_ptr_nonnull(a100);
	for (i = 0; i < a100->nfamilies; i++) {
		f = catalog_family(c, a100->families[i]);
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(f->mig_model);
		ck_assert_uint_gt(f->nmig, 0);
		ck_assert_ptr_nonnull(f->mig_profiles);
	}
	f = catalog_family(c, "p4d");
	ck_assert_str_eq(f->mig_model, "a100.40gb");
	/* NVIDIA MIG user guide, A100-SXM4-40GB: 1g.10gb exists, 4 per GPU */
	ck_assert_uint_eq(f->nmig, 6);
	ck_assert_str_eq(f->mig_profiles[0], "1g.5gb");
	ck_assert_str_eq(f->mig_profiles[5], "7g.40gb");
	ck_assert_int_eq(catalog_mig_instances(f, "1g.5gb"), 7);
	ck_assert_int_eq(catalog_mig_instances(f, "1g.10gb"), 4);
	ck_assert_int_eq(catalog_mig_instances(f, "2g.10gb"), 3);
	ck_assert_int_eq(catalog_mig_instances(f, "3g.20gb"), 2);
	ck_assert_int_eq(catalog_mig_instances(f, "7g.40gb"), 1);
	ck_assert_int_eq(catalog_mig_instances(f, "1g.20gb"), 0);
	f = catalog_family(c, "p4de");
	ck_assert_str_eq(f->mig_model, "a100.80gb");
	ck_assert_str_eq(f->mig_profiles[0], "1g.10gb");
	ck_assert_int_eq(catalog_mig_instances(f, "1g.10gb"), 7);
	ck_assert_int_eq(catalog_mig_instances(f, "1g.20gb"), 4);
	ck_assert_int_eq(catalog_mig_instances(f, "1g.5gb"), 0);
	ck_assert_int_eq(catalog_mig_instances(catalog_family(c, "p5"),
					       "1g.20gb"), 4);
	ck_assert_int_eq(catalog_mig_instances(catalog_family(c, "p5e"),
					       "1g.18gb"), 7);
	ck_assert_int_eq(catalog_mig_instances(catalog_family(c, "p6-b200"),
					       "1g.23gb"), 7);
	ck_assert_str_eq(catalog_family(c, "p5")->mig_model, "h100.80gb");
	ck_assert_str_eq(catalog_family(c, "p5e")->mig_model, "h200.141gb");
	ck_assert_str_eq(catalog_family(c, "p5en")->mig_model, "h200.141gb");

	/* no MIG below the A100 */
	{
		const char *none[] = { "g4dn", "gr6", "p3dn", "g5",
				       "g6", "g6e", "g6f", "gr6f" };

		for (i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
			f = catalog_family(c, none[i]);
			ck_assert_msg(f != NULL, "family '%s' missing",
				      none[i]);
			ck_assert_ptr_null(f->mig_model);
			ck_assert_ptr_null(f->mig_profiles);
			ck_assert_uint_eq(f->nmig, 0);
		}
	}
}
END_TEST

START_TEST(test_builtin_types_ordered)
{
	const struct catalog *c = catalog_builtin();
	size_t i;

	/* within a family: ascending size, here measured by vCPU */
	for (i = 1; i < c->ntypes; i++)
		if (!strcmp(c->types[i].family, c->types[i - 1].family))
			ck_assert_msg(c->types[i].vcpu > c->types[i - 1].vcpu,
				      "'%s' after '%s'", c->types[i].name,
				      c->types[i - 1].name);
	for (i = 0; i < c->ntypes; i++) {
		ck_assert_ptr_nonnull(catalog_family(c, c->types[i].family));
		ck_assert(c->types[i].price > 0.0);
		ck_assert_int_gt(c->types[i].mem_mib, 0);
	}
}
END_TEST

/* pod density data: Karpenter's ENI-limited max pods, per type */
START_TEST(test_builtin_eni)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_type *t;
	size_t n;

	/* every type has its ENI data */
	for (size_t i = 0; i < c->ntypes; i++)
		ck_assert_msg(catalog_max_pods(&c->types[i]) > 0,
			      "'%s' has no eni record", c->types[i].name);
	/* the example and the Karpenter v1.14.1 table's pods */
	n = catalog_types_of(c, "g4dn", &t);
	ck_assert_uint_eq(n, 7);
	ck_assert_str_eq(t[0].name, "g4dn.xlarge");
	ck_assert_int_eq(t[0].enis, 3);
	ck_assert_int_eq(t[0].ipv4_per_eni, 10);
	ck_assert_int_eq(catalog_max_pods(&t[0]), 29);
	ck_assert_int_eq(catalog_max_pods(&t[6]), 737); /* g4dn.metal */
	n = catalog_types_of(c, "p5", &t);
	ck_assert_int_eq(catalog_max_pods(&t[1]), 100); /* p5.48xlarge */
	n = catalog_types_of(c, "g5", &t);
	ck_assert_int_eq(catalog_max_pods(&t[0]), 58);
	/* network cards: one EFA device per card on every multi-card EFA
	 * type (Karpenter v1.14.1 zz_generated.vpclimits.go vs the table) */
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->types[i].cards)
			ck_assert_msg(c->types[i].cards == c->types[i].efa &&
					      c->types[i].card0_ifaces >= 2,
				      "'%s': %d cards, %d EFA",
				      c->types[i].name, c->types[i].cards,
				      c->types[i].efa);
	n = catalog_types_of(c, "p5", &t);
	ck_assert_int_eq(t[1].cards, 32);
	ck_assert_int_eq(t[0].cards, 0); /* p5.4xlarge: one card, no record */
	n = catalog_types_of(c, "p5en", &t);
	ck_assert_int_eq(t[0].cards, 16);
	ck_assert_int_eq(t[0].card0_ifaces, 4);
}
END_TEST

/* Bottlerocket: the first release of each feature, and the comparison */
START_TEST(test_builtin_releases)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_release *r;

	r = catalog_release_of(c, "bottlerocket", "timeslicing");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->first, "1.25.0");
	r = catalog_release_of(c, "bottlerocket", "mig");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->first, "1.34.0");
	ck_assert_str_eq(r->source, "bottlerocket#4418");
	r = catalog_release_of(c, "bottlerocket", "gpu:b200");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->first, "1.38.0");
	ck_assert_ptr_null(catalog_release_of(c, "bottlerocket", "gpu:h100"));
	ck_assert_ptr_null(catalog_release_of(c, "al2023", "mig"));

	ck_assert_int_lt(catalog_version_cmp("v1.33.9", "1.34.0"), 0);
	ck_assert_int_eq(catalog_version_cmp("v1.34.0", "1.34.0"), 0);
	ck_assert_int_gt(catalog_version_cmp("1.34.1", "1.34.0"), 0);
	ck_assert_int_gt(catalog_version_cmp("v1.100.0", "1.34.0"), 0);
	ck_assert_int_lt(catalog_version_cmp("v1.9.0", "1.25.0"), 0);
	ck_assert_int_gt(catalog_version_cmp("v2.0.0", "1.38.0"), 0);
}
END_TEST

START_TEST(test_types_of)
{
	const struct catalog *c = catalog_builtin();
	const struct cat_type *t = NULL;
	size_t n, i;

	n = catalog_types_of(c, "g5", &t);
	ck_assert_uint_eq(n, 8);
	ck_assert_str_eq(t[0].name, "g5.xlarge");
	ck_assert_str_eq(t[0].size, "xlarge");
	ck_assert_str_eq(t[7].name, "g5.48xlarge");
	ck_assert_int_eq(t[7].gpus, 8);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(t[i].family, "g5");
		ck_assert_int_eq(t[i].gpu_mem_mib, 22888);
	}

	n = catalog_types_of(c, "g4dn", &t);
	ck_assert_uint_eq(n, 7);
	ck_assert_str_eq(t[6].name, "g4dn.metal");
	ck_assert_str_eq(t[6].size, "metal");

	n = catalog_types_of(c, "p6-b200", &t);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(t[0].size, "48xlarge");
	ck_assert_int_eq(t[0].efa, 8);

	/* g6 must not swallow g6e/g6f (prefix match would) */
	n = catalog_types_of(c, "g6", &t);
	ck_assert_uint_eq(n, 8);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(t[i].family, "g6");

	t = &c->types[0]; /* must be reset to NULL */
	ck_assert_uint_eq(catalog_types_of(c, "nope", &t), 0);
	ck_assert_ptr_null(t);
	ck_assert_ptr_null(catalog_family(c, "nope"));
	ck_assert_ptr_null(catalog_family(c, "g"));
}
END_TEST

/* ---- the parser on small inputs ----------------------------------------- */

START_TEST(test_parse_small)
{
	const char *text = "# comment\r\n"
			   "\n"
			   "   \t\n" OK_CLASS OK_P4D OK_T1 OK_P4DE
			   "type\tp4de.24xlarge\tp4de\t8\t81920\t96\t1179648\t4\t40.5\tarm64\r\n"
			   "# trailing comment without newline";
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;
	const struct cat_type *t;
	const struct cat_family *f;

	ck_assert_int_eq(catalog_parse(&c, text, strlen(text), "t.tsv", &err),
			 0);
	ck_assert_int_eq(err.code, ERR_NONE);
	ck_assert_uint_eq(c.nclasses, 1);
	ck_assert_uint_eq(c.nfamilies, 2);
	ck_assert_uint_eq(c.ntypes, 2);
	ck_assert_str_eq(c.classes[0].name, "a100");
	ck_assert_int_eq(c.classes[0].rank, 6);
	ck_assert_uint_eq(c.classes[0].nfamilies, 2);
	ck_assert_str_eq(c.classes[0].families[1], "p4de");

	f = catalog_family(&c, "p4d");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->gpu, "a100");
	ck_assert_str_eq(f->mig_model, "a100.40gb");
	ck_assert_uint_eq(f->nmig, 2);
	ck_assert_str_eq(f->mig_profiles[1], "7g.40gb");
	f = catalog_family(&c, "p4de");
	ck_assert_ptr_null(f->mig_model);
	ck_assert_uint_eq(f->nmig, 0);

	ck_assert_uint_eq(catalog_types_of(&c, "p4de", &t), 1);
	ck_assert_str_eq(t->name, "p4de.24xlarge");
	ck_assert_str_eq(t->size, "24xlarge");
	ck_assert_str_eq(t->arch, "arm64"); /* CR stripped */
	ck_assert_double_eq_tol(t->price, 40.5, 1e-9);
	ck_assert_uint_eq(catalog_types_of(&c, "p4d", &t), 1);
	ck_assert_double_eq_tol(t->price, 32.77, 1e-9);
	ck_assert_int_eq(t->mem_mib, 1179648);

	/* strings point into the private copy, not into the caller's text */
	ck_assert(c.classes[0].name >= c.text &&
		  c.classes[0].name < c.text + strlen(text));

	catalog_release(&c);
	assert_empty(&c);
	catalog_release(&c); /* released twice is harmless */
	err_release(&err);
}
END_TEST

START_TEST(test_parse_empty)
{
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(catalog_parse(&c, "", 0, "t.tsv", &err), 0);
	ck_assert_uint_eq(c.nclasses + c.nfamilies + c.ntypes, 0);
	catalog_release(&c);
	err_release(&err);
}
END_TEST

START_TEST(test_parse_not_nul_terminated)
{
	/* len is honoured: the text after it is never read */
	const char text[] = OK_P4DE "garbage";
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(catalog_parse(&c, text, strlen(OK_P4DE), "t.tsv",
				       &err),
			 0);
	ck_assert_uint_eq(c.nfamilies, 1);
	catalog_release(&c);
	err_release(&err);
}
END_TEST

START_TEST(test_fail_column_count)
{
	expect_fail("# x\nclass\ta100\t6\n", "t.tsv:2: ", "columns");
	expect_fail(OK_P4DE "family\tp4d\ta100\t-\t-\t0\textra\n", "t.tsv:2: ",
		    "columns");
	expect_fail(OK_P4DE
		    "type\tp4de.24xlarge\tp4de\t8\t81920\t96\t1179648\t4\t40\n",
		    "t.tsv:2: ", "want 10");
}
END_TEST

START_TEST(test_fail_unknown_family_in_class)
{
	/* found only after the whole file is read: reported at the class */
	expect_fail(OK_P4D "class\ta100\t6\tp4d,p4x\n" OK_T1, "t.tsv:2: ",
		    "'p4x'");
}
END_TEST

START_TEST(test_fail_unknown_family_in_type)
{
	expect_fail(OK_P4D OK_T1
		    "type\tp4x.24xlarge\tp4x\t8\t40960\t96\t1\t4\t1\tamd64\n",
		    "t.tsv:3: ", "unknown family 'p4x'");
}
END_TEST

START_TEST(test_fail_negative_number)
{
	expect_fail(OK_P4D "\n"
			   "type\tp4d.24xlarge\tp4d\t-1\t40960\t96\t1179648\t4\t32\tamd64\n",
		    "t.tsv:3: ", "'-1'");
	expect_fail("class\ta100\t-6\tp4d\n" OK_P4D, "t.tsv:1: ", "rank");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t40960\t96\t1179648\t-4\t32\tamd64\n",
		    "t.tsv:2: ", "efa");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t40960\t96\t1179648\t4\t-32\tamd64\n",
		    "t.tsv:2: ", "price");
}
END_TEST

START_TEST(test_fail_bad_numbers)
{
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8x\t40960\t96\t1179648\t4\t32\tamd64\n",
		    "t.tsv:2: ", "gpus");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t99999999999\t1\t96\t1\t4\t32\tamd64\n",
		    "t.tsv:2: ", "gpus");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t1\t96\t1\t4\t1.2.3\tamd64\n",
		    "t.tsv:2: ", "price");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t1\t96\t1\t4\t1.\tamd64\n",
		    "t.tsv:2: ", "price");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t1\t96\t1\t4\t1e3\tamd64\n",
		    "t.tsv:2: ", "price");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t1\t96\t1\t4\t.5\tamd64\n",
		    "t.tsv:2: ", "price");
}
END_TEST

START_TEST(test_fail_duplicates)
{
	expect_fail(OK_P4D OK_T1 "\n" OK_T1, "t.tsv:4: ", "duplicate type");
	expect_fail(OK_P4D OK_P4D, "t.tsv:2: ", "duplicate family");
	expect_fail(OK_CLASS OK_P4D OK_P4DE OK_CLASS, "t.tsv:4: ",
		    "duplicate class");
	expect_fail("class\ta100\t6\tp4d,p4d\n" OK_P4D, "t.tsv:1: ",
		    "twice");
}
END_TEST

START_TEST(test_fail_not_contiguous)
{
	expect_fail(OK_P4D OK_P4DE OK_T1 OK_T2
		    "type\tp4d.48xlarge\tp4d\t8\t40960\t96\t1179648\t4\t1\tamd64\n",
		    "t.tsv:5: ", "not contiguous");
}
END_TEST

START_TEST(test_fail_other)
{
	expect_fail("kind\tx\n", "t.tsv:1: ", "unknown record kind 'kind'");
	expect_fail("reservedonly\tp9.1xlarge\tsrc\n", "t.tsv:1: ",
		    "reservedonly record for unknown type 'p9.1xlarge'");
	expect_fail(OK_P4D OK_T1 "reservedonly\tp4d.24xlarge\ts\n"
		    "reservedonly\tp4d.24xlarge\ts\n", "t.tsv:4: ",
		    "duplicate reservedonly record");
	expect_fail(OK_P4D "family\tg6f\tl4\t-\t-\t2\n", "t.tsv:2: ",
		    "misreports");
	expect_fail("family\tp4d\ta100\ta100.40gb\t-\t0\n", "t.tsv:1: ",
		    "MIG");
	expect_fail("family\tp4d\ta100\t-\t1g.5gb\t0\n", "t.tsv:1: ", "MIG");
	expect_fail("family\tp4d\ta100\ta100.40gb\t1g.5gb,,7g.40gb\t0\n",
		    "t.tsv:1: ", "empty item");
	expect_fail("class\ta100\t6\tp4d,\n" OK_P4D, "t.tsv:1: ",
		    "empty item");
	expect_fail(OK_P4D
		    "type\tp4.24xlarge\tp4d\t8\t1\t96\t1\t4\t1\tamd64\n",
		    "t.tsv:2: ", "'p4d.<size>'");
	expect_fail(OK_P4D "type\tp4d.\tp4d\t8\t1\t96\t1\t4\t1\tamd64\n",
		    "t.tsv:2: ", "'p4d.<size>'");
	expect_fail(OK_P4D
		    "type\tp4d.24xlarge\tp4d\t8\t1\t96\t1\t4\t1\tx86_64\n",
		    "t.tsv:2: ", "arch");
	expect_fail("family\tp4d\ta100\t\t-\t0\n", "t.tsv:1: ", "empty");
	/* MIG profiles carry their instances per GPU, 1..7 */
	expect_fail("family\tp4d\ta100\ta100.40gb\t1g.5gb\t0\n", "t.tsv:1: ",
		    "needs ':N'");
	expect_fail("family\tp4d\ta100\ta100.40gb\t1g.5gb:8\t0\n",
		    "t.tsv:1: ", "needs ':N'");
	expect_fail("family\tp4d\ta100\ta100.40gb\t1g.5gb:7,1g.5gb:4\t0\n",
		    "t.tsv:1: ", "listed twice");
	/* eni records: after a known type, once, sane numbers */
	expect_fail(OK_P4D "eni\tp4d.24xlarge\t15\t50\n", "t.tsv:2: ",
		    "unknown type");
	expect_fail(OK_P4D OK_T1 "eni\tp4d.24xlarge\t15\t50\n"
			  "eni\tp4d.24xlarge\t15\t50\n",
		    "t.tsv:4: ", "duplicate eni");
	expect_fail(OK_P4D OK_T1 "eni\tp4d.24xlarge\t0\t50\n", "t.tsv:3: ",
		    "ENIs >= 1");
	expect_fail(OK_P4D OK_T1 "eni\tp4d.24xlarge\t15\n", "t.tsv:3: ",
		    "columns");
	/* nic records: the same */
	expect_fail(OK_P4D "nic\tp4d.24xlarge\t4\t15\n", "t.tsv:2: ",
		    "unknown type");
	expect_fail(OK_P4D OK_T1 "nic\tp4d.24xlarge\t4\t15\n"
			  "nic\tp4d.24xlarge\t4\t15\n",
		    "t.tsv:4: ", "duplicate nic");
	expect_fail(OK_P4D OK_T1 "nic\tp4d.24xlarge\t0\t15\n", "t.tsv:3: ",
		    "network cards (1-64)");
	expect_fail(OK_P4D OK_T1 "nic\tp4d.24xlarge\t65\t15\n", "t.tsv:3: ",
		    "network cards (1-64)");
	/* release records */
	expect_fail("release\tal2023\tmig\t1.34.0\tx#1\n", "t.tsv:1: ",
		    "only bottlerocket");
	expect_fail("release\tbottlerocket\tmps\t1.34.0\tx#1\n", "t.tsv:1: ",
		    "unknown feature");
	expect_fail("release\tbottlerocket\tmig\t1.34\tx#1\n", "t.tsv:1: ",
		    "MAJOR.MINOR.PATCH");
	expect_fail("release\tbottlerocket\tgpu:zz\t1.34.0\tx#1\n",
		    "t.tsv:1: ", "unknown GPU class");
	expect_fail("release\tbottlerocket\tmig\t1.34.0\tx#1\n"
		    "release\tbottlerocket\tmig\t1.35.0\tx#1\n",
		    "t.tsv:2: ", "duplicate release");
	expect_fail("family p4d a100 - - 0\n", "t.tsv:1: ",
		    "unknown record kind");
	expect_fail("family\tp4d \ta100\t-\t-\t0\n", "t.tsv:1: ", "space");
	expect_fail("family\tp4d\t-\t-\t-\t0\n", "t.tsv:1: ", "gpu label");
}
END_TEST

START_TEST(test_fail_nul_byte)
{
	static const char text[] = "# a\n# b\nfam\0ily\n";
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(catalog_parse(&c, text, sizeof(text) - 1, "t.tsv",
				       &err),
			 -1);
	ck_assert_str_eq(err_msg(&err), "t.tsv:3: NUL byte in catalog text");
	assert_empty(&c);
	err_release(&err);
}
END_TEST

START_TEST(test_fail_leaves_out_untouched)
{
	/* a failed parse must not clobber a catalog the caller still owns */
	const char *good = OK_P4DE;
	const char *bad = OK_P4DE OK_P4DE;
	struct catalog c = CATALOG_INIT;
	struct err err = ERR_INIT;

	ck_assert_int_eq(catalog_parse(&c, good, strlen(good), "t.tsv", &err),
			 0);
	ck_assert_int_eq(catalog_parse(&c, bad, strlen(bad), "t.tsv", &err),
			 -1);
	ck_assert_uint_eq(c.nfamilies, 1);
	ck_assert_str_eq(c.families[0].name, "p4de");
	catalog_release(&c);
	err_release(&err);
}
END_TEST

Suite *catalog_suite(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tcase_create("builtin");

	tcase_add_test(tc, test_builtin_parses);
	tcase_add_test(tc, test_builtin_classes);
	tcase_add_test(tc, test_builtin_class_families_sane);
	tcase_add_test(tc, test_builtin_l4_excludes_fractional);
	tcase_add_test(tc, test_builtin_misreports);
	tcase_add_test(tc, test_builtin_p5);
	tcase_add_test(tc, test_builtin_mig);
	tcase_add_test(tc, test_builtin_types_ordered);
	tcase_add_test(tc, test_types_of);
	tcase_add_test(tc, test_builtin_eni);
	tcase_add_test(tc, test_builtin_releases);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_small);
	tcase_add_test(tc, test_parse_empty);
	tcase_add_test(tc, test_parse_not_nul_terminated);
	tcase_add_test(tc, test_fail_column_count);
	tcase_add_test(tc, test_fail_unknown_family_in_class);
	tcase_add_test(tc, test_fail_unknown_family_in_type);
	tcase_add_test(tc, test_fail_negative_number);
	tcase_add_test(tc, test_fail_bad_numbers);
	tcase_add_test(tc, test_fail_duplicates);
	tcase_add_test(tc, test_fail_not_contiguous);
	tcase_add_test(tc, test_fail_other);
	tcase_add_test(tc, test_fail_nul_byte);
	tcase_add_test(tc, test_fail_leaves_out_untouched);
	suite_add_tcase(s, tc);
	return s;
}
