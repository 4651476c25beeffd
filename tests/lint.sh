#!/bin/sh
# tests/lint.sh: `gpuform lint` and `gpuform explain`.
#
#  1. rules: every tests/lint/<RULE>/ has bad*.yaml and good*.yaml. Each
#     bad FILE is linted alone (in its directory, with the options in
#     `args` if present) and its stdout must equal FILE's .expect file
#     exactly (file:line:col: severity: message [RULE name]); every
#     expected line must be of that RULE; exit 1 if an error is expected,
#     else 0. Each good FILE must give no finding at all and exit 0.
#  2. realistic: each tests/lint/realistic/<case>/ directory (hand-written
#     manifests a user might bring, some with an intent) is linted as a
#     whole and must give exactly its `expect` file.
#  3. gpuform's own examples: every specs/*.yaml, its `render` stdout and
#     its `render -o` tree give no finding.
#  4. SARIF output validates against the OASIS SARIF 2.1.0 schema
#     (tests/fixtures/sarif/, Debian's python3-jsonschema).
#  5. explain: every rule listed by `gpuform explain` explains itself, has
#     a fixture directory, and every fixture directory is a listed rule.
#  6. command line: formats, exit codes, determinism, unknown kinds.
#
#   GPUFORM=path/to/gpuform sh tests/lint.sh [--update]
#
# --update rewrites the .expect / expect files from the current output
# (review `git diff tests/lint` before committing).
set -u

GPUFORM=${GPUFORM:-./gpuform}
case $GPUFORM in
/*) ;;
*/*) GPUFORM=$(pwd)/$GPUFORM ;;
esac
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
LC_ALL=C
export LC_ALL

# shellcheck source=tests/lib.sh
. tests/lib.sh

UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1

t_tmpdir T
PY=/usr/bin/python3

sanitizer_clean() { # stderr-file
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$1"
}

# ---- 1. one fixture pair per rule ------------------------------------------
for dir in tests/lint/GPU*/; do
	rule=$(basename "$dir")
	args=''
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	nbad=0 ngood=0
	for f in "$dir"/bad*.yaml; do
		[ -f "$f" ] || continue
		nbad=$((nbad + 1))
		name=$(basename "$f")
		exp=${f%.yaml}.expect
		# shellcheck disable=SC2086 # args are words
		(cd "$dir" && "$GPUFORM" lint $args "$name") >"$T/out" 2>"$T/err"
		rc=$?
		if [ $UPDATE = 1 ]; then
			cp "$T/out" "$exp"
		fi
		want_rc=0
		grep -q ': error: ' "$exp" 2>/dev/null && want_rc=1
		if [ ! -s "$exp" ]; then
			t_fail "lint $rule/$name: $exp is missing or empty (a bad fixture must fail)"
		elif ! cmp -s "$T/out" "$exp"; then
			t_fail "lint $rule/$name: findings differ" "$(diff "$exp" "$T/out")"
		elif grep -v "\[$rule " "$exp" | grep -q .; then
			t_fail "lint $rule/$name: expects findings of other rules" "$(grep -v "\[$rule " "$exp")"
		elif [ $rc -ne $want_rc ]; then
			t_fail "lint $rule/$name: exit $rc, want $want_rc" "$(cat "$T/err")"
		elif ! sanitizer_clean "$T/err"; then
			t_fail "lint $rule/$name: sanitizer report" "$(cat "$T/err")"
		else
			t_pass "lint $rule/$name: $(wc -l <"$exp" | tr -d ' ') finding(s) at the expected line:col"
		fi
	done
	for f in "$dir"/good*.yaml; do
		[ -f "$f" ] || continue
		ngood=$((ngood + 1))
		name=$(basename "$f")
		# shellcheck disable=SC2086
		(cd "$dir" && "$GPUFORM" lint $args "$name") >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc -ne 0 ] || [ -s "$T/out" ] || ! sanitizer_clean "$T/err"; then
			t_fail "lint $rule/$name: want no finding, exit 0 (got $rc)" "$(cat "$T/out" "$T/err")"
		else
			t_pass "lint $rule/$name: clean"
		fi
	done
	if [ $nbad -eq 0 ] || [ $ngood -eq 0 ]; then
		t_fail "lint $rule: needs bad*.yaml and good*.yaml fixtures"
	fi
done

