/*
 * generator/lint_pools.c: the lint rules over pools, node classes, queues,
 * values and intents (see lint_pools.h).
 */
#include "generator/lint_pools.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/interruption.h"
#include "generator/lint_index.h"
#include "generator/lint_int.h"
#include "generator/lint_workload.h"
#include "util/buf.h"

/* ---- rules over pools, node classes, queues, values ---------------------- */

/* an overlay's requirements select (pool, type): karpenter.sh/nodepool
 * by name, the rest as a NodePool requirement would (unknown keys admit) */
int lint_overlay_selects(const struct lctx *c, const struct doc *ov,
			 const struct pool *p, const struct cat_type *t)
{
	const struct ynode *reqs = get(ov->root, "spec.requirements");

	for (int i = 0; i < seq_len(reqs); i++) {
		const char *k = sget(reqs->kids[i], "key"),
			   *op = sget(reqs->kids[i], "operator");
		const struct ynode *vals = kid(reqs->kids[i], "values");
		if (!k || !op || strcmp(k, "karpenter.sh/nodepool"))
			continue;
		if ((!strcmp(op, "In") && !seq_has(vals, p->name)) ||
		    (!strcmp(op, "NotIn") && seq_has(vals, p->name)) ||
		    !strcmp(op, "DoesNotExist"))
			return 0;
	}
	return lint_reqs_admit(reqs, t, fam_of(c, t));
}

/*
 * GPU021: a time-sliced or MIG pool where Karpenter's model of some
 * instance type still says physical GPUs: no NodeOverlay gives it the
 * nvidia.com/gpu the node will report (GPUs x replicas or MIG instances,
 * units.h), or the Karpenter values turn the NodeOverlay gate off.
 */
/*
 * gate_off: the Karpenter values of p's cluster that turn feature gate
 * `gate` (settings.featureGates.<gate>) off, and in *node the gate's node;
 * NULL when none does. Of the same cluster: from the same intent when the
 * pool was rendered from one, else the values whose settings.clusterName
 * is the NodePool's gpuform.io/cluster label when both say (linting
 * several clusters together mixes their add-ons otherwise).
 */
static const struct doc *gate_off(const struct lctx *c, const struct pool *p,
				  const char *gate, const struct ynode **node)
{
	const char *cluster = str(
		kid(get(p->d->root, "metadata.labels"), "gpuform.io/cluster"));
	char path[64];

	snprintf(path, sizeof(path), "settings.featureGates.%s", gate);
	for (size_t j = 0; j < c->ndocs; j++) {
		const struct doc *v = &c->docs[j];
		const char *vc;

		if (!is_values(v) || (p->d->in && v->in != p->d->in))
			continue;
		vc = str(get(v->root, "settings.clusterName"));
		if (cluster && vc && strcmp(cluster, vc))
			continue;
		*node = get(v->root, path);
		if (*node && !is_true(*node))
			return v;
	}
	*node = NULL;
	return NULL;
}

