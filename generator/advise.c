/*
 * generator/advise.c: the rules of `gpuform advise` (docs/advise.md), the
 * PromQL behind each observation, the minimal text edit of an intent, and
 * the three output formats. Pure: see advise.h.
 */
#include "generator/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"
#include "generator/interruption.h"
#include "generator/objdiff.h"
#include "generator/pipeline.h"
#include "util/diag.h"
#include "util/xalloc.h"

const char *const advise_kind_names[] = {
	"none", "insufficient-data", "lower-max-gpus", "raise-max-gpus",
	"time-slicing", "mig", "spot-fallback",
};

const char *const advise_query_names[AQ_N] = {
	"ksm_coverage",   "nodepool_label", "requests_peak",
	"requests_p95",   "requests_p50",   "util_coverage",
	"util_p95",       "util_p50",       "fb_used_p95",
	"fb_total",       "queue_coverage", "pending_hours",
	"admission_wait_p90", "fb_used_peak",
};

void advise_opts_init(struct advise_opts *o, double window_s)
{
	o->window_s = window_s;
	o->min_coverage = 0.5;
	o->min_window_s = 7 * 86400.0;
	o->headroom = 0.25;
	o->lower_min = 0.25;
	o->starved_share = 0.05;
	o->starved_wait_s = 3600;
	o->full_share = 0.9;
	o->share_util = 25;
	o->share_fb = 0.25;
	o->mig_busy = 60;
	o->mig_fb_p95 = 0.8;
	o->mig_fb_peak = 0.9;
	o->prices = NULL;
}

/* ---- the queries --------------------------------------------------------- */

/*
 * The series and labels (docs/advise.md cites their sources):
 *  - kube-state-metrics: kube_pod_container_resource_requests{namespace,
 *    pod, container, node, resource="nvidia_com_gpu", unit="integer"},
 *    kube_pod_status_phase{namespace, pod, phase}, kube_pod_info{namespace,
 *    pod, node}, kube_node_labels{node, label_karpenter_sh_nodepool} (the
 *    label only with --metric-labels-allowlist=nodes=[karpenter.sh/nodepool]);
 *  - dcgm-exporter: DCGM_FI_DEV_GPU_UTIL (percent), DCGM_FI_DEV_FB_USED and
 *    DCGM_FI_DEV_FB_FREE (MiB), with the pod mapping's namespace and pod
 *    labels (scraped with honor_labels);
 *  - Kueue: kueue_pending_workloads{cluster_queue, status},
 *    kueue_admission_wait_time_seconds_bucket{cluster_queue, le}.
 * The NodePool, the ClusterQueue and the workload share its name.
 */
void advise_queries(char *q[AQ_N], const struct workload *w, long window_s,
		    long step_s)
{
	const char *n = w->name; /* a DNS label: no quote or backslash */
	char *pool_nodes, *running, *req, *pod_on_pool, *util, *fb, *fbt,
		*pending;

	pool_nodes = xasprintf("max by (node) (kube_node_labels{"
			       "label_karpenter_sh_nodepool=\"%s\"})",
			       n);
	running = xstrdup("max by (namespace, pod) "
			  "(kube_pod_status_phase{phase=\"Running\"})");
	req = xasprintf("(sum(kube_pod_container_resource_requests{resource="
			"\"nvidia_com_gpu\"} * on (node) group_left() %s * on "
			"(namespace, pod) group_left() %s) or vector(0))",
			pool_nodes, running);
	pod_on_pool = xasprintf("max by (namespace, pod) (kube_pod_info * on "
				"(node) group_left() %s)",
				pool_nodes);
	util = xasprintf("max(DCGM_FI_DEV_GPU_UTIL * on (namespace, pod) "
			 "group_left() %s)",
			 pod_on_pool);
	fb = xasprintf("max(DCGM_FI_DEV_FB_USED * on (namespace, pod) "
		       "group_left() %s)",
		       pod_on_pool);
	fbt = xasprintf("max((DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) * on "
			"(namespace, pod) group_left() %s)",
			pod_on_pool);
	pending = xasprintf("sum(kueue_pending_workloads{cluster_queue=\"%s\"})",
			    n);

	q[AQ_KSM_COVERAGE] = xasprintf(
		"count_over_time((max(kube_node_labels))[%lds:%lds]) * %ld / %ld",
		window_s, step_s, step_s, window_s);
	q[AQ_NODEPOOL_LABEL] = xasprintf(
		"max_over_time((count(kube_node_labels{"
		"label_karpenter_sh_nodepool!=\"\"}))[%lds:%lds])",
		window_s, step_s);
	q[AQ_REQ_PEAK] = xasprintf("max_over_time(%s[%lds:%lds])", req,
				   window_s, step_s);
	q[AQ_REQ_P95] = xasprintf("quantile_over_time(0.95, %s[%lds:%lds])",
				  req, window_s, step_s);
	q[AQ_REQ_P50] = xasprintf("quantile_over_time(0.5, %s[%lds:%lds])",
				  req, window_s, step_s);
	/* of the samples with GPUs requested, the share with utilisation */
	q[AQ_UTIL_COVERAGE] = xasprintf("count_over_time((%s)[%lds:%lds]) / "
					"count_over_time((%s > 0)[%lds:%lds])",
					util, window_s, step_s, req, window_s,
					step_s);
	q[AQ_UTIL_P95] = xasprintf("quantile_over_time(0.95, (%s)[%lds:%lds])",
				   util, window_s, step_s);
	q[AQ_UTIL_P50] = xasprintf("quantile_over_time(0.5, (%s)[%lds:%lds])",
				   util, window_s, step_s);
	q[AQ_FB_USED_P95] = xasprintf(
		"quantile_over_time(0.95, (%s)[%lds:%lds])", fb, window_s,
		step_s);
	q[AQ_FB_USED_PEAK] = xasprintf("max_over_time((%s)[%lds:%lds])", fb,
				       window_s, step_s);
	q[AQ_FB_TOTAL] = xasprintf("max_over_time((%s)[%lds:%lds])", fbt,
				   window_s, step_s);
	q[AQ_QUEUE_COVERAGE] = xasprintf("count_over_time((%s)[%lds:%lds]) * "
					 "%ld / %ld",
					 pending, window_s, step_s, step_s,
					 window_s);
	q[AQ_PENDING_HOURS] = xasprintf("sum_over_time((%s > bool 0)[%lds:%lds])"
					" * %ld / 3600",
					pending, window_s, step_s, step_s);
	q[AQ_WAIT_P90] = xasprintf(
		"histogram_quantile(0.9, sum by (le) (increase("
		"kueue_admission_wait_time_seconds_bucket{cluster_queue=\"%s\"}"
		"[%lds])))",
		n, window_s);
	free(pool_nodes);
	free(running);
	free(req);
	free(pod_on_pool);
	free(util);
	free(fb);
	free(fbt);
	free(pending);
}

