/*
 * tests/fuzz/fuzz_kubeconfig.c: kubeconfig_load() (kube/kubeconfig.h).
 *
 * The input is written to <dir>/kubeconfig, dir being a per-process
 * directory under /tmp that also holds a CA, a client certificate and key
 * and a token file, so relative `certificate-authority: ca.crt`-style paths
 * in the input reach the file-reading code. Each input is loaded
 *   1. by path, with its current-context;
 *   2. by path, with the context "x";
 *   3. through KUBECONFIG="<input>:<base>" (merged like kubectl, the input
 *      first), with the current-context -- skipped when the environment
 *      has FUZZ_KUBECONFIG_NO_MERGE=1 (for when a finding on this path,
 *      hit by every input, would hide the rest of the loader);
 * and every configuration that loads is handed to kube_new()/kube_free()
 * (copies the secrets, sets up libcurl; no request is made).
 *
 * Exec credential plugins: kubeconfig_load() only records exec.command/args/
 * env (kc_exec); the command runs in kubeconfig_exec(), called by kube.c
 * when a request needs credentials. This target never calls
 * kubeconfig_exec() nor makes a request, so a fuzzed `exec:` cannot run
 * anything; as a second fence PATH points to an empty directory, so even a
 * stray posix_spawnp() of a bare command name would fail.
 *
 * Paths in the input are read as they are (tokenFile: /some/file): run the
 * fuzzer with stdin from /dev/null (run.sh does) so /dev/stdin cannot block.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/kube.h"
#include "kube/kubeconfig.h"
#include "util/err.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[96], base[96], kubeconfig_list[200];
static int no_merge;

/* not real keys: kubeconfig.c only checks for the PEM header */
static const char cert[] = "-----BEGIN CERTIFICATE-----\n"
			   "MIIBfzCCASWgAwIBAgIUZnV6ei1ub3QtYS1yZWFsLWNlcnQwCgYI\n"
			   "-----END CERTIFICATE-----\n";
static const char key[] = "-----BEGIN EC PRIVATE KEY-----\n"
			  "MHcCAQEEIGZ1enotbm90LWEtcmVhbC1rZXktZnV6ei1mdXp6LWZ1\n"
			  "-----END EC PRIVATE KEY-----\n";
static const char base_config[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"current-context: base\n"
	"clusters:\n"
	"- name: base\n"
	"  cluster:\n"
	"    server: https://127.0.0.1:6443\n"
	"    certificate-authority: ca.crt\n"
	"users:\n"
	"- name: base\n"
	"  user:\n"
	"    tokenFile: token\n"
	"contexts:\n"
	"- name: base\n"
	"  context: {cluster: base, user: base, namespace: gpu}\n"
	"- name: x\n"
	"  context: {cluster: base, user: base}\n";

static void write_file(const char *p, const void *data, size_t len)
{
	FILE *f = fopen(p, "wb");

	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f)) {
		fprintf(stderr, "fuzz_kubeconfig: cannot write %s: %s\n", p,
			strerror(errno));
		abort();
	}
}

static void cleanup(void)
{
	static const char *const names[] = { "kubeconfig", "base", "ca.crt",
					     "client.crt", "client.key",
					     "token", NULL };
	char p[128];

	for (const char *const *n = names; *n; n++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *n);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[128];

	snprintf(dir, sizeof(dir), "/tmp/gpuform-fuzz-kc.%ld", (long)getpid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "fuzz_kubeconfig: mkdir %s: %s\n", dir,
			strerror(errno));
		abort();
	}
	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	snprintf(base, sizeof(base), "%s/base", dir);
	snprintf(kubeconfig_list, sizeof(kubeconfig_list), "%s:%s", path,
		 base);
	write_file(base, base_config, strlen(base_config));
	snprintf(p, sizeof(p), "%s/ca.crt", dir);
	write_file(p, cert, strlen(cert));
	snprintf(p, sizeof(p), "%s/client.crt", dir);
	write_file(p, cert, strlen(cert));
	snprintf(p, sizeof(p), "%s/client.key", dir);
	write_file(p, key, strlen(key));
	snprintf(p, sizeof(p), "%s/token", dir);
	write_file(p, "fuzz-token\n", 11);
	atexit(cleanup);

	/* nothing may be executed; no in-cluster fallback; no real config */
	snprintf(p, sizeof(p), "%s/no-such-bin", dir);
	setenv("PATH", p, 1);
	setenv("HOME", dir, 1);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("GPUFORM_SERVICEACCOUNT_DIR");
	unsetenv("KUBECONFIG");
	no_merge = getenv("FUZZ_KUBECONFIG_NO_MERGE") &&
		   !strcmp(getenv("FUZZ_KUBECONFIG_NO_MERGE"), "1");
	return 0;
}

static void use(const struct kube_config *c)
{
	struct kube *k = NULL;
	struct err err = ERR_INIT;

	if (kube_new(&k, c, NULL, &err) == 0)
		kube_free(k);
	err_release(&err);
}

static void load(const char *p, const char *context)
{
	struct kube_config c = KUBE_CONFIG_INIT;
	struct err err = ERR_INIT;

	if (kubeconfig_load(&c, p, context, &err) == 0) {
		use(&c);
		kube_config_release(&c);
	}
	err_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	write_file(path, data, size);
	load(path, NULL);
	load(path, "x");
	if (!no_merge) {
		setenv("KUBECONFIG", kubeconfig_list, 1);
		load(NULL, NULL);
		unsetenv("KUBECONFIG");
	}
	no_merge = getenv("FUZZ_KUBECONFIG_NO_MERGE") &&
		   !strcmp(getenv("FUZZ_KUBECONFIG_NO_MERGE"), "1");
	return 0;
}
