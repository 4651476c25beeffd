/*
 * tests/unit/test_git.c: the parts of the Git module that need no server:
 * git/knownhosts.c (OpenSSH's known_hosts rules), git/credstore.c (git's
 * credential-store format) and repo_descends on a temporary bare
 * repository. Each case writes its files to a fresh temporary path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "git/credstore.h"
#include "git/gitpath.h"
#include "git/knownhosts.h"
#include "git/repo.h"
#include "util/fs.h"
#include "tests/unit/suites.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/err.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/gpuform-unit-git.XXXXXX");
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* an SSH key blob: "ssh-ed25519" and 32 bytes */
static const unsigned char key_a[] = "\0\0\0\x0bssh-ed25519\0\0\0\x20"
				     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
static const unsigned char key_b[] = "\0\0\0\x0bssh-ed25519\0\0\0\x20"
				     "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
#define KEYLEN (sizeof(key_a) - 1)

static const struct {
	const char *lines; /* %A: key_a in base64, %B: key_b */
	const char *host;
	int port;
	const char *err; /* NULL: accepted; else a part of the message */
} kh_cases[] = {
	{ "git.example ssh-ed25519 %A\n", "git.example", 22, NULL },
	{ "GIT.example ssh-ed25519 %A\n", "git.example", 22, NULL },
	{ "other,git.example ssh-ed25519 %A comment\n", "git.example", 22, NULL },
	{ "*.example ssh-ed25519 %A\n", "git.example", 22, NULL },
	{ "g?t.example ssh-ed25519 %A\n", "git.example", 22, NULL },
	{ "# comment\n\n  git.example ssh-ed25519 %A\n", "git.example", 22, NULL },
	{ "[git.example]:2222 ssh-ed25519 %A\n", "git.example", 2222, NULL },
	/* listed for port 22 only */
	{ "git.example ssh-ed25519 %A\n", "git.example", 2222, "is not in" },
	{ "", "git.example", 22, "is not in" },
	{ "*.example,!git.example ssh-ed25519 %A\n", "git.example", 22,
	  "is not in" },
	{ "git.example ssh-ed25519 %B\n", "git.example", 22, "does not match" },
	{ "@revoked * ssh-ed25519 %A\ngit.example ssh-ed25519 %A\n",
	  "git.example", 22, "@revoked" },
	{ "@cert-authority * ssh-ed25519 %A\n", "git.example", 22, "is not in" },
	{ "git.example ssh-ed25519 not*base64\n", "git.example", 22,
	  "is not in" },
};

START_TEST(test_knownhosts)
{
	struct buf text = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	struct err err = ERR_INIT;
	char *path;
	int r;

	base64_encode(&a, key_a, KEYLEN, 0);
	base64_encode(&b, key_b, KEYLEN, 0);
	for (const char *p = kh_cases[_i].lines; *p; p++) {
		if (p[0] == '%' && (p[1] == 'A' || p[1] == 'B'))
			buf_adds(&text, buf_cstr(*++p == 'A' ? &a : &b));
		else
			buf_addc(&text, *p);
	}
	path = write_tmp(buf_cstr(&text));
	r = knownhosts_check(path, kh_cases[_i].host, kh_cases[_i].port, key_a,
			     KEYLEN, &err);
	if (!kh_cases[_i].err) {
		ck_assert_msg(r == 0, "%s", err_msg(&err));
	} else {
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(err.code, ERR_AUTH);
		ck_assert_ptr_nonnull(strstr(err_msg(&err), kh_cases[_i].err));
		/* the key's type and fingerprint are named */
		ck_assert_ptr_nonnull(strstr(err_msg(&err), "ssh-ed25519 SHA256:"));
	}
	unlink(path);
	free(path);
	err_release(&err);
	buf_release(&text);
	buf_release(&a);
	buf_release(&b);
}
END_TEST

START_TEST(test_knownhosts_no_file)
{
	struct err err = ERR_INIT;

	ck_assert_int_eq(knownhosts_check(NULL, "h", 22, key_a, KEYLEN, &err), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "GPUFORM_GIT_SSH_KNOWN_HOSTS"));
	err_release(&err);
	ck_assert_int_eq(knownhosts_check("/nonexistent/kh", "h", 22, key_a,
					  KEYLEN, &err), -1);
	ck_assert_int_eq(err.code, ERR_AUTH);
	err_release(&err);
}
END_TEST

static const struct {
	const char *file, *url, *user, *pass; /* user NULL: no match */
} cred_cases[] = {
	{ "https://alice:s3cret@git.example\n", "https://git.example/r.git",
	  "alice", "s3cret" },
	{ "https://alice:s%40cr%3At@git.example/path\n",
	  "https://bob@git.example/r.git", "alice", "s@cr:t" },
	{ "HTTPS://a:b@GIT.example\n", "https://git.example/r", "a", "b" },
	{ "https://a:b@git.example:8443\n", "https://git.example/r", NULL, NULL },
	{ "https://a:b@git.example:8443\n", "https://git.example:8443/r", "a",
	  "b" },
	{ "http://a:b@git.example\n", "https://git.example/r", NULL, NULL },
	{ "https://nopass@git.example\nhttps://c:d@git.example\n",
	  "https://git.example/r", "c", "d" },
	{ "https://a:1@x.example\r\nhttps://a:2@git.example\r\n",
	  "https://git.example/r", "a", "2" },
	{ "https://a:b@git.example\n", "git.example:r.git", NULL, NULL },
};

