#!/usr/bin/env bash
# tests/reconcile-safety.sh: what `gpuform reconcile` must never do, against a real
# kube-apiserver + etcd (tests/kube-testenv) with the Karpenter and Kueue CRDs (issue 15):
#   kinds    a run over 20+ kinds (a rendered directory with Services, Deployments, ...) is
#            clean under ASan; an inventory entry of a kind gpuform does not render too
#   adopt    an object that existed before the first run is a conflict (nothing written)
#            unless --adopt; the node impact of an adopted NodePool compares with live
#   clusters two gpuform clusters on one server: never write or prune each other's objects;
#            shared objects (equal apart from the owner labels) are co-owned
#   prune    --prune never deletes what this cluster's gpuform did not create: objects that
#            pre-existed, another cluster's, ones listed in a tampered inventory (with and
#            without --force-prune, with and without a UID); a label removed between the
#            LIST and the DELETE makes the delete fail (resourceVersion precondition)
#   lock     the run lock is the default: two runs started together never delete what the
#            other applies; with --no-lock the inventory still loses no entry (409, merge)
#   inventory a damaged or deleted inventory is an error with recovery instructions;
#            --rebuild-inventory rebuilds it from the objects gpuform labelled and applied
#   owner    the ownership proof: an object labelled for a cluster with
#            --field-manager=gpuform by someone who may patch but not delete it is never
#            pruned (rebuilt, tampered entry, first-run refusal)
#   limit    a rename near the 1 MiB ConfigMap limit goes through (a second ConfigMap for
#            the run); a final inventory over the limit is refused before any write
#   http     credentials are never sent over plain http:// (loopback only with a flag);
#            insecure-skip-tls-verify with a CA is refused
#   git      install refuses credentials in --git URLs; reconcile warns (no password echoed)
# The audit log of the API server is the witness for "nothing written" (Lease requests of
# the run lock excluded). Everything is on 127.0.0.1; every wait is bounded.
#
#   GPUFORM=build/san/gpuform bash tests/reconcile-safety.sh
#   GPUFORM_TESTENV_DIR=DIR   reuse a running testenv (must hold none of the clusters used)
#   GPUFORM_OLD=BINARY        also test an upgrade: an installation made by that (previous)
#                             gpuform is reconciled and pruned by this one

# shellcheck disable=SC2016,SC2034 # check conditions: single-quoted, eval'd later
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
T_START=$(date +%s)

t_isolate
export GPUFORM_NOW=2026-01-31T02:30:00Z
# libgit2's known one-time allocations (a --git run below)
export LSAN_OPTIONS="suppressions=$here/git-servers/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

t_gpuform
t_need kubectl jq

WORK=
t_tmpdir WORK
ALL_LOG=$WORK/all-runs.log
: >"$ALL_LOG"
INV_NS=gpuform-system

k() { timeout 60 kubectl --request-timeout=30s "$@"; }
GF_KC=
gf() { # SUBCOMMAND ARGS...: stdout $OUT, stderr $ERR, status $RC; marks the audit log
	local sub=$1
	shift
	t_audit_mark
	OUT=$(timeout 240 "$GPUFORM" "$sub" --kubeconfig "${GF_KC:-$KC}" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $sub $* (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
jv() { printf '%s\n' "$OUT" | jq -r "$1" 2>/dev/null; }
has() { printf '%s\n' "$OUT" | gq -F -- "$1"; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
# (check, t_audit_*: tests/lib.sh; the audit log is read 0.3 s after a run)
T_AUDIT_SETTLE=0.3
audit_deletes() { t_audit_writes | awk -F'\t' '$1 == "delete"'; }
exists() { k get "$@" >/dev/null 2>&1; }
uid_of() { k get "$@" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
applyset_id() { # CLUSTER
	printf 'applyset-%s-v1' "$(printf '%s' "gpuform-$1.$INV_NS.ConfigMap." |
		openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')"
}
inventory() { # CLUSTER: "Kind/ns/name<TAB>uid<TAB>sharedWith", sorted
	k get configmap -n "$INV_NS" "gpuform-$1" -o json |
		jq -r '.data.inventory | fromjson | .[] |
			"\(.kind)/\(.namespace // "")/\(.name)\t\(.uid // "")\t\(.sharedWith // "")"' | sort
}
set_inventory() { # CLUSTER JSON-ARRAY
	k patch configmap -n "$INV_NS" "gpuform-$1" --type merge \
		-p "$(jq -cn --arg v "$2" '{data: {inventory: $v}}')" >/dev/null
}
# wipe: delete every gpuform-rendered object and inventory. Between sections: the clusters
# of different sections render the same cluster-scoped names (EC2NodeClass gpu, ...), which
# would collide (on purpose). Namespaces stay (nothing finalizes them on a bare API server):
# each section uses its own.
wipe() {
	k delete nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,workloadpriorityclasses.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io \
		--all >/dev/null 2>&1
	k delete localqueues.kueue.x-k8s.io --all -A >/dev/null 2>&1
	k delete configmap -n kube-system gpuform-nvidia-device-plugin --ignore-not-found >/dev/null 2>&1
	k delete configmap -n "$INV_NS" -l app.kubernetes.io/managed-by=gpuform >/dev/null 2>&1
}
intent() { # FILE CLUSTER WORKLOAD NAMESPACE
	cat >"$1" <<EOF
apiVersion: gpuform.io/v1alpha1
kind: ClusterIntent
metadata:
  name: $2
spec:
  nodeRole: KarpenterNodeRole-$2
  ami: al2023@v20250505
  workloads:
    - name: $3
      type: inference
      gpu: l4
      maxGpus: 4
      namespace: $4
EOF
}

# ---- the API server ----------------------------------------------------------------------
t_testenv_start

# ==== kinds: 20+ kinds in one run, and inventory entries of kinds gpuform does not render ====
KDIR=$WORK/kinds
intent "$WORK/kinds.yaml" kinds svc kinds-app
"$GPUFORM" render -o "$KDIR" "$WORK/kinds.yaml" >/dev/null 2>&1
extra_kinds() { # the extra objects, each labelled for cluster "kinds"
	local L='labels: {gpuform.io/cluster: kinds}' N='namespace: kinds-app'
	cat <<EOF
apiVersion: v1
kind: Service
metadata: {name: web, $N, $L}
spec: {ports: [{port: 80, protocol: TCP}], selector: {app: web}}  # (1.20: SSA needs the protocol key)
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, $N, $L}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, $N, $L}
stringData: {k: v}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: runner, $N, $L}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota, $N, $L}
spec: {hard: {pods: "10"}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits, $N, $L}
spec: {limits: [{type: Container, default: {cpu: 100m}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, $N, $L}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: example.invalid/web:1}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, $N, $L}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: example.invalid/db:1}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, $N, $L}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: example.invalid/agent:1}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, $N, $L}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: once, image: example.invalid/once:1}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, $N, $L}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, $N, $L}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: ServiceAccount, name: runner, namespace: kinds-app}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kinds-reader, $L}
rules: [{apiGroups: [""], resources: [nodes], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kinds-reader, $L}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kinds-reader}
subjects: [{kind: ServiceAccount, name: runner, namespace: kinds-app}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: kinds-high, $L}
value: 1000
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, $N, $L}
spec: {podSelector: {}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: kinds-fast, $L}
provisioner: example.invalid/none
EOF
}
extra_kinds >"$KDIR/extra.yaml"
printf -- '- extra.yaml\n' >>"$KDIR/kustomization.yaml"
N_K=$("$GPUFORM" render --format json "$WORK/kinds.yaml" | jq '[.items[].kind] | unique | length')
N_X=$(extra_kinds | grep -c '^kind:')
gf reconcile --dry-run -o json "$KDIR"
check "kinds: reconcile --dry-run over $((N_K + N_X)) kinds ($N_K rendered + $N_X plain ones): exit 1, no crash" \
	'[ "$RC" = 1 ] && [ "$(jv ".items | map(.kind) | unique | length")" -ge 20 ] &&
	! has_err "AddressSanitizer" && ! has_err "runtime error"'
