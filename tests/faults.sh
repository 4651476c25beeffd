#!/usr/bin/env bash
# tests/faults.sh: `gpuform reconcile` under injected faults, against a real kube-apiserver +
# etcd (tests/kube-testenv) seen through tests/tools/faultproxy.c, a loopback proxy that the
# test steers with a rules file (delays past the request timeout, 429/500/503 with and without
# Retry-After, connections dropped before and after the server acted, bodies cut mid-way or
# truncated into short well-framed invalid JSON) on the reads (the inventory GET, the LISTs,
# discovery) and on the writes (the dry-run and real server-side applies, the inventory
# ConfigMap writes, the prune DELETEs).
#
#   GPUFORM=build/san/gpuform bash tests/faults.sh
#
# GPUFORM              the binary (default ./gpuform)
# GPUFORM_TESTENV_DIR  use that running testenv (kube-testenv start DIR) instead of starting
#                      one; it must hold no gpuform cluster "ml-prod" yet
#
# Every case goes from state A (specs/ml-prod.yaml) to state B (chat-serving removed, the
# llm-pretrain limit lowered: 2 objects configured, 5 pruned) with --prune through the proxy,
# and asserts: the exit status (0 where the client may retry, 4 with a message naming the API
# server where it may not), that the fault really hit (the proxy's log), that nothing
# desired in A and B was deleted and no unmanaged object touched; then one clean run straight
# to the API server must converge to exactly the objects a fault-free run leaves (kubectl get
# -o json of the managed kinds and the inventory, normalised), with every inventory UID the
# live one, and the run after that must write nothing (the server's audit log).
#
# Then Git faults against the real servers (tests/git-servers: lighttpd + git http-backend,
# sshd): a damaged `reconcile --git` cache (missing/truncated pack or index, a truncated loose
# object, a garbage HEAD), a branch force-pushed between two `commit --push` and rewound under
# `reconcile --git` (refused without --allow-non-ancestor), and the server stopped while a 1 MiB push (HTTP and SSH) or fetch is in
# flight through faultproxy's throttled TCP mode; afterwards the next run must recover with
# every commit that should exist on the server.
#
# FAULTS_SECTIONS=api,git   which sections run (default both)
# Closing line: "N passed, N failed".

# shellcheck disable=SC2016,SC2034 # check conditions: single-quoted, eval'd later
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
T_START=$(date +%s)

t_isolate
t_gpuform
t_need kubectl jq curl cc

WORK=
t_tmpdir WORK
ALL_LOG=$WORK/all-gpuform-runs.log
: >"$ALL_LOG"
CLUSTER=ml-prod
INV_NS=gpuform-system
INV=gpuform-$CLUSTER
KINDS=namespaces,configmaps,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh,nodepools.karpenter.sh,workloadpriorityclasses.kueue.x-k8s.io,resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,localqueues.kueue.x-k8s.io
SPEC_A=$WORK/ml-prod.yaml
SPEC_B=$WORK/ml-prod-b.yaml
cp specs/ml-prod.yaml "$SPEC_A"
sed -e '/^    - name: chat-serving$/,$d' -e 's/^      maxGpus: 128$/      maxGpus: 192/' specs/ml-prod.yaml >"$SPEC_B"

# ---- the proxy ---------------------------------------------------------------------------
PROXY=$WORK/faultproxy
out=$(cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter -g -O1 \
	-o "$PROXY" tests/tools/faultproxy.c $(pkg-config --cflags --libs openssl) -lpthread 2>&1) ||
	t_abort "build tests/tools/faultproxy.c" "$out"

# ---- helpers -----------------------------------------------------------------------------
k() { timeout 60 kubectl --request-timeout=30s "$@"; }
exists() { k get "$@" >/dev/null 2>&1; }

