#!/usr/bin/env bash
# Session 2026-11-26b, call 2 (warm, built by s1.sh): the noise table with p08e, ncu of p08e's
# kernels beside p08b's, then the whole sanitizer record.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
[ -x build/p08e-reservoirs ] || { CUDA_ARCH=90 make -j16 all >$OUT/build.log 2>&1 || exit 1; }
slug=$(tools/runner/slug.sh "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
python3 tools/noise.py --scene scenes/pt-many-lights.scene --samples 1,2,4,8 build/p08-megakernel \
  build/p08b-next-event build/p08c-light-pool build/p08d-compact-light-samples build/p08e-reservoirs \
  >$OUT/pt-noise.txt 2>$OUT/noise.err; echo "noise rc=$? at $(el) s"; cat $OUT/pt-noise.txt
for k in initial_ris_kernel path_kernel; do
  ncu -k $k --metrics gpu__time_duration.sum,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    build/p08e-reservoirs --scene scenes/pt-many-lights.scene --samples 2 >>$OUT/ncu-p08e.txt 2>&1
done
ncu -k path_kernel --metrics gpu__time_duration.sum,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    build/p08b-next-event --scene scenes/pt-many-lights.scene --samples 2 >>$OUT/ncu-p08e.txt 2>&1
echo "ncu at $(el) s"; grep -E "initial_ris_kernel|path_kernel|gpu__time_duration|dram__bytes|sm__throughput|p08" $OUT/ncu-p08e.txt | head -40
RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 timeout $(( 585 - $(el) )) tools/sanitize.sh >$OUT/sanitize.log 2>&1
echo "sanitize rc=$? at $(el) s"; cp results/reference/$slug/sanitizer.txt $OUT/sanitizer.txt; tail -5 $OUT/sanitize.log