static void check_overlays(struct lctx *c, const struct pool *p)
{
	const struct cat_type *example = NULL;
	long want_ex = 0, got_ex = -1;
	size_t missing = 0, total = 0, noverlays = 0;

	if (!p->gpu || p->mult <= 1 || !p->confined || !c->cat)
		return;
	for (size_t i = 0; i < c->cat->ntypes; i++) {
		const struct cat_type *t = &c->cat->types[i];
		long per_gpu = p->timesliced ? p->mult
				: catalog_mig_instances(fam_of(c, t), p->mig);
		long want, got = -1;

		if (!p->admit[i] || t->gpus <= 0 || per_gpu <= 0)
			continue;
		want = (long)t->gpus * per_gpu;
		total++;
		for (size_t j = 0; j < c->ndocs; j++) {
			const struct doc *ov = &c->docs[j];
			if (!kind_is(ov, "NodeOverlay") ||
			    !lint_overlay_selects(c, ov, p, t))
				continue;
			got = num(get(ov->root, "spec.capacity")
					  ? kid(get(ov->root, "spec.capacity"),
						RES_GPU)
					  : NULL);
			if (got == want)
				break;
		}
		if (got == want) {
			noverlays++;
			continue;
		}
		if (!missing++) {
			example = t;
			want_ex = want;
			got_ex = got;
		}
	}
	if (missing) {
		struct buf b = BUF_INIT;
		if (got_ex >= 0)
			buf_addf(&b, "a NodeOverlay says %ld", got_ex);
		else
			buf_adds(&b, "no NodeOverlay");
		report(c, R_OVERLAY, p->d, p->labels ? p->labels : p->tspec,
		       "NodePool '%s' shares its GPUs (%ld per GPU) but for %zu "
		       "of its %zu instance types Karpenter's model is not what "
		       "the nodes report (e.g. %s reports nvidia.com/gpu %ld, "
		       "%s): without the right capacity it launches a node per "
		       "GPU pod and fills the limit early "
		       "(kubernetes-sigs/karpenter#729)",
		       p->name, p->mult, missing, total, example->name, want_ex,
		       buf_cstr(&b));
		buf_release(&b);
	} else if (noverlays) {
		/* Karpenter values of the pool's cluster that keep the
		 * gate off */
		const struct ynode *node = NULL;
		const struct doc *off = gate_off(c, p, "nodeOverlay", &node);
		struct buf b = BUF_INIT;

		if (!off)
			return;
		where(&b, off, node);
		report(c, R_OVERLAY, p->d, p->labels ? p->labels : p->tspec,
		       "NodePool '%s' relies on NodeOverlays, but the Karpenter "
		       "values turn the NodeOverlay feature gate off (%s): "
		       "Karpenter ignores them", p->name, buf_cstr(&b));
		buf_release(&b);
	}
}

/*
 * GPU022: a NodePool that admits karpenter.sh/capacity-type "reserved"
 * while nothing gives Karpenter a reservation to launch into: its
 * EC2NodeClass (in the set) has no capacityReservationSelectorTerms, or
 * the Karpenter values of the cluster turn the ReservedCapacity gate off.
 * Karpenter makes reserved offerings only from the reservations an
 * EC2NodeClass selects (aws/karpenter-provider-aws v1.14.1
 * pkg/providers/instancetype/offering/reserved_capacity_resolver.go) and
 * only with the gate on (kubernetes-sigs/karpenter v1.14.1
 * pkg/controllers/provisioning/scheduling/nodeclaim.go). Reserved as the
 * only type: nothing ever launches (error); with a fallback: the pool
 * always falls back (warning).
 */
static void check_reserved(struct lctx *c, const struct pool *p)
{
	const struct ynode *ct =
		lint_find_req(p->reqs, "karpenter.sh/capacity-type", "In");
	const struct ynode *vals = ct ? kid(ct, "values") : NULL;
	const struct ynode *terms, *g;
	const struct doc *v;
	enum lint_severity sev;
	struct buf why = BUF_INIT;

	if (!vals || !seq_has(vals, "reserved"))
		return;
	sev = seq_len(vals) == 1 ? LINT_ERROR : LINT_WARNING;
	if (p->nc) {
		terms = get(p->nc->root, "spec.capacityReservationSelectorTerms");
		if (seq_len(terms) <= 0)
			buf_addf(&why, "its EC2NodeClass '%s' selects no "
				 "capacity reservations "
				 "(spec.capacityReservationSelectorTerms)",
				 p->nc->name ? p->nc->name : "");
	}
	if (!why.len && (v = gate_off(c, p, "reservedCapacity", &g))) {
		buf_adds(&why, "the Karpenter values turn the "
			       "ReservedCapacity feature gate off (");
		where(&why, v, g);
		buf_adds(&why, ")");
	}
	if (why.len)
		report_sev(c, R_RESERVED, sev, p->d, ct,
			   "NodePool '%s' asks for reserved capacity, but %s: "
			   "Karpenter has no reservation to launch into, so %s",
			   p->name, buf_cstr(&why),
			   sev == LINT_ERROR ? "it never launches a node"
					     : "every node is a fallback");
	buf_release(&why);
}

