#!/usr/bin/env bash
# tests/kube-client.sh: kube/kube.c and kube/kubeconfig.c against real parts --
# a real kube-apiserver (tests/kube-testenv) and a loopback HTTP server that fails on cue
# (tests/tools/faultsrv.c) -- driven by tests/tools/kubectl-lite.c.
#
#   bash tests/kube-client.sh
#
# GPUFORM_TESTENV_DIR=DIR   use that running testenv (kube-testenv start DIR) instead of
#                           starting one (~10 s); objects go into a namespace of our own
# BUILD_DIR=build/san       whose objects to link the drivers with (default build/san when
#                           it exists, else build/rel); build it first (make [SANITIZE=...])
#
# Everything listens on 127.0.0.1 only and every driver run is bounded by `timeout`.
# Prints "ok"/"FAIL" lines and the closing "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
t_tmpdir WORK
# never through a proxy, never the developer's kubeconfig
t_isolate

# ---- the drivers, linked with the project's objects -------------------------------------
if [ -z "${BUILD_DIR:-}" ]; then
	if [ -d build/san/reconcile ]; then BUILD_DIR=build/san; else BUILD_DIR=build/rel; fi
fi
PKGS="yaml-0.1 libcjson libcurl libgit2 openssl zlib"
CFLAGS_T="-std=c11 -D_POSIX_C_SOURCE=200809L -I. -Wall -Wextra -Wno-unused-parameter -g"
case $(basename "$BUILD_DIR") in
san*) CFLAGS_T="$CFLAGS_T -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" ;;
esac
LITE=$WORK/kubectl-lite
FAULTSRV=$WORK/faultsrv
# the library's objects: those of the tracked sources (not a glob, which
# would take a stale object of a module that has moved)
LIB_OBJS=
for f in $(git ls-files 'util/*.c' 'generator/*.c' 'git/*.c' 'http/*.c' 'kube/*.c' \
	'aws/*.c' 'reconcile/*.c'); do
	LIB_OBJS="$LIB_OBJS $BUILD_DIR/${f%.c}.o"
done
# shellcheck disable=SC2086 # word splitting intended
if ! out=$(cc $CFLAGS_T $(pkg-config --cflags $PKGS) -o "$LITE" tests/tools/kubectl-lite.c \
	$LIB_OBJS "$BUILD_DIR"/embedded.o $(pkg-config --libs $PKGS) -lm 2>&1) ||
	! out2=$(cc $CFLAGS_T -o "$FAULTSRV" tests/tools/faultsrv.c 2>&1); then
	t_abort "build the test drivers against $BUILD_DIR" "${out:-}${out2:-}"
fi

ALL_LOG=$WORK/all-output.log
UA="kubectl-lite/$$-$RANDOM"

# lite ARGS...: run the driver; output (stdout+stderr) in $OUT, status in $RC, time in $MS
lite() {
	local t0 t1
	t0=$(date +%s%N)
	OUT=$(timeout 120 "$LITE" --user-agent "$UA" "$@" 2>&1)
	RC=$?
	t1=$(date +%s%N)
	MS=$(((t1 - t0) / 1000000))
	printf '%s\n' "--- lite $*" "$OUT" >>"$ALL_LOG"
}
# counter NAME: a counter from the last run's "stats {...}" line
counter() { printf '%s\n' "$OUT" | sed -n "s/^stats .*\"$1\":\([0-9]*\).*/\1/p"; }
has() { printf '%s\n' "$OUT" | grep -qF -- "$1"; }
# check NAME 'CONDITION' (tests/lib.sh) shows this on a failure
t_detail() { printf 'condition: %s\nrc=%s %sms\n%s\n' "$1" "$RC" "$MS" "$OUT" | head -n 40; }

# ---- faultsrv: retries, Retry-After, timeouts, body cap, connection reuse --------------
FS_PID=''
fault_start() { # STEP...: start faultsrv, write $WORK/fault.kc pointing at it
	fault_stop
	"$FAULTSRV" "$WORK/fault.log" "$@" >"$WORK/fault.port" &
	FS_PID=$!
	local i port=''
	for ((i = 0; i < 50; i++)); do
		port=$(head -n1 "$WORK/fault.port" 2>/dev/null)
		[ -n "$port" ] && break
		sleep 0.1
	done
	cat >"$WORK/fault.kc" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: fault, cluster: {server: "http://127.0.0.1:$port"}}]
