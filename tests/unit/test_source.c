/*
 * tests/unit/test_source.c: reconcile/source.c, the desired objects of a
 * reconcile: intent files, a directory `render -o` wrote, and a Git
 * repository (source_load_git) — here a local bare repository the test
 * commits to with git/repo.c, fetched through libgit2's local transport
 * into a cache, as reconcile --git does with a server: --path/--cluster
 * selection, the deprecated spelling, the intent of the same commit,
 * a cluster mismatch, an empty directory, a damaged cache set aside.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "generator/inputs.h"
#include "git/repo.h"
#include "reconcile/source.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

static char tmp[64];

#define INTENT_FMT \
	"apiVersion: gpuform.io/v1alpha1\n" \
	"kind: ClusterIntent\n" \
	"metadata:\n" \
	"  name: %s\n" \
	"spec:\n" \
	"  nodeRole: R\n" \
	"  ami: al2023@v20250505\n" \
	"  workloads:\n" \
	"    - name: api\n" \
	"      type: inference\n" \
	"      gpu: l4\n" \
	"      maxGpus: 4\n"

static char *write_intent(const char *cluster)
{
	char *path = xasprintf("%s/%s.yaml", tmp, cluster);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, INTENT_FMT, cluster);
	fclose(f);
	return path;
}

/* the files render -o writes for the intent of `cluster` */
static void rendered(const char *cluster, struct fs_tree *out)
{
	struct tmpl_set *t = NULL;
	struct inputs ins = INPUTS_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	char *p = write_intent(cluster);

	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	ck_assert_int_eq(inputs_render(&ins, &p, 1, t, 0, &d, &err), 0);
	*out = (struct fs_tree)FS_TREE_INIT;
	ck_assert_int_eq(inputs_tree(&ins, t, RENDER_YAML, 0, out, &err), 0);
	inputs_release(&ins);
	tmpl_set_free(t);
	diags_release(&d);
	err_release(&err);
	free(p);
}

