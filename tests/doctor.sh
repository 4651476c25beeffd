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
has_err() { grep -qF -- "$1" <<<"$ERR"; }  # no pipe: grep -q would SIGPIPE printf under pipefail

# ---- no controllers at all: nothing to compare, warnings only ---------------------
doc "$SPEC"
check "no controllers: exit 0, warnings that nothing could be checked" \
	'[ "$RC" = 0 ] && has_err "warning: no Karpenter controller Deployment found" &&
	 has_err "warning: no Kueue controller Deployment found" && printf "%s" "$OUT" | gq "^ok"'

# ---- seeded: a version skew, a disabled gate, a missing integration ------------------
"$GPUFORM" render --output-dir "$WORK/out" "$SPEC" >/dev/null 2>&1 || t_abort "render $SPEC"
# the rendered Kueue configuration: the block scalar of kueue-values.yaml
conf=$(sed -n '/controllerManagerConfigYaml: |/,$p' "$WORK/out/addons/kueue-values.yaml" | sed '1d; s/^    //')
printf '%s\n' "$conf" | gq 'kind: Configuration' || t_abort "the rendered Kueue configuration"
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
check "skew: exit 1" '[ "$RC" = 1 ] && printf "%s" "$OUT" | gq "^3 findings"'
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
	'[ "$RC" = 1 ] && printf "%s" "$OUT" | gq "^1 finding$" && has_err "has NodeOverlay=false" &&
	 ! has_err "runs v1.7.0"'
# a gate left out of FEATURE_GATES takes the release default (NodeOverlay: off)
seed 1.14.1 "NodeRepair=true" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "NodeOverlay not in FEATURE_GATES: off by default, a finding" '[ "$RC" = 1 ] && has_err "has NodeOverlay=false"'
# everything matching
seed 1.14.1 "NodeRepair=true,NodeOverlay=true,SpotToSpotConsolidation=false" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "controllers match the render: exit 0, no finding" \
	'[ "$RC" = 0 ] && ! has_err "error:" && printf "%s" "$OUT" | gq "^ok"'
# Kueue older than the target
seed 1.14.1 "NodeRepair=true,NodeOverlay=true" v0.13.4 "$WORK/conf.yaml" || t_abort "re-seed"
doc "$SPEC"
check "Kueue v0.13.4 running, v0.19.2 targeted: a finding with the fix" \
	'[ "$RC" = 1 ] && has_err "the intent targets Kueue v0.19.2 but Deployment kueue-system/kueue-controller-manager runs v0.13.4" &&
	 has_err "set spec.targets.kueue: v0.13.4"'

