/*
 * cmd/capplan.c: the capacity plan of intent files and its formats (see
 * capplan.h).
 */
#include "generator/capplan.h"
#include "generator/pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/validate.h"
#include "util/vec.h"
#include "util/xalloc.h"

static void wl_fill(struct capplan_wl *o, const struct workload *w,
		    const struct capacity *c)
{
	struct buf b = BUF_INIT;

	o->name = xstrdup(w->name);
	for (size_t i = 0; i < w->ngpu; i++)
		buf_addf(&b, "%s%s", i ? "," : "", w->gpu[i]);
	o->gpu = buf_detach(&b, NULL);
	o->sharing = w->sharing == SHARE_TIMESLICING
			     ? xasprintf("timeSlicing %ld", w->ts_replicas)
		     : w->sharing == SHARE_MIG
			     ? xasprintf("mig %s", w->mig_profile)
			     : xstrdup("none");
	{
		const char *types[3];
		size_t n;
		int reserved = 0, on_demand = 0;

		o->spot = plan_capacity_types(w, types, &n);
		/* the label follows the types the NodePool allows, not a
		 * second reading of the intent */
		for (size_t i = 0; i < n; i++) {
			reserved |= !strcmp(types[i], "reserved");
			on_demand |= !strcmp(types[i], "on-demand");
		}
		o->capacity = !reserved   ? (o->spot ? "spot" : "on-demand")
			      : o->spot   ? "reserved+spot"
			      : on_demand ? "reserved+on-demand"
					  : "reserved";
	}
	o->per_pod = c->per_pod;
	o->gang = c->gang;
	o->ntypes = c->ntypes;
	o->modelled = c->ntypes > 0;
	o->max_gpus = c->max_gpus;
	o->units = c->units;
	o->quota = c->quota;
	o->pods_max = c->pods_max;
	o->nodes_max = c->nodes_max;
	o->usd_max = c->usd_max;
	o->usd_bound = c->usd_bound;
	o->usd_min = c->usd_min;
	o->usd_min_bound = c->usd_min_bound;
	o->spot_min = o->spot ? c->spot_min : -1;
	o->spot_max = o->spot ? c->spot_max : -1;
	o->needs_one_zone = c->needs_one_zone;
	o->zone_fits = c->zone_fits;
	if (c->ntypes == 1)
		o->types = xstrdup(c->types[0].t->name);
	else if (c->ntypes)
		o->types = xasprintf("%s .. %s (%zu)", c->types[0].t->name,
				     c->types[c->ntypes - 1].t->name,
				     c->ntypes);
	else
		o->types = xstrdup("none");
	o->ty = xcalloc(c->ntypes ? c->ntypes : 1, sizeof(*o->ty));
	for (size_t i = 0; i < c->ntypes; i++) {
		const struct capacity_type *t = &c->types[i];
		o->ty[i] = (struct capplan_type){ t->t->name, t->t->gpus,
						  t->cap, t->slots, t->pods,
						  t->t->efa, t->usd };
	}
	for (size_t i = 0; i < c->ntypes; i++) {
		if (!o->slots_min || c->types[i].slots < o->slots_min)
			o->slots_min = c->types[i].slots;
		if (c->types[i].slots > o->slots_max)
			o->slots_max = c->types[i].slots;
	}
	if (c->cheapest.ty) {
		o->cheapest = xasprintf("%ld x %s", c->cheapest.nodes,
					c->cheapest.ty->t->name);
		o->cheapest_usd = c->cheapest.usd;
		o->gang_efa = c->cheapest.efa;
	}
	if (c->largest.ty) {
		o->largest = xasprintf("%ld x %s", c->largest.nodes,
				       c->largest.ty->t->name);
		o->largest_usd = c->largest.usd;
	}
}

int capplan_add(struct capplan *p, const char *file, const char *data,
		size_t len, struct diags *d)
{
	struct pipeline pl;
	struct err err = ERR_INIT;
	int ret = -1;

	/* the capacity rules are the plan's findings, below */
	if (pipeline_run(&pl, file, data, len, NULL,
			 PIPELINE_INTENT | PIPELINE_NO_CAPACITY_RULES |
				 PIPELINE_NO_ACK,
			 d, &err) == 0) {
		capplan_add_intent(p, file, &pl.in, d);
		ret = 0;
	}
	/* plan stops before the render stage (INT006, INT010): an unused
	 * acknowledgement is said by validate and render */
	if (pl.read)
		pipeline_acknowledge(&pl, d, 0);
	pipeline_release(&pl);
	err_release(&err);
	return ret;
}

