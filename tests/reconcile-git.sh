#!/bin/bash
# tests/reconcile-git.sh: reconcile from Git, end to end with real servers —
# lighttpd + git http-backend (basic auth) and kube-apiserver + etcd, all on
# 127.0.0.1. `gpuform commit --push` writes the manifests to the Git server;
# `gpuform reconcile --git` fetches them into its cache and applies them.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
. tests/git-servers/servers.sh
t_gpuform
unset GPUFORM_GIT_USERNAME GPUFORM_GIT_PASSWORD GPUFORM_GIT_TOKEN GPUFORM_GIT_CREDENTIALS
export LSAN_OPTIONS="suppressions=$(pwd)/tests/git-servers/lsan.supp:${LSAN_OPTIONS:-}"
t_tmpdir W
USER_=gitops PASS_=pw-$RANDOM$RANDOM

# ---- servers --------------------------------------------------------------
t_on_exit 'gs_http_stop "$W/http"'
mkdir -p "$W/http"
gs_http_start "$W/http" "$USER_" "$PASS_" >"$W/http.out" 2>&1 ||
	t_abort "start lighttpd + git http-backend" "$(cat "$W/http.out")"
SRV=$W/http/repos/gitops.git
git init -q --bare -b main "$SRV" && git --git-dir="$SRV" config http.receivepack true
URL=http://127.0.0.1:$GS_HTTP_PORT/git/gitops.git

WORK=$W
t_testenv_start
t_testenv_unused gpuform-system gpuform-ml-prod
export GPUFORM_GIT_USERNAME=$USER_ GPUFORM_GIT_PASSWORD=$PASS_

# run gpuform; output in $W/out, $W/err, exit status in RC
gf() { "$GPUFORM" "$@" >"$W/out" 2>"$W/err"; RC=$?; }
check() {
	if eval "$2"; then t_pass "$1"; else t_fail "$1" "exit $RC; $(head -c 600 "$W/err")"; fi
}
inv() { kubectl get cm -n gpuform-system gpuform-ml-prod -o jsonpath="{.data.$1}" 2>/dev/null; }
tip() { git --git-dir="$SRV" rev-parse main 2>/dev/null; }
# --path is the directory of the cluster directories (default clusters), as
# for commit; --cluster picks one
RECON=(reconcile --git "$URL" --ref main --cluster ml-prod --git-cache "$W/cache" -o json)

# ---- 1. commit, push, reconcile from the HTTP server ----------------------
git init -q --bare -b main "$W/local.git"
gf commit --repo "$W/local.git" --author "CI <ci@example.com>" --push="$URL" specs/ml-prod.yaml
check "commit --push writes clusters/ml-prod to the HTTP Git server" '[[ $RC == 0 && -n $(tip) ]]'
C1=$(tip)
gf "${RECON[@]}"
check "reconcile --git: exit 0, every object created" \
	'[[ $RC == 0 ]] && [[ $(jq .counts.created "$W/out") == 17 ]]' # 17: ml-prod's hugepages NodeOverlay (issue 23)
check "the run summary names the commit" '[[ $(jq -r .sourceCommit "$W/out") == "$C1" ]]'
check "the inventory names the commit" '[[ $(inv sourceCommit) == "$C1" ]]'
check "the cache is a bare repository holding that commit" \
	'git --git-dir="$W/cache" cat-file -e "$C1^{commit}" 2>/dev/null'
check "no checkout: the cache has no work tree files" '[[ ! -e $W/cache/clusters ]]'
gf "${RECON[@]}"
check "second reconcile from the same commit: zero writes" \
	'[[ $RC == 0 ]] && [[ $(jq .requests.writes "$W/out") == 0 ]]'

# ---- 2. a new commit on the branch is picked up -----------------------------
sed 's/maxGpus: 32/maxGpus: 48/' specs/ml-prod.yaml >"$W/ml-prod.yaml"
gf commit --repo "$W/local.git" --author "CI <ci@example.com>" --push="$URL" "$W/ml-prod.yaml"
C2=$(tip)
check "a second commit lands on the server" '[[ $RC == 0 && $C2 != "$C1" ]]'
gf "${RECON[@]}"
check "the next reconcile applies it: only chat-serving objects change" \
	'[[ $RC == 0 ]] && [[ $(jq "[.items[] | select(.result==\"configured\") | .name] | unique" -c "$W/out") == "[\"chat-serving\"]" ]]'
check "the summary and the inventory name the new commit" \
	'[[ $(jq -r .sourceCommit "$W/out") == "$C2" && $(inv sourceCommit) == "$C2" ]]'
check "the NodePool limit changed in the cluster" \
	'[[ $(kubectl get nodepool chat-serving -o jsonpath="{.spec.limits.nvidia\.com/gpu}") == 48 ]]'

