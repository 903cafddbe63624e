# Stage folders by id, for the tools that take one (run.sh, stage-diff.sh, profile.sh). Sourced,
# not run: the caller sets stages_dir (the folder of stage folders) and defines fail MESSAGE (one
# line on stderr, exit status 2).
#   resolve ID     a stage id (7, 07, 7a, 07a; path-tracing track: p1, p01, p5a, p05a) or a
#                  folder name -> the folder name
#   all_stages     every stage folder: the main track's NN-name (chain) and NNx-name (side stage)
#                  in byte order, then the path-tracing track's pNN-name and pNNx-name
(return 0 2>/dev/null) || { echo "stage-names.sh: source it (. tools/stage-names.sh), do not run it" >&2; exit 2; }

# Every folder that is a stage: the main track first (NN-name, NNx-name), then the path-tracing
# track (pNN-name, pNNx-name), each in byte order.
all_stages() {
    local d
    for d in "$stages_dir"/[0-9][0-9]-* "$stages_dir"/[0-9][0-9][a-z]-*; do
        [ -d "$d" ] && echo "${d##*/}"
    done | LC_ALL=C sort
    for d in "$stages_dir"/p[0-9][0-9]-* "$stages_dir"/p[0-9][0-9][a-z]-*; do
        [ -d "$d" ] && echo "${d##*/}"
    done | LC_ALL=C sort
}

# The one folder whose name starts with prefix (e.g. "07-", "07a-", "p05-"); what names it for
# messages.
only_folder() {
    local prefix=$1 what=$2 found='' s
    for s in $(all_stages); do
        [[ $s == "$prefix"* ]] && found+="$s"$'\n'
    done
    found=${found%$'\n'}
    [ -n "$found" ] || return 1
    [ "$(wc -l <<<"$found")" -eq 1 ] ||
        fail "$what is ambiguous: $(tr '\n' ' ' <<<"$found" | sed 's/ $//') all match in $stages_dir/"
    echo "$found"
}

# A stage id or folder name -> the folder name.
resolve() {
    local given=$1 id number letter track prefix
    id=$given
    while [ "${id%/}" != "$id" ]; do id=${id%/}; done
    id=${id##*/}
    if [[ $id =~ ^p?[0-9][0-9][a-z]?-. ]]; then
        [ -d "$stages_dir/$id" ] || fail "unknown stage '$given': no folder $stages_dir/$id"
        echo "$id"
    elif [[ $id =~ ^([pP]?)([0-9]{1,2})([a-zA-Z]?)$ ]]; then
        track=$(tr '[:upper:]' '[:lower:]' <<<"${BASH_REMATCH[1]}")
        number=$((10#${BASH_REMATCH[2]}))
        letter=$(tr '[:upper:]' '[:lower:]' <<<"${BASH_REMATCH[3]}")
        prefix="$track$(printf '%02d' "$number")$letter-"
        only_folder "$prefix" "stage '$given'" ||
            fail "unknown stage '$given': no folder $stages_dir/$prefix*"
    else
        fail "unknown stage '$given': give an id such as 7, 07, 7a, 07a, p1, p01, p5a or a folder name in $stages_dir/"
    fi
}
