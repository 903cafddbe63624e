#!/usr/bin/env bash
# Session 2026-11-26c call 3: p07a (StreamingMK), p13 (hierarchy), p12's timer: exactness, A/B timing, GPU tests.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build: $(el) s"
same() { # stage, args...
  local s=$1; shift
  build/pt-reference "$@" --output /tmp/ref.png >/dev/null 2>>$OUT/err.txt
  build/$s "$@" --output /tmp/st.png >/dev/null 2>>$OUT/err.txt || echo "$s $*: FAILED rc=$?"
  echo "$s $*: $(build/compare-images /tmp/ref.png /tmp/st.png 2>&1 | tail -1)"
}
for a in "--scene scenes/pt-quick.scene" "--scene scenes/pt-quick.scene --samples 3 --size 40x24" "--scene scenes/pt-benchmark.scene --size 203x151"; do
  same p07a-device-compaction $a; same p13-bvh-traversal $a
done
same p07a-device-compaction --scene scenes/pt-benchmark.scene
for n in 1k 10k; do same p13-bvh-traversal --scene build/scenes/pt-random-$n.scene; done
same p13-bvh-traversal --scene build/scenes/pt-random-100k.scene --size 256x256
same p13-bvh-traversal --scene scenes/pt-many-lights.scene --size 64x48
echo "exactness: $(el) s"
echo "round,scene,stage,$(build/p12-host-work-behind-render --csv 2>/dev/null | head -1)" > $OUT/ab.csv
for r in $(seq 1 ${RUNS:-6}); do
  for sc in scenes/pt-benchmark.scene scenes/pt-production.scene build/scenes/pt-random-1k.scene build/scenes/pt-random-10k.scene build/scenes/pt-random-100k.scene; do
    case $sc in *benchmark*|*production*) st="p12-host-work-behind-render p13-bvh-traversal";; *) st="p13-bvh-traversal";; esac
    case $sc in *benchmark*) st="$st p07-constant-scene p07a-device-compaction p09-path-regeneration";; esac
    [ $((r % 2)) = 0 ] && st=$(echo $st | tr ' ' '\n' | tac | tr '\n' ' ')
    for s in $st; do
      build/$s --scene $sc --csv 2>>$OUT/err.txt | tail -n +2 | sed "s|^|$r,$(basename $sc .scene),$s,|" >> $OUT/ab.csv
    done
  done
done
echo "ab: $(el) s, $(wc -l < $OUT/ab.csv) lines"
build/p07a-device-compaction --scene scenes/pt-benchmark.scene 2>&1 | tail -30 > $OUT/p07a-report.txt
build/p13-bvh-traversal --scene build/scenes/pt-random-10k.scene 2>&1 | tail -30 > $OUT/p13-report.txt
BUILD=build timeout $(( 585 - $(el) )) tests/run-tests.sh build/tests/test_pt_stages build/tests/test_pt_bench build/tests/test_bad_inputs build/tests/test_bvh >$OUT/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^not ok|crashed" $OUT/gpu-tests.log | head
