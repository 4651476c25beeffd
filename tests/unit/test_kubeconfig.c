/*
 * tests/unit/test_kubeconfig.c: unit tests for kube/kubeconfig.c --
 * contexts and current-context, KUBECONFIG merging, relative paths, -data
 * against files, error messages (missing names, YAML positions, unreadable
 * files), insecure-skip-tls-verify, in-cluster configuration, token files
 * and exec credential plugins (small shell scripts).
 *
 * Every test gets a fresh temporary directory (checked fixture, so it runs
 * in the forked test process and setenv() stays there). No network.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "kube/kube.h"
#include "kube/incluster.h"
#include "kube/kubeconfig.h"
#include "kube/kubeexec.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define CA_PEM                                                                 \
	"-----BEGIN CERTIFICATE-----\nMIIBdata\n-----END CERTIFICATE-----\n"
#define CA_B64                                                                 \
	"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkYXRhCi0tLS0tRU5EIENFUlRJ" \
	"RklDQVRFLS0tLS0K"
#define KEY_PEM                                                                \
	"-----BEGIN PRIVATE KEY-----\nMIIEkey\n-----END PRIVATE KEY-----\n"
#define KEY_B64                                                                \
	"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUVrZXkKLS0tLS1FTkQgUFJJVkFU" \
	"RSBLRVktLS0tLQo="
/* a JWT whose payload is {"sub":"system:serviceaccount:ns1:sa1"} */
#define SA_JWT                                                                 \
	"eyJhbGciOiJub25lIn0."                                                 \
	"eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6bnMxOnNhMSJ9.c2ln"

static char *dir;

static void setup(void)
{
	const char *t = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/gpuform-kc.XXXXXX", t && *t ? t : "/tmp");

	dir = mkdtemp(tmpl);
	ck_assert_msg(dir != NULL, "mkdtemp: %s", strerror(errno));
	/* nothing from the developer's own environment */
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("GPUFORM_SERVICEACCOUNT_DIR");
	setenv("HOME", dir, 1);
}

static void teardown(void)
{
	struct err e = ERR_INIT;

	if (dir)
		fs_remove_tree(dir, &e);
	err_release(&e);
	free(dir);
	dir = NULL;
}

/* put: write dir/name (creating dir/sub/), return the full path */
static char *put(const char *name, const char *content, mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	mkdir(path, 0755); /* one level is enough here */
	*slash = '/';
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static void assert_contains(const char *hay, const char *needle)
{
	ck_assert_msg(strstr(hay, needle) != NULL, "'%s' does not contain '%s'",
		      hay, needle);
}

static void assert_lacks(const char *hay, const char *needle)
{
	ck_assert_msg(strstr(hay, needle) == NULL, "'%s' contains '%s'", hay,
		      needle);
}

static void load_ok(struct kube_config *c, const char *path, const char *ctx)
{
	struct err e = ERR_INIT;
	int r = kubeconfig_load(c, path, ctx, &e);

	ck_assert_msg(r == 0, "kubeconfig_load failed: %s", err_msg(&e));
	err_release(&e);
}

/* load_err: must fail with `code`; returns the message (caller frees) */
static char *load_err(const char *path, const char *ctx, enum err_code code)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct err e = ERR_INIT;
	int r = kubeconfig_load(&c, path, ctx, &e);

	ck_assert_msg(r == -1, "kubeconfig_load unexpectedly succeeded");
	ck_assert_msg(e.code == code, "code %d, want %d: %s", (int)e.code,
		      (int)code, err_msg(&e));
	ck_assert_ptr_null(c.server);
	return buf_detach(&e.msg, NULL);
}

static const char two_contexts[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"clusters:\n"
	"- name: ca\n"
	"  cluster: {server: 'https://a.example:6443/'}\n"
	"- name: cb\n"
	"  cluster:\n"
	"    server: https://b.example\n"
	"    insecure-skip-tls-verify: true\n"
	"users:\n"
	"- name: ua\n"
	"  user: {token: token-a}\n"
	"- name: ub\n"
	"  user: {token: token-b}\n"
	"contexts:\n"
	"- name: a\n"
	"  context: {cluster: ca, user: ua}\n"
	"- name: b\n"
	"  context: {cluster: cb, user: ub, namespace: ns-b}\n"
	"current-context: b\n";

/* ---- contexts ---------------------------------------------------------- */

START_TEST(current_context)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put("kc", two_contexts, 0600);

	load_ok(&c, p, NULL);
	ck_assert_str_eq(c.context, "b");
	ck_assert_str_eq(c.cluster, "cb");
	ck_assert_str_eq(c.user, "ub");
	ck_assert_str_eq(c.server, "https://b.example");
	ck_assert_str_eq(c.token, "token-b");
	ck_assert_str_eq(c.namespace_, "ns-b");
	ck_assert_int_eq(c.insecure, 1);
	ck_assert_ptr_null(c.ca_pem);
	ck_assert_ptr_null(c.exec_argv);
	kube_config_release(&c);
	free(p);
}
END_TEST

START_TEST(explicit_context)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put("kc", two_contexts, 0600);

	load_ok(&c, p, "a");
	ck_assert_str_eq(c.context, "a");
	ck_assert_str_eq(c.server, "https://a.example:6443"); /* no '/' */
	ck_assert_str_eq(c.token, "token-a");
	ck_assert_str_eq(c.namespace_, "default");
	ck_assert_int_eq(c.insecure, 0);
	kube_config_release(&c);
	free(p);
}
END_TEST

