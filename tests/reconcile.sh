#!/usr/bin/env bash
# tests/reconcile.sh: acceptance tests of `gpuform reconcile` and `gpuform diff --live`
# against a real kube-apiserver + etcd (tests/kube-testenv) with the real Karpenter and
# Kueue CRDs. The server's audit log (one JSON line per request) is the witness: every
# "nothing was written" is checked there, not only in gpuform's own report.
#
#   GPUFORM=build/san/gpuform bash tests/reconcile.sh
#
# GPUFORM              the binary (default ./gpuform)
# GPUFORM_TESTENV_DIR  use that running testenv (kube-testenv start DIR) instead of starting
#                      one (~20 s). It must hold no gpuform cluster "ml-prod" yet, and its
#                      API server is killed and restarted once (section 6).
# RECONCILE_BIG_N      workloads added to ml-prod for the interrupted run (default 200:
#                      about 830 objects, ~5 s of dry runs then ~5 s of writes)
#
# The measured gpuform runs use DIR/kubeconfig-tool (user "tool"), kubectl uses the admin
# user, so the audit log tells them apart. One cluster (ml-prod) is reconciled per server.
# Everything is on 127.0.0.1 and every wait is bounded. Closing line: "N passed, N failed".

# shellcheck disable=SC2016,SC2034,SC2317 # check conditions: single-quoted, eval'd later
# (POSIX preamble: `sh tests/reconcile.sh` re-runs this under bash.)
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
# One brace group, parsed whole before it runs: editing this file during a run is harmless.
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
T_START=$(date +%s)

# never through a proxy, never the developer's kubeconfig; LC_ALL=C: one sort order for
# sort, comm and jq
t_isolate
t_gpuform
t_need kubectl jq curl

WORK=
t_tmpdir WORK
ALL_LOG=$WORK/all-gpuform-runs.log   # every gpuform run's output, for the sanitizer check
: >"$ALL_LOG"
SPEC=specs/ml-prod.yaml                # always this exact path: the inventory records it
CLUSTER=ml-prod
INV_NS=gpuform-system
INV=gpuform-$CLUSTER
BIG_N=${RECONCILE_BIG_N:-200}
KINDS=namespaces,configmaps,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh,nodepools.karpenter.sh,workloadpriorityclasses.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,localqueues.kueue.x-k8s.io

# ---- helpers -----------------------------------------------------------------------------

# kubectl as the admin user (not the measured one), bounded
k() { timeout 60 kubectl --request-timeout=30s "$@"; }

