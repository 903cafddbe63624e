#!/usr/bin/env bash
# Device run of stage 42 (ranks over GPUs: one process a GPU, the rows gathered to rank 0 by NCCL)
# on a node of two H200s. First NCCL: where nccl.h and libnccl are (NCCL_HOME, beside nvcc, /usr,
# python's nvidia-nccl wheel, else anywhere a bounded find sees), printed; none: one line and exit 3
# (the stage links NCCL). Then build stages 01, 21, 40, 42, the CPU reference, compare-images and
# test_gpu_stages; the node's GPUs and topology (nvidia-smi topo -m) into env.txt. Images: stage
# 42 on one rank and on two (tools/launch-ranks.sh; also two ranks with --frames 3, and a world of
# one without a launcher) against stage 21's, byte for byte, at 8192x8192 and at 1000x777 with
# --block 10x3, on the benchmark and on build/scenes/random-1k.scene (the CPU reference checks 21 at
# the odd size); refusals in one line: three ranks on two GPUs, a rank waiting past
# --rendezvous-timeout for rank 0's file, a world without a job id. compute-sanitizer's memcheck on
# two ranks. Timing, interleaved: stage 21, 40 --gpus 2 and 42 on two ranks, --frames 20 at
# 8192x8192, RUNS runs each (default 5) on the benchmark and on random-1k, into timing.csv, and
# the medians (steady_frame, kernel_events, the gather's parts and events) printed (timing.txt).
# Last, test_gpu_stages with only 01, 21, 40 and 42 built. Logs in logs.tgz. About 150 s.
# Run from the repository root on the GPU machine with the device kit in .kit/ (its tracked.txt
# made from this checkout: git ls-files > .kit/tracked.txt, or files it lacks are removed).
set -u
if [ -f .kit/tracked.txt ]; then
    find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
fi
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT

# NCCL: the stage cannot be built without it. The Makefile looks in NCCL_HOME, beside nvcc and in
# /usr; a wheel's (nvidia/nccl: include/nccl.h, lib/libnccl.so.2 without libnccl.so) gets a
# folder of links that -lnccl finds.
command -v nvcc >/dev/null || PATH="$PATH:/usr/local/cuda/bin"
cuda_home=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
wheel=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
nccl_include='' nccl_lib=''
for home in "${NCCL_HOME:-}" "$cuda_home" /usr "$wheel"; do
    [ -n "$home" ] || continue
    for lib in "$home/lib" "$home/lib64" "$home/lib/$(uname -m)-linux-gnu"; do
        if [ -f "$home/include/nccl.h" ] && ls "$lib"/libnccl.so* >/dev/null 2>&1; then
            nccl_include=$home/include nccl_lib=$lib; break 2
        fi
    done
done
if [ -z "$nccl_include" ]; then
    header=$(timeout 20 find / -xdev -name nccl.h -path '*/include/*' 2>/dev/null | head -1)
    if [ -n "$header" ]; then
        lib=$(timeout 20 find / -xdev -name 'libnccl.so*' 2>/dev/null | head -1)
        [ -z "$lib" ] || { nccl_include=$(dirname "$header"); nccl_lib=$(dirname "$lib"); }
    fi
fi
{ echo "nccl: nccl.h in ${nccl_include:-(none)}, libnccl in ${nccl_lib:-(none)}"
  [ -z "$nccl_include" ] || grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' "$nccl_include/nccl.h" | tr '\n' ' '; echo
} | tee "$OUT/env.txt"
if [ -z "$nccl_include" ]; then
    echo "device-run: no NCCL on this machine (nccl.h and libnccl.so: NCCL_HOME, beside nvcc, /usr, python's nvidia-nccl): stage 42 links it and cannot be built here"
    exit 3
