#!/usr/bin/env bash
# tests/output-faults.sh: `gpuform render -o DIR` and `render > stdout` under real kernel
# faults. The previous output in DIR must stay byte-identical, no temporary directory may be
# left behind, and gpuform must exit 4 with a message naming the path and the errno text.
#
#   GPUFORM=build/san/gpuform bash tests/output-faults.sh
#
#  - full disk: a 256 KiB tmpfs (mount -t tmpfs, root only) filled up so that the new tree
#    runs out of space after a few files (ENOSPC); where mounting is not permitted the case
#    is reported as skipped and the next one still gives a real fault:
#  - file size limit: RLIMIT_FSIZE (ulimit -f 1, SIGXFSZ ignored): every file over 1 KiB
#    fails with EFBIG (runs everywhere);
#  - unwritable parent directory: as root, gpuform runs as nobody (setpriv); as any other
#    user, the directory is made read-only (chmod a-w);
#  - stdout is /dev/full (ENOSPC on flush), YAML and JSON.
# Closing line: "N passed, N failed".

# shellcheck disable=SC2016 # check conditions: single-quoted, eval'd later
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
{
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
cd "$root" || exit 1
t_isolate
t_gpuform
WORK=
t_tmpdir WORK
chmod 0755 "$WORK"   # (nobody reads the intents from here in the unwritable case)
ALL_LOG=$WORK/all-gpuform-runs.log
: >"$ALL_LOG"
SPEC_A=$WORK/ml-prod.yaml
SPEC_B=$WORK/ml-prod-b.yaml
cp specs/ml-prod.yaml "$SPEC_A"
sed -e 's/^      maxGpus: 128$/      maxGpus: 192/' specs/ml-prod.yaml >"$SPEC_B"
chmod 0644 "$SPEC_A" "$SPEC_B"

# gf ARGS...: gpuform; $OUT (stdout), $ERR, $RC. PRE: a command prefix (array)
PRE=()
gf() {
	OUT=$(timeout 60 "${PRE[@]}" "$GPUFORM" "$@" 2>"$WORK/stderr")
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform $* (rc=$RC)" "$OUT" "--- stderr" "$ERR" >>"$ALL_LOG"
}
has_err() { printf '%s\n' "$ERR" | gq -F -- "$1"; }
# check (tests/lib.sh) shows this on a failure
t_detail() {
	printf 'condition: %s\nrc=%s\n--- stdout\n%s\n--- stderr\n%s\n%s\n' \
		"$1" "$RC" "$(printf '%s\n' "$OUT" | head -n 10)" "$(printf '%s\n' "$ERR" | head -n 10)" "${EXTRA:-}"
}
# tree_sum DIR: every file and its SHA-256, and every directory, sorted
tree_sum() { (cd "$1" && find . -printf '%y %p\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# leftovers PARENT: temporary directories gpuform left behind
leftovers() { find "$1" -maxdepth 1 -name '.gpuform-tmp-*' | head; }

# the outputs the faults must not disturb, and the one the retry must produce
gf render --output-dir "$WORK/ref-a" "$SPEC_A"
gf render --output-dir "$WORK/ref-b" "$SPEC_B"
REF_A=$(tree_sum "$WORK/ref-a")
REF_B=$(tree_sum "$WORK/ref-b")
RC=- OUT= ERR=
check "reference outputs rendered, and they differ (B raises a limit)" \
	'[[ -n $REF_A && -n $REF_B && $REF_A != "$REF_B" ]] && [[ $(find "$WORK/ref-a" -type f | wc -l) -gt 10 ]]'

# ==== full disk (tmpfs) =======================================================================
MNT=$WORK/mnt
mkdir -p "$MNT"
if [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=256k,mode=0755 gpuform-test "$MNT" 2>/dev/null; then
	t_on_exit "umount '$MNT' 2>/dev/null"
	cp -a "$WORK/ref-a" "$MNT/out"
	# fill the file system, then free 3 pages: the new tree gets a few files in, then ENOSPC
	dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
	sync
	truncate -s "$(($(stat -c %s "$MNT/filler") - 3 * 4096))" "$MNT/filler"
	gf render --output-dir "$MNT/out" "$SPEC_B"
	EXTRA=$(df -k "$MNT" | tail -n1)
	check "full disk (tmpfs): exit 4, 'cannot write' and 'No space left on device', naming the file" \
		'[[ $RC == 4 ]] && has_err "cannot write" && has_err "No space left on device" && has_err "$MNT/" &&
		 ! has_err "Sanitizer"'
	check "  the previous output is byte-identical, no temporary directory is left" \
		'[[ $(tree_sum "$MNT/out") == "$REF_A" && -z $(leftovers "$MNT") ]]'
	rm -f "$MNT/filler"
	gf render --output-dir "$MNT/out" "$SPEC_B"
	check "  with space again, the next run writes the new output (equal to a fault-free render)" \
		'[[ $RC == 0 && $(tree_sum "$MNT/out") == "$REF_B" && -z $(leftovers "$MNT") ]]'
	# a full disk before anything could be created: the temporary directory itself fails
	rm -rf "$MNT/out" && cp -a "$WORK/ref-a" "$MNT/out"
	dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
	gf render --output-dir "$MNT/out" "$SPEC_B"
	check "  completely full: exit 4 with a message, previous output intact, nothing left behind" \
		'[[ $RC == 4 && -n $ERR ]] && has_err "No space left on device" &&
		 [[ $(tree_sum "$MNT/out") == "$REF_A" && -z $(leftovers "$MNT") ]]'
	umount "$MNT" 2>/dev/null
else
	echo "skip full disk on tmpfs: mounting a tmpfs is not permitted here (the file size limit below still fails writes)"
fi

# ==== file size limit: EFBIG from the kernel ==================================================
rm -rf "$WORK/out-fsize" && cp -a "$WORK/ref-a" "$WORK/out-fsize"
# (SIGXFSZ ignored: write() then fails with EFBIG instead of killing the process)
PRE=(bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' limit)
gf render --output-dir "$WORK/out-fsize" "$SPEC_B"
PRE=()
check "file size limit (RLIMIT_FSIZE 1 KiB): exit 4, 'cannot write', 'File too large'" \
	'[[ $RC == 4 ]] && has_err "cannot write" && has_err "File too large" && ! has_err "Sanitizer"'
check "  the previous output is byte-identical, no temporary directory is left" \
	'[[ $(tree_sum "$WORK/out-fsize") == "$REF_A" && -z $(leftovers "$WORK") ]]'
gf render --output-dir "$WORK/out-fsize" "$SPEC_B"
check "  without the limit, the next run writes the new output" \
	'[[ $RC == 0 && $(tree_sum "$WORK/out-fsize") == "$REF_B" ]]'

# ==== unwritable output directory ============================================================
P=$WORK/ro
mkdir -p "$P"
cp -a "$WORK/ref-a" "$P/out"
chmod -R a+rX "$P"
if [[ $(id -u) == 0 ]]; then
	how="as nobody (setpriv), the directory owned by root"
	PRE=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
else
	how="a directory without write permission"
	chmod a-w "$P" "$P/out"
fi
gf render --output-dir "$P/out" "$SPEC_B"
PRE=()
check "unwritable parent directory ($how): exit 4, 'cannot create a temporary directory', 'Permission denied'" \
	'[[ $RC == 4 ]] && has_err "cannot create a temporary directory in '"'$P'"'" && has_err "Permission denied" &&
	 ! has_err "Sanitizer"'
check "  the previous output is byte-identical, nothing created" \
	'[[ $(tree_sum "$P/out") == "$REF_A" && -z $(leftovers "$P") ]]'
chmod u+w "$P" "$P/out"

# ==== stdout on a full device ==================================================================
for fmt in yaml json; do
	OUT=$(timeout 60 "$GPUFORM" render --format "$fmt" "$SPEC_A" 2>"$WORK/stderr" >/dev/full)
	RC=$?
	ERR=$(cat "$WORK/stderr")
	printf '%s\n' "--- gpuform render --format $fmt > /dev/full (rc=$RC)" "$ERR" >>"$ALL_LOG"
	check "render --format $fmt > /dev/full: exit 4, 'cannot write to standard output: No space left on device'" \
		'[[ $RC == 4 ]] && has_err "cannot write to standard output" && has_err "No space left on device"'
done

if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$ALL_LOG"; then
	t_fail "no sanitizer reports in any gpuform run" "$(grep -E -A8 'Sanitizer|runtime error' "$ALL_LOG" | head -n 30)"
else
	t_pass "no sanitizer reports in any gpuform run"
fi
t_summary
exit
}
