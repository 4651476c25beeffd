#!/usr/bin/env bash
# tests/advise.sh: `gpuform advise` against a real Prometheus (Debian's
# prometheus package) on 127.0.0.1, holding 14 days of series that
# tests/tools/promgen.py writes and `promtool tsdb create-blocks-from
# openmetrics` backfills: the scenarios of tests/advise/fleet.yaml (an
# oversized fine-tune quota, a starved training queue, under-used inference,
# notebooks idle nights and weekends, a healthy pool) and of
# tests/advise/bottlerocket.yaml and al2023.yaml (MIG on Bottlerocket,
# time-slicing on AL2023, spot for checkpointed work past its reservation,
# an 'interruption: none' gang left alone). Then --write, --commit
# and `diff` of the result, thin data, and the faults a real Prometheus does
# not produce on demand (tests/tools/promfake.py): nothing is ever written.
#
#   GPUFORM=build/san/gpuform bash tests/advise.sh
# Closing line: "N passed, N failed".

# shellcheck disable=SC2016 # check conditions: single-quoted, eval'd later
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
t_isolate
t_git_isolate
t_gpuform
t_need prometheus promtool python3 git curl
WORK=
t_tmpdir WORK

END=1795996800 # 2026-11-30T00:00:00Z
STEP=3600
gf() {
	OUT=$(cd "${CWD:-$root}" && timeout 300 "$GPUFORM" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
}
has_out() { printf '%s\n' "$OUT" | gq -F -- "$1"; }
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }

# ---- a real Prometheus with 14 days of backfilled data ---------------------
python3 tests/tools/promgen.py "$END" 15 "$STEP" >"$WORK/fleet.om" ||
	t_abort "promgen.py"
t_setup "backfill $(wc -c <"$WORK/fleet.om") bytes of OpenMetrics" \
	'promtool tsdb create-blocks-from openmetrics -q "$WORK/fleet.om" "$WORK/tsdb" >"$WORK/promtool.log" 2>&1'
python3 tests/tools/promgen.py "$END" 15 "$STEP" nolabel >"$WORK/nolabel.om" ||
	t_abort "promgen.py nolabel"
t_setup "backfill the scenario without the nodepool label" \
	'promtool tsdb create-blocks-from openmetrics -q "$WORK/nolabel.om" "$WORK/tsdb-nolabel" >>"$WORK/promtool.log" 2>&1'
rm -f "$WORK/fleet.om" "$WORK/nolabel.om"
printf 'global:\n  scrape_interval: 1h\n' >"$WORK/prom.yml"

# start_prom TSDB VAR: Prometheus on a free loopback port, its URL in VAR
start_prom() {
	local tsdb=$1 var=$2 port i
	port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
	prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$tsdb" \
		--storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
		>"$tsdb.log" 2>&1 &
	t_on_exit "kill $! 2>/dev/null"
	for i in $(seq 1 120); do
		curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
		sleep 0.5
	done
	curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 ||
		t_abort "Prometheus on port $port" "$(tail -5 "$tsdb.log")"
	printf -v "$var" 'http://127.0.0.1:%s' "$port"
	t_note "setup: $(prometheus --version 2>&1 | head -1) on port $port"
}
start_prom "$WORK/tsdb" PROM
start_prom "$WORK/tsdb-nolabel" PROM_NOLABEL

A=(advise --prometheus "$PROM" --at "$END" --window 14d --step 1h --timeout 120s)

# ---- the recommendations ------------------------------------------------------
mkdir -p "$WORK/repo"
cp tests/advise/fleet.yaml "$WORK/repo/fleet.yaml"
git -C "$WORK/repo" init -q -b main && git -C "$WORK/repo" add fleet.yaml &&
	git -C "$WORK/repo" commit -q -m fleet || t_abort "git repository"
