#!/bin/sh
# tests/dist.sh: `make dist` (util/dist.sh) and a build from its tarball.
#
# The tarball is made from a scratch repository that holds the current work
# tree's tracked files as one commit with a fixed date (so uncommitted edits
# are tested too, and the commit id is the same every run). Checks: two runs
# from two clones (other paths, umask, time zone, and a second later) give
# the same bytes; the .sha256 verifies; entries are sorted (depth first,
# each directory by name), 0/0 without names, mtime = the commit time,
# modes 0644/0755; COMMIT names the commit
# (and the release when vVERSION is tagged); a dirty tree is refused; the
# unpacked tarball (no .git) builds, reports its commit and release in
# `gpuform version`, and passes the unit suite, the layering check and the
# golden and invalid-corpus suites.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
t_isolate
# `make test` runs this under make SANITIZE=...: the makes here build their own
# (release) variant, so they must not inherit its command line
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE DEVELOPER TEST_SANITIZE
t_git_isolate
t_need git tar gzip sha256sum python3 make bash
t_tmpdir W
top=$(pwd)
version=$(cat VERSION)

# the scratch repository: tracked files as they are in the work tree
git init -q "$W/src" || t_abort "git init"
git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf - | tar -xf - -C "$W/src" || t_abort "copy the tracked files"
(cd "$W/src" && git add -A && git commit -q -m 'dist test') || t_abort "commit the scratch repository"
commit=$(git -C "$W/src" rev-parse --short=12 HEAD)
epoch=$(git -C "$W/src" log -1 --format=%ct HEAD)
t_note "setup: scratch repository at $commit (commit time $epoch)"
git clone -q "$W/src" "$W/a" && git clone -q "$W/src" "$W/b" || t_abort "clone"

name=gpuform-$version-$commit
RC=0
OUT=$(cd "$W/a" && make --no-print-directory dist 2>&1) || RC=$?
check "make dist: exit 0, prints build/dist/$name.tar.gz" \
	'[ $RC = 0 ] && [ "$OUT" = "build/dist/$name.tar.gz" ] && [ -f "$W/a/build/dist/$name.tar.gz" ]'
sleep 1 # a later run must not change a byte: no time of the run goes in
RC=0
OUT=$(cd "$W/b" && umask 077 && TZ=Asia/Kolkata make --no-print-directory dist 2>&1) || RC=$?
check "make dist again (another clone, umask 077, another TZ, later): same bytes" \
	'[ $RC = 0 ] && cmp -s "$W/a/build/dist/$name.tar.gz" "$W/b/build/dist/$name.tar.gz"'
OUT=$(cd "$W/a/build/dist" && sha256sum -c "$name.tar.gz.sha256" 2>&1)
check "the .sha256 file verifies the tarball" '[ "$OUT" = "$name.tar.gz: OK" ]'

tgz=$W/a/build/dist/$name.tar.gz
OUT=$(python3 - "$tgz" "$name" "$epoch" <<'EOF'
import gzip, sys, tarfile
path, name, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(path, 'rb').read()
# gzip header: MTIME (bytes 4-7) zero, no FNAME flag (gzip -n)
if raw[4:8] != b'\0\0\0\0' or raw[3] & 0x08:
    print('gzip header holds a time or a name')
t = tarfile.open(path)
names = [m.name for m in t.getmembers()]
# tar --sort=name: depth first, each directory's entries sorted by name
kids = {}
for n in names:
    kids.setdefault(n.rsplit('/', 1)[0] if '/' in n else '', []).append(n)
def walk(d):
    for n in sorted(kids.get(d, []), key=lambda x: x.encode()):
        yield n
        yield from walk(n)
if names != list(walk('')):
    print('names are not sorted')
for m in t.getmembers():
    if not (m.name == name or m.name.startswith(name + '/')):
        print('outside the prefix:', m.name)
    if (m.uid, m.gid, m.uname, m.gname) != (0, 0, '', ''):
        print('owner of', m.name, m.uid, m.gid, m.uname, m.gname)
    if m.mtime != epoch:
        print('mtime of', m.name, m.mtime)
    want = (0o755,) if m.isdir() else (0o644, 0o755)
    if m.mode not in want:
        print('mode of', m.name, oct(m.mode))
for f in ('Makefile', 'VERSION', 'COMMIT', 'util/dist.sh', 'tests/dist.sh'):
    if name + '/' + f not in names:
        print('missing', f)
if any('/.git/' in n or n.endswith('/.git') for n in names):
    print('holds .git')
EOF
)
check "entries: sorted, under $name/, uid/gid 0 without names, mtime = commit time, 0644/0755, gzip without name/time" \
	'[ -z "$OUT" ]'
mkdir "$W/x" && tar -xzf "$tgz" -C "$W/x" || t_abort "unpack the tarball"
OUT=$(cat "$W/x/$name/COMMIT")
check "COMMIT names the commit and no release (vVERSION is not tagged)" \
	'[ "$OUT" = "$(printf "commit=%s\nrelease=" "$commit")" ]'
