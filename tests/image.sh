#!/bin/sh
# tests/image.sh: `make image` (util/image.sh), the daemonless OCI image.
#
# Builds the image twice (the second time with another umask and time zone)
# and checks: the same manifest digest and archive bytes; skopeo reads the
# archive (manifest: one OCI layer; config: user 65532:65532, the entrypoint,
# the org.opencontainers.image.* labels from VERSION, the commit and
# SOURCE_DATE_EPOCH); the unpacked root filesystem has the binary, its
# libraries, the CA bundle and the user, and no shell; the binary runs in it
# (chroot as the image's UID, empty environment but the image's): `gpuform
# version`, and `gpuform render` of an example gives the bytes the build's
# binary gives, in files owned by 65532. Reports the image's size.
#
# Needs root (chroot), umoci and skopeo (tests/deps.sh installs them); without
# them it says which are missing and how many checks it did not run, and
# fails under GPUFORM_REQUIRE_IMAGE=1.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
t_isolate
# `make test` runs this under make SANITIZE=...: the makes here build their own
# (release) variant, so they must not inherit its command line
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE DEVELOPER TEST_SANITIZE
NCHECKS=13
skip() {
	echo "SKIP image: $* ($NCHECKS checks not run)"
	[ "${GPUFORM_REQUIRE_IMAGE:-0}" = 1 ] && t_fail "GPUFORM_REQUIRE_IMAGE=1 but the image checks could not run" "$*"
	t_summary
	exit $?
}
missing=
for t in umoci skopeo chroot strip python3; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] || skip "not installed:$missing (sh tests/deps.sh installs umoci and skopeo)"
[ "$(id -u)" = 0 ] || skip "needs root (chroot into the unpacked image as its UID)"
t_tmpdir W
version=$(cat VERSION)
src=https://git.example.test/platform/gpuform.git

RC=0
OUT=$(nice make --no-print-directory image IMAGE_SOURCE=$src 2>&1) || RC=$?
[ $RC = 0 ] || t_abort "make image" "$OUT"
archive=$(printf '%s\n' "$OUT" | tail -2 | head -1)
digest=$(printf '%s\n' "$OUT" | tail -1)
t_note "setup: built $archive ($digest)"
cp "$archive" "$W/first.oci.tar"
RC=0
OUT=$(umask 077; TZ=Pacific/Auckland nice make --no-print-directory image IMAGE_SOURCE=$src 2>&1) || RC=$?
check "make image twice (another umask, TZ, later): the same manifest digest and archive bytes" \
	'[ $RC = 0 ] && [ "$(printf "%s\n" "$OUT" | tail -1)" = "$digest" ] && cmp -s "$archive" "$W/first.oci.tar"'
case $digest in sha256:????????????????????????????????????????????????????????????????) ok=1 ;; *) ok=0 ;; esac
check "the manifest digest is a sha256 digest" '[ $ok = 1 ]'

# skopeo: manifest and config
RC=0
skopeo inspect --raw "oci-archive:$archive" >"$W/manifest.json" 2>"$W/err" || RC=$?
OUT=$(cat "$W/manifest.json") ERR=$(cat "$W/err")
check "skopeo inspect --raw: an OCI manifest with one gzip layer, whose digest is the one make image printed" \
	'[ $RC = 0 ] && python3 -c "
