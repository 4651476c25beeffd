#!/bin/sh
# util/image.sh BINARY OUTDIR: gpuform's OCI image without a container
# daemon (`make image`), with umoci over a root filesystem assembled from
# the build's own runtime files:
#
#   /usr/local/bin/gpuform       BINARY, stripped (no debug info, no man pages)
#   its shared libraries         every file `ldd BINARY` names, at its path,
#                                and the dynamic loader; nothing else: no
#                                shell, no package manager
#   /etc/ssl/certs/ca-certificates.crt   the CA bundle (Debian's), also
#                                        SSL_CERT_FILE in the environment
#   /etc/passwd, /etc/group      root and gpuform (65532:65532)
#   /tmp (1777), /var/cache/gpuform (65532, the CronJob mounts over both)
#
# The config: user 65532:65532, ENTRYPOINT /usr/local/bin/gpuform, CMD help,
# labels org.opencontainers.image.{version,revision,source,created,title,
# licenses}; created = SOURCE_DATE_EPOCH (default: the commit time, else 0).
# One layer, written here with GNU tar (sorted names, every mtime
# SOURCE_DATE_EPOCH, numeric owners), so the same binary and the same host
# libraries give the same layer, config and manifest digests.
#
# Environment: IMAGE_VERSION, IMAGE_REVISION (the commit), IMAGE_SOURCE (a URL;
# the label is left out when empty), IMAGE_TAG (default IMAGE_VERSION).
# Writes OUTDIR/oci (an OCI layout) and OUTDIR/gpuform-TAG.oci.tar (an OCI
# image archive: the layout as a reproducible tar, as `skopeo copy
# oci-archive:...` reads it); prints the archive's path and the manifest
# digest.
set -eu
bin=${1:?usage: util/image.sh BINARY OUTDIR}
out=${2:?usage: util/image.sh BINARY OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
die() { echo "make image: $*" >&2; exit 1; }
for t in umoci ldd strip tar sha256sum; do
	command -v "$t" >/dev/null 2>&1 ||
		die "$t is needed (Debian 12: apt-get install umoci skopeo binutils; tests/deps.sh installs them)"
done
[ -x "$bin" ] || die "no binary '$bin' (make builds it)"
cacert=/etc/ssl/certs/ca-certificates.crt
[ -f "$cacert" ] || die "no CA bundle at $cacert (apt-get install ca-certificates)"
version=${IMAGE_VERSION:?set IMAGE_VERSION}
revision=${IMAGE_REVISION:-unknown}
source=${IMAGE_SOURCE:-}
tag=${IMAGE_TAG:-$version}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

umask 022
work=$out/work
rm -rf "$work" "$out/oci"
mkdir -p "$work/rootfs"
root=$work/rootfs

# the binary and exactly the libraries it loads
install -D -m 0755 "$bin" "$root/usr/local/bin/gpuform"
strip --strip-unneeded "$root/usr/local/bin/gpuform"
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	sort -u >"$work/libs"
[ -s "$work/libs" ] || die "ldd found no libraries for $bin (a static binary needs none, but this one should)"
while read -r lib; do
	# at the path the loader looks (the link's name), the file's content
	install -D -m 0644 "$(readlink -f "$lib")" "$root$lib"
done <"$work/libs"
chmod 0755 "$root$(grep -m1 '/ld-linux' "$work/libs")"
install -D -m 0644 "$cacert" "$root$cacert"
mkdir -p "$root/etc" "$root/tmp" "$root/var/cache/gpuform"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
	'gpuform:x:65532:65532:gpuform:/var/cache/gpuform:/sbin/nologin' >"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'gpuform:x:65532:' >"$root/etc/group"
chmod 1777 "$root/tmp"

# the layer: sorted, fixed times, numeric owners; then /tmp (1777) and the
# cache directory (65532), whose modes and owner the umask must not decide
tarc() { (cd "$root" && LC_ALL=C tar --sort=name --format=gnu --mtime="@$epoch" \
	--numeric-owner "$@"); }
tarc --owner=0 --group=0 --mode='u+rw,go-w' --exclude=./tmp \
	--exclude=./var/cache/gpuform -cf "$work/layer.tar" .
tarc --owner=0 --group=0 --mode=1777 --no-recursion -rf "$work/layer.tar" ./tmp
tarc --owner=65532 --group=65532 --mode=0755 --no-recursion \
	-rf "$work/layer.tar" ./var/cache/gpuform

img=$out/oci:$tag
umoci init --layout "$out/oci"
umoci new --image "$img"
umoci raw add-layer --image "$img" --history.created "$created" \
	--history.created_by "make image (util/image.sh)" "$work/layer.tar"
set -- --config.label "org.opencontainers.image.version=$version" \
	--config.label "org.opencontainers.image.revision=$revision" \
	--config.label "org.opencontainers.image.created=$created" \
	--config.label "org.opencontainers.image.title=gpuform" \
	--config.label "org.opencontainers.image.licenses=Apache-2.0"
[ -n "$source" ] && set -- "$@" --config.label "org.opencontainers.image.source=$source"
umoci config --image "$img" --no-history --created "$created" \
	--architecture "$(dpkg --print-architecture 2>/dev/null || echo amd64)" --os linux --config.user 65532:65532 \
	--config.env SSL_CERT_FILE="$cacert" \
	--config.env PATH=/usr/local/bin \
	--config.entrypoint /usr/local/bin/gpuform --config.cmd help \
	--config.workingdir /var/cache/gpuform "$@"
umoci gc --layout "$out/oci"

# the archive: the layout as a reproducible tar
archive=$out/gpuform-$tag.oci.tar
(cd "$out/oci" && LC_ALL=C tar --sort=name --format=gnu --mtime="@$epoch" \
	--owner=0 --group=0 --numeric-owner --mode='u+rw,go=rX' -cf "$archive.tmp" .)
mv "$archive.tmp" "$archive"
digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"])' "$out/oci/index.json")
rm -rf "$work"
echo "$archive"
echo "$digest"
