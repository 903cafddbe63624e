#!/usr/bin/env bash
# One timed run of one stage, started by GNU parallel from run.sh.
# Usage: tools/runner/run-one.sh SLOT ORDER RUN STAGE [SCENE [COLUMN]]
# SCENE: the scene of this run, instead of $RUN_SCENE and $RUN_PT_SCENE; COLUMN: as RUN_VARIANT,
# a value appended to every row as one more column (tools/scaling.sh: the scene's name).
# Runs the stage on the GPU of job slot SLOT (a stage whose manifest has launcher: ranks, one
# process a GPU, as one rank a GPU of the run through tools/launch-ranks.sh: rank 0 prints the
# report), checks its CSV, and appends the run's rows to
# $RUN_DIR/runs.csv (the live file, tools/runner/open-runs.sh; tools/runner/close-runs.sh compresses it into
# runs.csv.gz when the campaign ends) in one write under a lock (all rows of a run or none). A
# failing run (exit status, timeout, output that is not the stage CSV) gets one row with status
# "failed".
# Environment (set by run.sh): RUN_DIR RUN_BIN_DIR RUN_SCENE RUN_TIMEOUT RUN_GPU_LIST
# RUN_GPU_INFO RUN_HOST RUN_TOTAL RUN_START; RUN_GPUS_PER_RUN (the GPUs of a run, default 1: see
# below) and RUN_GPUS_COLUMN (1: their number is appended to every row, after the image column).
# Optional: RUN_PT_SCENE (the scene of the path-tracing stages; default RUN_SCENE), STAGES_DIR
# (default: the repository's stages/; the words of a stage's manifest's campaign-args go on the
# stage's command line), RUN_STAGE_ARGS (more words after those: tools/sweep.sh's
# option and value), RUN_IMAGE (run.sh: png or ppm, the run writes its image with --output into
# its temporary folder; '-' for none; when not empty, its value, empty for '-', is appended to
# every row as the column `image`, in place of RUN_VARIANT and COLUMN), RUN_CSV (the file the rows go to; default $RUN_DIR/runs.csv), RUN_VARIANT
# (when set, appended to every row as one more column: the sweep's value), RUN_LOG_PREFIX
# (the progress line's first word; default run.sh).
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail

