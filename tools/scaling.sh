#!/usr/bin/env bash
# The scaling campaign of chapters 4 and 5 ("Scenes that grow", "The walk to its floor"): times
# main-track stages on scenes of growing size, by default the stage chapter 4 starts from
# (21-persistent-rows) and every stage of the two chapters, on scenes/benchmark.scene (19
# spheres), on build/scenes/random-1k.scene, random-10k and random-100k (`make scenes`: 1,000,
# 10,000 and 100,000 spheres at 8192x8192) and on the same counts in dense clumps with four large
# spheres, build/scenes/clustered-1k.scene, -10k and -100k.
# With --track pt, the same for the path-tracing track's chapters P4 and P5 ("Path tracing: scenes
# that grow", "the walk to its floor"): by default the stage P4 starts from
# (p12-host-work-behind-render) and every stage of P4 and P5,
# on scenes/pt-benchmark.scene (21 spheres) and build/scenes/pt-random-1k.scene, -10k and -100k
# (`make scenes`: 1,000, 10,000 and 100,000 spheres at 1024x1024, 2 samples), into pt-scaling/:
#
#   tools/scaling.sh                      # or ./run.sh --scaling
#   tools/scaling.sh --runs 10 --stages 21-23 --scenes scenes/benchmark.scene,build/scenes/random-1k.scene
#   tools/scaling.sh --track pt           # or ./run.sh --scaling --track pt
#
# Each (stage, scene) pair is verified first: rendered at 64x64 by the stage and by
# build/cpu-reference (--track pt: build/pt-reference with the estimator the stage's manifest
# names), compared by build/compare-images. A stage that refuses a scene because it
# holds too few spheres (stage 21 holds at most 1,024; p12 too) is skipped on that scene, not failed. Then
# the runs are interleaved as in a campaign (run 1 of every stage on every scene, then run 2, ...),
# one process per run, one run per GPU at a time (GNU parallel), each tools/runner/run-one.sh rendering
# one frame (not the manifest's campaign-args: RUN_ONE_FRAME=1); the rows go to
# OUT/<gpu-slug>/scaling/runs.csv (--track pt: OUT/<gpu-slug>/pt-scaling/runs.csv; the campaign's
# first 15 columns and `scene`), compressed into runs.csv.gz when the campaign ends or is
# interrupted (tools/runner/close-runs.sh; --resume unpacks it again), and python3 tools/plot.py
# --scaling writes summary.csv, summary.md and scaling.png (kernel time against sphere count,
# log-log) beside it. With --reference,
# python3 tools/update_readmes.py then fills the <!-- scaling:begin --> blocks of the stage
# READMEs, the <!-- scaling-all:begin --> block of docs/results.md and (--track pt) the
# <!-- pt-scaling-all:begin --> block of docs/path-tracing.md.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: tools/scaling.sh [options]          (or: ./run.sh --scaling [options])
Times the stages of one track on several scenes of growing size: verifies every (stage, scene)
pair at 64x64 against the CPU reference, then times N interleaved runs of each pair (one process
per run, one run per GPU at a time) and writes OUT/<gpu-slug>/scaling/ (--track pt:
OUT/<gpu-slug>/pt-scaling/): runs.csv.gz (the campaign's first 15 columns plus `scene`, the
scene file's name without .scene; runs.csv while the campaign runs), env.txt (with the source
revision), provenance.tsv (each timed stage's source hash and executable's sha256:
tools/runner/provenance.sh), joblog.txt, verify.txt, summary.csv, summary.md and scaling.png
(median kernel time against sphere count, log-log, a line per stage).
options:
  --track TRACK     main (default): the main track's chapter 4, into OUT/<gpu-slug>/scaling/;
                    pt: the path-tracing track's chapter P4, into OUT/<gpu-slug>/pt-scaling/,
                    verified against build/pt-reference with the estimator of each stage's
                    manifest (summary.md adds rays per second against the sphere count)
  --stages LIST     stages as ./run.sh takes them (e.g. 21-24, 22,23a; p12,p13), all of the
                    track's (a list that mixes the tracks is refused)
                    (default: the stage chapter 4 builds on, 21-persistent-rows, and every stage
                    whose manifest's chapter starts with "4." or "5."; --track pt: the stage
                    chapter P4 builds on, p12-host-work-behind-render, and every stage whose
                    chapter starts with "P4." or "P5.")
  --scenes LIST     comma-separated scene files, relative to the repository's root (default
                    scenes/benchmark.scene and build/scenes/random-1k.scene, random-10k.scene,
                    random-100k.scene, clustered-1k.scene, clustered-10k.scene,
                    clustered-100k.scene; --track pt: scenes/pt-benchmark.scene and
                    build/scenes/pt-random-1k.scene, pt-random-10k.scene, pt-random-100k.scene;
                    `make scenes` is run when one of those is missing)
  --runs N          runs of each (stage, scene) pair (default 100)
  --gpus LIST       GPU indices to use, e.g. 0,1 (default: every GPU nvidia-smi lists; all of
                    one model)
  --out DIR         results folder (default results/local, ignored by git)
  --reference       write into the course's results/reference instead, then regenerate the
                    READMEs' scaling tables (maintainers)
  --resume          continue a campaign (its runs.csv.gz, or the runs.csv of one cut off): skip
                    (stage, scene, run) triples recorded ok; run orders go on from the last
  --timeout SEC     per-run time limit (default 600: a run on 100,000 spheres takes seconds)
  --bin-dir DIR     where the stage executables, cpu-reference (--track pt: pt-reference)
                    and compare-images are (default build; env RUN_BIN_DIR)
  --no-verify       do not compare images (each pair still runs once at 64x64, to find the
                    scenes a stage refuses)
  --build           run make first, after the checks of the options (./run.sh --scaling does,
                    unless --no-build)
  --help            this text
