#!/usr/bin/env bash
# tests/kueue.sh: the Kueue v0.19.2 controller admitting gpuform's gangs (issue 28).
#
#   GPUFORM=/path/to/gpuform bash tests/kueue.sh        (or: make kueue)
#
# Builds build/kueue/kueue, Kueue's own main package (sigs.k8s.io/kueue/cmd/kueue at
# v0.19.2, tests/kueue/go.mod; rebuilt only when tests/kueue changes, serialised with
# flock), starts ONE current kube-apiserver (tests/kube-testenv, KUBE_TESTENV_VERSION=
# current) and ONE Kueue process on loopback with Kueue's webhooks registered at a
# loopback URL with their own certificate, and the Kueue configuration gpuform renders
# (addons/kueue-values.yaml; only what must differ on loopback is changed, and
# waitForPodsReady's timeouts are shortened to KUEUE_PODS_READY_TIMEOUT, default 60 s:
# a scenario checks the job admitted after an eviction inside that window, and 30 s was
# too short when the 17 scenarios ran beside other suites).
# Then it applies the Kueue objects of every example in specs/ (namespaces, priority
# classes, ResourceFlavors, ClusterQueues, LocalQueues) through Kueue's webhooks and,
# for every workload of every example, in parallel, submits Jobs built from its pod
# contract (addons/pod-contract-*.yaml):
#   - a full gang (a batch/v1 Job, parallelism = gang): the webhook suspends it; the
#     Workload is admitted whole to the workload's ResourceFlavor; the Job is started
#     with the nodeSelector and tolerations Kueue injects, which must select the
#     workload's NodePool (its labels) and tolerate its taints;
#   - "over": a job that fits the ClusterQueue alone but not beside the gang (a
#     PyTorchJob, Master + Workers, for gangs of 2 or more; else a Job): it waits
#     whole while the gang holds the quota;
#   - waitForPodsReady: no kubelet, no Job controller, so no pod is ever Ready; the gang
#     is evicted after the timeout (reason PodsReadyTimeout), gives its quota back, is
#     suspended again and is to be requeued backoffBaseSeconds later; then "over" is
#     admitted whole;
#   - "toobig": one pod more than the whole quota: never admitted (no cohort to borrow
#     from, as rendered), whatever the other queues have free.
# Built-in negative controls: a ResourceFlavor whose nodeLabels do not match the NodePool
# and a ClusterQueue whose GPU quota is below the gang must make these checks fail.
# docs/kueue-suite.md explains it (what the webhooks, the missing controllers and the
# test configuration leave out).
KUEUE_VERSION=v0.19.2
PODS_READY_TIMEOUT=${KUEUE_PODS_READY_TIMEOUT:-60}

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
cd "$root" || exit 1
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
t_isolate
t_gpuform
t_need jq flock kubectl openssl curl unshare sha256sum
T_START=$(date +%s)
suite_start=$SECONDS
tmp=
t_tmpdir tmp
WORK=$tmp

