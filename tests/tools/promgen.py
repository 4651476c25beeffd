#!/usr/bin/python3
"""tests/tools/promgen.py: what the workloads of tests/advise/fleet.yaml did
for DAYS days before END, as OpenMetrics text for
`promtool tsdb create-blocks-from openmetrics` (tests/advise.sh).

    promgen.py END DAYS STEP [SCENARIO]

END: Unix seconds (a multiple of STEP), DAYS: days of data before END,
STEP: seconds between samples. SCENARIO: "fleet" (default) or "nolabel"
(kube-state-metrics without the karpenter.sh/nodepool label allowlist).

The series are the exporters' own (docs/advise.md cites them):
kube-state-metrics kube_node_labels, kube_pod_info, kube_pod_status_phase,
kube_pod_container_resource_requests; dcgm-exporter DCGM_FI_DEV_GPU_UTIL,
DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE with its pod mapping labels;
Kueue kueue_pending_workloads and kueue_admission_wait_time_seconds_bucket.
Deterministic: the same arguments give the same bytes.

Per workload, what happened (the recommendation a careful engineer makes):
  finetune   2 pods x 8 H100 at most (peak 16 of 64): lower maxGpus
  pretrain   one 4 x 8 gang runs, a second waits ~9 h of every 12: raise
  chat       8 replicas x 1 L4, busiest GPU 10% busy, 3 GiB used: time-slice
  notebooks  6 x 1 A10G on weekdays 08-20 UTC, 0 otherwise, 5% busy:
             time-slice (and fewer GPUs)
  ranker     7 of 8 L4 busy at 70%, 18 GiB of 22 used: nothing
and of tests/advise/bottlerocket.yaml and tests/advise/al2023.yaml:
  embed      4 replicas x 1 H100, busiest GPU 5-8% busy, 6000 MiB used
             (7000 one hour a day): MIG 1g.10gb on Bottlerocket,
             time-slicing on AL2023
  shard      an inference gang of 4 x 1 H100, 'interruption: none', as idle
             as embed: nothing (a gang that cannot restart is never shared)
  overflow   checkpointed, 1 reserved p5.48xlarge, 1-3 pods x 8 H100: the
             overflow ran on the on-demand fallback: spot
"""
import sys

END = int(sys.argv[1])
DAYS = int(sys.argv[2])
STEP = int(sys.argv[3])
SCENARIO = sys.argv[4] if len(sys.argv) > 4 else "fleet"
START = END - DAYS * 86400
TIMES = list(range(START + STEP, END + 1, STEP))

L4_MIB, A10G_MIB, H100_MIB = 22 * 1024, 22 * 1024, 80 * 1024