START_TEST(default_file_in_home)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put(".kube/config", two_contexts, 0600);

	load_ok(&c, NULL, "a"); /* HOME is the temp dir */
	ck_assert_str_eq(c.server, "https://a.example:6443");
	kube_config_release(&c);
	free(p);
}
END_TEST

START_TEST(no_current_context)
{
	char *p = put("kc", "clusters: []\ncontexts: []\n", 0600);
	char *m = load_err(p, NULL, ERR_INVALID);

	assert_contains(m, "no current-context");
	assert_contains(m, p);
	free(m);
	free(p);
}
END_TEST

/* ---- KUBECONFIG merging ------------------------------------------------ */

static const char merge_one[] =
	"clusters:\n"
	"- {name: c1, cluster: {server: 'https://one'}}\n"
	"users:\n"
	"- {name: u1, user: {token: from-one}}\n"
	"contexts:\n"
	"- {name: x, context: {cluster: c1, user: u1}}\n"
	"current-context: x\n";
static const char merge_two[] =
	"clusters:\n"
	"- {name: c1, cluster: {server: 'https://two'}}\n"
	"- {name: c2, cluster: {server: 'https://c2'}}\n"
	"users:\n"
	"- {name: u1, user: {token: from-two}}\n"
	"- {name: u2, user: {token: only-two}}\n"
	"contexts:\n"
	"- {name: x, context: {cluster: c2, user: u2}}\n"
	"- {name: y, context: {cluster: c2, user: u1}}\n"
	"current-context: y\n";

START_TEST(merge_first_wins)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *one = put("one", merge_one, 0600);
	char *two = put("two", merge_two, 0600);
	char *list = xasprintf("%s::%s/missing:%s", one, dir, two);

	setenv("KUBECONFIG", list, 1);
	load_ok(&c, NULL, NULL);
	/* current-context and context x come from the first file */
	ck_assert_str_eq(c.context, "x");
	ck_assert_str_eq(c.server, "https://one");
	ck_assert_str_eq(c.token, "from-one");
	kube_config_release(&c);

	/* y only exists in the second file; its user u1 is the first's */
	load_ok(&c, NULL, "y");
	ck_assert_str_eq(c.server, "https://c2");
	ck_assert_str_eq(c.token, "from-one");
	kube_config_release(&c);
	free(list);

	/* the other way round: the second file's current-context wins */
	list = xasprintf("%s:%s", two, one);
	setenv("KUBECONFIG", list, 1);
	load_ok(&c, NULL, NULL);
	ck_assert_str_eq(c.context, "y");
	ck_assert_str_eq(c.token, "from-two");
	kube_config_release(&c);
	load_ok(&c, NULL, "x");
	ck_assert_str_eq(c.server, "https://c2");
	ck_assert_str_eq(c.token, "only-two");
	kube_config_release(&c);
	free(list);
	free(one);
	free(two);
}
END_TEST

START_TEST(merge_none_exist)
{
	char *list = xasprintf("%s/a:%s/b", dir, dir);
	char *m;

	setenv("KUBECONFIG", list, 1);
	m = load_err(NULL, NULL, ERR_NOTFOUND);
	assert_contains(m, "none of the files in KUBECONFIG exists");
	assert_contains(m, "/b'");
	free(m);
	free(list);
}
END_TEST

START_TEST(missing_file)
{
	char *p = xasprintf("%s/nope", dir);
	char *m = load_err(p, NULL, ERR_NOTFOUND);

	assert_contains(m, "kubeconfig '");
	assert_contains(m, "nope' does not exist");
	free(m);
	free(p);
}
END_TEST

/* ---- files and -data --------------------------------------------------- */

START_TEST(relative_paths)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *ca = put("conf/ca.pem", CA_PEM, 0600);
	char *tok = put("conf/tok", "file-token\n", 0600);
	char *p = put("conf/kc",
		      "clusters:\n"
		      "- {name: c, cluster: {server: 'https://s', "
		      "certificate-authority: ca.pem}}\n"
		      "users:\n"
		      "- name: u\n"
		      "  user:\n"
		      "    tokenFile: tok\n"
		      "    exec: {apiVersion: client.authentication.k8s.io/v1, "
		      "command: ./bin/plugin}\n"
		      "contexts:\n"
		      "- {name: x, context: {cluster: c, user: u}}\n"
		      "current-context: x\n",
		      0600);
	char *want_plugin = xasprintf("%s/conf/./bin/plugin", dir);

	/* from another working directory: paths follow the file, not cwd */
	ck_assert_int_eq(chdir("/"), 0);
	load_ok(&c, p, NULL);
	ck_assert_str_eq(c.token_file, tok);
	ck_assert_str_eq(c.token, "file-token");
	ck_assert_uint_eq(c.ca_len, strlen(CA_PEM));
	ck_assert_int_eq(memcmp(c.ca_pem, CA_PEM, c.ca_len), 0);
	ck_assert_str_eq(c.exec_argv[0], want_plugin);
	ck_assert_ptr_null(c.exec_argv[1]);
	kube_config_release(&c);
	free(want_plugin);
	free(ca);
	free(tok);
	free(p);
}
END_TEST

