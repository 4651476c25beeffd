/*
 * generator/impact.c: node impact of a change, by Karpenter's drift rules
 * (see impact.h).
 *
 * Field lists follow the Go types of Karpenter v1 (kubernetes-sigs/karpenter
 * pkg/apis/v1/nodeclaim.go, nodepool.go: NodePool.Hash() hashes
 * spec.template with `hash:"ignore"` on requirements; aws/karpenter-provider-
 * aws pkg/apis/v1/ec2nodeclass.go: EC2NodeClass.Hash() hashes the spec with
 * `hash:"ignore"` on the selector terms, ipPrefixCount and amiFamily, plus
 * the resolved AMI family; cloudprovider/drift.go checks AMI, subnets and
 * security groups by resolved IDs). Hashes use SlicesAsSets, IgnoreZeroValue
 * and ZeroNil, so list order and absent-vs-empty do not drift; heq() below
 * compares the same way.
 *
 * Deliberately not here: reading the cluster (counts of NodeClaims and
 * pods), deciding whether a change may be applied, printing.
 */
#include "generator/impact.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "generator/interruption.h"
#include "generator/window.h"
#include "util/json.h"
#include "util/vec.h"
#include "util/time.h"
#include "util/xalloc.h"

const char *const impact_class_names[IMPACT_NCLASSES] = {
	"no node effect", "may disrupt", "replaces nodes"
};

/* ---- JSON helpers ---------------------------------------------------------- */

static int is_zero(const cJSON *v)
{
	const cJSON *c;

	if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
		return 1;
	if (cJSON_IsNumber(v))
		return v->valuedouble == 0;
	if (cJSON_IsString(v))
		return !*v->valuestring;
	if (cJSON_IsArray(v))
		return cJSON_GetArraySize(v) == 0;
	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(c, v)
			if (!is_zero(c))
				return 0;
		return 1;
	}
	return 0;
}

/* equal as Karpenter's hashes see it: zero values and absence are the same,
 * lists are sets */
static int heq(const cJSON *a, const cJSON *b)
{
	const cJSON *c;

	if (is_zero(a) && is_zero(b))
		return 1;
	if (!a || !b)
		return 0;
	if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
		cJSON_ArrayForEach(c, a)
			if (!heq(c, json_get(b, c->string)))
				return 0;
		cJSON_ArrayForEach(c, b)
			if (!json_get(a, c->string) && !is_zero(c))
				return 0;
		return 1;
	}
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		int n = cJSON_GetArraySize(a);
		char *used;
		int ok = 1;

		if (n != cJSON_GetArraySize(b))
			return 0;
		used = xcalloc((size_t)n + 1, 1);
		cJSON_ArrayForEach(c, a) {
			const cJSON *d;
			int j = 0, found = 0;
			cJSON_ArrayForEach(d, b) {
				if (!used[j] && heq(c, d)) {
					used[j] = 1;
					found = 1;
					break;
				}
				j++;
			}
			if (!found) {
				ok = 0;
				break;
			}
		}
		free(used);
		return ok;
	}
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return !strcmp(a->valuestring, b->valuestring);
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsBool(a) && cJSON_IsBool(b))
		return cJSON_IsTrue(a) == cJSON_IsTrue(b);
	return 0;
}

/* ---- result ------------------------------------------------------------------ */

