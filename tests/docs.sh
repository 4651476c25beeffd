#!/bin/sh
# tests/docs.sh: the documentation a new user starts from, checked.
#
#   GPUFORM=path/to/gpuform sh tests/docs.sh
#
# 1. README.md is a front door: at most 260 lines.
# 2. Every relative link in README.md and docs/*.md resolves: the file
#    exists, and a #anchor names a heading of the target (GitHub's slugs).
#    Links inside code and HTML comments are not links.
# 3. Every fenced ```sh block of README.md and docs/*.md runs against the
#    built binary (convention: docs/README.md, "How the examples are
#    tested"): per file a temporary directory with a copy of specs/ (and
#    tests/fixtures/prices/, the Price List samples) and
#    gpuform on PATH, blocks in order under `sh -eu`, 60 s each; exit 0
#    unless "<!-- docs-test: exit N -->" precedes the block;
#    "<!-- docs-test: skip (REASON) -->" skips it (REASON required).
# 4. The GPU class table of docs/intent-reference.md is what
#    `gpuform explain classes` prints (so it cannot go stale).
# 5. `make install DESTDIR=...` installs the man pages and the bash and zsh
#    completions; `man -l` renders every page without a warning; bash loads
#    the completion.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
GPUFORM=${GPUFORM:-./gpuform}
case $GPUFORM in /*) ;; *) GPUFORM=$PWD/$GPUFORM ;; esac
t_tmpdir tmp

if [ ! -x "$GPUFORM" ]; then
	t_fail "GPUFORM is an executable ($GPUFORM)"
	# ---- 6. the Flux and Argo CD examples of docs/gitops-tools.md ----------------
# Each yaml block that is a Flux Kustomization or an Argo CD Application is
# valid against the upstream CRD's schema (python3-jsonschema), and the path it
# syncs is a directory `render --per-cluster` writes, whose kustomization.yaml
# lists objects (never `resources: []`, with which a prune: true sync would
# empty the cluster).
"$GPUFORM" render --per-cluster --output-dir "$tmp/gitops/clusters" specs/ml-prod.yaml 2>/dev/null
python3 - docs/gitops-tools.md tests/fixtures/crds/gitops "$tmp/gitops" <<'EOF' >"$tmp/gitops.results"
import os, re, sys, yaml, jsonschema
doc, crds, root = sys.argv[1:]
schemas = {}
for f in os.listdir(crds):
    if f.endswith('.yaml'):
        c = yaml.safe_load(open(os.path.join(crds, f)))
        for v in c['spec']['versions']:
            schemas[(c['spec']['group'] + '/' + v['name'], c['spec']['names']['kind'])] = v['schema']['openAPIV3Schema']
text = open(doc).read()
seen = 0
for block in re.findall(r'```yaml\n(.*?)```', text, re.S):
    o = yaml.safe_load(block)
    key = (o.get('apiVersion'), o.get('kind'))
    if key not in schemas:
        continue
    seen += 1
    name = '%s %s' % (key[1], o['metadata']['name'])
    errs = [e.message for e in jsonschema.Draft7Validator(schemas[key]).iter_errors(o)]
    print('%s\t%s: valid against the %s CRD\t%s' % ('FAIL' if errs else 'PASS', name, key[0], '; '.join(errs[:3])))
    path = o['spec'].get('path') or o['spec'].get('source', {}).get('path')
    k = os.path.join(root, path, 'kustomization.yaml')
    res = (yaml.safe_load(open(k)) or {}).get('resources') if os.path.exists(k) else None
    ok = bool(res) and all(os.path.exists(os.path.join(root, path, r)) for r in res)
    print('%s\t%s: path %s is a rendered directory listing %d objects\t%s' % ('PASS' if ok else 'FAIL', name, path, len(res or []), k))
print('%s\tdocs/gitops-tools.md has a Flux and an Argo CD example (%d)\t' % ('PASS' if seen == 2 else 'FAIL', seen))
EOF
while IFS="$(printf '\t')" read -r res name detail; do
	if [ "$res" = PASS ]; then t_pass "$name"; else t_fail "$name" "$detail"; fi
done <"$tmp/gitops.results"
[ -s "$tmp/gitops.results" ] || t_fail "the GitOps examples were checked" "python3 failed"

t_summary
	exit 1
fi

# ---- 1. README length -------------------------------------------------------
n=$(wc -l <README.md | tr -d ' ')
if [ "$n" -le 260 ]; then t_pass "README.md is $n lines (at most 260)"; else t_fail "README.md is $n lines (at most 260)"; fi

# ---- 2, 3: links and shell blocks (python3 reads the Markdown) ------------------
mkdir -p "$tmp/bin"
ln -s "$GPUFORM" "$tmp/bin/gpuform"
python3 - "$tmp" README.md docs/*.md <<'EOF' >"$tmp/results"
import os, re, subprocess, sys

tmp = sys.argv[1]
files = sys.argv[2:]
fence = re.compile(r'^(```+|~~~+)\s*([A-Za-z0-9_+-]*)')
marker = re.compile(r'^<!--\s*docs-test:\s*(skip|exit)\s*(.*?)\s*-->\s*$')

def slug(h):
    h = re.sub(r'`', '', h.strip().lower())
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')

def parse(path):
    """headings, links (outside code and comments), sh blocks"""
    heads, links, blocks = set(), [], []
    lines = open(path, encoding='utf-8').read().split('\n')
    in_fence, lang, body, start, pending = None, '', [], 0, None
    in_comment = False
    counts = {}
    for i, l in enumerate(lines, 1):
        if in_fence:
            if l.startswith(in_fence):
                if lang == 'sh':
                    blocks.append((start, body, pending))
                in_fence, body, pending = None, [], None
            else:
                body.append(l)
            continue
        m = fence.match(l)
        if m:
            in_fence, lang, start = m.group(1), m.group(2), i
            continue
        mk = marker.match(l)
        if mk:
            pending = (mk.group(1), mk.group(2))
            continue
        text = l
        if in_comment:
            if '-->' not in text:
                continue
            text = text.split('-->', 1)[1]
            in_comment = False
        while '<!--' in text:
            before, rest = text.split('<!--', 1)
            if '-->' in rest:
                text = before + rest.split('-->', 1)[1]
            else:
                text, in_comment = before, True
        if l.strip():
            pending = pending if not text.strip() else None
        h = re.match(r'^(#{1,6})\s+(.*)$', text)
        if h:
            s = slug(h.group(2))
            n = counts.get(s, 0)
            heads.add(s if n == 0 else '%s-%d' % (s, n))
            counts[s] = n + 1
        text = re.sub(r'`[^`]*`', '', text)
        for m in re.finditer(r'\]\(([^)\s]+)\)', text):
            links.append((i, m.group(1)))
    return heads, links, blocks

parsed = {}
def get(path):
    if path not in parsed:
        parsed[path] = parse(path)
    return parsed[path]

def out(ok, name, detail=''):
    print('%s\t%s\t%s' % ('PASS' if ok else 'FAIL', name, detail.replace('\n', '\\n')))

# links
for f in files:
    heads, links, _ = get(f)
    bad = []
    for line, target in links:
        if re.match(r'^[a-z]+:', target):      # http:, https:, mailto:
            continue
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            bad.append('%s:%d: %s (no such file)' % (f, line, target))
            continue
        if anchor and dest.endswith('.md'):
            if anchor not in get(dest)[0]:
                bad.append('%s:%d: %s (no heading #%s in %s)' % (f, line, target, anchor, dest))
    out(not bad, '%s: every relative link resolves (%d links)' % (f, len(links)), '\n'.join(bad))

# shell blocks
env = dict(os.environ, PATH=os.path.join(tmp, 'bin') + ':' + os.environ['PATH'],
           HOME=os.path.join(tmp, 'home'), GIT_CONFIG_NOSYSTEM='1', LC_ALL='C')
env.pop('GPUFORM_NOW', None)
os.makedirs(env['HOME'], exist_ok=True)
for f in files:
    _, _, blocks = get(f)
    work = os.path.join(tmp, 'run-' + f.replace('/', '_'))
    os.makedirs(work)
    subprocess.run(['cp', '-r', 'specs', work], check=True)
    # the Price List samples docs/plan.md reads
    os.makedirs(os.path.join(work, 'tests', 'fixtures'))
    subprocess.run(['cp', '-r', 'tests/fixtures/prices',
                    os.path.join(work, 'tests', 'fixtures')], check=True)
    for start, body, mk in blocks:
        name = '%s:%d: sh block' % (f, start)
        if mk and mk[0] == 'skip':
            reason = mk[1].strip('() ')
            out(bool(reason), name + ' skipped: ' + (reason or 'NO REASON GIVEN'))
            continue
        want = int(mk[1]) if mk and mk[0] == 'exit' else 0
        script = '\n'.join(body) + '\n'
        try:
            r = subprocess.run(['sh', '-eu', '-c', script], cwd=work, env=env,
                               capture_output=True, timeout=60)
            got, err = r.returncode, r.stderr.decode(errors='replace')
        except subprocess.TimeoutExpired:
            got, err = 'timeout', ''
        out(got == want, '%s runs (exit %s)' % (name, want),
            'exit %s, want %s\n%s' % (got, want, err[-1500:]))
EOF
while IFS="$(printf '\t')" read -r res name detail; do
	if [ "$res" = PASS ]; then
		t_pass "$name"
	else
		t_fail "$name" "$(printf '%b' "$detail")"
	fi
done <"$tmp/results"
[ -s "$tmp/results" ] || t_fail "the Markdown checker ran (python3)"

# ---- 4. the GPU class table -------------------------------------------------
sed -n '/^<!-- BEGIN gpuform explain classes -->$/,/^<!-- END gpuform explain classes -->$/p' \
	docs/intent-reference.md | sed '1d;$d' >"$tmp/classes.doc"
"$GPUFORM" explain classes >"$tmp/classes.bin" 2>&1
if [ -s "$tmp/classes.doc" ] && cmp -s "$tmp/classes.doc" "$tmp/classes.bin"; then
	t_pass "docs/intent-reference.md's GPU class table is what 'gpuform explain classes' prints"
else
	t_fail "docs/intent-reference.md's GPU class table is what 'gpuform explain classes' prints" \
		"regenerate it between the BEGIN/END markers from 'gpuform explain classes':
$(diff "$tmp/classes.doc" "$tmp/classes.bin" | head -20)"
fi

# ---- 5. make install: man pages and completions -------------------------------
# the variant of $GPUFORM (build/<variant>/gpuform), so nothing is rebuilt
variant=$(basename "$(dirname "$GPUFORM")")
case $variant in
rel) mk='' ;; rel-dev) mk='DEVELOPER=1' ;;
san) mk='SANITIZE=address,undefined' ;; san-dev) mk='SANITIZE=address,undefined DEVELOPER=1' ;;
*) mk='' ;;
esac
root=$tmp/root
# shellcheck disable=SC2086 # $mk: zero or more make variables
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s $mk install DESTDIR="$root" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	t_pass "make install DESTDIR=... ($variant)"
else
	t_fail "make install DESTDIR=... ($variant)" "$(tail -20 "$tmp/install.log")"
fi
cmds=$("$GPUFORM" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
missing=''
for p in gpuform $(for c in $cmds; do echo "gpuform-$c"; done); do
	[ -f "$root/usr/share/man/man1/$p.1" ] || missing="$missing $p.1"
done
[ -z "$missing" ] && t_pass "man pages installed: gpuform(1) and one per command ($(echo $cmds | wc -w))" ||
	t_fail "man pages installed" "missing:$missing"
bad=''
for f in "$root"/usr/share/man/man1/*.1; do
	[ -f "$f" ] || continue
	# groff warnings (-ww) on stderr fail the page; the text must name it
	if ! MANWIDTH=80 man -l "$f" >"$tmp/man.txt" 2>"$tmp/man.err" ||
		[ -s "$tmp/man.err" ] || ! grep -q "$(basename "$f" .1)" "$tmp/man.txt"; then
		bad="$bad $(basename "$f") ($(head -c 200 "$tmp/man.err"))"
	fi
done
[ -z "$bad" ] && t_pass "man -l renders every installed page without a warning" || t_fail "man -l renders every page" "$bad"
if MANWIDTH=80 man -l "$root/usr/share/man/man1/gpuform-render.1" 2>/dev/null | grep -q -- '--output-dir DIR'; then
	t_pass "gpuform-render(1) lists --output-dir (from the option table)"
else
	t_fail "gpuform-render(1) lists --output-dir (from the option table)"
fi
bc=$root/usr/share/bash-completion/completions/gpuform
zc=$root/usr/share/zsh/site-functions/_gpuform
if [ -f "$bc" ] && bash -c ". '$bc' && COMP_WORDS=(gpuform val) COMP_CWORD=1 && _gpuform && [ \"\${COMPREPLY[*]}\" = validate ]"; then
	t_pass "bash completion installed and working"
else
	t_fail "bash completion installed and working"
fi
if [ -f "$zc" ] && head -1 "$zc" | grep -q '^#compdef gpuform'; then
	t_pass "zsh completion installed (#compdef gpuform)"
else
	t_fail "zsh completion installed (#compdef gpuform)"
fi
for f in README.md CHANGELOG.md LICENSE docs/commands.md; do
	[ -f "$root/usr/share/doc/gpuform/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && t_pass "docs installed (README, CHANGELOG, LICENSE, docs/)" || t_fail "docs installed" "missing:$missing"
if grep -q 'Apache License' LICENSE && grep -q 'Version 2.0, January 2004' LICENSE &&
	grep -q 'END OF TERMS AND CONDITIONS' LICENSE; then
	t_pass "LICENSE is the Apache License 2.0 (full text)"
else
	t_fail "LICENSE is the Apache License 2.0 (full text)"
fi
if grep -q '^## Unreleased' CHANGELOG.md; then t_pass "CHANGELOG.md has an Unreleased section"; else t_fail "CHANGELOG.md has an Unreleased section"; fi

# ---- 6. the Flux and Argo CD examples of docs/gitops-tools.md ----------------
# Each yaml block that is a Flux Kustomization or an Argo CD Application is
# valid against the upstream CRD's schema (python3-jsonschema), and the path it
# syncs is a directory `render --per-cluster` writes, whose kustomization.yaml
# lists objects (never `resources: []`, with which a prune: true sync would
# empty the cluster).
"$GPUFORM" render --per-cluster --output-dir "$tmp/gitops/clusters" specs/ml-prod.yaml 2>/dev/null
python3 - docs/gitops-tools.md tests/fixtures/crds/gitops "$tmp/gitops" <<'EOF' >"$tmp/gitops.results"
import os, re, sys, yaml, jsonschema
doc, crds, root = sys.argv[1:]
schemas = {}
for f in os.listdir(crds):
    if f.endswith('.yaml'):
        c = yaml.safe_load(open(os.path.join(crds, f)))
        for v in c['spec']['versions']:
            schemas[(c['spec']['group'] + '/' + v['name'], c['spec']['names']['kind'])] = v['schema']['openAPIV3Schema']
text = open(doc).read()
seen = 0
for block in re.findall(r'```yaml\n(.*?)```', text, re.S):
    o = yaml.safe_load(block)
    key = (o.get('apiVersion'), o.get('kind'))
    if key not in schemas:
        continue
    seen += 1
    name = '%s %s' % (key[1], o['metadata']['name'])
    errs = [e.message for e in jsonschema.Draft7Validator(schemas[key]).iter_errors(o)]
    print('%s\t%s: valid against the %s CRD\t%s' % ('FAIL' if errs else 'PASS', name, key[0], '; '.join(errs[:3])))
    path = o['spec'].get('path') or o['spec'].get('source', {}).get('path')
    k = os.path.join(root, path, 'kustomization.yaml')
    res = (yaml.safe_load(open(k)) or {}).get('resources') if os.path.exists(k) else None
    ok = bool(res) and all(os.path.exists(os.path.join(root, path, r)) for r in res)
    print('%s\t%s: path %s is a rendered directory listing %d objects\t%s' % ('PASS' if ok else 'FAIL', name, path, len(res or []), k))
print('%s\tdocs/gitops-tools.md has a Flux and an Argo CD example (%d)\t' % ('PASS' if seen == 2 else 'FAIL', seen))
EOF
while IFS="$(printf '\t')" read -r res name detail; do
	if [ "$res" = PASS ]; then t_pass "$name"; else t_fail "$name" "$detail"; fi
done <"$tmp/gitops.results"
[ -s "$tmp/gitops.results" ] || t_fail "the GitOps examples were checked" "python3 failed"

# ---- 7. the EXAMPLES and ENVIRONMENT of the man pages --------------------------
# (cmd/options.c man_examples, man_envs.) Every page has examples. An example
# that needs nothing else runs, in order, in a scratch Git work tree holding a
# committed copy of specs/ (HOME there too, gpuform on PATH), and must end with
# the exit status its page states; one that needs a cluster, an AWS account or
# Prometheus is not run, but its command must exist and every --option in it be
# one its help lists. Every ENVIRONMENT variable is a string the production
# code reads (cmd/options.c itself aside), so the list cannot go stale.
ex=$tmp/examples
mkdir -p "$ex/home" "$ex/bin" && ln -s "$GPUFORM" "$ex/bin/gpuform"
mkdir -p "$ex/w" && cp -R specs "$ex/w/"
(cd "$ex/w" && export HOME="$ex/home" GIT_CONFIG_NOSYSTEM=1 &&
	git init -q && git config user.name 'Docs Test' && git config user.email docs@example.com &&
	git add -A && git commit -qm specs) >/dev/null 2>&1 || t_fail "examples: a Git work tree with specs/"
# man_section PAGE-ARGS SECTION: the section's lines, roff escapes undone
man_section() {
	# shellcheck disable=SC2086 # $1: the help-man argument, or none
	"$GPUFORM" help-man $1 | awk -v s=".SH $2" '$0 == s { on = 1; next } /^\.SH/ { on = 0 } on' |
		sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g'
}
nex=0 nrun=0 bad=''
for page in '' $cmds; do
	man_section "$page" EXAMPLES >"$tmp/ex.txt"
	[ -s "$tmp/ex.txt" ] || { bad="$bad
gpuform${page:+-$page}(1) has no EXAMPLES"; continue; }
	# .TP / command line / text with "Exit status: N." [" Needs X."]
	awk '/^\.TP$/ { getline c; getline t; print c "\t" t }' "$tmp/ex.txt" >"$tmp/ex.tab"
	while IFS="$(printf '\t')" read -r line text; do
		nex=$((nex + 1))
		want=$(printf '%s\n' "$text" | sed -n 's/.* Exit status: \([0-9]*\)\..*/\1/p')
		sub=$(printf '%s\n' "$line" | awk '{ print $2 }')
		if [ -z "$want" ]; then
			bad="$bad
