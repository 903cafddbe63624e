#!/usr/bin/env bash
# 2026-11-27, H100, second call: the variant that reads each child's index and box in one 16-byte
# load (render-one-load.cu, built as a temporary stage 30z in build-z/ and removed before the
# tests) timed interleaved against 30 and 30b (3 runs each on the four scenes), its ptxas report,
# Nsight Compute on 100,000 spheres and its images against build/cpu-reference; then the whole
# GPU `make test` (each test program on its own, three at once, test_difftest beside them, cut
# at END seconds: tests.status names those that finished). Run from the repository root with
# .kit/ beside it; logs come back in $OUT/logs.tgz. As it ran, stages/30b-compact-nodes held the
# first try (now two-loads.patch beside this script, applied to stage 31) and render-one-load.cu held what is now
# stages/31-compact-nodes/render.cu (the same code; only the header comment has changed since).
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
here=results/reference/nvidia-h100-80gb-hbm3/development/compact-nodes
mkdir -p $OUT/logs/tests $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; git log -1 --format=%h; } | tee $OUT/logs/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
Z=30z-one-load
cp -r stages/30b-compact-nodes stages/$Z && cp $here/render-one-load.cu stages/$Z/render.cu
CUDA_ARCH=90 make BUILD=build-z build-z/$Z >$OUT/logs/build-z.log 2>&1 || tail -5 $OUT/logs/build-z.log
rm -rf stages/$Z
for f in build/30-warp-tiles build/30b-compact-nodes build-z/$Z; do echo "== $f"; grep -A3 "render_kernel.*sm_90'" $f.resources.txt | grep -v Compiling; done > $OUT/logs/resources-2.txt
echo "variant built $(el) s"
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in r1k r10k benchmark; do for size in 200x150 67x41; do
  build/cpu-reference --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/ref.ppm >/dev/null
  rm -f /tmp/sc/o.ppm; build-z/$Z --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/o.ppm >/dev/null
  echo "exact build-z/$Z $sc $size: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
done; done > $OUT/logs/exact-2.txt 2>&1
bins="build/30-warp-tiles build/30b-compact-nodes build-z/$Z"
for r in 1 2 3; do for sc in benchmark r1k r10k r100k; do for b in $bins; do
  $b --scene /tmp/sc/$sc.scene --csv 2>>$OUT/logs/err-2.log | awk -F, -v b=$b -v sc=$sc '$9=="kernel_events" {print b, sc, $9, $10}'
done; done; done > $OUT/logs/timings-2.txt
python3 - $OUT/logs/timings-2.txt <<'PY' | tee $OUT/logs/timing-summary-2.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    b,sc,m,v=line.split(); d[(sc,m,b)].append(float(v))
for (sc,m,b),v in sorted(d.items()):
    print(f"{sc:10s} {m:14s} {b:28s} median {statistics.median(v):10.1f} min {min(v):10.1f} max {max(v):10.1f} n={len(v)}")
PY
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
timeout 60 ncu --metrics $M -k regex:'render_kernel' --csv build-z/$Z --scene /tmp/sc/r100k.scene > $OUT/logs/ncu-$Z-r100k.csv 2>$OUT/logs/ncu-$Z-r100k.err
echo "variant done $(el) s"; cat $OUT/logs/exact-2.txt | grep -vc identical
tar -czf $OUT/logs.tgz -C $OUT logs
one() { local b=$1 s=$(date +%s); BUILD=build tests/run-tests.sh build/tests/$b > $OUT/logs/tests/$b.log 2>&1; echo "$b rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/logs/tests/$b.log)"; }
export -f one; export OUT
( one test_difftest > $OUT/logs/difftest.status ) &
{ ls build/tests/ | grep -E "^test_(gpu_stages|big_scenes|pt_stages|run_anywhere|scaling|bvh)$"; ls build/tests/ | grep "^test_" | grep -v "\." | grep -vE "^test_(difftest|gpu_stages|big_scenes|pt_stages|run_anywhere|scaling|bvh)$"; } | \
  timeout $(( ${END:-560} - $(el) )) parallel -j3 --line-buffer one {} | tee $OUT/logs/tests.status
echo "tests $(el) s"
sleep 1; cat $OUT/logs/difftest.status 2>/dev/null
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