void capplan_add_intent(struct capplan *p, const char *file,
			const struct intent *in, struct diags *d)
{
	const struct catalog *cat = catalog_builtin();
	struct capplan_cluster *cl;

	GROW(p->c, p->n + 1, p->alloc);
	cl = &p->c[p->n++];
	memset(cl, 0, sizeof(*cl));
	cl->file = xstrdup(file);
	cl->name = xstrdup(in->name ? in->name : "");
	cl->w = xcalloc(in->nworkloads ? in->nworkloads : 1, sizeof(*cl->w));
	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		const struct cat_family *fams[VALIDATE_MAX_FAMILIES];
		struct buf why = BUF_INIT;
		struct capacity c;
		int nf = validate_families(w, cat, fams, &why);

		buf_release(&why);
		if (nf <= 0)
			BUG("valid workload '%s' has no families", w->name);
		capacity_build(&c, in, w, fams, (size_t)nf, cat, p->prices,
			       &p->opts);
		p->cap_errors += capacity_report(in, &c, d);
		wl_fill(&cl->w[cl->n++], w, &c);
		if (!c.ntypes)
			continue;
		cl->max_gpus += c.max_gpus;
		cl->nodes_max += c.nodes_max;
		if (c.usd_max < 0 || c.usd_min < 0)
			cl->usd_unknown = 1;
		if (c.usd_max >= 0)
			cl->usd_max += c.usd_max;
		if (c.usd_min >= 0)
			cl->usd_min += c.usd_min;
	}
	p->max_gpus += cl->max_gpus;
	p->nodes_max += cl->nodes_max;
	p->usd_max += cl->usd_max;
	p->usd_min += cl->usd_min;
	p->usd_unknown |= cl->usd_unknown;
}

void capplan_release(struct capplan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct capplan_cluster *cl = &p->c[i];
		for (size_t j = 0; j < cl->n; j++) {
			free(cl->w[j].name);
			free(cl->w[j].gpu);
			free(cl->w[j].sharing);
			free(cl->w[j].types);
			free(cl->w[j].cheapest);
			free(cl->w[j].largest);
			free(cl->w[j].ty);
		}
		free(cl->w);
		free(cl->file);
		free(cl->name);
	}
	free(p->c);
	p->c = NULL;
	p->n = p->alloc = 0;
}

void capplan_prices_label(struct buf *out, const struct capplan *p)
{
	if (p->prices)
		buf_addf(out, "%s, %s, %s", p->prices->source,
			 p->prices->region, p->prices->date);
	else
		buf_addf(out, "built-in catalog (approximate), %s, %s",
			 CAPACITY_BUILTIN_REGION, CAPACITY_BUILTIN_DATE);
}

static void usd(struct buf *out, double v, int bound)
{
	if (v < 0)
		buf_adds(out, "n/a");
	else
		buf_addf(out, "%s%.2f", bound ? "<=" : "", v);
}

static void usd_total(struct buf *out, double v, int unknown)
{
	buf_addf(out, "%.2f%s", v, unknown ? "+" : "");
}

/* the floor: ">=" when it is the per-pod bound */
static void usd_floor(struct buf *out, double v, int bound)
{
	if (v < 0)
		buf_adds(out, "n/a");
	else
		buf_addf(out, "%s%.2f", bound ? ">=" : "", v);
}

/* ---- a table with aligned columns ----------------------------------------- */

#define TCOLS 16
struct table {
	char **cells; /* rows x TCOLS */
	size_t rows, alloc;
	size_t ncols;
	const char *right; /* per column: 'r' right-aligned */
};

static void trow(struct table *t, const char *const *v)
{
	GROW(t->cells, (t->rows + 1) * TCOLS, t->alloc);
	for (size_t i = 0; i < TCOLS; i++)
		t->cells[t->rows * TCOLS + i] =
			i < t->ncols && v[i] ? xstrdup(v[i]) : xstrdup("");
	t->rows++;
}

