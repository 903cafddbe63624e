#!/usr/bin/env bash
# Device call: the light-cell margin fix in stages 14-21a. Build new and old (HEAD) binaries,
# the differential test over SEEDLIST, then an interleaved A/B timing of old and new.
# "old" is .kit/old: `git archive 2c02b77 Makefile common stages tools scenes`, the stages before
# the fix; "new" the working tree with it. The logs here are its difftest.log of two calls.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
ST="14-sphere-binning 14a-warp-packets-hidden-by-copies 14b-hoisted-invariants-hidden-by-copies 15-copy-stream 16-smaller-blocks 17-warp-packets 18-register-budget 18a-hoisted-invariants 19-global-sphere-loads 20-skipped-work 21-persistent-rows 21a-streamed-png"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nvcc --version | tail -2 >> $OUT/gpu.txt; date -u >> $OUT/gpu.txt
tg=""; for s in $ST; do tg="$tg build/$s"; done
( CUDA_ARCH=90 make -j8 $tg build/cpu-reference build/compare-images >$OUT/build.log 2>&1 || echo NEWFAIL ) &
( cd .kit/old && CUDA_ARCH=90 make -j8 $tg >$OUT/build-old.log 2>&1 || echo OLDFAIL ) &
wait
echo "build: $(( $(date +%s) - t0 )) s"; grep -h "error" $OUT/build.log $OUT/build-old.log | head
if [ -n "${SEEDLIST:-}" ]; then
timeout ${DIFF_LIMIT:-400} tools/difftest.sh --seed-list "$SEEDLIST" --stages 14-21 --keep $OUT/failed >$OUT/difftest.log 2>&1
echo "difftest rc=$? at $(( $(date +%s) - t0 )) s"; grep -E "^difftest: [0-9]+ seeds|FAILED|failed" $OUT/difftest.log | head -40
fi
# A/B: RUNS rounds, each round every stage old and new (order alternating), --frames 20, CSV.
echo "round,stage_dir,version,stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit" > $OUT/ab.csv
for r in $(seq 1 ${RUNS:-0}); do
  for s in $ST; do
    if [ $((r % 2)) = 1 ]; then order="new old"; else order="old new"; fi
    for v in $order; do
      if [ $v = new ]; then b=build/$s; else b=.kit/old/build/$s; fi
      $b --frames 20 --csv 2>>$OUT/ab.err | tail -n +2 | sed "s/^/$r,$s,$v,/" >> $OUT/ab.csv
    done
  done
done
echo "ab done at $(( $(date +%s) - t0 )) s: $(wc -l < $OUT/ab.csv) lines"
cd $OUT && tar czf failed.tgz failed 2>/dev/null; rm -rf $OUT/failed
