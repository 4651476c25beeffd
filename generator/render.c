/*
 * generator/render.c: plan -> documents (see render.h). All structure that
 * does not depend on the intent lives in templates/; this file computes the
 * values and hands them to the templates as a context object.
 */
#include "generator/render.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/crdrules.h"
#include "generator/delivery.h"
#include "generator/interruption.h"
#include "generator/kobj.h"
#include "generator/window.h"
#include "util/yaml.h"
#include "util/json.h"
#include "util/xalloc.h"

#define DEVICE_PLUGIN_CM "gpuform-nvidia-device-plugin"
/* the default; an intent may say where the chart runs
 * (spec.nvidiaDevicePlugin.namespace) */
#define DEVICE_PLUGIN_NS INTENT_DEVICE_PLUGIN_NS
#define GPU_TAINT_KEY "nvidia.com/gpu"

static const char *const priority_names[] = { "gpuform-training",
					      "gpuform-inference",
					      "gpuform-dev" };
/* inference serves users: it outranks training, which outranks dev */
static const int priority_values[] = { 500, 1000, 100 };
/* what the values do: every ClusterQueue has its own flavor and no cohort,
 * so a priority orders and preempts workloads of the same queue only */
static const char *const priority_desc[] = {
	"gpuform: training; orders and preempts lower-priority workloads "
	"within the same ClusterQueue only",
	"gpuform: inference; orders and preempts lower-priority workloads "
	"within the same ClusterQueue only",
	"gpuform: dev; lowest, preempted by higher-priority workloads of the "
	"same ClusterQueue only"
};

/* ---- small cJSON helpers ------------------------------------------------- */

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int key_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(x->string, y->string);
}

/* sort_children: order the members of an object or array (qsort over the
 * cJSON child list) */
static void sort_children(cJSON *parent, int (*cmp)(const void *, const void *))
{
	size_t n = 0, i = 0;
	cJSON *c, **v;

	for (c = parent->child; c; c = c->next)
		n++;
	if (n < 2)
		return;
	v = xmalloc(n * sizeof(*v));
	for (c = parent->child; c; c = c->next)
		v[i++] = c;
	qsort(v, n, sizeof(*v), cmp);
	for (i = 0; i < n; i++) {
		v[i]->prev = i ? v[i - 1] : v[n - 1];
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	}
	parent->child = v[0];
	free(v);
}

/* sort_keys: order an object's members by key (deterministic maps) */
static cJSON *sort_keys(cJSON *obj)
{
	sort_children(obj, key_cmp);
	return obj;
}

static cJSON *str_array(const char *const *s, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s[i]));
	return a;
}

static void add_long_str(cJSON *obj, const char *key, long v)
{
	char *s = xasprintf("%ld", v);
	cJSON_AddStringToObject(obj, key, s);
	free(s);
}

static cJSON *labels(const struct plan *p, const char *workload)
{
	cJSON *l = cJSON_CreateObject();

	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "gpuform");
	cJSON_AddStringToObject(l, "gpuform.io/cluster", p->in->name);
	if (workload)
		cJSON_AddStringToObject(l, "gpuform.io/workload", workload);
	return sort_keys(l);
}

static cJSON *requirement(const char *key, const char *op,
			  const char *const *values, size_t n)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "key", key);
	cJSON_AddStringToObject(r, "operator", op);
	if (values)
		cJSON_AddItemToObject(r, "values", str_array(values, n));
	return r;
}

static cJSON *gpu_taint(void)
{
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "key", GPU_TAINT_KEY);
	cJSON_AddStringToObject(t, "value", "true");
	cJSON_AddStringToObject(t, "effect", "NoSchedule");
	return t;
}

/* ---- EC2NodeClass -------------------------------------------------------- */

static cJSON *ebs(const char *size, int fast, const char *snapshot,
		  long init_rate)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "volumeSize", size);
	cJSON_AddStringToObject(e, "volumeType", "gp3");
	cJSON_AddNumberToObject(e, "iops", fast ? 6000 : 3000);
	cJSON_AddNumberToObject(e, "throughput", fast ? 500 : 125);
	cJSON_AddBoolToObject(e, "encrypted", 1);
	cJSON_AddBoolToObject(e, "deleteOnTermination", 1);
	if (snapshot)
		cJSON_AddStringToObject(e, "snapshotID", snapshot);
	/* the EBS Provisioned Rate for Volume Initialization (MiB/s): the
	 * snapshot's blocks are fetched from S3 at this rate from creation
	 * instead of lazily on first read (CRD: 100..300, snapshot only) */
	if (snapshot && init_rate)
		cJSON_AddNumberToObject(e, "volumeInitializationRate",
					(double)init_rate);
	return e;
}

static cJSON *bdm(const char *dev, int root, cJSON *e)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "deviceName", dev);
	if (root)
		cJSON_AddBoolToObject(m, "rootVolume", 1);
	cJSON_AddItemToObject(m, "ebs", e);
	return m;
}

#define POD_SPOT_GRACE_S 90

/* the image cache's initialization rate: as written, else the maximum
 * (the cache exists to be fast on the first pull), none when the snapshot
 * has fast snapshot restore (a rate would override it: EC2 CreateVolume) */
static long cache_init_rate(const struct intent *in)
{
	if (in->cache_fsr)
		return 0;
	return in->cache_init_rate ? in->cache_init_rate
				   : INTENT_CACHE_INIT_RATE;
}

static cJSON *block_devices(const struct plan *p,
			    const struct plan_nodeclass *nc)
{
	const struct intent *in = p->in;
	cJSON *a = cJSON_CreateArray();
	int gpu = !nc->general;

	if (in->ami_family == AMI_BOTTLEROCKET) {
		/* writing any mapping replaces Karpenter's defaults: always
		 * both the OS volume and the data volume (images, logs) */
		const char *size = !gpu ? "50Gi"
				   : in->image_cache ? in->cache_size
						     : "200Gi";
		cJSON_AddItemToArray(a, bdm("/dev/xvda", 0,
					    ebs("4Gi", 0, NULL, 0)));
		cJSON_AddItemToArray(
			a, bdm("/dev/xvdb", 1,
			       ebs(size, gpu,
				   gpu && in->image_cache ? in->snapshot_id
							  : NULL,
				   cache_init_rate(in))));
	} else {
		cJSON_AddItemToArray(a, bdm("/dev/xvda", 1,
					    ebs(gpu ? "200Gi" : "50Gi", gpu,
						NULL, 0)));
	}
	return a;
}

static char *bottlerocket_user_data(const struct plan_nodeclass *nc)
{
	struct buf b = BUF_INIT;

	if (nc->sharing == SHARE_TIMESLICING) {
		buf_adds(&b, "[settings.kubelet-device-plugins.nvidia]\n"
			     "device-sharing-strategy = \"time-slicing\"\n\n"
			     "[settings.kubelet-device-plugins.nvidia.time-slicing]\n");
		buf_addf(&b, "replicas = %ld\n", nc->ts_replicas);
		buf_adds(&b, "rename-by-default = false\n"
			     "fail-requests-greater-than-one = true\n");
	} else if (nc->sharing == SHARE_MIG) {
		buf_adds(&b, "[settings.kubelet-device-plugins.nvidia]\n"
			     "device-partitioning-strategy = \"mig\"\n\n"
			     "[settings.kubelet-device-plugins.nvidia.mig.profile]\n");
		for (size_t i = 0; i < nc->nmig_models; i++)
			buf_addf(&b, "\"%s\" = \"%s\"\n", nc->mig_models[i],
				 nc->mig_profile);
	} else {
		return NULL;
	}
	return buf_detach(&b, NULL);
}

