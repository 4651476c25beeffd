/*
 * tests/unit/test_repo.c: git/repo_tree.c's commit and tree code on a
 * temporary bare repository, as libgit2's own tests do (no server, no
 * work tree): subtrees replaced exactly (stale files gone, other paths
 * untouched), the "nothing changed" answer, paths refused before anything
 * is written, reading back, resetting a branch, and the branch-name rule
 * (repo_branch_name_valid, libgit2's git_branch_name_is_valid).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "git/repo.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* ---- branch names --------------------------------------------------------- */

static const struct {
	const char *name;
	int valid;
} branch_rows[] = {
	{ "main", 1 },
	{ "release/v1.2", 1 },
	{ "a@b", 1 },
	{ "a/HEAD", 1 },
	{ "\xc3\xa9t\xc3\xa9", 1 }, /* UTF-8 is fine */
	{ "", 0 },
	{ "@", 0 },          /* git refuses; libgit2 1.5 does not */
	{ "a\x7f", 0 },      /* DEL: likewise */
	{ "HEAD", 0 },
	{ "-x", 0 },
	{ "/x", 0 },
	{ "x/", 0 },
	{ "x.", 0 },
	{ ".x", 0 },
	{ "a/.b", 0 },
	{ "bad..name", 0 },
	{ "a//b", 0 },
	{ "a@{b", 0 },
	{ "x.lock", 0 },
	{ "a.lock/b", 0 },
	{ "a b", 0 },
	{ "a~1", 0 },
	{ "a^", 0 },
	{ "a:b", 0 },
	{ "a?", 0 },
	{ "a*", 0 },
	{ "a[b", 0 },
	{ "a\\b", 0 },
	{ "a\x01", 0 },
};

START_TEST(test_branch_name)
{
	ck_assert_msg(repo_branch_name_valid(branch_rows[_i].name) ==
			      branch_rows[_i].valid,
		      "'%s': expected %d", branch_rows[_i].name,
		      branch_rows[_i].valid);
}
END_TEST

START_TEST(test_branch_name_null)
{
	ck_assert_int_eq(repo_branch_name_valid(NULL), 0);
}
END_TEST

/* ---- a temporary bare repository ------------------------------------------ */

static char tmpdir[64];
static struct repo *R;

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static void repo_setup(void)
{
	struct err err = ERR_INIT;

	strcpy(tmpdir, "/tmp/gpuform-unit-repo.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_msg(repo_init_bare(&R, tmpdir, &err) == 0, "%s",
		      err_msg(&err));
	err_release(&err);
}

static void repo_teardown(void)
{
	repo_free(R);
	R = NULL;
	rm_rf(tmpdir);
}

/* files: "path=content" strings, NULL-terminated */
static void tree_of(struct fs_tree *t, const char *const *files)
{
	*t = (struct fs_tree)FS_TREE_INIT;
	for (; *files; files++) {
		const char *eq = strchr(*files, '=');
		char *path = xstrndup(*files, (size_t)(eq - *files));

		fs_tree_add(t, path, xstrdup(eq + 1), strlen(eq + 1));
		free(path);
	}
}

/* commit one subtree PATH holding FILES on main; returns the -1/0 result */
static int commit1(const char *path, const char *const *files, char *oid,
		   int *changed, struct err *err)
{
	struct fs_tree t;
	struct repo_subtree sub;
	struct repo_commit c = { "main", &sub, 1, "a test commit\n",
				 "Unit Test", "unit@example.com" };
	int ret;

	tree_of(&t, files);
	sub.path = path;
	sub.files = &t;
	ret = repo_commit_tree(R, &c, oid, changed, err);
	fs_tree_release(&t);
	return ret;
}

static void ok_commit(const char *path, const char *const *files, char *oid,
		      int want_changed)
{
	struct err err = ERR_INIT;
	int changed = -1;

	ck_assert_msg(commit1(path, files, oid, &changed, &err) == 0, "%s",
		      err_msg(&err));
	ck_assert_int_eq(changed, want_changed);
	err_release(&err);
}

