#!/usr/bin/env bash
# Session 2026-11-27, call 2: asked for no kind and ran on an H200 (gpu.txt). Stage 28a-shared-stack
# was called 29-shared-stack when this ran (its ncu files are renamed; the logs keep the old name),
# and the reference campaign at the end was lost (its results went to nvidia-h200/, the tar looked
# in the H100's folder). Stages 28-registers-not-arrays and 29-shared-stack against 27:
# exactness (28 with TREE_STACK 4/8; 29 with the ring forced to spill), timing interleaved
# (27, 28, 29 with rings of 4, 8, 16) on the benchmark and 1k/10k/100k, the same with
# CUDA_LAUNCH_BLOCKING=1 on 100k (bands one after another, as under ncu), ncu counters (default
# and with clocks and caches left alone); test_big_scenes, test_gpu_stages; then the reference
# campaign of 28 and 29 while time is left. Logs in logs.tgz, results in results.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/logs/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
variants="t4:28-registers-not-arrays:-DTREE_STACK=4 t8:28-registers-not-arrays:-DTREE_STACK=8 s2:29-shared-stack:-DSHARED_STACK=2 s4t8:29-shared-stack:-DSHARED_STACK=4:-DTREE_STACK=8 s4:29-shared-stack:-DSHARED_STACK=4 s16:29-shared-stack:-DSHARED_STACK=16"
for v in $variants; do
  IFS=: read -r name st f1 f2 <<<"$v"
  ( NVCCFLAGS="-O3 $f1 ${f2:-}" CUDA_ARCH=90 make BUILD=build-$name build-$name/$st >$OUT/logs/build-$name.log 2>&1 || tail -5 $OUT/logs/build-$name.log ) &
done
wait; echo "variants built $(el) s"
for f in build/2[789]-*.resources.txt build-*/2[89]-*.resources.txt; do echo "== $f"; grep -A3 "render_kernel.*sm_90'" $f | grep -v Compiling; done > $OUT/logs/resources.txt
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in r1k r10k benchmark; do
  build/cpu-reference --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/ref.ppm >/dev/null
  for b in build/28-registers-not-arrays build-t4/28-registers-not-arrays build-t8/28-registers-not-arrays build/29-shared-stack build-s2/29-shared-stack build-s4t8/29-shared-stack build-s16/29-shared-stack; do
    $b --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/o.ppm >/dev/null
    echo "exact $b $sc: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
  done
done | tee $OUT/logs/exact.txt
echo "exact $(el) s"
bins="build/27-cone-box-test build/28-registers-not-arrays build/29-shared-stack build-s4/29-shared-stack build-s16/29-shared-stack"
for r in 1 2 3 4 5; do for sc in benchmark r1k r10k r100k; do for b in $bins; do
  $b --scene /tmp/sc/$sc.scene --csv 2>>$OUT/logs/err.log | awk -F, -v b=$b -v sc=$sc '$9=="kernel_events"||$9=="build"||$9=="total" {print b, sc, $9, $10}'
done; done; done > $OUT/logs/timings.txt
for r in 1 2 3; do for b in build/27-cone-box-test build/28-registers-not-arrays build/29-shared-stack; do
  CUDA_LAUNCH_BLOCKING=1 $b --scene /tmp/sc/r100k.scene --csv 2>>$OUT/logs/err.log | awk -F, -v b=$b '$9=="kernel_events" {print b, "r100k-blocking", $9, $10}'
done; done >> $OUT/logs/timings.txt
python3 - $OUT/logs/timings.txt <<'PY' | tee $OUT/logs/timing-summary.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    b,sc,m,v=line.split(); d[(sc,m,b)].append(float(v))
for (sc,m,b),v in sorted(d.items()):
    if m == "kernel_events" or m == "build":
        print(f"{sc:15s} {m:14s} {b:28s} median {statistics.median(v):10.1f} min {min(v):10.1f} max {max(v):10.1f} n={len(v)}")
PY
echo "timing $(el) s"
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__shared_mem_config_size,smsp__sass_inst_executed_op_global_ld.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__grid_size
for sc in benchmark r1k r10k r100k; do for st in 27-cone-box-test 28-registers-not-arrays 29-shared-stack; do
  timeout 120 ncu --metrics $M -k regex:'render_kernel' --csv build/$st --scene /tmp/sc/$sc.scene > $OUT/ncu/ncu-$st-$sc.csv 2>$OUT/ncu/ncu-$st-$sc.err
  echo "ncu $st $sc rc=$? $(el) s"
done; done
for st in 27-cone-box-test 28-registers-not-arrays 29-shared-stack; do
  timeout 120 ncu --clock-control none --cache-control none --metrics $M -k regex:'render_kernel' --csv build/$st --scene /tmp/sc/r100k.scene > $OUT/ncu/ncu-free-$st-r100k.csv 2>$OUT/ncu/ncu-free-$st-r100k.err
  echo "ncu free $st rc=$? $(el) s"
done
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
BUILD=build timeout 200 tests/run-tests.sh build/tests/test_big_scenes build/tests/test_gpu_stages >$OUT/logs/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/logs/gpu-tests.log)"
grep -E "^not ok|crashed" $OUT/logs/gpu-tests.log | head
tar -czf $OUT/logs.tgz -C $OUT logs
if [ $(el) -lt 480 ]; then
  timeout $(( 575 - $(el) )) ./run.sh --reference --resume --runs 100 --stages 28,29 --no-build > $OUT/logs/campaign.log 2>&1
  echo "campaign rc=$? $(el) s"; tail -2 $OUT/logs/campaign.log
  d=results/reference/nvidia-h100-80gb-hbm3
  tar -czf $OUT/results.tgz $d/runs.csv.gz $d/env.txt $d/joblog.txt $d/failed-runs.csv $d/verify.txt $d/summary.csv $d/summary.md $d/*.png $d/2[89]-*.resources.txt 2>/dev/null
fi
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