static cJSON *nic(int card, int dev, const char *type)
{
	cJSON *n = cJSON_CreateObject();

	cJSON_AddNumberToObject(n, "networkCardIndex", card);
	cJSON_AddNumberToObject(n, "deviceIndex", dev);
	cJSON_AddStringToObject(n, "interfaceType", type);
	return n;
}

/* network.efaOnlyInterfaces: the primary ENA interface on card 0, and one
 * efa-only interface (an EFA device without an IP address) on every card,
 * card 0 at device index 1. Karpenter then advertises one
 * vpc.amazonaws.com/efa per efa-only entry (pkg/providers/instancetype/
 * types.go efas) instead of attaching an IP-consuming EFA interface per
 * card; the CRD allows one efa-only interface per card */
static cJSON *efa_only_layout(int cards)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, nic(0, 0, "interface"));
	cJSON_AddItemToArray(a, nic(0, 1, "efa-only"));
	for (int c = 1; c < cards; c++)
		cJSON_AddItemToArray(a, nic(c, 0, "efa-only"));
	return a;
}

static int render_nodeclass(cJSON *docs, const struct plan *p,
			    const struct plan_nodeclass *nc,
			    const struct tmpl_set *t, struct err *err)
{
	const struct intent *in = p->in;
	cJSON *ctx = cJSON_CreateObject(), *sgs, *term, *tags;
	char *ud;

	cJSON_AddStringToObject(ctx, "name", nc->name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, NULL));
	/* lint GPU023 reads it: the snapshot needs no initialization rate */
	if (!nc->general && in->image_cache && in->cache_fsr)
		cJSON_AddStringToObject(
			cJSON_AddObjectToObject(ctx, "annotations"),
			"gpuform.io/fast-snapshot-restore", in->snapshot_id);
	if (nc->pg)
		cJSON_AddStringToObject(
			cJSON_AddObjectToObject(ctx, "placementGroupSelector"),
			strncmp(nc->pg, "pg-", 3) ? "name" : "id", nc->pg);
	cJSON_AddStringToObject(ctx, "ami", in->ami);
	if (in->node_role)
		cJSON_AddStringToObject(ctx, "role", in->node_role);
	else
		cJSON_AddStringToObject(ctx, "instanceProfile",
					in->instance_profile);
	cJSON_AddStringToObject(ctx, "discovery", in->discovery);
	/* GPU nodes: the local NVMe as one RAID0 array for containerd, the
	 * kubelet and pod logs, and as the node's ephemeral-storage (aws/
	 * karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go
	 * ephemeralStorage; nodeadm LocalStorage RAID0 on AL2023,
	 * 'apiclient ephemeral-storage bind' on Bottlerocket: pkg/providers/
	 * amifamily/bootstrap). Not with a Bottlerocket image cache: the bind
	 * puts /var/lib/containerd on the array and hides the cache volume */
	if (!nc->general && !in->image_cache)
		cJSON_AddStringToObject(ctx, "instanceStorePolicy", "RAID0");
	sgs = cJSON_AddArrayToObject(ctx, "securityGroupSelectorTerms");
	term = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(term, "tags"),
				"karpenter.sh/discovery", in->discovery);
	cJSON_AddItemToArray(sgs, term);
	if (nc->efa) {
		/* EFA needs all traffic to and from a self-referencing SG */
		term = cJSON_CreateObject();
		cJSON_AddStringToObject(term, "id", in->efa_sg);
		cJSON_AddItemToArray(sgs, term);
	}
	if (nc->reserved_for) {
		/* the terms are ORed; Karpenter lists the active reservations
		 * they select (aws/karpenter-provider-aws v1.14.1
		 * pkg/providers/capacityreservation/types.go) */
		const struct workload *w = nc->reserved_for;
		cJSON *terms = cJSON_AddArrayToObject(
			ctx, "capacityReservationSelectorTerms");
		for (size_t i = 0; i < w->ncap_terms; i++) {
			const struct cap_term *ct = &w->cap_terms[i];
			cJSON *tj = cJSON_CreateObject();
			if (ct->id)
				cJSON_AddStringToObject(tj, "id", ct->id);
			if (ct->ntags) {
				cJSON *tg = cJSON_AddObjectToObject(tj, "tags");
				for (size_t k = 0; k < ct->ntags; k++)
					cJSON_AddStringToObject(
						tg, ct->tag_keys[k],
						ct->tag_values[k]);
				sort_keys(tg);
			}
			if (ct->owner_id)
				cJSON_AddStringToObject(tj, "ownerID",
							ct->owner_id);
			cJSON_AddItemToArray(terms, tj);
		}
	}
	cJSON_AddItemToObject(ctx, "blockDeviceMappings", block_devices(p, nc));
	if (nc->efa_cards)
		cJSON_AddItemToObject(ctx, "networkInterfaces",
				      efa_only_layout(nc->efa_cards));
	if (in->prefix_delegation)
		/* Karpenter computes ENI-limited max pods and does not know
		 * about prefix delegation: set it explicitly */
		cJSON_AddNumberToObject(
			cJSON_AddObjectToObject(ctx, "kubelet"), "maxPods",
			110);
	if (in->ami_family == AMI_BOTTLEROCKET &&
	    (ud = bottlerocket_user_data(nc))) {
		cJSON_AddStringToObject(ctx, "userData", ud);
		free(ud);
	}
	tags = cJSON_AddObjectToObject(ctx, "tags");
	cJSON_AddStringToObject(tags, "gpuform.io/cluster", in->name);
	cJSON_AddStringToObject(tags, "gpuform.io/nodeclass", nc->name);
	return tmpl_append(docs, t, "ec2nodeclass", ctx, err);
}

/* ---- NodePool ------------------------------------------------------------- */

static cJSON *budget(const char *nodes, const char *const *reasons,
		     size_t nreasons, const struct plan *p, int outside_window)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "nodes", nodes);
	if (outside_window) {
		struct buf sched = BUF_INIT, dur = BUF_INIT;
		window_complement(&p->window, &sched, &dur);
		cJSON_AddStringToObject(b, "schedule", buf_cstr(&sched));
		cJSON_AddStringToObject(b, "duration", buf_cstr(&dur));
		buf_release(&sched);
		buf_release(&dur);
	}
	if (reasons)
		cJSON_AddItemToObject(b, "reasons", str_array(reasons, nreasons));
	return b;
}

/*
 * spec.disruption from the interruption class (generator/interruption.h):
 * a reason the class allows only inside the window is blocked (nodes "0")
 * over the window's complement — or at every hour when there is no window;
 * a reason it never allows is blocked at every hour; whatever is left is
 * rate-limited to 10% of the nodes (a reason no budget names would be
 * unlimited). Tolerant pools keep Karpenter's default budget (10%).
 */