gf reconcile -o json "$KDIR"
check "kinds: reconcile DIR: exit 0, every object created, ASan clean" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.created)" = "$(jv ".items | length")" ] &&
	! has_err "AddressSanitizer" && ! has_err "runtime error"'
check "kinds: the objects exist where they belong (svc/web -n kinds-app, storageclass kinds-fast)" \
	'exists service web -n kinds-app && exists storageclass kinds-fast && exists deployment web -n kinds-app'
gf diff --live "$KDIR"
check "kinds: diff --live: exit 0, nothing to show" '[ "$RC" = 0 ] && [ -z "$OUT" ] && ! has_err "AddressSanitizer"'
# the extra kinds leave the desired set: inventory entries of kinds gpuform does not render
sed -i '/^- extra.yaml$/d' "$KDIR/kustomization.yaml"
rm "$KDIR/extra.yaml"
gf reconcile -o json "$KDIR"
check "kinds: entries of $N_X unrendered kinds in the inventory: exit 0, each reported skipped, no crash" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.skipped)" = "$N_X" ] && ! has_err "AddressSanitizer"'
gf reconcile -o json --prune --force-prune "$KDIR"
check "kinds: --prune of them: exit 0, $N_X pruned (gpuform created them), the rest unchanged" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.pruned)" = "$N_X" ] && ! exists service web -n kinds-app &&
	! exists storageclass kinds-fast && ! has_err "AddressSanitizer"'
# entries of kinds the server does not serve (a removed CRD, a tampered entry): no objects
odd=$(k get configmap -n "$INV_NS" gpuform-kinds -o jsonpath='{.data.inventory}' | jq -c \
	'. + [{apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "u"},
	      {apiVersion: "a/b/c", kind: "Odd", name: "o", uid: "u"}]')
set_inventory kinds "$odd"
gf reconcile -o json --prune "$KDIR"
check "kinds: inventory entries of kinds the server does not serve: exit 0, forgotten, nothing deleted" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.pruned)" = 0 ] && [ "$(audit_deletes | wc -l)" = 0 ] &&
	! inventory kinds | gq -e Widget -e Odd'

# ==== adopt: objects that existed before the first run ======================================
wipe
intent "$WORK/pre.yaml" pre api pre-ns
k create namespace pre-ns >/dev/null
k create configmap someones-data -n pre-ns --from-literal=k=v >/dev/null
"$GPUFORM" render --format json "$WORK/pre.yaml" |
	jq '.items[] | select(.kind == "NodePool") | del(.metadata.labels) |
		.spec.template.spec.nodeClassRef.name = "handmade"' >"$WORK/pre-np.json"
k create -f "$WORK/pre-np.json" >/dev/null
NP_UID=$(uid_of nodepool api)
NS_UID=$(uid_of namespace pre-ns)
gf reconcile "$WORK/pre.yaml"
check "adopt: first run with a hand-made NodePool and Namespace: exit 4, both named as conflicts with their managers" \
	'[ "$RC" = 4 ] && has "nodepool.karpenter.sh/api conflict: exists and was not created by gpuform" &&
	has "namespace/pre-ns conflict" && has "kubectl-create (Update)" && has_err "--adopt"'