fi
if [ ! -f "$nccl_lib/libnccl.so" ] || [ "$nccl_include" != "$(dirname "$nccl_lib")/include" ]; then
    shim=/tmp/nccl-home; rm -rf $shim; mkdir -p $shim/include $shim/lib
    ln -s "$nccl_include"/* $shim/include/
    for f in "$nccl_lib"/libnccl.so*; do ln -sf "$f" $shim/lib/; done
    [ -e $shim/lib/libnccl.so ] || ln -s "$(ls "$nccl_lib"/libnccl.so.* | head -1)" $shim/lib/libnccl.so
    nccl_home=$shim
else
    nccl_home=$(dirname "$nccl_lib")
fi
export NCCL_HOME=$nccl_home
echo "nccl: NCCL_HOME=$NCCL_HOME" | tee -a "$OUT/env.txt"

{ nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
  nvcc --version | tail -2; date -u; cat .kit/revision.txt 2>/dev/null
  echo "--- nvidia-smi topo -m"; nvidia-smi topo -m
  echo "--- nvidia-smi nvlink -s"; nvidia-smi nvlink -s 2>&1 | head -40
  echo "--- NUMA"; lscpu | grep -i numa; } 2>&1 | tee $L/gpu.txt >>"$OUT/env.txt"
A=21-persistent-rows B=40-rows-over-gpus C=42-ranks-over-gpus s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$B build/$C build/cpu-reference build/compare-images \
    build/tests/test_gpu_stages $s/random-1k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
make -s left-out CUDA_ARCH=90 >>$L/build.log 2>&1
ldd build/$C | grep -i nccl | tee -a "$OUT/env.txt"
echo "build $(el) s"
R="tools/launch-ranks.sh"

# Images: every run's PPM hashed against stage 21's of the same scene and size.
img() { # NAME PROGRAM ARGS...: renders to /tmp/img.ppm, prints NAME and the image's sha256
  local name=$1; shift
  if timeout 120 "$@" --output /tmp/img.ppm >$L/img.out 2>$L/img.err; then
    echo "$name $(sha256sum </tmp/img.ppm | cut -c1-16)"
  else echo "$name FAILED: $(head -1 $L/img.err)"; fi
  rm -f /tmp/img.ppm
}
{ for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for size in "" "--size 1000x777 --block 10x3"; do
      what="$(basename $scene .scene) ${size:-8192x8192}"
      ref=$(img 21 build/$A --scene $scene $size | cut -d' ' -f2-)
      echo "$what: 21 $ref"
      if [ -n "$size" ]; then
        cpu=$(img cpu build/cpu-reference --scene $scene ${size% --block*} | cut -d' ' -f2-)
        [ "$cpu" = "$ref" ] && echo "$what: cpu-reference identical to 21" || echo "$what: cpu-reference DIFFERS from 21 ($cpu)"
      fi
      for config in "1 rank:$R 1 --" "2 ranks:$R 2 --" "2 ranks --frames 3:$R 2 --" "no launcher:"; do
        name=${config%%:*} launch=${config#*:} extra=''
        [ "$name" = "2 ranks --frames 3" ] && extra="--frames 3"
        got=$(img 42 $launch build/$C --scene $scene $size $extra | cut -d' ' -f2-)
        [ "$got" = "$ref" ] && echo "$what: 42 $name identical to 21" || echo "$what: 42 $name DIFFERS from 21 ($got)"
      done
      # One report, rank 0's: the CSV of two ranks holds one header.
      $R 2 -- build/$C --scene $scene $size --csv >$L/two.csv 2>$L/two.err
      echo "$what: 42 on 2 ranks --csv: exit $?, $(grep -c '^stage,' $L/two.csv) header(s), ranks $(awk -F, '$9 == "ranks" {print $10}' $L/two.csv), gather $(awk -F, '$9 == "gather" {print $10}' $L/two.csv) us, gather_events $(awk -F, '$9 == "gather_events" {print $10}' $L/two.csv) us, communicator_init $(awk -F, '$9 == "communicator_init" {print $10}' $L/two.csv) us"
    done
  done
  # Refusals, each in one line: more ranks than GPUs, a rank that waits past its timeout for rank
  # 0's file, two ranks without a job id (no launcher's), the row of one rank per row.
  $R 3 -- build/$C --scene scenes/quick.scene >/dev/null 2>$L/refused.err; echo "3 ranks on 2 GPUs: exit $? ($(wc -l <$L/refused.err) line(s)) $(grep -m1 error $L/refused.err)"
  start=$(date +%s%N)
  RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 build/$C --scene scenes/quick.scene --rendezvous /tmp/nobody.id --rendezvous-timeout 2 >/dev/null 2>$L/refused.err
  echo "rank 1 without rank 0 (timeout 2 s): exit $? after $(( ($(date +%s%N) - start) / 1000000 )) ms ($(wc -l <$L/refused.err) line(s)) $(cat $L/refused.err)"
  RANK=0 WORLD_SIZE=2 build/$C --scene scenes/quick.scene >/dev/null 2>$L/refused.err; echo "no job id: exit $? $(cat $L/refused.err)"
  # A rank that dies: the launcher stops the other, which would wait at the gather.
  start=$(date +%s%N)
  $R 2 -- sh -c 'if [ "$RANK" = 1 ]; then exit 7; fi; exec "$@"' sh build/$C --scene scenes/quick.scene --frames 50 >/dev/null 2>$L/refused.err
  echo "rank 1 exits 7 at once: launcher exit $? after $(( ($(date +%s%N) - start) / 1000000 )) ms"
} 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

{ for scene in scenes/quick.scene scenes/odd-size.scene; do
    timeout 180 $R 2 -- compute-sanitizer --tool memcheck --error-exitcode 9 build/$C --scene $scene --frames 2 >$L/sanitize.out 2>&1
    echo "memcheck $scene on 2 ranks --frames 2: exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize.out | tr '\n' ' ')" \
         "($(grep -c 'Program hit' $L/sanitize.out) API errors, $(grep -A9 'Program hit' $L/sanitize.out | grep -c 'pncclCommInitRank') of them inside ncclCommInitRank)"
    cp $L/sanitize.out "$L/sanitize-$(basename $scene .scene).out"
  done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

# Timing, interleaved: a run of each configuration on each scene, RUNS times.
csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
{ echo "config,scene,run,ranks_or_gpus,steady_frame_us,steady_frame_min_us,kernel_events_us,kernel_events_fastest_us,kernel_us,device_to_host_us,gather_us,copy_home_us,gather_events_us,steady_gather_events_us,communicator_init_us,total_us"
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for config in "21:build/$A" "40-gpus2:build/$B --gpus 2" "42-ranks2:$R 2 -- build/$C"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 120 $cmd --scene $scene --frames 20 --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      n=$(csv ranks $L/run.csv); n=${n:-$(csv gpus $L/run.csv)}
      echo "$name,$(basename $scene .scene),$run,$n,$(csv steady_frame $L/run.csv),$(csv steady_frame_min $L/run.csv),$(csv kernel_events $L/run.csv),$(csv kernel_events_fastest $L/run.csv),$(csv kernel $L/run.csv),$(csv device_to_host $L/run.csv),$(csv gather $L/run.csv),$(csv copy_home $L/run.csv),$(csv gather_events $L/run.csv),$(csv steady_gather_events $L/run.csv),$(csv communicator_init $L/run.csv),$(csv total $L/run.csv)"
    done; done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['steady_frame_us', 'steady_frame_min_us', 'kernel_events_us', 'kernel_events_fastest_us', 'device_to_host_us',
        'gather_us', 'copy_home_us', 'gather_events_us', 'steady_gather_events_us', 'communicator_init_us']
print('medians in us, --frames 20 at 8192x8192, runs interleaved (gather: the first frame\'s part; steady_gather_events: the steady frames\' sends)')
print('config'.ljust(10) + 'scene'.ljust(12) + 'runs'.rjust(5) + ''.join(c[:-3].rjust(22) for c in cols))
for scene in dict.fromkeys(r['scene'] for r in rows):
    base = None
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['config'] == config]
        if not cell:
            continue
        med = {}
        for c in cols:
            values = [float(r[c]) for r in cell if r[c]]
            med[c] = statistics.median(values) if values else float('nan')
        base = base or med['steady_frame_us']
        print(config.ljust(10) + scene.ljust(12) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med[c]).rjust(22) for c in cols))
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [float(r['steady_frame_us']) for r in rows if r['scene'] == scene and r['config'] == config and r['steady_frame_us']]
        if cell and base:
            print('  %s on %s: steady frame %.2fx stage 21\'s speed' % (config, scene, base / statistics.median(cell)))
PY

# The GPU test of stage 42 against 21 (and every test of test_gpu_stages with only 01, 21, 40 and 42 built).
timeout $(( ${END:-570} - $(el) )) build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E '^# 42 |^# 40 |passed|not ok' "$OUT/test_gpu_stages.txt" | tail -14)"
