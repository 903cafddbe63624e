#!/usr/bin/env bash
# Profiles one stage's kernel with Nsight Compute (ncu): the sections that show the course's
# lessons (launch statistics, occupancy, speed of light, memory workload, warp states, source
# counters per line of render.cu), one launch of the kernel its manifest's profile-kernel names
# (render_kernel, the main track's, by default; docs/adding-a-stage.md). The stage is built with
# -lineinfo into build-lineinfo/ first, so the source page maps to render.cu's lines.
# Saves results/local/<gpu-slug>/profiles/<stage>.ncu-rep (open it with ncu-ui, or ncu -i) and an
# xz copy, <stage>.ncu-rep.xz, about a fifteenth of the size, which the repository keeps for its
# reference profiles (.gitignore leaves out the .ncu-rep: xz -dk to open a committed one); the
# raw metrics as <stage>.raw.csv, a short summary as <stage>.profile.txt, and where it comes from
# as <stage>.provenance.tsv (the source revision, the stage's source hash and the sha256 of the
# build-lineinfo/ executable profiled: tools/runner/provenance.sh); and prints the summary.
#
# usage: tools/profile.sh [--scene FILE] [--launch N] [--out DIR | --reference] STAGE
#                       (make profile STAGE=07 [SCENE=FILE] [LAUNCH=N] [REFERENCE=1])
#   STAGE         a stage id (7, 07, 7a, p9, p09) or a folder name
#   --scene FILE  the scene rendered. Main track: scenes/quick.scene (512x512, the whole frame in
#                 one launch), except for the stages that render in 16 bands (stage 10 on): a
#                 band of quick.scene is 16 blocks, too few to fill a GPU, so they default to
#                 scenes/benchmark.scene, whose bands are 4,096 blocks. Path-tracing track: the
#                 scene its campaign times, scenes/pt-benchmark.scene (1024x1024, 2 samples a
#                 pixel; the stages' own default), or the one its manifest's campaign-args name
#                 (p08b-p08f: scenes/pt-many-lights.scene); pt-quick's 128x128 paths are 128
#                 blocks a launch, too few to fill a GPU, and its 131,072 paths leave most of a
#                 persistent kernel's threads without one
#   --launch N    which launch of the kernel, from 0. Default: the manifest's profile-launch,
#                 else band 10 of 16, ground, where the work is, for the main stages that render
#                 in bands, else 0. The path-tracing stages name theirs: launch 1 of a wavefront
#                 stage's kernel, launched once a segment of each sample, is segment 1 of sample
#                 0, the first bounce (the segment the kernel benchmark records: most paths still
#                 going, their rays scattered; launch 0 is the camera's rays); launch 1 of a
#                 megakernel launched once a sample is sample 1 (the same work as sample 0, and
#                 p08e's first frame that reuses reservoirs; p08a's launch 5 is one tile among
#                 the spheres); a persistent kernel is launched once: launch 0
#   --out DIR     where the files go (default results/local/<gpu-slug>/profiles, ignored by git)
#   --reference   into the course's results/reference/<gpu-slug>/profiles instead, which the
#                 stage READMEs' profile sections are made from (maintainers)
# A path-tracing stage runs as its campaign times it: with the words of its manifest's
# campaign-args (p08a: --tiles 4), a --scene FILE given here in place of theirs.
# environment: NCU (the ncu command; default ncu on PATH, else $CUDA_HOME/bin/ncu),
#   NVIDIA_SMI (default nvidia-smi), CUDA_ARCH (passed to make).
# Exit status: 0 profiled; 2 bad arguments, no ncu or no GPU (one line on stderr); 1 a failure of
# the build or of ncu (its log is named).
set -euo pipefail
tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$tools_dir/.."

usage() { sed -n '/^# usage:/,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; }
fail() { echo "profile: $*" >&2; exit 2; }

scene=''
launch=''
out=''
reference=0
args=()
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --reference) reference=1; shift ;;
        --scene|--launch|--out)
            [ $# -ge 2 ] && [ -n "$2" ] || fail "option $1 needs a value"
            case $1 in --scene) scene=$2 ;; --launch) launch=$2 ;; --out) out=$2 ;; esac
            shift 2 ;;
        -*) fail "unknown option '$1' (see --help)" ;;
        *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -ge 1 ] && [ -n "${args[0]}" ] || fail "no stage given (usage: tools/profile.sh STAGE, or make profile STAGE=07)"
