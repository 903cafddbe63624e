#!/usr/bin/env bash
# Session 2026-11-26 (eighth), call C: stage 27 as committed (the cone made once unless an axis
# is dropped): TREE_STACK 4/8 exactness and timing beside 26 (dev26.sh), ncu of its walk, the whole
# sanitizer record, then the GPU test suites while time is left. Everything comes back in logs.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
SKIP_TEST=1 STAGES="26-clustered-build 27-cone-box-test" STACK_VARIANT=27-cone-box-test RUNS=${RUNS:-3} \
  bash tools/lab/development/nvidia-h100-80gb-hbm3/walk-floor/dev26.sh > $OUT/dev26.txt 2>&1
grep -v "rays_per_second\| build " $OUT/dev26.txt
S=build/scenes
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
for sc in scenes/benchmark.scene $S/random-1k.scene $S/random-10k.scene $S/random-100k.scene; do
  n=$(basename $sc .scene); st=27-cone-box-test
  timeout 120 ncu --metrics $M -k regex:'render_kernel' --csv build/$st --scene $sc > $OUT/ncu/ncu-$st-$n.csv 2>$OUT/ncu/ncu-$st-$n.err
  echo "ncu $st-$n rc=$? $(el) s"
done
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
RESULTS=results/reference SANITIZE_JOBS=12 SANITIZE_TIMEOUT=300 timeout 300 tools/sanitize.sh >$OUT/logs/sanitize.log 2>&1
rc=$?; echo "sanitize rc=$rc at $(el) s"; tail -2 $OUT/logs/sanitize.log
# What the commit will do once the record is in: 26a and 27 off the pending list.
[ $rc = 0 ] && sed -i -e "/^26a-four-wide-tree	/d" -e "/^27-cone-box-test	/d" tests/sanitizer-pending.tsv
cp results/reference/nvidia-h100-80gb-hbm3/sanitizer.txt $OUT/logs/ 2>/dev/null
tar -czf $OUT/logs.tgz -C $OUT logs
tests=""
for t in test_big_scenes test_gpu_stages test_difftest test_pt_stages test_image test_png test_png_stream test_bad_inputs test_cpu_reference \
         test_resources test_report test_run_anywhere test_pt_bench test_bvh test_pt_reference test_sanitizer_record; do
  [ -x build/tests/$t ] && tests="$tests build/tests/$t"
done
BUILD=build timeout $(( 585 - $(el) )) tests/run-tests.sh $tests >$OUT/logs/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/logs/gpu-tests.log)"
grep -E "^# ----|^# ok|^# not ok|^not ok|crashed|seeds x" $OUT/logs/gpu-tests.log | tail -40
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
