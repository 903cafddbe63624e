#!/usr/bin/env bash
# Device run: the clustered scene family (scenes/generate-random.py --clustered) through the
# chapters that take big scenes (test_big_scenes: chapters 4, 5, P4 and P5 against the CPU
# references), then stage 31 timed on the random and the clustered scenes of each size (a short
# scaling campaign, RUNS runs a pair). Run from the repository root on the GPU machine with the
# device kit in .kit/; logs under $OUT.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
stages=$(tools/stages table | awk -F'\t' 'NR > 1 && $4 ~ /^P?[45]\. / { print "build/" $1 }')
CUDA_ARCH=90 make -j"$(nproc)" $stages build/01-base build/21-persistent-rows build/p12-host-work-behind-render \
    build/cpu-reference build/pt-reference build/compare-images build/tests/test_big_scenes scenes >"$OUT/logs/build.log" 2>&1 \
    || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
BUILD=build timeout 300 tests/run-tests.sh build/tests/test_big_scenes >"$OUT/test_big_scenes.log" 2>&1
echo "test_big_scenes rc=$? $(el) s: $(tail -1 "$OUT/test_big_scenes.log")"
s=build/scenes
timeout $(( ${END:-560} - $(el) )) tools/scaling.sh --stages "${SPEC:-31}" --runs "${RUNS:-5}" --out results/campaign \
    --scenes $s/random-1k.scene,$s/clustered-1k.scene,$s/random-10k.scene,$s/clustered-10k.scene,$s/random-100k.scene,$s/clustered-100k.scene \
    >"$OUT/logs/scaling.log" 2>&1
echo "scaling rc=$? $(el) s"
tar -czf "$OUT/scaling.tgz" -C results/campaign/nvidia-h200 scaling
sed -n 5,12p results/campaign/nvidia-h200/scaling/summary.md
