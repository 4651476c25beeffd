#!/bin/bash
# tests/demo.sh: the main job, end to end (`make demo`).
#
#  1. render every example intent in specs/ into out/<name>/ and summarise,
#     and print their plan (gpuform plan: capacity and cost);
#  2. start the project's local Kubernetes API server (a real kube-apiserver
#     + etcd on 127.0.0.1, with the Karpenter and Kueue CRDs);
#  3. reconcile the ml-prod example into it, then reconcile again: the
#     second run changes nothing; `diff --live` agrees;
#  4. lint the examples and what they render, and render the manifests
#     that run gpuform as a CronJob in the cluster (`gpuform install`).
set -euo pipefail
cd "$(dirname "$0")/.."
GPUFORM=${GPUFORM:-./gpuform}

echo "== 1. render every example in specs/ into out/"
mkdir -p out
for spec in specs/*.yaml; do
	name=$(basename "$spec" .yaml)
	"$GPUFORM" render --output-dir "out/$name" "$spec" 2>&1 | sed 's/^/   /'
done
printf '   %-24s %8s %8s\n' example objects addons
for spec in specs/*.yaml; do
	d=out/$(basename "$spec" .yaml)
	n=$(grep -c '^- ' "$d/kustomization.yaml")
	a=$(ls "$d/addons" | wc -l)
	printf '   %-24s %8s %8s\n' "$(basename "$d")" "$n" "$a"
done

echo "== 1b. what the examples buy: gpuform plan (GPUs, nodes, gangs, on-demand \$/hour)"
"$GPUFORM" plan specs/*.yaml | sed 's/^/   /'

echo "== 2. start a local Kubernetes API server (first time: builds it, ~4 min)"
env_dir=$(mktemp -d /tmp/gpuform-demo.XXXXXX)
trap 'bash tests/kube-testenv stop "$env_dir" >/dev/null 2>&1 || true; rm -rf "$env_dir"' EXIT
bash tests/kube-testenv start "$env_dir" >/dev/null
bash tests/kube-testenv crds "$env_dir" tests/fixtures/crds/*.yaml
export KUBECONFIG=$env_dir/kubeconfig
echo "   API server ready: $(sed -n 's/^KUBE_TESTENV_URL=//p' "$env_dir/env")"

echo "== 3. reconcile specs/ml-prod.yaml"
"$GPUFORM" reconcile specs/ml-prod.yaml | sed 's/^/   /'
echo "== 4. reconcile again: nothing to do"
"$GPUFORM" reconcile specs/ml-prod.yaml | tail -1 | sed 's/^/   /'
"$GPUFORM" diff --live specs/ml-prod.yaml
echo "   diff --live: no differences (exit 0)"
echo "== 5. lint specs/ and out/, render the in-cluster job into out/gpuform-install"
lint_out=$("$GPUFORM" lint specs out 2>&1) || { printf '%s\n' "$lint_out" >&2; echo "demo: gpuform lint failed" >&2; exit 1; }
printf '%s\n' "$lint_out" | sed 's/^/   /'
# gpuform's own output must give no rule finding (the intents' own warnings may)
if grep -q '\[GPU[0-9]' <<<"$lint_out"; then
	echo "demo: gpuform lint finds rule findings in gpuform's own output" >&2
	exit 1
fi
rm -rf out/gpuform-install
"$GPUFORM" install --git https://git.example.com/platform/gitops.git --cluster ml-prod \
	--output-dir out/gpuform-install 2>&1 | sed 's/^/   /'
echo "== done: rendered $(ls specs/*.yaml | wc -l) examples into out/; cluster in sync"