void advise_obs_set(struct advise_obs *o, enum advise_query_id id,
		    int present, double v)
{
	if (present && !isfinite(v))
		present = 0; /* NaN: no admissions, no samples */
	/* a subquery's range holds both ends: a share can pass 1 by a step */
	if ((id == AQ_KSM_COVERAGE || id == AQ_UTIL_COVERAGE ||
	     id == AQ_QUEUE_COVERAGE) && v > 1)
		v = 1;
	switch (id) {
	case AQ_KSM_COVERAGE:
		o->ksm_coverage = present ? v : 0;
		break;
	case AQ_NODEPOOL_LABEL:
		o->nodepool_label = present && v > 0;
		break;
	case AQ_REQ_PEAK:
		o->have_requests = present;
		o->req_peak = present ? v : 0;
		break;
	case AQ_REQ_P95:
		o->req_p95 = present ? v : 0;
		break;
	case AQ_REQ_P50:
		o->req_p50 = present ? v : 0;
		break;
	case AQ_UTIL_COVERAGE:
		o->util_coverage = present ? v : 0;
		break;
	case AQ_UTIL_P95:
		o->have_util = present;
		o->util_p95 = present ? v : 0;
		break;
	case AQ_UTIL_P50:
		o->util_p50 = present ? v : 0;
		break;
	case AQ_FB_USED_P95:
		o->fb_used_p95 = present ? v : 0;
		break;
	case AQ_FB_TOTAL:
		o->fb_total = present ? v : 0;
		break;
	case AQ_FB_USED_PEAK:
		o->have_fb_peak = present;
		o->fb_used_peak = present ? v : 0;
		break;
	case AQ_QUEUE_COVERAGE:
		o->queue_coverage = present ? v : 0;
		o->have_queue = present && v > 0;
		break;
	case AQ_PENDING_HOURS:
		o->pending_hours = present ? v : 0;
		break;
	case AQ_WAIT_P90:
		o->have_wait = present;
		o->wait_p90_s = present ? v : 0;
		break;
	case AQ_N:
		break;
	}
}

/* ---- the text edit --------------------------------------------------------- */

/* offset of line:col (1-based) in data, or (size_t)-1 */
static size_t offset_of(const char *data, size_t len, int line, int col)
{
	size_t off = 0;
	for (int l = 1; l < line; l++) {
		const char *nl = memchr(data + off, '\n', len - off);
		if (!nl)
			return (size_t)-1;
		off = (size_t)(nl - data) + 1;
	}
	if (col < 1 || off + (size_t)col - 1 > len)
		return (size_t)-1;
	return off + (size_t)col - 1;
}

/* one replacement of data[off, off+del) by ins */
struct edit {
	size_t off, del;
	char *ins;
};

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int edit_max_gpus(struct edit *e, const char *file, const char *data,
			 size_t len, const struct workload *w, long v,
			 struct err *err)
{
	size_t off = offset_of(data, len, w->max_gpus_pos.line,
			       w->max_gpus_pos.col), end;

	if (off == (size_t)-1 || off >= len || data[off] < '0' ||
	    data[off] > '9')
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: maxGpus of workload '%s' is not a "
			       "plain number; change it to %ld by hand",
			       file, w->max_gpus_pos.line, w->max_gpus_pos.col,
			       w->name, v);
	for (end = off; end < len && data[end] >= '0' && data[end] <= '9'; end++)
		;
	e->off = off;
	e->del = end - off;
	e->ins = xasprintf("%ld", v);
	return 0;
}

/* val: "{timeSlicing: 4}" or "{mig: 1g.10gb}" */
static int edit_sharing(struct edit *e, const char *file, const char *data,
			size_t len, const struct workload *w, const char *val,
			struct err *err)
{
	size_t off, ls, le, key;
	const char *k;