# ---- 2. realistic manifests ---------------------------------------------------
for dir in tests/lint/realistic/*/; do
	case=$(basename "$dir")
	(cd "$dir" && "$GPUFORM" lint .) >"$T/out" 2>"$T/err"
	rc=$?
	[ $UPDATE = 1 ] && cp "$T/out" "$dir/expect"
	want_rc=0
	grep -q ': error: ' "$dir/expect" && want_rc=1
	if ! cmp -s "$T/out" "$dir/expect"; then
		t_fail "lint realistic/$case: findings differ" "$(diff "$dir/expect" "$T/out")"
	elif [ $rc -ne $want_rc ] || ! sanitizer_clean "$T/err"; then
		t_fail "lint realistic/$case: exit $rc, want $want_rc" "$(cat "$T/err")"
	else
		t_pass "lint realistic/$case: $(wc -l <"$dir/expect" | tr -d ' ') expected finding(s)"
	fi
done

# ---- 3. gpuform's own examples and what it renders ----------------------------
for spec in specs/*.yaml; do
	n=$(basename "$spec" .yaml)
	"$GPUFORM" lint "$spec" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$T/out" ]; then
		t_fail "lint $spec: want no finding" "$(cat "$T/out" "$T/err")"
	else
		t_pass "lint $spec: no finding"
	fi
	if "$GPUFORM" render "$spec" >"$T/$n.yaml" 2>/dev/null &&
		"$GPUFORM" lint - <"$T/$n.yaml" >"$T/out" 2>"$T/err" &&
		[ ! -s "$T/out" ]; then
		t_pass "lint (render $spec): no finding"
	else
		t_fail "lint (render $spec): want no finding" "$(cat "$T/out" "$T/err")"
	fi
	if "$GPUFORM" render -o "$T/tree-$n" "$spec" >/dev/null 2>&1 &&
		"$GPUFORM" lint "$T/tree-$n" >"$T/out" 2>"$T/err" &&
		[ ! -s "$T/out" ]; then
		t_pass "lint (render -o $spec, with addons): no finding"
	else
		t_fail "lint (render -o $spec): want no finding" "$(cat "$T/out" "$T/err")"
	fi
done

# ---- 4. SARIF 2.1.0 --------------------------------------------------------
SCHEMA=tests/fixtures/sarif/sarif-schema-2.1.0.json
(cd tests/lint/realistic && "$GPUFORM" lint --format sarif .) >"$T/all.sarif" 2>"$T/err"
rc=$?
if [ $rc -ne 1 ]; then
	t_fail "lint --format sarif: exit $rc, want 1 (realistic cases have errors)" "$(cat "$T/err")"
elif ! $PY -c 'import jsonschema' 2>/dev/null; then
	t_fail "lint --format sarif: python3-jsonschema is missing (tests/deps.sh installs it)"
else
	# as many results as the text format finds in the same set (not the
	# sum of the cases' expect files: linted together, a NodePool of one
	# case can meet another case's EC2NodeClass of the same name, GPU022)
	(cd tests/lint/realistic && "$GPUFORM" lint .) >"$T/all.txt" 2>/dev/null
	if $PY - "$SCHEMA" "$T/all.sarif" "$(grep -c . "$T/all.txt")" <<'EOF' >"$T/py" 2>&1; then
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
want = int(sys.argv[3])
cls = jsonschema.validators.validator_for(schema)   # draft-07, as declared
cls.check_schema(schema)
# the stored copy keeps the OASIS top-level object in definitions/Root
# (tests/fixtures/sarif/SOURCES.md): validate against that
root = dict(schema, **{"$ref": "#/definitions/Root"})
errors = sorted(cls(root).iter_errors(log), key=str)
for e in errors[:5]:
    print("schema:", list(e.absolute_path), e.message)
assert not errors, "%d schema errors" % len(errors)
run = log["runs"][0]
assert run["tool"]["driver"]["name"] == "gpuform"
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert len(ids) == len(set(ids))
for r in run["tool"]["driver"]["rules"]:
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
    assert r["help"]["text"]
res = run["results"]
assert len(res) == want, "%d results, want %d" % (len(res), want)
for x in res:
    assert x["ruleId"] in ids and ids[x["ruleIndex"]] == x["ruleId"]
    assert x["level"] in ("error", "warning", "note")
    loc = x["locations"][0]["physicalLocation"]
    assert not loc["artifactLocation"]["uri"].startswith("/")
    assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
print("ok", cls.__name__, len(res), "results")
EOF
		t_pass "lint --format sarif: valid against the SARIF 2.1.0 schema ($(cat "$T/py"))"
	else
		t_fail "lint --format sarif: not valid SARIF 2.1.0" "$(cat "$T/py")"
	fi
	# a schema-violating log must be caught: the validation can fail
	if $PY - "$SCHEMA" "$T/all.sarif" <<'EOF' >/dev/null 2>&1; then
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
root = dict(schema, **{"$ref": "#/definitions/Root"})
log["runs"][0]["results"][0]["level"] = "fatal"
jsonschema.validators.validator_for(schema)(root).validate(log)
EOF
		t_fail "lint --format sarif: the schema check accepts an invalid level"
	else
		t_pass "lint --format sarif: the schema check rejects a broken log"
	fi
fi
"$GPUFORM" lint --format sarif specs >"$T/clean.sarif" 2>/dev/null
rc=$?
# the examples have no finding; their only results are the warnings that
# validate and render give for them too (issue 17: the same warnings)
nwarn=$("$GPUFORM" validate specs/*.yaml 2>&1 >/dev/null | grep -c ': warning: ')
if [ $rc -eq 0 ] && $PY -c '
import json, sys
import jsonschema
s = json.load(open(sys.argv[1])); l = json.load(open(sys.argv[2]))
jsonschema.validators.validator_for(s)(dict(s, **{"$ref": "#/definitions/Root"})).validate(l)
r = l["runs"][0]["results"]
assert len(r) == int(sys.argv[3]), (len(r), sys.argv[3])
rules = l["runs"][0]["tool"]["driver"]["rules"]
# each warning under its own intent rule (INT001...), not the catch-all INTENT
assert all(x["ruleId"].startswith("INT") and x["ruleId"] != "INTENT" and
           rules[x["ruleIndex"]]["id"] == x["ruleId"] and
           x["level"] == "warning" for x in r), r' "$SCHEMA" "$T/clean.sarif" "$nwarn" 2>"$T/py"; then
	t_pass "lint --format sarif on the examples: valid, only validate's $nwarn warnings, exit 0"
else
	t_fail "lint --format sarif on clean input (exit $rc)" "$(cat "$T/py")"
fi

# ---- 5. explain --------------------------------------------------------------
if "$GPUFORM" explain >"$T/rules" 2>"$T/err" && [ -s "$T/rules" ]; then
	t_pass "explain: lists $(wc -l <"$T/rules" | tr -d ' ') rules"
else
	t_fail "explain: no rule list" "$(cat "$T/err")"
fi
missing=''
for id in $(awk '{print $1}' "$T/rules"); do
	name=$(awk -v id="$id" '$1 == id {print $3}' "$T/rules")
	"$GPUFORM" explain "$id" >"$T/ex" 2>&1 || missing="$missing $id(exit)"
	grep -q '^Why: ' "$T/ex" && grep -q '^Fix: ' "$T/ex" &&
		head -1 "$T/ex" | grep -q "^$id $name (" || missing="$missing $id(text)"
	"$GPUFORM" explain "$name" | cmp -s - "$T/ex" || missing="$missing $id(by-name)"
	# the intent's own rules (INT*) have their fixtures in tests/rules/
	# (tests/cli.sh checks them in every command)
	case $id in
	INT*) [ -f "tests/rules/$id.yaml" ] || missing="$missing $id(no-fixture)" ;;
	*) [ -d "tests/lint/$id" ] || missing="$missing $id(no-fixture)" ;;
	esac
done
for dir in tests/lint/GPU*/; do
	grep -q "^$(basename "$dir") " "$T/rules" || missing="$missing $(basename "$dir")(not-a-rule)"
