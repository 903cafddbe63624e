#!/usr/bin/env bash
# The whole test suite on the GPU machine (REQUIRE_GPU=1: a GPU test that skips fails), then the
# exactness record at full size: tools/compare-stages.sh over every stage of both tracks
# (8192x8192 benchmark against the CPU reference; the track against build/pt-reference), several
# stages at once. Logs in logs.tgz; the record and the suite's output beside them. Run from the
# repository root on the GPU machine with the device kit in .kit/ (SKIP_TESTS=1: the record only).
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
CUDA_ARCH=90 make -j"$(nproc)" all tests >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
if [[ "${SKIP_TESTS:-0}" != 1 ]]; then
    CUDA_ARCH=90 REQUIRE_GPU=1 TEST_JOBS=4 timeout "${TEST_LIMIT:-330}" make test >"$OUT/make-test.txt" 2>&1
    echo "make test rc=$? $(el) s: $(tail -1 "$OUT/make-test.txt")"
    grep -E '^not ok|^# crashed' "$OUT/make-test.txt" | head -20
fi
COMPARE_JOBS=8 timeout $(( ${END:-570} - $(el) )) tools/compare-stages.sh >"$OUT/compare-stages.txt" 2>$L/compare.err
echo "compare-stages rc=$? $(el) s, $(wc -l <"$OUT/compare-stages.txt") lines"
grep -v 'differing pixels: 0 of' "$OUT/compare-stages.txt" | head -20
