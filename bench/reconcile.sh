#!/bin/bash
# bench/reconcile.sh: the reconcile benchmark behind `make bench`.
#
# Against a real kube-apiserver + etcd on 127.0.0.1 (tests/kube-testenv) with
# the Karpenter and Kueue CRDs, in one run:
#   1. ~1,000 managed objects (BENCH_RECON_N workloads x 4 objects + shared
#      ones): first reconcile (creates), then a no-op reconcile — its request
#      count (target <= kinds + 2) and median wall time;
#   2. the same no-op work done by other tools, as ratios:
#        raw curl LISTs of the same kinds (one curl, one connection)  target gpuform <= 1.5x
#        kubectl apply --server-side of the rendered directory        target gpuform >= 10x faster
#        kubectl diff of the rendered directory                       target gpuform >= 10x faster
#   3. 10 drifted objects (kubectl patch) => exactly 10 writes;
#   4. peak RSS of reconcile at ~5,000 objects (target < 64 MiB).
# Results: bench/results/reconcile.json. Exit 0 when it ran (targets are
# reported, not enforced); non-zero on errors.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_RECON_N:-250}
BIG_N=${BENCH_RECON_BIG_N:-1250}
RUNS=${BENCH_RECON_RUNS:-5}
GPUFORM=${GPUFORM:-./gpuform}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }

tmp=$(mktemp -d /tmp/gpuform-bench.XXXXXX)
env_dir=$tmp/env
cleanup() { bash tests/kube-testenv stop "$env_dir" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }

echo "== starting a local kube-apiserver + etcd (loopback)"
bash tests/kube-testenv start "$env_dir" >/dev/null
bash tests/kube-testenv crds "$env_dir" tests/fixtures/crds/*.yaml
export KUBECONFIG=$env_dir/kubeconfig
url=$(sed -n 's/^KUBE_TESTENV_URL=//p' "$env_dir/env")
token=$(sed -n 's/^KUBE_TESTENV_TOKEN=//p' "$env_dir/env")

sh bench/gen-intent.sh "$N" > "$tmp/intent.yaml"
"$GPUFORM" render --output-dir "$tmp/dir" "$tmp/intent.yaml" 2>/dev/null
objects=$(grep -c '^- ' "$tmp/dir/kustomization.yaml")
echo "== $N workloads: $objects objects"

t=$(date +%s%N)
"$GPUFORM" reconcile -o json "$tmp/intent.yaml" > "$tmp/first.json"
first_ms=$(ms "$t")
echo "   first reconcile (creates): ${first_ms} ms, $(jq .requests.total "$tmp/first.json") requests"

"$GPUFORM" reconcile -o json "$tmp/intent.yaml" > "$tmp/noop.json"
noop_requests=$(jq .requests.total "$tmp/noop.json")
noop_writes=$(jq .requests.writes "$tmp/noop.json")
kinds=$(jq -r '.items[] | .kind' "$tmp/noop.json" | sort -u | wc -l)
for _ in $(seq "$RUNS"); do
	t=$(date +%s%N); "$GPUFORM" reconcile "$tmp/intent.yaml" >/dev/null; ms "$t"
done | median > "$tmp/noop.ms"
noop_ms=$(cat "$tmp/noop.ms")
echo "   no-op reconcile: ${noop_ms} ms median of $RUNS, $noop_requests requests, $noop_writes writes ($kinds kinds: target <= $((kinds + 2)))"

# the same LISTs gpuform makes, done by curl in one process (one connection)
cluster=$(sed -n 's/^  name: //p' "$tmp/intent.yaml" | head -1)
id=$(kubectl get cm -n gpuform-system "gpuform-$cluster" \
	-o jsonpath='{.metadata.labels.applyset\.kubernetes\.io/id}')
sel="labelSelector=applyset.kubernetes.io%2Fpart-of%3D$id"
urls=()
for r in api/v1/namespaces apis/karpenter.k8s.aws/v1/ec2nodeclasses apis/karpenter.sh/v1/nodepools \
	apis/kueue.x-k8s.io/v1beta2/workloadpriorityclasses apis/kueue.x-k8s.io/v1beta2/resourceflavors \
	apis/kueue.x-k8s.io/v1beta2/clusterqueues apis/kueue.x-k8s.io/v1beta2/localqueues; do
	urls+=("$url/$r?$sel&limit=500")
done
urls+=("$url/api/v1/namespaces/gpuform-system/configmaps/gpuform-$cluster")
for _ in $(seq "$RUNS"); do
	t=$(date +%s%N)
	curl -sf --cacert "$env_dir/tls.crt" -H "Authorization: Bearer $token" "${urls[@]}" -o /dev/null -o /dev/null \
		-o /dev/null -o /dev/null -o /dev/null -o /dev/null -o /dev/null -o /dev/null || true
	ms "$t"
done | median > "$tmp/curl.ms"
curl_ms=$(cat "$tmp/curl.ms")
echo "   raw curl LISTs of the same kinds: ${curl_ms} ms"

t=$(date +%s%N)
kubectl apply --server-side --field-manager=kubectl-bench -k "$tmp/dir" >/dev/null
apply_ms=$(ms "$t")
echo "   kubectl apply --server-side (no-op): ${apply_ms} ms"
t=$(date +%s%N)
kubectl diff --server-side --field-manager=kubectl-bench -k "$tmp/dir" >/dev/null || true
diff_ms=$(ms "$t")
echo "   kubectl diff: ${diff_ms} ms"

echo "== 10 drifted objects"
for i in $(seq 1 10); do
	np=$(kubectl get nodepools -o name | sed -n "$((i + 1))p")
	kubectl patch "$np" --type merge --field-manager kubectl-edit -p '{"spec":{"limits":{"nvidia.com/gpu":"4242"}}}' >/dev/null
done
"$GPUFORM" reconcile -o json "$tmp/intent.yaml" > "$tmp/drift.json"
drift_writes=$(jq .requests.writes "$tmp/drift.json")
drift_configured=$(jq .counts.configured "$tmp/drift.json")
echo "   reconcile after 10 drifted objects: $drift_configured configured, $drift_writes writes (target: exactly 10)"

echo "== peak RSS at $BIG_N workloads (a fresh API server)"
bash tests/kube-testenv stop "$env_dir" >/dev/null 2>&1 || true
env_dir=$tmp/env2
bash tests/kube-testenv start "$env_dir" >/dev/null
bash tests/kube-testenv crds "$env_dir" tests/fixtures/crds/*.yaml
export KUBECONFIG=$env_dir/kubeconfig
sh bench/gen-intent.sh "$BIG_N" > "$tmp/big.yaml"
big_objects=$("$GPUFORM" render "$tmp/big.yaml" 2>/dev/null | grep -c '^kind:')
sed -i "s/^  name: .*/  name: bench-big/" "$tmp/big.yaml"
/usr/bin/time -f %M -o "$tmp/rss1" "$GPUFORM" reconcile --timeout 10m "$tmp/big.yaml" >/dev/null
/usr/bin/time -f %M -o "$tmp/rss2" "$GPUFORM" reconcile --timeout 10m "$tmp/big.yaml" >/dev/null
rss1=$(tail -1 "$tmp/rss1"); rss2=$(tail -1 "$tmp/rss2")
echo "   $big_objects objects: first reconcile $((rss1 / 1024)) MiB, no-op $((rss2 / 1024)) MiB (target < 64 MiB)"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "== summary"
printf '   no-op requests          %6s   (target <= %s)\n' "$noop_requests" "$((kinds + 2))"
printf '   gpuform / curl LISTs    %6sx  (target <= 1.5)\n' "$(ratio "$noop_ms" "$curl_ms")"
printf '   kubectl apply / gpuform %6sx  (target >= 10)\n' "$(ratio "$apply_ms" "$noop_ms")"
printf '   kubectl diff / gpuform  %6sx  (target >= 10)\n' "$(ratio "$diff_ms" "$noop_ms")"
printf '   drift writes            %6s   (target 10)\n' "$drift_writes"
printf '   peak RSS (MiB)          %6s   (target < 64)\n' "$(( (rss1 > rss2 ? rss1 : rss2) / 1024 ))"
mkdir -p bench/results
cat > bench/results/reconcile.json <<JSON
{"objects": $objects, "kinds": $kinds, "first_ms": $first_ms, "noop_ms": $noop_ms, "noop_requests": $noop_requests,
 "noop_writes": $noop_writes, "curl_list_ms": $curl_ms, "kubectl_apply_ms": $apply_ms, "kubectl_diff_ms": $diff_ms,
 "drift_configured": $drift_configured, "drift_writes": $drift_writes, "big_objects": $big_objects,
 "rss_first_kib": $rss1, "rss_noop_kib": $rss2}
JSON
