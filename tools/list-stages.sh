#!/usr/bin/env bash
# The stage executables in a build folder, one path a line: the main track's chain (NN-name) and
# side stages (NNx-name), then the path-tracing track's (pNN-name, pNNx-name); regular executable
# files without a dot in their name (so not NN-name.resources.txt) and not a kernel benchmark
# (pNN-name-bench, which is not a stage), each track in byte order so that 07-... comes before
# 07a-... and 08-.... One rule for run.sh, compare-stages.sh and sanitize.sh.
# usage: tools/list-stages.sh BUILD_DIR
shopt -s nullglob
for path in "$1"/[0-9][0-9]-* "$1"/[0-9][0-9][a-z]-* "$1"/p[0-9][0-9]-* "$1"/p[0-9][0-9][a-z]-*; do
    name="${path##*/}"
    [[ -f "$path" && -x "$path" && "$name" != *.* && "$name" != *-bench ]] && printf '%s\n' "$path"
done | LC_ALL=C sort
