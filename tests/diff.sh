#!/usr/bin/env bash
# tests/diff.sh [--update]: `gpuform diff --base REV [--head REV]` — the pull-request
# diff computed from Git alone. Each run builds a fresh repository in a temporary
# directory with the git CLI (local user.name/email, fixed dates, so commit ids are
# the same on every machine) and checks what diff reports against an independent
# computation: the same revisions rendered with `gpuform render -o` and compared with
# `diff -rq`. addons/ and kustomization.yaml are left out of that comparison: diff
# compares Kubernetes objects only.
#
#   GPUFORM=build/san/gpuform bash tests/diff.sh
#
# --update rewrites the reviewed Markdown golden files in tests/golden-diff/ from the
# current binary. Only do that for a deliberate change, and read
# `git diff tests/golden-diff` before committing. Closing line: "N passed, N failed".

# shellcheck disable=SC2317
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
t_isolate
t_gpuform
update=0
[ "${1:-}" = --update ] && update=1
GOLDEN=$root/tests/golden-diff

t_need git jq

t_tmpdir tmp
REPO=$tmp/repo
LOG=$tmp/all-runs.log # every run's stderr, for the sanitizer check at the end
: >"$LOG"

# the git CLI, isolated from the developer's configuration, with fixed identities and
# dates: commit ids are reproducible, so the golden Markdown can show them
t_git_isolate
g() { git -C "$REPO" "$@"; }

