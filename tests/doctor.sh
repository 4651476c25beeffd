#!/usr/bin/env bash
# tests/doctor.sh: `gpuform doctor` against a real kube-apiserver (tests/kube-testenv)
# whose "running controllers" are seeded by hand: a Deployment kube-system/karpenter
# with an image tag and a FEATURE_GATES env, a Deployment kueue-system/
# kueue-controller-manager and the ConfigMap kueue-system/kueue-manager-config. No
# controller runs; doctor only reads these objects (GETs, checked in the audit log).
#
#   GPUFORM=/path/to/gpuform bash tests/doctor.sh
#
# Cases: a version skew (Karpenter 1.6.2 running, the intent targets v1.14.1), a
# disabled gate (NodeOverlay=false while NodeOverlays are rendered), a Kueue
# configuration without an integration the render has; then the same seeded
# objects made to match (exit 0); the Kueue CRDs of an older release installed
# (named as such); the controllers not there (warnings only).

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1

t_isolate
t_gpuform
t_need kubectl jq

WORK=
t_tmpdir WORK
k() { timeout 60 kubectl --request-timeout=30s "$@"; }
t_testenv_start

SPEC=specs/bottlerocket-sharing.yaml   # time-sliced and MIG pools: NodeOverlays

# doc ARGS...: gpuform doctor as user "tool"; RC, OUT, ERR
doc() {
	OUT=$(timeout 120 "$GPUFORM" doctor --kubeconfig "$KC" "$@" 2>"$WORK/err"); RC=$?
	ERR=$(cat "$WORK/err")
}
has_err() { printf '%s\n' "$ERR" | grep -qF -- "$1"; }

# ---- no controllers at all: nothing to compare, warnings only ---------------------
doc "$SPEC"
check "no controllers: exit 0, warnings that nothing could be checked" \
	'[ "$RC" = 0 ] && has_err "warning: no Karpenter controller Deployment found" &&
	 has_err "warning: no Kueue controller Deployment found" && printf "%s" "$OUT" | grep -q "^ok"'

# ---- seeded: a version skew, a disabled gate, a missing integration ------------------
"$GPUFORM" render --output-dir "$WORK/out" "$SPEC" >/dev/null 2>&1 || t_abort "render $SPEC"
# the rendered Kueue configuration: the block scalar of kueue-values.yaml
conf=$(sed -n '/controllerManagerConfigYaml: |/,$p' "$WORK/out/addons/kueue-values.yaml" | sed '1d; s/^    //')
printf '%s\n' "$conf" | grep -q 'kind: Configuration' || t_abort "the rendered Kueue configuration"
printf '%s\n' "$conf" | grep -v 'kubeflow.org/pytorchjob' >"$WORK/conf-nopytorch.yaml"
printf '%s\n' "$conf" >"$WORK/conf.yaml"

deployment() {   # deployment NS NAME CONTAINER IMAGE [FEATURE_GATES]
	cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2, namespace: $1}
spec:
  replicas: 0
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec:
      containers:
      - name: $3
        image: $4
EOF
	[ -z "${5:-}" ] || printf '        env:\n        - name: FEATURE_GATES\n          value: "%s"\n' "$5"
}
seed() {   # seed KARPENTER-TAG FEATURE_GATES KUEUE-TAG CONFIG-FILE
	{ deployment kube-system karpenter controller "public.ecr.aws/karpenter/controller:$1@sha256:$(printf %064d 0)" "$2"
	  echo ---
	  deployment kueue-system kueue-controller-manager manager "registry.k8s.io/kueue/kueue:$3"
	} >"$WORK/seed.yaml"
	k apply -f "$WORK/seed.yaml" >/dev/null &&
	k -n kueue-system create configmap kueue-manager-config \
		--from-file=controller_manager_config.yaml="$4" --dry-run=client -o yaml | k apply -f - >/dev/null
}
k create namespace kueue-system >/dev/null 2>&1
seed 1.6.2 "NodeRepair=true,NodeOverlay=false,SpotToSpotConsolidation=false" v0.19.2 "$WORK/conf-nopytorch.yaml" ||
	t_abort "seed the controller Deployments and the Kueue ConfigMap"
t_setup "seeded Karpenter 1.6.2 with NodeOverlay=false, Kueue v0.19.2 without pytorchjob" 'true'

t_audit_mark
doc "$SPEC"
check "skew: exit 1" '[ "$RC" = 1 ] && printf "%s" "$OUT" | grep -q "^3 findings"'
check "skew: the version finding names target and running release, with the fix" \
	'has_err "error: the intent targets Karpenter v1.14.1 but Deployment kube-system/karpenter runs v1.6.2" &&
	 has_err "set spec.targets.karpenter: v1.6.2 (render for what runs), or upgrade Karpenter"'
check "disabled gate: NodeOverlays rendered but the running Karpenter has NodeOverlay=false" \
	'has_err "error: NodeOverlays rendered but the running Karpenter (Deployment kube-system/karpenter) has NodeOverlay=false" &&
	 has_err "settings.featureGates.nodeOverlay: true"'
check "NodeRepair=true in FEATURE_GATES is no finding" '! has_err "NodeRepair=false"'
check "the Kueue configuration lacks kubeflow.org/pytorchjob: a finding" \
	'has_err "error: integration kubeflow.org/pytorchjob is rendered but not in the running Kueue configuration (ConfigMap kueue-system/kueue-manager-config)"'
check "read-only: only GET requests (audit log)" \
	'[ "$(t_audit_tsv | cut -f1 | sort -u | tr "\n" " ")" = "get " ]'

