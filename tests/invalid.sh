#!/bin/sh
# tests/invalid.sh: the invalid-input corpus. Every tests/invalid/*.yaml is a
# complete intent with deliberate problems; its leading comment lines say what
# gpuform must report:
#
#   # expect: LINE:COL: SUBSTRING    one per expected error (order free): stderr
#                                    must have a line starting with
#                                    "FILE:LINE:COL: error: " that contains
#                                    SUBSTRING, and the number of error
#                                    diagnostics must equal the number of
#                                    expect lines
#   # expect-hint: SUBSTRING         a "  hint: " line must contain SUBSTRING
#
# For each case:
#   gpuform validate FILE         exit 3, the diagnostics above, nothing on stdout
#   gpuform render FILE           exit 3, the same diagnostics, nothing on stdout
#   gpuform render -o DIR FILE    exit 3, DIR not created, no .gpuform-tmp-* left
#   gpuform render -o OLD FILE    exit 3, OLD (an earlier valid render) unchanged
# each under `timeout 10` and a 1 GiB address-space cap (the cap is skipped for
# ASan builds, which reserve terabytes of shadow memory: set ASAN_BUILD=1, or
# it is detected from the binary). A timeout (124) or a crash (>= 128, or a
# sanitizer report) fails the case with its own message.
# Then: `validate GOOD BAD` reports only BAD, says "GOOD: ok", exits 3; and
# `render -o DIR GOOD BAD` writes nothing.
#
#   GPUFORM=path/to/gpuform sh tests/invalid.sh [CASE...]
#
# GPUFORM defaults to ./gpuform (relative to the current directory). CASE
# arguments (file names or NN prefixes) restrict the run to those cases.
set -u

GPUFORM=${GPUFORM:-./gpuform}
case $GPUFORM in
/*) ;;
*/*) GPUFORM=$(pwd)/$GPUFORM ;;
esac
cd "$(dirname "$0")/.." || exit 1
LC_ALL=C
export LC_ALL

# shellcheck source=tests/lib.sh
. tests/lib.sh

finish() {
	t_summary
	exit
}

if ! command -v "$GPUFORM" >/dev/null 2>&1 || [ -d "$GPUFORM" ]; then
	t_fail "invalid: GPUFORM is not an executable (GPUFORM='$GPUFORM')"
	finish
fi
if ! command -v timeout >/dev/null 2>&1; then
	t_fail "invalid: timeout(1) not on PATH (coreutils)"
	finish
fi

tmp=
t_tmpdir tmp
if [ -z "$tmp" ] || [ ! -d "$tmp" ]; then
	t_fail "invalid: cannot create a temporary directory"
	finish
fi

# memory cap in KiB for `ulimit -v`, empty under ASan
memcap=1048576
bin=$(command -v "$GPUFORM")
if [ "${ASAN_BUILD:-0}" = 1 ] ||
	{ command -v ldd >/dev/null 2>&1 && ldd "$bin" 2>/dev/null | grep -q 'libasan'; } ||
	grep -aq '__asan_init' "$bin" 2>/dev/null; then
	memcap=
fi

# run OUT ERR ARGS...: gpuform ARGS with the time limit and the memory cap;
# sets $rc
run() {
	_out=$1 _err=$2
	shift 2
	(
		# not POSIX, but dash, bash, ksh and busybox sh all have it
		# shellcheck disable=SC3045
		if [ -n "$memcap" ]; then ulimit -v "$memcap" 2>/dev/null || :; fi
		exec timeout -k 5 10 "$GPUFORM" "$@"
	) >"$_out" 2>"$_err" </dev/null
	rc=$?
}

# status_problem WHAT ERRFILE WANT: explain an unexpected exit status (or a
# sanitizer report); prints nothing when all is well
status_problem() {
	_what=$1 _errf=$2 _want=$3
	if grep -q -e 'runtime error:' -e 'AddressSanitizer' -e 'LeakSanitizer' \
		-e 'UndefinedBehaviorSanitizer' "$_errf"; then
		printf '%s: sanitizer report (exit %s): %s\n' "$_what" "$rc" \
			"$(grep -m1 -e 'runtime error:' -e 'Sanitizer' "$_errf")"
	elif [ "$rc" -eq 124 ]; then
		printf '%s: timed out after 10s\n' "$_what"
	elif [ "$rc" -ge 128 ]; then
		printf '%s: crashed (exit %s, signal %s): %s\n' "$_what" "$rc" \
			"$((rc - 128))" "$(tail -n 1 "$_errf")"
	elif [ "$rc" -ne "$_want" ]; then
		printf '%s: exit %s, want %s\n' "$_what" "$rc" "$_want"
	fi
}

