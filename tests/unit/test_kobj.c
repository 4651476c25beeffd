/*
 * tests/unit/test_kobj.c: generator/kobj.c — object identity, the rendered
 * kinds and their order.
 */
#include <check.h>
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

Suite *kobj_suite(void)
{
	Suite *s = suite_create("kobj");
	TCase *t = tcase_create("kobj");

	tcase_add_test(t, test_identity);
	tcase_add_test(t, test_id_copy);
	tcase_add_test(t, test_kinds);
	suite_add_tcase(s, t);
	return s;
}