gf "${A[@]}" -o json "$WORK/repo/fleet.yaml"
JSON=$OUT
check 'advise: exit 1 when changes are recommended' '[ $RC -eq 1 ]'
rec() { # rec WORKLOAD FIELD: one field of the JSON recommendation
	printf '%s' "$JSON" | python3 -c 'import json,sys
d=json.load(sys.stdin)
w=[x for x in d["files"][0]["workloads"] if x["workload"]==sys.argv[1]][0]
print(w.get(sys.argv[2], ""))' "$1" "$2"
}
check 'oversized fine-tune quota: maxGpus 64 -> 24 (peak 16 + 25%, whole 8-GPU nodes)' \
	'[ "$(rec finetune recommendation)" = lower-max-gpus ] && [ "$(rec finetune newMaxGpus)" = 24 ]'
check 'starved training queue: maxGpus 32 -> 64 (one more 4 x 8 gang)' \
	'[ "$(rec pretrain recommendation)" = raise-max-gpus ] && [ "$(rec pretrain newMaxGpus)" = 64 ]'
check 'under-used inference: time-slicing x4 and maxGpus 16 -> 3' \
	'[ "$(rec chat recommendation)" = time-slicing ] && [ "$(rec chat timeSlicingReplicas)" = 4 ] && [ "$(rec chat newMaxGpus)" = 3 ]'
check 'notebooks idle nights and weekends, GPUs 2-5% busy: time-slicing and fewer GPUs' \
	'[ "$(rec notebooks recommendation)" = time-slicing ] && [ "$(rec notebooks newMaxGpus)" = 2 ]'
check 'healthy pool: nothing recommended' \
	'[ "$(rec ranker recommendation)" = none ] && [ "$(rec ranker changesIntent)" = False ]'
check 'every change carries its evidence, cost and node impact' \
	'[ "$(printf %s "$JSON" | python3 -c "import json,sys
