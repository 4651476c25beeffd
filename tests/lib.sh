# tests/lib.sh: small helpers shared by the test scripts. Source it; do not run it.
# POSIX sh (works under dash and bash).
#
#   t_pass NAME            count a pass, print "ok   NAME"
#   t_fail NAME [DETAIL]   count a failure, print "FAIL NAME" and DETAIL (indented)
#   t_summary              print the closing line "N passed, N failed";
#                          returns 1 when anything failed, else 0.
#                          If T_COUNTS names a file, also appends "N N" (passed
#                          failed) to it, so a runner can add up several suites.
#   t_tmpdir [VAR]         mktemp -d; the path goes into $VAR (default T_TMPDIR).
#                          Removed when the script exits. Do not call it inside
#                          $(...): the subshell would lose the bookkeeping.
#   t_on_exit CMD          run CMD (a string, eval'd) when the script exits, before
#                          temporary directories are removed; later CMDs run first.
#
# Sourcing installs traps: EXIT runs the cleanups; INT/TERM/HUP exit (130/143/129),
# which runs them too. A script that sets its own EXIT trap replaces this one.

T_PASSED=0
T_FAILED=0
_t_cleanups=''
_t_tmpdirs=''

t_pass() {
	T_PASSED=$((T_PASSED + 1))
	printf 'ok   %s\n' "$1"
}

t_fail() {
	T_FAILED=$((T_FAILED + 1))
	printf 'FAIL %s\n' "$1"
	if [ $# -gt 1 ] && [ -n "$2" ]; then
		printf '%s\n' "$2" | sed 's/^/     | /'
	fi
}

t_summary() {
	if [ -n "${T_COUNTS:-}" ]; then
		printf '%s %s\n' "$T_PASSED" "$T_FAILED" >>"$T_COUNTS"
	fi
	printf '%s passed, %s failed\n' "$T_PASSED" "$T_FAILED"
	[ "$T_FAILED" -eq 0 ]
}

t_on_exit() {
	# newest first
	_t_cleanups="$1
$_t_cleanups"
}

t_tmpdir() {
	_t_d=$(mktemp -d "${TMPDIR:-/tmp}/gpuform-test.XXXXXX") || return 1
	_t_tmpdirs="$_t_tmpdirs $_t_d"
	eval "${1:-T_TMPDIR}=\$_t_d"
}

_t_exit() {
	_t_rc=$?
	trap - EXIT
	_t_old_ifs=$IFS
	IFS='
'
	for _t_c in $_t_cleanups; do
		IFS=$_t_old_ifs
		eval "$_t_c" || :
		IFS='
'
	done
	IFS=$_t_old_ifs
	for _t_d in $_t_tmpdirs; do
		rm -rf "$_t_d"
	done
	exit "$_t_rc"
}

trap _t_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
