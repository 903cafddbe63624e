#!/usr/bin/env bash
# Where a campaign folder's runs are, for the shell scripts that read them (tools/runner/runs_file.py is
# Python's): DIR/runs.csv while a campaign runs there (or after one was cut off before it could
# close: the newer file, a superset), else DIR/runs.csv.gz, the form a campaign leaves when it
# ends (tools/runner/close-runs.sh) and the repository keeps.
# Usage: tools/runner/runs-file.sh DIR          prints the file's path
#        tools/runner/runs-file.sh --rows DIR   prints its rows, the header first (zcat -f); under
#                                        pipefail, a reader that stops early (head) sees status 141
# Exit status 1, with one line on stderr, when DIR holds neither.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail
rows=0
if [[ "${1:-}" == --rows ]]; then rows=1; shift; fi
[[ $# -eq 1 ]] || { echo "usage: tools/runner/runs-file.sh [--rows] DIR" >&2; exit 2; }
dir="$1"
if [[ -f "$dir/runs.csv" ]]; then
    path="$dir/runs.csv"
elif [[ -f "$dir/runs.csv.gz" ]]; then
    path="$dir/runs.csv.gz"
else
    echo "runs-file: $dir holds no runs.csv.gz (or runs.csv)" >&2
    exit 1
fi
if [[ "$rows" -eq 1 ]]; then
    exec zcat -f -- "$path"
fi
printf '%s\n' "$path"
