#!/bin/sh
# bench/run.sh: the render benchmark behind `make bench`.
#
# Renders a generated intent with BENCH_N workloads (default 1000, see
# bench/gen-intent.sh) and measures, in one run:
#   (a) ./gpuform render FILE > /dev/null      median wall time, peak RSS
#   (b) ./gpuform render --output-dir DIR FILE           median wall time, peak RSS
#       (DIR in the temporary directory, i.e. on the real disk; every timed
#       run replaces the DIR of the previous one, as a re-render does)
#   (b') the same with DIR on tmpfs (/dev/shm), when there is one: gpuform's
#       own cost without the disk's (informational)
#   (c) kubectl kustomize DIR > /dev/null      wall time, peak RSS
# and prints the ratios (kustomize time / gpuform time), PASS/MISS against
# the targets for gpuform (< 100 ms, < 32 MiB), and whether two renders are
# byte-identical. The numbers also go to bench/results/render.json.
#
# Run from the repository root with ./gpuform built (`make bench` does both).
# Exit status: 0 when the benchmark ran (even if a target is missed),
# non-zero on errors. No network is used.
#
# Knobs (environment):
#   BENCH_N               workloads in the intent            (default 1000)
#   BENCH_RUNS            timed runs per gpuform command     (default 10; for
#                         -o fewer, but at least 3, when one run takes over
#                         500 ms, so a series stays near 5 s on a slow disk)
#   BENCH_KUSTOMIZE_RUNS  timed runs of kubectl kustomize    (default 1: at
#                         N=1000 a single run takes over a minute; 0 skips it)
#   BENCH_AMI             bottlerocket or al2023             (default bottlerocket)
#
# Tools: hyperfine (median wall time of gpuform after 1 warm-up, run without
# a shell) and GNU time (/usr/bin/time: peak RSS = the process's maximum
# resident set, and the wall time of the slow kustomize runs, where 10 ms
# resolution does not matter). Both are Debian packages, installed here
# when missing (as root).
set -eu

N=${BENCH_N:-1000}
RUNS=${BENCH_RUNS:-10}
KRUNS=${BENCH_KUSTOMIZE_RUNS:-1}
AMI=${BENCH_AMI:-bottlerocket}
TARGET_MS=100
TARGET_MIB=32
GPUFORM=./gpuform
RESULTS=bench/results

die() {
	echo "bench: $*" >&2
	exit 1
}

for v in "$N" "$RUNS" "$KRUNS"; do
	case $v in
	'' | *[!0-9]*) die "BENCH_N, BENCH_RUNS and BENCH_KUSTOMIZE_RUNS must be whole numbers" ;;
	esac
done
if [ "$N" -lt 1 ] || [ "$N" -gt 100000 ]; then die "BENCH_N must be from 1 to 100000"; fi
if [ "$RUNS" -lt 1 ] || [ "$RUNS" -gt 1000 ]; then die "BENCH_RUNS must be from 1 to 1000"; fi
[ "$KRUNS" -le 100 ] || die "BENCH_KUSTOMIZE_RUNS must be from 0 to 100"
[ -f bench/gen-intent.sh ] || die "run from the repository root (bench/gen-intent.sh not found)"
[ -x "$GPUFORM" ] || die "$GPUFORM not found: build it first (make gpuform)"

# ---- tools ---------------------------------------------------------------
need=''
command -v hyperfine >/dev/null 2>&1 || need="$need hyperfine"
# GNU time, not the shell keyword: it must understand -f %M
/usr/bin/time -f %M -o /dev/null true >/dev/null 2>&1 || need="$need time"
need=${need# }
if [ -n "$need" ]; then
	[ "$(id -u)" -eq 0 ] ||
		die "missing Debian packages: $need; run as root: apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $need"
	echo "bench: installing $need"
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086 # word splitting intended
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
	command -v hyperfine >/dev/null 2>&1 || die "hyperfine is still missing"
fi
if [ "$KRUNS" -gt 0 ]; then
	command -v kubectl >/dev/null 2>&1 ||
		die "kubectl is not on PATH (needed for the kustomize baseline; see tests/deps.sh)"
fi

tmp='' shm=''
trap 'rm -rf ${tmp:+"$tmp"} ${shm:+"$shm"}' EXIT
trap 'exit 130' INT HUP PIPE TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuform-bench.XXXXXX")
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/gpuform-bench.XXXXXX) || shm=''
fi

