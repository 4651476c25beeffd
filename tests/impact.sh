#!/usr/bin/env bash
# tests/impact.sh: node impact in every diff, and the reconcile guard.
#
#   GPUFORM=build/san/gpuform bash tests/impact.sh [--update]
#
# 1. diff --base (Git only): an AMI bump in an intent shows "replaces nodes" for EVERY pool
#    whose NodePool references the bumped EC2NodeClass (the set is computed independently
#    from the rendered objects); the Markdown PR comment lists node-replacing changes first
#    (reviewed golden file tests/golden-diff/frontier-node-impact.md; --update rewrites it).
# 2. Against a real kube-apiserver + etcd (tests/kube-testenv) with the Karpenter NodeClaim
#    CRD: NodeClaims (labelled karpenter.sh/nodepool, status.nodeName set through the status
#    subresource) and Pods bound with spec.nodeName (there are no kubelets) are created by
#    the test, and
#    - reconcile --dry-run and diff --live show the live counts of NodeClaims and of pods
#      with karpenter.sh/do-not-disrupt, per pool, and fetch them with exactly one NodeClaim
#      LIST and one Pod LIST (audit log); a no-op reconcile makes neither and stays <= 9
#      requests;
#    - reconcile holds back the AMI bump of the protected pools (interruption: none and
#      checkpointed, whose class allows drift only inside the window) outside
#      the maintenance window: exit 5, the change, the pools, the node counts and the next
#      window named, nothing applied (objects and resourceVersions unchanged, 0 writes in
#      the audit log); inside the window it applies without the flag, and outside the
#      window with --allow-node-replacement;
#    - a ServiceAccount that may not list NodeClaims, and a cluster without the NodeClaim
#      CRD, give "count unknown", not a failure.
# GPUFORM_NOW (RFC 3339 UTC) fixes gpuform's clock, so the window checks are deterministic.
# Closing line: "N passed, N failed".

# shellcheck disable=SC2016,SC2034,SC2317 # check conditions: single-quoted, eval'd later
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1

t_isolate
unset GPUFORM_NOW
t_gpuform
update=0
[ "${1:-}" = --update ] && update=1
GOLDEN=$root/tests/golden-diff/frontier-node-impact.md
t_need git jq kubectl curl

WORK=
t_tmpdir WORK
LOG=$WORK/all-runs.log
: >"$LOG"