static void add_rule(struct impact *im, enum impact_class cls,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add_rule(struct impact *im, enum impact_class cls,
		     const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	GROW(im->rules, im->nr + 1, im->alloc);
	im->rules[im->nr].cls = cls;
	im->rules[im->nr].text = buf_detach(&b, NULL);
	im->rules[im->nr].requirements = 0;
	im->nr++;
	if (cls > im->cls)
		im->cls = cls;
}

/* insert name into a sorted, unique list */
static void set_add(char ***v, size_t *n, size_t *alloc, const char *name)
{
	size_t i;

	if (!name || !*name)
		return;
	for (i = 0; i < *n; i++) {
		int c = strcmp((*v)[i], name);
		if (!c)
			return;
		if (c > 0)
			break;
	}
	GROW(*v, *n + 1, *alloc);
	memmove(*v + i + 1, *v + i, (*n - i) * sizeof(**v));
	(*v)[i] = xstrdup(name);
	(*n)++;
}

static void add_pool(struct impact *im, const char *name)
{
	set_add(&im->pools, &im->npools, &im->apools, name);
}

static void add_pool_list(struct buf *out, char *const *pools, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", pools[i]);
}

void impact_describe(struct buf *out, const struct impact *im)
{
	buf_adds(out, impact_class_names[im->cls]);
	if (im->npools) {
		buf_addf(out, " [pool%s ", im->npools == 1 ? "" : "s");
		add_pool_list(out, im->pools, im->npools);
		buf_addc(out, ']');
	}
	buf_adds(out, ": ");
	impact_rules_text(im, out);
	impact_also_text(im, out);
}

void impact_tally_add(struct impact_tally *t, const struct impact *im)
{
	t->counts[im->cls]++;
	if (im->cls == IMPACT_REPLACES)
		for (size_t i = 0; i < im->npools; i++)
			set_add(&t->pools, &t->npools, &t->apools, im->pools[i]);
}

void impact_tally_summary(struct buf *out, const struct impact_tally *t)
{
	size_t r = t->counts[IMPACT_REPLACES];

	buf_addf(out, "%zu node-replacing change%s", r, r == 1 ? "" : "s");
	if (t->npools) {
		buf_addf(out, " (pool%s ", t->npools == 1 ? "" : "s");
		add_pool_list(out, t->pools, t->npools);
		buf_addc(out, ')');
	}
	buf_addf(out, ", %zu may disrupt, %zu no node effect",
		 t->counts[IMPACT_MAY_DISRUPT], t->counts[IMPACT_NONE]);
}

void impact_tally_release(struct impact_tally *t)
{
	for (size_t i = 0; i < t->npools; i++)
		free(t->pools[i]);
	free(t->pools);
	memset(t, 0, sizeof(*t));
}

void impact_release(struct impact *im)
{
	for (size_t i = 0; i < im->nr; i++)
		free(im->rules[i].text);
	free(im->rules);
	for (size_t i = 0; i < im->npools; i++)
		free(im->pools[i]);
	free(im->pools);
	*im = (struct impact)IMPACT_INIT;
}

void impact_also_text(const struct impact *im, struct buf *out)
{
	int first = 1;

	if (im->cls != IMPACT_REPLACES)
		return;
	for (size_t i = 0; i < im->nr; i++) {
		if (im->rules[i].cls != IMPACT_MAY_DISRUPT)
			continue;
		buf_adds(out, first ? "; also may disrupt: " : "; ");
		first = 0;
		buf_adds(out, im->rules[i].text);
	}
}

int impact_requirements_only(const struct impact *im)
{
	if (im->cls != IMPACT_REPLACES)
		return 0;
	for (size_t i = 0; i < im->nr; i++)
		if (im->rules[i].cls == IMPACT_REPLACES && !im->rules[i].requirements)
			return 0;
	return 1;
}

void impact_rules_text(const struct impact *im, struct buf *out)
{
	int first = 1;

	for (size_t i = 0; i < im->nr; i++) {
		if (im->rules[i].cls != im->cls)
			continue;
		if (!first)
			buf_adds(out, "; ");
		first = 0;
		buf_adds(out, im->rules[i].text);
	}
}

/* ---- kinds ------------------------------------------------------------------- */

static int group_is(const cJSON *o, const char *group)
{
	const char *av = json_str(o, "apiVersion");
	size_t n = strlen(group);

	return av && !strncmp(av, group, n) && av[n] == '/';
}

static int is_nodepool(const cJSON *o)
{
	const char *k = json_str(o, "kind");
	return k && !strcmp(k, "NodePool") && group_is(o, "karpenter.sh");
}

static int is_nodeclass(const cJSON *o)
{
	const char *k = json_str(o, "kind");
	return k && !strcmp(k, "EC2NodeClass") && group_is(o, "karpenter.k8s.aws");
}

int impact_relevant(const cJSON *o)
{
	return is_nodepool(o) || is_nodeclass(o);
}

/* labels and annotations of the object itself: never a drift source */
static void object_metadata(struct impact *im, const cJSON *a, const cJSON *b,
			    const char *kind)
{
	static const char *const keys[] = { "labels", "annotations" };

	for (size_t i = 0; i < 2; i++)
		if (!heq(json_get(json_get(a, "metadata"), keys[i]),
			 json_get(json_get(b, "metadata"), keys[i])))
			add_rule(im, IMPACT_NONE,
				 "%s metadata.%s: not part of any drift hash",
				 kind, keys[i]);
}

/* ---- durations and budgets ------------------------------------------------- */

#define FOREVER (-1.0)

/* "1h30m", "90s", "Never" (FOREVER); -2 when unreadable */
static double duration(const char *s)
{
	double total;

	if (s && !strcmp(s, "Never"))
		return FOREVER;
	if (time_parse_duration(s, 0, &total) < 0)
		return -2;
	return total;
}

/* a < b, with FOREVER the largest */
static int dur_less(double a, double b)
{
	if (a == FOREVER)
		return 0;
	if (b == FOREVER)
		return 1;
	return a < b;
}

static const char *policy_or_default(const cJSON *d)
{
	const char *p = json_str(d, "consolidationPolicy");
	return p ? p : "WhenEmptyOrUnderutilized";
}

static int policy_rank(const char *p)
{
	if (!strcmp(p, "WhenEmpty"))
		return 0;
	if (!strcmp(p, "Balanced"))
		return 1;
	return 2;
}

/* budget "nodes": *pct set for "N%"; -1 when unreadable */
static long budget_nodes(const cJSON *b, int *pct)
{
	const char *s = json_str(b, "nodes");
	char *end;
	long v;

	*pct = 0;
	if (!s)
		s = "10%";
	v = strtol(s, &end, 10);
	if (end == s)
		return -1;
	if (*end == '%') {
		*pct = 1;
		end++;
	}
	return *end ? -1 : v;
}

/* the reasons a budget covers: NULL/empty list = all */
static int covers_reasons(const cJSON *strict, const cJSON *loose)
{
	const cJSON *rs = json_get(strict, "reasons"),
		    *rl = json_get(loose, "reasons"), *r;

	if (!cJSON_GetArraySize(rs))
		return 1;
	if (!cJSON_GetArraySize(rl))
		return 0;
	cJSON_ArrayForEach(r, rl) {
		const cJSON *q;
		int found = 0;
		cJSON_ArrayForEach(q, rs)
			found |= cJSON_IsString(q) && cJSON_IsString(r) &&
				 !strcmp(q->valuestring, r->valuestring);
		if (!found)
			return 0;
	}
	return 1;
}

/* does `nb` block at least what `ob` blocked (same or wider time and
 * reasons, no more nodes)? */
static int budget_as_strict(const cJSON *nb, const cJSON *ob)
{
	int np, op;
	long nn = budget_nodes(nb, &np), on = budget_nodes(ob, &op);

	if (json_str(nb, "schedule") &&
	    !(heq(json_get(nb, "schedule"), json_get(ob, "schedule")) &&
	      heq(json_get(nb, "duration"), json_get(ob, "duration"))))
		return 0;
	if (!covers_reasons(nb, ob))
		return 0;
	if (nn < 0 || on < 0)
		return 0;
	if (nn == 0)
		return 1;
	return np == op && nn <= on;
}

static void budget_desc(struct buf *out, const cJSON *b)
{
	const cJSON *r;
	int first = 1;

	buf_addf(out, "nodes \"%s\"",
		 json_str(b, "nodes") ? json_str(b, "nodes") : "10%");
	if (json_str(b, "schedule"))
		buf_addf(out, " at \"%s\" for %s", json_str(b, "schedule"),
			 json_str(b, "duration") ? json_str(b, "duration")
						 : "?");
	cJSON_ArrayForEach(r, json_get(b, "reasons")) {
		if (!cJSON_IsString(r))
			continue;
		buf_adds(out, first ? " for " : ",");
		buf_adds(out, r->valuestring);
		first = 0;
	}
}

static void disruption(struct impact *im, const cJSON *od, const cJSON *nd)
{
	const char *op = policy_or_default(od), *np = policy_or_default(nd);
	const char *oa = json_str(od, "consolidateAfter"),
		   *na = json_str(nd, "consolidateAfter");
	double oav = oa ? duration(oa) : 0, nav = na ? duration(na) : 0;
	const cJSON *ob = json_get(od, "budgets"),
		    *nb = json_get(nd, "budgets"), *b, *c;
	cJSON *dflt = NULL;
	int loosened = 0;

	if (strcmp(op, np)) {
		if (policy_rank(np) > policy_rank(op))
			add_rule(im, IMPACT_MAY_DISRUPT,
				 "consolidation loosened: consolidationPolicy %s -> %s",
				 op, np);
		else
			add_rule(im, IMPACT_NONE,
				 "consolidation tightened: consolidationPolicy %s -> %s",
				 op, np);
	}
	if (!heq(json_get(od, "consolidateAfter"),
		 json_get(nd, "consolidateAfter"))) {
		if (dur_less(nav, oav))
			add_rule(im, IMPACT_MAY_DISRUPT,
				 "consolidation loosened: consolidateAfter %s -> %s",
				 oa ? oa : "0s", na ? na : "0s");
		else
			add_rule(im, IMPACT_NONE,
				 "consolidation tightened: consolidateAfter %s -> %s",
				 oa ? oa : "0s", na ? na : "0s");
	}
	if (!heq(ob, nb)) {
		/* no budgets: Karpenter's default of 10% */
		if (!cJSON_GetArraySize(ob) || !cJSON_GetArraySize(nb)) {
			dflt = cJSON_CreateArray();
			cJSON_AddItemToArray(dflt, cJSON_CreateObject());
			cJSON_AddStringToObject(cJSON_GetArrayItem(dflt, 0),
						"nodes", "10%");
		}
		if (!cJSON_GetArraySize(ob))
			ob = dflt;
		if (!cJSON_GetArraySize(nb))
			nb = dflt;
		cJSON_ArrayForEach(b, ob) {
			int kept = 0;
			cJSON_ArrayForEach(c, nb)
				kept |= budget_as_strict(c, b);
			if (!kept) {
				struct buf d = BUF_INIT;
				budget_desc(&d, b);
				add_rule(im, IMPACT_MAY_DISRUPT,
					 "disruption budget loosened: %s removed or raised%s",
					 buf_cstr(&d),
					 json_get(nd, "budgets")
						 ? ""
						 : " (default 10%)");
				buf_release(&d);
				loosened = 1;
			}
		}
		if (!loosened)
			add_rule(im, IMPACT_NONE,
				 "disruption budgets tightened or unchanged in effect");
		cJSON_Delete(dflt);
	}
	/* fields Karpenter may add later: a change is not provably harmless */
	cJSON_ArrayForEach(c, nd) {
		if (!strcmp(c->string, "consolidationPolicy") ||
		    !strcmp(c->string, "consolidateAfter") ||
		    !strcmp(c->string, "budgets"))
			continue;
		if (!heq(c, json_get(od, c->string)))
			add_rule(im, IMPACT_MAY_DISRUPT, "spec.disruption.%s changed",
				 c->string);
	}
	cJSON_ArrayForEach(c, od) {
		if (json_get(nd, c->string) ||
		    !strcmp(c->string, "consolidationPolicy") ||
		    !strcmp(c->string, "consolidateAfter") ||
		    !strcmp(c->string, "budgets"))
			continue;
		if (!is_zero(c))
			add_rule(im, IMPACT_MAY_DISRUPT, "spec.disruption.%s removed",
				 c->string);
	}
}

/* ---- the interruption class (generator/interruption.h) --------------------- */

/* does NodePool `np` block reason `r` whenever class allowance `allowed`
 * says it must: at every hour (DW_NEVER, or DW_IN_WINDOW without a
 * window), or outside the window (a nodes "0" budget over the window's
 * complement, `sched` for `dur`)? */
static int blocks(const cJSON *np, enum disr_reason r, enum disr_when allowed,
		  const char *sched, const char *dur)
{
	const cJSON *d = json_get(json_get(np, "spec"), "disruption"), *b;

	if (r == DR_UNDERUTILIZED &&
	    !strcmp(policy_or_default(d), "WhenEmpty"))
		return 1;
	cJSON_ArrayForEach(b, json_get(d, "budgets")) {
		const cJSON *rs = json_get(b, "reasons"), *x;
		int pct, covers = !cJSON_GetArraySize(rs);

		if (budget_nodes(b, &pct) != 0)
			continue;
		cJSON_ArrayForEach(x, rs)
			covers |= cJSON_IsString(x) &&
				  !strcmp(x->valuestring, disr_reason_names[r]);
		if (!covers)
			continue;
		if (!json_str(b, "schedule"))
			return 1; /* at every hour */
		if (allowed == DW_IN_WINDOW && sched &&
		    !strcmp(json_str(b, "schedule"), sched) &&
		    json_str(b, "duration") &&
		    !strcmp(json_str(b, "duration"), dur))
			return 1;
	}
	return 0;
}

/* what NodePool `np` allows beyond its interruption class, one line per
 * broken reason into *out; the number of them (0: conforms, or no class) */
static int class_breaks(const cJSON *np, struct buf *out)
{
	enum wl_interruption c;
	const char *ws = json_meta_at(np, "annotations",
				      "gpuform.io/maintenance-window");
	const char *wd = json_meta_at(np, "annotations",
				      "gpuform.io/maintenance-window-duration");
	const cJSON *tspec = json_get(json_get(json_get(np, "spec"), "template"),
				      "spec");
	struct buf sched = BUF_INIT, dur = BUF_INIT, why = BUF_INIT;
	struct window w;
	int n = 0;

	if (!np || interruption_parse(json_meta_at(np, "annotations",
						   "gpuform.io/interruption"),
				      &c) < 0)
		return 0;
	if (ws && wd && window_parse(&w, ws, wd, &why) == 0)
		window_complement(&w, &sched, &dur);
	for (int r = DR_EMPTY; r < DR_EXPIRED; r++) {
		enum disr_when a = interruption_allows(c, (enum disr_reason)r);
		if (a == DW_ALWAYS ||
		    blocks(np, (enum disr_reason)r, a,
			   sched.len ? buf_cstr(&sched) : NULL, buf_cstr(&dur)))
			continue;
		buf_addf(out, "%s%s allowed %s", n++ ? ", " : "",
			 disr_reason_names[r],
			 a == DW_NEVER || !sched.len ? "at every hour"
						     : "outside the maintenance window");
	}
	if (interruption_allows(c, DR_EXPIRED) == DW_NEVER) {
		const char *ea = json_str(tspec, "expireAfter");
		if (!ea || strcmp(ea, "Never"))
			buf_addf(out, "%sexpiry (expireAfter %s) at any hour, "
				      "which no budget holds",
				 n++ ? ", " : "", ea ? ea : "720h, the default");
	}
	if (!interruption_grace(c) && json_get(tspec, "terminationGracePeriod"))
		buf_addf(out, "%sterminationGracePeriod lets drift evict "
			      "do-not-disrupt pods", n++ ? ", " : "");
	buf_release(&sched);
	buf_release(&dur);
	buf_release(&why);
	return n;
}

/* a change that lets Karpenter do more than the pool's interruption class
 * allows (the same definition the renderer and the guard use) */
static void class_rules(struct impact *im, const cJSON *a, const cJSON *b)
{
	struct buf nb = BUF_INIT, ob = BUF_INIT;

	if (class_breaks(b, &nb) && (!a || !class_breaks(a, &ob) ||
				     strcmp(buf_cstr(&nb), buf_cstr(&ob))))
		add_rule(im, IMPACT_MAY_DISRUPT, "beyond interruption %s: %s",
			 json_meta_at(b, "annotations",
				      "gpuform.io/interruption"),
			 buf_cstr(&nb));
	buf_release(&nb);
	buf_release(&ob);
}

/* ---- requirements (dynamic drift) ------------------------------------------ */

static int parse_long(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return end == s || *end ? -1 : 0;
}

static int to_long(const cJSON *v, long *out)
{
	return cJSON_IsString(v) ? parse_long(v->valuestring, out) : -1;
}

static int has_value(const cJSON *values, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, values)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
			return 1;
	return 0;
}

