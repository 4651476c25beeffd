#!/bin/sh
# tests/hostile.sh: the hostile-input corpus. Adversarial bytes and
# structure (truncated and binary files, bad UTF-8, deep nesting, alias
# bombs, duplicate keys, tabs, tags, huge numbers, non-DNS names, injection
# strings, wrong types, empty and multi-document files, hostile rendered
# directories and kubeconfigs) must each end in a clear error, never a
# crash, a hang or a sanitizer report.
#
# tests/hostile/EXPECT lists the checks (written with the corpus by
# tests/hostile/make-corpus.py): CASE<TAB>COMMAND<TAB>EXIT<TAB>REGEX, where
# "@" is tests/hostile/CASE. For each line:
#   gpuform COMMAND       exit EXIT; a line of stderr matches REGEX (ERE;
#                         "-": stderr is empty); with EXIT 3, nothing on
#                         stdout
#   (validate rows)       `render CASE` too: exit 3, the same diagnostics,
#                         nothing on stdout
#   (render-quoted rows)  REGEX is KEY=VALUE: `render CASE` exits 0, the
#                         output has "KEY: " lines and each is KEY: "VALUE"
#                         or KEY: 'VALUE'; as many documents and kinds as
#                         the unchanged intent
# Every command runs in an empty scratch directory (tests/ and specs/ are
# symlinks in it), under `timeout 10` (30 for the big inputs) and a 1 GiB
# address-space cap (ASan builds: a 2 GiB peak-RSS check with
# /usr/bin/time instead, as ASan reserves terabytes of address space); afterwards the scratch directory
# must hold nothing new and /tmp/gpuform-hostile-pwned must not exist (the
# injection strings try to create them).
#
# Then the big inputs, made here in a temporary directory: a 100 MB scalar,
# files just over 16 MiB (intent, manifest, kubeconfig), a 15 MiB scalar
# under the cap, a 1 MiB line, a 300 KiB token file, a 4 MiB inline token,
# a directory, /dev/zero and /dev/null as the intent.
#
#   GPUFORM=path/to/gpuform sh tests/hostile.sh [PATTERN]
#
# PATTERN (a grep -E pattern) restricts the corpus to matching CASE names
# and skips the big inputs; PATTERN "big" runs only the big inputs.
set -u

GPUFORM=${GPUFORM:-./gpuform}
case $GPUFORM in
/*) ;;
*/*) GPUFORM=$(pwd)/$GPUFORM ;;
*) GPUFORM=$(command -v "$GPUFORM" || echo "$GPUFORM") ;;
esac
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
LC_ALL=C
export LC_ALL
# the kubeconfig cases must not pick anything up from the environment
unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT \
	GPUFORM_SERVICEACCOUNT_DIR http_proxy https_proxy HTTP_PROXY \
	HTTPS_PROXY all_proxy ALL_PROXY
NO_PROXY='*'
no_proxy='*'
export NO_PROXY no_proxy

# shellcheck source=tests/lib.sh
. tests/lib.sh

finish() {
	t_summary
	exit
}

if [ ! -x "$GPUFORM" ] || [ -d "$GPUFORM" ]; then
	t_fail "hostile: GPUFORM is not an executable (GPUFORM='$GPUFORM')"
	finish
fi
for tool in timeout awk grep; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_fail "hostile: $tool not on PATH"
		finish
	fi
done

tmp=
t_tmpdir tmp
if [ -z "$tmp" ] || [ ! -d "$tmp" ]; then
	t_fail "hostile: cannot create a temporary directory"
	finish
fi
HOME=$tmp/home
mkdir -p "$HOME"
export HOME

memcap=1048576 # KiB, for ulimit -v
rsscap=        # KiB, peak RSS through /usr/bin/time (ASan builds)
if [ "${ASAN_BUILD:-0}" = 1 ] ||
	{ command -v ldd >/dev/null 2>&1 && ldd "$GPUFORM" 2>/dev/null | grep -q 'libasan'; } ||
	grep -aq '__asan_init' "$GPUFORM" 2>/dev/null; then
	memcap=
	if /usr/bin/time -f %M true >/dev/null 2>&1; then
		rsscap=2097152
	fi
fi

