/*
 * tests/unit/test_kubejson.c: kube/kubejson.c -- what the Kubernetes
 * client makes of response bodies. The JSON below is what kube-apiserver
 * v1.20.2 (tests/kube-testenv) sent, shortened; tests/kube-client.sh checks
 * the same paths against the real server.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kubejson.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"

static const struct kube_resource np = { (char *)"karpenter.sh", (char *)"v1",
					 (char *)"NodePool",
					 (char *)"nodepools", 0 };
static const struct kube_resource cm = { (char *)"", (char *)"v1",
					 (char *)"ConfigMap",
					 (char *)"configmaps", 1 };

static cJSON *parse(const char *s)
{
	return kubejson_parse(s, strlen(s));
}

START_TEST(test_parse)
{
	cJSON *j;

	ck_assert_ptr_null(kubejson_parse(NULL, 0));
	ck_assert_ptr_null(kubejson_parse("", 0));
	ck_assert_ptr_null(parse("not json"));
	ck_assert_ptr_null(parse("{\"a\":"));
	/* only len bytes count */
	ck_assert_ptr_null(kubejson_parse("{\"a\":1}", 4));
	j = parse("{\"a\":1}");
	ck_assert(cJSON_IsObject(j));
	cJSON_Delete(j);
}
END_TEST

START_TEST(test_reason)
{
	ck_assert_str_eq(kubejson_reason(404), "Not Found");
	ck_assert_str_eq(kubejson_reason(409), "Conflict");
	ck_assert_str_eq(kubejson_reason(422), "Unprocessable Entity");
	ck_assert_str_eq(kubejson_reason(299), "");
	ck_assert_str_eq(kubejson_reason(-1), "");
}
END_TEST

START_TEST(test_message)
{
	const char *st =
		"{\"kind\":\"Status\",\"message\":\"nodepools.karpenter"
		".sh \\\"x\\\" not found\",\"code\":404}";
	const char *text = "\n  \nupstream reset\x01 before headers\nmore\n";
	struct buf m = BUF_INIT;
	cJSON *j = parse(st);

	kubejson_message(&m, st, j);
	ck_assert_str_eq(buf_cstr(&m),
			 "nodepools.karpenter.sh \"x\" not found");
	cJSON_Delete(j);
	/* not JSON: the first non-blank line, unprintable bytes as '?' */
	buf_reset(&m);
	kubejson_message(&m, text, NULL);
	ck_assert_str_eq(buf_cstr(&m), "upstream reset? before headers");
	/* an empty or non-string message: the body's first line */
	buf_reset(&m);
	j = parse("{\"message\":\"\"}");
	kubejson_message(&m, "{\"message\":\"\"}", j);
	ck_assert_str_eq(buf_cstr(&m), "{\"message\":\"\"}");
	cJSON_Delete(j);
	buf_reset(&m);
	j = parse("{\"message\":7}");
	kubejson_message(&m, "{\"message\":7}", j);
	ck_assert_str_eq(buf_cstr(&m), "{\"message\":7}");
	cJSON_Delete(j);
	/* nothing at all */
	buf_reset(&m);
	kubejson_message(&m, "", NULL);
	kubejson_message(&m, NULL, NULL);
	ck_assert_uint_eq(m.len, 0);
	buf_release(&m);
}
END_TEST