$line: no 'Exit status: N.' in its text"
		elif printf '%s\n' "$text" | grep -q ' Needs '; then
			"$GPUFORM" help "$sub" >"$tmp/ex.help" 2>&1 || { bad="$bad
$line: 'gpuform help $sub' fails"; continue; }
			for w in $line; do
				case $w in
				--*=*) w=${w%%=*} ;;
				--*) ;;
				*) continue ;;
				esac
				grep -q -- "$w" "$tmp/ex.help" || bad="$bad
$line: $w is not an option of gpuform $sub"
			done
		else
			nrun=$((nrun + 1))
			(cd "$ex/w" && HOME="$ex/home" GIT_CONFIG_NOSYSTEM=1 PATH="$ex/bin:$PATH" \
				timeout 60 sh -c "$line") >"$tmp/ex.out" 2>&1
			rc=$?
			[ "$rc" = "$want" ] || bad="$bad
$line: exit $rc, its page says $want: $(tail -n 3 "$tmp/ex.out")"
		fi
	done <"$tmp/ex.tab"
done
if [ -z "$bad" ] && [ "$nrun" -gt 0 ]; then
	t_pass "man page EXAMPLES: $nrun run and end as their pages say, $((nex - nrun)) (cluster, AWS, Prometheus) use only options their help lists"