/* does label value `val` (NULL: no such label) satisfy requirement r? */
static int value_satisfies(const cJSON *r, const char *val)
{
	const char *op = json_str(r, "operator");
	const cJSON *vals = json_get(r, "values");
	long n, bound;

	if (!op)
		return 0;
	if (!strcmp(op, "In"))
		return val && has_value(vals, val);
	if (!strcmp(op, "NotIn"))
		return !val || !has_value(vals, val);
	if (!strcmp(op, "Exists"))
		return val != NULL;
	if (!strcmp(op, "DoesNotExist"))
		return val == NULL;
	if (!val || to_long(cJSON_GetArrayItem(vals, 0), &bound) < 0 ||
	    parse_long(val, &n) < 0)
		return 0;
	if (!strcmp(op, "Gt"))
		return n > bound;
	if (!strcmp(op, "Lt"))
		return n < bound;
	if (!strcmp(op, "Gte"))
		return n >= bound;
	if (!strcmp(op, "Lte"))
		return n <= bound;
	return 0;
}

int impact_labels_satisfy(const cJSON *requirements, const cJSON *labels)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, requirements) {
		const char *key = json_str(r, "key");
		const char *val = key ? json_str(labels, key) : NULL;
		if (key && !value_satisfies(r, val))
			return 0;
	}
	return 1;
}