users: [{name: fault-user, user: {token: fault-token-$$}}]
contexts: [{name: fault, context: {cluster: fault, user: fault-user}}]
current-context: fault
EOF
}
fault_stop() {
	if [ -n "$FS_PID" ]; then
		kill "$FS_PID" 2>/dev/null
		wait "$FS_PID" 2>/dev/null
		FS_PID=''
	fi
}
t_on_exit fault_stop

fault_start 503:1 503:1
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" resource v1 ConfigMap
check "retry: two 503s (Retry-After: 1) then 200 -> success" '[ "$RC" = 0 ]'
check "retry: stats.retries == 2, requests == 3" \
	'[ "$(counter retries)" = 2 ] && [ "$(counter requests)" = 3 ]'
check "retry: Retry-After honoured (elapsed $MS ms >= 1900)" '[ "$MS" -ge 1900 ]'
check "retry: one connection reused for all 3 requests" \
	'[ "$(grep -c "^conn" "$WORK/fault.log")" = 1 ] && [ "$(grep -c "^req" "$WORK/fault.log")" = 3 ]'
check "retry: the bearer token was sent every time" \
	'[ "$(grep -c "auth=yes" "$WORK/fault.log")" = 3 ]'
check "discovery skips subresources (configmaps/status)" \
	'has "resource=configmaps namespaced=1" && [ "$(printf "%s\n" "$OUT" | grep -c "^group=")" = 1 ]'

# (a dropped connection first: on a reused connection libcurl itself would resend once)
fault_start close 429 200
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" resource v1 ConfigMap
check "retry: a dropped connection, then 429, then 200 -> success, jittered backoff ($MS ms)" \
	'[ "$RC" = 0 ] && [ "$(counter retries)" = 2 ] && [ "$MS" -lt 5000 ]'

fault_start 500 500 500 500
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" --retries 2 resource v1 ConfigMap
check "retry: gives up after --retries 2 with the server's message and status" \
	'[ "$RC" = 1 ] && [ "$(counter requests)" = 3 ] &&
	has "error ERR_HTTP: discovery of v1: the server is taking a break (500 Internal Server Error)"'

fault_start 503:30
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" --run-timeout-ms 3000 resource v1 ConfigMap
check "retry: a Retry-After beyond the run deadline is not waited for ($MS ms)" \
	'[ "$RC" = 1 ] && [ "$MS" -lt 2500 ] && has "(503 Service Unavailable)"'

fault_start hang
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" --timeout-ms 500 --retries 0 resource v1 ConfigMap
check "timeout: request timeout 500 ms ($MS ms)" \
	'[ "$RC" = 1 ] && [ "$MS" -lt 5000 ] &&
	has "no answer from the API server at http://127.0.0.1:" && has "within 500 ms"'

fault_start hang hang hang hang hang hang hang hang hang hang
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" --timeout-ms 700 --run-timeout-ms 1500 --retries 10 \
	resource v1 ConfigMap
check "timeout: the run deadline (1.5 s) bounds the retries ($MS ms)" \
	'[ "$RC" = 1 ] && [ "$MS" -lt 4000 ] && [ "$(counter retries)" -ge 1 ]'

fault_start big
lite --insecure-loopback-http --kubeconfig "$WORK/fault.kc" --max-body 1048576 resource v1 ConfigMap
check "body cap: a 2 MiB response with a 1 MiB cap fails cleanly" \
	'[ "$RC" = 1 ] && has "GET /api/v1: the response is larger than the limit of 1048576 bytes"'
fault_stop

# ---- the API server -----------------------------------------------------------------
t_testenv_start --no-crds   # (the CRDs are created below, after the not-installed checks)
unset KUBECONFIG            # every driver run names its kubeconfig
NS=kc-test-$$-$RANDOM
[ "$T_OWN_SERVER" = 1 ] ||
	t_on_exit "timeout 60 '$LITE' --kubeconfig '$KC' delete v1 Namespace - '$NS' >/dev/null 2>&1"