START_TEST(test_credstore)
{
	char *path = write_tmp(cred_cases[_i].file), *user, *pass;
	struct buf why = BUF_INIT;

	ck_assert_int_eq(credstore_lookup(path, cred_cases[_i].url, &user,
					  &pass, &why), 0);
	if (cred_cases[_i].user) {
		ck_assert_str_eq(user, cred_cases[_i].user);
		ck_assert_str_eq(pass, cred_cases[_i].pass);
	} else {
		ck_assert_ptr_null(user);
		ck_assert_ptr_null(pass);
	}
	ck_assert_uint_eq(why.len, 0);
	free(user);
	free(pass);
	unlink(path);
	free(path);
	buf_release(&why);
}
END_TEST

START_TEST(test_credstore_unreadable)
{
	struct buf why = BUF_INIT;
	char *user, *pass;

	ck_assert_int_eq(credstore_lookup("/nonexistent/creds",
					  "https://git.example/r", &user, &pass,
					  &why), 0);
	ck_assert_ptr_null(user);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&why), "GPUFORM_GIT_CREDENTIALS"));
	buf_release(&why);
}
END_TEST

/* ---- git_path_clean -------------------------------------------------------- */

static const struct {
	const char *in, *want;
} clean_cases[] = {
	{ "clusters", "clusters" },
	{ "./clusters/", "clusters" },
	{ "././a/b//", "a/b" },
	{ "", "." },
	{ "./", "." },
	{ "/", "." },
	{ ".", "." },
	{ "a/./b", "a/./b" },
	{ "/abs/", "/abs" },
	{ ".hidden/", ".hidden" },
};

START_TEST(test_git_path_clean)
{
	char *got = git_path_clean(clean_cases[_i].in);

	ck_assert_msg(!strcmp(got, clean_cases[_i].want),
		      "'%s': '%s', want '%s'", clean_cases[_i].in, got,
		      clean_cases[_i].want);
	free(got);
}
END_TEST

static void commit_on(struct repo *r, const char *branch, const char *text,
		      char oid[REPO_OID_HEX])
{
	struct fs_tree t = FS_TREE_INIT;
	struct repo_subtree sub = { "clusters/a", &t };
	struct repo_commit c = { branch, &sub, 1, "m\n", "T", "t@example.com" };
	struct err e = ERR_INIT;
	int changed = 0;

	fs_tree_add(&t, "f.yaml", strdup(text), strlen(text));
	ck_assert_msg(repo_commit_tree(r, &c, oid, &changed, &e) == 0, "%s",
		      err_msg(&e));
	ck_assert(changed);
	fs_tree_release(&t);
}

/* the force-push check of reconcile --git (issue 21 item 7): is the commit
 * the inventory recorded in the history of the one fetched? */
START_TEST(test_repo_descends)
{
	char dir[] = "/tmp/gpuform-unit-descends.XXXXXX", a[REPO_OID_HEX],
	     b[REPO_OID_HEX], c[REPO_OID_HEX], cmd[96];
	struct repo *r = NULL;
	struct err e = ERR_INIT;
	int yes = -1;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(repo_init_bare(&r, dir, &e), 0);
	commit_on(r, "main", "one\n", a);
	commit_on(r, "main", "two\n", b);
	commit_on(r, "other", "three\n", c); /* a root commit: other history */
	ck_assert_int_eq(repo_descends(r, b, a, &yes, &e), 0);
	ck_assert_int_eq(yes, 1);
	ck_assert_int_eq(repo_descends(r, b, b, &yes, &e), 0);
	ck_assert_int_eq(yes, 1);
	ck_assert_int_eq(repo_descends(r, a, b, &yes, &e), 0); /* rewound */
	ck_assert_int_eq(yes, 0);
	ck_assert_int_eq(repo_descends(r, c, a, &yes, &e), 0); /* other history */
	ck_assert_int_eq(yes, 0);
	ck_assert_int_eq(repo_descends(r, b, "0123456789012345678901234567890123456789",
				       &yes, &e), 0); /* not in the repository */
	ck_assert_int_eq(yes, 0);
	ck_assert_int_eq(repo_descends(r, b, "not-a-commit", &yes, &e), 0);
	ck_assert_int_eq(yes, 0);
	repo_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *git_suite(void)
{
	Suite *s = suite_create("git");
	TCase *tc = tcase_create("knownhosts");

	tcase_add_loop_test(tc, test_knownhosts, 0,
			    (int)(sizeof(kh_cases) / sizeof(kh_cases[0])));
	tcase_add_test(tc, test_knownhosts_no_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("path");
	tcase_add_loop_test(tc, test_git_path_clean, 0,
			    (int)(sizeof(clean_cases) / sizeof(clean_cases[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("credstore");
	tcase_add_loop_test(tc, test_credstore, 0,
			    (int)(sizeof(cred_cases) / sizeof(cred_cases[0])));
	tcase_add_test(tc, test_credstore_unreadable);
	suite_add_tcase(s, tc);
	tc = tcase_create("descends");
	tcase_add_test(tc, test_repo_descends);
	suite_add_tcase(s, tc);
	return s;
}
