#!/usr/bin/env bash
# The differential test (every stage on 24 random scenes against the references), then the
# scaling campaign's resume while time is left. Logs in logs.tgz, results as in d4.sh.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; git log -1 --format=%h 2>/dev/null; } | tee $OUT/logs/gpu.txt
sleep 1
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build $(el) s"
BUILD=build timeout ${DIFF_LIMIT:-400} tests/run-tests.sh build/tests/test_difftest > $OUT/logs/gpu-tests-difftest.log 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 $OUT/logs/gpu-tests-difftest.log)"
grep -E "^not ok|^ok|seeds x|crashed" $OUT/logs/gpu-tests-difftest.log | head
tar -czf $OUT/logs.tgz -C $OUT logs
if [ -n "${SCALING_STAGES:-}" ] && [ $(el) -lt $(( ${END:-575} - 30 )) ]; then
  timeout $(( ${END:-575} - $(el) )) ./run.sh --scaling --reference --resume --runs 100 --stages $SCALING_STAGES --no-build > $OUT/logs/scaling.log 2>&1
  echo "scaling rc=$? $(el) s"; tail -2 $OUT/logs/scaling.log
  for x in results/reference/nvidia-h*; do
    f=$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -type f ! -name '*.resources.txt')
    [ -n "$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -name 'runs.csv*')" ] && tar -czf $OUT/results-$(basename $x).tgz $f
  done
fi
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