[ ${#args[@]} -eq 1 ] || fail "too many arguments: '${args[*]}' (usage: tools/profile.sh [options] STAGE)"
[[ -z $launch || $launch =~ ^[0-9]{1,4}$ ]] || fail "--launch '$launch' is not a launch number (0, 1, ...)"
[ -z "$scene" ] || [ -f "$scene" ] || fail "no scene file '$scene'"

[ $reference -eq 0 ] || [ -z "$out" ] || fail "--reference writes results/reference: give --out or --reference, not both"
stages_dir=${STAGES_DIR:-stages}
stage=$(STAGES_DIR=$stages_dir STAGES_PROGRAM=profile "$tools_dir/stages" resolve "${args[0]}") || exit 2
manifest() { STAGES_DIR=$stages_dir STAGES_PROGRAM=profile "$tools_dir/stages" get "$stage" "$1"; }
track=$(manifest track) || exit 2
# The kernel measured and the launch: the manifest's (docs/adding-a-stage.md, section 3).
kernel=$(manifest profile-kernel) || exit 2
[ -n "$launch" ] || launch=$(manifest profile-launch) || exit 2
# The words after the scene: a path-tracing stage's campaign-args, less the scene they name.
stage_args=()
if [ "$track" = pt ]; then
    campaign_args=$(manifest campaign-args) || exit 2
    read -r -a words <<<"$campaign_args" || true
    campaign_scene=''
    for ((i = 0; i < ${#words[@]}; i++)); do
        if [ "${words[i]}" = --scene ] && [ $((i + 1)) -lt ${#words[@]} ]; then
            campaign_scene=${words[i + 1]}
            i=$((i + 1))
        else
            stage_args+=("${words[i]}")
        fi
    done
    [ -n "$scene" ] || scene=${campaign_scene:-scenes/pt-benchmark.scene}
    [ -n "$launch" ] || launch=0
else
    bands=0
    # The whole program (its render.cu and the parts it includes: tools/stage-show.sh).
    program=$("$tools_dir/stage-show.sh" --stages "$stages_dir" "$stage") || exit 2
    [[ $program != *BAND_COUNT* ]] || bands=1
    if [ -z "$scene" ]; then
        if [ $bands -eq 1 ]; then scene=scenes/benchmark.scene; else scene=scenes/quick.scene; fi
    fi
    if [ -z "$launch" ]; then
        if [ $bands -eq 1 ]; then launch=10; else launch=0; fi
    fi
fi

ncu=${NCU:-}
if [ -z "$ncu" ]; then
    ncu=$(command -v ncu || true)
    if [ -z "$ncu" ]; then
        nvcc_path=$(command -v nvcc || true)
        for candidate in "${CUDA_HOME:-}/bin/ncu" "${nvcc_path%/nvcc}/ncu" /usr/local/cuda/bin/ncu; do
            [ -x "$candidate" ] && { ncu=$candidate; break; }
        done
    fi
fi
[ -n "$ncu" ] && command -v "$ncu" >/dev/null 2>&1 ||
    fail "ncu (Nsight Compute) not found${NCU:+ at '$NCU'}: it comes with the CUDA Toolkit (Debian/Ubuntu: apt-get install nsight-compute, or NVIDIA's cuda-nsight-compute-* package); put it on PATH or set NCU=/path/to/ncu"
command -v xz >/dev/null 2>&1 ||
    fail "xz not found: it packs the report as the repository keeps it (Debian/Ubuntu: apt-get install xz-utils)"

gpu=$("${NVIDIA_SMI:-nvidia-smi}" --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
[ -n "$gpu" ] || fail "no GPU: ${NVIDIA_SMI:-nvidia-smi} lists none, and Nsight Compute profiles a GPU's kernels"
if [ $reference -eq 1 ]; then
    out=results/reference/$("$tools_dir/runner/slug.sh" "$gpu")/profiles
fi
out=${out:-results/local/$("$tools_dir/runner/slug.sh" "$gpu")/profiles}
mkdir -p "$out" || fail "cannot create '$out'"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "profile: building $stage with -lineinfo into build-lineinfo/" >&2
if ! NVCCFLAGS="-O3 -lineinfo" make --no-print-directory BUILD=build-lineinfo "build-lineinfo/$stage" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "profile: the build of $stage failed (above)" >&2
    exit 1
fi

report="$out/$stage"
echo "profile: ncu on $stage, launch $launch of $kernel, $scene${stage_args[*]:+ ${stage_args[*]}} ($gpu)" >&2
if ! "$ncu" --kernel-name "$kernel" --launch-skip "$launch" --launch-count 1 \
        --section LaunchStats --section Occupancy --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters \
        --import-source yes --force-overwrite --export "$report" \
        "build-lineinfo/$stage" --scene "$scene" ${stage_args[@]+"${stage_args[@]}"} >"$log" 2>&1; then
    cp "$log" "$report.ncu.log"
    echo "profile: ncu failed on $stage (its output: $report.ncu.log)" >&2
    exit 1
fi
if [ ! -s "$report.ncu-rep" ]; then
    cp "$log" "$report.ncu.log"
    echo "profile: ncu wrote no report for $stage: is launch $launch past its last launch of $kernel? (its output: $report.ncu.log)" >&2
    exit 1
fi
xz -9 --keep --force "$report.ncu-rep"
"$tools_dir/runner/provenance.sh" write "$report.provenance.tsv" build-lineinfo "$stage" ||
    echo "profile: the provenance of the profile could not be written to $report.provenance.tsv" >&2
"$ncu" --import "$report.ncu-rep" --page raw --csv >"$report.raw.csv"
python3 "$tools_dir/runner/profile_summary.py" "$report.raw.csv" \
    --title "$stage on $gpu: $scene, launch $launch of $kernel (ncu $("$ncu" --version | tail -n 1 | awk '{print $2}'))" \
    | tee "$report.profile.txt"
echo "profile: report $report.ncu-rep (ncu-ui, or ncu -i; the repository keeps $report.ncu-rep.xz), raw metrics $report.raw.csv" >&2
