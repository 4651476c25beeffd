/*
 * reconcile/nodeimpact.c: node impact of a reconcile, live counts and the guard
 * for protected pools (see nodeimpact.h).
 *
 * Deliberately not here: the drift rules (generator/impact.c), the requests
 * (reconcile/nodecount.c), the window arithmetic (generator/window.c).
 */
#include "reconcile/nodeimpact.h"
#include "generator/objdiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/interruption.h"
#include "generator/kobj.h"
#include "util/vec.h"
#include "util/json.h"
#include "util/xalloc.h"

#define ANN_INTERRUPTION "gpuform.io/interruption"
#define ANN_WINDOW "gpuform.io/maintenance-window"
#define ANN_WINDOW_DURATION "gpuform.io/maintenance-window-duration"

static int is_nodepool(const cJSON *o)
{
	const char *k = json_str_at(o, "kind", NULL), *av = json_str_at(o, "apiVersion", NULL);
	return k && av && !strcmp(k, "NodePool") && !strncmp(av, "karpenter.sh/", 13);
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void nodeimpact_init(struct nodeimpact *ni, const cJSON *desired)
{
	memset(ni, 0, sizeof(*ni));
	ni->desired = desired;
	ni->now = time(NULL);
	ni->notes = (struct buf)BUF_INIT;
}

void nodeimpact_release(struct nodeimpact *ni)
{
	for (size_t i = 0; i < ni->n; i++) {
		kobj_id_clear(&ni->e[i].id);
		impact_release(&ni->e[i].im);
	}
	free(ni->e);
	for (size_t i = 0; i < ni->npools; i++)
		free(ni->pools[i].name);
	free(ni->pools);
	impact_tally_release(&ni->tally);
	nodecount_release(&ni->counts);
	buf_release(&ni->notes);
	memset(ni, 0, sizeof(*ni));
}

/* ---- time ---------------------------------------------------------------- */

static void add_rfc3339(struct buf *out, time_t t)
{
	struct tm tm;
	char b[32];

	gmtime_r(&t, &tm);
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_adds(out, b);
}

static void add_span(struct buf *out, long minutes)
{
	if (minutes >= 1440)
		buf_addf(out, "%ldd ", minutes / 1440);
	if (minutes >= 60)
		buf_addf(out, "%ldh ", minutes / 60 % 24);
	buf_addf(out, "%ldm", minutes % 60);
}

/* ---- counts ---------------------------------------------------------------- */

static void add_counts(struct buf *out, long claims, long pods)
{
	if (claims < 0) {
		buf_adds(out, "NodeClaim count unknown");
		return;
	}
	buf_addf(out, "%ld NodeClaim%s, ", claims, claims == 1 ? "" : "s");
	if (pods < 0)
		buf_adds(out, "do-not-disrupt pod count unknown");
	else
		buf_addf(out, "%ld do-not-disrupt pod%s", pods, pods == 1 ? "" : "s");
}

static const struct ni_entry *entry_of(const struct nodeimpact *ni,
				       const struct impact *im)
{
	for (size_t i = 0; i < ni->n; i++)
		if (&ni->e[i].im == im)
			return &ni->e[i];
	return NULL;
}

void nodeimpact_describe(struct buf *out, const struct nodeimpact *ni,
			 const struct impact *im)
{
	buf_adds(out, impact_class_names[im->cls]);
	if (im->npools) {
		buf_addf(out, " [pool%s ", im->npools == 1 ? "" : "s");
		for (size_t i = 0; i < im->npools; i++)
			buf_addf(out, "%s%s", i ? ", " : "", im->pools[i]);
		const struct ni_entry *e = entry_of(ni, im);
		if (im->cls == IMPACT_REPLACES && ni->npools && e) {
			buf_adds(out, ": ");
			add_counts(out, e->claims, e->pods);
		}
		buf_addc(out, ']');
	}
	buf_adds(out, ": ");
	impact_rules_text(im, out);
	impact_also_text(im, out);
	if (im->cls == IMPACT_REPLACES && im->npools && ni->desired) {
		/* when Karpenter acts on it, from the desired NodePools */
		const cJSON **docs = NULL, *d;
		size_t n = 0;

		cJSON_ArrayForEach(d, ni->desired) n++;
		docs = xcalloc(n ? n : 1, sizeof(*docs));
		n = 0;
		cJSON_ArrayForEach(d, ni->desired) docs[n++] = d;
		buf_adds(out, "; takes effect ");
		objdiff_when(out, im->pools, im->npools, docs, n);
		free(docs);
	}
}

void nodeimpact_summary(struct buf *out, const struct nodeimpact *ni)
{
	const struct impact_tally *t = &ni->tally;
	size_t r = t->counts[IMPACT_REPLACES];

	buf_addf(out, "%zu node-replacing change%s", r, r == 1 ? "" : "s");
	if (t->npools) {
		long claims = 0, pods = 0;
		buf_addf(out, " (pool%s ", t->npools == 1 ? "" : "s");
		for (size_t i = 0; i < t->npools; i++)
			buf_addf(out, "%s%s", i ? ", " : "", t->pools[i]);
		for (size_t i = 0; i < ni->npools; i++) {
			claims = claims < 0 || ni->pools[i].claims < 0
					 ? -1 : claims + ni->pools[i].claims;
			pods = pods < 0 || ni->pools[i].pods < 0
				       ? -1 : pods + ni->pools[i].pods;
		}
		if (ni->npools) {
			buf_adds(out, ": ");
			add_counts(out, claims, pods);
		}
		buf_addc(out, ')');
	}
	buf_addf(out, ", %zu may disrupt, %zu no node effect",
		 t->counts[IMPACT_MAY_DISRUPT], t->counts[IMPACT_NONE]);
}

cJSON *nodeimpact_json(const struct nodeimpact *ni)
{
	cJSON *o = cJSON_CreateObject(), *pools;

	cJSON_AddNumberToObject(o, "replacesNodes",
				(double)ni->tally.counts[IMPACT_REPLACES]);
	cJSON_AddNumberToObject(o, "mayDisrupt",
				(double)ni->tally.counts[IMPACT_MAY_DISRUPT]);
	cJSON_AddNumberToObject(o, "noNodeEffect",
				(double)ni->tally.counts[IMPACT_NONE]);
	pools = cJSON_AddArrayToObject(o, "pools");
	for (size_t i = 0; i < ni->npools; i++) {
		const struct ni_pool *p = &ni->pools[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", p->name);
		if (p->claims >= 0)
			cJSON_AddNumberToObject(e, "nodeClaims", (double)p->claims);
		else
			cJSON_AddNullToObject(e, "nodeClaims");
		if (p->claims >= 0 && p->pods >= 0)
			cJSON_AddNumberToObject(e, "doNotDisruptPods", (double)p->pods);
		else
			cJSON_AddNullToObject(e, "doNotDisruptPods");
		cJSON_AddItemToArray(pools, e);
	}
	if (ni->counts.unknown)
		cJSON_AddStringToObject(o, "countsUnknown", ni->counts.unknown);
	cJSON_AddNumberToObject(o, "heldBack", ni->held);
	return o;
}

const struct impact *nodeimpact_find(const struct nodeimpact *ni,
				     const struct recon_item *it)
{
	for (size_t i = 0; i < ni->n; i++) {
		const struct ni_entry *e = &ni->e[i];
		if (same(e->id.kind, it->id.kind) &&
		    same(e->id.ns, it->id.ns) && same(e->id.name, it->id.name) &&
		    same(e->id.api_version, it->id.api_version))
			return &e->im;
	}
	return NULL;
}

/* ---- the guard ----------------------------------------------------------- */

/* the NodePool object that says how `pool` may be disrupted: the desired
 * one, else (a pool being removed) its live stub */
static const cJSON *pool_object(const struct nodeimpact *ni,
				const struct recon_change *c, size_t n,
				const char *pool)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, ni->desired)
		if (is_nodepool(o) && same(json_str_at(o, "metadata", "name"), pool))
			return o;
	for (size_t i = 0; i < n; i++)
		if (c[i].live && is_nodepool(c[i].live) &&
		    same(json_str_at(c[i].live, "metadata", "name"), pool))
			return c[i].live;
	return NULL;
}

