#!/usr/bin/env bash
# What writing the image costs: stages 21 and 21a (or --stages) timed with and without
# --output, interleaved, one process per run, each run's wall time measured around the process
# (date +%s%N); then a table of medians: image_write, image_encode_left (21a), total, kernel
# (phase and CUDA events), device_to_host, the PNG's size and the process's wall time, with the
# wall time with the image over the wall time without it. Needs a GPU and the stages built
# (make build/21-persistent-rows build/21a-streamed-png).
#
# Usage: tools/lab/write-cost.sh [--runs N] [--stages 21,21a] [--scene FILE] [--output FILE]
#                            [--args 'WORDS'] [--csv FILE]
#   --runs N       runs of each stage in each mode (default 10)
#   --stages LIST  stage ids or folder names, comma-separated (default 21,21a)
#   --scene FILE   the scene (default scenes/benchmark.scene: 8192x8192)
#   --output FILE  the image written by the runs with one, .png or .ppm (default: a .png in a
#                  temporary folder, removed after each run, outside its timing)
#   --args WORDS   more words for every run, e.g. '--frames 20' (default none: one frame)
#   --csv FILE     keep every run's rows there: stage,mode,run,metric,value,unit
# The stages are taken from $RUN_BIN_DIR, else $BUILD, else build/. Exit status 0; 2 for a bad
# option or no GPU (the stage's own message); 1 when a run fails.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
runs=10 stages=21,21a scene=scenes/benchmark.scene output='' args='' keep=''
. "$(dirname "${BASH_SOURCE[0]}")/../runner/header-help.sh"
usage() { header_help "${BASH_SOURCE[0]}"; }
die() { echo "write-cost.sh: $1" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive number"; runs="$2"; shift 2 ;;
        --stages) [[ -n "${2:-}" ]] || die "--stages takes a list"; stages="$2"; shift 2 ;;
        --scene) [[ -f "${2:-}" ]] || die "--scene: no such file: ${2:-}"; scene="$2"; shift 2 ;;
        --output) [[ "${2:-}" =~ \.(png|ppm)$ ]] || die "--output must end in .png or .ppm"; output="$2"; shift 2 ;;
        --args) [[ $# -ge 2 ]] || die "--args takes words"; args="$2"; shift 2 ;;
        --csv) [[ -n "${2:-}" ]] || die "--csv takes a file"; keep="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done

bin_dir="${RUN_BIN_DIR:-${BUILD:-build}}"
names=()
IFS=',' read -r -a ids <<<"$stages"
for id in "${ids[@]}"; do
    name="$(tools/stages resolve "$id" 2>/dev/null)" || die "no stage $id"
    [[ -x "$bin_dir/$name" ]] || die "$bin_dir/$name is not built (make $bin_dir/$name)"
    names+=("$name")
done
read -r -a extra <<<"$args" || true

tmp="$(mktemp -d "${TMPDIR:-/tmp}/write-cost.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
[[ -n "$output" ]] || output="$tmp/frame.png"
rows="$tmp/rows.csv"
echo 'stage,mode,run,metric,value,unit' >"$rows"

# One run: the process timed whole; its CSV rows and its wall time appended to $rows.
one_run() {
    local name="$1" mode="$2" run="$3" status=0 start end
    local -a out_args=()
    [[ "$mode" == none ]] || out_args=(--output "$output")
    rm -f "$output"
    start="$(date +%s%N)"
    "$bin_dir/$name" --scene "$scene" --csv ${extra[@]+"${extra[@]}"} ${out_args[@]+"${out_args[@]}"} \
        >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    end="$(date +%s%N)"
    if [[ "$status" -ne 0 ]]; then
        cat "$tmp/err" >&2
        [[ "$status" -eq 2 ]] && exit 2
        echo "write-cost.sh: $name ($mode) run $run: exit status $status" >&2
        exit 1
    fi
    awk -F',' -v OFS=',' -v s="$name" -v m="$mode" -v r="$run" 'NR > 1 { print s, m, r, $9, $10, $11 }' \
        "$tmp/out" >>"$rows"
    echo "$name,$mode,$run,wall,$(( (end - start) / 1000 )),us" >>"$rows"
    if [[ "$mode" != none ]]; then
        echo "$name,$mode,$run,file_bytes,$(stat -c %s "$output"),bytes" >>"$rows"
    fi
    rm -f "$output"
}

ext="${output##*.}"
for ((run = 1; run <= runs; run++)); do
    for name in "${names[@]}"; do
        for mode in none "$ext"; do
            one_run "$name" "$mode" "$run"
        done
    done
    echo "write-cost.sh: round $run of $runs done" >&2
done
[[ -z "$keep" ]] || cp "$rows" "$keep"

# Medians per stage, mode and metric; the table, one line per stage and mode.
echo
echo "medians of $runs runs each, $scene${args:+ $args}, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "(ms; image_write: stage 21 from after the device free to the file closed, 21a from the"
echo " last band on the host to the file closed: stages/21a-streamed-png/README.md)"
tail -n +2 "$rows" | sort -t',' -k1,1 -k2,2 -k4,4 -k5,5g | awk -F',' '
    function flush() { if (n) median[key] = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; n = 0 }
    { k = $1 "," $2 "," $4; if (k != key) { flush(); key = k } v[++n] = $5 }
    END {
        flush()
        split("image_write image_encode_left total kernel kernel_events device_to_host file_bytes wall", cols, " ")
        split("11 11 9 8 8 8 8 9", width, " ")
        printf "%-22s %-5s %11s %11s %9s %8s %8s %8s %8s %9s %9s\n", "stage", "image", "image_write",
               "encode_left", "total", "kernel", "k_events", "dtoh", "file MB", "wall", "wall/none"
        for (k in median) { split(k, part, ","); seen[part[1] "," part[2]] = 1 }
        count = 0
        for (sm in seen) order[++count] = sm
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++)
            if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
        for (i = 1; i <= count; i++) {
            split(order[i], part, ",")
            line = sprintf("%-22s %-5s", part[1], part[2])
            for (c = 1; c <= 8; c++) {
                m = order[i] "," cols[c]
                if (m in median)
                    line = line sprintf(" %" width[c] ".2f", cols[c] == "file_bytes" ? median[m] / 1e6 : median[m] / 1000)
                else
                    line = line sprintf(" %" width[c] "s", "-")
            }
            base = part[1] ",none,wall"
            ratio = "-"
            if (part[2] != "none" && (base in median) && median[base] > 0)
                ratio = sprintf("%.3f", median[order[i] ",wall"] / median[base])
            print line sprintf(" %9s", ratio)
        }
    }'