	if (w->sharing_pos.line) {
		/* `sharing: none` written: replace the word */
		off = offset_of(data, len, w->sharing_pos.line,
				w->sharing_pos.col);
		if (off == (size_t)-1 || len - off < 4 ||
		    memcmp(data + off, "none", 4))
			return err_set(err, ERR_INVALID,
				       "%s:%d:%d: sharing of workload '%s' is "
				       "not a plain 'none'; write "
				       "'%s' by hand",
				       file, w->sharing_pos.line,
				       w->sharing_pos.col, w->name, val);
		e->off = off;
		e->del = 4;
		e->ins = xstrdup(val);
		return 0;
	}
	/* a new line after the maxGpus line, at the column of its key */
	off = offset_of(data, len, w->max_gpus_pos.line, w->max_gpus_pos.col);
	if (off == (size_t)-1)
		return err_set(err, ERR_INVALID, "%s: workload '%s' has no "
						 "maxGpus line", file, w->name);
	for (ls = off; ls > 0 && data[ls - 1] != '\n'; ls--)
		;
	for (le = off; le < len && data[le] != '\n'; le++)
		;
	k = NULL;
	for (size_t i = ls; i + 8 <= off; i++)
		if (!memcmp(data + i, "maxGpus:", 8)) {
			k = data + i;
			break;
		}
	/* block style only: the key, then its value, nothing before the key
	 * but indentation and one list dash */
	for (key = ls; k && data + key < k; key++)
		if (data[key] != ' ' && data[key] != '-')
			k = NULL;
	if (!k || memchr(data + ls, '{', (size_t)(k - (data + ls))))
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: workload '%s' is not in block style; "
			       "add 'sharing: %s' by hand",
			       file, w->max_gpus_pos.line, w->max_gpus_pos.col,
			       w->name, val);
	e->off = le;
	e->del = 0;
	e->ins = xasprintf("\n%*ssharing: %s", (int)(k - (data + ls)), "",
			   val);
	return 0;
}

/* `whenExhausted: on-demand` -> `spot`, the word replaced where it stands */
static int edit_fallback(struct edit *e, const char *file, const char *data,
			 size_t len, const struct workload *w, struct err *err)
{
	size_t off = offset_of(data, len, w->cap_fallback_pos.line,
			       w->cap_fallback_pos.col);

	if (!w->cap_fallback_pos.line || off == (size_t)-1 || len - off < 9 ||
	    memcmp(data + off, "on-demand", 9) ||
	    (off + 9 < len && data[off + 9] != '\n' && data[off + 9] != ' ' &&
	     data[off + 9] != ',' && data[off + 9] != '}' &&
	     data[off + 9] != '\r' && data[off + 9] != '#'))
		return err_set(err, ERR_INVALID,
			       "%s:%d:%d: capacity.whenExhausted of workload "
			       "'%s' is not a plain 'on-demand'; write 'spot' "
			       "by hand",
			       file, w->cap_fallback_pos.line,
			       w->cap_fallback_pos.col, w->name);
	e->off = off;
	e->del = 9;
	e->ins = xstrdup("spot");
	return 0;
}

/* the sharing value of a, or NULL when a shares nothing */
static char *sharing_val(const struct advise_rec *a)
{
	if (a->kind == ADVISE_TIMESLICE)
		return xasprintf("{timeSlicing: %ld}", a->replicas);
	if (a->kind == ADVISE_MIG)
		return xasprintf("{mig: %s}", a->mig);
	return NULL;
}

int advise_edit(struct buf *out, const char *file, const char *data,
		size_t len, const struct intent *in,
		const struct advise_result *r, size_t only, struct err *err)
{
	struct edit *e = xcalloc(2 * r->n + 1, sizeof(*e));
	size_t ne = 0, pos = 0;
	int ret = -1;

	for (size_t i = 0; i < r->n; i++) {
		const struct advise_rec *a = &r->recs[i];
		const struct workload *w = &in->workloads[a->wl];
		char *val = sharing_val(a);
		int bad;
		if (only != (size_t)-1 && only != i) {
			free(val);
			continue;
		}
		bad = val && edit_sharing(&e[ne++], file, data, len, w, val,
					  err) < 0;
		free(val);
		if (bad)
			goto out;
		if (a->kind == ADVISE_SPOT &&
		    edit_fallback(&e[ne++], file, data, len, w, err) < 0)
			goto out;
		if ((a->kind == ADVISE_LOWER_MAX || a->kind == ADVISE_RAISE_MAX ||
		     a->kind == ADVISE_TIMESLICE || a->kind == ADVISE_MIG) &&
		    a->new_max != a->old_max &&
		    edit_max_gpus(&e[ne++], file, data, len, w, a->new_max,
				  err) < 0)
			goto out;
	}
	qsort(e, ne, sizeof(*e), edit_cmp);
	for (size_t i = 0; i < ne; i++) {
		if (e[i].off < pos)
			BUG("overlapping intent edits");
		buf_add(out, data + pos, e[i].off - pos);
		buf_adds(out, e[i].ins);
		pos = e[i].off + e[i].del;
	}
	buf_add(out, data + pos, len - pos);
	ret = 0;
out:
	for (size_t i = 0; i < ne; i++)
		free(e[i].ins);
	free(e);
	return ret;
}

/* ---- the rules ------------------------------------------------------------- */

static long ceil_div(long a, long b)
{
	return b > 0 ? (a + b - 1) / b : a;
}

static long round_up(long v, long m)
{
	return m > 1 ? ceil_div(v, m) * m : v;
}

/* the smallest GPU count of a node the pool may launch */
static long node_gpus(const struct capplan_wl *c)
{
	long m = 0;
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->ty[i].gpus > 0 && (!m || c->ty[i].gpus < m))
			m = c->ty[i].gpus;
	return m ? m : 1;
}

/* physical GPUs of the gang (1 pod without one) */
static long gang_gpus(const struct capplan_wl *c, long mult)
{
	return ceil_div((c->gang > 0 ? c->gang : 1) * c->per_pod, mult);
}

