#!/usr/bin/env bash
# Session 2026-11-26c call 4: campaign (p07a, p08a superseded; p07/p08 to 100; p12, p13), dev A/B of
# p11-p13 on both scenes, module-loading check, the sanitizer record.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build: $(el) s"
slug=$(tools/runner/slug.sh "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
dir=results/reference/$slug
if [ "${CAMP:-1}" = 1 ]; then
  [ "${FRESH:-1}" = 1 ] && tools/lab/supersede-runs.sh $dir "p7a,p8a"; grep -c "p07a-device-compaction" $dir/runs.csv
  timeout -s INT $(( ${CAMP_END:-300} - $(el) )) ./run.sh --reference --no-build --resume --runs 100 --stages "${SPEC:-p7,p7a,p8,p8a,p12,p13}" >$OUT/campaign.log 2>&1
  echo "campaign rc=$? at $(el) s"; grep -v "runs done" $OUT/campaign.log | tail -5
  tar -czf $OUT/campaign.tgz $dir/runs.csv $dir/superseded-runs.csv.gz $dir/env.txt $dir/joblog.txt $dir/failed-runs.csv 2>&1 | head -3
fi
echo "round,scene,stage,$(build/p12-host-work-behind-render --csv 2>/dev/null | head -1)" > $OUT/ab.csv
ST="p11-registered-host-pages p12-host-work-behind-render p13-bvh-traversal"
[ "${RUNS:-20}" -gt 0 ] && for r in $(seq 1 ${RUNS:-20}); do
  for sc in pt-benchmark pt-production; do
    [ $sc = pt-production ] && [ $r -gt ${PROD_RUNS:-10} ] && continue
    for s in $(echo $ST | tr ' ' '\n' | awk -v r=$r '{a[NR]=$0} END {for (i=0;i<NR;i++) print a[(i+r)%NR+1]}'); do
      build/$s --scene scenes/$sc.scene --csv 2>>$OUT/ab.err | tail -n +2 | sed "s/^/$r,$sc,$s,/" >> $OUT/ab.csv
    done
  done
  for s in p12-host-work-behind-render p13-bvh-traversal; do
    CUDA_MODULE_LOADING=EAGER build/$s --scene scenes/pt-benchmark.scene --csv 2>>$OUT/ab.err | tail -n +2 | sed "s/^/$r,pt-benchmark,$s+eager,/" >> $OUT/ab.csv
  done
done
echo "ab at $(el) s: $(wc -l < $OUT/ab.csv) lines"
if [ "${SAN:-1}" = 1 ]; then
  RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 timeout $(( 585 - $(el) )) tools/sanitize.sh >$OUT/sanitize.log 2>&1
  echo "sanitize rc=$? at $(el) s: $(tail -2 $OUT/sanitize.log | head -1)"
  tar -czf $OUT/sanitizer.tgz $dir/sanitizer.txt $OUT/sanitize.log 2>&1 | head -3; rm -f $OUT/sanitize.log
fi
echo "done $(el) s"