/* GPU001: one type or one family where the class has more */
static void pool_confined(struct lctx *c, struct pool *p,
			  const struct ynode *fam, const struct ynode *typ)
{
	const struct doc *d = p->d;
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;

	if (p->confined && p->ntypes > 0) {
		const struct cat_type *only = NULL;
		const char *onefam = NULL;
		int nfam = 0, min_gpus = INT_MAX, alt_types = 0, alt_fams = 0;
		const struct cat_class *cls = NULL;
		/* types the pool leaves out by name are a choice, not a
		 * narrow selector (gpuform leaves out the EFA types whose
		 * share differs from the pods' request, units.h) */
		const struct ynode *notin = kid(
			lint_find_req(p->reqs,
				      "node.kubernetes.io/instance-type",
				      "NotIn"),
			"values");
		for (size_t i = 0; i < c->cat->ntypes; i++) {
			const struct cat_type *t = &c->cat->types[i];
			if (!p->admit[i] || t->gpus <= 0)
				continue;
			only = t;
			if (t->gpus < min_gpus)
				min_gpus = t->gpus;
			/* types of a family are contiguous in the catalog */
			if (!onefam || strcmp(onefam, t->family))
				nfam++;
			onefam = t->family;
			cls = lint_class_of_family(c, t->family);
		}
		for (size_t j = 0; cls && j < cls->nfamilies; j++) {
			const struct cat_type *ft;
			size_t n = catalog_types_of(c->cat, cls->families[j], &ft);
			int fits = 0;
			/* that MIG profile does not exist there, or gives
			 * another number of instances per GPU (one limit cannot
			 * count both, units.h) */
			if (p->mig[0] &&
			    (!lint_family_has_mig(catalog_family(c->cat,
							   cls->families[j]),
						  p->mig) ||
			     catalog_mig_instances(
				     catalog_family(c->cat, cls->families[j]),
				     p->mig) !=
				     catalog_mig_instances(
					     catalog_family(c->cat, onefam),
					     p->mig)))
				continue;
			for (size_t k = 0; k < n; k++)
				if (ft[k].gpus >= min_gpus &&
				    !seq_has(notin, ft[k].name) &&
				    (!only || strcmp(ft[k].name, only->name))) {
					alt_types++;
					fits = 1;
				}
			if (fits && strcmp(cls->families[j], onefam))
				alt_fams++;
		}
		if (p->ntypes == 1 && alt_types > 0)
			report(c, R_NARROW, d, typ ? typ : fam ? fam : at_reqs,
			       "GPU NodePool '%s' can launch only %s; the %s "
			       "class has %d more type%s with at least %d GPU%s "
			       "(insufficient-capacity risk, worse on spot)",
			       p->name, only->name, cls->name, alt_types,
			       alt_types == 1 ? "" : "s", min_gpus,
			       min_gpus == 1 ? "" : "s");
		else if (p->ntypes > 1 && nfam == 1 && alt_fams > 0)
			report(c, R_NARROW, d, fam ? fam : typ ? typ : at_reqs,
			       "GPU NodePool '%s' allows only family %s; the %s "
			       "class also offers %d more famil%s "
			       "(insufficient-capacity risk, worse on spot)",
			       p->name, onefam, cls->name, alt_fams,
			       alt_fams == 1 ? "y" : "ies");
	}
}

/* GPU006: static EFA interfaces on types without EFA */
static void pool_efa_interfaces(struct lctx *c, struct pool *p,
				const struct ynode *fam, const struct ynode *typ)
{
	const struct doc *d = p->d;
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;

	if (p->nc && p->confined) {
		const struct ynode *nis = get(p->nc->root,
					      "spec.networkInterfaces");
		int efa_ifs = 0, without = 0;
		const char *example = NULL;
		for (int i = 0; i < seq_len(nis); i++) {
			const char *it = sget(nis->kids[i], "interfaceType");
			if (it && !strncmp(it, "efa", 3))
				efa_ifs++;
		}
		for (size_t i = 0; efa_ifs && i < c->cat->ntypes; i++)
			if (p->admit[i] && c->cat->types[i].gpus > 0 &&
			    c->cat->types[i].efa < efa_ifs) {
				without++;
				if (!example)
					example = c->cat->types[i].name;
			}
		if (without)
			report(c, R_EFA_TYPES, d, fam ? fam : typ ? typ : at_reqs,
			       "NodePool '%s' uses EC2NodeClass '%s' with %d EFA "
			       "interface%s, but %d of its instance types (e.g. "
			       "%s) have fewer; launches there fail",
			       p->name, p->nc->name ? p->nc->name : "", efa_ifs,
			       efa_ifs == 1 ? "" : "s", without, example);
	}
}