/* *dst = the formatted text (the old one freed) */
static void set_text(char **dst, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_text(char **dst, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(*dst);
	*dst = buf_detach(&b, NULL);
}
#define set_why(a, ...) set_text(&(a)->why, __VA_ARGS__)
#define set_note(a, ...) set_text(&(a)->note, __VA_ARGS__)

/* too little data to judge: say what is missing */
static int thin(struct advise_rec *a, const struct advise_obs *ob,
		const struct advise_opts *o)
{
	if (o->window_s < o->min_window_s) {
		a->kind = ADVISE_THIN;
		set_why(a, "the window is %.0f days; at least %.0f are needed "
			   "to see a weekly cycle",
			o->window_s / 86400, o->min_window_s / 86400);
		return 1;
	}
	if (ob->ksm_coverage < o->min_coverage) {
		a->kind = ADVISE_THIN;
		set_why(a, "kube-state-metrics data covers %.0f%% of the "
			   "window (at least %.0f%% needed)",
			100 * ob->ksm_coverage, 100 * o->min_coverage);
		return 1;
	}
	if (!ob->nodepool_label) {
		a->kind = ADVISE_THIN;
		set_why(a, "no node carries label_karpenter_sh_nodepool in "
			   "kube_node_labels: run kube-state-metrics with "
			   "--metric-labels-allowlist=nodes=[karpenter.sh/"
			   "nodepool]");
		return 1;
	}
	return 0;
}

/* gangs wait for quota: the queue was pending long, admission slow, the
 * quota full */
static int starved(const struct advise_obs *ob, const struct advise_opts *o,
		   const struct capplan_wl *c)
{
	return ob->have_queue && ob->queue_coverage >= o->min_coverage &&
	       ob->pending_hours * 3600 >= o->starved_share * o->window_s &&
	       ob->have_wait && ob->wait_p90_s >= o->starved_wait_s &&
	       ob->req_peak >= o->full_share * (double)c->quota;
}

static int pending_much(const struct advise_obs *ob,
			const struct advise_opts *o)
{
	return ob->have_queue &&
	       ob->pending_hours * 3600 >= o->starved_share * o->window_s;
}

/* the smallest maxGpus that holds the peak (units) with headroom, a gang
 * and a node, in whole nodes of the smallest type */
static long lowest_max(const struct capplan_wl *c, double peak_units,
		       long mult, const struct advise_opts *o)
{
	long need = (long)ceil(peak_units * (1 + o->headroom) / (double)mult);
	long g = gang_gpus(c, mult), n = node_gpus(c);
	if (need < g)
		need = g;
	if (need < n)
		need = n;
	if (need < (long)ceil(peak_units / (double)mult))
		need = (long)ceil(peak_units / (double)mult);
	return round_up(need, n);
}

/* gangs that cannot restart: never shared, never on spot */
static int fragile_gang(const struct workload *w)
{
	return w->interruption == INT_NONE && w->gang > 1;
}

/* the cat_family of a catalog type name, or NULL */
static const struct cat_family *family_of(const char *type)
{
	const struct catalog *cat = catalog_builtin();
	for (size_t i = 0; i < cat->ntypes; i++)
		if (!strcmp(cat->types[i].name, type))
			return catalog_family(cat, cat->types[i].family);
	return NULL;
}

/* MIG is possible: Bottlerocket with MIG (the catalog's first release),
 * every family of the pool MIG-capable */
static int mig_possible(const struct intent *in, const struct capplan_wl *c)
{
	const struct cat_release *rel =
		catalog_release_of(catalog_builtin(), "bottlerocket", "mig");

	if (in->ami_family != AMI_BOTTLEROCKET || !rel || !in->ami_version ||
	    catalog_version_cmp(in->ami_version, rel->first) < 0 || !c->ntypes)
		return 0;
	for (size_t i = 0; i < c->ntypes; i++) {
		const struct cat_family *f = family_of(c->ty[i].name);
		if (!f || !f->mig_model || !f->nmig)
			return 0;
	}
	return 1;
}

/*
 * The smallest MIG profile the busiest GPU's work fits: of the profiles
 * of the pool's first family with at least two instances per GPU (not
 * 4g: Bottlerocket maps none; validation checks the other families), one
 * whose memory (GB of the model's GB, times the observed total) holds
 * the p95 within mig_fb_p95 and the peak within mig_fb_peak, and whose
 * compute (Ng of 7) keeps the busiest GPU's p95 below mig_busy; the most
 * instances per GPU wins. NULL: none fits.
 */
static const char *mig_pick(const struct capplan_wl *c,
			    const struct advise_obs *ob,
			    const struct advise_opts *o, long *inst)
{
	const struct cat_family *f = family_of(c->ty[0].name);
	const char *best = NULL, *dot = strchr(f->mig_model, '.');
	long model_gb = dot ? strtol(dot + 1, NULL, 10) : 0;

	*inst = 0;
	if (model_gb <= 0 || !ob->have_fb_peak || ob->fb_total <= 0)
		return NULL;
	for (size_t i = 0; i < f->nmig; i++) {
		long g = 0, gb = 0;
		double slice;
		if (sscanf(f->mig_profiles[i], "%ldg.%ldgb", &g, &gb) != 2 ||
		    g <= 0 || g == 4 || f->mig_instances[i] < 2)
			continue;
		slice = (double)gb / (double)model_gb * ob->fb_total;
		if (ob->fb_used_p95 > o->mig_fb_p95 * slice ||
		    ob->fb_used_peak > o->mig_fb_peak * slice ||
		    ob->util_p95 * 7 / (double)g > o->mig_busy)
			continue;
		if (f->mig_instances[i] > *inst) {
			*inst = f->mig_instances[i];
			best = f->mig_profiles[i];
		}
	}
	return best;
}

/* the time-slicing replicas: min(4, 60 / util, 0.8 x memory / used) */
static long ts_replicas(const struct advise_obs *ob)
{
	long by_util = (long)floor(60 / (ob->util_p95 > 1 ? ob->util_p95 : 1));
	long by_fb = (long)floor(0.8 * ob->fb_total /
				 (ob->fb_used_p95 > 1 ? ob->fb_used_p95 : 1));
	long r = 4;
	if (by_util < r)
		r = by_util;
	if (by_fb < r)
		r = by_fb;
	return r;
}

/*
 * Sharing: inference and dev pods of one GPU each (never training, never
 * gangs of an `interruption: none` pool) whose busiest GPU is mostly idle:
 * a MIG slice where the pool can have MIG and the work fits one
 * (isolation: its own memory and compute), else time-slicing when the
 * memory fits a quarter of the GPU. 1 when a sharing change is made.
 */
static int rule_share(struct advise_rec *a, const struct intent *in,
		      const struct workload *w, const struct capplan_wl *c,
		      const struct advise_obs *ob, const struct advise_opts *o)
{
	long r = 0;
	const char *mig = NULL;

	if (w->type == WL_TRAINING || w->sharing != SHARE_NONE ||
	    c->per_pod != 1 || fragile_gang(w) || !ob->have_util ||
	    ob->util_coverage < o->min_coverage ||
	    ob->util_p95 > o->share_util || ob->fb_total <= 0)
		return 0;
	if (mig_possible(in, c))
		mig = mig_pick(c, ob, o, &r);
	if (!mig) {
		if (ob->fb_used_p95 > o->share_fb * ob->fb_total)
			return 0;
		r = ts_replicas(ob);
		if (r < 2)
			return 0;
	}
	a->kind = mig ? ADVISE_MIG : ADVISE_TIMESLICE;
	a->replicas = r;
	a->mig = mig;
	if (!pending_much(ob, o)) {
		long m = lowest_max(c, ob->req_peak, r, o);
		if (m < w->max_gpus)
			a->new_max = m;
	}
	if (mig)
		set_why(a, "the busiest GPU was at most %.0f%% busy and used "
			   "%.0f MiB at the 95th percentile (%.0f at the peak) "
			   "of %.0f: MIG %s holds that in its own memory and "
			   "compute, %ld pods on one GPU%s",
			ob->util_p95, ob->fb_used_p95, ob->fb_used_peak,
			ob->fb_total, mig, r,
			a->new_max != a->old_max ? ", so fewer GPUs hold the peak"
						 : "");
	else
		set_why(a, "the busiest GPU was at most %.0f%% busy and "
			   "used %.0f of %.0f MiB at the 95th "
			   "percentile: %ld pods fit on one GPU%s",
			ob->util_p95, ob->fb_used_p95, ob->fb_total, r,
			a->new_max != a->old_max
				? ", so fewer GPUs hold the peak"
				: "");
	return 1;
}

/*
 * Spot for checkpointed work: a workload whose class takes spot reclaims
 * (checkpointed, tolerant) but whose reserved capacity falls back to
 * on-demand only, when the peak request passed what the reservation holds
 * (its stated instances times the largest node's units): the overflow
 * ran on on-demand and may run on spot. Never for `interruption: none`.
 */
static int rule_spot(struct advise_rec *a, const struct workload *w,
		     const struct capplan_wl *c, const struct advise_obs *ob)
{
	long node = 0;

	if (!w->capacity || w->cap_fallback != CAPF_ON_DEMAND ||
	    !interruption_spot(w->interruption) || w->cap_instances <= 0)
		return 0;
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->ty[i].units > node)
			node = c->ty[i].units;
	if (!node || ob->req_peak <= (double)(w->cap_instances * node))
		return 0;
	a->kind = ADVISE_SPOT;
	set_why(a, "'interruption: %s' takes spot reclaims, and the peak "
		   "request (%.0f units, 95th percentile %.0f) passed what "
		   "the reservation holds (%ld instance%s, at most %ld "
		   "units): the rest ran on on-demand and can run on spot",
		wl_interruption_names[w->interruption], ob->req_peak,
		ob->req_p95, w->cap_instances, w->cap_instances == 1 ? "" : "s",
		w->cap_instances * node);
	return 1;
}

