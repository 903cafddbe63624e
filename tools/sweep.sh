#!/usr/bin/env bash
# Times one stage over the values of one of its options, e.g. the block size of stage 03:
#
#   tools/sweep.sh --stage 03-block-size --option --block --values 8x8,16x16,32x8,32x32,64x4
#
# The values are interleaved (run 1 of every value, then run 2, ...) so that drift of the machine
# spreads over all of them, one process per run, one run at a time on one GPU; each run is
# tools/run-one.sh, as in a campaign (the stage's campaign.args included, so the numbers compare
# with the campaign's). The rows go to OUT/<gpu-slug>/sweeps/<stage>--<option>.csv (runs.csv's
# columns and `variant`, the value), which is replaced. With --ncu, Nsight Compute profiles each
# value once on scenes/quick.scene and its achieved occupancy becomes rows with metric
# achieved_occupancy (percent, run 0). python3 tools/update_readmes.py then fills the blocks
# <!-- sweep:OPTION:begin --> ... <!-- sweep:OPTION:end --> of the stage's README.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: tools/sweep.sh --stage NAME --option --OPT --values V1,V2,... [options]
Times stage NAME with --OPT V for each value V, interleaved, one process per run on one GPU, and
writes OUT/<gpu-slug>/sweeps/NAME--OPT.csv (runs.csv's columns plus `variant`).
options:
  --runs N        runs per value (default 20)
  --scene FILE    timed scene (default scenes/benchmark.scene)
  --out DIR       results folder (default results)
  --ncu           also profile each value once with Nsight Compute (ncu on PATH, or $RUN_NCU) on
                  scenes/quick.scene and record its achieved occupancy
  --bin-dir DIR   where the stage executables are (default build; env RUN_BIN_DIR)
  --gpu INDEX     the GPU to use (default: the first nvidia-smi lists)
  --timeout SEC   per-run time limit (default 120)
  --help          this text
environment: RUN_NVIDIA_SMI (nvidia-smi command), RUN_NCU (ncu command).
USAGE
}
die() { echo "sweep: error: $*" >&2; exit 2; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
stage='' option='' values_spec='' runs=20 scene='scenes/benchmark.scene' out='results' ncu=0
bin_dir="${RUN_BIN_DIR:-build}" gpu='' timeout_s=120
while [[ $# -gt 0 ]]; do
    opt="$1"
    case "$opt" in
        --help|-h) usage; exit 0 ;;
        --ncu) ncu=1; shift; continue ;;
        --stage|--option|--values|--runs|--scene|--out|--bin-dir|--gpu|--timeout) ;;
        *) die "unknown option '$opt' (see tools/sweep.sh --help)" ;;
    esac
    [[ $# -ge 2 && -n "$2" ]] || die "$opt needs a value"
    val="$2"; shift 2
    case "$opt" in
        --stage) [[ "$val" =~ ^[0-9][0-9][a-z]?-[A-Za-z0-9._-]+$ ]] || die "--stage '$val' is not a stage name like 03-block-size"; stage="$val" ;;
        --option) [[ "$val" =~ ^--[a-z][a-z0-9-]*$ ]] || die "--option '$val' is not an option like --block"; option="$val" ;;
        # Values become a CSV column and file names: no commas, spaces or quotes.
        --values) [[ "$val" =~ ^[A-Za-z0-9._:+-]+(,[A-Za-z0-9._:+-]+)*$ ]] || die "--values '$val' is not a comma-separated list of values like 8x8,16x16"; values_spec="$val" ;;
        --runs) [[ "$val" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive number, got '$val'"; runs="$val" ;;
        --scene) [[ -r "$val" ]] || die "--scene '$val': cannot read it"; scene="$val" ;;
        --out) out="$val" ;;
        --bin-dir) bin_dir="$val" ;;
        --gpu) [[ "$val" =~ ^[0-9]+$ ]] || die "--gpu needs a GPU index, got '$val'"; gpu="$val" ;;
        --timeout) [[ "$val" =~ ^[1-9][0-9]*$ ]] || die "--timeout needs a positive number, got '$val'"; timeout_s="$val" ;;
    esac