# ---- diff --live: the add-on files against the running controllers, key by key ------
# the objects applied first, so that only the add-ons differ
seed 1.14.1 "NodeRepair=true,NodeOverlay=false" v0.19.2 "$WORK/conf-nopytorch.yaml" || t_abort "re-seed"
timeout 120 "$GPUFORM" reconcile --kubeconfig "$KC" "$SPEC" >"$WORK/rec.out" 2>&1 || t_abort "reconcile $SPEC" "$(cat "$WORK/rec.out")"
n_overlays=$(grep -l '^kind: NodeOverlay' "$WORK/out"/*.yaml | wc -l)
live() { OUT=$(timeout 120 "$GPUFORM" diff --live --kubeconfig "$KC" "$@" 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err"); }
has_out() { grep -qF -- "$1" <<<"$OUT"; }  # no pipe: grep -q would SIGPIPE printf under pipefail
t_audit_mark
live "$SPEC"
check "diff --live: only the add-ons differ: exit 1, the gate live false, rendered true, with its impact and fix" \
	'[ "$RC" = 1 ] && ! has_err "add-ons" && ! has_err "error:" &&
	 has_out "add-on addons/karpenter-values.yaml: settings.featureGates.nodeOverlay: live false, rendered true" &&
	 has_out "  Karpenter feature gate nodeOverlay (Deployment kube-system/karpenter, FEATURE_GATES): the $n_overlays NodeOverlays rendered are ignored until addons/karpenter-values.yaml is rolled out to the karpenter Helm release" &&
	 ! grep -q "^--- " <<<"$OUT"'
check "diff --live: the Kueue configuration by key (the integration the ConfigMap lacks)" \
	'has_out "add-on addons/kueue-values.yaml: managerConfig.controllerManagerConfigYaml:integrations.frameworks: live [" &&
	 has_out "  Kueue configuration (ConfigMap kueue-system/kueue-manager-config): the jobs of a framework not in the running configuration are not queued by Kueue until addons/kueue-values.yaml is rolled out to the kueue Helm release and the controller restarts"'
check "diff --live: the summary counts the add-on settings, last" \
	'[ "$(printf "%s\n" "$OUT" | tail -1)" = "2 add-on settings differ from the running controllers" ]'
check "diff --live: NodeRepair=true live and rendered: not listed" '! has_out "featureGates.nodeRepair"'
check "diff --live: read-only (audit: no write)" '[ "$(t_audit_nwrites)" = 0 ]'
live -o json "$SPEC"
check "diff --live -o json: .addons with live and rendered per key" \
	'[ "$RC" = 1 ] && printf "%s" "$OUT" | jq -e "(.addons | length) == 2 and
	   (.addons[0] | .file == \"karpenter-values.yaml\" and .key == \"settings.featureGates.nodeOverlay\" and .live == false and .rendered == true and (.impact | test(\"NodeOverlays rendered are ignored\")))
	   and (.addons[1].rendered | index(\"kubeflow.org/pytorchjob\")) != null and (.addons[1].live | index(\"kubeflow.org/pytorchjob\")) == null" >/dev/null'
live "$WORK/out"
check "diff --live DIR (a rendered directory): the same add-on lines from its addons/" \
	'[ "$RC" = 1 ] && has_out "settings.featureGates.nodeOverlay: live false, rendered true" &&
	 [ "$(printf "%s\n" "$OUT" | tail -1)" = "2 add-on settings differ from the running controllers" ]'
seed 1.14.1 "NodeRepair=true,NodeOverlay=true" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
live "$SPEC"
check "diff --live: controllers as rendered: exit 0, no output" '[ "$RC" = 0 ] && [ -z "$OUT" ] && ! has_err "add-ons" && ! has_err "error:"'
# a gate on live but off in the render (spotToSpotConsolidation is rendered false here)
seed 1.14.1 "NodeRepair=true,NodeOverlay=true,SpotToSpotConsolidation=true" v0.19.2 "$WORK/conf.yaml" || t_abort "re-seed"
live "$SPEC"
check "diff --live: a gate on live, off rendered: listed, 'still has it on'" \
	'[ "$RC" = 1 ] && has_out "settings.featureGates.spotToSpotConsolidation: live true, rendered false" &&
	 has_out "the running Karpenter still has it on until addons/karpenter-values.yaml is rolled out"'

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
	'! grep -A12 "kind: Role" "$WORK/install.yaml" | grep -B2 -A8 "deployments" | gq -E "^  - (list|watch)$" &&
	 [ "$(grep -c "^  - kueue-controller-manager$\|^  - karpenter$\|^  - kueue-manager-config$" "$WORK/install.yaml")" = 4 ]'

# ---- diff --live as the installed ServiceAccount of the intent's cluster ----------------
# (platform-shared: the inventory reconcile wrote above is its). Without --doctor the
# add-ons are not compared (a warning naming the 403 and the grant), the objects still are
install_ps() { "$GPUFORM" install --git https://git.example/gitops.git --cluster platform-shared \
	--cronjob-api-version batch/v1beta1 "$@" >"$WORK/install-ps.yaml" 2>"$WORK/install.err" &&
	k apply -f "$WORK/install-ps.yaml" >/dev/null 2>&1 || t_abort "apply gpuform install $*" "$(cat "$WORK/install.err")"; }
install_ps
tok=$(k create token gpuform-platform-shared -n gpuform-system --duration 1h 2>&1) || t_abort "a token" "$tok"
sed "s|token: \".*\"|token: \"$tok\"|" "$KC" >"$WORK/kubeconfig-sa"
grep -qF "$tok" "$WORK/kubeconfig-sa" || t_abort "a kubeconfig with the ServiceAccount's token"
live --kubeconfig "$WORK/kubeconfig-sa" "$SPEC"
check "install without --doctor: diff --live says the add-ons are not compared (the 403, the grant), still diffs" \
	'[ "$RC" = 0 ] && has_err "warning: add-ons: Karpenter: Deployment kube-system/karpenter cannot be read" &&
	 has_err "its feature gates are not compared" && has_err "gpuform install --doctor grants that read" &&
	 has_err "warning: add-ons: Kueue: ConfigMap kueue-system/kueue-manager-config cannot be read" && ! has_out "add-on addons/"'
install_ps --doctor
live --kubeconfig "$WORK/kubeconfig-sa" "$SPEC"
check "install --doctor: diff --live as the ServiceAccount compares the gate" \
	'[ "$RC" = 1 ] && has_out "settings.featureGates.nodeOverlay: live false, rendered true" && ! has_err "cannot be read"'

# ---- install --delivery flux: the ServiceAccount applies the delivered add-ons ---------
# (issue 25) spec.addons.delivery flux renders HelmReleases and their sources in
# flux-system; without --delivery the installed identity may not write them, with it
# exactly those names (list/create of the kinds, get/patch/delete by name)
gitops=tests/fixtures/crds/gitops
timeout 240 bash tests/kube-testenv crds "$ENV_DIR" "$gitops/helm.toolkit.fluxcd.io_helmreleases.yaml" \
	"$gitops/source.toolkit.fluxcd.io_helmrepositories.yaml" "$gitops/source.toolkit.fluxcd.io_ocirepositories.yaml" \
	>/dev/null 2>&1 || t_abort "install the Flux CRDs"
k create namespace flux-system >/dev/null 2>&1
awk '{ print } /^spec:[ \t]*$/ { print "  addons:"; print "    delivery: flux" }' "$SPEC" >"$WORK/flux.yaml"
rec_sa() { OUT=$(timeout 120 "$GPUFORM" reconcile --kubeconfig "$WORK/kubeconfig-sa" "$@" 2>"$WORK/err"); RC=$?; ERR=$(cat "$WORK/err"); }
rec_sa "$WORK/flux.yaml"
check "install without --delivery: the ServiceAccount may not apply the HelmReleases (403 named), nothing of them written" \
	'[ "$RC" -ge 3 ] && has_err "helmreleases" && grep -qi "forbidden" <<<"$ERR" &&
	 ! k get helmrelease -n flux-system karpenter >/dev/null 2>&1'
install_ps --doctor --delivery flux
rec_sa "$WORK/flux.yaml"
check "install --delivery flux: the ServiceAccount applies the HelmReleases and their sources (exit 0)" \
	'[ "$RC" = 0 ] && k get helmrelease -n flux-system karpenter eks-node-monitoring-agent >/dev/null 2>&1 &&
	 k get ocirepository -n flux-system karpenter kueue >/dev/null 2>&1 &&
	 k get helmrepository -n flux-system eks-node-monitoring-agent >/dev/null 2>&1'
# a HelmRelease of the namespace that is not gpuform's: out of the identity's reach
printf 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: other, namespace: flux-system}\nspec:\n  interval: 1h\n  chartRef: {kind: OCIRepository, name: other}\n' |
	k apply -f - >/dev/null 2>&1 || t_abort "a HelmRelease 'other'"
RC=- OUT= ERR=$(timeout 60 kubectl --request-timeout=30s --kubeconfig "$WORK/kubeconfig-sa" -n flux-system get helmrelease other 2>&1;
	timeout 60 kubectl --request-timeout=30s --kubeconfig "$WORK/kubeconfig-sa" -n flux-system delete helmrelease other 2>&1)
check "install --delivery flux: another HelmRelease in flux-system cannot be read or deleted by it" \
	'[ "$(printf "%s\n" "$ERR" | grep -ci forbidden)" = 2 ] && k get helmrelease -n flux-system other >/dev/null 2>&1'
# diff --live compares the delivered objects like any other: a HelmRelease's values
# changed in the cluster show as its diff
live "$WORK/flux.yaml"
check "flux delivery, applied: diff --live shows no object diff (only the running gate)" \
	'[ "$RC" = 1 ] && ! grep -q "^--- " <<<"$OUT" && has_out "settings.featureGates.nodeOverlay: live false, rendered true" &&
	 has_out "until HelmRelease flux-system/karpenter (rendered) is synced"'
k -n flux-system patch helmrelease karpenter --type merge -p '{"spec":{"values":{"settings":{"featureGates":{"nodeOverlay":false}}}}}' \
	>/dev/null 2>&1 || t_abort "patch the HelmRelease"
live "$WORK/flux.yaml"
check "flux delivery: a HelmRelease changed in the cluster is an object diff in diff --live" \
	'[ "$RC" = 1 ] && has_out "helmrelease.helm.toolkit.fluxcd.io/karpenter" && grep -q "^[-+] *nodeOverlay: \(true\|false\)" <<<"$OUT"'

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