# discovery
lite --kubeconfig "$KC" resource v1 ConfigMap --and resource v1 Namespace \
	--and resource rbac.authorization.k8s.io/v1 Role --and resource v1 ConfigMap
check "discovery: core kinds (namespaced and not), a group kind" \
	'[ "$RC" = 0 ] && has "group= version=v1 kind=ConfigMap resource=configmaps namespaced=1" &&
	has "kind=Namespace resource=namespaces namespaced=0" &&
	has "group=rbac.authorization.k8s.io version=v1 kind=Role resource=roles namespaced=1"'
check "discovery: one request per group-version (cached)" '[ "$(counter requests)" = 2 ]'

lite --kubeconfig "$KC" resource v1 NoSuchKind
check "discovery: an unknown kind is ERR_NOTFOUND naming apiVersion and kind" \
	'[ "$RC" = 1 ] && has "error ERR_NOTFOUND: v1 NoSuchKind is not served by the API server at $SERVER"'

lite --kubeconfig "$KC" resource karpenter.sh/v1 NodePool --and resource kueue.x-k8s.io/v1beta1 LocalQueue
if has "resource=nodepools"; then
	echo "skip CRDs-missing messages: the shared server already has the CRDs"
else
	check "CRDs missing: 'the Karpenter CRDs are not installed'" \
		'has "error ERR_NOTFOUND: karpenter.sh/v1 NodePool is not served by the API server at $SERVER: the Karpenter CRDs are not installed"'
	check "CRDs missing: 'the Kueue CRDs are not installed'" \
		'has "error ERR_NOTFOUND: kueue.x-k8s.io/v1beta1 LocalQueue is not served by the API server at $SERVER: the Kueue CRDs are not installed"'
	if ! out=$(timeout 180 bash "$here/kube-testenv" crds "$ENV_DIR" \
		tests/fixtures/crds/karpenter.sh_nodepools.yaml \
		tests/fixtures/crds/kueue.x-k8s.io_localqueues.yaml 2>&1); then
		t_fail "create CRDs" "$out"
	fi
fi
lite --kubeconfig "$KC" resource karpenter.sh/v1 NodePool --and resource kueue.x-k8s.io/v1beta1 LocalQueue
check "discovery: CRD kinds once installed" \
	'[ "$RC" = 0 ] && has "group=karpenter.sh version=v1 kind=NodePool resource=nodepools namespaced=0" &&
	has "kind=LocalQueue resource=localqueues namespaced=1"'

# TLS: verified against the kubeconfig's CA only, unless insecure-skip-tls-verify
sed '/certificate-authority/s/, certificate-authority: "[^"]*"//' "$KC" >"$WORK/kc-noca"
lite --kubeconfig "$WORK/kc-noca" resource v1 ConfigMap
check "TLS: the self-signed server is refused without its CA" \
	'[ "$RC" = 1 ] && has "cannot talk to the API server" && has "certificate"'
sed 's/server: "\([^"]*\)"/server: "\1", insecure-skip-tls-verify: true/' "$WORK/kc-noca" >"$WORK/kc-insecure"
lite --kubeconfig "$WORK/kc-insecure" resource v1 ConfigMap
check "TLS: insecure-skip-tls-verify: true connects" '[ "$RC" = 0 ]'

# ---- objects -------------------------------------------------------------------------
j() { printf '%s\n' "$1" >"$WORK/$2"; }
j "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$NS\"}}" ns.json
j "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"one\",\"namespace\":\"$NS\"},\"data\":{\"k\":\"v\"}}" one.json
j "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dry\",\"namespace\":\"$NS\"},\"data\":{\"k\":\"v\"}}" dry.json
j "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"LocalQueue\",\"metadata\":{\"name\":\"lq\",\"namespace\":\"$NS\"},\"spec\":{\"clusterQueue\":\"cq\"}}" lq.json