/*
 * Is requirement `r` implied by the requirements `old` (every node allowed
 * by `old` satisfies r)? Only the cases a renderer or a person writes are
 * proved; anything else counts as not implied (nodes may drift).
 */
static int implied(const cJSON *old, const cJSON *r)
{
	const char *key = json_str(r, "key"), *op = json_str(r, "operator");
	const cJSON *o;

	if (!key || !op)
		return 0;
	cJSON_ArrayForEach(o, old) {
		const char *ok = json_str(o, "key"),
			   *oop = json_str(o, "operator");
		const cJSON *ov = json_get(o, "values"), *v;
		int all = 1, any = 0;

		if (!ok || !oop || strcmp(ok, key))
			continue;
		if (!strcmp(oop, "In")) {
			/* the node's value is one of ov: every one must pass */
			cJSON_ArrayForEach(v, ov) {
				any = 1;
				if (!cJSON_IsString(v) ||
				    !value_satisfies(r, v->valuestring))
					all = 0;
			}
			if (any && all)
				return 1;
			continue;
		}
		if (!strcmp(oop, op) && heq(o, r))
			return 1;
		if (!strcmp(op, "Exists") && strcmp(oop, "NotIn") &&
		    strcmp(oop, "DoesNotExist"))
			return 1;
		if (!strcmp(op, "NotIn") && !strcmp(oop, "NotIn")) {
			cJSON_ArrayForEach(v, json_get(r, "values"))
				if (!cJSON_IsString(v) ||
				    !has_value(ov, v->valuestring))
					all = 0;
			if (all)
				return 1;
		}
		if (!strcmp(op, "NotIn") && !strcmp(oop, "DoesNotExist"))
			return 1;
		{
			long ob, nb;
			if (to_long(cJSON_GetArrayItem(ov, 0), &ob) < 0 ||
			    to_long(cJSON_GetArrayItem(json_get(r, "values"), 0),
				    &nb) < 0)
				continue;
			/* integer bounds: old range inside the new one */
			if ((!strcmp(op, "Gt") || !strcmp(op, "Gte")) &&
			    (!strcmp(oop, "Gt") || !strcmp(oop, "Gte"))) {
				long lo_old = !strcmp(oop, "Gt") ? ob + 1 : ob;
				long lo_new = !strcmp(op, "Gt") ? nb + 1 : nb;
				if (lo_old >= lo_new)
					return 1;
			}
			if ((!strcmp(op, "Lt") || !strcmp(op, "Lte")) &&
			    (!strcmp(oop, "Lt") || !strcmp(oop, "Lte"))) {
				long hi_old = !strcmp(oop, "Lt") ? ob - 1 : ob;
				long hi_new = !strcmp(op, "Lt") ? nb - 1 : nb;
				if (hi_old <= hi_new)
					return 1;
			}
		}
	}
	return 0;
}

