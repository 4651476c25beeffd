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
# Only checks are counted. A setup step (a server started, a tool built, a
# fixture made) is not a check: it either works, or the suite stops:
#   t_abort WHAT [DETAIL]  a setup step failed: "FAIL setup: WHAT" (counted as one
#                          failure, so the suite fails), the closing line, exit 1
#   t_note TEXT            print "--   TEXT" (information; not counted)
#   t_setup WHAT 'COND'    a setup step's outcome: eval COND; true: t_note "setup:
#                          WHAT", else t_abort WHAT (with t_detail COND)
#   t_gpuform              GPUFORM (default ./gpuform) as an absolute path;
#                          t_abort unless it is an executable
#   t_need CMD...          t_abort unless every CMD is on PATH
#   gq GREP-ARGS...        grep -q that reads all of its input: `X | grep -q P`
#                          lets grep exit at the first match, and a writer still
#                          writing dies of SIGPIPE, which under pipefail fails the
#                          pipeline at random (seen in incluster.sh); use `X | gq P`
#   t_isolate              no proxy, no developer kubeconfig, LC_ALL=C, the
#                          sanitizers' defaults (leaks detected, stack traces)
#   t_git_isolate          the git CLI without the developer's configuration, with
#                          fixed identities and dates (reproducible commit ids)
#   check NAME 'COND'      the suites' assertion: eval COND; pass, or fail with
#                          what t_detail COND prints (by default COND, $RC and the
#                          heads of $OUT and $ERR; a suite may define its own t_detail)
#
# The cluster suites (a real kube-apiserver + etcd from tests/kube-testenv; the
# script must run from the repository's top directory):
#   t_testenv_start [CRD|--no-crds]
#                          GPUFORM_TESTENV_DIR if set (a running testenv), else a
#                          new testenv in $WORK/env (stopped on exit). Creates the
#                          CRDs of tests/fixtures/crds unless CRD (default
#                          nodepools.karpenter.sh) is served; --no-crds: none.
#                          Sets ENV_DIR, KC (kubeconfig of user "tool", the one the
#                          audit helpers look at), AUDIT, SERVER, PORT, TOOL_TOKEN,
#                          ADMIN_TOKEN, T_OWN_SERVER (1: started here); exports
#                          KUBECONFIG (the admin's) and KUBECACHEDIR. t_abort on
#                          any failure.
#   t_testenv_unused NS NAME  t_abort if ConfigMap NS/NAME exists (a reused testenv
#                          must not hold the cluster a suite reconciles)
#   t_audit_mark           the audit helpers below see requests from here on
#   t_audit_all [USER]     "verb<TAB>code<TAB>requestURI" of each request USER
#                          (default $T_AUDIT_USER, else tool) completed since the mark
#   t_audit_tsv [USER]     the same without the run lock's requests (its Lease, and
#                          the POST that creates the inventory namespace for it on a
#                          first run): gpuform's own request counts leave them out
#   t_audit_writes [USER]  the writes among t_audit_tsv that were not dry runs
#   t_audit_nwrites [USER] how many
#   t_audit_sync [TOTAL] [USER]
#                          wait (up to 5 s) until the server has logged TOTAL of
#                          t_audit_tsv's requests; without TOTAL, until the count
#                          stops changing
#   t_faultproxy_start DIR tests/tools/faultproxy.c in front of the API server: FP_URL,
#                          FP_KC (a kubeconfig through it), rules in DIR/rules
#   t_faultproxy_wait DIR PATTERN  until the proxy log matches (bounded)
#   T_AUDIT_SETTLE=S       t_audit_all first sleeps S seconds (the log is written
#                          asynchronously; for suites that do not t_audit_sync)
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

t_abort() {
	t_fail "setup: $1" "${2:-}"
	t_summary
	exit 1
}

t_note() {
	printf -- '--   %s\n' "$1"
}

t_setup() {
	if eval "$2"; then
		t_note "setup: $1"
	else
		t_abort "$1" "$(t_detail "$2")"
	fi
}

