#!/usr/bin/env bash
# Device run of stage 33 (rays in passes) in development: build; its image at 8192x8192 against
# stage 32's on the benchmark, 10,000 and both 100,000-sphere scenes; the differential test; a
# short scaling campaign of 32 and 33 (RUNS runs a pair, each pair verified at 64x64 against the
# CPU reference first); Nsight Compute's source counters of the first band's kernels of each, on
# random-100k at 1024x1024 (SOURCE_COUNTERS=0 leaves them out). Logs in logs.tgz. Run from the
# repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt
A=32-lean-box-test B=33-rays-in-passes
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/cpu-reference build/compare-images scenes \
    >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
for scene in scenes/benchmark.scene build/scenes/random-10k.scene build/scenes/random-100k.scene build/scenes/clustered-100k.scene; do
  for s in $A $B; do timeout 60 build/$s --scene $scene --output /tmp/$s.ppm >/dev/null 2>$L/$s-full.err || echo "$s $scene: FAILED $(head -1 $L/$s-full.err)"; done
  cmp -s /tmp/$A.ppm /tmp/$B.ppm && echo "$scene: 33 identical to 32 at full size" || echo "$scene: 33 DIFFERS from 32"
done | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 90 tools/difftest.sh --seeds "${SEEDS:-24}" --stages 33 --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
s=build/scenes
timeout $(( ${END:-200} - $(el) )) tools/scaling.sh --stages 32,33 --runs "${RUNS:-3}" --out results/campaign \
    --scenes scenes/benchmark.scene,$s/random-1k.scene,$s/random-10k.scene,$s/random-100k.scene,$s/clustered-100k.scene \
    >$L/scaling.log 2>&1
echo "scaling rc=$? $(el) s"
tar -czf "$OUT/scaling.tgz" -C results/campaign/nvidia-h200 scaling 2>/dev/null
sed -n 7,12p results/campaign/nvidia-h200/scaling/summary.md
grep -A3 -E "_kernel" build/$B.resources.txt | grep -E "Compiling|spill|Used"
if [ "${SOURCE_COUNTERS:-1}" = 1 ]; then
  for st in $A $B; do
    id=${st%%-*}
    timeout 120 ncu --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy \
        -k regex:'render_kernel|secondary_kernel|reflection_shadow_kernel' -c 3 -f -o /tmp/prof$id \
        build/$st --scene $s/random-100k.scene --size 1024x1024 >$L/ncu$id.log 2>&1
    echo "ncu $st rc=$? $(el) s"
    ncu -i /tmp/prof$id.ncu-rep --page source --csv --print-source sass 2>&1 | gzip >"$OUT/sass$id.csv.gz"
    ncu -i /tmp/prof$id.ncu-rep --page details --csv 2>&1 | gzip >"$OUT/details$id.csv.gz"
  done
  echo "export $(el) s"
fi
