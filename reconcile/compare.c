/*
 * reconcile/compare.c: live objects vs desired ones (see compare.h).
 */
#include "reconcile/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/udiff.h"
#include "util/xalloc.h"
#include "util/yaml.h"

/* quantity "1500m", "2Gi", "64" -> value; 0 if not a quantity */
static int quantity(const char *s, long double *out)
{
	static const struct {
		const char *suf;
		long double mul;
	} sufs[] = { { "Ki", 1024.0L }, { "Mi", 1048576.0L },
		     { "Gi", 1073741824.0L }, { "Ti", 1099511627776.0L },
		     { "Pi", 1125899906842624.0L }, { "n", 1e-9L },
		     { "u", 1e-6L }, { "m", 1e-3L }, { "k", 1e3L },
		     { "M", 1e6L }, { "G", 1e9L }, { "T", 1e12L },
		     { "P", 1e15L }, { "", 1.0L } };
	char *end;
	long double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+' ||
		    *s == '.'))
		return 0;
	v = strtold(s, &end);
	if (end == s)
		return 0;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
		if (!strcmp(end, sufs[i].suf)) {
			*out = v * sufs[i].mul;
			return 1;
		}
	return 0;
}

static int scalar_equal(const cJSON *d, const cJSON *l)
{
	long double a, b;

	if (cJSON_IsString(d) && cJSON_IsString(l)) {
		if (!strcmp(d->valuestring, l->valuestring))
			return 1;
		return quantity(d->valuestring, &a) &&
		       quantity(l->valuestring, &b) && fabsl(a - b) < 1e-9L;
	}
	if (cJSON_IsNumber(d) && cJSON_IsNumber(l))
		return d->valuedouble == l->valuedouble;
	if (cJSON_IsNumber(d) && cJSON_IsString(l))
		return quantity(l->valuestring, &b) &&
		       fabsl((long double)d->valuedouble - b) < 1e-9L;
	if (cJSON_IsString(d) && cJSON_IsNumber(l))
		return quantity(d->valuestring, &a) &&
		       fabsl(a - (long double)l->valuedouble) < 1e-9L;
	if (cJSON_IsBool(d) && cJSON_IsBool(l))
		return cJSON_IsTrue(d) == cJSON_IsTrue(l);
	if (cJSON_IsNull(d))
		return !l || cJSON_IsNull(l);
	return 0;
}

/* every field of desired holds in live (live may have more: defaults,
 * status, other managers' fields) */
int compare_subset_equal(const cJSON *d, const cJSON *l)
{
	if (!l)
		return cJSON_IsNull(d);
	if (cJSON_IsObject(d)) {
		const cJSON *kid;
		if (!cJSON_IsObject(l))
			return 0;
		cJSON_ArrayForEach(kid, d)
		{
			if (!compare_subset_equal(
				    kid, cJSON_GetObjectItemCaseSensitive(
						 l, kid->string)))
				return 0;
		}
		return 1;
	}
	if (cJSON_IsArray(d)) {
		const cJSON *a, *b;
		if (!cJSON_IsArray(l) ||
		    cJSON_GetArraySize(d) != cJSON_GetArraySize(l))
			return 0;
		for (a = d->child, b = l->child; a && b; a = a->next, b = b->next)
			if (!compare_subset_equal(a, b))
				return 0;
		return 1;
	}
	return scalar_equal(d, l);
}

const cJSON *compare_managed_entry(const cJSON *live, const char *manager,
				   const char *operation)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, json_at(live, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
		if (m && op && !strcmp(m, manager) && !strcmp(op, operation))
			return e;
	}
	return NULL;
}

/* a map field we own (per managedFields) that desired no longer has: SSA
 * would remove it, so the object needs an apply */
int compare_owned_field_gone(const cJSON *fields, const cJSON *desired)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *d;
		if (strncmp(f->string, "f:", 2))
			continue; /* ".", "k:", "v:", "i:": list internals */
		d = cJSON_GetObjectItemCaseSensitive(desired, f->string + 2);
		if (!d)
			return 1;
		if (cJSON_IsObject(d) && cJSON_IsObject(f) && f->child &&
		    compare_owned_field_gone(f, d))
			return 1;
	}
	return 0;
}