[ -e "$W/x/$name/.git" ] && t_fail "the tarball has no .git" || t_pass "the tarball has no .git"

# a dirty tree is refused, and nothing is written
echo x >>"$W/b/README.md"
rm -rf "$W/b/build/dist"
RC=0
OUT=$(cd "$W/b" && make --no-print-directory dist 2>&1) || RC=$?
check "make dist with uncommitted changes: refused, names the reason, writes nothing" \
	'[ $RC != 0 ] && printf "%s" "$OUT" | gq "uncommitted changes" && [ ! -e "$W/b/build/dist" ]'
git -C "$W/b" checkout -q README.md

# the release: HEAD tagged vVERSION
git -C "$W/b" tag "v$version"
RC=0
OUT=$(cd "$W/b" && make --no-print-directory dist 2>&1) || RC=$?
check "make dist of the tag v$version: build/dist/gpuform-$version.tar.gz" \
	'[ $RC = 0 ] && [ "$OUT" = "build/dist/gpuform-$version.tar.gz" ]'
mkdir "$W/r" && tar -xzf "$W/b/build/dist/gpuform-$version.tar.gz" -C "$W/r" ||
	t_abort "unpack the release tarball"
OUT=$(cat "$W/r/gpuform-$version/COMMIT")
check "its COMMIT names the commit and release v$version" \
	'[ "$OUT" = "$(printf "commit=%s\nrelease=v%s" "$commit" "$version")" ]'

# the CI example (docs/ci-github-actions.yml): parsed, and its shell steps run the way
# the runner runs them (bash -eo pipefail), with sudo/apt-get shims that only check the
# packages it installs are installed; it builds gpuform from the release tarball
wf=docs/ci-github-actions.yml
mkdir -p "$W/steps"
RC=0
OUT=$(python3 - "$wf" "$W/steps" <<'EOF' 2>&1
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
jobs = wf['jobs']
assert set(jobs) == {'diff', 'commit'}, jobs
builds = []
for name, job in jobs.items():
    for i, st in enumerate(job['steps']):
        if 'uses' in st:
            ref = st['uses'].split('@')
            assert len(ref) == 2 and ref[1].startswith('v'), st['uses']
        if 'run' in st:
            assert 'git clone' not in st['run'] and 'GPUFORM_REF' not in st['run'], st['name']
            open('%s/%s-%d.sh' % (sys.argv[2], name, i), 'w').write(st['run'])
            open('%s/%s-%s.sh' % (sys.argv[2], name, st.get('id', st['name'].split()[0].lower())), 'w').write(st['run'])
        if st.get('name') == 'Build and install gpuform':
            builds.append(st['run'])
assert len(builds) == 2 and builds[0] == builds[1], 'the two build steps differ'
assert 'GPUFORM_SHA256' in wf['env'] and 'GPUFORM_TARBALL' in wf['env']
EOF
) || RC=$?
check "the CI workflow is valid YAML: jobs diff and commit, the same build step in both, actions pinned, no git clone of a tag" \
	'[ $RC = 0 ]'
mkdir -p "$W/shim" "$W/runner"
printf '#!/bin/sh\nexec "$@"\n' >"$W/shim/sudo"
cat >"$W/shim/apt-get" <<'EOF'
#!/bin/sh
# a stand-in for apt-get on the runner: installs nothing, fails for a missing package
[ "$1" = install ] || exit 0
shift
for p; do
	case $p in -*) continue ;; esac
	dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || { echo "apt-get shim: $p is not installed" >&2; exit 100; }
done
EOF
chmod +x "$W/shim/sudo" "$W/shim/apt-get"
# the user's repository: an intent and the release tarball, on main, with a local origin
git init -q -b main "$W/user" && mkdir -p "$W/user/specs" "$W/user/tools" &&
	cp specs/ml-prod.yaml "$W/user/specs/" &&
	cp "$W/b/build/dist/gpuform-$version.tar.gz" "$W/user/tools/" &&
	(cd "$W/user" && git add -A && git commit -q -m intents) &&
	git init -q --bare "$W/origin.git" && git -C "$W/user" remote add origin "$W/origin.git" &&
	git -C "$W/user" push -q origin main && git -C "$W/user" fetch -q origin ||
	t_abort "the user's repository"
sum=$(cut -d' ' -f1 "$W/b/build/dist/gpuform-$version.tar.gz.sha256")
step() { # STEP-FILE [VAR=VALUE...]: run a workflow step in the user's repository
	_s=$1; shift
	(cd "$W/user" && env PATH="$W/shim:$(cat "$W/gh_path" 2>/dev/null | tr '\n' ':')$PATH" \
		RUNNER_TEMP="$W/runner" GITHUB_PATH="$W/gh_path" GITHUB_OUTPUT="$W/gh_output" \
		GPUFORM_TARBALL="tools/gpuform-$version.tar.gz" DEBIAN_FRONTEND=noninteractive "$@" \
		nice bash --noprofile --norc -eo pipefail "$_s")
}
RC=0
OUT=$(step "$W/steps/diff-build.sh" GPUFORM_SHA256="$(printf '%064d' 0)" 2>&1) || RC=$?
check "CI build step with a wrong GPUFORM_SHA256: fails at the checksum, nothing unpacked or built" \
	'[ $RC != 0 ] && printf "%s" "$OUT" | gq "FAILED" && [ ! -e "$W/runner/gpuform-src/Makefile" ] && [ ! -e "$W/runner/gpuform" ]'