static cJSON *disruption(const struct plan *p, const struct workload *w)
{
	enum wl_interruption mode = w ? w->interruption : INT_TOLERANT;
	struct interruption_budgets ib;
	const char *names[DR_NREASONS];
	cJSON *d = cJSON_CreateObject(), *budgets;

	interruption_budgets(mode, &ib);
	cJSON_AddStringToObject(d, "consolidationPolicy",
				interruption_allows(mode, DR_UNDERUTILIZED) ==
						DW_NEVER
					? "WhenEmpty"
					: "WhenEmptyOrUnderutilized");
	cJSON_AddStringToObject(d, "consolidateAfter",
				w ? interruption_consolidate_after(mode) : "1m");
	if (!ib.nnever && !ib.noutside)
		return d;
	budgets = cJSON_AddArrayToObject(d, "budgets");
	if (ib.noutside) {
		for (int i = 0; i < ib.noutside; i++)
			names[i] = disr_reason_names[ib.outside[i]];
		cJSON_AddItemToArray(budgets,
				     budget("0", names, (size_t)ib.noutside, p,
					    p->has_window));
	}
	if (ib.nnever) {
		for (int i = 0; i < ib.nnever; i++)
			names[i] = disr_reason_names[ib.never[i]];
		cJSON_AddItemToArray(budgets, budget("0", names,
						     (size_t)ib.nnever, p, 0));
	}
	cJSON_AddItemToArray(budgets, budget("10%", NULL, 0, p, 0));
	return d;
}

/*
 * NodePool annotations that tell `gpuform reconcile` how much disruption the
 * pool's workloads take and when the maintenance window is, so it can hold
 * back node-replacing changes outside the window whatever the source of the
 * manifests (intent, rendered directory, Git). Object metadata: not part of
 * Karpenter's template hash, so they drift no node.
 */
static cJSON *pool_annotations(const struct plan *p, enum wl_interruption mode)
{
	cJSON *a = cJSON_CreateObject();

	cJSON_AddStringToObject(a, "gpuform.io/interruption",
				wl_interruption_names[mode]);
	if (p->has_window) {
		cJSON_AddStringToObject(a, "gpuform.io/maintenance-window",
					p->in->window_schedule);
		cJSON_AddStringToObject(a, "gpuform.io/maintenance-window-duration",
					p->in->window_duration);
	}
	return a;
}

static int render_gpu_pool(cJSON *docs, const struct plan *p,
			   const struct plan_pool *pool,
			   const struct tmpl_set *t, struct err *err)
{
	static const char *const amd64[] = { "amd64" };
	static const char *const linux_[] = { "linux" };
	const struct workload *w = pool->w;
	const char *fams[VALIDATE_MAX_FAMILIES];
	cJSON *ctx = cJSON_CreateObject(), *nl, *req, *lim;
	char gt[32];

	for (size_t i = 0; i < pool->nfams; i++)
		fams[i] = pool->fams[i]->name;
	qsort(fams, pool->nfams, sizeof(char *), str_cmp);
	cJSON_AddStringToObject(ctx, "name", pool->name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, w->name));
	cJSON_AddItemToObject(ctx, "annotations",
			      pool_annotations(p, w->interruption));
	nl = cJSON_AddObjectToObject(ctx, "nodeLabels");
	cJSON_AddStringToObject(nl, "gpuform.io/cluster", p->in->name);
	cJSON_AddStringToObject(nl, "gpuform.io/pool", pool->name);
	cJSON_AddStringToObject(nl, "gpuform.io/workload", w->name);
	cJSON_AddStringToObject(nl, "gpuform.io/workload-type",
				wl_type_names[w->type]);
	if (p->al2023) {
		cJSON_AddStringToObject(nl, "nvidia.com/device-plugin.config",
					pool->share_config ? pool->share_config
							   : "default");
		cJSON_AddStringToObject(nl, "nvidia.com/gpu.present", "true");
		/* no MIG here: validate refuses MIG on AL2023 (no MIG
		 * manager is rendered, docs/gpu-semantics.md) */
	}
	sort_keys(nl);
	cJSON_AddStringToObject(ctx, "nodeClass",
				p->nodeclasses[pool->nodeclass].name);
	req = cJSON_AddArrayToObject(ctx, "requirements");
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-family",
					      "In", fams, pool->nfams));
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-gpu-name",
					      "In", pool->gpu_names,
					      pool->ngpu_names));
	/* also guards against types that report 0 GPUs (#8368) */
	snprintf(gt, sizeof(gt), "%ld", w->gpus_per_pod - 1);
	{
		const char *v[] = { gt };
		cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-gpu-count",
						      "Gt", v, 1));
	}
	cJSON_AddItemToArray(req, requirement("karpenter.sh/capacity-type", "In",
					      pool->captypes, pool->ncaptypes));
	cJSON_AddItemToArray(req, requirement("kubernetes.io/arch", "In", amd64, 1));
	cJSON_AddItemToArray(req, requirement("kubernetes.io/os", "In", linux_, 1));
	/* placement.zone: Karpenter launches only into these zones' subnets */
	if (w->nzones)
		cJSON_AddItemToArray(req, requirement("topology.kubernetes.io/zone",
						      "In",
						      (const char *const *)w->zones,
						      w->nzones));
	if (pool->units.ndense || pool->units.nefa_out) {
		/* types whose max pods cannot hold a pod per schedulable
		 * GPU, and EFA types whose share differs from the pods'
		 * request (units.h efa_share) */
		const char *out[2 * UNITS_MAX_TYPES];
		size_t n = 0;
		for (size_t i = 0; i < pool->units.ndense; i++)
			out[n++] = pool->units.dense[i]->name;
		for (size_t i = 0; i < pool->units.nefa_out; i++)
			out[n++] = pool->units.efa_out[i]->name;
		cJSON_AddItemToArray(req, requirement("node.kubernetes.io/instance-type",
						      "NotIn", out, n));
	}
	cJSON_AddItemToArray(cJSON_AddArrayToObject(ctx, "taints"), gpu_taint());
	/* expiry is forceful (no budget holds it): a class allows it at
	 * any time or never */
	cJSON_AddStringToObject(ctx, "expireAfter",
				interruption_allows(w->interruption,
						    DR_EXPIRED) == DW_NEVER
					? "Never"
					: "720h");
	/* lets drain finish past do-not-disrupt pods and PDBs, so expiry and
	 * drift cannot hang forever; without it (none) running jobs keep a
	 * drifted node until they end */
	if (w->capacity && w->cap_type == CAP_BLOCK)
		/* Karpenter deletes a block's NodeClaims 40 minutes before the
		 * block ends and EC2 reclaims the instances 30 minutes before
		 * (aws/karpenter-provider-aws v1.14.1 pkg/controllers/
		 * capacityreservation/expiration/controller.go): a drain that
		 * is cut after 10m ends before EC2 pulls the instances */
		cJSON_AddStringToObject(ctx, "terminationGracePeriod", "10m");
	else if (interruption_grace(w->interruption))
		cJSON_AddStringToObject(ctx, "terminationGracePeriod",
					interruption_grace(w->interruption));
	cJSON_AddItemToObject(ctx, "disruption", disruption(p, w));
	/* in the units the nodes report: Karpenter charges the limit with
	 * Node.status.capacity, i.e. replicas or MIG instances (units.h) */
	lim = cJSON_AddObjectToObject(ctx, "limits");
	add_long_str(lim, "nvidia.com/gpu", pool->limit_gpu);
	return tmpl_append(docs, t, "nodepool", ctx, err);
}