check "adopt: ... nothing written (audit: 0 writes), nodeClassRef still 'handmade', no inventory" \
	'[ "$(t_audit_writes | wc -l)" = 0 ] &&
	[ "$(k get nodepool api -o jsonpath="{.spec.template.spec.nodeClassRef.name}")" = handmade ] &&
	! exists configmap -n "$INV_NS" gpuform-pre'
gf diff --live "$WORK/pre.yaml"
check "adopt: diff --live shows the conflicts too (exit 4), nothing written" \
	'[ "$RC" = 4 ] && has "nodepool.karpenter.sh/api conflict" && [ "$(t_audit_writes | wc -l)" = 0 ]'
gf reconcile --dry-run --adopt "$WORK/pre.yaml"
check "adopt: --adopt --dry-run: the NodePool's nodeClassRef change is node-replacing (compared with live), not 'new NodePool'" \
	'[ "$RC" = 1 ] && has "nodepool.karpenter.sh/api configured (dry run): adopted" &&
	printf "%s\n" "$OUT" | grep -A1 "nodepool.karpenter.sh/api configured" | gq "node impact: replaces nodes" &&
	! printf "%s\n" "$OUT" | grep -A1 "nodepool.karpenter.sh/api" | gq "no nodes yet"'
gf reconcile --adopt "$WORK/pre.yaml"
check "adopt: --adopt: exit 0, both adopted (configured) with their original UIDs, someone's ConfigMap untouched" \
	'[ "$RC" = 0 ] && [ "$(uid_of nodepool api)" = "$NP_UID" ] && [ "$(uid_of namespace pre-ns)" = "$NS_UID" ] &&
	inventory pre | gq "^NodePool//api	$NP_UID" && exists configmap someones-data -n pre-ns &&
	[ "$(k get nodepool api -o jsonpath="{.spec.template.spec.nodeClassRef.name}")" = gpu ]'
gf reconcile -o json "$WORK/pre.yaml"
check "adopt: the next run: all unchanged, no write" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.unchanged)" = "$(jv ".items | length")" ] && [ "$(t_audit_writes | wc -l)" = 0 ]'

# ==== prune: never what this cluster's gpuform did not create ===============================
# made by hand before any run and never adopted; then listed in a tampered inventory with
# their UIDs and labelled with the cluster's part-of label by hand
PRE_ID=$(applyset_id pre)
k create namespace by-hand >/dev/null
k create configmap by-hand-cm -n by-hand --from-literal=k=v >/dev/null
jq '.metadata.name = "by-hand-np"' "$WORK/pre-np.json" | k create -f - >/dev/null
k label nodepool by-hand-np "applyset.kubernetes.io/part-of=$PRE_ID" >/dev/null
k label configmap by-hand-cm -n by-hand "applyset.kubernetes.io/part-of=$PRE_ID" >/dev/null
k label namespace by-hand "applyset.kubernetes.io/part-of=$PRE_ID" >/dev/null
tampered=$(k get configmap -n "$INV_NS" gpuform-pre -o jsonpath='{.data.inventory}' | jq -c \
	--arg np "$(uid_of nodepool by-hand-np)" --arg cm "$(uid_of configmap by-hand-cm -n by-hand)" \
	--arg ns "$(uid_of namespace by-hand)" \
	'. + [{apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "by-hand-np", uid: $np},
	      {apiVersion: "v1", kind: "ConfigMap", namespace: "by-hand", name: "by-hand-cm", uid: $cm},
	      {apiVersion: "v1", kind: "Namespace", name: "by-hand", uid: $ns}]')