d=json.load(sys.stdin)
print(all(w[\"why\"] and w[\"observed\"] and (not w[\"changesIntent\"] or (\"usdPerHourAfter\" in w and w[\"nodeImpact\"])) for w in d[\"files\"][0][\"workloads\"]))")" = True ]'
check 'a quota is never lowered below the observed peak or a gang' \
	'[ "$(printf %s "$JSON" | python3 -c "import json,sys
d=json.load(sys.stdin)
ok=True
for w in d[\"files\"][0][\"workloads\"]:
    n=w.get(\"newMaxGpus\")
    if n is None: continue
    r=w.get(\"timeSlicingReplicas\",1)
    ok=ok and n*r >= w[\"observed\"][\"requestedUnitsPeak\"]
print(ok)")" = True ]'

gf "${A[@]}" "$WORK/repo/fleet.yaml"
check 'text: the time-slicing change replaces the nodes of pool chat' \
	'has_out "node impact: 1 node-replacing change (pool chat)"'
# finetune 64 -> 24 H100s on p5.48xlarge (55.04, the only type): ceiling and floor
# are both 8 -> 3 nodes, 440.32 -> 165.12; (165.12 - 440.32) x 730 = -200896
check 'text: the cost effect in USD/h and USD/month, ceiling and floor' \
	'has_out "plan'"'"'s ceiling 440.32 USD/h -> 165.12 USD/h (-275.20 USD/h, -200896 USD/month); floor 440.32 USD/h -> 165.12 USD/h (-200896 USD/month)"'
# with spot prices (tests/fixtures/prices/spot-us-east-1-sample.json: p5.48xlarge's median
# over zones 32): finetune 8 -> 3 nodes, 256.00 -> 96.00, (96 - 256) x 730 = -116800
gf "${A[@]}" --spot-prices "$root/tests/fixtures/prices/spot-us-east-1-sample.json" "$WORK/repo/fleet.yaml"
check 'text: --spot-prices adds the cost at spot prices' \
	'has_out "; at spot prices 256.00 USD/h -> 96.00 USD/h (-116800 USD/month)"'
printf '{"SpotPriceHistory": [\n' >"$WORK/spot-trunc.json"
gf "${A[@]}" --spot-prices "$WORK/spot-trunc.json" "$WORK/repo/fleet.yaml"
check 'a truncated --spot-prices file: exit 3, file:line:col, nothing printed' \
	'[ $RC -eq 3 ] && has_err "spot-trunc.json:1:23: not valid JSON" && [ -z "$OUT" ]'
gf "${A[@]}" -o markdown "$WORK/repo/fleet.yaml"
check 'markdown: a table for the pull request body' \
	'has_out "| workload | recommendation | evidence | cost | node impact |" && has_out "| \`chat\` | \`sharing: none -> {timeSlicing: 4}, maxGpus: 16 -> 3\` |"'
check 'advise without --write changes no file' \
	'cmp -s tests/advise/fleet.yaml "$WORK/repo/fleet.yaml"'

# ---- --write: minimal edits that validate -----------------------------------
gf "${A[@]}" --write "$WORK/repo/fleet.yaml"
check 'advise --write: exit 1 (changes written)' '[ $RC -eq 1 ]'
diff tests/advise/fleet.yaml "$WORK/repo/fleet.yaml" >"$WORK/write.diff"
cat >"$WORK/write.expect" <<'EOF'
20c20
<       maxGpus: 64   # sized for a launch that never came
---
>       maxGpus: 24   # sized for a launch that never came
29c29
<       maxGpus: 32
---
>       maxGpus: 64
36c36,37
<       maxGpus: 16
---
>       maxGpus: 3
>       sharing: {timeSlicing: 4}
42c43,44
<       maxGpus: 16
---
>       maxGpus: 2
>       sharing: {timeSlicing: 4}
EOF
check '--write changes only the recommended keys (comments and order kept)' \
	'diff -u "$WORK/write.expect" "$WORK/write.diff"'
gf validate "$WORK/repo/fleet.yaml"
check 'the written intent validates' '[ $RC -eq 0 ]'
CWD=$WORK/repo gf diff --base HEAD fleet.yaml
check 'diff of the result shows the cost section and the node impact' \
	'[ $RC -eq 1 ] && has_out "node-replacing" && has_out "USD"'
gf "${A[@]}" "$WORK/repo/fleet.yaml"
check 'advise on its own result: finetune and notebooks are left alone' \
	'has_out "  finetune: none" && has_out "  notebooks: none"'
cp "$WORK/repo/fleet.yaml" "$WORK/written.yaml"
git -C "$WORK/repo" checkout -q fleet.yaml

# ---- --commit: a branch for a pull request ----------------------------------
head_before=$(git -C "$WORK/repo" rev-parse HEAD)
gf "${A[@]}" --commit --branch advise/gpu-usage "$WORK/repo/fleet.yaml"
check 'advise --commit: the branch exists, HEAD and the work tree untouched' \
	'[ $RC -eq 1 ] && [ "$(git -C "$WORK/repo" rev-parse HEAD)" = "$head_before" ] && git -C "$WORK/repo" diff --quiet && git -C "$WORK/repo" rev-parse -q --verify advise/gpu-usage >/dev/null'
check 'the branch holds exactly the --write result' \
	'git -C "$WORK/repo" show advise/gpu-usage:fleet.yaml | cmp -s - "$WORK/written.yaml"'
msg=$(git -C "$WORK/repo" log -1 --format=%B advise/gpu-usage)
check 'the commit message carries the evidence' \
	'printf %s "$msg" | gq "^gpuform advise: 4 changes from observed GPU usage" && printf %s "$msg" | gq "why: gangs waited for quota"'
branch_before=$(git -C "$WORK/repo" rev-parse advise/gpu-usage)
gf "${A[@]}" --commit --branch advise/gpu-usage "$WORK/repo/fleet.yaml"
check 'an existing branch is refused (exit 4), nothing committed' \
	'[ $RC -eq 4 ] && has_err "exists already" && [ "$(git -C "$WORK/repo" rev-parse advise/gpu-usage)" = "$branch_before" ]'

# ---- MIG on Bottlerocket, time-slicing on AL2023, spot for checkpointed work --
SPOT=$root/tests/fixtures/prices/spot-us-east-1-sample.json
mkdir -p "$WORK/br"
cp tests/advise/bottlerocket.yaml tests/advise/al2023.yaml "$WORK/br/"
git -C "$WORK/br" init -q -b main && git -C "$WORK/br" add . &&
	git -C "$WORK/br" commit -q -m br || t_abort "git repository br"
gf "${A[@]}" --spot-prices "$SPOT" -o json "$WORK/br/bottlerocket.yaml"
JSON=$OUT
check 'bottlerocket: exit 1, two changes' \
	'[ $RC -eq 1 ] && [ "$(printf %s "$JSON" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"files\"][0][\"changes\"])")" = 2 ]'
# embed: 4 x 1 H100, p95 8% busy, 6000 MiB at p95, 7000 at the peak, of 81920:
# 1g.10gb = 10/80 x 81920 = 10240 MiB (6000 <= 8192, 7000 <= 9216), 8 x 7 = 56% <= 60%
check 'Bottlerocket H100 inference whose memory fits a slice: MIG 1g.10gb, 7 per GPU, maxGpus 8 -> 1' \
	'[ "$(rec embed recommendation)" = mig ] && [ "$(rec embed migProfile)" = 1g.10gb ] && [ "$(rec embed migInstancesPerGpu)" = 7 ] && [ "$(rec embed newMaxGpus)" = 1 ]'
check 'an interruption: none gang as idle as embed: nothing, and the reason' \
	'[ "$(rec shard recommendation)" = none ] && [ "$(rec shard changesIntent)" = False ] && rec shard why | gq "never moved to spot or shared"'
check 'checkpointed work past its one reserved node: whenExhausted on-demand -> spot' \
	'[ "$(rec overflow recommendation)" = spot-fallback ] && [ "$(rec overflow whenExhausted)" = spot ] && [ -z "$(rec overflow newMaxGpus)" ]'
check 'the framebuffer peak is part of the evidence' \
	'rec embed observed | gq "framebufferUsedMiBPeak.: 7000"'
gf "${A[@]}" --spot-prices "$SPOT" -o json "$WORK/br/al2023.yaml"
JSON=$OUT
# AL2023: no MIG in gpuform; min(4, 60 / 8, 0.8 x 81920 / 6000) = 4; 4 x 1.25 / 4 -> 2
check 'the same series on AL2023: time-slicing x4, maxGpus 8 -> 2' \
	'[ "$(rec embed recommendation)" = time-slicing ] && [ "$(rec embed timeSlicingReplicas)" = 4 ] && [ "$(rec embed newMaxGpus)" = 2 ]'
gf "${A[@]}" --spot-prices "$SPOT" "$WORK/br/bottlerocket.yaml"
check 'text: the MIG change, its cost (8 -> 1 H100: 55.04 -> 6.88 USD/h) and its node impact' \
	'has_out "embed: mig: sharing: none -> {mig: 1g.10gb}, maxGpus: 8 -> 1 (line 18)" && has_out "plan'"'"'s ceiling 55.04 USD/h -> 6.88 USD/h" && has_out "node impact: 1 node-replacing change (pool embed)"'
# overflow: 4 x p5.48xlarge = 220.16 on-demand; at spot (32 each) with the reserved
# node's quarter on-demand: 55.04 + 3 x 32 = 151.04; (151.04 - 220.16) x 730 = -50458
check 'text: spot-fallback costs the overflow at spot prices, the reservation on-demand' \
	'has_out "overflow: spot-fallback: capacity.whenExhausted: on-demand -> spot (line 40)" && has_out "at spot prices 220.16 USD/h -> 151.04 USD/h (-50458 USD/month)"'
gf "${A[@]}" --write "$WORK/br/bottlerocket.yaml"
diff tests/advise/bottlerocket.yaml "$WORK/br/bottlerocket.yaml" >"$WORK/br.diff"
cat >"$WORK/br.expect" <<'EOF'
18c18,19
<       maxGpus: 8
---
>       maxGpus: 1
>       sharing: {mig: 1g.10gb}
40c41
<         whenExhausted: on-demand   # what runs past the reservation
---
>         whenExhausted: spot   # what runs past the reservation
EOF
check '--write (MIG, spot): only the recommended keys change, the comment is kept' \
	'[ $RC -eq 1 ] && diff -u "$WORK/br.expect" "$WORK/br.diff"'
gf validate "$WORK/br/bottlerocket.yaml"
check 'the written MIG and spot intent validates' '[ $RC -eq 0 ]'
CWD=$WORK/br gf diff --base HEAD bottlerocket.yaml
check 'diff of the result shows the cost and the node impact of the MIG pool' \
	'[ $RC -eq 1 ] && has_out "node-replacing" && has_out "USD" && has_out "embed"'
gf "${A[@]}" "$WORK/br/bottlerocket.yaml"
check 'advise on its own MIG and spot result: nothing more (exit 0)' \
	'[ $RC -eq 0 ] && has_out "0 changes recommended"'

# ---- too little data: no recommendation -------------------------------------
gf advise --prometheus "$PROM" --at "$END" --window 3d --step 1h "$WORK/repo/fleet.yaml"
check 'a 3-day window: insufficient data for every workload, exit 0' \
	'[ $RC -eq 0 ] && [ "$(printf "%s\n" "$OUT" | grep -c ": insufficient-data$")" = 5 ] && has_out "at least 7 are needed"'
gf advise --prometheus "$PROM" --at $((END + 10 * 86400)) --window 14d --step 1h "$WORK/repo/fleet.yaml"
check 'data covering 4 of 14 days: insufficient data' \
	'[ $RC -eq 0 ] && has_out "kube-state-metrics data covers 29% of the window"'
gf advise --prometheus "$PROM_NOLABEL" --at "$END" --window 14d --step 1h "$WORK/repo/fleet.yaml"
check 'no karpenter.sh/nodepool label in kube_node_labels: insufficient data with the fix' \
	'[ $RC -eq 0 ] && has_out "--metric-labels-allowlist=nodes=[karpenter.sh/nodepool]"'

# ---- Prometheus down, slow, refusing, partial: a clear error, nothing written
cp "$WORK/repo/fleet.yaml" "$WORK/keep.yaml"
dead=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
gf advise --prometheus "http://127.0.0.1:$dead" --at "$END" --write "$WORK/repo/fleet.yaml"
check 'Prometheus down: exit 4, nothing written' \
	'[ $RC -eq 4 ] && has_err "nothing was written" && cmp -s "$WORK/keep.yaml" "$WORK/repo/fleet.yaml"'
for mode in error warnings series huge notjson escape slow; do
	mkdir -p "$WORK/fake-$mode"
	python3 tests/tools/promfake.py "$WORK/fake-$mode" "$mode" &
	t_on_exit "kill $! 2>/dev/null"
	for i in $(seq 1 100); do [ -f "$WORK/fake-$mode/port" ] && break; sleep 0.1; done
	[ -f "$WORK/fake-$mode/port" ] || t_abort "promfake.py $mode"
	gf advise --prometheus "http://127.0.0.1:$(cat "$WORK/fake-$mode/port")" --at "$END" \
		--timeout 2s --write "$WORK/repo/fleet.yaml"
	case $mode in
	error) want='refused: HTTP 400, bad_data: invalid parameter' ;;
	warnings) want='answered only in part' ;;
	series) want='more than one series' ;;
	huge) want='answer larger than 1048576 bytes' ;;
	notjson) want='502 Bad Gateway' ;;
	escape) want='\x1b]0;owned\x07\x1b[2Jall checks passed' ;;
	slow) want='did not answer within 2000 ms' ;;
	esac
	check "Prometheus $mode: exit 4, a clear error, nothing written" \
		'[ $RC -eq 4 ] && has_err "$want" && cmp -s "$WORK/keep.yaml" "$WORK/repo/fleet.yaml"'
	check "Prometheus $mode: one request, then it stops" \
		'[ "$(wc -l <"$WORK/fake-$mode/requests")" -eq 1 ]'