static int render_general_pool(cJSON *docs, const struct plan *p,
			       const struct plan_pool *pool,
			       const struct tmpl_set *t, struct err *err)
{
	static const char *const cats[] = { "c", "m", "r" };
	static const char *const gen[] = { "5" };
	static const char *const spot[] = { "on-demand", "spot" };
	static const char *const amd64[] = { "amd64" };
	static const char *const linux_[] = { "linux" };
	cJSON *ctx = cJSON_CreateObject(), *nl, *req, *lim;

	cJSON_AddStringToObject(ctx, "name", pool->name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, NULL));
	cJSON_AddItemToObject(ctx, "annotations",
			      pool_annotations(p, INT_TOLERANT));
	nl = cJSON_AddObjectToObject(ctx, "nodeLabels");
	cJSON_AddStringToObject(nl, "gpuform.io/cluster", p->in->name);
	cJSON_AddStringToObject(nl, "gpuform.io/pool", pool->name);
	cJSON_AddStringToObject(ctx, "nodeClass",
				p->nodeclasses[pool->nodeclass].name);
	req = cJSON_AddArrayToObject(ctx, "requirements");
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-category",
					      "In", cats, 3));
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-generation",
					      "Gt", gen, 1));
	/* GPU count is absent, not 0, on CPU types (#2132) */
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-gpu-count",
					      "DoesNotExist", NULL, 0));
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-accelerator-count",
					      "DoesNotExist", NULL, 0));
	/* and some GPU families report 0 GPUs (#8368): name them all */
	cJSON_AddItemToArray(req, requirement("karpenter.k8s.aws/instance-family",
					      "NotIn", p->gpu_families,
					      p->ngpu_families));
	cJSON_AddItemToArray(req, requirement("karpenter.sh/capacity-type", "In",
					      spot, 2));
	cJSON_AddItemToArray(req, requirement("kubernetes.io/arch", "In", amd64, 1));
	cJSON_AddItemToArray(req, requirement("kubernetes.io/os", "In", linux_, 1));
	cJSON_AddStringToObject(ctx, "expireAfter", "720h");
	cJSON_AddStringToObject(ctx, "terminationGracePeriod", "1h");
	cJSON_AddItemToObject(ctx, "disruption", disruption(p, NULL));
	lim = cJSON_AddObjectToObject(ctx, "limits");
	cJSON_AddStringToObject(lim, "cpu", "1000");
	cJSON_AddStringToObject(lim, "memory", "4000Gi");
	return tmpl_append(docs, t, "nodepool", ctx, err);
}

/* ---- NodeOverlay ----------------------------------------------------------- */

/*
 * One NodeOverlay per shared pool and distinct per-node capacity: the
 * instance types of the pool that report `cap` nvidia.com/gpu. Karpenter
 * (v1.14.1 pkg/cloudprovider/types.go ApplyCapacityOverlay) replaces the
 * type's nvidia.com/gpu with the overlay's value; the karpenter.sh/nodepool
 * requirement scopes it to this pool (nodeoverlay/controller.go matches the
 * pool name), so pools never conflict.
 */
/* the template context of a NodeOverlay of pool for the instance types
 * types[0..n) (sorted here): its name (owned by the caller), the labels
 * and the requirements; the caller adds the capacity */
static cJSON *overlay_ctx(const struct plan *p, const struct plan_pool *pool,
			  char *name, const char **types, size_t n)
{
	const char *np[1] = { pool->name };
	cJSON *ctx = cJSON_CreateObject(), *req;

	qsort(types, n, sizeof(char *), str_cmp);
	cJSON_AddStringToObject(ctx, "name", name);
	free(name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, pool->w->name));
	req = cJSON_AddArrayToObject(ctx, "requirements");
	cJSON_AddItemToArray(req, requirement("karpenter.sh/nodepool", "In", np,
					      1));
	cJSON_AddItemToArray(req, requirement("node.kubernetes.io/instance-type",
					      "In", types, n));
	return ctx;
}

static int render_overlays(cJSON *docs, const struct plan *p,
			   const struct plan_pool *pool,
			   const struct tmpl_set *t, struct err *err)
{
	const struct units_pool *u = &pool->units;
	char done[UNITS_MAX_TYPES] = { 0 };

	if (!pool->w || pool->w->sharing == SHARE_NONE)
		return 0;
	for (size_t i = 0; i < u->ntypes; i++) {
		const char *types[UNITS_MAX_TYPES];
		size_t n = 0;
		cJSON *ctx;

		if (done[i])
			continue;
		for (size_t j = i; j < u->ntypes; j++)
			if (u->cap[j] == u->cap[i]) {
				types[n++] = u->types[j]->name;
				done[j] = 1;
			}
		ctx = overlay_ctx(p, pool,
				  xasprintf("%s-gpu-%ld", pool->name, u->cap[i]),
				  types, n);
		add_long_str(cJSON_AddObjectToObject(ctx, "capacity"),
			     "nvidia.com/gpu", u->cap[i]);
		if (tmpl_append(docs, t, "nodeoverlay", ctx, err) < 0)
			return -1;
	}
	return 0;
}

/* the pages: UNITS_BR_EFA_HUGEPAGES_MI (generator/units.h) */
static int hugepages_pool(const struct plan *p, const struct plan_pool *pool)
{
	return pool->w && pool->w->efa &&
	       p->in->ami_family == AMI_BOTTLEROCKET;
}

/*
 * The hugepages-2Mi an EFA node on Bottlerocket really has: Karpenter's AWS
 * instance types carry no hugepages capacity (aws/karpenter-provider-aws
 * v1.14.1 pkg/providers/instancetype/types.go computeCapacity) and a
 * missing resource does not fit (kubernetes-sigs/karpenter pkg/utils/
 * resources Fits), so without this overlay a pod that requests hugepages
 * (the AWS NCCL tests do) never gets a node. One overlay per vCPU count;
 * ApplyCapacityOverlay merges it beside the nvidia.com/gpu one of a shared
 * pool (a conflict is only the same resource at the same weight,
 * nodeoverlay/store.go isCapacityUpdateConflicting).
 */
static int render_hugepages_overlays(cJSON *docs, const struct plan *p,
				     const struct plan_pool *pool,
				     const struct tmpl_set *t, struct err *err)
{
	const struct units_pool *u = &pool->units;
	char done[UNITS_MAX_TYPES] = { 0 };

	if (!hugepages_pool(p, pool))
		return 0;
	for (size_t i = 0; i < u->ntypes; i++) {
		const char *types[UNITS_MAX_TYPES];
		size_t n = 0;
		cJSON *ctx;
		char qty[32];

		if (done[i])
			continue;
		for (size_t j = i; j < u->ntypes; j++)
			if (u->types[j]->vcpu == u->types[i]->vcpu) {
				types[n++] = u->types[j]->name;
				done[j] = 1;
			}
		ctx = overlay_ctx(p, pool,
				  xasprintf("%s-hugepages-%dcpu", pool->name,
					    u->types[i]->vcpu),
				  types, n);
		snprintf(qty, sizeof(qty), "%ldMi",
			 UNITS_BR_EFA_HUGEPAGES_MI(u->types[i]));
		cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "capacity"),
					"hugepages-2Mi", qty);
		if (tmpl_append(docs, t, "nodeoverlay", ctx, err) < 0)
			return -1;
	}
	return 0;
}

static int any_overlay(const struct plan *p)
{
	for (size_t i = 0; i < p->npools; i++)
		if ((p->pools[i].w && p->pools[i].w->sharing != SHARE_NONE) ||
		    hugepages_pool(p, &p->pools[i]))
			return 1;
	return 0;
}

/* ---- Kueue -------------------------------------------------------------- */