static void check_pool(struct nodeimpact *ni, struct ni_entry *e,
		       const char *pool, const cJSON *np, long claims, long pods)
{
	const char *mode = np ? json_meta_at(np, "annotations", ANN_INTERRUPTION)
			      : NULL;
	const char *sched = np ? json_meta_at(np, "annotations", ANN_WINDOW)
			       : NULL;
	const char *dur = np ? json_meta_at(np, "annotations",
					    ANN_WINDOW_DURATION)
			     : NULL;
	struct buf why = BUF_INIT, line = BUF_INIT, rules = BUF_INIT;
	long day = (long)(ni->now / 86400), sod = (long)(ni->now % 86400);
	long mow = ((day + 4) % 7) * 1440 + sod / 60; /* 1970-01-01: Thu */
	long mins;
	int has_window;

	/* generator/interruption.h: the same definition as the budgets */
	if (!interruption_hold(mode, sched, dur, mow, &mins, &why))
		goto out;
	has_window = mins > 0;
	impact_rules_text(&e->im, &rules);
	buf_addf(&line,
		 "%s: %s %s (%s) replaces the nodes of pool %s "
		 "(interruption: %s; ",
		 ni->allow_replacement ? "allowed by --allow-node-replacement"
		 : ni->enforce         ? "held back"
				       : "would be held back",
		 e->id.kind, e->id.name, buf_cstr(&rules), pool, mode);
	add_counts(&line, claims, pods);
	if (has_window) {
		buf_addf(&line, ") outside its maintenance window \"%s\" for %s; "
				"the window next opens at ", sched, dur);
		add_rfc3339(&line, ni->now - ni->now % 60 + mins * 60);
		buf_adds(&line, " (in ");
		add_span(&line, mins);
		buf_adds(&line, ")\n");
	} else {
		buf_adds(&line, ") and the pool has no maintenance window");
		if (why.len)
			buf_addf(&line, " (%s)", buf_cstr(&why));
		buf_addc(&line, '\n');
	}
	buf_adds(&ni->notes, buf_cstr(&line));
	if (!ni->allow_replacement && !e->held) {
		e->held = 1;
		ni->held++;
	}
out:
	buf_release(&why);
	buf_release(&line);
	buf_release(&rules);
}

