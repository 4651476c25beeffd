/*
 * tests/unit/test_reconcile.c: the reconcile engine (reconcile/reconcile.c
 * and its phases: inventory.c, planner.c, apply.c, compare.c) against the
 * in-memory API of tests/unit/kube_fake.c — no server. The prune guards, apply
 * order, conflicts (409 on apply, inventory resourceVersion), adoption,
 * a run that died half-way, and the guard callback, each as a table of
 * cases or one run per case.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile/reconcile.h"
#include "tests/unit/kube_fake.h"
#include "tests/unit/suites.h"
#include "util/xalloc.h"

#define CLUSTER "unit"
#define INV_NS RECON_INVENTORY_NS
#define INV_NAME "gpuform-" CLUSTER

/* ---- objects -------------------------------------------------------------- */

static cJSON *cm(const char *ns, const char *name, const char *value)
{
	cJSON *o = cJSON_CreateObject(), *md, *data;

	cJSON_AddStringToObject(o, "apiVersion", "v1");
	cJSON_AddStringToObject(o, "kind", "ConfigMap");
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	cJSON_AddStringToObject(md, "namespace", ns);
	data = cJSON_AddObjectToObject(o, "data");
	cJSON_AddStringToObject(data, "v", value);
	return o;
}

static cJSON *ns_obj(const char *name)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "apiVersion", "v1");
	cJSON_AddStringToObject(o, "kind", "Namespace");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "name",
				name);
	return o;
}

static cJSON *flavor(const char *name)
{
	cJSON *o = cJSON_CreateObject(), *spec;

	cJSON_AddStringToObject(o, "apiVersion", "kueue.x-k8s.io/v1beta2");
	cJSON_AddStringToObject(o, "kind", "ResourceFlavor");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "metadata"), "name",
				name);
	spec = cJSON_AddObjectToObject(o, "spec");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(spec, "nodeLabels"),
				"gpu", name);
	return o;
}

/* set(n, obj...): a desired set (the objects are taken) */
static cJSON *set(int n, ...)
{
	cJSON *a = cJSON_CreateArray();
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, va_arg(ap, cJSON *));
	va_end(ap);
	return a;
}

/* ConfigMaps c0..c<n-1> in kube-system */
static cJSON *cms(int n, const char *value)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", i);
		cJSON_AddItemToArray(a, cm("kube-system", name, value));
	}
	return a;
}

/* ---- runs ----------------------------------------------------------------- */

struct run {
	struct recon_report rep;
	struct err err;
	int rc;
};

static void run_with(struct run *r, struct kube_fake *f, cJSON *desired,
		     const struct recon_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->err = (struct err)ERR_INIT;
	r->rc = recon_run(&r->rep, kube_fake_client(f), CLUSTER, desired, o,
			  &r->err);
	cJSON_Delete(desired);
}

static void run_prune(struct run *r, struct kube_fake *f, cJSON *desired)
{
	struct recon_opts o = { 0 };

	o.prune = 1;
	run_with(r, f, desired, &o);
}

static void run_done(struct run *r)
{
	recon_report_release(&r->rep);
	err_release(&r->err);
}

/* the report's item for kind/name, or NULL */
static const struct recon_item *item(const struct run *r, const char *kind,
				     const char *name)
{
	for (size_t i = 0; i < r->rep.nr; i++)
		if (!strcmp(r->rep.items[i].id.kind, kind) &&
		    !strcmp(r->rep.items[i].id.name, name))
			return &r->rep.items[i];
	return NULL;
}

static enum recon_action action(const struct run *r, const char *kind,
				const char *name)
{
	const struct recon_item *it = item(r, kind, name);

	ck_assert_msg(it, "no report item for %s %s", kind, name);
	return it->action;
}

static const char *detail(const struct run *r, const char *kind,
			  const char *name)
{
	const struct recon_item *it = item(r, kind, name);

	ck_assert_msg(it && it->detail, "no detail for %s %s", kind, name);
	return it->detail;
}

/* the inventory's data.inventory text ("" when there is none) */
static const char *inventory(struct kube_fake *f)
{
	cJSON *p = kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(p, "data"), "inventory");

	return cJSON_IsString(t) ? t->valuestring : "";
}

/* a fake cluster where gpuform already applied c0..c<n-1> */
static struct kube_fake *applied(int n)
{
	struct kube_fake *f = kube_fake_new();
	struct run r;

	run_prune(&r, f, cms(n, "1"));
	ck_assert_msg(r.rc == 0, "setup run: %s", err_msg(&r.err));
	run_done(&r);
	buf_reset(&f->log);
	return f;
}

/* ---- first run, no-op run, order ------------------------------------------ */

