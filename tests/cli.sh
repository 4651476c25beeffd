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
expect 0 "render an intent with a YAML-looking string" "$GPUFORM" render -o json "$tmp/inject.yaml"
if jq -e '[.items[] | select(.kind=="EC2NodeClass") | .spec.subnetSelectorTerms[0].tags["karpenter.sh/discovery"]] == ["x: y - z"]' "$tmp/out" >/dev/null; then
	t_pass "YAML-looking value stays a single string (JSON)"
else
	t_fail "YAML-looking value stays a single string (JSON)"
fi
"$GPUFORM" render "$tmp/inject.yaml" >"$tmp/inject.out" 2>/dev/null
grep_in "$tmp/inject.out" 'karpenter.sh/discovery: "x: y - z"' "YAML-looking value is quoted in YAML"

# ---- issue 17: a CLI that behaves like git and kubectl ------------------------
# lines NAME FILE N: FILE has exactly N lines
lines() {
	n=$(wc -l <"$2" | tr -d ' ')
	if [ "$n" -eq "$3" ]; then t_pass "$1"; else t_fail "$1" "$n lines, want $3: $(head -5 "$2")"; fi
}
# options anywhere; "--" ends them
expect 0 "options after the operand (render FILE -o json)" "$GPUFORM" render specs/minimal.yaml -o json
grep_in "$tmp/out" '"kind":	"List"' "  ... -o json took effect"
expect 0 "--format after the operand (the old spelling, still accepted)" "$GPUFORM" render specs/minimal.yaml --format json
grep_in "$tmp/out" '"kind":	"List"' "  ... --format json took effect"
cp specs/minimal.yaml "$tmp/-o"
expect 0 "'--' ends options: a file named '-o' after it is an operand" sh -c "cd \"$tmp\" && \"$GPUFORM\" render -- -o"
grep_in "$tmp/out" "kind: NodePool" "  ... and is rendered"
# one convention for -o: the output format everywhere; directories via --output-dir
expect 0 "render --output-dir DIR" "$GPUFORM" render specs/minimal.yaml --output-dir "$tmp/od"
[ -f "$tmp/od/kustomization.yaml" ] && t_pass "  ... writes the directory" || t_fail "  ... writes the directory"
expect 0 "render -o DIR (the old meaning) still works" "$GPUFORM" render -o "$tmp/od2" specs/minimal.yaml
grep_in "$tmp/err" "deprecated: -o is the output format" "  ... with a deprecation warning naming --output-dir"
[ -f "$tmp/od2/kustomization.yaml" ] && t_pass "  ... and writes the directory" || t_fail "  ... and writes the directory"
expect 2 "render -o jsn: a misspelt format is an error, not a directory" "$GPUFORM" render -o jsn specs/minimal.yaml
grep_in "$tmp/err" "did you mean 'json'" "  ... with did-you-mean"
[ ! -e jsn ] && t_pass "  ... and no directory 'jsn'" || t_fail "  ... and no directory 'jsn'"
expect 0 "lint -o json" "$GPUFORM" lint -o json specs/minimal.yaml
grep_in "$tmp/out" '"findings"' "  ... is JSON"
expect 0 "install -o json" "$GPUFORM" install --git https://x.test/r.git --cluster a -o json
grep_in "$tmp/out" '"kind":	"List"' "  ... is a JSON List"
# the CronJob sends the Git token on every fetch: never over plain http to another host
expect 3 "install_git_refuses_plain_http: install --git http://<not loopback>" "$GPUFORM" install --git http://git.example.com/r.git --cluster a
grep_in "$tmp/err" "is plain http://: the CronJob would send the Git token" "  ... says why"
expect 0 "  ... http:// to loopback is accepted" "$GPUFORM" install --git http://127.0.0.1:8080/r.git --cluster a -o json
# one meaning for --path: the directory that holds one directory per cluster
# (commit, reconcile --git, install); --cluster picks the cluster
for c in reconcile install; do
	expect 0 "$c --help" "$GPUFORM" $c --help
	tr '\n' ' ' <"$tmp/out" | tr -s ' ' >"$tmp/help1"
	grep_in "$tmp/help1" "path DIR [a-z ]*holds one directory per cluster" "  ... --path: the directory that holds one directory per cluster"
	grep_in "$tmp/help1" "cluster NAME .*DIR/NAME/" "  ... --cluster NAME: DIR/NAME/"
done
expect 0 "install --path clusters/a (the old spelling) still works" "$GPUFORM" install --git https://x.test/r.git --path clusters/a -o json
lines "  ... with one warning line" "$tmp/err" 1
grep_in "$tmp/err" "deprecated; use --path clusters --cluster a$" "  ... naming the new spelling"
if jq -e '.items[] | select(.kind == "CronJob") | .spec.jobTemplate.spec.template.spec.containers[0].args | index("--cluster") as $i | .[$i + 1] == "a" and .[index("--path") + 1] == "clusters"' "$tmp/out" >/dev/null; then
	t_pass "  ... and the CronJob gets the new spelling (--path clusters --cluster a)"
else
	t_fail "  ... and the CronJob gets the new spelling (--path clusters --cluster a)" "$(grep -A3 -e '--path' "$tmp/out" | head -8)"