set_inventory pre "$tampered"
for fp in "" --force-prune; do
	gf reconcile -o json --prune --prune-namespaces $fp "$WORK/pre.yaml"
	check "prune: tampered inventory + labels set by hand, --prune ${fp:-(no --force-prune)}: exit 0, nothing deleted (audit), each reported" \
		'[ "$RC" = 0 ] && [ "$(audit_deletes | wc -l)" = 0 ] && [ "$(jv .counts.pruned)" = 0 ] &&
		exists nodepool by-hand-np && exists configmap by-hand-cm -n by-hand && exists namespace by-hand &&
		[ "$(jv "[.items[] | select(.result == \"skipped\" and (.detail | test(\"not applied by gpuform\")))] | length")" = 3 ]'
done
# an entry without a UID, for an object gpuform did create: never pruned, reported
intent "$WORK/pre2.yaml" pre api2 pre-ns
gf reconcile "$WORK/pre2.yaml" # api2 joins; api stays (no --prune)
nouid=$(k get configmap -n "$INV_NS" gpuform-pre -o jsonpath='{.data.inventory}' | jq -c 'map(if .kind == "NodePool" and .name == "api" then del(.uid) else . end)')
set_inventory pre "$nouid"
gf reconcile -o json --prune --force-prune "$WORK/pre2.yaml"
check "prune: an inventory entry without a UID is never pruned (NodePool api kept, reported 'no UID')" \
	'[ "$RC" = 0 ] && exists nodepool api &&
	[ "$(jv ".items[] | select(.kind == \"NodePool\" and .name == \"api\") | .result")" = skipped ] &&
	jv ".items[] | select(.kind == \"NodePool\" and .name == \"api\") | .detail" | gq "no UID"'
# a label removed between the LIST and the DELETE: the delete's resourceVersion precondition
gf reconcile "$WORK/pre.yaml" # api wanted again: its UID is recorded again
gf reconcile "$WORK/pre2.yaml"
# (through the fault proxy, which holds the run's first real DELETE until the label is gone)
t_faultproxy_start "$WORK/fp-race" 2>"$WORK/fp.err" ||
	t_abort "tests/tools/faultproxy.c in front of the API server" "$(cat "$WORK/fp.err")"
echo 'DELETE !dryRun 1 hold' >"$WORK/fp-race/rules"
t_audit_mark
timeout 120 "$GPUFORM" reconcile --kubeconfig "$FP_KC" --insecure-loopback-http -o json --prune \
	--force-prune "$WORK/pre2.yaml" >"$WORK/race.out" 2>"$WORK/race.err" &
race=$!
t_faultproxy_wait "$WORK/fp-race" ' DELETE [^ ]* -> hold$'
held=$?
k label nodepool api applyset.kubernetes.io/part-of- >/dev/null
: >"$WORK/fp-race/rules.go"
wait "$race"; RC=$?
OUT=$(cat "$WORK/race.out") ERR=$(cat "$WORK/race.err")
check "prune: part-of label removed after the LIST: the DELETE fails its precondition (409 in the audit log), NodePool api kept, reported" \
	'[ "$held" = 0 ] && [ "$RC" = 0 ] && exists nodepool api && t_audit_tsv | gq "^delete	409	.*/nodepools/api" &&
	jv ".items[] | select(.kind == \"NodePool\" and .name == \"api\") | .detail" | gq "precondition failed"'

# ==== inventory: damaged or deleted ==========================================================
# (NodePool api lost its label above: adopted again first)
gf reconcile --adopt "$WORK/pre.yaml"
t_setup "inventory: NodePool api adopted again (its label was removed by hand)" '[ "$RC" = 0 ]'
set_inventory pre '[{"apiVersion": "v1", "kind":'
gf reconcile "$WORK/pre.yaml"
check "inventory: damaged JSON: exit 4, says it is damaged and how to recover, nothing written" \
	'[ "$RC" = 4 ] && has_err "inventory gpuform-system/gpuform-pre is damaged" && has_err "--rebuild-inventory" &&
	[ "$(t_audit_writes | wc -l)" = 0 ]'
gf reconcile --rebuild-inventory --dry-run "$WORK/pre.yaml"
check "inventory: --rebuild-inventory --dry-run: exit 0/1, nothing written" \
	'[ "$RC" -le 1 ] && [ "$(t_audit_writes | wc -l)" = 0 ]'
gf reconcile --rebuild-inventory -o json "$WORK/pre.yaml"
check "inventory: --rebuild-inventory: exit 0; the inventory lists the objects gpuform applied, with UIDs, and not the hand-labelled ones" \
	'[ "$RC" = 0 ] && inventory pre | gq "^NodePool//api	$NP_UID" &&
	! inventory pre | gq "by-hand" && [ "$(inventory pre | awk -F"\t" "\$2 == \"\"" | wc -l)" = 0 ]'
k delete configmap -n "$INV_NS" gpuform-pre >/dev/null
gf reconcile "$WORK/pre.yaml"
check "inventory: deleted while labelled objects exist: exit 4, names the count and --rebuild-inventory, nothing written" \
	'[ "$RC" = 4 ] && has_err "does not exist, but" && has_err "--rebuild-inventory" && [ "$(t_audit_writes | wc -l)" = 0 ]'
gf reconcile --rebuild-inventory "$WORK/pre.yaml"
check "inventory: --rebuild-inventory recreates it" '[ "$RC" = 0 ] && inventory pre | gq "^NodePool//api	$NP_UID"'
wipe
intent "$WORK/fresh.yaml" fresh fresh-a fresh
gf reconcile "$WORK/fresh.yaml"
check "inventory: a first-ever run (no inventory, nothing labelled) still works" '[ "$RC" = 0 ] && exists nodepool fresh-a'

wipe
# ==== clusters: two gpuform clusters on one API server =======================================
intent "$WORK/team-a.yaml" team-a api-a shared
intent "$WORK/team-b.yaml" team-b api-b shared
gf reconcile "$WORK/team-a.yaml"
check "clusters: team-a's first run: exit 0" '[ "$RC" = 0 ]'
A_EC2=$(k get ec2nodeclass gpu -o json | jq -c '{labels: .metadata.labels, spec: .spec}')
gf reconcile "$WORK/team-b.yaml"
check "clusters: team-b renders EC2NodeClass gpu differently: exit 4, a conflict naming cluster team-a, nothing written" \
	'[ "$RC" = 4 ] && has "ec2nodeclass.karpenter.k8s.aws/gpu conflict: owned by another gpuform inventory (cluster '"'team-a'"')" &&
	[ "$(t_audit_writes | wc -l)" = 0 ] &&
	[ "$(k get ec2nodeclass gpu -o json | jq -c "{labels: .metadata.labels, spec: .spec}")" = "$A_EC2" ]'
gf reconcile --adopt --force-conflicts "$WORK/team-b.yaml"
check "clusters: not even --adopt --force-conflicts takes another gpuform cluster's object" \
	'[ "$RC" = 4 ] && has "ec2nodeclass.karpenter.k8s.aws/gpu conflict" && [ "$(t_audit_writes | wc -l)" = 0 ]'
# two teams, one EKS cluster: team-b uses team-a's EC2NodeClass gpu (an EC2NodeClass
# carries its cluster in spec.tags: two gpuform clusters never share one)
BDIR=$WORK/team-b
"$GPUFORM" render -o "$BDIR" "$WORK/team-b.yaml" >/dev/null 2>&1
sed -i '/^- ec2nodeclass-gpu.yaml$/d' "$BDIR"/kustomization.yaml
rm "$BDIR"/ec2nodeclass-gpu.yaml
gf reconcile -o json "$BDIR"
check "clusters: objects equal apart from the owner labels are shared: exit 0, Namespace, WPC, device-plugin ConfigMap 'shared', not written" \
	'[ "$RC" = 0 ] && [ "$(jv "[.items[] | select(.detail // \"\" | test(\"^shared\"))] | length")" = 3 ] &&
	! t_audit_writes | gq -E "/(namespaces/shared|ec2nodeclasses/gpu|workloadpriorityclasses/gpuform-inference)\?" &&
	[ "$(k get namespace shared -o jsonpath="{.metadata.labels.gpuform\.io/cluster}")" = team-a ]'
check "clusters: team-b's inventory records them as shared with team-a" \
	'[ "$(inventory team-b | awk -F"\t" "\$3 == \"team-a\"" | wc -l)" = 3 ]'
# team-a stops using namespace "shared": its LocalQueue there is pruned, the Namespace
# (still listed by team-b) is not
intent "$WORK/team-a2.yaml" team-a api-a only-a
gf reconcile -o json --prune --prune-namespaces --force-prune "$WORK/team-a2.yaml"
check "clusters: team-a prunes: its LocalQueue goes, the shared Namespace stays (team-b lists it), reported" \
	'[ "$RC" = 0 ] && ! exists localqueue api-a -n shared && exists namespace shared && exists localqueue api-b -n shared &&
	jv ".items[] | select(.kind == \"Namespace\" and .name == \"shared\") | .detail" | gq "another gpuform inventory"'
# team-b's tampered inventory lists team-a's NodePool (with its UID): never pruned
A_NP_UID=$(uid_of nodepool api-a)
tb=$(k get configmap -n "$INV_NS" gpuform-team-b -o jsonpath='{.data.inventory}' |
	jq -c --arg u "$A_NP_UID" '. + [{apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "api-a", uid: $u}]')
set_inventory team-b "$tb"
for fp in "" --force-prune; do
	gf reconcile -o json --prune $fp "$BDIR"
	check "clusters: team-b --prune ${fp:-(no --force-prune)} with team-a's NodePool in its tampered inventory: not deleted" \
		'[ "$RC" = 0 ] && [ "$(uid_of nodepool api-a)" = "$A_NP_UID" ] && [ "$(audit_deletes | wc -l)" = 0 ]'
	set_inventory team-b "$tb"
done
# team-b stops using namespace "shared": released from its inventory, not deleted
intent "$WORK/team-b2.yaml" team-b api-b only-b
B2DIR=$WORK/team-b2
"$GPUFORM" render -o "$B2DIR" "$WORK/team-b2.yaml" >/dev/null 2>&1
sed -i '/^- ec2nodeclass-gpu.yaml$/d' "$B2DIR"/kustomization.yaml
rm "$B2DIR"/ec2nodeclass-gpu.yaml
gf reconcile -o json --prune --prune-namespaces --force-prune "$B2DIR"
check "clusters: team-b releases the shared Namespace (not deleted: team-a owns it); WPC and ConfigMap stay shared" \
	'[ "$RC" = 0 ] && exists namespace shared && [ "$(audit_deletes | grep -c "/namespaces/shared?")" = 0 ] &&
	jv ".items[] | select(.kind == \"Namespace\" and .name == \"shared\") | .detail" | gq "released" &&
	! inventory team-b | gq "^Namespace//shared" &&
	[ "$(inventory team-b | awk -F"\t" "\$3 == \"team-a\"" | wc -l)" = 2 ]'
gf reconcile -o json --prune --prune-namespaces --force-prune "$WORK/team-a2.yaml"
check "clusters: now no other inventory lists Namespace shared: team-a prunes it" \
	'[ "$RC" = 0 ] && [ "$(jv ".items[] | select(.kind == \"Namespace\" and .name == \"shared\") | .result")" = pruned ]'

# ==== owner: the ownership proof (issue 21) ==================================================
# "alice" may get, list and patch NodePools but not delete them (RBAC, impersonated by the
# admin). With `kubectl apply --server-side --field-manager=gpuform` she labels a NodePool
# she does not own for a gpuform cluster. Before the ownership proof, gpuform then deleted it:
# imported by --rebuild-inventory, listed in a tampered inventory entry with its UID, or
# after a first-run refusal that told the operator to import it.
wipe
k create clusterrole np-patcher --verb=get,list,patch --resource=nodepools.karpenter.sh >/dev/null
k create clusterrolebinding np-patcher --clusterrole=np-patcher --user=alice >/dev/null
forge() { # NODEPOOL CLUSTER: alice labels it for CLUSTER as field manager gpuform
	k --as=alice apply --server-side --validate=false --field-manager=gpuform -f - >/dev/null 2>"$WORK/forge.err" <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: $1
  labels: {applyset.kubernetes.io/part-of: $(applyset_id "$2")}
EOF
}
audit_np_deletes() { # DELETEs of NodePool $1 by gpuform's user since the mark
	t_audit_all | awk -F'\t' '$1 == "delete"' | grep -cE "/nodepools/$1([?]|\$)"
}
intent "$WORK/own.yaml" own own-a own-ns
cat >>"$WORK/own.yaml" <<EOF
    - name: own-b
      type: inference
      gpu: l4
      maxGpus: 4
      namespace: own-ns
EOF
intent "$WORK/own2.yaml" own own-a own-ns
jq '.metadata.name = "victim"' "$WORK/pre-np.json" | k create -f - >/dev/null
VICTIM_UID=$(uid_of nodepool victim)
# (b) labelled before the cluster's first run
forge victim own
RC=$? ERR=$(cat "$WORK/forge.err") OUT=
check "owner: alice (patch, no delete) labels NodePool victim with --field-manager=gpuform; her own delete is 403" \
	'[ "$RC" = 0 ] && ! k --as=alice delete nodepool victim >/dev/null 2>&1 && exists nodepool victim &&
	k get nodepool victim -o json --show-managed-fields | jq -e ".metadata.managedFields[] | select(.manager == \"gpuform\")" >/dev/null'
gf reconcile "$WORK/own.yaml"
check "owner: labelled before the first run: exit 4, the refusal names the object and its managers, says no key exists and to remove the label; nothing written" \
	'[ "$RC" = 4 ] && has_err "nodepool.karpenter.sh/victim (managers: " && has_err "gpuform (Apply)" &&
	has_err "does not exist either" && has_err "Remove the label" && has_err "kubectl label KIND NAME applyset.kubernetes.io/part-of-" &&
	[ "$(t_audit_writes | wc -l)" = 0 ]'
# the operator follows the (old) advice anyway: --rebuild-inventory imports it
gf reconcile --rebuild-inventory -o json "$WORK/own.yaml"
check "owner: --rebuild-inventory records the forged NodePool (its label names manager gpuform) — without a proof" \
	'[ "$RC" = 0 ] && inventory own | gq "^NodePool//victim	$VICTIM_UID" &&
	! k get configmap -n "$INV_NS" gpuform-own -o jsonpath="{.data.inventory}" | jq -e ".[] | select(.name == \"victim\") | .proof" >/dev/null &&
	k get configmap -n "$INV_NS" gpuform-own -o jsonpath="{.data.inventory}" | jq -e ".[] | select(.name == \"own-a\") | .proof" >/dev/null'
# (a) the next --prune, with own-b no longer desired: own-b (gpuform's, proven) goes, victim stays
gf reconcile -o json --prune --force-prune "$WORK/own2.yaml"
check "prune: --field-manager=gpuform, imported by --rebuild-inventory: victim not deleted (audit), reported; own-b (proven) pruned" \
	'[ "$RC" = 0 ] && [ "$(uid_of nodepool victim)" = "$VICTIM_UID" ] && [ "$(audit_np_deletes victim)" = 0 ] &&
	jv ".items[] | select(.kind == \"NodePool\" and .name == \"victim\") | .detail" | gq "no valid ownership proof" &&
	! exists nodepool own-b && [ "$(audit_np_deletes own-b)" = 1 ]'
# (c) a tampered entry: victim2 with its UID and a proof copied from own-a's entry
jq '.metadata.name = "victim2"' "$WORK/pre-np.json" | k create -f - >/dev/null
forge victim2 own
V2_UID=$(uid_of nodepool victim2)
tampered=$(k get configmap -n "$INV_NS" gpuform-own -o jsonpath='{.data.inventory}' | jq -c --arg u "$V2_UID" \
	'. + [(.[] | select(.kind == "NodePool" and .name == "own-a") | .name = "victim2" | .uid = $u)]')
set_inventory own "$tampered"
for fp in "" --force-prune; do
	gf reconcile -o json --prune $fp "$WORK/own2.yaml"
	check "prune: a tampered entry with victim2's UID and a proof copied from another entry, --prune ${fp:-(no --force-prune)}: not deleted (audit), reported" \
		'[ "$RC" = 0 ] && [ "$(uid_of nodepool victim2)" = "$V2_UID" ] && [ "$(audit_np_deletes victim2)" = 0 ] &&
		jv ".items[] | select(.kind == \"NodePool\" and .name == \"victim2\") | .detail" | gq "no valid ownership proof"'
done
check "owner: the key Secret gpuform-own-owner-key exists in $INV_NS, 32 bytes" \
	'[ "$(k get secret -n "$INV_NS" gpuform-own-owner-key -o jsonpath="{.data.key}" | base64 -d | wc -c)" = 32 ]'
k delete clusterrolebinding np-patcher >/dev/null 2>&1
k delete clusterrole np-patcher >/dev/null 2>&1
k delete nodepool victim victim2 >/dev/null 2>&1

# ==== limit: an inventory near the ConfigMap limit (1 MiB of data) =========================
# 1,400 ConfigMaps with 253-character names in a 63-character namespace: the inventory is
# about 640 kB; renaming them all needs old and new names together (1.2 MB) before the
# applies. Before issue 21 every such run failed with the API server's "Too long".
wipe
LNS=lim-$(printf 'n%.0s' $(seq 1 59))
intent "$WORK/lim.yaml" lim lim-a "$LNS"
big() { # PREFIX: the 1,400 ConfigMaps
	local pad
	pad=$(printf 'x%.0s' $(seq 1 240))
	for ((i = 0; i < 1400; i++)); do
		printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-%04d-%s, namespace: %s, labels: {gpuform.io/cluster: lim}}\ndata: {a: "1"}\n' \
			"$1" "$i" "${pad:0:$((253 - ${#1} - 6))}" "$LNS"
	done
}
LDIR=$WORK/lim
"$GPUFORM" render -o "$LDIR" "$WORK/lim.yaml" >/dev/null 2>&1
big a >"$LDIR/big.yaml"
printf -- '- big.yaml\n' >>"$LDIR/kustomization.yaml"
gf reconcile -o json "$LDIR"
LSIZE=$(k get configmap -n "$INV_NS" gpuform-lim -o jsonpath='{.data.inventory}' | wc -c)
t_setup "limit: 1,400 ConfigMaps with long names reconciled (inventory $LSIZE bytes)" '[ "$RC" = 0 ] && [ "$LSIZE" -gt 600000 ]'
big b >"$LDIR/big.yaml"
gf reconcile -o json "$LDIR"
check "limit: the rename without --prune (old and new kept: about twice the limit): exit 3, names the limit, nothing written" \
	'[ "$RC" = 3 ] && has_err "more than a ConfigMap holds (1048576 bytes of data)" && has_err "--prune" &&
	[ "$(t_audit_writes | wc -l)" = 0 ]'
gf reconcile -o json --prune --force-prune "$LDIR"
LSIZE2=$(k get configmap -n "$INV_NS" gpuform-lim -o jsonpath='{.data.inventory}' | wc -c)
check "limit: the rename with --prune: exit 0, 1,400 created and 1,400 pruned; the added entries went to gpuform-lim-pending for the run, deleted after" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.created)" = 1400 ] && [ "$(jv .counts.pruned)" = 1400 ] &&
	[ "$(t_audit_writes | grep -c "/configmaps/gpuform-lim-pending")" = 2 ] && ! exists configmap -n "$INV_NS" gpuform-lim-pending &&
	[ "$LSIZE2" -gt 600000 ] && [ "$LSIZE2" -lt 1048576 ] &&
	[ -z "$(k get configmap -n "$INV_NS" gpuform-lim -o jsonpath="{.metadata.annotations.gpuform\.io/pending-inventory}")" ]'
gf reconcile -o json "$LDIR"
check "limit: the next run: all unchanged, no write" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.unchanged)" = "$(jv ".items | length")" ] && [ "$(t_audit_writes | wc -l)" = 0 ]'
k delete namespace "$LNS" --wait=false >/dev/null 2>&1
k delete configmap -n "$LNS" --all >/dev/null 2>&1