# gf SUBCOMMAND ARGS...: run gpuform as user "tool" (or with $GF_KC); stdout in $OUT,
# stderr in $ERR, exit status in $RC, duration in $MS. Marks the audit log first, so
# audit_* see this run's requests only.
GF_KC=
gf() {
	local sub=$1 t0
	shift
	t_audit_mark
	t0=$(date +%s%N)
	OUT=$(timeout 240 "$GPUFORM" "$sub" --kubeconfig "${GF_KC:-$KC}" "$@" 2>"$WORK/stderr")
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $sub $* (rc=$RC, ${MS} ms)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
# jv JQ-EXPR: a value from the last run's -o json output
jv() { printf '%s\n' "$OUT" | jq -r "$1" 2>/dev/null; }
has() { printf '%s\n' "$OUT" | gq -F -- "$1"; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
# shown_out: the last run's stdout for a failure report (-o json: the counts, the requests
# and the items that are not "unchanged", one a line)
shown_out() {
	if jv .counts >/dev/null && [[ -n $(jv '.counts // empty') ]]; then
		jv '{counts, requests, error}' | jq -c .
		jv '.items[] | select(.result != "unchanged") | {kind, namespace, name, result, detail}' |
			jq -c 'del(..|nulls)' | head -n 30
	else
		printf '%s\n' "$OUT" | head -n 40
	fi
}
# check NAME 'CONDITION' (tests/lib.sh) shows this on a failure; t_audit_*: tests/lib.sh
t_detail() {
	printf 'condition: %s\nrc=%s (%s ms)\n--- stdout\n%s\n--- stderr\n%s\n' \
		"$1" "$RC" "${MS:-?}" "$(shown_out)" "$(printf '%s\n' "$ERR" | head -n 20)"
}
# total requests of the last run: from -o json, else from the summary line
run_total() {
	local t
	t=$(jv '.requests.total // empty')
	[[ -n $t ]] || t=$(printf '%s\n' "$OUT" | sed -n 's/.*(\([0-9]*\) API requests, [0-9]* writes)$/\1/p' | tail -n1)
	printf '%s' "$t"
}

# key lists "Kind/namespace/name", sorted
desired_keys() { # FILE-OR-DIR
	"$GPUFORM" render --format json "$1" 2>/dev/null |
		jq -r '.items[] | "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)"' | sort
}
live_keys() { # objects carrying our part-of label
	k get "$KINDS" -A -l "applyset.kubernetes.io/part-of=$APPLYSET_ID" -o json |
		jq -r '.items[] | "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)\t\(.metadata.uid)"' | sort
}
inventory_keys() { # "key<TAB>uid" from the inventory ConfigMap
	k get configmap -n "$INV_NS" "$INV" -o json |
		jq -r '.data.inventory | fromjson | .[] | "\(.kind)/\(.namespace // "")/\(.name)\t\(.uid // "")"' | sort
}
exists() { k get "$@" >/dev/null 2>&1; }
gpu_limit() { k get nodepool "$1" -o jsonpath='{.spec.limits.nvidia\.com/gpu}' 2>/dev/null; }

# ---- the API server ----------------------------------------------------------------------
t_testenv_start
t_testenv_unused "$INV_NS" "$INV"

DESIRED=$(desired_keys "$SPEC")
N_OBJ=$(printf '%s\n' "$DESIRED" | grep -c .)
N_KINDS=$(printf '%s\n' "$DESIRED" | cut -d/ -f1 | sort -u | wc -l)

# ==== 1. create, then a no-op run ===========================================================
gf reconcile -o json "$SPEC"
t_audit_sync "$(run_total)"
FIRST_WRITES=$(jv .requests.writes)
check "1: first reconcile of $SPEC: exit 0, every one of the $N_OBJ rendered objects created" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.created)" = "$N_OBJ" ] && [ "$(jv .counts.failed)" = 0 ] &&
	[ "$(jv ".items | length")" = "$N_OBJ" ]'
check "1: first run: the audit log shows requests.writes ($FIRST_WRITES) real writes and requests.total requests by 'tool'" \
	'[ -n "$FIRST_WRITES" ] && [ "$(t_audit_nwrites)" = "$FIRST_WRITES" ] &&
	[ "$(t_audit_tsv | wc -l)" = "$(jv .requests.total)" ] &&
	[ "$(t_audit_tsv | grep -c "[?&]dryRun=")" = "$(jv .requests.dryRuns)" ]'
APPLYSET_ID=$(k get configmap -n "$INV_NS" "$INV" -o jsonpath='{.metadata.labels.applyset\.kubernetes\.io/id}' 2>/dev/null)
want_id="applyset-$(printf '%s' "$INV.$INV_NS.ConfigMap." | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')-v1"
RC=- OUT=$APPLYSET_ID ERR=
check "1: inventory $INV_NS/$INV has kubectl's ApplySet id ($want_id)" '[ "$APPLYSET_ID" = "$want_id" ]'
[[ -n $APPLYSET_ID ]] || APPLYSET_ID=$want_id
if [[ $(live_keys | cut -f1) == "$DESIRED" ]]; then
	t_pass "1: exactly the rendered objects carry the ApplySet part-of label"
else
	t_fail "1: exactly the rendered objects carry the ApplySet part-of label" \
		"$(diff <(printf '%s\n' "$DESIRED") <(live_keys | cut -f1))"
fi

gf reconcile -o json "$SPEC"
t_audit_sync "$(run_total)"
# kinds + 2: one LIST per kind, the inventory and the kube-system Namespace (the
# cluster's identity, reconcile/identity.h)
check "1: second run: exit 0, all $N_OBJ unchanged, requests.writes == 0, total $(jv .requests.total) <= $N_KINDS kinds + 2" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.unchanged)" = "$N_OBJ" ] && [ "$(jv .requests.writes)" = 0 ] &&
	[ "$(jv .requests.total)" -le $((N_KINDS + 2)) ]'
check "1: second run: the audit log shows 0 writes by 'tool' ($(t_audit_tsv | wc -l) requests)" \
	'[ "$(t_audit_nwrites)" = 0 ] && [ "$(t_audit_tsv | wc -l)" = "$(jv .requests.total)" ]'

gf reconcile "$SPEC"
check "1: text output: one line per object and the summary" \
	'[ "$RC" = 0 ] && has "nodepool.karpenter.sh/llm-pretrain unchanged" &&
	has "localqueue.kueue.x-k8s.io/llm-pretrain -n research unchanged" &&
	printf "%s\n" "$OUT" | gq -E "^reconciled $CLUSTER: 0 created, 0 configured, $N_OBJ unchanged, 0 pruned \([0-9]+ API requests, 0 writes\)$" &&
	[ "$(printf "%s\n" "$OUT" | wc -l)" = $((N_OBJ + 1)) ]'