static void tprint(struct buf *out, struct table *t, const char *indent)
{
	size_t w[TCOLS] = { 0 };

	for (size_t r = 0; r < t->rows; r++)
		for (size_t i = 0; i < t->ncols; i++) {
			size_t l = strlen(t->cells[r * TCOLS + i]);
			if (l > w[i])
				w[i] = l;
		}
	for (size_t r = 0; r < t->rows; r++) {
		struct buf line = BUF_INIT;
		buf_adds(&line, indent);
		for (size_t i = 0; i < t->ncols; i++) {
			const char *s = t->cells[r * TCOLS + i];
			int right = t->right[i] == 'r';
			if (i)
				buf_adds(&line, "  ");
			buf_addf(&line, right ? "%*s" : "%-*s", (int)w[i], s);
		}
		while (line.len && line.ptr[line.len - 1] == ' ')
			line.ptr[--line.len] = '\0';
		buf_adds(out, buf_cstr(&line));
		buf_addc(out, '\n');
		buf_release(&line);
	}
	for (size_t i = 0; i < t->rows * TCOLS; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->rows = t->alloc = 0;
}

/* the cells of one workload row (static buffers per call) */
struct cells {
	struct buf b[TCOLS];
};

static void wl_cells(struct cells *c, const struct capplan_wl *w)
{
	for (size_t i = 0; i < TCOLS; i++)
		c->b[i] = (struct buf)BUF_INIT;
	buf_adds(&c->b[0], w->name);
	buf_adds(&c->b[1], w->gpu);
	buf_adds(&c->b[2], w->sharing);
	buf_adds(&c->b[3], w->capacity);
	buf_addf(&c->b[4], "%zu", w->ntypes);
	if (!w->modelled) {
		for (size_t i = 5; i < TCOLS; i++)
			buf_adds(&c->b[i], "-");
		return;
	}
	buf_addf(&c->b[5], "%ld", w->max_gpus);
	buf_addf(&c->b[6], "%ld", w->units);
	buf_addf(&c->b[7], "%ld", w->quota);
	buf_addf(&c->b[8], "%ld", w->nodes_max);
	buf_addf(&c->b[9], "%ld x %ld", w->gang, w->per_pod);
	if (w->cheapest) {
		buf_addf(&c->b[10], "%s ", w->cheapest);
		usd(&c->b[10], w->cheapest_usd, 0);
		if (w->largest && strcmp(w->largest, w->cheapest))
			buf_addf(&c->b[10], "; fewest nodes %s", w->largest);
		if (w->needs_one_zone)
			buf_addf(&c->b[10], "; one zone%s",
				 w->zone_fits == 0   ? ": DOES NOT FIT"
				 : w->zone_fits == 1 ? ": fits"
						     : " (unchecked)");
	} else {
		buf_adds(&c->b[10], "cannot launch");
	}
	usd_floor(&c->b[11], w->usd_min, w->usd_min_bound);
	usd(&c->b[12], w->usd_max, w->usd_bound);
	usd_floor(&c->b[13], capacity_month(w->usd_min), w->usd_min_bound);
	usd(&c->b[14], capacity_month(w->usd_max), w->usd_bound);
	if (!w->spot) {
		buf_adds(&c->b[15], "-");
	} else {
		usd(&c->b[15], w->spot_min, 0);
		buf_adds(&c->b[15], " .. ");
		usd(&c->b[15], w->spot_max, 0);
	}
}

static void cells_release(struct cells *c)
{
	for (size_t i = 0; i < TCOLS; i++)
		buf_release(&c->b[i]);
}

static const char *const heads[TCOLS] = {
	"WORKLOAD", "GPU", "SHARING", "CAPACITY", "TYPES", "MAX GPUS",
	"UNITS", "QUOTA", "MAX NODES", "GANG", "GANG ON (CHEAPEST)",
	"FLOOR $/H", "MAX $/H", "FLOOR $/MO", "MAX $/MO", "SPOT $/H",
};

/* the spot column only with a spot price file */
static size_t ncols(const struct capplan *p)
{
	return p->prices && p->prices->spot ? TCOLS : TCOLS - 1;
}

/* what the money columns mean, under the price label */
#define MONEY_NOTE                                                          \
	"floor: the full quota on the one instance type that runs it "      \
	"cheapest; max: the costliest nodes within the limit; a month is "  \
	"730 hours"

/* "FLOOR..MAX USD/hour" and the month, for the summary lines */
static void span_total(struct buf *out, const char *what, double lo,
		       double hi, int unknown)
{
	buf_addf(out, "%s", what);
	usd_total(out, lo, unknown);
	buf_adds(out, " .. ");
	usd_total(out, hi, unknown);
	buf_adds(out, " USD/hour on-demand (");
	usd_total(out, capacity_month(lo), unknown);
	buf_adds(out, " .. ");
	usd_total(out, capacity_month(hi), unknown);
	buf_adds(out, " USD/month)");
}

void capplan_text(struct buf *out, const struct capplan *p)
{
	buf_adds(out, "prices: on-demand USD/hour, ");
	capplan_prices_label(out, p);
	if (p->prices && p->prices->spot)
		buf_addf(out, "; spot: %s, the median over zones of the newest "
			      "price, floor .. max for spot pools\n",
			 p->prices->spot_source);
	else
		buf_adds(out, " (spot not estimated; spot pools fall back "
			      "to on-demand, the ceiling shown)\n");
	buf_adds(out, MONEY_NOTE "\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct capplan_cluster *cl = &p->c[i];
		struct table t = { NULL, 0, 0, ncols(p), "lllllrrrrllrrrrr" };
		struct buf a = BUF_INIT, b = BUF_INIT, c = BUF_INIT;
		struct buf f = BUF_INIT, fm = BUF_INIT, cm = BUF_INIT;
		const char *tot[TCOLS] = { "total" };

		buf_addf(out, "\ncluster %s (%s)\n", cl->name, cl->file);
		trow(&t, heads);
		for (size_t j = 0; j < cl->n; j++) {
			struct cells ce;
			const char *v[TCOLS];
			wl_cells(&ce, &cl->w[j]);
			for (size_t k = 0; k < TCOLS; k++)
				v[k] = buf_cstr(&ce.b[k]);
			trow(&t, v);
			cells_release(&ce);
		}
		buf_addf(&a, "%ld", cl->max_gpus);
		buf_addf(&b, "%ld", cl->nodes_max);
		usd_total(&c, cl->usd_max, cl->usd_unknown);
		usd_total(&f, cl->usd_min, cl->usd_unknown);
		usd_total(&fm, capacity_month(cl->usd_min), cl->usd_unknown);
		usd_total(&cm, capacity_month(cl->usd_max), cl->usd_unknown);
		tot[5] = buf_cstr(&a);
		tot[8] = buf_cstr(&b);
		tot[11] = buf_cstr(&f);
		tot[12] = buf_cstr(&c);
		tot[13] = buf_cstr(&fm);
		tot[14] = buf_cstr(&cm);
		trow(&t, tot);
		tprint(out, &t, "  ");
		buf_release(&a);
		buf_release(&b);
		buf_release(&c);
		buf_release(&f);
		buf_release(&fm);
		buf_release(&cm);
	}
	buf_addf(out, "\nall inputs: %zu cluster%s, at most %ld GPUs on %ld "
		      "nodes, ",
		 p->n, p->n == 1 ? "" : "s", p->max_gpus, p->nodes_max);
	span_total(out, "", p->usd_min, p->usd_max, p->usd_unknown);
	buf_addc(out, '\n');
}

static void md_cell(struct buf *out, const char *s)
{
	buf_adds(out, "| ");
	for (; *s; s++) {
		if (*s == '|')
			buf_adds(out, "\\|");
		else if (*s == '\n')
			buf_addc(out, ' ');
		else
			buf_addc(out, *s);
	}
	buf_addc(out, ' ');
}

static void md_findings(struct buf *out, const struct diags *f)
{
	if (!f || !f->nr)
		return;
	buf_adds(out, "\n#### Findings\n\n");
	for (size_t i = 0; i < f->nr; i++) {
		const struct diag *g = &f->items[i];
		buf_addf(out, "- `%s:%d:%d` **%s**: ", g->file, g->line, g->col,
			 g->sev == DIAG_ERROR ? "error" : "warning");
		buf_adds(out, g->msg);
		if (g->rule_id)
			buf_addf(out, " [%s %s]", g->rule_id, g->rule_name);
		if (g->hint)
			buf_addf(out, " (%s)", g->hint);
		buf_addc(out, '\n');
	}
}

void capplan_markdown(struct buf *out, const struct capplan *p,
		      const struct diags *findings)
{
	buf_adds(out, "### gpuform plan\n\nPrices: on-demand USD/hour, ");
	capplan_prices_label(out, p);
	if (p->prices && p->prices->spot)
		buf_addf(out, ". Spot: %s, the median over zones of the "
			      "newest price (SPOT $/H: floor .. max, spot "
			      "pools). " MONEY_NOTE ".\n",
			 p->prices->spot_source);
	else
		buf_adds(out, ". Spot is not estimated: spot pools fall back "
			      "to on-demand, the ceiling shown. " MONEY_NOTE
			      ".\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct capplan_cluster *cl = &p->c[i];

		buf_addf(out, "\n#### Cluster `%s` (`%s`)\n\n", cl->name,
			 cl->file);
		for (size_t k = 0; k < ncols(p); k++)
			md_cell(out, heads[k]);
		buf_adds(out, "|\n");
		for (size_t k = 0; k < ncols(p); k++)
			buf_adds(out, k >= 5 && k != 9 && k != 10 ? "| ---: "
								  : "| --- ");
		buf_adds(out, "|\n");
		for (size_t j = 0; j < cl->n; j++) {
			struct cells ce;
			wl_cells(&ce, &cl->w[j]);
			for (size_t k = 0; k < ncols(p); k++)
				md_cell(out, buf_cstr(&ce.b[k]));
			buf_adds(out, "|\n");
			cells_release(&ce);
		}
		buf_addf(out, "| **total** | | | | | **%ld** | | | **%ld** | | "
			      "| **",
			 cl->max_gpus, cl->nodes_max);
		usd_total(out, cl->usd_min, cl->usd_unknown);
		buf_adds(out, "** | **");
		usd_total(out, cl->usd_max, cl->usd_unknown);
		buf_adds(out, "** | **");
		usd_total(out, capacity_month(cl->usd_min), cl->usd_unknown);
		buf_adds(out, "** | **");
		usd_total(out, capacity_month(cl->usd_max), cl->usd_unknown);
		buf_adds(out, "** |\n");
	}
	buf_addf(out, "\n**All inputs: %zu cluster%s, at most %ld GPUs on %ld "
		      "nodes, ",
		 p->n, p->n == 1 ? "" : "s", p->max_gpus, p->nodes_max);
	span_total(out, "", p->usd_min, p->usd_max, p->usd_unknown);
	buf_adds(out, ".**\n");
	md_findings(out, findings);
}

/* USD to 1/10000 (AWS prices have more digits than the catalog's three),
 * so JSON shows 880.64 rather than 880.6399999999999 */
static double cents(double v)
{
	return floor(v * 10000 + 0.5) / 10000;
}

static cJSON *num_or_null(double v)
{
	return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(cents(v));
}

static cJSON *prices_json(const struct capplan *p)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "source",
				p->prices ? p->prices->source
					  : "built-in catalog (approximate)");
	cJSON_AddStringToObject(o, "region", p->prices ? p->prices->region
						       : CAPACITY_BUILTIN_REGION);
	cJSON_AddStringToObject(o, "date", p->prices ? p->prices->date
						     : CAPACITY_BUILTIN_DATE);
	cJSON_AddStringToObject(o, "currency", "USD");
	cJSON_AddStringToObject(o, "term", "OnDemand");
	cJSON_AddNumberToObject(o, "hoursPerMonth", CAPACITY_HOURS_PER_MONTH);
	if (p->prices && p->prices->spot)
		cJSON_AddStringToObject(o, "spot", p->prices->spot_source);
	else
		cJSON_AddNullToObject(o, "spot");
	cJSON_AddNullToObject(o, "reserved");
	return o;
}