# ---- 3. failures: wrong password, server down ------------------------------
GPUFORM_GIT_PASSWORD=wrong-pw-123 gf "${RECON[@]}"
check "wrong password: exit 4, the password is not printed" \
	'[[ $RC == 4 ]] && ! grep -q -e wrong-pw-123 -e "$PASS_" "$W/out" "$W/err"'
gs_http_stop "$W/http"
gf "${RECON[@]}"
check "Git server stopped: non-zero exit (4) with a clear message about the fetch" \
	'[[ $RC == 4 ]] && grep -qi "fetch" "$W/err"'
gs_http_start "$W/http" "$USER_" "$PASS_" >/dev/null 2>&1
gf "${RECON[@]}"
check "server back: the cache is still usable, the run succeeds with zero writes" \
	'[[ $RC == 0 ]] && [[ $(jq .requests.writes "$W/out") == 0 ]] && [[ $(jq -r .sourceCommit "$W/out") == "$C2" ]]'
check "the cache passes git fsck" 'git --git-dir="$W/cache" fsck --no-progress >/dev/null 2>&1'

# ---- 5. a force-push to older history (issue 21 item 7) ----------------------
# main rewound from C2 to C1 on the server: the inventory says C2 was applied, and C1 does
# not descend from it; applying C1 would undo C2 (and --prune delete what C2 created)
git --git-dir="$SRV" update-ref refs/heads/main "$C1" "$C2"
gf "${RECON[@]}" --prune
check "git_rewind_refused: main force-pushed back to an older commit: exit 4, says why and the flag, nothing applied" \
	'[[ $RC == 4 ]] && grep -q "does not descend from ${C2:0:12}, the commit the inventory was last reconciled from" "$W/err" &&
	 grep -q -- "--allow-non-ancestor" "$W/err" && [[ $(inv sourceCommit) == "$C2" ]] &&
	 [[ $(kubectl get nodepool chat-serving -o jsonpath="{.spec.limits.nvidia\.com/gpu}") == 48 ]]'
gf "${RECON[@]}" --allow-non-ancestor
check "  --allow-non-ancestor applies it: exit 0, a warning, the inventory names C1, the limit back to 32" \
	'[[ $RC == 0 ]] && grep -q "warning: commit ${C1:0:12} does not descend from ${C2:0:12}" "$W/err" &&
	 [[ $(inv sourceCommit) == "$C1" ]] &&
	 [[ $(kubectl get nodepool chat-serving -o jsonpath="{.spec.limits.nvidia\.com/gpu}") == 32 ]]'
git --git-dir="$SRV" update-ref refs/heads/main "$C2" "$C1"
gf "${RECON[@]}"
check "  main forward again (C2 descends from C1): applied without the flag" \
	'[[ $RC == 0 && $(inv sourceCommit) == "$C2" ]]'

# ---- 4. one meaning for --path (issue 17): the directory of the cluster
# directories; a cluster's own directory is the deprecated spelling ---------
BASE=(reconcile --git "$URL" --ref main --git-cache "$W/cache" -o json)
# stderr without the sanitizer's suppression report (tests/git-servers/lsan.supp)
errtext() { sed '/^-\{20,\}$/,$d' "$W/err"; }
onelinerr() { [[ $(errtext | wc -l) == 1 ]] && errtext | grep -q -e "$1"; }
gf "${BASE[@]}" --path clusters --cluster ml-prod
check "--path clusters --cluster ml-prod: exit 0, zero writes, nothing on stderr" \
	'[[ $RC == 0 && $(jq .requests.writes "$W/out") == 0 && -z $(errtext) ]]'
gf "${BASE[@]}" --path ./clusters/ --cluster ml-prod
check "--path ./clusters/ is the same directory" '[[ $RC == 0 && -z $(errtext) ]]'
gf "${BASE[@]}" --path clusters/ml-prod
check "old spelling --path clusters/ml-prod (the installed CronJobs'): exit 0, zero writes" \
	'[[ $RC == 0 && $(jq .requests.writes "$W/out") == 0 && $(jq -r .sourceCommit "$W/out") == "$C2" ]]'
check "  with one warning line naming the new spelling" \
	'onelinerr "warning: --path clusters/ml-prod .*deprecated.*use --path clusters --cluster ml-prod"'
gf "${BASE[@]}" --path clusters/ml-prod --cluster ml-prod
check "--path clusters/ml-prod with --cluster ml-prod: exit 2, one line saying what to drop" \
	'[[ $RC == 2 && ! -s $W/out ]] && onelinerr "drop ./ml-prod. from --path (--path clusters --cluster ml-prod); see .gpuform reconcile --help."'
