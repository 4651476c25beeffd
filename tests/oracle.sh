#!/usr/bin/env bash
# tests/oracle.sh: Karpenter's own scheduler as the oracle for every example.
#
#   GPUFORM=/path/to/gpuform bash tests/oracle.sh        (or: make oracle)
#
# Builds build/oracle/karpenter-sim (tests/oracle: sigs.k8s.io/karpenter and
# github.com/aws/karpenter-provider-aws v1.14.1 as libraries; serialised with flock,
# Go's caches make a rebuild quick), then for each intent file in specs/ (ORACLE_SPECS
# for another directory): renders it, runs the simulation on the rendered directory
# (every pod of every pod contract at full Kueue quota) and checks, per workload:
#   - every pod schedules (pods that request hugepages or EFA: their own check, below)
#   - pods requesting hugepages or vpc.amazonaws.com/efa get nodes
#   - each gang of an EFA workload lands in one zone (all its NodeClaims allow exactly
#     the same single zone)
#   - a shared pool (time-slicing, MIG) packs pods: fewer NodeClaims than pods
#   - the NodeClaim count agrees with `gpuform plan`: equal to plan's node count when
#     every instance type of the pool holds the same number of pods, else within it
#     (plan's maxNodes is the most nodes under the NodePool limit)
# plus negative controls: the checks fail on a deliberately broken render.
#
# ORACLE_ISSUE23: the checks for what issue 23 fixes in the renderer (EFA request
# sizing, hugepages, hostname spread on shared pools, zone affinity of EFA gangs) are
# "pending" until that work is merged: a pending check that fails prints
# "KNOWN FAIL (issue 23)" with its detail and is tallied apart, not as a failure.
# ORACLE_ISSUE23=fixed (the default since issue 23 was merged) makes them ordinary checks.
ORACLE_ISSUE23=${ORACLE_ISSUE23:-fixed}

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
t_need jq flock

SIM=${KARPENTER_SIM:-$root/build/oracle/karpenter-sim}
specs_dir=${ORACLE_SPECS:-$root/specs}
tmp=
t_tmpdir tmp
KNOWN=0

