#!/usr/bin/env bash
# 2026-11-27, H100: stage 31-primary-ray-packets (since renamed 30a-primary-ray-packets, a side
# stage) against 30-warp-tiles. Exactness (TREE_STACK 4, 8 and 40;
# 64 registers; --block shapes with whole tiles, without, and with warps of fewer than 32 lanes;
# an odd image size), timing interleaved (30, 31, 31 with 64 registers) on the benchmark and on
# 1k/10k/100k random spheres, Nsight Compute counters of 30 and 31; test_big_scenes and
# test_gpu_stages. Run from the repository root with .kit/ (device-kit) beside it; logs come back
# in $OUT/logs.tgz, the counters in $OUT/ncu.tgz (summary.txt: python3 ../walk-order/summary.py .).
# The differential test, difftest.txt, ran in a later call:
#   tools/difftest.sh --seeds 200 --stages 28,28a,29,30,30a --jobs 16
# Since the run: S names the stage's new folder, and each image is removed before the run that
# should write it, so that a run that fails cannot pass on the previous one's image.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/logs/gpu.txt
S=30a-primary-ray-packets  # ran as 31-primary-ray-packets (its files here keep that name)
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
variants="t4:-DTREE_STACK=4 t8:-DTREE_STACK=8 t40:-DTREE_STACK=40 r64:-DBLOCKS_PER_SM_MIN=4"
for v in $variants; do
  IFS=: read -r name f1 <<<"$v"
  ( NVCCFLAGS="-O3 $f1" CUDA_ARCH=90 make BUILD=build-$name build-$name/$S >$OUT/logs/build-$name.log 2>&1 || tail -5 $OUT/logs/build-$name.log ) &
done
wait; echo "variants built $(el) s"
for f in build/30-*.resources.txt build/$S.resources.txt build-*/*.resources.txt; do echo "== $f"; grep -A3 "render_kernel.*sm_90'" $f | grep -v Compiling; done > $OUT/logs/resources.txt
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in r1k r10k benchmark; do
  for size in 200x150 67x41; do
    build/cpu-reference --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/ref.ppm >/dev/null
    for b in build/$S build-t4/$S build-t8/$S build-t40/$S build-r64/$S; do
      rm -f /tmp/sc/o.ppm; $b --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/o.ppm >/dev/null
      echo "exact $b $sc $size: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
    done
    for blk in 8x4 16x16 24x5 40x4 7x9 33x1 1x1; do
      rm -f /tmp/sc/o.ppm; timeout 120 build/$S --block $blk --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/o.ppm >/dev/null
      echo "exact build/$S --block $blk $sc $size: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
    done
  done
done 2>&1 | tee $OUT/logs/exact.txt
echo "exact $(el) s"
bins="build/30-warp-tiles build/$S build-r64/$S"
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
tar -czf $OUT/logs.tgz -C $OUT logs
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for sc in benchmark r1k r10k r100k; do for st in 30-warp-tiles $S; do
  timeout 120 ncu --metrics $M -k regex:'render_kernel' --csv build/$st --scene /tmp/sc/$sc.scene > $OUT/ncu/ncu-$st-$sc.csv 2>$OUT/ncu/ncu-$st-$sc.err
  echo "ncu $st $sc rc=$? $(el) s"
done; done
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
BUILD=build timeout 200 tests/run-tests.sh build/tests/test_big_scenes build/tests/test_gpu_stages >$OUT/logs/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/logs/gpu-tests.log)"
grep -E "^not ok|crashed" $OUT/logs/gpu-tests.log | head
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
