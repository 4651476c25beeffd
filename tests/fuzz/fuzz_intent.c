/*
 * tests/fuzz/fuzz_intent.c: the whole render chain on one intent file.
 *
 * pipeline_render() (YAML reader, intent reader, validation, planning,
 * templates, rendering, the CRD rule check), then, when it succeeded, both
 * output shapes: render_stream() (YAML and JSON) and render_tree().
 *
 * Besides the sanitizers, this target aborts on broken contracts:
 *  - pipeline_render() failing without an error diagnostic and without a
 *    failure that the input explains (ERR_INVALID with a diagnostic);
 *  - ERR_INTERNAL from any call ("should be unreachable");
 *  - render_stream()/render_tree() failing on what pipeline_render()
 *    accepted;
 *  - the rendered YAML stream not parsing back (yaml_parse).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "generator/pipeline.h"
#include "generator/render.h"
#include "generator/tmpl.h"
#include "util/yaml.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"
#include "util/fs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tmpl_set *templates;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err err = ERR_INIT;

	if (tmpl_set_load(&templates, NULL, &err) < 0) {
		fprintf(stderr, "fuzz_intent: built-in templates: %s\n",
			err_msg(&err));
		abort();
	}
	err_release(&err);
	return 0;
}

static void finding(const char *what, const struct err *err,
		    const struct diags *d)
{
	struct buf b = BUF_INIT;

	diags_format(d, &b);
	fprintf(stderr, "fuzz_intent: %s: [code %d] %s\n%s", what,
		(int)err->code, err_msg(err), buf_cstr(&b));
	buf_release(&b);
	abort();
}

static void outputs(const struct rendered *r, const struct diags *d)
{
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	struct fs_tree tree = FS_TREE_INIT;
	struct ystream ys = YSTREAM_INIT;

	if (render_stream(&out, r, RENDER_YAML, &err) < 0)
		finding("render_stream(yaml) failed on an accepted intent",
			&err, d);
	if (yaml_parse(&ys, buf_cstr(&out), out.len, "rendered", &err) < 0)
		finding("the rendered YAML stream does not parse back", &err,
			d);
	ystream_release(&ys);
	buf_reset(&out);
	if (render_stream(&out, r, RENDER_JSON, &err) < 0)
		finding("render_stream(json) failed on an accepted intent",
			&err, d);
	buf_release(&out);
	if (render_tree(&tree, r, "fuzz/", templates, RENDER_YAML, &err) < 0)
		finding("render_tree failed on an accepted intent", &err, d);
	fs_tree_release(&tree);
	err_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rendered r = RENDERED_INIT;
	struct diags d = DIAGS_INIT;
	struct err err = ERR_INIT;
	int ret;

	ret = pipeline_render(&r, "fuzz.yaml", (const char *)data, size,
			      templates, &d, &err);
	if (ret == 0) {
		outputs(&r, &d);
	} else {
		if (err.code == ERR_INTERNAL)
			finding("pipeline_render: internal error", &err, &d);
		if (d.errors == 0)
			finding("pipeline_render failed without an error "
				"diagnostic",
				&err, &d);
	}
	{
		/* the message formatting runs on every failure in the CLI */
		struct buf b = BUF_INIT;
		diags_sort(&d);
		diags_format(&d, &b);
		buf_release(&b);
	}
	rendered_release(&r);
	diags_release(&d);
	err_release(&err);
	return 0;
}
