#!/usr/bin/env bash
# Device call: build everything; the tests that use the GPU or the image path; compute-sanitizer
# over chapter 4 and 21a; the image-write timing of 21 against 21a.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA_ARCH=90 make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build: $(el) s"
if [ -x tools/lab/write-cost.sh ] && [ -x build/21a-streamed-png ]; then
  timeout 120 tools/lab/write-cost.sh ${WRITE_COST_ARGS:-} >$OUT/write-cost.txt 2>&1; echo "write-cost rc=$? at $(el) s"; tail -15 $OUT/write-cost.txt
fi
tests=""
for t in test_bad_inputs test_big_scenes test_bvh test_cpu_reference test_gpu_stages test_image test_png test_options \
         test_pt_bench test_pt_reference test_pt_scene test_pt_stages test_report test_resources test_run_anywhere test_noise test_scene; do
  [ -x build/tests/$t ] && tests="$tests build/tests/$t"
done
BUILD=build timeout ${TEST_LIMIT:-300} tests/run-tests.sh $tests >$OUT/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/gpu-tests.log)"
grep -E "^not ok|crashed|FAILED" $OUT/gpu-tests.log | head -20
python3 scenes/generate-random.py 999 --size 128x96 > /tmp/r1k-small.scene
python3 scenes/generate-random.py 9999 --size 96x64 > /tmp/r10k-small.scene
stages="22-bvh-traversal 23-gpu-build 24-near-child-first 25-child-boxes-in-parent 26-clustered-build"
[ -x build/21a-streamed-png ] && stages="21a-streamed-png $stages"
SANITIZE_STAGES="$stages" SANITIZE_SCENES="scenes/quick.scene /tmp/r1k-small.scene /tmp/r10k-small.scene" \
  RESULTS=/tmp/san SANITIZE_TIMEOUT=120 timeout ${SAN_LIMIT:-150} tools/sanitize.sh >$OUT/sanitize.log 2>&1
echo "sanitize rc=$? at $(el) s"
cp /tmp/san/*/sanitizer.txt $OUT/ 2>/dev/null; sed -n '/^Summary/,$p' $OUT/sanitizer.txt 2>/dev/null | head -30
echo "done: $(el) s"
