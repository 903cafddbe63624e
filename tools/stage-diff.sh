#!/usr/bin/env bash
# Shows what one stage changes: `diff -u` of the render.cu of the stage it builds on against its
# own render.cu. A main stage (stages/NN-name, stages/pNN-name) is compared with the previous main
# stage of its track; a side stage (NNx-name, pNNx-name) with the stage named in its branches-from
# file, else with main stage NN (pNN). With FROM, any two stages. Coloured on a terminal, plain
# when piped. Needs no GPU and no nvcc.
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
        --stages) [ $# -ge 2 ] || fail "--stages needs a folder"; stages_dir=$2; shift 2 ;;
        --stages=*) stages_dir=${1#--stages=}; shift ;;
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

. "$tools_dir/stage-names.sh"   # all_stages, only_folder, resolve

# The stage a stage builds on: for a side stage its branches-from file or main stage NN (pNN),
# for a main stage the previous main stage of its track. Fails for the first stage of a chain.
predecessor() {
    local stage=$1 track number named previous='' s
    [[ $stage =~ ^(p?)([0-9][0-9])([a-z]?)- ]] || fail "'$stage' is not a stage folder name"
    track=${BASH_REMATCH[1]}
    number=$((10#${BASH_REMATCH[2]}))
    if [ -n "${BASH_REMATCH[3]}" ]; then
        if [ -f "$stages_dir/$stage/branches-from" ]; then
            named=$(tr -d ' \t\r\n' <"$stages_dir/$stage/branches-from")
            while [ "${named%/}" != "$named" ]; do named=${named%/}; done
            named=${named##*/}
            [ -n "$named" ] || fail "$stages_dir/$stage/branches-from is empty: it should name the stage folder $stage branches from"
            [[ $named =~ ^p?[0-9][0-9][a-z]?-. ]] && [ -d "$stages_dir/$named" ] ||
                fail "$stages_dir/$stage/branches-from names '$named', which is not a stage folder in $stages_dir/"
            echo "$named"
            return
        fi
        only_folder "$track$(printf '%02d' "$number")-" "the parent of $stage (main stage $track$(printf '%02d' "$number"))" ||
            fail "side stage $stage has no parent: no main stage $stages_dir/$track$(printf '%02d' "$number")-* and no branches-from file"
        return
    fi
    for s in $(all_stages); do
        [[ $s =~ ^$track[0-9][0-9]- ]] && [ $((10#${s:${#track}:2})) -lt "$number" ] && previous=${s:0:$((${#track} + 2))}
    done
    [ -n "$previous" ] ||
        fail "stage $stage is the first of the chain and has no predecessor: name the other stage with FROM (make diff STAGE=${stage:0:$((${#track} + 2))} FROM=${track}NN, or tools/stage-diff.sh ${stage:0:$((${#track} + 2))} ${track}NN)"
    only_folder "$previous-" "the predecessor of $stage (main stage $previous)"
}

to=$(resolve "${args[0]}")
if [ ${#args[@]} -ge 2 ] && [ -n "${args[1]}" ]; then
    from=$(resolve "${args[1]}")
else
    from=$(predecessor "$to")
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