static cJSON *quota(const char *name, cJSON *value)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "name", name);
	cJSON_AddItemToObject(r, "nominalQuota", value);
	return r;
}

static int render_kueue(cJSON *docs, const struct plan *p,
			const struct plan_pool *pool,
			const struct tmpl_set *t, struct err *err)
{
	const struct workload *w = pool->w;
	cJSON *ctx, *cov, *res;
	char *mem;

	ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "name", pool->name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, w->name));
	cJSON_AddStringToObject(ctx, "pool", pool->name);
	if (tmpl_append(docs, t, "resourceflavor", ctx, err) < 0)
		return -1;

	ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "name", pool->name);
	cJSON_AddItemToObject(ctx, "labels", labels(p, w->name));
	cJSON_AddStringToObject(ctx, "namespace", w->ns);
	/* StrictFIFO keeps a large gang from starving behind small ones */
	cJSON_AddStringToObject(ctx, "queueingStrategy",
				w->type == WL_TRAINING ? "StrictFIFO"
						       : "BestEffortFIFO");
	cov = cJSON_AddArrayToObject(ctx, "coveredResources");
	res = cJSON_AddArrayToObject(ctx, "resources");
	cJSON_AddItemToArray(cov, cJSON_CreateString("cpu"));
	cJSON_AddItemToArray(res, quota("cpu", cJSON_CreateNumber((double)pool->quota_cpu)));
	cJSON_AddItemToArray(cov, cJSON_CreateString("memory"));
	mem = xasprintf("%ldGi", pool->quota_mem_gib);
	cJSON_AddItemToArray(res, quota("memory", cJSON_CreateString(mem)));
	free(mem);
	cJSON_AddItemToArray(cov, cJSON_CreateString("nvidia.com/gpu"));
	cJSON_AddItemToArray(res, quota("nvidia.com/gpu",
					cJSON_CreateNumber((double)pool->quota_gpu)));
	if (w->efa) {
		cJSON_AddItemToArray(cov, cJSON_CreateString("vpc.amazonaws.com/efa"));
		cJSON_AddItemToArray(res, quota("vpc.amazonaws.com/efa",
						cJSON_CreateNumber((double)pool->quota_efa)));
	}
	cJSON_AddStringToObject(ctx, "flavor", pool->name);
	if (tmpl_append(docs, t, "clusterqueue", ctx, err) < 0)
		return -1;

	ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "name", pool->name);
	cJSON_AddStringToObject(ctx, "namespace", w->ns);
	cJSON_AddItemToObject(ctx, "labels", labels(p, w->name));
	cJSON_AddStringToObject(ctx, "clusterQueue", pool->name);
	return tmpl_append(docs, t, "localqueue", ctx, err);
}

/* ---- NVIDIA device-plugin configs (AL2023) ------------------------------ */

static int dp_config_text(struct buf *out, long ts_replicas, struct err *err)
{
	cJSON *c = cJSON_CreateObject(), *sh, *tsl, *rs, *r;
	int ret;

	cJSON_AddStringToObject(c, "version", "v1");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(c, "flags"),
				"migStrategy", "none");
	if (ts_replicas) {
		sh = cJSON_AddObjectToObject(c, "sharing");
		tsl = cJSON_AddObjectToObject(sh, "timeSlicing");
		cJSON_AddBoolToObject(tsl, "renameByDefault", 0);
		cJSON_AddBoolToObject(tsl, "failRequestsGreaterThanOne", 1);
		rs = cJSON_AddArrayToObject(tsl, "resources");
		r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "name", "nvidia.com/gpu");
		cJSON_AddNumberToObject(r, "replicas", (double)ts_replicas);
		cJSON_AddItemToArray(rs, r);
	}
	ret = yaml_emit(out, c, err);
	cJSON_Delete(c);
	return ret;
}

static int render_device_plugin(cJSON *docs, const struct plan *p,
				const struct tmpl_set *t, struct err *err)
{
	cJSON *ctx = cJSON_CreateObject(), *data;
	struct buf b = BUF_INIT;

	cJSON_AddStringToObject(ctx, "name", DEVICE_PLUGIN_CM);
	/* the chart's config.name ConfigMap is read from the release's own
	 * namespace */
	cJSON_AddStringToObject(ctx, "namespace", p->in->dp_ns);
	cJSON_AddItemToObject(ctx, "labels", labels(p, NULL));
	data = cJSON_AddObjectToObject(ctx, "data");
	if (dp_config_text(&b, 0, err) < 0)
		goto fail;
	cJSON_AddStringToObject(data, "default", buf_cstr(&b));
	for (size_t i = 0; i < p->npools; i++) {
		const struct plan_pool *pool = &p->pools[i];
		if (!pool->share_config ||
		    cJSON_GetObjectItemCaseSensitive(data, pool->share_config))
			continue;
		buf_reset(&b);
		if (dp_config_text(&b, pool->w->ts_replicas, err) < 0)
			goto fail;
		cJSON_AddStringToObject(data, pool->share_config, buf_cstr(&b));
	}
	sort_keys(data);
	buf_release(&b);
	return tmpl_append(docs, t, "device-plugin-config", ctx, err);
fail:
	buf_release(&b);
	cJSON_Delete(ctx);
	return -1;
}

/* ---- add-ons -------------------------------------------------------------- */

static int add_addon(cJSON *addons, const struct tmpl_set *t,
		     const char *tmpl, const char *file, cJSON *ctx,
		     struct err *err)
{
	cJSON *doc;
	int r = tmpl_render(&doc, t, tmpl, ctx, err);

	cJSON_Delete(ctx);
	if (r < 0)
		return -1;
	cJSON_AddItemToObject(addons, file, doc);
	return 0;
}

/* the pods of a serving workload: the queue label selects them */
static cJSON *queue_selector(const struct workload *w)
{
	cJSON *sel = cJSON_CreateObject();

	cJSON_AddStringToObject(cJSON_AddObjectToObject(sel, "matchLabels"),
				"kueue.x-k8s.io/queue-name", w->name);
	return sel;
}

static cJSON *spread(const char *key, const struct workload *w)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddNumberToObject(c, "maxSkew", 1);
	cJSON_AddStringToObject(c, "topologyKey", key);
	/* kube-scheduler's preference; Karpenter (preferencePolicy
	 * Respect, the default) treats it as required until a pod cannot
	 * schedule, then relaxes it (kubernetes-sigs/karpenter v1.14.1
	 * pkg/controllers/provisioning/scheduling/preferences.go
	 * removeTopologySpreadScheduleAnyway) */
	cJSON_AddStringToObject(c, "whenUnsatisfiable", "ScheduleAnyway");
	cJSON_AddItemToObject(c, "labelSelector", queue_selector(w));
	return c;
}

/* PodDisruptionBudget and topology spread of a serving workload: drift,
 * consolidation and expiry drain one replica at a time, and one zone or
 * node going away takes only its share of the replicas.
 *
 * No spread over nodes on a shared pool (time-slicing, MIG): Karpenter
 * respects the ScheduleAnyway spread while it can, and every new NodeClaim
 * is a new, empty kubernetes.io/hostname domain, so with maxSkew 1 each
 * replica would get a node of its own (topology.go, topologygroup.go
 * nextDomainTopologySpread) and the pool's GPUs would never be shared.
 * The PodDisruptionBudget and the zone spread still bound what one node
 * takes down. On an unshared pool a node per replica is what Karpenter
 * picks anyway for a pod per GPU (the smallest type that fits). */