def weekday_hours(t):
    """notebooks: Monday-Friday 08:00-20:00 UTC (1970-01-01 was a Thursday)"""
    day = (t // 86400 + 3) % 7  # 0 = Monday
    hour = (t % 86400) // 3600
    return day < 5 and 8 <= hour < 20


# pool -> (namespace, pods: list of (name, gpus, active(t), util(t), fb(t), fbtotal))
def pods():
    out = {}
    out["finetune"] = ("ml", [
        ("ft-0", 8, lambda t: True, lambda t: 80, lambda t: 60000, H100_MIB),
        # the second job runs one day in three
        ("ft-1", 8, lambda t: (t // 86400) % 3 == 0, lambda t: 75,
         lambda t: 60000, H100_MIB),
    ])
    # one gang of 4 x 8 always running (the whole quota)
    out["pretrain"] = ("ml", [
        ("pt-%d" % i, 8, lambda t: True, lambda t: 95, lambda t: 70000, H100_MIB)
        for i in range(4)
    ])
    out["chat"] = ("serving", [
        ("chat-%d" % i, 1, lambda t: True,
         (lambda i: lambda t: 4 + (i + t // STEP) % 7)(i),
         lambda t: 3000, L4_MIB)
        for i in range(8)
    ])
    out["notebooks"] = ("dev", [
        ("nb-%d" % i, 1, weekday_hours, lambda t: 2 + (t // STEP) % 4,
         lambda t: 2500, A10G_MIB)
        for i in range(6)
    ])
    out["ranker"] = ("serving", [
        ("rank-%d" % i, 1, lambda t: True,
         (lambda i: lambda t: 60 + (i + t // STEP) % 20)(i),
         lambda t: 18000, L4_MIB)
        for i in range(7)
    ])
    idle_h100 = (
        lambda i: lambda t: 5 + (i + t // STEP) % 4,
        # 7000 MiB in the first hour of each day, 6000 otherwise
        lambda t: 7000 if t % 86400 < 3600 else 6000)
    for pool, ns in (("embed", "vec"), ("shard", "vec")):
        out[pool] = (ns, [
            ("%s-%d" % (pool, i), 1, lambda t: True, idle_h100[0](i),
             idle_h100[1], H100_MIB)
            for i in range(4)
        ])
    # one pod on the reservation always, two more every other day
    out["overflow"] = ("ml", [
        ("ov-%d" % i, 8, (lambda i: lambda t: i == 0 or (t // 86400) % 2 == 0)(i),
         lambda t: 80, lambda t: 60000, H100_MIB)
        for i in range(3)
    ])
    return out


def main():
    w = sys.stdout.write
    P = pods()
    # one node per pod: the pool's label on it (the allowlisted label)
    fam = {}

    def add(name, labels, value_fn):
        fam.setdefault(name, []).append((labels, value_fn))

    for pool, (ns, plist) in sorted(P.items()):
        for (pod, gpus, active, util, fb, fbtot) in plist:
            node = "ip-%s-%s" % (pool, pod)
            nl = {"node": node}
            if SCENARIO != "nolabel":
                nl["label_karpenter_sh_nodepool"] = pool
            add("kube_node_labels", nl, lambda t: 1)
            add("kube_pod_info", {"namespace": ns, "pod": pod, "node": node,
                                  "uid": "u-" + pod}, lambda t: 1)
            add("kube_pod_status_phase",
                {"namespace": ns, "pod": pod, "uid": "u-" + pod, "phase": "Running"},
                (lambda a: lambda t: 1 if a(t) else 0)(active))
            add("kube_pod_status_phase",
                {"namespace": ns, "pod": pod, "uid": "u-" + pod, "phase": "Pending"},
                (lambda a: lambda t: 0 if a(t) else 1)(active))
            add("kube_pod_container_resource_requests",
                {"namespace": ns, "pod": pod, "uid": "u-" + pod, "container": "main",
                 "node": node, "resource": "nvidia_com_gpu", "unit": "integer"},
                (lambda g: lambda t: g)(gpus))
            # dcgm-exporter reports every GPU; two per pod are enough for
            # "the busiest GPU" (all of a pod's GPUs behave alike here)
            for g in range(min(gpus, 2)):
                dl = {"gpu": str(g), "UUID": "GPU-%s-%d" % (pod, g),
                      "Hostname": node, "modelName": "NVIDIA",
                      "namespace": ns, "pod": pod, "container": "main"}
                # an idle GPU of a pod that is not running reports no pod
                add("DCGM_FI_DEV_GPU_UTIL", dl,
                    (lambda a, u: lambda t: u(t) if a(t) else None)(active, util))
                add("DCGM_FI_DEV_FB_USED", dl,
                    (lambda a, f: lambda t: f(t) if a(t) else None)(active, fb))
                add("DCGM_FI_DEV_FB_FREE", dl,
                    (lambda a, f, tot: lambda t: tot - f(t) if a(t) else None)(
                        active, fb, fbtot))

    # Kueue: pretrain has a second gang waiting 9 h of every 12
    def pt_pending(t):
        return 1 if (t % 43200) < 32400 else 0

    for cq in sorted(P):
        add("kueue_pending_workloads", {"cluster_queue": cq, "status": "active"},
            (lambda cq: lambda t: 0)(cq))
        add("kueue_pending_workloads",
            {"cluster_queue": cq, "status": "inadmissible"},
            (lambda cq: lambda t: pt_pending(t) if cq == "pretrain" else 0)(cq))
    # admissions: pretrain one every 12 h after a 9 h wait, chat and ranker
    # admitted at once; cumulative buckets
    buckets = ["60", "600", "3600", "14400", "43200", "86400", "+Inf"]
    for cq, wait, every in (("pretrain", 32400, 43200), ("ranker", 5, 3600),
                            ("chat", 5, 3600)):
        for le in buckets:
            limit = float("inf") if le == "+Inf" else float(le)
            add("kueue_admission_wait_time_seconds_bucket",
                {"cluster_queue": cq, "le": le},
                (lambda wait, every, limit: lambda t:
                 ((t - START) // every) if wait <= limit else 0)(wait, every, limit))

    for name in sorted(fam):
        w("# TYPE %s gauge\n" % name)
        for labels, fn in fam[name]:
            ls = ",".join('%s="%s"' % (k, v) for k, v in sorted(labels.items()))
            for t in TIMES:
                v = fn(t)
                if v is not None:
                    w("%s{%s} %s %d\n" % (name, ls, v, t))
    w("# EOF\n")


main()
