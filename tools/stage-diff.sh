#!/usr/bin/env bash
# Shows what one stage changes: `diff -u` of the render.cu of the stage it builds on (its
# manifest's builds-on, read by tools/stages) against its own render.cu. With FROM, any two
# stages. Coloured on a terminal, plain when piped. Needs no GPU and no nvcc.
#
# usage: tools/stage-diff.sh [--stages DIR] STAGE [FROM]      (make diff STAGE=07 [FROM=01])
#   STAGE, FROM   a stage id (7, 07, 7a, 07a; p1, p01, p5a, p05a) or a folder name
#   --stages DIR  where the stage folders are (default: the repository's stages/)
# Exit status as diff's: 0 the same, 1 they differ, 2 an error (one line on stderr).
set -euo pipefail
tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { sed -n '2,11s/^# \{0,1\}//p' "$0"; }
fail() { echo "stage-diff: $*" >&2; exit 2; }

stages_dir=''
args=()
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        # An empty folder name is refused: '' would quietly mean the default, the repository's.
        --stages) [ $# -ge 2 ] && [ -n "$2" ] || fail "--stages needs a folder"; stages_dir=$2; shift 2 ;;
        --stages=*) [ -n "${1#--stages=}" ] || fail "--stages needs a folder"; stages_dir=${1#--stages=}; shift ;;
        --) shift; args+=("$@"); break ;;
        -*) fail "unknown option '$1' (see --help)" ;;
        *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -ge 1 ] && [ -n "${args[0]}" ] || fail "no stage given (usage: tools/stage-diff.sh STAGE [FROM], or make diff STAGE=07 [FROM=01])"
[ ${#args[@]} -le 2 ] || fail "too many arguments: '${args[*]}' (usage: tools/stage-diff.sh STAGE [FROM])"
if [ -z "$stages_dir" ]; then
    cd "$(dirname "$0")/.."   # labels read stages/NN-name/render.cu, from wherever this runs
    stages_dir=stages
fi
stages_dir=${stages_dir%/}
[ -d "$stages_dir" ] || fail "no stage folder '$stages_dir'"

# The one reader of the stage manifests, on the chosen folder of stages; its messages are ours.
stages() { STAGES_DIR="$stages_dir" STAGES_PROGRAM=stage-diff "$tools_dir/stages" "$@"; }
resolve() { stages resolve "$1" || exit 2; }

# The stage a stage builds on; fails for the first stage of a track.
predecessor() {
    local stage=$1 parent
    parent=$(stages get "$stage" builds-on) || exit 2
    [ "$parent" != none ] ||
        fail "stage $stage is the first of its track and builds on nothing: name the other stage with FROM (make diff STAGE=$(stages get "$stage" id) FROM=..., or tools/stage-diff.sh $(stages get "$stage" id) OTHER)"
    [ -d "$stages_dir/$parent" ] || fail "$stages_dir/$stage/manifest: builds-on names '$parent', which is not a stage folder in $stages_dir/"
    echo "$parent"
}

to=$(resolve "${args[0]}")
if [ ${#args[@]} -ge 2 ] && [ -n "${args[1]}" ]; then
    from=$(resolve "${args[1]}")
else
    from=$(predecessor "$to") || exit 2
fi
old="$stages_dir/$from/render.cu"
new="$stages_dir/$to/render.cu"
for f in "$old" "$new"; do
    [ -f "$f" ] || fail "no $f"
done

# Colour only on a terminal (and not under NO_COLOR): GNU diff's --color, else git's.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    if diff --color=always /dev/null /dev/null >/dev/null 2>&1; then
        exec diff -u --color=always --label "$old" --label "$new" "$old" "$new"
    elif command -v git >/dev/null 2>&1; then
        exec git --no-pager diff --no-index --color=always "$old" "$new"
    fi
fi
exec diff -u --label "$old" --label "$new" "$old" "$new"