A stage that refuses a scene for its number of spheres (exit status 2, "holds at most") is
skipped on that scene and listed in verify.txt; any other failure of a pair leaves it untimed
and the exit status 1, after the other pairs are timed. Verification allows the percentage of
differing pixels the stage's manifest's max-differing-percent gives.
Each run renders one frame: the manifests' campaign-args (--frames 20) are not given, so the
rows hold the first frame's phases and kernel_events, and no steady_frame. It takes about (the
sum of one run of every timed pair) x runs / GPUs: on an H100, about 43 s a round for stage 21
and chapter 4's stages on the benchmark and the three random scenes, so 70 minutes for 100 runs
on one GPU, and about as much again for the three clustered scenes (--track pt, p12 to p15 on its
four: about half a second a run, so about 10 minutes for 100 runs; the H200 timed 954 of them in
8.5 minutes).
environment: RUN_NVIDIA_SMI (nvidia-smi command), STAGES_DIR (the folder of stage folders;
default stages/), RUN_HOSTNAME (the host column; default hostname).
USAGE
}
die() { echo "scaling: error: $*" >&2; exit 2; }
bad_usage() { echo "scaling: error: $* (see tools/scaling.sh --help)" >&2; exit 2; }

export SHELL="${SHELL:-/bin/bash}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export STAGES_DIR="${STAGES_DIR:-$repo/stages}"
runs=100 stages_spec='' scenes_spec='' gpus_spec='' out='' reference=0 resume=0 timeout_s=600 track=main
verify=1 build=0 bin_dir="${RUN_BIN_DIR:-build}"
forward=()   # the options to give again with --resume
command_line="$0 $*"
while [[ $# -gt 0 ]]; do
    opt="$1"
    case "$opt" in
        --help|-h) usage; exit 0 ;;
        --resume) resume=1; shift; continue ;;
        --no-verify) verify=0; forward+=("$opt"); shift; continue ;;
        --reference) reference=1; forward+=("$opt"); shift; continue ;;
        --build) build=1; shift; continue ;;
        --runs|--stages|--scenes|--gpus|--out|--timeout|--bin-dir|--track) ;;
        *) bad_usage "unknown option '$opt'" ;;
    esac
    [[ $# -ge 2 && -n "$2" ]] || bad_usage "$opt needs a value"
    val="$2"; shift 2
    case "$opt" in
        --runs) [[ "$val" =~ ^[1-9][0-9]*$ ]] || bad_usage "--runs needs a positive number, got '$val'"; runs="$val" ;;
        --stages) stages_spec="$val" ;;
        --scenes) scenes_spec="$val" ;;
        --gpus) [[ "$val" =~ ^[0-9]+(,[0-9]+)*$ ]] || bad_usage "bad --gpus '$val'"; gpus_spec="$val" ;;
        --out) out="$val" ;;
        --timeout) [[ "$val" =~ ^[1-9][0-9]*$ ]] || bad_usage "--timeout needs a positive number, got '$val'"; timeout_s="$val" ;;
        --bin-dir) bin_dir="$val" ;;
        --track) [[ "$val" == main || "$val" == pt ]] || bad_usage "--track is main or pt, got '$val'"; track="$val" ;;
    esac
    [[ "$opt" == --out ]] || forward+=("$opt" "$val")
