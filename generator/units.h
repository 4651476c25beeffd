/*
 * generator/units.h: GPU units under sharing, the one arithmetic that plan
 * (NodePool limits, Kueue quotas), validate (gangs, pod density) and lint
 * (GPU014, GPU015) share. docs/gpu-semantics.md works an example.
 *
 * Three units meet here:
 *   - physical GPUs: what the intent's maxGpus counts and what AWS bills;
 *   - Karpenter's units: a NodePool's limits.nvidia.com/gpu is charged with
 *     Node.status.capacity (kubernetes-sigs/karpenter, pkg/controllers/
 *     state/cluster.go updateNodePoolResources), which with time-slicing or
 *     MIG is what the device plugin advertises: replicas or MIG instances
 *     per GPU (kubernetes-sigs/karpenter#729, #2140);
 *   - the units pods request, which Kueue's quota counts: the same
 *     schedulable nvidia.com/gpu.
 * With a NodeOverlay per instance type (rendered for every shared pool),
 * Karpenter's model of an instance type's capacity agrees with what the
 * node reports, so one number per type, `cap`, describes both.
 *
 * Pure: no I/O, no allocation.
 */
#ifndef GENERATOR_UNITS_H
#define GENERATOR_UNITS_H

#include <stddef.h>

#include "generator/catalog.h"
#include "generator/intent.h"

/* kubelet maxPods gpuform sets when VPC CNI prefix delegation is on
 * (EC2NodeClass spec.kubelet.maxPods; Karpenter's own number is the
 * ENI-limited one and does not know about prefixes) */
#define UNITS_PD_MAX_PODS 110
/* pods on every GPU node that are not the workload's: aws-node, kube-proxy,
 * the NVIDIA and EFA device plugins, the EBS CSI node, one monitoring
 * agent. An assumption, stated in docs/gpu-semantics.md. */
#define UNITS_SYSTEM_PODS 6
/* instance types one pool can hold: at least the whole catalog (a unit
 * test checks it; more is a BUG) — kept small, every plan_pool has one */
#define UNITS_MAX_TYPES 64
/* Bottlerocket reserves vm/nr_hugepages = 110 x vCPUs of 2 MiB pages when
 * an EFA device is attached (bottlerocket-core-kit sources/api/corndog
 * compute_hugepages_for_efa, HUGEPAGES_2MB_PER_CORE; from v1.28.0, which
 * validate requires for EFA): the hugepages-2Mi capacity of the NodeOverlays
 * render gives EFA pools on Bottlerocket, and what validate lets a pod
 * request (hugepages2Mi) */
#define UNITS_BR_EFA_HUGEPAGES_PER_VCPU 110
#define UNITS_BR_EFA_HUGEPAGES_MI(t) \
	((long)(t)->vcpu * UNITS_BR_EFA_HUGEPAGES_PER_VCPU * 2)

/* one instance type as a pool's scheduling sees it */
struct units_node {
	long cap;  /* nvidia.com/gpu a node reports (Karpenter's units) */
	long pods; /* pods of the workload (per_pod units each) it holds */
};

/*
 * units_per_gpu: schedulable nvidia.com/gpu per physical GPU of family f:
 * 1 without sharing, the replicas with time-slicing, the MIG instances of
 * the profile on f's GPU model (0 when that model has no such profile).
 */
long units_per_gpu(const struct cat_family *f, enum sharing_mode sh,
		   long replicas, const char *mig_profile);

/*
 * units_pod_slots: pods of workloads a node of type t can run: its max
 * pods (UNITS_PD_MAX_PODS with prefix delegation, or max_pods_override
 * when > 0, else the ENI limit) less UNITS_SYSTEM_PODS; 0 if unknown.
 */
long units_pod_slots(const struct cat_type *t, int prefix_delegation,
		     long max_pods_override);

/*
 * units_efa_share: EFA devices a pod of gpus_per_pod GPUs gets on type t
 * when it takes its share of the node's: efa x gpus_per_pod / GPUs, at
 * least 1; 0 when t has no EFA.
 */
long units_efa_share(const struct cat_type *t, long gpus_per_pod);

/* units_node_of: cap = gpus * per_gpu; pods = min(cap / per_pod, slots) */
struct units_node units_node_of(long gpus, long per_gpu, long per_pod,
				long slots);

/*
 * units_launchable: how many pods, each needing per_pod units, Karpenter
 * is sure to launch nodes for under a NodePool limit of `limit` units,
 * when the pool may launch the types `n`.
 *
 * The model is Karpenter's provisioning scheduler in one batch
 * (kubernetes-sigs/karpenter v1.14.1, pkg/controllers/provisioning/
 * scheduling/scheduler.go): instance types whose capacity exceeds the
 * remaining limit are filtered out (filterByRemainingResources); a new
 * NodeClaim takes as many pending pods as its best remaining type holds,
 * and the remaining limit drops by the largest capacity among the types
 * still able to hold them (subtractMax). When no type fits the rest of the
 * limit, the remaining pods stay Pending. Each step lowers the remaining
 * limit, so the loop ends; steps with the same choice are taken at once.
 */
long units_launchable(const struct units_node *n, size_t nn, long limit);

/* the launch arithmetic of one GPU workload's pool */
struct units_pool {
	const struct cat_type *types[UNITS_MAX_TYPES]; /* it may launch */
	long cap[UNITS_MAX_TYPES];                     /* per type */
	size_t ntypes;
	/* types of its families left out only because their pods do not fit
	 * (replicas x GPUs + system pods > max pods) */
	const struct cat_type *dense[UNITS_MAX_TYPES];
	long dense_need[UNITS_MAX_TYPES], dense_slots[UNITS_MAX_TYPES];
	size_t ndense;
	/* EFA workloads: a pod's share of a node's EFA devices (EFA x
	 * gpusPerPod / GPUs, at least 1) must be the same on every type,
	 * because one vpc.amazonaws.com/efa request serves them all; the
	 * types whose share is smaller than the largest are left out here
	 * (docs/placement-and-resilience.md, "One EFA request per pool") */
	long efa_share; /* the share of every type kept; 0 without EFA */
	const struct cat_type *efa_out[UNITS_MAX_TYPES];
	long efa_out_share[UNITS_MAX_TYPES];
	size_t nefa_out;
	long per_gpu_min; /* smallest units per GPU over its types */
	long limit;       /* NodePool limits.nvidia.com/gpu (Karpenter units) */
	long launchable;  /* pods of gpusPerPod units launchable under it */
	long quota;       /* Kueue nominalQuota: gpusPerPod * launchable,
			     at most limit */
};

/*
 * units_plan_pool: for a workload and the families it may use (from
 * validate_families), the types it may launch and the limit and quota.
 * limit = maxGpus x per_gpu_min, so however the nodes mix, they hold at
 * most maxGpus physical GPUs; quota = what can be launched under it.
 * Returns the number of types (0: none fits; see ndense).
 */
size_t units_plan_pool(struct units_pool *out, const struct workload *w,
		       const struct cat_family *const *fams, size_t nfams,
		       const struct catalog *cat, int prefix_delegation);

#endif
