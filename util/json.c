/* util/json.c: cJSON getters (see json.h). */
#include "util/json.h"

#include <stddef.h>

const cJSON *json_get(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

const cJSON *json_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = json_get(o, a);

	return b ? json_get(v, b) : v;
}

const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *json_str_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = json_at(o, a, b);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *json_text_at(const cJSON *o, const char *a, const char *b)
{
	const char *s = json_str_at(o, a, b);

	return s ? s : "";
}

const char *json_meta_at(const cJSON *o, const char *a, const char *b)
{
	return json_str_at(json_get(o, "metadata"), a, b);
}

double json_num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = json_at(o, a, b);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}