lite --kubeconfig "$KC" apply "$WORK/ns.json" --and apply "$WORK/one.json" \
	--and apply --dry-run "$WORK/dry.json" --and get v1 ConfigMap "$NS" one \
	--and get v1 ConfigMap "$NS" dry --and apply "$WORK/lq.json" \
	--and get kueue.x-k8s.io/v1beta1 LocalQueue "$NS" lq
check "apply creates; get returns it" \
	'[ "$RC" = 0 ] && has "\"name\":\"one\",\"namespace\":\"$NS\"" && has "\"data\":{\"k\":\"v\"}"'
check "dry-run apply answers but does not create (get: absent)" \
	'has "applied ConfigMap/dry" && [ "$(printf "%s\n" "$OUT" | grep -cx absent)" = 1 ]'
check "apply and get of a namespaced CRD object" 'has "\"spec\":{\"clusterQueue\":\"cq\""'
check "stats: applies 3, dry_runs 1, writes 3, gets 5 (2 of them discovery)" \
	'[ "$(counter applies)" = 3 ] && [ "$(counter dry_runs)" = 1 ] &&
	[ "$(counter writes)" = 3 ] && [ "$(counter gets)" = 5 ]'

# label selectors ('=', ',', '!', spaces and parentheses must be encoded in the query)
{
	printf '['
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sel-1","namespace":"%s","labels":{"app":"a","tier":"x"}}},' "$NS"
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sel-2","namespace":"%s","labels":{"app":"a","tier":"y"}}},' "$NS"
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"sel-3","namespace":"%s","labels":{"app":"b","tier":"x"}}}' "$NS"
	printf ']\n'
} >"$WORK/sel.json"
lite --kubeconfig "$KC" apply "$WORK/sel.json" --and list v1 ConfigMap "$NS" "app=a,tier=x" \
	--and list v1 ConfigMap "$NS" "app=a" --and list v1 ConfigMap "$NS" "tier in (x),app!=a"
check "list: 'app=a,tier=x' -> 1, 'app=a' -> 2, 'tier in (x),app!=a' -> 1" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep "^count" | tr "\n" " ")" = "count 1 count 2 count 1 " ]'
check "list: the right objects, each with apiVersion and kind" \
	'[ "$(printf "%s\n" "$OUT" | grep -c "^$NS/sel-1")" = 2 ] && [ "$(printf "%s\n" "$OUT" | grep -c "^$NS/sel-2")" = 1 ] &&
	[ "$(printf "%s\n" "$OUT" | grep -c "^$NS/sel-3")" = 1 ] && ! has "items-without-apiVersion-or-kind"'

# pagination: 600 ConfigMaps applied by one process, listed in pages of 500
{
	printf '['
	for ((i = 0; i < 600; i++)); do
		((i)) && printf ','
		printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-%03d","namespace":"%s","labels":{"batch":"%s"}},"data":{"i":"%d"}}' "$i" "$NS" "$NS" "$i"
	done
	printf ']\n'
} >"$WORK/big.json"
lite --kubeconfig "$KC" apply "$WORK/big.json"
check "apply 600 ConfigMaps through one client ($MS ms)" '[ "$RC" = 0 ] && has "applied 600"'
lite --kubeconfig "$KC" list v1 ConfigMap "$NS" "batch=$NS"
check "list: 600 objects over 2 pages (continue followed)" \
	'[ "$RC" = 0 ] && has "count 600" && has "$NS/big-000" && has "$NS/big-599" &&
	[ "$(printf "%s\n" "$OUT" | grep -c "^$NS/big-")" = 600 ] && [ "$(counter lists)" = 2 ]'
lite --kubeconfig "$KC" list v1 ConfigMap - "batch=$NS"
check "list: all namespaces (no namespace) finds them too" '[ "$RC" = 0 ] && has "count 600"'

# delete: UID precondition, dry run, absent
lite --kubeconfig "$KC" get v1 ConfigMap "$NS" one
UID_ONE=$(printf '%s\n' "$OUT" | sed -n 's/.*"uid":"\([^"]*\)".*/\1/p' | head -n1)
lite --kubeconfig "$KC" delete v1 ConfigMap "$NS" one 00000000-0000-0000-0000-000000000000 \
	--and get v1 ConfigMap "$NS" one