START_TEST(test_create_then_noop)
{
	struct kube_fake *f = kube_fake_new();
	struct run r;
	const char *log, *ns_at, *cm_at, *fl_at;

	run_prune(&r, f, set(3, cm("team", "a", "1"), flavor("l4"), ns_obj("team")));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.counts[RA_CREATED], 3);
	/* apply order: Namespace, ConfigMap, ..., Kueue objects */
	log = buf_cstr(&f->log);
	ns_at = strstr(log, "APPLY Namespace /team");
	cm_at = strstr(log, "APPLY ConfigMap team/a");
	fl_at = strstr(log, "APPLY ResourceFlavor /l4");
	ck_assert_ptr_nonnull(ns_at);
	ck_assert_ptr_nonnull(cm_at);
	ck_assert_ptr_nonnull(fl_at);
	ck_assert(ns_at < cm_at && cm_at < fl_at);
	/* the inventory (a superset) is written before the objects */
	ck_assert_ptr_nonnull(strstr(log, "APPLY ConfigMap " INV_NS "/" INV_NAME));
	ck_assert(strstr(log, "CREATE ConfigMap " INV_NS "/" INV_NAME) < ns_at);
	/* every entry has the UID the server gave */
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"a\",\"uid\":\"uid-"));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"kind\":\"ResourceFlavor\",\"name\":\"l4\",\"uid\":\"uid-"));
	run_done(&r);

	/* again: nothing to do, not one write */
	run_prune(&r, f, set(3, cm("team", "a", "1"), flavor("l4"), ns_obj("team")));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.counts[RA_UNCHANGED], 3);
	ck_assert_int_eq(r.rep.stats.writes, 0);
	ck_assert_int_eq(r.rep.stats.dry_runs, 0);
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_change_is_dry_run_first)
{
	struct kube_fake *f = applied(2);
	struct run r;
	const char *log;

	run_prune(&r, f, cms(2, "2"));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c0"), RA_CONFIGURED);
	ck_assert_int_eq(r.rep.counts[RA_CONFIGURED], 2);
	/* every dry run before the first write */
	log = buf_cstr(&f->log);
	ck_assert(strstr(log, "DRYRUN ConfigMap kube-system/c1") <
		  strstr(log, "APPLY ConfigMap kube-system/c0"));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
				 cJSON_GetObjectItemCaseSensitive(
					 kube_fake_find(f, "ConfigMap", "kube-system", "c1"),
					 "data"),
				 "v")->valuestring,
			 "2");
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* ---- prune guards: one table ---------------------------------------------- */

enum tamper {
	T_NONE,
	T_LABEL_REMOVED,    /* c2 lost our part-of label: not ours any more */
	T_RECREATED,        /* c2 deleted and made again with our label */
	T_LABEL_BY_OTHER,   /* c2's label applied by another manager */
	T_OTHER_INVENTORY,  /* another gpuform inventory lists c2 */
	T_TOUCHED_BEFORE_DELETE, /* changed between LIST and DELETE */
	T_ENTRY_WITHOUT_UID,
	T_ENTRY_WITHOUT_PROOF, /* as an older gpuform wrote it */
	T_KEY_FORBIDDEN,    /* the ownership key Secret is 403 */
	T_KEY_REPLACED,     /* another key: every proof is invalid */
	T_INVENTORIES_UNSEEN, /* LIST of ConfigMaps in all namespaces: 403 */
};

/* edit every entry of the inventory: delete field `drop` */
static void edit_entries(struct kube_fake *f, const char *drop)
{
	cJSON *p = kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME);
	cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "data");
	cJSON *inv = cJSON_Parse(inventory(f)), *e;
	char *text;

	cJSON_ArrayForEach(e, inv)
		cJSON_DeleteItemFromObjectCaseSensitive(e, drop);
	text = cJSON_PrintUnformatted(inv);
	cJSON_ReplaceItemInObjectCaseSensitive(d, "inventory",
					       cJSON_CreateString(text));
	free(text);
	cJSON_Delete(inv);
	kube_fake_touch(p, f);
}

static void relabel(cJSON *o, const char *value)
{
	cJSON *l = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(o, "metadata"), "labels");

	cJSON_DeleteItemFromObjectCaseSensitive(l, "applyset.kubernetes.io/part-of");
	if (value)
		cJSON_AddStringToObject(l, "applyset.kubernetes.io/part-of", value);
}

static void touch_c2(struct kube_fake *f, enum fake_op op, const char *kind,
		     const char *ns, const char *name, void *ctx)
{
	(void)ns;
	(void)ctx;
	if (op == FAKE_DELETE && !strcmp(kind, "ConfigMap") && !strcmp(name, "c2"))
		kube_fake_touch(kube_fake_find(f, "ConfigMap", "kube-system", "c2"), f);
}

