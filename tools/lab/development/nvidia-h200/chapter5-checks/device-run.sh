#!/usr/bin/env bash
# Device checks of chapter 5's stages in development: builds them (with the CPU reference and the
# GPU stages' test), runs tests/test_gpu_stages over them (each stage against the CPU reference on
# the test's scenes and sizes), then compute-sanitizer (tools/sanitize.sh: memcheck, racecheck,
# initcheck, synccheck on the quick and odd-size scenes) over the chain's stages 32 and 33 and the
# side stages whose kernels share memory between threads (32a's queues, 33c's layout). Logs in
# logs.tgz. Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt
new="31a-four-wide-nodes 31b-shadow-cache 32-lean-box-test 32a-rays-in-passes 33-branch-free-boxes 33a-next-node-early 33b-four-wide-branch-free 33c-depth-first-nodes 33d-own-sphere-first"
CUDA_ARCH=90 make -j"$(nproc)" $(for s in $new; do echo build/$s; done) build/01-base build/03-block-size build/07e-rays-per-thread build/07f-register-cap build/21-persistent-rows build/21a-streamed-png build/cpu-reference build/compare-images build/tests/test_gpu_stages >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
timeout 150 build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E 'PASSED|FAILED' "$OUT/test_gpu_stages.txt" | tail -3 | tr '\n' ' ')"
SANITIZE_STAGES="32-lean-box-test 33-branch-free-boxes 32a-rays-in-passes 33c-depth-first-nodes" SANITIZE_JOBS=16 \
    SANITIZE_TIMEOUT=120 RESULTS=/tmp/sanitize timeout $(( ${END:-280} - $(el) )) tools/sanitize.sh >$L/sanitize.log 2>&1
echo "sanitize rc=$? $(el) s"
cp /tmp/sanitize/*/sanitizer.txt "$OUT/sanitizer.txt" 2>/dev/null
tail -25 "$OUT/sanitizer.txt" 2>/dev/null