static const cJSON *requirements_of(const cJSON *np)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(np, "spec"), "template");
	return cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(t, "spec"), "requirements");
}

/* requirement sets of the NodePool changes that drift only through them */
struct reqsets {
	const cJSON **r;
	size_t n;
};

/* a NodeClaim drifts when its labels fail one of the new requirement sets */
static int violates_any(const cJSON *claim, void *ctx)
{
	const struct reqsets *rs = ctx;
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(claim, "metadata"), "labels");

	for (size_t i = 0; i < rs->n; i++)
		if (!impact_labels_satisfy(rs->r[i], labels))
			return 1;
	return 0;
}

/* per pool, the NodeClaims any change replaces: all of them if one change
 * drifts the whole pool, else those outside some new requirements */
static void count_pools(struct nodeimpact *ni, const struct recon_change *c,
			size_t first)
{
	ni->npools = ni->tally.npools;
	ni->pools = xcalloc(ni->npools ? ni->npools : 1, sizeof(*ni->pools));
	for (size_t p = 0; p < ni->npools; p++) {
		const char *pool = ni->tally.pools[p];
		struct reqsets rs = { NULL, 0 };
		size_t alloc = 0;
		int whole = 0;

		for (size_t i = first; i < ni->n; i++) {
			const struct impact *im = &ni->e[i].im;
			int touches = 0;
			if (im->cls != IMPACT_REPLACES)
				continue;
			for (size_t q = 0; q < im->npools; q++)
				touches |= !strcmp(im->pools[q], pool);
			if (!touches)
				continue;
			if (!impact_requirements_only(im)) {
				whole = 1;
				break;
			}
			GROW(rs.r, rs.n + 1, alloc);
			rs.r[rs.n++] = requirements_of(c[i - first].next);
		}
		ni->pools[p].name = xstrdup(pool);
		nodecount_count(&ni->counts, pool, whole ? NULL : violates_any,
				&rs, &ni->pools[p].claims, &ni->pools[p].pods);
		free(rs.r);
	}
}