# gf KUBECONFIG ARGS...: gpuform reconcile as user "tool"; $OUT, $ERR, $RC, $MS; marks the
# audit log and the proxy log first
gf() {
	local kc=$1 t0
	shift
	t_audit_mark
	PMARK=$(wc -l <"$PLOG")
	t0=$(date +%s%N)
	OUT=$(timeout 120 "$GPUFORM" reconcile --kubeconfig "$kc" "$@" 2>"$WORK/stderr")
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform reconcile $* (rc=$RC, ${MS} ms)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
jv() { printf '%s\n' "$OUT" | jq -r "$1" 2>/dev/null; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
# check (tests/lib.sh) shows this on a failure
t_detail() {
	printf 'condition: %s\nrc=%s (%s ms)\n--- stdout\n%s\n--- stderr\n%s\n--- proxy log\n%s\n' \
		"$1" "$RC" "${MS:-?}" "$(printf '%s\n' "$OUT" | head -n 30)" "$(printf '%s\n' "$ERR" | head -n 10)" \
		"$(plog | grep -v -- '-> pass' | head -n 12)"
}
# successful (real) DELETEs since the mark (t_audit_*: tests/lib.sh)
ndel() { t_audit_writes | awk -F'\t' '$1 == "delete" && ($2 == "200" || $2 == "202")' | wc -l; }
plog() { tail -n "+$((PMARK + 1))" "$PLOG"; }
# hits ACTION [MATCH]: how many requests of the last run the proxy met with ACTION
hits() { plog | grep -F -- "-> $1" | grep -cF -- "${2:-}"; }

# snap: every object of the managed kinds (all namespaces), one JSON array, straight from
# the API server with curl as the admin user (kubectl would cost a second a call)
snap() {
	curl -sf --noproxy '*' --max-time 20 --cacert "$ENV_DIR/tls.crt" -H "Authorization: Bearer $ADMIN_TOKEN" \
		"$SERVER/api/v1/namespaces" "$SERVER/api/v1/configmaps" \
		"$SERVER/apis/karpenter.k8s.aws/v1/ec2nodeclasses" "$SERVER/apis/karpenter.sh/v1/nodepools" \
		"$SERVER/apis/karpenter.sh/v1alpha1/nodeoverlays" \
		"$SERVER/apis/kueue.x-k8s.io/v1beta2/workloadpriorityclasses" \
		"$SERVER/apis/kueue.x-k8s.io/v1beta2/resourceflavors" \
		"$SERVER/apis/kueue.x-k8s.io/v1beta2/clusterqueues" "$SERVER/apis/kueue.x-k8s.io/v1beta2/localqueues" |
		jq -s '[.[] | (.kind | sub("List$"; "")) as $k | .items[] | .kind = $k]'
}
# dump SNAP: the managed objects and the inventory, normalised (no UIDs, versions, times,
# status)
dump() {
	jq -S '
		[.[] | select(.metadata.labels["app.kubernetes.io/managed-by"] == "gpuform")
		 | del(.metadata.uid, .metadata.resourceVersion, .metadata.managedFields,
			.metadata.creationTimestamp, .metadata.generation, .metadata.selfLink,
			.metadata.deletionTimestamp, .status)
		 | if .kind == "ConfigMap" and .metadata.name == "'"$INV"'"
		   then .data.inventory |= (fromjson | map(del(.uid)) | sort_by(.kind, .namespace, .name))
		   else . end]
		| sort_by(.kind, .metadata.namespace // "", .metadata.name)' <<<"$1"
}
# live_uids SNAP: "Kind/ns/name<TAB>uid" of everything carrying our part-of label
live_uids() {
	jq -r '.[] | select(.metadata.labels["applyset.kubernetes.io/part-of"] == "'"$APPLYSET_ID"'")
		| "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)\t\(.metadata.uid)"' <<<"$1" | sort
}
# inventory_uids SNAP: the same from the inventory
inventory_uids() {
	jq -r '.[] | select(.kind == "ConfigMap" and .metadata.name == "'"$INV"'") | .data.inventory | fromjson | .[]
		| "\(.kind)/\(.namespace // "")/\(.name)\t\(.uid // "")"' <<<"$1" | sort
}
# inventory_text SNAP: the inventory's data.inventory
inventory_text() {
	jq -r '.[] | select(.kind == "ConfigMap" and .metadata.name == "'"$INV"'") | .data.inventory' <<<"$1"
}
# others SNAP: the UIDs of the two NodePools of our own
others() {
	jq -r '[.[] | select(.kind == "NodePool" and (.metadata.name == "f-unmanaged" or .metadata.name == "f-labelled"))
		| .metadata.uid] | sort | join(" ")' <<<"$1"
}
desired_keys() {
	"$GPUFORM" render --format json "$1" 2>/dev/null |
		jq -r '.items[] | "\(.kind)/\(.metadata.namespace // "")/\(.metadata.name)"' | sort
}

# ---- the API server and the proxy --------------------------------------------------------
t_testenv_start
t_testenv_unused "$INV_NS" "$INV"

RULES=$WORK/rules
PLOG=$WORK/proxy.log
: >"$RULES"
: >"$PLOG"
"$PROXY" --upstream "$SERVER" --ca "$ENV_DIR/tls.crt" --rules "$RULES" --log "$PLOG" \
	--max-seconds 900 >"$WORK/proxy.port" 2>"$WORK/proxy.err" &
PROXY_PID=$!
t_on_exit "kill $PROXY_PID 2>/dev/null; wait $PROXY_PID 2>/dev/null"
for ((i = 0; i < 50; i++)); do
	PPORT=$(head -n1 "$WORK/proxy.port" 2>/dev/null)
	[[ -n $PPORT ]] && break
	sleep 0.1
done
PURL=http://127.0.0.1:$PPORT
KCP=$WORK/kubeconfig-proxy
cat >"$KCP" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: proxied, cluster: {server: "$PURL"}}]
users: [{name: tool, user: {token: "$TOOL_TOKEN"}}]
contexts: [{name: proxied, context: {cluster: proxied, user: tool}}]
current-context: proxied
EOF
out=$(curl -s --noproxy '*' --max-time 10 -H "Authorization: Bearer $TOOL_TOKEN" "$PURL/api/v1/namespaces/default")
[[ $(printf '%s' "$out" | jq -r .metadata.name 2>/dev/null) == default ]] ||
	t_abort "faultproxy on $PURL passes a GET through to $SERVER (TLS verified, token passed on)" \
		"$out$(cat "$WORK/proxy.err")"

# ---- the references: fault-free runs ------------------------------------------------------
# objects of our own that no run may touch: one without our labels, one with all of them
# (part-of included) that was never in the inventory
nodepool_yaml() { # NAME LABELS-FLOW-MAP
	cat <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: $1
  labels: $2
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: general}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
EOF
}
gf "$KC" -o json "$SPEC_A"
APPLYSET_ID=$(k get configmap -n "$INV_NS" "$INV" -o jsonpath='{.metadata.labels.applyset\.kubernetes\.io/id}' 2>/dev/null)
nodepool_yaml f-unmanaged '{}' >"$WORK/np-unmanaged.yaml"
nodepool_yaml f-labelled "{app.kubernetes.io/managed-by: gpuform, gpuform.io/cluster: $CLUSTER, applyset.kubernetes.io/part-of: $APPLYSET_ID}" \
	>"$WORK/np-labelled.yaml"
k create -f "$WORK/np-unmanaged.yaml" -f "$WORK/np-labelled.yaml" >/dev/null 2>&1
S=$(snap)
OTHERS=$(others "$S")
REF_A=$(dump "$S")
gf "$KC" -o json --prune "$SPEC_B"
REF_B=$(dump "$(snap)")
N_PRUNE=$(jv .counts.pruned)
N_CONF=$(jv .counts.configured)
STATE=B
DES_A=$(desired_keys "$SPEC_A")
DES_B=$(desired_keys "$SPEC_B")
KEEP=$(comm -12 <(printf '%s\n' "$DES_A") <(printf '%s\n' "$DES_B"))   # desired in both
GONE=$(comm -23 <(printf '%s\n' "$DES_A") <(printf '%s\n' "$DES_B") | grep -v '^Namespace/')
N_GONE=$(printf '%s\n' "$GONE" | grep -c .)
RC=- OUT="pruned=$N_PRUNE configured=$N_CONF others=$OTHERS gone=$GONE" ERR=
check "reference runs without faults: A -> B configures 2 and prunes $N_GONE objects (all B drops but a Namespace), the two NodePools of our own exist" \
	'[[ $N_PRUNE == "$N_GONE" && $N_GONE == 6 && $N_CONF == 2 && $(wc -w <<<"$OTHERS") == 2 ]] &&
	 [[ $REF_A != "$REF_B" ]] &&
	 [[ $(jq length <<<"$REF_B") -gt 10 ]]'

