#!/usr/bin/env bash
# tests/incluster.sh: the periodic in-cluster reconcile (`gpuform install`, `reconcile
# --lock --events --metrics-file --pushgateway`, the in-cluster configuration, the image
# layout) against a real kube-apiserver + etcd (tests/kube-testenv) whose RBAC authoriser
# decides every request of the installed ServiceAccount.
#
#   GPUFORM=build/san/gpuform bash tests/incluster.sh
#
# GPUFORM              the binary (default ./gpuform)
# GPUFORM_TESTENV_DIR  use that running testenv instead of starting one; it must not hold
#                      gpuform's clusters yet (ml-prod and the other examples)
# INCLUSTER_NO_IMAGE=1 skip the image-layout section (it builds the release variant)
#
# The gpuform runs under test use the in-cluster code path: a TokenRequest token for the
# rendered ServiceAccount and the server's CA in a temporary directory
# (GPUFORM_SERVICEACCOUNT_DIR), KUBERNETES_SERVICE_HOST/PORT pointing at the test server,
# no kubeconfig. kubectl acts as the admin. Closing line: "N passed, N failed".

# shellcheck disable=SC2016,SC2034,SC2317 # check conditions: single-quoted, eval'd later
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
# the CronJob's command line goes through libgit2: its known leaks, as in tests/reconcile-git.sh
export LSAN_OPTIONS="suppressions=$root/tests/git-servers/lsan.supp:${LSAN_OPTIONS:-}"

t_gpuform
PY=/usr/bin/python3
t_need kubectl jq curl "$PY"

WORK=
t_tmpdir WORK
ALL_LOG=$WORK/all-gpuform-runs.log
: >"$ALL_LOG"
NS=gpuform-system
CLUSTER=ml-prod
SA_NAME=gpuform-$CLUSTER
SA_USER=system:serviceaccount:$NS:$SA_NAME
SPEC=specs/ml-prod.yaml
INV=gpuform-$CLUSTER
HOST=$(hostname)
mkdir -p "$WORK/home" "$WORK/sa"