static void requirements(struct impact *im, const cJSON *old, const cJSON *new)
{
	const cJSON *r;
	struct buf keys = BUF_INIT;

	cJSON_ArrayForEach(r, new) {
		const char *k = json_str(r, "key");
		if (implied(old, r))
			continue;
		if (keys.len)
			buf_adds(&keys, ", ");
		buf_adds(&keys, k ? k : "?");
	}
	if (keys.len) {
		add_rule(im, IMPACT_REPLACES,
			 "dynamic drift: requirements (nodes whose labels no "
			 "longer satisfy %s are replaced)", buf_cstr(&keys));
		im->rules[im->nr - 1].requirements = 1;
	} else
		add_rule(im, IMPACT_NONE,
			 "dynamic drift: requirements only widened (every "
			 "existing node still satisfies them)");
	buf_release(&keys);
}

/* ---- NodePool ------------------------------------------------------------------ */

static void nodepool(struct impact *im, const cJSON *a, const cJSON *b)
{
	const cJSON *sa = json_get(a, "spec"), *sb = json_get(b, "spec"), *c;
	const cJSON *ta = json_get(sa, "template"),
		    *tb = json_get(sb, "template");
	const cJSON *ma = json_get(ta, "metadata"),
		    *mb = json_get(tb, "metadata");
	const cJSON *pa = json_get(ta, "spec"), *pb = json_get(tb, "spec");
	static const char *const tmeta[] = { "labels", "annotations" };

	add_pool(im, json_meta_at(b, "name", NULL));
	for (size_t i = 0; i < 2; i++)
		if (!heq(json_get(ma, tmeta[i]), json_get(mb, tmeta[i])))
			add_rule(im, IMPACT_REPLACES,
				 "static drift: NodePool template hash "
				 "(spec.template.metadata.%s)", tmeta[i]);
	/* every key of template.spec is hashed except requirements
	 * (dynamic) and resources (not settable on a NodePool) */
	for (int side = 0; side < 2; side++)
		cJSON_ArrayForEach(c, (side ? pa : pb)) {
			const cJSON *other = json_get(side ? pb : pa, c->string);
			if (!strcmp(c->string, "requirements") ||
			    !strcmp(c->string, "resources"))
				continue;
			if (side && other)
				continue; /* seen from the new side */
			if (!heq(c, other))
				add_rule(im, IMPACT_REPLACES,
					 "static drift: NodePool template hash "
					 "(spec.template.spec.%s)", c->string);
		}
	if (!heq(json_get(pa, "requirements"), json_get(pb, "requirements")))
		requirements(im, json_get(pa, "requirements"),
			     json_get(pb, "requirements"));
	if (!heq(json_get(sa, "disruption"), json_get(sb, "disruption")))
		disruption(im, json_get(sa, "disruption"),
			   json_get(sb, "disruption"));
	for (int side = 0; side < 2; side++)
		cJSON_ArrayForEach(c, (side ? sa : sb)) {
			const cJSON *other = json_get(side ? sb : sa, c->string);
			if (!strcmp(c->string, "template") ||
			    !strcmp(c->string, "disruption"))
				continue;
			if ((side && other) || heq(c, other))
				continue;
			if (!strcmp(c->string, "replicas")) {
				const cJSON *o = json_get(sa, "replicas"),
					    *n = json_get(sb, "replicas");
				double ov = cJSON_IsNumber(o) ? o->valuedouble : 0;
				double nv = cJSON_IsNumber(n) ? n->valuedouble : 0;
				if (nv < ov)
					add_rule(im, IMPACT_MAY_DISRUPT,
						 "static capacity: spec.replicas "
						 "lowered (%g -> %g)", ov, nv);
				else
					add_rule(im, IMPACT_NONE,
						 "static capacity: spec.replicas raised");
				continue;
			}
			add_rule(im, IMPACT_NONE,
				 "behavioural field: spec.%s (not hashed)",
				 c->string);
		}
	class_rules(im, a, b);
	object_metadata(im, a, b, "NodePool");
}

