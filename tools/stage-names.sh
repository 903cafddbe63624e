# Stage folders by id, for the tools that take one (stage-diff.sh, profile.sh). Sourced, not
# run: the caller sets stages_dir (the folder of stage folders) and defines fail MESSAGE (one
# line on stderr, exit status 2).
#   resolve ID     a stage id (7, 07, 7a, 07a) or folder name -> the folder name
#   all_stages     every stage folder: NN-name (main chain) and NNx-name (side stage), byte order

# Every folder that is a stage: NN-name (main chain) and NNx-name (side stage), in byte order.
all_stages() {
    local d
    for d in "$stages_dir"/[0-9][0-9]-* "$stages_dir"/[0-9][0-9][a-z]-*; do
        [ -d "$d" ] && echo "${d##*/}"
    done | LC_ALL=C sort
}

# The one folder whose name starts with prefix (e.g. "07-", "07a-"); what names it for messages.
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
    local given=$1 id number letter
    id=$given
    while [ "${id%/}" != "$id" ]; do id=${id%/}; done
    id=${id##*/}
    if [[ $id =~ ^[0-9][0-9][a-z]?-. ]]; then
        [ -d "$stages_dir/$id" ] || fail "unknown stage '$given': no folder $stages_dir/$id"
        echo "$id"
    elif [[ $id =~ ^([0-9]{1,2})([a-zA-Z]?)$ ]]; then
        number=$((10#${BASH_REMATCH[1]}))
        letter=$(tr '[:upper:]' '[:lower:]' <<<"${BASH_REMATCH[2]}")
        only_folder "$(printf '%02d' "$number")$letter-" "stage '$given'" ||
            fail "unknown stage '$given': no folder $stages_dir/$(printf '%02d' "$number")$letter-*"
    else
        fail "unknown stage '$given': give an id such as 7, 07, 7a, 07a or a folder name in $stages_dir/"
    fi
}