# ==== lock: runs started together ===========================================================
wipe
intent "$WORK/lk.yaml" lk lk-a lk
gf reconcile "$WORK/lk.yaml"
# issue 24's conventions on a run that creates: node impact only under Karpenter's objects
# (the others with -v), and the default run lock is taken without a word (it is our own)
check "conventions: a creating run prints node impact only under Karpenter objects, and nothing about its own run lock" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep -c " created$")" -ge 3 ] &&
	printf "%s\n" "$OUT" | grep -A1 "^nodepool.karpenter.sh/lk-a created$" | gq "^  node impact: " &&
	[ "$(printf "%s\n" "$OUT" | grep -B1 "^  node impact: " | grep -v "^  node impact: " | grep -v "^--$" | grep -vc "karpenter")" = 0 ] &&
	! printf "%s\n" "$OUT" | gq "not a Karpenter object" && ! printf "%s\n" "$ERR" | gq "run lock"'
intent "$WORK/lk-small.yaml" lk lk-b lk
# the run that takes the lock is held by the fault proxy once the server answered its first
# request past the lock ('hold-after'), until the other run has ended: a long run
t_faultproxy_start "$WORK/fp-lk" 2>"$WORK/fp.err" ||
	t_abort "tests/tools/faultproxy.c in front of the API server" "$(cat "$WORK/fp.err")"