START_TEST(data_and_files)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put("kc",
		      "clusters:\n"
		      "- name: c\n"
		      "  cluster:\n"
		      "    server: https://s\n"
		      "    certificate-authority-data: " CA_B64 "\n"
		      "    certificate-authority: /does/not/exist\n"
		      "users:\n"
		      "- name: u\n"
		      "  user:\n"
		      "    client-certificate-data: " CA_B64 "\n"
		      "    client-key-data: " KEY_B64 "\n"
		      "contexts:\n"
		      "- {name: x, context: {cluster: c, user: u}}\n"
		      "current-context: x\n",
		      0600);

	/* -data wins over the file, as in kubectl: the missing file is not
	 * even read */
	load_ok(&c, p, NULL);
	ck_assert_uint_eq(c.ca_len, strlen(CA_PEM));
	ck_assert_int_eq(memcmp(c.ca_pem, CA_PEM, c.ca_len), 0);
	ck_assert_uint_eq(c.cert_len, strlen(CA_PEM));
	ck_assert_int_eq(memcmp(c.cert_pem, CA_PEM, c.cert_len), 0);
	ck_assert_uint_eq(c.key_len, strlen(KEY_PEM));
	ck_assert_int_eq(memcmp(c.key_pem, KEY_PEM, c.key_len), 0);
	ck_assert_ptr_null(c.token);
	kube_config_release(&c);
	free(p);
}
END_TEST

START_TEST(client_cert_files)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *crt = put("u.crt", CA_PEM, 0600);
	char *key = put("u.key", KEY_PEM, 0600);
	char *p = put("kc",
		      "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
		      "users:\n"
		      "- {name: u, user: {client-certificate: u.crt, "
		      "client-key: u.key}}\n"
		      "- {name: half, user: {client-certificate: u.crt}}\n"
		      "contexts:\n"
		      "- {name: x, context: {cluster: c, user: u}}\n"
		      "- {name: h, context: {cluster: c, user: half}}\n",
		      0600);
	char *m;

	load_ok(&c, p, "x");
	ck_assert_int_eq(memcmp(c.cert_pem, CA_PEM, c.cert_len), 0);
	ck_assert_int_eq(memcmp(c.key_pem, KEY_PEM, c.key_len), 0);
	kube_config_release(&c);
	m = load_err(p, "h", ERR_INVALID);
	assert_contains(m, "user 'half' has a client certificate but no "
			   "client key");
	free(m);
	free(crt);
	free(key);
	free(p);
}
END_TEST

START_TEST(token_file_presence)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put("kc",
		      "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
		      "users:\n"
		      "- {name: u, user: {token: static, tokenFile: tok}}\n"
		      "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		      "current-context: x\n",
		      0600);
	char *m = load_err(p, NULL, ERR_IO);
	char *tok;

	assert_contains(m, "tokenFile of user 'u'");
	assert_contains(m, "/tok'");
	assert_lacks(m, "static");
	free(m);
	tok = put("tok", "  from-file \n\n", 0600);
	load_ok(&c, p, NULL);
	ck_assert_str_eq(c.token_file, tok);
	/* the file wins over the static token, as in client-go */
	ck_assert_str_eq(c.token, "  from-file");
	kube_config_release(&c);
	free(tok);
	free(p);
}
END_TEST