# the bearer token never goes to http_proxy (issue 21 item 3): the faultproxy is plain http
# on loopback (--insecure-loopback-http); a loopback sink stands in for the environment's
# proxy and records whatever arrives. kubectl never proxies loopback; neither may gpuform.
mkdir -p "$WORK/sink"
/usr/bin/python3 "$here/tools/httpsink.py" "$WORK/sink" 2>/dev/null &
SINK_PID=$!
t_on_exit "kill $SINK_PID 2>/dev/null"
for ((i = 0; i < 50; i++)); do [[ -f $WORK/sink/port ]] && break; sleep 0.1; done
SINK=http://127.0.0.1:$(cat "$WORK/sink/port" 2>/dev/null)
curl -s --noproxy '' -x "$SINK" -o /dev/null http://api.example.invalid/ || true
[[ -s $WORK/sink/requests ]] || t_abort "the sink answers as a proxy (curl -x $SINK)"
: >"$WORK/sink/requests"; : >"$WORK/sink/headers"
http_proxy=$SINK HTTP_PROXY=$SINK https_proxy=$SINK ALL_PROXY=$SINK all_proxy=$SINK no_proxy= NO_PROXY= \
	gf "$KCP" --insecure-loopback-http --no-lock -o json --prune "$SPEC_B"
OUT2=$OUT
OUT="sink: $(cat "$WORK/sink/headers")"
check "kube_token_never_to_http_proxy_for_loopback: exit 0, every request went to the loopback server named ($(hits pass) passed through it), none to the proxy" \
	'[[ $RC == 0 && $(hits pass) -ge 1 && ! -s $WORK/sink/requests ]]'
OUT=$OUT2
kill "$SINK_PID" 2>/dev/null

# to_a: bring the cluster back to state A (a clean run), remember the UIDs of what B keeps
to_a() {
	if [[ $STATE != A ]]; then
		gf "$KC" -o json "$SPEC_A"
		STATE=A
	fi
	PRE_UIDS=$(live_uids "$(snap)")
}

# fault NAME EXPECT-RC ACTION RULES [EXTRA-CONDITION [GPUFORM-ARGS...]]: one case (see the
# head of the file). ACTION is what the proxy log must show at least once.
fault() {
	local name=$1 want=$2 action=$3 rules=$4 extra=${5:-true}
	shift 5 2>/dev/null || shift $#
	to_a
	printf '%s\n' "$rules" >"$RULES"
	gf "$KCP" --insecure-loopback-http --no-lock -o json --prune --request-timeout 1s --timeout 40s "$@" "$SPEC_B"
	t_audit_sync
	FAULT_WRITES=$(t_audit_writes)
	# ACTION: one, or several separated by '|' (each must have hit at least once)
	local hit=999 a h acts
	IFS='|' read -ra acts <<<"$action"
	for a in "${acts[@]}"; do
		h=$(hits "$a")
		((h < hit)) && hit=$h
	done
	: >"$RULES"
	STATE=?
	FAULT_DELS=$(ndel)
	local now bad_del S
	S=$(snap)
	if [[ $want == 0 ]]; then
		# (a connection dropped before any answer on a reused connection: libcurl itself
		# sends the request again once, which is not counted as a retry)
		check "$name: exit 0 after retries ($(jv .requests.retries) retries, ${MS} ms; each fault hit >= $hit time(s))" \
			'[[ $RC == 0 && $hit -ge 1 ]] && [[ $(jv .requests.retries) -ge 1 || $action == drop ]] && '"$extra"
	else
		# (FAULT_ANY_MSG=1: the message is about the answer, not the server)
		check "$name: exit 4, the message names $([[ ${FAULT_ANY_MSG:-} == 1 ]] && echo "what was wrong with the answer" || echo "the API server ($PURL)"); the fault hit $hit time(s)" \
			'[[ $RC == 4 && $hit -ge 1 ]] && { has_err "$PURL" || [[ ${FAULT_ANY_MSG:-} == 1 ]]; } &&
			 ! has_err "Sanitizer" && '"$extra"
	fi
	# nothing desired in both A and B deleted or recreated; our own NodePools untouched;
	# no write beyond what the run needed (deletes only of what B drops)
	now=$(live_uids "$S")
	bad_del=$(printf '%s\n' "$FAULT_WRITES" | awk -F'\t' '$1 == "delete"' |
		grep -vE '/(nodepools|resourceflavors|clusterqueues|localqueues|ec2nodeclasses)/(chat-serving|gpu)(\?|$)|/workloadpriorityclasses/gpuform-inference(\?|$)' || true)
	RC=- OUT="missing or recreated: $(comm -23 <(printf '%s\n' "$PRE_UIDS" | grep -F -f <(printf '%s\n' "$KEEP" | sed 's/$/\t/')) <(printf '%s\n' "$now"))" ERR="$bad_del"
	check "  nothing wrongly deleted: the objects A and B share keep their UIDs, only objects B drops were deleted, f-unmanaged/f-labelled intact" \
		'[[ -z $(comm -23 <(printf "%s\n" "$PRE_UIDS" | grep -F -f <(printf "%s\n" "$KEEP" | sed "s/\$/\t/")) <(printf "%s\n" "$now")) ]] &&
		 [[ -z $bad_del ]] && [[ $(others "$S") == "$OTHERS" ]]'
	converge "$name"
	RC=- OUT="deleted by the faulted run: $FAULT_DELS, by the clean run: $CONV_DELS" ERR=
	check "  the objects B drops were deleted exactly once in all (faulted run $FAULT_DELS + clean run $CONV_DELS == $N_GONE)" \
		'[[ $((FAULT_DELS + CONV_DELS)) == "$N_GONE" ]]'
}

