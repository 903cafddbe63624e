#!/usr/bin/env bash
# The stage executables in a build folder, one path a line: the main chain (NN-name) and the side
# stages (NNx-name), regular executable files without a dot in their name (so not
# NN-name.resources.txt), in byte order so that 07-... comes before 07a-... and 08-....
# One rule for run.sh, compare-stages.sh and sanitize.sh.
# usage: tools/list-stages.sh BUILD_DIR
shopt -s nullglob
for path in "$1"/[0-9][0-9]-* "$1"/[0-9][0-9][a-z]-*; do
    name="${path##*/}"
    [[ -f "$path" && -x "$path" && "$name" != *.* ]] && printf '%s\n' "$path"
done | LC_ALL=C sort
