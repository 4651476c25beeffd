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

echo "== layering"
if sh tests/check-layering.sh; then echo "1 0" >>"$counts"; else echo "0 1" >>"$counts"; status=1; fi

# shell suites; e2e, kube-client and reconcile talk to a real kube-apiserver +
# etcd that each starts on loopback (tests/kube-testenv); git to real Git
# servers (lighttpd + git http-backend, sshd) on loopback (tests/git-servers);
# preflight to a stand-in AWS endpoint on loopback (tests/tools/awsfake.py)
for suite in golden invalid schema init hostile cli lint docs preflight advise e2e versions delivery doctor kube-client reconcile reconcile-safety identity diff git reconcile-git impact incluster faults output-faults dist image; do
	[ -f "tests/$suite.sh" ] || { echo "missing tests/$suite.sh" >&2; status=1; continue; }
	echo "== $suite"
	case $suite in
	advise | e2e | versions | delivery | doctor | kube-client | reconcile | reconcile-safety | identity | diff | git | reconcile-git | impact | incluster | faults | output-faults) bash "tests/$suite.sh" || status=1 ;;
	*) sh "tests/$suite.sh" || status=1 ;;
	esac
done

# Karpenter's scheduler as the oracle (tests/oracle.sh): needs Go >= 1.26 to build
# build/oracle/karpenter-sim; without Go it is skipped, and says so
echo "== oracle"
go=go
[ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
if command -v "$go" >/dev/null 2>&1; then
	bash tests/oracle.sh || status=1
else
	echo "--   skipped: no Go on PATH (tests/oracle.sh needs Go >= 1.26)"
fi

# Kueue v0.19.2 admitting the examples' gangs (tests/kueue.sh): needs Go >= 1.26 to build
# build/kueue/kueue; without Go it is skipped, and says so
echo "== kueue"
if command -v "$go" >/dev/null 2>&1; then
	bash tests/kueue.sh || status=1
else
	echo "--   skipped: no Go on PATH (tests/kueue.sh needs Go >= 1.26)"
fi

passed=0 failed=0
while read -r p f; do
	passed=$((passed + p))
	failed=$((failed + f))
done <"$counts"
echo "== all suites"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