/* an inline token has the token file's cap */
START_TEST(token_size)
{
	struct buf b = BUF_INIT;
	char *p, *m;

	buf_adds(&b, "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
		     "users: [{name: u, user: {token: ");
	for (size_t i = 0; i < (256u << 10) + 1; i++)
		buf_addc(&b, 't');
	buf_adds(&b, "}}]\n"
		     "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		     "current-context: x\n");
	p = put("kc", buf_cstr(&b), 0600);
	m = load_err(p, NULL, ERR_INVALID);
	assert_contains(m, "kc:2:33: token of user 'u' is longer than 262144 "
			   "bytes");
	assert_lacks(m, "ttt");
	free(m);
	free(p);
	buf_release(&b);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(insecure_flag)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *p = put("kc",
		      "clusters:\n"
		      "- {name: on, cluster: {server: 'https://s', "
		      "insecure-skip-tls-verify: true}}\n"
		      "- {name: off, cluster: {server: 'https://s', "
		      "insecure-skip-tls-verify: false}}\n"
		      "- {name: bad, cluster: {server: 'https://s', "
		      "insecure-skip-tls-verify: maybe}}\n"
		      "contexts:\n"
		      "- {name: on, context: {cluster: on}}\n"
		      "- {name: off, context: {cluster: off}}\n"
		      "- {name: bad, context: {cluster: bad}}\n",
		      0600);
	char *m;

	load_ok(&c, p, "on");
	ck_assert_int_eq(c.insecure, 1);
	ck_assert_str_eq(c.user, "anonymous");
	kube_config_release(&c);
	load_ok(&c, p, "off");
	ck_assert_int_eq(c.insecure, 0);
	kube_config_release(&c);
	m = load_err(p, "bad", ERR_INVALID);
	assert_contains(m, ":4:");
	assert_contains(m, "'insecure-skip-tls-verify' must be true or false");
	free(m);
	free(p);
}
END_TEST

/* ---- kubeconfigs that must not load ------------------------------------ */

/* clang-format off: a table, laid out by hand */
#define UNREADABLE_CA                                                          \
	"clusters:\n"                                                          \
	"- {name: c, cluster: {server: 'https://s', "                          \
	"certificate-authority: missing-ca.pem}}\n"                            \
	"- {name: d, cluster: {server: 'https://s', "                          \
	"certificate-authority: notpem.txt}}\n"                                \
	"contexts:\n"                                                          \
	"- {name: x, context: {cluster: c}}\n"                                 \
	"- {name: y, context: {cluster: d}}\n"
#define MISSING_NAMES                                                          \
	"clusters: [{name: c, cluster: {server: 'https://s'}}]\n"              \
	"users: [{name: u, user: {token: t}}]\n"                               \
	"contexts:\n"                                                          \
	"- {name: no-cluster, context: {cluster: gone, user: u}}\n"            \
	"- {name: no-user, context: {cluster: c, user: ghost}}\n"              \
	"- {name: empty, context: {user: u}}\n"
#define UNSUPPORTED_AUTH                                                       \
	"clusters: [{name: c, cluster: {server: 'https://s'}}]\n"              \
	"users:\n"                                                             \
	"- {name: gcp, user: {auth-provider: {name: gcp}}}\n"                  \
	"- {name: old, user: {exec: {apiVersion: "                             \
	"client.authentication.k8s.io/v1alpha1, command: x}}}\n"               \
	"contexts:\n"                                                          \
	"- {name: a, context: {cluster: c, user: gcp}}\n"                      \
	"- {name: b, context: {cluster: c, user: old}}\n"
/* the tail of the control-character cases */
#define CTX_X                                                                  \
	"contexts: [{name: x, context: {cluster: c, user: u}}]\n"              \
	"current-context: x\n"

/*
 * A case a row: dir/kc holds `kc` (and dir/`file` holds `content`, when
 * set); loading it with context `ctx` fails with `code` and a message that
 * is `exact` or starts with `prefix` ("%s": the kubeconfig's path), and
 * that contains every `has` and none of `lacks`.
 */
static const struct load_case {
	const char *kc, *file, *content, *ctx;
	enum err_code code;
	const char *exact, *prefix;
	const char *has[3], *lacks[2];
} load_cases[] = {
	{ "clusters:\n"
	  "- name: c\n"
	  "  cluster:\n"
	  "    server: https://s\n"
	  "    certificate-authority-data: 'not*base64'\n"
	  "contexts: [{name: x, context: {cluster: c}}]\n",
	  NULL,
	  NULL,
	  "x",
	  ERR_INVALID,
	  "%s:5:33: certificate-authority-data of cluster 'c' is not valid "
	  "base64",
	  NULL,
	  { NULL },
	  { NULL } },
	{ UNREADABLE_CA,
	  "notpem.txt",
	  "hello\n",
	  "x",
	  ERR_IO,
	  NULL,
	  NULL,
	  { "certificate-authority of cluster 'c'", "missing-ca.pem",
	    "No such file" },
	  { NULL } },
	{ UNREADABLE_CA,
	  "notpem.txt",
	  "hello\n",
	  "y",
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "notpem.txt' does not hold a PEM CERTIFICATE" },
	  { NULL } },
	/* hostile-corpus finds: a token with CR LF went into the
	 * Authorization header as it was, adding headers of its own; a
	 * server with CR LF or a space reached libcurl */
	{ "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
	  "users: [{name: u, user: {token: \"t0k\\r\\nX-Injected: 1\"}}]\n" CTX_X,
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "kc:2:33: token of user 'u' contains a control character" },
	  { "t0k", "Injected" } },
	{ "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
	  "users: [{name: u, user: {tokenFile: tok}}]\n" CTX_X,
	  "tok",
	  "t0k\nX-Injected: 1\n",
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "tokenFile of user 'u' (", "the token contains a control character" },
	  { "t0k" } },
	{ "clusters: [{name: c, cluster: {server: \"https://s\\r\\nHost: "
	  "evil\"}}]\n"
	  "users: [{name: u, user: {token: t}}]\n" CTX_X,
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "kc:1:40: server of cluster 'c' contains a space or control "
	    "character" },
	  { NULL } },
	{ "clusters: [{name: c, cluster: {server: 'https://s x'}}]\n"
	  "users: [{name: u, user: {token: t}}]\n" CTX_X,
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "server of cluster 'c' contains a space" },
	  { NULL } },
	/* a NUL escape used to cut the value short silently */
	{ "clusters: [{name: c, cluster: {server: \"https://s\\0.evil\"}}]\n"
	  "users: [{name: u, user: {token: t}}]\n" CTX_X,
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "kc:1:40: 'server' contains a NUL character" },
	  { NULL } },
	/* names and current-context end up in messages */
	{ "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
	  "users: [{name: \"u\\e[2J\", user: {token: t}}]\n" CTX_X,
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "kc:2:16: a name in 'users' contains a control character" },
	  { NULL } },
	{ "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
	  "users: [{name: u, user: {token: t}}]\n"
	  "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
	  "current-context: \"x\\nkind: Secret\"\n",
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "kc:4:18: current-context contains a control character" },
	  { NULL } },
	/* names a context, cluster or user does not define */
	{ MISSING_NAMES,
	  NULL,
	  NULL,
	  "nope",
	  ERR_NOTFOUND,
	  "context 'nope' is not defined in kubeconfig '%s'",
	  NULL,
	  { NULL },
	  { NULL } },
	{ MISSING_NAMES,
	  NULL,
	  NULL,
	  "no-cluster",
	  ERR_NOTFOUND,
	  "cluster 'gone' of context 'no-cluster' is not defined in "
	  "kubeconfig '%s'",
	  NULL,
	  { NULL },
	  { NULL } },
	{ MISSING_NAMES,
	  NULL,
	  NULL,
	  "no-user",
	  ERR_NOTFOUND,
	  "user 'ghost' of context 'no-user' is not defined in kubeconfig '%s'",
	  NULL,
	  { NULL },
	  { NULL } },
	{ MISSING_NAMES,
	  NULL,
	  NULL,
	  "empty",
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "context 'empty' names no cluster" },
	  { NULL } },
	/* malformed YAML and shapes: file:line:col */
	{ "apiVersion: v1\n"
	  "clusters:\n"
	  "- name: c\n"
	  "  cluster: {server: [https://s}\n",
	  NULL,
	  NULL,
	  NULL,
	  ERR_INVALID,
	  NULL,
	  "%s:4:",
	  { NULL },
	  { NULL } },
	{ "apiVersion: v1\nclusters: 5\n",
	  NULL,
	  NULL,
	  "x",
	  ERR_INVALID,
	  "%s:2:11: 'clusters' must be a list",
	  NULL,
	  { NULL },
	  { NULL } },
	{ "- just\n- a list\n",
	  NULL,
	  NULL,
	  "x",
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { ":1:1: a kubeconfig must be a mapping" },
	  { NULL } },
	/* authentication gpuform does not support */
	{ UNSUPPORTED_AUTH,
	  NULL,
	  NULL,
	  "a",
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { ":3:", "auth-provider" },
	  { NULL } },
	{ UNSUPPORTED_AUTH,
	  NULL,
	  NULL,
	  "b",
	  ERR_INVALID,
	  NULL,
	  NULL,
	  { "exec apiVersion 'client.authentication.k8s.io/v1alpha1'" },
	  { NULL } },
};
/* clang-format on */

