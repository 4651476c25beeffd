/*
 * tests/fuzz/fuzz_json_response.c: server-shaped JSON through the code that
 * walks arbitrary objects: check_object() (generator/crdrules.h), which
 * reconcile runs on every object it is about to apply (hand-written or
 * edited files included) and render runs on every rendered object.
 *
 * The input is parsed with cJSON_ParseWithLength (invalid JSON is skipped).
 * check_object() runs on the value itself and, for a List
 * ({"items": [...]}, what a list request returns), on each item; then the
 * diagnostics are formatted as the CLI would. Also yaml_emit() of the value
 * (what `gpuform diff` and the reports print of server objects).
 *
 * The Kubernetes client's own reading of responses (discovery documents,
 * Status messages, apply conflicts, list pages: kube/kubejson.c) is
 * fuzz_kube_response.c's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "generator/crdrules.h"
#include "util/yaml.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_maps(const cJSON *j)
{
	const cJSON *k;
	size_t n = cJSON_IsObject(j);

	cJSON_ArrayForEach(k, j)
	{
		n += count_maps(k);
	}
	return n;
}

/* nth_map: the n-th map of j in depth-first order (*n counts down) */
static cJSON *nth_map(cJSON *j, size_t *n)
{
	cJSON *k, *r;

	if (cJSON_IsObject(j) && (*n)-- == 0)
		return j;
	cJSON_ArrayForEach(k, j)
	{
		if ((r = nth_map(k, n)))
			return r;
	}
	return NULL;
}

static void check_as_list(const cJSON *j, size_t which, struct diags *d)
{
	cJSON *copy = cJSON_Duplicate(j, 1), *m, *k;

	if (!copy)
		return;
	m = nth_map(copy, &which);
	if (m) {
		m->type = (m->type & ~0xff) | cJSON_Array;
		cJSON_ArrayForEach(k, m)
		{
			if (!(k->type & cJSON_StringIsConst))
				cJSON_free(k->string);
			k->string = NULL;
			k->type &= ~cJSON_StringIsConst;
		}
		check_object(copy, "fuzz.json (a map as a list)", d);
	}
	cJSON_Delete(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *j = cJSON_ParseWithLength((const char *)data, size);
	struct diags d = DIAGS_INIT;
	const cJSON *item;

	if (!j)
		return 0;
	check_object(j, "fuzz.json", &d);
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(j, "items"))
	{
		check_object(item, "fuzz.json items[]", &d);
	}
	{
		size_t maps = count_maps(j), h = 5381;

		for (size_t i = 0; i < size; i++)
			h = h * 33 + data[i];
		if (maps) {
			check_as_list(j, h % maps, &d);
			check_as_list(j, (h / maps) % maps, &d);
		}
	}
	{
		struct buf b = BUF_INIT;
		struct err err = ERR_INIT;

		diags_sort(&d);
		diags_format(&d, &b);
		buf_reset(&b);
		yaml_emit(&b, j, &err); /* may refuse invalid UTF-8 */
		buf_release(&b);
		err_release(&err);
	}
	diags_release(&d);
	cJSON_Delete(j);
	return 0;
}
