/*
 * generator/preflight.c: see preflight.h.
 *
 * AMI parameters: the ones Karpenter v1.14.1 resolves an alias with
 * (aws/karpenter-provider-aws, pkg/providers/amifamily/al2023.go
 * resolvePath and bottlerocket.go DescribeImageQuery):
 *   al2023@VERSION   /aws/service/eks/optimized-ami/K8S/amazon-linux-2023/
 *                    ARCH/nvidia/amazon-eks-node-al2023-ARCH-nvidia-K8S-VERSION/image_id
 *   al2023@latest    .../ARCH/nvidia/recommended/image_id
 *   bottlerocket@V   /aws/service/bottlerocket/aws-k8s-K8S-nvidia/ARCH/V/image_id
 *                    (a leading 'v' trimmed; "latest" as is)
 * Only the nvidia variant is asked: GPU nodes boot from it, and Karpenter
 * drops GPU instance types when it finds no nvidia image for their arch.
 *
 * Interruption queue: gpuform's Karpenter values set
 * settings.interruptionQueue to the cluster name (templates/karpenter-values.yaml).
 */
#include "generator/preflight.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/vec.h"
#include "util/xalloc.h"

const char *const pf_actions[PF_NCHECKS] = {
	[PF_AMI] = "ssm:GetParameter",
	[PF_SNAPSHOT] = "ec2:DescribeSnapshots",
	[PF_EFA_SG] = "ec2:DescribeSecurityGroups",
	[PF_SUBNETS] = "ec2:DescribeSubnets",
	[PF_DISCOVERY_SG] = "ec2:DescribeSecurityGroups",
	[PF_OFFERINGS] = "ec2:DescribeInstanceTypeOfferings",
	[PF_QUEUE] = "sqs:GetQueueUrl",
	[PF_RESERVATIONS] = "ec2:DescribeCapacityReservations",
};

static const char *const check_names[PF_NCHECKS] = {
	[PF_AMI] = "the AMI release",
	[PF_SNAPSHOT] = "the image-cache snapshot",
	[PF_EFA_SG] = "the EFA security group",
	[PF_SUBNETS] = "the discovery-tagged subnets",
	[PF_DISCOVERY_SG] = "the discovery-tagged security groups",
	[PF_OFFERINGS] = "the instance type offerings",
	[PF_QUEUE] = "the interruption queue",
	[PF_RESERVATIONS] = "the capacity reservations",
};