# ==== 2. drift from an imperative edit ======================================================
k patch nodepool llm-pretrain --type merge --field-manager kubectl-edit \
	-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
gf diff --live "$SPEC"
t_audit_sync
check "2: diff --live: exit 1 and a unified diff of spec.limits (999 -> 128) for llm-pretrain only" \
	'[ "$RC" = 1 ] && has "--- live/nodepool.karpenter.sh/llm-pretrain" &&
	has "+++ desired/nodepool.karpenter.sh/llm-pretrain" &&
	printf "%s\n" "$OUT" | gq -x -- "-    nvidia.com/gpu: \"999\"" &&
	printf "%s\n" "$OUT" | gq -x -- "+    nvidia.com/gpu: \"128\"" &&
	printf "%s\n" "$OUT" | gq "^@@ " && [ "$(printf "%s\n" "$OUT" | grep -c "^--- ")" = 1 ]'
check "2: diff --live wrote nothing (audit)" '[ "$(t_audit_nwrites)" = 0 ]'

gf reconcile --dry-run "$SPEC"
t_audit_sync "$(run_total)"
check "2: reconcile --dry-run: exit 1, 'configured (dry run)', nothing written (audit), live value still 999" \
	'[ "$RC" = 1 ] && has "nodepool.karpenter.sh/llm-pretrain configured (dry run)" &&
	[ "$(t_audit_nwrites)" = 0 ] && [ "$(gpu_limit llm-pretrain)" = 999 ]'

gf reconcile -o json "$SPEC"
t_audit_sync "$(run_total)"
check "2: reconcile takes the field back: exit 0, exactly 1 item configured (llm-pretrain), value 128" \
	'[ "$RC" = 0 ] && [ "$(jv "[.items[] | select(.result == \"configured\")] | length")" = 1 ] &&
	[ "$(jv ".items[] | select(.result == \"configured\") | .name")" = llm-pretrain ] &&
	[ "$(gpu_limit llm-pretrain)" = 128 ]'
check "2: the audit log shows exactly 1 real PATCH to nodepools (llm-pretrain)" \
	'[ "$(t_audit_writes | awk -F"\t" "\$3 ~ /\\/nodepools\\//" | wc -l)" = 1 ] &&
	t_audit_writes | awk -F"\t" "\$3 ~ /\\/nodepools\\//" | gq "^patch	.*/nodepools/llm-pretrain?"'
gf diff --live "$SPEC"
check "2: afterwards diff --live: exit 0, no output" '[ "$RC" = 0 ] && [ -z "$OUT" ] && [ -z "$ERR" ]'

# ==== 4. conflict with another apply manager ================================================
cat >"$WORK/other-gitops.yaml" <<'EOF'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: llm-pretrain
spec:
  limits:
    nvidia.com/gpu: "64"
EOF
if ! out=$(k apply --server-side --validate=false --force-conflicts --field-manager=other-gitops \
	-f "$WORK/other-gitops.yaml" 2>&1); then
	t_fail "4: kubectl apply --server-side --field-manager=other-gitops" "$out"
fi
# and a second object drifts at the same time (an imperative edit: gpuform would take it back)
k patch nodepool chat-serving --type merge --field-manager kubectl-edit \
	-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
gf reconcile "$SPEC"
t_audit_sync "$(run_total)"
check "4: conflict: exit 4, the field .spec.limits.nvidia.com/gpu and the manager other-gitops named" \
	'[ "$RC" = 4 ] && has "nodepool.karpenter.sh/llm-pretrain conflict" &&
	printf "%s\n%s\n" "$OUT" "$ERR" | grep -F "other-gitops" | grep -F ".spec.limits.nvidia.com/gpu" >/dev/null'
check "4: conflict: nothing applied -- no real write in the audit log, neither value changed (64, 999)" \
	'[ "$(t_audit_nwrites)" = 0 ] && [ "$(gpu_limit llm-pretrain)" = 64 ] && [ "$(gpu_limit chat-serving)" = 999 ]'
gf reconcile -o json --force-conflicts "$SPEC"
t_audit_sync "$(run_total)"
check "4: --force-conflicts: exit 0, both NodePools configured, values back to 128 and 32" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.configured)" = 2 ] && [ "$(gpu_limit llm-pretrain)" = 128 ] &&
	[ "$(gpu_limit chat-serving)" = 32 ]'