static void serving_contract(cJSON *ctx, const struct workload *w)
{
	cJSON *pdb = cJSON_AddObjectToObject(ctx, "podDisruptionBudget");
	cJSON *tsc = cJSON_AddArrayToObject(ctx, "topologySpreadConstraints");

	cJSON_AddNumberToObject(pdb, "maxUnavailable", 1);
	cJSON_AddItemToObject(pdb, "selector", queue_selector(w));
	cJSON_AddItemToArray(tsc, spread("topology.kubernetes.io/zone", w));
	if (w->sharing == SHARE_NONE)
		cJSON_AddItemToArray(tsc, spread("kubernetes.io/hostname", w));
}

/*
 * An EFA gang the intent does not pin to a zone: a required pod affinity on
 * topology.kubernetes.io/zone over the workload's own pods, so every pod of
 * the gang lands in the zone of the first (EFA traffic does not leave its
 * subnet). Karpenter v1.14.1 honours it across the NodeClaims it creates
 * for the pending pods (pkg/controllers/provisioning/scheduling/
 * topologygroup.go nextDomainAffinity; topology_test.go "should respect
 * self pod affinity (zone)"). matchLabelKeys gpuform.io/gang: when the job
 * sets that label to a value of its own, the API server adds it to the
 * selector (Kubernetes >= 1.31, MatchLabelKeysInPodAffinity), so each gang
 * picks its zone; without it every running gang of the workload shares the
 * zone of the first (docs/placement-and-resilience.md).
 */
/*
 * What NCCL needs in a multi-GPU or EFA pod: /dev/shm as a memory-backed
 * emptyDir (the container runtime gives 64 MiB, NCCL's shared-memory
 * transport between the pod's GPUs needs far more; it counts against the
 * pod's memory), and the libfabric provider for EFA (FI_PROVIDER=efa), with
 * GPUDirect RDMA where every type of the pool has it (P4d and later: the
 * p families; aws-samples/awsome-distributed-training micro-benchmarks/
 * nccl-tests sets FI_EFA_USE_DEVICE_RDMA=1 on them)
 */
static void contract_runtime(cJSON *ctx, const struct plan_pool *pool)
{
	const struct workload *w = pool->w;

	if (w->gpus_per_pod > 1) {
		cJSON *shm = cJSON_AddObjectToObject(ctx, "shm");
		cJSON_AddStringToObject(shm, "mountPath", "/dev/shm");
		cJSON_AddStringToObject(
			cJSON_AddObjectToObject(shm, "emptyDir"), "medium",
			"Memory");
	}
	if (w->efa) {
		cJSON *env = cJSON_AddObjectToObject(ctx, "env");
		int rdma = pool->units.ntypes > 0;

		for (size_t i = 0; i < pool->units.ntypes; i++)
			rdma &= pool->units.types[i]->family[0] == 'p';
		cJSON_AddStringToObject(env, "FI_PROVIDER", "efa");
		if (rdma)
			cJSON_AddStringToObject(env, "FI_EFA_USE_DEVICE_RDMA",
						"1");
	}
}

static void gang_zone_affinity(cJSON *ctx, const struct workload *w)
{
	cJSON *term, *keys;

	if (!w->efa || w->gang <= 1 || w->nzones)
		return;
	term = cJSON_CreateObject();
	cJSON_AddItemToObject(term, "labelSelector", queue_selector(w));
	keys = cJSON_AddArrayToObject(term, "matchLabelKeys");
	cJSON_AddItemToArray(keys, cJSON_CreateString("gpuform.io/gang"));
	cJSON_AddStringToObject(term, "topologyKey",
				"topology.kubernetes.io/zone");
	cJSON_AddItemToArray(
		cJSON_AddArrayToObject(
			cJSON_AddObjectToObject(
				cJSON_AddObjectToObject(ctx, "affinity"),
				"podAffinity"),
			"requiredDuringSchedulingIgnoredDuringExecution"),
		term);
}

/* the pod contract of a GPU workload's pool (addons/pod-contract-W.yaml) */
static int render_contract(cJSON *addons, const struct plan_pool *pool,
			   const struct tmpl_set *t, struct err *err)
{
	const struct workload *w = pool->w;
	cJSON *ctx, *l, *res, *req;
	char *file;
	int r;

	ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "name", w->name);
	cJSON_AddStringToObject(ctx, "namespace", w->ns);
	cJSON_AddNumberToObject(ctx, "gang", (double)w->gang);
	l = cJSON_AddObjectToObject(ctx, "labels");
	cJSON_AddStringToObject(l, "kueue.x-k8s.io/priority-class",
				priority_names[w->type]);
	cJSON_AddStringToObject(l, "kueue.x-k8s.io/queue-name", w->name);
	/* batch pods of an uninterruptible pool hold their node
	 * (drift waits for them: no terminationGracePeriod); serving
	 * pods never do — a long-running Deployment would pin its
	 * nodes forever — they roll under a PodDisruptionBudget and
	 * spread over zones and nodes instead */
	if (w->interruption == INT_NONE && w->type != WL_INFERENCE)
		cJSON_AddStringToObject(
			cJSON_AddObjectToObject(ctx, "annotations"),
			"karpenter.sh/do-not-disrupt", "true");
	if (w->type == WL_INFERENCE)
		serving_contract(ctx, w);
	gang_zone_affinity(ctx, w);
	contract_runtime(ctx, pool);
	/* a spot pool: EC2 reclaims the node 2 minutes after the
	 * interruption notice; 90s leaves time for the notice to
	 * reach Karpenter (SQS) and the drain to start (lint
	 * GPU024 checks pods against it) */
	if (pool->spot)
		cJSON_AddNumberToObject(ctx,
					"terminationGracePeriodSeconds",
					POD_SPOT_GRACE_S);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(ctx, "nodeSelector"),
				"gpuform.io/pool", pool->name);
	res = cJSON_AddObjectToObject(ctx, "resources");
	cJSON_AddNumberToObject(res, "nvidia.com/gpu",
				(double)w->gpus_per_pod);
	if (w->efa)
		cJSON_AddNumberToObject(res, "vpc.amazonaws.com/efa",
					(double)pool->efa_per_pod);
	/* requests == limits, as Kubernetes requires of hugepages; the pages
	 * are there by the hugepages NodeOverlay (validate: EFA on
	 * Bottlerocket, within every type's pages per pod). The requests
	 * also carry memory as large as the pages (a floor, no limit): the
	 * API server refuses a container with hugepages and neither cpu nor
	 * memory ("HugePages require cpu or memory", kubernetes
	 * pkg/apis/core/validation ValidateResourceRequirements; tests/kueue.sh
	 * met it creating the Job); memory is in the ClusterQueue's covered
	 * resources */
	req = NULL;
	if (w->hugepages_mi) {
		char qty[32];
		snprintf(qty, sizeof(qty), "%ldMi", w->hugepages_mi);
		cJSON_AddStringToObject(res, "hugepages-2Mi", qty);
		req = cJSON_Duplicate(res, 1);
		cJSON_AddStringToObject(req, "memory", qty);
	}
	cJSON_AddItemToObject(ctx, "requests",
			      req ? req : cJSON_Duplicate(res, 1));
	file = xasprintf("pod-contract-%s.yaml", w->name);
	r = add_addon(addons, t, "pod-contract", file, ctx, err);
	free(file);
	return r;
}

