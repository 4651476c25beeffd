/*
 * kube/kubeexec.c: running an exec credential plugin (see kubeexec.h):
 * the ExecCredential it is given and the one it answers, its environment,
 * a deadline, and a process group killed on the way out.
 */
#include "kube/kubeexec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/base64.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/time.h"
#include "util/xalloc.h"

extern char **environ;

/* how much of a plugin's stderr is kept (for the first line in messages) */
#define KC_MAX_STDERR 4096
#define EXEC_GROUP "client.authentication.k8s.io/"

void kube_exec_cred_release(struct kube_exec_cred *cred)
{
	if (!cred)
		return;
	digest_wipe_str(cred->token);
	digest_wipe_free(cred->cert_pem, cred->cert_len);
	digest_wipe_free(cred->key_pem, cred->key_len);
	*cred = (struct kube_exec_cred)KUBE_EXEC_CRED_INIT;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* exec_info: the ExecCredential for KUBERNETES_EXEC_INFO */
static char *exec_info(const struct kube_config *c)
{
	cJSON *j = cJSON_CreateObject(), *spec;
	char *s, *res;

	cJSON_AddStringToObject(j, "apiVersion", c->exec_api_version);
	cJSON_AddStringToObject(j, "kind", "ExecCredential");
	spec = cJSON_AddObjectToObject(j, "spec");
	if (c->exec_provide_cluster_info) {
		cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
		cJSON_AddStringToObject(cl, "server",
					c->server ? c->server : "");
		if (c->ca_pem) {
			struct buf b = BUF_INIT;
			base64_encode(&b, c->ca_pem, c->ca_len, 0);
			cJSON_AddStringToObject(
				cl, "certificate-authority-data", buf_cstr(&b));
			buf_release(&b);
		}
		if (c->insecure)
			cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify");
	}
	cJSON_AddFalseToObject(spec, "interactive");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!s)
		BUG("cJSON_PrintUnformatted failed");
	res = xasprintf("KUBERNETES_EXEC_INFO=%s", s);
	cJSON_free(s);
	return res;
}

static int env_overridden(const char *entry, char *const *adds)
{
	size_t n = strcspn(entry, "=");

	if (!strncmp(entry, "KUBERNETES_EXEC_INFO=", 21) && n == 20)
		return 1;
	for (size_t i = 0; adds && adds[i]; i++)
		if (!strncmp(entry, adds[i], n) && adds[i][n] == '=')
			return 1;
	return 0;
}

/* exec_envp: environ, minus what the plugin's env overrides, plus it */
static char **exec_envp(const struct kube_config *c, char *info)
{
	size_t n = 0, k = 0, nadd = 0;
	char **envp;

	while (environ && environ[n])
		n++;
	while (c->exec_env && c->exec_env[nadd])
		nadd++;
	envp = xcalloc(n + nadd + 2, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		if (!env_overridden(environ[i], c->exec_env))
			envp[k++] = environ[i];
	for (size_t i = 0; i < nadd; i++)
		envp[k++] = c->exec_env[i];
	envp[k++] = info;
	envp[k] = NULL;
	return envp;
}

/* first_line: the first non-empty line of a plugin's stderr, for messages */
static void first_line(struct buf *out, const struct buf *in)
{
	buf_add_first_line(out, buf_cstr(in), 300);
}

static int set_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);
	return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

/* drain: read once from fd into b (up to max; the rest is dropped and
 * *over set); returns 1 at EOF or error, 2 when it would block, else 0 */
static int drain(int fd, struct buf *b, size_t max, int *over)
{
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR ? 0 : errno == EAGAIN ? 2 : 1;
	if (n == 0)
		return 1;
	if (b->len + (size_t)n > max) {
		if (over)
			*over = 1;
		n = (ssize_t)(max - b->len);
	}
	buf_add(b, chunk, (size_t)n);
	return 0;
}

static void describe_ms(struct buf *out, long ms)
{
	if (ms % 1000 == 0)
		buf_addf(out, "%ld s", ms / 1000);
	else
		buf_addf(out, "%ld ms", ms);
}

/*
 * run_plugin: spawn, collect stdout/stderr, wait. On failure the message is
 * complete except for the subject ("exec plugin 'x' of user 'u'"), which
 * the caller adds.
 */
/* start the plugin with stdout and stderr on pipes (the read ends in
 * opipe[0], epipe[0]; the write ends closed here) */