const struct lint_rule pf_rules[] = {
	{ "PF000", "not-checked", LINT_WARNING,
	  "a check could not run (a missing permission or input)",
	  "The credentials lack the IAM permission the check needs, or an "
	  "input such as --kubernetes-version is missing. The intent may be "
	  "fine; grant the permission named (docs/preflight.md lists them "
	  "all) to check it.\n" },
	{ "PF001", "ami-release-missing", LINT_ERROR,
	  "no NVIDIA image of the pinned AMI release for this Kubernetes "
	  "version",
	  "Karpenter resolves the alias through a public SSM parameter; when "
	  "it does not exist, no GPU node can launch. Pin a release that was "
	  "published for the cluster's Kubernetes version.\n" },
	{ "PF002", "image-cache-snapshot", LINT_ERROR,
	  "the image-cache snapshot is missing, not completed, or larger "
	  "than the volume",
	  "EC2 cannot create the data volume from a snapshot that does not "
	  "exist, is still pending, or is larger than the volume size; nodes "
	  "fail to launch. Fix imageCache.snapshotID or imageCache.size.\n" },
	{ "PF003", "efa-security-group", LINT_ERROR,
	  "the EFA security group is missing or does not allow all traffic "
	  "to and from itself",
	  "EFA (NCCL over libfabric) needs a security group with inbound and "
	  "outbound rules allowing all traffic from and to the group itself; "
	  "without them multi-node jobs hang.\n" },
	{ "PF004", "discovery-tag", LINT_ERROR,
	  "no subnets or security groups carry the discovery tag",
	  "The EC2NodeClasses select subnets and security groups by the tag "
	  "karpenter.sh/discovery=<discovery>; with none, Karpenter cannot "
	  "launch a node.\n" },
	{ "PF005", "instance-type-not-offered", LINT_ERROR,
	  "no admitted instance type of a GPU pool is offered in the subnets' "
	  "zones",
	  "Karpenter only launches instance types offered in a zone of a "
	  "selected subnet; a pool none of whose types is offered stays "
	  "pending forever.\n" },
	{ "PF006", "interruption-queue", LINT_ERROR,
	  "Karpenter's interruption queue does not exist",
	  "gpuform configures Karpenter with the interruption queue named "
	  "after the cluster; without it Karpenter cannot drain nodes ahead "
	  "of Spot interruptions and maintenance events.\n" },
	{ "PF007", "capacity-reservation", LINT_ERROR,
	  "a capacity reservation or Capacity Block the intent names does "
	  "not exist or does not match the pool",
	  "Karpenter launches reserved nodes only into active reservations "
	  "the EC2NodeClass selects, of an instance type the NodePool admits, "
	  "in a zone of its subnets; a Capacity Block must hold the gang and "
	  "must not have ended. Fix workloads[].capacity or the reservation "
	  "(docs/reserved-capacity.md).\n" },
	{ "PF100", "zone-without-subnet", LINT_ERROR,
	  "a workload is pinned to a zone where no discovered subnet is",
	  "placement.zone becomes a topology.kubernetes.io/zone requirement "
	  "on the NodePool, and Karpenter launches only into the subnets its "
	  "EC2NodeClass selects (karpenter.sh/discovery=<discovery>); with no "
	  "such subnet in the zone the pool never launches a node. Tag a "
	  "subnet in that zone, or pin a zone that has one.\n" },
};
const size_t pf_nrules = sizeof(pf_rules) / sizeof(pf_rules[0]);

static void add_param(struct pf_facts *f, size_t *alloc, char *name,
		      const char *arch)
{
	GROW(f->params, f->nparams + 1, *alloc);
	f->params[f->nparams].name = name;
	f->params[f->nparams].arch = arch;
	f->params[f->nparams].st = PF_ABSENT;
	f->nparams++;
}