void lint_check_pool(struct lctx *c, struct pool *p)
{
	const struct ynode *fam = lint_find_req(
				   p->reqs, "karpenter.k8s.aws/instance-family",
				   "In"),
			   *typ = lint_find_req(
				   p->reqs, "node.kubernetes.io/instance-type",
				   "In");
	const struct ynode *at_reqs = p->reqs ? p->reqs : p->tspec;
	const struct doc *d = p->d;
	struct buf b = BUF_INIT;

	/* GPU022: reserved capacity with nothing to reserve */
	check_reserved(c, p);

	if (!p->gpu) {
		/* GPU004: a general pool that can launch GPU types */
		int gpu = 0, mis = 0;
		for (size_t i = 0; i < c->cat->ntypes; i++) {
			const struct cat_family *f;
			if (!p->admit[i])
				continue;
			f = fam_of(c, &c->cat->types[i]);
			if (f && f->misreports)
				mis = 1;
			else if (c->cat->types[i].gpus > 0)
				gpu = 1;
		}
		if (gpu || mis)
			report(c, R_GENERAL, d, at_reqs,
			       "NodePool '%s' has no GPU taint or requirement "
			       "but can launch %s%s%s", p->name,
			       gpu ? "GPU instances (g/p families)" : "",
			       gpu && mis ? " and " : "",
			       mis ? "g6f/gr6f, which report 0 GPUs "
				     "(aws/karpenter-provider-aws#8368)" : "");
		return;
	}

	/* GPU003: explicit family allow-list, without misreporting ones */
	if (!fam && !typ && !(p->d->in))
		report(c, R_ALLOWLIST, d, at_reqs,
		       "GPU NodePool '%s' has no instance-family In [...] "
		       "allow-list; families that misreport their GPU count "
		       "(g6f, gr6f; aws/karpenter-provider-aws#8368) or new "
		       "ones can be launched", p->name);
	else if (fam) {
		const struct ynode *vals = kid(fam, "values");
		for (int i = 0; i < seq_len(vals); i++) {
			const struct cat_family *f =
				catalog_family(c->cat, str(vals->kids[i]) ?
						       str(vals->kids[i]) : "");
			if (f && f->misreports)
				report(c, R_ALLOWLIST, d, vals->kids[i],
				       "instance family '%s' reports 0 GPUs "
				       "(aws/karpenter-provider-aws#8368, #8324); "
				       "pods asking for a GPU can get a fraction",
				       f->name);
		}
	}

	/* GPU001: one type or one family where the class has more */
	pool_confined(c, p, fam, typ);

	/* GPU006: static EFA interfaces on types without EFA */
	pool_efa_interfaces(c, p, fam, typ);

	/* GPU021: a shared pool whose capacity Karpenter does not know */
	check_overlays(c, p);

	/* GPU019: no GPU limit */
	if (!p->has_limit)
		report(c, R_NOLIMIT, d, kid(d->root, "spec"),
		       "GPU NodePool '%s' has no limits.%s; nothing bounds "
		       "how many GPU instances it launches", p->name, RES_GPU);

	/* GPU016: spot-to-spot with a narrow pool */
	if (c->s2s_gate && !c->s2s_justified && p->spot && p->confined &&
	    !p->s2s_types) {
		const struct ynode *ct = lint_find_req(
			p->reqs, "karpenter.sh/capacity-type", NULL);
		where(&b, c->s2s_gate, c->s2s_node);
		report(c, R_S2S, d, ct ? ct : at_reqs,
		       "spotToSpotConsolidation is enabled (%s) but spot "
		       "NodePool '%s' offers %zu instance type%s and none has "
		       "%d cheaper ones in the pool, which spot-to-spot "
		       "replacement of a node needs",
		       buf_cstr(&b), p->name, p->ntypes,
		       p->ntypes == 1 ? "" : "s", SPOT_TO_SPOT_MIN_CHEAPER);
		buf_reset(&b);
	}

	/* GPU018: AL2023 without the NVIDIA device plugin */
	if (p->nc && lint_nc_family(p->nc, "al2023")) {
		const char *cfg = str(kid(p->labels, LBL_PLUGIN_CONFIG));
		const struct doc *cm = lint_plugin_configmap(c);
		if (!cfg && !cm && !c->has_nvidia_plugin)
			report(c, R_AL2023, d,
			       get(d->root, "spec.template.spec.nodeClassRef"),
			       "GPU NodePool '%s' runs AL2023 (EC2NodeClass "
			       "'%s'), whose AMI has no NVIDIA device plugin, and "
			       "nothing here deploys or configures one",
			       p->name, p->nc->name ? p->nc->name : "");
		else if (cfg && cm && !lint_plugin_config(c, cfg, NULL))
			report(c, R_AL2023, d, kid(p->labels, LBL_PLUGIN_CONFIG),
			       "GPU NodePool '%s' selects device-plugin config "
			       "'%s', which ConfigMap '%s' does not define",
			       p->name, cfg, cm->name ? cm->name : "");
	}

	/* GPU008: an inference pool on time-slicing, from its labels */
	if (p->timesliced && !d->in) {
		const char *wt = str(kid(p->labels, "gpuform.io/workload-type"));
		if (wt && !strcmp(wt, "inference") && !p->spot)
			report(c, R_TIMESLICE, d, p->labels,
			       "inference NodePool '%s' time-slices its GPUs "
			       "(%ld replicas per GPU, no memory isolation); use "
			       "MIG or whole GPUs for production inference",
			       p->name, p->mult);
	}
	buf_release(&b);
}

