#!/usr/bin/env bash
# 2026-11-27 (second session), H100: stages 29-only-far-child-pushed and 30-warp-tiles against 28.
# Exactness (TREE_STACK 4 and 8; stage 30 with --block shapes with and without whole tiles),
# timing interleaved (28, 29, 30 with tiles of 8x4, 4x8 and 16x2) on the benchmark and on
# 1k/10k/100k random spheres, Nsight Compute counters of 28, 29, 30; test_big_scenes and
# test_gpu_stages. Run from the repository root with .kit/ (device-kit) beside it; logs come back
# in $OUT/logs.tgz, the counters in $OUT/ncu.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/logs/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
variants="t4a:29-only-far-child-pushed:-DTREE_STACK=4 t8a:29-only-far-child-pushed:-DTREE_STACK=8 t4b:30-warp-tiles:-DTREE_STACK=4 w4x8:30-warp-tiles:-DTILE_WIDTH=4:-DTILE_HEIGHT=8 w16x2:30-warp-tiles:-DTILE_WIDTH=16:-DTILE_HEIGHT=2"
for v in $variants; do
  IFS=: read -r name st f1 f2 <<<"$v"
  ( NVCCFLAGS="-O3 $f1 ${f2:-}" CUDA_ARCH=90 make BUILD=build-$name build-$name/$st >$OUT/logs/build-$name.log 2>&1 || tail -5 $OUT/logs/build-$name.log ) &
done
wait; echo "variants built $(el) s"
for f in build/2[89]-*.resources.txt build/30-*.resources.txt build-*/*.resources.txt; do echo "== $f"; grep -A3 "render_kernel.*sm_90'" $f | grep -v Compiling; done > $OUT/logs/resources.txt
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in r1k r10k benchmark; do
  build/cpu-reference --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/ref.ppm >/dev/null
  for b in build/29-only-far-child-pushed build-t4a/29-only-far-child-pushed build-t8a/29-only-far-child-pushed build/30-warp-tiles build-t4b/30-warp-tiles build-w4x8/30-warp-tiles build-w16x2/30-warp-tiles; do
    $b --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/o.ppm >/dev/null
    echo "exact $b $sc: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
  done
  for blk in 8x4 16x16 24x5 40x4 7x9; do
    build/30-warp-tiles --block $blk --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/o.ppm >/dev/null
    echo "exact build/30-warp-tiles --block $blk $sc: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
  done
done | tee $OUT/logs/exact.txt
echo "exact $(el) s"
bins="build/28-registers-not-arrays build/29-only-far-child-pushed build/30-warp-tiles build-w4x8/30-warp-tiles build-w16x2/30-warp-tiles"
for r in 1 2 3 4 5; do for sc in benchmark r1k r10k r100k; do for b in $bins; do
  $b --scene /tmp/sc/$sc.scene --csv 2>>$OUT/logs/err.log | awk -F, -v b=$b -v sc=$sc '$9=="kernel_events"||$9=="build"||$9=="total" {print b, sc, $9, $10}'
done; done; done > $OUT/logs/timings.txt
python3 - $OUT/logs/timings.txt <<'PY' | tee $OUT/logs/timing-summary.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    b,sc,m,v=line.split(); d[(sc,m,b)].append(float(v))
for (sc,m,b),v in sorted(d.items()):
    if m == "kernel_events":
        print(f"{sc:10s} {m:14s} {b:32s} median {statistics.median(v):10.1f} min {min(v):10.1f} max {max(v):10.1f} n={len(v)}")
PY
echo "timing $(el) s"
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for sc in benchmark r1k r10k r100k; do for st in 28-registers-not-arrays 29-only-far-child-pushed 30-warp-tiles; do
  timeout 120 ncu --metrics $M -k regex:'render_kernel' --csv build/$st --scene /tmp/sc/$sc.scene > $OUT/ncu/ncu-$st-$sc.csv 2>$OUT/ncu/ncu-$st-$sc.err
  echo "ncu $st $sc rc=$? $(el) s"
done; done
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
tar -czf $OUT/logs.tgz -C $OUT logs
BUILD=build timeout 200 tests/run-tests.sh build/tests/test_big_scenes build/tests/test_gpu_stages >$OUT/logs/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/logs/gpu-tests.log)"
grep -E "^not ok|crashed" $OUT/logs/gpu-tests.log | head
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
