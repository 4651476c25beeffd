#!/usr/bin/env bash
# tests/identity.sh: which cluster `gpuform reconcile` talks to (reconcile/identity.h,
# docs/reconcile-safety.md "The right cluster"), against two real kube-apiserver + etcd
# (tests/kube-testenv): A, where the intent was reconciled, and B, another cluster that
# got A's inventory (as an etcd restore or a copied ConfigMap would bring it). Every
# "writes nothing" is read from the server's audit log (all but the run lock's Lease).
#
#   GPUFORM=build/san/gpuform bash tests/identity.sh
#
# GPUFORM_TESTENV_DIR, GPUFORM_TESTENV_DIR_B  reuse running testenvs (kube-testenv start
#                      DIR) instead of starting two (~20 s each); neither may hold the
#                      cluster "tiny" (specs/minimal.yaml) yet.
# Everything is on 127.0.0.1; every wait is bounded. Closing line: "N passed, N failed".

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
t_gpuform
t_need kubectl jq
WORK=
t_tmpdir WORK
SPEC=specs/minimal.yaml
CLUSTER=tiny
INV_NS=gpuform-system
INV=gpuform-$CLUSTER
ALL_LOG=$WORK/all-gpuform-runs.log
: >"$ALL_LOG"

k() { timeout 60 kubectl --request-timeout=30s "$@"; }
# gf ARGS...: gpuform reconcile/diff as user "tool" of the current server ($GF_KC);
# $OUT, $ERR, $RC; marks the audit log first
gf() {
	t_audit_mark
	OUT=$(timeout 240 "$GPUFORM" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $* (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
t_detail() { printf 'condition: %s\nrc=%s\n--- stdout\n%s\n--- stderr\n%s\n' "$1" "$RC" "$(printf '%s\n' "$OUT" | tail -n 5)" "$(printf '%s\n' "$ERR" | head -n 10)"; }
# the writes of the last run but its run lock's (the Lease is taken before the
# inventory is read, and released at the end)
all_writes() {
	t_audit_sync
	t_audit_writes
}
ann() { k get configmap -n "$INV_NS" "$INV" -o json | jq -r ".metadata.annotations[\"$1\"] // empty"; }
use() { # A|B: point kubectl, the audit helpers and gf's kubeconfig at that server
	if [ "$1" = A ]; then ENV_DIR=$A_DIR; else ENV_DIR=$B_DIR; fi
	KC=$ENV_DIR/kubeconfig-tool AUDIT=$ENV_DIR/audit.log KUBECONFIG=$ENV_DIR/kubeconfig
	KUBECACHEDIR=$ENV_DIR/kube-cache
	SERVER=$(sed -n 's/^KUBE_TESTENV_URL=//p' "$ENV_DIR/env")
	export KUBECONFIG KUBECACHEDIR
}

# ---- two API servers --------------------------------------------------------------------
t_testenv_start
A_DIR=$ENV_DIR
t_testenv_unused "$INV_NS" "$INV"
if [ -n "${GPUFORM_TESTENV_DIR_B:-}" ]; then
	B_DIR=$GPUFORM_TESTENV_DIR_B
else
	B_DIR=$WORK/env-b
	t_on_exit "bash '$root/tests/kube-testenv' stop '$B_DIR' >/dev/null 2>&1"
	out=$(timeout 900 bash tests/kube-testenv start "$B_DIR" 2>&1) || t_abort "start the second testenv" "$out"
fi
use B
if ! k get crd nodepools.karpenter.sh >/dev/null 2>&1; then
	out=$(timeout 240 bash tests/kube-testenv crds "$B_DIR" tests/fixtures/crds/*.yaml 2>&1) ||
		t_abort "CRDs on the second testenv" "$out"
fi
t_testenv_unused "$INV_NS" "$INV"
use A
UID_A=$(k get namespace kube-system -o jsonpath='{.metadata.uid}')
SERVER_A=$SERVER
use B
UID_B=$(k get namespace kube-system -o jsonpath='{.metadata.uid}')
SERVER_B=$SERVER
[ -n "$UID_A" ] && [ -n "$UID_B" ] && [ "$UID_A" != "$UID_B" ] ||
	t_abort "two clusters with their own kube-system uid ($UID_A, $UID_B)"
t_note "testenvs: A $SERVER_A (kube-system $UID_A), B $SERVER_B (kube-system $UID_B)"

# ---- 1. the first run records the cluster -----------------------------------------------
use A
gf reconcile --kubeconfig "$KC" "$SPEC"
check "1: first reconcile on A: exit 0, says context and server before writing" \
	'[ "$RC" = 0 ] && has_err "gpuform: reconciling $CLUSTER on context '"'"'testenv'"'"' (server $SERVER_A)"'
check "1: the inventory records A's kube-system uid and server" \
	'[ "$(ann gpuform.io/cluster-uid)" = "$UID_A" ] && [ "$(ann gpuform.io/cluster-server)" = "$SERVER_A" ]'
gf reconcile --kubeconfig "$KC" --prune "$SPEC"
check "1: a second run with --prune on the same cluster: exit 0, no writes" \
	'[ "$RC" = 0 ] && [ -z "$(all_writes | grep -v coordination.k8s.io)" ]'

# ---- 2. the wrong cluster: B holds A's inventory ----------------------------------------
use A
k get configmap -n "$INV_NS" "$INV" -o json |
	jq 'del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.managedFields)' >"$WORK/inv.json"
use B
k create namespace "$INV_NS" >/dev/null 2>&1
k create -f "$WORK/inv.json" >/dev/null || t_abort "copy A's inventory to B"
for args in "" "--prune" "--dry-run" "--rebuild-inventory --prune" "--no-lock" "-o json"; do
	# shellcheck disable=SC2086 # the options are words
	gf reconcile --kubeconfig "$KC" $args "$SPEC"
	check "2: reconcile ${args:+$args }on B with A's inventory: exit 6, nothing written (audit log)" \
		'[ "$RC" = 6 ] && [ -z "$(all_writes)" ] && has_err "wrong cluster: inventory $INV_NS/$INV was written on another cluster (kube-system uid $UID_A, server $SERVER_A); this one is uid $UID_B at $SERVER_B"'
done
check "2: ... and names the way out (--context, --rebind-cluster)" 'has_err "Check --context" && has_err "--rebind-cluster"'
gf diff --live --kubeconfig "$KC" "$SPEC"
check "2: diff --live on B: exit 6 (a diff against the wrong cluster misleads)" '[ "$RC" = 6 ] && [ -z "$(all_writes)" ]'
check "2: no object of the intent was created on B" \
	'! k get nodepools.karpenter.sh -o name | gq . && ! k get namespace api >/dev/null 2>&1'

# ---- 3. re-binding on purpose -----------------------------------------------------------
gf reconcile --kubeconfig "$KC" --rebind-cluster "$SPEC"
check "3: --rebind-cluster on B: exit 0, the objects are created" \
	'[ "$RC" = 0 ] && k get namespace api >/dev/null 2>&1'
check "3: the inventory now records B's uid and server" \
	'[ "$(ann gpuform.io/cluster-uid)" = "$UID_B" ] && [ "$(ann gpuform.io/cluster-server)" = "$SERVER_B" ]'
gf reconcile --kubeconfig "$KC" --prune "$SPEC"
check "3: the next run on B (with --prune) is verified: exit 0" '[ "$RC" = 0 ]'
use A
gf reconcile --kubeconfig "$KC" "$SPEC"
check "3: A is still A: exit 0 there" '[ "$RC" = 0 ]'

# ---- 4. an inventory that records no cluster (an older gpuform) ------------------------
use A
k annotate configmap -n "$INV_NS" "$INV" gpuform.io/cluster-uid- gpuform.io/cluster-server- >/dev/null
gf reconcile --kubeconfig "$KC" --prune "$SPEC"
check "4: --prune against an inventory with no identity: exit 6 (unverified), nothing written" \
	'[ "$RC" = 6 ] && [ -z "$(all_writes)" ] && has_err "unverified cluster: inventory $INV_NS/$INV records no cluster identity"'
gf reconcile --kubeconfig "$KC" "$SPEC"
check "4: a run without --prune binds it: exit 0, A's uid recorded" \
	'[ "$RC" = 0 ] && [ "$(ann gpuform.io/cluster-uid)" = "$UID_A" ]'
gf reconcile --kubeconfig "$KC" --prune "$SPEC"
check "4: then --prune runs: exit 0" '[ "$RC" = 0 ]'

# ---- 5. the kubeconfig names an EKS cluster ---------------------------------------------
use A
TOKEN=$(sed -n 's/.*token: "\([^"]*\)".*/\1/p' "$KC")
CA=$(sed -n 's/.*certificate-authority: *"\([^"]*\)".*/\1/p' "$KC" | head -n1)
# kubeconfig CONTEXT-NAME [EXEC-CLUSTER-NAME]: as `aws eks update-kubeconfig` writes it
# (context and cluster named by the ARN; with an exec plugin that runs
# `... eks get-token --cluster-name NAME`, here a shell that prints the token)
eks_kc() {
	local f=$WORK/kc-$RANDOM
	{
		printf 'apiVersion: v1\nkind: Config\ncurrent-context: "%s"\n' "$1"
		printf 'clusters:\n- name: "%s"\n  cluster:\n    server: %s\n    certificate-authority: %s\n' "$1" "$SERVER_A" "$CA"
		printf 'contexts:\n- name: "%s"\n  context:\n    cluster: "%s"\n    user: u\n' "$1" "$1"
		if [ -n "${2:-}" ]; then
			printf 'users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n'
			printf '      command: %s\n      args: [eks, get-token, --cluster-name, "%s"]\n' "$PLUGIN" "$2"
		else
			printf 'users:\n- name: u\n  user:\n    token: "%s"\n' "$TOKEN"
		fi
	} >"$f"
	printf '%s' "$f"
}
# the exec plugin: prints an ExecCredential with the tool token, whatever its arguments
PLUGIN=$WORK/aws
printf '#!/bin/sh\necho '"'"'{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}'"'"'\n' "$TOKEN" >"$PLUGIN"
chmod +x "$PLUGIN"
[ -n "$CA" ] && [ -f "$CA" ] || t_abort "the testenv kubeconfig names a CA file ($CA)"
KC_WRONG=$(eks_kc "arn:aws:eks:us-west-2:111122223333:cluster/ml-prod")
gf reconcile --kubeconfig "$KC_WRONG" "$SPEC"
check "5: context ARN names EKS cluster ml-prod, intent is tiny: exit 6, no request at all" \
	'[ "$RC" = 6 ] && [ -z "$(t_audit_all)" ] && has_err "is EKS cluster '"'"'ml-prod'"'"', but the intent is for cluster '"'"'tiny'"'"'"'
KC_EXEC=$(eks_kc "prod" "ml-prod")
gf reconcile --kubeconfig "$KC_EXEC" "$SPEC"
check "5: exec plugin runs 'eks get-token --cluster-name ml-prod', intent is tiny: exit 6, no request" \
	'[ "$RC" = 6 ] && [ -z "$(t_audit_all)" ]'
KC_OK=$(eks_kc "arn:aws:eks:us-west-2:111122223333:cluster/tiny" "tiny")
k annotate configmap -n "$INV_NS" "$INV" gpuform.io/cluster-uid- gpuform.io/cluster-server- >/dev/null
gf reconcile --kubeconfig "$KC_OK" --prune "$SPEC"
check "5: the kubeconfig names EKS cluster tiny: verified, --prune runs on an unbound inventory (exit 0)" \
	'[ "$RC" = 0 ] && [ "$(ann gpuform.io/cluster-uid)" = "$UID_A" ]'

# ---- 6. usage errors --------------------------------------------------------------------
gf reconcile --kubeconfig "$KC" --context nope "$SPEC"
check "6: reconcile --context nope: exit 2 (a usage error), no request" \
	'[ "$RC" = 2 ] && has_err "context '"'"'nope'"'"' is not defined" && [ -z "$(t_audit_all)" ]'

if grep -q 'ERROR: \(Address\|Leak\|Undefined\)Sanitizer\|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any gpuform run" "$(grep -m3 'Sanitizer\|runtime error' "$ALL_LOG")"
else
	t_pass "no sanitizer reports in any gpuform run"
fi
t_summary
exit $?
}
