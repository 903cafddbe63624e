#!/usr/bin/env bash
# Session 2026-11-26b, call 3: p10 and p11 (the track's whole frame): build, the track's GPU tests,
# a short interleaved development campaign of p09-p11 on both scenes, then the sanitizer record.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/gpu.txt
CUDA_ARCH=90 make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build: $(el) s"
cp build/p10-rgb8-frame.resources.txt build/p11-registered-host-pages.resources.txt $OUT/ 2>/dev/null
BUILD=build timeout 200 tests/run-tests.sh build/tests/test_pt_stages build/tests/test_bad_inputs build/tests/test_pt_bench build/tests/test_resources >$OUT/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^not ok|crashed|p1[01]-" $OUT/gpu-tests.log | grep -v SKIP | head -20
# Development campaign: RUNS rounds, each round p09 p10 p11 on pt-benchmark (order rotating),
# then on pt-production (64 spp); every CSV row kept.
echo "round,scene,stage,$(build/p09-path-regeneration --csv 2>/dev/null | head -1)" > $OUT/dev.csv
ST="p09-path-regeneration p10-rgb8-frame p11-registered-host-pages"
for r in $(seq 1 ${RUNS:-10}); do
  for sc in pt-benchmark pt-production; do
    [ $sc = pt-production ] && [ $r -gt ${PROD_RUNS:-5} ] && continue
    for s in $(echo $ST | tr ' ' '\n' | awk -v r=$r '{a[NR]=$0} END {for (i=0;i<NR;i++) print a[(i+r)%NR+1]}'); do
      build/$s --scene scenes/$sc.scene --csv 2>>$OUT/dev.err | tail -n +2 | sed "s/^/$r,$sc,$s,/" >> $OUT/dev.csv
    done
  done
done
echo "dev campaign at $(el) s: $(wc -l < $OUT/dev.csv) lines"
slug=$(tools/runner/slug.sh "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
if [ "${SAN:-1}" = 1 ]; then
RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 timeout $(( 585 - $(el) )) tools/sanitize.sh >$OUT/sanitize.log 2>&1
echo "sanitize rc=$? at $(el) s"; cp results/reference/$slug/sanitizer.txt $OUT/sanitizer.txt; tail -2 $OUT/sanitize.log
fi
