#!/usr/bin/env bash
# The test suite on the GPU machine with REQUIRE_GPU=1 (a GPU test that skips fails), each test
# program timed, TEST_JOBS at a time; first the exactness record at full size (every stage of both
# tracks, tools/compare-stages.sh). TESTS: the programs to run (default every one, slowest first
# as last measured). Outputs in tests.tgz, times in test-times.txt. Run from the repository root on
# the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; T=/tmp/tests; mkdir -p $L $T
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs; tar -czf "$OUT/tests.tgz" -C /tmp tests' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
CUDA_ARCH=90 make -j"$(nproc)" all tests >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
if [ "${RECORD:-1}" = 1 ]; then
  COMPARE_JOBS=8 timeout 200 tools/compare-stages.sh >"$OUT/compare-stages.txt" 2>$L/compare.err
  echo "compare-stages rc=$? $(el) s, $(wc -l <"$OUT/compare-stages.txt") lines; not exact: $(grep -c '^[0-9p].*differing pixels: [1-9]' "$OUT/compare-stages.txt")"
fi
tests=${TESTS:-$(ls build/tests/test_* | grep -v '\.' | xargs -n1 basename)}
deadline=$(( t0 + ${END:-560} ))
run_one() {
  local name=$1 start=$(date +%s) left=$(( deadline - $(date +%s) ))
  [ $left -gt 5 ] || { echo "$name not-run 0" >$T/$name.time; return; }
  CMOCKA_MESSAGE_OUTPUT=TAP REQUIRE_GPU=1 timeout $left build/tests/$name >$T/$name.out 2>&1
  echo "$name $? $(( $(date +%s) - start ))" >$T/$name.time
}
export -f run_one; export T deadline
printf '%s\n' $tests | xargs -P "${TEST_JOBS:-6}" -I{} bash -c 'run_one {}'
{ for f in $T/*.time; do n=$(basename $f .time); read -r name rc secs <$f
    printf '%-28s rc=%-4s %5s s  ok %-4s not-ok %-3s skip %s\n' "$name" "$rc" "$secs" "$(grep -cE '^ok ' $T/$n.out 2>/dev/null)" \
      "$(grep -E '^not ok' $T/$n.out 2>/dev/null | grep -cv SKIP)" "$(grep -cE '^not ok .*# SKIP' $T/$n.out 2>/dev/null)"; done; } | sort -k3 -rn -t= | tee "$OUT/test-times.txt"
echo "tests $(el) s"
grep -hE '^not ok' $T/*.out | head -20