# ---- helpers -------------------------------------------------------------

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# runs_for MS: timed runs for a command that took MS once: BENCH_RUNS, but
# when one run takes over half a second only as many as fit in about 5 s,
# and never fewer than 3
runs_for() {
	r=$RUNS
	if [ "$1" -gt 500 ]; then
		r=$((5000 / $1))
		[ "$r" -ge 3 ] || r=3
		[ "$r" -le "$RUNS" ] || r=$RUNS
	fi
	echo "$r"
}

# csv_ms CSV COLUMN: a column of a hyperfine CSV (mean=2 stddev=3 median=4
# min=7 max=8), seconds -> ms
csv_ms() {
	awk -F, -v c="$2" 'NR == 2 { printf "%.1f", $c * 1000 }' "$1"
}

# hf NAME RUNS CMD: hyperfine CMD (no shell; stdout to /dev/null) into $tmp/NAME.csv
hf() {
	hyperfine -N --style none --warmup 1 --runs "$2" \
		--export-csv "$tmp/$1.csv" "$3" >"$tmp/$1.hf" 2>&1 ||
		die "hyperfine failed on: $3
$(tail -n 20 "$tmp/$1.hf")"
}

# rss_kib OUT CMD...: run CMD once under GNU time (stdout to OUT, stderr to
# OUT.err) and print its maximum resident set in KiB
rss_kib() {
	out=$1
	shift
	/usr/bin/time -f %M -o "$tmp/rss" "$@" >"$out" 2>"$out.err" ||
		die "failed: $*
$(tail -n 20 "$out.err")"
	tail -n 1 "$tmp/rss"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = 0; if (b > 0) r = a / b; printf "%.1f", r }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { r = "MISS"; if (v + 0 < t + 0) r = "PASS"; print r }'; }

# ---- input and reference renders -----------------------------------------
intent=$tmp/intent.yaml
sh bench/gen-intent.sh "$N" "$AMI" >"$intent"
"$GPUFORM" validate "$intent" >"$tmp/validate.out" 2>&1 ||
	die "the generated intent does not validate:
$(head -n 20 "$tmp/validate.out")"

# (the -o runs are timed once here to choose how many timed runs they get)
"$GPUFORM" render "$intent" >"$tmp/ref.yaml" 2>"$tmp/err" ||
	die "render failed: $(head -n 20 "$tmp/err")"
t1=$(now_ms)
"$GPUFORM" render --output-dir "$tmp/ref" "$intent" >/dev/null 2>"$tmp/err" ||
	die "render --output-dir failed: $(head -n 20 "$tmp/err")"
t2=$(now_ms)
runs_a=$RUNS
runs_b=$(runs_for $((t2 - t1)))
runs_s=$RUNS
if [ -n "$shm" ]; then
	t0=$(now_ms)
	"$GPUFORM" render --output-dir "$shm/ref" "$intent" >/dev/null 2>"$tmp/err" ||
		die "render --output-dir failed on tmpfs: $(head -n 20 "$tmp/err")"
	runs_s=$(runs_for $(($(now_ms) - t0)))
	rm -rf "$shm/ref"
fi

objects=$(grep -c '^kind:' "$tmp/ref.yaml" || true)
stdout_bytes=$(wc -c <"$tmp/ref.yaml" | tr -d ' ')
files=$(find "$tmp/ref" -type f | wc -l | tr -d ' ')
dir_bytes=$(find "$tmp/ref" -type f -exec cat {} + | wc -c | tr -d ' ')
fstype=$(findmnt -n -o FSTYPE --target "$tmp" 2>/dev/null ||
	stat -f -c %T "$tmp" 2>/dev/null || echo unknown)

echo "bench: $N workloads ($AMI) -> $objects objects, $files files;" \
	"DIR on $fstype${shm:+ and tmpfs}; kubectl kustomize x$KRUNS"

