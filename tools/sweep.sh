#!/usr/bin/env bash
# Times one stage over the values of one of its options, e.g. the block size of stage 03 or the
# tiles of the path-tracing side stage p08a:
#
#   tools/sweep.sh --stage 03-block-size --option --block --values 8x8,16x16,32x8,32x32,64x4
#   tools/sweep.sh --stage p08a-image-tiles --option --tiles --values 1,2,4,8,16,32,64
#
# The values are interleaved (run 1 of every value, then run 2, ...) so that drift of the machine
# spreads over all of them, one process per run, one run at a time on one GPU; each run is
# tools/runner/run-one.sh, as in a campaign (its manifest's campaign-args included, so the numbers compare
# with the campaign's). The rows go to OUT/<gpu-slug>/sweeps/<stage>--<option>.csv (runs.csv's first 15
# columns and `variant`, the value), which is replaced, and where they come from to
# <stage>--<option>.provenance.tsv beside it (the source revision, the stage's source hash and its
# executable's sha256: tools/runner/provenance.sh): OUT is results/local (ignored by git) unless
# --reference refreshes the course's results/reference. A stage is timed on scenes/benchmark.scene
# (a path-tracing stage: scenes/pt-benchmark.scene), as in a campaign; a sweep on another scene
# (--scene FILE) goes to <stage>--<option>@<scene>.csv instead, <scene> being FILE's name without
# .scene, so that sweeps of one option on two scenes sit side by side:
#
#   tools/sweep.sh --stage p08a-image-tiles --option --tiles --values 1,4,16,64 \
#       --scene scenes/pt-production.scene        # sweeps/p08a-image-tiles--tiles@pt-production.csv
#
# With --ncu, Nsight Compute profiles
# each value once on scenes/quick.scene (a path-tracing stage: one frame of
# scenes/pt-quick.scene) and its achieved occupancy becomes rows with metric achieved_occupancy
# (percent, run 0).
# (Its output goes beside the CSV, as <stage>--<option>[@<scene>].ncu-<value>.txt.)
# With --reference, python3 tools/update_readmes.py then fills the blocks
# <!-- sweep:OPTION:begin --> ... <!-- sweep:OPTION:end --> of the stage's README (a sweep on
# another scene: <!-- sweep:OPTION@SCENE:begin --> ... <!-- sweep:OPTION@SCENE:end -->).
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: tools/sweep.sh --stage STAGE --option --OPT --values V1,V2,... [options]
Times STAGE (an id such as 3 or p8a, or a folder name) with --OPT V for each value V,
interleaved, one process per run on one GPU, and writes OUT/<gpu-slug>/sweeps/STAGE--OPT.csv
(the campaign's first 15 columns plus `variant`); on a scene other than the default,
OUT/<gpu-slug>/sweeps/STAGE--OPT@SCENE.csv (SCENE: the scene file's name without .scene); and
beside it STAGE--OPT[@SCENE].provenance.tsv (the revision, the stage's source and executable hashes).
options:
  --runs N        runs per value (default 20)
  --scene FILE    timed scene (default scenes/benchmark.scene; a path-tracing stage, pNN-name:
                  scenes/pt-benchmark.scene); another scene names the CSV STAGE--OPT@SCENE.csv,
                  e.g. --scene scenes/pt-production.scene: STAGE--OPT@pt-production.csv
  --out DIR       results folder (default results/local, ignored by git)
  --reference     write into the course's results/reference instead (maintainers)
  --ncu           also profile each value once with Nsight Compute (ncu on PATH, or $RUN_NCU) on
                  scenes/quick.scene (a path-tracing stage: scenes/pt-quick.scene, one frame)
                  and record its achieved occupancy
  --kernel NAME   the kernel --ncu measures (default: its manifest's profile-kernel,
                  render_kernel where it names none; a path-tracing stage whose program defines
                  no such kernel: the one __global__ function its render.cu defines)
  --bin-dir DIR   where the stage executables are (default build; env RUN_BIN_DIR)
  --gpu INDEX     the GPU to use (default: the first nvidia-smi lists)
  --timeout SEC   per-run time limit (default 120)
  --help          this text
environment: RUN_NVIDIA_SMI (nvidia-smi command), RUN_NCU (ncu command), STAGES_DIR (the
stage folders, for their manifests and --kernel's default; default stages/).
USAGE
}
die() { echo "sweep: error: $*" >&2; exit 2; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export STAGES_DIR="${STAGES_DIR:-$repo/stages}"
stage='' option='' values_spec='' runs=20 scene='' out='' ncu=0 kernel='' reference=0
bin_dir="${RUN_BIN_DIR:-build}" gpu='' timeout_s=120
while [[ $# -gt 0 ]]; do
    opt="$1"
    case "$opt" in
        --help|-h) usage; exit 0 ;;
        --ncu) ncu=1; shift; continue ;;
        --reference) reference=1; shift; continue ;;
        --stage|--option|--values|--runs|--scene|--out|--bin-dir|--gpu|--timeout|--kernel) ;;
        *) die "unknown option '$opt' (see tools/sweep.sh --help)" ;;
    esac
    [[ $# -ge 2 && -n "$2" ]] || die "$opt needs a value"
    val="$2"; shift 2
    case "$opt" in
        --stage) resolved="$(STAGES_PROGRAM=sweep "$repo/tools/stages" resolve "$val" 2>&1)" \
                     || die "--stage: ${resolved#sweep: }"; stage="$resolved" ;;
        --option) [[ "$val" =~ ^--[a-z][a-z0-9-]*$ ]] || die "--option '$val' is not an option like --block"; option="$val" ;;
        # Values become a CSV column and file names: no commas, spaces or quotes.
        --values) [[ "$val" =~ ^[A-Za-z0-9._:+-]+(,[A-Za-z0-9._:+-]+)*$ ]] || die "--values '$val' is not a comma-separated list of values like 8x8,16x16"; values_spec="$val" ;;
        # At most 6 digits (as run.sh): a longer number overflows the shell's arithmetic
        # (18446744073709551617 runs would be 1).
        --runs) [[ "$val" =~ ^[1-9][0-9]{0,5}$ ]] || die "--runs needs a positive number of at most 6 digits, got '$val'"; runs="$val" ;;
        --scene) [[ -r "$val" ]] || die "--scene '$val': cannot read it"; scene="$val" ;;
        --out) out="$val" ;;
        --bin-dir) bin_dir="$val" ;;
        --gpu) [[ "$val" =~ ^[0-9]+$ ]] || die "--gpu needs a GPU index, got '$val'"; gpu="$val" ;;
        --timeout) [[ "$val" =~ ^[1-9][0-9]{0,5}$ ]] || die "--timeout needs a positive number of at most 6 digits, got '$val'"; timeout_s="$val" ;;
        --kernel) [[ "$val" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "--kernel '$val' is not a kernel name like render_kernel"; kernel="$val" ;;
    esac
done
[[ -n "$stage" ]] || die "--stage is required (e.g. --stage 03-block-size)"
if [[ "$reference" -eq 1 ]]; then
    [[ -z "$out" ]] || die "--reference writes results/reference: give --out or --reference, not both"
    out="$repo/results/reference"
fi
out="${out:-$repo/results/local}"
[[ -n "$option" ]] || die "--option is required (e.g. --option --block)"
[[ -n "$values_spec" ]] || die "--values is required (e.g. --values 8x8,16x16)"
[[ "$bin_dir" == /* ]] || bin_dir="$repo/$bin_dir"
[[ -x "$bin_dir/$stage" && -f "$bin_dir/$stage" ]] || die "$bin_dir/$stage: no such stage executable (run make first)"
IFS=',' read -r -a values <<<"$values_spec"
[[ "$(printf '%s\n' "${values[@]}" | sort -u | wc -l)" -eq "${#values[@]}" ]] || die "--values '$values_spec' repeats a value"

# --ncu's kernel, unless --kernel names one: the manifest's profile-kernel (tools/profile.sh's),
# render_kernel where it names none. The path-tracing track (pNN-name) reads scenes of its own
# format and has no render_kernel: where its program does not define the manifest's kernel, its
# default is the one kernel its program defines (render.cu and the parts it includes,
# tools/stage-show.sh; a __global__ function's name is
# the identifier before the first "(" after __global__, past an optional __launch_bounds__(...)).
# It is profiled on one frame (--samples 1): ncu profiles every launch of the kernel, and a
# stage that launches per tile and frame (p08a) makes thousands.
profile_args=()
if [[ "$("$repo/tools/stages" get "$stage" track)" == pt ]]; then
    default_scene='scenes/pt-benchmark.scene'
    profile_scene='scenes/pt-quick.scene'
    profile_args=(--samples 1)
    if [[ "$ncu" -eq 1 && -z "$kernel" ]]; then
        source_file="$STAGES_DIR/$stage/render.cu"
        program="$("$repo/tools/stage-show.sh" --stages "$STAGES_DIR" "$stage" 2>/dev/null)" \
            || die "--ncu: cannot read $source_file and its parts to find the stage's kernel; name it with --kernel"
        kernels="$(tr '\n' ' ' <<<"$program" \
            | grep -oE '__global__ +void +(__launch_bounds__ *\([^)]*\) *)?[A-Za-z_][A-Za-z0-9_]* *\(' \
            | sed -E 's/^.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) *\($/\1/' | sort -u || true)"
        manifest_kernel="$("$repo/tools/stages" get "$stage" profile-kernel)" || exit 2
        if grep -qxF "$manifest_kernel" <<<"$kernels"; then
            kernel="$manifest_kernel"
        else
            [[ -n "$kernels" && "$(wc -l <<<"$kernels")" -eq 1 ]] \
                || die "--ncu: $source_file defines $(wc -w <<<"$kernels") kernels${kernels:+ ($(paste -sd' ' - <<<"$kernels"))}; name the one to profile with --kernel (or in its manifest's profile-kernel)"
            kernel="$kernels"
        fi
    fi
else
    default_scene='scenes/benchmark.scene'
    profile_scene='scenes/quick.scene'
fi
[[ -n "$kernel" ]] || kernel="$("$repo/tools/stages" get "$stage" profile-kernel)" || exit 2

# A sweep on a scene other than the stage's default is kept apart from the default's: its file
# names end in @SCENE (the scene file's name without .scene), which the README block
# <!-- sweep:OPTION@SCENE:begin --> reads. The default scene, however it is written
# (./scenes/..., an absolute path), keeps the plain name.
scene_suffix=''
if [[ -z "$scene" ]]; then
    scene="$default_scene"
elif [[ "$scene" != "$default_scene" && ! "$scene" -ef "$default_scene" ]]; then
    scene_name="$(basename "$scene")"
    scene_name="${scene_name%.scene}"
    [[ "$scene_name" =~ ^[A-Za-z0-9][A-Za-z0-9_-]*$ ]] \
        || die "--scene '$scene': its name '$scene_name' becomes part of the CSV's name: use letters, digits, - and _ only"
    [[ "$scene_name" != "$(basename "$default_scene" .scene)" ]] \
        || die "--scene '$scene' is not $default_scene but has its name: its sweep would read as the default's; rename it"
    # A manifest whose campaign-args name a scene (p08b: scenes/pt-many-lights.scene) times the
    # stage on that one, whatever --scene says: the file would be named after a scene not timed.
    [[ " $("$repo/tools/stages" get "$stage" campaign-args) " != *' --scene '* ]] \
        || die "--scene '$scene': $stage's manifest's campaign-args name the scene it is timed on, which --scene cannot change"
    scene_suffix="@$scene_name"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${RUN_NVIDIA_SMI:-nvidia-smi}" --query-gpu=index,name,uuid --format=csv,noheader >"$tmp/all-gpus" 2>/dev/null || true
[[ -s "$tmp/all-gpus" ]] || die "no NVIDIA GPU found (nvidia-smi lists none)"
[[ -n "$gpu" ]] || gpu="$(head -n1 "$tmp/all-gpus" | cut -d, -f1)"
awk -F', *' -v i="$gpu" '$1 == i' "$tmp/all-gpus" >"$tmp/gpus"
[[ -s "$tmp/gpus" ]] || die "--gpu $gpu: nvidia-smi lists no such GPU"
gpu_name="$(awk -F', *' '{ print $2; exit }' "$tmp/gpus")"
gpu_uuid="$(awk -F', *' '{ print $3; exit }' "$tmp/gpus")"
slug="$("$repo/tools/runner/slug.sh" "$gpu_name")"

mkdir -p "$out"
dir="$(cd "$out" && pwd)/$slug/sweeps"
mkdir -p "$dir"
csv="$dir/$stage--${option#--}$scene_suffix.csv"
echo 'order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,variant' >"$csv"
# Which source and which executable the sweep times, replaced with its CSV: the stage's source hash,
# the executable's sha256 and the revision (tools/runner/provenance.sh).
"$repo/tools/runner/provenance.sh" write "${csv%.csv}.provenance.tsv" "$bin_dir" "$stage" ||
    echo "sweep: the provenance of the sweep could not be written to ${csv%.csv}.provenance.tsv" >&2
host="${RUN_HOSTNAME:-$(hostname)}"
echo "sweep: $stage $option over ${#values[@]} values x $runs runs on $scene, GPU $gpu ($gpu_name), into $csv" >&2

# --- timed runs, interleaved -------------------------------------------------------------
# A sweep's rows carry its value as their last column, never an image configuration of run.sh.
unset RUN_IMAGE
export RUN_DIR="$dir" RUN_BIN_DIR="$bin_dir" RUN_SCENE="$scene" RUN_PT_SCENE="$scene" RUN_TIMEOUT="$timeout_s" \
    RUN_GPU_LIST="$gpu" RUN_GPU_INFO="$tmp/gpus" RUN_HOST="$host" RUN_CSV="$csv" \
    RUN_TOTAL="$((runs * ${#values[@]}))" RUN_START="$(date +%s)" RUN_LOG_PREFIX=sweep
rm -f "$dir/.progress"
failed=0 order=0
for ((run = 1; run <= runs; run++)); do
    for value in "${values[@]}"; do
        order=$((order + 1))
        RUN_STAGE_ARGS="$option $value" RUN_VARIANT="$value" \
            "$repo/tools/runner/run-one.sh" 1 "$order" "$run" "$stage" || failed=$((failed + 1))
    done
done
rm -f "$dir/.progress" "$dir/.lock"

# --- achieved occupancy (Nsight Compute) -------------------------------------------------
# `ncu --csv` prints the program's own output, ==PROF== lines, then a CSV table whose header
# names "Kernel Name", "Metric Name" and "Metric Value" (column order and extra columns vary by
# version; values may carry thousands separators). Only the stage's kernel ($kernel: render_kernel,
# or a path-tracing stage's own) is profiled (--kernel-name), and only its rows are read: the
# process also launches the ray-counting kernel of common/ray_count.cu (common/pathtrace/pt_count.cu),
# whose occupancy would otherwise be averaged in. The mean over the launches is kept, and
# ncu's whole output is kept beside the CSV (<stage>--<option>[@<scene>].ncu-<value>.txt; the
# profile itself is always of the small scene above).
ncu_mean_metric() {
    python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
start = next((i for i, l in enumerate(lines) if '"Metric Name"' in l and '"Metric Value"' in l), None)
if start is None:
    sys.exit(1)
values = []
for row in csv.DictReader(lines[start:]):
    if (row.get("Metric Name") or "").strip() != sys.argv[2]:
        continue
    name = (row.get("Kernel Name") or sys.argv[3]).strip()
    if name != sys.argv[3] and not name.startswith(sys.argv[3] + "("):
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
            if CUDA_VISIBLE_DEVICES="$gpu" timeout -k 5 "$((timeout_s * 10))" "$ncu_cmd" --kernel-name "$kernel" \
                    --metrics "$metrics" --csv \
                    "$bin_dir/$stage" --scene "$profile_scene" ${profile_args[@]+"${profile_args[@]}"} \
                    "$option" "$value" >"$log" 2>&1 \
                && achieved="$(ncu_mean_metric "$log" sm__warps_active.avg.pct_of_peak_sustained_active "$kernel")"; then
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
if [[ "$reference" -eq 1 ]]; then
    echo "sweep: results in $csv; python3 tools/update_readmes.py fills <!-- sweep:${option#--}$scene_suffix:begin --> blocks" >&2
else
    echo "sweep: results in $csv" >&2
fi
