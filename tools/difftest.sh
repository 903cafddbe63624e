#!/usr/bin/env bash
# The differential test: random valid scenes of both tracks (tools/random-scene.py, one scene per
# track and seed: odd and tiny sizes, counts up to the stages' limits, overlapping, nested and
# coincident spheres, the camera or the light inside a sphere, spheres behind the camera, scales
# from 1e-3 to 1e5, every material), each rendered once by its track's CPU reference
# (build/cpu-reference; build/pt-reference once per estimator the stages use) and by every stage,
# whose image must have the reference's exact bits. A stage that changes the arithmetic on
# purpose (12a: fused multiply-add) is held instead to its manifest's difftest-differing-percent,
# the share of pixels allowed to differ over the whole run: its max-differing-percent is measured
# on the benchmark, where few pixels hang on a rounding, while on random scenes many do (grazing
# rays, far cameras, huge grounds: 2.98% for 12a over seeds 1-24 on the H100). A stage that refuses a scene
# for its sphere count (exit status 2, "holds at most N") is skipped on it and counted; a stage
# that renders no scene exactly (every one refused, or allowed to differ) fails, in one line that
# names it, since nothing then shows it exact. The runs go in parallel, many small CUDA processes
# on one GPU. The last line counts (seed, stage) pairs:
#   difftest: 24 seeds x 74 stages: E exact, A allowed to differ, L skipped (limit), F failed
# Before it, each failure names the stage and the seed, and keeps the scene file (with the
# reference's and the stage's images) in the --keep folder: a regression test to add.
#
# Usage: tools/difftest.sh [--seeds N | --seed-list LIST] [--stages SPEC] [--jobs N]
#                          [--keep DIR] [--bin-dir DIR] [--timeout SEC]
#   --seeds N        seeds 1 to N (default 24; `make difftest SEEDS=200` runs longer)
#   --seed-list L    these seeds instead: 17, or 3,17,40-45
#   --stages SPEC    the stages, as ./run.sh takes them: 1-4,7a,p1-3 (default every stage)
#   --jobs N         runs at once (default the cores, nproc)
#   --keep DIR       where a failing seed's scene and images go (default
#                    results/local/difftest/failed, which git ignores)
#   --bin-dir DIR    the stages, cpu-reference, pt-reference and compare-images (default $BUILD,
#                    else build)
#   --timeout SEC    seconds a run may take (default 120); a run that takes longer fails
# Paths are taken from the repository's root. Environment: RUN_NVIDIA_SMI (the nvidia-smi
# command), STAGES_DIR (the folder of stage folders).
# Exit status: 0 nothing failed; 1 a failure; 2 a bad option or an executable not built; 77 no
# GPU here (it says it was skipped: tests/test_difftest.c skips, `make difftest` succeeds).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export STAGES_DIR="${STAGES_DIR:-$repo/stages}"
seed_spec=1-24 stage_spec='' jobs="$(nproc)" keep=results/local/difftest/failed
bin_dir="${BUILD:-build}" timeout_s=120
. "$(dirname "${BASH_SOURCE[0]}")/runner/header-help.sh"
usage() { header_help "${BASH_SOURCE[0]}"; }
die() { echo "difftest: $1" >&2; exit 2; }
say() { echo "difftest: $*"; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seeds) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--seeds takes a positive number"; seed_spec="1-$2"; shift 2 ;;
        --seed-list) [[ "${2:-}" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || die "--seed-list takes seeds and ranges: 17 or 3,17,40-45"
                     seed_spec="$2"; shift 2 ;;
        --stages) [[ -n "${2:-}" ]] || die "--stages takes a list, e.g. 1-4,7a,p1-3"; stage_spec="$2"; shift 2 ;;
        --jobs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--jobs takes a positive number"; jobs="$2"; shift 2 ;;
        --keep) [[ -n "${2:-}" ]] || die "--keep takes a folder"; keep="$2"; shift 2 ;;
        --bin-dir) [[ -d "${2:-}" ]] || die "--bin-dir: no such folder: ${2:-}"; bin_dir="$2"; shift 2 ;;
        --timeout) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--timeout takes a positive number of seconds"; timeout_s="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (--help lists them)" ;;
    esac
done