static cJSON *choice_json(const char *what, double v)
{
	cJSON *o;

	if (!what)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "nodes", atof(what));
	cJSON_AddStringToObject(o, "instanceType", strstr(what, " x ") + 3);
	cJSON_AddItemToObject(o, "usdPerHour", num_or_null(v));
	return o;
}

static cJSON *wl_json(const struct capplan_wl *w)
{
	cJSON *o = cJSON_CreateObject(), *g;

	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "gpu", w->gpu);
	cJSON_AddStringToObject(o, "sharing", w->sharing);
	cJSON_AddStringToObject(o, "capacityType", w->capacity);
	cJSON_AddNumberToObject(o, "instanceTypes", (double)w->ntypes);
	cJSON_AddStringToObject(o, "types", w->types);
	cJSON_AddBoolToObject(o, "modelled", w->modelled);
	if (!w->modelled)
		return o;
	cJSON_AddNumberToObject(o, "maxGpus", (double)w->max_gpus);
	cJSON_AddNumberToObject(o, "gpuUnits", (double)w->units);
	cJSON_AddNumberToObject(o, "quota", (double)w->quota);
	cJSON_AddNumberToObject(o, "maxPods", (double)w->pods_max);
	cJSON_AddNumberToObject(o, "maxNodes", (double)w->nodes_max);
	cJSON_AddNumberToObject(o, "podSlotsMin", (double)w->slots_min);
	cJSON_AddNumberToObject(o, "podSlotsMax", (double)w->slots_max);
	{
		/* per instance type: a pod always fits one node (types with
		 * fewer GPUs than gpusPerPod are not in the pool), so what
		 * varies is how many pods a node holds */
		cJSON *ts = cJSON_AddArrayToObject(o, "instanceTypeDetails");
		for (size_t i = 0; i < w->ntypes; i++) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "name", w->ty[i].name);
			cJSON_AddNumberToObject(t, "gpus", (double)w->ty[i].gpus);
			cJSON_AddNumberToObject(t, "gpuUnits",
						(double)w->ty[i].units);
			cJSON_AddNumberToObject(t, "podSlots",
						(double)w->ty[i].slots);
			cJSON_AddNumberToObject(t, "podsPerNode",
						(double)w->ty[i].pods);
			cJSON_AddNumberToObject(t, "efaInterfaces",
						(double)w->ty[i].efa);
			cJSON_AddItemToObject(t, "usdPerHour",
					      num_or_null(w->ty[i].usd));
			cJSON_AddItemToArray(ts, t);
		}
	}
	cJSON_AddItemToObject(o, "maxUsdPerHour", num_or_null(w->usd_max));
	cJSON_AddBoolToObject(o, "maxUsdIsBound", w->usd_bound);
	cJSON_AddItemToObject(o, "maxUsdPerMonth",
			      num_or_null(capacity_month(w->usd_max)));
	cJSON_AddItemToObject(o, "floorUsdPerHour", num_or_null(w->usd_min));
	cJSON_AddBoolToObject(o, "floorUsdIsBound", w->usd_min_bound);
	cJSON_AddItemToObject(o, "floorUsdPerMonth",
			      num_or_null(capacity_month(w->usd_min)));
	if (w->spot_min >= 0 || w->spot_max >= 0) {
		cJSON_AddItemToObject(o, "spotFloorUsdPerHour",
				      num_or_null(w->spot_min));
		cJSON_AddItemToObject(o, "spotMaxUsdPerHour",
				      num_or_null(w->spot_max));
	}
	g = cJSON_AddObjectToObject(o, "gang");
	cJSON_AddNumberToObject(g, "pods", (double)w->gang);
	cJSON_AddNumberToObject(g, "gpusPerPod", (double)w->per_pod);
	cJSON_AddItemToObject(g, "cheapest",
			      choice_json(w->cheapest, w->cheapest_usd));
	cJSON_AddItemToObject(g, "fewestNodes",
			      choice_json(w->largest, w->largest_usd));
	cJSON_AddNumberToObject(g, "efaInterfaces", (double)w->gang_efa);
	cJSON_AddBoolToObject(g, "needsOneZone", w->needs_one_zone);
	if (w->zone_fits < 0)
		cJSON_AddNullToObject(g, "fitsOneZone");
	else
		cJSON_AddBoolToObject(g, "fitsOneZone", w->zone_fits);
	return o;
}