fi
expect 2 "install --path clusters/a --cluster a" "$GPUFORM" install --git https://x.test/r.git --path clusters/a --cluster a
lines "  ... one line" "$tmp/err" 1
grep_in "$tmp/err" "drop '/a' from --path (--path clusters --cluster a)" "  ... says what to drop"
expect 2 "install without --cluster or --path" "$GPUFORM" install --git https://x.test/r.git
grep_in "$tmp/err" "--cluster NAME is required" "  ... asks for --cluster"
expect 2 "reconcile --cluster without --git" "$GPUFORM" reconcile --cluster a specs/minimal.yaml
lines "  ... one line" "$tmp/err" 1
grep_in "$tmp/err" "go with --git" "  ... says it goes with --git"
expect 2 "reconcile --git --cluster with a bad name" "$GPUFORM" reconcile --git "$tmp/none.git" --cluster ../a
grep_in "$tmp/err" "not a cluster name" "  ... says so"
# usage errors: one line and a pointer to --help; did you mean
expect 2 "unknown option" "$GPUFORM" render --formt json specs/minimal.yaml
lines "  ... one line" "$tmp/err" 1
grep_in "$tmp/err" "did you mean '--format'" "  ... with did-you-mean"
grep_in "$tmp/err" "see 'gpuform render --help'" "  ... and a pointer to --help"
expect 2 "an option without its value" "$GPUFORM" render specs/minimal.yaml -o
lines "  ... one line" "$tmp/err" 1
grep_in "$tmp/err" "needs a value" "  ... says the value is missing"
expect 2 "unknown command 'rendr'" "$GPUFORM" rendr specs/minimal.yaml
lines "  ... one line" "$tmp/err" 1
grep_in "$tmp/err" "did you mean 'render'" "  ... did you mean 'render'"
expect 2 "commit without --repo" "$GPUFORM" commit specs/minimal.yaml
lines "  ... one line" "$tmp/err" 1
expect 2 "diff --head with --live" "$GPUFORM" diff --live --head HEAD specs/minimal.yaml
grep_in "$tmp/err" "head goes with diff --base" "  ... says which mode it belongs to"
expect 4 "a missing file" "$GPUFORM" validate "$tmp/missing.yaml"
if grep -q "cannot open '" "$tmp/err"; then t_fail "  ... names the file once (no doubled subject)" "$(cat "$tmp/err")"; else t_pass "  ... names the file once (no doubled subject)"; fi
# '-' is standard input for render and validate
expect 0 "validate - (standard input)" sh -c "\"$GPUFORM\" validate - <specs/minimal.yaml"
grep_in "$tmp/out" "<stdin>: ok" "  ... reports <stdin>"
expect 0 "render - (standard input)" sh -c "\"$GPUFORM\" render - <specs/minimal.yaml"
grep_in "$tmp/out" "kind: NodePool" "  ... renders it"
# input errors a person makes, one error each, with a hint that says what they did
printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\nspec: {}\n' >"$tmp/np.yaml"
expect 3 "validate of a NodePool" "$GPUFORM" validate "$tmp/np.yaml"
grep_in "$tmp/err" "this is a NodePool (karpenter.sh/v1), not a gpuform intent" "  ... recognised as a Kubernetes manifest"
grep_in "$tmp/err" "gpuform lint" "  ... and sent to gpuform lint"
grep_in "$tmp/err" "gpuform: error: 1 error" "  ... one error"
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata:\n  name: a\n' >"$tmp/nospec.yaml"
expect 3 "a missing spec" "$GPUFORM" validate "$tmp/nospec.yaml"
grep_in "$tmp/err" "gpuform: error: 1 error" "  ... is one error"
sed 's/  nodeRole:/  noderole:/' specs/minimal.yaml >"$tmp/typo.yaml"
expect 3 "one mistyped key" "$GPUFORM" validate "$tmp/typo.yaml"
grep_in "$tmp/err" "did you mean 'nodeRole'" "  ... did you mean"
grep_in "$tmp/err" "gpuform: error: 1 error" "  ... is one error"
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata:\n\tname: a\n' >"$tmp/tab.yaml"
expect 3 "a tab in indentation" "$GPUFORM" validate "$tmp/tab.yaml"
grep_in "$tmp/err" "indented with a tab" "  ... says so"
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata\n  name: a\n' >"$tmp/colon.yaml"
expect 3 "a key without its colon" "$GPUFORM" validate "$tmp/colon.yaml"
grep_in "$tmp/err" "line 3 ('metadata') has no ':'" "  ... names the line and the key"
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata:\n  name: "a\nspec: {}\n' >"$tmp/quote.yaml"
expect 3 "an unclosed quote" "$GPUFORM" validate "$tmp/quote.yaml"
grep_in "$tmp/err" "never closed" "  ... says where the quote opened"
for v in al2023@20250505:al2023@v20250505 bottlerocket@1.26.1:bottlerocket@v1.26.1; do
	sed "s/^  ami: .*/  ami: ${v%%:*}/" specs/minimal.yaml >"$tmp/ami.yaml"
	expect 0 "ami: ${v%%:*} (no 'v')" "$GPUFORM" render "$tmp/ami.yaml"
	grep_in "$tmp/out" "alias: ${v#*:}$" "  ... rendered as ${v#*:}"
	grep_in "$tmp/err" "write 'ami: ${v#*:}'" "  ... with a warning showing the spelling"
