#!/bin/sh
# util/gen-docs.sh BIN OUTDIR: the man pages and shell completions, made by
# the built binary from its option tables (cmd/options.c), into
#   OUTDIR/man/gpuform.1, OUTDIR/man/gpuform-<command>.1,
#   OUTDIR/completion/gpuform.bash, OUTDIR/completion/_gpuform (zsh).
# The commands are the ones 'BIN --help' lists, so a new command gets its
# page without editing this file or the Makefile.
set -eu
bin=$1 out=$2
mkdir -p "$out/man" "$out/completion"
cmds=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
[ -n "$cmds" ] || { echo "gen-docs: no commands in '$bin --help'" >&2; exit 1; }
"$bin" help-man >"$out/man/gpuform.1.tmp"
mv "$out/man/gpuform.1.tmp" "$out/man/gpuform.1"
for c in $cmds; do
	"$bin" help-man "$c" >"$out/man/gpuform-$c.1.tmp"
	mv "$out/man/gpuform-$c.1.tmp" "$out/man/gpuform-$c.1"
done
"$bin" completion bash >"$out/completion/gpuform.bash"
"$bin" completion zsh >"$out/completion/_gpuform"