static cJSON *total_json(long gpus, long nodes, double usd_max,
			 double usd_min, int unknown)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "maxGpus", (double)gpus);
	cJSON_AddNumberToObject(o, "maxNodes", (double)nodes);
	cJSON_AddNumberToObject(o, "maxUsdPerHour", cents(usd_max));
	cJSON_AddNumberToObject(o, "maxUsdPerMonth",
				cents(capacity_month(usd_max)));
	cJSON_AddNumberToObject(o, "floorUsdPerHour", cents(usd_min));
	cJSON_AddNumberToObject(o, "floorUsdPerMonth",
				cents(capacity_month(usd_min)));
	cJSON_AddBoolToObject(o, "someUnpriced", unknown);
	return o;
}

cJSON *capplan_json(const struct capplan *p, const struct diags *findings)
{
	cJSON *root = cJSON_CreateObject(), *cls, *fs;

	cJSON_AddItemToObject(root, "prices", prices_json(p));
	cls = cJSON_AddArrayToObject(root, "clusters");
	for (size_t i = 0; i < p->n; i++) {
		const struct capplan_cluster *cl = &p->c[i];
		cJSON *o = cJSON_CreateObject(), *ws;

		cJSON_AddStringToObject(o, "name", cl->name);
		cJSON_AddStringToObject(o, "file", cl->file);
		ws = cJSON_AddArrayToObject(o, "workloads");
		for (size_t j = 0; j < cl->n; j++)
			cJSON_AddItemToArray(ws, wl_json(&cl->w[j]));
		cJSON_AddItemToObject(o, "total",
				      total_json(cl->max_gpus, cl->nodes_max,
						 cl->usd_max, cl->usd_min,
						 cl->usd_unknown));
		cJSON_AddItemToArray(cls, o);
	}
	cJSON_AddItemToObject(root, "total",
			      total_json(p->max_gpus, p->nodes_max, p->usd_max,
					 p->usd_min, p->usd_unknown));
	fs = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; findings && i < findings->nr; i++) {
		const struct diag *g = &findings->items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", g->file ? g->file : "");
		cJSON_AddNumberToObject(o, "line", g->line);
		cJSON_AddNumberToObject(o, "column", g->col);
		cJSON_AddStringToObject(o, "severity", g->sev == DIAG_ERROR
							       ? "error"
							       : "warning");
		if (g->rule_id)
			cJSON_AddStringToObject(o, "rule", g->rule_id);
		cJSON_AddStringToObject(o, "message", g->msg);
		if (g->hint)
			cJSON_AddStringToObject(o, "hint", g->hint);
		cJSON_AddItemToArray(fs, o);
	}
	return root;
}