/* with_path: text with its "%s" (if any) replaced by path */
static char *with_path(const char *text, const char *path)
{
	const char *at = strstr(text, "%s");

	if (!at)
		return xstrdup(text);
	return xasprintf("%.*s%s%s", (int)(at - text), text, path, at + 2);
}

START_TEST(load_fails)
{
	const struct load_case *c = &load_cases[_i];
	char *p = put("kc", c->kc, 0600);
	char *m, *want;

	if (c->file)
		free(put(c->file, c->content, 0600));
	m = load_err(p, c->ctx, c->code);
	if (c->exact) {
		want = with_path(c->exact, p);
		ck_assert_str_eq(m, want);
		free(want);
	}
	if (c->prefix) {
		want = with_path(c->prefix, p);
		ck_assert_msg(!strncmp(m, want, strlen(want)),
			      "'%s' does not start with '%s'", m, want);
		free(want);
	}
	for (size_t i = 0; i < 3 && c->has[i]; i++)
		assert_contains(m, c->has[i]);
	for (size_t i = 0; i < 2 && c->lacks[i]; i++)
		assert_lacks(m, c->lacks[i]);
	free(m);
	free(p);
}
END_TEST

/* ---- in-cluster -------------------------------------------------------- */

static void sa_dir(void)
{
	char *sa = xasprintf("%s/sa", dir);

	free(put("sa/token", SA_JWT "\n", 0600));
	free(put("sa/ca.crt", CA_PEM, 0600));
	free(put("sa/namespace", "ns1", 0600));
	setenv("GPUFORM_SERVICEACCOUNT_DIR", sa, 1);
	free(sa);
}

START_TEST(in_cluster)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct err e = ERR_INIT;
	char *tok = xasprintf("%s/sa/token", dir);

	sa_dir();
	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	ck_assert_msg(kubeconfig_in_cluster(&c, &e) == 0, "%s", err_msg(&e));
	ck_assert_str_eq(c.server, "https://10.0.0.1:443");
	ck_assert_str_eq(c.context, "in-cluster");
	ck_assert_str_eq(c.namespace_, "ns1");
	ck_assert_str_eq(c.user, "system:serviceaccount:ns1:sa1");
	ck_assert_str_eq(c.token, SA_JWT);
	ck_assert_str_eq(c.token_file, tok);
	ck_assert_int_eq(memcmp(c.ca_pem, CA_PEM, c.ca_len), 0);
	kube_config_release(&c);

	setenv("KUBERNETES_SERVICE_HOST", "fd00:10::1", 1);
	ck_assert_int_eq(kubeconfig_in_cluster(&c, &e), 0);
	ck_assert_str_eq(c.server, "https://[fd00:10::1]:443");
	kube_config_release(&c);
	err_release(&e);
	free(tok);
}
END_TEST

START_TEST(in_cluster_errors)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct err e = ERR_INIT;
	char *ca = xasprintf("%s/sa/ca.crt", dir);

	sa_dir();
	ck_assert_int_eq(kubeconfig_in_cluster(&c, &e), -1);
	ck_assert_int_eq(e.code, ERR_NOTFOUND);
	assert_contains(err_msg(&e), "KUBERNETES_SERVICE_HOST");

	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	unlink(ca);
	ck_assert_int_eq(kubeconfig_in_cluster(&c, &e), -1);
	assert_contains(err_msg(&e), "in-cluster CA");
	assert_contains(err_msg(&e), "ca.crt");
	assert_lacks(err_msg(&e), SA_JWT);
	ck_assert_ptr_null(c.server);
	err_release(&e);
	free(ca);
}
END_TEST

START_TEST(in_cluster_fallback)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	char *none = xasprintf("%s/none", dir);
	char *m;

	setenv("KUBECONFIG", none, 1);
	m = load_err(NULL, NULL, ERR_NOTFOUND);
	assert_contains(m, "no kubeconfig");
	free(m);

	sa_dir();
	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.2", 1);
	setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
	load_ok(&c, NULL, NULL);
	ck_assert_str_eq(c.context, "in-cluster");
	ck_assert_str_eq(c.server, "https://10.0.0.2:6443");
	kube_config_release(&c);
	free(none);
}
END_TEST