static void tamper(struct kube_fake *f, enum tamper t)
{
	cJSON *c2 = kube_fake_find(f, "ConfigMap", "kube-system", "c2");
	cJSON *copy, *md, *mf, *e;

	switch (t) {
	case T_NONE:
		break;
	case T_LABEL_REMOVED:
		relabel(c2, NULL);
		kube_fake_touch(c2, f);
		break;
	case T_RECREATED:
		copy = cJSON_Duplicate(c2, 1);
		md = cJSON_GetObjectItemCaseSensitive(copy, "metadata");
		cJSON_DeleteItemFromObjectCaseSensitive(md, "uid");
		cJSON_DeleteItemFromObjectCaseSensitive(md, "resourceVersion");
		kube_fake_remove(f, "ConfigMap", "kube-system", "c2");
		kube_fake_put(f, copy, NULL);
		cJSON_Delete(copy);
		break;
	case T_LABEL_BY_OTHER:
		mf = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(c2, "metadata"), "managedFields");
		cJSON_ArrayForEach(e, mf)
			cJSON_ReplaceItemInObjectCaseSensitive(
				e, "manager", cJSON_CreateString("kubectl-label"));
		break;
	case T_OTHER_INVENTORY: {
		cJSON *p = cm(INV_NS, "gpuform-other", "x"), *l, *d;
		md = cJSON_GetObjectItemCaseSensitive(p, "metadata");
		l = cJSON_AddObjectToObject(md, "labels");
		cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "gpuform");
		cJSON_AddStringToObject(l, "applyset.kubernetes.io/id", "applyset-other-v1");
		d = cJSON_GetObjectItemCaseSensitive(p, "data");
		cJSON_AddStringToObject(d, "inventory",
					"[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
					"\"namespace\":\"kube-system\",\"name\":\"c2\"}]");
		kube_fake_put(f, p, NULL);
		cJSON_Delete(p);
		break;
	}
	case T_TOUCHED_BEFORE_DELETE:
		f->hook = touch_c2;
		break;
	case T_ENTRY_WITHOUT_UID:
		edit_entries(f, "uid");
		break;
	case T_ENTRY_WITHOUT_PROOF:
		edit_entries(f, "proof");
		break;
	case T_KEY_FORBIDDEN:
		f->forbid_kind = "Secret";
		break;
	case T_KEY_REPLACED: {
		cJSON *k = kube_fake_find(f, "Secret", INV_NS,
					  "gpuform-" CLUSTER "-owner-key");
		ck_assert_ptr_nonnull(k);
		cJSON_ReplaceItemInObjectCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(k, "data"), "key",
			cJSON_CreateString("QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE="));
		break;
	}
	case T_INVENTORIES_UNSEEN:
		f->forbid_all_namespaces = "ConfigMap";
		break;
	}
}

static const struct {
	const char *name;
	int applied;         /* objects applied first: c0..c<n-1> */
	int keep;            /* desired in the pruning run: c0..c<keep-1> */
	enum tamper t;
	int prune, force_prune;
	int rc;              /* 0, or the error code */
	enum recon_action c2; /* what the report says of c2 (RA_MAX: nothing) */
	const char *why;     /* in c2's detail or the error */
	int c2_exists;       /* after the run */
	int c2_listed;       /* in the inventory after the run */
} prune_cases[] = {
	{ "ours: deleted", 4, 2, T_NONE, 1, 0, 0, RA_PRUNED, NULL, 0, 0 },
	{ "without --prune: kept and reported", 4, 2, T_NONE, 0, 0, 0,
	  RA_SKIPPED, "use --prune", 1, 1 },
	{ "label removed: not ours, forgotten", 4, 2, T_LABEL_REMOVED, 1, 0, 0,
	  RA_MAX, NULL, 1, 0 },
	{ "recreated (UID changed): kept, forgotten", 4, 2, T_RECREATED, 1, 0,
	  0, RA_SKIPPED, "UID", 1, 0 },
	{ "label applied by another manager: kept", 4, 2, T_LABEL_BY_OTHER, 1,
	  0, 0, RA_SKIPPED, "", 1, 1 },
	{ "another inventory lists it: kept", 4, 2, T_OTHER_INVENTORY, 1, 0, 0,
	  RA_SKIPPED, "", 1, 1 },
	{ "changed between LIST and DELETE: precondition, kept", 4, 2,
	  T_TOUCHED_BEFORE_DELETE, 1, 0, 0, RA_SKIPPED, "precondition", 1, 1 },
	{ "entry without a UID: kept", 4, 2, T_ENTRY_WITHOUT_UID, 1, 0, 0,
	  RA_SKIPPED, "", 1, 1 },
	/* Fixed bug (reconcile/owner.c): the proof is what a patcher cannot
	 * produce (issue 21) */
	{ "entry without an ownership proof: kept", 4, 2, T_ENTRY_WITHOUT_PROOF,
	  1, 0, 0, RA_SKIPPED, "no valid ownership proof", 1, 1 },
	{ "ownership key unreadable: kept", 4, 2, T_KEY_FORBIDDEN, 1, 0, 0,
	  RA_SKIPPED, "no valid ownership proof", 1, 1 },
	{ "ownership key replaced: kept", 4, 2, T_KEY_REPLACED, 1, 0, 0,
	  RA_SKIPPED, "no valid ownership proof", 1, 1 },
	/* Fixed bug (reconcile/inventory.c, inv_read_others): its own
	 * namespace was taken for all of them (issue 21) */
	{ "other inventories cannot be listed: kept, the run fails", 4, 2,
	  T_INVENTORIES_UNSEEN, 1, 0, ERR_CONFLICT, RA_SKIPPED, "cannot", 1, 1 },
	{ "more than half: refused, nothing deleted", 4, 1, T_NONE, 1, 0,
	  ERR_INVALID, RA_MAX, "more than half", 1, 1 },
	{ "more than half with --force-prune: deleted", 4, 1, T_NONE, 1, 1, 0,
	  RA_PRUNED, NULL, 0, 0 },
	{ "exactly half: deleted", 4, 2, T_NONE, 1, 0, 0, RA_PRUNED, NULL, 0, 0 },
	{ "empty desired set: refused", 4, 0, T_NONE, 1, 0, ERR_INVALID, RA_MAX,
	  "desired set is empty", 1, 1 },
	{ "empty desired set with --force-prune: all deleted", 4, 0, T_NONE, 1,
	  1, 0, RA_PRUNED, NULL, 0, 0 },
};