/* ---- before -> after ---------------------------------------------------- */

struct pair {
	const char *cluster, *name;
	const struct capplan_wl *a, *b; /* NULL: absent on that side */
};

static const struct capplan_wl *find_wl(const struct capplan *p,
					const char *cluster, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].name, cluster))
			for (size_t j = 0; j < p->c[i].n; j++)
				if (!strcmp(p->c[i].w[j].name, name))
					return &p->c[i].w[j];
	return NULL;
}

/* every workload of either side: base's order, then head's new ones */
static struct pair *pairs(const struct capplan *a, const struct capplan *b,
			  size_t *n)
{
	struct pair *v = NULL;
	size_t nr = 0, alloc = 0;
	const struct capplan *s[2] = { a, b };

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < s[k]->n; i++)
			for (size_t j = 0; j < s[k]->c[i].n; j++) {
				const char *cl = s[k]->c[i].name;
				const char *nm = s[k]->c[i].w[j].name;
				if (k == 1 && find_wl(a, cl, nm))
					continue;
				GROW(v, nr + 1, alloc);
				v[nr].cluster = cl;
				v[nr].name = nm;
				v[nr].a = find_wl(a, cl, nm);
				v[nr].b = find_wl(b, cl, nm);
				nr++;
			}
	*n = nr;
	return v;
}

/* a workload's numbers; 0 when absent or not modelled */
static long g_of(const struct capplan_wl *w)
{
	return w && w->modelled ? w->max_gpus : 0;
}
static long n_of(const struct capplan_wl *w)
{
	return w && w->modelled ? w->nodes_max : 0;
}
static double u_of(const struct capplan_wl *w)
{
	return w && w->modelled && w->usd_max > 0 ? w->usd_max : 0;
}

static double f_of(const struct capplan_wl *w)
{
	return w && w->modelled && w->usd_min > 0 ? w->usd_min : 0;
}

/* the spot ceiling; 0 when absent, not spot or unknown */
static double s_of(const struct capplan_wl *w)
{
	return w && w->modelled && w->spot_max > 0 ? w->spot_max : 0;
}