gf reconcile -o json "$SPEC"
t_audit_sync "$(run_total)"
check "4: then in sync: zero writes (report and audit)" \
	'[ "$RC" = 0 ] && [ "$(jv .requests.writes)" = 0 ] && [ "$(t_audit_nwrites)" = 0 ]'
# other-gitops lost the field, but its managedFields entry still lists the map .spec.limits
# (the API server: a new apply by gpuform conflicts only with the imperative edit below)
k patch nodepool llm-pretrain --type merge --field-manager kubectl-edit \
	-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
gf reconcile -o json "$SPEC"
check "4: after the takeover, a kubectl-edit of that field is drift (taken back), not a conflict with other-gitops" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.configured)" = 1 ] && [ "$(jv .counts.conflict)" = 0 ] &&
	[ "$(gpu_limit llm-pretrain)" = 128 ]'
# (other-gitops stops managing anything: an empty apply; then the drift, if still there, is fixed)
printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: llm-pretrain\n' >"$WORK/other-gitops-none.yaml"
k apply --server-side --validate=false --field-manager=other-gitops -f "$WORK/other-gitops-none.yaml" >/dev/null
gf reconcile -o json "$SPEC"
check "4: once other-gitops manages nothing: exit 0, value 128" '[ "$RC" = 0 ] && [ "$(gpu_limit llm-pretrain)" = 128 ]'

# ==== 5. credentials: 401 and 403 ===========================================================
BAD_TOKEN=e2ebadtoken$$x$RANDOM
sed "s/$TOOL_TOKEN/$BAD_TOKEN/" "$KC" >"$WORK/kc-bad"
GF_KC=$WORK/kc-bad gf reconcile "$SPEC"
check "5: a wrong token: exit 4, '401' and the user 'tool' named, no token in the output" \
	'[ "$RC" = 4 ] && has_err "401" && has_err "'"'tool'"'" &&
	! printf "%s\n%s\n" "$OUT" "$ERR" | gq -F -e "$BAD_TOKEN" -e "$TOOL_TOKEN" -e "$ADMIN_TOKEN"'

SA_NS=gpuform-e2e-authz
cat >"$WORK/rbac.yaml" <<EOF
apiVersion: v1
kind: Namespace
metadata: {name: $SA_NS}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: $SA_NS}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gpuform-e2e-reader}
rules:
- apiGroups: [""]
  resources: [namespaces, configmaps]
  verbs: [get, list]
- apiGroups: [karpenter.sh, karpenter.k8s.aws]
  resources: [nodepools, ec2nodeclasses, nodeoverlays]
  verbs: [get, list]
- apiGroups: [kueue.x-k8s.io]
  resources: [resourceflavors, clusterqueues, localqueues, workloadpriorityclasses]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gpuform-e2e-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gpuform-e2e-reader}
subjects:
- {kind: ServiceAccount, name: reader, namespace: $SA_NS}
EOF
SA_TOKEN=
if out=$(k apply -f "$WORK/rbac.yaml" 2>&1); then
	# the TokenRequest API (POST .../serviceaccounts/reader/token)
	SA_TOKEN=$(k create token reader -n "$SA_NS" --duration 1h 2>/dev/null)
fi
if [[ -z $SA_TOKEN ]]; then
	t_fail "5: a ServiceAccount token from the TokenRequest API" "$out"
else
	sed "s/$TOOL_TOKEN/$SA_TOKEN/" "$KC" >"$WORK/kc-sa"
	SA_USER=system:serviceaccount:$SA_NS:reader
	# every run that writes takes the run lock (a Lease): a read-only account cannot,
	# and says --no-lock
	GF_KC=$WORK/kc-sa gf reconcile -o json "$SPEC"
	check "5: read-only ServiceAccount without --no-lock: exit 4, the Lease is forbidden, --no-lock named" \
		'[ "$RC" = 4 ] && has_err "403" && has_err "leases" && has_err "--no-lock"'
	GF_KC=$WORK/kc-sa gf reconcile --no-lock -o json "$SPEC"
	check "5: read-only ServiceAccount: a run with nothing to change needs no write and succeeds" \
		'[ "$RC" = 0 ] && [ "$(jv .requests.writes)" = 0 ] && [ "$(jv .counts.unchanged)" = "$N_OBJ" ]'
	k patch nodepool llm-pretrain --type merge --field-manager kubectl-edit \
		-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
	GF_KC=$WORK/kc-sa gf reconcile --no-lock "$SPEC"
	t_audit_sync "$(run_total)" "$SA_USER"
	check "5: read-only ServiceAccount, a write needed: exit 4, '403', verb 'patch', resource 'nodepools' named, no token" \
		'[ "$RC" = 4 ] && has_err "403" && has_err "patch" && has_err "nodepools" && has_err "llm-pretrain" &&
		! printf "%s\n%s\n" "$OUT" "$ERR" | gq -F -e "$SA_TOKEN" -e "$TOOL_TOKEN"'
	check "5: ... and nothing was written (audit: 0 writes by $SA_USER, value still 999)" \
		'[ "$(t_audit_tsv "$SA_USER" | wc -l)" -ge 1 ] && [ "$(t_audit_nwrites "$SA_USER")" = 0 ] &&
		[ "$(gpu_limit llm-pretrain)" = 999 ]'