/* the content of PATH at main, or NULL when absent (ERR_NOTFOUND) */
static char *read_main(const char *path)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	char *ret = NULL;

	if (repo_read(R, "main", path, &b, NULL, &err) == 0)
		ret = buf_detach(&b, NULL);
	else
		ck_assert_msg(err.code == ERR_NOTFOUND, "%s: %s", path,
			      err_msg(&err));
	buf_release(&b);
	err_release(&err);
	return ret;
}

static void assert_file(const char *path, const char *want)
{
	char *got = read_main(path);

	if (!want)
		ck_assert_msg(!got, "'%s' should be gone, holds '%s'", path,
			      got);
	else
		ck_assert_msg(got && !strcmp(got, want), "'%s': '%s', not '%s'",
			      path, got ? got : "(absent)", want);
	free(got);
}

START_TEST(test_commit_new_branch)
{
	static const char *const files[] = { "kustomization.yaml=k\n",
					     "sub/np.yaml=np\n", NULL };
	char oid[REPO_OID_HEX], tip[REPO_OID_HEX];
	struct err err = ERR_INIT;

	/* no branch yet: resolving it is ERR_NOTFOUND */
	ck_assert_int_eq(repo_resolve(R, "refs/heads/main", tip, &err), -1);
	ck_assert_int_eq(err.code, ERR_NOTFOUND);
	err_clear(&err);
	ok_commit("clusters/a", files, oid, 1);
	ck_assert_int_eq(strlen(oid), 40);
	ck_assert_int_eq(repo_resolve(R, "refs/heads/main", tip, &err), 0);
	ck_assert_str_eq(tip, oid);
	assert_file("clusters/a/kustomization.yaml", "k\n");
	assert_file("clusters/a/sub/np.yaml", "np\n");
	ck_assert_int_eq(repo_verify(R, &err), 0);
	err_release(&err);
}
END_TEST

START_TEST(test_commit_same_tree_is_no_change)
{
	static const char *const files[] = { "a.yaml=1\n", NULL };
	char first[REPO_OID_HEX], again[REPO_OID_HEX];

	ok_commit("clusters/a", files, first, 1);
	ok_commit("clusters/a", files, again, 0);
	ck_assert_str_eq(again, first); /* the unchanged tip */
}
END_TEST

START_TEST(test_commit_replaces_exactly)
{
	static const char *const v1[] = { "a.yaml=1\n", "stale.yaml=s\n",
					  "d/x.yaml=x\n", NULL };
	static const char *const v2[] = { "a.yaml=2\n", "new.yaml=n\n", NULL };
	static const char *const other[] = { "keep.yaml=keep\n", NULL };
	static const char *const none[] = { NULL };
	char oid[REPO_OID_HEX], parent[REPO_OID_HEX], p2[REPO_OID_HEX];
	struct err err = ERR_INIT;
	char *ref;

	ok_commit("clusters/other", other, oid, 1);
	ok_commit("clusters/a", v1, parent, 1);
	ok_commit("clusters/a", v2, oid, 1);
	/* a linear history: the new commit's parent is the old tip */
	ck_assert_int_eq(repo_resolve(R, "main^", p2, &err), 0);
	ck_assert_str_eq(p2, parent);
	assert_file("clusters/a/a.yaml", "2\n");
	assert_file("clusters/a/new.yaml", "n\n");
	assert_file("clusters/a/stale.yaml", NULL);
	assert_file("clusters/a/d/x.yaml", NULL);
	assert_file("clusters/other/keep.yaml", "keep\n");
	/* an empty file set removes the directory, and empty parents go */
	ok_commit("clusters/a", none, oid, 1);
	assert_file("clusters/a/a.yaml", NULL);
	assert_file("clusters/other/keep.yaml", "keep\n");
	ok_commit("clusters/other", none, oid, 1);
	ref = read_main("clusters");
	ck_assert_ptr_null(ref);
	err_release(&err);
}
END_TEST

