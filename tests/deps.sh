#!/bin/sh
# tests/deps.sh: install the Debian packages that building and testing gpuform need,
# and only those that are missing. Silent when nothing is missing.
#
#   sh tests/deps.sh build   only what building needs (`make deps`): compiler,
#                            pkg-config, libgit2, libyaml, libcurl, cJSON,
#                            OpenSSL, Check; no daemons, no kubectl
#   sh tests/deps.sh [test]  that and what the test suites need (`make test-deps`,
#                            which `make test` runs; CI runs it on a clean clone)
#
# The API-server build dependencies (golang-go etc.) are not listed here:
# tests/kube-testenv build installs them itself, only when it has to build.
# kubectl is needed too; it is not a Debian bookworm package, so it is only checked.
# (jq is for tests/e2e.sh; etcd-server, curl and openssl for tests/kube-testenv;
# git, lighttpd and openssh-server (sshd; ssh-keygen) for the Git servers of tests/git.sh;
# python3-jsonschema for the SARIF schema check of tests/lint.sh; python3 for
# the metrics parser and the Pushgateway stand-in of tests/incluster.sh; man-db
# and groff-base so tests/docs.sh can render the man pages with man -l; zsh
# to load the generated zsh completion; python3-botocore verifies the SigV4
# signatures of gpuform preflight in tests/tools/awsfake.py; prometheus
# (and its promtool) is the real Prometheus of tests/advise.sh.)
set -eu

what=${1:-test}
case $what in
build | test) ;;
*) echo "usage: sh tests/deps.sh [build|test]" >&2; exit 2 ;;
esac

BUILD_PKGS="build-essential pkg-config libgit2-dev libyaml-dev libcurl4-openssl-dev libcjson-dev
libssl-dev check"
TEST_PKGS="etcd-server curl openssl jq git lighttpd openssh-server python3
python3-jsonschema python3-botocore man-db groff-base zsh prometheus
umoci skopeo python3-yaml"
PKGS=$BUILD_PKGS
[ "$what" = build ] || PKGS="$BUILD_PKGS $TEST_PKGS"

missing=''
for p in $PKGS; do
	# "install ok installed" only: a removed package keeps a status entry
	dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' ||
		missing="$missing $p"
done
missing=${missing# }

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing Debian packages: $missing" >&2
		echo "deps: run as root:  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing" >&2
		exit 1
	fi
	echo "deps: installing $missing"
	apt-get update -qq >/dev/null
	# shellcheck disable=SC2086 # word splitting intended
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

[ "$what" = build ] && exit 0

if ! command -v kubectl >/dev/null 2>&1; then
	cat >&2 <<'EOF'
deps: kubectl is needed (tests/e2e.sh and the benchmarks run it; tested with client v1.32,
deps: which has kustomize v5 built in) but it is not on PATH. It is not a Debian bookworm
deps: package: install it from the Kubernetes project's own apt repository or its
deps: release binaries (see the upstream guide "Install and Set Up kubectl on Linux"),
deps: then make sure `kubectl version --client` works.
EOF
	exit 1
fi
