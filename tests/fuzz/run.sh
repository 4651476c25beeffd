#!/bin/sh
# tests/fuzz/run.sh [SECONDS]: run every libFuzzer target for SECONDS
# (default 60) and print, per target, executions, executions per second,
# coverage (cov: of the final stats line) and whether it found anything.
#
# The checked-in seeds (tests/fuzz/corpus/<target>/) and dictionaries
# (tests/fuzz/dict/<target>.dict) are only read: new
# inputs go to a scratch corpus under FUZZ_WORK (default a new
# /tmp/gpuform-fuzz.XXXXXX), and so do crash/leak/timeout reproducers and
# the logs. Exit status 1 when any target found something.
#
# Environment:
#   FUZZ_TARGETS   targets to run (default: all eight), e.g. "yaml template"
#   FUZZ_PARALLEL  targets run at the same time (default 1)
#   FUZZ_WORK      scratch directory (kept afterwards)
#   FUZZ_KEEP_GOING=1  do not stop at the first finding (-fork=1 with
#                  -ignore_crashes/-ignore_timeouts/-ignore_ooms)
#   FUZZ_NO_BUILD=1    do not run `make fuzz-build` first
#   FUZZ_ARGS      extra libFuzzer flags
set -u

seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
targets=${FUZZ_TARGETS:-"intent yaml kubeconfig json_response template lint kube_response pricelist"}
parallel=${FUZZ_PARALLEL:-1}
bindir=$root/build/fuzz

case $seconds in
'' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

if [ "${FUZZ_NO_BUILD:-}" != 1 ]; then
	make -C "$root" --no-print-directory -s fuzz-build || exit 2
fi

work=${FUZZ_WORK:-}
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/gpuform-fuzz.XXXXXX) || exit 2
fi
mkdir -p "$work" || exit 2

# symbolized stacks even if a target changes PATH (fuzz_kubeconfig does)
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
	for s in llvm-symbolizer llvm-symbolizer-14; do
		p=$(command -v $s 2>/dev/null) && {
			ASAN_SYMBOLIZER_PATH=$p
			export ASAN_SYMBOLIZER_PATH
			break
		}
	done
fi

# stack traces for UBSan reports too (they abort: -fno-sanitize-recover)
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

run_one() {
	t=$1
	d=$work/$t
	mkdir -p "$d/corpus" "$d/artifacts"
	if [ "${FUZZ_KEEP_GOING:-}" = 1 ]; then
		mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	else
		mode=
	fi
	dict=
	[ -f "$here/dict/$t.dict" ] && dict=-dict=$here/dict/$t.dict
	# shellcheck disable=SC2086
	"$bindir/fuzz_$t" -max_total_time="$seconds" -max_len=65536 \
		-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$d/artifacts/" $dict $mode ${FUZZ_ARGS:-} \
		"$d/corpus" "$here/corpus/$t" </dev/null >"$d/log" 2>&1
	echo $? >"$d/rc"
}

summary() {
	t=$1
	d=$work/$t
	log=$d/log
	# the last status line: "#N <what> cov: C ft: F ... exec/s: E ..."
	# (fork mode: "#N: cov: C ... exec/s E ...")
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	eps=$(echo "$last" | sed -n 's/.* exec\/s:* \([0-9]*\).*/\1/p')
	# -print_final_stats is more precise where it is printed
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	e=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	[ -n "$n" ] && execs=$n
	[ -n "$e" ] && eps=$e
	found=$(ls "$d/artifacts" 2>/dev/null | wc -l | tr -d ' ')
	if [ "$found" -gt 0 ]; then
		what="FOUND $found: $(ls "$d/artifacts" | tr '\n' ' ')"
	elif [ "$(cat "$d/rc" 2>/dev/null)" != 0 ]; then
		what="exit $(cat "$d/rc" 2>/dev/null) (see log)"
	else
		what="nothing"
	fi
	printf '%-14s %12s %9s %7s  %s\n' "$t" "${execs:-?}" "${eps:-?}" \
		"${cov:-?}" "$what"
	[ "$found" -eq 0 ]
}

echo "fuzzing ${seconds}s per target ($parallel at a time); work dir $work"
set -- $targets
while [ $# -gt 0 ]; do
	i=0
	while [ $# -gt 0 ] && [ $i -lt "$parallel" ]; do
		if [ ! -x "$bindir/fuzz_$1" ]; then
			echo "no $bindir/fuzz_$1 (make fuzz-build)" >&2
			exit 2
		fi
		echo "  running fuzz_$1 ..."
		run_one "$1" &
		i=$((i + 1))
		shift
	done
	wait
done

status=0
echo
printf '%-14s %12s %9s %7s  %s\n' target execs exec/s cov result
for t in $targets; do
	summary "$t" || status=1
done
echo
echo "logs, new inputs and reproducers: $work/<target>/{log,corpus,artifacts}"
if [ $status -ne 0 ]; then
	echo "reproduce: build/fuzz/fuzz_<target> <artifact>; keep it as" \
		"tests/fuzz/crashes/<target>-<short-name>"
fi
exit $status
