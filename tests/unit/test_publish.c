/*
 * tests/unit/test_publish.c: git/publish.c and reconcile/writeback.c — the
 * write-back of `gpuform commit` on temporary bare repositories (a local
 * path as the remote, no server): the directories, the --path rule, the changed-file list, the owner marker, and
 * the push race (a rejected push fetches, resets and redoes the commit on
 * the remote's tip, saying so through the callback).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "generator/pipeline.h"
#include "git/publish.h"
#include "reconcile/writeback.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

/* ---- publish_dir_path ------------------------------------------------------ */

static const struct {
	const char *in, *want; /* want NULL: refused */
} path_rows[] = {
	{ "clusters", "clusters" },
	{ "./clusters/", "clusters" },
	{ "././a/b//", "a/b" },
	{ "a//b", NULL }, /* an empty part */
	{ "a/b/", "a/b" },
	{ "", NULL },
	{ "./", NULL },
	{ "/abs", NULL },
	{ "a/../b", NULL },
	{ "a/./b", NULL },
	{ ".git", NULL },
	{ "a/.git/b", NULL },
	{ ".gitx", ".gitx" },
	{ "..a", "..a" },
};

START_TEST(test_dir_path)
{
	char *got = publish_dir_path(path_rows[_i].in);
	const char *want = path_rows[_i].want;

	ck_assert_msg(want ? got && !strcmp(got, want) : !got,
		      "'%s': got '%s', want '%s'", path_rows[_i].in,
		      got ? got : "(refused)", want ? want : "(refused)");
	free(got);
}
END_TEST

/* files: "path=content" strings, NULL-terminated */
static void tree_of(struct fs_tree *t, const char *const *files)
{
	*t = (struct fs_tree)FS_TREE_INIT;
	for (; files && *files; files++) {
		const char *eq = strchr(*files, '=');
		char *path = xstrndup(*files, (size_t)(eq - *files));

		fs_tree_add(t, path, xstrdup(eq + 1), strlen(eq + 1));
		free(path);
	}
}

START_TEST(test_changes)
{
	static const char *const old[] = { "a=1", "b=2", "c=3", NULL };
	static const char *const new[] = { "a=1", "b=x", "d=4", NULL };
	struct fs_tree o, n;
	struct buf out = BUF_INIT;
	size_t counts[3];

	tree_of(&o, old);
	tree_of(&n, new);
	publish_changes(&o, &n, &out, counts);
	ck_assert_str_eq(buf_cstr(&out), "  modified: b\n"
					 "  removed:  c\n"
					 "  added:    d\n");
	ck_assert_uint_eq(counts[PUBLISH_ADDED], 1);
	ck_assert_uint_eq(counts[PUBLISH_MODIFIED], 1);
	ck_assert_uint_eq(counts[PUBLISH_REMOVED], 1);
	fs_tree_release(&o);
	fs_tree_release(&n);
	buf_release(&out);
}
END_TEST

START_TEST(test_changes_capped)
{
	struct fs_tree o = FS_TREE_INIT, n = FS_TREE_INIT;
	struct buf out = BUF_INIT;
	size_t counts[3];

	for (int i = 0; i < PUBLISH_LIST_MAX + 3; i++) {
		char *p = xasprintf("f%03d", i);
		fs_tree_add(&n, p, xstrdup("x"), 1);
		free(p);
	}
	publish_changes(&o, &n, &out, counts);
	ck_assert_uint_eq(counts[PUBLISH_ADDED], PUBLISH_LIST_MAX + 3);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), "  ... and 3 more\n"));
	ck_assert_ptr_null(strstr(buf_cstr(&out), "f200"));
	fs_tree_release(&n);
	buf_release(&out);
}
END_TEST

/* ---- publish_run on temporary repositories --------------------------------- */

static char dir_local[64], dir_other[64], dir_remote[64];
static struct repo *L, *O, *Rm;

