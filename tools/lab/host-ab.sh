#!/usr/bin/env bash
# Times two builds of the same stages against each other, interleaved: each round runs every
# stage once from each build (the order of the two alternating from round to round), on the
# stage's own default scene with its manifest's campaign-args and --csv. For a change that should
# move no phase (a new layout of the code), its A/B check on the GPU. Writes a gzipped CSV whose
# rows are "round,scene,stage,<the stage's --csv row>" with stage "NAME@base" or "NAME@now", which
# tools/lab/ab_summary.py reads (medians of every phase, a column per stage and build).
#
# usage: tools/lab/host-ab.sh --base-build DIR [--build DIR] [--stages SPEC] [--rounds N] --out FILE
#   --base-build DIR  the earlier build (e.g. tools/lab/sass-identity.sh's build-identity/base)
#   --build DIR       the build now (default build)
#   --stages SPEC     the stages (tools/stages select; default 13,16,21,26,31,p9,p12,p15)
#   --rounds N        rounds (default 20)
#   --out FILE        the CSV (.csv.gz)
# Needs a GPU. Exit status: 0; 1 when a run fails; 2 for a bad option.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
. tools/runner/header-help.sh
die() { echo "host-ab: $*" >&2; exit 2; }
base='' now=build spec='13,16,21,26,31,p9,p12,p15' rounds=20 out=''
while [[ $# -gt 0 ]]; do
    case "$1" in
        --base-build) base="${2:?--base-build takes a folder}"; shift 2 ;;
        --build) now="${2:?--build takes a folder}"; shift 2 ;;
        --stages) spec="${2:?--stages takes a list}"; shift 2 ;;
        --rounds) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive number"; rounds="$2"; shift 2 ;;
        --out) out="${2:?--out takes a file}"; shift 2 ;;
        -h|--help) header_help "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done
[[ -n "$base" && -n "$out" ]] || die "--base-build and --out are required (see --help)"
stages="$(tools/stages select "$spec" 2>&1)" || die "${stages#stages: }"
for s in $stages; do
    [[ -x "$base/$s" ]] || die "$base/$s is not built"
    [[ -x "$now/$s" ]] || die "$now/$s is not built"
done

rows="$(mktemp)"
trap 'rm -f "$rows"' EXIT
run() { # ROUND STAGE BUILD LABEL
    local scene args output
    args="$(tools/stages get "$2" campaign-args)"
    if [[ "$(tools/stages get "$2" track)" == pt ]]; then scene=scenes/pt-benchmark.scene; else scene=scenes/benchmark.scene; fi
    # campaign-args may name the scene itself (--scene FILE): the last --scene counts.
    # shellcheck disable=SC2086
    output="$("$3/$2" --scene "$scene" --csv $args)" || { echo "host-ab: $3/$2 failed" >&2; exit 1; }
    local header_done=0
    [[ ! -s "$rows" ]] || header_done=1
    awk -v round="$1" -v scene="$(basename "$scene" .scene)" -v stage="$2@$4" -v header_done="$header_done" '
        NR == 1 { if (!header_done) print "round,scene,stage," $0; next }
        { print round "," scene "," stage "," $0 }' <<<"$output" >>"$rows"
}
for ((r = 1; r <= rounds; r++)); do
    for s in $stages; do
        if ((r % 2)); then run "$r" "$s" "$base" base; run "$r" "$s" "$now" now
        else run "$r" "$s" "$now" now; run "$r" "$s" "$base" base; fi
    done
done
gzip -n -9 <"$rows" >"$out"
echo "host-ab: $rounds rounds of $(wc -w <<<"$stages") stages, two builds: $out"