else
	t_fail "man page EXAMPLES ($nex, $nrun run)" "$bad"
fi
man_section '' ENVIRONMENT | awk '/^\.TP$/ { getline v; sub(/^\.B /, "", v); print v }' >"$tmp/env.txt"
bad=''
while read -r v; do
	name=${v%%<*}
	grep -rqF --include='*.c' --exclude=options.c "\"$name" cmd generator git util reconcile http kube aws ||
		bad="$bad $v"
done <"$tmp/env.txt"
if [ -s "$tmp/env.txt" ] && [ -z "$bad" ]; then
	t_pass "man page ENVIRONMENT: each of its $(wc -l <"$tmp/env.txt") variables is read by the code"
else
	t_fail "man page ENVIRONMENT: every variable is read by the code" "not read:$bad"
fi
if [ "$(man_section render FILES | grep -c '^\.TP')" -gt 0 ] && man_section commit ENVIRONMENT | grep -q GPUFORM_GIT_USERNAME &&
	! man_section render ENVIRONMENT | grep -q GPUFORM_GIT_USERNAME; then
	t_pass "man pages: FILES, and ENVIRONMENT per command (commit's has GPUFORM_GIT_USERNAME, render's not)"
else
	t_fail "man pages: FILES, and ENVIRONMENT per command"
fi

t_summary
