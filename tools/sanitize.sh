#!/usr/bin/env bash
# Runs every stage under compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on
# scenes/quick.scene and scenes/odd-size.scene (1021x767: partial blocks at the right and bottom
# edges; the path-tracing stages on scenes/pt-quick.scene), and writes a readable report to
# RESULTS/<gpu-slug>/sanitizer.txt ending in a summary table (stage x tool x scene: clean, N
# errors, or how the run failed). Its header names the source revision (git describe), and
# RESULTS/<gpu-slug>/sanitizer.provenance.tsv, replaced with it, each stage's source hash and the
# sha256 of the executable checked (tools/runner/provenance.sh).
#
#   tools/sanitize.sh                 (or: make sanitize)
#   SANITIZE_JOBS=8 tools/sanitize.sh (eight runs at once: the same report, sooner)
#
# The course's record, on the H100 (tests/test_sanitizer_record.c fails unless it names every stage
# folder with each of the four tools on each of its scenes, every run clean):
#
#   RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 tools/sanitize.sh
#
# Exit status: 0 when every run is clean or when there is no GPU here (it says it was skipped),
# 1 when any run reports an error or fails, 2 when it cannot run (no compute-sanitizer, no stages,
# a SANITIZE_JOBS that is not a number from 1 to 256).
#
# Environment (all optional):
#   BUILD                 folder of the stage executables (default build; use a plain build, not
#                         build-sanitize: AddressSanitizer and compute-sanitizer do not mix)
#   RESULTS               results folder (default results/local, ignored by git; the course's
#                         record is results/reference)
#   SANITIZE_STAGES       stage names to run (default: every stage, tools/stages list)
#   SANITIZE_TOOLS        default "memcheck racecheck initcheck synccheck"
#   SANITIZE_SCENES       default "scenes/quick.scene scenes/odd-size.scene"
#   SANITIZE_PT_SCENES    the path-tracing stages' scenes (default "scenes/pt-quick.scene")
#   SANITIZE_TIMEOUT      seconds per run (default 900)
#   SANITIZE_JOBS         runs at once on the GPU (default 1): each is a process of its own with
#                         its own CUDA context, and much of its time is compute-sanitizer's work on
#                         the host (instrumenting, analysing), so a GPU with memory to spare takes
#                         several. The report is the same, in the same order (stage, tool, scene),
#                         whatever the number; each run's seconds are its own wall time, longer
#                         when runs share the GPU and the cores.
#   COMPUTE_SANITIZER     the compute-sanitizer command (default: on PATH, else CUDA's bin/)
#   NVIDIA_SMI            the nvidia-smi command (default nvidia-smi)
#
# The GPU is device 0 (the first nvidia-smi lists); the slug is its name in lower case with runs
# of other characters turned into '-' (as run.sh names RESULTS/<gpu-slug>/).
#
# What each tool checks, and why the options:
#   memcheck   out-of-bounds and misaligned accesses of global, local and shared memory, and
#              (--leak-check full) device memory never freed by cudaFree.
#   racecheck  shared-memory hazards between threads of a block (stage 07 stages its spheres
#              in shared memory; a missing __syncthreads() shows here).
#   initcheck  reads of device global memory never written. It tracks device memory only: a
#              stage that uploads uninitialised *host* memory (stages 04/05 allocate the frame
#              buffer without initialising it) is not flagged, and need not be.
#   synccheck  __syncthreads() in divergent code and other invalid barrier use.
. "$(dirname "${BASH_SOURCE[0]}")/runner/header-help.sh" "$@"
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo" || exit 2

build="${BUILD:-build}"
results="${RESULTS:-results/local}"
tools="${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}"
scenes="${SANITIZE_SCENES:-scenes/quick.scene scenes/odd-size.scene}"
pt_scenes="${SANITIZE_PT_SCENES:-scenes/pt-quick.scene}"
# The scenes of a stage: the path-tracing track's read their own scene format.
scenes_of() { if [[ "$("$repo/tools/stages" get "$1" track)" == pt ]]; then echo "$pt_scenes"; else echo "$scenes"; fi; }
timeout_s="${SANITIZE_TIMEOUT:-900}"
jobs="${SANITIZE_JOBS:-1}"
nvidia_smi="${NVIDIA_SMI:-nvidia-smi}"

say() { printf 'sanitize: %s\n' "$*"; }
die() { printf 'sanitize: error: %s\n' "$*" >&2; exit 2; }

# At most 256 at once: each job slot takes ten ports of its own above 49152 (see run_one).
[[ "$jobs" =~ ^[1-9][0-9]{0,2}$ && "$jobs" -le 256 ]] || die "SANITIZE_JOBS=$jobs: give a number of runs at once, 1 to 256"

# --- a GPU, or a clean skip ------------------------------------------------------------------
gpu_name="$("$nvidia_smi" --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^ *//; s/ *$//')"
if [[ -z "$gpu_name" ]]; then
    say "skipped: no NVIDIA GPU here (nvidia-smi lists none); compute-sanitizer needs one"
    exit 0