# The seeds, each once, in order.
IFS=',' read -r -a parts <<<"$seed_spec"
for part in "${parts[@]}"; do
    first="${part%-*}" last="${part#*-}"
    [[ "$((10#$last))" -ge "$((10#$first))" ]] || die "--seed-list: $part runs backwards"
done
mapfile -t seeds < <(for part in "${parts[@]}"; do seq "$((10#${part%-*}))" "$((10#${part#*-}))"; done | sort -nu)

# The stages, in course order, with what the runs need of their manifests (tools/stages).
if [[ -n "$stage_spec" ]]; then
    names="$(tools/stages select "$stage_spec" 2>&1)" || die "${names#stages: }"
else
    names="$(tools/stages list)"
fi
# (A stage the build left out for want of what it links is passed over, in a line: NCCL.)
names="$(STAGES_PROGRAM=difftest tools/stages built-here "$bin_dir" $names)" || exit 2
declare -A track_of=() estimator_of=() tolerance_of=() id_of=()
# ('|' between the fields: read keeps an empty one, the main track's estimator, where a tab would
# not.)
while IFS='|' read -r name track estimator tolerance id; do
    track_of[$name]="$track" estimator_of[$name]="$estimator" tolerance_of[$name]="$tolerance" id_of[$name]="$id"
done < <(tools/stages table | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print $c["stage"] "|" $c["track"] "|" $c["estimator"] "|" $c["difftest-differing-percent"] "|" $c["id"] }')
stages=() tracks=() estimators=()
for name in $names; do
    [[ -x "$bin_dir/$name" ]] || die "$bin_dir/$name is not built (make $bin_dir/$name, or make stages)"
    stages+=("$name")
    [[ " ${tracks[*]-} " == *" ${track_of[$name]} "* ]] || tracks+=("${track_of[$name]}")
    if [[ "${track_of[$name]}" == pt && " ${estimators[*]-} " != *" ${estimator_of[$name]} "* ]]; then
        estimators+=("${estimator_of[$name]}")
    fi
