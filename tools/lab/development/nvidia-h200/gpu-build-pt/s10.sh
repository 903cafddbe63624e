#!/usr/bin/env bash
# Session of 2026-11-26 (sixth): build all, p14's exactness and A/B with p13, then the GPU suites.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
same() { local s=$1; shift; build/pt-reference "$@" --output /tmp/ref.png >/dev/null 2>&1; build/$s "$@" --output /tmp/st.png >/dev/null 2>>$OUT/err.txt || echo "$s $*: FAILED"; echo "$s $*: $(build/compare-images /tmp/ref.png /tmp/st.png 2>&1 | tail -1)"; }
for a in "--scene scenes/pt-quick.scene" "--scene scenes/pt-quick.scene --samples 3 --size 40x24" "--scene scenes/pt-benchmark.scene --size 203x151" "--scene scenes/pt-many-lights.scene --size 64x48" "--scene build/scenes/pt-random-1k.scene --size 512x512" "--scene build/scenes/pt-random-10k.scene --size 512x512" "--scene build/scenes/pt-random-100k.scene --size 256x256"; do same p14-gpu-build $a; done
echo "exact $(( $(date +%s)-t0 )) s"
echo "round,scene,stage,$(build/p13-bvh-traversal --csv 2>/dev/null | head -1)" > $OUT/ab.csv
for r in 1 2 3 4 5; do for sc in scenes/pt-benchmark.scene build/scenes/pt-random-1k.scene build/scenes/pt-random-10k.scene build/scenes/pt-random-100k.scene; do for s in p13-bvh-traversal p14-gpu-build; do build/$s --scene $sc --csv 2>>$OUT/err.txt | tail -n +2 | sed "s|^|$r,$(basename $sc .scene),$s,|" >> $OUT/ab.csv; done; done; done
echo "ab $(( $(date +%s)-t0 )) s"
tests=""
for t in test_pt_stages test_bvh test_bad_inputs test_difftest test_gpu_stages test_big_scenes test_image test_png test_png_stream test_cpu_reference \
         test_resources test_report test_run_anywhere test_pt_bench test_pt_reference; do
  [ -x build/tests/$t ] && tests="$tests build/tests/$t"
done
BUILD=build timeout $(( 585 - ($(date +%s) - t0) )) tests/run-tests.sh $tests >$OUT/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(( $(date +%s) - t0 )) s: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^not ok|crashed|^# difftest|seeds x|^# ----" $OUT/gpu-tests.log | grep -v SKIP | tail -40
gzip -9 $OUT/gpu-tests.log
