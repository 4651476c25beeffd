/* generator/doctor.c: live controllers vs targets and add-ons (doctor.h). */
#include "generator/doctor.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/yaml.h"

int doctor_image_version(const char *image, struct targets_ver *out)
{
	const char *slash, *colon, *at;
	char ref[512], tag[64];
	size_t n;

	if (!image)
		return -1;
	/* the name and tag, without a digest */
	at = strchr(image, '@');
	n = at ? (size_t)(at - image) : strlen(image);
	if (n >= sizeof(ref))
		return -1;
	memcpy(ref, image, n);
	ref[n] = '\0';
	slash = strrchr(ref, '/');
	colon = strrchr(slash ? slash : ref, ':');
	if (!colon)
		return -1;
	n = strlen(colon + 1);
	if (n == 0 || n >= sizeof(tag))
		return -1;
	memcpy(tag, colon + 1, n);
	tag[n] = '\0';
	return targets_parse_ver(tag, out);
}

/* gate defaults (aws@TAG:charts/karpenter/values.yaml, core
 * pkg/operator/options/options.go): only ReservedCapacity turned on, from
 * v1.6.0 (beta, core#2365) */
static int gate_default(const char *name, const struct targets_ver *v)
{
	static const struct targets_ver rc_on = { 1, 6, 0 };
	if (!strcmp(name, "ReservedCapacity"))
		return targets_ver_cmp(v, &rc_on) >= 0;
	return 0;
}

int doctor_gate(const char *fg, const char *name, const struct targets_ver *v)
{
	size_t n = strlen(name);
	const char *p = fg;

	while (p && *p) {
		while (*p == ',' || *p == ' ')
			p++;
		if (!strncmp(p, name, n) && p[n] == '=') {
			p += n + 1;
			return !strncmp(p, "true", 4) &&
			       (p[4] == '\0' || p[4] == ',' || p[4] == ' ');
		}
		p = strchr(p, ',');
	}
	return gate_default(name, v);
}

/* clang-format off */
static const struct {
	const char *key, *gate, *what, *effect;
} gates[] = {
	{ "nodeOverlay", "NodeOverlay", "NodeOverlays rendered",
	  "Karpenter ignores them and sizes the time-sliced and MIG pools in physical GPUs" },
	{ "nodeRepair", "NodeRepair", "node repair wanted (spec.nodeRepair)",
	  "GPU nodes with failed hardware are not replaced" },
	{ "reservedCapacity", "ReservedCapacity", "reserved-capacity pools rendered",
	  "Karpenter makes no reserved offerings: those pools launch nothing" },
	{ "spotToSpotConsolidation", "SpotToSpotConsolidation",
	  "spot-to-spot consolidation wanted",
	  "spot nodes are never replaced by cheaper spot nodes" },
};
/* clang-format on */

static const cJSON *get(const cJSON *j, const char *a, const char *b)
{
	j = cJSON_GetObjectItemCaseSensitive(j, a);
	return b ? cJSON_GetObjectItemCaseSensitive(j, b) : j;
}

static void finding(struct diags *d, const char *file, int line, int col,
		    const char *hint, const char *msg)
{
	diags_add(d, DIAG_ERROR, file, line, col, hint, "%s", msg);
}

static void note(struct diags *d, const char *file, const char *msg)
{
	diags_add(d, DIAG_WARNING, file, 0, 0, NULL, "%s", msg);
}

/* the running release vs the target: older is a finding */
static int check_version(const char *file, const char *ctl,
			 const struct doctor_ctl *c, const struct targets_ver *t,
			 int line, int col, struct targets_ver *run,
			 struct diags *d)
{
	struct buf m = BUF_INIT, h = BUF_INIT, tv = BUF_INIT, rv = BUF_INIT;
	int ret = -1;

	if (c->unreadable) {
		buf_addf(&m, "%s: %s; its version and settings are not checked",
			 ctl, c->unreadable);
		note(d, file, buf_cstr(&m));
		goto out;
	}
	if (!c->where) {
		buf_addf(&m, "no %s controller Deployment found; its version "
			     "and settings are not checked", ctl);
		note(d, file, buf_cstr(&m));
		goto out;
	}
	if (doctor_image_version(c->image, run) < 0) {
		buf_addf(&m, "%s: image '%.200s' has no release tag; its "
			     "version is not checked", c->where,
			 c->image ? c->image : "");
		note(d, file, buf_cstr(&m));
		*run = *t; /* gates: the target's defaults */
		ret = 0;
		goto out;
	}
	ret = 0;
	targets_ver_format(&tv, t);
	targets_ver_format(&rv, run);
	if (run->major < t->major ||
	    (run->major == t->major && run->minor < t->minor)) {
		buf_addf(&m, "the intent targets %s %s but %s runs %s: what "
			     "the newer release has may be rendered and not work",
			 ctl, buf_cstr(&tv), c->where, buf_cstr(&rv));
		buf_addf(&h, "set spec.targets.%s: %s (render for what runs), "
			     "or upgrade %s and its CRDs first",
			 !strcmp(ctl, "Karpenter") ? "karpenter" : "kueue",
			 buf_cstr(&rv), ctl);
		finding(d, file, line, col, buf_cstr(&h), buf_cstr(&m));
	}
out:
	buf_release(&m);
	buf_release(&h);
	buf_release(&tv);
	buf_release(&rv);
	return ret;
}