scratch=$tmp/cwd
mkdir -p "$scratch"
ln -s "$root/tests" "$scratch/tests"
ln -s "$root/specs" "$scratch/specs"
pwned=/tmp/gpuform-hostile-pwned
limit=10 # seconds per command (30 for the big inputs)
rm -f "$pwned" 2>/dev/null
if [ -e "$pwned" ]; then
	t_fail "hostile: $pwned exists and cannot be removed"
	finish
fi

# run OUT ERR ARGS...: gpuform ARGS in the scratch directory, with the time
# limit and the memory cap; sets $rc and $rss (KiB, or empty)
run() {
	_out=$1 _err=$2
	shift 2
	rm -f "$tmp/rss"
	(
		cd "$scratch" || exit 125
		# not POSIX, but dash, bash, ksh and busybox sh all have it
		# shellcheck disable=SC3045
		if [ -n "$memcap" ]; then ulimit -v "$memcap" 2>/dev/null || :; fi
		if [ -n "$rsscap" ]; then
			exec /usr/bin/time -o "$tmp/rss" -f %M \
				timeout -k 5 "$limit" "$GPUFORM" "$@"
		fi
		exec timeout -k 5 "$limit" "$GPUFORM" "$@"
	) >"$_out" 2>"$_err" </dev/null
	rc=$?
	rss=
	if [ -s "$tmp/rss" ]; then
		rss=$(tail -n 1 "$tmp/rss")
		case $rss in *[!0-9]* | '') rss= ;; esac
	fi
}

# problems WHAT ERRFILE WANT: why the last run is wrong (nothing if fine)
problems() {
	_what=$1 _errf=$2 _want=$3
	if grep -q -e 'runtime error:' -e 'AddressSanitizer' -e 'LeakSanitizer' \
		-e 'UndefinedBehaviorSanitizer' "$_errf"; then
		printf '%s: sanitizer report (exit %s): %s\n' "$_what" "$rc" \
			"$(grep -m1 -e 'runtime error:' -e 'Sanitizer' "$_errf")"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf '%s: timed out after %ss\n' "$_what" "$limit"
	elif [ "$rc" -ge 128 ]; then
		printf '%s: crashed (exit %s): %s\n' "$_what" "$rc" \
			"$(tail -n 1 "$_errf")"
	elif [ "$rc" -ne "$_want" ]; then
		printf '%s: exit %s, want %s: %s\n' "$_what" "$rc" "$_want" \
			"$(grep -v '^ *hint:' "$_errf" | head -n 3)"
	fi
	if [ -n "$rss" ] && [ -n "$rsscap" ] && [ "$rss" -gt "$rsscap" ]; then
		printf '%s: peak RSS %s KiB, over %s KiB\n' "$_what" "$rss" "$rsscap"
	fi
	_left=$(find "$scratch" -mindepth 1 -maxdepth 1 ! -name tests \
		! -name specs -exec basename {} \; | tr '\n' ' ')
	if [ -n "$_left" ]; then
		printf '%s: created in the working directory: %s\n' "$_what" "$_left"
		find "$scratch" -mindepth 1 -maxdepth 1 ! -name tests \
			! -name specs -exec rm -rf {} +
	fi
	if [ -e "$pwned" ]; then
		printf '%s: %s was created\n' "$_what" "$pwned"
		rm -f "$pwned"
	fi
}

# ere_path P: P with the ERE metacharacters it may hold escaped
ere_path() {
	printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}

# at_path REGEX PATH: REGEX with every '@' replaced by PATH (escaped)
at_path() {
	_r=$1 _p=$(ere_path "$2") _o=
	while :; do
		case $_r in
		*@*)
			_o=$_o${_r%%@*}$_p
			_r=${_r#*@}
			;;
		*)
			printf '%s' "$_o$_r"
			return
			;;
		esac
	done
}

# matches FILE REGEX: a line of FILE matches REGEX
matches() {
	grep -Eq -e "$2" "$1"
}

# quoted_only FILE KEY VALUE: FILE has "KEY: " lines, and each is
# KEY: "VALUE" or KEY: 'VALUE'
quoted_only() {
	K=$2 V=$3 awk '
		BEGIN { k = ENVIRON["K"] ": "; v = ENVIRON["V"]; sq = "\047" }
		{ t = $0; sub(/^[ -]*/, "", t) }
		index(t, k) == 1 {
			n++
			r = substr(t, length(k) + 1)
			if (r != "\"" v "\"" && r != sq v sq) bad++
		}
		END { exit !(n > 0 && bad == 0) }' "$1"
}

