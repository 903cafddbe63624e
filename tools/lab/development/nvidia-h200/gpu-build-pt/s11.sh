#!/usr/bin/env bash
# p15's exactness (and with a 4-entry stack), A/B of p12-p15, sanitizer of p14/p15 on 10k spheres, tests.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build $(el) s"
same() { local s=$1 b=$2; shift 2; build/pt-reference "$@" --output /tmp/ref.png >/dev/null 2>&1; $b/$s "$@" --output /tmp/st.png >/dev/null 2>>$OUT/err.txt || echo "$b/$s $*: FAILED"; echo "$b/$s $*: $(build/compare-images /tmp/ref.png /tmp/st.png 2>&1 | tail -1)"; }
for a in "--scene scenes/pt-quick.scene" "--scene scenes/pt-quick.scene --samples 3 --size 40x24" "--scene scenes/pt-benchmark.scene --size 203x151" "--scene scenes/pt-many-lights.scene --size 64x48" "--scene build/scenes/pt-random-1k.scene --size 512x512" "--scene build/scenes/pt-random-10k.scene --size 512x512" "--scene build/scenes/pt-random-100k.scene --size 256x256"; do same p15-clustered-build build $a; done | tee $OUT/exact.txt
NVCCFLAGS="-O3 -DTREE_STACK=4" CUDA_ARCH=90 make -j16 BUILD=build-stack4 build-stack4/p15-clustered-build >$OUT/build-stack4.log 2>&1 || tail -5 $OUT/build-stack4.log
for a in "--scene scenes/pt-quick.scene" "--scene scenes/pt-benchmark.scene --size 203x151" "--scene build/scenes/pt-random-1k.scene --size 256x256" "--scene build/scenes/pt-random-10k.scene --size 256x256"; do same p15-clustered-build build-stack4 $a; done | tee $OUT/stack4.txt
echo "exact $(el) s"
echo "round,scene,stage,$(build/p13-bvh-traversal --csv 2>/dev/null | head -1)" > $OUT/ab.csv
for r in 1 2 3 4 5; do for sc in scenes/pt-benchmark.scene scenes/pt-production.scene build/scenes/pt-random-1k.scene build/scenes/pt-random-10k.scene build/scenes/pt-random-100k.scene; do for s in p12-host-work-behind-render p13-bvh-traversal p14-gpu-build p15-clustered-build; do
  case $s$sc in p12*10k*|p12*100k*) continue;; esac
  build/$s --scene $sc --csv 2>>$OUT/err.txt | tail -n +2 | sed "s|^|$r,$(basename $sc .scene),$s,|" >> $OUT/ab.csv; done; done; done
gzip -9 $OUT/ab.csv
echo "ab $(el) s"
python3 scenes/generate-random.py 9997 --path-tracing --size 48x32 > /tmp/pt-10k-small.scene
python3 scenes/generate-random.py 997 --path-tracing --size 64x48 > /tmp/pt-1k-small.scene
SANITIZE_STAGES="p14-gpu-build p15-clustered-build" SANITIZE_PT_SCENES="scenes/pt-quick.scene /tmp/pt-1k-small.scene /tmp/pt-10k-small.scene" RESULTS=/tmp/san SANITIZE_JOBS=8 SANITIZE_TIMEOUT=200 tools/sanitize.sh > $OUT/sanitize.log 2>&1; echo "sanitize rc=$? $(el) s"
cp /tmp/san/*/sanitizer.txt $OUT/sanitizer-p14-p15.txt; tail -12 $OUT/sanitizer-p14-p15.txt
tests=""
for t in test_pt_stages test_difftest test_pt_bench test_pt_reference test_run_anywhere; do [ -x build/tests/$t ] && tests="$tests build/tests/$t"; done
BUILD=build timeout $(( 590 - $(el) )) tests/run-tests.sh $tests >$OUT/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^not ok|crashed|^# difftest|seeds x|^# ----" $OUT/gpu-tests.log | grep -v SKIP | tail -30
gzip -9 $OUT/gpu-tests.log
