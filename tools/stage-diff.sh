#!/usr/bin/env bash
# Shows what one stage changes: `diff -u` of the whole program of the stage it builds on (its
# manifest's builds-on, read by tools/stages) against its own, each as tools/stage-show.sh --bare
# prints it: render.cu with the text of every part it includes in place. A part both take from
# the same file is the same text and shows nowhere; what shows is the stage's own files against
# its parent's. Each hunk's @@ line ends with the file its first change is in
# (stages/NN-name/walk.cuh, or the stage's render.cu). With FROM, any two stages. Coloured on a terminal, plain when piped. Needs no
# GPU and no nvcc.
#
# usage: tools/stage-diff.sh [--stages DIR] STAGE [FROM]      (make diff STAGE=07 [FROM=01])
#   STAGE, FROM   a stage id (7, 07, 7a, 07a; p1, p01, p5a, p05a) or a folder name
#   --stages DIR  where the stage folders are (default: the repository's stages/)
# Exit status as diff's: 0 the same, 1 they differ, 2 an error (one line on stderr).
set -euo pipefail
tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$tools_dir/runner/header-help.sh"

fail() { echo "stage-diff: $*" >&2; exit 2; }

stages_dir=''
args=()
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
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
    cd "$(dirname "$0")/.."   # labels read stages/NN-name/..., from wherever this runs
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

work=$(mktemp -d "${TMPDIR:-/tmp}/stage-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Each program as its code alone, and the map of its lines to their files.
show() { "$tools_dir/stage-show.sh" --stages "$stages_dir" --bare "$1" --map "$2" || exit 2; }
show "$from" "$work/old.map" >"$work/old"
show "$to" "$work/new.map" >"$work/new"

status=0
diff -u --label "$from (make show STAGE=$(stages get "$from" id))" \
    --label "$to (make show STAGE=$(stages get "$to" id))" "$work/old" "$work/new" >"$work/diff" ||
    status=$?
[ "$status" -le 1 ] || exit 2

# Each hunk's @@ line names the file its first change is in: the new program's file at that line
# (the old one's where the hunk only removes lines at the end of a file the new program lacks).
awk -v new_map="$work/new.map" -v old_map="$work/old.map" '
    function file_at(first, files, n, line,   i, f) {
        f = ""
        for (i = 1; i <= n; i++) if (first[i] <= line) f = files[i]
        return f
    }
    BEGIN {
        while ((getline l < new_map) > 0) { split(l, p, "\t"); nn++; nfirst[nn] = p[1]; nfile[nn] = p[2] }
        while ((getline l < old_map) > 0) { split(l, p, "\t"); on++; ofirst[on] = p[1]; ofile[on] = p[2] }
    }
    function flush(   i, label, line) {
        if (!held) return
        label = changed_new > 0 ? file_at(nfirst, nfile, nn, changed_new) : file_at(ofirst, ofile, on, changed_old)
        print hunk_head (label != "" ? " " label : "")
        for (i = 1; i <= held; i++) print body[i]
        held = 0
    }
    /^@@ / {
        flush()
        match($0, /^@@ -[0-9]+/); old_line = substr($0, 5, RLENGTH - 4) + 0
        match($0, / \+[0-9]+/); new_line = substr($0, RSTART + 2, RLENGTH - 2) + 0
        hunk_head = $0; held = 0; changed_new = 0; changed_old = 0
        sub(/ @@.*$/, " @@", hunk_head)
        in_hunk = 1
        next
    }
    !in_hunk { print; next }
    {
        body[++held] = $0
        c = substr($0, 1, 1)
        if (!changed_new && !changed_old && (c == "+" || c == "-")) {
            changed_new = new_line; changed_old = old_line
        }
        if (c == " " || c == "+") new_line++
        if (c == " " || c == "-") old_line++
    }
    END { flush() }' "$work/diff" >"$work/labelled"

# Colour only on a terminal (and not under NO_COLOR).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    awk '/^(---|\+\+\+) / { print "\033[1m" $0 "\033[0m"; next }
         /^@@/ { print "\033[36m" $0 "\033[0m"; next }
         /^-/ { print "\033[31m" $0 "\033[0m"; next }
         /^\+/ { print "\033[32m" $0 "\033[0m"; next }
         { print }' "$work/labelled"
else
    cat "$work/labelled"
fi
exit "$status"