static void mk(char *dir, struct repo **r)
{
	struct err err = ERR_INIT;

	strcpy(dir, "/tmp/gpuform-unit-publish.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_msg(repo_init_bare(r, dir, &err) == 0, "%s", err_msg(&err));
	err_release(&err);
}

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static void setup(void)
{
	mk(dir_local, &L);
	mk(dir_other, &O);
	mk(dir_remote, &Rm);
}

static void teardown(void)
{
	repo_free(L);
	repo_free(O);
	repo_free(Rm);
	L = O = Rm = NULL;
	rm_rf(dir_local);
	rm_rf(dir_other);
	rm_rf(dir_remote);
}

struct said {
	int n;
	char last[512];
};

static void on_retry(void *ctx, const char *what)
{
	struct said *s = ctx;

	s->n++;
	snprintf(s->last, sizeof(s->last), "%s", what);
}

/* publish DIR holding FILES on main of r (pushed to REMOTE when set) */
static int run(struct repo *r, const char *dir, const char *const *files,
	       const char *remote, struct said *said,
	       struct publish_result *res, struct err *err)
{
	struct publish_dir d = { xstrdup(dir), FS_TREE_INIT };
	static const struct repo_cred cred = REPO_CRED_INIT;
	struct publish p = {
		"main", "clusters", "one directory per cluster",
		"kustomization.yaml", "# gpuform", &d, 1, "subject\n\n",
		"Gpuform-Version: test\n", "Unit Test", "unit@example.com",
		remote, &cred, 3, -1, on_retry, said,
	};
	int ret;

	tree_of(&d.files, files);
	ret = publish_run(r, &p, res, err);
	fs_tree_release(&d.files);
	free(d.path);
	return ret;
}

START_TEST(test_run_commit_and_no_change)
{
	static const char *const v1[] = { "kustomization.yaml=# gpuform\n",
					  "a.yaml=a: 1\n", NULL };
	struct publish_result res;
	struct err err = ERR_INIT;
	struct said said = { 0, "" };
	struct buf b = BUF_INIT;

	ck_assert_msg(run(L, "clusters/x", v1, NULL, &said, &res, &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_int_eq(res.changed, 1);
	ck_assert_uint_eq(res.counts[PUBLISH_ADDED], 2);
	ck_assert_int_eq(repo_read(L, "main", "clusters/x/a.yaml", &b, NULL,
				   &err), 0);
	ck_assert_str_eq(buf_cstr(&b), "a: 1\n");
	ck_assert_msg(run(L, "clusters/x", v1, NULL, &said, &res, &err) == 0,
		      "%s", err_msg(&err));
	ck_assert_int_eq(res.changed, 0);
	ck_assert_int_eq(said.n, 0);
	buf_release(&b);
	err_release(&err);
}
END_TEST

/* a directory gpuform did not write is never replaced; nor is --path
 * itself when it is one rendered directory */
START_TEST(test_run_refusals)
{
	static const char *const foreign[] = { "README=hello\n", NULL };
	static const char *const ours[] = { "kustomization.yaml=# gpuform\n",
					    NULL };
	struct publish_result res;
	struct err err = ERR_INIT;
	struct said said = { 0, "" };

	ck_assert_int_eq(run(L, "clusters/x", foreign, NULL, &said, &res, &err),
			 0);
	ck_assert_int_eq(run(L, "clusters/x", ours, NULL, &said, &res, &err),
			 -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "not written by gpuform"));
	err_release(&err);
}
END_TEST

START_TEST(test_run_refuses_old_root)
{
	static const char *const ours[] = { "kustomization.yaml=# gpuform\n",
					    NULL };
	struct publish_result res;
	struct err err = ERR_INIT;
	struct said said = { 0, "" };

	/* an old one-directory write straight into --path */
	ck_assert_int_eq(run(L, "clusters", ours, NULL, &said, &res, &err), 0);
	ck_assert_int_eq(run(L, "clusters/y", ours, NULL, &said, &res, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "give its parent"));
	err_release(&err);
}
END_TEST

/* the push race: another writer pushed first; the rejected push fetches,
 * resets and redoes the commit on top, keeping the other writer's files */
START_TEST(test_run_push_race)
{
	static const char *const theirs[] = { "kustomization.yaml=# gpuform\n",
					      "t.yaml=t\n", NULL };
	static const char *const mine[] = { "kustomization.yaml=# gpuform\n",
					    "m.yaml=m\n", NULL };
	struct publish_result res;
	struct err err = ERR_INIT;
	struct said said = { 0, "" };
	struct buf b = BUF_INIT;

	ck_assert_msg(run(O, "clusters/t", theirs, dir_remote, &said, &res,
			  &err) == 0, "%s", err_msg(&err));
	ck_assert_int_eq(said.n, 0);
	ck_assert_int_eq(res.attempts, 1);
	ck_assert_msg(run(L, "clusters/m", mine, dir_remote, &said, &res,
			  &err) == 0, "%s", err_msg(&err));
	ck_assert_int_eq(said.n, 1);
	ck_assert_int_eq(res.attempts, 2);
	ck_assert_ptr_nonnull(strstr(said.last, "push rejected, 'main' moved"));
	ck_assert_ptr_nonnull(strstr(said.last, "(attempt 2 of 3)"));
	/* the remote has both */
	ck_assert_int_eq(repo_read(Rm, "main", "clusters/t/t.yaml", &b, NULL,
				   &err), 0);
	buf_reset(&b);
	ck_assert_int_eq(repo_read(Rm, "main", "clusters/m/m.yaml", &b, NULL,
				   &err), 0);
	buf_release(&b);
	err_release(&err);
}
END_TEST

/* ---- trailers -------------------------------------------------------------- */

START_TEST(test_trailers)
{
	char dir[64] = "/tmp/gpuform-unit-trailers.XXXXXX";
	struct buf out = BUF_INIT, want = BUF_INIT;
	struct err err = ERR_INIT;
	char id[REPO_OID_HEX], *path, *paths[1];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	path = xasprintf("%s/a.yaml", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("x: 1\n", f);
	fclose(f);
	paths[0] = path;
	ck_assert_int_eq(publish_trailers(&out, paths, 1, dir, "9.9", &err), 0);
	repo_blob_id("x: 1\n", 5, id);
	buf_addf(&want, "Gpuform-Intent: a.yaml %s\nGpuform-Version: 9.9\n", id);
	ck_assert_str_eq(buf_cstr(&out), buf_cstr(&want));
	/* outside the work tree: the path as given */
	buf_reset(&out);
	ck_assert_int_eq(publish_trailers(&out, paths, 1, "/nonexistent", "9.9",
					  &err), 0);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&out), path));
	rm_rf(dir);
	free(path);
	buf_release(&out);
	buf_release(&want);
	err_release(&err);
}
END_TEST

