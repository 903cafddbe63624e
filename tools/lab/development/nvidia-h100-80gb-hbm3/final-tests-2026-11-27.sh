#!/usr/bin/env bash
# Session 2026-11-27 (sixth). SCALING_STAGES scaling campaign (resume) until SCALING_END, then
# the sanitizer record (DO_SANITIZE=1) beside the test programs named by TESTS_ONLY (regex; others
# with TESTS_SKIP), until END. Results in results-<gpu>.tgz, sanitizer.tgz, logs.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs/tests
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $OUT/logs/gpu.txt
sleep 1
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build $(el) s"
if [ -n "${SCALING_STAGES:-}" ]; then
  timeout $(( ${SCALING_END:-300} - $(el) )) ./run.sh --scaling --reference --resume --runs 100 --stages $SCALING_STAGES --no-build > $OUT/logs/scaling.log 2>&1
  echo "scaling rc=$? $(el) s"; tail -2 $OUT/logs/scaling.log
fi
if [ -n "${CAMPAIGN_STAGES:-}" ] && [ $(el) -lt $(( ${CAMPAIGN_END:-300} - 20 )) ]; then
  timeout $(( ${CAMPAIGN_END:-300} - $(el) )) ./run.sh --reference --resume --runs 100 --stages $CAMPAIGN_STAGES --no-build > $OUT/logs/campaign.log 2>&1
  echo "campaign rc=$? $(el) s"; tail -2 $OUT/logs/campaign.log
fi
if [ -n "${CAMPAIGN2_STAGES:-}" ] && [ $(el) -lt $(( ${CAMPAIGN2_END:-560} - 20 )) ]; then
  timeout $(( ${CAMPAIGN2_END:-560} - $(el) )) ./run.sh --reference --resume --runs 100 --stages $CAMPAIGN2_STAGES --no-build > $OUT/logs/campaign2.log 2>&1
  echo "campaign2 rc=$? $(el) s"; tail -2 $OUT/logs/campaign2.log
fi
if [ -n "${DO_SANITIZE:-}" ]; then
  ( RESULTS=results/reference SANITIZE_JOBS=${SANITIZE_JOBS:-12} SANITIZE_TIMEOUT=200 timeout $(( ${END:-570} - $(el) )) \
    tools/sanitize.sh > $OUT/logs/sanitize.log 2>&1; echo "sanitize rc=$? $(el) s" > $OUT/logs/sanitize.status ) &
fi
one() { local b=$1 s=$(date +%s); BUILD=build tests/run-tests.sh build/tests/$b > $OUT/logs/tests/$b.log 2>&1; echo "$b rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/logs/tests/$b.log)"; }
export -f one; export OUT
if [ -n "${TESTS_ONLY:-}" ]; then
  ls build/tests/ | grep "^test_" | grep -v "\\." | grep -E "$TESTS_ONLY" | grep -vE "${TESTS_SKIP:-^$}" | \
    timeout $(( ${END:-570} - $(el) )) parallel -j${TEST_JOBS:-3} --line-buffer one {} | tee $OUT/logs/tests.status
  echo "tests $(el) s"
fi
wait; cat $OUT/logs/sanitize.status 2>/dev/null; tail -3 $OUT/logs/sanitize.log 2>/dev/null
[ -n "${DO_SANITIZE:-}" ] && tar -czf $OUT/sanitizer.tgz results/reference/nvidia-h*/sanitizer.txt
for x in results/reference/nvidia-h*; do
  f=$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -type f ! -name '*.resources.txt' ! -name sanitizer.txt; for s in $(echo ${CAMPAIGN_STAGES:-},${CAMPAIGN2_STAGES:-},${SCALING_STAGES:-} | tr , " "); do ls $x/$(tools/stages resolve $s 2>/dev/null).resources.txt 2>/dev/null; done)
  [ -n "$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -name 'runs.csv*')" ] && tar -czf $OUT/results-$(basename $x).tgz $f
done
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