k() { timeout 60 kubectl --request-timeout=30s "$@"; }
has() { printf '%s\n' "$OUT" | gq -F -- "$1"; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
# (check, t_audit_*: tests/lib.sh)
# ic ARGS...: gpuform in the in-cluster configuration (no kubeconfig at all); OUT, ERR, RC
ic() {
	t_audit_mark
	OUT=$(env -u KUBECONFIG HOME="$WORK/home" GPUFORM_SERVICEACCOUNT_DIR="$WORK/sa" \
		KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$PORT" \
		timeout 120 "$GPUFORM" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $* (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
# ic_bg OUTFILE ARGS...: the same in the background; the pid of gpuform itself is in $!
# (IC_PORT: another port for KUBERNETES_SERVICE_PORT, the fault proxy's)
ic_bg() {
	local of=$1
	shift
	env -u KUBECONFIG HOME="$WORK/home" GPUFORM_SERVICEACCOUNT_DIR="$WORK/sa" \
		KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="${IC_PORT:-$PORT}" \
		"$GPUFORM" "$@" >"$of" 2>"$of.err" &
}
# A run that is in its middle holding the run lock comes from the fault proxy in front of
# the API server (TLS, the server's own certificate: the in-cluster configuration trusts
# it): rules 'hold-after' on the first request that is not the lock's own pass it on and
# answer only once the test says so (fp_go), so the run holds the lock exactly as long as
# the test needs.
# fp_hold [ACTION]: arm it (default hold-after), counters reset; fp_go: let it go on
FP_SEQ=0
fp_rules() { # RULE: the proxy's only rule (a new text each time: its counters restart)
	rm -f "$WORK/fp/rules.go"
	FP_SEQ=$((FP_SEQ + 1))
	printf '%s # %s\n' "$1" "$FP_SEQ" >"$WORK/fp/rules"
}
fp_hold() { fp_rules "* *!/leases/ 1 ${1:-hold-after}"; }
fp_go() { : >"$WORK/fp/rules.go"; }
# fp_wait_held: until the proxy holds a request (bounded); 1 if it never does
fp_wait_held() { t_faultproxy_wait "$WORK/fp" " -> ${1:-hold-after}\$"; }
# t_audit_all: the requests of the last ic run as the ServiceAccount, its run lock's
# included, read a second after the run (the audit log is written asynchronously)
T_AUDIT_USER=$SA_USER T_AUDIT_SETTLE=1
# http CODE-VAR METHOD PATH [BODY]: a raw request with the ServiceAccount's token
sa_http() {
	local method=$1 path=$2 body=${3:-}
	curl -sS -o "$WORK/http.out" -w '%{http_code}' --cacert "$WORK/sa/ca.crt" \
		-H "Authorization: Bearer $(cat "$WORK/sa/token")" -H 'Content-Type: application/json' \
		-X "$method" ${body:+--data "$body"} "$SERVER$path" 2>&1
}
lease_holder() { k get lease -n "$NS" "gpuform-$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
annotation() { k get configmap -n "$NS" "$INV" -o json | jq -r --arg a "$1" '.metadata.annotations[$a] // empty'; }
new_token() { # a TokenRequest token for the ServiceAccount (SA_FOR, NS_FOR) into the SA directory (SA_DIR)
	local t d=${SA_DIR:-$WORK/sa}
	t=$(k create token "${SA_FOR:-$SA_NAME}" -n "${NS_FOR:-$NS}" --duration 1h "$@" 2>&1) || { printf '%s\n' "$t"; return 1; }
	printf '%s' "$t" >"$d/token.new" && mv "$d/token.new" "$d/token"
}
install_for() { # CLUSTER: render and server-side apply the install manifests for it
	"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --ref main \
		--cluster "$1" --cronjob-api-version "$CRONJOB_API" >"$WORK/install-$1.yaml" 2>&1 &&
		k apply --server-side --field-manager gpuform-install -f "$WORK/install-$1.yaml" 2>&1
}

# ---- the API server ----------------------------------------------------------------------
t_testenv_start
# CronJob is batch/v1 from Kubernetes 1.21 (gpuform install's default); the 1.20 test
# server (KUBE_TESTENV_VERSION=1.20, kube-testenv's default) only serves batch/v1beta1
CRONJOB_API=batch/v1
case $(cat "$ENV_DIR/version" 2>/dev/null || echo 1.20.2) in 1.20.*) CRONJOB_API=batch/v1beta1 ;; esac
t_note "testenv: kube-apiserver $(cat "$ENV_DIR/version" 2>/dev/null || echo 1.20.2), CronJob $CRONJOB_API"
t_testenv_unused "$NS" "$INV"

# ==== 1. install: rendered, deterministic, derived RBAC, applies server-side ================
OUT=$("$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --ref main \
	--cluster $CLUSTER --cronjob-api-version "$CRONJOB_API" 2>&1)
RC=$?
OUT2=$("$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --ref main \
	--path clusters --cluster $CLUSTER --cronjob-api-version "$CRONJOB_API" 2>&1)
check "1: install renders (exit 0) and twice gives byte-identical output (--path clusters is the default)" \
	'[ "$RC" = 0 ] && [ -n "$OUT" ] && [ "$OUT" = "$OUT2" ]'
printf '%s\n' "$OUT" >"$WORK/install.yaml"
# issue 17: --path is the directory of the cluster directories, as for commit; the
# spelling before (--path clusters/NAME, no --cluster) still works, with a warning
OUT3=$("$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --ref main \
	--path clusters/$CLUSTER --cronjob-api-version "$CRONJOB_API" 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
check "1: the old spelling --path clusters/$CLUSTER: exit 0, the same manifests (the new arguments)" \
	'[ "$RC" = 0 ] && [ "$OUT3" = "$OUT" ]'
check "1: ... and one warning line naming the new spelling" \
	'[ "$(printf "%s\n" "$ERR" | wc -l)" = 1 ] &&
	has_err "warning: --path clusters/$CLUSTER names one cluster'"'"'s directory: that spelling is deprecated; use --path clusters --cluster $CLUSTER"'
OUT=$("$GPUFORM" install --git https://x.test/r.git --path clusters/a --cluster a 2>&1)
RC=$?
check "1: --path clusters/a with --cluster a: exit 2, one line saying what to drop" \
	'[ "$RC" = 2 ] && [ "$(printf "%s\n" "$OUT" | wc -l)" = 1 ] &&
	has "drop '"'"'/a'"'"' from --path (--path clusters --cluster a); see '"'"'gpuform install --help'"'"'"'
OUT=$("$GPUFORM" install --git https://x.test/r.git 2>&1)
RC=$?
check "1: neither --cluster nor --path: exit 2 asking for --cluster" \
	'[ "$RC" = 2 ] && has "--cluster NAME is required"'
OUT=$("$GPUFORM" install --git https://x.test/r.git --path a -o json 2>/dev/null | jq -r '.items[] | select(.kind == "CronJob") | .spec.jobTemplate.spec.template.spec.containers[0].args | join(" ")')
check "1: old spelling at the top of the repository (--path a): the job gets --path . --cluster a" \
	'printf "%s" "$OUT" | gq -F -- "--path . --cluster a --git-cache"'
# the install output passes gpuform's own lint; the control (a GPU request and a single-type
# GPU NodePool added to the same stream) shows lint does read these documents
OUT=$("$GPUFORM" lint --format json "$WORK/install.yaml" 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
check "1: the install manifests pass gpuform lint (exit 0, no finding of any severity)" \
	'[ "$RC" = 0 ] && [ "$(printf "%s" "$OUT" | jq ".findings | length")" = 0 ]'
sed 's/^\( *\)memory: \(.*\)$/\1memory: \2\n\1nvidia.com\/gpu: "1"/' "$WORK/install.yaml" >"$WORK/install-gpu.yaml"
OUT=$("$GPUFORM" lint --format json "$WORK/install-gpu.yaml" 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
check "1: control: the same CronJob asking for a GPU is linted (findings on its pod template)" \
	'grep -q "nvidia.com/gpu" "$WORK/install-gpu.yaml" && [ "$(printf "%s" "$OUT" | jq ".findings | length")" -gt 0 ]'
"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --cluster $CLUSTER \
	--cronjob-api-version "$CRONJOB_API" --format json >"$WORK/install.json" 2>&1
J=$WORK/install.json
kinds=$(jq -r '[.items[].kind] | join(",")' "$J" 2>/dev/null)
RC=- OUT=$kinds ERR=
check "1: objects in apply order: Namespace, ServiceAccount, ClusterRole(+Binding), Roles(+Bindings), CronJob" \
	'[ "$kinds" = "Namespace,ServiceAccount,ClusterRole,ClusterRoleBinding,Role,RoleBinding,Role,RoleBinding,CronJob" ]'

# the ClusterRole's resources are exactly the server's resources for the kinds gpuform renders
# (every example intent), plus pods and nodeclaims (read); nothing cluster-wide on ConfigMaps
rendered_kinds=$(for f in specs/*.yaml; do "$GPUFORM" render --format json "$f" 2>/dev/null; done |
	jq -r '.items[] | "\(.apiVersion) \(.kind) \(.metadata.namespace // "")"' | sort -u)
k api-resources --no-headers 2>/dev/null | awk '{ print $NF, $1, $(NF-2) }' >"$WORK/api-resources"
resource_of() { # API-VERSION KIND -> group/resource as discovery names it
	local group=${1%/*}
	[[ $1 == */* ]] || group=
	awk -v k="$2" -v av="$1" '$1 == k && $3 == av { print $2; exit }' "$WORK/api-resources" |
		sed "s|^|$group/|"
}
expected_cluster=$( {
	while read -r av kind ns; do
		[[ $kind == ConfigMap ]] && continue # kube-system only: a Role there
		resource_of "$av" "$kind"
	done <<<"$rendered_kinds"
	echo /configmaps # list only: every gpuform inventory (issue 21)
	echo /pods
	echo karpenter.sh/nodeclaims
} | sort -u)
got_cluster=$(jq -r '.items[] | select(.kind == "ClusterRole") | .rules[] | .apiGroups[0] as $g |
	.resources[] | "\($g)/\(.)"' "$J" | sort -u)
RC=- OUT=$got_cluster ERR=$expected_cluster
check "1: ClusterRole resources == discovery's resources of the rendered kinds + pods, nodeclaims, configmaps (list)" \
	'[ -n "$got_cluster" ] && [ "$got_cluster" = "$expected_cluster" ]'
OUT=$(jq -c '.items[] | select(.kind == "ClusterRole" or .kind == "Role") | {kind, ns: .metadata.namespace, rules}' "$J")
check "1: RBAC: no '*', secrets only in $NS (the ownership key by name), no delete on namespaces, pods/nodeclaims read-only, cluster-wide configmaps: list only" \
	'! printf "%s" "$OUT" | gq "\"\\*\"" &&
	[ "$(jq -c ".items[] | select(.kind == \"ClusterRole\" or .kind == \"Role\") | select(.metadata.namespace != \"$NS\") | .rules[] | select(.resources | index(\"secrets\"))" "$J")" = "" ] &&
	[ "$(jq -r ".items[] | select(.kind == \"ClusterRole\") | .rules[] | select(.resources | index(\"namespaces\")) | .verbs | index(\"delete\")" "$J")" = null ] &&
	[ "$(jq -c ".items[] | select(.kind == \"ClusterRole\") | .rules[] | select(.resources | index(\"pods\") or index(\"nodeclaims\")) | .verbs" "$J" | sort -u)" = "[\"get\",\"list\"]" ] &&
	[ "$(jq -c ".items[] | select(.kind == \"ClusterRole\") | .rules[] | select(.resources | index(\"configmaps\")) | .verbs" "$J")" = "[\"list\"]" ]'
check "1: Roles: $NS holds the inventory (get/patch by name, create), the ownership key Secret (get by name, create), the Lease (get/update by name, create), Events (create); kube-system the rendered ConfigMaps" \
	'[ "$(jq -c ".items[] | select(.kind == \"Role\" and .metadata.namespace == \"$NS\") | .rules" "$J")" = "[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\",\"events\",\"secrets\"],\"verbs\":[\"create\"]},{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":[\"$INV\"],\"verbs\":[\"get\",\"patch\"]},{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],\"resourceNames\":[\"$INV-owner-key\"],\"verbs\":[\"get\"]},{\"apiGroups\":[\"coordination.k8s.io\"],\"resources\":[\"leases\"],\"verbs\":[\"create\"]},{\"apiGroups\":[\"coordination.k8s.io\"],\"resources\":[\"leases\"],\"resourceNames\":[\"$INV\"],\"verbs\":[\"get\",\"update\"]}]" ] &&
	[ "$(jq -c ".items[] | select(.kind == \"Role\" and .metadata.namespace == \"kube-system\") | .rules[].resources" "$J")" = "[\"configmaps\"]" ]'
CJ=$(jq -c '.items[] | select(.kind == "CronJob")' "$J")
OUT=$CJ
check "1: CronJob: Forbid, deadlines, backoff, OnFailure, non-root, read-only root, requests, Git Secret, reconcile --git --lock --events" \
	'[ "$(jq -r .spec.concurrencyPolicy <<<"$CJ")" = Forbid ] &&
	[ "$(jq -r .spec.startingDeadlineSeconds <<<"$CJ")" -gt 0 ] &&
	[ "$(jq -r .spec.jobTemplate.spec.activeDeadlineSeconds <<<"$CJ")" -gt 0 ] &&
	[ "$(jq -r .spec.jobTemplate.spec.backoffLimit <<<"$CJ")" -ge 1 ] &&
	[ "$(jq -r .spec.jobTemplate.spec.template.spec.restartPolicy <<<"$CJ")" = OnFailure ] &&
	[ "$(jq -r .spec.jobTemplate.spec.template.spec.securityContext.runAsNonRoot <<<"$CJ")" = true ] &&
	[ "$(jq -r ".spec.jobTemplate.spec.template.spec.containers[0].securityContext | .readOnlyRootFilesystem, .allowPrivilegeEscalation, .capabilities.drop[0]" <<<"$CJ" | tr "\n" " ")" = "true false ALL " ] &&
	[ "$(jq -r ".spec.jobTemplate.spec.template.spec.containers[0].resources.requests | .cpu, .memory" <<<"$CJ" | tr "\n" " ")" = "100m 128Mi " ] &&
	[ "$(jq -r ".spec.jobTemplate.spec.template.spec.containers[0].envFrom[0].secretRef.name" <<<"$CJ")" = gpuform-git ] &&
	[ "$(jq -r ".spec.jobTemplate.spec.template.spec.serviceAccountName" <<<"$CJ")" = "$SA_NAME" ] &&
	[ "$(jq -r ".spec.jobTemplate.spec.template.spec.containers[0].args | join(\" \")" <<<"$CJ")" = "reconcile --git https://127.0.0.1:9/platform/gitops.git --ref main --path clusters --cluster $CLUSTER --git-cache /var/cache/gpuform/git --lock --events --held-exit-code 0 --timeout 300s" ]'
# the CronJob's command line is one gpuform accepts (parsed for real: a usage error is exit 2)
ARGS=$(jq -r '.spec.jobTemplate.spec.template.spec.containers[0].args[]' <<<"$CJ")
mapfile -t argv <<<"$ARGS"
OUT=$(env -u KUBECONFIG HOME="$WORK/home" timeout 30 "$GPUFORM" "${argv[@]}" 2>&1)
RC=$?
check "1: the CronJob's arguments parse (no usage error; fails later at the Git fetch, nothing listens on 127.0.0.1:9: exit 4)" \
	'[ "$RC" = 4 ] && ! has "invalid option"'

OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --schedule 'every minute' 2>&1)
RC=$?
check "1: a bad schedule: exit 3 naming it" '[ "$RC" = 3 ] && has "schedule" && has "every minute"'
OUT=$("$GPUFORM" install --cluster a 2>&1)
RC=$?
check "1: no --git: usage error, exit 2" '[ "$RC" = 2 ] && has "--git"'
OUT=$("$GPUFORM" install --git ssh://git@git.example.test/gitops.git --cluster a --git-secret gitops-ssh --format json 2>&1)
RC=$?
check "1: an SSH URL: the Secret is also mounted (key, known_hosts) and GPUFORM_GIT_SSH_* point there" \
	'[ "$RC" = 0 ] && [ "$(jq -r ".items[] | select(.kind == \"CronJob\") | .spec.jobTemplate.spec.template.spec.volumes[] | select(.secret) | .secret.secretName" <<<"$OUT")" = gitops-ssh ] &&
	has "GPUFORM_GIT_SSH_KEY" && has "GPUFORM_GIT_SSH_KNOWN_HOSTS"'

# --image (issue 26): a registry tag or a digest is rendered as given; a bad reference is
# refused naming it; --git-cache-pvc mounts the claim where the Git cache and HOME live
DIGEST=registry.example.test/platform/gpuform@sha256:$(printf '%064d' 0 | tr 0 a)
for img in registry.example.test:5000/platform/gpuform:0.1.0 "$DIGEST"; do
	OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --image "$img" -o json 2>&1)
	RC=$?
	check "1: --image $img: the CronJob's container runs exactly that image" \
		'[ "$RC" = 0 ] && [ "$(jq -r ".items[] | select(.kind == \"CronJob\") | .spec.jobTemplate.spec.template.spec.containers[0].image" <<<"$OUT")" = "$img" ]'
done
for img in 'gpuform@sha256:abc' 'gpuform:' 'two words'; do
	OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --image "$img" 2>&1)
	RC=$?
	check "1: --image '$img': exit 3, names it and the accepted forms" \
		'[ "$RC" = 3 ] && has "image '"'"'$img'"'"' is not an image reference (REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:"'
done
OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a -o json 2>&1)
check "1: without --image: gpuform:$(cat VERSION), the name make image gives" \
	'[ "$(jq -r ".items[] | select(.kind == \"CronJob\") | .spec.jobTemplate.spec.template.spec.containers[0].image" <<<"$OUT")" = "gpuform:$(cat VERSION)" ]'
check "1: without --git-cache-pvc: the Git cache is an emptyDir" \
	'[ "$(jq -c ".items[] | select(.kind == \"CronJob\") | .spec.jobTemplate.spec.template.spec.volumes[] | select(.name == \"cache\")" <<<"$OUT")" = "{\"name\":\"cache\",\"emptyDir\":{}}" ]'
OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --git-cache-pvc gpuform-git-cache -o json 2>&1)
check "1: --git-cache-pvc gpuform-git-cache: the cache volume (git-cache) is that claim, mounted at /var/cache/gpuform, no emptyDir for it" \
	'[ "$(jq -c ".items[] | select(.kind == \"CronJob\") | .spec.jobTemplate.spec.template.spec | [(.volumes[] | select(.name == \"git-cache\")), (.containers[0].volumeMounts[] | select(.name == \"git-cache\") | .mountPath), ([.volumes[] | select(.name == \"cache\")] | length)]" <<<"$OUT")" = "[{\"name\":\"git-cache\",\"persistentVolumeClaim\":{\"claimName\":\"gpuform-git-cache\"}},\"/var/cache/gpuform\",0]" ]'
OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --git-cache-pvc 'Bad_Name' 2>&1)
RC=$?
check "1: --git-cache-pvc Bad_Name: exit 3, not a claim name" \
	'[ "$RC" = 3 ] && has "--git-cache-pvc '"'"'Bad_Name'"'"' is not a PersistentVolumeClaim name"'

# -o DIR: the atomic directory writer, with kustomization.yaml
"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --ref main --cluster $CLUSTER \
	--cronjob-api-version "$CRONJOB_API" --output-dir "$WORK/install-dir" >/dev/null 2>&1
RC=$?
OUT=$(cd "$WORK/install-dir" 2>/dev/null && ls)
check "1: -o DIR: one file per object + kustomization.yaml (generated-by marker)" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | wc -l)" = 10 ] && has cronjob-gpuform-$CLUSTER.yaml &&
	head -n1 "$WORK/install-dir/kustomization.yaml" | gq "^# generated by gpuform"'
mkdir -p "$WORK/not-ours" && echo keep >"$WORK/not-ours/file"
OUT=$("$GPUFORM" install --git https://x.test/r.git --cluster a --output-dir "$WORK/not-ours" 2>&1)
RC=$?
check "1: -o DIR never replaces a directory gpuform did not write" \
	'[ "$RC" != 0 ] && [ "$(cat "$WORK/not-ours/file")" = keep ]'

OUT=$(k apply --server-side --field-manager gpuform-install -f "$WORK/install.yaml" 2>&1)
RC=$?
check "1: the install manifests apply server-side to the test API server (9 objects)" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep -c "serverside-applied")" = 9 ]'
# the API server accepts the CronJob with a pinned digest and the cache claim (dry run)
"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --cluster $CLUSTER \
	--cronjob-api-version batch/v1beta1 --image "$DIGEST" --git-cache-pvc gpuform-git-cache \
	--format json 2>/dev/null | jq '.items[] | select(.kind == "CronJob")' >"$WORK/cronjob-pvc.json"
OUT=$(k apply --server-side --dry-run=server --field-manager gpuform-install -o json \
	-f "$WORK/cronjob-pvc.json" 2>"$WORK/stderr")
RC=$? ERR=$(cat "$WORK/stderr")
OUT=$(jq -r '.spec.jobTemplate.spec.template.spec | .containers[0].image, ([.volumes[] | select(.emptyDir)] | length), (.volumes[] | select(.name == "git-cache") | .persistentVolumeClaim.claimName)' <<<"$OUT" 2>&1 | tr '\n' ' ')
check "1: applied over the installed CronJob (server-side dry run), --image @sha256 and --git-cache-pvc: the claim replaces the emptyDir" \
	'[ "$RC" = 0 ] && [ "$OUT" = "$DIGEST 1 gpuform-git-cache " ]'
OUT=$(k get cronjob -n "$NS" "gpuform-$CLUSTER" -o json | jq -r '.spec.concurrencyPolicy, .spec.jobTemplate.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem' | tr '\n' ' ')
check "1: ... and the server kept the CronJob's settings (Forbid, read-only root)" '[ "$OUT" = "Forbid true " ]'
OUT=$(k apply --server-side --field-manager gpuform-install -k "$WORK/install-dir" 2>&1)
RC=$?
check "1: the -o directory applies too (kubectl apply --server-side -k), the same 9 objects" \
	'[ "$RC" = 0 ] && [ "$(printf "%s\n" "$OUT" | grep -c "serverside-applied")" = 9 ]'

# ==== 2. the in-cluster code path reconciles the example with a TokenRequest token =========
cp "$ENV_DIR/tls.crt" "$WORK/sa/ca.crt"
printf '%s\n' "$NS" >"$WORK/sa/namespace"
out=$(new_token) || t_abort "2: a token for $NS/$SA_NAME from the TokenRequest API" "$out"
N_OBJ=$("$GPUFORM" render --format json "$SPEC" | jq '.items | length')
ic reconcile --lock --events "$SPEC"
check "2: in-cluster (SA dir + KUBERNETES_SERVICE_HOST/PORT, no kubeconfig): $SPEC reconciled, all $N_OBJ created" \
	'[ "$RC" = 0 ] && has "reconciled $CLUSTER: 0 node-replacing changes, 0 may disrupt, $N_OBJ no node effect; $N_OBJ created, 0 configured, 0 unchanged"'
A=$(t_audit_all)
OUT=$A
check "2: the server saw the run as $SA_USER, and none of its requests was refused (no 401/403)" \
	'[ "$(printf "%s\n" "$A" | grep -c .)" -ge "$N_OBJ" ] && ! printf "%s\n" "$A" | cut -f2 | gq -vE "^(200|201|404)$"'
ic reconcile --lock --events -o json "$SPEC"
check "2: second in-cluster run: all $N_OBJ unchanged, no object written" \
	'[ "$RC" = 0 ] && [ "$(printf "%s" "$OUT" | jq .counts.unchanged)" = "$N_OBJ" ]'

# the CronJob's own command line, from Git (a local bare repository written by `gpuform
# commit`), with only the URL and the cache directory swapped for the test's
git init -q --bare "$WORK/gitops.git" &&
	"$GPUFORM" commit --repo "$WORK/gitops.git" --branch main --author 'Test <t@example.test>' \
		"$SPEC" >/dev/null 2>&1
COMMIT=$(git --git-dir="$WORK/gitops.git" rev-parse main 2>/dev/null)
"$GPUFORM" install --git "$WORK/gitops.git" --cluster $CLUSTER --format json \
	--cronjob-api-version "$CRONJOB_API" >"$WORK/install-local.json" 2>/dev/null
mapfile -t argv < <(jq -r '.items[] | select(.kind == "CronJob") |
	.spec.jobTemplate.spec.template.spec.containers[0].args[]' "$WORK/install-local.json" |
	sed "s|^/var/cache/gpuform/git$|$WORK/git-cache|")
ic "${argv[@]}"
check "2: the CronJob's command line (reconcile --git ... --lock --events) from Git: exit 0, all unchanged, commit ${COMMIT:0:12}" \
	'[ -n "$COMMIT" ] && [ "${#argv[@]}" -ge 10 ] && [ "$RC" = 0 ] &&
	has "reconciled $CLUSTER: 0 created, 0 configured, $N_OBJ unchanged" && has "from commit $COMMIT"'
OUT=$(annotation gpuform.io/last-source-commit)
check "2: ... and the inventory's status names the commit" '[ "$OUT" = "$COMMIT" ]'
# a CronJob installed before issue 17 runs reconcile --git ... --path clusters/NAME (no
# --cluster): it keeps reconciling, with one deprecation warning
mapfile -t oldargv < <(printf '%s\n' "${argv[@]}" | awk -v c="$CLUSTER" '
	prev == "--path" { print "clusters/" c; prev = ""; next }
	$0 == "--cluster" { skip = 1; next }
	skip { skip = 0; next }
	{ print; prev = $0 }')
ic "${oldargv[@]}"
check "2: an old CronJob's command line (--path clusters/$CLUSTER, no --cluster): exit 0, all unchanged, one warning" \
	'printf "%s " "${oldargv[@]}" | gq -F -- "--path clusters/$CLUSTER --git-cache" &&
	! printf "%s " "${oldargv[@]}" | gq -F -- "--cluster" && [ "$RC" = 0 ] &&
	has "reconciled $CLUSTER: 0 created, 0 configured, $N_OBJ unchanged" &&
	[ "$(printf "%s\n" "$ERR" | grep -c "deprecated; use --path clusters --cluster $CLUSTER")" = 1 ]'

# ==== 3. least privilege, decided by the real RBAC authoriser ==============================
declare -A want_forbidden=(
	["GET /api/v1/namespaces/kube-system/secrets"]=
	["GET /api/v1/namespaces/default/secrets/any"]=
	["GET /api/v1/secrets"]=
	["GET /api/v1/namespaces/$NS/secrets"]=
	["GET /api/v1/namespaces/$NS/secrets/gpuform-git"]=
	["GET /api/v1/namespaces/$NS/secrets/gpuform-other-owner-key"]=
	["DELETE /api/v1/namespaces/$NS/secrets/$INV-owner-key"]=
	["PUT /api/v1/namespaces/$NS/secrets/$INV-owner-key"]='{}'
	["GET /api/v1/namespaces/default/configmaps/any"]=
	["POST /api/v1/namespaces/default/configmaps"]='{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}'
	["GET /apis/apps/v1/deployments"]=
	["POST /apis/apps/v1/namespaces/default/deployments"]='{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}'
	["GET /apis/rbac.authorization.k8s.io/v1/clusterroles"]=
	["POST /apis/rbac.authorization.k8s.io/v1/clusterroles"]='{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"x"},"rules":[]}'
	["PATCH /apis/rbac.authorization.k8s.io/v1/namespaces/$NS/roles/$SA_NAME"]='{}'
	["DELETE /api/v1/namespaces/research"]=
	["DELETE /api/v1/namespaces/$NS"]=
	["GET /api/v1/nodes"]=
	["DELETE /api/v1/namespaces/default/pods/x"]=
	["PUT /apis/coordination.k8s.io/v1/namespaces/$NS/leases/someone-else"]='{}'
	["GET /api/v1/namespaces/$NS/configmaps/someone-else"]=
)
bad=
for req in "${!want_forbidden[@]}"; do
	code=$(sa_http ${req% *} "${req#* }" "${want_forbidden[$req]}")
	[[ $code == 403 ]] || bad+="$req -> $code$(head -c 200 "$WORK/http.out")"$'\n'
done
RC=- OUT=$bad ERR=
check "3: the installed token gets 403 Forbidden for Secrets (any namespace; in its own all but its ownership key), reading or writing ConfigMaps outside its own, Deployments, ClusterRoles, its own RBAC, deleting Namespaces, Nodes, other Leases (${#want_forbidden[@]} requests)" \
	'[ -z "$bad" ]'
code_ok=$(sa_http GET /apis/karpenter.sh/v1/nodepools)
code_pods=$(sa_http GET /api/v1/pods)
code_nc=$(sa_http GET /apis/karpenter.sh/v1/nodeclaims)
code_inv=$(sa_http GET '/api/v1/configmaps?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dgpuform')
code_key=$(sa_http GET "/api/v1/namespaces/$NS/secrets/$INV-owner-key")
RC=- OUT="nodepools $code_ok pods $code_pods nodeclaims $code_nc inventories $code_inv key $code_key" ERR=
check "3: ... while the same token may list NodePools, Pods, NodeClaims and every namespace's inventories, and read its ownership key (the 403s are RBAC, not a bad token)" \
	'[ "$code_ok" = 200 ] && [ "$code_pods" = 200 ] && [ "$code_nc" = 200 ] && [ "$code_inv" = 200 ] && [ "$code_key" = 200 ]'
OUT=$(k get namespace research -o name 2>&1)
check "3: namespace research still exists" '[ "$OUT" = "namespace/research" ]'

# ==== 4. the run lock ========================================================================
FP_TLS=1 t_faultproxy_start "$WORK/fp" 2>"$WORK/fp.err" ||
	t_abort "tests/tools/faultproxy.c (TLS) in front of the API server" "$(cat "$WORK/fp.err")"
# two runs started together; the one that takes the lock is held (fault proxy) after its
# first request past the lock until the other has finished: a long run
fp_hold
t_audit_mark
IC_PORT=$FP_PORT ic_bg "$WORK/run1" reconcile --lock "$SPEC"
p1=$!
IC_PORT=$FP_PORT ic_bg "$WORK/run2" reconcile --lock "$SPEC"
p2=$!
fp_wait_held || t_fail "4: the fault proxy holds the run that took the lock"
wait -n "$p1" "$p2"
fp_go
wait "$p1"; rc1=$?
wait "$p2"; rc2=$?
cat "$WORK/run1" "$WORK/run1.err" "$WORK/run2" "$WORK/run2.err" >>"$ALL_LOG"
o1=$(cat "$WORK/run1") o2=$(cat "$WORK/run2")
n_rec=$(cat "$WORK/run1" "$WORK/run2" | grep -c "^reconciled $CLUSTER:")
if grep -q "^reconciled" "$WORK/run1"; then winner=$p1 loser_out=$o2; else winner=$p2 loser_out=$o1; fi
RC="$rc1 $rc2" OUT="$o1"$'\n---\n'"$o2" ERR=$(cat "$WORK/run1.err" "$WORK/run2.err")
check "4: two runs started together: both exit 0, exactly one reconciles" \
	'[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ "$n_rec" = 1 ]'
check "4: ... the other says the lock is held and names the holder ($HOST/$winner)" \
	'printf "%s\n" "$loser_out" | gq -F "not reconciling $CLUSTER: the run lock (Lease $NS/$INV) is held by $HOST/$winner"'
OUT=$(lease_holder "$CLUSTER")
check "4: the lock is released at the end (no holderIdentity)" '[ -z "$OUT" ]'

# a run killed while it holds the lock (lease duration 6 s; held by the proxy)
fp_hold
IC_PORT=$FP_PORT ic_bg "$WORK/killed" reconcile --lock --lock-duration 6s "$SPEC"
pk=$!
fp_wait_held
OUT=$(lease_holder "$CLUSTER")
check "4: the run to be killed holds the lock ($HOST/$pk)" '[ "$OUT" = "$HOST/$pk" ]'
kill -9 "$pk" 2>/dev/null
wait "$pk" 2>/dev/null
t_kill=$(date +%s.%N)
ic reconcile --lock "$SPEC"
check "4: right after the kill the lease is still live: exit 0, not reconciled, holder $HOST/$pk named" \
	'[ "$RC" = 0 ] && has "is held by $HOST/$pk" && ! has "reconciled $CLUSTER"'
ic reconcile --lock -o json --metrics-file "$WORK/locked.prom" "$SPEC"
LP=$("$PY" "$here/tools/promparse.py" "$WORK/locked.prom" 2>&1)
check "4: ... with -o json: a JSON object naming the holder; metrics count the run as locked" \
	'[ "$RC" = 0 ] && [ "$(printf "%s" "$OUT" | jq -r .locked.holder)" = "$HOST/$pk" ] &&
	printf "%s\n" "$LP" | gq -x "gpuform_runs_total{cluster=\"$CLUSTER\",result=\"locked\"} 1" &&
	printf "%s\n" "$LP" | gq -x "gpuform_last_run_success{cluster=\"$CLUSTER\"} 1"'
sleep "$(awk -v t="$t_kill" -v now="$(date +%s.%N)" 'BEGIN { d = t + 6.5 - now; print (d > 0 ? d : 0) }')"
ic reconcile --lock "$SPEC"
check "4: after its duration the stale lease is taken over: exit 0, reconciled, 'took over ... from $HOST/$pk'" \
	'[ "$RC" = 0 ] && has "reconciled $CLUSTER: 0 created" && has_err "took over the stale run lock" && has_err "from $HOST/$pk"'
OUT=$(k get lease -n "$NS" "$INV" -o json | jq -r '(.spec.holderIdentity // "none"), .spec.leaseTransitions')
check "4: ... and released it again (no holder; leaseTransitions counted)" \
	'[ "$(printf "%s\n" "$OUT" | head -n1)" = none ] && [ "$(printf "%s\n" "$OUT" | tail -n1)" -ge 2 ]'
# the update that takes a lease over carries the resourceVersion read: a concurrent change wins
A=$(t_audit_all | grep "/leases/$INV")
OUT=$A
check "4: the lock is taken by an update of the Lease (audit: get, update by $SA_USER)" \
	'printf "%s\n" "$A" | gq "^get" && printf "%s\n" "$A" | gq "^update	200"'

# a renewTime in the far future (a holder's clock off by decades, or a hostile edit) does not
# hold the lock for years: beyond the skew bound the lease is judged by when the API server
# saw it written (issue 21 item 6). Written with a 1 s duration, then 2 s pass: stale.
k apply -f - >/dev/null <<EOF
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: $INV, namespace: $NS}
spec: {holderIdentity: clock-far-ahead/1, leaseDurationSeconds: 1, renewTime: "2099-01-01T00:00:00.000000Z"}
EOF
[[ $(lease_holder "$CLUSTER") == clock-far-ahead/1 ]] || t_abort "a Lease held by clock-far-ahead/1, renewed 2099"
sleep 2
ic reconcile --lock "$SPEC"
check "lease_far_future_renew_not_trusted: a lease renewed in 2099 (duration 1 s, written 2 s ago) is taken over: exit 0, reconciled" \
	'[ "$RC" = 0 ] && has "reconciled $CLUSTER:" && has_err "took over the stale run lock" && has_err "from clock-far-ahead/1"'
# a run longer than --lock-duration renews the lease as it goes (client-go renews at a
# fraction of the duration): 3 s lock, the run's first request past the lock answered 2 s
# late (fault proxy, 'delay-after 2000'), before the run writes anything, so a renewal is
# due before its first write
for kd in resourceflavors clusterqueues localqueues workloadpriorityclasses; do
	k delete "$kd.kueue.x-k8s.io" -A -l "gpuform.io/cluster=$CLUSTER" >/dev/null 2>&1
done
fp_rules "* *!/leases/ 1 delay-after 2000"
t_audit_mark
IC_PORT=$FP_PORT ic_bg "$WORK/long" reconcile --lock --lock-duration 3s "$SPEC"
wait $!
RC=$?
OUT=$(cat "$WORK/long") ERR=$(cat "$WORK/long.err")
printf '%s\n' "--- gpuform reconcile --lock --lock-duration 3s (delayed; rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
fp_rules "# pass"
A=$(t_audit_all | grep "/leases/$INV")
NUPD=$(printf '%s\n' "$A" | grep -c "^update	200")
OUT="$OUT
$A"
check "lease_renewed_during_long_run: --lock-duration 3s, a run of more than 3 s: exit 0, the lease updated $NUPD times (take, renew, release: >= 3)" \
	'[ "$RC" = 0 ] && has "reconciled $CLUSTER:" && [ "$NUPD" -ge 3 ]'

# ==== 5. events, status and metrics after a run with drift ================================
k patch nodepool llm-pretrain --type merge --field-manager kubectl-edit \
	-p '{"spec":{"limits":{"nvidia.com/gpu":"999"}}}' >/dev/null
mkdir -p "$WORK/sink"
"$PY" "$here/tools/httpsink.py" "$WORK/sink" 2>/dev/null &
SINK_PID=$!
t_on_exit "kill $SINK_PID 2>/dev/null"
for ((i = 0; i < 50; i++)); do [[ -f $WORK/sink/port ]] && break; sleep 0.1; done
SINK_PORT=$(cat "$WORK/sink/port" 2>/dev/null)
T0=$(date -u +%s)
ic reconcile --lock --events --metrics-file "$WORK/metrics.prom" --pushgateway "http://127.0.0.1:$SINK_PORT/" "$SPEC"
check "5: a run with drift (llm-pretrain limit edited): exit 0, 1 configured" \
	'[ "$RC" = 0 ] && has "nodepool.karpenter.sh/llm-pretrain configured" && has "reconciled $CLUSTER: 0 node-replacing changes, 0 may disrupt, 1 no node effect; 0 created, 1 configured"'
EV=$(k get events -n "$NS" --field-selector "involvedObject.name=$INV,reason=DriftCorrected" -o json |
	jq -r '.items[] | "\(.type) \(.involvedObject.kind) \(.involvedObject.uid != null) \(.source.component) \(.message)"')
OUT=$EV
check "5: a DriftCorrected Event on the inventory ConfigMap (Normal, with uid, source gpuform) naming nodepool llm-pretrain" \
	'printf "%s\n" "$EV" | gq "^Normal ConfigMap true gpuform 1 object changed back to the desired state: nodepool.karpenter.sh/llm-pretrain$"'
OUT=$(k get configmap -n "$NS" "$INV" -o json | jq -c '.metadata.annotations | with_entries(select(.key | startswith("gpuform.io/")))')
last_run=$(annotation gpuform.io/last-run)
lr_s=$(date -u -d "$last_run" +%s 2>/dev/null || echo 0)
check "5: status on the inventory: last-result success, counts (configured=1), last-run now, run-by, message, duration" \
	'[ "$(annotation gpuform.io/last-result)" = success ] &&
	annotation gpuform.io/last-counts | gq "configured=1" &&
	[ "$lr_s" -ge $((T0 - 2)) ] && [ "$lr_s" -le $(($(date -u +%s) + 1)) ] &&
	annotation gpuform.io/last-run-by | gq "^$HOST/[0-9]*$" &&
	annotation gpuform.io/last-message | gq "1 configured" &&
	annotation gpuform.io/last-duration | gq -E "^[0-9]+\.[0-9]{3}s$"'
OUT=$(k get configmap -n "$NS" "$INV" -o json --show-managed-fields | jq -r '.metadata.managedFields[] | "\(.manager) \(.operation)"' | sort | tr '\n' ' ')
check "5: the status is written by its own field manager (gpuform-status), apart from gpuform's apply" \
	'has "gpuform Apply" && has "gpuform-status Update"'
P=$("$PY" "$here/tools/promparse.py" "$WORK/metrics.prom" 2>&1)
PRC=$?
OUT=$P RC=$PRC
val() { printf '%s\n' "$P" | awk -v s="$1" 'index($0, s " ") == 1 { print $NF }'; }
check "5: the metrics file parses as Prometheus text format (strict parser: HELP/TYPE, names, escapes, no duplicates)" \
	'[ "$PRC" = 0 ] && [ "$(printf "%s\n" "$P" | grep -c .)" -ge 20 ]'
check "5: metrics: runs_total{success}=1, drift corrected 1, objects{configured}=1, unchanged=$((N_OBJ - 1)), API requests, errors 0, duration" \
	'[ "$(val "gpuform_runs_total{cluster=\"$CLUSTER\",result=\"success\"}")" = 1 ] &&
	[ "$(val "gpuform_drift_corrected_objects{cluster=\"$CLUSTER\"}")" = 1 ] &&
	[ "$(val "gpuform_objects{cluster=\"$CLUSTER\",result=\"configured\"}")" = 1 ] &&
	[ "$(val "gpuform_objects{cluster=\"$CLUSTER\",result=\"unchanged\"}")" = $((N_OBJ - 1)) ] &&
	[ "$(val "gpuform_api_requests{cluster=\"$CLUSTER\",type=\"list\"}")" -ge 1 ] &&
	[ "$(val "gpuform_errors_total{cluster=\"$CLUSTER\"}")" = 0 ] &&
	[ "$(val "gpuform_last_run_success{cluster=\"$CLUSTER\"}")" = 1 ] &&
	[ -n "$(val "gpuform_run_duration_seconds{cluster=\"$CLUSTER\"}")" ]'
OUT=$(cat "$WORK/sink/requests" 2>/dev/null)
check "5: Pushgateway: one PUT /metrics/job/gpuform/cluster/$CLUSTER, text/plain version 0.0.4" \
	'[ "$OUT" = "PUT /metrics/job/gpuform/cluster/$CLUSTER text/plain; version=0.0.4; charset=utf-8" ]'
check "5: ... whose body is the metrics file, byte for byte" 'cmp -s "$WORK/sink/body" "$WORK/metrics.prom"'

# a conflict: another apply manager owns the field with another value
k apply --server-side --validate=false --field-manager other-gitops --force-conflicts -f - >/dev/null 2>&1 <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: llm-pretrain}
spec: {limits: {nvidia.com/gpu: "64"}}
EOF
ic reconcile --lock --events --metrics-file "$WORK/metrics.prom" "$SPEC"
check "5: a field another apply manager owns: exit 4, conflict reported" '[ "$RC" = 4 ] && has "conflict"'
EV=$(k get events -n "$NS" --field-selector "involvedObject.name=$INV" -o json |
	jq -r '.items[] | "\(.type) \(.reason) \(.message)"')
OUT=$EV
check "5: ... Warning Events Conflict (naming the object and other-gitops) and ReconcileFailed" \
	'printf "%s\n" "$EV" | gq "^Warning Conflict .*nodepool.karpenter.sh/llm-pretrain.*other-gitops" &&
	printf "%s\n" "$EV" | gq "^Warning ReconcileFailed reconcile failed: "'
OUT=$(annotation gpuform.io/last-result)
check "5: ... status last-result failed" '[ "$OUT" = failed ]'
P=$("$PY" "$here/tools/promparse.py" "$WORK/metrics.prom" 2>&1)
PRC=$?
OUT=$P RC=$PRC
check "5: ... metrics parse; counters carried over: runs_total success=1 failed=1, errors_total 1, last_run_success 0" \
	'[ "$PRC" = 0 ] && [ "$(val "gpuform_runs_total{cluster=\"$CLUSTER\",result=\"success\"}")" = 1 ] &&
	[ "$(val "gpuform_runs_total{cluster=\"$CLUSTER\",result=\"failed\"}")" = 1 ] &&
	[ "$(val "gpuform_errors_total{cluster=\"$CLUSTER\"}")" = 1 ] &&
	[ "$(val "gpuform_last_run_success{cluster=\"$CLUSTER\"}")" = 0 ] &&
	[ "$(val "gpuform_objects{cluster=\"$CLUSTER\",result=\"conflict\"}")" = 1 ]'
k apply --server-side --validate=false --field-manager other-gitops --force-conflicts -f - >/dev/null 2>&1 <<EOF
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: llm-pretrain}
spec: {limits: {nvidia.com/gpu: "128"}}
EOF
ic reconcile --lock --events --force-conflicts "$SPEC"

# prune: the same intent without its second workload
head -n -7 "$SPEC" >"$WORK/ml-prod-smaller.yaml"
ic reconcile --lock --events --prune "$WORK/ml-prod-smaller.yaml"
check "5: reconcile --prune of a smaller intent: exit 0, objects pruned" '[ "$RC" = 0 ] && has "pruned" && has "nodepool.karpenter.sh/chat-serving pruned"'
EV=$(k get events -n "$NS" --field-selector "involvedObject.name=$INV,reason=Pruned" -o json | jq -r '.items[].message')
OUT=$EV
check "5: ... a Pruned Event listing nodepool chat-serving" 'printf "%s\n" "$EV" | gq "pruned: .*nodepool.karpenter.sh/chat-serving"'

# a Pushgateway that refuses: the run says so and fails (exit 4)
kill "$SINK_PID" 2>/dev/null
wait "$SINK_PID" 2>/dev/null
rm -rf "$WORK/sink" && mkdir -p "$WORK/sink"
"$PY" "$here/tools/httpsink.py" "$WORK/sink" 500 2>/dev/null &
SINK_PID=$!
t_on_exit "kill $SINK_PID 2>/dev/null"
for ((i = 0; i < 50; i++)); do [[ -f $WORK/sink/port ]] && break; sleep 0.1; done
ic reconcile --lock "--pushgateway=http://user:secret@127.0.0.1:$(cat "$WORK/sink/port")" "$WORK/ml-prod-smaller.yaml"
check "5: a Pushgateway answering 500: exit 4, 'HTTP 500' named, the URL's password not shown" \
	'[ "$RC" = 4 ] && has_err "pushgateway" && has_err "HTTP 500" && ! has_err "secret"'
kill "$SINK_PID" 2>/dev/null

# ==== 6. the token file is re-read when it changes (projected tokens rotate) ================
k create secret generic gpuform-rotation -n "$NS" >/dev/null 2>&1
if new_token --bound-object-kind Secret --bound-object-name gpuform-rotation >/dev/null; then
	# the run is held (fault proxy) after its first request past the lock was answered
	# by the server, with the old token, until the token is rotated
	fp_hold
	IC_PORT=$FP_PORT ic_bg "$WORK/rot" reconcile --lock --request-timeout 2m "$SPEC"
	pr=$!
	fp_wait_held
	# the old token dies with its Secret; the file gets a new one while the run holds the lock
	k delete secret gpuform-rotation -n "$NS" --wait=true >/dev/null 2>&1
	# the server caches token reviews for a few seconds
	for ((i = 0; i < 30; i++)); do
		code_old=$(sa_http GET /apis/karpenter.sh/v1/nodepools)
		[[ $code_old == 401 ]] && break
		sleep 0.5
	done
	new_token >/dev/null
	fp_go
	wait "$pr"
	RC=$?
	OUT=$(cat "$WORK/rot") ERR="old token now: $code_old; $(cat "$WORK/rot.err")"
	cat "$WORK/rot" "$WORK/rot.err" >>"$ALL_LOG"
	check "6: token rotated during a run (old one revoked: $code_old): the run re-reads the file and succeeds" \
		'[ "$code_old" = 401 ] && [ "$RC" = 0 ] && has "reconciled $CLUSTER"'
else
	t_fail "6: a bound TokenRequest token"
fi

# ==== 7. every example intent, each with its own install ===================================
# The examples are different clusters that share object names (NodePool general, ...); one
# API server stands in for each in turn, so a cluster's objects are removed (by the admin)
# before the next one's run. Namespaces stay (1.20 without a controller-manager never
# finishes deleting them).
forget_cluster() {
	k delete ec2nodeclasses.karpenter.k8s.aws,nodepools.karpenter.sh,resourceflavors.kueue.x-k8s.io,clusterqueues.kueue.x-k8s.io,workloadpriorityclasses.kueue.x-k8s.io \
		-l "gpuform.io/cluster=$1" >/dev/null 2>&1
	k delete localqueues.kueue.x-k8s.io -A -l "gpuform.io/cluster=$1" >/dev/null 2>&1
	k delete configmaps -n kube-system -l "gpuform.io/cluster=$1" >/dev/null 2>&1
}
forget_cluster "$CLUSTER"
bad=
for f in specs/*.yaml; do
	c=$("$GPUFORM" render --format json "$f" 2>/dev/null | jq -r '.items[0].metadata.labels["gpuform.io/cluster"] // empty')
	[[ -n $c ]] || c=$(sed -n 's/^  name: //p' "$f" | head -n1)
	if ! out=$(install_for "$c"); then
		bad+="$f: install: $out"$'\n'
		continue
	fi
	SA_FOR=gpuform-$c new_token >/dev/null
	ic reconcile --lock --events "$f"
	[[ $RC == 0 ]] || bad+="$f ($c): rc=$RC $(printf '%s\n' "$ERR" | tail -n 3)"$'\n'
	forget_cluster "$c"
done
RC=- OUT=$bad ERR=
check "7: every example in specs/ reconciles in-cluster with the least-privilege install for its cluster ($(ls specs/*.yaml | wc -l) intents, incl. the kube-system ConfigMap of AL2023)" \
	'[ -z "$bad" ]'

# ==== 9. two clusters installed in two namespaces (and two in one) on one API server ========
# issue 21: the installs overwrote each other's CronJob, Role, ClusterRoleBinding and
# kube-system RoleBinding; and a prune by one cluster's ServiceAccount could not see the other
# namespace's inventory and deleted a WorkloadPriorityClass that inventory still lists.
two_intent() { # FILE CLUSTER TYPE NAMESPACE
	cat >"$1" <<EOF
apiVersion: gpuform.io/v1alpha1
kind: ClusterIntent
metadata:
  name: $2
spec:
  nodeRole: KarpenterNodeRole-$2
  ami: al2023@v20250505
  workloads:
    - name: w-$2
      type: $3
      gpu: l4
      maxGpus: 4
      namespace: $4
EOF
}
two_install() { # CLUSTER NAMESPACE
	"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --cluster "$1" --namespace "$2" \
		--cronjob-api-version batch/v1beta1 >"$WORK/install-$1.yaml" 2>&1 &&
		k apply --server-side --field-manager gpuform-install -f "$WORK/install-$1.yaml" >/dev/null 2>&1
}
two_objects() { # CLUSTER NAMESPACE: "kind name resourceVersion" of its install objects but the Namespace
	"$GPUFORM" install --git https://127.0.0.1:9/platform/gitops.git --cluster "$1" --namespace "$2" \
		--cronjob-api-version batch/v1beta1 -o json 2>/dev/null |
		jq -r '.items[] | select(.kind != "Namespace") | .kind + " " + (.metadata.namespace // "-") + " " + .metadata.name' |
		while read -r kind ns name; do
			if [[ $ns == - ]]; then
				printf '%s %s %s\n' "$kind" "$name" "$(k get "$kind" "$name" -o jsonpath='{.metadata.resourceVersion}' 2>&1)"
			else
				printf '%s %s/%s %s\n' "$kind" "$ns" "$name" "$(k get "$kind" -n "$ns" "$name" -o jsonpath='{.metadata.resourceVersion}' 2>&1)"
			fi
		done
}
ic_in() { # SA-DIR NAMESPACE ARGS...: gpuform in-cluster as that directory's ServiceAccount
	local d=$1 ns=$2
	shift 2
	t_audit_mark
	OUT=$(env -u KUBECONFIG HOME="$WORK/home" GPUFORM_SERVICEACCOUNT_DIR="$d" \
		KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$PORT" \
		timeout 120 "$GPUFORM" "$@" --inventory-namespace "$ns" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $* (as $d, rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
ok=1
two_install two-a gpuform-two-a || ok=
A_BEFORE=$(two_objects two-a gpuform-two-a)
two_install two-b gpuform-two-b || ok=
two_install two-c gpuform-two-a || ok=
A_AFTER=$(two_objects two-a gpuform-two-a)
t_setup "9: installs of two-a (gpuform-two-a), two-b (gpuform-two-b), two-c (gpuform-two-a) applied" '[ -n "$ok" ]'
RC=- OUT=$A_AFTER ERR=$A_BEFORE
check "9: the installs of two-b (another namespace) and two-c (the same namespace) change none of two-a's install objects (8: same resourceVersions)" \
	'[ "$(printf "%s\n" "$A_BEFORE" | grep -c " [0-9][0-9]*$")" = 8 ] && [ "$A_BEFORE" = "$A_AFTER" ]'
OUT=$(for c in two-a:gpuform-two-a two-b:gpuform-two-b two-c:gpuform-two-a; do
	cl=${c%%:*} ns=${c#*:}
	printf '%s %s %s %s\n' "$cl" \
		"$(k get cronjob -n "$ns" "gpuform-$cl" -o json | jq -r '.spec.jobTemplate.spec.template.spec | .serviceAccountName + "," + (.containers[0].args | join(" ") | capture("--cluster (?<c>[^ ]+)").c)')" \
		"$(k get clusterrolebinding "gpuform-$cl.$ns" -o json | jq -r '.subjects[0].namespace + "/" + .subjects[0].name')" \
		"$(k get rolebinding -n kube-system "gpuform-$cl.$ns" -o json | jq -r '.subjects[0].namespace + "/" + .subjects[0].name')"
done)
check "9: each cluster keeps its own CronJob (its --cluster, its ServiceAccount), ClusterRoleBinding and kube-system RoleBinding" \
	'[ "$OUT" = "two-a gpuform-two-a,two-a gpuform-two-a/gpuform-two-a gpuform-two-a/gpuform-two-a
two-b gpuform-two-b,two-b gpuform-two-b/gpuform-two-b gpuform-two-b/gpuform-two-b
two-c gpuform-two-c,two-c gpuform-two-a/gpuform-two-c gpuform-two-a/gpuform-two-c" ]'

# the two clusters reconcile as their ServiceAccounts; two-b shares two-a's objects
for c in two-a:gpuform-two-a two-b:gpuform-two-b; do
	cl=${c%%:*} ns=${c#*:}
	mkdir -p "$WORK/sa-$cl" && cp "$ENV_DIR/tls.crt" "$WORK/sa-$cl/ca.crt" &&
		printf '%s\n' "$ns" >"$WORK/sa-$cl/namespace"
	SA_FOR=gpuform-$cl NS_FOR=$ns SA_DIR=$WORK/sa-$cl new_token >/dev/null ||
		t_abort "9: a token for $ns/gpuform-$cl" ""
done
two_intent "$WORK/two-a.yaml" two-a inference two-shared
two_intent "$WORK/two-b.yaml" two-b inference two-shared
ic_in "$WORK/sa-two-a" gpuform-two-a reconcile --lock "$WORK/two-a.yaml"
t_setup "9: two-a reconciled as system:serviceaccount:gpuform-two-a:gpuform-two-a" '[ "$RC" = 0 ]'
"$GPUFORM" render -o "$WORK/two-b" "$WORK/two-b.yaml" >/dev/null 2>&1
sed -i '/^- ec2nodeclass-gpu.yaml$/d' "$WORK/two-b/kustomization.yaml" && rm "$WORK/two-b/ec2nodeclass-gpu.yaml"
ic_in "$WORK/sa-two-b" gpuform-two-b reconcile --lock -o json "$WORK/two-b"
check "9: two-b (as its ServiceAccount) shares two-a's WorkloadPriorityClass, device-plugin ConfigMap and Namespace" \
	'[ "$RC" = 0 ] && [ "$(printf "%s" "$OUT" | jq "[.items[] | select(.detail // \"\" | test(\"^shared\"))] | length")" = 3 ]'
# two-a moves to a training workload elsewhere: WorkloadPriorityClass gpuform-inference
# is no longer desired by two-a, and two-b's inventory (in gpuform-two-b) still lists it
two_intent "$WORK/two-a2.yaml" two-a training two-only-a
# first with the RBAC before issue 21: ConfigMaps listable in its own namespace only
k get clusterrole gpuform-two-a.gpuform-two-a -o json |
	jq 'del(.metadata.resourceVersion, .metadata.uid, .metadata.managedFields, .metadata.creationTimestamp) |
		.rules |= map(select(.resources != ["configmaps"]))' | k replace -f - >/dev/null 2>&1
k create role two-a-old-list -n gpuform-two-a --verb=list --resource=configmaps >/dev/null 2>&1
k create rolebinding two-a-old-list -n gpuform-two-a --role=two-a-old-list \
	--serviceaccount=gpuform-two-a:gpuform-two-a >/dev/null 2>&1
T_AUDIT_USER=system:serviceaccount:gpuform-two-a:gpuform-two-a
ic_in "$WORK/sa-two-a" gpuform-two-a reconcile --lock --prune --force-prune --allow-node-replacement -o json "$WORK/two-a2.yaml"
dels=$(t_audit_writes | awk -F'\t' '$1 == "delete"')
check "9: old RBAC (inventories listable in its own namespace only): two-a prunes nothing, exit 4, says the other inventories cannot be read" \
	'[ "$RC" = 4 ] && [ -z "$dels" ] && k get workloadpriorityclass gpuform-inference >/dev/null 2>&1 &&
	printf "%s\n" "$ERR" | gq "cannot be read" && printf "%s\n" "$ERR" | gq "install. grants it" &&
	[ "$(printf "%s" "$OUT" | jq -r ".items[] | select(.kind == \"WorkloadPriorityClass\" and .name == \"gpuform-inference\") | .detail")" != "" ]'
# the RBAC install renders now
k delete rolebinding two-a-old-list -n gpuform-two-a >/dev/null 2>&1
k delete role two-a-old-list -n gpuform-two-a >/dev/null 2>&1
k apply --server-side --force-conflicts --field-manager gpuform-install -f "$WORK/install-two-a.yaml" >/dev/null 2>&1
ic_in "$WORK/sa-two-a" gpuform-two-a reconcile --lock --prune --force-prune --allow-node-replacement -o json "$WORK/two-a2.yaml"
dels=$(t_audit_writes | awk -F'\t' '$1 == "delete"')
check "9: the RBAC install renders: two-a's prune keeps WorkloadPriorityClass gpuform-inference (two-b's inventory in another namespace lists it), deletes its own LocalQueue" \
	'[ "$RC" = 0 ] && k get workloadpriorityclass gpuform-inference >/dev/null 2>&1 &&
	! printf "%s\n" "$dels" | gq "workloadpriorityclasses" &&
	printf "%s\n" "$dels" | gq "localqueues/w-two-a" &&
	printf "%s" "$OUT" | jq -r ".items[] | select(.kind == \"WorkloadPriorityClass\" and .name == \"gpuform-inference\") | .detail" | gq "another gpuform inventory"'
T_AUDIT_USER=$SA_USER
for cl in two-a two-b; do forget_cluster "$cl"; done

# ==== 8. the image's runtime contents: make install DESTDIR, run from there ================
if [[ -z ${INCLUSTER_NO_IMAGE:-} ]]; then
	D=$WORK/image-root
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u DEVELOPER nice make -s -C "$root" -j2 install DESTDIR="$D" PREFIX=/usr/local 2>&1)
	RC=$?
	OUT=$out
	check "8: make install DESTDIR=… PREFIX=/usr/local (the image's layout) works" \
		'[ "$RC" = 0 ] && [ -x "$D/usr/local/bin/gpuform" ]'
	OUT=$(env -i PATH=/nonexistent "$D/usr/local/bin/gpuform" version 2>&1)
	RC=$?
	check "8: the installed binary runs with an empty environment" '[ "$RC" = 0 ] && has "gpuform "'
	OUT=$(env -i "$D/usr/local/bin/gpuform" install --git https://x.test/r.git --cluster a 2>&1)
	RC=$?
	check "8: ... and renders the install manifests (templates are built in)" '[ "$RC" = 0 ] && has "kind: CronJob"'
	runtime=$(sed -n 's/.*apt-get install -y --no-install-recommends \(lib.*ca-certificates\).*/\1/p' Dockerfile | tail -n1)
	need=$(readelf -d "$D/usr/local/bin/gpuform" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	badlib=
	for lib in $need; do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64|64bit/ { print $NF; exit }')
		pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n1 | cut -d: -f1)
		[[ -z $pkg ]] && pkg=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1)
		case " $runtime libc6 " in *" $pkg "*) ;; *) badlib+="$lib ($pkg) " ;; esac
	done
	RC=- OUT="runtime: $runtime; needed: $(echo $need)" ERR=$badlib
	check "8: every library the binary needs comes from the Dockerfile's runtime packages (or libc6 of the slim base)" \
		'[ -n "$runtime" ] && [ -n "$need" ] && [ -z "$badlib" ] && ! printf "%s" "$runtime" | gq -- "-dev"'
	OUT=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$root" docker-image CONTAINER_ENGINE= 2>&1)
	RC=$?
	check "8: make docker-image without a container engine: fails and says none is installed" \
		'[ "$RC" != 0 ] && has "no container engine is installed"'
fi

# ---- sanitizers --------------------------------------------------------------------------
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any gpuform run" \
		"$(grep -E -B1 -A6 'Sanitizer|runtime error' "$ALL_LOG" | head -n 40)"
else
	t_pass "no sanitizer reports in any gpuform run"
fi
t_summary
exit
}