/* ---- exec plugins ------------------------------------------------------ */

/* exec_config: a kubeconfig whose user runs `script` (written to dir) */
static char *exec_config(const char *script, const char *api, const char *extra)
{
	char *kc;
	char *body = xasprintf(
		"clusters:\n"
		"- {name: c, cluster: {server: 'https://eks.example', "
		"certificate-authority-data: " CA_B64 "}}\n"
		"users:\n"
		"- name: eks-user\n"
		"  user:\n"
		"    exec:\n"
		"      apiVersion: client.authentication.k8s.io/%s\n"
		"      command: ./plugin.sh\n"
		"      args: [eks, get-token, --cluster-name, 'my cluster']\n"
		"      env: [{name: PLUGIN_FOO, value: bar}]\n"
		"      interactiveMode: Never\n"
		"%s"
		"contexts: [{name: x, context: {cluster: c, user: eks-user}}]\n"
		"current-context: x\n",
		api, extra);

	free(put("plugin.sh", script, 0755));
	kc = put("kc", body, 0600);
	free(body);
	return kc;
}

static const char good_plugin[] =
	"#!/bin/sh\n"
	"case \"$KUBERNETES_EXEC_INFO\" in\n"
	"*'\"interactive\":false'*) ;;\n"
	"*) echo \"bad exec info: $KUBERNETES_EXEC_INFO\" >&2; exit 3 ;;\n"
	"esac\n"
	"case \"$KUBERNETES_EXEC_INFO\" in\n"
	"*'\"apiVersion\":\"client.authentication.k8s.io/v1\"'*) ;;\n"
	"*) echo 'wrong apiVersion in exec info' >&2; exit 3 ;;\n"
	"esac\n"
	"[ \"$4\" = 'my cluster' ] || { echo \"args: $*\" >&2; exit 4; }\n"
	"echo 'a warning on stderr' >&2\n"
	"printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",'\n"
	"printf '\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-%s\",'"
	" \"$PLUGIN_FOO\"\n"
	"printf '\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}'\n";

START_TEST(exec_token)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kube_exec_cred cred = KUBE_EXEC_CRED_INIT;
	struct err e = ERR_INIT;
	char *kc = exec_config(good_plugin, "v1", "");

	load_ok(&c, kc, NULL);
	ck_assert_str_eq(c.exec_api_version, "client.authentication.k8s.io/v1");
	ck_assert_str_eq(c.exec_env[0], "PLUGIN_FOO=bar");
	ck_assert_ptr_null(c.exec_env[1]);
	ck_assert_str_eq(c.exec_argv[4], "my cluster");
	ck_assert_msg(kubeconfig_exec(&cred, &c, 10000, &e) == 0, "%s",
		      err_msg(&e));
	ck_assert_str_eq(cred.token, "tok-bar");
	ck_assert_ptr_null(cred.cert_pem);
	ck_assert_int_eq(cred.expires, 1893553445LL);
	kube_exec_cred_release(&cred);
	kube_config_release(&c);
	err_release(&e);
	free(kc);
}
END_TEST

START_TEST(exec_v1beta1_cert_and_cluster_info)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kube_exec_cred cred = KUBE_EXEC_CRED_INIT;
	struct err e = ERR_INIT;
	char *kc = exec_config(
		"#!/bin/sh\n"
		"case \"$KUBERNETES_EXEC_INFO\" in\n"
		"*'\"server\":\"https://eks.example\"'*'\"certificate-"
		"authority-data\":\"" CA_B64 "\"'*) ;;\n"
		"*) echo \"no cluster info: $KUBERNETES_EXEC_INFO\" >&2; "
		"exit 3 ;;\n"
		"esac\n"
		"printf '{\"apiVersion\":\"client.authentication.k8s.io/"
		"v1beta1\",\"kind\":\"ExecCredential\",\"status\":{'\n"
		"printf '\"clientCertificateData\":\"CERT\",'\n"
		"printf '\"clientKeyData\":\"KEY\",'\n"
		"printf "
		"'\"expirationTimestamp\":\"2030-01-02T03:04:05.123+02:00\"}}'"
		"\n",
		"v1beta1", "      provideClusterInfo: true\n");

	load_ok(&c, kc, NULL);
	ck_assert_int_eq(c.exec_provide_cluster_info, 1);
	ck_assert_msg(kubeconfig_exec(&cred, &c, 10000, &e) == 0, "%s",
		      err_msg(&e));
	ck_assert_ptr_null(cred.token);
	ck_assert_str_eq(cred.cert_pem, "CERT");
	ck_assert_str_eq(cred.key_pem, "KEY");
	ck_assert_int_eq(cred.expires, 1893546245LL);
	kube_exec_cred_release(&cred);
	kube_config_release(&c);
	err_release(&e);
	free(kc);
}
END_TEST

/*
 * Plugins that fail, a case a row: kubeconfig_exec (timeout `ms`) of a
 * kubeconfig running `script` fails (`code` unless ERR_NONE) with a message
 * that contains every `has` and none of `lacks` (no secret the plugin
 * printed), returns no token, and within `max_s` seconds when set.
 */
