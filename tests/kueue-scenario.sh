# tests/kueue-scenario.sh: one workload's scenario for tests/kueue.sh (sourced there; bash).
#
#   scenario MODE SPEC DIR W     MODE: full, or control (the gang only, a shorter wait)
#
# Needs from tests/kueue.sh: j (YAML to JSON), $tmp, PODS_READY_TIMEOUT, BACKOFF_BASE,
# KUBECONFIG. Writes its results to $tmp/res/SPEC.W, one line each: "P<TAB>name",
# "F<TAB>name<TAB>detail file" or "N<TAB>note"; the suite replays them.

# r_check NAME COND: eval COND; a failure's detail is $DETAIL (set before the call)
r_check() {
	if eval "$2"; then
		printf 'P\t%s\n' "$1" >>"$RES"
	else
		RN=$((RN + 1))
		printf 'condition: %s\n%s\n' "$2" "${DETAIL:-}" >"$RES.d$RN"
		printf 'F\t%s\t%s\n' "$1" "$RES.d$RN" >>"$RES"
	fi
	DETAIL=''
}
r_note() { printf 'N\t%s\n' "$1" >>"$RES"; }

# jq definitions: quantities, and does a pod template land on the NodePool
KQ_DEFS='
def qty: tostring | capture("^(?<n>[0-9.]+)(?<s>[a-zA-Z]*)$") as $m
	| ($m.n | tonumber) * ({"": 1, "m": 0.001, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
		"Ki": 1024, "Mi": 1048576, "Gi": 1073741824, "Ti": 1099511627776}[$m.s]);