done
sed "s/^  ami: .*/  ami: al2023@2025-05-05/" specs/minimal.yaml >"$tmp/ami.yaml"
expect 3 "ami: al2023@2025-05-05 is still an error" "$GPUFORM" validate "$tmp/ami.yaml"
# the same warnings from validate, render and lint (text, JSON, SARIF)
for f in specs/*.yaml; do
	v=$("$GPUFORM" validate "$f" 2>&1 >/dev/null | grep ': warning: ' | sort)
	r=$("$GPUFORM" render "$f" 2>&1 >/dev/null | grep ': warning: ' | sort)
	l=$("$GPUFORM" lint "$f" 2>&1 >/dev/null | grep ': warning: ' | sort)
	j=$("$GPUFORM" lint -o json "$f" 2>/dev/null | jq .warnings)
	if [ "$v" = "$r" ] && [ "$v" = "$l" ] && [ "$j" -eq "$(printf '%s' "$v" | grep -c . )" ]; then
		t_pass "same warnings from validate, render and lint: $f ($j)"
	else
		t_fail "same warnings from validate, render and lint: $f" "validate: $v
render: $r
lint: $l
lint json: $j"
	fi
done
expect 3 "lint of an invalid intent" "$GPUFORM" lint "$tmp/nospec.yaml"
grep_in "$tmp/err" "gpuform lint: 1 file, 1 error" "  ... counts its error"
# intent warnings carry a rule id: every INT rule `explain` lists has a
# fixture tests/rules/ID.yaml whose warning validate, render, plan and lint
# show as "[ID name]", and lint's SARIF and JSON name the rule
"$GPUFORM" explain | awk '$1 ~ /^INT/ {print $1, $3}' >"$tmp/intrules"
[ "$(wc -l <"$tmp/intrules")" -ge 10 ] && t_pass "explain lists the intent rules" || t_fail "explain lists the intent rules" "$(cat "$tmp/intrules")"
bad=''
while read -r id name; do
	f=tests/rules/$id.yaml
	[ -f "$f" ] || { bad="$bad $id(no-fixture)"; continue; }
	for c in validate render plan lint; do
		"$GPUFORM" $c "$f" >/dev/null 2>"$tmp/rerr"
		# plan stops before the render stage (INT006, INT010)
		[ $c = plan ] || grep -q ": warning: .* \[$id $name\]\$" "$tmp/rerr" || bad="$bad $id($c)"
		grep ": warning: " "$tmp/rerr" | grep -qv ' \[INT[0-9]* [a-z0-9-]*\]$' && bad="$bad $id($c-untagged)"
	done
	"$GPUFORM" explain "$id" | head -1 | grep -q "^$id $name (warning)" || bad="$bad $id(explain)"
	"$GPUFORM" lint -o sarif "$f" 2>/dev/null | jq -e --arg id "$id" '[.runs[0].results[] | select(.ruleId == $id)] | length > 0' >/dev/null || bad="$bad $id(sarif)"
	"$GPUFORM" lint -o json "$f" 2>/dev/null | jq -e --arg id "$id" --arg n "$name" '[.findings[] | select(.rule == $id and .name == $n)] | length > 0' >/dev/null || bad="$bad $id(json)"
done <"$tmp/intrules"
[ -z "$bad" ] && t_pass "every intent warning has its rule id in validate/render/plan/lint, SARIF and JSON" || t_fail "intent rule ids:$bad"
for f in tests/rules/*.yaml; do
	grep -q "^$(basename "$f" .yaml) " "$tmp/intrules" || t_fail "tests/rules/$(basename "$f") is not a rule explain lists"
done
"$GPUFORM" lint -o sarif specs 2>/dev/null | jq -e '[.runs[0].results[] | select(.level == "warning" and .ruleId == "INTENT")] | length == 0' >/dev/null &&
	t_pass "lint -o sarif specs: no intent warning under the catch-all INTENT rule" || t_fail "lint -o sarif specs: intent warnings under INTENT"
# spec.acknowledge silences a warning (by rule, for one workload or all);
# --strict fails on the warnings left (exit 3; lint: 1), render then writes
# nothing
sed 's/^  workloads:$/  acknowledge:\
    - {rule: INT006, workload: notebooks, reason: "a narrow pool on purpose"}\
    - {rule: gang-mixed-gpu-memory, reason: "the model fits 80 GiB"}\
  workloads:/' specs/research-mig.yaml >"$tmp/acked.yaml"
expect 0 "validate --strict of an intent whose warnings are acknowledged" "$GPUFORM" validate --strict "$tmp/acked.yaml"
grep_in "$tmp/out" "acked.yaml: ok$" "  ... says ok, without warnings"
[ -s "$tmp/err" ] && t_fail "  ... and prints no warning" "$(cat "$tmp/err")" || t_pass "  ... and prints no warning"
for c in render plan lint; do
	expect 0 "$c --strict of the acknowledged intent" "$GPUFORM" $c --strict "$tmp/acked.yaml"
	grep -q ': warning: ' "$tmp/err" && t_fail "  ... $c prints no warning" "$(cat "$tmp/err")" || t_pass "  ... $c prints no warning"
done
sed 's/workload: notebooks/workload: spot-jupyter/' "$tmp/acked.yaml" >"$tmp/acked2.yaml"
sed -n 's/^    - name: //p' specs/research-mig.yaml | grep -qx spot-jupyter && t_fail "research-mig.yaml grew a workload spot-jupyter"
expect 3 "an acknowledgement for an unknown workload is an error" "$GPUFORM" validate "$tmp/acked2.yaml"
sed 's/^  workloads:$/  acknowledge:\
    - {rule: INT006, workload: finetune, reason: "the wrong workload"}\
  workloads:/' specs/research-mig.yaml >"$tmp/acked3.yaml"
expect 0 "validate: an acknowledgement for another workload accepts nothing" "$GPUFORM" validate "$tmp/acked3.yaml"
grep_in "$tmp/err" "\\[INT006 spot-pool-no-cheaper-replacement\\]$" "  ... the warning stays"
grep_in "$tmp/err" ": warning: acknowledgement of INT006 for finetune matches no warning \\[INT011 acknowledgement-unused\\]$" "  ... and the unused acknowledgement is a warning (INT011)"
expect 3 "validate --strict with a warning left: exit 3" "$GPUFORM" validate --strict specs/research-mig.yaml
grep_in "$tmp/out" "research-mig.yaml: failed (--strict: 2 warnings)" "  ... says failed, not ok"
grep_in "$tmp/err" "gpuform validate: --strict: 2 warnings not acknowledged" "  ... and why"
expect 0 "validate without --strict: warnings do not fail" "$GPUFORM" validate specs/research-mig.yaml
expect 3 "render --strict with a warning left: exit 3" "$GPUFORM" render --strict specs/research-mig.yaml
[ -s "$tmp/out" ] && t_fail "  ... prints nothing on stdout" || t_pass "  ... prints nothing on stdout"
expect 3 "render --strict --output-dir with a warning left: exit 3" "$GPUFORM" render --strict --output-dir "$tmp/strict-out" specs/research-mig.yaml
[ -e "$tmp/strict-out" ] && t_fail "  ... writes no directory" || t_pass "  ... writes no directory"
expect 3 "plan --strict with a warning left: exit 3" "$GPUFORM" plan --strict specs/research-mig.yaml
expect 1 "lint --strict with a warning left: exit 1 (as an error finding)" "$GPUFORM" lint --strict specs/research-mig.yaml
expect 0 "lint without --strict: exit 0" "$GPUFORM" lint specs/research-mig.yaml
# version, explain classes, completion, man
expect 0 "version" "$GPUFORM" version
grep_in "$tmp/out" "^commit: \([0-9a-f]\{7,\}\(-dirty\)\?\|unknown\) (\(release v$(cat VERSION)\|development build, not release v$(cat VERSION)\))$" "  ... names the commit it was built from, and whether it is the release"
grep_in "$tmp/out" "^targets: Karpenter v1\.14\.1, Kueue v0\.19\.2$" "  ... and the Karpenter and Kueue versions it targets"
expect 0 "version -o json" "$GPUFORM" version -o json
[ "$(jq -r '.karpenter + " " + .kueue' "$tmp/out")" = "v1.14.1 v0.19.2" ] && t_pass "  ... has karpenter and kueue" || t_fail "  ... has karpenter and kueue" "$(cat "$tmp/out")"
expect 0 "explain classes" "$GPUFORM" explain classes
grep_in "$tmp/out" '^| `h100` | `p5`' "  ... maps h100 to p5"
# explain classes: a terminal table on a terminal (a pty), Markdown with
# -o markdown or when stdout is not a terminal
pty_run() { # ARGS...: stdout of gpuform ARGS run on a pseudo-terminal
	python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace("\r\n", "\n"))' "$GPUFORM" "$@"
}
pty_run explain classes >"$tmp/tty"
grep -q '^CLASS  *FAMILIES' "$tmp/tty" && ! grep -q '^|' "$tmp/tty" && grep -q '^h100  *p5 (h100' "$tmp/tty" &&
	t_pass "explain classes on a terminal: a table with a header, no Markdown" || t_fail "explain classes on a terminal: a table" "$(head -5 "$tmp/tty")"
pty_run explain -o markdown classes >"$tmp/tty"
grep -q '^| `h100` | `p5`' "$tmp/tty" && t_pass "explain -o markdown classes on a terminal: Markdown" || t_fail "explain -o markdown classes on a terminal: Markdown" "$(head -5 "$tmp/tty")"
expect 0 "explain -o text classes (not a terminal)" "$GPUFORM" explain -o text classes
grep_in "$tmp/out" "^CLASS  *FAMILIES" "  ... the table"
expect 2 "explain -o xml classes: usage error" "$GPUFORM" explain -o xml classes
# preflight rules are explained like lint rules
expect 0 "explain PF003" "$GPUFORM" explain PF003
grep_in "$tmp/out" "^PF003 efa-security-group (error)$" "  ... names the preflight rule"
expect 0 "explain pf005 (any case)" "$GPUFORM" explain pf005
grep_in "$tmp/out" "^PF005 instance-type-not-offered" "  ... finds it"
expect 0 "explain preflight" "$GPUFORM" explain preflight
[ "$(grep -c '^PF0[0-9][0-9] ' "$tmp/out")" -ge 8 ] && t_pass "  ... lists PF000-PF007" || t_fail "  ... lists PF000-PF007" "$(cat "$tmp/out")"
expect 2 "explain PF999: exit 2" "$GPUFORM" explain PF999
grep_in "$tmp/err" "explain preflight" "  ... and points at the preflight list"
expect 0 "completion bash" "$GPUFORM" completion bash
if bash -c ". \"$tmp/out\" && COMP_WORDS=(gpuform rend) COMP_CWORD=1 && _gpuform && [ \"\${COMPREPLY[*]}\" = render ] &&
	COMP_WORDS=(gpuform render --out) COMP_CWORD=2 && _gpuform && [ \"\${COMPREPLY[*]}\" = '--output --output-dir' ] &&
	COMP_WORDS=(gpuform lint -o '') COMP_CWORD=3 && _gpuform && [ \"\${COMPREPLY[*]}\" = 'text json sarif' ]"; then
	t_pass "  ... completes commands, options and values in bash"
else
	t_fail "  ... completes commands, options and values in bash"
fi
expect 0 "completion zsh" "$GPUFORM" completion zsh
if command -v zsh >/dev/null 2>&1; then
	if zsh -n "$tmp/out" 2>"$tmp/zerr"; then t_pass "  ... zsh parses it"; else t_fail "  ... zsh parses it" "$(cat "$tmp/zerr")"; fi
	mkdir -p "$tmp/zfp" && cp "$tmp/out" "$tmp/zfp/_gpuform"
	if [ "$(zsh -fc "fpath=('$tmp/zfp' \$fpath); autoload -Uz compinit; compinit -u -d '$tmp/zcd'; print -- \${_comps[gpuform]}" 2>&1)" = _gpuform ]; then
		t_pass "  ... and compinit registers it for gpuform (from fpath)"
	else
		t_fail "  ... and compinit registers it for gpuform (from fpath)"
	fi
else
	t_fail "  ... zsh parses it" "zsh is not installed (sh tests/deps.sh)"
fi
expect 2 "completion fish" "$GPUFORM" completion fish
for c in $("$GPUFORM" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }'); do
	"$GPUFORM" help-man "$c" >"$tmp/man.1" 2>"$tmp/err" || t_fail "help-man $c"
	"$GPUFORM" "$c" --help >"$tmp/help" 2>&1
	# every option --help lists is in the man page (one source: the tables)
	missing=''
	for o in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
		grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$tmp/man.1" || missing="$missing $o"
	done
	[ -z "$missing" ] && t_pass "gpuform-$c(1) documents every option of '$c --help'" || t_fail "gpuform-$c(1) documents every option of '$c --help'" "missing:$missing"
done

# ---- gpuform plan (docs/plan.md) -------------------------------------------
expect 0 "plan of every example" "$GPUFORM" plan specs/*.yaml
grep_in "$tmp/out" "^cluster ml-prod (specs/ml-prod.yaml)" "plan: a table per cluster"
grep_in "$tmp/out" "llm-pretrain .*16 x p5.48xlarge 880.64" "plan: the 16 x 8 gang on 16 p5.48xlarge, 16 x 55.04 USD/h"
# one cluster per example (render of all specs refuses two for one cluster)
nspecs=$(ls specs/*.yaml | wc -l | tr -d ' ')
grep_in "$tmp/out" "^all inputs: $nspecs clusters" "plan: a total for all inputs ($nspecs examples)"
grep_in "$tmp/out" "us-east-1, 2026-12-01" "plan: prices labelled with region and date"
# the capacity column is the NodePool's capacity types (plan_capacity_types, as rendered)
grep_in "$tmp/out" "^  h100-block .* reserved  " "plan: a Capacity Block pool that waits launches reserved only"
grep_in "$tmp/out" "^  chat .* reserved+on-demand  " "plan: a reservation with an on-demand fallback"
expect 0 "plan -o json" "$GPUFORM" plan -o json specs/ml-prod.yaml
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=d["clusters"][0]["workloads"][0]; assert w["maxNodes"]==16 and w["gang"]["cheapest"]["usdPerHour"]==880.64, w; assert w["instanceTypeDetails"]==[{"name":"p5.48xlarge","gpus":8,"gpuUnits":8,"podSlots":104,"podsPerNode":1,"efaInterfaces":32,"usdPerHour":55.04}], w; assert d["total"]["maxGpus"]==160' "$tmp/out" 2>"$tmp/perr"; then
	t_pass "plan -o json: numbers of the model"
else
	t_fail "plan -o json: numbers of the model" "$(cat "$tmp/perr")"
fi
expect 0 "plan -o markdown" "$GPUFORM" plan -o markdown specs/ml-prod.yaml
grep_in "$tmp/out" "^| \*\*total\*\* | | | | | \*\*160\*\* |" "plan -o markdown: a total row"
expect 2 "plan without files" "$GPUFORM" plan
expect 2 "plan -o xml" "$GPUFORM" plan -o xml specs/minimal.yaml
expect 2 "plan --zone-max-nodes 0" "$GPUFORM" plan --zone-max-nodes 0 specs/minimal.yaml
expect 3 "plan of an invalid intent prints no plan" "$GPUFORM" plan specs/minimal.yaml tests/invalid/43-ami-unpinned.yaml
[ -s "$tmp/out" ] && t_fail "  ... stdout is empty" "$(head -3 "$tmp/out")" || t_pass "  ... stdout is empty"
expect 4 "plan of a missing file" "$GPUFORM" plan "$tmp/missing.yaml"
# a capacity finding that is an error: exit 1, plan printed, file:line:col
sed 's/maxGpus: 128/maxGpus: 120/' specs/ml-prod.yaml >"$tmp/gang.yaml"
expect 1 "plan: a gang above maxGpus is an error finding (exit 1)" "$GPUFORM" plan "$tmp/gang.yaml"
grep_in "$tmp/err" "^$tmp/gang.yaml:[0-9]*:[0-9]*: error: gang of 16 pods x 8 GPUs = 128 is more than maxGpus 120" "  ... at file:line:col"
grep_in "$tmp/out" "^cluster ml-prod" "  ... and the plan is printed"
expect 3 "  ... validate says the same as an invalid intent" "$GPUFORM" validate "$tmp/gang.yaml"
grep_in "$tmp/err" "error: gang of 16 pods x 8 GPUs = 128 is more than maxGpus 120" "  ... with the same words"
expect 1 "plan --zone-max-nodes 8: the EFA gang of 16 nodes does not fit one zone" "$GPUFORM" plan --zone-max-nodes 8 specs/ml-prod.yaml
grep_in "$tmp/err" "needs 16 p5.48xlarge nodes in one Availability Zone" "  ... says how many nodes"
expect 0 "plan --zone-max-nodes 16 fits" "$GPUFORM" plan --zone-max-nodes 16 specs/ml-prod.yaml
grep_in "$tmp/out" "one zone: fits" "  ... and says so"
# --prices: the samples in both formats give the catalog's prices
for f in json csv; do
	expect 0 "plan --prices (AWS Price List $f)" "$GPUFORM" plan -o json --prices tests/fixtures/prices/ec2-us-east-1-sample.$f specs/ml-prod.yaml
	grep_in "$tmp/out" '"date":	"2026-11-20"' "  ... labelled with the file's publication date"
	grep_in "$tmp/out" '"usdPerHour":	880.64' "  ... p5.48xlarge at the catalog's price"
done
head -c 5000 tests/fixtures/prices/ec2-us-east-1-sample.json >"$tmp/trunc.json"
expect 3 "plan --prices of a truncated file" "$GPUFORM" plan --prices "$tmp/trunc.json" specs/ml-prod.yaml
grep_in "$tmp/err" "trunc.json:[0-9]*: the file ends inside the JSON .*truncated" "  ... names the file, line and why"
[ -s "$tmp/out" ] && t_fail "  ... prints no plan" "$(head -3 "$tmp/out")" || t_pass "  ... prints no plan"
# a price is decimal and bounded: a hex float (0x1p10 = $1024) is refused
sed 's/"55.0400000000"/"0x1p10"/' tests/fixtures/prices/ec2-us-east-1-sample.csv >"$tmp/hex.csv"
expect 3 "plan --prices refuses a hex-float price" "$GPUFORM" plan --prices "$tmp/hex.csv" specs/ml-prod.yaml
grep_in "$tmp/err" "hex.csv:7: '0x1p10' is not a price in USD" "  ... with the file and line"
sed 's/"55.0400000000"/"1e-400"/' tests/fixtures/prices/ec2-us-east-1-sample.csv >"$tmp/tiny.csv"
expect 3 "plan --prices refuses a price that underflows to 0" "$GPUFORM" plan --prices "$tmp/tiny.csv" specs/ml-prod.yaml

# spot estimates (tests/fixtures/prices/spot-us-east-1-sample.json): p5.48xlarge's newest prices
# are 30 (1a) and 34 (1b), median 32, so llm-pretrain's 16 nodes cost 16 x 32 = 512 at spot
# (its floor and ceiling, one type); ml-prod's llm-pretrain is on-demand: '-'
expect 0 "plan --spot-prices" "$GPUFORM" plan --spot-prices tests/fixtures/prices/spot-us-east-1-sample.json tests/advise/fleet.yaml
grep_in "$tmp/out" "spot: tests/fixtures/prices/spot-us-east-1-sample.json (2 types, newest 2026-11-30T12:00:00+00:00), the median over zones" "  ... names the file"
grep_in "$tmp/out" "pretrain .* 220.16 .* 128.00 .. 128.00$" "  ... pretrain: 4 x p5.48xlarge at the median 32 = 128.00 (on-demand 220.16)"
expect 0 "plan --spot-prices -o json" "$GPUFORM" plan --spot-prices tests/fixtures/prices/spot-us-east-1-sample.json -o json tests/advise/fleet.yaml
grep_in "$tmp/out" '"spotFloorUsdPerHour":[[:space:]]*256,' "  ... finetune: 8 x 32 = 256 in the JSON"
printf '{"SpotPriceHistory": [\n  {"InstanceType": "g6.xlarge",\n   "AvailabilityZone": "us-east-1a", "SpotPrice": "cheap"}]}\n' >"$tmp/spot-bad.json"
expect 3 "plan --spot-prices refuses a price that is not a number" "$GPUFORM" plan --spot-prices "$tmp/spot-bad.json" specs/ml-prod.yaml
grep_in "$tmp/err" "spot-bad.json:3:38: SpotPriceHistory\[0\]: SpotPrice 'cheap' is not a price in USD" "  ... with file:line:col"
[ -s "$tmp/out" ] && t_fail "  ... prints no plan" "$(head -3 "$tmp/out")" || t_pass "  ... prints no plan"

# diff --base --spot-prices: finetune 64 -> 24 H100 is 8 -> 3 p5.48xlarge, at the median spot
# price 32: 256.00 -> 96.00
if command -v git >/dev/null 2>&1; then
	spotf=$(pwd)/tests/fixtures/prices/spot-us-east-1-sample.json
	mkdir -p "$tmp/spotrepo" && cp tests/advise/fleet.yaml "$tmp/spotrepo/"
	(cd "$tmp/spotrepo" && git init -q && git add . && git -c user.name=t -c user.email=t@e commit -qm 1 &&
		sed -i '0,/maxGpus: 64/s//maxGpus: 24/' fleet.yaml) >/dev/null 2>&1
	(cd "$tmp/spotrepo" && "$GPUFORM" diff --base HEAD --spot-prices "$spotf" fleet.yaml) >"$tmp/out" 2>"$tmp/err"
	grep_in "$tmp/out" "fleet/finetune: GPUs 64 -> 24 (-40), .*floor \$/hour 440.32 -> 165.12 (-275.20), \$/month 321433.60 -> 120537.60 (-200896.00), spot max \$/hour 256.00 -> 96.00 (-160.00)$" "diff --base --spot-prices: floor, month and spot per workload"
	(cd "$tmp/spotrepo" && "$GPUFORM" diff --base HEAD --prices "$tmp/trunc.json" fleet.yaml) >"$tmp/out" 2>"$tmp/err"
	grep_in "$tmp/err" "trunc.json:[0-9]*: the file ends inside the JSON" "diff --base --prices: a truncated price file is an error"
	[ -s "$tmp/out" ] && t_fail "  ... prints no diff" "$(head -3 "$tmp/out")" || t_pass "  ... prints no diff"
fi

# ---- render directories that cannot delete (issue 24) -------------------------
# A Flux Kustomization (prune: true) or an Argo CD Application pointed at a root
# with `resources: []` deletes everything it applied before: a root always lists
# its cluster directories.
expect 0 "render of two intents into one directory" "$GPUFORM" render --output-dir "$tmp/fleet" specs/ml-prod.yaml specs/research-mig.yaml
[ "$(sed -n '/^resources:/,$p' "$tmp/fleet/kustomization.yaml" | tr '\n' ' ')" = "resources: - ml-prod - research " ] &&
	t_pass "  ... the root kustomization lists both cluster directories" ||
	t_fail "  ... the root kustomization lists both cluster directories" "$(cat "$tmp/fleet/kustomization.yaml")"
grep -rl 'resources: \[\]' "$tmp/fleet" >/dev/null 2>&1 &&
	t_fail "  ... no kustomization.yaml has empty resources" "$(grep -rl 'resources: \[\]' "$tmp/fleet")" ||
	t_pass "  ... no kustomization.yaml has empty resources"
expect 0 "render --per-cluster of one intent" "$GPUFORM" render --per-cluster --output-dir "$tmp/fleet1" specs/ml-prod.yaml
[ -f "$tmp/fleet1/ml-prod/kustomization.yaml" ] && [ "$(sed -n '/^resources:/,$p' "$tmp/fleet1/kustomization.yaml" | tr '\n' ' ')" = "resources: - ml-prod " ] &&
	t_pass "  ... writes DIR/<cluster>/ and a root listing it, as for several" ||
	t_fail "  ... writes DIR/<cluster>/ and a root listing it, as for several" "$(ls -R "$tmp/fleet1" | head)"
"$GPUFORM" render --output-dir "$tmp/flat1" specs/ml-prod.yaml 2>/dev/null
diff -r "$tmp/flat1" "$tmp/fleet1/ml-prod" >/dev/null && diff -r "$tmp/fleet/ml-prod" "$tmp/fleet1/ml-prod" >/dev/null &&
	t_pass "  ... the cluster directory is the same bytes as a single-intent render" ||
	t_fail "  ... the cluster directory is the same bytes as a single-intent render"
expect 2 "render --per-cluster without --output-dir is a usage error" "$GPUFORM" render --per-cluster specs/ml-prod.yaml
if command -v kubectl >/dev/null 2>&1; then
	# kustomize (built into kubectl, offline) builds each directory as Flux's
	# kustomize-controller would: a cluster directory into all its objects; the
	# root of two clusters (which share cluster-scoped names such as
	# EC2NodeClass 'general') fails to build, so a controller pointed at the
	# root applies and prunes nothing, where `resources: []` pruned everything
	n=$(kubectl kustomize "$tmp/fleet/ml-prod" 2>"$tmp/err" | grep -c '^kind:')
	want=$("$GPUFORM" render -o json specs/ml-prod.yaml 2>/dev/null | jq '.items | length')
	[ "$n" = "$want" ] && t_pass "  ... kustomize builds a cluster directory into all $want objects" ||
		t_fail "  ... kustomize builds a cluster directory into all $want objects" "got $n: $(head -3 "$tmp/err")"
	n=$(kubectl kustomize "$tmp/fleet" 2>"$tmp/err" | grep -c '^kind:')
	[ "$n" = 0 ] && grep -q 'already registered id' "$tmp/err" &&
		t_pass "  ... the root of two clusters fails to build (never an empty build)" ||
		t_fail "  ... the root of two clusters fails to build (never an empty build)" "got $n objects: $(head -3 "$tmp/err")"
fi

# ---- conventions (issue 24) -------------------------------------------------
# -f is the file in kubectl: never an alias for the output format
expect 2 "render -f FILE is a usage error, not a format" "$GPUFORM" render -f specs/minimal.yaml
grep_in "$tmp/err" "files are operands" "  ... says files are operands and -o is the format"
if grep -q "unknown output format" "$tmp/err"; then t_fail "  ... does not read the file name as a format"; else t_pass "  ... does not read the file name as a format"; fi
# one -o parser (cmd_format): every format a command offers is accepted
for cf in "render yaml json" "lint text json sarif" "plan text markdown json" "version text json"; do
	set -- $cf
	c=$1; shift
	for w in "$@"; do
		if [ "$c" = version ]; then "$GPUFORM" version -o "$w" >/dev/null 2>&1; else "$GPUFORM" "$c" -o "$w" specs/minimal.yaml >/dev/null 2>&1; fi
		rc=$?
		[ "$rc" != 2 ] && t_pass "$c -o $w is accepted" || t_fail "$c -o $w is accepted" "exit $rc"
	done
done
expect 2 "diff --live -o markdown says markdown is for --base" "$GPUFORM" diff --live -o markdown specs/minimal.yaml
grep_in "$tmp/err" "diff --live prints text or json; -o markdown is for diff --base" "  ... by name"
expect 2 "lint -o sarf suggests sarif" "$GPUFORM" lint -o sarf specs/minimal.yaml
grep_in "$tmp/err" "unknown output format 'sarf' (text, json or sarif; did you mean 'sarif'?)" "  ... with the list, as every command"
expect 2 "preflight -o x lists its formats the same way" "$GPUFORM" preflight -o x specs/minimal.yaml
grep_in "$tmp/err" "unknown output format 'x' (text, json or sarif)" "  ... (text, json or sarif)"

# kubectl's --dry-run=server is gpuform's dry run; =client has no meaning here
printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\ncurrent-context: ctx\n' >"$tmp/kc"
expect 2 "reconcile --dry-run=client is a usage error that says why" "$GPUFORM" reconcile --kubeconfig "$tmp/kc" --dry-run=client specs/minimal.yaml
grep_in "$tmp/err" "no client-side dry run" "  ... (no client-side dry run)"
expect 4 "reconcile --dry-run=server is accepted (then fails to connect: exit 4, not 2)" "$GPUFORM" reconcile --kubeconfig "$tmp/kc" --request-timeout 2s --timeout 5s --dry-run=server specs/minimal.yaml
expect 2 "reconcile --dry-run=yes names the values" "$GPUFORM" reconcile --kubeconfig "$tmp/kc" --dry-run=yes specs/minimal.yaml
# usage-level errors are exit 2 everywhere
expect 2 "reconcile --context nope: exit 2 (usage), as kubectl" "$GPUFORM" reconcile --kubeconfig "$tmp/kc" --context nope specs/minimal.yaml
grep_in "$tmp/err" "context 'nope' is not defined" "  ... names the context"
expect 2 "diff --live --context nope: exit 2" "$GPUFORM" diff --live --kubeconfig "$tmp/kc" --context nope specs/minimal.yaml
# global flags before the command, as kubectl and helm allow
expect 0 "gpuform -o json render FILE (options before the command)" "$GPUFORM" -o json render specs/minimal.yaml
grep_in "$tmp/out" '"kind":[[:space:]]*"List"' "  ... renders JSON"
expect 0 "gpuform -o json version" "$GPUFORM" -o json version
grep_in "$tmp/out" '"version"' "  ... prints JSON"
expect 2 "an option and no command after it is a usage error" "$GPUFORM" -o json
# -q and -v
expect 0 "render -q --output-dir prints nothing" "$GPUFORM" -q render --output-dir "$tmp/quiet" specs/minimal.yaml
[ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ] && [ -f "$tmp/quiet/kustomization.yaml" ] && t_pass "  ... and writes the directory" || t_fail "  ... and writes the directory" "$(cat "$tmp/err")"
expect 0 "render --output-dir without -q says what it wrote" "$GPUFORM" render --output-dir "$tmp/loud" specs/minimal.yaml
grep_in "$tmp/err" "rendered specs/minimal.yaml" "  ... one line per intent"
expect 0 "-v is accepted anywhere before --" "$GPUFORM" render specs/minimal.yaml -v
# validate: a valid file with warnings says so
expect 0 "validate of files with warnings" "$GPUFORM" validate specs/bottlerocket-sharing.yaml specs/research-mig.yaml specs/minimal.yaml
grep_in "$tmp/out" "^specs/bottlerocket-sharing.yaml: ok (1 warning)$" "  ... 'ok (1 warning)'"
grep_in "$tmp/out" "^specs/research-mig.yaml: ok (2 warnings)$" "  ... 'ok (2 warnings)'"
grep_in "$tmp/out" "^specs/minimal.yaml: ok$" "  ... plain 'ok' without"
# one duration syntax for --timeout
expect 2 "preflight --timeout 2x: a usage error naming the duration syntax" "$GPUFORM" preflight --timeout 2x specs/minimal.yaml
grep_in "$tmp/err" "wants a duration up to 10m (like 30s or 2m)" "  ... (like 30s or 2m)"
expect 2 "reconcile --timeout 2x: the same syntax" "$GPUFORM" reconcile --kubeconfig "$tmp/kc" --timeout 2x specs/minimal.yaml
# diff --base in a shallow clone (actions/checkout's default) says so
if command -v git >/dev/null 2>&1; then
	mkdir -p "$tmp/deep/specs" && cp specs/minimal.yaml "$tmp/deep/specs/"
	(cd "$tmp/deep" && git init -q && git add . && git -c user.name=t -c user.email=t@e commit -qm 1 &&
		sed -i 's/^  name: tiny$/  name: tiny2/' specs/minimal.yaml && git -c user.name=t -c user.email=t@e commit -qam 2 &&
		git clone -q --depth 1 "file://$tmp/deep" "$tmp/shallow") >/dev/null 2>&1
	(cd "$tmp/shallow" && "$GPUFORM" diff --base HEAD~1 specs/minimal.yaml) >"$tmp/out" 2>"$tmp/err"
	grep_in "$tmp/err" "the clone is shallow .*'fetch-depth: 0'" "diff --base HEAD~1 in a shallow clone names the cause and fetch-depth: 0"
fi
# diff --base --strict: the new version's unacknowledged warnings fail
if command -v git >/dev/null 2>&1; then
	mkdir -p "$tmp/strict/specs" && cp specs/research-mig.yaml "$tmp/strict/specs/"
	(cd "$tmp/strict" && git init -q && git add . && git -c user.name=t -c user.email=t@e commit -qm 1) >/dev/null 2>&1
	(cd "$tmp/strict" && "$GPUFORM" diff --base HEAD specs/research-mig.yaml) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && t_pass "diff --base HEAD without --strict: warnings do not fail" || t_fail "diff --base HEAD without --strict: exit $rc" "$(cat "$tmp/err")"
	(cd "$tmp/strict" && "$GPUFORM" diff --base HEAD --strict specs/research-mig.yaml) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 3 ] && grep -q 'gpuform diff: --strict: 2 warnings not acknowledged' "$tmp/err" &&
		t_pass "diff --base HEAD --strict: exit 3, the warnings named" || t_fail "diff --base HEAD --strict: exit $rc, want 3" "$(cat "$tmp/err")"
	cp "$tmp/acked.yaml" "$tmp/strict/specs/research-mig.yaml"
	(cd "$tmp/strict" && "$GPUFORM" diff --base HEAD --strict specs/research-mig.yaml) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ] && ! grep -q -- '--strict' "$tmp/err" &&
		t_pass "diff --base HEAD --strict with the warnings acknowledged in the work tree: no --strict failure" || t_fail "diff --base --strict acknowledged: exit $rc" "$(cat "$tmp/err")"
fi

t_summary