# ---- the corpus -------------------------------------------------------
expect=tests/hostile/EXPECT
if [ ! -f "$expect" ]; then
	t_fail "hostile: $expect exists"
	finish
fi
pattern=${1:-}
ncases=$(grep -v '^#' "$expect" | cut -f 1 | sort -u | wc -l)
nfiles=$(find tests/hostile -type f ! -name EXPECT ! -name make-corpus.py | wc -l)
if [ -z "$pattern" ] || [ "$pattern" = big ]; then
	if [ "$nfiles" -ge 200 ]; then
		t_pass "hostile: the corpus has $nfiles files in $ncases cases (at least 200 files)"
	else
		t_fail "hostile: the corpus has $nfiles files, want at least 200"
	fi
	# every file belongs to a case of EXPECT
	orphans=
	for f in $(find tests/hostile -mindepth 2 -maxdepth 2 | sort); do
		c=${f#tests/hostile/}
		grep -q "^$(ere_path "$c")	" "$expect" ||
			case $c in kubeconfig/*.txt) ;; *) orphans="$orphans $c" ;; esac
	done
	if [ -z "$orphans" ]; then
		t_pass "hostile: every corpus file has a check in EXPECT"
	else
		t_fail "hostile: files without a check in EXPECT:$orphans"
	fi
fi

# the baseline for render-quoted: documents and kinds of the intact intent
run "$tmp/base.out" "$tmp/base.err" render specs/ml-prod.yaml
base_docs=$(grep -c '^---' "$tmp/base.out")
base_kinds=$(grep -c '^kind: ' "$tmp/base.out")

tab=$(printf '\t')
ifs=$IFS
grep -v '^#' "$expect" >"$tmp/expect"
[ "$pattern" = big ] && : >"$tmp/expect"
while IFS="$tab" read -r case cmd want rx; do
	[ -n "$case" ] || continue
	if [ -n "$pattern" ] && ! printf '%s\n' "$case" | grep -Eq -e "$pattern"; then
		continue
	fi
	path=tests/hostile/$case
	name="hostile: $case: ${cmd%% *}"
	why=
	if [ ! -e "$path" ]; then
		t_fail "$name" "$path does not exist"
		continue
	fi
	if [ "$cmd" = render-quoted ]; then
		run "$tmp/out" "$tmp/err" render "$path"
		why=$(problems render "$tmp/err" 0)
		if [ "$rc" -eq 0 ]; then
			key=${rx%%=*}
			value=${rx#*=}
			if ! quoted_only "$tmp/out" "$key" "$value"; then
				why="$why
$key is missing from the output or its value is not '$value' in quotes:
$(grep -nF -e "$key: " "$tmp/out" | head -n 3)"
			fi
			d=$(grep -c '^---' "$tmp/out")
			k=$(grep -c '^kind: ' "$tmp/out")
			if [ "$d" != "$base_docs" ] || [ "$k" != "$base_kinds" ]; then
				why="$why
$d documents and $k kinds, the intact intent gives $base_docs and $base_kinds"
			fi
		fi
	else
		# shellcheck disable=SC2086 # COMMAND is split at spaces
		set -- $cmd
		args=
		for a in "$@"; do
			[ "$a" = @ ] && a=$path
			args="$args$a$tab"
		done
		IFS=$tab
		# shellcheck disable=SC2086
		set -- $args
		IFS=$ifs
		run "$tmp/out" "$tmp/err" "$@"
		why=$(problems "${cmd%% *}" "$tmp/err" "$want")
		erx=$(at_path "$rx" "$path")
		if [ "$rx" = - ]; then
			if [ -s "$tmp/err" ]; then
				why="$why
stderr is not empty: $(head -n 3 "$tmp/err")"
			fi
		elif ! matches "$tmp/err" "$erx"; then
			why="$why
no stderr line matches: $rx
got: $(grep -v '^ *hint:' "$tmp/err" | head -n 4)"
		fi
		if [ "$want" -eq 3 ] && [ -s "$tmp/out" ]; then
			why="$why
wrote $(wc -c <"$tmp/out") bytes to stdout"
		fi
		if [ "$1" = validate ] && [ "$want" -eq 3 ]; then
			cp "$tmp/err" "$tmp/verr"
			run "$tmp/rout" "$tmp/rerr" render "$path"
			p=$(problems render "$tmp/rerr" 3)
			[ -n "$p" ] && why="$why
$p"
			if [ -s "$tmp/rout" ]; then
				why="$why
render: wrote $(wc -c <"$tmp/rout") bytes to stdout"
			fi
			grep -v '^gpuform: ' "$tmp/verr" >"$tmp/v.d"
			grep -v '^gpuform: ' "$tmp/rerr" >"$tmp/r.d"
			if ! cmp -s "$tmp/v.d" "$tmp/r.d"; then
				why="$why
render: diagnostics differ from validate's"
			fi
		fi
	fi
	why=$(printf '%s' "$why" | sed '/^$/d')
	if [ -z "$why" ]; then
		t_pass "$name"
	else
		t_fail "$name" "$why"
	fi
done <"$tmp/expect"

[ -n "$pattern" ] && [ "$pattern" != big ] && finish

# ---- big inputs, made here --------------------------------------------
big=$tmp/big
mkdir -p "$big"
limit=30
# BIG FILE COMMAND WANT REGEX: like an EXPECT row for a generated file
big_case() {
	_f=$1 _cmd=$2 _want=$3 _rx=$4
	# shellcheck disable=SC2086
	set -- $_cmd
	args=
	for a in "$@"; do
		[ "$a" = @ ] && a=$_f
		args="$args$a$tab"
	done
	IFS=$tab
	# shellcheck disable=SC2086
	set -- $args
	IFS=$ifs
	t0=$(date +%s)
	run "$tmp/out" "$tmp/err" "$@"
	t1=$(date +%s)
	why=$(problems "${_cmd%% *}" "$tmp/err" "$_want")
	erx=$(at_path "$_rx" "$_f")
	if ! matches "$tmp/err" "$erx"; then
		why="$why
no stderr line matches: $_rx
got: $(head -c 300 "$tmp/err")"
	fi
	why=$(printf '%s' "$why" | sed '/^$/d')
	_sz=0
	[ -f "$_f" ] && _sz=$(($(wc -c <"$_f") / 1024))
	_n="hostile: generated ${_f##*/} ($_sz KiB): ${_cmd%% *} in $((t1 - t0)) s${rss:+, peak RSS $((rss / 1024)) MiB}"
	if [ -z "$why" ]; then
		t_pass "$_n"
	else
		t_fail "$_n" "$why"
	fi
}

