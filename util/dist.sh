#!/bin/sh
# util/dist.sh OUTDIR: the source tarball of HEAD, reproducibly (`make dist`).
#
# Same commit, same bytes: the files are those of `git archive HEAD`, every
# entry's mtime is the commit time (SOURCE_DATE_EPOCH, unless the caller sets
# it), owner and group are 0/0 with no names, modes are 0644/0755 (0755 for
# files Git records as executable), names are sorted, and gzip -n stores no
# name or time. One file is added: COMMIT, which holds the commit id and, when
# HEAD is the tag v$(cat VERSION), the release, so a build from the unpacked
# tarball (no .git) reports both in `gpuform version` (see the Makefile's
# commit.h rule).
#
# The tarball is OUTDIR/gpuform-VERSION.tar.gz when HEAD is tagged
# vVERSION (a release), else OUTDIR/gpuform-VERSION-COMMIT.tar.gz; next to
# it NAME.sha256 (sha256sum format). Prints the tarball's path.
set -eu
out=${1:?usage: util/dist.sh OUTDIR}
cd "$(dirname "$0")/.."
die() { echo "make dist: $*" >&2; exit 1; }

git rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	die "not a Git checkout with a commit (the tarball is made from HEAD)"
if ! git diff --quiet HEAD -- || [ -n "$(git ls-files --others --exclude-standard)" ]; then
	die "the work tree has uncommitted changes or untracked files; commit or stash them (the tarball is made from HEAD, so they would be missing from it)"
fi
version=$(git show HEAD:VERSION) || die "VERSION is not committed"
commit=$(git rev-parse --short=12 HEAD)
release=
if git tag --points-at HEAD | grep -qx "v$version"; then release=v$version; fi
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
if [ -n "$release" ]; then name=gpuform-$version; else name=gpuform-$version-$commit; fi

mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuform-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
umask 022
git -c tar.umask=0022 archive --format=tar --prefix="$name/" HEAD | tar -xf - -C "$tmp"
printf 'commit=%s\nrelease=%s\n' "$commit" "$release" >"$tmp/$name/COMMIT"
# GNU tar: sorted names, fixed times and owners; the gnu format needs no pax
# headers (which would carry atime/ctime)
(cd "$tmp" && LC_ALL=C tar --sort=name --format=gnu --mtime="@$epoch" \
	--owner=0 --group=0 --numeric-owner --mode='u+rw,go=rX' \
	-cf - "$name") | gzip -n -9 >"$tmp/$name.tar.gz"
mv "$tmp/$name.tar.gz" "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