static int has_str(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pf_questions(struct pf_facts *f, const struct plan *p,
		  const char *k8s_version)
{
	const struct intent *in = p->in;
	const struct catalog *cat = catalog_builtin();
	int arch_x86 = 0, arch_arm = 0;
	size_t palloc = 0, talloc = 0;

	memset(f, 0, sizeof(*f));
	for (int c = 0; c < PF_NCHECKS; c++)
		f->st[c] = PF_ABSENT;
	for (size_t i = 0; i < p->npools; i++) {
		const struct plan_pool *pool = &p->pools[i];
		if (!pool->w)
			continue;
		for (size_t j = 0; j < pool->nfams; j++) {
			const struct cat_type *t;
			size_t n = catalog_types_of(cat, pool->fams[j]->name, &t);
			for (size_t k = 0; k < n; k++) {
				if (!strcmp(t[k].arch, "arm64"))
					arch_arm = 1;
				else
					arch_x86 = 1;
				if (!has_str(f->types, f->ntypes, t[k].name)) {
					GROW(f->types, f->ntypes + 1, talloc);
					f->types[f->ntypes++] = xstrdup(t[k].name);
				}
			}
		}
	}
	if (f->ntypes)
		qsort(f->types, f->ntypes, sizeof(*f->types), cmp_str);
	else
		f->st[PF_OFFERINGS] = PF_NOT_ASKED;

	if (!k8s_version || !in->ami_version || !f->ntypes) {
		f->st[PF_AMI] = PF_NOT_ASKED;
	} else {
		for (int a = 0; a < 2; a++) {
			const char *arch = a ? "arm64" : "x86_64";
			const char *v = in->ami_version;
			if (!(a ? arch_arm : arch_x86))
				continue;
			if (in->ami_family == AMI_AL2023)
				add_param(f, &palloc,
					  !strcmp(v, "latest")
						  ? xasprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/nvidia/recommended/image_id",
							      k8s_version, arch)
						  : xasprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/nvidia/amazon-eks-node-al2023-%s-nvidia-%s-%s/image_id",
							      k8s_version, arch, arch,
							      k8s_version, v),
					  arch);
			else if (in->ami_family == AMI_BOTTLEROCKET)
				add_param(f, &palloc,
					  xasprintf("/aws/service/bottlerocket/aws-k8s-%s-nvidia/%s/%s/image_id",
						    k8s_version, arch,
						    v[0] == 'v' ? v + 1 : v),
					  arch);
		}
		if (!f->nparams)
			f->st[PF_AMI] = PF_NOT_ASKED;
	}
	if (!in->image_cache || !in->snapshot_id)
		f->st[PF_SNAPSHOT] = PF_NOT_ASKED;
	if (!p->any_efa || !in->efa_sg)
		f->st[PF_EFA_SG] = PF_NOT_ASKED;
	f->queue = in->name ? xstrdup(in->name) : NULL;
	if (!f->queue)
		f->st[PF_QUEUE] = PF_NOT_ASKED;
	for (size_t i = 0; i < p->npools; i++) {
		const struct workload *w = p->pools[i].w;
		if (!w || !w->capacity)
			continue;
		f->rterms = xrealloc(f->rterms, (f->nrterms + w->ncap_terms) *
							sizeof(*f->rterms));
		for (size_t j = 0; j < w->ncap_terms; j++) {
			struct pf_rterm *t = &f->rterms[f->nrterms++];
			memset(t, 0, sizeof(*t));
			t->pool = i;
			t->term = j;
			t->st = PF_ABSENT;
		}
	}
	if (!f->nrterms)
		f->st[PF_RESERVATIONS] = PF_NOT_ASKED;
}

void pf_add_resv(struct pf_rterm *t, const struct pf_resv *r)
{
	struct pf_resv *x;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->r[i].id, r->id))
			return;
	GROW(t->r, t->nr + 1, t->ar);
	x = &t->r[t->nr++];
	x->id = xstrdup(r->id);
	x->type = xstrdup(r->type ? r->type : "");
	x->zone = xstrdup(r->zone ? r->zone : "");
	x->state = xstrdup(r->state ? r->state : "");
	x->rtype = xstrdup(r->rtype && *r->rtype ? r->rtype : "default");
	x->total = r->total;
	x->end = r->end;
}

void pf_add_zone(struct pf_facts *f, const char *zone)
{
	if (has_str(f->zones, f->nzones, zone))
		return;
	f->zones = xrealloc(f->zones, (f->nzones + 1) * sizeof(*f->zones));
	f->zones[f->nzones++] = xstrdup(zone);
	qsort(f->zones, f->nzones, sizeof(*f->zones), cmp_str);
}

void pf_add_offer(struct pf_facts *f, const char *type, const char *zone)
{
	for (size_t i = 0; i < f->noffers; i++)
		if (!strcmp(f->offers[i].type, type) &&
		    !strcmp(f->offers[i].zone, zone))
			return;
	GROW(f->offers, f->noffers + 1, f->aoffers);
	f->offers[f->noffers].type = xstrdup(type);
	f->offers[f->noffers].zone = xstrdup(zone);
	f->noffers++;
}

