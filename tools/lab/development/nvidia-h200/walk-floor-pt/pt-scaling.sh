#!/usr/bin/env bash
# Device run of a path-tracing scaling campaign of chapter P5 in development (tools/scaling.sh
# --track pt --stages SPEC, default p15-17: P5's stages and the one they build on; RUNS runs a
# pair, one slot per GPU): build, campaign, and the
# campaign's folder packed as $OUT/pt-scaling.tgz. A campaign cut by the call's limit goes on in
# the next call from the folder carried back in as .kit/pt-scaling (--resume).
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
CUDA_ARCH=90 make -j"$(nproc)" $(tools/stages select "${SPEC:-p15-17}" | sed 's|^|build/|') build/pt-reference build/compare-images scenes \
    >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
resume=()
if [ -d .kit/pt-scaling ]; then mkdir -p results/campaign/nvidia-h200 && cp -R .kit/pt-scaling results/campaign/nvidia-h200/ && resume=(--resume); fi
timeout $(( ${END:-580} - $(el) )) tools/scaling.sh --track pt --stages "${SPEC:-p15-17}" --runs "${RUNS:-100}" --out results/campaign "${resume[@]}" >"$OUT/logs/scaling.log" 2>&1
echo "scaling rc=$? $(el) s"
tail -5 "$OUT/logs/scaling.log"
tar -czf "$OUT/pt-scaling.tgz" -C results/campaign/nvidia-h200 pt-scaling
sed -n 1,30p results/campaign/nvidia-h200/pt-scaling/summary.md 2>/dev/null