static void check_gates(const char *file, const struct rendered *r,
			const struct doctor_live *l,
			const struct targets_ver *run, struct diags *d)
{
	const cJSON *fg = get(get(cJSON_GetObjectItemCaseSensitive(
					  r->addons, "karpenter-values.yaml"),
				  "settings", NULL),
			      "featureGates", NULL);

	for (size_t i = 0; i < sizeof(gates) / sizeof(gates[0]); i++) {
		struct buf m = BUF_INIT, h = BUF_INIT;
		if (!cJSON_IsTrue(get(fg, gates[i].key, NULL)) ||
		    doctor_gate(l->feature_gates, gates[i].gate, run))
			continue;
		buf_addf(&m, "%s but the running Karpenter (%s) has %s=false: "
			     "%s",
			 gates[i].what, l->karpenter.where, gates[i].gate,
			 gates[i].effect);
		buf_addf(&h, "roll out addons/karpenter-values.yaml "
			     "(settings.featureGates.%s: true) to the "
			     "karpenter Helm release",
			 gates[i].key);
		finding(d, file, 0, 0, buf_cstr(&h), buf_cstr(&m));
		buf_release(&m);
		buf_release(&h);
	}
}

static cJSON *parse_config(const char *text)
{
	struct ystream ys = YSTREAM_INIT;
	struct err e = ERR_INIT;
	cJSON *j = NULL;

	if (text && yaml_parse(&ys, text, strlen(text), "config", &e) == 0 &&
	    ys.nr == 1 && ys.docs[0].root &&
	    yaml_to_json(&j, ys.docs[0].root, "config", &e) < 0)
		j = NULL;
	ystream_release(&ys);
	err_release(&e);
	return j;
}

static int has(const cJSON *arr, const char *s)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
			return 1;
	return 0;
}

static void check_kueue_config(const char *file, const struct rendered *r,
			       const struct doctor_live *l, struct diags *d)
{
	const cJSON *s = get(get(cJSON_GetObjectItemCaseSensitive(
					 r->addons, "kueue-values.yaml"),
				 "managerConfig", NULL),
			     "controllerManagerConfigYaml", NULL);
	cJSON *want = NULL, *run = NULL;
	const cJSON *it, *wt, *rt;
	struct buf m = BUF_INIT;

	if (l->kueue_config_unreadable || !l->kueue_config_where) {
		buf_addf(&m, "Kueue configuration: %s; not checked",
			 l->kueue_config_unreadable
				 ? l->kueue_config_unreadable
				 : "ConfigMap kueue-system/kueue-manager-config "
				   "not found");
		note(d, file, buf_cstr(&m));
		goto out;
	}
	if (!cJSON_IsString(s) || !(want = parse_config(s->valuestring)))
		goto out;
	if (!(run = parse_config(l->kueue_config))) {
		buf_addf(&m, "%s: controller_manager_config.yaml is not one "
			     "YAML document; not checked",
			 l->kueue_config_where);
		note(d, file, buf_cstr(&m));
		goto out;
	}
	cJSON_ArrayForEach(it, get(get(want, "integrations", NULL),
				   "frameworks", NULL)) {
		if (!cJSON_IsString(it) ||
		    has(get(get(run, "integrations", NULL), "frameworks", NULL),
			it->valuestring))
			continue;
		buf_reset(&m);
		buf_addf(&m, "integration %s is rendered but not in the running "
			     "Kueue configuration (%s): its jobs are not queued "
			     "by Kueue",
			 it->valuestring, l->kueue_config_where);
		finding(d, file, 0, 0,
			"roll out addons/kueue-values.yaml to the kueue Helm "
			"release and restart the controller",
			buf_cstr(&m));
	}
	wt = get(get(want, "waitForPodsReady", NULL), "timeout", NULL);
	rt = get(get(run, "waitForPodsReady", NULL), "timeout", NULL);
	if (cJSON_IsString(wt) &&
	    (!cJSON_IsString(rt) || strcmp(wt->valuestring, rt->valuestring))) {
		buf_reset(&m);
		buf_addf(&m, "waitForPodsReady.timeout is %s in the running "
			     "Kueue configuration (%s), %s rendered: gangs are "
			     "%s",
			 cJSON_IsString(rt) ? rt->valuestring : "not set",
			 l->kueue_config_where, wt->valuestring,
			 cJSON_IsString(rt) ? "evicted at another time"
					    : "not started all-or-nothing");
		finding(d, file, 0, 0,
			"roll out addons/kueue-values.yaml to the kueue Helm "
			"release and restart the controller",
			buf_cstr(&m));
	}
out:
	cJSON_Delete(want);
	cJSON_Delete(run);
	buf_release(&m);
}

void doctor_check(const char *file, const struct targets *t,
		  const struct rendered *r, const struct doctor_live *l,
		  struct diags *d)
{
	struct targets_ver run;

	if (check_version(file, "Karpenter", &l->karpenter, &t->karpenter,
			  t->karpenter_line, t->karpenter_col, &run, d) == 0)
		check_gates(file, r, l, &run, d);
	check_version(file, "Kueue", &l->kueue, &t->kueue, t->kueue_line,
		      t->kueue_col, &run, d);
	check_kueue_config(file, r, l, d);
}
