/*
 * generator/intent.c: YAML -> struct intent, with positions, defaults and
 * shape diagnostics. Semantic rules (pinned AMIs, GPU classes, EFA, ...) are
 * in validate.c; this file only knows the key layout and the value types.
 */
#include "generator/intent.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/yaml.h"
#include "util/vec.h"
#include "util/time.h"
#include "util/xalloc.h"

const char *const wl_type_names[] = { "training", "inference", "dev", NULL };
const char *const wl_interruption_names[] = { "none", "checkpointed",
					      "tolerant", NULL };
const char *const cap_type_names[] = { "reservation", "capacity-block", NULL };
const char *const cap_fallback_names[] = { "wait", "on-demand", "spot", NULL };

static const char *const top_keys[] = { "apiVersion", "kind", "metadata",
					"spec", NULL };
static const char *const metadata_keys[] = { "name", NULL };
static const char *const spec_keys[] = {
	"nodeRole", "instanceProfile", "ami", "discovery", "imageCache",
	"network", "generalPurpose", "maintenanceWindow", "workloads",
	"nvidiaDevicePlugin", "nodeRepair", "targets", "acknowledge",
	"addons", NULL
};
static const char *const ack_keys[] = { "rule", "reason", "workload", "pool",
					NULL };
static const char *const addons_keys[] = { "delivery", NULL };
const char *const addons_delivery_names[] = { "values", "flux", "argocd",
					       NULL };
static const char *const dp_keys[] = { "namespace", NULL };
static const char *const cache_keys[] = { "snapshotID", "size",
					  "initializationRate",
					  "fastSnapshotRestore", NULL };
static const char *const network_keys[] = { "prefixDelegation",
					    "efaSecurityGroup",
					    "efaOnlyInterfaces", NULL };
static const char *const general_keys[] = { "enabled", NULL };
static const char *const window_keys[] = { "schedule", "duration", NULL };
static const char *const workload_keys[] = {
	"name", "type", "gpu", "gpusPerPod", "gang", "interruption",
	"efa", "hugepages2Mi", "sharing", "maxGpus", "namespace", "capacity",
	"placement", NULL
};
static const char *const placement_keys[] = { "zone", "placementGroup",
					       "topology", NULL };
static const char *const sharing_keys[] = { "timeSlicing", "mig", NULL };
static const char *const capacity_keys[] = { "reservations", "type",
					     "instances", "whenExhausted",
					     NULL };
static const char *const term_keys[] = { "id", "tags", "ownerID", NULL };

/*
 * The key tables by their place in the intent: the one list of accepted keys,
 * read by the reader below (check_map) and by `gpuform schema`
 * (generator/schema.c), so the JSON Schema cannot drift from the reader.
 */
const struct intent_keyset intent_keysets[] = {
	{ "", top_keys },
	{ "metadata", metadata_keys },
	{ "spec", spec_keys },
	{ "spec.nvidiaDevicePlugin", dp_keys },
	{ "spec.imageCache", cache_keys },
	{ "spec.network", network_keys },
	{ "spec.generalPurpose", general_keys },
	{ "spec.maintenanceWindow", window_keys },
	{ "spec.workloads[]", workload_keys },
	{ "spec.workloads[].placement", placement_keys },
	{ "spec.workloads[].sharing", sharing_keys },
	{ "spec.workloads[].capacity", capacity_keys },
	{ "spec.workloads[].capacity.reservations[]", term_keys },
	{ "spec.acknowledge[]", ack_keys },
	{ "spec.addons", addons_keys },
	{ NULL, NULL }
};

struct reader {
	const char *file;
	struct diags *d;
};

static struct pos pos_of(const struct ynode *n)
{
	struct pos p = { n ? n->line : 0, n ? n->col : 0 };
	return p;
}

#define ERRAT(r, n, hint, ...)                                               \
	diags_add((r)->d, DIAG_ERROR, (r)->file, (n) ? (n)->line : 0,        \
		  (n) ? (n)->col : 0, hint, __VA_ARGS__)

/* ---- small parsers shared with validate.c ------------------------------ */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] +
				     (tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]));
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins)
					   : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

const char *intent_suggest(const char *s, const char *const *words)
{
	const char *best = NULL;
	size_t best_d = 3;

	size_t slen = strlen(s);

	for (const char *const *w = words; *w; w++) {
		size_t dist = edit_distance(s, *w);
		if (dist < best_d) {
			best_d = dist;
			best = *w;
		}
	}
	if (best || slen < 3)
		return best;
	/* a prefix of a known word ("maintenance" -> "maintenanceWindow"),
	 * or a known word followed by more ("bottlerock" is neither) */
	for (const char *const *w = words; *w; w++)
		if (!strncasecmp(*w, s, slen) ||
		    (strlen(*w) >= 3 && !strncasecmp(s, *w, strlen(*w))))
			return *w;
	return NULL;
}

long long intent_parse_duration(const char *s)
{
	double secs;

	if (time_parse_duration(s, TIME_DUR_HMS, &secs) < 0)
		return -1;
	return (long long)secs;
}

long long intent_parse_gib(const char *s)
{
	long long v = 0;
	int digits = 0;
	const char *u;

	if (!s)
		return -1;
	for (u = s; isdigit((unsigned char)*u); u++) {
		v = v * 10 + (*u - '0');
		if (v > 1000000000LL)
			return -1;
		digits++;
	}
	if (!digits)
		return -1;
	if (!strcmp(u, "Gi"))
		return v;
	if (!strcmp(u, "Ti"))
		return v * 1024;
	if (!strcmp(u, "G")) /* 10^9 bytes, rounded up to whole GiB */
		return (v * 1000000000LL + (1LL << 30) - 1) >> 30;
	if (!strcmp(u, "T")) {
		if (v > 1000000)
			return 1LL << 40; /* far out of any range; no overflow */
		return (v * 1000000000000LL + (1LL << 30) - 1) >> 30;
	}
	return -1;
}

/* ---- typed getters ------------------------------------------------------ */

static const char *kind_name(const struct ynode *n)
{
	if (n->type == YNODE_MAP)
		return "a mapping";
	if (n->type == YNODE_SEQ)
		return "a list";
	switch (yaml_scalar_kind(n)) {
	case YS_NULL:
		return "nothing (null)";
	case YS_BOOL:
		return "a boolean";
	case YS_INT:
		return "an integer";
	case YS_FLOAT:
		return "a decimal number";
	default:
		return "a string";
	}
}