static int spawn_plugin(const struct kube_config *c, char **envp,
			int opipe[2], int epipe[2], pid_t *pid,
			struct err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigs;
	int rc;

	if (pipe(opipe) < 0 || pipe(epipe) < 0)
		return err_errno(err, "cannot create a pipe");
	set_cloexec(opipe[0]);
	set_cloexec(epipe[0]);
	set_cloexec(opipe[1]);
	set_cloexec(epipe[1]);
	if (posix_spawn_file_actions_init(&fa))
		return err_set(err, ERR_IO, "cannot prepare to run it");
	if (posix_spawnattr_init(&attr)) {
		posix_spawn_file_actions_destroy(&fa);
		return err_set(err, ERR_IO, "cannot prepare to run it");
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, opipe[1], 1);
	posix_spawn_file_actions_adddup2(&fa, epipe[1], 2);
	/* its own process group, so a timeout kills its children too; the
	 * default disposition for every signal we might be ignoring */
	posix_spawnattr_setpgroup(&attr, 0);
	sigemptyset(&sigs);
	posix_spawnattr_setsigmask(&attr, &sigs);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGPIPE);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	posix_spawnattr_setsigdefault(&attr, &sigs);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
						POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(pid, c->exec_argv[0], &fa, &attr, c->exec_argv,
			  envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		*pid = -1;
		return err_set(err, ERR_AUTH, "cannot run it: %s%s",
			       strerror(rc),
			       rc == ENOENT ? " (is it installed and on PATH?)"
					    : "");
	}
	close(opipe[1]);
	close(epipe[1]);
	opipe[1] = epipe[1] = -1;
	return 0;
}

/*
 * read the plugin's stdout and stderr until both close or it exits, the
 * deadline passes (*timed_out) or stdout is too long (*over), then reap it
 * (killing its process group in the last two cases). -1 only for a failed
 * poll.
 */