done
[[ -n "$stage" ]] || die "--stage is required (e.g. --stage 03-block-size)"
[[ -n "$option" ]] || die "--option is required (e.g. --option --block)"
[[ -n "$values_spec" ]] || die "--values is required (e.g. --values 8x8,16x16)"
[[ "$bin_dir" == /* ]] || bin_dir="$repo/$bin_dir"
[[ -x "$bin_dir/$stage" && -f "$bin_dir/$stage" ]] || die "$bin_dir/$stage: no such stage executable (run make first)"
IFS=',' read -r -a values <<<"$values_spec"
[[ "$(printf '%s\n' "${values[@]}" | sort -u | wc -l)" -eq "${#values[@]}" ]] || die "--values '$values_spec' repeats a value"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${RUN_NVIDIA_SMI:-nvidia-smi}" --query-gpu=index,name,uuid --format=csv,noheader >"$tmp/all-gpus" 2>/dev/null || true
[[ -s "$tmp/all-gpus" ]] || die "no NVIDIA GPU found (nvidia-smi lists none)"
[[ -n "$gpu" ]] || gpu="$(head -n1 "$tmp/all-gpus" | cut -d, -f1)"
awk -F', *' -v i="$gpu" '$1 == i' "$tmp/all-gpus" >"$tmp/gpus"
[[ -s "$tmp/gpus" ]] || die "--gpu $gpu: nvidia-smi lists no such GPU"
gpu_name="$(awk -F', *' '{ print $2; exit }' "$tmp/gpus")"
gpu_uuid="$(awk -F', *' '{ print $3; exit }' "$tmp/gpus")"
slug="$("$repo/tools/slug.sh" "$gpu_name")"

mkdir -p "$out"
dir="$(cd "$out" && pwd)/$slug/sweeps"
mkdir -p "$dir"
csv="$dir/$stage--${option#--}.csv"
echo 'order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,variant' >"$csv"
host="${RUN_HOSTNAME:-$(hostname)}"
echo "sweep: $stage $option over ${#values[@]} values x $runs runs on GPU $gpu ($gpu_name) into $csv" >&2

# --- timed runs, interleaved -------------------------------------------------------------
export RUN_DIR="$dir" RUN_BIN_DIR="$bin_dir" RUN_SCENE="$scene" RUN_TIMEOUT="$timeout_s" \
    RUN_GPU_LIST="$gpu" RUN_GPU_INFO="$tmp/gpus" RUN_HOST="$host" RUN_CSV="$csv" \
    RUN_TOTAL="$((runs * ${#values[@]}))" RUN_START="$(date +%s)" RUN_LOG_PREFIX=sweep
rm -f "$dir/.progress"
failed=0 order=0
for ((run = 1; run <= runs; run++)); do
    for value in "${values[@]}"; do
        order=$((order + 1))
        RUN_STAGE_ARGS="$option $value" RUN_VARIANT="$value" \
            "$repo/tools/run-one.sh" 1 "$order" "$run" "$stage" || failed=$((failed + 1))
    done
done
rm -f "$dir/.progress" "$dir/.lock"

# --- achieved occupancy (Nsight Compute) -------------------------------------------------
# `ncu --csv` prints the program's own output, ==PROF== lines, then a CSV table whose header
# names "Kernel Name", "Metric Name" and "Metric Value" (column order and extra columns vary by
# version; values may carry thousands separators). Only the stage's render_kernel is profiled
# (--kernel-name), and only its rows are read: the process also launches common/ray_count.cu's
# kernel, whose occupancy would otherwise be averaged in. The mean over the launches is kept, and
# ncu's whole output is kept beside the CSV (<stage>--<option>.ncu-<value>.txt).
ncu_mean_metric() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
start = next((i for i, l in enumerate(lines) if '"Metric Name"' in l and '"Metric Value"' in l), None)
if start is None:
    sys.exit(1)
values = []
for row in csv.DictReader(lines[start:]):
    if (row.get("Metric Name") or "").strip() != sys.argv[2]:
        continue
    if not (row.get("Kernel Name") or "render_kernel").strip().startswith("render_kernel"):
        continue
    try:
        values.append(float((row.get("Metric Value") or "").replace(",", "")))
    except ValueError:
        pass
if not values:
    sys.exit(1)
print(f"{sum(values) / len(values):.2f}")
PY
}

if [[ "$ncu" -eq 1 ]]; then
    ncu_cmd="${RUN_NCU:-$(command -v ncu || true)}"
    if [[ -z "$ncu_cmd" ]]; then
        echo "sweep: ncu not found (put Nsight Compute's ncu on PATH or set RUN_NCU): achieved occupancy not measured" >&2
    else
        metrics='sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__maximum_warps_per_active_cycle_pct'
        for value in "${values[@]}"; do
            log="$tmp/ncu-$value.txt"
            if CUDA_VISIBLE_DEVICES="$gpu" timeout -k 5 "$((timeout_s * 10))" "$ncu_cmd" --kernel-name render_kernel \
                    --metrics "$metrics" --csv \
                    "$bin_dir/$stage" --scene scenes/quick.scene "$option" "$value" >"$log" 2>&1 \
                && achieved="$(ncu_mean_metric "$log" sm__warps_active.avg.pct_of_peak_sustained_active)"; then
                printf '0,0,%s,%s,%s,%s,,,,,,achieved_occupancy,%s,percent,ok,%s\n' \
                    "$stage" "$host" "$gpu_name" "$gpu_uuid" "$achieved" "$value" >>"$csv"
                echo "sweep: ncu: $option $value: achieved occupancy $achieved%" >&2
                cp "$log" "${csv%.csv}.ncu-$value.txt"
            else
                echo "sweep: ncu: $option $value: no achieved occupancy ($(grep -m1 -iE 'error|==ERR' "$log" || tail -n1 "$log"))" >&2
            fi
        done
    fi
fi

if [[ "$failed" -gt 0 ]]; then
    echo "sweep: $failed run(s) failed (logs in $dir/logs/); rows in $csv" >&2
    exit 1
fi
echo "sweep: results in $csv; python3 tools/update_readmes.py fills <!-- sweep:${option#--}:begin --> blocks" >&2
