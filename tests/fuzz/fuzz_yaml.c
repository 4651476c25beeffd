/*
 * tests/fuzz/fuzz_yaml.c: the YAML reader and the emitter (util/yaml.h).
 *
 * yaml_parse() on the input; for every document that converts with
 * yaml_to_json(), yaml_emit() the result and parse it back: the round trip
 * must give one document that converts to an equal cJSON value
 * (cJSON_Compare). Anything else aborts: the emitter wrote text that reads
 * back differently, or not at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "util/yaml.h"
#include "util/buf.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip_fail(const char *what, const cJSON *orig,
			   const struct buf *emitted, const struct err *err)
{
	char *j = cJSON_PrintUnformatted(orig);

	fprintf(stderr,
		"fuzz_yaml: round trip: %s\n  value:   %s\n  emitted: "
		"<<<%s>>>\n  error:   %s\n",
		what, j ? j : "(unprintable)", buf_cstr(emitted),
		err ? err_msg(err) : "");
	cJSON_free(j);
	abort();
}

static void roundtrip(const cJSON *orig)
{
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	struct ystream back = YSTREAM_INIT;
	cJSON *again = NULL;

	if (yaml_emit(&out, orig, &err) < 0) {
		/* strings are valid UTF-8 (libyaml's reader checked them), so
		 * every failure here is the emitter's */
		roundtrip_fail("yaml_emit failed", orig, &out, &err);
	}
	if (yaml_parse(&back, buf_cstr(&out), out.len, "emitted", &err) < 0)
		roundtrip_fail("the emitted YAML does not parse", orig, &out,
			       &err);
	if (back.nr != 1)
		roundtrip_fail("the emitted YAML is not one document", orig,
			       &out, NULL);
	if (yaml_to_json(&again, back.docs[0].root, "emitted", &err) < 0)
		roundtrip_fail("the emitted YAML does not convert", orig, &out,
			       &err);
	if (!cJSON_Compare(orig, again, 1)) {
		char *j = cJSON_PrintUnformatted(again);
		fprintf(stderr, "fuzz_yaml: read back as: %s\n",
			j ? j : "(unprintable)");
		cJSON_free(j);
		roundtrip_fail("the emitted YAML reads back differently", orig,
			       &out, NULL);
	}
	cJSON_Delete(again);
	ystream_release(&back);
	buf_release(&out);
	err_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;

	if (yaml_parse(&ys, (const char *)data, size, "fuzz.yaml", &err) == 0) {
		for (size_t i = 0; i < ys.nr; i++) {
			cJSON *j = NULL;

			if (yaml_to_json(&j, ys.docs[i].root, "fuzz.yaml",
					 &err) < 0) {
				err_clear(&err);
				continue;
			}
			roundtrip(j);
			cJSON_Delete(j);
		}
	}
	ystream_release(&ys);
	err_release(&err);
	return 0;
}