fi
gf reconcile -o json "$SPEC"
check "5: the admin-like user fixes it (1 configured, value 128)" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.configured)" = 1 ] && [ "$(gpu_limit llm-pretrain)" = 128 ]'

# ==== a rendered directory ==================================================================
RD=$WORK/rendered
if ! out=$("$GPUFORM" render --output-dir "$RD" "$SPEC" 2>&1); then
	t_fail "dir: gpuform render -o DIR" "$out"
fi
gf reconcile -o json "$RD"
t_audit_sync "$(run_total)"
check "dir: reconcile of 'render -o' output: exit 0, all $N_OBJ unchanged (only the inventory may note the new source)" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.unchanged)" = "$N_OBJ" ] && [ "$(jv .requests.writes)" -le 1 ] &&
	[ "$(t_audit_writes | grep -vc "/namespaces/$INV_NS/configmaps/$INV?")" = 0 ]'
gf reconcile -o json "$RD"
t_audit_sync "$(run_total)"
check "dir: second run of the directory: zero writes (report and audit)" \
	'[ "$RC" = 0 ] && [ "$(jv .requests.writes)" = 0 ] && [ "$(t_audit_nwrites)" = 0 ]'

# a drift, so that a valid run would write; then three broken directories: nothing may be sent
k patch nodepool llm-pretrain --type merge --field-manager kubectl-edit \
	-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
broken() { # NAME: a copy of the rendered directory
	rm -rf "${WORK:?}/$1"
	cp -r "$RD" "$WORK/$1"
}
broken b-yaml
printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: general\nspec: [\n' >"$WORK/b-yaml/nodepool-general.yaml"
broken b-name
sed -i 's/^  name: general$/  name: General_Not-A-Name/' "$WORK/b-name/nodepool-general.yaml"
broken b-cel
sed -i '0,/operator: In/s//operator: Sometimes/' "$WORK/b-cel/nodepool-general.yaml"
for b in b-yaml:"YAML syntax error" b-name:"invalid metadata.name" b-cel:"requirement operator the CRD forbids"; do
	gf reconcile "$WORK/${b%%:*}"
	t_audit_sync
	check "dir: broken file (${b#*:}): exit 3, a message, nothing sent (audit)" \
		'[ "$RC" = 3 ] && [ -n "$ERR" ] && [ "$(t_audit_tsv | wc -l)" = 0 ] && [ "$(gpu_limit llm-pretrain)" = 999 ]'
done
gf reconcile -o json "$SPEC"
check "dir: back to the intent: the drift is fixed (exit 0, value 128)" \
	'[ "$RC" = 0 ] && [ "$(gpu_limit llm-pretrain)" = 128 ]'

# ==== 3. prune ==============================================================================
sed '/^    - name: chat-serving$/,$d' "$SPEC" >"$WORK/no-chat.yaml"
if ! out=$("$GPUFORM" validate "$WORK/no-chat.yaml" 2>&1) || gq chat-serving "$WORK/no-chat.yaml"; then
	t_fail "3: the intent without chat-serving validates" "$out"
fi
STALE=$(comm -23 <(printf '%s\n' "$DESIRED") <(desired_keys "$WORK/no-chat.yaml"))
# not ours: a NodePool made with kubectl, and one made with kubectl that carries gpuform's
# labels (including part-of) but was never in the inventory
nodepool_yaml() { # NAME LABELS-FLOW-MAP
	cat <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: $1
  labels: $2
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: general}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
EOF
}
nodepool_yaml e2e-unmanaged '{}' >"$WORK/np-unmanaged.yaml"
nodepool_yaml e2e-labelled "{app.kubernetes.io/managed-by: gpuform, gpuform.io/cluster: $CLUSTER, applyset.kubernetes.io/part-of: $APPLYSET_ID}" \
	>"$WORK/np-labelled.yaml"