static void rule(struct advise_rec *a, const struct intent *in,
		 const struct workload *w, const struct capplan_wl *c,
		 const struct advise_obs *ob, const struct advise_opts *o)
{
	long mult = c->max_gpus > 0 && c->units >= c->max_gpus
			    ? c->units / c->max_gpus
			    : 1;
	long n = node_gpus(c);

	a->old_max = a->new_max = w->max_gpus;
	if (thin(a, ob, o))
		return;
	if (starved(ob, o, c)) {
		long step = gang_gpus(c, mult);
		if (step < ceil_div(w->max_gpus, 4))
			step = ceil_div(w->max_gpus, 4);
		a->kind = ADVISE_RAISE_MAX;
		a->new_max = round_up(w->max_gpus + step, n);
		set_why(a, "gangs waited for quota: a Workload was pending for "
			   "%.0f h of the window, admission took %.1f h at "
			   "the 90th percentile, and the peak request (%.0f "
			   "of %ld units) filled the quota",
			ob->pending_hours, ob->wait_p90_s / 3600, ob->req_peak,
			c->quota);
		return;
	}
	if (rule_share(a, in, w, c, ob, o) || rule_spot(a, w, c, ob))
		return;
	if (!pending_much(ob, o)) {
		long m = lowest_max(c, ob->req_peak, mult, o);
		if (m <= (long)floor((double)w->max_gpus * (1 - o->lower_min))) {
			a->kind = ADVISE_LOWER_MAX;
			a->new_max = m;
			set_why(a, "the peak request over the window was %.0f "
				   "units (95th percentile %.0f) of a quota of "
				   "%ld: %ld GPUs hold the peak with %.0f%% "
				   "headroom%s",
				ob->req_peak, ob->req_p95, c->quota, m,
				100 * o->headroom,
				m == gang_gpus(c, mult) ? " and one gang" : "");
			return;
		}
	}
	a->kind = ADVISE_NONE;
	set_why(a, "healthy: peak request %.0f of %ld units%s%s", ob->req_peak,
		c->quota,
		ob->have_util ? "" : "; no GPU utilisation series (dcgm-exporter)",
		fragile_gang(w) ? "; gangs of an 'interruption: none' pool: "
				  "never moved to spot or shared"
				: "");
}