void lint_check_nodeclass(struct lctx *c, const struct doc *d)
{
	const struct ynode *terms = get(d->root, "spec.amiSelectorTerms");
	const struct ynode *bdm = get(d->root, "spec.blockDeviceMappings");
	const struct ynode *nis = get(d->root, "spec.networkInterfaces");

	/* GPU002 */
	for (int i = 0; i < seq_len(terms); i++) {
		const struct ynode *t = terms->kids[i];
		const char *a = sget(t, "alias"), *nm = sget(t, "name"),
			   *ssm = sget(t, "ssmParameter");
		const char *at = a ? strchr(a, '@') : NULL;
		/* Windows aliases accept only @latest: nothing to pin */
		if (a && !strncasecmp(a, "windows", 7))
			continue;
		if (a && (!at || !strcmp(at, "@latest") || !at[1]))
			report(c, R_AMI, d, kid(t, "alias"),
			       "AMI alias '%s' is not pinned: every new release "
			       "drifts and replaces all nodes of the pools using "
			       "EC2NodeClass '%s'", a, d->name ? d->name : "");
		else if (!a && !kid(t, "id") &&
			 ((nm && strchr(nm, '*')) ||
			  (ssm && (strstr(ssm, "latest") ||
				   strstr(ssm, "recommended"))) ||
			  (!nm && !ssm && kid(t, "tags"))))
			report_sev(c, R_AMI, LINT_WARNING, d, t,
				   "AMI selector term matches whatever AMI is "
				   "newest (%s); a new image drifts and "
				   "replaces every node",
				   nm ? "wildcard name" : ssm ? "moving SSM "
				   "parameter" : "tags only");
	}

	/* GPU017: image cache on Bottlerocket */
	for (int i = 0; lint_nc_family(d, "bottlerocket") && i < seq_len(bdm);
	     i++) {
		const struct ynode *m = bdm->kids[i];
		const char *dev = sget(m, "deviceName");
		const char *snap = sget(m, "ebs.snapshotID");
		const char *size = sget(m, "ebs.volumeSize");
		long long gib = size ? intent_parse_gib(size) : -1;
		if (!snap)
			continue;
		if (dev && !strcmp(dev, "/dev/xvda"))
			report(c, R_CACHE, d, get(m, "ebs.snapshotID"),
			       "image-cache snapshot %s is on the OS volume "
			       "/dev/xvda; Bottlerocket keeps images on the data "
			       "volume /dev/xvdb", snap);
		for (size_t s = 0; c->o && s < c->o->nsnapshots; s++)
			if (!strcmp(c->o->snapshots[s].id, snap) && gib > 0 &&
			    gib < c->o->snapshots[s].gib)
				report(c, R_CACHE, d, get(m, "ebs.volumeSize"),
				       "data volume %s (%lldGi) is smaller than "
				       "its image-cache snapshot %s (%lldGi); "
				       "EC2 refuses to launch the nodes",
				       dev ? dev : "", gib, snap,
				       c->o->snapshots[s].gib);
	}

	/* GPU023: a snapshot-backed volume is initialized lazily from S3
	 * unless it has a provisioned rate or the snapshot has fast
	 * snapshot restore (gpuform.io/fast-snapshot-restore names it) */
	for (int i = 0; i < seq_len(bdm); i++) {
		const struct ynode *m = bdm->kids[i];
		const char *snap = sget(m, "ebs.snapshotID");
		const char *fsr = str(kid(kid(kid(d->root, "metadata"),
					      "annotations"),
					  "gpuform.io/fast-snapshot-restore"));
		if (!snap || get(m, "ebs.volumeInitializationRate") ||
		    (fsr && !strcmp(fsr, snap)))
			continue;
		report(c, R_SNAP_INIT, d, get(m, "ebs.snapshotID"),
		       "volume %s of EC2NodeClass '%s' is restored from "
		       "snapshot %s with neither volumeInitializationRate nor "
		       "fast snapshot restore: its blocks load from S3 on "
		       "first read, so the first image pull can be slower "
		       "than the registry",
		       sget(m, "deviceName") ? sget(m, "deviceName") : "",
		       d->name ? d->name : "", snap);
	}

	/* GPU005: static EFA interfaces without an explicit SG */
	for (int i = 0; i < seq_len(nis); i++) {
		const char *it = sget(nis->kids[i], "interfaceType");
		const struct ynode *sg = get(d->root,
					     "spec.securityGroupSelectorTerms");
		int explicit_sg = 0;
		if (!it || strncmp(it, "efa", 3))
			continue;
		for (int j = 0; j < seq_len(sg); j++)
			if (kid(sg->kids[j], "id") || kid(sg->kids[j], "name"))
				explicit_sg = 1;
		if (!explicit_sg)
			report(c, R_EFA_SG, d, sg ? sg : kid(d->root, "spec"),
			       "EC2NodeClass '%s' attaches EFA interfaces but "
			       "selects security groups only by tags; add a "
			       "term with the id of the self-referencing EFA "
			       "group", d->name ? d->name : "");
		break;
	}
}

