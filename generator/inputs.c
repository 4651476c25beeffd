/* generator/inputs.c: render the intent files of a command line (see inputs.h). */
#include "generator/inputs.h"

#include <stdlib.h>
#include <string.h>

#include "generator/capplan.h"
#include "generator/pipeline.h"
#include "util/yaml.h"
#include "util/fs.h"
#include "util/xalloc.h"

int inputs_render(struct inputs *out, char **paths, size_t n,
		  const struct tmpl_set *t, int validate_only,
		  struct diags *d, struct err *err)
{
	int failed = 0, invalid = 0;

	out->items = xcalloc(n ? n : 1, sizeof(*out->items));
	out->nr = 0;
	for (size_t i = 0; i < n; i++) {
		struct input *in = &out->items[out->nr];
		struct buf data = BUF_INIT;
		struct err e = ERR_INIT;
		/* '-' is standard input, as for lint */
		int is_stdin = !strcmp(paths[i], "-");
		const char *name = is_stdin ? "<stdin>" : paths[i];

		if (fs_read_file(&data, is_stdin ? "/dev/stdin" : paths[i],
				 YAML_MAX_INPUT, &e) < 0) {
			diags_add_file_err(d, name, is_stdin ? "/dev/stdin"
							 : paths[i], &e);
			if (e.code == ERR_INVALID)
				invalid = 1;
			failed = 1;
			err_release(&e);
			buf_release(&data);
			continue;
		}
		size_t errors_before = d->errors;
		if (pipeline_render(validate_only ? NULL : &in->r, name,
				    buf_cstr(&data), data.len, t, d, &e) < 0) {
			if (e.code == ERR_INVALID)
				invalid = 1;
			/* diagnostics already say it, unless the failure came
			 * later (rendering, templates) */
			if (e.code != ERR_INVALID || d->errors == errors_before)
				diags_add(d, DIAG_ERROR, name, 0, 0, NULL,
					  "%s", err_msg(&e));
			failed = 1;
		} else {
			in->path = xstrdup(name);
			out->nr++;
		}
		err_release(&e);
		buf_release(&data);
	}
	if (!failed)
		return 0;
	return err_set(err, invalid ? ERR_INVALID : ERR_IO, "%zu error%s%s",
		       d->errors, d->errors == 1 ? "" : "s",
		       validate_only ? "" : "; nothing written");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int inputs_tree(const struct inputs *ins, const struct tmpl_set *t,
		enum render_format f, int per_cluster, struct fs_tree *out,
		struct err *err)
{
	struct buf root = BUF_INIT;
	const char **names;

	per_cluster = per_cluster || ins->nr > 1;
	for (size_t i = 0; i < ins->nr; i++) {
		char *prefix;
		int r;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(ins->items[j].r.cluster,
				    ins->items[i].r.cluster))
				return err_set(err, ERR_INVALID,
					       "'%s' and '%s' both describe "
					       "cluster '%s'; render them "
					       "separately",
					       ins->items[j].path,
					       ins->items[i].path,
					       ins->items[i].r.cluster);
		prefix = !per_cluster ? xstrdup("")
				      : xasprintf("%s/", ins->items[i].r.cluster);
		r = render_tree(out, &ins->items[i].r, prefix, t, f, err);
		free(prefix);
		if (r < 0)
			return -1;
	}
	if (per_cluster && ins->nr) {
		/*
		 * the top directory is ours too: mark it for the next run. It
		 * lists the cluster directories, never `resources: []`: a Flux
		 * Kustomization with prune: true pointed at it would delete
		 * everything it applied before (docs/commands.md, "Render
		 * directories and GitOps tools")
		 */
		names = xcalloc(ins->nr, sizeof(*names));
		for (size_t i = 0; i < ins->nr; i++)
			names[i] = ins->items[i].r.cluster;
		qsort(names, ins->nr, sizeof(*names), cmp_str);
		buf_adds(&root, RENDER_OWNER_PREFIX
			 "; one directory per cluster: point each cluster's\n"
			 "# Flux Kustomization or Argo CD Application at its "
			 "own directory\n"
			 "apiVersion: kustomize.config.k8s.io/v1beta1\n"
			 "kind: Kustomization\nresources:\n");
		for (size_t i = 0; i < ins->nr; i++)
			buf_addf(&root, "- %s\n", names[i]);
		free(names);
		{
			size_t len;
			char *data = buf_detach(&root, &len);
			fs_tree_add(out, RENDER_OWNER_FILE, data, len);
		}
	}
	fs_tree_sort(out);
	return 0;
}

