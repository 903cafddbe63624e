#!/usr/bin/env bash
# The provenance of a record (a campaign, a scaling campaign, a sweep, a profile, a sanitizer
# report): which source made it. The one writer of provenance files; run.sh, tools/scaling.sh,
# tools/sweep.sh, tools/profile.sh and tools/sanitize.sh call it, and tests/test_provenance.c
# reads what it writes (docs/reference.md, "Results and their provenance").
#
# A provenance file is tab-separated, its header first:
#   stage  source_hash  binary_sha256  runtime_hash  revision  date
# one row per stage the record ran, per session (a campaign continued with --resume appends the
# rows of the stages it times again): the stage's source hash (tools/stages source-hash: its
# program and the headers it compiles, and the manifest's fields that change what it does), the
# sha256 of the executable that ran, the hash of the host code every stage links (tools/stages
# runtime-hash: common/), the source revision and the time (UTC). A hash that cannot be made is
# written "unknown (why)" and said on stderr; a record is never refused for want of one.
#
# Usage: tools/runner/provenance.sh revision
#            the source revision: `git describe --always` of this checkout, with "-dirty" when
#            a tracked file outside results/ differs from the commit (a campaign's own files
#            change as it runs, and are not its source); "unknown (not a git checkout)" when
#            there is none; $PROVENANCE_REVISION when set (a campaign on another host, whose copy
#            of the repository went without .git: tools/runner/remote-campaign.sh)
#        tools/runner/provenance.sh append FILE BIN_DIR STAGE...
#            appends a row per STAGE (its executable BIN_DIR/STAGE) to FILE, the header first
#            when FILE is new or empty (a campaign's provenance.tsv, beside env.txt)
#        tools/runner/provenance.sh write FILE BIN_DIR STAGE...
#            FILE made anew: the header and a row per STAGE (a record written whole: a sweep's,
#            a profile's, a sanitizer report's)
# Environment: STAGES_DIR (the stage folders, as tools/stages reads them).
# Exit status: 0; 1 when FILE cannot be written (one line on stderr); 2 a bad usage.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly HEADER=$'stage\tsource_hash\tbinary_sha256\truntime_hash\trevision\tdate'
usage() { echo "usage: tools/runner/provenance.sh revision | append FILE BIN_DIR STAGE... | write FILE BIN_DIR STAGE..." >&2; exit 2; }

revision() {
    if [[ -n "${PROVENANCE_REVISION:-}" ]]; then
        printf '%s\n' "$PROVENANCE_REVISION"
        return
    fi
    if ! command -v git >/dev/null 2>&1 || ! git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        echo "unknown (not a git checkout)"
        return
    fi
    local described
    described="$(git -C "$repo" describe --always 2>/dev/null)" || { echo "unknown (git describe failed)"; return; }
    # A tracked file outside results/ that differs from the commit (staged or not) makes it dirty;
    # so does a diff that fails.
    git -C "$repo" diff --quiet HEAD -- . ':(exclude)results' >/dev/null 2>&1 || described+='-dirty'
    printf '%s\n' "$described"
}

# The rows, for the stages named (the executables in $1).
rows() {
    local bin_dir="$1" stage hashes runtime revision_now date sum
    shift
    declare -A source_of=()
    # Every stage at once (a few seconds for all of them); a stage that cannot be hashed (no
    # render.cu: the tests' made-up stages) is tried alone, so that it does not cost the others.
    if hashes="$("$repo/tools/stages" source-hash "$@" 2>/dev/null)"; then
        while IFS=$'\t' read -r stage sum; do source_of[$stage]="$sum"; done <<<"$hashes"
    else
        local unhashed=() why=''
        for stage in "$@"; do
            if hashes="$("$repo/tools/stages" source-hash "$stage" 2>&1)"; then
                source_of[$stage]="${hashes##*$'\t'}"
            else
                source_of[$stage]="unknown (tools/stages source-hash failed)"
                unhashed+=("$stage") why="${hashes#*: }"
            fi
        done
        [[ ${#unhashed[@]} -eq 0 ]] || echo "provenance: no source hash for ${unhashed[*]} (${why%%$'\n'*})" >&2
    fi
    runtime="$("$repo/tools/stages" runtime-hash 2>/dev/null)" || {
        runtime="unknown (tools/stages runtime-hash failed)"
        echo "provenance: no hash of the shared host code (tools/stages runtime-hash failed)" >&2
    }
    revision_now="$(revision)"
    date="$(date -u +%FT%TZ)"
    local unbuilt=()
    for stage in "$@"; do
        if [[ -f "$bin_dir/$stage" ]] && sum="$(sha256sum <"$bin_dir/$stage" 2>/dev/null)"; then
            sum="${sum%% *}"
        else
            sum="unknown (no $bin_dir/$stage)"
            unbuilt+=("$stage")
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$stage" "${source_of[$stage]:-unknown (not hashed)}" "$sum" \
            "$runtime" "$revision_now" "$date"
    done
    [[ ${#unbuilt[@]} -eq 0 ]] || echo "provenance: no executable in $bin_dir to hash for ${unbuilt[*]}" >&2
}

[[ $# -ge 1 ]] || usage
case "$1" in
    revision)
        [[ $# -eq 1 ]] || usage
        revision ;;
    append|write)
        [[ $# -ge 4 ]] || usage
        mode="$1" file="$2" bin_dir="$3"
        shift 3
        made="$(rows "$bin_dir" "$@")"
        if [[ "$mode" == write || ! -s "$file" ]]; then
            printf '%s\n%s\n' "$HEADER" "$made" >"$file.tmp.$$" 2>/dev/null && mv "$file.tmp.$$" "$file" 2>/dev/null || {
                rm -f "$file.tmp.$$"
                echo "provenance: cannot write $file" >&2
                exit 1
            }
        else
            printf '%s\n' "$made" >>"$file" 2>/dev/null || { echo "provenance: cannot write $file" >&2; exit 1; }
        fi ;;
    *) usage ;;
esac