rm -rf "$W/runner"/*
t_note "running the CI build step: make from the release tarball (takes a while)"
RC=0
OUT=$(step "$W/steps/diff-build.sh" GPUFORM_SHA256="$sum" 2>&1) || RC=$?
d=$W/runner/gpuform-src
check "CI build step: verifies, builds and installs gpuform from the tarball, on GITHUB_PATH" \
	'[ $RC = 0 ] && [ -x "$W/runner/gpuform/bin/gpuform" ] && [ "$(cat "$W/gh_path")" = "$W/runner/gpuform/bin" ]'
[ -x "$W/runner/gpuform/bin/gpuform" ] || t_abort "the build from the tarball" "$(printf '%s\n' "$OUT" | tail -20)"
check "  ... there is no .git in what it built from" '[ ! -e "$d/.git" ]'
OUT=$("$W/runner/gpuform/bin/gpuform" version 2>&1)
check "gpuform version of that build: $version, commit $commit, release v$version" \
	'printf "%s\n" "$OUT" | head -2 | tr "\n" "|" | gq -x "gpuform $version|commit: $commit (release v$version)|"'
OUT=$("$W/runner/gpuform/bin/gpuform" version -o json 2>&1)
check "  ... and in JSON" \
	'[ "$(printf "%s" "$OUT" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j[\"commit\"], j[\"release\"])")" = "$commit v$version" ]'
# the rest of the workflow's shell steps
: >"$W/gh_output"
RC=0
OUT=$(step "$W/steps/diff-lint.sh" 2>&1) || RC=$?
check "CI lint step: exit 0, rc=0 recorded, a SARIF file" \
	'[ $RC = 0 ] && grep -qx "rc=0" "$W/gh_output" && python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"version\"] == \"2.1.0\"" "$W/user/gpuform-lint.sarif"'
git -C "$W/user" checkout -q -b pr && sed -i 's/maxGpus: 32/maxGpus: 16/' "$W/user/specs/ml-prod.yaml" &&
	git -C "$W/user" commit -q -am 'halve chat-serving' || t_abort "the pull request's commit"
: >"$W/gh_output"
RC=0
OUT=$(step "$W/steps/diff-diff.sh" BASE_REF=main 2>&1) || RC=$?
check "CI diff step on the pull request: exit 0, rc=1 (differences) recorded, the markdown names the change" \
	'[ $RC = 0 ] && grep -qx "rc=1" "$W/gh_output" && grep -q "maxGpus\|ml-prod" "$W/user/diff.md"'
git -C "$W/user" checkout -q main
RC=0
OUT=$(step "$W/steps/commit-commit.sh" GPUFORM_GIT_TOKEN= 2>&1) || RC=$?
check "CI commit step on main: renders and pushes clusters/ml-prod/ to origin" \
	'[ $RC = 0 ] && [ -n "$(git -C "$W/origin.git" ls-tree --name-only main clusters/ml-prod/)" ]'

# tests from the unpacked tarball the CI step built
RC=0
OUT=$(cd "$d" && nice make --no-print-directory -j2 build/rel/tests/unit/run 2>&1 | tail -5 &&
	./build/rel/tests/unit/run 2>&1 | grep -E "^[0-9]+%: Checks|:[FE]:") || RC=$?
check "the unit suite passes in the unpacked tarball" \
	'[ $RC = 0 ] && printf "%s\n" "$OUT" | gq "^100%: Checks: [1-9][0-9]*, Failures: 0, Errors: 0$"'
RC=0
OUT=$(cd "$d" && sh tests/check-layering.sh 2>&1) || RC=$?
check "the layering check passes there (and sees the files: no git ls-files)" \
	'[ $RC = 0 ] && [ "$OUT" = "layering: ok" ]'
for s in golden invalid; do
	RC=0
	OUT=$(cd "$d" && T_COUNTS= GPUFORM=$d/gpuform sh "tests/$s.sh" 2>&1) || RC=$?
	check "tests/$s.sh passes in the unpacked tarball" \
		'[ $RC = 0 ] && printf "%s\n" "$OUT" | tail -1 | gq "^[1-9][0-9]* passed, 0 failed$"'
done

# a development build from the work tree's own Git: the commit, not a release
OUT=$(cd "$W/a" && GPUFORM_COMMIT=0123456789ab make --no-print-directory -s build/rel/commit.h 2>&1 &&
	cat build/rel/commit.h)
check "GPUFORM_COMMIT overrides, and a build of an untagged commit has no release" \
	'[ "$OUT" = "$(printf "#define GPUFORM_COMMIT \"0123456789ab\"\n#define GPUFORM_RELEASE \"\"")" ]'
cd "$top"
t_summary