void inputs_release(struct inputs *in)
{
	for (size_t i = 0; i < in->nr; i++) {
		free(in->items[i].path);
		rendered_release(&in->items[i].r);
	}
	free(in->items);
	in->items = NULL;
	in->nr = 0;
}

int inputs_stream(struct inputs *ins, enum render_format f,
		  void (*write)(void *ctx, const char *data, size_t len),
		  void *ctx, struct err *err)
{
	struct buf out = BUF_INIT;
	int ret = 0;

	if (f == RENDER_JSON) {
		for (size_t i = 0; i < ins->nr && !ret; i++)
			ret = render_stream(&out, &ins->items[i].r, f, err);
		if (!ret)
			write(ctx, out.ptr ? out.ptr : "", out.len);
		buf_release(&out);
		return ret;
	}
	/* YAML: write and free one object at a time */
	for (size_t i = 0, first = 1; i < ins->nr && !ret; i++) {
		cJSON *doc;
		while (!ret &&
		       (doc = cJSON_DetachItemFromArray(ins->items[i].r.docs, 0))) {
			buf_reset(&out);
			if (!first)
				buf_adds(&out, "---\n");
			first = 0;
			ret = yaml_emit(&out, doc, err);
			cJSON_Delete(doc);
			if (!ret)
				write(ctx, out.ptr, out.len);
		}
	}
	buf_release(&out);
	return ret;
}

void inputs_summary(const struct inputs *ins, const char *dir, int per_cluster,
		    struct buf *out)
{
	int sub = ins->nr > 1 || per_cluster;

	for (size_t i = 0; i < ins->nr; i++)
		buf_addf(out, "rendered %s: %d objects, %d add-on files -> %s%s%s\n",
			 ins->items[i].path,
			 cJSON_GetArraySize(ins->items[i].r.docs),
			 cJSON_GetArraySize(ins->items[i].r.addons), dir,
			 sub ? "/" : "", sub ? ins->items[i].r.cluster : "");
}

int inputs_plan(struct capplan *cp, char **paths, size_t n, struct diags *d,
		struct err *err)
{
	int invalid = 0, io = 0;

	for (size_t i = 0; i < n; i++) {
		int is_stdin = !strcmp(paths[i], "-");
		const char *name = is_stdin ? "<stdin>" : paths[i];
		struct buf data = BUF_INIT;
		struct err e = ERR_INIT;
		size_t before = d->errors;

		if (fs_read_file(&data, is_stdin ? "/dev/stdin" : paths[i],
				 YAML_MAX_INPUT, &e) < 0) {
			diags_add_file_err(d, name,
					   is_stdin ? "/dev/stdin" : paths[i], &e);
			if (e.code == ERR_INVALID)
				invalid = 1;
			else
				io = 1;
		} else if (capplan_add(cp, name, buf_cstr(&data), data.len,
				       d) < 0) {
			invalid = 1;
			if (d->errors == before)
				diags_add(d, DIAG_ERROR, name, 0, 0, NULL,
					  "not an intent that can be planned");
		}
		err_release(&e);
		buf_release(&data);
	}
	for (size_t i = 0; i < cp->n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(cp->c[i].name, cp->c[j].name)) {
				diags_add(d, DIAG_ERROR, cp->c[i].file, 0, 0,
					  "plan them separately",
					  "'%s' and '%s' both describe cluster "
					  "'%s'",
					  cp->c[j].file, cp->c[i].file,
					  cp->c[i].name);
				invalid = 1;
			}
	if (!invalid && !io)
		return 0;
	return err_set(err, invalid ? ERR_INVALID : ERR_IO,
		       "%zu error%s; no plan printed", d->errors,
		       d->errors == 1 ? "" : "s");
}