echo '* *!/leases/ 1 hold-after' >"$WORK/fp-lk/rules"
t_audit_mark
timeout 120 "$GPUFORM" reconcile --kubeconfig "$FP_KC" --insecure-loopback-http "$WORK/lk.yaml" \
	>"$WORK/lk1" 2>"$WORK/lk1.err" &
p1=$!
timeout 120 "$GPUFORM" reconcile --kubeconfig "$FP_KC" --insecure-loopback-http --prune --force-prune \
	"$WORK/lk-small.yaml" >"$WORK/lk2" 2>"$WORK/lk2.err" &
p2=$!
t_faultproxy_wait "$WORK/fp-lk" ' -> hold-after$'
held=$?
wait -n "$p1" "$p2"
: >"$WORK/fp-lk/rules.go"
wait "$p1"; rc1=$?
wait "$p2"; rc2=$?
cat "$WORK/lk1" "$WORK/lk1.err" "$WORK/lk2" "$WORK/lk2.err" >>"$ALL_LOG"
RC="$rc1 $rc2" OUT=$(cat "$WORK/lk1" "$WORK/lk2") ERR=$(cat "$WORK/lk1.err" "$WORK/lk2.err")
check "lock: two runs started together without lock options, the lock's taker held until the other ends: one reconciles, the other says the lock is held" \
	'[ "$held" = 0 ] && [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep -c "^reconciled lk:")" = 1 ] &&
	has "not reconciling lk: the run lock"'
