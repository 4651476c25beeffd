#!/bin/sh
# tests/schema.sh: `gpuform schema` (generator/schema.c).
#   - the output is a valid draft-07 schema and is byte-identical across runs
#   - every specs/*.yaml validates against it
#   - every tests/invalid/*.yaml is rejected (by the YAML loader or the
#     schema), except the semantic cases in tests/schema/semantic.txt, which
#     must be accepted (each listed with the reason the schema cannot express
#     it); a listed case the schema rejects fails too: move it out of the list
# Needs python3 with jsonschema and yaml (Debian: python3-jsonschema
# python3-yaml; `make test-deps` installs them); installs nothing itself.
#
#   GPUFORM=path/to/gpuform sh tests/schema.sh
set -u
GPUFORM=${GPUFORM:-./gpuform}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if ! python3 -c 'import jsonschema, yaml' 2>/dev/null; then
	echo "tests/schema.sh: needs python3-jsonschema and python3-yaml (make test-deps)" >&2
	exit 1
fi
"$GPUFORM" schema >"$tmp/s1.json" || bad "gpuform schema exited $?"
"$GPUFORM" schema >"$tmp/s2.json"
cmp -s "$tmp/s1.json" "$tmp/s2.json" && ok || bad "schema output differs between runs"
"$GPUFORM" schema extra >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "gpuform schema ARG: want exit 2"

cat >"$tmp/check.py" <<'PY'
import sys, json, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema)
for f in sys.argv[2:]:
    try:
        with open(f, 'rb') as fh:
            docs = list(yaml.safe_load_all(fh))
    except Exception as e:
        print("REJECT", f, "yaml"); continue
    if len(docs) != 1:
        print("REJECT", f, "documents"); continue
    errs = sorted(v.iter_errors(docs[0]), key=lambda e: list(e.path))
    if errs:
        print("REJECT", f, "/".join(map(str, errs[0].path)) + ": " + errs[0].message[:120])
    else:
        print("ACCEPT", f)
PY
if ! python3 "$tmp/check.py" "$tmp/s1.json" "$root"/specs/*.yaml \
	"$root"/tests/invalid/*.yaml >"$tmp/out" 2>"$tmp/err"; then
	bad "the schema is not a valid draft-07 schema: $(head -c 300 "$tmp/err")"
fi
while read -r verdict f rest; do
	b=$(basename "$f")
	case $f in
	*/specs/*)
		[ "$verdict" = ACCEPT ] && ok || bad "specs/$b rejected: $rest" ;;
	*)
		if grep -q "^$b	" "$here/schema/semantic.txt"; then
			[ "$verdict" = ACCEPT ] && ok ||
				bad "$b is in tests/schema/semantic.txt but the schema rejects it ($rest): remove it from the list"
		else
			[ "$verdict" = REJECT ] && ok ||
				bad "tests/invalid/$b accepted by the schema: tighten generator/schema.c or list it in tests/schema/semantic.txt with the reason"
		fi ;;
	esac
done <"$tmp/out"
n=$(wc -l <"$tmp/out")
[ "$n" -gt 100 ] && ok || bad "checked only $n files"
# every listed case exists
grep -v '^#' "$here/schema/semantic.txt" | cut -f1 | while read -r b; do
	[ -f "$root/tests/invalid/$b" ] || echo "FAIL: tests/schema/semantic.txt lists missing $b" >&2
done
echo "schema: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