if ! out=$(k create -f "$WORK/np-unmanaged.yaml" -f "$WORK/np-labelled.yaml" 2>&1); then
	t_fail "3: kubectl create two NodePools of our own" "$out"
fi
# in the inventory, but deleted and recreated by hand: same name, new UID, our labels
WPC=gpuform-inference
OLD_UID=$(k get workloadpriorityclass "$WPC" -o jsonpath='{.metadata.uid}' 2>/dev/null)
k get workloadpriorityclass "$WPC" -o json 2>/dev/null |
	jq 'del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp,
		.metadata.managedFields, .metadata.generation, .status)' >"$WORK/wpc.json"
k delete workloadpriorityclass "$WPC" >/dev/null 2>&1
k create -f "$WORK/wpc.json" >/dev/null 2>&1
NEW_UID=$(k get workloadpriorityclass "$WPC" -o jsonpath='{.metadata.uid}' 2>/dev/null)
RC=- OUT="stale: $STALE" ERR="uids: $OLD_UID $NEW_UID"
t_setup "3: 7 objects leave the desired set (incl. $WPC), $WPC recreated by hand with a new UID" \
	'[ "$(printf "%s\n" "$STALE" | grep -c .)" = 7 ] && printf "%s\n" "$STALE" | gq -x "WorkloadPriorityClass//$WPC" &&
	[ -n "$OLD_UID" ] && [ -n "$NEW_UID" ] && [ "$OLD_UID" != "$NEW_UID" ]'