void lint_check_clusterqueue(struct lctx *c, const struct doc *d)
{
	const struct ynode *rgs = get(d->root, "spec.resourceGroups");

	/* GPU015: quota above the limits of the pools it feeds */
	for (int i = 0; i < seq_len(rgs); i++) {
		const struct ynode *fl = kid(rgs->kids[i], "flavors");
		for (int j = 0; j < seq_len(fl); j++) {
			const char *fn = sget(fl->kids[j], "name");
			const struct ynode *res = kid(fl->kids[j], "resources");
			const struct doc *rf =
				fn ? lint_find_doc(c, "ResourceFlavor", NULL, fn)
				   : NULL;
			struct resolved r;
			long limit = 0, mult = 1;
			int bounded = 1;
			if (!rf)
				continue;
			memset(&r, 0, sizeof(r));
			lint_pools_by_labels(c, get(rf->root, "spec.nodeLabels"),
					     &r);
			if (!r.npools)
				continue;
			/* the limit counts what nodes report (replicas, MIG
			 * instances); whole nodes only: what can be launched
			 * under it, one-GPU pods (units.h) */
			for (size_t k = 0; k < r.npools; k++) {
				long l;
				if (!r.pools[k]->has_limit)
					bounded = 0;
				l = lint_pool_launchable(c, r.pools[k], 1);
				limit += l >= 0 ? l : r.pools[k]->limit;
				if (r.pools[k]->mult > mult)
					mult = r.pools[k]->mult;
			}
			for (int k = 0; bounded && k < seq_len(res); k++) {
				const char *n = sget(res->kids[k], "name");
				const struct ynode *q =
					kid(res->kids[k], "nominalQuota");
				struct buf b = BUF_INIT, names = BUF_INIT;
				if (!n || strcmp(n, RES_GPU) || num(q) <= limit)
					continue;
				lint_pool_names(&names, &r);
				where(&b, r.pools[0]->d,
				      kid(get(r.pools[0]->d->root, "spec.limits"),
					  RES_GPU));
				report(c, R_LIMITS, d, q,
				       "ClusterQueue '%s' admits %ld GPUs of "
				       "flavor '%s' but NodePool %s may launch "
				       "only %ld%s (%s)",
				       d->name ? d->name : "", num(q), fn,
				       buf_cstr(&names), limit,
				       mult > 1 ? " schedulable GPUs" : "",
				       buf_cstr(&b));
				buf_release(&b);
				buf_release(&names);
			}
		}
	}
}

