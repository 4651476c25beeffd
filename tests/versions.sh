#!/usr/bin/env bash
# tests/versions.sh: spec.targets against the real CRDs of every supported controller
# release. For each round (a Karpenter release and a Kueue release) a fresh
# kube-apiserver gets that release's upstream CRDs (tests/fixtures/crds/versions/, and
# tests/fixtures/crds/ for the newest), and every example is rendered with
# `spec.targets: {karpenter: K, kueue: Q}`:
#   - an example the table below says the release cannot carry must be refused (exit 3,
#     nothing written) with exactly the features listed, each naming the release that
#     has it; and where the reason is the schema, the example rendered for the newest
#     releases must really be rejected by these CRDs (the refusal is needed);
#   - every other example must pass `kubectl apply --server-side --dry-run=server -k`
#     with zero errors or warnings, every object applied, no field dropped by the
#     server, and the Kueue objects in the version that release serves.
#
#   GPUFORM=/path/to/gpuform bash tests/versions.sh
#
# Environment: GPUFORM (required); VERSIONS_ROUNDS (e.g. "1 3": run only those rounds);
# KUBE_TESTENV_CACHE (where tests/kube-testenv keeps the API server it builds once).

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

testenv=(bash "$here/kube-testenv")
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

t_gpuform
t_need kubectl jq
t_isolate

tmp=
t_tmpdir tmp
crds=$here/fixtures/crds

# round: Karpenter release, its CRD directory, Kueue release, its CRD directory
rounds=(
	"v1.0.14 $crds/versions/karpenter-v1.0.14 v0.10.6 $crds/versions/kueue-v0.10.6"
	"v1.3.8 $crds/versions/karpenter-v1.3.8 v0.13.10 $crds/versions/kueue-v0.13.10"
	"v1.6.8 $crds/versions/karpenter-v1.6.8 v0.15.8 $crds/versions/kueue-v0.15.8"
	"v1.10.2 $crds/versions/karpenter-v1.10.2 v0.19.2 $crds"
	"v1.14.1 $crds v0.10.6 $crds/versions/kueue-v0.10.6"
)

# What each Karpenter release cannot carry, per example (reviewed against
# docs/controller-versions.md and the CRDs): "RELEASE EXAMPLE KIND FEATURE-FIRST..."
# KIND schema: the newest render must be rejected by that release's CRDs too;
# KIND behaviour: the CRDs accept the objects, the controller does not do it.
refusals='
v1.0.14 bottlerocket-sharing schema v1.5.0:volumeInitializationRate v1.7.0:NodeOverlay
v1.0.14 capacity-block-training schema v1.6.0:Capacity.Blocks v1.3.0:reserved.capacity
v1.0.14 efa-gang-zone schema v1.11.0:placementGroupSelector v1.11.0:networkInterfaces
v1.0.14 inference-al2023 schema v1.7.0:NodeOverlay
v1.0.14 ml-prod schema v1.5.0:volumeInitializationRate v1.7.0:NodeOverlay
v1.0.14 research-mig schema v1.7.0:NodeOverlay
v1.0.14 reserved-inference schema v1.3.0:reserved.capacity
v1.3.8 bottlerocket-sharing schema v1.5.0:volumeInitializationRate v1.7.0:NodeOverlay
v1.3.8 capacity-block-training behaviour v1.6.0:Capacity.Blocks
v1.3.8 efa-gang-zone schema v1.11.0:placementGroupSelector v1.11.0:networkInterfaces
v1.3.8 inference-al2023 schema v1.7.0:NodeOverlay
v1.3.8 ml-prod schema v1.5.0:volumeInitializationRate v1.7.0:NodeOverlay
v1.3.8 research-mig schema v1.7.0:NodeOverlay
v1.6.8 bottlerocket-sharing schema v1.7.0:NodeOverlay
v1.6.8 efa-gang-zone schema v1.11.0:placementGroupSelector v1.11.0:networkInterfaces
v1.6.8 inference-al2023 schema v1.7.0:NodeOverlay
v1.6.8 ml-prod schema v1.7.0:NodeOverlay
v1.6.8 research-mig schema v1.7.0:NodeOverlay
v1.10.2 efa-gang-zone schema v1.11.0:placementGroupSelector v1.11.0:networkInterfaces
'

