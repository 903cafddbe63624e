#!/usr/bin/env bash
# Opens a campaign's runs.csv for run.sh and tools/scaling.sh, and prints the last run order
# recorded there (0 for a new campaign), after which the new runs are numbered.
# Usage: tools/runner/open-runs.sh DIR HEADER RESUME [OLD_HEADER]
#   DIR         the campaign's folder (created beforehand)
#   HEADER      runs.csv's header line
#   RESUME      1 to continue the runs DIR holds; 0 refuses a DIR that holds any
#   OLD_HEADER  the earliest header of the same campaign, HEADER less its last columns (run.sh's
#               before the image and gpus columns): a runs.csv of it, or of it and some of the
#               columns after it (run.sh's before the gpus column), is continued under HEADER,
#               its rows unchanged
# A campaign that ended left its runs in DIR/runs.csv.gz (tools/runner/close-runs.sh; the form the
# repository keeps): when DIR has no runs.csv, that is unpacked into runs.csv, the live file the
# runs are appended to, and the campaign goes on from there. A runs.csv beside runs.csv.gz is the
# live file of a campaign cut off before it could close: it is the one used, once checked to be
# that (a campaign's header, and every run of runs.csv.gz that did not fail, in the same order, at
# its start); a runs.csv that is not (a stale copy beside newer runs, a stray row) is refused.
# With RESUME, failed runs are run again: their rows move to DIR/failed-runs.csv, so that runs.csv
# keeps one row set per run. Leftovers of an interrupted campaign (.tmp.*, .progress, a
# runs.csv.gz.tmp that tools/runner/close-runs.sh did not finish) are removed.
# Exit status 2, with one line on stderr, when DIR holds runs and RESUME is 0, or its runs have
# another header (another kind of campaign's file), or runs.csv.gz cannot be read, or a runs.csv
# beside it is not its continuation; DIR is then left as it was.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail
dir="$1" header="$2" resume="$3" old_header_allowed="${4:-}"
runs="$dir/runs.csv" source="$dir/runs.csv"
if [[ -e "$runs.gz" ]]; then
    # Unpacked outside DIR, so that a refusal (or a kill) leaves DIR as it was.
    packed="$(mktemp "${TMPDIR:-/tmp}/runs.csv.unpacked.XXXXXX")"
    trap 'rm -f "$packed"' EXIT
    gzip -dc "$runs.gz" >"$packed" 2>/dev/null || {
        echo "$runs.gz cannot be read (gzip -d failed): move the folder away" >&2
        exit 2
    }
    if [[ ! -e "$runs" ]]; then
        source="$packed"
    else
        # runs.csv must continue runs.csv.gz: a campaign's header, then the runs.csv.gz's rows
        # that did not fail (open-runs moved those away), in order, then the newer ones.
        ok_rows() { awk -F',' 'NR > 1 && $15 != "failed"' "$1"; }
        kept="$(ok_rows "$packed" | wc -l)"
        if [[ "$(head -n 1 "$runs")" != order,run,stage,* ]] ||
            ! cmp -s <(ok_rows "$packed") <(ok_rows "$runs" | head -n "$kept"); then
            echo "$runs is not the continuation of $runs.gz beside it (a stale or stray file): keep the right one and move the other away" >&2
            exit 2
        fi
    fi
fi
name="$runs"
[[ "$source" == "$runs" ]] || name="$runs.gz"
if [[ -s "$source" && "$(wc -l <"$source")" -gt 1 ]]; then
    if [[ "$resume" -ne 1 ]]; then
        echo "$dir already holds runs: continue them with --resume, or move the folder away" >&2
        exit 2
    fi
    # A runs.csv of OLD_HEADER, or of OLD_HEADER and some of HEADER's later columns, is continued
    # under the new header: its rows read the new columns as empty. Any other header is another
    # campaign's.
    old_header="$(head -n 1 "$source")"
    earlier=0
    if [[ -n "$old_header_allowed" && ( "$old_header" == "$old_header_allowed" ||
          ( "$old_header" == "$old_header_allowed",* && "$header," == "$old_header,"* ) ) ]]; then
        earlier=1
    fi
    if [[ "$old_header" != "$header" && "$earlier" -eq 0 ]]; then
        echo "$name has the columns of another kind of campaign ($old_header): move the folder away" >&2
        exit 2
    fi
    if [[ -f "$dir/failed-runs.csv" ]]; then
        awk -v header="$header" 'NR == 1 { print header; next } 1' "$dir/failed-runs.csv" >"$dir/failed-runs.csv.new"
        mv "$dir/failed-runs.csv.new" "$dir/failed-runs.csv"
    else
        echo "$header" >"$dir/failed-runs.csv"
    fi
    awk -F',' 'NR > 1 && $15 == "failed"' "$source" >>"$dir/failed-runs.csv"
    awk -F',' -v header="$header" 'NR == 1 { print header; next } $15 != "failed"' "$source" >"$runs.new"
    mv "$runs.new" "$runs"
else
    echo "$header" >"$runs"
fi
rm -rf "$dir"/.tmp.* "$dir/.progress" "$runs.gz.tmp" "$dir"/.runs.csv.unpacked.*
awk -F',' '$1 ~ /^[0-9]+$/ && $1 > m { m = $1 } END { print m + 0 }' "$dir"/*runs.csv
