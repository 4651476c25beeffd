/*
 * tests/fuzz/fuzz_template.c: template loading and substitution
 * (generator/tmpl.h).
 *
 * The input is a template text and a JSON context, split at the first NUL
 * byte or the first "\n---\n", whichever comes first (without either, the
 * whole input is the template and a fixed context is used). The template is
 * written as namespace.yaml into a per-process directory under /tmp and
 * loaded with tmpl_set_load(dir), which overrides the built-in
 * "namespace" template with it; the context is parsed with cJSON_Parse
 * (invalid JSON: the input is skipped after loading); then
 * tmpl_render("namespace") and yaml_emit() of the result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "generator/tmpl.h"
#include "util/yaml.h"
#include "util/buf.h"
#include "util/err.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[96];

static const char default_ctx[] =
	"{\"name\":\"ml\",\"namespace\":\"ml\",\"labels\":{\"app.kubernetes.io/"
	"managed-by\":\"gpuform\",\"gpuform.io/cluster\":\"prod\"},"
	"\"list\":[1,\"two\",true,null,{\"k\":\"v\"}],\"n\":3.5,\"empty\":null}";

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof(dir), "/tmp/gpuform-fuzz-tmpl.%ld",
		 (long)getpid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "fuzz_template: mkdir %s: %s\n", dir,
			strerror(errno));
		abort();
	}
	snprintf(path, sizeof(path), "%s/namespace.yaml", dir);
	atexit(cleanup);
	return 0;
}

static const uint8_t *find_sep(const uint8_t *data, size_t size,
			       size_t *sep_len)
{
	const uint8_t *nul = memchr(data, 0, size);
	const uint8_t *dash = NULL;

	for (size_t i = 0; i + 5 <= size; i++)
		if (!memcmp(data + i, "\n---\n", 5)) {
			dash = data + i;
			break;
		}
	if (nul && (!dash || nul < dash)) {
		*sep_len = 1;
		return nul;
	}
	*sep_len = 5;
	return dash;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sep_len = 0, tlen;
	const uint8_t *sep = find_sep(data, size, &sep_len);
	struct tmpl_set *t = NULL;
	struct err err = ERR_INIT;
	cJSON *ctx = NULL, *out = NULL;
	FILE *f;

	tlen = sep ? (size_t)(sep - data) : size;
	f = fopen(path, "wb");
	if (!f || (tlen && fwrite(data, 1, tlen, f) != tlen) || fclose(f)) {
		fprintf(stderr, "fuzz_template: cannot write %s\n", path);
		abort();
	}
	if (sep) {
		size_t clen = size - tlen - sep_len;
		char *text = malloc(clen + 1);
		memcpy(text, sep + sep_len, clen);
		text[clen] = '\0';
		ctx = cJSON_Parse(text);
		free(text);
	} else {
		ctx = cJSON_Parse(default_ctx);
	}
	if (tmpl_set_load(&t, dir, &err) < 0 || !ctx)
		goto out;
	if (tmpl_render(&out, t, "namespace", ctx, &err) == 0) {
		struct buf b = BUF_INIT;
		yaml_emit(&b, out, &err); /* may refuse invalid UTF-8 */
		buf_release(&b);
	}
out:
	cJSON_Delete(out);
	cJSON_Delete(ctx);
	tmpl_set_free(t);
	err_release(&err);
	return 0;
}