/* ---- reconcile/writeback.c: the directories commit writes ---------------- */

static const char wb_intent[] =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata: {name: c3}\n"
	"spec:\n"
	"  nodeRole: r\n"
	"  ami: bottlerocket@v1.38.0\n"
	"  workloads:\n"
	"    - {name: t, type: training, gpu: h100, maxGpus: 8}\n";

START_TEST(test_writeback_dirs)
{
	struct input items[2] = { { (char *)"a.yaml", RENDERED_INIT },
				  { (char *)"b.yaml", RENDERED_INIT } };
	struct inputs ins = { items, 1 };
	struct publish_dir *dirs = NULL;
	struct tmpl_set *t = NULL;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	char *subj;
	int usage;

	ck_assert_int_eq(tmpl_set_load(&t, NULL, &err), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pipeline_render(&items[i].r, items[i].path,
						 wb_intent, strlen(wb_intent),
						 t, &d, &err), 0);
	ck_assert_int_eq(writeback_dirs(&dirs, &ins, t, "gitops/clusters",
					&usage, &err), 0);
	ck_assert_str_eq(dirs[0].path, "gitops/clusters/c3");
	ck_assert_ptr_nonnull(fs_tree_find(&dirs[0].files, "kustomization.yaml"));
	writeback_dirs_free(dirs, 1);
	subj = writeback_subject(&ins);
	ck_assert_str_eq(subj, "gpuform: render c3");
	free(subj);
	/* --path naming the cluster's own directory: a usage error */
	ck_assert_int_eq(writeback_dirs(&dirs, &ins, t, "clusters/c3", &usage,
					&err), -1);
	ck_assert_int_eq(usage, 1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "(use --path clusters)"));
	ck_assert_ptr_null(dirs);
	err_clear(&err);
	/* two intents, one cluster */
	ins.nr = 2;
	ck_assert_int_eq(writeback_dirs(&dirs, &ins, t, "clusters", &usage,
					&err), -1);
	ck_assert_int_eq(usage, 0);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "both describe cluster"));
	for (int i = 0; i < 2; i++)
		rendered_release(&items[i].r);
	tmpl_set_free(t);
	diags_release(&d);
	err_release(&err);
}
END_TEST

Suite *publish_suite(void)
{
	Suite *s = suite_create("publish");
	TCase *tc = tcase_create("pure");
	TCase *tr = tcase_create("run");

	tcase_add_loop_test(tc, test_dir_path, 0,
			    sizeof(path_rows) / sizeof(path_rows[0]));
	tcase_add_test(tc, test_changes);
	tcase_add_test(tc, test_changes_capped);
	tcase_add_test(tc, test_trailers);
	tcase_add_test(tc, test_writeback_dirs);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, test_run_commit_and_no_change);
	tcase_add_test(tr, test_run_refusals);
	tcase_add_test(tr, test_run_refuses_old_root);
	tcase_add_test(tr, test_run_push_race);
	suite_add_tcase(s, tr);
	return s;
}