/* the node impact of the edited text against the original, as diff
 * classifies it */
static char *impact_of(const char *file, const char *a, size_t alen,
		       const char *b, size_t blen, const struct tmpl_set *t,
		       struct err *err)
{
	struct rendered ra = RENDERED_INIT, rb = RENDERED_INIT;
	struct diags d = DIAGS_INIT;
	struct objset sa = OBJSET_INIT, sb = OBJSET_INIT;
	struct objdiff od = OBJDIFF_INIT;
	struct buf out = BUF_INIT;
	char *s = NULL;

	if (pipeline_render(&ra, file, a, alen, t, &d, err) < 0 ||
	    pipeline_render(&rb, file, b, blen, t, &d, err) < 0)
		goto out;
	objset_add(&sa, ra.cluster, ra.docs);
	objset_add(&sb, rb.cluster, rb.docs);
	if (objdiff_compute(&od, &sa, &sb, err) < 0)
		goto out;
	objdiff_summary(&out, &od);
	s = buf_detach(&out, NULL);
out:
	buf_release(&out);
	objdiff_release(&od);
	objset_release(&sa);
	objset_release(&sb);
	rendered_release(&ra);
	rendered_release(&rb);
	diags_release(&d);
	return s;
}

/* the plan of text; -1 when it does not validate (the first error in msg) */
static int plan_of(struct capplan *cp, const char *file, const char *data,
		   size_t len, const struct capacity_prices *prices,
		   struct buf *msg)
{
	struct diags d = DIAGS_INIT;
	int ret;

	cp->prices = prices;
	ret = capplan_add(cp, file, data, len, &d);
	if (ret == 0 && cp->cap_errors)
		ret = -1;
	if (ret < 0) {
		for (size_t i = 0; i < d.nr; i++)
			if (d.items[i].sev == DIAG_ERROR) {
				buf_addf(msg, "%s:%d:%d: %s", d.items[i].file,
					 d.items[i].line, d.items[i].col,
					 d.items[i].msg);
				break;
			}
		if (!msg->len)
			buf_adds(msg, "the changed intent does not validate");
	}
	diags_release(&d);
	return ret;
}

static int changes(const struct advise_rec *a)
{
	return a->kind == ADVISE_TIMESLICE || a->kind == ADVISE_MIG ||
	       a->kind == ADVISE_SPOT ||
	       ((a->kind == ADVISE_LOWER_MAX || a->kind == ADVISE_RAISE_MAX) &&
		a->new_max != a->old_max);
}

/* the share of the pool's limit `instances` reserved nodes of its largest
 * type hold (0..1) */
static double reserved_share(const struct capplan_wl *c, long instances)
{
	long node = 0;
	double f;
	for (size_t i = 0; i < c->ntypes; i++)
		if (c->ty[i].units > node)
			node = c->ty[i].units;
	if (c->units <= 0)
		return 0;
	f = (double)(instances * node) / (double)c->units;
	return f > 1 ? 1 : f;
}

/* check one change against validation; for a lower maxGpus, try the next
 * node multiples up to the old value (bounded) before giving up */
static void check_rec(struct advise_rec *a, size_t i, const char *file,
		      const char *data, size_t len, const struct intent *in,
		      const struct advise_result *r, const struct tmpl_set *t,
		      long step, const struct capacity_prices *prices)
{
	for (int tries = 0; tries < 64; tries++) {
		struct buf ed = BUF_INIT, msg = BUF_INIT;
		struct capplan cp = CAPPLAN_INIT;
		struct err e = ERR_INIT;
		int ok = 0;

		if (advise_edit(&ed, file, data, len, in, r, i, &e) < 0) {
			set_note(a, "%s", err_msg(&e));
		} else if (plan_of(&cp, file, buf_cstr(&ed), ed.len, prices,
				   &msg) < 0) {
			if (a->kind == ADVISE_LOWER_MAX &&
			    a->new_max + step < a->old_max) {
				a->new_max += step;
				goto next;
			}
			set_note(a, "not recommended: with the change, %s",
				 buf_cstr(&msg));
		} else {
			a->usd_after = cp.c[0].w[a->wl].usd_max;
			a->floor_after = cp.c[0].w[a->wl].usd_min;
			a->spot_after = cp.c[0].w[a->wl].spot_max;
			/* before, the overflow was on-demand: its cost at
			 * spot prices is the on-demand one; after, the
			 * reservation's share of the ceiling stays at
			 * on-demand prices (a reservation is paid as such) */
			if (a->kind == ADVISE_SPOT && a->spot_after >= 0) {
				double f = reserved_share(
					&cp.c[0].w[a->wl],
					in->workloads[a->wl].cap_instances);
				a->spot_before = a->usd_before;
				a->spot_after = f * a->usd_after +
						(1 - f) * a->spot_after;
			} else if (a->kind == ADVISE_SPOT)
				set_note(a, "pass --spot-prices FILE for the "
					    "cost at spot prices");
			a->impact = impact_of(file, data, len, buf_cstr(&ed),
					      ed.len, t, &e);
			ok = 1;
		}
		if (!ok) {
			a->kind = ADVISE_NONE;
			a->new_max = a->old_max;
		}
		tries = 64;
next:
		capplan_release(&cp);
		buf_release(&ed);
		buf_release(&msg);
		err_release(&e);
	}
}