# gf ARGS...: run gpuform diff in $REPO; stdout in $OUT (byte for byte in
# $tmp/stdout), stderr in $ERR, status in $RC
gf() {
	(cd "$REPO" && "$GPUFORM" diff "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	RC=$?
	OUT=$(cat "$tmp/stdout")
	ERR=$(cat "$tmp/stderr")
	printf '%s\n' "--- gpuform diff $* (rc=$RC)" "$ERR" >>"$LOG"
}
# check NAME CONDITION (tests/lib.sh): CONDITION is eval'd; on failure shows the last run

# rendered REV PATH DIR: `render -o DIR` of PATH at REV ("-" = the work tree);
# a file missing at REV gives an empty DIR
rendered() {
	local rev=$1 path=$2 dir=$3 src=$tmp/src.yaml
	rm -rf "$dir"
	if [ "$rev" = - ]; then
		[ -f "$REPO/$path" ] || { mkdir -p "$dir"; return 0; }
		cp "$REPO/$path" "$src"
	elif ! g cat-file -e "$rev:$path" 2>/dev/null; then
		mkdir -p "$dir"
		return 0
	else
		g show "$rev:$path" >"$src"
	fi
	"$GPUFORM" render --output-dir "$dir" "$src" 2>>"$LOG"
}

# expected_changes BASE HEAD PATH: "<change> <file>" lines from diff -rq of the two
# render -o directories (objects only), sorted
expected_changes() {
	rendered "$1" "$3" "$tmp/exp-a" && rendered "$2" "$3" "$tmp/exp-b" || return 1
	(cd "$tmp" && diff -rq exp-a exp-b) | sed -n \
		-e 's|^Files exp-a/\([^/]*\) and exp-b/[^ ]* differ$|modified \1|p' \
		-e 's|^Only in exp-a: \(.*\)$|removed \1|p' \
		-e 's|^Only in exp-b: \(.*\)$|added \1|p' |
		grep -v -e ' kustomization\.yaml$' -e ' addons$' | sort
}

# reported_changes: the same lines from the last run's JSON
reported_changes() {
	printf '%s\n' "$OUT" |
		jq -r '.objects[] | "\(.change) \(.kind | ascii_downcase)-\(.name).yaml"' | sort
}

# same_changes NAME BASE HEAD PATH [files]: diff's JSON (already in $OUT) lists exactly
# the objects that the independent computation finds. With "files", only the sets of
# files are compared: render -o names a file <kind>-<name>.yaml, without the namespace,
# so an object that moves to another namespace is one "modified" file for diff -r but
# two objects for gpuform diff (removed from the old namespace, added to the new one),
# which is what Kubernetes sees.
same_changes() {
	local exp rep
	exp=$(expected_changes "$2" "$3" "$4")
	rep=$(reported_changes)
	if [ "${5:-}" = files ]; then
		exp=$(printf '%s\n' "$exp" | cut -d' ' -f2 | sort -u)
		rep=$(printf '%s\n' "$rep" | cut -d' ' -f2 | sort -u)
	fi
	if [ -n "$exp" ] && [ "$exp" = "$rep" ]; then
		t_pass "$1"
	else
		t_fail "$1" "diff -rq of render -o says:
$exp
gpuform diff says:
$rep"
	fi
}

# ---- the repository ------------------------------------------------------------------
mkdir -p "$REPO/specs"
git init -q -b main "$REPO"
g config user.name 'Test Author'
g config user.email author@example.com
cp specs/ml-prod.yaml "$REPO/specs/ml-prod.yaml"
g add specs && g commit -q -m 'ml-prod cluster'
C1=$(g rev-parse HEAD)
# the change under review: chat-serving moves from "l4 or better" to exactly L40S
sed -i 's/^      gpu: l4+$/      gpu: l40s/' "$REPO/specs/ml-prod.yaml"
g commit -q -a -m 'chat-serving: L40S only'
C2=$(g rev-parse HEAD)
# a pull request's checkout: origin/main is the base, the work tree the head
g update-ref refs/remotes/origin/main "$C1"

t_setup "two commits, one GPU class changed" \
	'[ -n "$C1" ] && [ -n "$C2" ] && [ "$(g diff --stat "$C1" "$C2" | tail -1)" = " 1 file changed, 1 insertion(+), 1 deletion(-)" ]'

# ---- 1. C1 -> C2: exactly the objects that really change -----------------------------
gf --base "$C1" --head "$C2" specs/ml-prod.yaml
check "1: --base C1 --head C2: exit 1 (differences)" '[ "$RC" = 1 ] && [ -z "$ERR" ]'
check "1: text: one header line per object, a/ b/ labels, summary last" \
	'[ "$(printf "%s\n" "$OUT" | grep -c "^modified ml-prod/NodePool/chat-serving$")" = 1 ] &&
	 printf "%s\n" "$OUT" | gq -x -- "--- a/ml-prod/NodePool/chat-serving" &&
	 printf "%s\n" "$OUT" | gq -x -- "+++ b/ml-prod/NodePool/chat-serving" &&
	 [ "$(printf "%s\n" "$OUT" | tail -1)" = "1 node-replacing change (pool chat-serving), 0 may disrupt, 0 no node effect; 1 object changed: 0 added, 0 removed, 1 modified; 1 add-on setting changed" ]'
# narrowing the GPU class narrows requirements: Karpenter drifts the nodes whose labels no
# longer satisfy them (dynamic drift), and the line says so
check "1: text: the node impact line names the class, the pool and the drift rule" \
	'[ "$(printf "%s\n" "$OUT" | sed -n 2p)" = "node impact: replaces nodes [pool chat-serving]: dynamic drift: requirements (nodes whose labels no longer satisfy karpenter.k8s.aws/instance-family, karpenter.k8s.aws/instance-gpu-name are replaced)" ]'
text_headers=$(printf '%s\n' "$OUT" | sed -En 's#^(added|removed|modified) [^/]+/([^/]+)/([^/]+/)?([^/]+)$#\1 \2 \4#p' |
	awk '{ print $1 " " tolower($2) "-" $3 ".yaml" }' | sort)
# the diff body is exactly `diff -u` of the two rendered files (context 3)
rendered "$C1" specs/ml-prod.yaml "$tmp/r1"
rendered "$C2" specs/ml-prod.yaml "$tmp/r2"
(cd "$tmp" && diff -u r1/nodepool-chat-serving.yaml r2/nodepool-chat-serving.yaml | tail -n +3) >"$tmp/want-hunks"
# (the capacity and cost lines come between the last hunk and the summary)
printf '%s\n' "$OUT" | sed -n '/^@@/,/^capacity and cost/p' | sed '$d' >"$tmp/got-hunks"
check "1: the hunks equal diff -u of the rendered files" 'cmp -s "$tmp/want-hunks" "$tmp/got-hunks"'
# capacity and cost (gpuform plan's model, docs/plan.md): l4+ -> l40s leaves 32 GPUs and
# 32 nodes but the costliest node under the limit is now g6e.16xlarge (7.577 USD/h per GPU,
# 32 x 7.577 = 242.46) instead of p6-b200.48xlarge (113.93 / 8 = 14.24125, 32 x = 455.72);
# the floor (32 pods on the cheapest type) rises from 32 x g6.xlarge 0.805 = 25.76 to
# 32 x g6e.xlarge 1.861 = 59.55; a month is 730 h: 455.72 x 730 = 332675.60, 242.464 x 730 =
# 176998.72; the total floor is llm-pretrain's 880.64 plus chat-serving's
check "1: text: capacity and cost per workload, before -> after, then the total" \
	'printf "%s\n" "$OUT" | gq -x -- "  ml-prod/chat-serving: GPUs 32 -> 32, nodes 32 -> 32, \$/hour 455.72 -> 242.46 (-213.26), floor \$/hour 25.76 -> 59.55 (+33.79), \$/month 332675.60 -> 176998.72 (-155676.88)" &&
	 printf "%s\n" "$OUT" | gq -x -- "  total: max \$/hour 1336.36 -> 1123.10 (-213.26), max GPUs 160 -> 160, max nodes 48 -> 48, floor \$/hour 906.40 -> 940.19 (+33.79), max \$/month 975542.80 -> 819865.92 (-155676.88)"'

gf --base "$C1" --head "$C2" --format json specs/ml-prod.yaml
check "1: json: exit 1, parses" '[ "$RC" = 1 ] && printf "%s" "$OUT" | jq -e . >/dev/null'
same_changes "1: json lists exactly what diff -r of two render -o finds" "$C1" "$C2" specs/ml-prod.yaml
check "1: json: text and json list the same objects" '[ "$text_headers" = "$(reported_changes)" ]'
check "1: json: capacity before/after per workload and the total change" \
	'[ "$(printf "%s" "$OUT" | jq -c "[.capacity.changed, (.capacity.workloads[] | select(.workload == \"chat-serving\") | [.changed, .before.maxUsdPerHour, .after.maxUsdPerHour, .after.maxGpus]), .capacity.total.maxUsdPerHourChange, .capacity.total.maxGpusChange]")" = "[true,[true,455.72,242.464,32],-213.256,0]" ]'
check "1: json: counts (1 modified, 16 unchanged), ids, fields" \
	'[ "$(printf "%s" "$OUT" | jq -c .summary)" = "{\"changed\":1,\"added\":0,\"removed\":0,\"modified\":1,\"unchanged\":16,\"replacesNodes\":1,\"mayDisrupt\":0,\"noNodeEffect\":0,\"replacedPools\":[\"chat-serving\"]}" ] &&
	 [ "$(printf "%s" "$OUT" | jq -c ".objects[0].impact | [.class, .pools, (.rules | length)]")" = "[\"replaces nodes\",[\"chat-serving\"],1]" ] &&
	 [ "$(printf "%s" "$OUT" | jq -r .base)" = "$C1" ] && [ "$(printf "%s" "$OUT" | jq -r .head)" = "$C2" ] &&
	 [ "$(printf "%s" "$OUT" | jq -r ".objects[0] | [.cluster, .apiVersion, .kind, (.namespace // \"-\"), .name, .change] | join(\" \")")" = "ml-prod karpenter.sh/v1 NodePool - chat-serving modified" ] &&
	 printf "%s" "$OUT" | jq -e ".objects[0].diff | startswith(\"--- a/ml-prod/NodePool/chat-serving\n+++ b/ml-prod/NodePool/chat-serving\n@@ \")" >/dev/null'

# ---- 2. identical revisions: exit 0, only the summary --------------------------------
gf --base "$C2" --head "$C2" specs/ml-prod.yaml
check "2: same revision twice: exit 0, stdout is the summary line only, no stderr" \
	'[ "$RC" = 0 ] && [ "$OUT" = "0 objects changed: 0 added, 0 removed, 0 modified" ] && [ -z "$ERR" ]'
gf --base HEAD specs/ml-prod.yaml
check "2: clean work tree against HEAD: exit 0" '[ "$RC" = 0 ] && [ "$OUT" = "0 objects changed: 0 added, 0 removed, 0 modified" ]'
gf --base main --head "$C2" --format json specs/ml-prod.yaml
check "2: json, no differences: exit 0, no objects, 17 unchanged" \
	'[ "$RC" = 0 ] && [ "$(printf "%s" "$OUT" | jq -c "[.summary.changed, .summary.unchanged, (.objects | length)]")" = "[0,17,0]" ]'
gf --base "$C2" --head "$C2" --format markdown specs/ml-prod.yaml
check "2: markdown, no differences: heading and summary, no table" \
	'[ "$RC" = 0 ] && printf "%s\n" "$OUT" | gq -x "\*\*0 objects changed: 0 added, 0 removed, 0 modified\*\*" &&
	 ! printf "%s\n" "$OUT" | gq "^|"'

# ---- 3. markdown against the reviewed golden file (the PR comment) -------------------
# what CI runs on the pull request: base origin/main, head = the checked-out work tree
gf --base origin/main --format markdown specs/ml-prod.yaml
md=$OUT
cp "$tmp/stdout" "$tmp/golden.md"
check "3: markdown: exit 1" '[ "$RC" = 1 ] && [ -z "$ERR" ]'
if [ "$update" = 1 ]; then
	mkdir -p "$GOLDEN"
	cp "$tmp/golden.md" "$GOLDEN/ml-prod-gpu-class.md"
	t_note "3: golden-diff/ml-prod-gpu-class.md updated (not a check; review it)"
elif d=$(diff -u "$GOLDEN/ml-prod-gpu-class.md" "$tmp/golden.md" 2>&1); then
	t_pass "3: markdown equals the reviewed tests/golden-diff/ml-prod-gpu-class.md"
else
	t_fail "3: markdown equals the reviewed tests/golden-diff/ml-prod-gpu-class.md" "$(printf '%s\n' "$d" | head -40)"
fi
gf --base origin/main --format markdown specs/ml-prod.yaml
check "3: markdown is deterministic" '[ "$OUT" = "$md" ]'
gf --base "$C1" --head "$C2" --format markdown specs/ml-prod.yaml
check "3: markdown with --head names both revisions" \
	'printf "%s\n" "$OUT" | gq -xF "Comparing base \`$C1\` (${C1:0:12}) with head \`$C2\` (${C2:0:12})."'

# ---- 4. head = the work tree, with an uncommitted edit -------------------------------
# chat-serving: maxGpus 32 -> 16 (NodePool limits and ClusterQueue quotas)
sed -i 's/^      maxGpus: 32$/      maxGpus: 16/' "$REPO/specs/ml-prod.yaml"
# the PR comment of a quota change leads with its cost (reviewed golden file): chat-serving
# (l40s since C2) halves: 16 GPUs, 16 nodes, 16 x g6e.16xlarge 7.577 = 121.23 USD/h at most
gf --base HEAD --format markdown specs/ml-prod.yaml
cp "$tmp/stdout" "$tmp/golden2.md"
check "4: markdown: the summary line leads with the capacity change" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq -F "**Capacity: max \$/hour 1123.10 → 1001.87 (-121.23), max GPUs 160 → 144 (-16), max nodes 48 → 32 (-16); "'
if [ "$update" = 1 ]; then
	cp "$tmp/golden2.md" "$GOLDEN/ml-prod-max-gpus.md"
	t_pass "4: golden-diff/ml-prod-max-gpus.md (updated; review it)"
elif d=$(diff -u "$GOLDEN/ml-prod-max-gpus.md" "$tmp/golden2.md" 2>&1); then
	t_pass "4: markdown equals the reviewed tests/golden-diff/ml-prod-max-gpus.md"
else
	t_fail "4: markdown equals the reviewed tests/golden-diff/ml-prod-max-gpus.md" "$(printf '%s\n' "$d" | head -40)"
fi
gf --base HEAD --format json specs/ml-prod.yaml
check "4: uncommitted edit against HEAD: exit 1, head is \"worktree\"" \
	'[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq -r .head)" = worktree ] && [ "$(printf "%s" "$OUT" | jq -r .base)" = "$C2" ]'
same_changes "4: work tree: exactly what diff -r of two render -o finds" HEAD - specs/ml-prod.yaml
gf --base HEAD --repo "$REPO" --format json "$REPO/specs/ml-prod.yaml"
check "4: an absolute path inside the work tree works too" '[ "$RC" = 1 ] && [ "$(reported_changes)" = "$(expected_changes HEAD - specs/ml-prod.yaml)" ]'
OUT=$(cd / && "$GPUFORM" diff --base HEAD --repo "$REPO" specs/ml-prod.yaml 2>>"$LOG")
RC=$?
check "4: --repo DIR from another directory" '[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq "^modified ml-prod/ClusterQueue/chat-serving$"'
# issue 17: paths as git reads them — relative to the current directory anywhere in the
# work tree, the repository found from there; a path outside it says why
OUT=$(cd "$REPO/specs" && "$GPUFORM" diff --base HEAD ml-prod.yaml 2>"$tmp/stderr")
RC=$? ERR=$(cat "$tmp/stderr")
check "4: from a subdirectory, no --repo: the path is relative to it (like git)" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq "^modified ml-prod/ClusterQueue/chat-serving$"'
OUT=$(cd "$REPO/specs" && "$GPUFORM" diff --base HEAD ../specs/./ml-prod.yaml -o json 2>"$tmp/stderr")
RC=$?
check "4: ... '../specs/./ml-prod.yaml' from there too (options after the path)" \
	'[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq -r .summary.modified)" -ge 1 ]'
OUT=$(cd "$REPO/specs" && "$GPUFORM" diff --base HEAD ../../elsewhere.yaml 2>&1)
RC=$?
check "4: a path outside the work tree: exit 2, says it is outside and that paths are relative to the current directory" \
	'[ "$RC" = 2 ] && printf "%s\n" "$OUT" | gq "is outside the work tree of the repository at" &&
	 [ "$(printf "%s\n" "$OUT" | wc -l)" = 1 ]'
OUT=$(cd "$tmp" && "$GPUFORM" diff --base HEAD specs/ml-prod.yaml 2>&1)
RC=$?
check "4: outside any repository without --repo: exit 4, 'not inside a git repository', names --repo" \
	'[ "$RC" = 4 ] && printf "%s\n" "$OUT" | gq "not inside a git repository" && printf "%s\n" "$OUT" | gq -- "--repo"'
g checkout -q -- specs

# issue 17: when a node-replacing change takes effect, from the new NodePool's budgets
grep -q 'ami: bottlerocket@v1.38.0' "$REPO/specs/ml-prod.yaml" || t_fail "4: ml-prod pins bottlerocket@v1.38.0 (the next checks bump it)"
sed -i 's/ami: bottlerocket@v1.38.0/ami: bottlerocket@v1.39.0/' "$REPO/specs/ml-prod.yaml"
gf --base HEAD specs/ml-prod.yaml
check "4: an AMI bump: 'takes effect: immediately' for the tolerant general pool, 'at the next opening of the maintenance window' for the windowed ones" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | grep -A2 "^modified ml-prod/EC2NodeClass/general$" | gq "^takes effect: immediately" &&
	 printf "%s\n" "$OUT" | grep -A2 "^modified ml-prod/EC2NodeClass/gpu-efa$" | gq -F "takes effect: at the next opening of the maintenance window \"0 2 * * sat\" (4h)"'
gf --base HEAD -o json specs/ml-prod.yaml
check "4: ... and in JSON (objects[].takesEffect, only for node-replacing changes)" \
	'[ "$(printf "%s" "$OUT" | jq -r "[.objects[] | select(.impact.class == \"replaces nodes\") | has(\"takesEffect\")] | length > 0 and all")" = true ] &&
	 [ "$(printf "%s" "$OUT" | jq -r "[.objects[] | select(.impact.class != \"replaces nodes\") | has(\"takesEffect\")] | any")" = false ]'
g checkout -q -- specs

# ---- 5. objects added and removed inside one intent ----------------------------------
# chat-serving moves from namespace serving to inference: Namespace and LocalQueue go
# and come, the ClusterQueue's namespaceSelector changes
sed -i 's/^      namespace: serving$/      namespace: inference/' "$REPO/specs/ml-prod.yaml"
g commit -q -a -m 'chat-serving: namespace inference'
C3=$(g rev-parse HEAD)
gf --base "$C2" --head "$C3" --format json specs/ml-prod.yaml
check "5: namespace move: exit 1, added and removed both counted" \
	'[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq -c "[.summary.added, .summary.removed] | map(. > 0)")" = "[true,true]" ]'
same_changes "5: namespace move: the files diff -r of two render -o finds" "$C2" "$C3" specs/ml-prod.yaml files
check "5: namespaced objects carry their namespace" \
	'[ "$(printf "%s" "$OUT" | jq -r "[.objects[] | select(.kind == \"LocalQueue\") | \"\(.change) \(.namespace)/\(.name)\"] | join(\",\")")" = "added inference/chat-serving,removed serving/chat-serving" ]'
gf --base "$C2" --head "$C3" specs/ml-prod.yaml
check "5: text: removed/added labels use /dev/null" \
	'printf "%s\n" "$OUT" | grep -A1 -x -- "--- a/ml-prod/LocalQueue/serving/chat-serving" | gq -x -- "+++ /dev/null" &&
	 printf "%s\n" "$OUT" | grep -A1 -x -- "--- /dev/null" | gq -x -- "+++ b/ml-prod/LocalQueue/inference/chat-serving"'

# ---- 6. a new intent file at head, and one deleted at head ---------------------------
cp specs/dev-spot.yaml "$REPO/specs/dev-spot.yaml" # untracked: only in the work tree
rendered - specs/dev-spot.yaml "$tmp/dev"
n_dev=$(find "$tmp/dev" -maxdepth 1 -name '*.yaml' ! -name kustomization.yaml | wc -l)
gf --base HEAD --format json specs/ml-prod.yaml specs/dev-spot.yaml
check "6: new file at head: all its $n_dev objects added, nothing else" \
	'[ "$RC" = 1 ] && [ "$n_dev" -gt 0 ] &&
	 [ "$(printf "%s" "$OUT" | jq -c "[.summary.changed, .summary.added, ([.objects[] | select(.change == \"added\" and .cluster == \"dev-sandbox\")] | length)]")" = "[$n_dev,$n_dev,$n_dev]" ]'
same_changes "6: new file: exactly what diff -r of two render -o finds" HEAD - specs/dev-spot.yaml
gf --base HEAD specs/dev-spot.yaml
check "6: new file, text: every diff starts at /dev/null" \
	'[ "$(printf "%s\n" "$OUT" | grep -c -x -- "--- /dev/null")" = "$n_dev" ] && ! printf "%s\n" "$OUT" | gq "^--- a/"'
g add specs/dev-spot.yaml && g commit -q -m 'dev-sandbox cluster'
C4=$(g rev-parse HEAD)
g rm -q specs/dev-spot.yaml # deleted in the work tree
gf --base "$C4" --format json specs/ml-prod.yaml specs/dev-spot.yaml
check "6: file deleted at head: all its objects removed" \
	'[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq -c "[.summary.changed, .summary.removed]")" = "[$n_dev,$n_dev]" ] &&
	 [ "$(printf "%s" "$OUT" | jq -r "[.objects[].cluster] | unique | join(\",\")")" = dev-sandbox ]'
g reset -q --hard "$C4"
gf --base "$C4" --head "$C3" specs/dev-spot.yaml
# and its add-on files, one line each (addons/ of its reviewed render)
n_dev_addons=$(find tests/golden/dev-spot/addons -type f | wc -l)
# removing a cluster's NodePools deletes their nodes; so does removing the EC2NodeClasses
# they launch from (2 + 2)
check "6: --head REV without the file: removed as well" '[ "$RC" = 1 ] && [ "$(printf "%s\n" "$OUT" | tail -1)" = "4 node-replacing changes (pools experiments, general), 0 may disrupt, $((n_dev - 4)) no node effect; $n_dev objects changed: 0 added, $n_dev removed, 0 modified; $n_dev_addons add-on settings changed" ]'
gf --base "$C4" specs/nosuch.yaml
check "6: a file at neither side: exit 4, named" \
	'[ "$RC" = 4 ] && [ -z "$OUT" ] && printf "%s\n" "$ERR" | gq "'"'"'specs/nosuch.yaml'"'"' exists neither at base '"'"'$C4'"'"' nor in the work tree"'
cp specs/ml-prod.yaml "$REPO/specs/copy.yaml"
gf --base "$C4" specs/ml-prod.yaml specs/copy.yaml
check "6: two files for one cluster: exit 3, both named" \
	'[ "$RC" = 3 ] && printf "%s\n" "$ERR" | gq "both describe cluster '"'"'ml-prod'"'"'"'
rm "$REPO/specs/copy.yaml"

# ---- 7. invalid intents: exit 3, file:line:col naming the revision --------------------
sed -i 's/^      gpu: h100$/      gpu: h1000/' "$REPO/specs/ml-prod.yaml"
line=$(grep -n '^      gpu: h1000$' "$REPO/specs/ml-prod.yaml" | cut -d: -f1)
gf --base HEAD specs/ml-prod.yaml
check "7: invalid intent in the work tree: exit 3, path:line:col, nothing on stdout" \
	'[ "$RC" = 3 ] && [ -z "$OUT" ] &&
	 printf "%s\n" "$ERR" | gq "^specs/ml-prod.yaml:$line:12: error: unknown GPU class '"'"'h1000'"'"'" &&
	 printf "%s\n" "$ERR" | gq "invalid intent in the work tree (1 error)"'
g commit -q -a -m 'broken'
g tag broken
g reset -q --hard "$C4"
gf --base broken --head "$C4" specs/ml-prod.yaml
check "7: invalid intent at the base revision: exit 3, REV:path:line:col" \
	'[ "$RC" = 3 ] && [ -z "$OUT" ] && printf "%s\n" "$ERR" | gq "^broken:specs/ml-prod.yaml:$line:12: error: " &&
	 printf "%s\n" "$ERR" | gq "invalid intent at base '"'"'broken'"'"'"'
gf --base "$C4" --head broken specs/ml-prod.yaml
check "7: invalid intent at --head REV: exit 3, REV:path:line:col" \
	'[ "$RC" = 3 ] && printf "%s\n" "$ERR" | gq "^broken:specs/ml-prod.yaml:$line:12: error: "'
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata: [\n' >"$REPO/specs/ml-prod.yaml"
gf --base broken specs/ml-prod.yaml
check "7: both sides invalid: both reported, exit 3" \
	'[ "$RC" = 3 ] && printf "%s\n" "$ERR" | gq "^broken:specs/ml-prod.yaml:" && printf "%s\n" "$ERR" | gq "^specs/ml-prod.yaml:[0-9]*:[0-9]*: error"'
g checkout -q -- specs

# ---- 8. bad revisions, usage errors, bare repositories -------------------------------
gf --base no-such-branch specs/ml-prod.yaml
check "8: unknown --base: exit > 1, message names the option and the revision" \
	'[ "$RC" -gt 1 ] && [ -z "$OUT" ] && printf "%s\n" "$ERR" | gq -- "--base.*no-such-branch"'
gf --base HEAD --head no-such-branch specs/ml-prod.yaml
check "8: unknown --head: exit > 1, message names it" \
	'[ "$RC" -gt 1 ] && printf "%s\n" "$ERR" | gq -- "--head.*no-such-branch"'
OUT=$(cd "$tmp" && "$GPUFORM" diff --base HEAD --repo "$tmp/nowhere" specs/ml-prod.yaml 2>&1)
RC=$?
check "8: --repo that is no repository: exit 4" '[ "$RC" = 4 ]'
gf --base HEAD --live specs/ml-prod.yaml
check "8: --base with --live: usage error" '[ "$RC" = 2 ] && printf "%s\n" "$ERR" | gq "cannot be combined"'
gf specs/ml-prod.yaml
check "8: neither --base nor --live: usage error naming both" '[ "$RC" = 2 ] && printf "%s\n" "$ERR" | gq -- "--base REV.*--live"'
gf --base HEAD
check "8: no intent file: usage error" '[ "$RC" = 2 ]'
gf --base HEAD --format yaml specs/ml-prod.yaml
check "8: unknown format: usage error" '[ "$RC" = 2 ] && printf "%s\n" "$ERR" | gq "unknown output format '"'"'yaml'"'"' (text, markdown or json)"'
gf --base HEAD ../outside.yaml
check "8: a path leaving the repository: usage error" '[ "$RC" = 2 ]'
gf --base HEAD --help
check "8: --help prints the usage, exit 0" '[ "$RC" = 0 ] && printf "%s\n" "$OUT" | gq "^usage: gpuform diff --base REV"'
git clone -q --bare "$REPO" "$tmp/bare.git" 2>>"$LOG"
OUT=$("$GPUFORM" diff --repo "$tmp/bare.git" --base "$C1" --head "$C2" --format json specs/ml-prod.yaml 2>>"$LOG")
RC=$?
check "8: bare repository with --head: works" '[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq .summary.modified)" = 1 ]'
OUT=$("$GPUFORM" diff --repo "$tmp/bare.git" --base "$C1" specs/ml-prod.yaml 2>&1)
RC=$?
check "8: bare repository without --head: usage error" '[ "$RC" = 2 ] && printf "%s\n" "$OUT" | gq "bare repository"'

# ---- 9. add-ons: compared by key --------------------------------------------------
# turning on time-slicing adds NodeOverlays and flips the Karpenter gate that makes
# Karpenter honour them; the diff must say so (text and markdown), and a change to
# add-ons alone is a difference. (2 add-on settings: the gate, and the pod contract of a
# shared pool drops its hostname spread, issue 23 item 3)
g reset -q --hard "$C1"
cp "$root/specs/minimal.yaml" "$REPO/specs/minimal.yaml"
g add specs/minimal.yaml && g commit -q -m 'minimal'
C9=$(g rev-parse HEAD)
sed -i 's/^      maxGpus: 4$/      maxGpus: 4\n      sharing: {timeSlicing: 4}/' "$REPO/specs/minimal.yaml"
gf --base "$C9" specs/minimal.yaml
check "9: time-slicing on: the nodeOverlay gate change in the text diff, with its impact" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq -x "add-on addons/karpenter-values.yaml: settings.featureGates.nodeOverlay: false -> true" &&
	 printf "%s\n" "$OUT" | gq -x "  Karpenter feature gate nodeOverlay: needed by the NodeOverlays this change adds; roll out the Helm release first" &&
	 printf "%s\n" "$OUT" | tail -1 | gq "; 2 add-on settings changed$"'
gf --base "$C9" -o markdown specs/minimal.yaml
check "9: time-slicing on: the gate change in the markdown diff (Add-ons table)" \
	'[ "$RC" = 1 ] && printf "%s\n" "$OUT" | gq "^#### Add-ons$" &&
	 printf "%s\n" "$OUT" | gq -F "| \`addons/karpenter-values.yaml\` | \`settings.featureGates.nodeOverlay\` | \`false\` | \`true\` | Karpenter feature gate nodeOverlay: needed by the NodeOverlays this change adds"'
g checkout -q specs/minimal.yaml
sed -i 's/^spec:$/spec:\n  nodeRepair: false/' "$REPO/specs/minimal.yaml"
gf --base "$C9" specs/minimal.yaml
# (node repair off also drops the node monitoring agent's values file, rendered only with it)
check "9: only add-ons change (nodeRepair off): exit 1, not 'no changes'" \
	'[ "$RC" = 1 ] && [ "$(printf "%s\n" "$OUT" | tail -1)" = "0 objects changed: 0 added, 0 removed, 0 modified; 2 add-on settings changed" ] &&
	 printf "%s\n" "$OUT" | gq "^add-on addons/karpenter-values.yaml: settings.featureGates.nodeRepair: true -> false$" &&
	 printf "%s\n" "$OUT" | gq "^add-on addons/eks-node-monitoring-agent-values.yaml: (file): present -> (absent)$"'
gf --base "$C9" -o json specs/minimal.yaml
check "9: only add-ons change: json .addons" \
	'[ "$RC" = 1 ] && [ "$(printf "%s" "$OUT" | jq -c "[.addons[] | select(.file == \"karpenter-values.yaml\") | [.file, .key, .before, .after]]")" = "[[\"karpenter-values.yaml\",\"settings.featureGates.nodeRepair\",true,false]]" ] &&
	 [ "$(printf "%s" "$OUT" | jq -r "[.addons[].file] | sort | join(\",\")")" = "eks-node-monitoring-agent-values.yaml,karpenter-values.yaml" ]'
g checkout -q specs/minimal.yaml
gf --base "$C9" specs/minimal.yaml
check "9: nothing changed: exit 0, no add-on line" '[ "$RC" = 0 ] && ! printf "%s\n" "$OUT" | gq "^add-on"'

# ---- the sanitizers saw nothing ------------------------------------------------------
if grep -q -e 'runtime error:' -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' "$LOG"; then
	t_fail "no sanitizer reports in any run" "$(grep -B2 -A8 -m1 -e 'runtime error:' -e 'ERROR: [A-Za-z]*Sanitizer' "$LOG")"
else
	t_pass "no sanitizer reports in any run"
fi

t_summary