# prefix P: the first lines of ml-prod.yaml up to (and without) line P
head -n 5 specs/ml-prod.yaml >"$big/head"

# a 100 MB scalar: over the 16 MiB cap, refused before it is parsed
{ cat "$big/head"; printf '  name: '; head -c 100000000 /dev/zero | tr '\0' a; echo; } >"$big/scalar-100m.yaml"
big_case "$big/scalar-100m.yaml" "validate @" 3 "^@: error: it is larger than the limit of 16777216 bytes"
rm -f "$big/scalar-100m.yaml"
# just over 16 MiB of comments
{ cat specs/ml-prod.yaml; head -c 16777216 /dev/zero | tr '\0' '#'; } >"$big/over-16m.yaml"
big_case "$big/over-16m.yaml" "validate @" 3 "^@: error: it is larger than the limit of 16777216 bytes"
# exactly 16 MiB: read, then refused for what it says
{ cat "$big/head"; printf '  name: '; head -c $((16777216 - $(wc -c <"$big/head") - 9)) /dev/zero | tr '\0' a; echo; } >"$big/scalar-16m.yaml"
big_case "$big/scalar-16m.yaml" "validate @" 3 "^@:6:9: error: cluster name 'a{10,}.*is not a valid DNS label"
rm -f "$big/scalar-16m.yaml" "$big/over-16m.yaml"
# a 15 MiB key: over YAML's 1024 characters for a key without '?'
# the line after specs/ml-prod.yaml (the generated key's), and the one after that
n1=$(($(wc -l <specs/ml-prod.yaml) + 1)) n2=$(($(wc -l <specs/ml-prod.yaml) + 2))
{ cat specs/ml-prod.yaml; printf '"'; head -c 15728640 /dev/zero | tr '\0' k; printf '": 1\n'; } >"$big/key-15m.yaml"
big_case "$big/key-15m.yaml" "validate @" 3 "^@:$n1:15728643: error: could not find expected ':'"
# ... and as an explicit key
{ cat specs/ml-prod.yaml; printf '? '; head -c 15728640 /dev/zero | tr '\0' k; printf '\n: 1\n'; } >"$big/key-15m.yaml"
big_case "$big/key-15m.yaml" "validate @" 3 "^@:$n1:3: error: unknown key 'k{10,}"
rm -f "$big/key-15m.yaml"
# a 1 MiB comment line and 1M-entry flow list (past the node limit)
{ cat specs/ml-prod.yaml; printf '#'; head -c 1048576 /dev/zero | tr '\0' x; printf '\nx: ['
	head -c 600000 /dev/zero | tr '\0' 1 | sed 's/1/1,/g'; printf '1]\n'; } >"$big/wide.yaml"