done
[[ ${#stages[@]} -gt 0 ]] || die "no stage to run"
tools=(compare-images)
[[ " ${tracks[*]} " != *" main "* ]] || tools+=(cpu-reference)
[[ " ${tracks[*]} " != *" pt "* ]] || tools+=(pt-reference)
for tool in "${tools[@]}"; do
    [[ -x "$bin_dir/$tool" ]] || die "$bin_dir/$tool is not built (make $bin_dir/$tool)"
done
command -v python3 >/dev/null || die "python3 not found (tools/random-scene.py writes the scenes)"

# A GPU, or a skip that says so.
# (awk reads every line: a head that stopped early could kill nvidia-smi, and a GPU read as none.)
gpu="$("${RUN_NVIDIA_SMI:-nvidia-smi}" --query-gpu=index,name,uuid --format=csv,noheader 2>/dev/null \
       | awk -F', *' 'NR == 1 { print $2 }')" || gpu=''
if [[ -z "$gpu" ]]; then
    say "skipped: no NVIDIA GPU here (nvidia-smi lists none)"
    exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/difftest.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scenes" "$work/references" "$work/images" "$work/results"
export work bin_dir timeout_s
say "${#seeds[@]} seeds x ${#stages[@]} stages on $gpu, $jobs runs at once (bin: $bin_dir)"

# The scenes: one python3 per track.
seed_csv="$(IFS=','; echo "${seeds[*]}")"
for track in "${tracks[@]}"; do
    python3 tools/random-scene.py --track "$track" --seeds "$seed_csv" --out-dir "$work/scenes" \
        || die "tools/random-scene.py --track $track failed"
done

# One reference image per scene (per scene and estimator on the path-tracing track), each on one
# core, as many at once as there are jobs. A reference that fails leaves no image, and every
# stage on that scene fails for it (the generator wrote a scene the specification refuses).
render_reference() {
    local track="$1" seed="$2" estimator="${3:-}" scene="$work/scenes/$1-seed-$2.scene"
    if [[ "$track" == main ]]; then
        "$bin_dir/cpu-reference" --scene "$scene" --threads 1 --output "$work/references/main-seed-$seed.ppm" \
            >/dev/null 2>"$work/references/main-seed-$seed.err" || true
    else
        "$bin_dir/pt-reference" --scene "$scene" --estimator "$estimator" --threads 1 \
            --output "$work/references/pt-seed-$seed-$estimator.ppm" >/dev/null \
            2>"$work/references/pt-seed-$seed-$estimator.err" || true
    fi
}
export -f render_reference
for seed in "${seeds[@]}"; do
    [[ " ${tracks[*]} " != *" main "* ]] || echo "main $seed"
    for estimator in "${estimators[@]+"${estimators[@]}"}"; do echo "pt $seed $estimator"; done
done | xargs -P "$jobs" -L 1 bash -c 'render_reference "$@"' _

# One run of a stage on a scene: its result, one line in $work/results/SEED.STAGE:
# seed, stage, outcome (same, differs, limit, error), differing pixels, pixels, what happened.
run_pair() {
    local seed="$1" stage="$2" track="$3" reference="$4" status=0 compared=0 line='' outcome detail
    local start_ms="$(date +%s%3N)"
    local scene="$work/scenes/$track-seed-$seed.scene" image="$work/images/$track-seed-$seed.$stage.ppm"
    local differing=0 pixels=0
    if [[ ! -s "$work/references/$reference.ppm" ]]; then
        outcome=error detail="the reference refused the scene: $(tail -n 1 "$work/references/$reference.err" 2>/dev/null)"
    else
        timeout -k 5 "$timeout_s" "$bin_dir/$stage" --scene "$scene" --output "$image" \
            >/dev/null 2>"$image.err" </dev/null || status=$?
        if [[ "$status" -eq 2 ]] && grep -q 'holds at most' "$image.err"; then
            outcome=limit detail="$(grep -m 1 -o 'holds at most [0-9]*' "$image.err")"
        elif [[ "$status" -eq 124 || "$status" -eq 137 ]]; then
            outcome=error detail="timed out after $timeout_s s"
        elif [[ "$status" -ne 0 ]]; then
            outcome=error detail="exit status $status: $(tail -n 1 "$image.err")"
        else
            line="$("$bin_dir/compare-images" "$work/references/$reference.ppm" "$image" 2>&1)" || compared=$?
            if [[ "$compared" -le 1 && "$line" =~ differing\ pixels:\ ([0-9]+)\ of\ ([0-9]+) ]]; then
                differing="${BASH_REMATCH[1]}" pixels="${BASH_REMATCH[2]}"
                if [[ "$differing" -eq 0 ]]; then outcome=same; else outcome=differs; fi
                detail="$line"
            else
                outcome=error detail="compare-images: $line"
            fi
        fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$seed" "$stage" "$outcome" "$differing" "$pixels" \
        "${detail//$'\t'/ }" >"$work/results/$seed.$stage"
    printf '%s\t%s\t%s\n' "$(( $(date +%s%3N) - start_ms ))" "$seed" "$stage" >"$work/results/$seed.$stage.ms"
    [[ "$outcome" == differs || "$outcome" == error ]] || rm -f "$image"
    rm -f "$image.err"
}
export -f run_pair
for seed in "${seeds[@]}"; do
    for stage in "${stages[@]}"; do
        if [[ "${track_of[$stage]}" == main ]]; then
            echo "$seed $stage main main-seed-$seed"
        else
            echo "$seed $stage pt pt-seed-$seed-${estimator_of[$stage]}"
        fi
    done
done | xargs -P "$jobs" -L 1 bash -c 'run_pair "$@"' _

# The verdicts: a stage passes a scene with no pixel differing, or with some if its manifest allows
# differing pixels (then its share over the run is printed).
tolerances="$work/tolerances"
for stage in "${stages[@]}"; do printf '%s\t%s\n' "$stage" "${tolerance_of[$stage]}"; done >"$tolerances"
results="$work/results.tsv"
for seed in "${seeds[@]}"; do
    for stage in "${stages[@]}"; do
        if [[ -s "$work/results/$seed.$stage" ]]; then
            cat "$work/results/$seed.$stage"
        else
            printf '%s\t%s\terror\t0\t0\tthe run left no result\n' "$seed" "$stage"
        fi
    done
done >"$results"
verdicts="$(awk -F'\t' '
    FNR == NR { tolerance[$1] = $2; stage_order[++stages] = $1; next }
    { n++; row[n] = $0; stage_of[n] = $2; outcome[n] = $3; runs_of[$2]++
      if ($3 == "same" || $3 == "differs") { differing[$2] += $4; pixels[$2] += $5 } }
    END {
        for (r = 1; r <= n; r++) {
            s = stage_of[r]; o = outcome[r]
            if (o == "same") { exact++; exact_of[s]++ }
            else if (o == "limit") { limit++; limit_of[s]++ }
            else if (o == "differs" && tolerance[s] > 0) { allowed++; allowed_of[s]++ }
            else { failed++; failed_stage[s] = 1; split(row[r], f, "\t"); print "FAILED\t" f[1] "\t" s "\t" f[6] }
        }
        for (s in tolerance)
            if (tolerance[s] > 0 && pixels[s] > 0) {
                share = 100 * differing[s] / pixels[s]
                printf "ALLOWED\t%s\t%d of %d pixels differ over the run (%.4f%%); its manifest " \
                       "allows %s%% (difftest-differing-percent)\n", s, differing[s], pixels[s], share, tolerance[s]
                if (share > tolerance[s] + 0) {
                    failed++; failed_stage[s] = 1
                    printf "FAILED\t-\t%s\tmore pixels differ over the run than its manifest allows\n", s
                }
            }
        # A stage that rendered no scene exactly was never shown exact, though none of its runs
        # failed: every scene over its sphere limit, say. It fails, once (a stage that failed
        # already is named by its failures).
        for (k = 1; k <= stages; k++) {
            s = stage_order[k]
            if (!exact_of[s] && !failed_stage[s]) {
                failed++
                printf "FAILED\t-\t%s\tno scene rendered exactly (%d of %d over its sphere limit, %d allowed " \
                       "to differ)\n", s, limit_of[s], runs_of[s], allowed_of[s]
            }
        }
        printf "COUNTS\t%d\t%d\t%d\t%d\n", exact, allowed, limit, failed
    }' "$tolerances" "$results")"

while IFS=$'\t' read -r kind stage share; do
    [[ "$kind" != ALLOWED ]] || say "$stage: $share"
done <<<"$verdicts"
# Each failure: the scene kept with the reference's image and the stage's (when it wrote one).
again=''
[[ "$bin_dir" == build ]] || again=" --bin-dir $bin_dir"
while IFS=$'\t' read -r kind seed stage detail; do
    [[ "$kind" == FAILED ]] || continue
    if [[ "$seed" == - ]]; then say "FAILED $stage over the run: $detail"; continue; fi
    track="${track_of[$stage]}"
    reference="$track-seed-$seed"
    [[ "$track" == main ]] || reference+="-${estimator_of[$stage]}"
    mkdir -p "$keep" || die "cannot create --keep $keep"
    kept="$keep/$track-seed-$seed.scene"
    cp "$work/scenes/$track-seed-$seed.scene" "$kept"
    [[ ! -f "$work/references/$reference.ppm" ]] \
        || cp "$work/references/$reference.ppm" "$keep/$track-seed-$seed.reference${reference#"$track-seed-$seed"}.ppm"
    [[ ! -f "$work/images/$track-seed-$seed.$stage.ppm" ]] || cp "$work/images/$track-seed-$seed.$stage.ppm" "$keep/"
    say "FAILED $stage on seed $seed: $detail"
    say "  scene kept as $kept ($(sed -n 's/^# features: //p' "$kept")); again: tools/difftest.sh --seed-list $seed --stages ${id_of[$stage]}$again"
done <<<"$verdicts"
# Where the time went: the slowest runs (a stage's CUDA start-up is most of a run's time).
cat "$work"/results/*.ms 2>/dev/null | sort -rn | awk -F'\t' '
    NR <= 5 { line = line (NR > 1 ? ", " : "") $3 " on seed " $2 " " $1 " ms" } END { if (NR) print "difftest: slowest runs: " line }'
read -r _ exact allowed limit failed < <(grep '^COUNTS' <<<"$verdicts")
say "${#seeds[@]} seeds x ${#stages[@]} stages: $exact exact, $allowed allowed to differ, $limit skipped (limit), $failed failed"
[[ "$failed" -eq 0 ]] || exit 1