check "lock: ... and nothing the winner applied was deleted by the other (audit)" \
	'if grep -q "^reconciled" "$WORK/lk1"; then [ "$(audit_deletes | wc -l)" = 0 ]; else :; fi &&
	{ exists nodepool lk-a || exists nodepool lk-b; }'
# --no-lock: two writers of one inventory; the second adds entries while the first is held
# at its first DELETE by the fault proxy (lk-b is stale for the first: it has one)
gf reconcile "$WORK/lk-small.yaml"
gf reconcile "$WORK/lk.yaml"
intent "$WORK/lk-more.yaml" lk lk-c lk
t_faultproxy_start "$WORK/fp-nl" 2>"$WORK/fp.err" ||
	t_abort "tests/tools/faultproxy.c in front of the API server" "$(cat "$WORK/fp.err")"
echo 'DELETE !dryRun 1 hold' >"$WORK/fp-nl/rules"
timeout 120 "$GPUFORM" reconcile --kubeconfig "$FP_KC" --insecure-loopback-http --no-lock -o json \
	--prune --force-prune "$WORK/lk.yaml" >"$WORK/nl1" 2>"$WORK/nl1.err" &
p1=$!
t_faultproxy_wait "$WORK/fp-nl" ' DELETE [^ ]* -> hold$'
held=$?
gf reconcile --no-lock "$WORK/lk-more.yaml"
rc_more=$RC
: >"$WORK/fp-nl/rules.go"
wait "$p1"; rc1=$?
RC="$rc1 $rc_more" OUT=$(cat "$WORK/nl1") ERR=$(cat "$WORK/nl1.err")
check "lock: --no-lock, a second writer adds NodePool lk-c while the first is held at its first DELETE: the first's inventory write merges it (nothing dropped)" \
	'[ "$held" = 0 ] && [ "$rc1" = 0 ] && [ "$rc_more" = 0 ] && exists nodepool lk-c && inventory lk | gq "^NodePool//lk-c	." &&
	inventory lk | gq "^NodePool//lk-a	."'