big_case "$big/wide.yaml" "validate @" 3 "^@:$n2:[0-9]+: error: more than 500000 nodes"
rm -f "$big/wide.yaml"
# 10,000-level flow nesting in 10 KB, repeated over 4 MiB
{ cat "$big/head"; printf '  name: '; head -c 4194304 /dev/zero | tr '\0' '['; echo; } >"$big/deep.yaml"
big_case "$big/deep.yaml" "validate @" 3 "^@:6:[0-9]+: error: nesting deeper than 128 levels"
rm -f "$big/deep.yaml"
# a manifest over 16 MiB in a rendered directory
mkdir -p "$big/rendered"
printf 'resources:\n- big.yaml\n' >"$big/rendered/kustomization.yaml"
{ printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {gpuform.io/cluster: x}}\n'; head -c 16777300 /dev/zero | tr '\0' '#'; } >"$big/rendered/big.yaml"
big_case "$big/rendered" "reconcile --dry-run --kubeconfig tests/hostile/kubeconfig/000-unreachable.yaml @" 3 "^error: '@/big.yaml' is larger than the limit of 16777216 bytes"
rm -rf "$big/rendered"
# kubeconfigs: over 16 MiB; a 300 KiB token file; a 4 MiB inline token
kcfg() {
	printf 'apiVersion: v1\nkind: Config\ncurrent-context: c\n'
	printf 'contexts: [{name: c, context: {cluster: k, user: u}}]\n'
	printf 'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]\n'
	printf 'users: [{name: u, user: {%s}}]\n' "$1"
}
{ kcfg 'token: t'; head -c 16777300 /dev/zero | tr '\0' '#'; } >"$big/kc-big.yaml"
big_case "$big/kc-big.yaml" "reconcile --dry-run --kubeconfig @ specs/minimal.yaml" 3 "^gpuform: error: '@' is larger than the limit of 16777216 bytes"
rm -f "$big/kc-big.yaml"
head -c 307200 /dev/zero | tr '\0' t >"$big/token"
kcfg "tokenFile: $big/token" >"$big/kc-tokenfile.yaml"
big_case "$big/kc-tokenfile.yaml" "reconcile --dry-run --kubeconfig @ specs/minimal.yaml" 3 "^gpuform: error: tokenFile of user 'u' \\(@\\): '.*/token' is larger than the limit of 262144 bytes"
{ printf 'apiVersion: v1\nkind: Config\ncurrent-context: c\n'
	printf 'contexts: [{name: c, context: {cluster: k, user: u}}]\n'
	printf 'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]\n'
	printf 'users: [{name: u, user: {token: '; head -c 4194304 /dev/zero | tr '\0' t; printf '}}]\n'; } >"$big/kc-token.yaml"
big_case "$big/kc-token.yaml" "reconcile --dry-run --kubeconfig @ specs/minimal.yaml" 3 "^gpuform: error: @:[0-9]+:[0-9]+: token of user 'u' is longer than"
rm -f "$big/kc-token.yaml" "$big/token"
# not regular files
mkdir -p "$big/a-directory.yaml"
big_case "$big/a-directory.yaml" "validate @" 3 "^@: error: it is a directory, not a file"
big_case /dev/zero "validate @" 3 "^/dev/zero: .*(larger than the limit|not a regular file)"
big_case /dev/null "validate @" 3 "^/dev/null(:[0-9]+:[0-9]+)?: error: "

finish