_T_CHILD=''
bounded() {
	local secs=$1 rc; shift
	timeout "$secs" "$@" &
	_T_CHILD=$!
	wait "$_T_CHILD"; rc=$?
	_T_CHILD=''
	return "$rc"
}
k() { bounded 180 kubectl --request-timeout=60s "$@"; }
# shellcheck disable=SC2016
t_on_exit '[[ -z $_T_CHILD ]] || kill -TERM "$_T_CHILD" 2>/dev/null'
"${testenv[@]}" build >/dev/null || t_abort "testenv: build kube-apiserver"

resources_of() {
	awk '
		/^resources:/ { on = 1; next }
		on && /^[^ \t#-]/ { on = 0 }
		on && /^[ \t]*- / {
			sub(/^[ \t]*- [ \t]*/, ""); sub(/[ \t]+#.*$/, ""); gsub(/["\047]/, "")
			print
		}' "$1"
}
dry_run() {
	k apply --server-side --dry-run=server --field-manager=gpuform -k "$1" >"$2" 2>&1
}
clean() { ! grep -v ' serverside-applied (server dry run)$' "$1" | gq -E 'error|Error|Invalid|Warning'; }
# pruned DIR LOG: custom-resource fields sent but missing or changed in what the server
# returns (a 1.20 server prunes unknown fields silently)
pruned() {
	local dir=$1 log=$2
	k create --dry-run=client --validate=false -o json -k "$dir" >"$log.sent.json" 2>/dev/null || return 0
	k apply --server-side --dry-run=server --field-manager=gpuform -o json -k "$dir" \
		>"$log.got.json" 2>/dev/null || return 0
	jq -rn --slurpfile sent "$log.sent.json" --slurpfile got "$log.got.json" '
		def objs: .[] | if .kind == "List" then .items[] else . end;
		def key: "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)";
		([$got | objs | {key: key, value: .}] | from_entries) as $g
		| $sent | objs | select(.apiVersion | test("^[^/]*[.][^/]*/") and (test("[.]k8s[.]io/") | not))
		| . as $o | ($g[key] // null) as $r
		| if $r == null then "\($o.kind)/\($o.metadata.name): not returned"
		  else ($o | paths(type == "string" or type == "number" or type == "boolean")) as $p
			| select(($r | getpath($p)) != ($o | getpath($p)))
			| "\($o.kind)/\($o.metadata.name): .\($p | map(tostring) | join(".")) dropped or changed"
		  end'
}

# with_targets SPEC K Q OUT: SPEC with spec.targets set
with_targets() {
	awk -v k="$2" -v q="$3" '{ print } /^spec:/ && !done { print "  targets: {karpenter: " k ", kueue: " q "}"; done = 1 }' "$1" >"$4"
}

# apply_ok NAME DIR LOG: the dry run accepts every object of DIR, drops no field
apply_ok() {
	local name=$1 dir=$2 log=$3 want got rc line
	for ns in "$dir"/namespace-*.yaml; do
		[[ -e $ns ]] || continue
		k apply --server-side --field-manager=gpuform -f "$ns" >"$log.ns" 2>&1 ||
			{ t_fail "$name: create $(basename "$ns")" "$(cat "$log.ns")"; return; }
	done
	dry_run "$dir" "$log.apply"; rc=$?
	want=$(resources_of "$dir/kustomization.yaml" | wc -l)
	got=$(grep -c ' serverside-applied (server dry run)$' "$log.apply")
	if ((rc != 0)) || ! clean "$log.apply" || ((got != want)); then
		t_fail "$name: server-side dry run ($got of $want applied, exit $rc)" \
			"$(grep -v 'serverside-applied (server dry run)$' "$log.apply" | head -n 20)"
		return
	fi
	line=$(pruned "$dir" "$log")
	if [[ -n $line ]]; then
		t_fail "$name: fields dropped by the server" "$line"
	else
		t_pass "$name: server-side dry run of $want objects"
	fi
}

run_round() {
	local kv=$1 kdir=$2 qv=$3 qdir=$4
	local env=$tmp/env-$kv spec name in out log rc exp kind feats f want got ns qapi=v1beta2
	case $qv in v0.1[0-4].*) qapi=v1beta1 ;; esac
	"${testenv[@]}" start "$env" >"$tmp/testenv-$kv.log" 2>&1 ||
		t_abort "testenv: start" "$(tail -n 30 "$tmp/testenv-$kv.log")"
	t_on_exit "${testenv[*]@Q} stop ${env@Q} >/dev/null 2>&1"
	KUBECONFIG=$env/kubeconfig KUBECACHEDIR=$env/kube-cache
	export KUBECONFIG KUBECACHEDIR
	"${testenv[@]}" crds "$env" "$kdir"/karpenter*.yaml "$qdir"/kueue*.yaml >"$tmp/crds-$kv.log" 2>&1 ||
		t_abort "testenv: create the CRDs of Karpenter $kv and Kueue $qv" "$(tail -n 20 "$tmp/crds-$kv.log")"
	t_note "round: Karpenter $kv CRDs ($kdir), Kueue $qv CRDs ($qdir)"
	# reconcile and diff --live on these CRDs (before any namespace exists): an older Kueue is named as such (never
	# "not installed"); with the targets set to it, they proceed
	if [[ $qapi == v1beta1 ]]; then
		for cmd in "reconcile --dry-run" "diff --live"; do
			# shellcheck disable=SC2086
			bounded 120 "$GPUFORM" $cmd --kubeconfig "$KUBECONFIG" "$root/specs/minimal.yaml" \
				>"$tmp/$cmd-$kv.out" 2>"$tmp/$cmd-$kv.err"; rc=$?
			if ((rc > 1)) && grep -qF "Kueue is installed, but older: its CRDs serve" "$tmp/$cmd-$kv.err" &&
				! grep -q "not installed" "$tmp/$cmd-$kv.err"; then
				t_pass "$cmd for the newest Kueue on Kueue $qv's CRDs: refused, naming the older release"
			else
				t_fail "$cmd for the newest Kueue on Kueue $qv's CRDs: refused, naming the older release" \
					"exit $rc; $(head -n 5 "$tmp/$cmd-$kv.err")"
			fi
			with_targets "$root/specs/minimal.yaml" "$kv" "$qv" "$tmp/minimal-targets-$kv.yaml"
			# shellcheck disable=SC2086
			bounded 120 "$GPUFORM" $cmd --kubeconfig "$KUBECONFIG" "$tmp/minimal-targets-$kv.yaml" \
				>"$tmp/$cmd-t-$kv.out" 2>"$tmp/$cmd-t-$kv.err"; rc=$?
			if ((rc == 1)) && grep -qi "clusterqueue" "$tmp/$cmd-t-$kv.out"; then
				t_pass "$cmd with targets Kueue $qv: proceeds (exit 1: changes to make)"
			else
				t_fail "$cmd with targets Kueue $qv: proceeds (exit 1: changes to make)" \
					"exit $rc; $(head -n 5 "$tmp/$cmd-t-$kv.err") $(head -n 5 "$tmp/$cmd-t-$kv.out")"
			fi
		done
	fi
	for spec in "$root"/specs/*.yaml; do
		name=$(basename "$spec" .yaml)
		in=$tmp/$name-$kv.yaml out=$tmp/out-$name-$kv log=$tmp/log-$name-$kv
		with_targets "$spec" "$kv" "$qv" "$in"
		bounded 120 "$GPUFORM" render --output-dir "$out" "$in" >"$log.render" 2>&1; rc=$?
		exp=$(awk -v k="$kv" -v n="$name" '$1 == k && $2 == n' <<<"$refusals")
		if [[ -n $exp ]]; then
			read -r _ _ kind feats <<<"$exp"
			want=$(wc -w <<<"$feats")
			got=$(grep -c ': error: Karpenter .* has no .*: it came in Karpenter v' "$log.render")
			local ok=1 detail=''
			((rc == 3)) || { ok=0; detail+="exit $rc, not 3"$'\n'; }
			[[ ! -e $out ]] || { ok=0; detail+="$out was written"$'\n'; }
			((got == want)) || { ok=0; detail+="$got refusals, want $want"$'\n'; }
			for f in $feats; do
				grep -qE "error: Karpenter $kv has no .*${f#*:}.*: it came in Karpenter ${f%%:*}, and " "$log.render" ||
					{ ok=0; detail+="no refusal of ${f#*:} naming ${f%%:*}"$'\n'; }
			done
			if ((ok)); then
				t_pass "$name for Karpenter $kv: refused ($feats)"
			else
				t_fail "$name for Karpenter $kv: refused ($feats)" "$detail$(head -n 20 "$log.render")"
			fi
			[[ $kind == schema ]] || continue
			# the refusal is needed: rendered for the newest Karpenter (and this
			# round's Kueue, so that only Karpenter objects can be the reason), the
			# example is rejected by this release's CRDs
			awk -v q="$qv" '{ print } /^spec:/ && !done { print "  targets: {kueue: " q "}"; done = 1 }' \
				"$spec" >"$in.newest.yaml"
			bounded 120 "$GPUFORM" render --output-dir "$out.newest" "$in.newest.yaml" >/dev/null 2>&1 ||
				{ t_fail "$name: render for the newest Karpenter"; continue; }
			for ns in "$out.newest"/namespace-*.yaml; do
				[[ -e $ns ]] && k apply --server-side --field-manager=gpuform -f "$ns" >/dev/null 2>&1
			done
			dry_run "$out.newest" "$log.newest"; rc=$?
			if ((rc != 0)) || ! clean "$log.newest" || [[ -n $(pruned "$out.newest" "$log.newest") ]]; then
				t_pass "$name rendered for the newest Karpenter: rejected by Karpenter $kv's CRDs"
			else
				t_fail "$name rendered for the newest Karpenter: rejected by Karpenter $kv's CRDs" \
					"accepted: the refusal is not needed by the schema (mark it behaviour?)"
			fi
			continue
		fi
		if ((rc != 0)); then
			t_fail "$name for Karpenter $kv, Kueue $qv: render" "$(head -n 20 "$log.render")"
			continue
		fi
		if grep -qr '^apiVersion: kueue.x-k8s.io/' "$out" &&
			[[ -n $(grep -rh '^apiVersion: kueue.x-k8s.io/' "$out" | grep -v "/$qapi\$") ]]; then
			t_fail "$name for Kueue $qv: Kueue objects are $qapi" "$(grep -rh '^apiVersion: kueue' "$out" | sort | uniq -c)"
		else
			t_pass "$name for Kueue $qv: Kueue objects are $qapi"
		fi
		apply_ok "$name for Karpenter $kv, Kueue $qv" "$out" "$log"
	done
	# the Kueue objects of the newest render are rejected by a v1beta1-only Kueue
	if [[ $qapi == v1beta1 ]]; then
		bounded 120 "$GPUFORM" render --output-dir "$tmp/newest-minimal-$kv" "$root/specs/minimal.yaml" >/dev/null 2>&1
		dry_run "$tmp/newest-minimal-$kv" "$tmp/newest-minimal-$kv.log"
		if grep -qE 'no matches for kind "(ClusterQueue|LocalQueue|ResourceFlavor|WorkloadPriorityClass)" in version "kueue.x-k8s.io/v1beta2"' \
			"$tmp/newest-minimal-$kv.log"; then
			t_pass "control: v1beta2 Kueue objects rejected by Kueue $qv's CRDs"
		else
			t_fail "control: v1beta2 Kueue objects rejected by Kueue $qv's CRDs" "$(head -n 10 "$tmp/newest-minimal-$kv.log")"
		fi
	fi
	"${testenv[@]}" stop "$env" >/dev/null 2>&1
}

i=0
for r in "${rounds[@]}"; do
	i=$((i + 1))
	if [[ -n ${VERSIONS_ROUNDS:-} ]] && [[ " $VERSIONS_ROUNDS " != *" $i "* ]]; then
		continue
	fi
	# shellcheck disable=SC2086
	run_round $r
done

t_summary
exit
}