int nodeimpact_guard(void *ctx, struct kube *k, struct recon_change *c,
		     size_t n, struct err *err)
{
	struct nodeimpact *ni = ctx;
	const cJSON **pools = NULL, *o;
	size_t np = 0, ap = 0, first;

	cJSON_ArrayForEach(o, ni->desired)
		if (is_nodepool(o)) {
			GROW(pools, np + 1, ap);
			pools[np++] = o;
		}
	for (size_t i = 0; i < n; i++)
		if (c[i].live && is_nodepool(c[i].live)) {
			GROW(pools, np + 1, ap);
			pools[np++] = c[i].live;
		}
	first = ni->n;
	for (size_t i = 0; i < n; i++) {
		struct kobj_id id;
		struct ni_entry *e;

		kobj_id_of(c[i].next ? c[i].next : c[i].live, &id);
		id.api_version = id.api_version ? id.api_version : "";
		id.kind = id.kind ? id.kind : "";
		id.name = id.name ? id.name : "";
		GROW(ni->e, ni->n + 1, ni->alloc);
		e = &ni->e[ni->n++];
		kobj_id_copy(&e->id, &id);
		e->im = (struct impact)IMPACT_INIT;
		e->claims = e->pods = -1;
		e->held = 0;
		impact_classify(&e->im, c[i].live, c[i].next, pools, np);
		impact_tally_add(&ni->tally, &e->im);
	}
	free(pools);
	if (!ni->tally.counts[IMPACT_REPLACES])
		return 0;
	/* only now: a no-op run pays no request for this */
	nodecount_fetch(&ni->counts, k, ni->tally.pools, ni->tally.npools);
	count_pools(ni, c, first);
	for (size_t i = first; i < ni->n; i++) {
		struct ni_entry *e = &ni->e[i];
		const cJSON *reqs = requirements_of(c[i - first].next);
		struct reqsets rs = { &reqs, 1 };
		int only = impact_requirements_only(&e->im);

		if (e->im.cls != IMPACT_REPLACES)
			continue;
		e->claims = e->pods = 0;
		for (size_t p = 0; p < e->im.npools; p++) {
			long cl, po;
			nodecount_count(&ni->counts, e->im.pools[p],
					only ? violates_any : NULL, &rs, &cl, &po);
			e->claims = e->claims < 0 || cl < 0 ? -1 : e->claims + cl;
			e->pods = e->pods < 0 || po < 0 ? -1 : e->pods + po;
			if (cl == 0)
				continue; /* no node to replace (or every node
					   * still satisfies the requirements) */
			check_pool(ni, e, e->im.pools[p],
				   pool_object(ni, c, n, e->im.pools[p]), cl, po);
		}
	}
	/* only the node-replacing changes are held back; reconcile applies
	 * everything else and then fails saying how many were held */
	if (ni->held && ni->enforce)
		for (size_t i = first; i < ni->n; i++)
			c[i - first].hold = ni->e[i].held;
	return 0;
}

/* ---- the report of a run, with the node impact --------------------------- */

void nodeimpact_item_text(struct buf *out, const struct recon_item *it)
{
	kobj_display(&it->id, out);
	buf_addf(out, " %s%s", recon_action_names[it->action],
		 it->dry && it->action != RA_UNCHANGED &&
				 it->action != RA_CONFLICT &&
				 it->action != RA_FAILED &&
				 it->action != RA_SKIPPED
			 ? " (dry run)"
			 : "");
	if (it->detail)
		buf_addf(out, ": %s", it->detail);
	buf_addc(out, '\n');
}

