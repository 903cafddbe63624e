#!/usr/bin/env bash
# A first, short device run of stage 34 (persistent tiles): build 33 and 34; 34's image against
# 33's at 8192x8192 on the benchmark and 100,000 random spheres and at 1000x777 with --block 10x3
# on 10,000 (warps of 30 lanes); kernel_events of both, interleaved, as many rounds as fit
# (µs, variants.csv). Logs in logs.tgz. Run from the repository root on the GPU machine with the
# device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
A=33-branch-free-boxes B=34-persistent-tiles s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/scenes/random-10k.scene build/scenes/random-100k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
{ for run in "scenes/benchmark.scene" "$s/random-100k.scene" "$s/random-10k.scene --size 1000x777 --block 10x3"; do
    build/$A --scene $run --output /tmp/a.ppm >/dev/null 2>>$L/full.err; build/$B --scene $run --output /tmp/b.ppm >/dev/null 2>>$L/full.err
    cmp -s /tmp/a.ppm /tmp/b.ppm && echo "$run: 34 identical to 33" || echo "$run: 34 DIFFERS from 33"
  done; } | tee "$OUT/full-size.txt"
echo "full size $(el) s"
echo "stage,scene,run,kernel_events_us" >"$OUT/variants.csv"
for run in 1 2 3 4 5; do for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene; do for st in $A $B; do
  [ $(el) -lt ${END:-80} ] || break 3
  echo "$st,$(basename $scene .scene),$run,$(build/$st --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} END {print k}')" >>"$OUT/variants.csv"
done; done; done
echo "timing $(el) s"; cat "$OUT/variants.csv"
