#!/usr/bin/env bash
# Prints one stage as one whole program: its render.cu with every part it includes (its own, an
# earlier stage's, common's: tools/stages parts) written out in place, each between two lines that
# name its file. The result compiles as it stands (nvcc -Icommon) to the stage's own device code;
# the library headers (.h: runtime/gpu.h, raytrace/rt_stage.h, ...) stay #included. Needs no GPU and no nvcc.
#
# usage: tools/stage-show.sh [--stages DIR] [--bare] [--map FILE] STAGE   (make show STAGE=31)
#   STAGE         a stage id (7, 07, 7a, p5a) or a folder name
#   --stages DIR  where the stage folders are (default: the repository's stages/)
#   --bare        no banners: the parts' text alone, in place (tools/stage-diff.sh compares two
#                 stages' programs so, and names each change's file from --map)
#   --map FILE    also write FILE: a line "FIRST<TAB>PATH" where the printed lines from FIRST on
#                 come from PATH (render.cu or a part)
# Exit status: 0; 2 with one line on stderr for an unknown stage or a part not found.
set -euo pipefail
tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$tools_dir/runner/header-help.sh"
fail() { echo "stage-show: $*" >&2; exit 2; }

stages_dir=''
stage=''
bare=0
map=/dev/null
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
        --stages) [ $# -ge 2 ] && [ -n "$2" ] || fail "--stages needs a folder"; stages_dir=$2; shift 2 ;;
        --bare) bare=1; shift ;;
        --map) [ $# -ge 2 ] && [ -n "$2" ] || fail "--map needs a file"; map=$2; shift 2 ;;
        -*) fail "unknown option '$1' (see --help)" ;;
        *) [ -z "$stage" ] || fail "one stage at a time: '$stage' and '$1'"; stage=$1; shift ;;
    esac
done
[ -n "$stage" ] || fail "no stage given (usage: tools/stage-show.sh STAGE, or make show STAGE=31)"
cd "$tools_dir/.."
stages_dir=${stages_dir:-stages}
stages() { STAGES_DIR="$stages_dir" STAGES_PROGRAM=stage-show "$tools_dir/stages" "$@"; }

mapfile -t files < <(stages parts "$stage") || exit 2
[ ${#files[@]} -gt 0 ] || exit 2
program=${files[0]}
# render.cu line by line; its n-th part include is the n-th part listed.
next=1
line_number=0
{
    printf '1\t%s\n' "$program" >&3
    while IFS= read -r line || [ -n "$line" ]; do
        if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"[^\"]*\.cuh\" ]]; then
            part=${files[$next]}
            next=$((next + 1))
            banners=$((bare ? 0 : 2))
            printf '%s\t%s\n' "$((line_number + 1))" "$part" >&3
            [ "$bare" -eq 1 ] || printf '/* ======== %s ======== */\n' "$part"
            cat "$part"
            [ "$bare" -eq 1 ] || printf '/* ======== end of %s ======== */\n' "$part"
            line_number=$((line_number + banners + $(wc -l <"$part")))
            printf '%s\t%s\n' "$((line_number + 1))" "$program" >&3
        else
            printf '%s\n' "$line"
            line_number=$((line_number + 1))
        fi
    done <"$program"
} 3>"$map"