# the harness: built here unless KARPENTER_SIM names one
if [[ -z ${KARPENTER_SIM:-} ]]; then
	go=go
	[[ -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
	command -v "$go" >/dev/null || t_abort "build karpenter-sim: Go (>= 1.26) is not installed"
	mkdir -p "$root/build/oracle"
	start=$SECONDS
	if ! (flock -w 3600 9 || exit 1
		cd "$here/oracle" && GOFLAGS="-mod=readonly -buildvcs=false" nice -n 10 "$go" build -o "$SIM.tmp" . &&
			mv "$SIM.tmp" "$SIM") 9>"$root/build/oracle/.lock" >"$tmp/build.log" 2>&1; then
		t_abort "build karpenter-sim (tests/oracle, $("$go" env GOVERSION))" "$(tail -n 30 "$tmp/build.log")"
	fi
	t_note "karpenter-sim built ($("$go" env GOVERSION), $((SECONDS - start)) s): sigs.k8s.io/karpenter v1.14.1, karpenter-provider-aws v1.14.1"
fi
[[ -x $SIM ]] || t_abort "karpenter-sim: $SIM is not executable"

# pending CATEGORY NAME COND: an issue-23 check (see ORACLE_ISSUE23)
pending() {
	local name="$2 [issue 23: $1]"
	if [[ $ORACLE_ISSUE23 == fixed ]]; then
		check "$name" "$3"
	elif eval "$3"; then
		t_pass "$name (passes already: ORACLE_ISSUE23=fixed can be the default)"
	else
		KNOWN=$((KNOWN + 1))
		printf 'KNOWN FAIL (issue 23) %s\n' "$name"
		t_detail "$3" | sed 's/^/    /'
	fi
}

detail_lines=''
t_detail() { printf '%s\n' "$detail_lines" | head -n 12; }

# run_sim NAME DIR: karpenter-sim on DIR into $tmp/NAME.sim.json
run_sim() {
	local name=$1 dir=$2
	if ! timeout 600 "$SIM" -catalog "$root/generator/catalog.tsv" "$dir" >"$tmp/$name.sim.json" 2>"$tmp/$name.sim.err"; then
		t_fail "$name: karpenter-sim" "$(tail -n 20 "$tmp/$name.sim.err")"
		return 1
	fi
}

# contract_info DIR: "workload<TAB>efa(0/1)<TAB>hugepages(0/1)<TAB>gang<TAB>namespace" per pod contract
contract_info() {
	local f
	for f in "$1"/addons/pod-contract-*.yaml; do
		[[ -e $f ]] || continue
		awk -v f="$(basename "$f" .yaml)" '
			/^  name:/ && !name { name = $2 }
			/^  namespace:/ && !ns { ns = $2 }
			/^gang:/ { gang = $2 }
			/vpc\.amazonaws\.com\/efa:/ { efa = 1 }
			/hugepages-/ { huge = 1 }
			END { printf "%s\t%d\t%d\t%d\t%s\n", name, efa, huge, gang ? gang : 1, ns }' "$f"
	done
}

check_spec() {
	local spec=$1 name dir sim plan w efa huge gang ns pods nodes unsched
	name=$(basename "$spec" .yaml)
	dir=$tmp/$name
	if ! "$GPUFORM" render --output-dir "$dir" "$spec" >"$tmp/$name.render" 2>&1; then
		t_fail "$name: gpuform render" "$(tail -n 20 "$tmp/$name.render")"
		return
	fi
	"$GPUFORM" plan -o json "$spec" >"$tmp/$name.plan.json" 2>/dev/null ||
		{ t_fail "$name: gpuform plan -o json"; return; }
	run_sim "$name" "$dir" || return
	sim=$tmp/$name.sim.json plan=$tmp/$name.plan.json
	t_note "$name: $(jq -r '"\(.pods) pods, \(.nodeclaims | length) NodeClaims, \(.unschedulable | length) unschedulable"' "$sim")"
	while IFS=$'\t' read -r w efa huge gang ns; do
		pods=$(jq --arg w "$w" --arg ns "$ns" '[.notes[] | select(startswith($ns + "/" + $w + ": "))][0] // "" | capture(": (?<n>[0-9]+) pods") .n // "0" | tonumber' "$sim")
		unsched=$(jq -r --arg p "$ns/$w-" '[.unschedulable[] | select(.pod | startswith($p))] | length' "$sim")
		nodes=$(jq --arg w "$w" '[.nodeclaims[] | select(.nodepool == $w)] | length' "$sim")
		detail_lines=$(jq -r --arg p "$ns/$w-" '[.unschedulable[] | select(.pod | startswith($p))] | group_by(.reason)[] | "\(length) pods: \(.[0].reason)"' "$sim" | cut -c1-400)
		if ((efa || huge)); then
			pending "efa-hugepages" "$name/$w: $pods pods requesting $( ((efa)) && echo "EFA ")$( ((huge)) && echo "hugepages ")get nodes" "((unsched == 0))"
		else
			check "$name/$w: all $pods pods schedule" "((unsched == 0))"
		fi
		# EFA gangs in one zone
		if ((efa && gang > 1)); then
			local split
			split=$(jq -r --arg g "$ns/$w-" '
				[.nodeclaims[] as $n | $n.gangs[] | select(startswith($g)) | {g: ., z: ($n.zones | join("|"))}]
				| group_by(.g)[] | select((map(.z) | unique | length) > 1 or (.[0].z | contains("|")))
				| "\(.[0].g): NodeClaims allow zones \(map(.z) | unique | join(" / "))"' "$sim")
			detail_lines=$split
			pending "efa-zone" "$name/$w: each gang of $gang lands in one zone" '[[ -z $split ]]'
		fi
		# shared pools pack
		local sharing per
		sharing=$(jq -r --arg w "$w" '.clusters[].workloads[] | select(.name == $w) | .sharing // "none"' "$plan")
		if [[ $sharing != none && $sharing != "" && $sharing != null ]] && ((pods > 1)); then
			per=$(jq -r --arg w "$w" '[.nodeclaims[] | select(.nodepool == $w) | .pods | length] | map(tostring) | join(",")' "$sim")
			detail_lines="$pods pods on $nodes NodeClaims (pods per NodeClaim: $per)"
			pending "shared-packing" "$name/$w ($sharing): $pods pods share nodes" "((nodes > 0 && nodes < pods))"
		fi
		# node counts against plan
		local pmax same
		pmax=$(jq -r --arg w "$w" '.clusters[].workloads[] | select(.name == $w) | .maxNodes' "$plan")
		same=$(jq -r --arg w "$w" '.clusters[].workloads[] | select(.name == $w) | [.instanceTypeDetails[]?.podsPerNode] | unique | length == 1' "$plan")
		[[ $pmax =~ ^[0-9]+$ ]] || { t_fail "$name/$w: plan has no maxNodes"; continue; }
		detail_lines="karpenter-sim: $nodes NodeClaims for $pods pods ($unsched unschedulable); gpuform plan: maxNodes $pmax; $(jq -r --arg w "$w" '[.nodeclaims[] | select(.nodepool == $w) | "\(.instanceType) x\(.pods | length)"] | group_by(.) | map("\(length) x \(.[0])") | join(", ")' "$sim")"
		local cond="((unsched == 0 && nodes == pmax))" what="equals plan's $pmax"
		if [[ $same != true ]]; then
			cond="((unsched == 0 && nodes <= pmax))" what="within plan's $pmax"
		fi
		if ((efa || huge)) || [[ $sharing != none && $sharing != "" && $sharing != null ]]; then
			pending "node-count" "$name/$w: $nodes NodeClaims $what" "$cond"
		else
			check "$name/$w: $nodes NodeClaims $what" "$cond"
		fi
	done < <(contract_info "$dir")
}

shopt -s nullglob
specs=("$specs_dir"/*.yaml)
shopt -u nullglob
((${#specs[@]})) || t_abort "no intent files in $specs_dir"
for spec in "${specs[@]}"; do
	check_spec "$spec"
done

# ---- negative controls: the oracle must see a broken render ------------------------
# (1) a pod contract asking for a GPU count no instance type has: unschedulable
neg=$tmp/neg1
if "$GPUFORM" render --output-dir "$neg" "$root/specs/minimal.yaml" >/dev/null 2>&1; then
	f=$(ls "$neg"/addons/pod-contract-*.yaml | head -n 1)
	sed -i 's/nvidia.com\/gpu: [0-9]*/nvidia.com\/gpu: 64/' "$f"
	run_sim neg1 "$neg" &&
		check "control: a pod asking for 64 GPUs is unschedulable" \
			"jq -e '.unschedulable | length > 0' '$tmp/neg1.sim.json' >/dev/null"
	# (2) a NodePool taint the pods do not tolerate
	rm -rf "$neg" && "$GPUFORM" render --output-dir "$neg" "$root/specs/minimal.yaml" >/dev/null 2>&1
	for np in "$neg"/nodepool-*.yaml; do sed -i 's/key: nvidia.com\/gpu$/key: oracle.invalid\/taint/' "$np"; done
	run_sim neg2 "$neg" &&
		check "control: pods without the NodePool's taint toleration are unschedulable" \
			"jq -e '(.unschedulable | length > 0) and (.nodeclaims | length == 0)' '$tmp/neg2.sim.json' >/dev/null"
else
	t_fail "control: render specs/minimal.yaml"
fi
# (3) a hard hostname spread on a time-sliced pool (one replica per node): the
# schedule and shared-packing checks must not both hold. (Karpenter puts one pod on
# the first NodeClaim and then finds the pool's limit used up: its scheduler counts a
# NodeClaim as the largest instance type it may still become.)
neg=$tmp/neg3
if "$GPUFORM" render --output-dir "$neg" "$root/specs/bottlerocket-sharing.yaml" >/dev/null 2>&1; then
	cat >>"$neg/addons/pod-contract-gpu-ci.yaml" <<'EOF'
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: DoNotSchedule
  labelSelector:
    matchLabels:
      kueue.x-k8s.io/queue-name: gpu-ci
EOF
	run_sim neg3 "$neg" &&
		check "control: a DoNotSchedule hostname spread on a shared pool fails scheduling or packing" \
			"jq -e '([.nodeclaims[] | select(.nodepool == \"gpu-ci\")] | length) as \$n
				| ([.unschedulable[] | select(.pod | startswith(\"ci/gpu-ci-\"))] | length) as \$u
				| \$u > 0 or \$n >= .pods' '$tmp/neg3.sim.json' >/dev/null"
else
	t_fail "control: render specs/bottlerocket-sharing.yaml"
fi

# (4) an EFA gang whose NodePool is not pinned to a zone: Karpenter's NodeClaims may
# each land in any zone, which the one-zone check must report
neg=$tmp/neg4
if "$GPUFORM" render --output-dir "$neg" "$root/specs/efa-gang-zone.yaml" >/dev/null 2>&1; then
	awk '/- key: topology.kubernetes.io\/zone/ { skip = 4 } skip > 0 { skip--; next } { print }' \
		"$neg/nodepool-h100-gang.yaml" >"$neg/np.tmp" && mv "$neg/np.tmp" "$neg/nodepool-h100-gang.yaml"
	run_sim neg4 "$neg" &&
		check "control: an EFA gang on a NodePool without a zone is not held in one zone" \
			"jq -e '[.nodeclaims[] | select(.nodepool == \"h100-gang\") | .zones | length] | length > 0 and all(. > 1)' '$tmp/neg4.sim.json' >/dev/null"
else
	t_fail "control: render specs/efa-gang-zone.yaml"
fi

# (5) an EFA pool on Bottlerocket whose pods request hugepages-2Mi (ml-prod's
# llm-pretrain, hugepages2Mi) without its hugepages NodeOverlay: Karpenter's AWS
# instance types carry no hugepages capacity, so no type fits and the pods stay
# pending; the check above must see that
neg=$tmp/neg5
if "$GPUFORM" render --output-dir "$neg" "$root/specs/ml-prod.yaml" >/dev/null 2>&1 &&
	grep -q 'hugepages-2Mi' "$neg/addons/pod-contract-llm-pretrain.yaml" &&
	compgen -G "$neg/nodeoverlay-llm-pretrain-hugepages-*.yaml" >/dev/null; then
	rm -f "$neg"/nodeoverlay-llm-pretrain-hugepages-*.yaml
	run_sim neg5 "$neg" &&
		check "control: hugepages pods without the hugepages NodeOverlay are unschedulable" \
			"jq -e '([.unschedulable[] | select(.pod | startswith(\"research/llm-pretrain-\"))] | length > 0)
				and ([.nodeclaims[] | select(.nodepool == \"llm-pretrain\")] | length == 0)' '$tmp/neg5.sim.json' >/dev/null"
else
	t_fail "control: render specs/ml-prod.yaml with a hugepages request and its hugepages NodeOverlay"
fi

((KNOWN)) && t_note "$KNOWN known failures (issue 23, ORACLE_ISSUE23=$ORACLE_ISSUE23): listed as KNOWN FAIL above"
t_summary
exit
}
