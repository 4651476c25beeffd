#!/bin/sh
# tests/cli.sh: command-line behaviour — help, usage errors, exit codes,
# output failures, template overrides.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
GPUFORM=${GPUFORM:-./gpuform}
t_tmpdir tmp

# expect CODE NAME CMD...: run CMD, require exit CODE; output in $tmp/out, $tmp/err
expect() {
	code=$1 name=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$code" ]; then
		t_pass "$name"
	else
		t_fail "$name" "exit $got, want $code; stderr: $(head -3 "$tmp/err")"
	fi
}
# grep_in FILE PATTERN NAME
grep_in() {
	if grep -q -- "$2" "$1"; then t_pass "$3"; else t_fail "$3" "no '$2' in: $(head -5 "$1")"; fi
}

expect 2 "no arguments is a usage error" "$GPUFORM"
grep_in "$tmp/err" "see 'gpuform --help'" "no arguments points at --help"
expect 0 "--help" "$GPUFORM" --help
grep_in "$tmp/out" "render" "--help lists render"
grep_in "$tmp/out" "exit codes" "--help states exit codes"
expect 0 "help render" "$GPUFORM" help render
grep_in "$tmp/out" "usage: gpuform render" "help render prints its usage"
for c in render validate version help; do
	expect 0 "$c --help" "$GPUFORM" $c --help
	grep_in "$tmp/out" "usage: gpuform $c" "$c --help prints its usage"
done
expect 2 "help for an unknown command" "$GPUFORM" help nosuch
expect 0 "version" "$GPUFORM" version
grep_in "$tmp/out" "^gpuform $(cat VERSION)" "version prints VERSION"
expect 0 "--version" "$GPUFORM" --version
expect 2 "unknown command" "$GPUFORM" nosuch
grep_in "$tmp/err" "'nosuch' is not a gpuform command" "unknown command names it"
expect 2 "unknown global option" "$GPUFORM" --nosuch
expect 2 "render without files" "$GPUFORM" render
expect 2 "render with an unknown option" "$GPUFORM" render --nosuch specs/minimal.yaml
expect 2 "render with an unknown format" "$GPUFORM" render --format xml specs/minimal.yaml
grep_in "$tmp/err" "unknown output format 'xml'" "unknown format is named"
expect 2 "validate without files" "$GPUFORM" validate
expect 2 "version with an argument" "$GPUFORM" version extra

expect 0 "validate every example" "$GPUFORM" validate specs/*.yaml
grep_in "$tmp/out" "specs/ml-prod.yaml: ok" "validate says ok per file"
expect 4 "a missing file is an I/O error" "$GPUFORM" validate "$tmp/missing.yaml"
grep_in "$tmp/err" "^$tmp/missing.yaml: error: cannot open: No such file" "missing file is named, once"
expect 3 "a directory is not an intent" "$GPUFORM" validate specs
expect 3 "render of an invalid intent exits 3" "$GPUFORM" render "$tmp/err"

# a failed write to stdout must not look like success
if [ -w /dev/full ]; then
	expect 4 "render to a full disk (/dev/full) fails" sh -c "\"$GPUFORM\" render specs/minimal.yaml >/dev/full"
	grep_in "$tmp/err" "cannot write to standard output" "full-disk error is reported"
fi

# an unwritable output location leaves nothing behind
mkdir -p "$tmp/ro" && echo x >"$tmp/ro/file"
expect 4 "render -o into a path below a regular file fails" "$GPUFORM" render -o "$tmp/ro/file/out" specs/minimal.yaml
expect 3 "render -o onto a regular file is refused" "$GPUFORM" render -o "$tmp/ro/file" specs/minimal.yaml
[ "$(cat "$tmp/ro/file")" = x ] && t_pass "the regular file is untouched" || t_fail "the regular file is untouched"

# --templates overrides one template by file name; the rest stay built in
mkdir -p "$tmp/tpl"
cat >"$tmp/tpl/namespace.yaml" <<'T'
apiVersion: v1
kind: Namespace
metadata:
  name: ${name}
  labels: ${labels}
  annotations:
    team.example.com/owner: platform-${name}
T
expect 0 "render with --templates" "$GPUFORM" render --templates "$tmp/tpl" specs/minimal.yaml
grep_in "$tmp/out" "team.example.com/owner: platform-api" "overridden template is used"
grep_in "$tmp/out" "kind: NodePool" "other templates stay built in"
expect 3 "--templates with a missing directory" "$GPUFORM" render --templates "$tmp/nope" specs/minimal.yaml
printf 'a: [unclosed\n' >"$tmp/tpl/nodepool.yaml"
expect 3 "a broken template override is an input error" "$GPUFORM" render --templates "$tmp/tpl" specs/minimal.yaml
grep_in "$tmp/err" "nodepool.yaml:" "broken template is named with its position"

# a template that breaks a CEL rule of the CRDs (which a 1.20 API server
# would not enforce) is refused: here a restricted label domain
mkdir -p "$tmp/tpl2"
sed 's|      labels: ${nodeLabels}|      labels:\n        karpenter.sh/nodepool: mine|' templates/nodepool.yaml >"$tmp/tpl2/nodepool.yaml"
expect 3 "a template breaking a CRD rule is refused" "$GPUFORM" render --templates "$tmp/tpl2" specs/minimal.yaml
grep_in "$tmp/err" "karpenter.sh/nodepool" "the broken rule is named"
expect 3 "and nothing is written" "$GPUFORM" render --templates "$tmp/tpl2" -o "$tmp/never" specs/minimal.yaml
[ ! -e "$tmp/never" ] && t_pass "no output directory" || t_fail "no output directory"

# values are substituted into parsed nodes: a string that looks like YAML
# structure stays one string
sed 's/^  ami: al2023@v20250505$/  ami: al2023@v20250505\n  discovery: "x: y - z"/' specs/minimal.yaml >"$tmp/inject.yaml"
expect 0 "render an intent with a YAML-looking string" "$GPUFORM" render -f json "$tmp/inject.yaml"
if jq -e '[.items[] | select(.kind=="EC2NodeClass") | .spec.subnetSelectorTerms[0].tags["karpenter.sh/discovery"]] == ["x: y - z"]' "$tmp/out" >/dev/null; then
	t_pass "YAML-looking value stays a single string (JSON)"
else
	t_fail "YAML-looking value stays a single string (JSON)"
fi
"$GPUFORM" render "$tmp/inject.yaml" >"$tmp/inject.out" 2>/dev/null
grep_in "$tmp/inject.out" 'karpenter.sh/discovery: "x: y - z"' "YAML-looking value is quoted in YAML"

t_summary
