#!/usr/bin/env bash
# Device run of chapter 5's scaling campaign (tools/scaling.sh --stages SPEC, default 31-33:
# stage 31, which the chapter builds on, and every stage and side stage of the chapter; the
# default scenes: the benchmark, 1,000, 10,000 and 100,000 random and clustered spheres; RUNS runs
# a pair, default 100, in interleaved rounds, one slot per GPU) on whichever GPU the machine has:
# build, campaign, and the campaign's folder packed as $OUT/scaling-<gpu-slug>.tgz. A campaign cut
# by the call's limit (END seconds, default 580) goes on in the next call from the folder carried
# back in as .kit/scaling-<gpu-slug> (--resume). Once complete, its runs join the reference
# campaign of that GPU (results/reference/<gpu-slug>/scaling/) as the earlier chapters' did.
# About 35 s a round on one H200 (an estimate from the development runs: 10 stages x 7 scenes),
# so about an hour for 100 rounds on one GPU, half that on two (--gpus, the x2 nodes).
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
slug=$(tools/runner/slug.sh "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
CUDA_ARCH=90 make -j"$(nproc)" $(tools/stages select "${SPEC:-31-33}" | sed 's|^|build/|') build/cpu-reference build/compare-images scenes \
    >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
resume=()
if [ -d ".kit/scaling-$slug" ]; then
  mkdir -p "results/campaign/$slug" && cp -R ".kit/scaling-$slug" "results/campaign/$slug/scaling" && resume=(--resume)
fi
timeout $(( ${END:-580} - $(el) )) tools/scaling.sh --stages "${SPEC:-31-33}" --runs "${RUNS:-100}" --out results/campaign "${resume[@]}" >"$OUT/logs/scaling.log" 2>&1
echo "scaling rc=$? $(el) s"
tail -5 "$OUT/logs/scaling.log"
tar -czf "$OUT/scaling-$slug.tgz" -C "results/campaign/$slug" scaling
sed -n 1,20p "results/campaign/$slug/scaling/summary.md" 2>/dev/null
