#!/usr/bin/env bash
# The timing campaign: build, verify every stage against the CPU reference, time every stage
# over many interleaved runs (GNU parallel, one job slot per GPU), write results/<gpu-slug>/.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: ./run.sh [options]
Builds the stages, verifies each stage's image (main track: scenes/quick.scene against the CPU
reference; path-tracing track: scenes/pt-quick.scene against build/pt-reference with the
estimator its manifest names), then times every verified stage over N interleaved runs (one
process per run, one run per GPU at a time; a stage whose manifest has campaign-gpus takes that
many GPUs, or all, for each of its runs, its rows' gpus column says how many) and writes
OUT/<gpu-slug>/ (runs.csv.gz, env.txt, provenance.tsv, joblog.txt, summary.csv, summary.md,
phases.png, kernel.png; pathtrace.png for the path-tracing track), OUT/README.md with your GPU
beside the reference GPUs, and OUT/gpus.png.
env.txt names the source revision (git describe) and provenance.tsv, for each stage timed, its
source hash and its executable's sha256 (tools/runner/provenance.sh; a --resume adds the rows of
the stages it times again).
Every run's rows go to OUT/<gpu-slug>/runs.csv while the campaign runs; when it ends (or is
interrupted) they are compressed into runs.csv.gz (zcat reads it), which --resume unpacks again.
Your runs go to results/local/ (ignored by git); the course's own campaigns are in
results/reference/ and only --reference writes there (and regenerates the READMEs' tables).
options:
  --runs N          runs per stage (default 100)
  --stages LIST     comma-separated stages (default: all): N = main stage N only (7: 07-*),
                    Nx = side stage Nx only (7a: 07a-*), N-M = every main and side stage
                    numbered N..M; pN, pNx, pN-M the same for the path-tracing track (p5a:
                    p05a-*; p1-7: p01-* to p07-* with p05a-*); e.g. 1-4,7,7a,p1-3. Numbers
                    have at most two digits. An item that names no stage is refused, and so
                    is a range that does not start and end at a stage (1-9 without a stage
                    9); numbers inside a range that are no stage's are passed over
  --scene FILE      timed scene of the main track (default scenes/benchmark.scene)
  --pt-scene FILE   timed scene of the path-tracing track (default scenes/pt-benchmark.scene)
  --gpus LIST       GPU indices to use, e.g. 0,1 (default: every GPU nvidia-smi lists)
  --hosts FILE      GNU parallel sshlogin lines; run the campaign on each (":" = this host)
                    and bring each host's OUT/<gpu-slug>/ back (ssh command: $RUN_SSH)
  --out DIR         results folder (default results/local)
  --reference       refresh the course's reference data: OUT is results/reference, and the
                    READMEs' generated tables are regenerated from it (maintainers)
  --resume          continue a campaign (its runs.csv.gz, or the runs.csv of one cut off): skip
                    (stage, run) pairs recorded ok; run orders go on from the last
  --timeout SEC     per-run time limit (default 120)
  --no-verify       skip the image verification
  --no-build        do not run make
  --bin-dir DIR     where the stage executables are (default build; env RUN_BIN_DIR)
  --scaling         the scaling campaign of chapter 4 instead: tools/scaling.sh times stage 21
                    and every chapter-4 stage on scenes of 19 to 100,000 spheres into
                    OUT/<gpu-slug>/scaling/ (builds first unless --no-build; --runs, --stages,
                    --gpus, --out, --reference, --resume, --timeout, --bin-dir and --no-verify
                    mean the same; --scenes LIST names its scenes; --track pt times the
                    path-tracing track's chapter P4, p12 and every P4 stage on scenes of 21 to
                    100,000 spheres, into OUT/<gpu-slug>/pt-scaling/; tools/scaling.sh --help)
  --help            this text
Stages are the folders stages/*/ with a manifest (tools/stages list): the main chain NN-name,
side stages NNx-name, and the path-tracing track's pNN-name and pNNx-name; each must have its
executable in the build folder. A timed run of stage S gets, after --scene FILE --csv (its
track's scene), the words of its manifest's campaign-args (e.g. --frames 20); verification runs
do not. Verification allows the percentage of differing pixels its manifest's
max-differing-percent gives (0 but for 12a-fused-multiply-add, which changes the arithmetic on
purpose). A stage whose manifest has campaign-image (e.g. png: stages 21, 21a and 26) is
timed twice in each run, interleaved: as above, and writing its image (--output FRAME.png in
the run's temporary folder); the rows of the second say png in the runs' image column, and
every run's rows carry the process's wall time (metric process_wall).
environment: RUN_SSH (ssh command for --hosts), RUN_NVIDIA_SMI (nvidia-smi command),
  STB_INCLUDE_DIR (folder of stb_image_write.h), RUN_REMOTE_DIR (remote work folder),
  STAGES_DIR (the folder of stage folders; default stages).
USAGE
}
die() { echo "run.sh: error: $*" >&2; exit 2; }

bad_usage() { echo "run.sh: error: $* (see ./run.sh --help)" >&2; exit 2; }
# A scene option's file: it exists, is a regular file and can be read.
check_scene_file() {
    [[ -e "$2" ]] || bad_usage "$1 '$2': no such file"
    [[ -f "$2" ]] || bad_usage "$1 '$2' is not a regular file"
    [[ -r "$2" ]] || bad_usage "$1 '$2' cannot be read"
}

# GNU parallel quotes remote commands for the login shell named by $SHELL; where that is unset
# (containers, cron, CI) it guesses and a --hosts campaign runs nothing there.
export SHELL="${SHELL:-/bin/bash}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$repo"
export STAGES_DIR="${STAGES_DIR:-$repo/stages}"
# --- the scaling campaign: tools/scaling.sh, after make (unless --no-build) ----------------
# The options given go to it as they are (the same meaning), but for --scaling and --no-build;
# the options of the benchmark campaign's scenes and hosts do not apply.
scaling=0 scaling_build=1 scaling_args=()
all_args=("$@")
for ((i = 0; i < ${#all_args[@]}; i++)); do
    case "${all_args[i]}" in
        --scaling) scaling=1 ;;
        --no-build) scaling_build=0 ;;
        --runs|--stages|--scene|--pt-scene|--gpus|--hosts|--out|--timeout|--bin-dir|--scenes|--track)
            scaling_args+=("${all_args[i]}")
            if ((i + 1 < ${#all_args[@]})); then i=$((i + 1)); scaling_args+=("${all_args[i]}"); fi ;;
        *) scaling_args+=("${all_args[i]}") ;;
    esac
done
if [[ "$scaling" -eq 1 ]]; then
    for opt in ${scaling_args[@]+"${scaling_args[@]}"}; do
        case "$opt" in
            --scene|--pt-scene|--hosts) bad_usage "$opt does not go with --scaling: its scenes are --scenes LIST" ;;
        esac
    done
    if [[ "$scaling_build" -eq 1 ]]; then scaling_args=(--build ${scaling_args[@]+"${scaling_args[@]}"}); fi
    exec "$repo/tools/scaling.sh" ${scaling_args[@]+"${scaling_args[@]}"}
fi

runs=100 stages_spec='' scene='scenes/benchmark.scene' pt_scene='scenes/pt-benchmark.scene' gpus_spec='' hosts='' out=''
resume=0 timeout_s=120 verify=1 build=1 bin_dir="${RUN_BIN_DIR:-build}" reference=0
forward=()   # options given again to the run.sh of each --hosts login
command_line="$0 $*"
while [[ $# -gt 0 ]]; do
    opt="$1"
    case "$opt" in
        --help|-h) usage; exit 0 ;;
        --resume) resume=1; forward+=("$opt"); shift; continue ;;
        --no-verify) verify=0; forward+=("$opt"); shift; continue ;;
        --no-build) build=0; forward+=("$opt"); shift; continue ;;
        --reference) reference=1; shift; continue ;;
        --runs|--stages|--scene|--pt-scene|--gpus|--hosts|--out|--timeout|--bin-dir) ;;
        --scenes) bad_usage "--scenes goes with --scaling; the campaign's scene is --scene FILE" ;;
        --track) bad_usage "--track goes with --scaling; the campaign times both tracks (--stages picks stages)" ;;
        *) bad_usage "unknown option '$opt'" ;;
    esac
    [[ $# -ge 2 && -n "$2" ]] || bad_usage "$opt needs a value"
    val="$2"; shift 2
    case "$opt" in
        --runs) [[ "$val" =~ ^[1-9][0-9]*$ ]] || bad_usage "--runs needs a positive number"; runs="$val" ;;
        --stages) stages_spec="$val" ;;
        --scene) scene="$val" ;;
        --pt-scene) pt_scene="$val" ;;
        --gpus) [[ "$val" =~ ^[0-9]+(,[0-9]+)*$ ]] || bad_usage "bad --gpus '$val'"; gpus_spec="$val" ;;
        --hosts) [[ -r "$val" ]] || bad_usage "cannot read hosts file '$val'"; hosts="$val" ;;
        --out) out="$val" ;;
        --timeout) [[ "$val" =~ ^[1-9][0-9]*$ ]] || bad_usage "--timeout needs a positive number"; timeout_s="$val" ;;
        --bin-dir) bin_dir="$val" ;;
    esac
    case "$opt" in --hosts|--out) ;; *) forward+=("$opt" "$val") ;; esac
done
# --- everything checked before anything is written ------------------------------------------
if [[ "$reference" -eq 1 ]]; then
    [[ -z "$out" ]] || bad_usage "--reference writes results/reference: give --out or --reference, not both"
    out="$repo/results/reference"
fi
out="${out:-$repo/results/local}"
(( ${#runs} <= 6 )) || bad_usage "--runs $runs is too many (at most 999999)"
(( ${#timeout_s} <= 6 )) || bad_usage "--timeout $timeout_s is too long (at most 999999 seconds)"
check_scene_file --scene "$scene"
check_scene_file --pt-scene "$pt_scene"
[[ ! -e "$out" || -d "$out" ]] || bad_usage "--out '$out' exists and is not a folder"
if [[ -n "$hosts" ]]; then
    [[ -f "$hosts" ]] || bad_usage "--hosts '$hosts' is not a file"
    grep -q -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$hosts" \
        || bad_usage "--hosts '$hosts' names no login (one sshlogin a line; ':' is this machine)"
fi
if [[ -n "$gpus_spec" ]]; then
    twice="$(tr ',' '\n' <<<"$gpus_spec" | sort -n | uniq -d | head -n1)"
    [[ -z "$twice" ]] || bad_usage "--gpus '$gpus_spec' names GPU $twice twice"
fi
# The stages, from their manifests (tools/stages: the one reader; --stages items that are not
# well formed or name no stage are refused here, before anything is written).
if [[ -n "$stages_spec" ]]; then
    listed="$(STAGES_PROGRAM=stages "$repo/tools/stages" select "$stages_spec" 2>&1)" \
        || bad_usage "${listed#stages: }"
else
    listed="$(STAGES_PROGRAM=stages "$repo/tools/stages" list 2>&1)" || die "${listed#stages: }"
fi
mapfile -t stages <<<"$listed"
[[ -n "${stages[0]:-}" ]] || die "no stage folders with a manifest in $STAGES_DIR"
# Each stage's manifest fields, read once: track, campaign scene, estimator, tolerance.
manifest_table="$(STAGES_PROGRAM=stages "$repo/tools/stages" table 2>&1)" || die "${manifest_table#stages: }"
declare -A track_of=() estimator_of=() tolerance_of=() images_of=() gpus_of=()
while read -r name track estimator tolerance gpus images; do
    track_of[$name]="$track" estimator_of[$name]="$estimator" tolerance_of[$name]="$tolerance" images_of[$name]="$images"
    gpus_of[$name]="$gpus"
done < <(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) column[$i] = i; next }
    { e = $column["estimator"]; g = $column["campaign-gpus"]
      print $column["stage"], $column["track"], (e == "" ? "-" : e), $column["max-differing-percent"], (g == "" ? 1 : g), $column["campaign-image"] }' \
    <<<"$manifest_table")
is_pt_stage() { [[ "${track_of[$1]:-}" == pt ]]; }
[[ "$out" == /* ]] || out="$repo/$out"
# Every stage named must have been built. With --no-build nothing will build them, so a missing
# executable is refused here, before the GPUs are asked for or anything installed or written;
# otherwise after make (below). A --hosts campaign checks on each host.
check_executables() {
    local stage missing=() kept=()
    # A stage the build left out for want of what it links (NCCL: make left-out) is not timed;
    # tools/stages says so in a line.
    mapfile -t kept < <(STAGES_PROGRAM=run.sh "$repo/tools/stages" built-here "$bin_dir" "${stages[@]}")
    [[ -n "${kept[0]:-}" ]] || die "no stage left to time here (the lines above say why)"
    stages=("${kept[@]}")
    for stage in "${stages[@]}"; do
        [[ -f "$bin_dir/$stage" && -x "$bin_dir/$stage" ]] || missing+=("$stage")
    done
    [[ ${#missing[@]} -eq 0 ]] || die "no executable in $bin_dir for ${missing[*]}: run make (or time other stages with --stages)"
}
if [[ "$build" -eq 0 && -z "$hosts" ]]; then check_executables; fi

# --- tools -------------------------------------------------------------------------------
if [[ "$build" -eq 1 && -z "$hosts" ]]; then
    command -v nvcc >/dev/null || PATH="$PATH:/usr/local/cuda/bin"
    command -v nvcc >/dev/null || die "nvcc not found: install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads)"
    skip_stb=''
else
    skip_stb=1   # nothing is built here
fi
# GNU parallel, stb and python3's matplotlib: installed when missing (apt-get as root, sudo -n),
# else one line with the command to run (tools/install-deps.sh, shared with make and CI).
INSTALL_DEPS_SKIP_STB="$skip_stb" "$repo/tools/install-deps.sh" run || exit 2

# The tables: the reference data regenerates the READMEs' blocks (--reference); a user's runs get
# their own summaries and OUT/README.md with the reference GPUs beside theirs, and no tracked
# file changes.
update_reports() {
    if [[ "$1" == "$repo/results/reference" ]]; then
        python3 tools/update_readmes.py --results "$1" || echo "run.sh: README update failed" >&2
    else
        python3 tools/update_readmes.py --results "$1" --results-only --compare-with "$repo/results/reference" \
            || echo "run.sh: the summaries failed" >&2
    fi
}
plot_reports() {
    python3 tools/plot.py "$1" || echo "run.sh: plots failed" >&2
    if [[ "$2" == "$repo/results/reference" ]]; then
        python3 tools/plot.py --compare "$2" || echo "run.sh: the comparison of GPUs failed" >&2
    else
        python3 tools/plot.py --compare "$2" --with "$repo/results/reference" \
            || echo "run.sh: the comparison of GPUs failed" >&2
    fi
}

# --- other machines ----------------------------------------------------------------------
if [[ -n "$hosts" ]]; then
    RUN_FORWARD=''
    [[ ${#forward[@]} -eq 0 ]] || printf -v RUN_FORWARD '%q ' "${forward[@]}"
    mkdir -p "$out" || die "cannot create --out '$out'"
    export RUN_FORWARD RUN_OUT="$out" RUN_SSH="${RUN_SSH:-ssh}"
    status=0
    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$hosts" |
        parallel --will-cite -j0 -u "$repo/tools/runner/remote-campaign.sh" {} || status=$?
    update_reports "$out"
    [[ "$status" -eq 0 ]] || { echo "run.sh: $status host(s) failed, see above" >&2; exit 1; }
    exit 0
fi

# --- GPUs and build (the GPUs first: without one there is nothing to build for) -----------
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gpus_spec="$("$repo/tools/runner/pick-gpus.sh" "$gpus_spec" "$tmp/gpus" 2>"$tmp/pick-gpus.err")" \
    || die "$(cat "$tmp/pick-gpus.err")"
gpu_name="$(head -n1 "$tmp/gpus" | awk -F', *' '{ print $2 }')"
slug="$("$repo/tools/runner/slug.sh" "$gpu_name")"
ngpus="$(wc -l <"$tmp/gpus")"
# The GPUs each run of a stage takes (its manifest's campaign-gpus: all, or a number; 1 without).
declare -A run_gpus_of=()
for stage in "${stages[@]}"; do
    want="${gpus_of[$stage]:-1}"
    [[ "$want" != all ]] || want="$ngpus"
    [[ "$want" -le "$ngpus" ]] || die "$stage takes $want GPUs a run (its manifest's campaign-gpus), but this campaign has $ngpus (--gpus $gpus_spec)"
    run_gpus_of[$stage]="$want"
done
if [[ "$build" -eq 1 ]]; then make -j"$(nproc)" || die "make failed"; fi

# Every stage named must have been built; refused before anything is written.
check_executables

# --- results folder ----------------------------------------------------------------------
mkdir -p "$out" || die "cannot create --out '$out'"
out="$(cd "$out" && pwd)"
dir="$out/$slug"
# image: the format of the image the run wrote (a manifest's campaign-image), empty for none;
# gpus: how many GPUs the run was given (a manifest's campaign-gpus; empty in older runs: one).
header='order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,image,gpus'
mkdir -p "$dir"
# A new runs.csv, or with --resume the one there (runs.csv.gz unpacked), its failed runs set apart
# to be run again.
offset="$("$repo/tools/runner/open-runs.sh" "$dir" "$header" "$resume" "${header%,image,gpus}" 2>"$tmp/open-runs.err")" \
    || die "$(cat "$tmp/open-runs.err")"
# However run.sh ends from here on, runs.csv is closed into runs.csv.gz (below, when the timing
# ends; on an error, by this trap).
trap 'rm -rf "$tmp"; "$repo/tools/runner/close-runs.sh" "$dir" || true' EXIT
"$repo/tools/runner/env-info.sh" "$tmp/gpus" "$command_line" "$resume" >>"$dir/env.txt"
cp "$bin_dir"/*.resources.txt "$dir/" 2>/dev/null || true

# --- verification ------------------------------------------------------------------------
failed_stages=()
if [[ "$verify" -eq 1 ]]; then
    first_gpu="$(head -n1 "$tmp/gpus" | cut -d, -f1)"
    # Each track against its own reference, made once: the main track on scenes/quick.scene
    # against build/cpu-reference, the path-tracing track on scenes/pt-quick.scene against
    # build/pt-reference with the estimator the stage's manifest names (SPEC-PATH-TRACING.md
    # section 6), one reference image per estimator; bit for bit unless the manifest's
    # max-differing-percent allows more.
    main_count=0 pt_count=0
    for stage in "${stages[@]}"; do
        if is_pt_stage "$stage"; then pt_count=$((pt_count + 1)); else main_count=$((main_count + 1)); fi
    done
    what=() scenes=()
    if [[ "$main_count" -gt 0 ]]; then
        what+=("$main_count stage(s) on scenes/quick.scene against the CPU reference")
        scenes+=("scenes/quick.scene")
        "$bin_dir/cpu-reference" --scene scenes/quick.scene --output "$tmp/reference.png" >/dev/null \
            || die "build/cpu-reference failed; cannot verify (use --no-verify to time anyway)"
    fi
    if [[ "$pt_count" -gt 0 ]]; then
        what+=("$pt_count path-tracing stage(s) on scenes/pt-quick.scene against build/pt-reference")
        scenes+=("scenes/pt-quick.scene")
        for estimator in $(for stage in "${stages[@]}"; do is_pt_stage "$stage" && echo "${estimator_of[$stage]}"; done | sort -u); do
            "$bin_dir/pt-reference" --scene scenes/pt-quick.scene --estimator "$estimator" \
                --output "$tmp/pt-reference-$estimator.png" >/dev/null \
                || die "build/pt-reference --estimator $estimator failed; cannot verify the path-tracing stages (use --no-verify to time anyway)"
        done
    fi
    if [[ ${#what[@]} -eq 2 ]]; then
        echo "run.sh: verifying ${what[0]} and ${what[1]}" >&2
    else
        echo "run.sh: verifying ${what[0]}" >&2
    fi
    verified=()
    echo "# verification on ${scenes[*]}, $(date -u +%FT%TZ)" >>"$dir/verify.txt"
    for stage in "${stages[@]}"; do
        line='' estimator=''
        if is_pt_stage "$stage"; then
            estimator="${estimator_of[$stage]}"
            verify_scene=scenes/pt-quick.scene reference="$tmp/pt-reference-$estimator.png"
        else
            verify_scene=scenes/quick.scene reference="$tmp/reference.png"
        fi
        # 0 unless the stage changes the arithmetic on purpose (its manifest states the bound).
        tolerance="${tolerance_of[$stage]}"
        if CUDA_VISIBLE_DEVICES="$first_gpu" timeout -k 5 "$timeout_s" "$bin_dir/$stage" \
                --scene "$verify_scene" --output "$tmp/$stage.png" >/dev/null 2>"$tmp/$stage.err" \
            && line="$("$bin_dir/compare-images" "$reference" "$tmp/$stage.png" --max-differing-percent "$tolerance")"; then
            verified+=("$stage"); echo "$stage: ok: $line${estimator:+ (estimator $estimator)}" >>"$dir/verify.txt"
        else
            line="${line:-$(tail -n1 "$tmp/$stage.err")}"
            failed_stages+=("$stage"); echo "$stage: FAILED: $line" >>"$dir/verify.txt"
            echo "run.sh: $stage FAILED verification, it will not be timed: $line" >&2
        fi
    done
    stages=("${verified[@]}")
fi

# --- timing ------------------------------------------------------------------------------
# A job is a run of a stage in one configuration: without an image ('-'), and once more writing
# each format of its manifest's campaign-image, interleaved with the others.
"$repo/tools/runner/runs-file.sh" --rows "$dir" | awk -F',' 'NR > 1 && $15 == "ok" { print $3 " " ($16 == "" ? "-" : $16) " " $2 }' |
    sort -u >"$tmp/done"
: >"$tmp/jobs"
order="$offset" timed=0
for stage in "${stages[@]}"; do timed=$((timed + 1 + $(wc -w <<<"${images_of[$stage]:-}"))); done
for ((run = 1; run <= runs; run++)); do
    for stage in "${stages[@]}"; do
        for image in - ${images_of[$stage]:-}; do
            grep -qxF "$stage $image $run" "$tmp/done" && continue
            order=$((order + 1))
            echo "$order $run $stage $image" >>"$tmp/jobs"
        done
    done
done
# Which source and which executables this session times: a row per stage it has runs of
# (tools/runner/provenance.sh), after the rows of earlier sessions (--resume).
declare -A has_jobs=()
while read -r stage; do has_jobs[$stage]=1; done < <(awk '{ print $3 }' "$tmp/jobs" | sort -u)
timed_now=()
for stage in "${stages[@]}"; do [[ -z "${has_jobs[$stage]:-}" ]] || timed_now+=("$stage"); done
if [[ ${#timed_now[@]} -gt 0 ]]; then
    "$repo/tools/runner/provenance.sh" append "$dir/provenance.tsv" "$bin_dir" "${timed_now[@]}" ||
        echo "run.sh: the provenance of the runs could not be written to $dir/provenance.tsv" >&2
fi
export RUN_DIR="$dir" RUN_BIN_DIR="$bin_dir" RUN_SCENE="$scene" RUN_PT_SCENE="$pt_scene" RUN_TIMEOUT="$timeout_s" \
    RUN_GPU_LIST="$gpus_spec" RUN_GPU_INFO="$tmp/gpus" RUN_HOST="${RUN_HOSTNAME:-$(hostname)}" \
    RUN_TOTAL="$(wc -l <"$tmp/jobs")" RUN_START="$(date +%s)" RUN_GPUS_COLUMN=1
interrupted=0
trap 'interrupted=1' INT TERM
if [[ "$RUN_TOTAL" -gt 0 ]]; then
    configurations="$timed stage configuration(s)"
    [[ "$timed" -ne ${#stages[@]} ]] || configurations="${#stages[@]} stage(s)"
    echo "run.sh: timing $configurations x $runs runs ($RUN_TOTAL to do) on $ngpus x $gpu_name into $dir" >&2
    # The jobs in their order, cut where the GPUs a run takes change: each stretch of runs that
    # take K GPUs goes to GNU parallel with ngpus / K slots, slot s taking the campaign's GPUs
    # (s - 1) * K to s * K - 1; the next stretch starts when the last run of this one has ended.
    # Without a campaign-gpus stage, one stretch: one slot a GPU.
    awk -v map="$(for stage in "${stages[@]}"; do printf '%s:%s ' "$stage" "${run_gpus_of[$stage]}"; done)" '
        BEGIN { n = split(map, pairs, " "); for (i = 1; i <= n; i++) { split(pairs[i], kv, ":"); k[kv[1]] = kv[2] } }
        { if (NR == 1 || k[$3] != last) { stretch++; last = k[$3] } print k[$3], $0 > (dir "/stretch." sprintf("%06d", stretch)) }' \
        dir="$tmp" "$tmp/jobs"
    for stretch in "$tmp"/stretch.*; do
        [[ "$interrupted" -eq 0 ]] || break
        per_run="$(head -n 1 "$stretch" | cut -d' ' -f1)"
        cut -d' ' -f2- "$stretch" | RUN_GPUS_PER_RUN="$per_run" parallel --will-cite -j "$((ngpus / per_run))" \
            --joblog "+$dir/joblog.txt" --colsep ' ' \
            RUN_IMAGE='{4}' "$repo/tools/runner/run-one.sh" '{%}' '{1}' '{2}' '{3}' || true
    done
fi
trap - INT TERM
rm -rf "$dir"/.tmp.* "$dir/.progress"
# The campaign has ended (or was interrupted): its runs.csv becomes runs.csv.gz, the form kept
# (under the runs' lock, which close-runs.sh then removes).
status=0
"$repo/tools/runner/close-runs.sh" "$dir" || status=1
runs_file="$("$repo/tools/runner/runs-file.sh" "$dir")"

# --- reports (python3 is there: tools/install-deps.sh saw to it) ------------------------
plot_reports "$dir" "$out"
update_reports "$out"
failed_runs="$("$repo/tools/runner/runs-file.sh" --rows "$dir" | awk -F',' -v o="$offset" 'NR > 1 && $15 == "failed" && $1 > o {
    printf "  %s%s run %s: %s\n", $3, ($16 == "" ? "" : " (" $16 ")"), $2, $13 }')"
if [[ -n "$failed_runs" ]]; then
    echo "run.sh: these runs failed (logs in $dir/logs/):" >&2; echo "$failed_runs" >&2; status=1
fi
if [[ ${#failed_stages[@]} -gt 0 ]]; then
    echo "run.sh: failed verification, not timed: ${failed_stages[*]} (see $dir/verify.txt)" >&2; status=1
fi
if [[ "$interrupted" -eq 1 ]]; then
    again=(--resume --out "$out")
    for opt in "${forward[@]}"; do [[ "$opt" == --resume ]] || again+=("$opt"); done
    echo "run.sh: interrupted; every finished run is in $runs_file; continue with: $0$(printf ' %q' "${again[@]}")" >&2
    exit 130
fi
echo "run.sh: results in $dir" >&2
exit "$status"
