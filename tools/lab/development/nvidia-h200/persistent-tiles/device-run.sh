#!/usr/bin/env bash
# A first, short device run of side stage 33f (persistent tiles): build 33 and 33f; 33f's image
# against 33's at 8192x8192 on the benchmark and 100,000 random spheres and at 1000x777 with
# --block 10x3 on 10,000 (warps of 30 lanes); the differential test on 33f; kernel_events of both,
# interleaved, as many rounds as fit (µs, variants.csv); Nsight Compute's achieved occupancy, warp
# instructions and duration of the first band's kernel of 33 and 33f on random-100k. Logs in
# logs.tgz. Run from the repository root on the GPU machine with the device kit in .kit/.
# (The run whose data lie in results/reference/nvidia-h200/development/persistent-tiles/ named the
# stage 34-persistent-tiles: its lines say 34, its profile is occupancy34.csv.)
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
A=33-branch-free-boxes B=33f-persistent-tiles s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/cpu-reference build/compare-images build/scenes/random-10k.scene build/scenes/random-100k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
{ for run in "scenes/benchmark.scene" "$s/random-100k.scene" "$s/random-10k.scene --size 1000x777 --block 10x3"; do
    build/$A --scene $run --output /tmp/a.ppm >/dev/null 2>>$L/full.err; build/$B --scene $run --output /tmp/b.ppm >/dev/null 2>>$L/full.err
    cmp -s /tmp/a.ppm /tmp/b.ppm && echo "$run: 33f identical to 33" || echo "$run: 33f DIFFERS from 33"
  done; } | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 100 tools/difftest.sh --seeds "${SEEDS:-48}" --stages 33f --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
echo "stage,scene,run,kernel_events_us" >"$OUT/variants.csv"
for run in 1 2 3 4 5; do for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene; do for st in $A $B; do
  [ $(el) -lt ${END:-200} ] || break 3
  echo "$st,$(basename $scene .scene),$run,$(build/$st --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} END {print k}')" >>"$OUT/variants.csv"
done; done; done
echo "timing $(el) s"; cat "$OUT/variants.csv"
for st in $A $B; do
  id=${st%%-*}
  timeout 60 ncu --metrics sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
      -k regex:render_kernel -c 1 --csv build/$st --scene $s/random-100k.scene >"$OUT/occupancy$id.csv" 2>$L/ncu$id.log
  echo "ncu $st rc=$? $(el) s"; grep -E "warps_active|inst_executed.sum|duration" "$OUT/occupancy$id.csv" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