static int read_plugin(pid_t pid, int ofd, int efd, long long deadline,
		       struct buf *out, struct buf *errout, int *status,
		       int *timed_out, int *over, struct err *err)
{
	struct pollfd pfd[2];
	int reaped = 0, rc;

	pfd[0].fd = ofd;
	pfd[1].fd = efd;
	pfd[0].events = pfd[1].events = POLLIN;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		long long left = deadline - mono_ms();
		int n;

		if (left <= 0) {
			*timed_out = 1;
			break;
		}
		/* wake up now and then: if the plugin exited but left a child
		 * holding the pipes, stop at what is there */
		n = poll(pfd, 2, (int)(left < 100 ? left : 100));
		if (n < 0 && errno != EINTR)
			return err_errno(err, "poll");
		for (int i = 0; n > 0 && i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			rc = drain(pfd[i].fd, i ? errout : out,
				   i ? KC_MAX_STDERR
				     : KUBECONFIG_EXEC_MAX_OUTPUT,
				   i ? NULL : over);
			if (rc == 1)
				pfd[i].fd = -1;
		}
		if (*over)
			break;
		if (!reaped && waitpid(pid, status, WNOHANG) == pid) {
			reaped = 1;
			/* take what is still buffered in the pipes, without
			 * waiting for grandchildren that may hold them */
			for (int i = 0; i < 2 && !*over; i++) {
				if (pfd[i].fd < 0)
					continue;
				fcntl(pfd[i].fd, F_SETFL,
				      fcntl(pfd[i].fd, F_GETFL) | O_NONBLOCK);
				do {
					rc = drain(
						pfd[i].fd, i ? errout : out,
						i ? KC_MAX_STDERR
						  : KUBECONFIG_EXEC_MAX_OUTPUT,
						i ? NULL : over);
				} while (rc == 0 && !*over);
				pfd[i].fd = -1;
			}
		}
	}
	if (*timed_out || *over) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (!reaped) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			reaped = 1;
			break;
		}
		if (mono_ms() >= deadline && !*timed_out) {
			*timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		{
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

static int run_plugin(const struct kube_config *c, long timeout_ms,
		      struct buf *out, struct buf *errout, int *status,
		      struct err *err)
{
	int opipe[2] = { -1, -1 }, epipe[2] = { -1, -1 };
	char *info = exec_info(c);
	char **envp = exec_envp(c, info);
	long long deadline = mono_ms() + timeout_ms;
	int over = 0, timed_out = 0, ret = -1;
	pid_t pid = -1;

	if (spawn_plugin(c, envp, opipe, epipe, &pid, err) < 0 ||
	    read_plugin(pid, opipe[0], epipe[0], deadline, out, errout,
			status, &timed_out, &over, err) < 0)
		goto out;
	if (timed_out) {
		struct buf d = BUF_INIT;
		describe_ms(&d, timeout_ms);
		err_set(err, ERR_AUTH, "it did not finish within %s",
			buf_cstr(&d));
		buf_release(&d);
		goto out;
	}
	if (over) {
		err_set(err, ERR_AUTH, "it wrote more than %u bytes to stdout",
			KUBECONFIG_EXEC_MAX_OUTPUT);
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (opipe[i] >= 0)
			close(opipe[i]);
		if (epipe[i] >= 0)
			close(epipe[i]);
	}
	free(envp);
	digest_wipe_str(info);
	return ret;
}

/* parse_cred: the ExecCredential on stdout; never quotes stdout */
static int parse_cred(struct kube_exec_cred *cred, const struct kube_config *c,
		      const struct buf *out, struct err *err)
{
	cJSON *j = cJSON_ParseWithLength(buf_cstr(out), out->len);
	const cJSON *api, *kind, *st, *tok, *cert, *key, *exp;
	int ret = -1;

	if (!cJSON_IsObject(j)) {
		err_set(err, ERR_AUTH,
			"it did not write an ExecCredential "
			"(JSON) to stdout");
		goto out;
	}
	api = cJSON_GetObjectItemCaseSensitive(j, "apiVersion");
	kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (!cJSON_IsString(kind) ||
	    strcmp(kind->valuestring, "ExecCredential")) {
		err_set(err, ERR_AUTH,
			"it did not write an ExecCredential "
			"to stdout (kind is not ExecCredential)");
		goto out;
	}
	if (!cJSON_IsString(api) ||
	    strcmp(api->valuestring, c->exec_api_version)) {
		err_set(err, ERR_AUTH,
			"it returned apiVersion '%.80s', but the "
			"kubeconfig asks for '%s'",
			cJSON_IsString(api) ? api->valuestring : "",
			c->exec_api_version);
		goto out;
	}
	st = cJSON_GetObjectItemCaseSensitive(j, "status");
	tok = cJSON_GetObjectItemCaseSensitive(st, "token");
	cert = cJSON_GetObjectItemCaseSensitive(st, "clientCertificateData");
	key = cJSON_GetObjectItemCaseSensitive(st, "clientKeyData");
	exp = cJSON_GetObjectItemCaseSensitive(st, "expirationTimestamp");
	if (cJSON_IsString(tok) && tok->valuestring[0])
		cred->token = xstrdup(tok->valuestring);
	if (cJSON_IsString(cert) && cert->valuestring[0] &&
	    cJSON_IsString(key) && key->valuestring[0]) {
		cred->cert_pem = xstrdup(cert->valuestring);
		cred->cert_len = strlen(cred->cert_pem);
		cred->key_pem = xstrdup(key->valuestring);
		cred->key_len = strlen(cred->key_pem);
	} else if (cJSON_IsString(cert) != cJSON_IsString(key)) {
		err_set(err, ERR_AUTH,
			"it returned only one of "
			"status.clientCertificateData and "
			"status.clientKeyData");
		goto out;
	}
	if (!cred->token && !cred->cert_pem) {
		err_set(err, ERR_AUTH,
			"it returned neither status.token nor a "
			"client certificate");
		goto out;
	}
	if (cJSON_IsString(exp) && exp->valuestring[0]) {
		if (time_parse_rfc3339(exp->valuestring, &cred->expires, NULL) < 0) {
			err_set(err, ERR_AUTH,
				"it returned an invalid "
				"status.expirationTimestamp '%.40s'",
				exp->valuestring);
			goto out;
		}
	} else if (exp && !cJSON_IsNull(exp) && !cJSON_IsString(exp)) {
		err_set(err, ERR_AUTH,
			"its status.expirationTimestamp is not "
			"a string");
		goto out;
	}
	ret = 0;
out:
	cJSON_Delete(j);
	return ret;
}

int kubeconfig_exec(struct kube_exec_cred *out, const struct kube_config *c,
		    long timeout_ms, struct err *err)
{
	struct kube_exec_cred cred = KUBE_EXEC_CRED_INIT;
	struct buf so = BUF_INIT, se = BUF_INIT;
	int status = 0, ret = -1;

	if (!c->exec_argv || !c->exec_argv[0] || !c->exec_api_version)
		return err_set(err, ERR_INTERNAL,
			       "user '%s' has no exec credential plugin",
			       c->user ? c->user : "");
	if (timeout_ms <= 0)
		timeout_ms = KUBECONFIG_EXEC_TIMEOUT_MS;
	if (run_plugin(c, timeout_ms, &so, &se, &status, err) < 0)
		goto fail;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		struct buf line = BUF_INIT;

		first_line(&line, &se);
		if (WIFSIGNALED(status))
			err_set(err, ERR_AUTH, "it was killed by signal %d",
				WTERMSIG(status));
		else
			err_set(err, ERR_AUTH, "it failed with exit status %d",
				WEXITSTATUS(status));
		if (line.len)
			buf_addf(&err->msg, ": %s", buf_cstr(&line));
		else
			buf_adds(&err->msg, " and wrote nothing to stderr");
		buf_release(&line);
		goto fail;
	}
	if (parse_cred(&cred, c, &so, err) < 0)
		goto fail;
	*out = cred;
	cred = (struct kube_exec_cred)KUBE_EXEC_CRED_INIT;
	ret = 0;
	goto out;
fail:
	err_wrap(err, "exec plugin '%s' of user '%s'", c->exec_argv[0],
		 c->user ? c->user : "");
out:
	kube_exec_cred_release(&cred);
	digest_wipe_release(&so);
	buf_release(&se);
	return ret;
}