START_TEST(test_http_fail)
{
	const char *b401 = "{\"kind\":\"Status\",\"message\":\"Unauthorized\","
			   "\"code\":401}";
	const char *b403 = "{\"message\":\"nodepools is forbidden: User "
			   "\\\"tool\\\" cannot list\"}";
	const char *b404 = "{\"message\":\"nodepools.karpenter.sh \\\"a\\\" "
			   "not found\"}";
	struct err e = ERR_INIT;
	cJSON *j = parse(b401);

	ck_assert_int_eq(kubejson_http_fail("get NodePool/a", 401, b401, j,
					    "https://127.0.0.1:6443", "admin",
					    &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_str_eq(
		buf_cstr(&e.msg),
		"the API server at https://127.0.0.1:6443 rejected the "
		"credentials of user 'admin' (401 Unauthorized)");
	cJSON_Delete(j);
	err_release(&e);

	j = parse(b403);
	kubejson_http_fail("list nodepools", 403, b403, j, "s", "tool", &e);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_str_eq(buf_cstr(&e.msg),
			 "nodepools is forbidden: User "
			 "\"tool\" cannot list (403 Forbidden)");
	cJSON_Delete(j);
	err_release(&e);
	kubejson_http_fail("list nodepools", 403, "", NULL, "s", "tool", &e);
	ck_assert_str_eq(buf_cstr(&e.msg), "list nodepools: user 'tool' is not "
					   "allowed (403 Forbidden)");
	err_release(&e);

	j = parse(b404);
	kubejson_http_fail("delete NodePool/a", 404, b404, j, "s", "u", &e);
	ck_assert_int_eq(e.code, ERR_HTTP);
	ck_assert_str_eq(buf_cstr(&e.msg),
			 "delete NodePool/a: nodepools.karpenter.sh \"a\" not "
			 "found (404 Not Found) from the API server at s");
	cJSON_Delete(j);
	err_release(&e);
	kubejson_http_fail("get x", 599, "", NULL, "s", "u", &e);
	ck_assert_str_eq(buf_cstr(&e.msg),
			 "get x: no message from the server (599) from the "
			 "API server at s");
	err_release(&e);
	kubejson_http_fail("get x", 502, "<html>\r\nbad gateway", NULL, "s",
			   "u", &e);
	ck_assert_str_eq(buf_cstr(&e.msg), "get x: <html> (502 Bad Gateway) "
					   "from the API server at s");
	err_release(&e);
}
END_TEST

START_TEST(test_object)
{
	struct err e = ERR_INIT;
	cJSON *o = NULL;

	ck_assert_int_eq(kubejson_object("{\"kind\":\"NodePool\"}", 19,
					 "get NodePool/a", &o, &e),
			 0);
	ck_assert(cJSON_IsObject(o));
	cJSON_Delete(o);
	o = NULL;
	ck_assert_int_eq(kubejson_object("[1]", 3, "get NodePool/a", &o, &e),
			 -1);
	ck_assert_ptr_null(o);
	ck_assert_int_eq(e.code, ERR_HTTP);
	ck_assert_str_eq(buf_cstr(&e.msg), "get NodePool/a: the API server did "
					   "not answer with a JSON object");
	err_release(&e);
	ck_assert_int_eq(kubejson_object("", 0, "get x", &o, &e), -1);
	err_release(&e);
	ck_assert_int_eq(kubejson_object("{\"a\":1", 6, "get x", &o, &e), -1);
	err_release(&e);
}
END_TEST

START_TEST(test_discovery)
{
	const char *doc =
		"{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\","
		"\"groupVersion\":\"karpenter.sh/v1\",\"resources\":["
		"{\"name\":\"nodepools\",\"singularName\":\"nodepool\","
		"\"namespaced\":false,\"kind\":\"NodePool\",\"verbs\":[\"get\"]"
		"},"
		"{\"name\":\"nodepools/status\",\"namespaced\":false,"
		"\"kind\":\"NodePool\"},"
		"{\"name\":\"localqueues\",\"namespaced\":true,"
		"\"kind\":\"LocalQueue\"},"
		"{\"name\":7,\"kind\":\"Broken\"},"
		"{\"name\":\"nokind\"},"
		"\"junk\",null]}";
	struct kube_resource *res = (struct kube_resource *)1;
	struct err e = ERR_INIT;
	size_t nr = 99;
	cJSON *j = parse(doc);

	ck_assert_int_eq(
		kubejson_discovery(j, "karpenter.sh", "v1", "d", &res, &nr, &e),
		0);
	ck_assert_uint_eq(nr, 2);
	ck_assert_str_eq(res[0].group, "karpenter.sh");
	ck_assert_str_eq(res[0].version, "v1");
	ck_assert_str_eq(res[0].kind, "NodePool");
	ck_assert_str_eq(res[0].resource, "nodepools");
	ck_assert_int_eq(res[0].namespaced, 0);
	ck_assert_str_eq(res[1].kind, "LocalQueue");
	ck_assert_int_eq(res[1].namespaced, 1);
	kubejson_resources_free(res, nr);
	cJSON_Delete(j);

	/* an empty list is fine: nothing served */
	j = parse("{\"resources\":[]}");
	ck_assert_int_eq(kubejson_discovery(j, "", "v1", "d", &res, &nr, &e),
			 0);
	ck_assert_uint_eq(nr, 0);
	kubejson_resources_free(res, nr);
	cJSON_Delete(j);

	/* no resources array (or no JSON at all): an error, outputs kept */
	res = (struct kube_resource *)1;
	nr = 99;
	j = parse("{\"resources\":{}}");
	ck_assert_int_eq(kubejson_discovery(j, "", "v1", "discovery of v1",
					    &res, &nr, &e),
			 -1);
	ck_assert_int_eq(e.code, ERR_HTTP);
	ck_assert_str_eq(buf_cstr(&e.msg), "discovery of v1: the API server "
					   "sent no APIResourceList");
	ck_assert_ptr_eq(res, (struct kube_resource *)1);
	ck_assert_uint_eq(nr, 99);
	err_release(&e);
	cJSON_Delete(j);
	ck_assert_int_eq(kubejson_discovery(NULL, "", "v1", "d", &res, &nr, &e),
			 -1);
	err_release(&e);
}
END_TEST

START_TEST(test_typed)
{
	cJSON *o = parse("{\"metadata\":{\"name\":\"a\"},\"kind\":\"Wrong\","
			 "\"spec\":{},\"apiVersion\":\"x/v9\"}");
	char *s;

	o = kubejson_typed(o, &np);
	s = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(s, "{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			    "\"NodePool\",\"metadata\":{\"name\":\"a\"},"
			    "\"spec\":{}}");
	cJSON_free(s);
	cJSON_Delete(o);
	o = kubejson_typed(cJSON_CreateObject(), &cm);
	s = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(s, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}");
	cJSON_free(s);
	cJSON_Delete(o);
}
END_TEST

START_TEST(test_list_page)
{
	cJSON *items = cJSON_CreateArray();
	struct err e = ERR_INIT;
	char *cont = (char *)1, *s;
	cJSON *j =
		parse("{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
		      "\"NodePoolList\",\"metadata\":{\"resourceVersion\":"
		      "\"9\",\"continue\":\"eyJ2Ijo\"},\"items\":[{\"metadata"
		      "\":{\"name\":\"a\"}},7,\"x\",null,{\"metadata\":{"
		      "\"name\":\"b\"}}]}");

	ck_assert_int_eq(kubejson_list_page(j, &np, items, &cont, "list", &e),
			 0);
	ck_assert_str_eq(cont, "eyJ2Ijo");
	free(cont);
	cJSON_Delete(j);
	/* the second page: appended, no continue */
	j = parse("{\"metadata\":{\"continue\":\"\"},\"items\":[{\"metadata\":{"
		  "\"name\":\"c\"}}]}");
	ck_assert_int_eq(kubejson_list_page(j, &np, items, &cont, "list", &e),
			 0);
	ck_assert_ptr_null(cont);
	cJSON_Delete(j);
	s = cJSON_PrintUnformatted(items);
	ck_assert_str_eq(s, "[{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			    "\"NodePool\",\"metadata\":{\"name\":\"a\"}},{"
			    "\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			    "\"NodePool\",\"metadata\":{\"name\":\"b\"}},{"
			    "\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			    "\"NodePool\",\"metadata\":{\"name\":\"c\"}}]");
	cJSON_free(s);

	/* a non-string continue is none */
	j = parse("{\"items\":[],\"metadata\":{\"continue\":5}}");
	ck_assert_int_eq(kubejson_list_page(j, &np, items, &cont, "list", &e),
			 0);
	ck_assert_ptr_null(cont);
	ck_assert_int_eq(cJSON_GetArraySize(items), 3);
	cJSON_Delete(j);

	/* not a list: an error, items unchanged */
	const char *bad[] = { "{\"items\":{}}", "{\"kind\":\"Status\"}",
			      "[{\"items\":[]}]", "\"items\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = parse(bad[i]);
		cont = (char *)1;
		ck_assert_int_eq(kubejson_list_page(j, &np, items, &cont,
						    "list nodepools", &e),
				 -1);
		ck_assert_ptr_null(cont);
		ck_assert_int_eq(e.code, ERR_HTTP);
		ck_assert_str_eq(buf_cstr(&e.msg),
				 "list nodepools: the API server did not "
				 "answer with a list");
		err_release(&e);
		cJSON_Delete(j);
	}
	/* Fixed bug (kube/kubejson.c, kubejson_list_page): "items": null
	 * read as an empty page and a list of another kind was taken, so a
	 * short answer made every object look gone */
	{
		const char *shortl[] = {
			"{\"kind\":\"NodePoolList\",\"items\":null}",
			"{\"kind\":\"ConfigMapList\",\"items\":[{\"metadata\":{}}]}",
			"{\"kind\":\"NodePoolListX\",\"items\":[]}",
			"{\"kind\":7,\"items\":[]}",
		};
		for (size_t i = 0; i < 4; i++) {
			j = parse(shortl[i]);
			ck_assert_int_eq(kubejson_list_page(j, &np, items, &cont,
							    "list nodepools", &e),
					 -1);
			ck_assert_ptr_nonnull(strstr(buf_cstr(&e.msg),
						     i ? "another kind"
						       : "\"items\": null"));
			err_release(&e);
			cJSON_Delete(j);
		}
	}
	ck_assert_int_eq(kubejson_list_page(NULL, &np, items, &cont, "l", &e),
			 -1);
	err_release(&e);
	ck_assert_int_eq(cJSON_GetArraySize(items), 3);
	cJSON_Delete(items);
}
END_TEST

START_TEST(test_conflict)
{
	/* what v1.20.2 sends, plus an older message-only cause */
	const char *b =
		"{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
		"\"Apply "
		"failed with 2 "
		"conflicts\",\"reason\":\"Conflict\",\"details\":{"
		"\"causes\":[{\"reason\":\"FieldManagerConflict\",\"message\":"
		"\"conflict with \\\"gpuform\\\"\",\"field\":\".spec.limits."
		"nvidia.com/gpu\"},{\"message\":\"conflict with "
		"\\\"kubectl\\\" "
		"using v1: .spec.weight\"},{\"message\":7}]},\"code\":409}";
	struct err e = ERR_INIT;
	cJSON *j = parse(b);

	ck_assert_int_eq(kubejson_conflict("NodePool", "gpu", b, j, &e), -1);
	ck_assert_int_eq(e.code, ERR_CONFLICT);
	ck_assert_str_eq(
		buf_cstr(&e.msg),
		"conflict: NodePool/gpu: field .spec.limits.nvidia.com/"
		"gpu is managed by gpuform; conflict: NodePool/gpu: "
		"field .spec.weight is managed by kubectl; conflict: "
		"NodePool/gpu: field (unknown) is managed by another "
		"manager");
	err_release(&e);
	cJSON_Delete(j);

	/* no causes: the Status message, else the body's first line */
	j = parse("{\"message\":\"Operation cannot be fulfilled\"}");
	kubejson_conflict("ConfigMap", "c", "", j, &e);
	ck_assert_str_eq(buf_cstr(&e.msg), "conflict: ConfigMap/c: Operation "
					   "cannot be fulfilled");
	err_release(&e);
	cJSON_Delete(j);
	kubejson_conflict("ConfigMap", "c", "conflict\n", NULL, &e);
	ck_assert_str_eq(buf_cstr(&e.msg), "conflict: ConfigMap/c: conflict");
	err_release(&e);
	/* an unterminated manager name */
	j = parse("{\"details\":{\"causes\":[{\"message\":\"conflict with "
		  "\\\"abc\"}]}}");
	kubejson_conflict("K", "n", "", j, &e);
	ck_assert_str_eq(buf_cstr(&e.msg), "conflict: K/n: field (unknown) is "
					   "managed by another manager");
	err_release(&e);
	cJSON_Delete(j);
}
END_TEST

Suite *kubejson_suite(void)
{
	Suite *s = suite_create("kubejson");
	TCase *tc = tcase_create("kubejson");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_reason);
	tcase_add_test(tc, test_message);
	tcase_add_test(tc, test_http_fail);
	tcase_add_test(tc, test_object);
	tcase_add_test(tc, test_discovery);
	tcase_add_test(tc, test_typed);
	tcase_add_test(tc, test_list_page);
	tcase_add_test(tc, test_conflict);
	suite_add_tcase(s, tc);
	return s;
}