# converge NAME: a clean run to B converges to the reference, the one after writes nothing
converge() {
	gf "$KC" -o json --prune "$SPEC_B"
	t_audit_sync
	CONV_DELS=$(ndel)
	local d S
	S=$(snap)
	d=$(dump "$S")
	OUT2=$OUT
	OUT=$(diff <(printf '%s\n' "$REF_B") <(printf '%s\n' "$d") | head -n 30)
	check "  the next clean run: exit 0, the cluster equals the fault-free reference (objects + inventory)" \
		'[[ $RC == 0 && $d == "$REF_B" ]]'
	local inv live
	inv=$(inventory_uids "$S")
	live=$(live_uids "$S" | grep -v "^NodePool//f-labelled	")
	OUT=$(diff <(printf '%s\n' "$inv") <(printf '%s\n' "$live"))
	check "  every inventory entry carries the live UID; nothing ours is missing from it" '[[ $inv == "$live" ]]'
	gf "$KC" -o json --prune "$SPEC_B"
	t_audit_sync
	check "  the run after that: 0 writes (report and audit log)" \
		'[[ $RC == 0 && $(jv .requests.writes) == 0 && -z $(t_audit_writes) ]]'
	STATE=B
}

if [[ ,${FAULTS_SECTIONS:-api,git}, == *,api,* ]]; then
# ==== reads: inventory GET, LISTs, discovery ==================================================
# (faults the client retries are grouped, several per run, each checked in the proxy's log)
fault "inventory GET: 503 Retry-After 1, twice; LIST nodepools: 429 Retry-After 1" 0 "status 503|status 429" \
	'GET /configmaps/gpuform-ml-prod 1-2 status 503 1
GET /nodepools? 1 status 429 1' '[[ $MS -ge 2900 ]]'
fault "LIST clusterqueues: 500; LIST ec2nodeclasses: held 2.5 s, past the 1 s request timeout; LIST localqueues: dropped mid-body" \
	0 "status 500|delay 2500|cut" \
	'GET /clusterqueues? 1 status 500
GET /ec2nodeclasses? 1 delay 2500
GET /localqueues? 1 cut' '[[ $(plog | grep -c "client gone, not sent on") -ge 1 ]]'
fault "LIST nodepools: truncated to invalid JSON with a matching Content-Length; inventory GET: half the body, then silence" \
	0 "truncate|stall" \
	'GET /nodepools? 1 truncate
GET /configmaps/gpuform-ml-prod 1 stall'
fault "discovery (after a LIST answered 404): 503 Retry-After 1, then served" 4 "status 503" \
	'GET /nodepools? 1 status 404
GET /apis/karpenter.sh/v1!1/ 1 status 503 1' \
	'has_err "serves karpenter.sh/v1 NodePool but listing it failed" && has_err "404" &&
	 [[ $(plog | grep -c "GET /apis/karpenter.sh/v1 ") == 2 && -z $FAULT_WRITES ]]'
fault "every LIST of nodepools: 500" 4 "status 500" \
	'GET /nodepools? * status 500' \
	'has_err "500 Internal Server Error" && has_err "after" && [[ $(hits "status 500") == 6 && -z $FAULT_WRITES ]]'
fault "every LIST of clusterqueues truncated" 4 "truncate" \
	'GET /clusterqueues? * truncate' \
	'has_err "not whole JSON" && [[ -z $FAULT_WRITES ]]'
# a LIST that comes back short (issue 21 item 5): the entries it leaves out are not forgotten
# (a GET finds them, still labelled: the run stops before writing); "items": null and a list
# of another kind are not lists
FAULT_ANY_MSG=1 fault "short_list_never_forgets_inventory_entries: LIST nodepools answered with items: []" 4 "items-empty" \
	'GET /nodepools? 1 items-empty' \
	'has_err "the LIST answer was incomplete" && has_err "nodepool.karpenter.sh/chat-serving" && [[ -z $FAULT_WRITES ]] &&
	 inventory_text "$S" | gq "\"NodePool\",\"name\":\"chat-serving\",\"uid\":\"[0-9a-f-]\{36\}\""'
FAULT_ANY_MSG=1 fault "list_items_null_is_refused: LIST clusterqueues answered with items: null" 4 "items-null" \
	'GET /clusterqueues? 1 items-null' \
	'has_err "\"items\": null" && [[ -z $FAULT_WRITES ]]'

# an inventory entry at an apiVersion the server no longer serves (issue 21 item 13): a CRD
# version dropped since the entry was written (karpenter.sh/v1beta1; the CRDs serve v1 only)
# is listed and deleted through the served version, not a failed prune on every run
to_a
k get configmap -n "$INV_NS" "$INV" -o json |
	jq -c '.data.inventory |= (fromjson | map(if .kind == "NodePool" and .name == "chat-serving"
		then .apiVersion = "karpenter.sh/v1beta1" else . end) | tojson)' >"$WORK/inv-v1beta1.json"
k replace -f "$WORK/inv-v1beta1.json" >/dev/null 2>&1 &&
	k get configmap -n "$INV_NS" "$INV" -o jsonpath='{.data.inventory}' | gq 'karpenter.sh/v1beta1' ||
	t_abort "the inventory entry of NodePool chat-serving rewritten to karpenter.sh/v1beta1"
gf "$KC" -o json --prune "$SPEC_B"
STATE=B
S=$(snap)
check "prune_through_served_version: the entry at karpenter.sh/v1beta1 is pruned through karpenter.sh/v1: exit 0, $N_GONE pruned, NodePool chat-serving gone, the inventory holds no v1beta1" \
	'[[ $RC == 0 && $(jv .counts.pruned) == "$N_GONE" ]] &&
	 ! jq -e ".[] | select(.kind == \"NodePool\" and .metadata.name == \"chat-serving\")" <<<"$S" >/dev/null &&
	 ! inventory_text "$S" | gq v1beta1'
