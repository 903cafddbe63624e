#!/usr/bin/env bash
# Session 2026-11-27, call 1 (H100): the first try, a shared-memory stack built on stage 27 (then
# stages/28-shared-stack; its ncu files here are ncu-first-shared-stack-*; the logs keep the old
# name). Its counters showed stage 27's walk indexing two small arrays at run time (stage 28's
# lesson); the stack in shared memory was rebuilt on 28 as 28a-shared-stack. 28-shared-stack
# against 27: exactness with the ring
# forced to spill (SHARED_STACK 2, 4 with TREE_STACK 8), timing of 27 and 28 (ring 4, 8, 16)
# interleaved on the benchmark and 1k/10k/100k, ncu counters of both; test_big_scenes and
# test_gpu_stages; then 27's last H100 scaling runs. Logs in logs.tgz, results in scaling.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/logs/gpu.txt
CUDA_ARCH=90 make -j16 all tests scenes >$OUT/logs/build-all.log 2>&1 || { tail -30 $OUT/logs/build-all.log; exit 1; }
echo "build all $(el) s"
variants="s2:-DSHARED_STACK=2 s4t8:-DSHARED_STACK=4:-DTREE_STACK=8 s4:-DSHARED_STACK=4 s16:-DSHARED_STACK=16"
for v in $variants; do
  name=${v%%:*}; flags=$(echo ${v#*:} | tr : ' ')
  ( NVCCFLAGS="-O3 $flags" CUDA_ARCH=90 make BUILD=build-$name build-$name/28-shared-stack >$OUT/logs/build-$name.log 2>&1 || tail -5 $OUT/logs/build-$name.log ) &
done
wait; echo "variants built $(el) s"
grep -h -A3 "render_kernel.*sm_90'" build/28-shared-stack.resources.txt build-*/28-shared-stack.resources.txt | grep -v Compiling > $OUT/logs/resources.txt
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in r1k r10k benchmark; do
  build/cpu-reference --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/ref.ppm >/dev/null
  for b in build/28-shared-stack build-s2/28-shared-stack build-s4t8/28-shared-stack build-s16/28-shared-stack; do
    $b --scene /tmp/sc/$sc.scene --size 200x150 --output /tmp/sc/o.ppm >/dev/null
    echo "exact $b $sc: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
  done
done | tee $OUT/logs/exact.txt
echo "exact $(el) s"
bins="build/27-cone-box-test build/28-shared-stack build-s4/28-shared-stack build-s16/28-shared-stack"
for r in 1 2 3 4 5; do for sc in benchmark r1k r10k r100k; do for b in $bins; do
  $b --scene /tmp/sc/$sc.scene --csv 2>>$OUT/logs/err.log | awk -F, -v b=$b -v sc=$sc '$9=="kernel_events"||$9=="build"||$9=="total" {print b, sc, $9, $10}'
done; done; done > $OUT/logs/timings.txt
python3 - $OUT/logs/timings.txt <<'PY' | tee $OUT/logs/timing-summary.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    b,sc,m,v=line.split(); d[(sc,b,m)].append(float(v))
for (sc,b,m),v in sorted(d.items()):
    print(f"{sc:10s} {b:28s} {m:14s} median {statistics.median(v):10.1f} min {min(v):10.1f} n={len(v)}")
PY
echo "timing $(el) s"
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__shared_mem_config_size,smsp__sass_inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum
for sc in benchmark r1k r10k r100k; do for st in 27-cone-box-test 28-shared-stack; do
  timeout 120 ncu --metrics $M -k regex:'render_kernel' --csv build/$st --scene /tmp/sc/$sc.scene > $OUT/ncu/ncu-$st-$sc.csv 2>$OUT/ncu/ncu-$st-$sc.err
  echo "ncu $st $sc rc=$? $(el) s"
done; done
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
tests=""
for t in test_big_scenes test_gpu_stages; do tests="$tests build/tests/$t"; done
BUILD=build timeout 200 tests/run-tests.sh $tests >$OUT/logs/gpu-tests.log 2>&1
echo "gpu tests rc=$? at $(el) s: $(tail -1 $OUT/logs/gpu-tests.log)"
grep -E "^not ok|crashed" $OUT/logs/gpu-tests.log | head
tar -czf $OUT/logs.tgz -C $OUT logs
timeout $(( 570 - $(el) )) ./run.sh --scaling --reference --resume --runs 100 --stages 27 --no-build > $OUT/logs/scaling.log 2>&1
echo "scaling rc=$? $(el) s"; tail -3 $OUT/logs/scaling.log
tar -czf $OUT/scaling.tgz results/reference/nvidia-h100-80gb-hbm3/scaling
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
