/* reconcile/advrun.c: the run of `gpuform advise` (see advrun.h). */
#include "reconcile/advrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "generator/pipeline.h"
#include "git/gitpath.h"
#include "git/repo.h"
#include "util/fs.h"
#include "util/time.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* "14d", "7d", or a duration in h/m/s */
int advrun_parse_window(const char *s, long *out)
{
	double v;
	char *end;
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == 'd') {
		long d = strtol(s, &end, 10);
		if (end != s + n - 1 || d < 1 || d > 400)
			return -1;
		*out = d * 86400;
		return 0;
	}
	if (time_parse_duration(s, TIME_DUR_HMS, &v) < 0 || v < 1 ||
	    v > 400 * 86400.0)
		return -1;
	*out = (long)v;
	return 0;
}

int advrun_parse_at(const char *s, long long *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!errno && end != s && !*end && v > 0) {
		*out = v;
		return 0;
	}
	return time_parse_rfc3339(s, out, NULL);
}

void advrun_format(struct buf *out, const struct advrun *a,
		   enum advrun_format fmt)
{
	if (fmt == ADVRUN_JSON) {
		cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
		char *s;
		cJSON_AddStringToObject(o, "prometheus", a->prom.url);
		cJSON_AddNumberToObject(o, "windowSeconds", (double)a->window_s);
		cJSON_AddNumberToObject(o, "at", (double)a->at);
		for (size_t i = 0; i < a->n; i++)
			cJSON_AddItemToArray(arr, advise_json(a->files[i],
							      &a->in[i],
							      &a->res[i]));
		cJSON_AddItemToObject(o, "files", arr);
		if (!(s = cJSON_Print(o)))
			BUG("cJSON_Print failed");
		buf_adds(out, s);
		buf_addc(out, '\n');
		cJSON_free(s);
		cJSON_Delete(o);
		return;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (i)
			buf_addc(out, '\n');
		if (fmt == ADVRUN_MARKDOWN)
			advise_markdown(out, a->files[i], &a->in[i], &a->res[i]);
		else
			advise_text(out, a->files[i], &a->in[i], &a->res[i]);
	}
	if (fmt == ADVRUN_MARKDOWN)
		buf_addf(out, "\nFrom %s over %ld days before %lld "
			      "(Unix time); see docs/advise.md.\n",
			 a->prom.url, a->window_s / 86400, a->at);
}

int advrun_read(struct advrun *a, char **paths, size_t n, struct diags *d,
		struct err *err)
{
	enum err_code code = ERR_NONE;

	a->n = n;
	a->data = xcalloc(a->n, sizeof(*a->data));
	a->edited = xcalloc(a->n, sizeof(*a->edited));
	a->in = xcalloc(a->n, sizeof(*a->in));
	a->obs = xcalloc(a->n, sizeof(*a->obs));
	a->res = xcalloc(a->n, sizeof(*a->res));
	a->files = paths;
	for (size_t i = 0; i < a->n; i++) {
		struct err e = ERR_INIT;
		if (fs_read_file(&a->data[i], paths[i], YAML_MAX_INPUT, &e) < 0) {
			diags_add_file_err(d, paths[i], paths[i], &e);
			code = e.code == ERR_INVALID ? ERR_INVALID : ERR_IO;
			err_release(&e);
			intent_read(&a->in[i], paths[i], "", 0, d);
			continue;
		}
		intent_read(&a->in[i], paths[i], buf_cstr(&a->data[i]),
			    a->data[i].len, d);
		a->obs[i] = xcalloc(a->in[i].nworkloads + 1, sizeof(**a->obs));
	}
	if (d->errors && !code)
		code = ERR_INVALID;
	diags_sort(d);
	if (code)
		return err_set(err, code, "nothing was asked or written");
	return 0;
}

int advrun_decide(struct advrun *a, const struct advise_opts *o,
		  size_t *changes, struct err *err)
{
	*changes = 0;
	/* every query first: a Prometheus error prints and writes nothing */
	for (size_t i = 0; i < a->n; i++)
		if (prom_observe(&a->prom, &a->in[i], a->window_s, a->step_s,
				 a->at, a->obs[i], err) < 0) {
			err_wrap(err, "%s: nothing was written", a->files[i]);
			return -1;
		}
	for (size_t i = 0; i < a->n; i++) {
		if (advise_decide(&a->res[i], a->files[i], buf_cstr(&a->data[i]),
				  a->data[i].len, a->obs[i], a->in[i].nworkloads,
				  o, a->t, err) < 0)
			return -1;
		*changes += a->res[i].changes;
	}
	return 0;
}