# has_line FILE PREFIX SUBSTR: FILE has a line that starts with PREFIX and
# contains SUBSTR after it (no regular expressions: both are literal)
has_line() {
	P=$2 S=$3 awk '
		BEGIN { p = ENVIRON["P"]; s = ENVIRON["S"] }
		index($0, p) == 1 && index(substr($0, length(p) + 1), s) { f = 1 }
		END { exit !f }' "$1"
}

# count_errors FILE NAME: the number of error diagnostics in FILE
count_errors() {
	P="$2:" awk '
		index($0, ENVIRON["P"]) == 1 && index($0, ": error: ") { n++; next }
		/^error: / { n++ }
		END { print n + 0 }' "$1"
}

# leftovers DIR [FIND-TESTS...]: the names of DIR's entries (matching the
# tests), on one line
leftovers() {
	_d=$1
	shift
	find "$_d" -mindepth 1 -maxdepth 1 "$@" -exec basename {} \; | tr '\n' ' ' |
		sed 's/ $//'
}

# diagnostics FILE: the diagnostic lines (without gpuform's closing line)
diagnostics() {
	grep -v '^gpuform: ' "$1"
}

# check_expectations CASE ERRFILE: compare stderr with the case's headers;
# prints the problems, then what gpuform said
check_expectations() {
	check_expectations_ "$@" >"$tmp/problems"
	if [ -s "$tmp/problems" ]; then
		cat "$tmp/problems"
		if grep -q -v '^gpuform: ' "$2"; then
			printf 'got:\n'
			grep -v '^gpuform: ' "$2" | head -n 8 | sed 's/^/    /'
		else
			printf 'got: no diagnostics\n'
		fi
	fi
}

check_expectations_() {
	_f=$1 _errf=$2 _n=0
	while IFS= read -r _e; do
		[ -n "$_e" ] || continue
		_loc=${_e%%: *}
		_msg=${_e#*: }
		case $_loc in
		*[!0-9:]* | :* | *: | *:*:* | [!0-9]*)
			printf 'malformed expect line: %s\n' "$_e"
			continue
			;;
		*:*) ;;
		*)
			printf 'malformed expect line: %s\n' "$_e"
			continue
			;;
		esac
		_n=$((_n + 1))
		if ! has_line "$_errf" "$_f:$_loc: error: " "$_msg"; then
			printf 'missing: %s:%s: error: ...%s...\n' "$_f" "$_loc" "$_msg"
		fi
	done <<EOF
$(sed -n 's/^# expect: //p' "$_f")
EOF
	if [ "$_n" -eq 0 ]; then
		printf 'the case has no "# expect:" line\n'
	fi
	_got=$(count_errors "$_errf" "$_f")
	if [ "$_got" -ne "$_n" ]; then
		printf '%s error diagnostics, want %s\n' "$_got" "$_n"
	fi
	while IFS= read -r _h; do
		[ -n "$_h" ] || continue
		if ! has_line "$_errf" "  hint: " "$_h"; then
			printf 'missing hint: ...%s...\n' "$_h"
		fi
	done <<EOF
$(sed -n 's/^# expect-hint: //p' "$_f")
EOF
}

# an earlier valid render that invalid input must leave alone
good=specs/ml-prod.yaml
keep=$tmp/keep
run "$tmp/o" "$tmp/e" render -o "$keep" "$good"
if [ "$rc" -ne 0 ] || [ ! -d "$keep" ]; then
	t_fail "invalid: render -o of $good (the baseline) works" \
		"exit $rc: $(head -n 5 "$tmp/e")"
	keep=
else
	cp -pR "$keep" "$tmp/keep.orig"
	t_note "setup: render -o of $good (the baseline) works"
fi