int advise_decide(struct advise_result *out, const char *file,
		  const char *data, size_t len, const struct advise_obs *obs,
		  size_t nobs, const struct advise_opts *o,
		  const struct tmpl_set *t, struct err *err)
{
	struct capplan cp = CAPPLAN_INIT;
	struct intent in;
	struct diags d = DIAGS_INIT;
	struct buf msg = BUF_INIT;
	int ret = -1;

	intent_read(&in, file, data, len, &d);
	if (plan_of(&cp, file, data, len, o->prices, &msg) < 0 || d.errors ||
	    cp.n != 1 || cp.c[0].n != in.nworkloads ||
	    nobs != in.nworkloads) {
		err_set(err, ERR_INVALID, "%s: %s", file,
			msg.len ? buf_cstr(&msg)
				: "not an intent advise can read");
		goto out;
	}
	out->n = in.nworkloads;
	out->recs = xcalloc(out->n ? out->n : 1, sizeof(*out->recs));
	for (size_t i = 0; i < out->n; i++) {
		struct advise_rec *a = &out->recs[i];
		const struct capplan_wl *c = &cp.c[0].w[i];
		a->wl = i;
		a->obs = obs[i];
		a->usd_before = a->usd_after = c->usd_max;
		a->floor_before = a->floor_after = c->usd_min;
		a->spot_before = a->spot_after = c->spot_max;
			rule(a, &in, &in.workloads[i], c, &obs[i], o);
		if (changes(a))
			check_rec(a, i, file, data, len, &in, out, t,
				  node_gpus(c), o->prices);
		if (changes(a))
			out->changes++;
	}
	ret = 0;
out:
	buf_release(&msg);
	capplan_release(&cp);
	intent_release(&in);
	diags_release(&d);
	return ret;
}

void advise_result_release(struct advise_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->recs[i].why);
		free(r->recs[i].note);
		free(r->recs[i].impact);
	}
	free(r->recs);
	r->recs = NULL;
	r->n = r->changes = 0;
}

/* ---- output ---------------------------------------------------------------- */

/* "maxGpus 32 -> 16", "sharing none -> {timeSlicing: 4}, maxGpus 8 -> 4" */
static void change_text(struct buf *out, const struct advise_rec *a)
{
	if (a->kind == ADVISE_TIMESLICE)
		buf_addf(out, "sharing: none -> {timeSlicing: %ld}",
			 a->replicas);
	if (a->kind == ADVISE_MIG)
		buf_addf(out, "sharing: none -> {mig: %s}", a->mig);
	if (a->kind == ADVISE_SPOT)
		buf_adds(out, "capacity.whenExhausted: on-demand -> spot");
	if (a->new_max != a->old_max)
		buf_addf(out, "%smaxGpus: %ld -> %ld",
			 a->kind == ADVISE_TIMESLICE || a->kind == ADVISE_MIG
				 ? ", "
				 : "",
			 a->old_max, a->new_max);
}

static void usd_text(struct buf *out, double usd)
{
	if (usd < 0)
		buf_adds(out, "n/a");
	else
		buf_addf(out, "%.2f USD/h", usd);
}

static void cost_text(struct buf *out, const struct advise_rec *a)
{
	buf_adds(out, "plan's ceiling ");
	usd_text(out, a->usd_before);
	buf_adds(out, " -> ");
	usd_text(out, a->usd_after);
	if (a->usd_before >= 0 && a->usd_after >= 0)
		buf_addf(out, " (%+.2f USD/h, %+.0f USD/month)",
			 a->usd_after - a->usd_before,
			 (a->usd_after - a->usd_before) *
				 CAPACITY_HOURS_PER_MONTH);
	buf_adds(out, "; floor ");
	usd_text(out, a->floor_before);
	buf_adds(out, " -> ");
	usd_text(out, a->floor_after);
	if (a->floor_before >= 0 && a->floor_after >= 0)
		buf_addf(out, " (%+.0f USD/month)",
			 (a->floor_after - a->floor_before) *
				 CAPACITY_HOURS_PER_MONTH);
	if (a->spot_before >= 0 && a->spot_after >= 0)
		buf_addf(out, "; at spot prices %.2f USD/h -> %.2f USD/h "
			      "(%+.0f USD/month)",
			 a->spot_before, a->spot_after,
			 (a->spot_after - a->spot_before) *
				 CAPACITY_HOURS_PER_MONTH);
}

void advise_text(struct buf *out, const char *file, const struct intent *in,
		 const struct advise_result *r)
{
	buf_addf(out, "%s (cluster %s): %zu change%s recommended\n", file,
		 in->name, r->changes, r->changes == 1 ? "" : "s");
	for (size_t i = 0; i < r->n; i++) {
		const struct advise_rec *a = &r->recs[i];
		const struct workload *w = &in->workloads[a->wl];
		buf_addf(out, "  %s: %s", w->name, advise_kind_names[a->kind]);
		if (changes(a)) {
			buf_adds(out, ": ");
			change_text(out, a);
			buf_addf(out, " (line %d)",
				 a->kind == ADVISE_SPOT
					 ? w->cap_fallback_pos.line
					 : w->max_gpus_pos.line);
		}
		buf_addf(out, "\n    why: %s\n", a->why ? a->why : "");
		if (changes(a)) {
			buf_adds(out, "    cost: ");
			cost_text(out, a);
			buf_addf(out, "\n    node impact: %s\n",
				 a->impact ? a->impact : "unknown");
		}
		if (a->note)
			buf_addf(out, "    note: %s\n", a->note);
	}
}

