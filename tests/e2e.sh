#!/usr/bin/env bash
# tests/e2e.sh: every rendered example is applied with server-side dry-run to a real
# kube-apiserver carrying the real Karpenter and Kueue CRDs — zero rejections.
#
#   GPUFORM=/path/to/gpuform bash tests/e2e.sh
#
# For each intent file specs/*.yaml: `gpuform render -o OUT SPEC`, create OUT's
# namespace-*.yaml for real (a namespaced dry-run fails without its namespace), then
# `kubectl apply --server-side --dry-run=server --field-manager=gpuform -k OUT` must exit 0
# with no error, no Invalid and no Warning, report every object listed in OUT's
# kustomization.yaml as applied (files are named <kind>-<name>.yaml), and the objects the
# server returns must still hold every field that was sent (a 1.20 server prunes unknown
# fields silently; kubectl's client-side schema check is what rejects them).
# Negative controls prove the check can fail. Everything talks to 127.0.0.1 only.
#
# Environment: GPUFORM (required); E2E_SPECS (directory of intent files, default specs/);
# E2E_EXTRA_CRDS, E2E_NAMESPACES (space-separated CRD files / namespaces to add);
# KUBE_TESTENV_VERSION (the API server: current, the default here, v1.37.2 with the CRDs'
# CEL rules enforced; or 1.20); KUBE_TESTENV_CACHE (where tests/kube-testenv keeps the API
# servers it builds once).

# (POSIX preamble: `sh tests/e2e.sh` re-runs this under bash.)
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
# The rest is one brace group, parsed whole before it runs: editing this file (a
# git pull) while a run is going cannot derail that run.
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

specs_dir=${E2E_SPECS:-$root/specs}
testenv=(bash "$here/kube-testenv")
# only loopback: no proxy may see these requests
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

t_gpuform
t_need kubectl jq

tmp=
t_tmpdir tmp
mkdir -p "$tmp/out" "$tmp/log" "$tmp/neg"
env_dir=$tmp/testenv

# bounded SECS CMD...: run CMD with a time limit (exit status 124 when it is hit). It runs
# as a background job that the script waits for: a trapped signal interrupts `wait` at
# once, whereas bash ignores a Ctrl-C during a foreground command that catches SIGINT
# and exits normally (kubectl and timeout do). The exit cleanup stops the job.
_T_CHILD=''
bounded() {
	local secs=$1 rc; shift
	timeout "$secs" "$@" &
	_T_CHILD=$!
	wait "$_T_CHILD"; rc=$?
	_T_CHILD=''
	return "$rc"
}
# kubectl: every request times out, and so does the whole command
k() { bounded 180 kubectl --request-timeout=60s "$@"; }

# ---- the API server -----------------------------------------------------------------
# the current server unless told otherwise: it enforces the CRDs' CEL rules
export KUBE_TESTENV_VERSION=${KUBE_TESTENV_VERSION:-current}
testenv_version=$("${testenv[@]}" version) || t_abort "testenv: KUBE_TESTENV_VERSION=$KUBE_TESTENV_VERSION"
t_on_exit "${testenv[*]@Q} stop ${env_dir@Q} >/dev/null 2>&1"
# shellcheck disable=SC2016 # expanded when it runs
t_on_exit '[[ -z $_T_CHILD ]] || kill -TERM "$_T_CHILD" 2>/dev/null'   # runs first
# the API server binary: built once per machine (about 5 minutes; its messages show here)
"${testenv[@]}" build >/dev/null || t_abort "testenv: build kube-apiserver (see the messages above)"
"${testenv[@]}" start "$env_dir" >"$tmp/log/testenv" 2>&1 ||
	t_abort "testenv: start" "$(tail -n 40 "$tmp/log/testenv")"
KUBECONFIG=$(sed -n 's/^KUBECONFIG=//p' "$env_dir/env")
KUBECACHEDIR=$(sed -n 's/^KUBECACHEDIR=//p' "$env_dir/env")
server=$(sed -n 's/^KUBE_TESTENV_URL=//p' "$env_dir/env")
export KUBECONFIG KUBECACHEDIR
[[ $server == https://127.0.0.1:* ]] || t_abort "testenv: server is on loopback ($server)"
t_note "testenv: kube-apiserver $(k version -o json 2>/dev/null | jq -r '.serverVersion.gitVersion // "?"') on $server"
# E2E_EXTRA_CRDS: more CRD files (space-separated; tests/delivery.sh: the Flux and Argo CD ones)
# shellcheck disable=SC2086 # a list of paths
"${testenv[@]}" crds "$env_dir" "$here"/fixtures/crds/*.yaml ${E2E_EXTRA_CRDS:-} >"$tmp/log/crds" 2>&1 ||
	t_abort "testenv: create CRDs" "$(tail -n 40 "$tmp/log/crds")"
t_note "testenv: $(find "$here/fixtures/crds" -maxdepth 1 -name '*.yaml' | wc -l) CRDs established and published"

# ---- helpers -------------------------------------------------------------------------

# resources_of KUSTOMIZATION: the entries of its top-level resources: list
resources_of() {
	awk '
		/^resources:/ { on = 1; next }
		on && /^[^ \t#-]/ { on = 0 }
		on && /^[ \t]*- / {
			sub(/^[ \t]*- [ \t]*/, ""); sub(/[ \t]+#.*$/, ""); gsub(/["\047]/, "")
			print
		}' "$1"
}