t_gpuform() {
	GPUFORM=${GPUFORM:-./gpuform}
	case $GPUFORM in /*) ;; *) GPUFORM=$(pwd)/$GPUFORM ;; esac
	[ -f "$GPUFORM" ] && [ -x "$GPUFORM" ] ||
		t_abort "GPUFORM is an executable (GPUFORM='$GPUFORM'; build it with make)"
}

# gq: grep -q without the early exit (see the top of this file)
gq() {
	grep "$@" >/dev/null
}

t_need() {
	for _t_c in "$@"; do
		command -v "$_t_c" >/dev/null 2>&1 || t_abort "$_t_c is on PATH (sh tests/deps.sh)"
	done
}

t_isolate() {
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY KUBECONFIG
	NO_PROXY='*' no_proxy='*' LC_ALL=C
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
	export NO_PROXY no_proxy LC_ALL ASAN_OPTIONS UBSAN_OPTIONS
}

t_git_isolate() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	GIT_AUTHOR_NAME='Test Author' GIT_AUTHOR_EMAIL=author@example.com
	GIT_COMMITTER_NAME='Test Committer' GIT_COMMITTER_EMAIL=committer@example.com
	GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z'
	export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
		GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

t_detail() {
	printf 'condition: %s\nrc=%s\n--- stdout\n%s\n--- stderr\n%s\n' "$1" "${RC:-}" \
		"$(printf '%s\n' "${OUT:-}" | head -n 40)" "$(printf '%s\n' "${ERR:-}" | head -n 20)"
}

check() {
	if eval "$2"; then
		t_pass "$1"
	else
		t_fail "$1" "$(t_detail "$2")"
	fi
}

# shellcheck disable=SC2034 # the variables it sets are for the suites
t_testenv_start() {
	_t_te=$(pwd)/tests/kube-testenv
	T_OWN_SERVER=0
	if [ -n "${GPUFORM_TESTENV_DIR:-}" ]; then
		ENV_DIR=$GPUFORM_TESTENV_DIR
	else
		ENV_DIR=${WORK:?t_testenv_start: set WORK}/env
		T_OWN_SERVER=1
		t_on_exit "bash '$_t_te' stop '$ENV_DIR' >/dev/null 2>&1"
		_t_out=$(timeout 900 bash "$_t_te" start "$ENV_DIR" 2>&1) ||
			t_abort "start kube-apiserver + etcd (tests/kube-testenv start)" \
				"$(printf '%s\n' "$_t_out" | tail -n 30)"
	fi
	KC=$ENV_DIR/kubeconfig-tool
	AUDIT=$ENV_DIR/audit.log
	SERVER=$(sed -n 's/^KUBE_TESTENV_URL=//p' "$ENV_DIR/env" 2>/dev/null)
	PORT=${SERVER##*:}
	KUBECONFIG=$ENV_DIR/kubeconfig KUBECACHEDIR=$ENV_DIR/kube-cache
	export KUBECONFIG KUBECACHEDIR
	case $SERVER in https://127.0.0.1:*) _t_lo=1 ;; *) _t_lo=0 ;; esac
	if [ ! -f "$KC" ] || [ ! -f "$AUDIT" ] || [ "$_t_lo" = 0 ]; then
		t_abort "testenv at $ENV_DIR: kubeconfig-tool, audit.log, a server on 127.0.0.1 ($SERVER)"
	fi
	TOOL_TOKEN=$(sed -n 's/.*token: "\([^"]*\)".*/\1/p' "$KC")
	ADMIN_TOKEN=$(sed -n 's/^KUBE_TESTENV_TOKEN=//p' "$ENV_DIR/env")
	_t_crd=${1:-nodepools.karpenter.sh}
	if [ "$_t_crd" != --no-crds ] &&
		! timeout 60 kubectl --request-timeout=30s get crd "$_t_crd" >/dev/null 2>&1; then
		_t_out=$(timeout 240 bash "$_t_te" crds "$ENV_DIR" tests/fixtures/crds/*.yaml 2>&1) ||
			t_abort "create the CRDs of tests/fixtures/crds" "$_t_out"
	fi
	if [ "$T_OWN_SERVER" = 1 ]; then
		t_note "testenv: kube-apiserver + etcd on $SERVER${T_START:+ ($(($(date +%s) - T_START)) s)}"
	else
		t_note "testenv: reusing $ENV_DIR ($SERVER)"
	fi
}

t_testenv_unused() {
	! timeout 60 kubectl --request-timeout=30s get configmap -n "$1" "$2" >/dev/null 2>&1 ||
		t_abort "the testenv holds no $1/$2 yet (use a fresh GPUFORM_TESTENV_DIR)"
}

t_audit_mark() {
	AMARK=$(wc -l <"$AUDIT")
}

t_audit_all() {
	[ "${T_AUDIT_SETTLE:-0}" = 0 ] || sleep "$T_AUDIT_SETTLE"
	tail -n "+$((AMARK + 1))" "$AUDIT" | grep -F '"stage":"ResponseComplete"' |
		jq -rR --arg u "${1:-${T_AUDIT_USER:-tool}}" 'fromjson? | select(.user.username == $u) |
			[.verb, (.responseStatus.code // 0 | tostring), .requestURI] | @tsv'
	# (fromjson?: a line cut short by a killed server is skipped)
}

t_audit_tsv() {
	t_audit_all "$@" | grep -vE '	/apis/coordination.k8s.io/|^create	[0-9]+	/api/v1/namespaces(\?|$)'
}

t_audit_writes() {
	t_audit_tsv "$@" | awk -F'\t' '$1 ~ /^(create|update|patch|delete|deletecollection)$/ && $3 !~ /[?&]dryRun=/'
}

t_audit_nwrites() {
	t_audit_writes "$@" | wc -l
}

t_audit_sync() {
	_t_i=0 _t_last=-1
	while [ "$_t_i" -lt 50 ]; do
		_t_n=$(t_audit_tsv "${2:-}" | wc -l)
		if [ -n "${1:-}" ]; then
			[ "$_t_n" -ge "$1" ] && return 0
		elif [ "$_t_n" -eq "$_t_last" ]; then
			return 0
		fi
		_t_last=$_t_n
		_t_i=$((_t_i + 1))
		sleep 0.1
	done
}

# t_faultproxy_start DIR: build tests/tools/faultproxy.c and start it in front of the
# testenv's API server (after t_testenv_start). Rules in DIR/rules (empty: pass all),
# its log in DIR/proxy.log; sets FP_URL (plain http on 127.0.0.1), FP_PID and FP_KC, a
# kubeconfig for user "tool" through the proxy (gpuform needs --insecure-loopback-http).
# With FP_TLS=1 the proxy serves TLS with the API server's own certificate instead
# (FP_URL https://; a client that trusts the server's CA trusts the proxy); FP_PORT: its
# port. Stopped on exit. Returns 1 (with a message on stderr) when it cannot.
t_faultproxy_start() {
	mkdir -p "$1" || return 1
	: >"$1/rules"
	: >"$1/proxy.log"
	# shellcheck disable=SC2046 # pkg-config's words
	cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter -g -O1 \
		-o "$1/faultproxy" "${here:-$(dirname "$0")}/tools/faultproxy.c" \
		$(pkg-config --cflags --libs openssl) -lpthread >&2 || return 1
	# shellcheck disable=SC2046 # the TLS options, two words each or none
	"$1/faultproxy" --upstream "$SERVER" --ca "$ENV_DIR/tls.crt" --rules "$1/rules" \
		--log "$1/proxy.log" --max-seconds 900 \
		$([ "${FP_TLS:-}" = 1 ] && echo --listen-cert "$ENV_DIR/tls.crt" --listen-key "$ENV_DIR/tls.key") \
		>"$1/port" 2>"$1/proxy.err" &
	FP_PID=$!
	t_on_exit "kill $FP_PID 2>/dev/null; wait $FP_PID 2>/dev/null"
	_t_i=0
	while [ "$_t_i" -lt 100 ] && [ ! -s "$1/port" ]; do
		sleep 0.1
		_t_i=$((_t_i + 1))
	done
	[ -s "$1/port" ] || { echo "faultproxy did not start: $(cat "$1/proxy.err")" >&2; return 1; }
	FP_PORT=$(head -n 1 "$1/port")
	FP_URL=http$([ "${FP_TLS:-}" = 1 ] && echo s)://127.0.0.1:$FP_PORT
	FP_KC=$1/kubeconfig
	printf '%s\n' 'apiVersion: v1' 'kind: Config' \
		"clusters: [{name: proxied, cluster: {server: \"$FP_URL\"$([ "${FP_TLS:-}" = 1 ] && echo ", certificate-authority: \"$ENV_DIR/tls.crt\"")}}]" \
		"users: [{name: tool, user: {token: \"$TOOL_TOKEN\"}}]" \
		'contexts: [{name: proxied, context: {cluster: proxied, user: tool}}]' \
		'current-context: proxied' >"$FP_KC"
}

# t_faultproxy_wait DIR PATTERN: wait (bounded, 120 s) until the proxy log has a line
# matching PATTERN (grep -E); 1 if it never comes
t_faultproxy_wait() {
	_t_i=0
	while [ "$_t_i" -lt 1200 ]; do
		grep -qE -- "$2" "$1/proxy.log" 2>/dev/null && return 0
		sleep 0.1
		_t_i=$((_t_i + 1))
	done
	return 1
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