done
check 'escape sequences from Prometheus never reach the terminal' \
	'! grep -q "$(printf "\033")" "$WORK/stderr"'

# ---- --prometheus-token-file: a bearer token, through the same HTTP client ------
# the real Prometheus has no auth; promfake.py auth answers 401 unless the header is right
mkdir -p "$WORK/fake-auth"
printf 's3cret-TOKEN-42\n' >"$WORK/fake-auth/token"
python3 tests/tools/promfake.py "$WORK/fake-auth" auth &
t_on_exit "kill $! 2>/dev/null"
for i in $(seq 1 100); do [ -f "$WORK/fake-auth/port" ] && break; sleep 0.1; done
[ -f "$WORK/fake-auth/port" ] || t_abort "promfake.py auth"
FAKE="http://127.0.0.1:$(cat "$WORK/fake-auth/port")"
printf 's3cret-TOKEN-42\n' >"$WORK/token"
gf advise --prometheus "$FAKE" --at "$END" --timeout 5s --prometheus-token-file "$WORK/token" "$WORK/repo/fleet.yaml"
check 'token file: every request carries Authorization: Bearer TOKEN (accepted)' \
	'[ $RC -ne 4 ] && [ -s "$WORK/fake-auth/auth" ] && ! grep -vqx "Bearer s3cret-TOKEN-42" "$WORK/fake-auth/auth"'