static char *get_string(struct reader *r, const struct ynode *n,
			const char *key)
{
	if (n->type != YNODE_SCALAR || yaml_scalar_kind(n) != YS_STRING) {
		ERRAT(r, n, n->type == YNODE_SCALAR
				    ? "put the value in quotes if it is meant as text"
				    : NULL,
		      "'%s' must be a string, not %s", key, kind_name(n));
		return NULL;
	}
	if (memchr(n->value, '\0', n->len)) {
		ERRAT(r, n, NULL, "'%s' contains a NUL character", key);
		return NULL;
	}
	return xstrdup(n->value);
}

static int get_long(struct reader *r, const struct ynode *n, const char *key,
		    long min, long max, long *out)
{
	char *end;
	long v;

	if (n->type != YNODE_SCALAR || yaml_scalar_kind(n) != YS_INT) {
		ERRAT(r, n, NULL, "'%s' must be a whole number, not %s", key,
		      kind_name(n));
		return -1;
	}
	errno = 0;
	v = strtol(n->value, &end, 10);
	if (errno || *end) {
		ERRAT(r, n, NULL,
		      "'%s' must be a decimal whole number from %ld to %ld",
		      key, min, max);
		return -1;
	}
	if (v < min || v > max) {
		ERRAT(r, n, NULL, "'%s' is %ld; it must be from %ld to %ld",
		      key, v, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int get_bool(struct reader *r, const struct ynode *n, const char *key,
		    int *out)
{
	if (n->type != YNODE_SCALAR || yaml_scalar_kind(n) != YS_BOOL) {
		ERRAT(r, n, "write true or false",
		      "'%s' must be true or false, not %s", key, kind_name(n));
		return -1;
	}
	*out = yaml_scalar_bool(n);
	return 0;
}

static int get_enum(struct reader *r, const struct ynode *n, const char *key,
		    const char *const *names, int *out)
{
	char *s = get_string(r, n, key);
	struct buf hint = BUF_INIT;
	const char *sugg;

	if (!s)
		return -1;
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			free(s);
			return 0;
		}
	sugg = intent_suggest(s, names);
	if (sugg)
		buf_addf(&hint, "did you mean '%s'? ", sugg);
	buf_adds(&hint, "one of:");
	for (int i = 0; names[i]; i++)
		buf_addf(&hint, " %s", names[i]);
	ERRAT(r, n, buf_cstr(&hint), "'%s' has unknown value '%.60s'", key, s);
	buf_release(&hint);
	free(s);
	/* one mistake, one error: with a near value, the rest is checked
	 * as if it were written (1: *out is the suggestion, the error is
	 * reported) */
	for (int i = 0; sugg && names[i]; i++)
		if (names[i] == sugg) {
			*out = i;
			return 1;
		}
	return -1;
}

/* require a mapping; report unknown keys (with a suggestion); returns -1
 * if not a map, else the number of unknown keys */
static int is_word(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

static int check_map(struct reader *r, const struct ynode *n,
		     const char *what, const char *const *keys)
{
	int unknown = 0;

	if (!n || n->type != YNODE_MAP) {
		ERRAT(r, n, NULL, "%s must be a mapping (key: value), not %s",
		      what, n ? kind_name(n) : "nothing");
		return -1;
	}
	for (size_t i = 0; i < YNODE_MAP_LEN(n); i++) {
		const struct ynode *k = YNODE_KEY(n, i);
		int known = 0;
		for (const char *const *w = keys; *w; w++)
			if (!strcmp(k->value, *w))
				known = 1;
		if (!known) {
			const char *sugg = intent_suggest(k->value, keys);
			struct buf hint = BUF_INIT;
			if (sugg && !ynode_get(n, sugg)) {
				/* one mistake, one error: read the value as
				 * the key it was meant to be, so that no
				 * "missing 'nodeRole'" follows "unknown key
				 * 'noderole'". The tree is this reader's own
				 * parse result. */
				struct ynode *kk = (struct ynode *)k;
				char *old = kk->value;
				buf_addf(&hint, "did you mean '%s'?", sugg);
				ERRAT(r, k, buf_cstr(&hint),
				      "unknown key '%.60s' in %s", old, what);
				kk->value = xstrdup(sugg);
				kk->len = strlen(sugg);
				free(old);
				buf_release(&hint);
				unknown++;
				continue;
			}
			if (sugg)
				buf_addf(&hint, "did you mean '%s'?", sugg);
			else if (keys == spec_keys &&
				 is_word(k->value, workload_keys))
				/* a workload's key dedented out of its list
				 * item lands in spec */
				buf_addf(&hint,
					 "'%.40s' is a workload key: line %d is "
					 "indented by %d spaces, which puts it in "
					 "'spec'; indent it like the keys of the "
					 "workload above it",
					 k->value, k->line, k->col - 1);
			else {
				buf_adds(&hint, "known keys:");
				for (const char *const *w = keys; *w; w++)
					buf_addf(&hint, " %s", *w);
			}
			ERRAT(r, k, buf_cstr(&hint), "unknown key '%.60s' in %s",
			      k->value, what);
			buf_release(&hint);
			unknown++;
		}
	}
	return unknown;
}

static int is_null(const struct ynode *n)
{
	return !n || (n->type == YNODE_SCALAR && yaml_scalar_kind(n) == YS_NULL);
}

/* ---- sections ------------------------------------------------------------ */

static void read_gpu(struct reader *r, struct workload *w,
		     const struct ynode *n)
{
	w->gpu_pos = pos_of(n);
	if (n->type == YNODE_SEQ) {
		if (n->nr == 0) {
			ERRAT(r, n, "name at least one GPU class",
			      "'gpu' is an empty list");
			return;
		}
		for (size_t i = 0; i < n->nr; i++) {
			char *s = get_string(r, n->kids[i], "gpu");
			if (!s)
				continue;
			w->gpu = xrealloc(w->gpu, (w->ngpu + 1) * sizeof(char *));
			w->gpu_item_pos = xrealloc(w->gpu_item_pos,
						   (w->ngpu + 1) * sizeof(struct pos));
			w->gpu_item_pos[w->ngpu] = pos_of(n->kids[i]);
			w->gpu[w->ngpu++] = s;
		}
		return;
	}
	{
		char *s = get_string(r, n, "gpu");
		if (!s)
			return;
		w->gpu = xmalloc(sizeof(char *));
		w->gpu[0] = s;
		w->gpu_item_pos = xmalloc(sizeof(struct pos));
		w->gpu_item_pos[0] = pos_of(n);
		w->ngpu = 1;
	}
}

static void read_sharing(struct reader *r, struct workload *w,
			 const struct ynode *n)
{
	w->sharing_pos = pos_of(n);
	if (n->type == YNODE_SCALAR) {
		char *s = get_string(r, n, "sharing");
		if (s && strcmp(s, "none"))
			ERRAT(r, n,
			      "write 'none', '{timeSlicing: N}' or '{mig: 1g.10gb}'",
			      "'sharing' has unknown value '%.60s'", s);
		free(s);
		return;
	}
	if (check_map(r, n, "'sharing'", sharing_keys) < 0)
		return;
	if (YNODE_MAP_LEN(n) != 1) {
		ERRAT(r, n, "choose one: timeSlicing or mig",
		      "'sharing' needs exactly one of 'timeSlicing' and 'mig'");
		return;
	}
	if (ynode_get(n, "timeSlicing")) {
		const struct ynode *v = ynode_get(n, "timeSlicing");
		if (get_long(r, v, "timeSlicing", 2, 48, &w->ts_replicas) == 0)
			w->sharing = SHARE_TIMESLICING;
		w->sharing_pos = pos_of(v);
	} else if (ynode_get(n, "mig")) {
		const struct ynode *v = ynode_get(n, "mig");
		w->mig_profile = get_string(r, v, "mig");
		if (w->mig_profile)
			w->sharing = SHARE_MIG;
		w->sharing_pos = pos_of(v);
	}
}

static void read_term(struct reader *r, struct cap_term *t,
		      const struct ynode *n)
{
	const struct ynode *v;

	t->pos = pos_of(n);
	if (check_map(r, n, "a reservation term", term_keys) < 0)
		return;
	if (!is_null(v = ynode_get(n, "id"))) {
		t->id = get_string(r, v, "id");
		t->id_pos = pos_of(v);
	}
	if (!is_null(v = ynode_get(n, "ownerID"))) {
		t->owner_pos = pos_of(v);
		if (v->type == YNODE_SCALAR && yaml_scalar_kind(v) == YS_INT)
			/* an account id read as a number loses leading zeros */
			ERRAT(r, v, "write it in quotes: ownerID: \"012345678901\"",
			      "'ownerID' must be a string (an AWS account id "
			      "in quotes), not a number");
		else
			t->owner_id = get_string(r, v, "ownerID");
	}
	if (!is_null(v = ynode_get(n, "tags"))) {
		t->tags_pos = pos_of(v);
		if (v->type != YNODE_MAP) {
			ERRAT(r, v, "write tags as a mapping: {key: value}",
			      "'tags' must be a mapping, not %s", kind_name(v));
		} else {
			if (!YNODE_MAP_LEN(v))
				ERRAT(r, v, "name at least one tag, e.g. "
				      "{team: ml}",
				      "'tags' is an empty mapping");
			for (size_t i = 0; i < YNODE_MAP_LEN(v); i++) {
				const struct ynode *k = YNODE_KEY(v, i);
				char *val = get_string(r, YNODE_VAL(v, i),
						       "a tag value");
				if (!val)
					continue;
				t->tag_keys = xrealloc(t->tag_keys,
						       (t->ntags + 1) * sizeof(char *));
				t->tag_values = xrealloc(t->tag_values,
							 (t->ntags + 1) * sizeof(char *));
				t->tag_pos = xrealloc(t->tag_pos,
						      (t->ntags + 1) * sizeof(struct pos));
				t->tag_keys[t->ntags] = xstrdup(k->value);
				t->tag_values[t->ntags] = val;
				t->tag_pos[t->ntags] = pos_of(k);
				t->ntags++;
			}
		}
	}
	/* the CRD's rules: a term has an id or tags, and an id stands alone
	 * (karpenter.k8s.aws_ec2nodeclasses.yaml, capacityReservationSelectorTerms) */
	if (!ynode_get(n, "id") && !ynode_get(n, "tags"))
		ERRAT(r, n, "write {id: cr-0123456789abcdef0} or "
		      "{tags: {key: value}}",
		      "a reservation term needs 'id' or 'tags'");
	else if (ynode_get(n, "id") &&
		 (ynode_get(n, "tags") || ynode_get(n, "ownerID")))
		ERRAT(r, n, "split it into two terms, or drop the id (an "
		      "id names one reservation already)",
		      "a reservation term with 'id' takes no 'tags' or "
		      "'ownerID'");
}

static void read_capacity(struct reader *r, struct workload *w,
			  const struct ynode *n)
{
	const struct ynode *v;
	int e;

	w->capacity_pos = pos_of(n);
	if (check_map(r, n, "'capacity'", capacity_keys) < 0)
		return;
	w->capacity = 1;
	if (!is_null(v = ynode_get(n, "type"))) {
		w->cap_type_pos = pos_of(v);
		if (get_enum(r, v, "type", cap_type_names, &e) == 0)
			w->cap_type = (enum cap_type)e;
	}
	if (!is_null(v = ynode_get(n, "instances"))) {
		w->cap_instances_pos = pos_of(v);
		get_long(r, v, "instances", 1, 10000, &w->cap_instances);
	}
	w->cap_fallback = CAPF_WAIT;
	if (!is_null(v = ynode_get(n, "whenExhausted"))) {
		w->cap_fallback_pos = pos_of(v);
		if (get_enum(r, v, "whenExhausted", cap_fallback_names,
			     &e) == 0)
			w->cap_fallback = (enum cap_fallback)e;
	}
	v = ynode_get(n, "reservations");
	if (is_null(v)) {
		ERRAT(r, n, "add 'reservations: [{id: cr-0123456789abcdef0}]'",
		      "'capacity' is missing 'reservations'");
		return;
	}
	w->cap_terms_pos = pos_of(v);
	if (v->type != YNODE_SEQ) {
		ERRAT(r, v, "write a list: '- id: cr-...' or '- tags: {...}'",
		      "'reservations' must be a list, not %s", kind_name(v));
		return;
	}
	if (!v->nr) {
		ERRAT(r, v, "name at least one reservation by id or tags",
		      "'reservations' is an empty list");
		return;
	}
	w->cap_terms = xcalloc(v->nr, sizeof(*w->cap_terms));
	for (size_t i = 0; i < v->nr; i++)
		read_term(r, &w->cap_terms[w->ncap_terms++], v->kids[i]);
}

static void add_zone(struct reader *r, struct workload *w,
		     const struct ynode *n)
{
	char *s = get_string(r, n, "zone");

	if (!s)
		return;
	w->zones = xrealloc(w->zones, (w->nzones + 1) * sizeof(char *));
	w->zone_item_pos = xrealloc(w->zone_item_pos,
				    (w->nzones + 1) * sizeof(struct pos));
	w->zone_item_pos[w->nzones] = pos_of(n);
	w->zones[w->nzones++] = s;
}

/* placement: the values are checked in validate.c (zone names, the
 * placement group, one zone for EFA gangs) */
static void read_placement(struct reader *r, struct workload *w,
			   const struct ynode *n)
{
	const struct ynode *v;

	w->placement_pos = pos_of(n);
	if (check_map(r, n, "'placement'", placement_keys) < 0)
		return;
	w->placement = 1;
	if (!is_null(v = ynode_get(n, "zone"))) {
		w->zone_pos = pos_of(v);
		if (v->type == YNODE_SEQ) {
			w->zone_list = 1;
			if (v->nr == 0)
				ERRAT(r, v, "name one zone, e.g. us-east-1a",
				      "'zone' is an empty list");
			for (size_t i = 0; i < v->nr; i++)
				add_zone(r, w, v->kids[i]);
		} else {
			add_zone(r, w, v);
		}
	}
	if (!is_null(v = ynode_get(n, "placementGroup"))) {
		w->pg = get_string(r, v, "placementGroup");
		w->pg_pos = pos_of(v);
	}
	if ((v = ynode_get(n, "topology"))) {
		w->topology = 1;
		w->topology_pos = pos_of(v);
	}
}

/* hugepages2Mi: a quantity in Mi or Gi, a whole number of 2 MiB pages */
static void read_hugepages(struct reader *r, struct workload *w,
			   const struct ynode *v)
{
	char *s = get_string(r, v, "hugepages2Mi");
	long long mi = 0;
	const char *u;

	w->hugepages_pos = pos_of(v);
	if (!s)
		return;
	for (u = s; isdigit((unsigned char)*u) && mi <= (1LL << 20); u++)
		mi = mi * 10 + (*u - '0');
	if (u != s && !strcmp(u, "Gi"))
		mi *= 1024;
	else if (u == s || strcmp(u, "Mi"))
		mi = -1;
	if (mi <= 0 || mi > (1LL << 20) || mi % 2)
		ERRAT(r, v, "e.g. hugepages2Mi: 5120Mi (what the AWS NCCL "
			    "tests request per pod)",
		      "'hugepages2Mi' must be a whole number of 2 MiB pages "
		      "in Mi or Gi, from 2Mi to 1024Gi, not '%.40s'", s);
	else
		w->hugepages_mi = (long)mi;
	free(s);
}

static void read_workload(struct reader *r, struct workload *w,
			  const struct ynode *n)
{
	const struct ynode *v;
	int e, bad = 0;

	w->pos = pos_of(n);
	w->gpus_per_pod = 1;
	w->gang = 1;
	w->interruption = INT_NONE;
	if (check_map(r, n, "a workload", workload_keys) < 0)
		return;

#define REQUIRED(key)                                                         \
	do {                                                                  \
		if (is_null(ynode_get(n, key))) {                             \
			ERRAT(r, n, "add '" key ": ...' to this workload",    \
			      "workload is missing required key '%s'", key);  \
			bad = 1;                                              \
		}                                                             \
	} while (0)
	REQUIRED("name");
	REQUIRED("type");
	REQUIRED("gpu");
	REQUIRED("maxGpus");
#undef REQUIRED

	if (!is_null(v = ynode_get(n, "name"))) {
		w->name = get_string(r, v, "name");
		w->name_pos = pos_of(v);
		bad |= !w->name;
	}
	if (!is_null(v = ynode_get(n, "type"))) {
		w->type_pos = pos_of(v);
		/* a misspelt value (read as the near one) does not hide the
		 * workload's other errors */
		if (get_enum(r, v, "type", wl_type_names, &e) >= 0)
			w->type = (enum wl_type)e;
		else
			bad = 1;
	}
	/* interruption defaults by type: training keeps its nodes; a
	 * serving team wants on-demand capacity and busy nodes consolidated
	 * or patched only inside the maintenance window (PDB-governed, see
	 * docs/kueue-and-disruption.md); dev takes whatever is cheapest */
	w->interruption = w->type == WL_DEV ? INT_TOLERANT : INT_NONE;
	if (!is_null(v = ynode_get(n, "interruption"))) {
		w->interruption_pos = pos_of(v);
		if (get_enum(r, v, "interruption", wl_interruption_names,
			     &e) >= 0)
			w->interruption = (enum wl_interruption)e;
		else
			bad = 1;
	}
	if (!is_null(v = ynode_get(n, "gpu"))) {
		size_t before = r->d->errors;
		read_gpu(r, w, v);
		bad |= r->d->errors != before || !w->ngpu;
	}
	if (!is_null(v = ynode_get(n, "gpusPerPod"))) {
		w->gpus_per_pod_pos = pos_of(v);
		bad |= get_long(r, v, "gpusPerPod", 1, 16, &w->gpus_per_pod) < 0;
	}
	if (!is_null(v = ynode_get(n, "gang"))) {
		w->gang_pos = pos_of(v);
		bad |= get_long(r, v, "gang", 1, 10000, &w->gang) < 0;
	}
	if (!is_null(v = ynode_get(n, "efa"))) {
		w->efa_pos = pos_of(v);
		bad |= get_bool(r, v, "efa", &w->efa) < 0;
	}
	if (!is_null(v = ynode_get(n, "hugepages2Mi"))) {
		size_t before = r->d->errors;
		read_hugepages(r, w, v);
		bad |= r->d->errors != before;
	}
	if (!is_null(v = ynode_get(n, "sharing"))) {
		size_t before = r->d->errors;
		read_sharing(r, w, v);
		bad |= r->d->errors != before;
	}
	if (!is_null(v = ynode_get(n, "maxGpus"))) {
		w->max_gpus_pos = pos_of(v);
		bad |= get_long(r, v, "maxGpus", 1, 100000, &w->max_gpus) < 0;
	}
	if (!is_null(v = ynode_get(n, "namespace"))) {
		w->ns = get_string(r, v, "namespace");
		w->ns_pos = pos_of(v);
		bad |= !w->ns;
	} else if (w->name) {
		w->ns = xstrdup(w->name);
		w->ns_pos = w->name_pos;
		w->ns_defaulted = 1;
	}
	if (!is_null(v = ynode_get(n, "capacity"))) {
		size_t before = r->d->errors;
		read_capacity(r, w, v);
		bad |= r->d->errors != before;
	}
	if (!is_null(v = ynode_get(n, "placement"))) {
		size_t before = r->d->errors;
		read_placement(r, w, v);
		bad |= r->d->errors != before;
	}
	w->ok = !bad;
}

/* spec.ami: the family, the version, a version written without its
 * 'v' normalised (with a warning) */
static void read_ami(struct reader *r, struct intent *in, const struct ynode *v)
{
	if (is_null(v))
		return;
	in->ami = get_string(r, v, "ami");
	in->ami_pos = pos_of(v);
	if (in->ami) {
		const char *at = strchr(in->ami, '@');
		size_t flen = at ? (size_t)(at - in->ami) : strlen(in->ami);
		if (flen == 6 && !strncmp(in->ami, "al2023", 6))
			in->ami_family = AMI_AL2023;
		else if (flen == 12 && !strncmp(in->ami, "bottlerocket", 12))
			in->ami_family = AMI_BOTTLEROCKET;
		in->ami_version = at ? xstrdup(at + 1) : NULL;
		/* the release names Karpenter resolves start with 'v'
		 * (al2023@v20250505, bottlerocket@v1.26.1): a version
		 * written without it is normalised, with a warning,
		 * rather than rendered into an alias no AMI has */
		if (in->ami_family != AMI_UNKNOWN && in->ami_version &&
		    isdigit((unsigned char)in->ami_version[0]) &&
		    !in->ami_version[strspn(in->ami_version, "0123456789.")]) {
			char *fixed = xasprintf("%.*s@v%s", (int)flen, in->ami,
						in->ami_version);
			char *hint = xasprintf("write 'ami: %s'", fixed);
			diags_add_rule(r->d, DIAG_WARNING, INTENT_RULE_AMI_VERSION,
				       r->file, v->line, v->col,
				  hint,
				  "AMI version '%.40s' read as 'v%.40s' "
				  "(release names start with 'v')",
				  in->ami_version, in->ami_version);
			free(hint);
			free(in->ami_version);
			in->ami_version = xasprintf("v%s", at + 1);
			free(in->ami);
			in->ami = fixed;
		}
	}
}

/* spec.imageCache: the snapshot, the volume size, how its blocks are
 * initialized */
static void read_image_cache(struct reader *r, struct intent *in,
			     const struct ynode *s)
{
	const struct ynode *v;

	if (is_null(s))
		return;
	in->cache_pos = pos_of(s);
	if (check_map(r, s, "'imageCache'", cache_keys) >= 0) {
		in->image_cache = 1;
		if (!is_null(v = ynode_get(s, "snapshotID"))) {
			in->snapshot_id = get_string(r, v, "snapshotID");
			in->snapshot_pos = pos_of(v);
		} else {
			ERRAT(r, s, "add 'snapshotID: snap-...'",
			      "'imageCache' is missing 'snapshotID'");
		}
		if (!is_null(v = ynode_get(s, "size"))) {
			in->cache_size = get_string(r, v, "size");
			in->cache_size_pos = pos_of(v);
		} else {
			ERRAT(r, s,
			      "add 'size: 200Gi' (at least the snapshot size)",
			      "'imageCache' is missing 'size'");
		}
		/* the EBS Provisioned Rate for Volume Initialization:
		 * 100..300 MiB/s (the EC2NodeClass CRD's
		 * volumeInitializationRate bounds) */
		if (!is_null(v = ynode_get(s, "initializationRate"))) {
			in->cache_init_rate_pos = pos_of(v);
			get_long(r, v, "initializationRate", 100, 300,
				 &in->cache_init_rate);
		}
		if (!is_null(v = ynode_get(s, "fastSnapshotRestore"))) {
			in->cache_fsr_pos = pos_of(v);
			get_bool(r, v, "fastSnapshotRestore", &in->cache_fsr);
		}
	}
}

/* spec.network: prefix delegation (default on), EFA */
static void read_network(struct reader *r, struct intent *in,
			 const struct ynode *s)
{
	const struct ynode *v;

	in->prefix_delegation = 1;
	if (!is_null(s) &&
	    (in->network_unknown_keys = check_map(r, s, "'network'",
						  network_keys)) >= 0) {
		if (!is_null(v = ynode_get(s, "prefixDelegation"))) {
			in->pd_pos = pos_of(v);
			get_bool(r, v, "prefixDelegation",
				 &in->prefix_delegation);
		}
		if (!is_null(v = ynode_get(s, "efaOnlyInterfaces"))) {
			in->efa_only_pos = pos_of(v);
			get_bool(r, v, "efaOnlyInterfaces", &in->efa_only);
		}
		if (!is_null(v = ynode_get(s, "efaSecurityGroup"))) {
			in->efa_sg = get_string(r, v, "efaSecurityGroup");
			in->efa_sg_pos = pos_of(v);
		}
	}
}

/* spec.maintenanceWindow: schedule and duration (checked in validate.c) */
static void read_window(struct reader *r, struct intent *in,
			const struct ynode *s)
{
	const struct ynode *v;

	if (!is_null(s) &&
	    check_map(r, s, "'maintenanceWindow'", window_keys) >= 0) {
		in->window_pos = pos_of(s);
		in->window = 1;
		if (!is_null(v = ynode_get(s, "schedule"))) {
			in->window_schedule = get_string(r, v, "schedule");
			in->window_schedule_pos = pos_of(v);
		} else
			ERRAT(r, s, "add 'schedule: \"0 2 * * sat\"'",
			      "'maintenanceWindow' is missing 'schedule'");
		if (!is_null(v = ynode_get(s, "duration")) &&
		    v->type == YNODE_SCALAR &&
		    (yaml_scalar_kind(v) == YS_INT ||
		     yaml_scalar_kind(v) == YS_FLOAT)) {
			ERRAT(r, v, "write it with a unit: 4h, 90m or 1h30m",
			      "'duration' needs a unit, not the bare number %.20s",
			      v->value);
		} else if (!is_null(v)) {
			in->window_duration = get_string(r, v, "duration");
			in->window_duration_pos = pos_of(v);
		} else
			ERRAT(r, s, "add 'duration: 4h'",
			      "'maintenanceWindow' is missing 'duration'");
	}
}

/* spec.acknowledge: a list of {rule, reason, workload|pool}; the rule ids
 * are checked in validate.c (validate_acknowledge) */
static void read_acknowledge(struct reader *r, struct intent *in,
			     const struct ynode *n)
{
	if (is_null(n))
		return;
	if (n->type != YNODE_SEQ) {
		ERRAT(r, n, "write a list: '- {rule: INT003, reason: \"...\"}'",
		      "'acknowledge' must be a list, not %s", kind_name(n));
		return;
	}
	in->acks = xcalloc(n->nr ? n->nr : 1, sizeof(*in->acks));
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *m = n->kids[i], *v, *wl, *pl;
		struct intent_ack a = { pos_of(m), NULL, { 0, 0 }, NULL, NULL,
					{ 0, 0 } };

		if (check_map(r, m, "an 'acknowledge' entry", ack_keys) < 0)
			continue;
		if (is_null(v = ynode_get(m, "rule"))) {
			ERRAT(r, m, "name the warning's rule, e.g. 'rule: INT003' "
			      "(the id in brackets after the warning)",
			      "acknowledgement without 'rule'");
			continue;
		}
		a.rule = get_string(r, v, "rule");
		a.rule_pos = pos_of(v);
		v = ynode_get(m, "reason");
		if (!is_null(v))
			a.reason = get_string(r, v, "reason");
		if (!is_null(v) && a.reason &&
		    !a.reason[strspn(a.reason, " \t")]) {
			ERRAT(r, v, "say why the warning is accepted",
			      "the reason of an acknowledgement is empty");
		} else if (is_null(v)) {
			ERRAT(r, m, "add 'reason: \"...\"': why the warning is "
			      "accepted (for the next reader)",
			      "acknowledgement of '%.40s' without 'reason'",
			      a.rule ? a.rule : "?");
		}
		wl = ynode_get(m, "workload");
		pl = ynode_get(m, "pool");
		if (!is_null(wl) && !is_null(pl))
			ERRAT(r, pl, "keep one: a workload's pool has its name",
			      "an acknowledgement names both 'workload' and "
			      "'pool'");
		v = !is_null(wl) ? wl : pl;
		if (!is_null(v)) {
			a.workload = get_string(r, v, v == wl ? "workload"
							      : "pool");
			a.workload_pos = pos_of(v);
		}
		if (!a.rule) {
			free(a.reason);
			free(a.workload);
			continue;
		}
		in->acks[in->nacks++] = a;
	}
}

static void read_spec(struct reader *r, struct intent *in,
		      const struct ynode *spec)
{
	const struct ynode *v, *s;

	if (check_map(r, spec, "'spec'", spec_keys) < 0)
		return;
	in->spec_pos = pos_of(spec);
	in->role_present = ynode_get(spec, "nodeRole") ||
			   ynode_get(spec, "instanceProfile");
	in->ami_present = ynode_get(spec, "ami") != NULL;
	if (!is_null(v = ynode_get(spec, "nodeRole"))) {
		in->node_role = get_string(r, v, "nodeRole");
		in->role_pos = pos_of(v);
	}
	if (!is_null(v = ynode_get(spec, "instanceProfile"))) {
		in->instance_profile = get_string(r, v, "instanceProfile");
		if (!in->node_role)
			in->role_pos = pos_of(v);
	}
	read_ami(r, in, ynode_get(spec, "ami"));
	if (!is_null(v = ynode_get(spec, "discovery"))) {
		in->discovery = get_string(r, v, "discovery");
		in->discovery_pos = pos_of(v);
	}
	read_image_cache(r, in, ynode_get(spec, "imageCache"));
	/* spec.targets: the controller releases (generator/targets.c) */
	targets_read(&in->targets, ynode_get(spec, "targets"), r->file, r->d);
	/* spec.addons.delivery: how the add-on values reach the cluster
	 * (generator/delivery.c); default values: the addons/ files only */
	if (!is_null(s = ynode_get(spec, "addons")) &&
	    check_map(r, s, "'addons'", addons_keys) >= 0 &&
	    !is_null(v = ynode_get(s, "delivery"))) {
		int d;
		in->delivery_pos = pos_of(v);
		if (get_enum(r, v, "delivery", addons_delivery_names, &d) == 0)
			in->delivery = (enum addons_delivery)d;
	}
	in->node_repair = 1;
	if (!is_null(v = ynode_get(spec, "nodeRepair"))) {
		in->node_repair_pos = pos_of(v);
		if (get_bool(r, v, "nodeRepair", &in->node_repair) == 0)
			in->node_repair_set = 1;
	}
	read_network(r, in, ynode_get(spec, "network"));
	if (!is_null(s = ynode_get(spec, "nvidiaDevicePlugin")) &&
	    check_map(r, s, "'nvidiaDevicePlugin'", dp_keys) >= 0 &&
	    !is_null(v = ynode_get(s, "namespace"))) {
		in->dp_ns = get_string(r, v, "namespace");
		in->dp_ns_pos = pos_of(v);
	}
	if (!in->dp_ns) {
		in->dp_ns = xstrdup(INTENT_DEVICE_PLUGIN_NS);
		in->dp_ns_defaulted = 1;
	}
	if (!is_null(s = ynode_get(spec, "generalPurpose")) &&
	    check_map(r, s, "'generalPurpose'", general_keys) >= 0) {
		in->general_pos = pos_of(s);
		if (!is_null(v = ynode_get(s, "enabled")))
			get_bool(r, v, "enabled", &in->general);
	}
	read_window(r, in, ynode_get(spec, "maintenanceWindow"));
	read_acknowledge(r, in, ynode_get(spec, "acknowledge"));
	if (!is_null(s = ynode_get(spec, "workloads"))) {
		in->workloads_pos = pos_of(s);
		in->workloads_malformed = s->type != YNODE_SEQ;
		if (s->type != YNODE_SEQ) {
			ERRAT(r, s, "write a list: '- name: ...'",
			      "'workloads' must be a list, not %s",
			      kind_name(s));
			return;
		}
		for (size_t i = 0; i < s->nr; i++) {
			struct workload *w;
			GROW(in->workloads, in->nworkloads + 1,
			     in->workloads_alloc);
			w = &in->workloads[in->nworkloads++];
			memset(w, 0, sizeof(*w));
			read_workload(r, w, s->kids[i]);
		}
	}
}

/* line_at: start and length of 1-based line `line` of data, or NULL */
static const char *line_at(const char *data, size_t len, int line, size_t *n)
{
	const char *p = data, *end = data + len;

	for (int i = 1; i < line && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	if (p >= end && line > 1)
		return NULL;
	*n = (size_t)(end - p);
	if (memchr(p, '\n', *n))
		*n = (size_t)((const char *)memchr(p, '\n', *n) - p);
	return p;
}

/* the indentation of line l[0..n), and where its key starts ("- " items) */
static size_t indent_of(const char *l, size_t n, size_t *key)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	*key = i;
	while (*key + 1 < n && l[*key] == '-' && l[*key + 1] == ' ') {
		*key += 2;
		while (*key < n && l[*key] == ' ')
			(*key)++;
	}
	return i;
}

/*
 * indent_hint: line `line` (l[0..n)) is indented to no level the lines
 * above open: a list item whose '-' is not under the list's other items, or
 * a key not under the keys of its mapping. Says which line to align with.
 */
static char *indent_hint(const char *data, size_t len, int line,
			 const char *l, size_t n)
{
	size_t key, ind = indent_of(l, n, &key);
	int item = key != ind;

	for (int k = line - 1; k >= 1; k--) {
		size_t m = 0, pk, pi;
		const char *p = line_at(data, len, k, &m);

		if (!p)
			break;
		pi = indent_of(p, m, &pk);
		if (pi >= m || p[pi] == '#')
			continue;
		if (item) {
			/* the list's items above: a '-' at another column */
			if (pk == pi || pi == ind)
				continue;
			return xasprintf("line %d is a list item with its '-' "
					 "at column %zu, but the items of the "
					 "list are at column %zu (line %d): "
					 "indent it by %zu spaces, like line %d",
					 line, ind + 1, pi + 1, k, pi, k);
		}
		if (pk == ind)
			break;
		return xasprintf("line %d is indented by %zu space%s, but the "
				 "keys of the mapping above it are at %zu (line "
				 "%d): indent it by %zu spaces, like line %d "
				 "(list items and their keys line up exactly)",
				 line, ind, ind == 1 ? "" : "s", pk, k, pk, k);
	}
	return NULL;
}

/*
 * yaml_hint: what a person most likely did, for a libyaml syntax error at
 * line:col: a tab in the indentation, a key without its ':', a quote never
 * closed. The caller frees the result.
 */
static char *yaml_hint(const char *data, size_t len, int line, int col,
		       const char *msg)
{
	size_t n = 0;
	const char *l = line > 0 ? line_at(data, len, line, &n) : NULL;

	if (l) {
		for (size_t i = 0; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
			if (l[i] == '\t')
				return xasprintf("line %d is indented with a tab: "
						 "YAML indents with spaces only; "
						 "replace the tab with spaces",
						 line);
	}
	if (strstr(msg, "could not find expected ':'")) {
		/* libyaml notices on the line after the one that lacks it */
		for (int k = line - 1; k >= 1 && k >= line - 3; k--) {
			size_t m = 0;
			const char *p = line_at(data, len, k, &m);
			size_t a = 0;

			if (!p)
				break;
			while (a < m && p[a] == ' ')
				a++;
			if (a == m || p[a] == '#')
				continue;
			if (!memchr(p + a, ':', m - a) && p[a] != '-')
				return xasprintf("line %d ('%.*s') has no ':' "
						 "after its key: write '%.*s:'",
						 k, (int)(m - a > 40 ? 40 : m - a),
						 p + a,
						 (int)(m - a > 40 ? 40 : m - a),
						 p + a);
			break;
		}
		return xstrdup("a key is missing its ':' (write 'key: value', "
			       "with a space after the colon)");
	}
	if (strstr(msg, "quoted scalar"))
		return xasprintf("the quote opened at line %d, column %d is "
				 "never closed: add the closing quote on the "
				 "same line",
				 line, col);
	if (strstr(msg, "mapping values are not allowed") && l) {
		/* deeper than a "key: value" line above: read as its value */
		size_t ind = 0;

		while (ind < n && l[ind] == ' ') /* data may lack a NUL */
			ind++;
		for (int k = line - 1; k >= 1; k--) {
			size_t m = 0, pind;
			const char *p = line_at(data, len, k, &m);
			const char *colon;

			if (!p)
				break;
			pind = 0;
			while (pind < m && p[pind] == ' ')
				pind++;
			if (pind >= m || p[pind] == '#')
				continue;
			colon = memchr(p, ':', m);
			if (ind > pind && colon && colon + 1 < p + m &&
			    colon[1] == ' ' && colon + 2 < p + m)
				return xasprintf("line %d is indented deeper than "
						 "line %d, so it reads as part of "
						 "that line's value: indent it by "
						 "%zu spaces, like line %d",
						 line, k, pind, k);
			break;
		}
		return xstrdup("a value contains ': ' (colon and space): put it "
			       "in quotes");
	}
	if ((strstr(msg, "did not find expected key") ||
	     strstr(msg, "did not find expected '-' indicator")) && l) {
		char *h = indent_hint(data, len, line, l, n);
		if (h)
			return h;
	}
	(void)col;
	return xstrdup("fix the YAML at that position");
}

int intent_read(struct intent *out, const char *file, const char *data,
		size_t len, struct diags *d)
{
	struct ystream ys = YSTREAM_INIT;
	struct err err = ERR_INIT;
	struct reader r = { file, d };
	const struct ynode *root, *v;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	targets_init(&out->targets);
	out->file = xstrdup(file);
	if (yaml_parse(&ys, data, len, file, &err) < 0) {
		/* the message is "<file>:<line>:<col>: <problem>" */
		const char *m = err_msg(&err);
		size_t flen = strlen(file);
		int line = 0, col = 0, used = 0;
		if (!strncmp(m, file, flen) && m[flen] == ':' &&
		    sscanf(m + flen, ":%d:%d: %n", &line, &col, &used) == 2 &&
		    used > 0)
			m += flen + (size_t)used;
		{
			char *hint = yaml_hint(data, len, line, col, m);
			diags_add(d, DIAG_ERROR, file, line, col, hint, "%s", m);
			free(hint);
		}
		goto out;
	}
	if (ys.nr != 1 || !ys.docs[0].root) {
		diags_add(d, DIAG_ERROR, file, ys.nr > 1 ? ys.docs[1].line : 1,
			  ys.nr > 1 ? ys.docs[1].col : 1,
			  "put one ClusterIntent in each file",
			  ys.nr > 1 ? "more than one YAML document in an intent file"
				    : "the file is empty");
		goto out;
	}
	root = ys.docs[0].root;
	out->pos = pos_of(root);
	if (root->type != YNODE_MAP) {
		check_map(&r, root, "the intent", top_keys);
		goto out;
	}

	{
		/* a Kubernetes manifest (a NodePool, a Job...) is not an intent:
		 * one error that says what it is and where it goes */
		const struct ynode *av = ynode_get(root, "apiVersion");
		const struct ynode *kv = ynode_get(root, "kind");

		if (av && kv && av->type == YNODE_SCALAR &&
		    kv->type == YNODE_SCALAR &&
		    strncmp(av->value, "gpuform.io/", 11) &&
		    strcmp(kv->value, "ClusterIntent")) {
			ERRAT(&r, kv,
			      "'gpuform validate' reads intents (apiVersion "
			      "gpuform.io/v1alpha1, kind ClusterIntent); check "
			      "Kubernetes manifests with 'gpuform lint'",
			      "this is a %.60s (%.60s), not a gpuform intent",
			      kv->value, av->value);
			goto out;
		}
	}
	if (check_map(&r, root, "the intent", top_keys) < 0)
		goto out;

	v = ynode_get(root, "apiVersion");
	{
		char *s = v ? get_string(&r, v, "apiVersion") : NULL;
		if (!v)
			ERRAT(&r, root, "add 'apiVersion: gpuform.io/v1alpha1'",
			      "missing 'apiVersion'");
		else if (s && strcmp(s, "gpuform.io/v1alpha1"))
			ERRAT(&r, v, "gpuform reads 'gpuform.io/v1alpha1'",
			      "unsupported apiVersion '%.60s'", s);
		free(s);
	}
	v = ynode_get(root, "kind");
	{
		char *s = v ? get_string(&r, v, "kind") : NULL;
		if (!v)
			ERRAT(&r, root, "add 'kind: ClusterIntent'",
			      "missing 'kind'");
		else if (s && strcmp(s, "ClusterIntent"))
			ERRAT(&r, v, "an intent file has 'kind: ClusterIntent'",
			      "unsupported kind '%.60s'", s);
		free(s);
	}
	v = ynode_get(root, "metadata");
	if (!v)
		ERRAT(&r, root, "add 'metadata: {name: <cluster>}'",
		      "missing 'metadata'");
	else if (check_map(&r, v, "'metadata'", metadata_keys) >= 0) {
		const struct ynode *name = ynode_get(v, "name");
		if (is_null(name))
			ERRAT(&r, v, "add 'name: <EKS cluster name>'",
			      "missing 'metadata.name'");
		else {
			out->name = get_string(&r, name, "metadata.name");
			out->name_pos = pos_of(name);
		}
	}
	v = ynode_get(root, "spec");
	if (!v) {
		/* one error: the spec rules (validate.c) would only repeat it */
		ERRAT(&r, root,
		      "add 'spec:' with nodeRole, ami and workloads (see "
		      "specs/minimal.yaml)",
		      "missing 'spec'");
		out->spec_missing = 1;
	} else {
		read_spec(&r, out, v);
	}
	if (!out->discovery && out->name) {
		out->discovery = xstrdup(out->name);
		out->discovery_pos = out->name_pos;
	}
	ret = 0;
out:
	ystream_release(&ys);
	err_release(&err);
	return ret;
}

void intent_release(struct intent *in)
{
	for (size_t i = 0; i < in->nworkloads; i++) {
		struct workload *w = &in->workloads[i];
		free(w->name);
		for (size_t j = 0; j < w->ngpu; j++)
			free(w->gpu[j]);
		free(w->gpu);
		free(w->gpu_item_pos);
		free(w->mig_profile);
		free(w->ns);
		for (size_t j = 0; j < w->ncap_terms; j++) {
			struct cap_term *t = &w->cap_terms[j];
			free(t->id);
			free(t->owner_id);
			for (size_t k = 0; k < t->ntags; k++) {
				free(t->tag_keys[k]);
				free(t->tag_values[k]);
			}
			free(t->tag_keys);
			free(t->tag_values);
			free(t->tag_pos);
		}
		free(w->cap_terms);
		for (size_t j = 0; j < w->nzones; j++)
			free(w->zones[j]);
		free(w->zones);
		free(w->zone_item_pos);
		free(w->pg);
	}
	free(in->workloads);
	free(in->file);
	free(in->name);
	free(in->node_role);
	free(in->instance_profile);
	free(in->ami);
	free(in->ami_version);
	free(in->discovery);
	free(in->snapshot_id);
	free(in->cache_size);
	free(in->efa_sg);
	free(in->dp_ns);
	free(in->window_schedule);
	free(in->window_duration);
	for (size_t i = 0; i < in->nacks; i++) {
		free(in->acks[i].rule);
		free(in->acks[i].reason);
		free(in->acks[i].workload);
	}
	free(in->acks);
	memset(in, 0, sizeof(*in));
}