void pf_facts_release(struct pf_facts *f)
{
	for (size_t i = 0; i < f->nparams; i++)
		free(f->params[i].name);
	free(f->params);
	for (int c = 0; c < PF_NCHECKS; c++)
		free(f->denied_msg[c]);
	free(f->snap_status);
	for (size_t i = 0; i < f->nzones; i++)
		free(f->zones[i]);
	free(f->zones);
	for (size_t i = 0; i < f->ntypes; i++)
		free(f->types[i]);
	free(f->types);
	for (size_t i = 0; i < f->noffers; i++) {
		free(f->offers[i].type);
		free(f->offers[i].zone);
	}
	free(f->offers);
	free(f->queue);
	for (size_t i = 0; i < f->nrterms; i++) {
		for (size_t j = 0; j < f->rterms[i].nr; j++) {
			struct pf_resv *r = &f->rterms[i].r[j];
			free(r->id);
			free(r->type);
			free(r->zone);
			free(r->state);
			free(r->rtype);
		}
		free(f->rterms[i].r);
	}
	free(f->rterms);
	memset(f, 0, sizeof(*f));
}

static void add(struct lint_findings *out, int rule, const char *file,
		struct pos at, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add(struct lint_findings *out, int rule, const char *file,
		struct pos at, const char *fmt, ...)
{
	struct lint_finding *x;
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	GROW(out->items, out->nr + 1, out->alloc);
	x = &out->items[out->nr++];
	x->rule = &pf_rules[rule];
	x->sev = pf_rules[rule].severity;
	x->file = xstrdup(file);
	x->line = at.line;
	x->col = at.col;
	x->msg = buf_detach(&b, NULL);
	out->counts[x->sev]++;
}

static int denied(struct lint_findings *out, const struct pf_facts *f,
		  enum pf_check c, const char *file, struct pos at)
{
	if (f->st[c] != PF_DENIED)
		return 0;
	add(out, 0, file, at, "could not check %s: needs %s", check_names[c],
	    pf_actions[c]);
	return 1;
}

static int subnet_zone(const struct pf_facts *f, const char *zone)
{
	for (size_t z = 0; z < f->nzones; z++)
		if (!strcmp(f->zones[z], zone))
			return 1;
	return 0;
}

static int offered_type_of(const struct units_pool *u, const char *type)
{
	for (size_t k = 0; k < u->ntypes; k++)
		if (!strcmp(type, u->types[k]->name))
			return 1;
	return 0;
}

/* type is offered in a zone of a discovered subnet */
static int offered_here(const struct pf_facts *f, const char *type)
{
	for (size_t i = 0; i < f->noffers; i++)
		if (!strcmp(f->offers[i].type, type) &&
		    subnet_zone(f, f->offers[i].zone))
			return 1;
	return 0;
}

/*
 * PF005: a GPU pool none of whose instance types is offered in a zone of
 * the discovered subnets; names the types (up to 4) and the zones of the
 * region where they are offered (the offerings are asked for every zone)
 */
static void check_offerings(struct lint_findings *out, const struct plan_pool *pool,
			    const struct pf_facts *f, const char *file)
{
	const struct units_pool *u = &pool->units;
	struct buf zl = BUF_INIT, tl = BUF_INIT, el = BUF_INIT;
	size_t shown = u->ntypes < 4 ? u->ntypes : 4, nel = 0;

	for (size_t k = 0; k < u->ntypes; k++)
		if (offered_here(f, u->types[k]->name))
			return;
	for (size_t z = 0; z < f->nzones; z++)
		buf_addf(&zl, "%s%s", z ? ", " : "", f->zones[z]);
	for (size_t k = 0; k < shown; k++)
		buf_addf(&tl, "%s%s", k ? ", " : "", u->types[k]->name);
	if (u->ntypes > shown)
		buf_addf(&tl, " and %zu more", u->ntypes - shown);
	for (size_t i = 0; i < f->noffers; i++) {
		int typ = 0, dup = 0;
		for (size_t k = 0; k < u->ntypes; k++)
			typ |= !strcmp(f->offers[i].type, u->types[k]->name);
		for (size_t j = 0; j < i && typ; j++)
			dup |= !strcmp(f->offers[j].zone, f->offers[i].zone) &&
			       offered_type_of(u, f->offers[j].type);
		if (typ && !dup)
			buf_addf(&el, "%s%s", nel++ ? ", " : "",
				 f->offers[i].zone);
	}
	add(out, 5, file, pool->w->gpu_pos,
	    "workload '%s': none of its %zu instance type%s (%s) is offered in "
	    "the zones of the discovered subnets (%s); %s%s",
	    pool->w->name, u->ntypes, u->ntypes == 1 ? "" : "s", buf_cstr(&tl),
	    buf_cstr(&zl),
	    nel ? "offered in " : "offered in no zone of the region",
	    buf_cstr(&el));
	buf_release(&zl);
	buf_release(&tl);
	buf_release(&el);
}

/* PF100: placement.zone names a zone where no discovered subnet is:
 * Karpenter launches only into subnets its selector terms select, so the
 * pool can never launch a node */
static void check_zones(struct lint_findings *out, const struct workload *w,
			const struct pf_facts *f, const char *file)
{
	struct buf zl = BUF_INIT;

	for (size_t z = 0; z < f->nzones; z++)
		buf_addf(&zl, "%s%s", z ? ", " : "", f->zones[z]);
	for (size_t i = 0; i < w->nzones; i++)
		if (!subnet_zone(f, w->zones[i]))
			add(out, 8, file,
			    w->zone_item_pos ? w->zone_item_pos[i] : w->zone_pos,
			    "workload '%s' is pinned to zone %s, but no "
			    "discovered subnet is there (subnets in %s): "
			    "Karpenter never launches its nodes",
			    w->name, w->zones[i], buf_cstr(&zl));
	buf_release(&zl);
}

/* "team=ml, purpose=x (owner 111122223333)" */
static void term_desc(struct buf *b, const struct cap_term *t)
{
	if (t->id) {
		buf_adds(b, t->id);
		return;
	}
	for (size_t k = 0; k < t->ntags; k++)
		buf_addf(b, "%s%s=%s", k ? ", " : "", t->tag_keys[k],
			 t->tag_values[k]);
	if (t->owner_id)
		buf_addf(b, " (owner %s)", t->owner_id);
}

static int pool_admits(const struct plan_pool *pool, const char *type)
{
	for (size_t i = 0; i < pool->units.ntypes; i++)
		if (!strcmp(pool->units.types[i]->name, type))
			return 1;
	return 0;
}

/*
 * PF007: every reservation a term selects must be usable by the pool the
 * way Karpenter v1.14.1 uses it: active (scheduled: later), not ended, of
 * an admitted instance type, in a zone of the discovered subnets, and of
 * the type the intent says; a Capacity Block (or a reservation the pool
 * waits for) must hold the gang's nodes.
 */
static void check_reservations(struct lint_findings *out, const struct plan *p,
			       const struct pf_facts *f, const char *file)
{
	if (f->st[PF_RESERVATIONS] == PF_NOT_ASKED)
		return;
	for (size_t i = 0; i < p->npools; i++) {
		const struct plan_pool *pool = &p->pools[i];
		const struct workload *w = pool->w;
		long total = 0, ppn = 0, need = 0;
		int any_term = 0, all_answered = 1;
		char **seen = NULL;
		size_t nseen = 0;

		if (!w || !w->capacity)
			continue;
		if (denied(out, f, PF_RESERVATIONS, file, w->capacity_pos))
			continue;
		for (size_t k = 0; k < f->nrterms; k++) {
			const struct pf_rterm *rt = &f->rterms[k];
			const struct cap_term *t;
			struct buf d = BUF_INIT;

			if (rt->pool != i)
				continue;
			any_term = 1;
			t = &w->cap_terms[rt->term];
			term_desc(&d, t);
			if (rt->st != PF_FOUND)
				all_answered = 0;
			if (rt->st == PF_ABSENT || (rt->st == PF_FOUND && !rt->nr))
				add(out, 7, file, t->pos,
				    t->id ? "capacity reservation %s does not "
					    "exist in this account and region (or "
					    "is not shared with it)"
					  : "no active or scheduled capacity "
					    "reservation carries the tags %s",
				    buf_cstr(&d));
			for (size_t j = 0; j < rt->nr; j++) {
				const struct pf_resv *r = &rt->r[j];
				int ok = 1, dup = 0;

				if (strcmp(r->state, "active") &&
				    strcmp(r->state, "scheduled")) {
					add(out, 7, file, t->pos,
					    "capacity reservation %s is %s: "
					    "Karpenter launches only into active "
					    "reservations", r->id, r->state);
					ok = 0;
				} else if (r->end > 0 && r->end <= f->now) {
					add(out, 7, file, t->pos,
					    "capacity reservation %s has ended",
					    r->id);
					ok = 0;
				}
				if (!pool_admits(pool, r->type)) {
					add(out, 7, file, t->pos,
					    "capacity reservation %s is for %s, "
					    "which workload '%s' does not launch "
					    "(it launches %zu instance type%s, "
					    "e.g. %s)",
					    r->id, r->type, w->name,
					    pool->units.ntypes,
					    pool->units.ntypes == 1 ? "" : "s",
					    pool->units.ntypes
						    ? pool->units.types[0]->name
						    : "none");
					ok = 0;
				}
				if (f->st[PF_SUBNETS] == PF_FOUND && f->nzones &&
				    !has_str(f->zones, f->nzones, r->zone)) {
					struct buf zl = BUF_INIT;
					for (size_t z = 0; z < f->nzones; z++)
						buf_addf(&zl, "%s%s", z ? ", " : "",
							 f->zones[z]);
					add(out, 7, file, t->pos,
					    "capacity reservation %s is in %s, "
					    "where no discovered subnet is (%s)",
					    r->id, r->zone, buf_cstr(&zl));
					buf_release(&zl);
					ok = 0;
				}
				if ((w->cap_type == CAP_BLOCK) !=
				    !strcmp(r->rtype, "capacity-block")) {
					add(out, 7, file,
					    w->cap_type_pos.line ? w->cap_type_pos
								 : t->pos,
					    w->cap_type == CAP_BLOCK
						    ? "capacity reservation %s is "
						      "an On-Demand Capacity "
						      "Reservation, not a Capacity "
						      "Block: write 'type: "
						      "reservation'"
						    : "capacity reservation %s is a "
						      "Capacity Block: write 'type: "
						      "capacity-block' (its nodes go "
						      "at the block's end)",
					    r->id);
					ok = 0;
				}
				for (size_t s = 0; s < nseen; s++)
					dup |= !strcmp(seen[s], r->id);
				if (ok && !dup) {
					seen = xrealloc(seen, (nseen + 1) *
								      sizeof(*seen));
					seen[nseen++] = r->id;
					total += r->total;
				}
			}
			buf_release(&d);
		}
		free(seen);
		if (!any_term || !all_answered)
			continue;
		/* the gang's nodes, at the most pods per node */
		for (size_t t = 0; t < pool->units.ntypes; t++)
			if (pool->units.cap[t] / w->gpus_per_pod > ppn)
				ppn = pool->units.cap[t] / w->gpus_per_pod;
		if (ppn > 0)
			need = (w->gang + ppn - 1) / ppn;
		if (w->cap_instances > need)
			need = w->cap_instances;
		if ((w->cap_type == CAP_BLOCK || w->cap_fallback == CAPF_WAIT) &&
		    total < need)
			add(out, 7, file,
			    w->cap_instances_pos.line ? w->cap_instances_pos
						      : w->capacity_pos,
			    "workload '%s' needs %ld instance%s%s, but its usable "
			    "reservations hold %ld",
			    w->name, need, need == 1 ? "" : "s",
			    w->cap_instances ? " (capacity.instances)"
					     : " for its gang",
			    total);
	}
}

void pf_evaluate(struct lint_findings *out, const struct plan *p,
		 const struct pf_facts *f, const char *file,
		 const char *k8s_version)
{
	const struct intent *in = p->in;
	long long vol_gib = in->cache_size ? intent_parse_gib(in->cache_size)
					   : in->cache_size_gib;

	/* AMI */
	if (!k8s_version && in->ami_version && f->ntypes) {
		add(out, 0, file, in->ami_pos,
		    "could not check the AMI release %s: give "
		    "--kubernetes-version (e.g. 1.32) or --kubeconfig", in->ami);
	} else if (!denied(out, f, PF_AMI, file, in->ami_pos) &&
		   f->st[PF_AMI] != PF_NOT_ASKED) {
		for (size_t i = 0; i < f->nparams; i++)
			if (f->params[i].st == PF_ABSENT)
				add(out, 1, file, in->ami_pos,
				    "AMI release %s has no NVIDIA %s image for "
				    "Kubernetes %s: SSM parameter %s does not "
				    "exist", in->ami, f->params[i].arch,
				    k8s_version, f->params[i].name);
	}
	/* snapshot */
	if (f->st[PF_SNAPSHOT] != PF_NOT_ASKED &&
	    !denied(out, f, PF_SNAPSHOT, file, in->snapshot_pos)) {
		if (f->st[PF_SNAPSHOT] == PF_ABSENT)
			add(out, 2, file, in->snapshot_pos,
			    "image-cache snapshot %s does not exist in this "
			    "account and region (or is not shared with it)",
			    in->snapshot_id);
		else if (!f->snap_status || strcmp(f->snap_status, "completed"))
			add(out, 2, file, in->snapshot_pos,
			    "image-cache snapshot %s is %s, not completed",
			    in->snapshot_id,
			    f->snap_status ? f->snap_status : "of unknown state");
		if (f->st[PF_SNAPSHOT] == PF_FOUND &&
		    vol_gib > 0 && f->snap_gib > vol_gib)
			add(out, 2, file,
			    in->cache_size_pos.line ? in->cache_size_pos
						    : in->snapshot_pos,
			    "image-cache snapshot %s is %lld GiB, larger than "
			    "the volume (%s = %lld GiB): set imageCache.size to "
			    "at least %lldGi", in->snapshot_id, f->snap_gib,
			    in->cache_size ? in->cache_size : "?", vol_gib,
			    f->snap_gib);
	}
	/* EFA security group */
	if (f->st[PF_EFA_SG] != PF_NOT_ASKED &&
	    !denied(out, f, PF_EFA_SG, file, in->efa_sg_pos)) {
		if (f->st[PF_EFA_SG] == PF_ABSENT)
			add(out, 3, file, in->efa_sg_pos,
			    "EFA security group %s does not exist", in->efa_sg);
		else if (!f->sg_self_in || !f->sg_self_out)
			add(out, 3, file, in->efa_sg_pos,
			    "EFA security group %s does not allow all traffic "
			    "%s itself (EFA needs all-traffic rules from and to "
			    "the group itself, inbound and outbound; outbound "
			    "0.0.0.0/0 is not enough)",
			    in->efa_sg,
			    !f->sg_self_in && !f->sg_self_out ? "to and from"
			    : !f->sg_self_in		     ? "from"
							     : "to");
	}
	/* discovery */
	if (!denied(out, f, PF_SUBNETS, file, in->discovery_pos) &&
	    f->st[PF_SUBNETS] != PF_NOT_ASKED && !f->nsubnets)
		add(out, 4, file, in->discovery_pos,
		    "no subnet carries the tag karpenter.sh/discovery=%s",
		    in->discovery);
	if (!denied(out, f, PF_DISCOVERY_SG, file, in->discovery_pos) &&
	    f->st[PF_DISCOVERY_SG] != PF_NOT_ASKED && !f->ndiscovery_sgs)
		add(out, 4, file, in->discovery_pos,
		    "no security group carries the tag "
		    "karpenter.sh/discovery=%s", in->discovery);
	/* offerings: per GPU pool, at its workload's gpu key; the zones
	 * come from the subnets */
	if (f->st[PF_OFFERINGS] != PF_NOT_ASKED &&
	    f->st[PF_SUBNETS] == PF_DENIED)
		add(out, 0, file, in->discovery_pos,
		    "could not check the instance type offerings: needs "
		    "ec2:DescribeSubnets (for the subnets' zones)");
	if (f->st[PF_OFFERINGS] != PF_NOT_ASKED && f->nzones &&
	    !denied(out, f, PF_OFFERINGS, file, in->discovery_pos))
		for (size_t i = 0; i < p->npools; i++)
			if (p->pools[i].w)
				check_offerings(out, &p->pools[i], f, file);
	if (f->st[PF_SUBNETS] == PF_FOUND && f->nzones)
		for (size_t i = 0; i < in->nworkloads; i++)
			check_zones(out, &in->workloads[i], f, file);
	check_reservations(out, p, f, file);
	/* interruption queue */
	if (f->st[PF_QUEUE] != PF_NOT_ASKED &&
	    !denied(out, f, PF_QUEUE, file, in->name_pos) &&
	    f->st[PF_QUEUE] == PF_ABSENT)
		add(out, 6, file, in->name_pos,
		    "Karpenter's interruption queue '%s' does not exist (SQS "
		    "queue named after the cluster)", f->queue);
}

static void statement(cJSON *arr, const char *sid, const char *prefix,
		      const char *resource)
{
	cJSON *st = cJSON_CreateObject(), *acts = cJSON_CreateArray();

	cJSON_AddStringToObject(st, "Sid", sid);
	cJSON_AddStringToObject(st, "Effect", "Allow");
	for (int c = 0; c < PF_NCHECKS; c++) {
		int dup = 0;
		if (strncmp(pf_actions[c], prefix, strlen(prefix)))
			continue;
		for (int d = 0; d < c; d++)
			dup |= !strcmp(pf_actions[c], pf_actions[d]);
		if (!dup)
			cJSON_AddItemToArray(acts,
					     cJSON_CreateString(pf_actions[c]));
	}
	cJSON_AddItemToObject(st, "Action", acts);
	cJSON_AddStringToObject(st, "Resource", resource);
	cJSON_AddItemToArray(arr, st);
}

char *pf_iam_policy(int pretty)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;

	cJSON_AddStringToObject(root, "Version", "2012-10-17");
	arr = cJSON_AddArrayToObject(root, "Statement");
	/* EC2 Describe* actions take no resource ARNs */
	statement(arr, "GpuformPreflightEC2", "ec2:", "*");
	/* the public parameters live in no account */
	statement(arr, "GpuformPreflightAMI", "ssm:",
		  "arn:aws:ssm:*::parameter/aws/service/*");
	statement(arr, "GpuformPreflightQueue", "sqs:", "arn:aws:sqs:*:*:*");
	s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!s)
		BUG("cJSON_Print failed");
	return s;
}

cJSON *pf_iam_policy_configmap(const char *ns)
{
	cJSON *cm = cJSON_CreateObject(), *md, *data;
	char *pol = pf_iam_policy(0);

	cJSON_AddStringToObject(cm, "apiVersion", "v1");
	cJSON_AddStringToObject(cm, "kind", "ConfigMap");
	md = cJSON_AddObjectToObject(cm, "metadata");
	cJSON_AddStringToObject(md, "name", "gpuform-aws-iam-policy");
	cJSON_AddStringToObject(md, "namespace", ns ? ns : "gpuform-system");
	cJSON_AddStringToObject(
		cJSON_AddObjectToObject(md, "annotations"),
		"gpuform.io/description",
		"the IAM policy gpuform preflight needs: attach it to the "
		"role of the job's service account (IRSA or EKS Pod Identity)");
	data = cJSON_AddObjectToObject(cm, "data");
	cJSON_AddStringToObject(data, "policy.json", pol);
	free(pol);
	return cm;
}