# ---- (a), (b), (b'): gpuform ---------------------------------------------
hf stdout "$runs_a" "$GPUFORM render $intent"
hf dir "$runs_b" "$GPUFORM render --output-dir $tmp/out $intent"
a_ms=$(csv_ms "$tmp/stdout.csv" 4)
b_ms=$(csv_ms "$tmp/dir.csv" 4)
a_kib=$(rss_kib "$tmp/a.yaml" "$GPUFORM" render "$intent")
b_kib=$(rss_kib "$tmp/b.out" "$GPUFORM" render --output-dir "$tmp/out" "$intent")
s_ms=0 s_kib=0
if [ -n "$shm" ]; then
	hf shm "$runs_s" "$GPUFORM render --output-dir $shm/out $intent"
	s_ms=$(csv_ms "$tmp/shm.csv" 4)
	s_kib=$(rss_kib "$tmp/s.out" "$GPUFORM" render --output-dir "$shm/out" "$intent")
fi

# determinism: the reference renders against later ones of the same intent
deterministic=true
cmp -s "$tmp/ref.yaml" "$tmp/a.yaml" || deterministic=false
diff -r "$tmp/ref" "$tmp/out" >"$tmp/diff" 2>&1 || deterministic=false
if [ -n "$shm" ]; then
	diff -r "$tmp/ref" "$shm/out" >>"$tmp/diff" 2>&1 || deterministic=false
fi
rm -rf "$tmp/out" ${shm:+"$shm/out"}