# the cases
if [ $# -gt 0 ]; then
	cases=
	for a in "$@"; do
		for c in tests/invalid/"${a##*/}" tests/invalid/"${a##*/}"*.yaml; do
			[ -f "$c" ] && { cases="$cases $c"; break; }
		done
	done
else
	cases=$(ls tests/invalid/*.yaml 2>/dev/null)
	ncases=0
	for c in $cases; do ncases=$((ncases + 1)); done
	if [ "$ncases" -ge 30 ]; then
		t_pass "invalid: the corpus has $ncases cases (at least 30)"
	else
		t_fail "invalid: the corpus has $ncases cases, want at least 30"
	fi
fi

for f in $cases; do
	name=${f#tests/}
	name=${name%.yaml}
	why=

	# validate
	run "$tmp/vout" "$tmp/verr" validate "$f"
	p=$(status_problem validate "$tmp/verr" 3)
	[ -n "$p" ] && why="$why$p
"
	p=$(check_expectations "$f" "$tmp/verr" | sed 's/^/validate: /')
	[ -n "$p" ] && why="$why$p
"
	if [ -s "$tmp/vout" ]; then
		why="${why}validate: wrote to stdout: $(head -n 1 "$tmp/vout")
"
	fi

	# render to stdout: the same diagnostics, no output
	run "$tmp/rout" "$tmp/rerr" render "$f"
	p=$(status_problem render "$tmp/rerr" 3)
	[ -n "$p" ] && why="$why$p
"
	if [ -s "$tmp/rout" ]; then
		why="${why}render: wrote $(wc -c <"$tmp/rout") bytes to stdout
"
	fi
	diagnostics "$tmp/verr" >"$tmp/vdiag"
	diagnostics "$tmp/rerr" >"$tmp/rdiag"
	if ! cmp -s "$tmp/vdiag" "$tmp/rdiag"; then
		why="${why}render: diagnostics differ from validate's:
$(diff "$tmp/vdiag" "$tmp/rdiag" | head -n 10)
"
	fi

	# render -o a new directory: nothing may appear
	rm -rf "$tmp/c"
	mkdir "$tmp/c"
	run "$tmp/oout" "$tmp/oerr" render -o "$tmp/c/out" "$f"
	p=$(status_problem "render -o" "$tmp/oerr" 3)
	[ -n "$p" ] && why="$why$p
"
	if [ -e "$tmp/c/out" ]; then
		why="${why}render -o: created the output directory
"
	fi
	left=$(leftovers "$tmp/c" ! -name out)
	if [ -n "$left" ]; then
		why="${why}render -o: left behind: $left
"
	fi
	if [ -s "$tmp/oout" ]; then
		why="${why}render -o: wrote to stdout
"
	fi

	# render -o over an earlier render: it must stay byte-identical
	if [ -n "$keep" ]; then
		run "$tmp/kout" "$tmp/kerr" render -o "$keep" "$f"
		p=$(status_problem "render -o OLD" "$tmp/kerr" 3)
		[ -n "$p" ] && why="$why$p
"
		if ! d=$(diff -r "$tmp/keep.orig" "$keep" 2>&1); then
			# (after a success the exit status was reported already)
			[ "$rc" -ne 0 ] && why="${why}render -o OLD: changed the earlier output:
$(printf '%s\n' "$d" | head -n 5)
"
			rm -rf "$keep"
			cp -pR "$tmp/keep.orig" "$keep"
		fi
		left=$(leftovers "$tmp" -name '.gpuform-tmp-*')
		if [ -n "$left" ]; then
			why="${why}render -o OLD: left behind: $left
"
		fi
	fi

	if [ -z "$why" ]; then
		t_pass "$name"
	else
		t_fail "$name" "$(printf '%s' "$why")"
	fi
done

# several files: only the bad one is reported, the good one is ok, exit 3
bad=tests/invalid/43-ami-unpinned.yaml # one semantic error
if [ $# -eq 0 ] && [ ! -f "$bad" ]; then
	t_fail "invalid: $bad (used by the several-files checks) exists"
elif [ $# -eq 0 ]; then
	name="invalid: validate $good $bad"
	run "$tmp/out" "$tmp/err" validate "$good" "$bad"
	why=$(status_problem validate "$tmp/err" 3)
	if ! grep -qxF "$good: ok" "$tmp/out"; then
		why="$why
no '$good: ok' on stdout"
	fi
	if grep -qF "$bad: ok" "$tmp/out"; then
		why="$why
'$bad: ok' on stdout"
	fi
	if grep -q "^$good:" "$tmp/err"; then
		why="$why
diagnostics for the good file: $(grep "^$good:" "$tmp/err" | head -n 1)"
	fi
	n=$(count_errors "$tmp/err" "$bad")
	if [ "$n" -ne 1 ]; then
		why="$why
$n error diagnostics for $bad, want 1"
	fi
	if [ -z "$why" ]; then
		t_pass "$name"
	else
		t_fail "$name" "$(printf '%s' "$why" | sed '/^$/d')"
	fi

	name="invalid: render -o DIR $good $bad writes nothing"
	rm -rf "$tmp/c"
	mkdir "$tmp/c"
	run "$tmp/out" "$tmp/err" render -o "$tmp/c/out" "$good" "$bad"
	why=$(status_problem "render -o" "$tmp/err" 3)
	left=$(leftovers "$tmp/c")
	if [ -n "$left" ]; then
		why="$why
left behind: $left"
	fi
	if [ -z "$why" ]; then
		t_pass "$name"
	else
		t_fail "$name" "$(printf '%s' "$why" | sed '/^$/d')"
	fi
fi

finish
