#!/usr/bin/env bash
# Device run of stage 34 (own sphere first) in development: build; its image at 8192x8192 against
# stage 33's on the benchmark, 10,000 and both 100,000-sphere scenes; the differential test; a
# short scaling campaign of 33 and 34 (RUNS runs a pair, each pair verified at 64x64 against the
# CPU reference first). Logs in logs.tgz. Run from the repository root on the GPU machine with the
# device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt
A=33-branch-free-boxes B=34-own-sphere-first
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/cpu-reference build/compare-images scenes >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
s=build/scenes
for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
  for b in $A $B; do timeout 60 build/$b --scene $scene --output /tmp/$b.ppm >/dev/null 2>$L/full.err || echo "$b $scene: FAILED $(head -1 $L/full.err)"; done
  cmp -s /tmp/$A.ppm /tmp/$B.ppm && echo "$scene: 34 identical to 33 at full size" || echo "$scene: 34 DIFFERS from 33"
done | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 90 tools/difftest.sh --seeds "${SEEDS:-48}" --stages 34 --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
timeout $(( ${END:-200} - $(el) )) tools/scaling.sh --stages 33,34 --runs "${RUNS:-3}" --out results/campaign \
    --scenes scenes/benchmark.scene,$s/random-1k.scene,$s/random-10k.scene,$s/random-100k.scene,$s/clustered-100k.scene \
    >$L/scaling.log 2>&1
echo "scaling rc=$? $(el) s"
tar -czf "$OUT/scaling.tgz" -C results/campaign/nvidia-h200 scaling 2>/dev/null
sed -n 7,12p results/campaign/nvidia-h200/scaling/summary.md
grep -A3 render_kernel build/$B.resources.txt | grep -E "spill|Used"