static long c100(double v)
{
	return (long)(v * 100 + 0.5);
}

static int pair_changed(const struct pair *p)
{
	return !p->a || !p->b || g_of(p->a) != g_of(p->b) ||
	       n_of(p->a) != n_of(p->b) ||
	       c100(u_of(p->a)) != c100(u_of(p->b)) ||
	       c100(f_of(p->a)) != c100(f_of(p->b));
}

int capplan_changed(const struct capplan *a, const struct capplan *b)
{
	size_t n;
	struct pair *v = pairs(a, b, &n);
	int ch = 0;

	for (size_t i = 0; i < n && !ch; i++)
		ch = pair_changed(&v[i]);
	free(v);
	return ch;
}

static void arrow_l(struct buf *out, long x, long y, const char *arrow)
{
	buf_addf(out, "%ld %s %ld", x, arrow, y);
	if (x != y)
		buf_addf(out, " (%+ld)", y - x);
}

static void arrow_u(struct buf *out, double x, double y, const char *arrow)
{
	buf_addf(out, "%.2f %s %.2f", x, arrow, y);
	if ((long)(x * 100 + 0.5) != (long)(y * 100 + 0.5))
		buf_addf(out, " (%+.2f)", y - x);
}

static void lead(struct buf *out, const struct capplan *a,
		 const struct capplan *b, const char *arrow)
{
	buf_adds(out, "max $/hour ");
	arrow_u(out, a->usd_max, b->usd_max, arrow);
	buf_adds(out, ", max GPUs ");
	arrow_l(out, a->max_gpus, b->max_gpus, arrow);
	buf_adds(out, ", max nodes ");
	arrow_l(out, a->nodes_max, b->nodes_max, arrow);
}

void capplan_diff_lead(struct buf *out, const struct capplan *a,
		       const struct capplan *b)
{
	lead(out, a, b, "→");
}

void capplan_diff_text(struct buf *out, const struct capplan *a,
		       const struct capplan *b)
{
	size_t n;
	struct pair *v = pairs(a, b, &n);

	buf_adds(out, "capacity and cost (on-demand USD, ");
	capplan_prices_label(out, b);
	buf_adds(out, "; " MONEY_NOTE "):\n");
	for (size_t i = 0; i < n; i++) {
		if (!pair_changed(&v[i]))
			continue;
		buf_addf(out, "  %s/%s: ", v[i].cluster, v[i].name);
		if (!v[i].a || !v[i].b) {
			buf_adds(out, v[i].a ? "removed; " : "added; ");
		}
		buf_adds(out, "GPUs ");
		arrow_l(out, g_of(v[i].a), g_of(v[i].b), "->");
		buf_adds(out, ", nodes ");
		arrow_l(out, n_of(v[i].a), n_of(v[i].b), "->");
		buf_adds(out, ", $/hour ");
		arrow_u(out, u_of(v[i].a), u_of(v[i].b), "->");
		buf_adds(out, ", floor $/hour ");
		arrow_u(out, f_of(v[i].a), f_of(v[i].b), "->");
		buf_adds(out, ", $/month ");
		arrow_u(out, capacity_month(u_of(v[i].a)),
			capacity_month(u_of(v[i].b)), "->");
		if (b->prices && b->prices->spot &&
		    ((v[i].a && v[i].a->spot) || (v[i].b && v[i].b->spot))) {
			buf_adds(out, ", spot max $/hour ");
			arrow_u(out, s_of(v[i].a), s_of(v[i].b), "->");
		}
		buf_addc(out, '\n');
	}
	buf_adds(out, "  total: ");
	lead(out, a, b, "->");
	buf_adds(out, ", floor $/hour ");
	arrow_u(out, a->usd_min, b->usd_min, "->");
	buf_adds(out, ", max $/month ");
	arrow_u(out, capacity_month(a->usd_max), capacity_month(b->usd_max),
		"->");
	buf_addc(out, '\n');
	free(v);
}