/* clang-format off: a table, laid out by hand */
static const struct exec_case {
	const char *what, *script;
	int ms, remove_plugin;
	enum err_code code;
	const char *has[2], *lacks[2];
	int max_s;
} exec_cases[] = {
	{ "a failing plugin: stderr's first line, never stdout",
	  "#!/bin/sh\n"
	  "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
	  "\"kind\":\"ExecCredential\",\"status\":{\"token\":"
	  "\"SECRET-TOKEN-123\"}}\\n'\n"
	  "printf '\\n  boom: the SSO session expired\\nsecond line\\n' >&2\n"
	  "exit 1\n",
	  10000,
	  0,
	  ERR_AUTH,
	  { "plugin.sh' of user 'eks-user'",
	    "exit status 1: boom: the SSO session expired" },
	  { "SECRET", "second line" },
	  0 },
	{ "not an ExecCredential",
	  "#!/bin/sh\necho 'token: SECRET-TOKEN-456'\n",
	  10000,
	  0,
	  ERR_NONE,
	  { "did not write an ExecCredential" },
	  { "SECRET" },
	  0 },
	{ "the plugin answers for another API version",
	  "#!/bin/sh\nprintf '{\"apiVersion\":\"client."
	  "authentication.k8s.io/v1beta1\",\"kind\":"
	  "\"ExecCredential\",\"status\":{\"token\":"
	  "\"SECRET-TOKEN-789\"}}'\n",
	  10000,
	  0,
	  ERR_NONE,
	  { "returned apiVersion 'client.authentication.k8s.io/v1beta1'" },
	  { "SECRET" },
	  0 },
	{ "the timeout is enforced",
	  "#!/bin/sh\nsleep 20\necho late\n",
	  300,
	  0,
	  ERR_NONE,
	  { "did not finish within 300 ms" },
	  { NULL },
	  5 },
	{ "stopped at the output cap (2 MiB on stdout, then it would keep "
	  "running)",
	  "#!/bin/sh\n"
	  "dd if=/dev/zero bs=65536 count=32 2>/dev/null\n"
	  "sleep 20\n",
	  10000,
	  0,
	  ERR_NONE,
	  { "wrote more than 1048576 bytes to stdout" },
	  { NULL },
	  5 },
	{ "the plugin does not exist",
	  "#!/bin/sh\n",
	  10000,
	  1,
	  ERR_AUTH,
	  { "cannot run it: No such file" },
	  { NULL },
	  0 },
};
/* clang-format on */

START_TEST(exec_fails)
{
	const struct exec_case *x = &exec_cases[_i];
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kube_exec_cred cred = KUBE_EXEC_CRED_INIT;
	struct err e = ERR_INIT;
	char *kc = exec_config(x->script, "v1", "");
	char *plugin = xasprintf("%s/plugin.sh", dir);
	time_t t0;

	load_ok(&c, kc, NULL);
	if (x->remove_plugin)
		unlink(plugin);
	t0 = time(NULL);
	ck_assert_msg(kubeconfig_exec(&cred, &c, x->ms, &e) == -1,
		      "%s: it succeeded", x->what);
	if (x->max_s)
		ck_assert_msg(time(NULL) - t0 < x->max_s, "%s: took %lld s",
			      x->what, (long long)(time(NULL) - t0));
	if (x->code != ERR_NONE)
		ck_assert_int_eq(e.code, x->code);
	for (size_t i = 0; i < 2 && x->has[i]; i++)
		assert_contains(err_msg(&e), x->has[i]);
	for (size_t i = 0; i < 2 && x->lacks[i]; i++)
		assert_lacks(err_msg(&e), x->lacks[i]);
	ck_assert_ptr_null(cred.token);
	kube_exec_cred_release(&cred);
	kube_config_release(&c);
	err_release(&e);
	free(plugin);
	free(kc);
}
END_TEST

/* kube_new refuses, before any request, to send credentials over plain
 * http (loopback only when asked) and insecure-skip-tls-verify with a CA */
static int try_new(const char *server, const char *token, int insecure,
		   const char *ca, int allow, struct err *e)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kube_opts o = KUBE_OPTS_INIT;
	struct kube *k = NULL;
	int rc;

	c.server = xstrdup(server);
	c.user = xstrdup("u");
	c.token = token ? xstrdup(token) : NULL;
	c.insecure = insecure;
	if (ca) {
		c.ca_pem = xstrdup(ca);
		c.ca_len = strlen(ca);
	}
	o.http_loopback_credentials = allow;
	rc = kube_new(&k, &c, &o, e);
	kube_free(k);
	kube_config_release(&c);
	return rc;
}

START_TEST(plain_http_credentials)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(try_new("http://10.0.0.1:8080", "sekret", 0, NULL, 1, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "refusing to send them in clear"));
	ck_assert_ptr_null(strstr(err_msg(&e), "sekret"));
	ck_assert_int_eq(try_new("http://127.0.0.1:8080", "sekret", 0, NULL, 0, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "--insecure-loopback-http"));
	ck_assert_int_eq(try_new("http://127.0.0.1.evil.example:80", "t", 0, NULL, 1, &e), -1);
	ck_assert_int_eq(try_new("http://localhost.example:80", "t", 0, NULL, 1, &e), -1);
	err_clear(&e);
	ck_assert_int_eq(try_new("http://127.0.0.1:8080", "t", 0, NULL, 1, &e), 0);
	ck_assert_int_eq(try_new("http://[::1]:8080", "t", 0, NULL, 1, &e), 0);
	ck_assert_int_eq(try_new("http://localhost:8080", "t", 0, NULL, 1, &e), 0);
	/* no credentials: plain http is only plain */
	ck_assert_int_eq(try_new("http://10.0.0.1:8080", NULL, 0, NULL, 0, &e), 0);
	ck_assert_int_eq(try_new("https://10.0.0.1:6443", "t", 0, NULL, 0, &e), 0);
	err_release(&e);
}
END_TEST