done
if [ -z "$missing" ]; then
	t_pass "explain RULE: every rule has why/fix text, a name alias and fixtures"
else
	t_fail "explain RULE: problems:$missing"
fi
"$GPUFORM" explain GPU999 >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && t_pass "explain GPU999: exit 2" || t_fail "explain GPU999: exit $rc, want 2"

# ---- 6. command line -------------------------------------------------------
"$GPUFORM" lint >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && t_pass "lint without paths: exit 2" || t_fail "lint without paths: exit $rc"
"$GPUFORM" lint --format xml specs >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && t_pass "lint --format xml: exit 2" || t_fail "lint --format xml: exit $rc"
"$GPUFORM" lint --snapshot-size 150Gi specs >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && t_pass "lint --snapshot-size without id: exit 2" || t_fail "lint --snapshot-size 150Gi: exit $rc"

printf 'a: [1, 2\n' >"$T/broken.yaml"
"$GPUFORM" lint "$T/broken.yaml" tests/lint/GPU019/bad.yaml >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "broken.yaml:[0-9]*:[0-9]*:" "$T/err" &&
	grep -q 'GPU019' "$T/out"; then
	t_pass "lint invalid YAML: exit 3 with file:line:col, other files still linted"
else
	t_fail "lint invalid YAML: exit $rc" "$(cat "$T/out" "$T/err")"
