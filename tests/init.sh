#!/bin/sh
# tests/init.sh: `gpuform init` writes an intent that validates (gpuform
# validate and, when python3-jsonschema is there, the JSON Schema) and
# renders; it refuses to overwrite a file and leaves no temporary file.
#
#   GPUFORM=path/to/gpuform sh tests/init.sh
set -u
GPUFORM=${GPUFORM:-./gpuform}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

"$GPUFORM" init -n demo -g l4 -w train:training -w api:inference "$tmp/a.yaml" 2>/dev/null &&
	ok || bad "init exited $?"
"$GPUFORM" validate "$tmp/a.yaml" >/dev/null 2>&1 && ok || bad "init output does not validate"
"$GPUFORM" render "$tmp/a.yaml" >"$tmp/out.yaml" 2>/dev/null && ok || bad "init output does not render"
grep -q 'name: train' "$tmp/out.yaml" && ok || bad "the rendered output lacks the workload train"
grep -q '^# ' "$tmp/a.yaml" && ok || bad "init output has no comments"
"$GPUFORM" init "$tmp/b.yaml" 2>/dev/null && "$GPUFORM" validate "$tmp/b.yaml" >/dev/null 2>&1 &&
	ok || bad "init with the defaults does not validate"
if python3 -c 'import jsonschema, yaml' 2>/dev/null; then
	"$GPUFORM" schema >"$tmp/s.json"
	python3 -c 'import sys, json, yaml, jsonschema
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
		"$tmp/s.json" "$tmp/a.yaml" && ok || bad "init output fails the JSON Schema"
fi
# refuses to overwrite, leaves the file as it was
echo "keep" >"$tmp/c.yaml"
"$GPUFORM" init "$tmp/c.yaml" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 4 ] && ok || bad "init over an existing file: exit $rc, want 4"
[ "$(cat "$tmp/c.yaml")" = keep ] && ok || bad "init overwrote an existing file"
grep -q 'not overwriting' "$tmp/err" && ok || bad "no 'not overwriting' message"
"$GPUFORM" init "$tmp/a.yaml" 2>/dev/null; [ $? -eq 4 ] && ok || bad "second init over its own file did not refuse"
# usage errors write nothing
"$GPUFORM" init -w api:serving "$tmp/d.yaml" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$tmp/d.yaml" ] && ok || bad "bad --workload: exit $rc (want 2) or a file was written"
"$GPUFORM" init "$tmp/nodir/e.yaml" 2>/dev/null; rc=$?
[ "$rc" -eq 4 ] && ok || bad "init into a missing directory: exit $rc, want 4"
ls "$tmp" | grep -q gpuform-tmp && bad "temporary files left" || ok
echo "init: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