done

# --- everything checked before anything is written ------------------------------------------
if [[ "$reference" -eq 1 ]]; then
    [[ -z "$out" ]] || bad_usage "--reference writes results/reference: give --out or --reference, not both"
    out="$repo/results/reference"
fi
out="${out:-$repo/results/local}"
[[ "$out" == /* ]] || out="$repo/$out"
[[ "$bin_dir" == /* ]] || bin_dir="$repo/$bin_dir"
(( ${#runs} <= 6 )) || bad_usage "--runs $runs is too many (at most 999999)"
(( ${#timeout_s} <= 6 )) || bad_usage "--timeout $timeout_s is too long (at most 999999 seconds)"
if [[ -n "$gpus_spec" ]]; then
    twice="$(tr ',' '\n' <<<"$gpus_spec" | sort -n | uniq -d | head -n1)"
    [[ -z "$twice" ]] || bad_usage "--gpus '$gpus_spec' names GPU $twice twice"
fi
[[ ! -e "$out" || -d "$out" ]] || bad_usage "--out '$out' exists and is not a folder"

# What the track sets: the chapter of its default stages, its default scenes, its reference
# renderer and the folder of its results (the two campaigns never share one).
if [[ "$track" == pt ]]; then
    chapters='P4 P5' default_scenes='scenes/pt-benchmark.scene,build/scenes/pt-random-1k.scene,build/scenes/pt-random-10k.scene,build/scenes/pt-random-100k.scene'
    reference_tool=pt-reference campaign_folder=pt-scaling
else
    chapters='4 5' default_scenes='scenes/benchmark.scene,build/scenes/random-1k.scene,build/scenes/random-10k.scene,build/scenes/random-100k.scene,build/scenes/clustered-1k.scene,build/scenes/clustered-10k.scene,build/scenes/clustered-100k.scene'
    reference_tool=cpu-reference campaign_folder=scaling
fi

# The stages, from their manifests (tools/stages, the one reader): --stages as run.sh reads it;
# by default the stage the track's first chapter of growing scenes (4, or P4) builds on and every
# stage of that chapter and the next (5, the walk to its floor; P5).
manifest_table="$(STAGES_PROGRAM=scaling "$repo/tools/stages" table 2>&1)" || die "${manifest_table#scaling: }"
declare -A track_of=() tolerance_of=() estimator_of=()
while IFS=$'\t' read -r name stage_track tolerance estimator; do
    track_of[$name]="$stage_track" tolerance_of[$name]="$tolerance" estimator_of[$name]="$estimator"
done < <(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["stage"] "\t" $c["track"] "\t" $c["max-differing-percent"] "\t" $c["estimator"] }' <<<"$manifest_table")
if [[ -n "$stages_spec" ]]; then
    listed="$(STAGES_PROGRAM=scaling "$repo/tools/stages" select "$stages_spec" 2>&1)" \
        || bad_usage "${listed#scaling: }"
else
    listed="$(awk -F'\t' -v track="$track" -v chapters="$chapters" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        function in_chapters(chapter,   k, n, list) {
            n = split(chapters, list, " ")
            for (k = 1; k <= n; k++) if (index(chapter, list[k] ".") == 1) return 1
            return 0 }
        $c["track"] == track && in_chapters($c["chapter"]) {
            if (!n++ && $c["builds-on"] != "none" && $c["builds-on"] != "") print $c["builds-on"]
            print $c["stage"] }' <<<"$manifest_table")"
    chapter=${chapters%% *}
    [[ -n "$listed" ]] || die "no stage's manifest in $STAGES_DIR names chapter $chapter (\"chapter: $chapter. ...\"); name the stages with --stages"
fi
mapfile -t stages <<<"$listed"
# One track a campaign: its scenes, its reference and its folder are the track's.
own='' other=''
for stage in "${stages[@]}"; do
    if [[ "${track_of[$stage]:-main}" == "$track" ]]; then own="${own:-$stage}"; else other="${other:-$stage}"; fi
done
if [[ -n "$other" && -n "$own" ]]; then
    bad_usage "--stages mixes the tracks ($own and $other): a scaling campaign times one track, the main track's stages or (--track pt) the path-tracing track's"
elif [[ -n "$other" && "$track" == pt ]]; then
    bad_usage "--stages: $other is a main-track stage; --track pt times path-tracing stages"
elif [[ -n "$other" ]]; then
    bad_usage "--stages: $other is a path-tracing stage; the scaling campaign times main-track stages (the path-tracing track's with --track pt)"
fi

# The scenes: files that can be read, whose names (without .scene) differ and can be a CSV column.
default_scene_list=0
if [[ -z "$scenes_spec" ]]; then scenes_spec="$default_scenes" default_scene_list=1; fi
[[ "$scenes_spec" =~ ^[^,]+(,[^,]+)*$ ]] || bad_usage "--scenes '$scenes_spec' is not a comma-separated list of scene files"
IFS=',' read -r -a scene_files <<<"$scenes_spec"
scene_names=()
declare -A name_seen=()
for file in "${scene_files[@]}"; do
    [[ "$file" != *$'\t'* && "$file" != *$'\n'* ]] || bad_usage "--scenes: a file name with a tab or a line break"
    name="${file##*/}"; name="${name%.scene}"
    [[ "$name" =~ ^[A-Za-z0-9._+-]+$ ]] \
        || bad_usage "--scenes: '$file': its name '$name' must be letters, digits and . _ + - only (it is a CSV column)"
    [[ -z "${name_seen[$name]:-}" ]] || bad_usage "--scenes names two scenes called '$name'"
    name_seen[$name]=1
    scene_names+=("$name")
    # The default random scenes are made below (make scenes) when missing; any other must be here.
    if [[ "$default_scene_list" -eq 0 || "$file" != build/scenes/* ]]; then
        [[ -e "$file" ]] || bad_usage "--scenes '$file': no such file"
        [[ -f "$file" ]] || bad_usage "--scenes '$file' is not a regular file"
        [[ -r "$file" ]] || bad_usage "--scenes '$file' cannot be read"
    fi
done

# --- tools and GPUs ------------------------------------------------------------------------
if [[ "$build" -eq 1 ]]; then
    command -v nvcc >/dev/null || PATH="$PATH:/usr/local/cuda/bin"
    command -v nvcc >/dev/null || die "nvcc not found: install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads)"
    skip_stb=''
else
    skip_stb=1
fi
# GNU parallel and python3's matplotlib (tools/install-deps.sh, as for run.sh).
INSTALL_DEPS_SKIP_STB="$skip_stb" "$repo/tools/install-deps.sh" run || exit 2

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gpus_spec="$("$repo/tools/runner/pick-gpus.sh" "$gpus_spec" "$tmp/gpus" 2>"$tmp/pick-gpus.err")" \
    || die "$(cat "$tmp/pick-gpus.err")"
gpu_name="$(head -n1 "$tmp/gpus" | awk -F', *' '{ print $2 }')"
slug="$("$repo/tools/runner/slug.sh" "$gpu_name")"
ngpus="$(wc -l <"$tmp/gpus")"
if [[ "$build" -eq 1 ]]; then make -j"$(nproc)" >&2 || die "make failed"; fi

# The default random scenes: made by `make scenes` when one is missing.
if [[ "$default_scene_list" -eq 1 ]]; then
    missing_scene=''
    for file in "${scene_files[@]}"; do [[ -f "$file" ]] || missing_scene="$file"; done
    if [[ -n "$missing_scene" ]]; then
        if ! make --no-print-directory BUILD=build scenes >"$tmp/make-scenes.log" 2>&1 || [[ ! -f "$missing_scene" ]]; then
            if [[ "$track" == pt ]]; then
                how='python3 scenes/generate-random.py 997 --path-tracing > build/scenes/pt-random-1k.scene, 9997 --path-tracing > build/scenes/pt-random-10k.scene, 99997 --path-tracing > build/scenes/pt-random-100k.scene'
            else
                how='python3 scenes/generate-random.py 999 > build/scenes/random-1k.scene, 9999 > build/scenes/random-10k.scene, 99999 > build/scenes/random-100k.scene, the same with --clustered > build/scenes/clustered-1k.scene, -10k, -100k'
            fi
            die "cannot make the scenes ($(tail -n1 "$tmp/make-scenes.log" | cut -c1-200)): run 'make scenes' ($how), or name others with --scenes"
        fi
        echo "scaling: made the missing scenes: make scenes" >&2
    fi
fi

# Every stage named must have been built (and the references, to verify).
missing=()
for stage in "${stages[@]}"; do
    [[ -f "$bin_dir/$stage" && -x "$bin_dir/$stage" ]] || missing+=("$stage")
done
[[ ${#missing[@]} -eq 0 ]] || die "no executable in $bin_dir for ${missing[*]}: run make (or time other stages with --stages)"
if [[ "$verify" -eq 1 ]]; then
    for tool in "$reference_tool" compare-images; do
        [[ -f "$bin_dir/$tool" && -x "$bin_dir/$tool" ]] || die "no $tool in $bin_dir to verify with: run make (or time anyway with --no-verify)"
    done
fi

# --- results folder ------------------------------------------------------------------------
mkdir -p "$out" || die "cannot create --out '$out'"
out="$(cd "$out" && pwd)"
dir="$out/$slug/$campaign_folder"
header='order,run,stage,host,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit,status,scene'
mkdir -p "$dir"
# A new runs.csv, or with --resume the one there (runs.csv.gz unpacked), its failed runs set apart
# to be run again.
offset="$("$repo/tools/runner/open-runs.sh" "$dir" "$header" "$resume" 2>"$tmp/open-runs.err")" \
    || die "$(cat "$tmp/open-runs.err")"
# However the campaign ends from here on, runs.csv is closed into runs.csv.gz (below, when the
# timing ends; on an error, by this trap).
trap 'rm -rf "$tmp"; "$repo/tools/runner/close-runs.sh" "$dir" || true' EXIT
{ "$repo/tools/runner/env-info.sh" "$tmp/gpus" "$command_line" "$resume"
  for i in "${!scene_files[@]}"; do
      echo "scene: ${scene_names[i]} = ${scene_files[i]} ($(grep -c '^sphere' "${scene_files[i]}" || true) spheres)"
  done; } >>"$dir/env.txt"

# --- verification: each (stage, scene) pair at 64x64 against the CPU reference --------------
# A pair is timed when its stage rendered the scene (and, unless --no-verify, its picture is the
# reference's, up to the manifest's max-differing-percent); a stage that refuses a scene for its
# number of spheres is skipped on it; any other failure leaves the pair untimed. The path-tracing
# track's reference is build/pt-reference with the estimator of the stage's manifest (as run.sh
# verifies it), one image per scene and estimator.
first_gpu="$(head -n1 "$tmp/gpus" | cut -d, -f1)"
declare -A timed=() reference_of=()
failed_pairs=() skipped_pairs=()
# The reference of scene I (with --track pt, for estimator E), made once (when a stage first
# needs it): reference_of[I] (reference_of[I-E]) is its path, or "" with the reason in
# $tmp/ref-I.err ($tmp/ref-I-E.err).
reference_image() {
    local i="$1" estimator="${2:-}" key="$1${2:+-$2}" estimator_args=()
    [[ -z "${reference_of[$key]+set}" ]] || return 0
    [[ -z "$estimator" ]] || estimator_args=(--estimator "$estimator")
    if timeout -k 5 "$timeout_s" "$bin_dir/$reference_tool" --scene "${scene_files[i]}" --size 64x64 \
            ${estimator_args[@]+"${estimator_args[@]}"} --output "$tmp/reference-$key.png" >/dev/null 2>"$tmp/ref-$key.err"; then
        reference_of[$key]="$tmp/reference-$key.png"
    else
        reference_of[$key]=''
    fi
}
if [[ "$verify" -eq 1 ]]; then
    against='the CPU reference'
    [[ "$track" == main ]] || against='build/pt-reference'
    echo "scaling: verifying ${#stages[@]} stage(s) on ${#scene_files[@]} scene(s) at 64x64 against $against" >&2
    echo "# verification at 64x64 on ${scene_names[*]}, $(date -u +%FT%TZ)" >>"$dir/verify.txt"
else
    echo "scaling: --no-verify: each pair once at 64x64, to find the scenes a stage refuses" >&2
    echo "# --no-verify: pictures not compared; only the scenes a stage refuses are listed, $(date -u +%FT%TZ)" >>"$dir/verify.txt"
fi
for stage in "${stages[@]}"; do
    for i in "${!scene_files[@]}"; do
        file="${scene_files[i]}" name="${scene_names[i]}" line='' status=0 estimator='' key="$i"
        if [[ "$track" == pt ]]; then estimator="${estimator_of[$stage]:-path}" key="$i-$estimator"; fi
        image_args=()
        [[ "$verify" -eq 0 ]] || image_args=(--output "$tmp/$stage-$i.png")
        CUDA_VISIBLE_DEVICES="$first_gpu" timeout -k 5 "$timeout_s" "$bin_dir/$stage" --scene "$file" --size 64x64 \
            ${image_args[@]+"${image_args[@]}"} >/dev/null 2>"$tmp/$stage-$i.err" </dev/null || status=$?
        if [[ "$status" -eq 2 ]] && grep -q 'holds at most' "$tmp/$stage-$i.err"; then
            line="$(grep -m1 'holds at most' "$tmp/$stage-$i.err")"
            skipped_pairs+=("$stage $name")
            echo "$stage $name: skipped: $line" >>"$dir/verify.txt"
            echo "scaling: $stage skips $name: $line" >&2
            continue
        fi
        if [[ "$verify" -eq 0 ]]; then
            timed["$stage $name"]=1
            continue
        fi
        reference_image "$i" "$estimator"
        reference_png="${reference_of[$key]}"
        if [[ "$status" -eq 0 && -n "$reference_png" ]] \
            && line="$("$bin_dir/compare-images" "$reference_png" "$tmp/$stage-$i.png" \
                       --max-differing-percent "${tolerance_of[$stage]:-0}")"; then
            timed["$stage $name"]=1
            echo "$stage $name: ok: $line${estimator:+ (estimator $estimator)}" >>"$dir/verify.txt"
            continue
        fi
        if [[ "$status" -ne 0 ]]; then
            line="exit status $status: $(tail -n1 "$tmp/$stage-$i.err")"
        elif [[ -z "$reference_png" && "$track" == pt ]]; then
            line="no pt-reference image of $file (estimator $estimator): $(tail -n1 "$tmp/ref-$key.err")"
        elif [[ -z "$reference_png" ]]; then
            line="no CPU reference of $file: $(tail -n1 "$tmp/ref-$i.err")"
        fi
        failed_pairs+=("$stage $name")
        echo "$stage $name: FAILED: $line" >>"$dir/verify.txt"
        echo "scaling: $stage on $name FAILED verification, it will not be timed: $line" >&2
    done
done

# --- timing: run-major (run 1 of every stage on every scene, then run 2, ...) ---------------
declare -A done_ok=()
while read -r key; do done_ok["$key"]=1; done < <("$repo/tools/runner/runs-file.sh" --rows "$dir" |
    awk -F',' 'NR > 1 && $15 == "ok" { print $3 " " $16 " " $2 }')
: >"$tmp/jobs"
order="$offset"
for ((run = 1; run <= runs; run++)); do
    for stage in "${stages[@]}"; do
        for i in "${!scene_files[@]}"; do
            [[ -n "${timed["$stage ${scene_names[i]}"]:-}" ]] || continue
            [[ -z "${done_ok["$stage ${scene_names[i]} $run"]:-}" ]] || continue
            order=$((order + 1))
            printf '%s\t%s\t%s\t%s\t%s\n' "$order" "$run" "$stage" "${scene_files[i]}" "${scene_names[i]}" >>"$tmp/jobs"
        done
    done
done
# Which source and which executables this session times: a row per stage it has runs of
# (tools/runner/provenance.sh), after the rows of earlier sessions (--resume).
declare -A has_jobs=()
while IFS= read -r stage; do has_jobs[$stage]=1; done < <(cut -f3 "$tmp/jobs" | sort -u)
timed_now=()
for stage in "${stages[@]}"; do [[ -z "${has_jobs[$stage]:-}" ]] || timed_now+=("$stage"); done
if [[ ${#timed_now[@]} -gt 0 ]]; then
    "$repo/tools/runner/provenance.sh" append "$dir/provenance.tsv" "$bin_dir" "${timed_now[@]}" ||
        echo "scaling: the provenance of the runs could not be written to $dir/provenance.tsv" >&2
fi
unset RUN_VARIANT RUN_STAGE_ARGS RUN_CSV RUN_PT_SCENE RUN_IMAGE
export RUN_DIR="$dir" RUN_BIN_DIR="$bin_dir" RUN_SCENE="${scene_files[0]}" RUN_TIMEOUT="$timeout_s" \
    RUN_GPU_LIST="$gpus_spec" RUN_GPU_INFO="$tmp/gpus" RUN_HOST="${RUN_HOSTNAME:-$(hostname)}" \
    RUN_TOTAL="$(wc -l <"$tmp/jobs")" RUN_START="$(date +%s)" RUN_LOG_PREFIX=scaling RUN_ONE_FRAME=1
interrupted=0
trap 'interrupted=1' INT TERM
if [[ "$RUN_TOTAL" -gt 0 ]]; then
    echo "scaling: timing ${#timed[@]} (stage, scene) pair(s) x $runs runs ($RUN_TOTAL to do) on $ngpus x $gpu_name into $dir" >&2
    parallel --will-cite -j "$ngpus" --joblog "+$dir/joblog.txt" --colsep '\t' \
        "$repo/tools/runner/run-one.sh" '{%}' '{1}' '{2}' '{3}' '{4}' '{5}' <"$tmp/jobs" || true
fi
trap - INT TERM
rm -rf "$dir"/.tmp.* "$dir/.progress"
# The campaign has ended (or was interrupted): its runs.csv becomes runs.csv.gz, the form kept
# (under the runs' lock, which close-runs.sh then removes).
status=0
"$repo/tools/runner/close-runs.sh" "$dir" || status=1
runs_file="$("$repo/tools/runner/runs-file.sh" "$dir")"

# --- summaries, the plot, and (--reference) the READMEs' tables --------------------------
python3 "$repo/tools/plot.py" --scaling "$dir" || echo "scaling: the summary or the plot failed" >&2
if [[ "$reference" -eq 1 ]]; then
    python3 "$repo/tools/update_readmes.py" --results "$out" || echo "scaling: README update failed" >&2
fi
failed_runs="$("$repo/tools/runner/runs-file.sh" --rows "$dir" | awk -F',' -v o="$offset" 'NR > 1 && $15 == "failed" && $1 > o {
    printf "  %s on %s run %s: %s\n", $3, $16, $2, $13 }')"
if [[ -n "$failed_runs" ]]; then
    echo "scaling: these runs failed (logs in $dir/logs/):" >&2; echo "$failed_runs" >&2; status=1
fi
if [[ ${#failed_pairs[@]} -gt 0 ]]; then
    echo "scaling: failed verification, not timed: $(printf '%s, ' "${failed_pairs[@]}" | sed 's/, $//') (see $dir/verify.txt)" >&2
    status=1
fi
if [[ "$interrupted" -eq 1 ]]; then
    again=(--resume)
    [[ "$reference" -eq 1 ]] || again+=(--out "$out")
    again+=(${forward[@]+"${forward[@]}"})
    echo "scaling: interrupted; every finished run is in $runs_file; continue with: $0$(printf ' %q' "${again[@]}")" >&2
    exit 130
fi
echo "scaling: results in $dir" >&2
exit "$status"