START_TEST(test_prune_guards)
{
	struct kube_fake *f = applied(prune_cases[_i].applied);
	struct recon_opts o = { 0 };
	struct run r;
	const char *inv;

	tamper(f, prune_cases[_i].t);
	o.prune = prune_cases[_i].prune;
	o.force_prune = prune_cases[_i].force_prune;
	run_with(&r, f, cms(prune_cases[_i].keep, "1"), &o);
	if (prune_cases[_i].rc) {
		ck_assert_msg(r.rc == -1 && r.err.code == (enum err_code)prune_cases[_i].rc,
			      "%s: rc %d code %d: %s", prune_cases[_i].name,
			      r.rc, r.err.code, err_msg(&r.err));
		ck_assert_msg(strstr(err_msg(&r.err), prune_cases[_i].why),
			      "%s: %s", prune_cases[_i].name, err_msg(&r.err));
		ck_assert_int_eq(kube_fake_count(f, "DELETE"), 0);
	} else {
		ck_assert_msg(r.rc == 0, "%s: %s", prune_cases[_i].name,
			      err_msg(&r.err));
	}
	if (prune_cases[_i].c2 == RA_MAX) {
		ck_assert_msg(!item(&r, "ConfigMap", "c2"), "%s: c2 reported",
			      prune_cases[_i].name);
	} else {
		ck_assert_msg(action(&r, "ConfigMap", "c2") == prune_cases[_i].c2,
			      "%s: c2 is %s", prune_cases[_i].name,
			      recon_action_names[action(&r, "ConfigMap", "c2")]);
		if (prune_cases[_i].why)
			ck_assert_msg(strstr(detail(&r, "ConfigMap", "c2"),
					     prune_cases[_i].why),
				      "%s: %s", prune_cases[_i].name,
				      detail(&r, "ConfigMap", "c2"));
	}
	ck_assert_msg(!!kube_fake_find(f, "ConfigMap", "kube-system", "c2") ==
			      prune_cases[_i].c2_exists,
		      "%s: c2 exists?", prune_cases[_i].name);
	inv = inventory(f);
	ck_assert_msg(!!strstr(inv, "\"name\":\"c2\"") == prune_cases[_i].c2_listed,
		      "%s: inventory %s", prune_cases[_i].name, inv);
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_prune_order_and_namespaces)
{
	struct kube_fake *f = kube_fake_new();
	struct recon_opts o = { 0 };
	struct run r;
	const char *log;

	o.prune = 1;
	run_with(&r, f, set(5, ns_obj("team"), cm("team", "a", "1"), flavor("l4"),
			    flavor("keep1"), cm("kube-system", "keep2", "1")), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	run_done(&r);
	buf_reset(&f->log);

	/* Namespaces are pruned only with --prune-namespaces */
	o.force_prune = 1;
	run_with(&r, f, set(2, flavor("keep1"), cm("kube-system", "keep2", "1")), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "Namespace", "team"), RA_SKIPPED);
	ck_assert_ptr_nonnull(strstr(detail(&r, "Namespace", "team"),
				     "--prune-namespaces"));
	ck_assert_ptr_nonnull(kube_fake_find(f, "Namespace", NULL, "team"));
	/* reverse apply order: Kueue objects first, ConfigMaps later */
	log = buf_cstr(&f->log);
	ck_assert_ptr_nonnull(strstr(log, "DELETE ResourceFlavor /l4"));
	ck_assert_ptr_nonnull(strstr(log, "DELETE ConfigMap team/a"));
	ck_assert(strstr(log, "DELETE ResourceFlavor /l4") <
		  strstr(log, "DELETE ConfigMap team/a"));
	run_done(&r);

	o.prune_namespaces = 1;
	run_with(&r, f, set(2, flavor("keep1"), cm("kube-system", "keep2", "1")), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "Namespace", "team"), RA_PRUNED);
	ck_assert_ptr_null(kube_fake_find(f, "Namespace", NULL, "team"));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_dry_run_writes_nothing)
{
	struct kube_fake *f = applied(4);
	struct recon_opts o = { 0 };
	struct run r;

	o.prune = 1;
	o.dry_run = 1;
	run_with(&r, f, cms(3, "2"), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c0"), RA_CONFIGURED);
	ck_assert_int_eq(action(&r, "ConfigMap", "c3"), RA_PRUNED);
	ck_assert(r.rep.items[0].dry);
	ck_assert_int_eq(r.rep.stats.writes, 0);
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "c3"));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* ---- conflicts, ownership ------------------------------------------------- */