def tolerates($ts; $t): any($ts[]?;
	(((.key // "") == "" and .operator == "Exists")
		or (.key == $t.key and ((.operator // "Equal") == "Exists" or (.value // "") == ($t.value // ""))))
	and ((.effect // "") == "" or .effect == $t.effect));
# problems of pod template $tpl against NodePool $np and flavor $rf (empty: none)
def np_problems($tpl; $np; $rf):
	(($np.spec.template.metadata.labels // {}) + ([$np.spec.template.spec.requirements[]?
		| select(.operator == "In" and (.values | length) == 1) | {(.key): .values[0]}] | add // {})) as $labels
	| ($tpl.spec.nodeSelector // {}) as $sel
	| [($sel | to_entries[] | select($labels[.key] != .value)
			| "nodeSelector \(.key)=\(.value): the NodePool \($np.metadata.name) has \(.key)=\($labels[.key] // "(none)")"),
		($rf.spec.nodeLabels // {} | to_entries[] | select($sel[.key] != .value)
			| "flavor label \(.key)=\(.value) not injected (nodeSelector: \($sel))"),
		($np.spec.template.spec.taints // [] | .[] | select(tolerates($tpl.spec.tolerations // []; .) | not)
			| "taint \(.key)=\(.value // ""):\(.effect) of the NodePool is not tolerated (tolerations: \($tpl.spec.tolerations // []))")]
	| .[];
'

# job_json KIND NAME PODS: a Job (or PyTorchJob: Master + Workers) of PODS pods from the
# contract $cj, without its nodeSelector and tolerations (so that what the started job
# carries is what Kueue injected from the flavor)
job_json() {
	jq -c --arg kind "$1" --arg name "$2" --argjson n "$3" '
		. as $c
		| {metadata: {labels: ($c.labels // {}), annotations: ($c.annotations // {})},
			spec: ({containers: [{name: (if $kind == "Job" then "main" else "pytorch" end),
					image: "registry.invalid/gpuform-kueue-test:none",
					env: (($c.env // {}) | to_entries | map({name: .key, value: (.value | tostring)})),
					resources: ($c.resources // {}),
					volumeMounts: (if $c.shm then [{name: "shm", mountPath: $c.shm.mountPath}] else [] end)}],
				volumes: (if $c.shm then [{name: "shm", emptyDir: $c.shm.emptyDir}] else [] end)}
				+ (if $c.topologySpreadConstraints then {topologySpreadConstraints: $c.topologySpreadConstraints} else {} end)
				+ (if $c.affinity then {affinity: $c.affinity} else {} end)
				+ (if $c.terminationGracePeriodSeconds then {terminationGracePeriodSeconds: $c.terminationGracePeriodSeconds} else {} end))} as $t
		| {metadata: {name: $name, namespace: $c.metadata.namespace, labels: ($c.labels // {})}}
		+ if $kind == "Job" then
			{apiVersion: "batch/v1", kind: "Job",
				spec: {parallelism: $n, completions: $n, completionMode: "Indexed", backoffLimit: 0,
					template: ($t | .spec.restartPolicy = "Never")}}
		else
			{apiVersion: "kubeflow.org/v1", kind: "PyTorchJob",
				spec: {pytorchReplicaSpecs: ({Master: {replicas: 1, restartPolicy: "Never", template: $t}}
					+ if $n > 1 then {Worker: {replicas: ($n - 1), restartPolicy: "Never", template: $t}} else {} end)}}
		end' <<<"$cj"
}

# templates KIND JSON: the job's pod templates, one JSON a line
templates() {
	if [[ $1 == Job ]]; then jq -c '.spec.template' <<<"$2"; else jq -c '.spec.pytorchReplicaSpecs[].template' <<<"$2"; fi
}
suspended() { # KIND JSON: true/false
	if [[ $1 == Job ]]; then jq -r '.spec.suspend // false' <<<"$2"; else jq -r '.spec.runPolicy.suspend // false' <<<"$2"; fi
}
res_of() { [[ $1 == Job ]] && echo jobs.batch || echo pytorchjobs.kubeflow.org; }

# submit KIND NAME PODS: create the job; sets UID_ and CREATED (the object as stored)
submit() {
	CREATED=$(job_json "$1" "$2" "$3" | kubectl create -o json -f - 2>"$RES.err") || { DETAIL=$(cat "$RES.err"); UID_=''; return 1; }
	UID_=$(jq -r .metadata.uid <<<"$CREATED")
}

# wl_of UID CAP: the name of the Workload Kueue made for the job with UID (waits up to CAP s)
wl_of() {
	local i name
	for ((i = 0; i < $2 * 2; i++)); do
		name=$(kubectl get workloads.kueue.x-k8s.io -n "$ns" -o json 2>/dev/null |
			jq -r --arg u "$1" '[.items[] | select(any(.metadata.ownerReferences[]?; .uid == $u)) | .metadata.name][0] // empty')
		[[ -n $name ]] && { echo "$name"; return 0; }
		sleep 0.5
	done
	return 1
}
wl_get() { kubectl get workloads.kueue.x-k8s.io -n "$ns" "$1" -o json 2>/dev/null; }
cond() { # JSON TYPE FIELD
	jq -r --arg t "$2" --arg f "$3" '[.status.conditions[]? | select(.type == $t) | .[$f]][0] // ""' <<<"$1"
}
# admitted_whole JSON: admitted to the flavor $rfn in $cqn, every pod set at its full count
admitted_whole() {
	jq -e --arg cq "$cqn" --arg rf "$rfn" '
		([.status.conditions[]? | select(.type == "Admitted" and .status == "True")] | length == 1)
		and .status.admission.clusterQueue == $cq
		and ([.status.admission.podSetAssignments[].flavors | to_entries[].value] | unique == [$rf])
		and ([.status.admission.podSetAssignments[] | {(.name): .count}] | add) == ([.spec.podSets[] | {(.name): .count}] | add)' \
		<<<"$1" >/dev/null
}
# started_on_pool KIND NAME: wait (30 s) until Kueue starts the job, then the problems of
# its pod templates against the NodePool (empty: none); 1 if it was not started
started_on_pool() {
	local i obj
	for ((i = 0; i < 60; i++)); do
		obj=$(kubectl get "$(res_of "$1")" -n "$ns" "$2" -o json 2>/dev/null)
		[[ $(suspended "$1" "$obj") == false ]] && break
		sleep 0.5
	done
	[[ $(suspended "$1" "$obj") == false ]] || { echo "not started (still suspended after 30 s)"; return 1; }
	templates "$1" "$obj" | jq -r --argjson np "$npj" --argjson rf "$rfj" "$KQ_DEFS"' . as $t | np_problems($t; $np; $rf)'
}

# contract_is_flavor: the pod contract $cj asks for exactly the flavor $rfj's labels and tolerations
contract_is_flavor() {
	jq -e -n --argjson c "$cj" --argjson rf "$rfj" '($c.nodeSelector // {}) == ($rf.spec.nodeLabels // {})
		and ($c.tolerations // []) == ($rf.spec.tolerations // [])' >/dev/null
}

scenario() {
	local mode=$1 spec=$2 d=$3 w=$4
	RES=$tmp/res/$spec.$w RN=0 DETAIL=''
	: >"$RES"
	local cj ns q lqj cqn cqj rfn rfj npj P gang qpods
	cj=$(j "$d/addons/pod-contract-$w.yaml") || { r_check "$spec/$w: read its pod contract" false; return; }
	ns=$(jq -r .metadata.namespace <<<"$cj")
	q=$(jq -r '.labels["kueue.x-k8s.io/queue-name"] // empty' <<<"$cj")
	gang=$(jq -r '.gang // 1' <<<"$cj")
	P="$spec/$w"
	lqj=$(j "$d/localqueue-$q.yaml" 2>/dev/null) || lqj=''
	DETAIL="queue-name label: '$q'; LocalQueue files: $(ls "$d" | grep '^localqueue-' | tr '\n' ' ')"
	r_check "$P: its pod contract names a rendered LocalQueue of namespace $ns" \
		'[[ -n $lqj && $(jq -r .metadata.namespace <<<"$lqj") == "$ns" ]]' || true
	[[ -n $lqj ]] || return
	cqn=$(jq -r .spec.clusterQueue <<<"$lqj")
	cqj=$(j "$d/clusterqueue-$cqn.yaml")
	rfn=$(jq -r '.spec.resourceGroups[0].flavors[0].name' <<<"$cqj")
	rfj=$(j "$d/resourceflavor-$rfn.yaml")
	npj=$(j "$d/nodepool-$w.yaml")
	DETAIL="contract: nodeSelector $(jq -c '.nodeSelector' <<<"$cj") tolerations $(jq -c '.tolerations' <<<"$cj")
flavor $rfn: nodeLabels $(jq -c '.spec.nodeLabels' <<<"$rfj") tolerations $(jq -c '.spec.tolerations' <<<"$rfj")"
	r_check "$P: the contract's nodeSelector and tolerations are the flavor's ($rfn)" contract_is_flavor
	# how many pods of the contract the ClusterQueue's nominal quota holds
	qpods=$(jq -n -r --argjson c "$cj" --argjson cq "$cqj" --arg rf "$rfn" "$KQ_DEFS"'
		([$cq.spec.resourceGroups[].flavors[] | select(.name == $rf) | .resources[] | {(.name): (.nominalQuota | qty)}] | add) as $quota
		| [$c.resources.requests // {} | to_entries[]
			| select((.key | startswith("hugepages-") or startswith("ephemeral-storage")) | not)
			| if $quota[.key] == null then 0 else ($quota[.key] / (.value | qty) | floor) end] | min // 0')
	local mp mpwhy
	mp=$(jq -r '.spec.resourceGroups[0].flavors[0].resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota' <<<"$cqj")
	r_note "$P: gang $gang, queue $ns/$q -> ClusterQueue $cqn (nvidia.com/gpu quota $mp, $qpods pods of the contract), flavor $rfn, NodePool $w"

	# 1. the full gang
	local gname=$w-gang wl obj t_adm probs
	if ! submit Job "$gname" "$gang"; then
		r_check "$P: gang of $gang (Job) is created" false
		return
	fi
	DETAIL="spec.suspend as stored: $(jq -c .spec.suspend <<<"$CREATED")"
	r_check "$P: gang of $gang (Job): Kueue's webhook suspends it" '[[ $(suspended Job "$CREATED") == true ]]'
	wl=$(wl_of "$UID_" 30) || { DETAIL="no Workload owned by job $gname after 30 s"; r_check "$P: gang of $gang: admitted whole to flavor $rfn in ClusterQueue $cqn" false; return; }
	local cap=60
	[[ $mode == control ]] && cap=20
	kubectl wait -n "$ns" "workloads.kueue.x-k8s.io/$wl" --for=condition=Admitted --timeout="${cap}s" >/dev/null 2>&1
	obj=$(wl_get "$wl")
	DETAIL="$(jq -c '{conditions: [.status.conditions[]? | {type, status, reason, message}], admission: .status.admission}' <<<"$obj")"
	r_check "$P: gang of $gang: admitted whole to flavor $rfn in ClusterQueue $cqn" 'admitted_whole "$obj"'
	admitted_whole "$obj" || return
	t_adm=$(cond "$obj" Admitted lastTransitionTime)
	probs=$(started_on_pool Job "$gname")
	DETAIL=$probs
	r_check "$P: gang: the started Job's nodeSelector and tolerations (injected by Kueue) match the NodePool's labels and tolerate its taints" \
		'[[ -z $probs ]]'
	[[ $mode == control ]] && return

	# 2. "over": fits the queue alone, not beside the gang
	local n_over kind_over=Job oname=$w-over owl
	if ((2 * gang > qpods)); then n_over=$gang; else n_over=$((qpods - gang + 1)); fi
	((gang > 1)) && kind_over=PyTorchJob
	if ! submit "$kind_over" "$oname" "$n_over"; then
		r_check "$P: over ($n_over pods, $kind_over) is created" false
		return
	fi
	DETAIL="suspend as stored: $(suspended "$kind_over" "$CREATED")"
	r_check "$P: over ($n_over pods, $kind_over): Kueue's webhook suspends it" '[[ $(suspended "$kind_over" "$CREATED") == true ]]'
	local ouid=$UID_
	owl=$(wl_of "$ouid" 30) || { DETAIL="no Workload owned by $kind_over $oname after 30 s"; r_check "$P: over ($n_over pods): has a Workload" false; return; }
	sleep 3
	obj=$(wl_get "$owl")
	local ojob
	ojob=$(kubectl get "$(res_of "$kind_over")" -n "$ns" "$oname" -o json)
	DETAIL="$(jq -c '[.status.conditions[]? | {type, status, reason, message}]' <<<"$obj"); suspended: $(suspended "$kind_over" "$ojob")"
	r_check "$P: over ($n_over pods, $kind_over): waits whole while the gang holds the quota (no partial admission)" \
		'[[ $(cond "$obj" QuotaReserved status) != True && $(suspended "$kind_over" "$ojob") == true && $(jq -r ".status.admission // empty" <<<"$obj") == "" ]]'

	# 3. "toobig": one pod over the whole nominal quota (behind "over" in the queue)
	local tname=$w-toobig twl
	sleep 1.2
	submit Job "$tname" $((qpods + 1)) || { r_check "$P: toobig ($((qpods + 1)) pods) is created" false; return; }
	twl=$(wl_of "$UID_" 30) || twl=''

	# 4. waitForPodsReady: no pod is ever Ready here
	local gwl=$wl t_ev
	kubectl wait -n "$ns" "workloads.kueue.x-k8s.io/$gwl" --for=condition=Evicted --timeout="$((PODS_READY_TIMEOUT + 60))s" >/dev/null 2>&1
	kubectl wait -n "$ns" "workloads.kueue.x-k8s.io/$gwl" --for=condition=QuotaReserved=false --timeout=30s >/dev/null 2>&1
	obj=$(wl_get "$gwl")
	t_ev=$(cond "$obj" Evicted lastTransitionTime)
	DETAIL="admitted $t_adm; $(jq -c '{conditions: [.status.conditions[]? | {type, status, reason, message, lastTransitionTime}], requeueState: .status.requeueState}' <<<"$obj")"
	r_check "$P: waitForPodsReady: the gang is evicted (PodsReadyTimeout) ${PODS_READY_TIMEOUT}s after admission and gives its quota back" \
		'[[ $(cond "$obj" Evicted reason) == PodsReadyTimeout && $(cond "$obj" QuotaReserved status) == False ]] &&
			(( $(date -d "$t_ev" +%s) - $(date -d "$t_adm" +%s) >= PODS_READY_TIMEOUT - 1 ))'
	DETAIL="eviction $t_ev; requeueState $(jq -c .status.requeueState <<<"$obj")"
	r_check "$P: waitForPodsReady: requeue 1 scheduled backoffBaseSeconds ($BACKOFF_BASE s) after the eviction" \
		'[[ $(jq -r ".status.requeueState.count // 0" <<<"$obj") == 1 ]] &&
			d=$(( $(date -d "$(jq -r .status.requeueState.requeueAt <<<"$obj")" +%s) - $(date -d "$t_ev" +%s) )) &&
			((d >= BACKOFF_BASE - 1 && d <= BACKOFF_BASE + 2))'
	local gjob
	for ((i = 0; i < 20; i++)); do
		gjob=$(kubectl get jobs.batch -n "$ns" "$gname" -o json)
		[[ $(suspended Job "$gjob") == true ]] && break
		sleep 0.5
	done
	DETAIL="suspend $(suspended Job "$gjob"); nodeSelector $(jq -c .spec.template.spec.nodeSelector <<<"$gjob")"
	r_check "$P: waitForPodsReady: the evicted gang's Job is suspended again, Kueue's nodeSelector taken back" \
		'[[ $(suspended Job "$gjob") == true ]] && jq -e --argjson rf "$rfj" "[(\$rf.spec.nodeLabels // {}) | keys[] as \$k | (.spec.template.spec.nodeSelector // {})[\$k]] | all(. == null)" <<<"$gjob" >/dev/null'

	# 5. "over" is admitted whole once the gang gave the quota back
	kubectl wait -n "$ns" "workloads.kueue.x-k8s.io/$owl" --for=condition=Admitted --timeout=60s >/dev/null 2>&1
	obj=$(wl_get "$owl")
	DETAIL="gang evicted $t_ev; over: $(jq -c '{conditions: [.status.conditions[]? | {type, status, reason, lastTransitionTime}], admission: .status.admission}' <<<"$obj")"
	r_check "$P: over ($n_over pods, $kind_over): admitted whole to flavor $rfn once the gang is evicted" \
		'admitted_whole "$obj" && (( $(date -d "$(cond "$obj" QuotaReserved lastTransitionTime)" +%s) >= $(date -d "$t_ev" +%s) ))'
	if admitted_whole "$obj"; then
		probs=$(started_on_pool "$kind_over" "$oname")
		DETAIL=$probs
		r_check "$P: over: the started $kind_over's pod templates match the NodePool's labels and tolerate its taints" '[[ -z $probs ]]'
	fi

	# 6. "toobig" never: no cohort, nothing to borrow
	obj=$( [[ -n $twl ]] && wl_get "$twl")
	DETAIL="$(jq -c '[.status.conditions[]? | {type, status, reason, message}]' <<<"${obj:-null}")"
	r_check "$P: toobig ($((qpods + 1)) pods, over the whole quota): never admitted (no cohort to borrow from)" \
		'[[ -n $twl && $(cond "$obj" QuotaReserved status) != True && -z $(jq -r ".status.admission // empty" <<<"$obj") ]]'
}