void capplan_diff_markdown(struct buf *out, const struct capplan *a,
			   const struct capplan *b)
{
	size_t n;
	struct pair *v = pairs(a, b, &n);
	struct buf c = BUF_INIT;

	buf_adds(out, "\n#### Capacity and cost\n\n");
	if (!capplan_changed(a, b)) {
		buf_addf(out, "Unchanged: at most %ld GPUs on %ld nodes, "
			      "%.2f .. %.2f USD/hour on-demand (%.2f .. %.2f "
			      "USD/month; ",
			 b->max_gpus, b->nodes_max, b->usd_min, b->usd_max,
			 capacity_month(b->usd_min),
			 capacity_month(b->usd_max));
		capplan_prices_label(out, b);
		buf_adds(out, ").\n");
		free(v);
		return;
	}
	buf_adds(out, "On-demand USD (");
	capplan_prices_label(out, b);
	buf_adds(out, "; spot pools fall back to on-demand, the ceiling "
		      "shown; " MONEY_NOTE "):\n\n"
		      "| cluster | workload | max GPUs | max nodes | "
		      "floor $/hour | max $/hour | max $/month |\n"
		      "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
	for (size_t i = 0; i < n; i++) {
		if (!pair_changed(&v[i]))
			continue;
		md_cell(out, v[i].cluster);
		buf_reset(&c);
		buf_adds(&c, v[i].name);
		if (!v[i].a || !v[i].b)
			buf_adds(&c, v[i].a ? " (removed)" : " (added)");
		md_cell(out, buf_cstr(&c));
		buf_reset(&c);
		arrow_l(&c, g_of(v[i].a), g_of(v[i].b), "→");
		md_cell(out, buf_cstr(&c));
		buf_reset(&c);
		arrow_l(&c, n_of(v[i].a), n_of(v[i].b), "→");
		md_cell(out, buf_cstr(&c));
		buf_reset(&c);
		arrow_u(&c, f_of(v[i].a), f_of(v[i].b), "→");
		md_cell(out, buf_cstr(&c));
		buf_reset(&c);
		arrow_u(&c, u_of(v[i].a), u_of(v[i].b), "→");
		md_cell(out, buf_cstr(&c));
		buf_reset(&c);
		arrow_u(&c, capacity_month(u_of(v[i].a)),
			capacity_month(u_of(v[i].b)), "→");
		md_cell(out, buf_cstr(&c));
		buf_adds(out, "|\n");
	}
	buf_adds(out, "| **total** | | **");
	buf_reset(&c);
	arrow_l(&c, a->max_gpus, b->max_gpus, "→");
	buf_addf(out, "%s** | **", buf_cstr(&c));
	buf_reset(&c);
	arrow_l(&c, a->nodes_max, b->nodes_max, "→");
	buf_addf(out, "%s** | **", buf_cstr(&c));
	buf_reset(&c);
	arrow_u(&c, a->usd_min, b->usd_min, "→");
	buf_addf(out, "%s** | **", buf_cstr(&c));
	buf_reset(&c);
	arrow_u(&c, a->usd_max, b->usd_max, "→");
	buf_addf(out, "%s** | **", buf_cstr(&c));
	buf_reset(&c);
	arrow_u(&c, capacity_month(a->usd_max), capacity_month(b->usd_max),
		"→");
	buf_addf(out, "%s** |\n", buf_cstr(&c));
	buf_release(&c);
	free(v);
}

static cJSON *side_json(const struct capplan_wl *w)
{
	cJSON *o;

	if (!w)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "maxGpus", (double)g_of(w));
	cJSON_AddNumberToObject(o, "maxNodes", (double)n_of(w));
	cJSON_AddNumberToObject(o, "maxUsdPerHour", cents(u_of(w)));
	cJSON_AddNumberToObject(o, "maxUsdPerMonth",
				cents(capacity_month(u_of(w))));
	cJSON_AddNumberToObject(o, "floorUsdPerHour", cents(f_of(w)));
	if (w->spot_max >= 0)
		cJSON_AddNumberToObject(o, "spotMaxUsdPerHour",
					cents(s_of(w)));
	return o;
}

cJSON *capplan_diff_json(const struct capplan *a, const struct capplan *b)
{
	cJSON *root = cJSON_CreateObject(), *ws, *t;
	size_t n;
	struct pair *v = pairs(a, b, &n);

	cJSON_AddItemToObject(root, "prices", prices_json(b));
	cJSON_AddBoolToObject(root, "changed", capplan_changed(a, b));
	ws = cJSON_AddArrayToObject(root, "workloads");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cluster", v[i].cluster);
		cJSON_AddStringToObject(o, "workload", v[i].name);
		cJSON_AddBoolToObject(o, "changed", pair_changed(&v[i]));
		cJSON_AddItemToObject(o, "before", side_json(v[i].a));
		cJSON_AddItemToObject(o, "after", side_json(v[i].b));
		cJSON_AddItemToArray(ws, o);
	}
	t = cJSON_AddObjectToObject(root, "total");
	cJSON_AddItemToObject(t, "before",
			      total_json(a->max_gpus, a->nodes_max, a->usd_max,
					 a->usd_min, a->usd_unknown));
	cJSON_AddItemToObject(t, "after",
			      total_json(b->max_gpus, b->nodes_max, b->usd_max,
					 b->usd_min, b->usd_unknown));
	cJSON_AddNumberToObject(t, "maxGpusChange",
				(double)(b->max_gpus - a->max_gpus));
	cJSON_AddNumberToObject(t, "maxNodesChange",
				(double)(b->nodes_max - a->nodes_max));
	cJSON_AddNumberToObject(t, "maxUsdPerHourChange",
				cents(cents(b->usd_max) - cents(a->usd_max)));
	cJSON_AddNumberToObject(t, "floorUsdPerHourChange",
				cents(cents(b->usd_min) - cents(a->usd_min)));
	free(v);
	return root;
}