/* c1 exists, its data.v applied by `manager` with operation `op` */
static void foreign_field(struct kube_fake *f, const char *manager,
			  const char *op)
{
	cJSON *c1 = kube_fake_find(f, "ConfigMap", "kube-system", "c1");
	cJSON *mf = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c1, "metadata"), "managedFields");
	cJSON *e = cJSON_CreateObject(), *fs;

	cJSON_AddStringToObject(e, "manager", manager);
	cJSON_AddStringToObject(e, "operation", op);
	fs = cJSON_AddObjectToObject(cJSON_AddObjectToObject(
		cJSON_AddObjectToObject(e, "fieldsV1"), "f:data"), "f:v");
	(void)fs;
	cJSON_AddItemToArray(mf, e);
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c1, "data"), "v",
		cJSON_CreateString("theirs"));
	kube_fake_touch(c1, f);
}

START_TEST(test_conflict_apply_manager)
{
	struct kube_fake *f = applied(2);
	struct recon_opts o = { 0 };
	struct run r;

	foreign_field(f, "helm", "Apply");
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_CONFLICT);
	ck_assert_int_eq(action(&r, "ConfigMap", "c1"), RA_CONFLICT);
	ck_assert_ptr_nonnull(strstr(detail(&r, "ConfigMap", "c1"), "'helm' (Apply)"));
	ck_assert_ptr_nonnull(strstr(err_msg(&r.err), "--force-conflicts"));
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);

	o.force_conflicts = 1;
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c1"), RA_CONFIGURED);
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_drift_taken_back)
{
	struct kube_fake *f = applied(2);
	struct run r;

	/* kubectl edit: an Update manager, not a conflict */
	foreign_field(f, "kubectl-edit", "Update");
	run_prune(&r, f, cms(2, "1"));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c1"), RA_CONFIGURED);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(
				 cJSON_GetObjectItemCaseSensitive(
					 kube_fake_find(f, "ConfigMap", "kube-system", "c1"),
					 "data"), "v")->valuestring, "1");
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_foreign_object_and_adopt)
{
	struct kube_fake *f = applied(1);
	struct recon_opts o = { 0 };
	cJSON *made = cm("kube-system", "byhand", "x"), *mine;
	struct run r;

	/* made by `kubectl create`: an Update manager */
	mine = kube_fake_put(f, made, "kubectl");
	cJSON_Delete(made);
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(mine, "metadata"),
			"managedFields"), 0),
		"operation", cJSON_CreateString("Update"));
	run_with(&r, f, set(2, cm("kube-system", "c0", "1"),
			    cm("kube-system", "byhand", "1")), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_CONFLICT);
	ck_assert_int_eq(action(&r, "ConfigMap", "byhand"), RA_CONFLICT);
	ck_assert_ptr_nonnull(strstr(detail(&r, "ConfigMap", "byhand"), "--adopt"));
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);

	o.adopt = 1;
	run_with(&r, f, set(2, cm("kube-system", "c0", "1"),
			    cm("kube-system", "byhand", "1")), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "byhand"), RA_CONFIGURED);
	ck_assert_ptr_nonnull(strstr(detail(&r, "ConfigMap", "byhand"), "adopted"));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"byhand\""));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* another writer adds an entry to our inventory right before our write */
static void race_inventory(struct kube_fake *f, enum fake_op op,
			   const char *kind, const char *ns, const char *name,
			   void *ctx)
{
	int *done = ctx;
	cJSON *p, *d;

	(void)kind;
	(void)ns;
	if (*done || op != FAKE_APPLY || strcmp(name, INV_NAME))
		return;
	*done = 1;
	p = kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME);
	d = cJSON_GetObjectItemCaseSensitive(p, "data");
	cJSON_ReplaceItemInObjectCaseSensitive(
		d, "inventory",
		cJSON_CreateString("[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
				   "\"namespace\":\"kube-system\",\"name\":"
				   "\"theirs\",\"uid\":\"uid-99\"}]"));
	kube_fake_touch(p, f);
}

START_TEST(test_inventory_conflict_merges)
{
	struct kube_fake *f = applied(2);
	struct run r;
	int done = 0;

	f->hook = race_inventory;
	f->hook_ctx = &done;
	run_prune(&r, f, cms(3, "1"));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert(done);
	/* the write was refused once (stale resourceVersion), read again,
	 * and the other writer's entry kept */
	ck_assert_int_ge(kube_fake_count(f, "GET ConfigMap " INV_NS "/" INV_NAME), 2);
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"theirs\""));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"c2\""));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* ---- failures -------------------------------------------------------------- */