check "delete with a wrong UID is ERR_CONFLICT and the object survives" \
	'[ "$RC" = 1 ] && [ -n "$UID_ONE" ] && has "error ERR_CONFLICT: delete ConfigMap/$NS/one: " &&
	has "the UID in the precondition" && has "\"uid\":\"$UID_ONE\""'
RV_ONE=$(printf '%s\n' "$OUT" | sed -n 's/.*"resourceVersion":"\([^"]*\)".*/\1/p' | head -n1)
# the resourceVersion precondition a prune sends: an object changed since it was listed
# (a label removed, say) is not deleted
lite --kubeconfig "$KC" delete v1 ConfigMap "$NS" one "$UID_ONE" 1 --and get v1 ConfigMap "$NS" one
check "delete with the right UID and a stale resourceVersion is ERR_CONFLICT and the object survives" \
	'[ "$RC" = 1 ] && [ -n "$RV_ONE" ] && [ "$RV_ONE" != 1 ] &&
	has "error ERR_CONFLICT: delete ConfigMap/$NS/one: " && has "\"uid\":\"$UID_ONE\""'
lite --kubeconfig "$KC" delete --dry-run v1 ConfigMap "$NS" one "$UID_ONE" "$RV_ONE" \
	--and get v1 ConfigMap "$NS" one \
	--and delete v1 ConfigMap "$NS" one "$UID_ONE" --and delete v1 ConfigMap "$NS" one \
	--and delete v1 ConfigMap "$NS" never-was
check "delete: dry run keeps it; the right UID deletes; absent is ok (deleted=0)" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep -E "^(deleted|absent)$" | tr "\n" " ")" = "deleted deleted absent absent " ] &&
	has "\"uid\":\"$UID_ONE\"" && [ "$(counter deletes)" = 3 ] && [ "$(counter dry_runs)" = 1 ]'

# 409: field-manager conflicts
j "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"shared\",\"namespace\":\"$NS\"},\"data\":{\"k\":\"from-a\",\"other\":\"a\"}}" shared-a.json
j "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"shared\",\"namespace\":\"$NS\"},\"data\":{\"k\":\"from-b\"}}" shared-b.json
lite --kubeconfig "$KC" apply --manager manager-a "$WORK/shared-a.json" \
	--and apply --manager manager-b "$WORK/shared-b.json" --and get v1 ConfigMap "$NS" shared
check "409: another manager without force is ERR_CONFLICT naming the field and manager" \
	'[ "$RC" = 1 ] && has "\"k\":\"from-a\"" &&
	has "error ERR_CONFLICT: conflict: ConfigMap/shared: field .data.k is managed by manager-a"'
lite --kubeconfig "$KC" apply --force --manager manager-b "$WORK/shared-b.json" \
	--and get v1 ConfigMap "$NS" shared
check "409: with force the other manager takes the field" '[ "$RC" = 0 ] && has "\"k\":\"from-b\""'

# 401: a wrong token
sed "s/$TOOL_TOKEN/deadbeef0000wrongtoken$$/" "$KC" >"$WORK/kc-bad"
lite --kubeconfig "$WORK/kc-bad" resource v1 ConfigMap
check "401: ERR_AUTH naming the server and the user, never the token" \
	'[ "$RC" = 1 ] && ! has "deadbeef0000wrongtoken" && ! has "$TOOL_TOKEN" &&
	has "error ERR_AUTH: the API server at $SERVER rejected the credentials of user '"'tool'"' (401 Unauthorized)"'

# 403: a ServiceAccount token (TokenRequest API) bound to a Role without patch
cat >"$WORK/rbac.json" <<RBAC_JSON
[{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"lite","namespace":"$NS"}},
 {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"reader","namespace":"$NS"},
  "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]},
 {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"lite-reader","namespace":"$NS"},
  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"},
  "subjects":[{"kind":"ServiceAccount","name":"lite","namespace":"$NS"}]}]
RBAC_JSON
j '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' tokreq.json
lite --kubeconfig "$KC" apply "$WORK/rbac.json" \
	--and raw POST "/api/v1/namespaces/$NS/serviceaccounts/lite/token" "" "$WORK/tokreq.json"