static void setup(void)
{
	strcpy(tmp, "/tmp/gpuform-unit-source.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	unsetenv("GPUFORM_GIT_USERNAME");
	unsetenv("GPUFORM_GIT_PASSWORD");
	unsetenv("GPUFORM_GIT_TOKEN");
	unsetenv("GPUFORM_GIT_CREDENTIALS");
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static int has_diag(const struct diags *d, const char *s)
{
	for (size_t i = 0; i < d->nr; i++)
		if (strstr(d->items[i].msg, s))
			return 1;
	return 0;
}

START_TEST(test_load_intents_and_dir)
{
	struct source s = SOURCE_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	struct fs_tree t;
	char *p[2] = { write_intent("alpha"), write_intent("beta") };
	char *dir = xasprintf("%s/out", tmp);

	ck_assert_int_eq(source_load(&s, p, 1, NULL, &d, &err), 0);
	ck_assert_str_eq(s.cluster, "alpha");
	ck_assert_int_gt(cJSON_GetArraySize(s.docs), 3);
	source_release(&s);

	/* the same objects from the rendered directory */
	rendered("alpha", &t);
	ck_assert_int_eq(fs_tree_write_atomic(&t, dir, RENDER_OWNER_FILE,
					      RENDER_OWNER_PREFIX, &err), 0);
	s = (struct source)SOURCE_INIT;
	ck_assert_msg(source_load(&s, &dir, 1, NULL, &d, &err) == 0, "%s",
		      err_msg(&err));
	ck_assert_str_eq(s.cluster, "alpha");
	ck_assert_str_eq(s.desc, dir);
	source_release(&s);
	fs_tree_release(&t);
	ck_assert_uint_eq(d.errors, 0);

	/* two clusters at once: refused */
	s = (struct source)SOURCE_INIT;
	ck_assert_int_eq(source_load(&s, p, 2, NULL, &d, &err), -1);
	source_release(&s);
	err_clear(&err);

	/* a directory without gpuform's kustomization.yaml */
	s = (struct source)SOURCE_INIT;
	{
		char *plain = xstrdup(tmp);
		ck_assert_int_eq(source_load(&s, &plain, 1, NULL, &d, &err), -1);
		ck_assert_msg(strstr(err_msg(&err), "no kustomization.yaml"),
			      "%s", err_msg(&err));
		free(plain);
	}
	source_release(&s);
	free(p[0]);
	free(p[1]);
	free(dir);
	diags_release(&d);
	err_release(&err);
}
END_TEST

/* ---- from Git --------------------------------------------------------------- */

static char *origin, *cache;
static char tip[REPO_OID_HEX];
static char first[REPO_OID_HEX]; /* git_setup's first commit */

/* commit `files` at `path` of the origin's main */
static void origin_commit(const char *path, const struct fs_tree *files)
{
	struct repo *r = NULL;
	struct repo_subtree sub = { path, files };
	struct repo_commit c = { "main", &sub, 1, "test\n", "T",
				 "t@example.com" };
	struct err err = ERR_INIT;
	int changed;

	ck_assert_int_eq(repo_init_bare(&r, origin, &err), 0);
	ck_assert_msg(repo_commit_tree(r, &c, tip, &changed, &err) == 0, "%s",
		      err_msg(&err));
	repo_free(r);
	err_release(&err);
}

static void git_setup(void)
{
	struct fs_tree t, in = FS_TREE_INIT;
	char *text = xasprintf(INTENT_FMT, "alpha");

	setup();
	origin = xasprintf("%s/origin.git", tmp);
	cache = xasprintf("%s/cache", tmp);
	rendered("alpha", &t);
	origin_commit("clusters/alpha", &t);
	memcpy(first, tip, REPO_OID_HEX);
	origin_commit("clusters/gamma", &t); /* alpha's objects under gamma */
	fs_tree_add(&in, "alpha.yaml", text, strlen(text));
	origin_commit("intents", &in);
	fs_tree_release(&t);
	fs_tree_release(&in);
}

static void git_teardown(void)
{
	free(origin);
	free(cache);
	teardown();
}

struct gload {
	struct source s;
	struct diags d;
	struct err err;
	int usage;
};

static int gload(struct gload *x, const char *path, const char *cluster,
		 const char *intent)
{
	struct source_git g = { origin, NULL, path, cluster, intent, cache };

	x->s = (struct source)SOURCE_INIT;
	x->d = (struct diags)DIAGS_INIT;
	x->err = (struct err)ERR_INIT;
	x->usage = -1;
	return source_load_git(&x->s, &g, &x->usage, &x->d, &x->err);
}

static void gload_release(struct gload *x)
{
	source_release(&x->s);
	diags_release(&x->d);
	err_release(&x->err);
}

START_TEST(test_git_cluster)
{
	struct gload x;

	ck_assert_msg(gload(&x, NULL, "alpha", "intents/alpha.yaml") == 0, "%s",
		      err_msg(&x.err));
	ck_assert_int_eq(x.usage, 0);
	ck_assert_str_eq(x.s.cluster, "alpha");
	ck_assert_str_eq(x.s.commit, tip); /* the fetched tip */
	ck_assert_ptr_nonnull(strstr(x.s.desc, " main:clusters/alpha"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&x.s.intent), "name: alpha"));
	ck_assert_int_gt(cJSON_GetArraySize(x.s.docs), 3);
	gload_release(&x);
	/* again: the cache is reused */
	ck_assert_int_eq(gload(&x, "./clusters/", "alpha", NULL), 0);
	ck_assert_uint_eq(x.d.nr, 0);
	gload_release(&x);
}
END_TEST

static const struct {
	const char *path, *cluster, *intent;
	int usage;
	enum err_code code;
	const char *msg;
} git_bad[] = {
	{ NULL, "beta", NULL, 0, ERR_NOTFOUND, "has nothing under 'clusters/beta'" },
	{ NULL, NULL, NULL, 1, ERR_INVALID, "--git needs --cluster NAME" },
	{ "clusters/alpha", "alpha", NULL, 1, ERR_INVALID,
	  "drop '/alpha' from --path (--path clusters --cluster alpha)" },
	{ "clusters/alpha", "other", NULL, 1, ERR_INVALID,
	  "is one cluster's directory and --cluster 'other' is given too" },
	{ NULL, "gamma", NULL, 0, ERR_INVALID,
	  "holds the objects of cluster 'alpha', not 'gamma'" },
	{ NULL, "alpha", "intents/none.yaml", 0, ERR_NOTFOUND,
	  "has no intent file 'intents/none.yaml'" },
};

START_TEST(test_git_refusals)
{
	struct gload x;

	ck_assert_int_eq(gload(&x, git_bad[_i].path, git_bad[_i].cluster,
			       git_bad[_i].intent), -1);
	ck_assert_int_eq(x.usage, git_bad[_i].usage);
	ck_assert_int_eq(x.err.code, git_bad[_i].code);
	ck_assert_msg(strstr(err_msg(&x.err), git_bad[_i].msg), "%s",
		      err_msg(&x.err));
	gload_release(&x);
}
END_TEST

START_TEST(test_git_deprecated_path)
{
	struct gload x;

	ck_assert_int_eq(gload(&x, "clusters/alpha", NULL, NULL), 0);
	ck_assert_str_eq(x.s.cluster, "alpha");
	ck_assert(has_diag(&x.d, "--path clusters/alpha names one cluster's "
				 "directory: that spelling is deprecated; use "
				 "--path clusters --cluster alpha"));
	gload_release(&x);
}
END_TEST

START_TEST(test_git_damaged_cache)
{
	struct gload x;
	char *cmd;

	ck_assert_int_eq(gload(&x, NULL, "alpha", NULL), 0);
	gload_release(&x);
	/* truncate the cache's pack (a local fetch stores one) */
	cmd = xasprintf("f=$(find '%s/objects/pack' -name '*.pack' | head -n 1) "
			"&& [ -n \"$f\" ] && chmod u+w \"$f\" && head -c 100 "
			"\"$f\" >\"$f.t\" && mv \"$f.t\" \"$f\"",
			cache);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_msg(gload(&x, NULL, "alpha", NULL) == 0, "%s",
		      err_msg(&x.err));
	ck_assert(has_diag(&x.d, "was damaged"));
	ck_assert(has_diag(&x.d, "fetched again"));
	ck_assert_str_eq(x.s.commit, tip);
	gload_release(&x);
}
END_TEST

START_TEST(test_git_unreachable)
{
	struct gload x;

	free(origin);
	origin = xasprintf("%s/no-such.git", tmp);
	ck_assert_int_eq(gload(&x, NULL, "alpha", NULL), -1);
	ck_assert_int_eq(x.usage, 0);
	gload_release(&x);
}
END_TEST

/* reconcile --git's history rule: the applied commit must descend from the
 * inventory's; --allow-non-ancestor turns the refusal into a warning */
START_TEST(test_git_ancestor)
{
	struct gload x;
	struct buf w = BUF_INIT;
	char *applied;

	ck_assert_int_eq(gload(&x, NULL, "alpha", NULL), 0);
	ck_assert_int_eq(source_check_ancestor(&x.s, first, NULL, 0, &w,
					       &x.err), 0);
	ck_assert_uint_eq(w.len, 0);
	/* as if the branch went back to its first commit */
	applied = x.s.commit;
	x.s.commit = xstrdup(first);
	ck_assert_int_eq(source_check_ancestor(&x.s, applied, "main", 0, &w,
					       &x.err), -1);
	ck_assert_int_eq(x.err.code, ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(&x.err), "force-pushed"));
	ck_assert_uint_eq(w.len, 0);
	err_clear(&x.err);
	ck_assert_int_eq(source_check_ancestor(&x.s, applied, "main", 1, &w,
					       &x.err), 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&w), "(--allow-non-ancestor)"));
	free(applied);
	buf_release(&w);
	gload_release(&x);
}
END_TEST