import hashlib, json, sys
raw = open(sys.argv[1], \"rb\").read()
m = json.loads(raw)
assert m[\"schemaVersion\"] == 2 and m.get(\"mediaType\", \"application/vnd.oci.image.manifest.v1+json\") == \"application/vnd.oci.image.manifest.v1+json\"
assert m[\"config\"][\"mediaType\"] == \"application/vnd.oci.image.config.v1+json\"
assert [l[\"mediaType\"] for l in m[\"layers\"]] == [\"application/vnd.oci.image.layer.v1.tar+gzip\"]
assert \"sha256:\" + hashlib.sha256(raw).hexdigest() == sys.argv[2]
" "$W/manifest.json" "$digest"'
RC=0
OUT=$(skopeo inspect --config "oci-archive:$archive" 2>&1) || RC=$?
printf '%s' "$OUT" >"$W/config.json"
commit=$(sed -n 's/^#define GPUFORM_COMMIT "\(.*\)"$/\1/p' build/rel/commit.h)
epoch=$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
check "skopeo inspect --config: user 65532:65532, entrypoint gpuform, SSL_CERT_FILE, created $created" \
	'[ $RC = 0 ] && python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
cfg = c[\"config\"]
assert cfg[\"User\"] == \"65532:65532\", cfg[\"User\"]
assert cfg[\"Entrypoint\"] == [\"/usr/local/bin/gpuform\"] and cfg[\"Cmd\"] == [\"help\"]
assert \"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt\" in cfg[\"Env\"]
assert c[\"created\"] == sys.argv[2] and c[\"os\"] == \"linux\"
assert [h[\"created\"] for h in c[\"history\"]] == [sys.argv[2]]
" "$W/config.json" "$created"'
RC=0
OUT=$(skopeo inspect "oci-archive:$archive" 2>&1) || RC=$?
printf '%s' "$OUT" >"$W/inspect.json"
check "labels: org.opencontainers.image.version $version, revision $commit, source, created" \
	'[ $RC = 0 ] && python3 -c "
import json, sys
l = json.load(open(sys.argv[1]))[\"Labels\"]
p = \"org.opencontainers.image.\"
assert l[p + \"version\"] == sys.argv[2], l
assert l[p + \"revision\"] == sys.argv[3], l
assert l[p + \"source\"] == sys.argv[4], l
assert l[p + \"created\"] == sys.argv[5], l
" "$W/inspect.json" "$version" "$commit" "$src" "$created"'

# the unpacked root filesystem
mkdir "$W/oci" && tar -xf "$archive" -C "$W/oci" || t_abort "unpack the archive"
tag=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"])' "$W/oci/index.json")
RC=0
OUT=$(umoci unpack --image "$W/oci:$tag" "$W/bundle" 2>&1) || RC=$?
[ $RC = 0 ] || t_abort "umoci unpack" "$OUT"
R=$W/bundle/rootfs
check "rootfs: the binary, the CA bundle, the user gpuform 65532, /tmp 1777, and no shell" \
	'[ -x "$R/usr/local/bin/gpuform" ] && [ -s "$R/etc/ssl/certs/ca-certificates.crt" ] &&
	grep -qx "gpuform:x:65532:65532:gpuform:/var/cache/gpuform:/sbin/nologin" "$R/etc/passwd" &&
	[ "$(stat -c %a "$R/tmp")" = 1777 ] && [ "$(stat -c %u "$R/var/cache/gpuform")" = 65532 ] &&
	[ ! -e "$R/bin/sh" ] && [ ! -e "$R/usr/bin/sh" ] && [ ! -e "$R/bin/bash" ]'
check "the binary is stripped (no debug info, no man pages in the image)" \
	'! readelf -S "$R/usr/local/bin/gpuform" | grep -q "\.debug_" && [ ! -d "$R/usr/local/share/man" ]'
# in the image, as its UID, with only the image's environment
CHROOT=$(command -v chroot)
inimg() {
	env -i SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt PATH=/usr/local/bin HOME=/var/cache/gpuform \
		"$CHROOT" --userspec=65532:65532 "$R" /usr/local/bin/gpuform "$@"
}
RC=0
OUT=$(inimg version 2>&1) || RC=$?
check "chroot as 65532:65532: gpuform version runs (every library is in the image) and names $version and $commit" \
	'[ $RC = 0 ] && printf "%s\n" "$OUT" | head -2 | tr "\n" "|" | grep -q "^gpuform $version|commit: $commit "'
cp specs/ml-prod.yaml "$R/tmp/ml-prod.yaml" && chmod 0644 "$R/tmp/ml-prod.yaml"
RC=0
OUT=$(inimg render /tmp/ml-prod.yaml 2>&1) || RC=$?
check "chroot: gpuform render specs/ml-prod.yaml gives the bytes of the build's own binary" \
	'[ $RC = 0 ] && [ -n "$OUT" ] && [ "$OUT" = "$(build/rel/gpuform render specs/ml-prod.yaml 2>&1)" ]'
RC=0
OUT=$(inimg render --output-dir /tmp/out /tmp/ml-prod.yaml 2>&1) || RC=$?
check "chroot: render --output-dir writes files owned by 65532 (it runs as the image's UID)" \
	'[ $RC = 0 ] && [ "$(stat -c %u:%g "$R/tmp/out/kustomization.yaml")" = 65532:65532 ]'
RC=0
OUT=$(inimg render /nonexistent.yaml 2>&1) || RC=$?
check "chroot: an error still exits non-zero with its message (not a crash)" \
	'[ $RC != 0 ] && printf "%s" "$OUT" | grep -q "nonexistent.yaml"'
libs=$(ldd build/rel/gpuform | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
ok=1
for l in $libs; do [ -f "$R$l" ] || ok=0; done
check "every library ldd names is in the image at its path (and nothing under /usr/bin)" \
	'[ $ok = 1 ] && [ ! -d "$R/usr/bin" ] && [ ! -d "$R/bin" ]'
RC=0
OUT=$(skopeo copy "oci-archive:$archive" "oci:$W/copy:gpuform" 2>&1) || RC=$?
check "skopeo copy reads the archive (as 'skopeo copy ... docker://REGISTRY/REPO:TAG' would push it)" \
	'[ $RC = 0 ] && [ -f "$W/copy/index.json" ]'

layer=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][0]["size"])' "$W/manifest.json")
t_note "image size: layer $((layer / 1024)) KiB compressed, archive $(($(stat -c %s "$archive") / 1024)) KiB, root filesystem $(du -sk "$R" | cut -f1) KiB (digest $digest)"
t_summary