SA_TOKEN=$(printf '%s\n' "$OUT" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p' | head -n1)
check "TokenRequest through kube_request (raw POST): 201, a token; others 1, writes 4" \
	'[ "$RC" = 0 ] && has "status 201" && [ -n "$SA_TOKEN" ] && [ "$(counter others)" = 1 ] &&
	[ "$(counter writes)" = 4 ]'
sed "s/$TOOL_TOKEN/$SA_TOKEN/" "$KC" >"$WORK/kc-sa"
lite --kubeconfig "$WORK/kc-sa" get v1 ConfigMap "$NS" shared --and apply "$WORK/one.json"
check "403: the server's sentence (user, verb patch, resource) + (403 Forbidden), no token" \
	'[ "$RC" = 1 ] && has "\"k\":\"from-b\"" && has "(403 Forbidden)" && ! has "$SA_TOKEN" &&
	has "error ERR_AUTH: configmaps \"one\" is forbidden: User \"system:serviceaccount:$NS:lite\" cannot patch resource \"configmaps\""'

# in-cluster configuration against the real server (token + CA files, env)
mkdir -p "$WORK/sa"
printf '%s' "$SA_TOKEN" >"$WORK/sa/token"
cp "$ENV_DIR/tls.crt" "$WORK/sa/ca.crt"
printf '%s\n' "$NS" >"$WORK/sa/namespace"
PORT=${SERVER##*:}
OUT=$(GPUFORM_SERVICEACCOUNT_DIR=$WORK/sa KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT \
	timeout 60 "$LITE" --in-cluster config --and get v1 ConfigMap - shared 2>&1)
RC=$?
printf '%s\n' "--- in-cluster" "$OUT" >>"$ALL_LOG"
check "in-cluster: SA token + CA + KUBERNETES_SERVICE_HOST/PORT; namespace from the SA dir" \
	'[ "$RC" = 0 ] && has "user=system:serviceaccount:$NS:lite" && has "namespace=$NS" &&
	has "\"k\":\"from-b\""'

# token file: re-read when it changes
printf '%s\n' "$TOOL_TOKEN" >"$WORK/tokfile"
cp "$WORK/tokfile" "$WORK/tokfile.good"
sed "s|token: \"$TOOL_TOKEN\"|tokenFile: \"$WORK/tokfile\"|" "$KC" >"$WORK/kc-tokfile"
lite --kubeconfig "$WORK/kc-tokfile" get v1 ConfigMap "$NS" shared \
	--and run "printf 'wrong-token-rotated\n' >'$WORK/tokfile'" \
	--and get v1 ConfigMap "$NS" shared \
	--and run "cp '$WORK/tokfile.good' '$WORK/tokfile.new' && mv '$WORK/tokfile.new' '$WORK/tokfile'" \
	--and get v1 ConfigMap "$NS" shared
check "tokenFile: re-read after each change (ok, 401, ok)" \
	'[ "$RC" = 1 ] && [ "$(printf "%s\n" "$OUT" | grep -c "\"k\":\"from-b\"")" = 2 ] &&
	has "(401 Unauthorized)" && ! has "wrong-token-rotated"'

# exec credential plugin: cached until expirationTimestamp; asked again once on a 401
cat >"$WORK/plugin.sh" <<PLUGIN_SH
#!/bin/sh
# counts its runs in plugin.runs; the token is the first line of plugin.token, which
# then shifts by one line (the last line stays); the expiry is in plugin.exp
echo run >>"$WORK/plugin.runs"
exp=\$(cat "$WORK/plugin.exp" 2>/dev/null)
tok=\$(head -n1 "$WORK/plugin.token")
tail -n +2 "$WORK/plugin.token" >"$WORK/plugin.token.next"
if [ -s "$WORK/plugin.token.next" ]; then mv "$WORK/plugin.token.next" "$WORK/plugin.token"; fi
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"%s}}' "\$tok" "\${exp:+,\"expirationTimestamp\":\"\$exp\"}"
PLUGIN_SH
chmod 0755 "$WORK/plugin.sh"
sed "s|user: {token: \"$TOOL_TOKEN\"}|user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./plugin.sh}}|" \
	"$KC" >"$WORK/kc-exec"
printf '%s\n' "$TOOL_TOKEN" >"$WORK/plugin.token"
date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ >"$WORK/plugin.exp"
rm -f "$WORK/plugin.runs"
lite --kubeconfig "$WORK/kc-exec" resource v1 ConfigMap --and get v1 ConfigMap "$NS" shared \
	--and list v1 ConfigMap "$NS" app=a
check "exec: a token valid for an hour is fetched once for 3 requests" \
	'[ "$RC" = 0 ] && [ "$(wc -l <"$WORK/plugin.runs")" = 1 ] && [ "$(counter requests)" = 3 ]'
echo "2000-01-01T00:00:00Z" >"$WORK/plugin.exp"
rm -f "$WORK/plugin.runs"
lite --kubeconfig "$WORK/kc-exec" resource v1 ConfigMap --and get v1 ConfigMap "$NS" shared \
	--and list v1 ConfigMap "$NS" app=a
check "exec: an expired token is fetched again before every request" \
	'[ "$RC" = 0 ] && [ "$(wc -l <"$WORK/plugin.runs")" = 3 ]'
rm -f "$WORK/plugin.exp" "$WORK/plugin.runs"
printf 'revoked-token-%s\n%s\n' "$$" "$TOOL_TOKEN" >"$WORK/plugin.token"
lite --kubeconfig "$WORK/kc-exec" get v1 ConfigMap "$NS" shared
check "exec: a 401 makes the client ask the plugin once more" \
	'[ "$RC" = 0 ] && has "\"k\":\"from-b\"" && [ "$(wc -l <"$WORK/plugin.runs")" = 2 ] &&
	[ "$(counter retries)" = 1 ] && ! has "revoked-token"'

# the client's counts against what the server saw (audit log: user "tool", our user agent)
UA="kubectl-lite-audit/$$-$RANDOM"
lite --kubeconfig "$KC" resource v1 ConfigMap --and get v1 ConfigMap "$NS" shared \
	--and list v1 ConfigMap "$NS" "batch=$NS" --and apply "$WORK/shared-b.json" \
	--and apply --force --manager manager-b --dry-run "$WORK/shared-b.json" \
	--and delete v1 ConfigMap "$NS" sel-3 --and delete v1 ConfigMap "$NS" sel-3 \
	--and apply --manager manager-a "$WORK/shared-a.json"
audit_lines() { # ours, complete
	grep -F "\"userAgent\":\"$UA\"" "$ENV_DIR/audit.log" | grep -F '"stage":"ResponseComplete"' |
		grep -F '"user":{"username":"tool"'
}
audit_count() { audit_lines | grep -cF "\"verb\":\"$1"; } # VERB ('' = all)
want=$(counter requests)
for ((i = 0; i < 50; i++)); do
	[ "$(audit_count '')" = "$want" ] && break
	sleep 0.1
done
got=$(audit_count '')
check "audit: the server saw exactly stats.requests ($want) requests (got $got)" \
	'[ -n "$want" ] && [ "$got" = "$want" ] && [ "$want" = 9 ]'
check "audit: per verb: get $(audit_count 'get"'), list $(audit_count 'list"'), patch $(audit_count 'patch"'), delete $(audit_count 'delete"')" \
	'[ "$(audit_count "get\"")" = "$(counter gets)" ] && [ "$(audit_count "list\"")" = "$(counter lists)" ] &&
	[ "$(audit_count "patch\"")" = $(($(counter applies) + $(counter dry_runs))) ] &&
	[ "$(audit_count "delete\"")" = "$(counter deletes)" ] && [ "$(counter writes)" = 4 ]'
check "audit: the conflicting apply is a 409 there" \
	'audit_lines | grep -F "\"verb\":\"patch\"" | grep -qF "\"code\":409"'

# ---- sanitizers --------------------------------------------------------------------------
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any driver run" "$(grep -E -A5 'Sanitizer|runtime error' "$ALL_LOG" | head -40)"
else
	t_pass "no sanitizer reports in any driver run"
fi
t_summary