# ---- the harness: Kueue's controller and yaml2json, built from tests/kueue ---------------
go=go
[[ -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
command -v "$go" >/dev/null || t_abort "build Kueue: Go (>= 1.26) is not installed"
KUEUE=$root/build/kueue/kueue
Y2J=$root/build/kueue/yaml2json
mkdir -p "$root/build/kueue"
stamp=$(cat "$here/kueue/go.mod" "$here/kueue/go.sum" "$here/kueue/yaml2json/main.go" | sha256sum | cut -c1-16)
start=$SECONDS
if ! (flock -w 3600 9 || exit 1
	if [[ -x $KUEUE && -x $Y2J && $(cat "$KUEUE.stamp" 2>/dev/null) == "$stamp" ]]; then exit 0; fi
	cd "$here/kueue" &&
		GOFLAGS="-mod=readonly -buildvcs=false" nice -n 10 "$go" build \
			-ldflags "-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" \
			-o "$KUEUE.tmp" sigs.k8s.io/kueue/cmd/kueue &&
		GOFLAGS="-mod=readonly -buildvcs=false" nice -n 10 "$go" build -o "$Y2J.tmp" ./yaml2json &&
		mv "$KUEUE.tmp" "$KUEUE" && mv "$Y2J.tmp" "$Y2J" && echo "$stamp" >"$KUEUE.stamp"
) 9>"$root/build/kueue/.lock" >"$tmp/build.log" 2>&1; then
	t_abort "build Kueue $KUEUE_VERSION (tests/kueue, $("$go" env GOVERSION))" "$(tail -n 30 "$tmp/build.log")"
fi
t_note "Kueue $KUEUE_VERSION ready in $((SECONDS - start)) s ($("$go" env GOVERSION); build/kueue/kueue, rebuilt only when tests/kueue changes)"
modroot() { (cd "$here/kueue" && GOFLAGS=-mod=readonly "$go" list -m -f '{{.Dir}}' "$1"); }
KDIR=$(modroot sigs.k8s.io/kueue) && [[ -d $KDIR/config/components/crd/bases ]] ||
	t_abort "the module sigs.k8s.io/kueue@$KUEUE_VERSION is in Go's module cache"
# the PyTorchJob CRD of the Kubeflow training operator release Kueue v0.19.2 builds
# against (its go.mod: github.com/kubeflow/training-operator v1.9.3)
TODIR=$(modroot github.com/kubeflow/training-operator) &&
	[[ -f $TODIR/manifests/base/crds/kubeflow.org_pytorchjobs.yaml ]] ||
	t_abort "the module github.com/kubeflow/training-operator is in Go's module cache"

# ---- render every example (and the controls) ------------------------------------------
specs_dir=${KUEUE_SPECS:-$root/specs}
shopt -s nullglob
specs=("$specs_dir"/*.yaml)
shopt -u nullglob
((${#specs[@]})) || t_abort "no intent files in $specs_dir"
for spec in "${specs[@]}"; do
	n=$(basename "$spec" .yaml)
	"$GPUFORM" render --output-dir "$tmp/r/$n" "$spec" >"$tmp/render.log" 2>&1 ||
		t_abort "gpuform render $spec" "$(tail -n 20 "$tmp/render.log")"
done
# the controls: two workloads of their own, then broken on purpose (below)
cat >"$tmp/controls.yaml" <<'EOF'
apiVersion: gpuform.io/v1alpha1
kind: ClusterIntent
metadata:
  name: kueue-controls
spec:
  nodeRole: KarpenterNodeRole-kueue-controls
  ami: al2023@v20250505
  maintenanceWindow:
    schedule: "0 3 * * *"
    duration: 2h
  workloads:
    - name: ctl-flavor
      type: inference
      gpu: l4
      maxGpus: 2
      namespace: kueue-ctl
    - name: ctl-quota
      type: training
      gpu: l4
      gpusPerPod: 1
      gang: 2
      maxGpus: 2
      namespace: kueue-ctl
EOF
ctl=$tmp/ctl
"$GPUFORM" render --output-dir "$ctl" "$tmp/controls.yaml" >"$tmp/render.log" 2>&1 ||
	t_abort "gpuform render (the controls' intent)" "$(tail -n 20 "$tmp/render.log")"
# (1) a flavor whose nodeLabels select no node of the NodePool
sed -i 's/^    gpuform.io\/pool: ctl-flavor$/    gpuform.io\/pool: elsewhere/' "$ctl/resourceflavor-ctl-flavor.yaml"
# (2) a GPU quota below the gang (2 pods of 1 GPU)
awk '/- name: nvidia.com\/gpu/ { print; getline; sub(/nominalQuota: 2/, "nominalQuota: 1") } { print }' \
	"$ctl/clusterqueue-ctl-quota.yaml" >"$tmp/cq" && mv "$tmp/cq" "$ctl/clusterqueue-ctl-quota.yaml"
t_setup "controls broken: flavor nodeLabels elsewhere, GPU quota 1 under a gang of 2" \
	"grep -q 'gpuform.io/pool: elsewhere' '$ctl/resourceflavor-ctl-flavor.yaml' && grep -q 'nominalQuota: 1\$' '$ctl/clusterqueue-ctl-quota.yaml'"

# ---- the Kueue configuration gpuform renders, as this test runs it ----------------------
# j FILE: the first YAML document of FILE as JSON
j() { "$Y2J" "$1" | head -n 1; }
cfgjson() { j "$1/addons/kueue-values.yaml" | jq -r '.managerConfig.controllerManagerConfigYaml' | "$Y2J"; }
ref=ml-prod
[[ -d $tmp/r/$ref ]] || ref=$(basename "${specs[0]}" .yaml)
cfgjson "$tmp/r/$ref" >"$tmp/rendered-config.json" || t_abort "read addons/kueue-values.yaml of $ref"
# every example renders the same configuration but for waitForPodsReady's timeouts and
# backoffLimitCount (intent-dependent: docs/kueue-and-disruption.md)
norm='del(.waitForPodsReady.timeout, .waitForPodsReady.recoveryTimeout, .waitForPodsReady.requeuingStrategy.backoffLimitCount)'
for d in "$tmp"/r/*/; do
	n=$(basename "$d")
	diffout=$(diff <(jq -S "$norm" "$tmp/rendered-config.json") <(cfgjson "$d" | jq -S "$norm") 2>&1)
	check "$n: its Kueue configuration is the one under test (but for waitForPodsReady timeouts, backoffLimitCount)" \
		'[[ -z $diffout ]]'
done

free_port() {
	python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 12000))
}
hport=$(free_port) wport=$(free_port)
while [[ $wport == "$hport" ]]; do wport=$(free_port); done
mkdir -p "$tmp/kueue/certs"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/kueue/certs/tls.key" -out "$tmp/kueue/certs/tls.crt" \
	-subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" -days 2 >/dev/null 2>&1 ||
	t_abort "openssl: a certificate for Kueue's webhook server on 127.0.0.1"
# What this run changes, and only that: listen on loopback (health; webhook with the
# certificate above; metrics off), no leader election (one process), no internal
# certificate management (it writes a Secret and patches webhook configurations for a
# Service DNS name; the API server here reaches the webhook by URL), the namespace,
# and the timeouts: PODS_READY_TIMEOUT instead of 17-25 minutes. Everything else -
# integrations, blockAdmission, requeuingStrategy, excludeResourcePrefixes,
# groupKindConcurrency - is what gpuform renders.
jq --arg hp "127.0.0.1:$hport" --argjson wp "$wport" --arg cd "$tmp/kueue/certs" --arg t "${PODS_READY_TIMEOUT}s" '
	.health.healthProbeBindAddress = $hp | .metrics.bindAddress = "0"
	| .webhook = {port: $wp, host: "127.0.0.1", certDir: $cd}
	| .leaderElection.leaderElect = false | .internalCertManagement = {enable: false}
	| .namespace = "kueue-system"
	| .waitForPodsReady.timeout = $t | .waitForPodsReady.recoveryTimeout = $t' \
	"$tmp/rendered-config.json" >"$tmp/kueue/config.json" || t_abort "write the Kueue configuration"
t_note "Kueue configuration: $ref's addons/kueue-values.yaml; changed: $(diff <(jq -S . "$tmp/rendered-config.json") <(jq -S . "$tmp/kueue/config.json") | grep -c '^>') lines (loopback, no leader election, no internal cert management, waitForPodsReady timeouts ${PODS_READY_TIMEOUT}s)"
BACKOFF_BASE=$(jq -r '.waitForPodsReady.requeuingStrategy.backoffBaseSeconds // 60' "$tmp/kueue/config.json")

# ---- the API server, the CRDs -----------------------------------------------------------
KUBE_TESTENV_VERSION=${KUEUE_TESTENV_VERSION:-current}   # (1.20: only to debug this script; Kueue needs a current server)
export KUBE_TESTENV_VERSION
t_testenv_start
t_note "kube-apiserver $(kubectl version -o json 2>/dev/null | jq -r .serverVersion.gitVersion)"
# the project's copies of Kueue's CRDs (tests/fixtures/crds) are the module's, byte for byte
for f in tests/fixtures/crds/kueue.x-k8s.io_*.yaml; do
	cmp -s "$f" "$KDIR/config/components/crd/bases/$(basename "$f")" ||
		t_abort "$f is $KUEUE_VERSION's $(basename "$f") (config/components/crd/bases)"
done
more=()
for f in "$KDIR"/config/components/crd/bases/*.yaml; do
	[[ -e tests/fixtures/crds/$(basename "$f") ]] || more+=("$f")
done
more+=("$TODIR/manifests/base/crds/kubeflow.org_pytorchjobs.yaml")
out=$(timeout 300 bash tests/kube-testenv crds "$ENV_DIR" "${more[@]}" 2>&1) ||
	t_abort "create Kueue's other CRDs and the PyTorchJob CRD" "$out"
t_note "CRDs: Kueue $KUEUE_VERSION's $(ls "$KDIR"/config/components/crd/bases/*.yaml | wc -l) (config/components/crd/bases), kubeflow.org PyTorchJob (training-operator $(basename "$TODIR" | sed 's/.*@//'), manifests/base/crds)"
kubectl create namespace kueue-system >/dev/null || t_abort "create namespace kueue-system"

# ---- Kueue ----------------------------------------------------------------------------------
# Kueue without internal cert management reads its metrics certificate from the fixed path
# /etc/kueue/metrics/certs (cmd/kueue/main.go) even with metrics off: it runs in a mount
# namespace of its own, where /etc is an overlay holding that path (the host's /etc is
# not touched); where no mount namespace or overlay may be made, the path is made on the
# host for the run and removed after it.
mkdir -p "$tmp/kueue/etc-up" "$tmp/kueue/etc-work"
kueue_cmd=("$KUEUE" --config "$tmp/kueue/config.json" --feature-gates=VisibilityOnDemand=false --zap-log-level=2)
mkdir -p "$tmp/kueue/probe-up" "$tmp/kueue/probe-work"
# shellcheck disable=SC2016 # expanded by the inner sh
if unshare -m --propagation private sh -c \
	'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/probe-up,workdir=$1/probe-work" /etc' \
	sh "$tmp/kueue" 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner sh
	setsid unshare -m --propagation private sh -c '
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/etc-up,workdir=$1/etc-work" /etc &&
		mkdir -p /etc/kueue/metrics/certs && cp "$1/certs/tls.crt" "$1/certs/tls.key" /etc/kueue/metrics/certs/ &&
		shift && exec "$@"' sh "$tmp/kueue" "${kueue_cmd[@]}" \
		</dev/null >"$tmp/kueue/kueue.log" 2>&1 &
elif [[ ! -e /etc/kueue ]] && mkdir -p /etc/kueue/metrics/certs 2>/dev/null; then
	# no mount namespace here (a container without CAP_SYS_ADMIN): the path on the host,
	# made by this run and removed when it ends (never when it was there before)
	t_on_exit "rm -rf /etc/kueue"
	cp "$tmp/kueue/certs/tls.crt" "$tmp/kueue/certs/tls.key" /etc/kueue/metrics/certs/ ||
		t_abort "copy Kueue's certificate to /etc/kueue/metrics/certs"
	t_note "no mount namespace (unshare -m refused): Kueue's certificate path made on the host, removed at exit"
	setsid "${kueue_cmd[@]}" </dev/null >"$tmp/kueue/kueue.log" 2>&1 &
else
	t_abort "a place for Kueue's fixed certificate path /etc/kueue/metrics/certs" \
		"unshare -m is refused and /etc/kueue exists or cannot be made (run as root, or with CAP_SYS_ADMIN)"
fi
kpid=$!
t_on_exit "kill $kpid 2>/dev/null; for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $kpid 2>/dev/null || break; sleep 0.5; done; kill -9 $kpid 2>/dev/null; cp '$tmp/kueue/kueue.log' '${KUEUE_LOG:-/dev/null}' 2>/dev/null"
kstart=$SECONDS
ready=0
while ((SECONDS - kstart < 120)); do
	kill -0 "$kpid" 2>/dev/null || break
	curl -sf --max-time 2 "http://127.0.0.1:$hport/readyz" >/dev/null 2>&1 && { ready=1; break; }
	sleep 0.5
done
((ready)) || t_abort "Kueue $KUEUE_VERSION ready on 127.0.0.1:$hport (readyz)" "$(grep -v '"level":"info"' "$tmp/kueue/kueue.log" | tail -n 20)"
t_note "Kueue $KUEUE_VERSION ready in $((SECONDS - kstart)) s (pid $kpid; health 127.0.0.1:$hport, webhooks https://127.0.0.1:$wport)"
check "Kueue loaded the rendered configuration (waitForPodsReady blockAdmission false, requeuing backoff $BACKOFF_BASE s)" \
	"grep -q '\"Configuration loaded\"' '$tmp/kueue/kueue.log' && grep 'Configuration loaded' '$tmp/kueue/kueue.log' | gq 'blockAdmission: false'"

# Kueue's webhooks (config/components/webhook/manifests.yaml, with the namespaceSelector
# its kustomization adds to the job webhooks) at https://127.0.0.1:$wport
ca=$(base64 -w0 <"$tmp/kueue/certs/tls.crt")
"$Y2J" "$KDIR/config/components/webhook/manifests.yaml" | jq -c --arg u "https://127.0.0.1:$wport" --arg ca "$ca" '
	.metadata.name = "kueue-" + .metadata.name
	| .webhooks[] |= (.clientConfig = {url: ($u + .clientConfig.service.path), caBundle: $ca}
		| if any(.rules[].apiGroups[]; . == "kueue.x-k8s.io") then . else
			.namespaceSelector = {matchExpressions: [{key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "kueue-system"]}]} end)' |
	jq -s '{apiVersion: "v1", kind: "List", items: .}' >"$tmp/kueue/webhooks.json" || t_abort "Kueue's webhook manifests"
out=$(kubectl create -f "$tmp/kueue/webhooks.json" 2>&1) || t_abort "register Kueue's webhooks" "$out"
t_note "webhooks: $(jq '[.items[].webhooks[]] | length' "$tmp/kueue/webhooks.json") of Kueue's (mutating and validating) at https://127.0.0.1:$wport"

# ---- the rendered Kueue objects, through the API server's CEL rules and Kueue's webhooks ----
kobjs() { # in the order they depend on each other
	local k f
	for k in namespace workloadpriorityclass resourceflavor cohort clusterqueue localqueue; do
		for f in "$1"/$k-*.yaml; do [[ -e $f ]] && echo "$f"; done
	done
}
for d in "$tmp"/r/*/ "$ctl/"; do
	n=$(basename "$d")
	args=()
	while read -r f; do args+=(-f "$f"); done < <(kobjs "$d")
	OUT=$(kubectl apply "${args[@]}" 2>&1)
	RC=$?
	[[ $d == "$ctl/" ]] && n=controls
	check "$n: its $((${#args[@]} / 2)) Kueue objects and namespaces are accepted (CEL, Kueue's webhooks)" \
		'((RC == 0)) && ! grep -qi warning <<<"$OUT"'
done
# every ClusterQueue active (its flavors exist)
cqs=$(kubectl get clusterqueues -o name | wc -l)
for ((i = 0; i < 60; i++)); do
	inactive=$(kubectl get clusterqueues -o json | jq -r '.items[] | select(([.status.conditions[]? | select(.type == "Active" and .status == "True")] | length) == 0) | .metadata.name')
	[[ -z $inactive ]] && break
	sleep 1
done
check "all $cqs ClusterQueues are active" '[[ -z $inactive ]]'
OUT=$(kubectl get clusterqueues -o json | jq -r '.items[] | select(.spec.cohortName != null) | .metadata.name')
check "no rendered ClusterQueue is in a cohort (docs/kueue-and-disruption.md: nothing to lend)" '[[ -z $OUT ]]'

# ---- the scenarios ----------------------------------------------------------------------------
# Each workload runs in a background subshell; its results go to $tmp/res/<ns>.<w>
# as lines "P<TAB>name" or "F<TAB>name<TAB>detail file", replayed in order below.
mkdir -p "$tmp/res"
source "$here/kueue-scenario.sh"

pids=() order=()
for d in "$tmp"/r/*/; do
	n=$(basename "$d")
	for c in "$d"addons/pod-contract-*.yaml; do
		[[ -e $c ]] || continue
		w=$(basename "$c" .yaml); w=${w#pod-contract-}
		scenario full "$n" "$d" "$w" >"$tmp/res/$n.$w.log" 2>&1 &
		pids+=($!) order+=("$n.$w")
	done
done
for w in ctl-flavor ctl-quota; do
	scenario control "controls" "$ctl/" "$w" >"$tmp/res/controls.$w.log" 2>&1 &
	pids+=($!) order+=("controls.$w")
done
t_note "${#pids[@]} scenarios running in parallel (waitForPodsReady timeout ${PODS_READY_TIMEOUT}s)"
for p in "${pids[@]}"; do wait "$p"; done

replay() {
	local f=$1 kind name detail
	while IFS=$'\t' read -r kind name detail; do
		case $kind in
			P) t_pass "$name" ;;
			F) t_fail "$name" "$(head -n 20 "$detail" 2>/dev/null)" ;;
			N) t_note "$name" ;;
		esac
	done <"$f"
}
for o in "${order[@]}"; do
	[[ $o == controls.* ]] && continue
	if [[ -s $tmp/res/$o ]]; then replay "$tmp/res/$o"; else t_fail "$o: scenario produced no results" "$(tail -n 20 "$tmp/res/$o.log")"; fi
done

# ---- negative controls: the same checks must fail on the broken render -------------------
# control_expect W CHECK-SUBSTRING WHAT
control_expect() {
	local f=$tmp/res/controls.$1
	if grep -q "^F	[^	]*$2" "$f" 2>/dev/null; then
		t_pass "control: $3 (the check '$(grep -m1 "^F	[^	]*$2" "$f" | cut -f2)' fails)"
	else
		t_fail "control: $3" "$(cat "$f" "$tmp/res/controls.$1.log" 2>/dev/null | head -n 20)"
	fi
}
control_expect ctl-flavor "NodePool's labels" "a ResourceFlavor whose nodeLabels miss the NodePool is caught"
control_expect ctl-flavor "contract's nodeSelector" "a ResourceFlavor that disagrees with the pod contract is caught"
control_expect ctl-quota "admitted whole" "a GPU quota below the gang: the gang is not admitted"

t_note "suite time $((SECONDS - suite_start)) s"
t_summary
exit
}