gf "$KC" -o json --prune "$SPEC_B"
check "  the run after that: exit 0, 0 writes" '[[ $RC == 0 && $(jv .requests.writes) == 0 ]]'

# ==== writes: dry runs, applies, the inventory, prune =========================================
fault "dry-run apply dropped before it was sent on; apply of NodePool llm-pretrain: 500 before it reached the server; apply of ClusterQueue llm-pretrain: 429 Retry-After 1" \
	0 "drop|status 500|status 429" \
	'PATCH /nodepools/llm-pretrain?fieldManager=gpuform&dryRun=All 1 drop
PATCH /nodepools/llm-pretrain!dryRun 1 status 500
PATCH /clusterqueues/llm-pretrain!dryRun 1 status 429 1'
fault "apply of NodePool llm-pretrain: applied, answer replaced by 500; apply of ClusterQueue: answer cut mid-body; prune DELETE: 500 once" \
	0 "status-after 500|cut|status 500" \
	'PATCH /nodepools/llm-pretrain!dryRun 1 status-after 500
PATCH /clusterqueues/llm-pretrain!dryRun 1 cut
DELETE * 1 status 500' '[[ $(jv .counts.pruned) == "$N_GONE" ]]'
fault "apply of NodePool llm-pretrain: applied, answer 2.5 s late (past the timeout); prune DELETE: deleted, answer replaced by 500 (the retry finds it gone)" \
	0 "delay-after 2500|status-after 500" \
	'PATCH /nodepools/llm-pretrain!dryRun 1 delay-after 2500
DELETE * 2 status-after 500' '[[ $(jv .counts.pruned) == "$N_GONE" && $(jv .counts.failed) == 0 && $FAULT_DELS == "$N_GONE" ]]'
fault "apply of NodePool llm-pretrain: applied, connection dropped before the answer; apply of ClusterQueue: answer truncated to invalid JSON" \
	0 "drop-after|truncate" \
	'PATCH /nodepools/llm-pretrain!dryRun 1 drop-after
PATCH /clusterqueues/llm-pretrain!dryRun 1 truncate'
fault "every apply of NodePools: 503 Retry-After 60 (beyond the run timeout)" 4 "status 503" \
	'PATCH /nodepools/!dryRun * status 503 60' \
	'has_err "503 Service Unavailable" && [[ $MS -lt 20000 ]] &&
	 [[ -z $(printf "%s\n" "$FAULT_WRITES" | grep -F /nodepools/) ]]'
fault "inventory write before the objects: 500 every time" 4 "status 500" \
	'PATCH /configmaps/gpuform-ml-prod!dryRun * status 500' \
	'[[ -z $FAULT_WRITES ]]'
fault "inventory write after the prune: 503 Retry-After 60" 4 "status 503" \
	'PATCH /configmaps/gpuform-ml-prod!dryRun 2+ status 503 60' \
	'[[ $(printf "%s\n" "$FAULT_WRITES" | grep -c "^delete	") == "$N_GONE" ]] &&
	 inventory_text "$S" | gq chat-serving'
# mid-prune: two objects deleted, then every DELETE and the closing inventory write fail
fault "mid-prune: DELETEs from the 3rd on and the closing inventory write answer 503 Retry-After 60" 4 "status 503" \
	'DELETE * 3+ status 503 60
PATCH /configmaps/gpuform-ml-prod!dryRun 2+ status 503 60' \
	'[[ $(printf "%s\n" "$FAULT_WRITES" | grep -c "^delete	") == 2 && $(jv .counts.pruned) == 2 && $(jv .counts.failed) == $((N_GONE - 2)) ]] &&
	 [[ $(inventory_text "$S" | jq -r "map(select(.name == \"chat-serving\" or .name == \"gpu\" or .name == \"gpuform-inference\")) | length") == "$N_GONE" ]]'
RC=- ERR= OUT="clean run deleted $CONV_DELS"
check "  mid-prune: the clean run deleted exactly the $((N_GONE - 2)) objects left (audit), nothing else" '[[ $CONV_DELS == $((N_GONE - 2)) ]]'

# mid-prune with the inventory written at the end: the failed DELETE stays in the inventory
fault "mid-prune: every DELETE of ResourceFlavor chat-serving dropped (the closing inventory write succeeds)" 4 "drop" \
	'DELETE /resourceflavors/chat-serving * drop' \
	'has_err "could not be pruned" && [[ $(jv .counts.pruned) == $((N_GONE - 1)) && $(jv .counts.failed) == 1 ]] &&
	 inventory_text "$S" | gq "\"ResourceFlavor\",\"name\":\"chat-serving\""'
RC=- ERR= OUT="clean run deleted $CONV_DELS"
check "  ... the clean run deleted exactly that one ResourceFlavor, nothing else" '[[ $CONV_DELS == 1 ]]'
fi # api

# ==== Git: corrupt cache, force-pushes, servers stopped mid-push and mid-fetch ===============
if [[ ,${FAULTS_SECTIONS:-api,git}, == *,git,* ]]; then
# (after the API cases: cluster "gitfault" shares some cluster-scoped names with ml-prod)
# shellcheck source=tests/git-servers/servers.sh
. "$here/git-servers/servers.sh"
export HOME=$WORK/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name 'Gpuform Test'
git config --global user.email 'gpuform-test@example.com'
git config --global init.defaultBranch main
export LSAN_OPTIONS="suppressions=$here/git-servers/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export GPUFORM_GIT_USERNAME=gitops GPUFORM_GIT_PASSWORD=pw-$RANDOM$RANDOM
HDIR=$WORK/http
t_on_exit 'gs_http_stop "$HDIR"'
git_ok=1
if ! gs_http_start "$HDIR" "$GPUFORM_GIT_USERNAME" "$GPUFORM_GIT_PASSWORD" >"$WORK/http.out" 2>&1; then
	t_fail "Git: start lighttpd + git http-backend" "$(cat "$WORK/http.out")"
	git_ok=0
