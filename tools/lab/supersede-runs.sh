#!/usr/bin/env bash
# Before a campaign re-times stages whose code or campaign changed, moves their earlier runs out of
# a GPU folder's runs.csv.gz (or the live runs.csv of a campaign cut off: tools/runner/runs-file.sh; the
# runs.csv.gz beside it loses the same stages' rows, so that runs.csv still continues it, as
# tools/runner/open-runs.sh requires) into its superseded-runs.csv.gz, so that every figure comes from one campaign and the replaced runs
# stay on record (docs/maintainers.md). The runs left are written back in the form they were read
# (runs.csv.gz: gzip -9 -n, as tools/runner/close-runs.sh writes it). The archive is gzip too
# (`zcat superseded-runs.csv.gz` reads it): nothing reads it but people, and the repository's runs
# are most of its size. Each call appends one gzip member; the first writes the header. The
# stages' rows of DIR/provenance.tsv (tools/runner/provenance.sh) move likewise, to
# DIR/superseded-provenance.tsv, so that the provenance left is that of the runs left.
#
# Usage: tools/lab/supersede-runs.sh DIR SPEC
#   DIR   a GPU folder of a campaign (results/reference/nvidia-h100-80gb-hbm3)
#   SPEC  the stages, as ./run.sh --stages takes them (13-21, 7a, p8-9)
# Then: ./run.sh --reference --resume --stages SPEC (the runs of SPEC start again from 1).
# Exit status: 0 moved (a line says how many runs of which stages); 2 a bad argument, one line.
. "$(dirname "${BASH_SOURCE[0]}")/../runner/header-help.sh" "$@"
set -euo pipefail

die() { echo "supersede-runs: $*" >&2; exit 2; }
[[ $# -eq 2 ]] || die "usage: tools/lab/supersede-runs.sh DIR SPEC (e.g. results/reference/nvidia-h200 13-21)"
dir="$1"
spec="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
archive="$dir/superseded-runs.csv.gz"
runs="$("$root/tools/runner/runs-file.sh" "$dir" 2>/dev/null)" || die "no campaign in $dir: $dir/runs.csv.gz is missing"
[[ -w "$dir" && -w "$runs" ]] || die "cannot write $dir"
stages="$("$root/tools/stages" select "$spec" 2>&1)" || die "${stages#*: }"

# The runs, unpacked beside them (runs.csv.gz), or a copy (runs.csv).
plain="$dir/.superseding-runs.$$" moving="$dir/.superseding.$$" keeping="$dir/.superseding-kept.$$"
trap 'rm -f "$plain" "$moving" "$keeping" "$runs.new.$$" "$archive.new.$$" "$dir/runs.csv.gz.new.$$" "$dir/provenance.tsv.new.$$"' EXIT
zcat -f -- "$runs" >"$plain" 2>/dev/null || die "$runs cannot be read (zcat failed)"
header="$(head -n 1 "$plain")"
[[ "$header" == order,run,stage,* ]] || die "$runs is not a campaign's runs (header: ${header:0:40})"
if [[ -f "$archive" ]]; then
    # head closes the pipe after one line; zcat, killed by SIGPIPE on an archive larger than the
    # pipe's buffer, must not fail the script (pipefail).
    archived_header="$( (zcat "$archive" || [[ $? -eq 141 ]]) | head -n 1)" ||
        die "$archive cannot be read (zcat failed)"
    # The first 15 columns are every campaign's; the 16th (image) came later.
    [[ "${archived_header%,image}" == "${header%,image}" ]] || die "$archive has another header: $archived_header"
fi

pattern="^($(paste -sd'|' <<<"$stages"))\$"
awk -F',' -v p="$pattern" -v moving="$moving" 'NR == 1 { print; next } $3 ~ p { print > moving; next } { print }' \
    "$plain" >"$keeping"
count=0
[[ -f "$moving" ]] && count="$(awk -F',' '$12 == "total"' "$moving" | wc -l)"
if [[ -s "$moving" ]]; then
    { [[ -f "$archive" ]] || echo "$header"; cat "$moving"; } | gzip -9 -n >"$archive.new.$$"
    if [[ "$runs" == *.gz ]]; then
        gzip -9 -n -c "$keeping" >"$runs.new.$$"
    else
        mv "$keeping" "$runs.new.$$"
    fi
    # Beside a live runs.csv, its older packed form loses the same rows (they are archived from
    # runs.csv, which holds them all).
    packed_beside=""
    if [[ "$runs" != *.gz && -f "$dir/runs.csv.gz" ]]; then
        packed_beside="$dir/runs.csv.gz.new.$$"
        zcat -- "$dir/runs.csv.gz" | awk -F',' -v p="$pattern" 'NR == 1 || $3 !~ p' | gzip -9 -n >"$packed_beside" ||
            die "$dir/runs.csv.gz cannot be read (zcat failed)"
    fi
    cat "$archive.new.$$" >>"$archive"
    mv "$runs.new.$$" "$runs"
    [[ -z "$packed_beside" ]] || mv "$packed_beside" "$dir/runs.csv.gz"
fi
# Their provenance rows (tools/runner/provenance.sh) go with them, to superseded-provenance.tsv: the
# campaign that times them again adds rows of its own.
provenance="$dir/provenance.tsv"
if [[ -f "$provenance" ]] && awk -F'\t' -v p="$pattern" 'NR > 1 && $1 ~ p { found = 1 } END { exit !found }' "$provenance"; then
    [[ -s "$dir/superseded-provenance.tsv" ]] || head -n 1 "$provenance" >"$dir/superseded-provenance.tsv"
    awk -F'\t' -v p="$pattern" 'NR > 1 && $1 ~ p' "$provenance" >>"$dir/superseded-provenance.tsv"
    awk -F'\t' -v p="$pattern" 'NR == 1 || $1 !~ p' "$provenance" >"$provenance.new.$$" && mv "$provenance.new.$$" "$provenance"
fi
echo "supersede-runs: moved $count runs of $(wc -l <<<"$stages") stage(s) ($spec) from $runs to $archive"