void advise_markdown(struct buf *out, const char *file,
		     const struct intent *in, const struct advise_result *r)
{
	buf_addf(out, "### gpuform advise: `%s` (cluster `%s`)\n\n", file,
		 in->name);
	buf_addf(out, "%zu change%s recommended from the observed usage.\n\n",
		 r->changes, r->changes == 1 ? "" : "s");
	buf_adds(out, "| workload | recommendation | evidence | cost | node "
		      "impact |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct advise_rec *a = &r->recs[i];
		struct buf c = BUF_INIT;
		buf_addf(out, "| `%s` | ", in->workloads[a->wl].name);
		if (changes(a)) {
			change_text(&c, a);
			buf_addf(out, "`%s`", buf_cstr(&c));
		} else {
			buf_adds(out, advise_kind_names[a->kind]);
		}
		buf_addf(out, " | %s%s%s | ", a->why ? a->why : "",
			 a->note ? "; " : "", a->note ? a->note : "");
		if (changes(a)) {
			buf_reset(&c);
			cost_text(&c, a);
			buf_addf(out, "%s | %s |\n", buf_cstr(&c),
				 a->impact ? a->impact : "unknown");
		} else {
			buf_adds(out, " | |\n");
		}
		buf_release(&c);
	}
}

/* the observations, as numbers (absent ones left out) */
static cJSON *obs_json(const struct advise_obs *ob)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "kubeStateMetricsCoverage", ob->ksm_coverage);
	cJSON_AddBoolToObject(o, "nodepoolLabel", ob->nodepool_label);
	if (ob->have_requests) {
		cJSON_AddNumberToObject(o, "requestedUnitsPeak", ob->req_peak);
		cJSON_AddNumberToObject(o, "requestedUnitsP95", ob->req_p95);
		cJSON_AddNumberToObject(o, "requestedUnitsP50", ob->req_p50);
	}
	if (ob->have_util) {
		cJSON_AddNumberToObject(o, "utilCoverage", ob->util_coverage);
		cJSON_AddNumberToObject(o, "busiestGpuUtilP95", ob->util_p95);
		cJSON_AddNumberToObject(o, "busiestGpuUtilP50", ob->util_p50);
		cJSON_AddNumberToObject(o, "framebufferUsedMiBP95",
					ob->fb_used_p95);
		cJSON_AddNumberToObject(o, "framebufferTotalMiB", ob->fb_total);
		if (ob->have_fb_peak)
			cJSON_AddNumberToObject(o, "framebufferUsedMiBPeak",
						ob->fb_used_peak);
	}
	if (ob->have_queue) {
		cJSON_AddNumberToObject(o, "queueCoverage", ob->queue_coverage);
		cJSON_AddNumberToObject(o, "pendingHours", ob->pending_hours);
	}
	if (ob->have_wait)
		cJSON_AddNumberToObject(o, "admissionWaitP90Seconds",
					ob->wait_p90_s);
	return o;
}

cJSON *advise_json(const char *file, const struct intent *in,
		   const struct advise_result *r)
{
	cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	cJSON_AddStringToObject(o, "file", file);
	cJSON_AddStringToObject(o, "cluster", in->name);
	cJSON_AddNumberToObject(o, "changes", (double)r->changes);
	for (size_t i = 0; i < r->n; i++) {
		const struct advise_rec *a = &r->recs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "workload",
					in->workloads[a->wl].name);
		cJSON_AddStringToObject(x, "recommendation",
					advise_kind_names[a->kind]);
		cJSON_AddBoolToObject(x, "changesIntent", changes(a));
		cJSON_AddNumberToObject(x, "maxGpus", (double)a->old_max);
		if (a->new_max != a->old_max)
			cJSON_AddNumberToObject(x, "newMaxGpus",
						(double)a->new_max);
		if (a->kind == ADVISE_TIMESLICE)
			cJSON_AddNumberToObject(x, "timeSlicingReplicas",
						(double)a->replicas);
		if (a->kind == ADVISE_MIG) {
			cJSON_AddStringToObject(x, "migProfile", a->mig);
			cJSON_AddNumberToObject(x, "migInstancesPerGpu",
						(double)a->replicas);
		}
		if (a->kind == ADVISE_SPOT)
			cJSON_AddStringToObject(x, "whenExhausted", "spot");
		cJSON_AddStringToObject(x, "why", a->why ? a->why : "");
		cJSON_AddItemToObject(x, "observed", obs_json(&a->obs));
		if (a->note)
			cJSON_AddStringToObject(x, "note", a->note);
		if (changes(a)) {
			if (a->usd_before >= 0)
				cJSON_AddNumberToObject(x, "usdPerHourBefore",
							a->usd_before);
			if (a->usd_after >= 0)
				cJSON_AddNumberToObject(x, "usdPerHourAfter",
							a->usd_after);
			if (a->floor_before >= 0)
				cJSON_AddNumberToObject(x,
							"floorUsdPerHourBefore",
							a->floor_before);
			if (a->floor_after >= 0)
				cJSON_AddNumberToObject(x,
							"floorUsdPerHourAfter",
							a->floor_after);
			if (a->spot_before >= 0 && a->spot_after >= 0) {
				cJSON_AddNumberToObject(x,
							"spotUsdPerHourBefore",
							a->spot_before);
				cJSON_AddNumberToObject(x,
							"spotUsdPerHourAfter",
							a->spot_after);
			}
			cJSON_AddStringToObject(x, "nodeImpact",
						a->impact ? a->impact : "");
		}
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddItemToObject(o, "workloads", arr);
	return o;
}

void advise_commit_message(struct buf *out, const char *const *files,
			   const struct intent *const *ins,
			   const struct advise_result *const *rs, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += rs[i]->changes;
	buf_addf(out, "gpuform advise: %zu change%s from observed GPU usage\n\n",
		 total, total == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < rs[i]->n; j++) {
			const struct advise_rec *a = &rs[i]->recs[j];
			if (!changes(a))
				continue;
			buf_addf(out, "%s, %s: ", files[i],
				 ins[i]->workloads[a->wl].name);
			change_text(out, a);
			buf_addf(out, "\n  why: %s\n  cost: ", a->why);
			cost_text(out, a);
			buf_addf(out, "\n  node impact: %s\n",
				 a->impact ? a->impact : "unknown");
		}
}
