#!/usr/bin/env bash
# Closes a campaign's runs when run.sh or tools/scaling.sh ends, finished or interrupted:
# DIR/runs.csv, the live file tools/runner/run-one.sh appended the runs to, becomes DIR/runs.csv.gz, the
# form the repository keeps (about 20x smaller: the working tree must travel to a GPU machine under
# 64 MiB), and runs.csv is removed. gzip -9 -n stores no name or time, so the same rows give the
# same bytes. tools/runner/open-runs.sh unpacks it again for --resume; every reader takes either form,
# runs.csv first (tools/runner/runs-file.sh for the shell, tools/runner/runs_file.py for Python).
# failed-runs.csv (a few rows), joblog.txt and env.txt stay plain text.
# Usage: tools/runner/close-runs.sh DIR
# Exit status: 0 closed, or nothing to close (no DIR/runs.csv); 1 with one line on stderr when
# runs.csv.gz cannot be written (runs.csv is then left as it was); 2 a bad usage.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: tools/runner/close-runs.sh DIR" >&2; exit 2; }
dir="$1"
runs="$dir/runs.csv"
[[ -f "$runs" ]] || { rm -f "$dir/.lock"; exit 0; }
# Under the lock tools/runner/run-one.sh appends under: no run's rows land between the packing and the
# removal (a run that comes later finds no runs.csv and drops its rows, as it must).
exec 9>>"$dir/.lock"
flock 9
# On the disk before the rename (sync FILE), so that a crash cannot leave an empty runs.csv.gz
# and no runs.csv.
if ! gzip -9 -n -c "$runs" >"$runs.gz.tmp" 2>/dev/null || ! sync "$runs.gz.tmp" || ! mv "$runs.gz.tmp" "$runs.gz"; then
    rm -f "$runs.gz.tmp"
    echo "close-runs: cannot write $runs.gz: the runs stay in $runs" >&2
    exit 1
fi
rm "$runs"
rm -f "$dir/.lock"