/* all edits, each result validated before anything is written */
int advrun_edit(struct advrun *a, struct diags *d, struct err *err)
{
	for (size_t i = 0; i < a->n; i++) {
		struct diags one = DIAGS_INIT;

		if (!a->res[i].changes)
			continue;
		if (advise_edit(&a->edited[i], a->files[i],
				buf_cstr(&a->data[i]), a->data[i].len,
				&a->in[i], &a->res[i], (size_t)-1, err) < 0)
			return -1;
		if (pipeline_render(NULL, a->files[i], buf_cstr(&a->edited[i]),
				    a->edited[i].len, a->t, &one, err) < 0) {
			/* the problems of this one only */
			diags_release(d);
			*d = one;
			err_release(err);
			return err_set(err, ERR_INVALID,
				       "%s: the edited intent does not "
				       "validate; nothing was written",
				       a->files[i]);
		}
		diags_release(&one);
	}
	return 0;
}

int advrun_write(struct advrun *a, struct err *err)
{
	char **paths = xcalloc(a->n, sizeof(*paths));
	const char **data = xcalloc(a->n, sizeof(*data));
	size_t *len = xcalloc(a->n, sizeof(*len)), k = 0;
	int ret;

	for (size_t i = 0; i < a->n; i++)
		if (a->res[i].changes) {
			paths[k] = a->files[i];
			data[k] = buf_cstr(&a->edited[i]);
			len[k++] = a->edited[i].len;
		}
	ret = fs_replace_files(paths, data, len, k, err);
	free(paths);
	free(data);
	free(len);
	return ret;
}

int advrun_commit(struct advrun *a, size_t *nfiles, char *oid,
		  struct err *err)
{
	struct repo *r = NULL;
	struct repo_file *f = xcalloc(a->n, sizeof(*f));
	char **rel = xcalloc(a->n, sizeof(*rel));
	const char **files = xcalloc(a->n, sizeof(*files));
	const struct intent **ins = xcalloc(a->n, sizeof(*ins));
	const struct advise_result **rs = xcalloc(a->n, sizeof(*rs));
	struct buf msg = BUF_INIT, why = BUF_INIT;
	size_t k = 0;
	int ret = -1;

	if (repo_discover(&r, a->files[0], err) < 0)
		goto out;
	for (size_t i = 0; i < a->n; i++) {
		files[i] = a->files[i];
		ins[i] = &a->in[i];
		rs[i] = &a->res[i];
		if (!a->res[i].changes)
			continue;
		rel[k] = git_path(a->files[i], repo_workdir(r), 0, &why);
		if (!rel[k]) {
			err_set(err, ERR_INVALID, "%s", buf_cstr(&why));
			goto out;
		}
		f[k].path = rel[k];
		f[k].data = buf_cstr(&a->edited[i]);
		f[k].len = a->edited[i].len;
		k++;
	}
	advise_commit_message(&msg, files, ins, rs, a->n);
	buf_addf(&msg, "\nObserved by gpuform advise from %s over %ld days "
		       "before %lld (Unix time).\n",
		 a->prom.url, a->window_s / 86400, a->at);
	if (repo_commit_files(r, a->branch, NULL, f, k, buf_cstr(&msg), oid,
			      err) < 0)
		goto out;
	*nfiles = k;
	ret = 0;
out:
	for (size_t i = 0; i < k; i++)
		free(rel[i]);
	free(rel);
	free(f);
	free(files);
	free(ins);
	free(rs);
	buf_release(&msg);
	buf_release(&why);
	repo_free(r);
	return ret;
}

void advrun_release(struct advrun *a)
{
	for (size_t i = 0; a->data && i < a->n; i++) {
		buf_release(&a->data[i]);
		buf_release(&a->edited[i]);
		intent_release(&a->in[i]);
		free(a->obs[i]);
		advise_result_release(&a->res[i]);
	}
	free(a->data);
	free(a->edited);
	free(a->in);
	free(a->obs);
	free(a->res);
	tmpl_set_free(a->t);
	if (a->token.len)
		memset(a->token.ptr, 0, a->token.len);
	buf_release(&a->token);
}

#define TOKEN_MAX 16384
int advrun_token(struct advrun *a, struct err *err)
{
	size_t n;

	if (fs_read_file(&a->token, a->token_file, TOKEN_MAX, err) < 0) {
		err_wrap(err, "--prometheus-token-file");
		return -1;
	}
	n = a->token.len;
	while (n && strchr(" \t\r\n", a->token.ptr[n - 1]))
		n--;
	if (n)
		a->token.ptr[n] = '\0';
	a->token.len = n;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)a->token.ptr[i] < 0x20 ||
		    a->token.ptr[i] == 0x7f) {
			err_set(err, ERR_INVALID,
				"%s: the token has a control character or more "
				"than one line (byte %zu); give a file holding "
				"only the token",
				a->token_file, i + 1);
			return -1;
		}
	if (!n) {
		err_set(err, ERR_INVALID,
			"%s: the token file is empty; give a file holding the "
			"bearer token", a->token_file);
		return -1;
	}
	a->prom.token = a->token.ptr;
	return 0;
}
