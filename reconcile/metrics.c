/*
 * reconcile/metrics.c: Prometheus text format (see metrics.h).
 */
#include "reconcile/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/http.h"
#include "util/xalloc.h"

const char *const metrics_result_names[] = { "success", "failed", "locked",
					       "held" };

void metrics_escape(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			buf_adds(out, "\\\\");
		else if (*s == '"')
			buf_adds(out, "\\\"");
		else if (*s == '\n')
			buf_adds(out, "\\n");
		else
			buf_addc(out, *s);
	}
}

static void head(struct buf *out, const char *name, const char *type,
		 const char *help)
{
	buf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{cluster="c"[,key="value"]} v */
static void sample(struct buf *out, const char *name, const char *cluster,
		   const char *key, const char *value, double v)
{
	buf_addf(out, "%s{cluster=\"", name);
	metrics_escape(out, cluster);
	buf_addc(out, '"');
	if (key) {
		buf_addf(out, ",%s=\"", key);
		metrics_escape(out, value);
		buf_addc(out, '"');
	}
	if (v == (double)(long long)v && v < 1e15 && v > -1e15)
		buf_addf(out, "} %lld\n", (long long)v);
	else
		buf_addf(out, "} %.6f\n", v);
}

void metrics_format(struct buf *out, const struct metrics_run *m)
{
	const char *c = m->cluster ? m->cluster : "";
	const struct kube_stats *s = &m->stats;
	const struct {
		const char *type;
		long n;
	} req[] = {
		{ "get", s->gets },       { "list", s->lists },
		{ "apply", s->applies },  { "dry_run", s->dry_runs },
		{ "delete", s->deletes }, { "create", s->creates },
		{ "other", s->others },   { "retry", s->retries },
	};

	head(out, "gpuform_runs_total", "counter", "Reconcile runs by result.");
	for (int r = 0; r < MR_MAX; r++)
		sample(out, "gpuform_runs_total", c, "result",
		       metrics_result_names[r],
		       m->runs_before[r] + (m->result == (enum metrics_result)r));
	head(out, "gpuform_errors_total", "counter",
	     "Errors: failed runs plus objects that failed.");
	sample(out, "gpuform_errors_total", c, NULL, NULL,
	       m->errors_before + (double)m->errors);
	head(out, "gpuform_last_run_timestamp_seconds", "gauge",
	     "When the last run started (Unix time).");
	sample(out, "gpuform_last_run_timestamp_seconds", c, NULL, NULL,
	       (double)(long long)m->start);
	head(out, "gpuform_last_run_success", "gauge",
	     "1 if the last run succeeded (or found the lock held, or held a "
	     "node-replacing change back), else 0.");
	sample(out, "gpuform_last_run_success", c, NULL, NULL,
	       m->result != MR_FAILED);
	head(out, "gpuform_last_run_held", "gauge",
	     "1 if the last run held a node-replacing change back until its "
	     "maintenance window, else 0.");
	sample(out, "gpuform_last_run_held", c, NULL, NULL,
	       m->result == MR_HELD);
	head(out, "gpuform_run_duration_seconds", "gauge",
	     "Duration of the last run.");
	sample(out, "gpuform_run_duration_seconds", c, NULL, NULL,
	       (double)(long long)(m->duration_s * 1000) / 1000);
	head(out, "gpuform_objects", "gauge",
	     "Objects of the last run by result.");
	for (int a = 0; a < RA_MAX; a++)
		sample(out, "gpuform_objects", c, "result",
		       recon_action_names[a], (double)m->counts[a]);
	head(out, "gpuform_drift_corrected_objects", "gauge",
	     "Objects the last run changed back to the desired state.");
	sample(out, "gpuform_drift_corrected_objects", c, NULL, NULL,
	       (double)m->counts[RA_CONFIGURED]);
	head(out, "gpuform_api_requests", "gauge",
	     "Kubernetes API requests of the last run by type.");
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		sample(out, "gpuform_api_requests", c, "type", req[i].type,
		       (double)req[i].n);
	head(out, "gpuform_run_errors", "gauge", "Errors of the last run.");
	sample(out, "gpuform_run_errors", c, NULL, NULL, (double)m->errors);
}

/* the value of `name{cluster="c"[,result="r"]}` in text, or -1 */
static double find_sample(const char *text, const char *name,
			  const char *cluster, const char *result)
{
	struct buf want = BUF_INIT;
	const char *p;
	double v = -1;

	buf_addf(&want, "%s{cluster=\"", name);
	metrics_escape(&want, cluster);
	buf_addc(&want, '"');
	if (result)
		buf_addf(&want, ",result=\"%s\"", result);
	buf_adds(&want, "} ");
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, want.ptr, want.len)) {
			char *end;
			double x = strtod(p + want.len, &end);
			if (end != p + want.len && (*end == '\n' || !*end) && x >= 0)
				v = x;
			break;
		}
	buf_release(&want);
	return v;
}

void metrics_carry(struct metrics_run *m, const char *previous)
{
	const char *c = m->cluster ? m->cluster : "";
	double v;

	if (!previous)
		return;
	for (int r = 0; r < MR_MAX; r++)
		if ((v = find_sample(previous, "gpuform_runs_total", c,
				     metrics_result_names[r])) >= 0)
			m->runs_before[r] = v;
	if ((v = find_sample(previous, "gpuform_errors_total", c, NULL)) >= 0)
		m->errors_before = v;
}

int metrics_write_file(const char *path, const struct buf *text,
		       struct err *err)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp), ret = -1;
	size_t off = 0;

	if (fd < 0) {
		err_errno(err, "cannot write metrics file '%s'", path);
		free(tmp);
		return -1;
	}
	while (off < text->len) {
		ssize_t w = write(fd, text->ptr + off, text->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_errno(err, "cannot write metrics file '%s'", path);
			goto out;
		}
		off += (size_t)w;
	}
	/* readable like any textfile-collector file (mkstemp made it 0600) */
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		err_errno(err, "cannot write metrics file '%s'", path);
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		err_errno(err, "cannot write metrics file '%s'", path);
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		err_errno(err, "cannot write metrics file '%s'", path);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int metrics_push(const char *gateway, const char *cluster,
		 const struct buf *text, long timeout_ms, struct err *err)
{
	struct buf url = BUF_INIT;
	size_t n = strlen(gateway);
	long status;
	int ret;

	while (n && gateway[n - 1] == '/')
		n--;
	buf_add(&url, gateway, n);
	buf_adds(&url, "/metrics/job/gpuform");
	if (cluster && *cluster)
		buf_addf(&url, "/cluster/%s", cluster);
	ret = http_send("PUT", buf_cstr(&url),
			"text/plain; version=0.0.4; charset=utf-8",
			buf_cstr(text), text->len, timeout_ms, &status, err);
	buf_release(&url);
	return ret;
}