/* ---- diff --base: two revisions of the origin -------------------------------- */

/* commit intents/alpha.yaml holding text; its commit id in oid */
static void commit_intent(const char *text, char oid[REPO_OID_HEX])
{
	struct fs_tree in = FS_TREE_INIT;

	fs_tree_add(&in, "alpha.yaml", xstrdup(text), strlen(text));
	origin_commit("intents", &in);
	memcpy(oid, tip, REPO_OID_HEX);
	fs_tree_release(&in);
}

static int revs(struct source_revs *s, const char *base, const char *head,
		const char *path, int *usage, struct err *err)
{
	char *args[] = { (char *)path };
	struct source_revs init = SOURCE_REVS_INIT;

	*s = init;
	s->repo_dir = origin;
	s->base.rev = base;
	s->head.rev = head;
	if (source_revs_open(s, args, 1, usage, err) < 0)
		return -1;
	return source_revs_render(s, NULL, err);
}

START_TEST(test_revs_compare)
{
	char *v2 = xasprintf(INTENT_FMT, "alpha");
	char *p = strstr(v2, "maxGpus: 4");
	char a[REPO_OID_HEX], b[REPO_OID_HEX];
	struct source_revs s;
	struct objdiff d = OBJDIFF_INIT;
	struct addondiff ad = ADDONDIFF_INIT;
	struct err err = ERR_INIT;
	int usage;

	memcpy(a, tip, REPO_OID_HEX); /* git_setup's intents/alpha.yaml */
	p[9] = '8';
	commit_intent(v2, b);
	ck_assert_msg(revs(&s, a, b, "intents/alpha.yaml", &usage, &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_int_eq(source_revs_check(&s, &err), 0);
	ck_assert_ptr_nonnull(s.base.r[0].docs);
	ck_assert_str_eq(s.head.r[0].cluster, "alpha");
	ck_assert_uint_eq(s.head.cap.n, 1); /* the capacity model, once */
	ck_assert_int_eq(source_revs_compare(&s, &d, &ad, &err), 0);
	ck_assert_uint_gt(d.nr, 0);
	objdiff_release(&d);
	addondiff_release(&ad);
	source_revs_release(&s);
	/* the same revision twice: nothing */
	ck_assert_int_eq(revs(&s, b, b, "intents/alpha.yaml", &usage, &err), 0);
	d = (struct objdiff)OBJDIFF_INIT;
	ck_assert_int_eq(source_revs_compare(&s, &d, &ad, &err), 0);
	ck_assert_uint_eq(d.nr, 0);
	objdiff_release(&d);
	addondiff_release(&ad);
	source_revs_release(&s);
	err_release(&err);
	free(v2);
}
END_TEST

START_TEST(test_revs_refusals)
{
	char good[REPO_OID_HEX], bad[REPO_OID_HEX];
	struct source_revs s;
	struct err err = ERR_INIT;
	int usage;

	memcpy(good, tip, REPO_OID_HEX);
	/* a bare repository has no work tree to be the head */
	ck_assert_int_eq(revs(&s, good, NULL, "intents/alpha.yaml", &usage,
			      &err), -1);
	ck_assert_int_eq(usage, 1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "give --head REV"));
	source_revs_release(&s);
	err_clear(&err);
	/* on neither side */
	ck_assert_int_eq(revs(&s, good, good, "intents/none.yaml", &usage,
			      &err), 0);
	ck_assert_int_eq(source_revs_check(&s, &err), -1);
	ck_assert_int_eq(err.code, ERR_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "exists neither at base"));
	source_revs_release(&s);
	err_clear(&err);
	/* an invalid intent at the base: its diagnostics, nothing compared */
	commit_intent("apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n"
		      "metadata: {name: alpha}\nspec: {}\n", bad);
	ck_assert_int_eq(revs(&s, bad, good, "intents/alpha.yaml", &usage,
			      &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_uint_eq(s.base.failed, 1);
	ck_assert_uint_gt(s.base.d.errors, 0);
	ck_assert_uint_eq(s.head.failed, 0);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "invalid intent at base"));
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "nothing compared"));
	source_revs_release(&s);
	err_release(&err);
}
END_TEST

Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("files");
	TCase *tg = tcase_create("git");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_intents_and_dir);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tg, git_setup, git_teardown);
	tcase_add_test(tg, test_git_cluster);
	tcase_add_loop_test(tg, test_git_refusals, 0,
			    sizeof(git_bad) / sizeof(git_bad[0]));
	tcase_add_test(tg, test_git_deprecated_path);
	tcase_add_test(tg, test_git_damaged_cache);
	tcase_add_test(tg, test_git_unreachable);
	tcase_add_test(tg, test_git_ancestor);
	tcase_add_test(tg, test_revs_compare);
	tcase_add_test(tg, test_revs_refusals);
	suite_add_tcase(s, tg);
	return s;
}
