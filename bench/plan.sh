#!/bin/sh
# bench/plan.sh: the `gpuform plan` benchmark behind `make bench`.
#
# Generates a fleet of BENCH_PLAN_CLUSTERS intents (default 100, one per
# cluster, fleet-NNN) of BENCH_PLAN_WORKLOADS workloads each (default 20:
# every shape of bench/gen-intent.sh once), then measures in one run, on
# the same inputs:
#   (a) ./gpuform render FILE... > /dev/null   median wall time
#   (b) ./gpuform plan FILE... > /dev/null     median wall time
# and prints the ratio plan / render (target: <= 1.0, plan costs no more
# than render; issue 13). The numbers also go to bench/results/plan.json.
#
# Run from the repository root with ./gpuform built (`make bench` does it).
# Exit status: 0 when the benchmark ran (even if the target is missed),
# non-zero on errors. No network; hyperfine as in bench/run.sh.
#
# Knobs: BENCH_PLAN_CLUSTERS (1..1000), BENCH_PLAN_WORKLOADS (1..1000),
# BENCH_RUNS (timed runs per command, default 10).
set -eu

C=${BENCH_PLAN_CLUSTERS:-100}
W=${BENCH_PLAN_WORKLOADS:-20}
RUNS=${BENCH_RUNS:-10}
GPUFORM=./gpuform
RESULTS=bench/results

die() {
	echo "bench: $*" >&2
	exit 1
}

for v in "$C" "$W" "$RUNS"; do
	case $v in '' | *[!0-9]*) die "BENCH_PLAN_CLUSTERS, BENCH_PLAN_WORKLOADS and BENCH_RUNS must be whole numbers" ;; esac
done
[ "$C" -ge 1 ] && [ "$C" -le 1000 ] || die "BENCH_PLAN_CLUSTERS must be from 1 to 1000"
[ "$W" -ge 1 ] && [ "$W" -le 1000 ] || die "BENCH_PLAN_WORKLOADS must be from 1 to 1000"
[ "$RUNS" -ge 1 ] && [ "$RUNS" -le 1000 ] || die "BENCH_RUNS must be from 1 to 1000"
[ -f bench/gen-intent.sh ] || die "run from the repository root"
[ -x "$GPUFORM" ] || die "$GPUFORM not found: build it first (make gpuform)"
command -v hyperfine >/dev/null 2>&1 || die "hyperfine is missing (bench/run.sh installs it)"

tmp=''
trap 'rm -rf ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT HUP PIPE TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuform-bench-plan.XXXXXX")

# ---- the fleet: one intent per cluster, alternating AMI families ---------
sh bench/gen-intent.sh "$W" bottlerocket >"$tmp/br.yaml"
sh bench/gen-intent.sh "$W" al2023 >"$tmp/al.yaml"
i=1
files=''
while [ "$i" -le "$C" ]; do
	name=$(printf 'fleet-%03d' "$i")
	src=$tmp/br.yaml
	[ $((i % 2)) -eq 0 ] && src=$tmp/al.yaml
	sed "s/^  name: bench-$W\$/  name: $name/" "$src" >"$tmp/$name.yaml"
	files="$files $tmp/$name.yaml"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # word splitting intended
"$GPUFORM" render $files >/dev/null 2>"$tmp/err" || die "render failed: $(head -n 20 "$tmp/err")"
# shellcheck disable=SC2086
"$GPUFORM" plan $files >"$tmp/plan.txt" 2>"$tmp/err" || die "plan failed: $(head -n 20 "$tmp/err")"
clusters=$(grep -c '^cluster fleet-' "$tmp/plan.txt")
[ "$clusters" -eq "$C" ] || die "plan printed $clusters clusters, want $C"

hf() {
	hyperfine -N --style none --warmup 1 --runs "$RUNS" \
		--export-csv "$tmp/$1.csv" "$2" >"$tmp/$1.hf" 2>&1 ||
		die "hyperfine failed on: $2
$(tail -n 20 "$tmp/$1.hf")"
}
median_ms() { awk -F, 'NR == 2 { printf "%.1f", $4 * 1000 }' "$1"; }

# hyperfine -N runs without a shell: the file list is one command line
hf render "$GPUFORM render$files"
hf plan "$GPUFORM plan$files"
r_ms=$(median_ms "$tmp/render.csv")
p_ms=$(median_ms "$tmp/plan.csv")
ratio=$(awk -v a="$p_ms" -v b="$r_ms" 'BEGIN { r = 0; if (b > 0) r = a / b; printf "%.2f", r }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r + 0 <= 1.0) ? "PASS" : "MISS" }')

echo
echo "gpuform plan benchmark: $C clusters x $W workloads, $RUNS runs each (median)"
printf '  %-34s %10s\n' "gpuform render FILE... > /dev/null" "$r_ms ms"
printf '  %-34s %10s\n' "gpuform plan FILE... > /dev/null" "$p_ms ms"
printf '  %-34s %10s  %s (target <= 1.0)\n' "ratio plan / render" "$ratio" "$verdict"

mkdir -p "$RESULTS"
cat >"$RESULTS/plan.json.tmp" <<EOF
{
  "benchmark": "plan",
  "clusters": $C,
  "workloads_per_cluster": $W,
  "runs": $RUNS,
  "render_median_ms": $r_ms,
  "plan_median_ms": $p_ms,
  "ratio_plan_to_render": $ratio,
  "target_ratio": 1.0,
  "verdict": "$verdict"
}
EOF
mv "$RESULTS/plan.json.tmp" "$RESULTS/plan.json"
echo "results:          $RESULTS/plan.json"
