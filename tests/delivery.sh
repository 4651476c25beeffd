#!/usr/bin/env bash
# tests/delivery.sh: spec.addons.delivery. Every example is rendered with delivery flux and
# argocd (the line written into a copy of it) and the output passes tests/e2e.sh — the
# server-side dry-run on the real kube-apiserver — with the real Flux (HelmRelease,
# OCIRepository, HelmRepository) and Argo CD (Application) CRDs of
# tests/fixtures/crds/gitops/ created too, nothing pruned. Also: delivery values is the
# default output byte for byte; flux/argocd add exactly the expected kinds; the chart
# versions follow spec.targets; an unknown delivery is refused at file:line:col.
#
#   GPUFORM=/path/to/gpuform bash tests/delivery.sh [--update]   (--update: tests/golden-delivery)
# DELIVERY_NO_SERVER=1 skips the API server part.

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
t_gpuform
tmp=
t_tmpdir tmp
crds=$here/fixtures/crds/gitops

# with_delivery SPEC MODE OUT: SPEC with spec.addons.delivery: MODE
with_delivery() {
	awk -v m="$2" '{ print } /^spec:[ \t]*$/ { print "  addons:"; print "    delivery: " m }' "$1" >"$3"
}

# ---- pure checks ----------------------------------------------------------------------
for spec in "$root"/specs/*.yaml; do
	name=$(basename "$spec" .yaml)
	with_delivery "$spec" values "$tmp/$name-values.yaml"
	# stdout only: the warnings name the file
	"$GPUFORM" render "$spec" >"$tmp/a" 2>/dev/null
	"$GPUFORM" render "$tmp/$name-values.yaml" >"$tmp/b" 2>/dev/null
	if cmp -s "$tmp/a" "$tmp/b"; then t_pass "$name: delivery values = the default output"
	else t_fail "$name: delivery values = the default output" "$(diff "$tmp/a" "$tmp/b" | head)"; fi
	for m in flux argocd; do
		mkdir -p "$tmp/specs-$m"
		with_delivery "$spec" "$m" "$tmp/specs-$m/$name.yaml"
	done
done

spec=$root/specs/efa-training.yaml
with_delivery "$spec" flux "$tmp/f.yaml"
"$GPUFORM" render --output-dir "$tmp/f" "$tmp/f.yaml" >/dev/null 2>&1
got=$(cd "$tmp/f" && ls helmrelease-* ocirepository-* helmrepository-* 2>/dev/null | tr '\n' ' ')
want='helmrelease-aws-efa-k8s-device-plugin.yaml helmrelease-eks-node-monitoring-agent.yaml helmrelease-karpenter.yaml helmrelease-kueue.yaml helmrelease-nvidia-device-plugin.yaml helmrepository-eks-node-monitoring-agent.yaml helmrepository-eks.yaml helmrepository-nvdp.yaml ocirepository-karpenter.yaml ocirepository-kueue.yaml '
[[ $got == "$want" ]] && t_pass "flux: HelmReleases and their sources" || t_fail "flux: HelmReleases and their sources" "got: $got"
grep -q 'tag: 1.14.1' "$tmp/f/ocirepository-karpenter.yaml" && grep -q 'tag: 0.19.2' "$tmp/f/ocirepository-kueue.yaml" &&
	t_pass "flux: charts pinned to the default targets" || t_fail "flux: charts pinned to the default targets"
grep -q 'helmrelease-karpenter.yaml' "$tmp/f/kustomization.yaml" && t_pass "flux: objects in the kustomization" ||
	t_fail "flux: objects in the kustomization"
awk '{ print } /^spec:[ \t]*$/ { print "  targets:"; print "    karpenter: v1.10.2" }' "$tmp/f.yaml" >"$tmp/f2.yaml"
"$GPUFORM" render --output-dir "$tmp/f2" "$tmp/f2.yaml" >/dev/null 2>&1
grep -q 'tag: 1.10.2' "$tmp/f2/ocirepository-karpenter.yaml" && t_pass "flux: Karpenter chart = spec.targets.karpenter" ||
	t_fail "flux: Karpenter chart = spec.targets.karpenter" "$(cat "$tmp/f2/ocirepository-karpenter.yaml" 2>&1)"
with_delivery "$spec" argocd "$tmp/a.yaml"
"$GPUFORM" render --output-dir "$tmp/ao" "$tmp/a.yaml" >/dev/null 2>&1
got=$(cd "$tmp/ao" && ls application-* 2>/dev/null | tr '\n' ' ')
[[ $got == 'application-aws-efa-k8s-device-plugin.yaml application-eks-node-monitoring-agent.yaml application-karpenter.yaml application-kueue.yaml application-nvidia-device-plugin.yaml ' ]] &&
	t_pass "argocd: one Application per chart" || t_fail "argocd: one Application per chart" "got: $got"
grep -q 'repoURL: public.ecr.aws/karpenter$' "$tmp/ao/application-karpenter.yaml" &&
	t_pass "argocd: OCI repoURL without the scheme" || t_fail "argocd: OCI repoURL without the scheme"
# the EKS node monitoring agent (node repair on, the default with GPU pools): its chart
# from https://aws.github.io/eks-node-monitoring-agent, pinned, with the values file
grep -q 'url: https://aws.github.io/eks-node-monitoring-agent$' "$tmp/f/helmrepository-eks-node-monitoring-agent.yaml" &&
	grep -q 'version: 1.7.0' "$tmp/f/helmrelease-eks-node-monitoring-agent.yaml" &&
	grep -q 'targetNamespace: kube-system' "$tmp/f/helmrelease-eks-node-monitoring-agent.yaml" &&
	grep -q 'key: nvidia.com/gpu' "$tmp/f/helmrelease-eks-node-monitoring-agent.yaml" &&
	t_pass "flux: node monitoring agent HelmRelease, its HelmRepository, the DCGM toleration" ||
	t_fail "flux: node monitoring agent HelmRelease, its HelmRepository, the DCGM toleration" "$(cat "$tmp/f/helmrelease-eks-node-monitoring-agent.yaml" 2>&1)"
grep -q 'repoURL: https://aws.github.io/eks-node-monitoring-agent$' "$tmp/ao/application-eks-node-monitoring-agent.yaml" &&
	grep -q 'targetRevision: 1.7.0' "$tmp/ao/application-eks-node-monitoring-agent.yaml" &&
	t_pass "argocd: node monitoring agent Application, chart pinned" ||
	t_fail "argocd: node monitoring agent Application, chart pinned" "$(cat "$tmp/ao/application-eks-node-monitoring-agent.yaml" 2>&1)"
awk '{ print } /^spec:[ \t]*$/ { print "  nodeRepair: false" }' "$tmp/f.yaml" >"$tmp/f3.yaml"
"$GPUFORM" render --output-dir "$tmp/f3" "$tmp/f3.yaml" >/dev/null 2>&1
if [[ -e $tmp/f3/helmrelease-karpenter.yaml && ! -e $tmp/f3/helmrelease-eks-node-monitoring-agent.yaml &&
	! -e $tmp/f3/helmrepository-eks-node-monitoring-agent.yaml ]]; then
	t_pass "flux, node repair off: no node monitoring agent release"
else t_fail "flux, node repair off: no node monitoring agent release" "$(ls "$tmp/f3" 2>&1 | tr '\n' ' ')"; fi
with_delivery "$spec" fluxcd "$tmp/bad.yaml"
"$GPUFORM" render "$tmp/bad.yaml" >"$tmp/bad.out" 2>&1
rc=$?
if ((rc != 0)) && grep -q "bad.yaml:[0-9]*:[0-9]*:.*unknown value 'fluxcd'" "$tmp/bad.out" && grep -q "flux" "$tmp/bad.out"; then
	t_pass "an unknown delivery is refused at file:line:col"
else t_fail "an unknown delivery is refused at file:line:col" "rc=$rc $(cat "$tmp/bad.out")"; fi

# ---- golden: tests/golden-delivery/<name>/ (reviewed; --update rewrites) --------------
for f in "$root"/tests/fixtures/delivery/*.yaml; do
	n=$(basename "$f" .yaml)
	rm -rf "$tmp/g"
	"$GPUFORM" render -o "$tmp/g" "$f" >/dev/null 2>&1
	mkdir -p "$tmp/g-$n"
	for o in "$tmp"/g/helmrelease-* "$tmp"/g/ocirepository-* "$tmp"/g/helmrepository-* "$tmp"/g/application-* "$tmp/g/kustomization.yaml"; do
		[[ -e $o ]] && cp "$o" "$tmp/g-$n/"
	done
	if [[ ${1:-} == --update ]]; then
		rm -rf "$root/tests/golden-delivery/$n"; cp -r "$tmp/g-$n" "$root/tests/golden-delivery/$n"
		t_note "golden-delivery $n updated (review git diff tests/golden-delivery)"
	elif d=$(diff -ru "$root/tests/golden-delivery/$n" "$tmp/g-$n" 2>&1); then
		t_pass "golden-delivery $n"
	else
		t_fail "golden-delivery $n" "$(printf '%s\n' "$d" | head -40)"
	fi
done

# ---- the real API server with the real Flux and Argo CD CRDs ----------------------------
if [[ ${DELIVERY_NO_SERVER:-} != 1 ]]; then
	extra="$crds/helm.toolkit.fluxcd.io_helmreleases.yaml $crds/source.toolkit.fluxcd.io_helmrepositories.yaml $crds/source.toolkit.fluxcd.io_ocirepositories.yaml $crds/application-crd.yaml"
	for m in flux argocd; do
		ns=flux-system; [[ $m == argocd ]] && ns=argocd
		if E2E_SPECS=$tmp/specs-$m E2E_EXTRA_CRDS=$extra E2E_NAMESPACES=$ns bash "$here/e2e.sh" >"$tmp/e2e-$m" 2>&1; then
			t_pass "$m: every example passes the server-side dry-run ($(grep -c '^ok\|PASS' "$tmp/e2e-$m") checks)"
		else
			t_fail "$m: every example passes the server-side dry-run" "$(grep -iE 'fail|not ok' "$tmp/e2e-$m" | head -n 30)"
		fi
	done
fi
t_summary
exit
}
