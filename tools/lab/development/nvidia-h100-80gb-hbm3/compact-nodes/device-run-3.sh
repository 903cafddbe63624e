#!/usr/bin/env bash
# 2026-11-27, H100, third call: stage 31-compact-nodes as committed (each child's index and box one
# 16-byte load; the development runs' "30z-one-load"). Exactness (TREE_STACK 4, 8, 40; --block
# shapes; odd sizes; the 1k scene moved past the halves' range and far out), the differential
# test over 200 seeds, Nsight Compute counters on the four scenes, then its reference campaign
# (100 runs, and 100 writing the PNG) and its scaling campaign (resumed until END seconds).
# As it ran, the campaigns were given the folder name (--stages 31-compact-nodes), which run.sh
# refuses; they ran in a fourth call, on the same machine, as (.kit/d6.sh):
#   ./run.sh --reference --resume --runs 100 --stages 30a,31 --no-build       (cut at 200 s)
#   ./run.sh --scaling --reference --resume --runs 100 --stages 31 --no-build (cut at 395 s)
# and the stage id is written below. 30a ran nothing (complete); its ptxas report came back.
# Run from the repository root with .kit/ beside it; logs in $OUT/logs.tgz, counters in
# $OUT/ncu.tgz, the campaigns' changed results in $OUT/results-<gpu>.tgz.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p $OUT/logs $OUT/ncu /tmp/sc
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2; date -u; } | tee $OUT/logs/gpu-3.txt
S=31-compact-nodes
CUDA_ARCH=90 make -j16 all scenes >$OUT/logs/build-all-3.log 2>&1 || { tail -30 $OUT/logs/build-all-3.log; exit 1; }
for v in t4:-DTREE_STACK=4 t8:-DTREE_STACK=8 t40:-DTREE_STACK=40; do
  IFS=: read -r name f1 <<<"$v"
  ( NVCCFLAGS="-O3 $f1" CUDA_ARCH=90 make BUILD=build-$name build-$name/$S >$OUT/logs/build-$name-3.log 2>&1 || tail -5 $OUT/logs/build-$name-3.log ) &
done
wait; echo "built $(el) s"
for f in build/$S build-t4/$S build-t8/$S build-t40/$S; do echo "== $f"; grep -A3 "render_kernel.*sm_90'" $f.resources.txt | grep -v Compiling; done > $OUT/logs/resources-3.txt
for n in 1k 10k 100k; do cp build/scenes/random-$n.scene /tmp/sc/r$n.scene; done
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for dx in 70000 12000; do
  awk -v dx=$dx '$1=="camera"||$1=="light" {$2+=dx} $1=="sphere" {$3+=dx} {print}' /tmp/sc/r1k.scene > /tmp/sc/r1k-x$dx.scene
done
for sc in r1k r10k benchmark r1k-x70000 r1k-x12000; do
  for size in 200x150 67x41; do
    build/cpu-reference --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/ref.ppm >/dev/null
    for b in build/$S build-t4/$S build-t8/$S build-t40/$S; do
      rm -f /tmp/sc/o.ppm; timeout 120 $b --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/o.ppm >/dev/null
      echo "exact $b $sc $size: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
    done
    for blk in 8x4 16x16 24x5 7x9 33x1 1x1; do
      rm -f /tmp/sc/o.ppm; timeout 120 build/$S --block $blk --scene /tmp/sc/$sc.scene --size $size --output /tmp/sc/o.ppm >/dev/null
      echo "exact build/$S --block $blk $sc $size: $(cmp /tmp/sc/ref.ppm /tmp/sc/o.ppm && echo identical)"
    done
  done
done > $OUT/logs/exact-3.txt 2>&1
echo "exact $(el) s: $(grep -c identical $OUT/logs/exact-3.txt) identical of $(wc -l < $OUT/logs/exact-3.txt)"
tools/difftest.sh --seeds 200 --stages 31 --jobs 16 > $OUT/logs/difftest-3.txt 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 $OUT/logs/difftest-3.txt)"
M=smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for sc in benchmark r1k r10k r100k; do
  timeout 60 ncu --metrics $M -k regex:'render_kernel' --csv build/$S --scene /tmp/sc/$sc.scene > $OUT/ncu/ncu-$S-$sc.csv 2>$OUT/ncu/ncu-$S-$sc.err
done
echo "ncu $(el) s"
tar -czf $OUT/ncu.tgz -C $OUT ncu && rm -rf $OUT/ncu
tar -czf $OUT/logs.tgz -C $OUT logs
touch $OUT/logs/gpu.txt
timeout $(( 430 - $(el) )) ./run.sh --reference --resume --runs 100 --stages 30a,31 --no-build > $OUT/logs/campaign.log 2>&1
echo "campaign rc=$? $(el) s"; tail -2 $OUT/logs/campaign.log
timeout $(( ${END:-545} - $(el) )) ./run.sh --scaling --reference --resume --runs 100 --stages 31 --no-build > $OUT/logs/scaling.log 2>&1
echo "scaling rc=$? $(el) s"; tail -2 $OUT/logs/scaling.log
for x in results/reference/nvidia-h*; do
  f=$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -type f ! -name '*.resources.txt'; ls $x/30a-primary-ray-packets.resources.txt $x/$S.resources.txt 2>/dev/null)
  [ -n "$(find $x -maxdepth 2 -newer $OUT/logs/gpu.txt -name 'runs.csv*')" ] && tar -czf $OUT/results-$(basename $x).tgz $f
done
tar -czf $OUT/logs.tgz -C $OUT logs
echo "all $(el) s"
