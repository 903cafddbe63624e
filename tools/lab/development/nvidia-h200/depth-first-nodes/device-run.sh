#!/usr/bin/env bash
# Device run of stage 34 (depth-first nodes) in development: build; its image at 8192x8192 against
# stage 33's on the benchmark, 10,000 and both 100,000-sphere scenes, and those of stage 33 built
# with smaller register budgets (-DBLOCKS_PER_SM_MIN=6 and 8: 40 and 32 registers a thread); the
# differential test; kernel_events of those builds and of 33 and 34 (3 runs a scene, interleaved,
# µs); a short scaling campaign of 33 and 34 (RUNS runs a pair, each pair verified at 64x64
# against the CPU reference first); Nsight Compute (source counters, memory workload, warp
# states) of the first band's kernel of 33 and 34 on random-100k at 8192x8192. Logs in logs.tgz.
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt
A=33-branch-free-boxes B=34-depth-first-nodes
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/cpu-reference build/compare-images scenes >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
for v in 6 8; do
  NVCCFLAGS="-O3 -DBLOCKS_PER_SM_MIN=$v" CUDA_ARCH=90 make -j"$(nproc)" BUILD=build-b$v build-b$v/$A >$L/build-b$v.log 2>&1 || tail -5 $L/build-b$v.log
  grep -A3 render_kernel build-b$v/$A.resources.txt | grep -E "spill|Used" | sed "s/^/b$v: /"
done
echo "build $(el) s"
s=build/scenes
for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
  for b in build/$A build/$B build-b6/$A build-b8/$A; do timeout 60 $b --scene $scene --output /tmp/$(echo $b | tr / _).ppm >/dev/null 2>$L/full.err || echo "$b $scene: FAILED $(head -1 $L/full.err)"; done
  cmp -s /tmp/build_$A.ppm /tmp/build_$B.ppm && echo "$scene: 34 identical to 33 at full size" || echo "$scene: 34 DIFFERS from 33"
  for v in 6 8; do cmp -s /tmp/build_$A.ppm /tmp/build-b${v}_$A.ppm && echo "$scene: 33 (BLOCKS_PER_SM_MIN=$v) identical" || echo "$scene: 33 (BLOCKS_PER_SM_MIN=$v) DIFFERS"; done
done | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 90 tools/difftest.sh --seeds "${SEEDS:-48}" --stages 34 --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
{ echo "variant,scene,run,kernel_events_us,build_us"
  for run in 1 2 3; do for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene; do
    for b in build/$A build-b6/$A build-b8/$A build/$B; do
      echo "$(echo $b | tr / _),$(basename $scene .scene),$run,$($b --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} $(NF-2) == "Acceleration build" {a=$(NF-1)} END {print k "," a}')"
    done; done; done; } > "$OUT/variants.csv"
echo "variants $(el) s"; head -5 "$OUT/variants.csv"
timeout $(( ${END:-300} - $(el) )) tools/scaling.sh --stages 33,34 --runs "${RUNS:-3}" --out results/campaign \
    --scenes scenes/benchmark.scene,$s/random-1k.scene,$s/random-10k.scene,$s/random-100k.scene,$s/clustered-100k.scene \
    >$L/scaling.log 2>&1
echo "scaling rc=$? $(el) s"
tar -czf "$OUT/scaling.tgz" -C results/campaign/nvidia-h200 scaling 2>/dev/null
sed -n 7,12p results/campaign/nvidia-h200/scaling/summary.md
if [ "${SOURCE_COUNTERS:-1}" = 1 ]; then
  for st in $A $B; do
    id=${st%%-*}
    timeout 150 ncu --section SourceCounters --section WarpStateStats --section MemoryWorkloadAnalysis --section SpeedOfLight \
        -k regex:render_kernel -c 1 -f -o /tmp/prof$id build/$st --scene $s/random-100k.scene >$L/ncu$id.log 2>&1
    echo "ncu $st rc=$? $(el) s"
    ncu -i /tmp/prof$id.ncu-rep --page source --csv --print-source sass 2>&1 | gzip >"$OUT/sass$id-8192.csv.gz"
    ncu -i /tmp/prof$id.ncu-rep --page details --csv 2>&1 | gzip >"$OUT/details$id-8192.csv.gz"
  done
  echo "export $(el) s"
fi