fi
SRV=$HDIR/repos/gitops.git
git init -q --bare -b main "$SRV" && git --git-dir="$SRV" config http.receivepack true
URL=http://127.0.0.1:$GS_HTTP_PORT/git/gitops.git
# the throttled TCP pass-through to the same server: 256 KiB/s each way
TLOG=$WORK/tcp.log
: >"$TLOG"
"$PROXY" --tcp "127.0.0.1:$GS_HTTP_PORT" --rate 262144 --log "$TLOG" --max-seconds 900 >"$WORK/tcp.port" 2>/dev/null &
TPROXY_PID=$!
t_on_exit "kill $TPROXY_PID 2>/dev/null; wait $TPROXY_PID 2>/dev/null"
for ((i = 0; i < 50; i++)); do
	TPORT=$(head -n1 "$WORK/tcp.port" 2>/dev/null)
	[[ -n $TPORT ]] && break
	sleep 0.1
done
URLT=http://127.0.0.1:$TPORT/git/gitops.git
gintent() { # FILE MAXGPUS
	cat >"$1" <<EOF
apiVersion: gpuform.io/v1alpha1
kind: ClusterIntent
metadata:
  name: gitfault
spec:
  nodeRole: KarpenterNodeRole-gitfault
  ami: al2023@v20250505
  workloads:
    - name: gf-api
      type: inference
      gpu: l4
      maxGpus: $2
EOF
}
# g ARGS...: gpuform (bounded: a hang shows as 124); $OUT, $ERR, $RC
g() {
	OUT=$(timeout 90 "$GPUFORM" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $* (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
stip() { git --git-dir="${1:-$SRV}" rev-parse -q --verify "${2:-refs/heads/main}" 2>/dev/null; }
gpu_limit() { k get nodepool gf-api -o jsonpath='{.spec.limits.nvidia\.com/gpu}' 2>/dev/null; }
CACHE=$WORK/cache
RECON=(reconcile --kubeconfig "$KC" -o json --git "$URL" --cluster gitfault --git-cache "$CACHE")
RECON_T=(reconcile --kubeconfig "$KC" -o json --git "$URLT" --cluster gitfault --git-cache "$CACHE")
H=$WORK/local.git
git init -q --bare "$H"
gintent "$WORK/gf.yaml" 4
g commit --repo "$H" --push="$URL" "$WORK/gf.yaml"
C1=$(stip)
g "${RECON[@]}"
check "Git: commit --push, then reconcile --git: exit 0, the commit applied" \
	'[[ $git_ok == 1 && $RC == 0 && -n $C1 && $(jv .sourceCommit) == "$C1" && $(jv .counts.failed) == 0 ]]'
cp -a "$CACHE" "$WORK/cache-good"

# ---- a damaged cache: set aside, fetched again, nothing else changes
damage() { # NAME COMMAND: corrupt a copy of the good cache, then reconcile --git
	rm -rf "$CACHE" "$CACHE".damaged-*
	cp -a "$WORK/cache-good" "$CACHE"
	chmod -R u+w "$CACHE"
	(cd "$CACHE" && eval "$2")
	g "${RECON[@]}"
	check "Git cache with $1: exit 0 (no hang), a warning names the cache and where it went, 0 writes" \
		'[[ $RC == 0 && $(jv .sourceCommit) == "$C1" && $(jv .requests.writes) == 0 ]] &&
		 has_err "the Git cache '"'$CACHE'"' was damaged" && [[ -d $(ls -d "$CACHE".damaged-* | head -n1) ]]'
	check "  the rebuilt cache passes git fsck and holds the commit" \
		'git --git-dir="$CACHE" fsck --no-progress >/dev/null 2>&1 && git --git-dir="$CACHE" cat-file -e "$C1^{commit}"'
}
damage "the packfile missing" 'rm objects/pack/*.pack'
damage "the packfile truncated" 'p=$(ls objects/pack/*.pack); truncate -s $(( $(stat -c %s "$p") / 2 )) "$p"'
damage "the pack index truncated" 'p=$(ls objects/pack/*.idx); truncate -s 100 "$p"'
damage "a truncated loose object (libgit2 1.5 alone would spin forever on it)" \
	'mkdir ../pk && mv objects/pack/* ../pk/ && git --git-dir=. unpack-objects -q <../pk/*.pack && rm -rf ../pk &&
	 b=$(git --git-dir=. rev-parse "$C1:clusters/gitfault/kustomization.yaml") && truncate -s 10 "objects/${b:0:2}/${b:2}"'
rm -rf "$CACHE" "$CACHE".damaged-*
cp -a "$WORK/cache-good" "$CACHE"
echo 'ref: refs/heads/garbage!!' >"$CACHE/HEAD"
g "${RECON[@]}"
check "Git cache with a garbage HEAD: exit 0, 0 writes (the cache reads only its own tracking ref)" \
	'[[ $RC == 0 && $(jv .sourceCommit) == "$C1" && $(jv .requests.writes) == 0 ]]'
rm -rf "$CACHE" "$CACHE".damaged-*
cp -a "$WORK/cache-good" "$CACHE"

# ---- a truncated loose object in the user's own repository (commit --repo, diff --base): no
# recovery there (it is not ours to replace), but a clear error at once instead of libgit2 1.5's
# endless loop
U=$WORK/userrepo
git init -q "$U" && cp specs/minimal.yaml "$U/" && git -C "$U" add . &&
	git -C "$U" -c user.email=t@t.test -c user.name=t commit -qm one &&
	echo '# edited' >>"$U/minimal.yaml" && git -C "$U" -c user.email=t@t.test -c user.name=t commit -qam two
LB=$(git -C "$U" rev-parse HEAD:minimal.yaml)
chmod u+w "$U/.git/objects/${LB:0:2}/${LB:2}" && truncate -s 10 "$U/.git/objects/${LB:0:2}/${LB:2}"
g diff --repo "$U" --base HEAD~1 "$U/minimal.yaml"
check "user repository with a truncated loose object: diff --base exits 4 at once, naming the object and git fsck" \
	'[[ $RC == 4 ]] && has_err "object $LB" && has_err "is truncated or corrupt" && has_err "git fsck"'
g commit --repo "$U" "$U/minimal.yaml"
check "  ... and commit --repo too; the branch still points at the commit it had" \
	'[[ $RC == 4 ]] && has_err "object $LB" && [[ $(git -C "$U" rev-parse HEAD) == $(git -C "$U" rev-parse main) ]] &&
	 [[ $(git -C "$U" log --format=%s -1) == two ]]'

# ---- a branch force-pushed behind gpuform's back, between two commit --push
O=$WORK/other
git clone -q "$SRV" "$O" 2>/dev/null
echo 'rewritten history' >"$O/README.md"
git -C "$O" add README.md && git -C "$O" commit -q --amend -m 'rewritten by someone else' &&
	git -C "$O" push -q --force origin main 2>/dev/null
X=$(stip)
gintent "$WORK/gf.yaml" 8
g commit --repo "$H" --push="$URL" "$WORK/gf.yaml"
C2=$(stip)
check "force-pushed branch between two commit --push: exit 0, the commit redone on the forced tip" \
	'[[ $RC == 0 && $X != "$C1" && -n $C2 && $C2 != "$X" ]] && git --git-dir="$SRV" merge-base --is-ancestor "$X" "$C2" &&
	 git --git-dir="$SRV" show "$C2:clusters/gitfault/nodepool-gf-api.yaml" | gq "nvidia.com/gpu: \"8\""'
check "  nothing lost: the forced commit (README) is on main, the local branch equals the server's, fsck clean" \
	'[[ $(git --git-dir="$SRV" show main:README.md) == "rewritten history" && $(stip "$H") == "$C2" ]] &&
	 git --git-dir="$SRV" fsck --no-progress >/dev/null 2>&1 && git --git-dir="$H" fsck --no-progress >/dev/null 2>&1'
# the amend rewrote history: C1, which the inventory records, is not in C2's history
g "${RECON[@]}"
check "  reconcile --git refuses the new tip (C2 does not descend from C1, the inventory's sourceCommit): exit 4" \
	'[[ $RC == 4 ]] && has_err "does not descend from ${C1:0:12}" && has_err "--allow-non-ancestor"'
g "${RECON[@]}" --allow-non-ancestor
check "  with --allow-non-ancestor it picks up the new tip (exit 0, sourceCommit C2, the NodePool limit 8)" \
	'[[ $RC == 0 && $(jv .sourceCommit) == "$C2" && $(gpu_limit) == 8 ]]'
# rewound behind reconcile's back: the cache's tracking ref must follow (a forced update)
git --git-dir="$SRV" update-ref refs/heads/main "$X"
g "${RECON[@]}"
check "force-push rewinding the branch under reconcile --git: exit 4, refused (X does not descend from C2), nothing applied (limit 8), cache follows" \
	'[[ $RC == 4 ]] && has_err "does not descend from" && [[ $(gpu_limit) == 8 ]] &&
	 [[ $(stip "$CACHE" refs/remotes/gpuform/main) == "$X" ]]'
g "${RECON[@]}" --allow-non-ancestor
check "  with --allow-non-ancestor: exit 0, the older commit applied (limit 4)" \
	'[[ $RC == 0 && $(jv .sourceCommit) == "$X" && $(gpu_limit) == 4 ]]'
git --git-dir="$SRV" update-ref refs/heads/main "$C2"

# ---- servers stopped while a large push / fetch is in flight (throttled: deterministic)
# someone's large unpushed commit (1 MiB of random bytes) sits under gpuform's commit in the
# local repository; the push goes through the 256 KiB/s pass-through; the server is stopped
# once 256 KiB have gone through
BIGT=$WORK/bigtree
git clone -q "$H" "$BIGT" 2>/dev/null
head -c 1048576 /dev/urandom >"$BIGT/blob.bin"
git -C "$BIGT" add blob.bin && git -C "$BIGT" commit -q -m 'a large file' && git -C "$BIGT" push -q origin main 2>/dev/null
BIG_TIP=$(stip "$H")
wait_bytes() { # DIRECTION BYTES: until the pass-through moved that many bytes (max 20 s)
	local i n
	for ((i = 0; i < 200; i++)); do
		n=$(grep -oE "$1 [0-9]+" "$TLOG" | tail -n1 | awk '{print $2}')
		[[ -n $n && $n -ge $2 ]] && return 0
		sleep 0.1
	done
	return 1
}
BG_ENV=()
bg_run() { # DIR BYTES ARGS...: gpuform (environment: BG_ENV) in the background; once DIR
	# (c2s, s2c) BYTES went through the pass-through, the server dies (STOP: how)
	local dir=$1 bytes=$2 bg
	shift 2
	: >"$TLOG"
	env "${BG_ENV[@]}" timeout 90 "$GPUFORM" "$@" >"$WORK/bg.out" 2>"$WORK/bg.err" &
	bg=$!
	if wait_bytes "$dir" "$bytes"; then INFLIGHT=1; else INFLIGHT=0; fi
	# the server dies: the pass-through resets its connections (the kernel would otherwise
	# still deliver what the dead server had already sent) and the server is stopped
	kill -USR1 "$TPROXY_PID"
	${STOP:-gs_http_stop "$HDIR"}
	wait "$bg"
	RC=$?
	OUT=$(cat "$WORK/bg.out") ERR=$(cat "$WORK/bg.err")
	printf '%s\n' "--- gpuform $* (server stopped in flight; rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
srv_before=$(stip)
gintent "$WORK/gf.yaml" 12
bg_run c2s 262144 commit --repo "$H" --push="$URLT" "$WORK/gf.yaml"
check "server stopped mid-push (256 KiB of ~1 MiB sent): exit 4, 'cannot push', committed locally" \
	'[[ $INFLIGHT == 1 && $RC == 4 ]] && has_err "cannot push" && [[ $(stip "$H") != "$BIG_TIP" ]]'
check "  the server did not move and is consistent (git fsck)" \
	'[[ $(stip) == "$srv_before" ]] && git --git-dir="$SRV" fsck --no-progress >/dev/null 2>&1'
gs_http_start "$HDIR" "$GPUFORM_GIT_USERNAME" "$GPUFORM_GIT_PASSWORD" >/dev/null 2>&1
g commit --repo "$H" --push="$URL" "$WORK/gf.yaml"
check "  restarted: the next run pushes; the large commit and gpuform's are both on the server" \
	'[[ $RC == 0 && $(stip) == "$(stip "$H")" ]] && git --git-dir="$SRV" merge-base --is-ancestor "$BIG_TIP" main &&
	 git --git-dir="$SRV" cat-file -e main:blob.bin && git --git-dir="$SRV" fsck --no-progress >/dev/null 2>&1'

# the same over SSH (sshd, key authentication, known_hosts): another large unpushed commit,
# pushed through a second throttled pass-through to sshd, which is stopped mid-push
SDIR=$WORK/ssh
t_on_exit 'gs_ssh_stop'
if gs_ssh_start "$SDIR" >"$WORK/sshd-start.out" 2>&1; then
	TLOG_HTTP=$TLOG
	TLOG=$WORK/tcp-ssh.log
	: >"$TLOG"
	"$PROXY" --tcp "127.0.0.1:$GS_SSH_PORT" --rate 262144 --log "$TLOG" --max-seconds 900 >"$WORK/tcp-ssh.port" 2>/dev/null &
	TPROXY_HTTP=$TPROXY_PID
	TPROXY_PID=$!
	t_on_exit "kill $TPROXY_PID 2>/dev/null; wait $TPROXY_PID 2>/dev/null"
	for ((i = 0; i < 50; i++)); do
		SPORT=$(head -n1 "$WORK/tcp-ssh.port" 2>/dev/null)
		[[ -n $SPORT ]] && break
		sleep 0.1
	done
	# the pass-through's address carries sshd's host key
	printf '[127.0.0.1]:%s %s\n' "$SPORT" "$(cut -d' ' -f1,2 "$SDIR/ssh_host_ed25519_key.pub")" >>"$SDIR/known_hosts"
	SSH_ENV=("GPUFORM_GIT_SSH_KEY=$SDIR/client_key" "GPUFORM_GIT_SSH_KNOWN_HOSTS=$SDIR/known_hosts"
		"LSAN_OPTIONS=suppressions=$here/git-servers/lsan-ssh.supp" "ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0")
	SURL=ssh://$(id -un)@127.0.0.1:$GS_SSH_PORT$SRV
	SURLT=ssh://$(id -un)@127.0.0.1:$SPORT$SRV
	git -C "$BIGT" pull -q --rebase origin main 2>/dev/null
	head -c 1048576 /dev/urandom >"$BIGT/blob2.bin"
	git -C "$BIGT" add blob2.bin && git -C "$BIGT" commit -q -m 'another large file' && git -C "$BIGT" push -q origin main 2>/dev/null
	BIG_TIP=$(stip "$H")
	srv_before=$(stip)
	gintent "$WORK/gf.yaml" 16
	BG_ENV=("${SSH_ENV[@]}")
	STOP=gs_ssh_stop bg_run c2s 262144 commit --repo "$H" --push="$SURLT" "$WORK/gf.yaml"
	BG_ENV=()
	check "SSH server stopped mid-push (256 KiB of ~1 MiB sent): exit 4, 'cannot push'; the server did not move, git fsck clean" \
		'[[ $INFLIGHT == 1 && $RC == 4 ]] && has_err "cannot push" && [[ $(stip) == "$srv_before" ]] &&
		 git --git-dir="$SRV" fsck --no-progress >/dev/null 2>&1'
	gs_ssh_start "$SDIR" >/dev/null 2>&1
	OUT=$(env "${SSH_ENV[@]}" timeout 90 "$GPUFORM" commit --repo "$H" --push="$SURL" "$WORK/gf.yaml" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- commit --push over SSH (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
	check "  sshd restarted: the next run pushes over SSH; both large commits and gpuform's are on the server" \
		'[[ $RC == 0 && $(stip) == "$(stip "$H")" ]] && git --git-dir="$SRV" merge-base --is-ancestor "$BIG_TIP" main &&
		 git --git-dir="$SRV" cat-file -e main:blob2.bin && git --git-dir="$SRV" fsck --no-progress >/dev/null 2>&1'
	kill "$TPROXY_PID" 2>/dev/null
	TPROXY_PID=$TPROXY_HTTP
	TLOG=$TLOG_HTTP
	gs_ssh_stop
else
	t_fail "start sshd" "$(cat "$WORK/sshd-start.out")"
fi

# a fresh cache fetches everything (the 1 MiB blob too) through the pass-through
rm -rf "$CACHE"
bg_run s2c 262144 "${RECON_T[@]}"
check "server stopped mid-fetch (256 KiB received): exit 4, 'cannot fetch', nothing applied (limit still 4)" \
	'[[ $INFLIGHT == 1 && $RC == 4 ]] && grep -q "^reset conn" "$TLOG" && has_err "cannot fetch" && [[ $(gpu_limit) == 4 ]]'
gs_http_start "$HDIR" "$GPUFORM_GIT_USERNAME" "$GPUFORM_GIT_PASSWORD" >/dev/null 2>&1
g "${RECON[@]}"
check "  restarted: the same cache works, the new tip is applied (limit 16), the cache passes git fsck" \
	'[[ $RC == 0 && $(jv .sourceCommit) == "$(stip)" && $(gpu_limit) == 16 ]] &&
	 git --git-dir="$CACHE" fsck --no-progress >/dev/null 2>&1'

fi # git

# ---- sanitizers --------------------------------------------------------------------------
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any gpuform run" \
		"$(grep -E -B1 -A6 'Sanitizer|runtime error' "$ALL_LOG" | head -n 40)"
else
	t_pass "no sanitizer reports in any gpuform run"
fi
echo "faults suite: $(($(date +%s) - T_START)) s"
t_summary
exit
}