# ==== http: credentials never over plain http ===============================================
wipe
cat >"$WORK/kc-http" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: plain, cluster: {server: "http://192.0.2.1:8080"}}]
users: [{name: u, user: {token: "$TOOL_TOKEN"}}]
contexts: [{name: c, context: {cluster: plain, user: u}}]
current-context: c
EOF
GF_KC=$WORK/kc-http gf reconcile --timeout 5s --insecure-loopback-http "$WORK/fresh.yaml"
check "http: a token for a plain http:// server (not loopback) is refused at once, with the flag too, token not shown" \
	'[ "$RC" = 3 ] && has_err "refusing to send them in clear" && ! has_err "$TOOL_TOKEN" && ! has_err "timed out"'
sed -i 's|http://192.0.2.1:8080|http://127.0.0.1:9|' "$WORK/kc-http"
GF_KC=$WORK/kc-http gf reconcile --timeout 5s "$WORK/fresh.yaml"
check "http: loopback http:// with a token, no flag: refused, the flag named" \
	'[ "$RC" = 3 ] && has_err "--insecure-loopback-http"'
GF_KC=$WORK/kc-http gf reconcile --timeout 5s --insecure-loopback-http "$WORK/fresh.yaml"
check "http: loopback http:// with --insecure-loopback-http: it connects (port 9 refuses: exit 4)" \
	'[ "$RC" = 4 ] && ! has_err "refusing to send"'
CA=$(sed -n 's/.*certificate-authority: *"\([^"]*\)".*/\1/p' "$KC" | head -n1)
cat >"$WORK/kc-insecure" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: both, cluster: {server: "$SERVER", insecure-skip-tls-verify: true, certificate-authority: "$CA"}}]
users: [{name: u, user: {token: "$TOOL_TOKEN"}}]
contexts: [{name: c, context: {cluster: both, user: u}}]
current-context: c
EOF
GF_KC=$WORK/kc-insecure gf reconcile "$WORK/fresh.yaml"
check "http: insecure-skip-tls-verify together with a CA is refused (as kubectl does), nothing sent" \
	'[ "$RC" = 3 ] && has_err "with the insecure flag is not allowed" && [ "$(t_audit_tsv | wc -l)" = 0 ]'

# ==== git: credentials in --git URLs =========================================================
OUT=$("$GPUFORM" install --git "https://alice:s3cr3t-pw@git.example.invalid/gitops.git" --cluster x 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
check "git: install --git with user:password in the URL: exit 3, refused, the Secret named, password not shown, no manifests" \
	'[ "$RC" = 3 ] && has_err "carries credentials" && has_err "Secret" && ! has_err "s3cr3t-pw" && [ -z "$OUT" ]'
OUT=$("$GPUFORM" install --git "https://ghp_tokenvalue@git.example.invalid/gitops.git" --cluster x 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
check "git: install --git with a token as user name: refused, token not shown" \
	'[ "$RC" = 3 ] && ! has_err "ghp_tokenvalue"'
OUT=$("$GPUFORM" install --git "ssh://git@git.example.invalid/gitops.git" --cluster x 2>"$WORK/stderr")
RC=$?
check "git: install --git ssh://git@host (a user name, no secret) still works" '[ "$RC" = 0 ] && has "kind: CronJob"'
gf reconcile --timeout 10s --git "http://alice:s3cr3t-pw@127.0.0.1:9/gitops.git" --cluster x --git-cache "$WORK/gc"
check "git: reconcile --git with a password in the URL: a warning on stderr, the password never echoed" \
	'has_err "warning: the --git URL carries a password" && ! has_err "s3cr3t-pw" && ! has "s3cr3t-pw"'

# ==== upgrade: an installation made by the previous gpuform (GPUFORM_OLD, optional) =========
if [[ -n ${GPUFORM_OLD:-} && -x ${GPUFORM_OLD:-} ]]; then
	wipe
	intent "$WORK/up.yaml" up up-a up-ns
	intent "$WORK/up2.yaml" up up-b up-ns
	"$GPUFORM_OLD" reconcile --kubeconfig "$KC" "$WORK/up.yaml" >/dev/null 2>&1
	"$GPUFORM_OLD" reconcile --kubeconfig "$KC" "$WORK/up2.yaml" >/dev/null 2>&1
	gf reconcile -o json "$WORK/up2.yaml"
	check "upgrade: objects and inventory written by $GPUFORM_OLD: exit 0, all unchanged; the only writes: the ownership key and the inventory (proofs)" \
		'[ "$RC" = 0 ] && [ "$(jv .counts.unchanged)" = 8 ] && [ "$(jv .counts.conflict)" = 0 ] &&
		[ "$(t_audit_writes | grep -vc -e "/secrets" -e "/configmaps/gpuform-up")" = 0 ]'
	gf reconcile -o json --prune "$WORK/up2.yaml"
	check "upgrade: --prune keeps the 4 objects that were stale before the upgrade (their entries carry no proof), reported; up-b stays" \
		'[ "$RC" = 0 ] && [ "$(jv .counts.pruned)" = 0 ] && exists nodepool up-a && exists nodepool up-b &&
		jv ".items[] | select(.kind == \"NodePool\" and .name == \"up-a\") | .detail" | gq "no valid ownership proof"'
else
	printf 'skip upgrade: set GPUFORM_OLD to a previous gpuform binary to test an upgrade\n'
fi

if grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$ALL_LOG"; then
	t_fail "no sanitizer report in any run" "$(grep -E -A5 "AddressSanitizer|LeakSanitizer|runtime error:" "$ALL_LOG" | head -n 30)"
else
	t_pass "no sanitizer report in any run"
fi
t_summary
exit
}
