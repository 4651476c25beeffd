/*
 * generator/lint_rules.c: the rule table of `gpuform lint` — stable ids,
 * default severities and the `gpuform explain` texts. The checks themselves
 * are in lint.c. Ids never change meaning; retired rules keep their id.
 */
#include "generator/lint.h"

#include "generator/intent.h"

#include <string.h>
#include <strings.h>

const char *const lint_severity_names[] = { "error", "warning", "info",
					    NULL };

/* the GPU rules in the order of enum rule_idx (generator/lint_int.h), the
 * index the checks report by; tests/unit/test_lint.c checks both */
const struct lint_rule lint_rules[] = {
	{ "GPU001", "single-instance-choice", LINT_WARNING,
	  "GPU NodePool limited to one instance type or family where its GPU "
	  "class offers more",
	  "Why: a NodePool that can launch exactly one instance type (or one\n"
	  "family) fails whenever EC2 has no capacity for it in the chosen\n"
	  "zones (InsufficientInstanceCapacity), and big GPU types run out\n"
	  "often (aws/karpenter-provider-aws#1233, #6168). On spot it is worse:\n"
	  "one type means one spot pool, frequent interruptions, and\n"
	  "Karpenter's spot-to-spot consolidation needs 15 candidate types.\n"
	  "Fix: allow every family and size of the GPU class that fits the\n"
	  "pods, e.g. instance-family In [p5e, p5en] for H200, or g5 sizes\n"
	  "12xlarge and 24xlarge for 4 x A10G, and narrow with\n"
	  "instance-gpu-count Gt N-1 instead of naming one type. gpuform\n"
	  "renders the whole class (see README 'What is rendered').\n" },
	{ "GPU002", "ami-unpinned", LINT_ERROR,
	  "EC2NodeClass AMI not pinned (@latest alias, no version, or a "
	  "moving selector)",
	  "Why: Karpenter hashes the resolved AMI into every node; when\n"
	  "'al2023@latest' or a wildcard name/tag/SSM selector resolves to a\n"
	  "new release, every node of every NodePool using the class drifts and\n"
	  "is replaced — a multi-day training run dies, and the NVIDIA driver\n"
	  "(e.g. 570 -> 580) changes under the workloads. Upstream discourages\n"
	  "@latest in production (Karpenter EC2NodeClass docs, amiSelectorTerms).\n"
	  "Fix: pin the alias, e.g. 'alias: al2023@v20250505' or\n"
	  "'alias: bottlerocket@v1.38.0', or select one AMI by 'id'; bump it\n"
	  "deliberately, inside a maintenance window.\n" },
	{ "GPU003", "gpu-family-allowlist", LINT_ERROR,
	  "GPU NodePool without an explicit instance-family allow-list, or "
	  "allowing families that misreport their GPU count",
	  "Why: EC2 reports 0 GPUs for g6f/gr6f (fractional L4) and did so for\n"
	  "p5.4xlarge (aws/karpenter-provider-aws#8368); a pod asking for one\n"
	  "GPU landed on a quarter GPU in production (#8324), nvidia.com/gpu\n"
	  "limits can be overshot, and 'instance-gpu-count DoesNotExist' does\n"
	  "not exclude them. A GPU pool selected only by gpu-name, gpu-count\n"
	  "or category can also pick up new families nobody reviewed.\n"
	  "Fix: add 'karpenter.k8s.aws/instance-family In [...]' listing the\n"
	  "families of the GPU class (g5, g6, g6e, p4d, p4de, p5, p5e, p5en,\n"
	  "p6-b200, ...), never g6f or gr6f.\n" },
	{ "GPU004", "general-pool-gpu-families", LINT_WARNING,
	  "general-purpose NodePool can launch GPU instances or families that "
	  "misreport their GPU count",
	  "Why: a NodePool without a GPU taint or GPU requirement serves every\n"
	  "pending pod; if its requirements do not exclude GPU families,\n"
	  "Karpenter may pick a g/p instance for CPU pods when it is the\n"
	  "cheapest fit, and g6f/gr6f report 0 GPUs so\n"
	  "'instance-gpu-count DoesNotExist' does not keep them out\n"
	  "(aws/karpenter-provider-aws#8368, #2132).\n"
	  "Fix: restrict categories ('instance-category In [c, m, r]'), or add\n"
	  "'instance-gpu-count DoesNotExist' together with\n"
	  "'instance-family NotIn [g4dn, g5, g6, g6e, g6f, gr6f, p3, p3dn, p4d,\n"
	  "p4de, p5, p5e, p5en, p6-b200]' as gpuform's general pool does.\n" },
	{ "GPU005", "efa-security-group", LINT_WARNING,
	  "EFA node class without an explicit security-group term for the "
	  "self-referencing EFA group",
	  "Why: EFA traffic needs a security group that allows all protocols\n"
	  "inbound and outbound to and from itself. Groups selected only by a\n"
	  "discovery tag are usually the node group, which lacks the\n"
	  "self-reference; NCCL over EFA then hangs or falls back to TCP\n"
	  "(AWS EFA user guide: an EFA-enabled security group).\n"
	  "Fix: add a securityGroupSelectorTerms entry with the 'id' (or\n"
	  "'name') of a group that allows all traffic to and from itself; in an\n"
	  "intent, set spec.network.efaSecurityGroup.\n" },
	{ "GPU006", "efa-instance-types", LINT_ERROR,
	  "EFA requested but the pool offers no instance type with that many "
	  "EFA interfaces",
	  "Why: pods requesting vpc.amazonaws.com/efa stay Pending when none\n"
	  "of the instance types they can land on has EFA (g5/g6 below 8xlarge,\n"
	  "p3 have none) or has fewer interfaces than requested (p5.48xlarge 32,\n"
	  "p5en 16, p4d 4, p6-b200 8; Karpenter instance-type reference).\n"
	  "An EC2NodeClass with static EFA networkInterfaces fails to launch\n"
	  "every instance type of its pools that has fewer EFA interfaces.\n"
	  "Fix: allow only EFA-capable families and sizes in the NodePool\n"
	  "(e.g. instance-size In [8xlarge, ...] for g5/g6/g6e), or lower the\n"
	  "request to what the instance types have.\n" },
	{ "GPU007", "device-plugin-toleration", LINT_ERROR,
	  "EFA or NVIDIA device plugin without a toleration for the GPU taint",
	  "Why: GPU NodePools are tainted nvidia.com/gpu:NoSchedule. The\n"
	  "aws-efa-k8s-device-plugin chart ships empty tolerations, so its\n"
	  "DaemonSet never runs on GPU nodes; the EFA resource never appears and\n"
	  "Karpenter never marks the node initialised (aws/eks-charts\n"
	  "aws-efa-k8s-device-plugin values; aws/karpenter-provider-aws#1914).\n"
	  "Fix: add 'tolerations: [{key: nvidia.com/gpu, operator: Exists,\n"
	  "effect: NoSchedule}]' to the DaemonSet or the chart values.\n" },
	{ "GPU008", "time-slicing-inference", LINT_WARNING,
	  "production inference on time-sliced GPUs (no memory or fault "
	  "isolation); prefer MIG",
	  "Why: time-slicing gives every replica the whole GPU memory and no\n"
	  "fault isolation: one model's OOM or Xid error takes down its\n"
	  "neighbours, and latency depends on them (NVIDIA k8s-device-plugin\n"
	  "README, shared access to GPUs).\n"
	  "Fix: on A100/H100/H200/B200 use MIG ('sharing: {mig: 1g.10gb}' in an\n"
	  "intent, or a MIG device-plugin config) for isolated slices; on\n"
	  "T4/A10G/L4/L40S give production inference whole GPUs and keep\n"
	  "time-slicing for dev and batch pools.\n" },
	{ "GPU009", "do-not-disrupt-missing", LINT_ERROR,
	  "pods of an uninterruptible pool (or a GPU gang) lack "
	  "karpenter.sh/do-not-disrupt",
	  "Why: without 'karpenter.sh/do-not-disrupt: \"true\"' on the pods,\n"
	  "Karpenter consolidation and drift may drain a node under a running\n"
	  "gang; Kueue's waitForPodsReady then evicts and requeues the whole\n"
	  "gang (Karpenter disruption docs). Budgets on the NodePool are not\n"
	  "enough when the pool is shared.\n"
	  "Fix: add the annotation to the pod template (for Jobs, JobSets and\n"
	  "PyTorchJobs: every replica's template), as the intent's pod contract\n"
	  "(addons/pod-contract-<workload>.yaml) lists.\n" },
	{ "GPU010", "kueue-queue-name", LINT_ERROR,
	  "GPU job without a kueue.x-k8s.io/queue-name label, or naming a "
	  "LocalQueue that does not exist",
	  "Why: a job without the queue-name label bypasses Kueue: no quota,\n"
	  "no gang admission, and it grabs GPUs other teams were promised. A\n"
	  "label naming a missing LocalQueue leaves the job suspended forever.\n"
	  "Fix: label the job 'kueue.x-k8s.io/queue-name: <LocalQueue>' with a\n"
	  "LocalQueue of its namespace (gpuform names it after the workload).\n" },
	{ "GPU011", "gpu-toleration-missing", LINT_ERROR,
	  "GPU pods without the toleration for the GPU pool's taint",
	  "Why: GPU NodePools are tainted (nvidia.com/gpu=true:NoSchedule) so\n"
	  "CPU pods stay off expensive nodes; a GPU pod without the toleration\n"
	  "never schedules there, and Karpenter may keep launching nodes for\n"
	  "it.\n"
	  "Fix: add 'tolerations: [{key: nvidia.com/gpu, operator: Exists,\n"
	  "effect: NoSchedule}]' to the pod template, as the pod contract lists\n"
	  "(Kueue also injects its ResourceFlavor's tolerations on admission).\n" },
	{ "GPU012", "gpus-exceed-instance", LINT_ERROR,
	  "pod requests more GPUs than any instance type it can land on has",
	  "Why: a pod must fit on one node; asking for 16 GPUs when the\n"
	  "largest type of the pool has 8 keeps it Pending forever (no EC2 GPU\n"
	  "instance has more than 8 GPUs).\n"
	  "Fix: request at most the GPUs of one instance (8 on p4d/p5/p5e/\n"
	  "p5en/p6-b200/g5.48xlarge) and scale out with more pods (a gang), or\n"
	  "allow larger instance types in the pool.\n" },
	{ "GPU013", "expire-without-grace-period", LINT_WARNING,
	  "NodePool expires nodes while its pods use do-not-disrupt, without "
	  "terminationGracePeriod",
	  "Why: expireAfter (default 720h) is forceful, but draining waits for\n"
	  "do-not-disrupt pods; without terminationGracePeriod the node can\n"
	  "hang in draining forever (Karpenter NodePool docs, expireAfter and\n"
	  "terminationGracePeriod).\n"
	  "Fix: set 'terminationGracePeriod' (e.g. 1h, longer than a\n"
	  "checkpoint interval) next to expireAfter, or 'expireAfter: Never'\n"
	  "for pools that must never be interrupted.\n" },
	{ "GPU014", "quota-below-gang", LINT_ERROR,
	  "Kueue ClusterQueue GPU quota is smaller than the gang the job needs",
	  "Why: Kueue admits a workload only if all its pods fit the quota at\n"
	  "once (all-or-nothing); a gang of 16 x 8 GPUs in a queue with 64 GPUs\n"
	  "of nominal quota is never admitted and waits forever (Kueue\n"
	  "docs, all-or-nothing admission).\n"
	  "Fix: raise the ClusterQueue's nvidia.com/gpu nominalQuota (and the\n"
	  "NodePool limit) to at least pods x GPUs per pod, or shrink the gang.\n" },
	{ "GPU015", "limits-below-quota", LINT_ERROR,
	  "NodePool nvidia.com/gpu limit is below the Kueue quota of the "
	  "ClusterQueue that feeds it",
	  "Why: Kueue admits work up to its quota, then Karpenter refuses to\n"
	  "launch past the NodePool limit: admitted pods stay Pending,\n"
	  "waitForPodsReady evicts the gang and requeues it, over and over.\n"
	  "Kueue cannot ask Karpenter for capacity (no ProvisioningRequest,\n"
	  "kubernetes-sigs/kueue#2508). Karpenter charges the limit with what\n"
	  "nodes report (Node.status.capacity, cluster state\n"
	  "updateNodePoolResources): time-slice replicas and MIG instances, not\n"
	  "physical GPUs (kubernetes-sigs/karpenter#729, #2140), and it launches\n"
	  "whole nodes only, so a limit that is not a sum of node sizes leaves\n"
	  "part of it unusable (docs/gpu-semantics.md).\n"
	  "Fix: make the NodePool's limits.nvidia.com/gpu, in the units its\n"
	  "nodes report (GPUs x replicas, or x MIG instances), large enough to\n"
	  "launch the quota in whole nodes, or lower the quota.\n" },
	{ "GPU016", "spot-to-spot-narrow", LINT_WARNING,
	  "spotToSpotConsolidation is enabled but no spot NodePool has an "
	  "instance type with 15 cheaper ones",
	  "Why: Karpenter replaces a spot node with a cheaper spot node only\n"
	  "when at least 15 instance types cheaper than the node's own fit its\n"
	  "pods (kubernetes-sigs/karpenter pkg/controllers/disruption/\n"
	  "consolidation.go, MinInstanceTypesForSpotToSpotConsolidation); in a\n"
	  "pool of 20 types only the 5 most expensive can ever be replaced, in\n"
	  "a narrow GPU pool none, so the gate buys nothing there and its churn\n"
	  "is pure risk. Prices are the catalog's on-demand prices, taken as\n"
	  "the order of spot prices. The gate is controller-wide: when some\n"
	  "spot pool in the lint run has a type with 15 cheaper ones, narrow\n"
	  "pools just do not take part and are not reported.\n"
	  "Fix: widen the pool (more families or sizes), or leave\n"
	  "settings.featureGates.spotToSpotConsolidation off (gpuform's\n"
	  "karpenter-values turns it on only when a pool qualifies).\n" },
	{ "GPU017", "image-cache-volume", LINT_ERROR,
	  "Bottlerocket image-cache snapshot larger than its data volume, or "
	  "put on the OS volume",
	  "Why: the pre-pulled image cache is an EBS snapshot of a Bottlerocket\n"
	  "data volume and must seed /dev/xvdb; EC2 refuses to launch when the\n"
	  "volume is smaller than its snapshot, so every node launch fails\n"
	  "(aws-samples/bottlerocket-images-cache).\n"
	  "Fix: put snapshotID on the /dev/xvdb mapping and make its\n"
	  "volumeSize at least the snapshot size (gpuform lint\n"
	  "--snapshot-size snap-...=SIZE tells lint the size).\n" },
	{ "GPU018", "al2023-device-plugin", LINT_WARNING,
	  "AL2023 GPU pool with no NVIDIA device-plugin configuration",
	  "Why: the AL2023 NVIDIA AMI has the driver but not the device\n"
	  "plugin; without it nodes never advertise nvidia.com/gpu, Karpenter\n"
	  "never marks them initialised, and they are never consolidated\n"
	  "(Karpenter troubleshooting; aws/karpenter-provider-aws#1914).\n"
	  "Fix: deploy the NVIDIA device plugin (include its DaemonSet, Helm\n"
	  "values or config ConfigMap in the lint run), and select a config\n"
	  "per pool with the 'nvidia.com/device-plugin.config' node label.\n" },
	{ "GPU019", "gpu-pool-no-limits", LINT_WARNING,
	  "GPU NodePool without an nvidia.com/gpu limit",
	  "Why: without limits a pending-pod storm or a mis-sized job launches\n"
	  "GPU instances without bound — runaway GPU spend is the first fear of\n"
	  "every platform team.\n"
	  "Fix: set 'limits: {nvidia.com/gpu: N}' (and keep Kueue quotas at or\n"
	  "below it).\n" },
	{ "GPU020", "kueue-queue-label-placement", LINT_ERROR,
	  "Kueue queue-name label only on a job's pod template, not on the "
	  "job object",
	  "Why: Kueue reads kueue.x-k8s.io/queue-name from the object it\n"
	  "manages — the Job, JobSet, PyTorchJob, MPIJob... itself\n"
	  "(kubernetes-sigs/kueue pkg/controller/jobframework/utils.go,\n"
	  "QueueNameForObject) — and its pod integration leaves pods owned by\n"
	  "such a job alone. A label only on the pod template is ignored: the\n"
	  "job is never suspended, gets no quota and no gang admission, and\n"
	  "takes GPUs other queues were promised. For a CronJob the Job it\n"
	  "creates takes its labels from spec.jobTemplate.metadata.labels.\n"
	  "Fix: put the label in the job's metadata.labels (a CronJob's\n"
	  "spec.jobTemplate.metadata.labels); keeping it on the pod template\n"
	  "as well is harmless.\n" },
	{ "GPU021", "shared-gpu-no-overlay", LINT_WARNING,
	  "time-sliced or MIG NodePool without NodeOverlays for the capacity "
	  "its nodes report",
	  "Why: Karpenter's instance-type model says physical GPUs, while a\n"
	  "time-sliced or MIG node reports replicas or MIG instances; without\n"
	  "a NodeOverlay Karpenter launches a node per GPU pod and the\n"
	  "NodePool limit, charged with what nodes report, fills after a\n"
	  "fraction of the pods (kubernetes-sigs/karpenter#729, #2140).\n"
	  "NodeOverlay (karpenter.sh/v1alpha1) is alpha and needs the\n"
	  "NodeOverlay feature gate (chart: settings.featureGates.nodeOverlay).\n"
	  "Fix: add a NodeOverlay per instance type (or group of types with\n"
	  "the same GPU count) scoped to the pool with karpenter.sh/nodepool,\n"
	  "capacity nvidia.com/gpu = GPUs x replicas (or x MIG instances), and\n"
	  "enable the gate; gpuform render does both.\n" },
	{ "GPU022", "reserved-without-reservations", LINT_ERROR,
	  "NodePool allows capacity type 'reserved' but its EC2NodeClass "
	  "selects no capacity reservations (or the gate is off)",
	  "Why: Karpenter launches a 'reserved' node only into a Capacity\n"
	  "Reservation or Capacity Block that the NodePool's EC2NodeClass\n"
	  "selects with capacityReservationSelectorTerms, and only while the\n"
	  "ReservedCapacity feature gate is on (default on in v1.14; aws/\n"
	  "karpenter-provider-aws pkg/providers/instancetype/offering/\n"
	  "reserved_capacity_resolver.go). The manifests are schema-valid, but\n"
	  "a pool whose only capacity type is 'reserved' never launches a\n"
	  "node (error), and one with a fallback always falls back (warning).\n"
	  "Fix: add capacityReservationSelectorTerms (by id, or by tags with\n"
	  "ownerID) to the EC2NodeClass, keep the gate on; gpuform renders\n"
	  "both from workloads[].capacity (docs/reserved-capacity.md).\n" },
	{ "GPU023", "snapshot-volume-lazy", LINT_WARNING,
	  "EBS volume restored from a snapshot with neither an "
	  "initialization rate nor fast snapshot restore",
	  "Why: a volume created from an EBS snapshot fetches its blocks from\n"
	  "S3 on first read, at a rate that fluctuates (EBS user guide,\n"
	  "\"Initialize Amazon EBS volumes\"); an image cache restored that way\n"
	  "can make the first image pull slower than the registry.\n"
	  "Fix: set ebs.volumeInitializationRate (100-300 MiB/s; EC2NodeClass\n"
	  "CRD, Karpenter v1.14) — gpuform renders imageCache.initializationRate,\n"
	  "default 300 — or enable fast snapshot restore on the snapshot in the\n"
	  "nodes' zones and say so with imageCache.fastSnapshotRestore: true\n"
	  "(the EC2NodeClass then carries the annotation\n"
	  "gpuform.io/fast-snapshot-restore: <snapshot id>). Do not set both: a\n"
	  "rate overrides fast snapshot restore (EC2 CreateVolume).\n" },
	{ "GPU024", "spot-grace-period", LINT_WARNING,
	  "pods that can run on spot capacity with a termination grace "
	  "period longer than the spot interruption notice",
	  "Why: EC2 reclaims a spot instance 2 minutes after its interruption\n"
	  "notice. Karpenter (with its interruption queue) drains the node when\n"
	  "the notice arrives, but a pod whose terminationGracePeriodSeconds is\n"
	  "longer is killed with the instance before its grace period ends: a\n"
	  "checkpoint that needs that long is lost.\n"
	  "Fix: keep terminationGracePeriodSeconds at most 120 (gpuform's pod\n"
	  "contract of a pool that can be spot says 90: the notice reaches\n"
	  "Karpenter through SQS and the drain starts a little later) and write\n"
	  "the checkpoint on SIGTERM within it; or make the workload\n"
	  "'interruption: none' (on-demand only).\n" },
	{ "GPU025", "hugepages-without-capacity", LINT_ERROR,
	  "pods request hugepages on a NodePool whose instance types "
	  "Karpenter believes have none",
	  "Why: Karpenter's AWS instance types carry no hugepages capacity\n"
	  "(aws/karpenter-provider-aws pkg/providers/instancetype/types.go\n"
	  "computeCapacity), and a resource a type does not have does not fit,\n"
	  "so a pod that requests hugepages-2Mi (the AWS NCCL test manifests do\n"
	  "with EFA) never gets a node: 'no instance type satisfied resources'\n"
	  "(aws/karpenter-provider-aws#3315, #6296). Kueue admits such a gang\n"
	  "(hugepages are not in its quota) and waitForPodsReady evicts it.\n"
	  "Fix: on nodes that really reserve hugepages (Bottlerocket v1.28.0+\n"
	  "with EFA: 110 x vCPUs pages of 2 MiB), add a NodeOverlay scoped to\n"
	  "the pool with capacity hugepages-2Mi (gpuform render does this for\n"
	  "EFA pools on Bottlerocket, with the NodeOverlay gate); on AL2023\n"
	  "gpuform reserves none, so drop the hugepages request (libfabric\n"
	  "falls back to regular pages).\n" },
	{ "GPU026", "node-agent-toleration", LINT_ERROR,
	  "EKS node monitoring agent values without a toleration for the GPU "
	  "taint",
	  "Why: Karpenter's node repair acts on the conditions the EKS node\n"
	  "monitoring agent sets (AcceleratedHardwareReady: replaced after\n"
	  "10m). The agent chart's DCGM DaemonSet ships empty tolerations\n"
	  "(aws/eks-node-monitoring-agent charts/eks-node-monitoring-agent/\n"
	  "values.yaml, dcgmAgent.tolerations: []), so on nodes tainted\n"
	  "nvidia.com/gpu:NoSchedule it never runs and GPU faults are never\n"
	  "reported: node repair sees only NodeReady.\n"
	  "Fix: give nodeAgent and dcgmAgent a toleration for\n"
	  "nvidia.com/gpu (operator Exists, effect NoSchedule), as gpuform's\n"
	  "addons/eks-node-monitoring-agent-values.yaml does.\n" },
	/* the intent's own warnings (generator/intent.h INTENT_RULE_*):
	 * given by validate, render, plan and lint for an intent */
	{ INTENT_RULE_AMI_VERSION, LINT_WARNING,
	  "intent AMI version written without the 'v' of release names",
	  "Why: AMI release names start with 'v' (al2023@v20250505,\n"
	  "bottlerocket@v1.26.1); an alias without it names no AMI, so gpuform\n"
	  "reads the version with a 'v' and says so.\n"
	  "Fix: write the version as released, e.g. 'ami: al2023@v20250505'.\n" },
	{ INTENT_RULE_BLOCK_FALLBACK, LINT_WARNING,
	  "Capacity Block workload that falls back to other capacity",
	  "Why: Karpenter sees a Capacity Block only once it is active; before\n"
	  "the block starts and after it ends, a pool with another\n"
	  "'whenExhausted' launches on-demand or spot nodes for the gang.\n"
	  "Fix: 'capacity.whenExhausted: wait' if the gang should run only on\n"
	  "the block; otherwise acknowledge the rule (spec.acknowledge).\n" },
	{ INTENT_RULE_NO_WINDOW, LINT_WARNING,
	  "workload whose interruption class replaces nodes only inside a "
	  "maintenance window, and no window is set",
	  "Why: 'interruption: none' and 'checkpointed' let Karpenter replace\n"
	  "drifted (e.g. after an AMI bump) and underutilized nodes only inside\n"
	  "spec.maintenanceWindow; without one they are never replaced\n"
	  "automatically and keep the old AMI.\n"
	  "Fix: add spec.maintenanceWindow, or acknowledge the rule when nodes\n"
	  "are rolled by hand.\n" },
	{ INTENT_RULE_DP_NS_IGNORED, LINT_WARNING,
	  "nvidiaDevicePlugin.namespace set on Bottlerocket",
	  "Why: Bottlerocket's NVIDIA variant has the device plugin built in\n"
	  "and configured through userData; the namespace has no effect.\n"
	  "Fix: remove spec.nvidiaDevicePlugin.namespace.\n" },
	{ INTENT_RULE_EFA_SG_UNUSED, LINT_WARNING,
	  "efaSecurityGroup set but no workload uses EFA",
	  "Why: the EFA security group is attached to the EFA node classes\n"
	  "only; with no EFA workload it is rendered nowhere, which usually\n"
	  "means a workload lost its 'efa: true'.\n"
	  "Fix: remove spec.network.efaSecurityGroup, or set 'efa: true' on\n"
	  "the workloads that need it.\n" },
	{ INTENT_RULE_SPOT_TO_SPOT, LINT_WARNING,
	  "spot pool in which no instance type has 15 cheaper ones",
	  "Why: Karpenter's single-node spot-to-spot consolidation replaces a\n"
	  "spot node only by one of at least 15 cheaper types in the pool; a\n"
	  "narrow GPU class never gets that, so its spot nodes are never\n"
	  "replaced by cheaper spot nodes (lint GPU016 for manifests).\n"
	  "Fix: widen the GPU class (e.g. 'l4+'), or acknowledge the rule for\n"
	  "a deliberately narrow pool.\n" },
	{ INTENT_RULE_DENSE_TYPES, LINT_WARNING,
	  "instance types left out of a shared-GPU pool: too few pods per node",
	  "Why: with time-slicing or MIG every schedulable GPU is a pod; an\n"
	  "instance type whose max pods (ENI limit, or 110 with prefix\n"
	  "delegation, minus system pods) cannot hold them would strand GPUs,\n"
	  "so gpuform leaves it out of the NodePool.\n"
	  "Fix: turn on spec.network.prefixDelegation or lower the replicas.\n" },
	{ INTENT_RULE_EFA_SHARE, LINT_WARNING,
	  "instance types left out of an EFA pool: their EFA share differs",
	  "Why: each pod requests vpc.amazonaws.com/efa, its share of the EFA\n"
	  "devices of the pool's types; a type with another share would leave\n"
	  "devices idle or pods pending, so gpuform leaves it out.\n"
	  "Fix: give that GPU class a workload of its own.\n" },
	{ INTENT_RULE_GANG_MEMORY, LINT_WARNING,
	  "gang that may mix nodes with different GPU memory",
	  "Why: Karpenter picks each node's type on its own, so a gang can land\n"
	  "on 80 GiB and 141 GiB GPUs at once; every rank is bound by the\n"
	  "smallest (a model sharded for 80 GiB does not fit 40 GiB).\n"
	  "Fix: name one GPU model (e.g. 'a100.80gb') or class for the gang,\n"
	  "or acknowledge the rule if the gang fits the smallest.\n" },
	{ INTENT_RULE_TARGET_FEATURE, LINT_WARNING,
	  "a feature the intent uses is missing from the targeted controller "
	  "version",
	  "Why: spec.targets names the Karpenter and Kueue versions the\n"
	  "cluster runs; a setting they do not have is left out of the\n"
	  "rendered values (node repair, recoveryTimeout, NodeOverlay), or\n"
	  "needs the Helm values rolled out first (ReservedCapacity gate).\n"
	  "Fix: target the version the message names, or acknowledge the rule\n"
	  "until the upgrade.\n" },
	{ INTENT_RULE_ACK_UNUSED, LINT_WARNING,
	  "spec.acknowledge entry that accepts no warning",
	  "Why: an acknowledgement is a decision about one warning; when the\n"
	  "warning is gone (the intent changed, or the entry names the wrong\n"
	  "workload) the entry would silently accept the next one of its rule.\n"
	  "Fix: remove the entry, or correct its 'workload'/'pool'.\n" },
};

const size_t lint_nrules = sizeof(lint_rules) / sizeof(lint_rules[0]);

const struct lint_rule *lint_rule_find(const char *s)
{
	for (size_t i = 0; i < lint_nrules; i++)
		if (!strcasecmp(lint_rules[i].id, s) ||
		    !strcmp(lint_rules[i].name, s))
			return &lint_rules[i];
	return NULL;
}
