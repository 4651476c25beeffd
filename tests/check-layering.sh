#!/bin/sh
# tests/check-layering.sh: the module boundaries the house style promises.
#   - each third-party library is included by exactly one module:
#       libcurl -> http/http.c, libyaml -> util/yaml.c,
#       libgit2 -> the Git module: git/repo.c, git/repo_tree.c,
#         git/repo_remote.c and their shared git/repo_int.h,
#       OpenSSL -> util/digest.c, util/base64.c and git/knownhosts.c (HMAC for
#         hashed known_hosts),
#       zlib -> git/loose.c (checks loose objects of the --git cache)
#   - reconcile/engine.h (struct run, internal to the reconcile engine) is
#     included only by the engine's files that share it; generator/lint_*.h
#     (internal to the lint module) only by the lint module's files;
#     git/repo_int.h only by the Git module's
#   - the layers, each using only those below it:
#       cmd/ -> reconcile/ -> { kube/, aws/, git/, generator/ } -> http/ -> util/
#     util/ includes nothing of the project above it; http/ (the generic
#     HTTP layer) only util/; git/ and generator/ nothing of each other,
#     nor of http/, kube/, aws/, reconcile/ or cmd/ (they never reach the
#     network layer); kube/ (the Kubernetes client) and aws/ (the AWS
#     client) nothing of each other, git/, reconcile/ or cmd/ (they may use
#     generator/'s pure tables: kube/kube.c names the CRDs a kind needs);
#     reconcile/ nothing of cmd/
#   - only cmd/ prints to stdout/stderr (fprintf/printf/puts/perror); the one
#     exception is util/xalloc.c, whose out-of-memory and BUG() paths print
#     and abort (git's die() does the same)
# Prints each violation and exits 1 if there is one.
set -u
cd "$(dirname "$0")/.."
bad=0
fail() { echo "layering: $*"; bad=1; }
# the tracked files matching the patterns; in an unpacked source tarball
# (no .git: `make dist`) the files the patterns match
ls_files() {
	if [ -e .git ]; then git ls-files "$@"; return; fi
	for p in "$@"; do for f in $p; do [ -f "$f" ] && echo "$f"; done; done
}

only_in() { # PATTERN ALLOWED-FILES...
	pat=$1; shift
	for f in $(ls_files 'util/*.[ch]' 'generator/*.[ch]' 'git/*.[ch]' 'http/*.[ch]' 'kube/*.[ch]' 'aws/*.[ch]' 'reconcile/*.[ch]' 'cmd/*.[ch]'); do
		grep -q "$pat" "$f" || continue
		ok=0
		for a in "$@"; do [ "$f" = "$a" ] && ok=1; done
		[ $ok = 1 ] || fail "$f includes $pat (only $* may)"
	done
}
only_in '#include <curl/' http/http.c
only_in '#include <git2' git/repo.c git/repo_tree.c git/repo_remote.c \
	git/repo_int.h
only_in '#include "git/repo_int.h"' git/repo.c git/repo_tree.c git/repo_remote.c
only_in '#include <yaml.h>' util/yaml.c
only_in '#include <openssl/' util/digest.c util/base64.c git/knownhosts.c
only_in '#include <zlib.h>' git/loose.c
# the reconcile engine's internal header (struct run): its own files only
only_in '#include "reconcile/engine.h"' reconcile/reconcile.c \
	reconcile/inventory.c reconcile/planner.c reconcile/apply.c
only_in '#include "generator/lint_' generator/lint.c generator/lint_index.c \
	generator/lint_workload.c generator/lint_pools.c generator/lint_index.h \
	generator/lint_workload.h generator/lint_pools.h

layer() { # DIR FORBIDDEN-DIRS...
	dir=$1; shift
	for f in $(ls_files "$dir/*.[ch]"); do
		for d in "$@"; do
			grep -n "#include \"$d/" "$f" | sed "s|^|layering: $f:|;s|\$| ($dir/ must not use $d/)|" | grep . && bad=1
		done
	done
}
layer util generator git http kube aws reconcile cmd
layer http generator git kube aws reconcile cmd
layer generator git http kube aws reconcile cmd
layer git generator http kube aws reconcile cmd
layer kube aws git reconcile cmd
layer aws kube git reconcile cmd
layer reconcile cmd

for f in $(ls_files 'util/*.c' 'generator/*.c' 'git/*.c' 'http/*.c' 'kube/*.c' 'aws/*.c' 'reconcile/*.c' | grep -vx 'util/xalloc.c'); do
	grep -nE '\b(printf|puts|perror)\(|fprintf\((stdout|stderr)' "$f" |
		sed "s|^|layering: $f:|;s|\$| (only cmd/ prints)|" | grep . && bad=1
done

[ $bad = 0 ] && echo "layering: ok"
exit $bad
