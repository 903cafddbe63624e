#!/usr/bin/env bash
# Device run of stage 40 (rows over GPUs) on a node of two H200s: build stages 21 and 40; the
# node's GPUs, links and topology (nvidia-smi topo -m) into the log; stage 40's images with
# --gpus 1, --gpus 2 (also with --frames 3: the last of three frames), --device 1 --gpus 1 and
# its default (every GPU) against stage 21's, byte for byte, at 8192x8192 on the benchmark and on
# build/scenes/random-1k.scene, and at an odd size and block (1000x777, --block 10x3) on both,
# where the CPU reference checks stage 21 too; build/scenes/random-100k.scene, over both stages'
# 1,024 spheres, must be refused by both in the same one line; --gpus beyond the node, in one
# line, exit 2; compute-sanitizer's memcheck and initcheck on stage 40 --gpus 2; then the timing:
# stage 21, 40 --gpus 1 and 40 --gpus 2 with --frames 20, interleaved, RUNS runs each (default
# 5) on each scene (benchmark, random-1k) at 8192x8192, into timing.csv, and the medians of
# steady_frame, kernel_events and kernel_events_fastest printed (timing.txt); last, the GPU
# test of stage 40 against 21 (test_gpu_stages, with only 01, 21 and 40 built). Logs in logs.tgz.
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
  nvcc --version | tail -2; date -u; cat .kit/revision.txt
  echo "--- nvidia-smi topo -m"; nvidia-smi topo -m
  echo "--- NUMA"; lscpu | grep -i numa; } 2>&1 | tee $L/gpu.txt "$OUT/env.txt"
A=21-persistent-rows B=40-rows-over-gpus s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$B build/cpu-reference build/compare-images build/tests/test_gpu_stages \
    $s/random-1k.scene $s/random-100k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"

# Images: every run's PPM hashed against stage 21's of the same scene and size.
img() { # NAME PROGRAM ARGS...: renders to /tmp/img.ppm, prints NAME and the image's sha256
  local name=$1; shift
  if timeout 120 "$@" --output /tmp/img.ppm >/dev/null 2>$L/img.err; then
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
      for args in "--gpus 1" "--gpus 2" "--gpus 2 --frames 3" "--device 1 --gpus 1" ""; do
        got=$(img 40 build/$B --scene $scene $size $args | cut -d' ' -f2-)
        [ "$got" = "$ref" ] && echo "$what: 40 ${args:-(every GPU)} identical to 21" || echo "$what: 40 ${args:-(every GPU)} DIFFERS from 21 ($got)"
      done
    done
  done
  for b in $A $B; do
    build/$b --scene $s/random-100k.scene >/dev/null 2>$L/refused.err; echo "random-100k: $b exit $? $(head -1 $L/refused.err)"
    [ "$(wc -l <$L/refused.err)" = 1 ] || echo "random-100k: $b said $(wc -l <$L/refused.err) lines"
  done
  for args in "--gpus 3" "--gpus 64" "--device 1 --gpus 2"; do
    build/$B --scene scenes/quick.scene $args >/dev/null 2>$L/gpus.err; echo "$args: exit $? $(cat $L/gpus.err)"
  done
  build/$A --scene scenes/quick.scene --gpus 2 >/dev/null 2>$L/gpus.err; echo "21 --gpus 2: exit $? $(cat $L/gpus.err)"
} 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

{ for tool in memcheck initcheck; do for scene in scenes/quick.scene scenes/odd-size.scene; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene $scene --gpus 2 --frames 2 >$L/sanitize.out 2>&1
    echo "$tool $scene --gpus 2 --frames 2: exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize.out | tail -1)"
  done; done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

# Timing, interleaved: a run of each configuration on each scene, RUNS times.
csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
{ echo "config,scene,run,gpus,steady_frame_us,steady_frame_min_us,kernel_events_us,kernel_events_fastest_us,kernel_us,device_to_host_us,total_us"
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for config in "21:build/$A" "40-gpus1:build/$B --gpus 1" "40-gpus2:build/$B --gpus 2"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 120 $cmd --scene $scene --frames 20 --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      echo "$name,$(basename $scene .scene),$run,$(csv gpus $L/run.csv),$(csv steady_frame $L/run.csv),$(csv steady_frame_min $L/run.csv),$(csv kernel_events $L/run.csv),$(csv kernel_events_fastest $L/run.csv),$(csv kernel $L/run.csv),$(csv device_to_host $L/run.csv),$(csv total $L/run.csv)"
    done; done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['steady_frame_us', 'steady_frame_min_us', 'kernel_events_us', 'kernel_events_fastest_us', 'kernel_us', 'device_to_host_us']
print('medians in us, --frames 20 at 8192x8192, runs interleaved')
print('config'.ljust(10) + 'scene'.ljust(12) + 'runs'.rjust(5) + ''.join(c[:-3].rjust(22) for c in cols))
base = {}
for scene in dict.fromkeys(r['scene'] for r in rows):
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['config'] == config]
        if not cell:
            continue
        med = {}
        for c in cols:
            values = [float(r[c]) for r in cell if r[c]]
            med[c] = statistics.median(values) if values else float('nan')  # 21 has no _fastest
        base.setdefault(scene, med)
        print(config.ljust(10) + scene.ljust(12) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med[c]).rjust(22) for c in cols))
    b = base[scene]['steady_frame_us']
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [float(r['steady_frame_us']) for r in rows if r['scene'] == scene and r['config'] == config and r['steady_frame_us']]
        if cell:
            print('  %s on %s: steady frame %.2fx faster than stage 21\'s' % (config, scene, b / statistics.median(cell)))
PY

# The GPU test of stage 40 against 21 (and every test of test_gpu_stages with only 21 and 40 built).
timeout $(( ${END:-570} - $(el) )) build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E '^# 40 |passed' "$OUT/test_gpu_stages.txt" | tail -12)"