# check NAME 'CONDITION' (tests/lib.sh): eval'd; on failure shows the last run
has() { printf '%s\n' "$OUT" | gq -F -- "$1"; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
jv() { printf '%s\n' "$OUT" | jq -r "$1" 2>/dev/null; }

# The intent: the frontier example (two EFA training pools, interruption none, window
# Sunday 00:00 UTC for 8h) plus a checkpointed pool on the same EC2NodeClass.
mkdir -p "$WORK/repo/specs"
INTENT=$WORK/repo/specs/frontier.yaml
cp specs/efa-training.yaml "$INTENT"
cat >>"$INTENT" <<'EOF'
    - name: ckpt
      type: training
      gpu: h200
      gpusPerPod: 8
      interruption: checkpointed
      efa: true
      maxGpus: 16
      namespace: pretrain
EOF
OLD_AMI=al2023@v20250505
NEW_AMI=al2023@v20250601
NEWER_AMI=al2023@v20250701

# ==== 1. diff --base ========================================================================
t_git_isolate
g() { git -C "$WORK/repo" "$@"; }
gd() {
	(cd "$WORK/repo" && "$GPUFORM" diff "$@" >"$WORK/stdout" 2>"$WORK/stderr")
	RC=$?
	OUT=$(cat "$WORK/stdout")
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform diff $* (rc=$RC)" "$ERR" >>"$LOG"
}
git init -q -b main "$WORK/repo"
g add specs && g commit -q -m frontier
sed -i "s/$OLD_AMI/$NEW_AMI/" "$INTENT"

# which pools use which EC2NodeClass, from the rendered objects (not from gpuform diff)
"$GPUFORM" render --format json "$INTENT" 2>/dev/null >"$WORK/rendered.json"
USERS=$(jq -r '[.items[] | select(.kind == "NodePool")] | group_by(.spec.template.spec.nodeClassRef.name) |
	.[] | "\(.[0].spec.template.spec.nodeClassRef.name) \([.[].metadata.name] | sort | join(","))"' "$WORK/rendered.json")
N_POOLS=$(jq '[.items[] | select(.kind == "NodePool")] | length' "$WORK/rendered.json")
[ "$N_POOLS" = 3 ] && [ "$USERS" = "gpu-efa b200-pretrain,ckpt,h200-pretrain" ] ||
	t_abort "the intent renders 3 pools, all on EC2NodeClass gpu-efa" "$USERS"

gd --base HEAD --format json specs/frontier.yaml
REPORTED=$(jv '.objects[] | select(.kind == "EC2NodeClass") | "\(.name) \(.impact.pools | join(","))"')
check "1: AMI bump, json: every EC2NodeClass is 'replaces nodes' for exactly the pools that use it" \
	'[ "$RC" = 1 ] && [ "$REPORTED" = "$USERS" ] &&
	[ "$(jv "[.objects[] | select(.kind == \"EC2NodeClass\") | .impact.class] | unique | join(\",\")")" = "replaces nodes" ] &&
	[ "$(jv ".objects[0].impact.rules[0]")" = "dynamic drift: AMI ($OLD_AMI -> $NEW_AMI)" ] &&
	[ "$(jv ".summary | [.replacesNodes, (.replacedPools | join(\",\"))] | join(\" \")")" = "1 b200-pretrain,ckpt,h200-pretrain" ]'
gd --base HEAD specs/frontier.yaml
check "1: AMI bump, text: the impact line names the pools and the rule; the summary leads with it" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq -x "node impact: replaces nodes \[pools b200-pretrain, ckpt, h200-pretrain\]: dynamic drift: AMI ($OLD_AMI -> $NEW_AMI)" &&
	[ "$(printf "%s\n" "$OUT" | tail -n 1)" = "1 node-replacing change (pools b200-pretrain, ckpt, h200-pretrain), 0 may disrupt, 0 no node effect; 1 object changed: 0 added, 0 removed, 1 modified" ]'

# the PR comment lists node-replacing changes first, whatever the render order: h200-pretrain
# moves to B200 (requirements narrowed: its nodes drift) and ckpt's quota grows (no node
# effect); render order puts NodePool ckpt before NodePool h200-pretrain
g checkout -q -- specs
sed -i '0,/^      gpu: h200$/s//      gpu: b200/' "$INTENT"
sed -i 's/^      maxGpus: 16$/      maxGpus: 32/' "$INTENT"
# capacity (docs/plan.md, the markdown's lead): h200-pretrain 8 x p5en.48xlarge (63.30;
# p5e, reserved-only, is left out of EFA h200 pools without reservations, one EFA share
# per pool) = 506.40 -> 8 x p6-b200.48xlarge (113.93) = 911.44; ckpt 2 -> 4 x
# p5en.48xlarge = 126.60 -> 253.20; total 1544.44 -> 2076.08 (catalog prices,
# generator/catalog.tsv)
gd --base HEAD specs/frontier.yaml
text_order=$(printf '%s\n' "$OUT" | grep -E '^modified frontier/NodePool/' | tr '\n' ' ')
gd --base HEAD --format markdown specs/frontier.yaml
cp "$WORK/stdout" "$WORK/got.md"
check "1: markdown: node-replacing changes first in the table and the details (render order differs)" \
	'[ "$RC" = 1 ] && [ "$text_order" = "modified frontier/NodePool/ckpt modified frontier/NodePool/h200-pretrain " ] &&
	[ "$(sed -n "/^| node impact |/,\$p" "$WORK/got.md" | grep "^| " | sed -n 3p)" = "| **replaces nodes** | frontier | NodePool | h200-pretrain | modified |" ] &&
	[ "$(grep -m1 "^<details>" "$WORK/got.md")" = "<details><summary>modified: frontier/NodePool/h200-pretrain (replaces nodes)</summary>" ] &&
	grep -q "^\*\*\(Capacity: [^;]*; \)\{0,1\}\(add-ons: [^;]*; \)\{0,1\}1 node-replacing change (pool h200-pretrain), 0 may disrupt, [0-9]* no node effect; [0-9]* objects changed" "$WORK/got.md" &&
	grep -q "^\*\*Capacity: max \$/hour 1544.44 → 2076.08 (+531.64), max GPUs 144 → 160 (+16), max nodes 18 → 20 (+2); " "$WORK/got.md"'
if ((update)); then
	cp "$WORK/got.md" "$GOLDEN"
	t_note "1: $GOLDEN updated (not a check; review it)"
elif d=$(diff -u "$GOLDEN" "$WORK/got.md" 2>&1); then
	t_pass "1: markdown equals the reviewed tests/golden-diff/frontier-node-impact.md"
else
	t_fail "1: markdown equals the reviewed tests/golden-diff/frontier-node-impact.md" "$(printf '%s\n' "$d" | head -40)"
fi
g checkout -q -- specs

# reserved capacity (docs/reserved-capacity.md): capacityReservationSelectorTerms are not hashed;
# only reserved nodes in a reservation no longer selected drift (CapacityReservationDrift,
# aws/karpenter-provider-aws pkg/cloudprovider/drift.go); adding "reserved" to the capacity types
# widens the requirements
RES=$WORK/repo/specs/reserved.yaml
cp specs/reserved-inference.yaml "$RES"
g add specs && g commit -q -m reserved
sed -i '/^          - id: cr-0123456789abcdef0$/a\          - id: cr-0fedcba9876543210' "$RES"
gd --base HEAD --format json specs/reserved.yaml
check "1: reservation term added: no node effect, and the rule says why" \
	'[ "$RC" = 1 ] && [ "$(jv ".objects[] | select(.kind == \"EC2NodeClass\") | .impact.class")" = "no node effect" ] &&
	jv ".objects[] | select(.kind == \"EC2NodeClass\") | .impact.rules[]" | gq -F "capacity reservation terms only added"'
g checkout -q -- specs
sed -i '/^          - id: cr-0123456789abcdef0$/d' "$RES"
gd --base HEAD --format json specs/reserved.yaml
check "1: reservation term removed: 'replaces nodes' for the pool of the reserved EC2NodeClass" \
	'[ "$RC" = 1 ] && [ "$(jv ".objects[] | select(.kind == \"EC2NodeClass\") | \"\(.name) \(.impact.class) \(.impact.pools | join(\",\"))\"")" = "gpu-reserved-chat replaces nodes chat" ] &&
	jv ".objects[] | select(.kind == \"EC2NodeClass\") | .impact.rules[]" | gq -F "dynamic drift: capacity reservations"'
g checkout -q -- specs
sed -i 's/^        whenExhausted: on-demand$/        whenExhausted: wait/' "$RES"
gd --base HEAD --format json specs/reserved.yaml
check "1: whenExhausted on-demand -> wait: capacity types narrowed to reserved, on-demand nodes replaced" \
	'[ "$RC" = 1 ] && [ "$(jv ".objects[] | select(.kind == \"NodePool\") | .impact.class")" = "replaces nodes" ] &&
	jv ".objects[] | select(.kind == \"NodePool\") | .impact.rules[]" | gq -F "karpenter.sh/capacity-type"'
# ==== 1b. placement (issue 12) ==============================================================
# h200-pretrain moves from us-east-1a to us-east-1b: its zone requirement narrows to a zone its
# nodes are not in (dynamic drift). b200-pretrain gets a placement group: a new EC2NodeClass
# (placementGroupSelector is per class) and its nodeClassRef changes (static drift).
awk '/placement: \{zone: us-east-1a\}/ { n++; if (n == 1) sub(/us-east-1a/, "us-east-1b");
	else sub(/\}/, ", placementGroup: frontier-cpg}") } { print }' "$INTENT" >"$WORK/placed.yaml" &&
	cp "$WORK/placed.yaml" "$INTENT"
gd --base HEAD --format json specs/frontier.yaml
check "1b: placement: zone moved = requirements drift; placement group = new class + nodeClassRef drift" \
	'[ "$RC" = 1 ] &&
	[ "$(jv ".objects[] | select(.name == \"h200-pretrain\") | .impact.class")" = "replaces nodes" ] &&
	jv ".objects[] | select(.name == \"h200-pretrain\") | .impact.rules[0]" | gq -F "no longer satisfy topology.kubernetes.io/zone" &&
	[ "$(jv ".objects[] | select(.name == \"b200-pretrain\") | .impact.rules[0]")" = "static drift: NodePool template hash (spec.template.spec.nodeClassRef)" ] &&
	[ "$(jv ".objects[] | select(.kind == \"EC2NodeClass\") | \"\(.name) \(.change) \(.impact.class)\"")" = "gpu-efa-pg-frontier-cpg added no node effect" ] &&
	[ "$(jv ".summary.replacedPools | join(\",\")")" = "b200-pretrain,h200-pretrain" ]'
g checkout -q -- specs

# ==== 2. the cluster ========================================================================
t_testenv_start nodeclaims.karpenter.sh
k() { timeout 60 kubectl --request-timeout=30s "$@"; }
exists() { k get "$@" >/dev/null 2>&1; }
exists crd nodeclaims.karpenter.sh && k get nodeclaims.karpenter.sh >/dev/null 2>&1 ||
	t_abort "the NodeClaim CRD (tests/fixtures/crds/karpenter.sh_nodeclaims.yaml) is served"

GF_KC=
# gf SUBCOMMAND ARGS...: gpuform as user "tool"; marks the audit log first
gf() {
	local sub=$1
	shift
	t_audit_mark
	OUT=$(timeout 240 "$GPUFORM" "$sub" --kubeconfig "${GF_KC:-$KC}" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $sub $* (rc=$RC, GPUFORM_NOW=${GPUFORM_NOW:-})" "$OUT" "--- stderr" "$ERR" >>"$LOG"
}
# (t_audit_*: tests/lib.sh)
total() { jv '.requests.total // empty'; }
lists_of() { t_audit_tsv "${2:-tool}" | awk -F'\t' -v r="$1" '$1 == "list" && $3 ~ r' | wc -l; }
ami() { k get ec2nodeclass gpu-efa -o jsonpath='{.spec.amiSelectorTerms[0].alias}'; }
# every object of the cluster's kinds with its resourceVersion, and the inventory
snapshot() {
	k get namespaces,configmaps,ec2nodeclasses.karpenter.k8s.aws,nodepools.karpenter.sh,clusterqueues.kueue.x-k8s.io,localqueues.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io \
		-A -o json | jq -c '[.items[] | {kind, ns: .metadata.namespace, name: .metadata.name, rv: .metadata.resourceVersion, spec}] | sort_by(.kind, .ns, .name)'
}

OUTSIDE=2026-12-02T12:00:00Z # a Wednesday: the Sunday 00:00-08:00 window is closed
INSIDE=2026-12-06T03:00:00Z  # Sunday 03:00 UTC: open

# ---- the objects, then NodeClaims and pods the test creates ---------------------------------
sed -i "s/$NEW_AMI/$OLD_AMI/" "$INTENT"
# the last run's stderr without the "reconciling NAME on context ..." line every
# writing run prints first (docs/reconcile-safety.md, "The right cluster")
err_but_banner() { printf '%s\n' "$ERR" | grep -v "^gpuform: reconciling .* on context '.*' (server .*)$"; }

gf reconcile -o json "$INTENT"
check "2: first reconcile: exit 0, everything created, nothing replaces nodes (no NodeClaim/Pod LIST)" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.failed)" = 0 ] && [ "$(jv .nodeImpact.replacesNodes)" = 0 ] &&
	[ "$(jv "[.items[] | select(.kind == \"NodePool\") | .impact.rules[0]] | unique | join(\",\")")" = "new NodePool: no nodes yet" ]'

claim() { # NAME POOL NODE
	k apply -f - >/dev/null <<EOF || return 1
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: $1
  labels: {karpenter.sh/nodepool: $2}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu-efa}
  requirements:
  - {key: karpenter.sh/nodepool, operator: In, values: [$2]}
EOF
	k patch nodeclaim "$1" --subresource=status --type merge -p "{\"status\":{\"nodeName\":\"$3\"}}" >/dev/null
}
pod() { # NAME NODE DO-NOT-DISRUPT ("-": none)
	local ann=''
	[[ $3 != - ]] && ann="annotations: {karpenter.sh/do-not-disrupt: \"$3\"}"
	k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: jobs
  $ann
spec:
  nodeName: $2
  automountServiceAccountToken: false
  containers: [{name: c, image: registry.example/trainer:1}]
EOF
}
setup_ok=1
k create namespace jobs >/dev/null 2>&1
k create serviceaccount default -n jobs >/dev/null 2>&1 # no controller-manager creates it
claim h200-a h200-pretrain node-h200-a && claim h200-b h200-pretrain node-h200-b &&
	claim h200-c h200-pretrain node-h200-c && claim b200-a b200-pretrain node-b200-a &&
	claim b200-b b200-pretrain node-b200-b && claim ckpt-a ckpt node-ckpt-a &&
	claim other-a other node-other-a && claim h200-pending h200-pretrain node-h200-x || setup_ok=0
# h200-pending: a NodeClaim whose node has not registered yet (no nodeName)
k patch nodeclaim h200-pending --subresource=status --type merge -p '{"status":{"nodeName":null}}' >/dev/null 2>&1
pod train-0 node-h200-a true && pod train-1 node-h200-a true && pod train-2 node-h200-b 30m &&
	pod plain node-h200-c - && pod not-protected node-b200-a false && pod train-3 node-b200-b true &&
	pod elsewhere node-other-a true || setup_ok=0
((setup_ok)) && [ "$(k get nodeclaims -o json | jq "[.items[] | select(.status.nodeName)] | length")" = 7 ] &&
	[ "$(k get pods -n jobs -o json | jq "[.items[] | select(.spec.nodeName)] | length")" = 7 ] ||
	t_abort "8 NodeClaims (4 h200, 2 b200, 1 ckpt, 1 other pool), 7 with status.nodeName, 7 bound pods" \
		"$(k get nodeclaims -o wide 2>&1; k get pods -n jobs -o wide 2>&1)"
# expected: h200-pretrain 4 NodeClaims, 3 pods with do-not-disrupt (true, true, 30m; not the
# plain one); b200-pretrain 2 and 1 ("false" does not protect); ckpt 1 and 0; "other" not ours

gf reconcile -o json "$INTENT"
t_audit_sync "$(total)"
# <= 10: one of them reads the kube-system Namespace (the cluster's identity)
check "2: no-op reconcile: exit 0, <= 10 requests, no NodeClaim or Pod LIST" \
	'[ "$RC" = 0 ] && [ "$(jv .requests.writes)" = 0 ] && [ "$(total)" -le 10 ] &&
	[ "$(lists_of nodeclaims)" = 0 ] && [ "$(lists_of /pods)" = 0 ]'

# ---- the AMI bump -------------------------------------------------------------------------
sed -i "s/$OLD_AMI/$NEW_AMI/" "$INTENT"
export GPUFORM_NOW=$OUTSIDE
gf reconcile --dry-run "$INTENT"
t_audit_sync 1
check "2: reconcile --dry-run: exit 1, 'replaces nodes' with live counts for every pool on gpu-efa" \
	'[ "$RC" = 1 ] && has "ec2nodeclass.karpenter.k8s.aws/gpu-efa configured (dry run)" &&
	has "  node impact: replaces nodes [pools b200-pretrain, ckpt, h200-pretrain: 7 NodeClaims, 4 do-not-disrupt pods]: dynamic drift: AMI ($OLD_AMI -> $NEW_AMI)" &&
	printf "%s\n" "$OUT" | tail -n 1 | gq "^dry run for frontier: 1 node-replacing change (pools b200-pretrain, ckpt, h200-pretrain: 7 NodeClaims, 4 do-not-disrupt pods), 0 may disrupt, 0 no node effect; 0 created, 1 configured"'
check "2: reconcile --dry-run outside the window: stderr says what a real run would hold back; nothing written" \
	'has_err "would be held back: EC2NodeClass gpu-efa (dynamic drift: AMI ($OLD_AMI -> $NEW_AMI)) replaces the nodes of pool h200-pretrain (interruption: none; 4 NodeClaims, 3 do-not-disrupt pods)" &&
	has_err "pool b200-pretrain (interruption: none; 2 NodeClaims, 1 do-not-disrupt pod)" &&
	has_err "pool ckpt (interruption: checkpointed; 1 NodeClaim, 0 do-not-disrupt pods)" &&
	[ "$(t_audit_nwrites)" = 0 ]'
gf reconcile --dry-run -o json "$INTENT"
t_audit_sync "$(total)"
check "2: -o json: per-pool counts, exactly one NodeClaim LIST and one Pod LIST (audit)" \
	'[ "$RC" = 1 ] && [ "$(jv "[.nodeImpact.pools[] | \"\(.name)=\(.nodeClaims)/\(.doNotDisruptPods)\"] | join(\",\")")" = "b200-pretrain=2/1,ckpt=1/0,h200-pretrain=4/3" ] &&
	[ "$(jv "[.items[] | select(.kind == \"EC2NodeClass\") | .impact.class] | join(\",\")")" = "replaces nodes" ] &&
	[ "$(lists_of nodeclaims)" = 1 ] && [ "$(lists_of /pods)" = 1 ] &&
	t_audit_tsv | gq "labelSelector=karpenter.sh%2Fnodepool"'
gf diff --live "$INTENT"
check "2: diff --live: the impact line with counts and when it takes effect before the diff, the summary last" \
	'[ "$RC" = 1 ] && [ "$(printf "%s\n" "$OUT" | head -n 1)" = "node impact: replaces nodes [pools b200-pretrain, ckpt, h200-pretrain: 7 NodeClaims, 4 do-not-disrupt pods]: dynamic drift: AMI ($OLD_AMI -> $NEW_AMI); takes effect at the next opening of the maintenance window \"0 0 * * sun\" (8h); drift is blocked outside it" ] &&
	printf "%s\n" "$OUT" | sed -n 2p | gq "^--- live/ec2nodeclass.karpenter.k8s.aws/gpu-efa" &&
	[ "$(printf "%s\n" "$OUT" | tail -n 1)" = "1 node-replacing change (pools b200-pretrain, ckpt, h200-pretrain: 7 NodeClaims, 4 do-not-disrupt pods), 0 may disrupt, 0 no node effect" ]'

BEFORE=$(snapshot)
gf reconcile "$INTENT"
t_audit_sync 1
AFTER=$(snapshot)
# (issue 17: only the node-replacing object is held back; one held change that replaces
# the nodes of two protected pools counts once)
check "2: reconcile outside the window: exit 5, held back, the change, pools, node counts and next window named" \
	'[ "$RC" = 5 ] &&
	has_err "gpuform: held back: EC2NodeClass gpu-efa (dynamic drift: AMI ($OLD_AMI -> $NEW_AMI)) replaces the nodes of pool h200-pretrain (interruption: none; 4 NodeClaims, 3 do-not-disrupt pods) outside its maintenance window \"0 0 * * sun\" for 8h; the window next opens at 2026-12-06T00:00:00Z (in 3d 12h 0m)" &&
	has_err "pool b200-pretrain (interruption: none; 2 NodeClaims, 1 do-not-disrupt pod)" &&
	has_err "pool ckpt (interruption: checkpointed; 1 NodeClaim, 0 do-not-disrupt pods) outside its maintenance window" &&
	has_err "1 change was held back (held back: a node-replacing change to a pool with '"'"'interruption: none'"'"' or '"'"'checkpointed'"'"' outside its maintenance window; pass --allow-node-replacement to apply it); everything else was applied" &&
	has "ec2nodeclass.karpenter.k8s.aws/gpu-efa skipped: held back: a node-replacing change"'
check "2: ... it was the only change, so nothing was written: 0 writes (audit), every object and resourceVersion unchanged, old AMI live" \
	'[ "$(t_audit_nwrites)" = 0 ] && [ -n "$BEFORE" ] && [ "$BEFORE" = "$AFTER" ] && [ "$(ami)" = "$OLD_AMI" ]'

# the guard holds back only the node-replacing object: in the same run, a change without node
# effect (ckpt's quota) is applied, and the exit status still says something was held (5)
sed -i 's/^      maxGpus: 16$/      maxGpus: 20/' "$INTENT"
gf reconcile "$INTENT"
t_audit_sync 1
check "2: AMI bump + quota change outside the window: exit 5, the AMI held back (old AMI live), the quota applied" \
	'[ "$RC" = 5 ] && has "ec2nodeclass.karpenter.k8s.aws/gpu-efa skipped: held back" &&
	has "nodepool.karpenter.sh/ckpt configured" && [ "$(ami)" = "$OLD_AMI" ] &&
	has_err "1 change was held back" && has_err "everything else was applied" &&
	t_audit_writes | gq "^patch	200	/apis/karpenter.sh/v1/nodepools/ckpt?" &&
	! t_audit_writes | gq "ec2nodeclasses/gpu-efa"'

# the CronJob's mode (issue 26): the same hold is recorded (Event, status, metrics) and
# exits 0, so the Job succeeds instead of failing every 5 minutes until the window opens
gf reconcile --events --held-exit-code 0 --metrics-file "$WORK/held.prom" "$INTENT"
HELD_EV=$(k get events -n gpuform-system --field-selector "reason=NodeReplacementHeld" -o json |
	jq -r '.items[] | "\(.type) \(.involvedObject.name) \(.message)"')
HELD_ST=$(k get configmap -n gpuform-system gpuform-frontier -o json |
	jq -r '.metadata.annotations["gpuform.io/last-result"]')
check "2: --events --held-exit-code 0 (the CronJob): the hold exits 0, AMI still held back; Event NodeReplacementHeld, last-result held, metrics held" \
	'[ "$RC" = 0 ] && has_err "1 change was held back" && [ "$(ami)" = "$OLD_AMI" ] &&
	printf "%s\n" "$HELD_EV" | gq "^Warning gpuform-frontier held back: " && [ "$HELD_ST" = held ] &&
	grep -qx "gpuform_last_run_held{cluster=\"frontier\"} 1" "$WORK/held.prom" &&
	grep -qx "gpuform_runs_total{cluster=\"frontier\",result=\"held\"} 1" "$WORK/held.prom" &&
	grep -qx "gpuform_runs_total{cluster=\"frontier\",result=\"failed\"} 0" "$WORK/held.prom"'
gf reconcile --metrics-file "$WORK/held.prom" --pushgateway http://127.0.0.1:9/ --held-exit-code 0 "$INTENT"
check "2: ... a hold that could not be recorded (the Pushgateway is unreachable) fails: exit 4, not 0" \
	'[ "$RC" = 4 ] && has_err "pushgateway"'
gf reconcile --held-exit-code 0 "$INTENT"
check "2: ... --held-exit-code 0 with nothing that records the hold is a usage error (exit 2)" \
	'[ "$RC" = 2 ] && has_err "--held-exit-code 0 needs --events, --metrics-file or --pushgateway"'
gf reconcile --events --held-exit-code 0 --kubeconfig /nonexistent "$INTENT"
check "2: ... a real failure still fails with --held-exit-code 0 (no kubeconfig: exit 4)" '[ "$RC" = 4 ]'

# the CronJob's own command line, run as the kubelet runs its container (from Git: a bare
# repository `gpuform commit` wrote, only the URL and the cache directory swapped); the
# exit status is what the Job controller sees: 0 = the pod succeeds, the Job completes
git init -q --bare "$WORK/gitops.git" &&
	"$GPUFORM" commit --repo "$WORK/gitops.git" --branch main --author 'Test <t@example.test>' \
		"$INTENT" >/dev/null 2>&1 &&
	"$GPUFORM" install --git "$WORK/gitops.git" --cluster frontier --format json \
		--cronjob-api-version batch/v1beta1 >"$WORK/install.json" 2>/dev/null ||
	t_abort "the CronJob of a local Git repository (gpuform commit, gpuform install)"
mapfile -t argv < <(jq -r '.items[] | select(.kind == "CronJob") |
	.spec.jobTemplate.spec.template.spec.containers[0].args[]' "$WORK/install.json" |
	sed "s|^/var/cache/gpuform/git$|$WORK/git-cache|")
# (through libgit2: its known leaks suppressed, as in tests/incluster.sh)
LSAN_OPTIONS="suppressions=$root/tests/git-servers/lsan.supp:${LSAN_OPTIONS:-}" gf "${argv[@]}"
check "2: the CronJob's command line (reconcile --git ... --events --held-exit-code 0) with the change held: exit 0, AMI held back" \
	'[ "${argv[0]}" = reconcile ] && printf "%s\n" "${argv[@]}" | gq -x -- --held-exit-code &&
	[ "$RC" = 0 ] && has_err "1 change was held back" && [ "$(ami)" = "$OLD_AMI" ]'
# the Job the CronJob creates: the API server accepts it as the CronJob templates it
# (restartPolicy OnFailure: a container that exits 0 completes the pod and the Job)
k create serviceaccount -n gpuform-system gpuform >/dev/null 2>&1 ||
	exists serviceaccount -n gpuform-system gpuform || t_abort "ServiceAccount gpuform-system/gpuform"
RC=0
OUT=$(jq '.items[] | select(.kind == "CronJob") | {apiVersion: "batch/v1", kind: "Job",
	metadata: {name: "gpuform-reconcile-held", namespace: .metadata.namespace}, spec: .spec.jobTemplate.spec}' \
	"$WORK/install.json" | k create --dry-run=server -o json -f - 2>&1) || RC=$?
check "2: ... its Job (the CronJob's jobTemplate) is accepted by the API server: restartPolicy OnFailure, backoffLimit 2" \
	'[ $RC = 0 ] && [ "$(jv ".spec.template.spec.restartPolicy, .spec.backoffLimit" | tr "\n" " ")" = "OnFailure 2 " ]'

# a change that replaces no node is not held back
sed -i "s/$NEW_AMI/$OLD_AMI/" "$INTENT"
sed -i 's/^      maxGpus: 20$/      maxGpus: 24/' "$INTENT"
gf reconcile "$INTENT"
check "2: outside the window, a change without node effect (limits, quota) applies: exit 0" \
	'[ "$RC" = 0 ] && has "nodepool.karpenter.sh/ckpt configured" &&
	has "  node impact: no node effect: behavioural field: spec.limits (not hashed)" && [ -z "$(err_but_banner)" ]'
sed -i "s/$OLD_AMI/$NEW_AMI/" "$INTENT"

export GPUFORM_NOW=$INSIDE
gf reconcile "$INTENT"
check "2: inside the window: the AMI bump applies without the flag (exit 0, new AMI live)" \
	'[ "$RC" = 0 ] && [ "$(ami)" = "$NEW_AMI" ] && [ -z "$(err_but_banner)" ] && [ "$(t_audit_nwrites)" -ge 1 ]'

export GPUFORM_NOW=$OUTSIDE
sed -i "s/$NEW_AMI/$NEWER_AMI/" "$INTENT"
gf reconcile --allow-node-replacement "$INTENT"
check "2: outside the window with --allow-node-replacement: applied (exit 0), stderr says it was allowed" \
	'[ "$RC" = 0 ] && [ "$(ami)" = "$NEWER_AMI" ] &&
	has_err "allowed by --allow-node-replacement: EC2NodeClass gpu-efa (dynamic drift: AMI ($NEW_AMI -> $NEWER_AMI)) replaces the nodes of pool h200-pretrain"'

# ---- requirements: only the nodes outside the new requirements drift ----------------------
# the NodeClaims get the labels Karpenter puts on them; h200-c (and the pending one) run on
# p5en, the others on p5e. A rendered directory whose h200-pretrain NodePool drops p5en
# from its families (a hand edit, as a user may make) drifts exactly h200-c and the pending
# claim: 2 NodeClaims, and no do-not-disrupt pod (node-h200-c runs only "plain"). All are in
# us-east-1a, the zone the intent pins h200-pretrain to.
for c in h200-a:p5e h200-b:p5e h200-c:p5en h200-pending:p5en; do
	k label --overwrite nodeclaim "${c%%:*}" karpenter.k8s.aws/instance-family="${c#*:}" \
		karpenter.k8s.aws/instance-gpu-name=h200 karpenter.k8s.aws/instance-gpu-count=8 \
		karpenter.sh/capacity-type=on-demand kubernetes.io/arch=amd64 kubernetes.io/os=linux \
		topology.kubernetes.io/zone=us-east-1a >/dev/null
done
"$GPUFORM" render -o "$WORK/rendered" "$INTENT" 2>>"$LOG"
sed -i '/^        - p5en$/d' "$WORK/rendered/nodepool-h200-pretrain.yaml"
gf reconcile --dry-run -o json "$WORK/rendered"
check "2: requirements narrowed: 'replaces nodes' counts only the NodeClaims outside them (2 of 4)" \
	'[ "$RC" = 1 ] && [ "$(jv "[.items[] | select(.kind == \"NodePool\" and .result == \"configured\") | .name] | join(\",\")")" = h200-pretrain ] &&
	[ "$(jv "[.items[] | select(.name == \"h200-pretrain\" and .kind == \"NodePool\") | .impact.rules[0]] | join(\",\")")" = "dynamic drift: requirements (nodes whose labels no longer satisfy karpenter.k8s.aws/instance-family are replaced)" ] &&
	[ "$(jv "[.nodeImpact.pools[] | \"\(.name)=\(.nodeClaims)/\(.doNotDisruptPods)\"] | join(\",\")")" = "h200-pretrain=2/0" ]'
gf reconcile "$WORK/rendered"
check "2: ... held back outside the window (exit 5) with that count, no object written (the inventory notes the new source)" \
	'[ "$RC" = 5 ] && has_err "held back: NodePool h200-pretrain (dynamic drift: requirements" &&
	has_err "replaces the nodes of pool h200-pretrain (interruption: none; 2 NodeClaims, 0 do-not-disrupt pods)" &&
	[ "$(t_audit_writes | grep -vc "/namespaces/gpuform-system/configmaps/gpuform-")" = 0 ]'
k label --overwrite nodeclaim h200-c h200-pending karpenter.k8s.aws/instance-family=p5e >/dev/null
gf reconcile "$WORK/rendered"
check "2: ... and once every node satisfies them (all on p5e) nothing drifts: applied outside the window (exit 0)" \
	'[ "$RC" = 0 ] && has "nodepool.karpenter.sh/h200-pretrain configured" &&
	has "  node impact: replaces nodes [pool h200-pretrain: 0 NodeClaims, 0 do-not-disrupt pods]" && [ -z "$(err_but_banner)" ]'

GPUFORM_NOW=yesterday gf reconcile "$INTENT"
check "2: a malformed GPUFORM_NOW is a usage error (exit 2), nothing sent" \
	'[ "$RC" = 2 ] && has_err "GPUFORM_NOW" && [ "$(t_audit_tsv | wc -l)" = 0 ]'

# ---- counts unknown: 403, and no NodeClaim CRD --------------------------------------------
sed -i "s/$NEWER_AMI/$NEW_AMI/" "$INTENT"
SA_NS=gpuform-impact-authz
k apply -f - >/dev/null 2>&1 <<EOF
apiVersion: v1
kind: Namespace
metadata: {name: $SA_NS}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: applier, namespace: $SA_NS}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gpuform-impact-applier}
rules:
- apiGroups: [""]
  resources: [namespaces, configmaps]
  verbs: [get, list, patch]
- apiGroups: [karpenter.sh, karpenter.k8s.aws]
  resources: [nodepools, ec2nodeclasses]
  verbs: [get, list, patch]
- apiGroups: [kueue.x-k8s.io]
  resources: [resourceflavors, clusterqueues, localqueues, workloadpriorityclasses]
  verbs: [get, list, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gpuform-impact-applier}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gpuform-impact-applier}
subjects:
- {kind: ServiceAccount, name: applier, namespace: $SA_NS}
EOF
SA_TOKEN=$(k create token applier -n "$SA_NS" --duration 1h 2>/dev/null)
TOOL_TOKEN=$(sed -n 's/.*token: "\([^"]*\)".*/\1/p' "$KC")
if [[ -z $SA_TOKEN || -z $TOOL_TOKEN ]]; then
	RC=- OUT= ERR=
	check "2: a ServiceAccount token without NodeClaim access" false
else
	sed "s/$TOOL_TOKEN/$SA_TOKEN/" "$KC" >"$WORK/kc-sa"
	GF_KC=$WORK/kc-sa gf reconcile --dry-run -o json "$INTENT"
	GF_KC=
	check "2: no permission to list NodeClaims (403): counts unknown, not a failure (exit 1 = changes)" \
		'[ "$RC" = 1 ] && [ "$(jv .nodeImpact.replacesNodes)" = 1 ] &&
		[ "$(jv "[.nodeImpact.pools[].nodeClaims] | unique | map(tostring) | join(\",\")")" = "null" ] &&
		jv .nodeImpact.countsUnknown | gq "403" && [ -z "$(jv ".error // empty")" ]'
	# (the account may not write Leases: no run lock)
	GF_KC=$WORK/kc-sa gf reconcile --no-lock "$INTENT"
	GF_KC=
	check "2: ... and reconcile still holds the change back, saying the count is unknown (exit 5)" \
		'[ "$RC" = 5 ] && has_err "pool h200-pretrain (interruption: none; NodeClaim count unknown)"'
fi
k delete crd nodeclaims.karpenter.sh >/dev/null 2>&1
for ((i = 0; i < 50; i++)); do exists crd nodeclaims.karpenter.sh || break; sleep 0.2; done
gf diff --live "$INTENT"
check "2: no NodeClaim CRD: diff --live says 'NodeClaim count unknown' and works (exit 1)" \
	'[ "$RC" = 1 ] && [ "$(printf "%s\n" "$OUT" | head -n 1)" = "node impact: replaces nodes [pools b200-pretrain, ckpt, h200-pretrain: NodeClaim count unknown]: dynamic drift: AMI ($NEWER_AMI -> $NEW_AMI); takes effect at the next opening of the maintenance window \"0 0 * * sun\" (8h); drift is blocked outside it" ]'

# ---- sanitizer reports --------------------------------------------------------------------
RC=- OUT= ERR=$(grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$LOG" | head -n 5)
check "no sanitizer report in any run" '[ -z "$ERR" ]'

t_summary
exit
}