# dry_run DIR LOG: the acceptance command; returns kubectl's exit status
dry_run() {
	k apply --server-side --dry-run=server --field-manager=gpuform -k "$1" >"$2" 2>&1
}

# pruned DIR LOG: fields sent but missing (or changed) in what the server returns, one
# "kind/name: .path …" a line; empty when nothing was pruned
pruned() {
	local dir=$1 log=$2
	k create --dry-run=client --validate=false -o json -k "$dir" >"$log.sent.json" 2>/dev/null || return 0
	k apply --server-side --dry-run=server --field-manager=gpuform -o json -k "$dir" \
		>"$log.got.json" 2>/dev/null || return 0
	jq -rn --slurpfile sent "$log.sent.json" --slurpfile got "$log.got.json" '
		def objs: .[] | if .kind == "List" then .items[] else . end;
		def key: "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)";
		def path_s: map(tostring) | join(".");
		([$got | objs | {key: key, value: .}] | from_entries) as $g
		| $sent | objs | . as $o | key as $k
		| ($g[$k] // null) as $r
		| if $r == null then "\($o.kind)/\($o.metadata.name): not returned by the server"
		  else
			# scalars must come back, unchanged in custom resources (built-in kinds may
			# canonicalise quantities: "1024Mi" -> "1Gi"); empty maps/lists must be there
			($o.apiVersion | test("^[^/]*[.][^/]*/") and (test("[.]k8s[.]io/") | not)) as $cr
			| ($o | paths(type == "string" or type == "number" or type == "boolean")) as $p
			| select(($r | getpath($p)) as $v | $v == null or ($cr and $v != ($o | getpath($p))))
			| "\($o.kind)/\($o.metadata.name): .\($p | path_s) sent \($o | getpath($p) | tojson), server has \($r | getpath($p) | tojson)"
		  end,
		  if $r == null then empty else
			($o | paths(. == {} or . == [])) as $p
			| select(($r | getpath($p)) == null)
			| "\($o.kind)/\($o.metadata.name): .\($p | path_s) sent \($o | getpath($p) | tojson), server dropped it"
		  end'
}

# ---- every example -------------------------------------------------------------------
check_spec() {
	local spec=$1 name out log ns res=() r f kind oname line want got ok=1 detail=''
	name=$(basename "$spec"); name=${name%.yaml}
	out=$tmp/out/$name
	log=$tmp/log/$name
	if ! bounded 120 "$GPUFORM" render --output-dir "$out" "$spec" >"$log.render" 2>&1; then
		t_fail "$name: gpuform render" "$(tail -n 20 "$log.render")"
		return
	fi
	if [[ ! -f $out/kustomization.yaml ]]; then
		t_fail "$name: render wrote no kustomization.yaml"
		return
	fi
	mapfile -t res < <(resources_of "$out/kustomization.yaml")
	if ((${#res[@]} == 0)); then
		t_fail "$name: kustomization.yaml lists no resources"
		return
	fi

	# (a) the namespaces, for real (and E2E_NAMESPACES: ones the output expects to exist,
	# e.g. flux-system for tests/delivery.sh)
	for ns in ${E2E_NAMESPACES:-}; do
		k create namespace "$ns" >/dev/null 2>&1 || k get namespace "$ns" >/dev/null 2>&1 ||
			{ t_fail "$name: create namespace $ns"; ok=0; }
	done
	for ns in "$out"/namespace-*.yaml; do
		[[ -e $ns ]] || continue
		if ! k apply --server-side --field-manager=gpuform -f "$ns" >"$log.ns" 2>&1; then
			t_fail "$name: create $(basename "$ns")" "$(cat "$log.ns")"
			ok=0
		fi
	done

	# (b) the whole set, server-side dry-run
	dry_run "$out" "$log.apply"
	local rc=$?
	want=${#res[@]}
	got=$(grep -c ' serverside-applied (server dry run)$' "$log.apply")
	# per object, unless nothing at all was applied (the set itself is broken: the
	# spec-level failure below says why). A failing object's error names it.
	for r in "${res[@]}"; do
		((got > 0)) || break
		f=$(basename "$r"); f=${f%.yaml}; f=${f%.yml}
		[[ $r == *.y*ml && $f == *-* ]] || continue
		kind=${f%%-*}; oname=${f#*-}
		if grep -qiE "^${kind}(\.[a-z0-9.-]+)?/${oname//./\\.} serverside-applied \(server dry run\)\$" "$log.apply"; then
			t_pass "$name: $kind/$oname"
		else
			line=$(grep -v 'serverside-applied (server dry run)$' "$log.apply" | grep -F -- "\"$oname\"" | head -n 5)
			t_fail "$name: $kind/$oname" \
				"${line:-"not reported as applied by kubectl (is the file named <kind>-<name>.yaml?)"}"
		fi
	done
	if ((rc != 0)); then
		ok=0; detail+="kubectl exit status $rc"$'\n'
	fi
	if grep -v ' serverside-applied (server dry run)$' "$log.apply" | gq -E 'error|Error|Invalid|Warning'; then
		ok=0; detail+="kubectl reported errors or warnings"$'\n'
	fi
	if ((got != want)); then
		ok=0; detail+="$got objects applied, kustomization.yaml lists $want"$'\n'
	fi
	if ((ok)); then
		line=$(pruned "$out" "$log")
		[[ -z $line ]] || { ok=0; detail+="fields dropped by the server:"$'\n'"$line"$'\n'; }
	fi
	if ((ok)); then
		t_pass "$name: server-side dry-run of $want objects"
	else
		t_fail "$name: server-side dry-run" "$detail$(grep -v ' serverside-applied (server dry run)$' "$log.apply" | head -n 30)"
	fi
}

shopt -s nullglob
specs=("$specs_dir"/*.yaml)
shopt -u nullglob
if ((${#specs[@]} == 0)); then
	t_fail "specs: no intent files in $specs_dir"
fi
for spec in "${specs[@]}"; do
	check_spec "$spec"
done

# ---- negative controls: the check must be able to fail ---------------------------------
# control CASE EXPECT: dry-run (as above, -k) a kustomization around the objects on stdin;
# EXPECT empty means they must be accepted, otherwise rejected with EXPECT in the output.
n_control=0
control() {
	local case=$1 expect=$2 dir rc
	dir=$tmp/neg/$((++n_control))
	mkdir -p "$dir"
	cat >"$dir/objects.yaml"
	printf 'resources:\n- objects.yaml\n' >"$dir/kustomization.yaml"
	dry_run "$dir" "$dir/log"; rc=$?
	if [[ -z $expect ]]; then
		if ((rc == 0)) && ! grep -v 'serverside-applied (server dry run)$' "$dir/log" | gq -E 'error|Error|Invalid|Warning'; then
			t_pass "control: $case accepted"
		else
			t_fail "control: $case must be accepted" "$(cat "$dir/log")"
		fi
	elif ((rc == 0)); then
		t_fail "control: $case must be rejected, but was accepted" "$(cat "$dir/log")"
	elif grep -qF -- "$expect" "$dir/log"; then
		t_pass "control: $case rejected"
	else
		t_fail "control: $case rejected, but not for the expected reason ($expect)" "$(cat "$dir/log")"
	fi
}

nodepool() {   # nodepool POLICY NODECLASSREF-LINES
	cat <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: e2e-control
spec:
  template:
    spec:
$2
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["on-demand"]
  disruption:
    consolidationPolicy: $1
    consolidateAfter: 1m
EOF
}
ref='      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default'

# (not `nodepool … | control …`: a pipeline would count the results in a subshell)
control "valid NodePool" '' < <(nodepool WhenEmpty "$ref")
control "NodePool with consolidationPolicy: Sometimes" 'Unsupported value: "Sometimes"' \
	< <(nodepool Sometimes "$ref")
control "NodePool without nodeClassRef" 'nodeClassRef' < <(nodepool WhenEmpty '')
# kubectl's client-side schema check rejects it before a 1.20 server sees it (that
# server would prune it silently); a current server rejects it itself, in server-side apply
cohort_msg='unknown field "cohort"'
[[ $testenv_version == 1.20.* ]] || cohort_msg='.spec.cohort: field not declared in schema'
control "v1beta2 ClusterQueue with the v1beta1 field spec.cohort" "$cohort_msg" <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: e2e-control
spec:
  cohort: research
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 8
EOF

# CEL rules (x-kubernetes-validations): only a server that has CEL enforces them
if [[ $testenv_version != 1.20.* ]]; then
	control "NodePool requirement 'In' without values (CEL)" \
		"requirements with operator 'In' must have a value defined" <<'EOF'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: e2e-control
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: []
EOF
	control "NodePool template label in the restricted karpenter.sh domain (CEL)" \
		'label domain "karpenter.sh" is restricted' <<'EOF'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: e2e-control
spec:
  template:
    metadata:
      labels:
        karpenter.sh/custom: "x"
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["on-demand"]
EOF
	control "EC2NodeClass with an alias and another AMI term (CEL)" \
		"'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms" <<'EOF'
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: e2e-control
spec:
  role: KarpenterNodeRole-e2e
  amiSelectorTerms:
  - alias: al2023@latest
  - id: ami-0123456789abcdef0
  subnetSelectorTerms:
  - tags: {karpenter.sh/discovery: e2e}
  securityGroupSelectorTerms:
  - tags: {karpenter.sh/discovery: e2e}
EOF
else
	t_note "CEL controls skipped: kube-apiserver $testenv_version has no CEL (x-kubernetes-validations dropped)"
fi

t_summary
exit
}