void nodeimpact_impact_text(struct buf *out, const struct nodeimpact *ni,
			    const struct recon_item *it, const char *indent,
			    int verbose)
{
	const struct impact *im = nodeimpact_find(ni, it);

	if (!im || (it->action != RA_CREATED && it->action != RA_CONFIGURED &&
		    it->action != RA_PRUNED && it->action != RA_SKIPPED))
		return;
	if (!verbose &&
	    (!it->id.api_version || !strstr(it->id.api_version, "karpenter")))
		return;
	buf_addf(out, "%snode impact: ", indent);
	nodeimpact_describe(out, ni, im);
	buf_addc(out, '\n');
}

void nodeimpact_run_text(struct buf *out, const struct nodeimpact *ni,
			 const struct recon_report *rep, int verbose)
{
	for (size_t i = 0; i < rep->nr; i++) {
		nodeimpact_item_text(out, &rep->items[i]);
		nodeimpact_impact_text(out, ni, &rep->items[i], "  ", verbose);
	}
}

void nodeimpact_summary_text(struct buf *out, const struct nodeimpact *ni,
			     const struct recon_report *r, int failed)
{
	buf_addf(out, "%s %s: ",
		 failed      ? "reconcile failed for"
		 : r->dry_run ? "dry run for"
			      : "reconciled",
		 r->cluster ? r->cluster : "?");
	if (ni->n) {
		nodeimpact_summary(out, ni);
		buf_adds(out, "; ");
	}
	buf_addf(out, "%zu created, %zu configured, %zu unchanged, %zu pruned",
		 r->counts[RA_CREATED], r->counts[RA_CONFIGURED],
		 r->counts[RA_UNCHANGED], r->counts[RA_PRUNED]);
	if (r->counts[RA_SKIPPED])
		buf_addf(out, ", %zu skipped", r->counts[RA_SKIPPED]);
	if (r->counts[RA_CONFLICT])
		buf_addf(out, ", %zu conflicts", r->counts[RA_CONFLICT]);
	if (r->counts[RA_FAILED])
		buf_addf(out, ", %zu failed", r->counts[RA_FAILED]);
	buf_addf(out, " (%ld API requests, %ld writes)", r->stats.requests,
		 r->stats.writes);
	if (r->source_commit)
		buf_addf(out, " from commit %s", r->source_commit);
	buf_addc(out, '\n');
}

void nodeimpact_diff_text(struct buf *out, const struct nodeimpact *ni,
			  const struct recon_report *rep, int verbose)
{
	for (size_t i = 0; i < rep->nr; i++) {
		const struct recon_item *it = &rep->items[i];
		if (it->diff) {
			nodeimpact_impact_text(out, ni, it, "", verbose);
			buf_adds(out, it->diff);
		} else if (it->action == RA_PRUNED) {
			nodeimpact_item_text(out, it);
			nodeimpact_impact_text(out, ni, it, "", verbose);
		} else if (it->action == RA_CONFLICT || it->action == RA_FAILED) {
			nodeimpact_item_text(out, it);
		}
	}
	if (recon_changed(rep) && ni->n) {
		nodeimpact_summary(out, ni);
		buf_addc(out, '\n');
	}
}

cJSON *nodeimpact_report_json(const struct nodeimpact *ni,
			      const struct recon_report *rep,
			      const char *error)
{
	cJSON *j = recon_report_json(rep);
	cJSON *items = cJSON_GetObjectItemCaseSensitive(j, "items");

	for (size_t i = 0; i < rep->nr; i++) {
		const struct impact *im = nodeimpact_find(ni, &rep->items[i]);
		if (im && rep->items[i].action != RA_UNCHANGED)
			cJSON_AddItemToObject(cJSON_GetArrayItem(items, (int)i),
					      "impact", impact_json(im));
	}
	cJSON_AddItemToObject(j, "nodeImpact", nodeimpact_json(ni));
	if (error)
		cJSON_AddStringToObject(j, "error", error);
	return j;
}