# the intent rendered for what runs: the version finding goes, the gate stays
sed 's/^spec:/spec:\n  targets: {karpenter: v1.7.0}/' "$SPEC" >"$WORK/targets.yaml"
seed 1.7.0 "NodeRepair=true,NodeOverlay=false" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$WORK/targets.yaml"
check "targets v1.7.0, Karpenter 1.7.0 running with NodeOverlay=false: exactly the gate finding" \
	'[ "$RC" = 1 ] && printf "%s" "$OUT" | grep -q "^1 finding$" && has_err "has NodeOverlay=false" &&
	 ! has_err "runs v1.7.0"'
# a gate left out of FEATURE_GATES takes the release default (NodeOverlay: off)
seed 1.14.1 "NodeRepair=true" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "NodeOverlay not in FEATURE_GATES: off by default, a finding" '[ "$RC" = 1 ] && has_err "has NodeOverlay=false"'
# everything matching
seed 1.14.1 "NodeRepair=true,NodeOverlay=true,SpotToSpotConsolidation=false" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "controllers match the render: exit 0, no finding" \
	'[ "$RC" = 0 ] && ! has_err "error:" && printf "%s" "$OUT" | grep -q "^ok"'
# Kueue older than the target
seed 1.14.1 "NodeRepair=true,NodeOverlay=true" v0.13.4 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "Kueue v0.13.4 running, v0.19.2 targeted: a finding with the fix" \
	'[ "$RC" = 1 ] && has_err "the intent targets Kueue v0.19.2 but Deployment kueue-system/kueue-controller-manager runs v0.13.4" &&
	 has_err "set spec.targets.kueue: v0.13.4"'

# ---- least privilege: the ServiceAccount of `gpuform install --doctor` -----------------
# without --doctor the installed ServiceAccount may not read the controllers (warnings,
# 403 named); with it, doctor reads exactly those objects by name
seed 1.14.1 "NodeRepair=true,NodeOverlay=false" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
"$GPUFORM" install --git https://git.example/gitops.git --cluster bottlerocket --cronjob-api-version batch/v1beta1 >"$WORK/install.yaml" 2>"$WORK/install.err" &&
	k apply -f "$WORK/install.yaml" >/dev/null 2>&1 || t_abort "apply gpuform install" "$(cat "$WORK/install.err")"
k create namespace karpenter >/dev/null 2>&1   # the other place the Karpenter chart goes
sa_kubeconfig() {
	local tok
	tok=$(k create token gpuform-bottlerocket -n gpuform-system --duration 1h 2>&1) || t_abort "a TokenRequest token" "$tok"
	sed "s|token: \".*\"|token: \"$tok\"|" "$KC" >"$WORK/kubeconfig-sa"
	grep -qF "$tok" "$WORK/kubeconfig-sa" || t_abort "a kubeconfig with the ServiceAccount's token"
}
sa_kubeconfig
OUT=$(timeout 120 "$GPUFORM" doctor --kubeconfig "$WORK/kubeconfig-sa" "$SPEC" 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
check "install without --doctor: the controllers cannot be read (warnings naming the 403), exit 0" \
	'[ "$RC" = 0 ] && has_err "warning: Karpenter: Deployment kube-system/karpenter cannot be read" &&
	 has_err "Kueue configuration: ConfigMap kueue-system/kueue-manager-config cannot be read"'
"$GPUFORM" install --git https://git.example/gitops.git --cluster bottlerocket --cronjob-api-version batch/v1beta1 --doctor >"$WORK/install.yaml" 2>"$WORK/install.err" &&
	k apply -f "$WORK/install.yaml" >/dev/null 2>&1 || t_abort "apply gpuform install --doctor" "$(cat "$WORK/install.err")"
OUT=$(timeout 120 "$GPUFORM" doctor --kubeconfig "$WORK/kubeconfig-sa" "$SPEC" 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err")
check "install --doctor: the ServiceAccount reads the controllers, finds the disabled gate" \
	'[ "$RC" = 1 ] && has_err "has NodeOverlay=false" && ! has_err "cannot be read"'
check "install --doctor: get by name only (no list, no other Deployments)" \
	'! grep -A12 "kind: Role" "$WORK/install.yaml" | grep -B2 -A8 "deployments" | grep -qE "^  - (list|watch)$" &&
	 [ "$(grep -c "^  - kueue-controller-manager$\|^  - karpenter$\|^  - kueue-manager-config$" "$WORK/install.yaml")" = 4 ]'

# ---- the Kueue CRDs of an older release (v1beta1 only) -------------------------------
k delete crd clusterqueues.kueue.x-k8s.io localqueues.kueue.x-k8s.io resourceflavors.kueue.x-k8s.io \
	workloadpriorityclasses.kueue.x-k8s.io cohorts.kueue.x-k8s.io --wait=true >/dev/null 2>&1 ||
	t_abort "delete the Kueue CRDs"
timeout 240 bash tests/kube-testenv crds "$ENV_DIR" tests/fixtures/crds/versions/kueue-v0.13.10/*.yaml >/dev/null 2>&1 ||
	t_abort "install the Kueue v0.13.10 CRDs"
doc "$SPEC"
check "Kueue v0.13.10 CRDs: named as an older Kueue, never 'not installed'" \
	'[ "$RC" = 1 ] && has_err "Kueue is installed, but older: its CRDs serve ClusterQueue in kueue.x-k8s.io/v1beta1 only" &&
	 ! has_err "not installed"'

t_summary
exit
}
