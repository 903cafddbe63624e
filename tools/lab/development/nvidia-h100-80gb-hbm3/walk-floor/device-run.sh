#!/usr/bin/env bash
# Session 2026-11-26 (seventh), call A: stage 27's exactness (test_big_scenes, TREE_STACK 4/8),
# timing beside 26, then ncu counters of the walks (floor analysis) and of p12 on pt-production.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/build-all.log 2>&1 || { tail -30 $OUT/build-all.log; exit 1; }
echo "build all $(el) s"
STAGES="26-clustered-build 27-four-wide-tree" STACK_VARIANT=27-four-wide-tree RUNS=${RUNS:-3} bash .kit/dev26.sh   # dev26.sh beside this file
echo "dev26 done $(el) s"
S=build/scenes
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
prof() { # name stage args...
  local name=$1 stage=$2; shift 2
  timeout 120 ncu --metrics $M -k regex:'render_kernel|persistent_kernel' --csv build/$stage "$@" > $OUT/ncu-$name.csv 2>$OUT/ncu-$name.err
  echo "ncu $name rc=$? $(el) s"
}
for sc in scenes/benchmark.scene $S/random-1k.scene $S/random-10k.scene $S/random-100k.scene; do
  n=$(basename $sc .scene)
  for st in 26-clustered-build 27-four-wide-tree; do prof $st-$n $st --scene $sc; done
done
prof 21-benchmark 21-persistent-rows --scene scenes/benchmark.scene
prof 21-random-1k 21-persistent-rows --scene $S/random-1k.scene
for st in p12-host-work-behind-render p15-clustered-build; do prof $st-pt-production $st --scene scenes/pt-production.scene; done
mkdir -p $OUT/ncu && mv $OUT/ncu-* $OUT/ncu/ && tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
echo "all $(el) s"
