#!/usr/bin/env bash
# How much code each stage holds of its own, and how long its lesson is: one line a stage,
# tab-separated, a header first, then the totals:
#   stage  own_lines  parts_own  parts_inherited  diff_lines  [diff_lines_at_REV]
# own_lines counts every source file in the stage's folder (.cu, .cuh, .c, .h); parts_own and
# parts_inherited count the parts its program includes from its own folder and from elsewhere
# (tools/stages parts); diff_lines is the length of `make diff STAGE=N` (tools/stage-diff.sh),
# empty for the first stage of a track. With --against REV, the last column is the same length at
# git revision REV (its own tools/stage-diff.sh on its own stages/). The totals: `total-stages` (every stage folder's
# source lines), `total-common` (common/'s .c, .cu, .cuh, .h) and `total-stages-and-common`.
#
# usage: tools/lab/stage-sizes.sh [--against REV] [--stages SPEC]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
. tools/runner/header-help.sh
die() { echo "stage-sizes: $*" >&2; exit 2; }
against='' spec=''
while [[ $# -gt 0 ]]; do
    case "$1" in
        --against) against="${2:?--against takes a revision}"; shift 2 ;;
        --stages) spec="${2:?--stages takes a list}"; shift 2 ;;
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done
if [[ -n "$spec" ]]; then
    stages="$(tools/stages select "$spec" 2>&1)" || die "${stages#stages: }"
else
    stages="$(tools/stages list)"
fi

source_lines() { # the lines of the source files directly in a folder
    find "$1" -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.c' -o -name '*.h' \) \
        -exec cat {} + 2>/dev/null | wc -l
}

old=''
if [[ -n "$against" ]]; then
    old="$(mktemp -d "${TMPDIR:-/tmp}/stage-sizes.XXXXXX")"
    trap 'rm -rf "$old"' EXIT
    git archive "$against" stages tools | tar -x -C "$old" || die "git archive $against failed"
fi

printf 'stage\town_lines\tparts_own\tparts_inherited\tdiff_lines%s\n' "${against:+$'\t'diff_lines_at_$against}"
total=0
for s in $stages; do
    own=$(source_lines "stages/$s")
    total=$((total + own))
    mine=0 inherited=0
    while IFS= read -r part; do
        [[ "$part" == */render.cu ]] && continue
        if [[ "$part" == "stages/$s/"* ]]; then mine=$((mine + 1)); else inherited=$((inherited + 1)); fi
    done < <(tools/stages parts "$s")
    diff_lines='' old_lines=''
    if [[ "$(tools/stages get "$s" builds-on)" != none ]]; then
        diff_lines=$( (tools/stage-diff.sh "$s" || true) | wc -l)
        if [[ -n "$old" && -d "$old/stages/$s" ]]; then
            old_lines=$(cd "$old" && (tools/stage-diff.sh "$s" || true) | wc -l)
        fi
    fi
    printf '%s\t%s\t%s\t%s\t%s%s\n' "$s" "$own" "$mine" "$inherited" "$diff_lines" "${against:+$'\t'$old_lines}"
done
common=$(find common -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.c' -o -name '*.h' \) -exec cat {} + | wc -l)
if [[ -z "$spec" ]]; then
    printf 'total-stages\t%s\n' "$total"
    printf 'total-common\t%s\n' "$common"
    printf 'total-stages-and-common\t%s\n' "$((total + common))"
fi
