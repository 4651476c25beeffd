/*
 * tests/fuzz/fuzz_kube_response.c: API server responses through what the
 * Kubernetes client makes of them (kube/kubejson.c), the way
 * kube/kube.c calls it for each operation.
 *
 * Input: one letter choosing the operation, three digits for the HTTP
 * status, then the response body, e.g. "l200{\"items\":[...]}". The seeds
 * in corpus/kube_response/ are real answers of kube-apiserver v1.20.2
 * (tests/kube-testenv) in that form. A first byte that is not one of the
 * letters picks an operation by its value; a status that is not three
 * digits is made of the bytes' values (so every input means something).
 *
 *   o  get / create answer: 404 = absent; 200 = kubejson_object(); else
 *      kubejson_http_fail()
 *   d  discovery: 200 = kubejson_discovery(); 404 = not served; else
 *      kubejson_http_fail()
 *   l  one List page: 200 = kubejson_list_page() (core and CRD resource,
 *      items printed back); else kubejson_http_fail()
 *   a  server-side apply: 200/201 = kubejson_object(); 409 =
 *      kubejson_conflict(); else kubejson_http_fail()
 *   w  delete / create failure: 409 = kubejson_message(); else
 *      kubejson_http_fail()
 *
 * Extra oracle (aborts): a failing call that sets no error class or an
 * empty message; a list page that reports success without an array of
 * objects each starting with apiVersion and kind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/kubejson.h"
#include "util/buf.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_fail_well(int rc, const struct err *e)
{
	if (rc != -1 || e->code == ERR_NONE || !e->msg.len)
		abort();
}

static void page(cJSON *j, const struct kube_resource *r, const char *body)
{
	cJSON *items = cJSON_CreateArray(), *it;
	struct err e = ERR_INIT;
	char *cont = NULL;

	if (kubejson_list_page(j, r, items, &cont, "list x", &e) < 0) {
		must_fail_well(-1, &e);
		if (cont || cJSON_GetArraySize(items))
			abort();
	} else {
		cJSON_ArrayForEach(it, items)
		{
			const cJSON *c = it->child;
			if (!cJSON_IsObject(it) || !c ||
			    strcmp(c->string, "apiVersion") || !c->next ||
			    strcmp(c->next->string, "kind"))
				abort();
		}
		char *s = cJSON_PrintUnformatted(items);
		cJSON_free(s);
	}
	(void)body;
	free(cont);
	cJSON_Delete(items);
	err_release(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char ops[] = "odlaw";
	struct kube_resource np = { (char *)"karpenter.sh", (char *)"v1",
				    (char *)"NodePool", (char *)"nodepools",
				    0 };
	struct kube_resource cm = { (char *)"", (char *)"v1",
				    (char *)"ConfigMap", (char *)"configmaps",
				    1 };
	struct err e = ERR_INIT;
	struct buf m = BUF_INIT;
	cJSON *j = NULL, *obj = NULL;
	char *body;
	size_t len;
	long status;
	int op, rc;

	if (size < 4)
		return 0;
	op = data[0] && strchr(ops, data[0]) ? data[0] : ops[data[0] % 5];
	if (data[1] >= '0' && data[1] <= '9' && data[2] >= '0' &&
	    data[2] <= '9' && data[3] >= '0' && data[3] <= '9')
		status = (data[1] - '0') * 100 + (data[2] - '0') * 10 +
			 (data[3] - '0');
	else
		status = ((long)data[1] << 16 | (long)data[2] << 8 | data[3]) -
			 (1L << 23);
	/* the body as kube.c holds it: NUL-terminated at len */
	len = size - 4;
	body = malloc(len + 1);
	if (!body)
		return 0;
	memcpy(body, data + 4, len);
	body[len] = '\0';

	switch (op) {
	case 'o':
		if (status == 404)
			break;
		if (status == 200) {
			rc = kubejson_object(body, len, "get x", &obj, &e);
			if (rc < 0)
				must_fail_well(rc, &e);
			else if (!cJSON_IsObject(obj))
				abort();
			break;
		}
		j = kubejson_parse(body, len);
		must_fail_well(kubejson_http_fail("get x", status, body, j,
						  "https://127.0.0.1:1", "u",
						  &e),
			       &e);
		break;
	case 'd':
		j = kubejson_parse(body, len);
		if (status == 200) {
			struct kube_resource *res = NULL;
			size_t nr = 0;

			rc = kubejson_discovery(j, "karpenter.sh", "v1",
						"discovery of x", &res, &nr,
						&e);
			if (rc < 0) {
				must_fail_well(rc, &e);
			} else {
				for (size_t i = 0; i < nr; i++)
					if (!res[i].kind || !res[i].resource ||
					    strchr(res[i].resource, '/'))
						abort();
				kubejson_resources_free(res, nr);
			}
		} else if (status != 404) {
			must_fail_well(kubejson_http_fail("discovery of x",
							  status, body, j, "s",
							  "u", &e),
				       &e);
		}
		break;
	case 'l':
		j = kubejson_parse(body, len);
		if (status == 200) {
			cJSON *copy = cJSON_Duplicate(j, 1);
			page(j, &np, body);
			page(copy, &cm, body);
			cJSON_Delete(copy);
		} else {
			must_fail_well(kubejson_http_fail("list x", status,
							  body, j, "s", "u",
							  &e),
				       &e);
		}
		break;
	case 'a':
		if (status == 200 || status == 201) {
			rc = kubejson_object(body, len, "apply x", &obj, &e);
			if (rc < 0)
				must_fail_well(rc, &e);
			break;
		}
		j = kubejson_parse(body, len);
		if (status == 409)
			must_fail_well(
				kubejson_conflict("NodePool", "x", body, j, &e),
				&e);
		else
			must_fail_well(kubejson_http_fail("apply x", status,
							  body, j, "s", "u",
							  &e),
				       &e);
		break;
	default: /* 'w' */
		j = kubejson_parse(body, len);
		if (status == 409)
			kubejson_message(&m, body, j);
		else
			must_fail_well(kubejson_http_fail("delete x", status,
							  body, j, "s", "u",
							  &e),
				       &e);
		break;
	}
	cJSON_Delete(j);
	cJSON_Delete(obj);
	buf_release(&m);
	err_release(&e);
	free(body);
	return 0;
}