START_TEST(test_died_half_way)
{
	struct kube_fake *f = applied(3);
	struct run r;

	/* c3, c4 are new and c2 goes; the second object write fails */
	kube_fake_fail(f, FAKE_APPLY, 2, "ConfigMap", ERR_HTTP,
		       "connection reset");
	run_prune(&r, f, set(4, cm("kube-system", "c0", "1"),
			     cm("kube-system", "c1", "1"),
			     cm("kube-system", "c3", "1"),
			     cm("kube-system", "c4", "1")));
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_HTTP);
	ck_assert_int_eq(action(&r, "ConfigMap", "c4"), RA_FAILED);
	/* the inventory was written first, as a superset: the old entries
	 * (c2, not yet pruned) and all the new ones */
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"c2\""));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"c4\""));
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "c2"));
	ck_assert_int_eq(kube_fake_count(f, "DELETE"), 0);
	run_done(&r);

	/* the next run converges: c4 created, c2 pruned, nothing else */
	buf_reset(&f->log);
	run_prune(&r, f, set(4, cm("kube-system", "c0", "1"),
			     cm("kube-system", "c1", "1"),
			     cm("kube-system", "c3", "1"),
			     cm("kube-system", "c4", "1")));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c4"), RA_CREATED);
	ck_assert_int_eq(action(&r, "ConfigMap", "c3"), RA_UNCHANGED);
	ck_assert_int_eq(action(&r, "ConfigMap", "c2"), RA_PRUNED);
	ck_assert_int_eq(kube_fake_count(f, "DELETE"), 1);
	ck_assert_ptr_null(strstr(inventory(f), "\"name\":\"c2\""));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* the first run stops right after creating the inventory bare (before
 * filling it): the next run treats it as no inventory and converges */
START_TEST(test_died_after_bare_inventory)
{
	struct kube_fake *f = kube_fake_new();
	struct run r;

	kube_fake_fail(f, FAKE_APPLY, 0, "ConfigMap", ERR_HTTP, "connection reset");
	run_prune(&r, f, cms(2, "1"));
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_HTTP);
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME));
	ck_assert_str_eq(inventory(f), "");
	ck_assert_ptr_null(kube_fake_find(f, "ConfigMap", "kube-system", "c0"));
	/* the inventory namespace, and the failed fill of the parent */
	ck_assert_int_eq(r.rep.stats.applies, 2);
	run_done(&r);

	run_prune(&r, f, cms(2, "1"));
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.counts[RA_CREATED], 2);
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"c1\""));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* a ConfigMap someone who may patch (not delete) labelled for us with
 * `kubectl apply --server-side --field-manager=gpuform` */
static void put_forged(struct kube_fake *f, const char *name)
{
	struct buf id = BUF_INIT;
	cJSON *o = cm("kube-system", name, "theirs");
	cJSON *l = cJSON_AddObjectToObject(
		cJSON_GetObjectItemCaseSensitive(o, "metadata"), "labels");

	recon_applyset_id(INV_NAME, INV_NS, &id);
	cJSON_AddStringToObject(l, "applyset.kubernetes.io/part-of", buf_cstr(&id));
	kube_fake_put(f, o, "gpuform");
	cJSON_Delete(o);
	buf_release(&id);
}

/* the entries of the inventory, with field `with` of entry `from` copied
 * into an entry for `name` with its live UID */
static void add_entry(struct kube_fake *f, const char *name, const char *from)
{
	cJSON *p = kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME);
	cJSON *inv = cJSON_Parse(inventory(f)), *e, *n;
	const cJSON *proof = NULL;
	cJSON *live = kube_fake_find(f, "ConfigMap", "kube-system", name);
	char *text;

	cJSON_ArrayForEach(e, inv)
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
			    from))
			proof = cJSON_GetObjectItemCaseSensitive(e, "proof");
	ck_assert_ptr_nonnull(proof);
	n = cm("kube-system", name, "x");
	cJSON_DeleteItemFromObjectCaseSensitive(n, "data");
	cJSON_DeleteItemFromObjectCaseSensitive(n, "metadata");
	cJSON_AddStringToObject(n, "namespace", "kube-system");
	cJSON_AddStringToObject(n, "name", name);
	cJSON_AddStringToObject(n, "uid",
				cJSON_GetObjectItemCaseSensitive(
					cJSON_GetObjectItemCaseSensitive(live, "metadata"),
					"uid")->valuestring);
	cJSON_AddStringToObject(n, "proof", proof->valuestring);
	cJSON_AddItemToArray(inv, n);
	text = cJSON_PrintUnformatted(inv);
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(p, "data"), "inventory",
		cJSON_CreateString(text));
	free(text);
	cJSON_Delete(inv);
	kube_fake_touch(p, f);
}

/*
 * Fixed bug (reconcile/owner.c, owner_applied_label trusted the field
 * manager's name; issue 21): an object labelled for us through
 * --field-manager=gpuform is never deleted — (a) imported by
 * --rebuild-inventory, (b) labelled before the first run (the refusal
 * names it and its managers), (c) in a tampered entry with its UID and a
 * proof copied from a real entry — while gpuform's own object with a real
 * proof still is.
 */