fi
sed 's/al2023@v20250505/al2023@latest/' tests/lint/GPU008/good-intent.yaml >"$T/latest-intent.yaml"
"$GPUFORM" lint "$T/latest-intent.yaml" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "latest-intent.yaml:7:8: error: .*@latest" "$T/err"; then
	t_pass "lint of an intent validate rejects: exit 3 with validate's message"
else
	t_fail "lint of an invalid intent: exit $rc" "$(cat "$T/out" "$T/err")"
fi
"$GPUFORM" lint "$T/does-not-exist.yaml" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 4 ] && t_pass "lint of a missing file: exit 4" || t_fail "lint of a missing file: exit $rc" "$(cat "$T/err")"

# deterministic: same bytes twice, and sorted by file, line, column
(cd tests/lint && "$GPUFORM" lint GPU*/bad*.yaml realistic) >"$T/a" 2>/dev/null
(cd tests/lint && "$GPUFORM" lint realistic GPU*/bad*.yaml) >"$T/b" 2>/dev/null
sort -t: -k1,1 -k2,2n -k3,3n -s "$T/a" >"$T/sorted"
if cmp -s "$T/a" "$T/b" && cmp -s "$T/a" "$T/sorted" && [ -s "$T/a" ]; then
	t_pass "lint output is deterministic and sorted by file, line, column ($(wc -l <"$T/a" | tr -d ' ') findings)"
else
	t_fail "lint output not deterministic or not sorted" "$(diff "$T/a" "$T/b" | head; diff "$T/a" "$T/sorted" | head)"
fi

# json
(cd tests/lint/GPU014 && "$GPUFORM" lint --format json bad.yaml) >"$T/j" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && $PY -c '
import json, sys
j = json.load(open(sys.argv[1]))
f = j["findings"]
assert j["errors"] == 1 and j["warnings"] == 0 and len(f) == 1
assert (f[0]["rule"], f[0]["name"], f[0]["line"], f[0]["column"], f[0]["severity"], f[0]["file"]) == ("GPU014", "quota-below-gang", 32, 16, "error", "bad.yaml")
' "$T/j" 2>"$T/py"; then
	t_pass "lint --format json: rule, name, file, line, column, severity"
else
	t_fail "lint --format json (exit $rc)" "$(cat "$T/j" "$T/py")"
fi

# kinds lint does not know, and a CronJob pod template without GPUs, pass
cat >"$T/install.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: gpuform-system}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: gpuform, namespace: gpuform-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gpuform}
rules:
  - apiGroups: [karpenter.sh]
    resources: [nodepools]
    verbs: [get, list, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gpuform}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gpuform}
subjects: [{kind: ServiceAccount, name: gpuform, namespace: gpuform-system}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: gpuform-reconcile, namespace: gpuform-system}
spec:
  schedule: "*/10 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: gpuform
          restartPolicy: OnFailure
          containers:
            - name: gpuform
              image: ghcr.io/example/gpuform:1.0
              args: [reconcile, --git, https://git.example.com/gitops.git]
              resources:
                requests: {cpu: 100m, memory: 128Mi}
---
apiVersion: example.com/v1
kind: SomethingElse
metadata: {name: x}
spec: {nvidia.com/gpu: 64}
EOF
"$GPUFORM" lint "$T/install.yaml" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/out" ]; then
	t_pass "lint of install manifests (Namespace, RBAC, CronJob, unknown kind): clean"
else
	t_fail "lint of install manifests: exit $rc" "$(cat "$T/out" "$T/err")"
fi
# the same CronJob asking for 16 GPUs is linted as a pod template
sed 's/requests: {cpu: 100m, memory: 128Mi}/limits: {nvidia.com\/gpu: 16}/' "$T/install.yaml" >"$T/install-gpu.yaml"
"$GPUFORM" lint "$T/install-gpu.yaml" >"$T/out" 2>&1
if grep -q 'GPU012' "$T/out"; then
	t_pass "lint of a CronJob pod template: its GPU request is checked"
else
	t_fail "lint of a CronJob pod template: GPU request not checked" "$(cat "$T/out")"
fi

t_summary