# ---- (c): kubectl kustomize over the rendered directory ------------------
c_ms=0 c_kib=0
if [ "$KRUNS" -gt 0 ]; then
	i=0
	: >"$tmp/kwall"
	while [ "$i" -lt "$KRUNS" ]; do
		/usr/bin/time -f '%e %M' -o "$tmp/kt" \
			kubectl kustomize "$tmp/ref" >"$tmp/k.yaml" 2>"$tmp/k.err" ||
			die "kubectl kustomize failed: $(tail -n 20 "$tmp/k.err")"
		tail -n 1 "$tmp/kt" >"$tmp/kt1"
		read -r sec kib <"$tmp/kt1"
		echo "$sec" >>"$tmp/kwall"
		[ "$kib" -gt "$c_kib" ] && c_kib=$kib
		i=$((i + 1))
	done
	c_ms=$(sort -n "$tmp/kwall" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f", m * 1000 }')
	k_objects=$(grep -c '^kind:' "$tmp/k.yaml" || true)
	[ "$k_objects" -eq "$objects" ] ||
		die "kubectl kustomize emitted $k_objects objects, gpuform rendered $objects"
fi

# ---- report --------------------------------------------------------------
a_mib=$(mib "$a_kib")
b_mib=$(mib "$b_kib")
s_mib=$(mib "$s_kib")
c_mib=$(mib "$c_kib")
ra=n/a rb=n/a rs=n/a
if [ "$KRUNS" -gt 0 ]; then
	ra=$(ratio "$c_ms" "$a_ms")x
	rb=$(ratio "$c_ms" "$b_ms")x
	rs=$(ratio "$c_ms" "$s_ms")x
fi
a_v="$(verdict "$a_ms" "$TARGET_MS") $(verdict "$a_mib" "$TARGET_MIB")"
b_v="$(verdict "$b_ms" "$TARGET_MS") $(verdict "$b_mib" "$TARGET_MIB")"
s_v="$(verdict "$s_ms" "$TARGET_MS") $(verdict "$s_mib" "$TARGET_MIB")"

row() { printf '%-36s %5s %10s %9s %15s   %s\n' "$@"; }
echo
row "command" runs "median ms" "RSS MiB" "kustomize/this" "time, RSS vs <${TARGET_MS} ms, <${TARGET_MIB} MiB"
row "gpuform render > /dev/null" "$runs_a" "$a_ms" "$a_mib" "$ra" "$a_v"
row "gpuform render --output-dir DIR ($fstype)" "$runs_b" "$b_ms" "$b_mib" "$rb" "$b_v"
[ -z "$shm" ] || row "gpuform render --output-dir DIR (tmpfs)" "$runs_s" "$s_ms" "$s_mib" "$rs" "$s_v"
if [ "$KRUNS" -gt 0 ]; then
	row "kubectl kustomize DIR" "$KRUNS" "$c_ms" "$c_mib" "1.0x" ""
else
	row "kubectl kustomize DIR" 0 "-" "-" "-" "(skipped: BENCH_KUSTOMIZE_RUNS=0)"
fi
echo
echo "objects rendered: $objects ($stdout_bytes bytes on stdout)"
echo "files in DIR:     $files ($dir_bytes bytes)"
spread="stdout $(csv_ms "$tmp/stdout.csv" 7)..$(csv_ms "$tmp/stdout.csv" 8) ms"
spread="$spread, -o $(csv_ms "$tmp/dir.csv" 7)..$(csv_ms "$tmp/dir.csv" 8) ms"
[ -z "$shm" ] || spread="$spread, -o tmpfs $(csv_ms "$tmp/shm.csv" 7)..$(csv_ms "$tmp/shm.csv" 8) ms"
echo "gpuform min..max: $spread"
if $deterministic; then
	echo "determinism:      renders byte-identical (stdout: cmp of 2 runs; -o: diff -r of 2${shm:+ + 1 tmpfs} runs)"
else
	echo "determinism:      DIFFERENT: renders of the same intent differ:"
	head -n 10 "$tmp/diff"
fi

# ---- JSON ----------------------------------------------------------------
# shellcheck disable=SC1003 # tr deletes double quotes and backslashes
json_str() { tr -d '"\\' | tr '\n' ' ' | sed 's/ *$//'; }
json_ratio() { if [ "$KRUNS" -gt 0 ]; then ratio "$c_ms" "$1"; else echo null; fi; }
shm_json=null
if [ -n "$shm" ]; then
	shm_json="{ \"runs\": $runs_s, \"median_ms\": $s_ms, \"min_ms\": $(csv_ms "$tmp/shm.csv" 7), \"max_ms\": $(csv_ms "$tmp/shm.csv" 8), \"peak_rss_kib\": $s_kib, \"peak_rss_mib\": $s_mib, \"ratio_kustomize_over_this\": $(json_ratio "$s_ms"), \"time\": \"$(verdict "$s_ms" "$TARGET_MS")\", \"rss\": \"$(verdict "$s_mib" "$TARGET_MIB")\" }"
fi
mkdir -p "$RESULTS"
cat >"$RESULTS/render.json.tmp" <<EOF
{
  "benchmark": "render",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "gpuform_version": "$("$GPUFORM" version 2>/dev/null | head -n 1 | json_str)",
  "kubectl_version": "$(kubectl version --client 2>/dev/null | json_str)",
  "workloads": $N,
  "ami": "$AMI",
  "objects": $objects,
  "files": $files,
  "stdout_bytes": $stdout_bytes,
  "dir_bytes": $dir_bytes,
  "dir_filesystem": "$fstype",
  "targets": { "wall_ms": $TARGET_MS, "rss_mib": $TARGET_MIB },
  "gpuform_stdout": { "runs": $runs_a, "median_ms": $a_ms, "min_ms": $(csv_ms "$tmp/stdout.csv" 7), "max_ms": $(csv_ms "$tmp/stdout.csv" 8), "peak_rss_kib": $a_kib, "peak_rss_mib": $a_mib, "ratio_kustomize_over_this": $(json_ratio "$a_ms"), "time": "$(verdict "$a_ms" "$TARGET_MS")", "rss": "$(verdict "$a_mib" "$TARGET_MIB")" },
  "gpuform_dir": { "runs": $runs_b, "median_ms": $b_ms, "min_ms": $(csv_ms "$tmp/dir.csv" 7), "max_ms": $(csv_ms "$tmp/dir.csv" 8), "peak_rss_kib": $b_kib, "peak_rss_mib": $b_mib, "ratio_kustomize_over_this": $(json_ratio "$b_ms"), "time": "$(verdict "$b_ms" "$TARGET_MS")", "rss": "$(verdict "$b_mib" "$TARGET_MIB")" },
  "gpuform_dir_tmpfs": $shm_json,
  "kubectl_kustomize": $(if [ "$KRUNS" -gt 0 ]; then echo "{ \"runs\": $KRUNS, \"median_ms\": $c_ms, \"peak_rss_kib\": $c_kib, \"peak_rss_mib\": $c_mib }"; else echo null; fi),
  "deterministic": $deterministic
}
EOF
mv "$RESULTS/render.json.tmp" "$RESULTS/render.json"
echo "results:          $RESULTS/render.json"
