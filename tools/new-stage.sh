#!/usr/bin/env bash
# Starts a new stage on top of another: the folder stages/NEW with a render.cu that is the
# parent's program unchanged (its header to rewrite, then every part the parent includes, named by
# where it lies: the parent's own parts become ../PARENT/part.cuh), the parent's manifest with
# builds-on set to the parent, and a README.md to write. The new stage renders exactly what its
# parent renders until you change something: copy the one part your lesson changes into the new
# folder (tools/new-stage.sh --own PART does it) and include it by its bare name.
#
# usage: tools/new-stage.sh PARENT NEW [--own PART ...]
#   PARENT      the stage it builds on (an id, 31, or a folder name)
#   NEW         the new folder's name (34-my-idea; docs/adding-a-stage.md, section 1)
#   --own PART  also copy the parent's PART (walk.cuh) into the new folder and include it there
# Environment: STAGES_DIR, the folder of the stage folders (default: the repository's stages/).
# Exit status: 0; 2 with one line on stderr for an unknown parent, a bad or taken name, a part the
# parent does not include.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$repo/tools/runner/header-help.sh"
stages_dir=${STAGES_DIR:-$repo/stages}
stages_dir=${stages_dir%/}
export STAGES_DIR=$stages_dir
stages() { STAGES_PROGRAM=new-stage "$repo/tools/stages" "$@"; }
die() { echo "new-stage: $*" >&2; exit 2; }

args=() own=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --own) own+=("${2:?--own takes a part, e.g. walk.cuh}"); shift 2 ;;
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) die "unknown option $1 (--help lists them)" ;;
        *) args+=("$1"); shift ;;
    esac
done
[[ ${#args[@]} -eq 2 ]] || die "usage: tools/new-stage.sh PARENT NEW [--own PART ...]"
parent="$(stages resolve "${args[0]}" 2>&1)" || die "${parent#new-stage: }"
new=${args[1]}
[[ "$new" =~ ^p?[0-9][0-9][a-z]?-[a-z0-9]+(-[a-z0-9]+)*$ ]] ||
    die "'$new' does not follow the rule NN-name, NNx-name, pNN-name or pNNx-name"
[[ ! -e "$stages_dir/$new" ]] || die "$stages_dir/$new exists already"
[[ "$(stages get "$parent" track)" == "$( [[ $new == p* ]] && echo pt || echo main)" ]] ||
    die "$new and $parent are of different tracks"
mapfile -t parts < <(cd "$repo" && stages parts "$parent")
for part in ${own[@]+"${own[@]}"}; do
    printf '%s\n' "${parts[@]}" | grep -q "/$part\$" || die "$parent's program includes no part $part"
done

mkdir "$stages_dir/$new"
# render.cu: the parent's, each part include naming the file it resolves to from the new folder.
next=1
while IFS= read -r line || [[ -n "$line" ]]; do
    if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"[^\"]*\.cuh\" ]]; then
        path=${parts[$next]}
        next=$((next + 1))
        name=${path##*/}
        if [[ " ${own[*]-} " == *" $name "* ]]; then
            cp "$([[ $path == /* ]] && echo "$path" || echo "$repo/$path")" "$stages_dir/$new/$name"
            echo "#include \"$name\""
        elif [[ $path == common/* ]]; then
            echo "#include \"${path#common/}\""
        else
            echo "#include \"../$(basename "$(dirname "$path")")/$name\""
        fi
    else
        printf '%s\n' "$line"
    fi
done <"$stages_dir/$parent/render.cu" >"$stages_dir/$new/render.cu"
sed -i "s/^ \* Builds on .*\$/ * Builds on $parent./" "$stages_dir/$new/render.cu"
sed "s/^builds-on: .*/builds-on: $parent/; s/^# What stage [^ ]* is:/# What stage $new is:/" \
    "$stages_dir/$parent/manifest" >"$stages_dir/$new/manifest"
cat >"$stages_dir/$new/README.md" <<EOF
# $new

What this stage changes, why it should pay, and what it measured (docs/adding-a-stage.md, section 10).
\`make diff STAGE=${new%%-*}\` shows the lesson.
EOF
echo "new-stage: $stages_dir/$new builds on $parent: now write its lesson in the manifest and render.cu's header (docs/adding-a-stage.md)"