gf reconcile -o json "$WORK/no-chat.yaml"
t_audit_sync "$(run_total)"
check "3: without --prune: exit 0, the 7 stale objects 'skipped', none deleted (audit: no write but the inventory's)" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.skipped)" = 7 ] && [ "$(jv .counts.pruned)" = 0 ] &&
	[ "$(jv ".items[] | select(.result == \"skipped\") | \"\(.kind)/\(.namespace // \"\")/\(.name)\"" | sort)" = "$STALE" ] &&
	[ "$(t_audit_writes | grep -vc "/namespaces/$INV_NS/configmaps/$INV?")" = 0 ] &&
	exists nodepool chat-serving && exists clusterqueue chat-serving'

gf reconcile -o json --prune "$WORK/no-chat.yaml"
t_audit_sync "$(run_total)"
PRUNED=$(jv '.items[] | select(.result == "pruned") | "\(.kind)/\(.namespace // "")/\(.name)"' | sort)
want_pruned=$(printf '%s\n' "$STALE" | grep -v -e '^Namespace/' -e "^WorkloadPriorityClass//$WPC\$")
check "3: --prune: exit 0; NodePool, ResourceFlavor, ClusterQueue, LocalQueue (and EC2NodeClass gpu) of chat-serving pruned" \
	'[ "$RC" = 0 ] && [ "$PRUNED" = "$want_pruned" ] && [ "$(jv .counts.pruned)" = 5 ] &&
	printf "%s\n" "$PRUNED" | gq -x "LocalQueue/serving/chat-serving"'
check "3: --prune: they are gone (kubectl get fails); the audit log shows exactly 5 deletes" \
	'! exists nodepool chat-serving && ! exists resourceflavor chat-serving &&
	! exists clusterqueue chat-serving && ! exists localqueue -n serving chat-serving && ! exists ec2nodeclass gpu &&
	[ "$(t_audit_writes | grep -c "^delete	")" = 5 ]'
check "3: --prune: Namespace serving is not deleted without --prune-namespaces ('skipped')" \
	'exists namespace serving && [ "$(jv ".items[] | select(.kind == \"Namespace\" and .name == \"serving\") | .result")" = skipped ]'
check "3: --prune: $WPC, recreated by someone else (new UID), is not pruned" \
	'[ "$(k get workloadpriorityclass "$WPC" -o jsonpath="{.metadata.uid}")" = "$NEW_UID" ] &&
	[ "$(jv ".items[] | select(.name == \"$WPC\") | .result")" = skipped ] &&
	jv ".items[] | select(.name == \"$WPC\") | .detail" | gq "recreated by someone else"'
check "3: --prune: NodePools made with kubectl survive, with and without gpuform's labels" \
	'exists nodepool e2e-unmanaged && exists nodepool e2e-labelled && ! has "e2e-"'

sed '/^  workloads:$/,$d' "$SPEC" >"$WORK/general-only.yaml"
gf reconcile -o json --prune "$WORK/general-only.yaml"
t_audit_sync "$(run_total)"
check "3: --prune of more than half of the inventory: refused (exit 3 = nothing written), audit 0 writes" \
	'[ "$RC" = 3 ] && has_err "more than half" && has_err "--force-prune" && [ "$(t_audit_nwrites)" = 0 ] &&
	exists nodepool llm-pretrain && exists clusterqueue llm-pretrain'
mkdir -p "$WORK/empty"
printf '# generated by gpuform; do not edit\nresources: []\n' >"$WORK/empty/kustomization.yaml"
gf reconcile --prune "$WORK/empty"
t_audit_sync
check "3: an empty desired set with --prune: refused (exit 3), nothing sent" \
	'[ "$RC" = 3 ] && [ -n "$ERR" ] && [ "$(t_audit_tsv | wc -l)" = 0 ] && exists nodepool llm-pretrain'
gf reconcile -o json --prune --force-prune "$WORK/general-only.yaml"
t_audit_sync "$(run_total)"
# (7: ml-prod's EFA pool on Bottlerocket has its hugepages NodeOverlay, issue 23)
check "3: --force-prune: the large prune goes ahead (7 pruned, Namespaces kept), unmanaged NodePools survive" \
	'[ "$RC" = 0 ] && [ "$(jv .counts.pruned)" = 7 ] && ! exists nodepool llm-pretrain && ! exists ec2nodeclass gpu-efa &&
	exists namespace research && exists nodepool general && exists nodepool e2e-unmanaged && exists nodepool e2e-labelled &&
	[ "$(t_audit_writes | grep -c "^delete	")" = 7 ]'
# $WPC, recreated by someone else with gpuform's labels, is no longer in the inventory: not
# this cluster's, so wanting it again is a conflict (issue 15: no takeover) until --adopt
gf reconcile -o json "$SPEC"
t_audit_sync "$(run_total)"
check "3: the full intent again: $WPC (recreated by someone else) is a conflict, exit 4, nothing written" \
	'[ "$RC" = 4 ] && [ "$(jv ".items[] | select(.name == \"$WPC\") | .result")" = conflict ] &&
	jv ".items[] | select(.name == \"$WPC\") | .detail" | gq -- "--adopt" && [ "$(t_audit_nwrites)" = 0 ]'
gf reconcile -o json --adopt "$SPEC"
t_audit_sync "$(run_total)"
check "3: reconcile the full intent again with --adopt: exit 0, everything back" \
	'[ "$RC" = 0 ] && [ "$(live_keys | cut -f1 | grep -vx "NodePool//e2e-labelled")" = "$DESIRED" ]'

# ==== 6. the API server dies mid-run ========================================================
BIG=$WORK/big.yaml
{
	cat "$SPEC"
	sh bench/gen-intent.sh "$BIG_N" | sed -n '/^  workloads:$/,$p' | tail -n +2
} >"$BIG"
BIG_DESIRED=$(desired_keys "$BIG")
BIG_OBJ=$(printf '%s\n' "$BIG_DESIRED" | grep -c .)
out=$("$GPUFORM" validate "$BIG" 2>&1) && ((BIG_OBJ > 4 * BIG_N)) ||
	t_abort "6: ml-prod + $BIG_N generated workloads validates ($BIG_OBJ objects)" "$out"
if ! t_faultproxy_start "$WORK/fp6" 2>"$WORK/fp6.err"; then
	t_abort "6: tests/tools/faultproxy.c in front of the API server" "$(cat "$WORK/fp6.err")"
else
	BEFORE=$(live_keys | cut -f1 | comm -12 - <(printf '%s\n' "$BIG_DESIRED") | wc -l)
	t_audit_mark
	# the run talks to the API server through the fault proxy, which lets its first 5
	# real applies (PATCH without dryRun) through and then goes down: that request and
	# every later one are dropped, never sent on (faultproxy 'down'). However slow the
	# machine, the server dies after exactly 5 writes. --no-lock: the run lock it would
	# leave behind (it cannot release it with the server gone) would rightly hold the next
	# run back until it expires; the lock has its own tests (reconcile-safety.sh,
	# incluster.sh)
	echo 'PATCH !dryRun 6 down' >"$WORK/fp6/rules"
	# (--timeout: the run's own bound, generous: ~1,000 dry runs through the proxy come
	# first, and a loaded machine must not make the test a timing test)
	timeout 600 "$GPUFORM" reconcile --kubeconfig "$FP_KC" --insecure-loopback-http --no-lock \
		--timeout 300s "$BIG" >"$WORK/big.out" 2>"$WORK/big.err"
	RC=$?
	OUT=$(cat "$WORK/big.out") ERR=$(cat "$WORK/big.err")
	printf '%s\n' "--- gpuform reconcile $BIG (API server gone after 5 writes; rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
	applies=$(grep -E '^req [0-9]+ conn [0-9]+ PATCH ' "$WORK/fp6/proxy.log" | grep -vc 'dryRun')
	check "6: the API server went away during the run's writes: 5 real applies passed, then the proxy was down ($applies applies tried)" \
		'grep -q -- "-> down$" "$WORK/fp6/proxy.log" && [ "$(grep -E "^req [0-9]+ conn [0-9]+ PATCH " "$WORK/fp6/proxy.log" | grep -v dryRun | grep -c -- "-> pass$")" = 5 ]'
	check "6: interrupted run: exit 4 (not a crash), a message naming the API server $FP_URL" \
		'[ "$RC" = 4 ] && has_err "API server at $FP_URL" && ! has_err "Sanitizer" && ! has_err "runtime error"'

	LIVE=$(live_keys)
	INVK=$(inventory_keys)
	OUT=$(cat "$WORK/big.out") ERR=$(cat "$WORK/big.err") RC=4
	made=$(($(printf '%s\n' "$LIVE" | cut -f1 | comm -12 - <(printf '%s\n' "$BIG_DESIRED") | wc -l) - BEFORE))
	claimed=$(printf '%s\n' "$OUT" | grep -c ' created$')
	missing=$(comm -23 <(printf '%s\n' "$LIVE" | cut -f1 | grep -vx "NodePool//e2e-labelled") <(printf '%s\n' "$INVK" | cut -f1))
	check "6: interrupted run: every object it created ($made) is already in the inventory" \
		'[ "$made" -gt 0 ] && [ -z "$missing" ]'
	OUT=$(printf '%s\n' "$OUT" | tail -n 2)   # (its last item and the summary, if it fails)
	check "6: interrupted run: it reports no more objects 'created' ($claimed) than it created ($made)" \
		'[ "$claimed" -le "$made" ]'

	gf reconcile -o json "$BIG"
	check "6: the next run converges: exit 0, created + unchanged == $BIG_OBJ, nothing failed (${MS} ms)" \
		'[ "$RC" = 0 ] && [ "$(jv ".counts.created + .counts.unchanged")" = "$BIG_OBJ" ] &&
		[ "$(jv .counts.failed)" = 0 ] && [ "$(jv .counts.pruned)" = 0 ]'
	gf reconcile -o json "$BIG"
	t_audit_sync "$(run_total)"
	check "6: the run after that makes zero writes (report and audit), all $BIG_OBJ unchanged" \
		'[ "$RC" = 0 ] && [ "$(jv .requests.writes)" = 0 ] && [ "$(t_audit_nwrites)" = 0 ] &&
		[ "$(jv .counts.unchanged)" = "$BIG_OBJ" ]'
	LIVE=$(live_keys)
	INVK=$(inventory_keys)
	RC=- OUT="missing live: $(comm -23 <(printf '%s\n' "$BIG_DESIRED") <(printf '%s\n' "$LIVE" | cut -f1) | head)" ERR=
	check "6: every desired object exists" \
		'[ -z "$(comm -23 <(printf "%s\n" "$BIG_DESIRED") <(printf "%s\n" "$LIVE" | cut -f1))" ]'
	OUT="inventory differs: $(diff <(printf '%s\n' "$BIG_DESIRED") <(printf '%s\n' "$INVK" | cut -f1) | head)"
	check "6: the inventory lists exactly the desired objects, each with its live UID" \
		'[ "$(printf "%s\n" "$INVK" | cut -f1)" = "$BIG_DESIRED" ] &&
		[ "$(printf "%s\n" "$INVK")" = "$(printf "%s\n" "$LIVE" | grep -v "^NodePool//e2e-labelled	")" ]'
	gf reconcile -o json --prune "$BIG"
	t_audit_sync "$(run_total)"
	check "6: --prune on the full set afterwards: counts.pruned == 0, no delete (audit), unmanaged NodePools intact" \
		'[ "$RC" = 0 ] && [ "$(jv .counts.pruned)" = 0 ] && [ "$(t_audit_writes | grep -c "^delete	")" = 0 ] &&
		exists nodepool e2e-unmanaged && exists nodepool e2e-labelled'
fi

# ---- sanitizers --------------------------------------------------------------------------
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any gpuform run" \
		"$(grep -E -B1 -A6 'Sanitizer|runtime error' "$ALL_LOG" | head -n 40)"
else
	t_pass "no sanitizer reports in any gpuform run"
fi
echo "reconcile suite: $(($(date +%s) - T_START)) s"
t_summary
exit
}
