#!/usr/bin/env bash
# Opens a campaign's runs.csv for run.sh and tools/scaling.sh, and prints the last run order
# recorded there (0 for a new campaign), after which the new runs are numbered.
# Usage: tools/open-runs.sh DIR HEADER RESUME [OLD_HEADER]
#   DIR         the campaign's folder (created beforehand)
#   HEADER      runs.csv's header line
#   RESUME      1 to continue the runs DIR holds; 0 refuses a DIR that holds any
#   OLD_HEADER  an earlier header of the same campaign, HEADER less its last columns (run.sh's
#               before the image column): such a runs.csv is continued under HEADER, its rows
#               unchanged
# With RESUME, failed runs are run again: their rows move to DIR/failed-runs.csv, so that runs.csv
# keeps one row set per run. Leftovers of an interrupted campaign (.tmp.*, .progress) are removed.
# Exit status 2, with one line on stderr, when DIR holds runs and RESUME is 0, or runs.csv has
# another header (another kind of campaign's file).
set -euo pipefail
dir="$1" header="$2" resume="$3" old_header_allowed="${4:-}"
if [[ -s "$dir/runs.csv" && "$(wc -l <"$dir/runs.csv")" -gt 1 ]]; then
    if [[ "$resume" -ne 1 ]]; then
        echo "$dir already holds runs: continue them with --resume, or move the folder away" >&2
        exit 2
    fi
    # A runs.csv of OLD_HEADER is continued under the new header: its rows read the new columns
    # as empty. Any other header is another campaign's.
    old_header="$(head -n 1 "$dir/runs.csv")"
    if [[ "$old_header" != "$header" && ( -z "$old_header_allowed" || "$old_header" != "$old_header_allowed" ) ]]; then
        echo "$dir/runs.csv has the columns of another kind of campaign ($old_header): move the folder away" >&2
        exit 2
    fi
    if [[ -f "$dir/failed-runs.csv" ]]; then
        awk -v header="$header" 'NR == 1 { print header; next } 1' "$dir/failed-runs.csv" >"$dir/failed-runs.csv.new"
        mv "$dir/failed-runs.csv.new" "$dir/failed-runs.csv"
    else
        echo "$header" >"$dir/failed-runs.csv"
    fi
    awk -F',' 'NR > 1 && $15 == "failed"' "$dir/runs.csv" >>"$dir/failed-runs.csv"
    awk -F',' -v header="$header" 'NR == 1 { print header; next } $15 != "failed"' "$dir/runs.csv" >"$dir/runs.csv.new"
    mv "$dir/runs.csv.new" "$dir/runs.csv"
else
    echo "$header" >"$dir/runs.csv"
fi
rm -rf "$dir"/.tmp.* "$dir/.progress"
awk -F',' '$1 ~ /^[0-9]+$/ && $1 > m { m = $1 } END { print m + 0 }' "$dir"/*runs.csv