/* some workload's pool launches only reserved capacity and waits for it */
static int any_waits(const struct plan *p)
{
	for (size_t i = 0; i < p->npools; i++)
		if (p->pools[i].w && p->pools[i].w->capacity &&
		    p->pools[i].w->cap_fallback == CAPF_WAIT)
			return 1;
	return 0;
}

static int render_addons(cJSON *addons, const struct plan *p,
			 const struct tmpl_set *t, struct err *err)
{
	const struct intent *in = p->in;
	cJSON *ctx, *env;
	struct buf b = BUF_INIT;
	int any_gpu = 0;

	ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "cluster", in->name);
	/* see plan.h: on when some spot pool's nodes can be replaced by
	 * cheaper spot nodes; it then acts on every spot pool, within each
	 * pool's Underutilized budgets */
	cJSON_AddBoolToObject(ctx, "spotToSpotConsolidation", p->spot_to_spot);
	/* the NodeOverlays are ignored unless the gate is on (Karpenter
	 * v1.14.1 chart: settings.featureGates.nodeOverlay, default false) */
	cJSON_AddBoolToObject(ctx, "nodeOverlay", any_overlay(p));
	for (size_t i = 0; i < p->npools; i++)
		if (p->pools[i].w && p->pools[i].w->capacity) {
			cJSON_AddBoolToObject(ctx, "reservedCapacity", 1);
			break;
		}
	/* Karpenter v1.14.1 chart: settings.featureGates.nodeRepair, default
	 * false (alpha); see docs/placement-and-resilience.md */
	cJSON_AddBoolToObject(ctx, "nodeRepair", p->node_repair);
	if (add_addon(addons, t, "karpenter-values", "karpenter-values.yaml",
		      ctx, err) < 0)
		return -1;
	/* node repair acts on the EKS node monitoring agent's conditions: its
	 * values, with the GPU toleration its DCGM DaemonSet lacks (chart
	 * aws/eks-node-monitoring-agent 1.7.0 values.yaml: dcgmAgent.
	 * tolerations: []) */
	if (p->node_repair &&
	    add_addon(addons, t, "eks-node-monitoring-agent-values",
		      "eks-node-monitoring-agent-values.yaml",
		      cJSON_CreateObject(), err) < 0)
		return -1;

	ctx = cJSON_CreateObject();
	window_format_duration(p->wait_for_pods_ready_min, &b);
	cJSON_AddStringToObject(ctx, "timeout", buf_cstr(&b));
	/* a gang that waits for reserved capacity (a Capacity Block, or
	 * whenExhausted: wait) is admitted before its capacity exists — a
	 * block is invisible to Karpenter until it is active (aws/karpenter-
	 * provider-aws v1.14.1 pkg/providers/capacityreservation/types.go) —
	 * and evicted at every timeout; after backoffLimitCount requeues Kueue
	 * deactivates it (apis/config/v1beta2 configuration_types.go
	 * BackoffLimitCount), the opposite of waiting. Null: requeued until
	 * it starts (every hour at most, backoffMaxSeconds) */
	if (!any_waits(p))
		cJSON_AddNumberToObject(ctx, "backoffLimitCount", 5);
	{
		cJSON *conf, *vals;
		buf_reset(&b);
		if (tmpl_render(&conf, t, "kueue-configuration", ctx, err) < 0 ||
		    yaml_emit(&b, conf, err) < 0) {
			cJSON_Delete(ctx);
			buf_release(&b);
			return -1;
		}
		cJSON_Delete(conf);
		cJSON_Delete(ctx);
		vals = cJSON_CreateObject();
		cJSON_AddStringToObject(vals, "configuration", buf_cstr(&b));
		if (add_addon(addons, t, "kueue-values", "kueue-values.yaml",
			      vals, err) < 0) {
			buf_release(&b);
			return -1;
		}
	}
	buf_release(&b);

	ctx = cJSON_CreateObject();
	env = cJSON_AddObjectToObject(ctx, "env");
	cJSON_AddStringToObject(env, "ENABLE_PREFIX_DELEGATION",
				in->prefix_delegation ? "true" : "false");
	if (in->prefix_delegation)
		cJSON_AddStringToObject(env, "WARM_PREFIX_TARGET", "1");
	if (add_addon(addons, t, "vpc-cni", "vpc-cni.yaml", ctx, err) < 0)
		return -1;

	for (size_t i = 0; i < p->npools; i++)
		any_gpu |= p->pools[i].w != NULL;
	if (p->any_efa) {
		const struct catalog *cat = catalog_builtin();
		const char *types[256];
		size_t n = 0;
		for (size_t i = 0; i < p->npools; i++) {
			const struct plan_pool *pool = &p->pools[i];
			if (!pool->w || !pool->w->efa)
				continue;
			for (size_t f = 0; f < pool->nfams; f++) {
				const struct cat_type *ty;
				size_t nt = catalog_types_of(cat, pool->fams[f]->name, &ty);
				for (size_t j = 0; j < nt && n < 256; j++) {
					int seen = 0;
					if (!ty[j].efa)
						continue;
					for (size_t k = 0; k < n; k++)
						seen |= !strcmp(types[k], ty[j].name);
					if (!seen)
						types[n++] = ty[j].name;
				}
			}
		}
		ctx = cJSON_CreateObject();
		cJSON_AddItemToObject(ctx, "instanceTypes", str_array(types, n));
		if (add_addon(addons, t, "efa-device-plugin-values",
			      "efa-device-plugin-values.yaml", ctx, err) < 0)
			return -1;
	}
	if (p->al2023 && any_gpu) {
		ctx = cJSON_CreateObject();
		cJSON_AddStringToObject(ctx, "configMap", DEVICE_PLUGIN_CM);
		if (add_addon(addons, t, "nvidia-device-plugin-values",
			      "nvidia-device-plugin-values.yaml", ctx, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < p->npools; i++)
		if (p->pools[i].w &&
		    render_contract(addons, &p->pools[i], t, err) < 0)
			return -1;
	return 0;
}

/* ---- ordering and top level ---------------------------------------------- */

int render_doc_cmp(const cJSON *a, const cJSON *b)
{
	const char *ka = json_text_at(a, "kind", NULL);
	const char *kb = json_text_at(b, "kind", NULL);
	int ra = kobj_kind_rank(ka), rb = kobj_kind_rank(kb), c;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if ((c = strcmp(ka, kb)))
		return c;
	if ((c = strcmp(json_text_at(a, "metadata", "namespace"),
			json_text_at(b, "metadata", "namespace"))))
		return c;
	return strcmp(json_text_at(a, "metadata", "name"),
		      json_text_at(b, "metadata", "name"));
}

static int doc_qsort_cmp(const void *a, const void *b)
{
	return render_doc_cmp(*(const cJSON *const *)a,
			      *(const cJSON *const *)b);
}

static void sort_docs(cJSON *docs)
{
	sort_children(docs, doc_qsort_cmp);
}

int render_plan(struct rendered *out, const struct plan *p,
		const struct tmpl_set *t, struct err *err)
{
	struct rendered r = RENDERED_INIT;

	r.cluster = xstrdup(p->in->name);
	r.docs = cJSON_CreateArray();
	r.addons = cJSON_CreateObject();

	for (size_t i = 0; i < p->nnamespaces; i++) {
		cJSON *ctx = cJSON_CreateObject();
		cJSON_AddStringToObject(ctx, "name", p->namespaces[i]);
		cJSON_AddItemToObject(ctx, "labels", labels(p, NULL));
		if (tmpl_append(r.docs, t, "namespace", ctx, err) < 0)
			goto fail;
	}
	for (size_t i = 0; i < p->nnodeclasses; i++)
		if (render_nodeclass(r.docs, p, &p->nodeclasses[i], t, err) < 0)
			goto fail;
	for (size_t i = 0; i < p->npools; i++) {
		const struct plan_pool *pool = &p->pools[i];
		if (pool->w ? render_gpu_pool(r.docs, p, pool, t, err) < 0 ||
				      render_overlays(r.docs, p, pool, t, err) < 0 ||
				      render_hugepages_overlays(r.docs, p, pool, t,
								err) < 0 ||
				      render_kueue(r.docs, p, pool, t, err) < 0
			    : render_general_pool(r.docs, p, pool, t, err) < 0)
			goto fail;
	}
	for (int ty = 0; ty < 3; ty++) {
		cJSON *ctx;
		if (!p->types_used[ty])
			continue;
		ctx = cJSON_CreateObject();
		cJSON_AddStringToObject(ctx, "name", priority_names[ty]);
		cJSON_AddItemToObject(ctx, "labels", labels(p, NULL));
		cJSON_AddNumberToObject(ctx, "value", priority_values[ty]);
		cJSON_AddStringToObject(ctx, "description", priority_desc[ty]);
		if (tmpl_append(r.docs, t, "workloadpriorityclass", ctx, err) < 0)
			goto fail;
	}
	if (p->al2023 && p->npools > (p->in->general ? 1u : 0u) &&
	    render_device_plugin(r.docs, p, t, err) < 0)
		goto fail;
	if (render_addons(r.addons, p, t, err) < 0)
		goto fail;
	delivery_render(r.docs, r.addons, p->in);
	sort_docs(r.docs);
	/* what gpuform writes must pass the CRDs' CEL rules too (an API
	 * server without CEL would not say so; --templates can break them) */
	{
		struct diags d = DIAGS_INIT;
		const cJSON *doc;
		cJSON_ArrayForEach(doc, r.docs)
		{
			struct buf where = BUF_INIT;
			render_object_file(doc, RENDER_YAML, &where);
			check_object(doc, buf_cstr(&where), &d);
			buf_release(&where);
		}
		if (d.errors) {
			struct buf msg = BUF_INIT;
			diags_format(&d, &msg);
			err_set(err, ERR_INVALID,
				"the rendered objects break CRD rules (check "
				"--templates overrides):\n%s",
				buf_cstr(&msg));
			buf_release(&msg);
			diags_release(&d);
			goto fail;
		}
		diags_release(&d);
	}
	*out = r;
	return 0;
fail:
	rendered_release(&r);
	return -1;
}

void rendered_release(struct rendered *r)
{
	free(r->cluster);
	cJSON_Delete(r->docs);
	cJSON_Delete(r->addons);
	r->cluster = NULL;
	r->docs = r->addons = NULL;
}

/* ---- output ------------------------------------------------------------ */

static int emit_one(struct buf *out, const cJSON *doc, enum render_format f,
		    struct err *err)
{
	if (f == RENDER_JSON) {
		char *s = cJSON_Print(doc);
		if (!s)
			return err_set(err, ERR_INTERNAL, "cannot print JSON");
		buf_adds(out, s);
		buf_addc(out, '\n');
		cJSON_free(s);
		return 0;
	}
	return yaml_emit(out, doc, err);
}

int render_stream(struct buf *out, const struct rendered *r,
		  enum render_format f, struct err *err)
{
	const cJSON *doc;
	int first = 1;

	if (f == RENDER_JSON) {
		cJSON *list = cJSON_CreateObject();
		int ret;
		cJSON_AddStringToObject(list, "apiVersion", "v1");
		cJSON_AddStringToObject(list, "kind", "List");
		cJSON_AddItemToObject(list, "items", cJSON_Duplicate(r->docs, 1));
		ret = emit_one(out, list, f, err);
		cJSON_Delete(list);
		return ret;
	}
	cJSON_ArrayForEach(doc, r->docs)
	{
		if (!first)
			buf_adds(out, "---\n");
		first = 0;
		if (yaml_emit(out, doc, err) < 0)
			return -1;
	}
	return 0;
}

void render_object_file(const cJSON *doc, enum render_format f,
			struct buf *out)
{
	for (const char *k = json_text_at(doc, "kind", NULL); *k; k++)
		buf_addc(out, (char)tolower((unsigned char)*k));
	buf_addf(out, "-%s.%s", json_text_at(doc, "metadata", "name"),
		 f == RENDER_JSON ? "json" : "yaml");
}

int render_tree(struct fs_tree *out, const struct rendered *r,
		const char *prefix, const struct tmpl_set *t,
		enum render_format f, struct err *err)
{
	const cJSON *doc;
	cJSON *ctx, *res, *kust;
	struct buf name = BUF_INIT, body = BUF_INIT;
	int ret = -1;

	ctx = cJSON_CreateObject();
	res = cJSON_AddArrayToObject(ctx, "resources");
	cJSON_ArrayForEach(doc, r->docs)
	{
		buf_reset(&name);
		buf_reset(&body);
		buf_adds(&name, prefix);
		render_object_file(doc, f, &name);
		cJSON_AddItemToArray(res, cJSON_CreateString(buf_cstr(&name) +
							     strlen(prefix)));
		if (emit_one(&body, doc, f, err) < 0)
			goto out;
		{
			size_t len;
			char *data = buf_detach(&body, &len);
			fs_tree_add(out, buf_cstr(&name), data, len);
		}
	}
	cJSON_ArrayForEach(doc, r->addons)
	{
		char *path = xasprintf("%saddons/%s", prefix, doc->string);
		size_t len;
		char *data;
		buf_reset(&body);
		if (yaml_emit(&body, doc, err) < 0) {
			free(path);
			goto out;
		}
		data = buf_detach(&body, &len);
		fs_tree_add(out, path, data, len);
		free(path);
	}
	/* two objects must never map to one file (checked once, sorted) */
	fs_tree_sort(out);
	for (size_t i = 1; i < out->nr; i++)
		if (!strcmp(out->files[i].path, out->files[i - 1].path)) {
			err_set(err, ERR_INTERNAL,
				"two objects map to the file '%s'",
				out->files[i].path);
			goto out;
		}
	if (tmpl_render(&kust, t, "kustomization", ctx, err) < 0)
		goto out;
	buf_reset(&body);
	buf_adds(&body, RENDER_OWNER_PREFIX "; do not edit (regenerate with "
					    "'gpuform render --output-dir')\n");
	if (yaml_emit(&body, kust, err) < 0) {
		cJSON_Delete(kust);
		goto out;
	}
	cJSON_Delete(kust);
	{
		char *path = xasprintf("%s%s", prefix, RENDER_OWNER_FILE);
		size_t len;
		char *data = buf_detach(&body, &len);
		fs_tree_add(out, path, data, len);
		free(path);
	}
	ret = 0;
out:
	cJSON_Delete(ctx);
	buf_release(&name);
	buf_release(&body);
	return ret;
}

int render_format_parse(const char *name, enum render_format *out)
{
	if (!strcmp(name, "yaml"))
		*out = RENDER_YAML;
	else if (!strcmp(name, "json"))
		*out = RENDER_JSON;
	else
		return -1;
	return 0;
}