fi
slug="$("$repo/tools/runner/slug.sh" "$gpu_name")"

sanitizer="${COMPUTE_SANITIZER:-}"
if [[ -z "$sanitizer" ]]; then
    if command -v compute-sanitizer >/dev/null 2>&1; then
        sanitizer=compute-sanitizer
    else
        nvcc_path="$(command -v "${NVCC:-nvcc}" 2>/dev/null || true)"
        for candidate in ${nvcc_path:+"$(dirname "$(readlink -f "$nvcc_path")")/compute-sanitizer"} \
                         /usr/local/cuda/bin/compute-sanitizer; do
            [[ -x "$candidate" ]] && { sanitizer="$candidate"; break; }
        done
    fi
fi
[[ -n "$sanitizer" ]] || die "compute-sanitizer not found (it comes with the CUDA Toolkit, in its bin/; or set COMPUTE_SANITIZER)"

if [[ -n "${SANITIZE_STAGES:-}" ]]; then
    read -r -a stages <<<"$SANITIZE_STAGES"
else
    mapfile -t stages < <("$repo/tools/stages" list)
fi
# (A stage the build left out for want of what it links is passed over, in a line: NCCL.)
[[ ${#stages[@]} -eq 0 ]] || mapfile -t stages < <(STAGES_PROGRAM=sanitize "$repo/tools/stages" built-here "$build" "${stages[@]}")
[[ ${#stages[@]} -gt 0 && -n "${stages[0]}" ]] || die "no stage executables in $build/ (run make first)"
for stage in "${stages[@]}"; do [[ -x "$build/$stage" ]] || die "$build/$stage: not built"; done
for stage in "${stages[@]}"; do
    for scene in $(scenes_of "$stage"); do [[ -f "$scene" ]] || die "$scene: no such scene"; done
done

dir="$results/$slug"
mkdir -p "$dir" || die "cannot create $dir"
report="$dir/sanitizer.txt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/logs" "$work/sections" "$work/outcomes"

# Several runs at once: compute-sanitizer talks to the process it runs over local TCP ports, the
# first free one of --max-connections (10) from --port (49152); more than ten runs at once would
# find none free. So with SANITIZE_JOBS above 1 each job slot of xargs (0 to jobs - 1, GNU xargs'
# --process-slot-var) has ten ports of its own, and each run waits up to 120 s instead of 10 for
# its process to reach its first CUDA call while the other runs load the cores. One run at a time
# adds none of these options: its command is the one earlier reports ran.
first_port=49152
ports_per_slot=10
launch_timeout_s=120
slot_option=()
if [[ "$jobs" -gt 1 ]]; then
    xargs --process-slot-var=SANITIZE_SLOT true </dev/null >/dev/null 2>&1 ||
        die "SANITIZE_JOBS=$jobs needs GNU xargs (--process-slot-var, findutils 4.6 or newer); SANITIZE_JOBS=1 does not"
    slot_option=(--process-slot-var=SANITIZE_SLOT)
    parallel_words=" --port $first_port+$ports_per_slot*SLOT --max-connections $ports_per_slot --launch-timeout $launch_timeout_s"
fi

{
    echo "compute-sanitizer report: every stage x tool x scene"
    echo
    echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "revision:  $("$repo/tools/runner/provenance.sh" revision)"
    echo "gpu:       $gpu_name"
    echo "driver:    $("$nvidia_smi" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "sanitizer: $("$sanitizer" --version 2>/dev/null | grep -i -m 1 version || echo unknown)"
    echo "build:     $build/"
    echo "command:   $sanitizer --tool TOOL --error-exitcode 1 --print-limit 50 [--leak-check full for memcheck]${parallel_words:-} $build/STAGE --scene SCENE"
    echo "jobs:      $jobs at once (each run's seconds are its own wall time)"
    echo
} >"$report"

# Which source and which executables the report checks (tools/runner/provenance.sh).
"$repo/tools/runner/provenance.sh" write "$dir/sanitizer.provenance.tsv" "$build" "${stages[@]}" ||
    say "the provenance of the report could not be written to $dir/sanitizer.provenance.tsv"

# One run: prints its outcome ("clean", "N errors", "failed (exit S)", "timed out", or "skipped
# (N max)" for a stage that refuses the scene because it holds fewer spheres: stage 21 and its
# side stages hold at most 1,024; nothing of the stage ran, so nothing was checked).
run_one() {
    local stage="$1" tool="$2" scene="$3" log="$4"
    local extra=()
    [[ "$tool" == memcheck ]] && extra=(--leak-check full)
    [[ "$jobs" -gt 1 ]] && extra+=(--port "$((first_port + ${SANITIZE_SLOT:-0} * ports_per_slot))"
                                   --max-connections "$ports_per_slot" --launch-timeout "$launch_timeout_s")
    timeout -k 30 "$timeout_s" "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 50 \
        "${extra[@]}" "$build/$stage" --scene "$scene" >"$log" 2>&1
    local status=$?
    # memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors"; racecheck with
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    local errors
    errors="$(sed -n -E 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p; s/.*RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' "$log" | tail -n 1)"
    if [[ "$status" -eq 124 || "$status" -eq 137 ]]; then
        echo "timed out"
    elif [[ -n "$errors" && "$errors" -gt 0 ]]; then
        echo "$errors error$([[ "$errors" -eq 1 ]] || echo s)"
    elif [[ "$status" -ne 0 ]] && grep -q 'holds at most [0-9]' "$log"; then
        echo "skipped ($(grep -o -m1 'holds at most [0-9]*' "$log" | grep -o '[0-9]*$') max)"
    elif [[ "$status" -ne 0 ]]; then
        echo "failed (exit $status)"
    elif [[ -z "$errors" ]]; then
        echo "no summary"
    else
        echo "clean"
    fi
}

# Run number INDEX, as a job of xargs: its section of the report to $work/sections/INDEX, then its
# outcome to $work/outcomes/INDEX (last, so that an outcome means a whole section), and a progress
# line. The report is put together from these files in the plan's order once every run has ended.
run_section() {
    local index="$1" stage="$2" tool="$3" scene="$4"
    local log="$work/logs/$index" start=$SECONDS result seconds
    result="$(run_one "$stage" "$tool" "$scene" "$log")"
    seconds=$((SECONDS - start))
    {
        echo "=== $stage, $tool, $scene: $result ($seconds s)"
        if [[ "$result" == clean ]]; then
            grep -E 'SUMMARY' "$log"
        elif [[ "$result" == skipped* ]]; then
            grep -m1 'holds at most' "$log"
        else
            # The sanitizer's findings and the program's error lines (not its timing report).
            grep -E '^=+|error' "$log" | head -n 300
        fi
        echo
    } >"$work/sections/$index"
    echo "$result" >"$work/outcomes/$index.partial" && mv "$work/outcomes/$index.partial" "$work/outcomes/$index"
    printf 'sanitize: %-28s %-10s %-22s %s (%d s)\n' "$stage" "$tool" "$(basename "$scene")" "$result" "$seconds"
    return 0
}
export -f run_one run_section
export work sanitizer build timeout_s jobs first_port ports_per_slot launch_timeout_s

# The plan: every run in the report's order (stage, tool, scene), numbered, NUL-separated for xargs.
declare -A scenes_of_stage
for stage in "${stages[@]}"; do scenes_of_stage["$stage"]="$(scenes_of "$stage")"; done
total=0
for stage in "${stages[@]}"; do
    for tool in $tools; do
        for scene in ${scenes_of_stage["$stage"]}; do
            printf '%s\0' "$total" "$stage" "$tool" "$scene"
            total=$((total + 1))
        done
    done
done >"$work/plan"

say "$gpu_name: ${#stages[@]} stages x $(wc -w <<<"$tools") tools x their scenes, $total runs, $jobs at once; report: $report"
xargs -0 -n 4 -P "$jobs" "${slot_option[@]}" bash -c 'set -uo pipefail; run_section "$@"' run_section <"$work/plan"

# The report, in the plan's order. A run without an outcome (its job was killed) is not clean.
declare -A outcome
bad=0 skipped=0 index=0
for stage in "${stages[@]}"; do
    for tool in $tools; do
        for scene in ${scenes_of_stage["$stage"]}; do
            if [[ -f "$work/outcomes/$index" ]]; then
                result="$(<"$work/outcomes/$index")"
                cat "$work/sections/$index" >>"$report"
            else
                result="no result"
                printf '=== %s, %s, %s: %s (the run did not end)\n\n' "$stage" "$tool" "$scene" "$result" >>"$report"
            fi
            outcome["$stage|$tool|$scene"]="$result"
            case "$result" in
                clean) ;;
                skipped*) skipped=$((skipped + 1)) ;;
                *) bad=$((bad + 1)) ;;
            esac
            index=$((index + 1))
        done
    done
done

table="$work/table"
{
    echo "Summary ($total runs, $bad not clean, $skipped skipped: scenes larger than the stage holds):"
    echo
    # One table per set of scenes (the main track's, the path-tracing track's).
    heading=''
    for stage in "${stages[@]}"; do
        stage_scenes="${scenes_of_stage["$stage"]}"
        if [[ "$stage_scenes" != "$heading" ]]; then
            [[ -z "$heading" ]] || echo
            heading="$stage_scenes"
            printf '%-28s %-10s' stage tool
            for scene in $stage_scenes; do printf ' %-18s' "$(basename "$scene")"; done
            echo
        fi
        for tool in $tools; do
            printf '%-28s %-10s' "$stage" "$tool"
            for scene in $stage_scenes; do printf ' %-18s' "${outcome["$stage|$tool|$scene"]}"; done
            echo
        done
    done
} >"$table"
cat "$table" >>"$report"
echo
cat "$table"
echo
if [[ "$bad" -gt 0 ]]; then
    say "$bad of $total runs not clean: see $report"
    exit 1
fi
say "all $((total - skipped)) runs clean ($skipped skipped: scenes larger than the stage holds): $report"