slot="$1" order="$2" run="$3" stage="$4"
if [[ -n "${5:-}" ]]; then RUN_SCENE="$5" RUN_PT_SCENE="$5"; fi
if [[ $# -ge 6 ]]; then RUN_VARIANT="$6"; fi
readonly header='stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit'
IFS=',' read -r -a gpus <<<"$RUN_GPU_LIST"
# Slot s of a stretch of runs that take K GPUs each (RUN_GPUS_PER_RUN, run.sh) has the campaign's
# GPUs (s - 1) * K to s * K - 1; the first names the run's GPU in a failure row.
per_run="${RUN_GPUS_PER_RUN:-1}"
run_gpus="$(IFS=','; echo "${gpus[*]:$(((slot - 1) * per_run)):$per_run}")"
gpu_index="${run_gpus%%,*}"
tmp="$(mktemp -d "$RUN_DIR/.tmp.XXXXXX")"
child=''
cleanup() { rm -rf "$tmp"; }
interrupted() {
    [[ -n "$child" ]] && kill -TERM "$child" 2>/dev/null
    cleanup
    exit 130
}
trap cleanup EXIT
trap interrupted INT TERM

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rows_csv="${RUN_CSV:-$RUN_DIR/runs.csv}"
# A stage that must be timed differently from the others (e.g. the last stage renders several
# frames and reports its steady-state frame) says so in its manifest's campaign-args, so every
# campaign, on every host, runs it the same way.
# RUN_ONE_FRAME=1 (tools/scaling.sh) leaves them out: a run renders one frame, so that a run on
# 100,000 spheres takes a second, not twenty.
stage_args=()
if [[ "${RUN_ONE_FRAME:-0}" != 1 ]]; then
    campaign_args="$("$repo/tools/stages" get "$stage" campaign-args)" || exit 2
    read -r -a stage_args <<<"$campaign_args" || true
fi
# A configuration of the campaign that writes the image (the manifest's campaign-image): the
# file goes to the run's temporary folder, removed with it, after the run's timing.
image=''
if [[ -n "${RUN_IMAGE:-}" ]]; then
    image="${RUN_IMAGE#-}" RUN_VARIANT="$image"
    [[ -z "$image" ]] || stage_args+=(--output "$tmp/frame.$image")
fi
if [[ -n "${RUN_STAGE_ARGS:-}" ]]; then
    read -r -a more_args <<<"$RUN_STAGE_ARGS"
    stage_args+=(${more_args[@]+"${more_args[@]}"})
fi

# One process a GPU (the manifest's launcher: ranks): as many ranks as the run has GPUs, started
# on this machine as srun or mpirun would start them, each taking the GPU of its LOCAL_RANK among
# the run's (CUDA_VISIBLE_DEVICES); timeout stops the launcher, which stops the ranks.
launcher=()
if [[ "$("$repo/tools/stages" get "$stage" launcher)" == ranks ]]; then
    launcher=("$repo/tools/launch-ranks.sh" "$per_run" --)
fi

# The path-tracing track reads scenes of its own format.
scene="$RUN_SCENE"
[[ "$("$repo/tools/stages" get "$stage" track)" == pt ]] && scene="${RUN_PT_SCENE:-$RUN_SCENE}"

start_ns="$(date +%s%N)"
status=0
CUDA_VISIBLE_DEVICES="$run_gpus" RUN_NUMBER="$run" RUN_ORDER="$order" \
    timeout -k 5 "$RUN_TIMEOUT" ${launcher[@]+"${launcher[@]}"} "$RUN_BIN_DIR/$stage" --scene "$scene" --csv ${stage_args[@]+"${stage_args[@]}"} \
    >"$tmp/out" 2>"$tmp/err" </dev/null &
child=$!
wait "$child" || status=$?
child=''
wall_us="$(( ($(date +%s%N) - start_ns) / 1000 ))"
seconds="$((wall_us / 1000))"
seconds="$((seconds / 1000)).$(printf '%03d' "$((seconds % 1000))")"

reason=''
if [[ "$status" -eq 124 || "$status" -eq 137 ]]; then
    reason="timeout after ${RUN_TIMEOUT}s"
elif [[ "$status" -ne 0 ]]; then
    reason="exit status $status"
elif ! awk -F',' -v header="$header" -v stage="$stage" '
        NR == 1 { if ($0 != header) exit 1; next }
        NF != 11 || $1 != stage || $9 == "" || $10 !~ /^-?([0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|inf|nan)$/ { exit 1 }
        { seen[$9] = 1 }
        END { if (NR < 2 || !("total" in seen) || !("kernel" in seen)) exit 1 }' "$tmp/out"; then
    reason='output is not the stage CSV'
elif [[ -n "$image" && ! -s "$tmp/frame.$image" ]]; then
    reason="no $image image written"
fi

if [[ -z "$reason" ]]; then
    # The stage's rows, and one more: the process's wall time, the start of the CUDA context and
    # the image's write included, as a user waiting for the program sees it.
    awk -F',' -v OFS=',' -v order="$order" -v run="$run" -v host="$RUN_HOST" -v wall_us="$wall_us" 'NR > 1 {
        print order, run, $1, host, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "ok"; last = $0 }
        END { split(last, f, ","); print order, run, f[1], host, f[2], f[3], f[4], f[5], f[6], f[7], f[8],
              "process_wall", wall_us, "us", "ok" }' \
        "$tmp/out" >"$tmp/rows"
else
    # The failure row carries the GPU as nvidia-smi names it and the reason in "value".
    gpu_line="$(awk -F', *' -v i="$gpu_index" '$1 == i { print $2 "," $3; exit }' "$RUN_GPU_INFO")"
    detail="$(tail -n 1 "$tmp/err" | tr -d ',\r' | cut -c1-200)"
    printf '%s,%s,%s,%s,%s,,,,,,failure,%s,,failed\n' "$order" "$run" "$stage" "$RUN_HOST" \
        "${gpu_line:-,}" "$reason${detail:+: $detail}" >"$tmp/rows"
    mkdir -p "$RUN_DIR/logs"
    { echo "# $stage ${stage_args[*]+${stage_args[*]}} run $run (order $order): $reason"; cat "$tmp/err"
      echo '# stdout:'; cat "$tmp/out"; } >"$RUN_DIR/logs/$stage${RUN_VARIANT:+-$RUN_VARIANT}-run$run.log"
fi
if [[ -n "${RUN_VARIANT+set}" ]]; then
    awk -v variant="$RUN_VARIANT" '{ print $0 "," variant }' "$tmp/rows" >"$tmp/rows.variant"
    mv "$tmp/rows.variant" "$tmp/rows"
fi
if [[ "${RUN_GPUS_COLUMN:-0}" == 1 ]]; then
    awk -v n="$per_run" '{ print $0 "," n }' "$tmp/rows" >"$tmp/rows.gpus"
    mv "$tmp/rows.gpus" "$tmp/rows"
fi

# One write of the whole run under the lock; the progress counter is updated under it too.
trap '' INT TERM
exec 9>>"$RUN_DIR/.lock"
flock 9
# Only into an open campaign: a run outliving its campaign (its runner killed) finds runs.csv
# packed and removed under this lock (tools/runner/close-runs.sh), and must not start a new one.
if [[ -f "$rows_csv" ]]; then
    cat "$tmp/rows" >>"$rows_csv"
else
    echo "run-one: $rows_csv is closed (its campaign has ended): this run's rows are dropped" >&2
fi
done_count="$(( $(cat "$RUN_DIR/.progress" 2>/dev/null || echo 0) + 1 ))"
echo "$done_count" >"$RUN_DIR/.progress"
flock -u 9
elapsed="$(( $(date +%s) - RUN_START ))"
eta="$(( elapsed * (RUN_TOTAL - done_count) / done_count ))"
what_gpus="GPU $run_gpus"; [[ "$per_run" -eq 1 ]] || what_gpus="GPUs $run_gpus"
printf '%s: %d/%d runs done, ETA %02d:%02d:%02d - %s%s run %s on %s: %s (%ss)\n' \
    "${RUN_LOG_PREFIX:-run.sh}" "$done_count" "$RUN_TOTAL" "$((eta / 3600))" "$((eta / 60 % 60))" \
    "$((eta % 60))" "$stage" "${RUN_VARIANT:+ $RUN_VARIANT}" "$run" "$what_gpus" "${reason:-ok}" "$seconds" >&2
[[ -z "$reason" ]]