/* ---- EC2NodeClass -------------------------------------------------------------- */

/* the AMI family Karpenter hashes: spec.amiFamily, else the alias' family */
static void resolved_family(const cJSON *spec, struct buf *out)
{
	const char *f = json_str(spec, "amiFamily");
	const cJSON *t;

	if (f) {
		buf_adds(out, f);
		return;
	}
	cJSON_ArrayForEach(t, json_get(spec, "amiSelectorTerms")) {
		const char *alias = json_str(t, "alias");
		if (alias) {
			size_t n = strcspn(alias, "@");
			if (n == 6 && !strncmp(alias, "al2023", 6))
				buf_adds(out, "AL2023");
			else if (n == 3 && !strncmp(alias, "al2", 3))
				buf_adds(out, "AL2");
			else if (n == 12 && !strncmp(alias, "bottlerocket", 12))
				buf_adds(out, "Bottlerocket");
			else
				buf_add(out, alias, n);
			return;
		}
	}
	buf_adds(out, "Custom");
}

static void ami_desc(struct buf *out, const cJSON *terms)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, terms)
		if (json_str(t, "alias")) {
			buf_adds(out, json_str(t, "alias"));
			return;
		}
	buf_adds(out, cJSON_GetArraySize(terms) ? "selector terms" : "none");
}