START_TEST(test_commit_two_subtrees_one_commit)
{
	static const char *const fa[] = { "a.yaml=a\n", NULL };
	static const char *const fb[] = { "b.yaml=b\n", NULL };
	struct fs_tree ta, tb;
	struct repo_subtree subs[2];
	struct repo_commit c = { "main", subs, 2, "two\n", "U", "u@example.com" };
	char oid[REPO_OID_HEX], parent[REPO_OID_HEX];
	struct err err = ERR_INIT;
	int changed = 0;

	tree_of(&ta, fa);
	tree_of(&tb, fb);
	subs[0] = (struct repo_subtree){ "clusters/a", &ta };
	subs[1] = (struct repo_subtree){ "clusters/b", &tb };
	ck_assert_int_eq(repo_commit_tree(R, &c, oid, &changed, &err), 0);
	ck_assert_int_eq(changed, 1);
	assert_file("clusters/a/a.yaml", "a\n");
	assert_file("clusters/b/b.yaml", "b\n");
	/* one commit: a root commit, no parent */
	ck_assert_int_eq(repo_resolve(R, "main^", parent, &err), -1);
	err_release(&err);
	fs_tree_release(&ta);
	fs_tree_release(&tb);
}
END_TEST

START_TEST(test_read_tree)
{
	static const char *const files[] = { "b.yaml=b\n", "a.yaml=a\n",
					     "d/c.yaml=c\n", NULL };
	static const char *const other[] = { "x.yaml=x\n", NULL };
	char oid[REPO_OID_HEX];
	struct fs_tree t = FS_TREE_INIT;
	struct err err = ERR_INIT;

	ok_commit("clusters/a", files, oid, 1);
	ok_commit("clusters/ab", other, oid, 1);
	ck_assert_int_eq(repo_read_tree(R, "main", "clusters/a", &t, &err), 0);
	fs_tree_sort(&t);
	ck_assert_uint_eq(t.nr, 3); /* not clusters/ab's file */
	ck_assert_str_eq(t.files[0].path, "a.yaml");
	ck_assert_str_eq(t.files[1].path, "b.yaml");
	ck_assert_str_eq(t.files[2].path, "d/c.yaml");
	ck_assert_uint_eq(t.files[2].len, 2);
	ck_assert(!memcmp(t.files[2].data, "c\n", 2));
	fs_tree_release(&t);
	/* a directory that is not there reads as empty */
	ck_assert_int_eq(repo_read_tree(R, "main", "clusters/zz", &t, &err), 0);
	ck_assert_uint_eq(t.nr, 0);
	fs_tree_release(&t);
	err_release(&err);
}
END_TEST

static const struct {
	const char *path, *file;
} bad_paths[] = {
	{ "../x", "a.yaml" },     { "clusters/../x", "a.yaml" },
	{ "/abs", "a.yaml" },     { "clusters//a", "a.yaml" },
	{ "clusters/.git", "a.yaml" }, { "clusters/.GIT", "a.yaml" },
	{ "clusters/./a", "a.yaml" }, { "clusters/a", "../up.yaml" },
	{ "clusters/a", ".git/config" }, { "clusters/a", "d//x.yaml" },
	{ "clusters/a", "" },
};