check 'token file: the token is never printed' \
	'! printf "%s\n%s\n" "$OUT" "$ERR" | gq "s3cret-TOKEN-42"'
: >"$WORK/fake-auth/auth"
gf advise --prometheus "$FAKE" --at "$END" --timeout 5s "$WORK/repo/fleet.yaml"
check 'without the token: no Authorization header, the 401 is a clear error (exit 4)' \
	'[ $RC -eq 4 ] && has_err "HTTP 401" && grep -qx -- "-" "$WORK/fake-auth/auth"'
# re-read per run: a rotated token is used by the next run
printf 'rotated-TOKEN-43\n' >"$WORK/token"
printf 'rotated-TOKEN-43\n' >"$WORK/fake-auth/token"
: >"$WORK/fake-auth/auth"
gf advise --prometheus "$FAKE" --at "$END" --timeout 5s --prometheus-token-file "$WORK/token" "$WORK/repo/fleet.yaml"
check 'token file: re-read at every run (the rotated token is sent)' \
	'[ $RC -ne 4 ] && grep -qx "Bearer rotated-TOKEN-43" "$WORK/fake-auth/auth"'
: >"$WORK/fake-auth/auth"
printf '' >"$WORK/empty-token"
gf advise --prometheus "$FAKE" --at "$END" --prometheus-token-file "$WORK/empty-token" "$WORK/repo/fleet.yaml"
check 'an empty token file: exit 3, names the file, no request sent' \
	'[ $RC -eq 3 ] && has_err "empty-token: the token file is empty" && [ ! -s "$WORK/fake-auth/auth" ]'

# ---- usage ------------------------------------------------------------------
gf advise "$WORK/repo/fleet.yaml"
check 'advise without --prometheus: usage error' '[ $RC -eq 2 ] && has_err "--prometheus URL is required"'
gf advise --prometheus "http://u:p@127.0.0.1:1" "$WORK/repo/fleet.yaml"
check 'a URL with user info is refused before any request (usage, exit 2)' '[ $RC -eq 2 ] && has_err "must not carry user info"'
gf advise --prometheus "$PROM" --commit "$WORK/repo/fleet.yaml"
check '--commit without --branch: usage error' '[ $RC -eq 2 ] && has_err "--commit needs --branch"'
gf advise --prometheus "$PROM" --window 2w "$WORK/repo/fleet.yaml"
check 'a bad --window: usage error' '[ $RC -eq 2 ] && has_err "--window takes"'
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata: {name: x}\nspec:\n  workloads: 3\n' >"$WORK/bad.yaml"
gf advise --prometheus "$PROM" "$WORK/bad.yaml"
check 'an invalid intent: exit 3, no query sent' '[ $RC -eq 3 ] && has_err "bad.yaml:"'

t_summary
exit $?
}
