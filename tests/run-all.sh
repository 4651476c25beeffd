#!/bin/sh
# tests/run-all.sh: every suite, in order, with one closing line that adds
# them up. Called by `make check` (and so by `make test` and .ci/run) with
# GPUFORM and UNIT pointing at the binaries of the current build.
set -u
cd "$(dirname "$0")/.."
: "${GPUFORM:?set GPUFORM to the gpuform binary}"
: "${UNIT:?set UNIT to the unit-test binary}"
export GPUFORM
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
export T_COUNTS="$counts"
status=0

echo "== unit (Check)"
if out=$("$UNIT" 2>&1); then :; else status=1; fi
printf '%s\n' "$out" | grep -v '^ *$' | grep -vE ':P:' | tail -40
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -1)
if [ -n "$line" ]; then
	checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	echo "$((checks - fails - errs)) $((fails + errs))" >>"$counts"
else
	echo "0 1" >>"$counts"
	status=1
fi

for suite in golden invalid cli e2e; do
	[ -f "tests/$suite.sh" ] || continue
	echo "== $suite"
	if [ "$suite" = e2e ]; then
		bash "tests/$suite.sh" || status=1
	else
		sh "tests/$suite.sh" || status=1
	fi
done

passed=0 failed=0
while read -r p f; do
	passed=$((passed + p))
	failed=$((failed + f))
done <"$counts"
echo "== all suites"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
