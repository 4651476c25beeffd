/*
 * util/json.h: the cJSON getters every layer uses on Kubernetes objects,
 * once. Each is NULL-safe: a missing key, a NULL or non-object parent, or
 * a value of another type gives NULL.
 */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <cjson/cJSON.h>

/* json_get: o[k] when o is an object */
const cJSON *json_get(const cJSON *o, const char *k);
/* json_at: o[a][b]; b NULL: o[a] */
const cJSON *json_at(const cJSON *o, const char *a, const char *b);
/* json_str: the string o[k] */
const char *json_str(const cJSON *o, const char *k);
/* json_str_at: the string o[a][b] ("metadata", "name"); b NULL: o[a] */
const char *json_str_at(const cJSON *o, const char *a, const char *b);
/* json_text_at: the same, "" instead of NULL (for comparing and printing) */
const char *json_text_at(const cJSON *o, const char *a, const char *b);
/* json_meta_at: the string o.metadata[a][b] ("labels", key); b NULL:
 * o.metadata[a] ("name") */
const char *json_meta_at(const cJSON *o, const char *a, const char *b);
/* json_num_at: the number o[a][b] (b NULL: o[a]); 0 when missing or not a number */
double json_num_at(const cJSON *o, const char *a, const char *b);

#endif