START_TEST(test_commit_bad_path_writes_nothing)
{
	struct fs_tree t = FS_TREE_INIT;
	struct repo_subtree sub = { bad_paths[_i].path, &t };
	struct repo_commit c = { "main", &sub, 1, "m\n", "U", "u@example.com" };
	char oid[REPO_OID_HEX], tip[REPO_OID_HEX];
	struct err err = ERR_INIT;
	int changed = 7;

	fs_tree_add(&t, bad_paths[_i].file, xstrdup("x\n"), 2);
	ck_assert_int_eq(repo_commit_tree(R, &c, oid, &changed, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_int_eq(changed, 0);
	err_clear(&err);
	ck_assert_int_eq(repo_resolve(R, "refs/heads/main", tip, &err), -1);
	ck_assert_int_eq(err.code, ERR_NOTFOUND);
	fs_tree_release(&t);
	err_release(&err);
}
END_TEST

START_TEST(test_commit_refusals)
{
	static const char *const files[] = { "a.yaml=a\n", NULL };
	static const char *const clash[] = { "d=file\n", "d/x.yaml=x\n", NULL };
	struct fs_tree t;
	struct repo_subtree sub = { "c", NULL };
	struct repo_commit c = { "main", &sub, 1, "", "U", "u@example.com" };
	char oid[REPO_OID_HEX];
	struct err err = ERR_INIT;
	int changed = 0;

	tree_of(&t, files);
	sub.files = &t;
	ck_assert_int_eq(repo_commit_tree(R, &c, oid, &changed, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "empty commit message"));
	err_clear(&err);
	c.message = "m\n";
	c.branch = "bad..name";
	ck_assert_int_eq(repo_commit_tree(R, &c, oid, &changed, &err), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "not a valid branch name"));
	err_clear(&err);
	fs_tree_release(&t);
	/* a name that is both a file and a directory */
	ck_assert_int_eq(commit1("c", clash, oid, &changed, &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "both a file and a directory"));
	err_clear(&err);
	/* a path through a file of the branch */
	ok_commit("top", files, oid, 1);
	ck_assert_int_eq(commit1("top/a.yaml/deeper", files, oid, &changed,
				 &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "is a file on 'main'"));
	err_release(&err);
}
END_TEST

START_TEST(test_reset_branch)
{
	static const char *const v1[] = { "a.yaml=1\n", NULL };
	static const char *const v2[] = { "a.yaml=2\n", NULL };
	char first[REPO_OID_HEX], second[REPO_OID_HEX], tip[REPO_OID_HEX];
	struct err err = ERR_INIT;

	ok_commit("c", v1, first, 1);
	ok_commit("c", v2, second, 1);
	ck_assert_int_eq(repo_reset_branch(R, "main", first, &err), 0);
	ck_assert_int_eq(repo_resolve(R, "main", tip, &err), 0);
	ck_assert_str_eq(tip, first);
	assert_file("c/a.yaml", "1\n");
	/* the same tip again is a no-op */
	ck_assert_int_eq(repo_reset_branch(R, "main", first, &err), 0);
	ck_assert_int_eq(repo_reset_branch(R, "main", "not-an-id", &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	err_clear(&err);
	ck_assert_int_eq(repo_reset_branch(
				 R, "main",
				 "0123456789012345678901234567890123456789",
				 &err),
			 -1);
	err_release(&err);
}
END_TEST

START_TEST(test_blob_id)
{
	char id[REPO_OID_HEX];

	/* git hash-object of "hello\n" and of the empty file */
	repo_blob_id("hello\n", 6, id);
	ck_assert_str_eq(id, "ce013625030ba8dba906f756967f9e9ca394464a");
	repo_blob_id("", 0, id);
	ck_assert_str_eq(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}
END_TEST

START_TEST(test_read_missing)
{
	static const char *const files[] = { "a.yaml=a\n", NULL };
	char oid[REPO_OID_HEX], blob[REPO_OID_HEX];
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	ok_commit("c", files, oid, 1);
	ck_assert_int_eq(repo_read(R, "main", "c/a.yaml", &b, blob, &err), 0);
	ck_assert_str_eq(blob, "78981922613b2afb6025042ff6bd878ac1994e85");
	ck_assert_int_eq(repo_read(R, "main", "c/none.yaml", &b, NULL, &err),
			 -1);
	ck_assert_int_eq(err.code, ERR_NOTFOUND);
	err_clear(&err);
	ck_assert_int_eq(repo_read(R, "nobranch", "c/a.yaml", &b, NULL, &err),
			 -1);
	ck_assert_int_eq(err.code, ERR_NOTFOUND);
	buf_release(&b);
	err_release(&err);
}
END_TEST

Suite *repo_suite(void)
{
	Suite *s = suite_create("repo");
	TCase *tc = tcase_create("branch_name");
	TCase *tr = tcase_create("commit");

	tcase_add_loop_test(tc, test_branch_name, 0,
			    sizeof(branch_rows) / sizeof(branch_rows[0]));
	tcase_add_test(tc, test_branch_name_null);
	tcase_add_test(tc, test_blob_id);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tr, repo_setup, repo_teardown);
	tcase_add_test(tr, test_commit_new_branch);
	tcase_add_test(tr, test_commit_same_tree_is_no_change);
	tcase_add_test(tr, test_commit_replaces_exactly);
	tcase_add_test(tr, test_commit_two_subtrees_one_commit);
	tcase_add_test(tr, test_read_tree);
	tcase_add_loop_test(tr, test_commit_bad_path_writes_nothing, 0,
			    sizeof(bad_paths) / sizeof(bad_paths[0]));
	tcase_add_test(tr, test_commit_refusals);
	tcase_add_test(tr, test_reset_branch);
	tcase_add_test(tr, test_read_missing);
	suite_add_tcase(s, tr);
	return s;
}