/* does a fieldsV1 node own named sub-fields ("f:x"), not just itself? */
static int has_field_children(const cJSON *f)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, f)
	{
		if (!strncmp(c->string, "f:", 2))
			return 1;
	}
	return 0;
}

/* fields of desired that `fields` (one manager's fieldsV1) owns and where
 * live differs from desired: appended to *paths as ".a.b" */
static void conflicting_paths(const cJSON *fields, const cJSON *desired,
			      const cJSON *live, struct buf *prefix,
			      struct buf *paths)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, fields)
	{
		const cJSON *d, *l;
		size_t mark = prefix->len;
		if (strncmp(f->string, "f:", 2))
			continue;
		d = cJSON_GetObjectItemCaseSensitive(desired, f->string + 2);
		if (!d)
			continue;
		l = cJSON_GetObjectItemCaseSensitive(live, f->string + 2);
		buf_addf(prefix, ".%s", f->string + 2);
		if (cJSON_IsObject(d) && has_field_children(f))
			conflicting_paths(f, d, l, prefix, paths);
		else if (cJSON_IsObject(d))
			; /* owns only that the map exists, not its values */
		else if (!compare_subset_equal(d, l))
			buf_addf(paths, "%s%s", paths->len ? ", " : "",
				 buf_cstr(prefix));
		prefix->len = mark;
		prefix->ptr[mark] = '\0';
	}
}

/*
 * classify a conflict: 1 = another Apply manager owns a field we set to a
 * different value (report it), 0 = only imperative edits (drift: take the
 * fields back). *why lists "field (manager)".
 */
int compare_real_conflict(const cJSON *live, const cJSON *desired,
			  const char *fm, struct buf *why)
{
	const cJSON *e;
	int real = 0;

	cJSON_ArrayForEach(e, json_at(live, "metadata", "managedFields")) {
		const char *m = json_str(e, "manager"),
			   *op = json_str(e, "operation");
		struct buf prefix = BUF_INIT, paths = BUF_INIT;
		if (!m || !op || !strcmp(m, fm))
			continue;
		conflicting_paths(json_at(e, "fieldsV1", NULL), desired, live,
				  &prefix, &paths);
		if (paths.len) {
			buf_addf(why, "%sfield%s %s managed by '%s' (%s)",
				 why->len ? "; " : "",
				 strchr(buf_cstr(&paths), ',') ? "s" : "",
				 buf_cstr(&paths), m, op);
			if (!strcmp(op, "Apply"))
				real = 1;
		}
		buf_release(&prefix);
		buf_release(&paths);
	}
	return real;
}

/* strip what the server owns, for equality checks and diffs */
cJSON *compare_cleaned(const cJSON *o)
{
	cJSON *c = cJSON_Duplicate(o, 1), *md;
	static const char *const drop[] = { "managedFields", "resourceVersion",
					    "uid", "generation",
					    "creationTimestamp", "selfLink",
					    NULL };

	cJSON_DeleteItemFromObjectCaseSensitive(c, "status");
	md = cJSON_GetObjectItemCaseSensitive(c, "metadata");
	for (const char *const *d = drop; *d; d++)
		cJSON_DeleteItemFromObjectCaseSensitive(md, *d);
	cJSON_DeleteItemFromObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(md, "annotations"),
		"kubectl.kubernetes.io/last-applied-configuration");
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(md, "annotations")) == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(md, "annotations");
	return c;
}

char *compare_diff_text(const cJSON *live, const cJSON *next, const char *label)
{
	struct buf a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	char *la, *lb;

	if (live) {
		cJSON *c = compare_cleaned(live);
		yaml_emit(&a, c, &e);
		cJSON_Delete(c);
	}
	if (next) {
		cJSON *c = compare_cleaned(next);
		yaml_emit(&b, c, &e);
		cJSON_Delete(c);
	}
	la = live ? xasprintf("live/%s", label) : xstrdup("/dev/null");
	lb = xasprintf("desired/%s", label);
	udiff(&out, buf_cstr(&a), buf_cstr(&b), la, lb, 3);
	free(la);
	free(lb);
	buf_release(&a);
	buf_release(&b);
	err_release(&e);
	return out.len ? buf_detach(&out, NULL) : (buf_release(&out), NULL);
}
