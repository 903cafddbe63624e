#!/usr/bin/env bash
# Device run of stage 32 (a lean box test) in development: build; its image at 8192x8192 against
# stage 31's on the benchmark, random-10k and random-100k; the differential test; a short scaling
# campaign of 31 and 32 (RUNS runs a pair, each pair verified at 64x64 against the CPU reference
# first); then Nsight Compute's source counters of one frame of stages 31 and 32 on random-100k at
# 1024x1024 (which SASS instructions the walk spends its issue slots on). Run from the repository
# root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
CUDA_ARCH=90 make -j"$(nproc)" build/31-compact-nodes build/32-lean-box-test build/cpu-reference build/compare-images scenes \
    >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
for scene in scenes/benchmark.scene build/scenes/random-10k.scene build/scenes/random-100k.scene build/scenes/clustered-100k.scene; do
  for s in 31-compact-nodes 32-lean-box-test; do timeout 60 build/$s --scene $scene --output /tmp/$s.ppm >/dev/null 2>&1 || echo "$s $scene: FAILED"; done
  cmp -s /tmp/31-compact-nodes.ppm /tmp/32-lean-box-test.ppm && echo "$scene: 32 identical to 31 at full size" || echo "$scene: 32 DIFFERS from 31"
done | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 60 tools/difftest.sh --seeds "${SEEDS:-24}" --stages 32 --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
s=build/scenes
timeout $(( ${END:-200} - $(el) )) tools/scaling.sh --stages 31,32 --runs "${RUNS:-3}" --out results/campaign \
    --scenes scenes/benchmark.scene,$s/random-1k.scene,$s/random-10k.scene,$s/random-100k.scene,$s/clustered-100k.scene \
    >"$OUT/logs/scaling.log" 2>&1
echo "scaling rc=$? $(el) s"
tar -czf "$OUT/scaling.tgz" -C results/campaign/nvidia-h200 scaling 2>/dev/null
sed -n 7,12p results/campaign/nvidia-h200/scaling/summary.md
grep -A3 render_kernel build/32-lean-box-test.resources.txt | grep -E "Used|spill"
if [ "${SOURCE_COUNTERS:-1}" = 1 ]; then
  ncu --version | tail -1
  for s32 in 31-compact-nodes 32-lean-box-test; do
    id=${s32%%-*}
    timeout 120 ncu --section SourceCounters --section WarpStateStats -k regex:render_kernel -c 1 -f -o /tmp/prof$id \
        build/$s32 --scene $s/random-100k.scene --size 1024x1024 >"$OUT/logs/ncu$id.log" 2>&1
    echo "ncu $s32 rc=$? $(el) s"
    ncu -i /tmp/prof$id.ncu-rep --page source --csv --print-source sass 2>&1 | gzip >"$OUT/sass$id.csv.gz"
    ncu -i /tmp/prof$id.ncu-rep --page details --csv 2>&1 | gzip >"$OUT/details$id.csv.gz"
  done
  echo "export $(el) s"
fi