void lint_check_values(struct lctx *c, const struct doc *d)
{
	/* GPU007: aws-efa-k8s-device-plugin chart values */
	if (kid(d->root, "supportedInstanceLabels") &&
	    !lint_tolerates(kid(d->root, "tolerations"), GPU_TAINT, "true",
			    "NoSchedule"))
		report(c, R_PLUGIN_TOL, d,
		       kid(d->root, "tolerations") ? kid(d->root, "tolerations")
						   : d->root,
		       "EFA device plugin values have no toleration for "
		       "%s:NoSchedule (the chart's default is none), so the "
		       "plugin never runs on GPU nodes", GPU_TAINT);
	/* GPU026: eks-node-monitoring-agent chart values (nodeAgent,
	 * dcgmAgent): the DCGM DaemonSet ships no tolerations; the node
	 * agent's default (operator: Exists) covers the taint when left out */
	if (kid(d->root, "nodeAgent") || kid(d->root, "dcgmAgent")) {
		static const char *const parts[] = { "nodeAgent", "dcgmAgent" };
		for (int i = 0; i < 2; i++) {
			const struct ynode *part = kid(d->root, parts[i]);
			const struct ynode *tols = kid(part, "tolerations");
			if ((i == 0 && !tols) ||
			    lint_tolerates(tols, GPU_TAINT, "true",
					   "NoSchedule"))
				continue;
			report(c, R_AGENT_TOL, d,
			       tols ? tols : part ? part : d->root,
			       "EKS node monitoring agent values: %s has no "
			       "toleration for %s:NoSchedule%s, so it never "
			       "runs on GPU nodes and node repair sees no GPU "
			       "health condition", parts[i], GPU_TAINT,
			       i == 1 && !tols ? " (the chart's default is "
						 "none)"
					       : "");
		}
	}
}

void lint_check_intent(struct lctx *c, const struct intent *in)
{
	/* GPU008 at the intent's own text: inference that cannot be
	 * interrupted (none, checkpointed) is production */
	for (size_t i = 0; i < in->nworkloads; i++) {
		const struct workload *w = &in->workloads[i];
		struct doc d = { 0 };
		if (w->type != WL_INFERENCE || w->sharing != SHARE_TIMESLICING ||
		    w->interruption == INT_TOLERANT)
			continue;
		d.file = in->file;
		d.in = in;
		d.at = w->sharing_pos;
		report(c, R_TIMESLICE, &d, NULL,
		       "inference workload '%s' (interruption: %s) time-slices "
		       "its GPUs (%ld replicas, no memory isolation); use "
		       "sharing: {mig: PROFILE} on A100/H100/H200/B200, or whole "
		       "GPUs", w->name, wl_interruption_names[w->interruption],
		       w->ts_replicas);
	}
}