gf "${BASE[@]}" --path clusters/ml-prod --cluster ml-dev
check "--path clusters/ml-prod with --cluster ml-dev: exit 2, drop --cluster or give the parent" \
	'[[ $RC == 2 ]] && onelinerr "drop --cluster, or give .* (--path clusters --cluster ml-dev)"'
gf "${BASE[@]}"
check "--git without --cluster, clusters/ not a cluster's directory: exit 2, asks for --cluster" \
	'[[ $RC == 2 ]] && onelinerr "needs --cluster NAME.*(--path clusters --cluster NAME)"'
gf "${BASE[@]}" --cluster ml-dev
check "--cluster naming no directory: fails, naming clusters/ml-dev" \
	'[[ $RC != 0 && $RC != 2 ]] && grep -q "nothing under .clusters/ml-dev." "$W/err"'
gf "${BASE[@]}" --cluster ML/prod
check "--cluster that is not a cluster name: exit 2" '[[ $RC == 2 ]] && onelinerr "not a cluster name"'
gf reconcile --cluster ml-prod specs/ml-prod.yaml
check "--cluster without --git: exit 2" '[[ $RC == 2 ]] && onelinerr "go with --git"'
# the old spelling on a damaged cache (the tree holding the marker missing): the cache is
# repaired, never a usage error (source.c checks the cache on usage errors too; here the
# damage is also caught before that check, so this guards the outcome, not that branch)
rm -rf "$W/cache2" && cp -a "$W/cache" "$W/cache2" && chmod -R u+w "$W/cache2" &&
	(cd "$W/cache2" && mkdir ../pk && mv objects/pack/* ../pk/ &&
		for p in ../pk/*.pack; do git --git-dir=. unpack-objects -q <"$p" || exit; done &&
		rm -rf ../pk &&
		t=$(git --git-dir=. rev-parse "$C2:clusters") && rm "objects/${t:0:2}/${t:2}") ||
	t_fail "set up a cache missing the clusters/ tree"
gf reconcile --git "$URL" --ref main --git-cache "$W/cache2" -o json --path clusters/ml-prod
check "old spelling on a cache missing the clusters/ tree: repaired and fetched again, exit 0, zero writes" \
	'[[ $RC == 0 && $(jq .requests.writes "$W/out") == 0 ]] && errtext | grep -q "Git cache .* was damaged" &&
	errtext | grep -q "deprecated; use --path clusters --cluster ml-prod"'
# a directory named for another cluster than its objects' label
git clone -q "$SRV" "$W/wt" && git -C "$W/wt" mv clusters/ml-prod clusters/renamed &&
	git -C "$W/wt" -c user.name=t -c user.email=t@example.com commit -qm rename &&
	git -C "$W/wt" push -q origin HEAD:refs/heads/renamed 2>/dev/null
gf "${BASE[@]}" --ref renamed --cluster renamed
check "--cluster renamed whose objects are ml-prod's: refused, nothing applied" \
	'[[ $RC != 0 ]] && grep -q "holds the objects of cluster .ml-prod., not .renamed." "$W/err"'
# ---- 6. only what the kustomization lists is read, each file bounded (issue 21 item 8) ----
# a 17 MiB file beside the manifests, not listed: never read (its size comes from the
# object header; it is not inflated); the same file listed: refused, naming the limit
git clone -q "$SRV" "$W/wt2" && head -c $((17 << 20)) /dev/zero >"$W/wt2/clusters/ml-prod/big.yaml" &&
	git -C "$W/wt2" add clusters/ml-prod/big.yaml &&
	git -C "$W/wt2" -c user.name=t -c user.email=t@example.com commit -qm big &&
	git -C "$W/wt2" push -q origin HEAD:main 2>/dev/null || t_fail "push a commit with a 17 MiB file beside the manifests"
gf "${RECON[@]}"
check "git_unlisted_file_not_read: a 17 MiB file the kustomization does not list: exit 0, nothing created or configured" \
	'[[ $RC == 0 && $(jq ".counts.created + .counts.configured" "$W/out") == 0 ]]'
printf -- '- big.yaml\n' >>"$W/wt2/clusters/ml-prod/kustomization.yaml" &&
	git -C "$W/wt2" -c user.name=t -c user.email=t@example.com commit -qam list-big &&
	git -C "$W/wt2" push -q origin HEAD:main 2>/dev/null || t_fail "push a kustomization listing it"
gf "${RECON[@]}"
check "git_listed_file_bounded: the same file listed: refused before it is read, naming the size and the 16 MiB limit" \
	'[[ $RC != 0 ]] && grep -q "big.yaml.* is 17825792 bytes, over the limit of 16777216" "$W/err"'
t_summary