START_TEST(test_forged_owner)
{
	struct kube_fake *f = kube_fake_new();
	struct recon_opts o = { 0 };
	struct run r;

	/* (b) before the first run */
	put_forged(f, "victim");
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_CONFLICT);
	ck_assert_msg(strstr(err_msg(&r.err),
			     "configmap/victim -n kube-system (managers: "
			     "gpuform (Apply))") &&
			      strstr(err_msg(&r.err), "does not exist either") &&
			      strstr(err_msg(&r.err), "Remove the label"),
		      "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);

	/* (a) imported by --rebuild-inventory, then --prune: kept */
	o.rebuild_inventory = 1;
	o.prune = 1;
	o.force_prune = 1;
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"victim\""));
	ck_assert_int_eq(action(&r, "ConfigMap", "victim"), RA_SKIPPED);
	ck_assert_ptr_nonnull(strstr(detail(&r, "ConfigMap", "victim"),
				     "no valid ownership proof"));
	run_done(&r);
	o.rebuild_inventory = 0;
	run_with(&r, f, cms(1, "1"), &o); /* c1 ours, proven: pruned */
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c1"), RA_PRUNED);
	ck_assert_int_eq(action(&r, "ConfigMap", "victim"), RA_SKIPPED);
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "victim"));
	ck_assert_ptr_null(kube_fake_find(f, "ConfigMap", "kube-system", "c1"));
	run_done(&r);

	/* (c) a tampered entry: the victim's UID, c0's proof */
	put_forged(f, "victim2");
	add_entry(f, "victim2", "c0");
	run_with(&r, f, set(1, cm("kube-system", "c5", "1")), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(action(&r, "ConfigMap", "c0"), RA_PRUNED);
	ck_assert_int_eq(action(&r, "ConfigMap", "victim2"), RA_SKIPPED);
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "victim2"));
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "victim"));
	ck_assert_int_eq(kube_fake_count(f, "DELETE ConfigMap kube-system/victim"), 0);
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* ConfigMaps <p>0..<p><n-1> in kube-system */
static cJSON *named_cms(const char *p, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s%d", p, i);
		cJSON_AddItemToArray(a, cm("kube-system", name, "1"));
	}
	return a;
}

/*
 * Fixed bug (reconcile/inventory.c, inv_write_superset; issue 21): near the
 * ConfigMap limit a rename could never be applied — the superset (old and
 * new names) written before the applies did not fit, every run failed.
 * Now the added entries go to a second ConfigMap for the run; a run that
 * dies half-way leaves both, and the next reads both (no orphan).
 */
START_TEST(test_rename_near_the_limit)
{
	struct kube_fake *f = applied(6);
	struct recon_opts o = { 0 };
	struct run r;
	size_t six = strlen(inventory(f)) + strlen("inventory");
	const char *log;

	/* six entries fit, twelve do not */
	o.inventory_max = six * 3 / 2;
	o.prune = 1;
	o.force_prune = 1;
	/* without --prune the final inventory would hold both: refused */
	o.prune = 0;
	run_with(&r, f, named_cms("renamed-", 6), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_INVALID);
	ck_assert_msg(strstr(err_msg(&r.err), "more than a ConfigMap holds") &&
			      strstr(err_msg(&r.err), "--prune"),
		      "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);

	/* a run that dies at the fourth object: the part stays, named */
	o.prune = 1;
	buf_reset(&f->log);
	kube_fake_fail(f, FAKE_APPLY, 5, "ConfigMap", ERR_HTTP, "boom");
	run_with(&r, f, named_cms("renamed-", 6), &o);
	ck_assert_int_eq(r.rc, -1);
	log = buf_cstr(&f->log);
	ck_assert_ptr_nonnull(strstr(log, "APPLY ConfigMap " INV_NS "/" INV_NAME "-pending"));
	ck_assert(strstr(log, "APPLY ConfigMap " INV_NS "/" INV_NAME "-pending") <
		  strstr(log, "APPLY ConfigMap kube-system/renamed-0"));
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "renamed-2"));
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME "-pending"));
	run_done(&r);

	/* the next run reads both: renamed-0..2 are ours (no conflict), the
	 * old names are pruned, one ConfigMap again */
	run_with(&r, f, named_cms("renamed-", 6), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.counts[RA_CONFLICT], 0);
	ck_assert_int_eq(r.rep.counts[RA_PRUNED], 6);
	ck_assert_ptr_null(kube_fake_find(f, "ConfigMap", "kube-system", "c0"));
	ck_assert_ptr_null(kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME "-pending"));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"renamed-5\""));
	ck_assert_ptr_null(strstr(inventory(f), "\"name\":\"c0\""));
	ck_assert_ptr_null(strstr(inventory(f), "pending"));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME),
				"metadata"),
			"annotations"),
		"gpuform.io/pending-inventory"));
	run_done(&r);

	/* and back in one go, no fault */
	run_with(&r, f, named_cms("c", 6), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_int_eq(r.rep.counts[RA_PRUNED], 6);
	ck_assert_int_eq(r.rep.counts[RA_CREATED], 6);
	ck_assert_ptr_null(kube_fake_find(f, "ConfigMap", INV_NS, INV_NAME "-pending"));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_inventory_missing_but_labelled)
{
	struct kube_fake *f = applied(2);
	struct recon_opts o = { 0 };
	struct run r;

	kube_fake_remove(f, "ConfigMap", INV_NS, INV_NAME);
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(&r.err), "--rebuild-inventory"));
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);

	o.rebuild_inventory = 1;
	run_with(&r, f, cms(2, "1"), &o);
	ck_assert_msg(r.rc == 0, "%s", err_msg(&r.err));
	ck_assert_ptr_nonnull(strstr(inventory(f), "\"name\":\"c1\""));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

