/*
 * tests/unit/test_kobj.c: generator/kobj.c — object identity, the rendered
 * kinds and their order.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/kobj.h"
#include "tests/unit/suites.h"

START_TEST(test_identity)
{
	cJSON *a = cJSON_Parse("{\"apiVersion\":\"karpenter.sh/v1\",\"kind\":"
			       "\"NodePool\",\"metadata\":{\"name\":\"gpu\","
			       "\"namespace\":\"\"}}");
	cJSON *b = cJSON_Parse("{\"apiVersion\":\"karpenter.sh/v1beta1\",\"kind\":"
			       "\"NodePool\",\"metadata\":{\"name\":\"gpu\"}}");
	cJSON *c = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
			       "\"metadata\":{\"name\":\"x\",\"namespace\":\"ns\"}}");
	struct kobj_id ia, ib, ic;
	struct buf k = BUF_INIT;
	char g[8];

	kobj_id_of(a, &ia);
	kobj_id_of(b, &ib);
	kobj_id_of(c, &ic);
	ck_assert_ptr_null(ia.ns); /* "" is no namespace */
	ck_assert(kobj_same(&ia, &ib)); /* another version, same object */
	ck_assert(!kobj_same(&ia, &ic));
	kobj_key(&ic, &k);
	ck_assert_str_eq(buf_cstr(&k), "\x1f" "ConfigMap\x1fns\x1fx");
	kobj_key(&ia, &k);
	ck_assert_str_eq(buf_cstr(&k), "karpenter.sh\x1fNodePool\x1f\x1fgpu");
	buf_reset(&k);
	kobj_display(&ia, &k);
	kobj_display(&ic, &k);
	ck_assert_str_eq(buf_cstr(&k), "nodepool.karpenter.sh/gpuconfigmap/x -n ns");
	ck_assert_str_eq(kobj_group("kueue.x-k8s.io/v1beta2", g, sizeof(g)), "kueue.x");
	ck_assert_str_eq(kobj_group("v1", g, sizeof(g)), "");
	buf_release(&k);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}
END_TEST

START_TEST(test_id_copy)
{
	char av[] = "karpenter.sh/v1", kind[] = "NodePool", name[] = "gpu";
	struct kobj_id src = { av, kind, NULL, name }, c;
	struct buf d = BUF_INIT;

	kobj_id_copy(&c, &src);
	av[0] = kind[0] = name[0] = 'x'; /* the copy owns its strings */
	ck_assert_str_eq(c.api_version, "karpenter.sh/v1");
	ck_assert_str_eq(c.kind, "NodePool");
	ck_assert_str_eq(c.name, "gpu");
	ck_assert_ptr_null(c.ns);
	kobj_display(&c, &d);
	ck_assert_str_eq(buf_cstr(&d), "nodepool.karpenter.sh/gpu");
	kobj_id_clear(&c);
	ck_assert_ptr_null(c.api_version);
	ck_assert_ptr_null(c.kind);
	ck_assert_ptr_null(c.name);
	buf_release(&d);
}
END_TEST

START_TEST(test_kinds)
{
	const struct kobj_kind *k;

	/* apply order: Namespaces, ConfigMaps, node classes, pools, Kueue */
	ck_assert_int_eq(kobj_kind_rank("Namespace"), 0);
	ck_assert_int_lt(kobj_kind_rank("ConfigMap"), kobj_kind_rank("EC2NodeClass"));
	ck_assert_int_lt(kobj_kind_rank("NodeOverlay"), kobj_kind_rank("NodePool"));
	ck_assert_int_lt(kobj_kind_rank("ResourceFlavor"), kobj_kind_rank("ClusterQueue"));
	ck_assert_int_lt(kobj_kind_rank("ClusterQueue"), kobj_kind_rank("LocalQueue"));
	ck_assert_int_eq(kobj_kind_rank("Pod"), 100);
	k = kobj_kind_find("karpenter.sh/v1", "NodePool");
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->resource, "nodepools");
	ck_assert_ptr_null(k->ns);
	ck_assert_str_eq(kobj_kind_find("kueue.x-k8s.io/v1beta2", "LocalQueue")->ns,
			 KOBJ_ANY_NAMESPACE);
	ck_assert_str_eq(kobj_kind_find("v1", "ConfigMap")->ns, "kube-system");
	ck_assert_ptr_null(kobj_kind_find("karpenter.sh/v1beta1", "NodePool"));
}
END_TEST

/* Fixed bug (generator/kobj.c, kobj_same and kobj_key): both copied the
 * group into char[128], so two groups equal in their first 127 characters
 * were one object (one inventory key, one prune decision). A group is a
 * DNS subdomain of up to 253 characters. */
START_TEST(test_long_groups_stay_distinct)
{
	char ga[260], gb[260], ava[280], avb[280];
	struct kobj_id a = { ava, "Widget", NULL, "w" };
	struct kobj_id b = { avb, "Widget", NULL, "w" };
	struct buf ka = BUF_INIT, kb = BUF_INIT;
	char *g;

	memset(ga, 'a', 200);
	ga[200] = '\0';
	memcpy(gb, ga, sizeof(ga));
	gb[150] = 'b'; /* differs after character 127 */
	snprintf(ava, sizeof(ava), "%s.example.com/v1", ga);
	snprintf(avb, sizeof(avb), "%s.example.com/v1", gb);
	ck_assert(!kobj_same(&a, &b));
	ck_assert(kobj_same(&a, &a));
	kobj_key(&a, &ka);
	kobj_key(&b, &kb);
	ck_assert_str_ne(buf_cstr(&ka), buf_cstr(&kb));
	ck_assert_uint_eq(kobj_group_len(ava), 212);
	g = kobj_group_dup(avb);
	ck_assert_uint_eq(strlen(g), 212);
	ck_assert_int_eq(g[150], 'b');
	free(g);
	g = kobj_group_dup("v1");
	ck_assert_str_eq(g, "");
	free(g);
	buf_reset(&ka);
	kobj_display(&b, &ka); /* displayed whole too */
	ck_assert_ptr_nonnull(strstr(buf_cstr(&ka), ".example.com/w"));
	ck_assert_uint_eq(strlen(buf_cstr(&ka)), strlen("widget.") + 212 + 2);
	buf_release(&ka);
	buf_release(&kb);
}
END_TEST

Suite *kobj_suite(void)
{
	Suite *s = suite_create("kobj");
	TCase *t = tcase_create("kobj");

	tcase_add_test(t, test_identity);
	tcase_add_test(t, test_id_copy);
	tcase_add_test(t, test_kinds);
	tcase_add_test(t, test_long_groups_stay_distinct);
	suite_add_tcase(s, t);
	return s;
}