/*
 * capacityReservationSelectorTerms: not hashed (hash:"ignore"); drift is
 * dynamic and concerns reserved nodes only: a node launched into a
 * reservation the class no longer selects drifts (CapacityReservationDrift,
 * aws/karpenter-provider-aws v1.14.1 pkg/cloudprovider/drift.go
 * isCapacityReservationDrifted). Only instances Karpenter launched as
 * "reserved" count (pkg/providers/instance/types.go: preference
 * capacity-reservations-only), so with no terms before there is none, and
 * terms that are only added keep every reservation selected before.
 */
static void capacity_terms(struct impact *im, const cJSON *old,
			   const cJSON *new)
{
	const cJSON *t, *u;
	int kept = 1;

	cJSON_ArrayForEach(t, old) {
		int found = 0;
		cJSON_ArrayForEach(u, new)
			found |= heq(t, u);
		kept &= found;
	}
	if (is_zero(old))
		add_rule(im, IMPACT_NONE,
			 "not hashed: capacity reservations selected for new "
			 "nodes (no node was launched into one of this class's "
			 "reservations before)");
	else if (kept)
		add_rule(im, IMPACT_NONE,
			 "not hashed: capacity reservation terms only added "
			 "(every reservation selected before still is)");
	else
		add_rule(im, IMPACT_REPLACES,
			 "dynamic drift: capacity reservations (reserved nodes "
			 "in a reservation no longer selected are replaced)");
}

static void nodeclass(struct impact *im, const cJSON *a, const cJSON *b)
{
	const cJSON *sa = json_get(a, "spec"), *sb = json_get(b, "spec"), *c;

	for (int side = 0; side < 2; side++)
		cJSON_ArrayForEach(c, (side ? sa : sb)) {
			const cJSON *other = json_get(side ? sb : sa, c->string);
			const char *k = c->string;
			if ((side && other) || heq(c, other))
				continue;
			if (!strcmp(k, "amiSelectorTerms")) {
				struct buf o = BUF_INIT, n = BUF_INIT;
				ami_desc(&o, json_get(sa, k));
				ami_desc(&n, json_get(sb, k));
				add_rule(im, IMPACT_REPLACES,
					 "dynamic drift: AMI (%s -> %s)",
					 buf_cstr(&o), buf_cstr(&n));
				buf_release(&o);
				buf_release(&n);
			} else if (!strcmp(k, "subnetSelectorTerms")) {
				add_rule(im, IMPACT_REPLACES,
					 "dynamic drift: subnets (nodes in a "
					 "subnet no longer selected are replaced)");
			} else if (!strcmp(k, "securityGroupSelectorTerms")) {
				add_rule(im, IMPACT_REPLACES,
					 "dynamic drift: security groups (nodes "
					 "whose groups differ from the selected "
					 "ones are replaced)");
			} else if (!strcmp(k, "capacityReservationSelectorTerms")) {
				capacity_terms(im, json_get(sa, k),
					       json_get(sb, k));
			} else if (!strcmp(k, "ipPrefixCount")) {
				add_rule(im, IMPACT_NONE,
					 "not hashed: spec.ipPrefixCount (new "
					 "nodes only)");
			} else if (!strcmp(k, "amiFamily")) {
				continue; /* below, as the resolved family */
			} else {
				add_rule(im, IMPACT_REPLACES,
					 "static drift: EC2NodeClass hash (spec.%s)",
					 k);
			}
		}
	{
		struct buf fa = BUF_INIT, fb = BUF_INIT;
		resolved_family(sa, &fa);
		resolved_family(sb, &fb);
		if (strcmp(buf_cstr(&fa), buf_cstr(&fb)))
			add_rule(im, IMPACT_REPLACES,
				 "static drift: EC2NodeClass hash (resolved AMI "
				 "family %s -> %s)", buf_cstr(&fa), buf_cstr(&fb));
		else if (!heq(json_get(sa, "amiFamily"),
			      json_get(sb, "amiFamily")))
			add_rule(im, IMPACT_NONE,
				 "not hashed: spec.amiFamily (the resolved "
				 "family %s is unchanged)", buf_cstr(&fa));
		buf_release(&fa);
		buf_release(&fb);
	}
	object_metadata(im, a, b, "EC2NodeClass");
}