/* closed_port: a loopback port nothing listens on (bound, then closed) */
static int closed_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	ck_assert_int_ge(fd, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* request_with_token: one GET through kube_new's connection (kube/kubeconn.c
 * over http/http.c) to a closed loopback port, with the bearer token from
 * token_file (may be NULL: the static token "static"); the message in e,
 * the requests sent in *sent */
static int request_with_token(const char *token_file, long *sent,
			      struct err *e)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct kube_opts o = KUBE_OPTS_INIT;
	struct kube *k = NULL;
	long status = 0;
	int rc;

	c.server = xasprintf("http://127.0.0.1:%d/", closed_port());
	c.user = xstrdup("u");
	c.token = xstrdup("static");
	c.token_file = token_file ? xstrdup(token_file) : NULL;
	o.http_loopback_credentials = 1;
	o.max_retries = 0;
	o.request_timeout_ms = 5000;
	ck_assert_int_eq(kube_new(&k, &c, &o, e), 0);
	rc = kube_request(k, "GET", "/api", NULL, NULL, NULL, 0, &status, NULL, e);
	*sent = kube_get_stats(k)->requests;
	kube_free(k);
	kube_config_release(&c);
	return rc;
}

/* The credentials are found before every attempt (kubeconn.c's callback):
 * a token file that is missing, or whose token would split the header,
 * fails the request before anything is sent; with a good one the request
 * goes out and the transport failure names the API server as before the
 * HTTP layer became generic. */
START_TEST(credentials_before_the_request)
{
	struct err e = ERR_INIT;
	char *bad = put("bad-token", "to\x01ken\n", 0600);
	char *good = put("good-token", "tok\n", 0600);
	char *missing = xasprintf("%s/missing-token", dir);
	long sent;

	ck_assert_int_eq(request_with_token(missing, &sent, &e), -1);
	ck_assert_int_eq(sent, 0);
	assert_contains(err_msg(&e), "cannot read tokenFile '");
	assert_contains(err_msg(&e), "/missing-token' of user 'u'");
	err_clear(&e);
	ck_assert_int_eq(request_with_token(bad, &sent, &e), -1);
	ck_assert_int_eq(sent, 0);
	ck_assert_int_eq(e.code, ERR_AUTH);
	assert_contains(err_msg(&e), "the bearer token of user 'u' contains a "
				     "control character; it was not sent");
	err_clear(&e);
	ck_assert_int_eq(request_with_token(good, &sent, &e), -1);
	ck_assert_int_eq(sent, 1);
	ck_assert_int_eq(e.code, ERR_HTTP);
	assert_contains(err_msg(&e), "GET /api: cannot talk to the API server at "
				     "http://127.0.0.1:");
	assert_lacks(err_msg(&e), "tok");
	err_clear(&e);
	ck_assert_int_eq(request_with_token(NULL, &sent, &e), -1);
	ck_assert_int_eq(sent, 1);
	assert_contains(err_msg(&e), "cannot talk to the API server at");
	assert_lacks(err_msg(&e), "static");
	err_release(&e);
	free(bad);
	free(good);
	free(missing);
}
END_TEST

START_TEST(insecure_with_ca)
{
	struct err e = ERR_INIT;

	ck_assert_int_eq(try_new("https://10.0.0.1:6443", "t", 1, "PEM", 0, &e), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&e), "with the insecure flag is not allowed"));
	err_clear(&e);
	ck_assert_int_eq(try_new("https://10.0.0.1:6443", "t", 1, NULL, 0, &e), 0);
	err_release(&e);
}
END_TEST

Suite *kubeconfig_suite(void); /* until suites.h declares it */

Suite *kubeconfig_suite(void)
{
	Suite *s = suite_create("kubeconfig");
	TCase *tc;

	tc = tcase_create("contexts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, current_context);
	tcase_add_test(tc, explicit_context);
	tcase_add_test(tc, default_file_in_home);
	tcase_add_test(tc, no_current_context);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, merge_first_wins);
	tcase_add_test(tc, merge_none_exist);
	tcase_add_test(tc, missing_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, relative_paths);
	tcase_add_test(tc, data_and_files);
	tcase_add_test(tc, client_cert_files);
	tcase_add_test(tc, token_file_presence);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, load_fails, 0,
			    (int)(sizeof(load_cases) / sizeof(load_cases[0])));
	tcase_add_test(tc, insecure_flag);
	tcase_add_test(tc, token_size);
	tcase_add_test(tc, plain_http_credentials);
	tcase_add_test(tc, insecure_with_ca);
	tcase_add_test(tc, credentials_before_the_request);
	suite_add_tcase(s, tc);

	tc = tcase_create("in_cluster");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, in_cluster);
	tcase_add_test(tc, in_cluster_errors);
	tcase_add_test(tc, in_cluster_fallback);
	suite_add_tcase(s, tc);

	tc = tcase_create("exec");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, exec_token);
	tcase_add_test(tc, exec_v1beta1_cert_and_cluster_info);
	tcase_add_loop_test(tc, exec_fails, 0,
			    (int)(sizeof(exec_cases) / sizeof(exec_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}
