#!/bin/sh
# tests/coverage.sh: line coverage of the library (util/, generator/, git/, http/,
# kube/, aws/, reconcile/) by the unit suite alone, from a --coverage build (`make
# coverage` builds build/cov/ and runs this).
#
#   sh tests/coverage.sh [BUILD_DIR]      (default build/cov)
#
# Runs BUILD_DIR/tests/unit/run with fresh counters, then gcov (-n: no
# .gcov files) over every library source, and prints per module and per
# folder: executable lines, lines the unit suite ran, percent. Then the
# "server-only" figure: the executable lines the unit suite does NOT run in
# the modules whose job is talking to a server (SERVER_MODULES below:
# the HTTP layer, the Kubernetes and AWS clients, the Git network code's
# module) — the lines only a suite with a real server can reach.
# Writes the same table to BUILD_DIR/coverage.txt. gcov only (GCC's);
# gcovr or lcov are not needed.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build/cov}
UNIT=$B/tests/unit/run
[ -x "$UNIT" ] || { echo "coverage: no $UNIT (run 'make coverage')" >&2; exit 1; }
command -v gcov >/dev/null || { echo "coverage: gcov is not installed" >&2; exit 1; }

SERVER_MODULES='http/http.c kube/kube.c kube/kubeconn.c kube/kubeconfig.c
kube/kubeexec.c kube/incluster.c
aws/aws.c aws/awscreds.c aws/awsxml.c reconcile/preflight.c
reconcile/lease.c reconcile/notify.c reconcile/metrics.c reconcile/nodecount.c
reconcile/source.c git/repo.c git/repo_tree.c git/repo_remote.c'

find "$B" -name '*.gcda' -exec rm -f {} +
"$UNIT" >"$B/coverage-unit.log" 2>&1 || {
	tail -n 20 "$B/coverage-unit.log" >&2
	echo "coverage: the unit suite failed" >&2
	exit 1
}

out=$B/coverage.txt
{
	for src in $(git ls-files 'util/*.c' 'generator/*.c' 'git/*.c' 'http/*.c' 'kube/*.c' \
		'aws/*.c' 'reconcile/*.c'); do
		obj=$B/${src%.c}.o
		[ -f "$obj" ] || continue
		# "File 'x.c'" then "Lines executed:85.00% of 120"; no .gcda
		# (never run) gives "No executable lines" or 0%
		gcov -n -o "$(dirname "$obj")" "$src" 2>/dev/null |
			awk -v want="$src" -v server=" $(echo $SERVER_MODULES) " '
			/^File / { f = $2; gsub(/\047/, "", f); next }
			/^Lines executed:/ && f == want {
				split($2, a, ":"); pct = a[2]; sub(/%/, "", pct)
				n = $4; ran = int(pct * n / 100 + 0.5)
				srv = index(server, " " want " ") ? 1 : 0
				printf "%s %d %d %d\n", want, n, ran, srv
				f = ""
			}'
	done
} >"$B/coverage.raw"

awk '
function pct(r, n) { return n ? sprintf("%5.1f%%", 100 * r / n) : "   - " }
{
	split($1, p, "/"); dir = p[1]
	n[dir] += $2; r[dir] += $3; N += $2; R += $3
	if ($4) { sn += $2; sr += $3 }
	printf "  %-32s %5d %5d %s\n", $1, $2, $3, pct($3, $2)
}
END {
	print ""
	for (d in n) printf "  %-32s %5d %5d %s\n", d "/", n[d], r[d], pct(r[d], n[d])
	printf "  %-32s %5d %5d %s\n", "library (unit suite only)", N, R, pct(R, N)
	printf "\nserver-only lines (executable lines of the server-facing modules\n"
	printf "the unit suite does not run): %d of %d (%s not run)\n", sn - sr, sn, pct(sn - sr, sn)
}' "$B/coverage.raw" | {
	echo "unit-suite line coverage (module, executable lines, lines run, percent):"
	cat
} | tee "$out"