START_TEST(test_unserved_kind)
{
	struct kube_fake *f = kube_fake_new();
	struct run r;

	kube_fake_unserve(f, "kueue.x-k8s.io/v1beta2", "ResourceFlavor");
	run_prune(&r, f, set(1, flavor("l4")));
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_NOTFOUND);
	ck_assert_int_eq(r.rep.stats.writes, 0);
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

/* ---- the guard callback ---------------------------------------------------- */

static int hold_flavors(void *ctx, struct kube *k, struct recon_change *c,
			size_t n, struct err *err)
{
	size_t *seen = ctx;

	(void)k;
	(void)err;
	*seen = n;
	for (size_t i = 0; i < n; i++) {
		const cJSON *o = c[i].next ? c[i].next : c[i].live;
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
		if (!strcmp(kind->valuestring, "ResourceFlavor"))
			c[i].hold = 1;
	}
	return 0;
}

static int refuse(void *ctx, struct kube *k, struct recon_change *c, size_t n,
		  struct err *err)
{
	(void)ctx;
	(void)k;
	(void)c;
	(void)n;
	return err_set(err, ERR_CONFLICT, "outside the maintenance window");
}

START_TEST(test_guard_holds_and_refuses)
{
	struct kube_fake *f = kube_fake_new();
	struct recon_opts o = { 0 };
	struct run r;
	size_t seen = 0;

	o.guard = refuse;
	run_with(&r, f, set(2, flavor("l4"), cm("kube-system", "a", "1")), &o);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_str_eq(err_msg(&r.err), "outside the maintenance window");
	ck_assert_int_eq(r.rep.stats.writes, 0);
	ck_assert_int_eq(action(&r, "ConfigMap", "a"), RA_SKIPPED);
	run_done(&r);

	o.guard = hold_flavors;
	o.guard_ctx = &seen;
	o.held_detail = "held: outside the window";
	run_with(&r, f, set(2, flavor("l4"), cm("kube-system", "a", "1")), &o);
	ck_assert_int_eq(seen, 2);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.err.code, ERR_CONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(&r.err), "1 change was held back"));
	ck_assert_int_eq(action(&r, "ConfigMap", "a"), RA_CREATED);
	ck_assert_int_eq(action(&r, "ResourceFlavor", "l4"), RA_SKIPPED);
	ck_assert_str_eq(detail(&r, "ResourceFlavor", "l4"), "held: outside the window");
	ck_assert_ptr_null(kube_fake_find(f, "ResourceFlavor", NULL, "l4"));
	ck_assert_ptr_nonnull(kube_fake_find(f, "ConfigMap", "kube-system", "a"));
	run_done(&r);
	kube_fake_free(f);
}
END_TEST

Suite *reconcile_suite(void)
{
	Suite *s = suite_create("reconcile");
	TCase *t = tcase_create("run");

	tcase_add_test(t, test_create_then_noop);
	tcase_add_test(t, test_change_is_dry_run_first);
	tcase_add_test(t, test_dry_run_writes_nothing);
	tcase_add_test(t, test_prune_order_and_namespaces);
	suite_add_tcase(s, t);
	t = tcase_create("prune");
	tcase_add_loop_test(t, test_prune_guards, 0,
			    (int)(sizeof(prune_cases) / sizeof(prune_cases[0])));
	suite_add_tcase(s, t);
	t = tcase_create("conflict");
	tcase_add_test(t, test_conflict_apply_manager);
	tcase_add_test(t, test_drift_taken_back);
	tcase_add_test(t, test_foreign_object_and_adopt);
	tcase_add_test(t, test_inventory_conflict_merges);
	suite_add_tcase(s, t);
	t = tcase_create("failure");
	tcase_add_test(t, test_died_half_way);
	tcase_add_test(t, test_died_after_bare_inventory);
	tcase_add_test(t, test_inventory_missing_but_labelled);
	tcase_add_test(t, test_forged_owner);
	tcase_add_test(t, test_rename_near_the_limit);
	tcase_add_test(t, test_unserved_kind);
	tcase_add_test(t, test_guard_holds_and_refuses);
	suite_add_tcase(s, t);
	return s;
}