/* every pool whose nodeClassRef names `name` */
static void pools_using(struct impact *im, const char *name,
			const cJSON *const *np, size_t n)
{
	for (size_t i = 0; name && i < n; i++) {
		const cJSON *ref = json_get(
			json_get(json_get(json_get(np[i], "spec"), "template"),
				 "spec"),
			"nodeClassRef");
		const char *rn = json_str(ref, "name"),
			   *rk = json_str(ref, "kind");
		if (rn && !strcmp(rn, name) && (!rk || !strcmp(rk, "EC2NodeClass")))
			add_pool(im, json_meta_at(np[i], "name", NULL));
	}
}

/* ---- entry ------------------------------------------------------------------- */

void impact_classify(struct impact *out, const cJSON *old, const cJSON *new,
		     const cJSON *const *nodepools, size_t npools)
{
	const cJSON *any = new ? new : old;

	if (!any)
		return;
	if (is_nodepool(any)) {
		if (!old) {
			add_rule(out, IMPACT_NONE, "new NodePool: no nodes yet");
		} else if (!new) {
			add_pool(out, json_meta_at(old, "name", NULL));
			add_rule(out, IMPACT_REPLACES,
				 "removal: deleting a NodePool deletes its "
				 "NodeClaims (nodes drained and terminated)");
		} else {
			nodepool(out, old, new);
		}
	} else if (is_nodeclass(any)) {
		if (!old) {
			add_rule(out, IMPACT_NONE,
				 "new EC2NodeClass: no nodes yet");
			return;
		}
		if (!new)
			add_rule(out, IMPACT_REPLACES,
				 "removal: nodes launched from a deleted "
				 "EC2NodeClass cannot stay");
		else
			nodeclass(out, old, new);
		if (out->cls != IMPACT_NONE) {
			pools_using(out, json_meta_at(any, "name", NULL),
				    nodepools, npools);
			if (!out->npools) {
				/* nothing runs on it */
				for (size_t i = 0; i < out->nr; i++)
					out->rules[i].cls = IMPACT_NONE;
				out->cls = IMPACT_NONE;
				add_rule(out, IMPACT_NONE,
					 "no NodePool uses this EC2NodeClass");
			}
		}
	} else {
		const char *av = json_str(any, "apiVersion");
		add_rule(out, IMPACT_NONE, "%s",
			 av && !strncmp(av, "kueue.x-k8s.io/", 15)
				 ? "Kueue object: admission and quota only"
				 : "not a Karpenter object");
	}
	if (!out->nr)
		add_rule(out, IMPACT_NONE, "no drift-relevant field changed");
	if (out->cls == IMPACT_NONE) {
		for (size_t i = 0; i < out->npools; i++)
			free(out->pools[i]);
		out->npools = 0;
	}
}

cJSON *impact_json(const struct impact *im)
{
	cJSON *o = cJSON_CreateObject(), *rules, *pools;

	cJSON_AddStringToObject(o, "class", impact_class_names[im->cls]);
	rules = cJSON_AddArrayToObject(o, "rules");
	for (size_t i = 0; i < im->nr; i++)
		if (im->rules[i].cls == im->cls)
			cJSON_AddItemToArray(rules,
					     cJSON_CreateString(im->rules[i].text));
	if (im->cls == IMPACT_REPLACES) {
		rules = cJSON_AddArrayToObject(o, "alsoMayDisrupt");
		for (size_t i = 0; i < im->nr; i++)
			if (im->rules[i].cls == IMPACT_MAY_DISRUPT)
				cJSON_AddItemToArray(rules, cJSON_CreateString(
						     im->rules[i].text));
	}
	pools = cJSON_AddArrayToObject(o, "pools");
	for (size_t i = 0; i < im->npools; i++)
		cJSON_AddItemToArray(pools, cJSON_CreateString(im->pools[i]));
	return o;
}
