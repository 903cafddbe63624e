#!/usr/bin/env bash
# Device run of stage 41 (rows sized from the last frame) on a node of two H200s: build stages 01,
# 21, 40 and 41; the node's GPUs, links and topology (nvidia-smi topo -m) into the log; stage 41's
# images with --gpus 1, --gpus 2, --gpus 2 --frames 3 and --gpus 2 --frames 20 (the last of many
# re-splits) against stage 21's, byte for byte, at 8192x8192 on the benchmark and on
# build/scenes/random-1k.scene, and at an odd size and block (1000x777, --block 10x3) on both,
# where the CPU reference checks stage 21 too; --gpus beyond the node, in one line, exit 2;
# compute-sanitizer's memcheck and initcheck on stage 41 --gpus 2 --frames 3; then the timing:
# stage 40 --gpus 2 and 41 --gpus 2 with --frames 20, interleaved, RUNS runs each (default 5) on
# each scene (benchmark, random-1k) at 8192x8192, into timing.csv, and the medians of
# steady_frame, the first frame's kernel_events and kernel_events_fastest, the last frame's spans
# (kernel_events_last_frame, copies_events_last_frame and their _fastest) and rows_first_gpu
# printed (timing.txt); then how the split moves, frame by frame (41 --gpus 2 with --frames 1, 2,
# 3, 5 and 20 on each scene: the last frame's split and spans, appended to timing.txt); last, the
# GPU test of stages 40 and 41 against 21 (test_gpu_stages, with only 01, 21, 40 and 41 built).
# Logs in logs.tgz. Run from the repository root on the GPU machine with the device kit in .kit/.
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
A=21-persistent-rows P=40-rows-over-gpus B=41-balanced-rows s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$P build/$B build/cpu-reference build/compare-images \
    build/tests/test_gpu_stages $s/random-1k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
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
      for args in "--gpus 1" "--gpus 2" "--gpus 2 --frames 3" "--gpus 2 --frames 20"; do
        got=$(img 41 build/$B --scene $scene $size $args | cut -d' ' -f2-)
        [ "$got" = "$ref" ] && echo "$what: 41 $args identical to 21" || echo "$what: 41 $args DIFFERS from 21 ($got)"
      done
    done
  done
  for args in "--gpus 3" "--device 1 --gpus 2"; do
    build/$B --scene scenes/quick.scene $args >/dev/null 2>$L/gpus.err; echo "$args: exit $? $(cat $L/gpus.err)"
  done
} 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

{ for tool in memcheck initcheck; do for scene in scenes/quick.scene scenes/odd-size.scene; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene $scene --gpus 2 --frames 3 >$L/sanitize.out 2>&1
    echo "$tool $scene --gpus 2 --frames 3: exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize.out | tail -1)"
  done; done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

# Timing, interleaved: a run of each configuration on each scene, RUNS times.
csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
M="steady_frame steady_frame_min kernel_events kernel_events_fastest kernel_events_last_frame kernel_events_last_frame_fastest copies_events_last_frame copies_events_last_frame_fastest rows_first_gpu kernel device_to_host total"
row() { local r="" m; for m in $M; do r="$r,$(csv $m $1)"; done; echo "${r#,}"; }
{ echo "config,scene,run,frames,gpus,${M// /,}"
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for config in "40-gpus2:build/$P --gpus 2" "41-gpus2:build/$B --gpus 2"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 120 $cmd --scene $scene --frames 20 --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      echo "$name,$(basename $scene .scene),$run,20,$(csv gpus $L/run.csv),$(row $L/run.csv)"
    done; done; done
  # How the split moves: the split and spans of the last of 1, 2, 3, 5 and 20 frames.
  for scene in scenes/benchmark.scene $s/random-1k.scene; do for frames in 1 2 3 5 20; do
    timeout 120 build/$B --gpus 2 --scene $scene --frames $frames --csv >$L/run.csv 2>$L/run.err || { echo "split $scene $frames FAILED: $(head -1 $L/run.err)" >&2; continue; }
    echo "41-series,$(basename $scene .scene),1,$frames,$(csv gpus $L/run.csv),$(row $L/run.csv)"
  done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['steady_frame', 'kernel_events', 'kernel_events_fastest', 'kernel_events_last_frame',
        'kernel_events_last_frame_fastest', 'copies_events_last_frame',
        'copies_events_last_frame_fastest', 'rows_first_gpu']
short = ['steady', 'kev', 'kev_fast', 'kev_last', 'kev_last_fast', 'cev_last', 'cev_last_fast', 'rows_gpu0']
def med(cell, c):
    values = [float(r[c]) for r in cell if r[c]]
    return statistics.median(values) if values else float('nan')  # 40 has no _last_frame
timed = [r for r in rows if r['config'] != '41-series']
print('medians in us (rows_gpu0: rows), --frames 20 at 8192x8192, runs interleaved; kev: the first '
      'frame\'s kernel_events, _last: the last frame\'s, cev: copies_events')
print('config'.ljust(10) + 'scene'.ljust(12) + 'runs'.rjust(5) + ''.join(c.rjust(15) for c in short))
for scene in dict.fromkeys(r['scene'] for r in timed):
    steady = {}
    for config in dict.fromkeys(r['config'] for r in timed):
        cell = [r for r in timed if r['scene'] == scene and r['config'] == config]
        if cell:
            steady[config] = med(cell, 'steady_frame')
            print(config.ljust(10) + scene.ljust(12) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med(cell, c)).rjust(15) for c in cols))
    if '40-gpus2' in steady and '41-gpus2' in steady:
        print('  on %s: 41\'s steady frame %.3fx faster than 40\'s' % (scene, steady['40-gpus2'] / steady['41-gpus2']))
print('\nthe split of the last frame of a run of N frames (41 --gpus 2, one run each; us, rows)')
print('scene'.ljust(12) + 'frames'.rjust(7) + ''.join(c.rjust(15) for c in short[3:]))
for r in rows:
    if r['config'] == '41-series':
        print(r['scene'].ljust(12) + r['frames'].rjust(7) + ''.join(('%.1f' % float(r[c]) if r[c] else 'nan').rjust(15) for c in cols[3:]))
PY

# The GPU test of stages 40 and 41 against 21 (and every test of test_gpu_stages with only 01, 21,
# 40 and 41 built).
timeout $(( ${END:-570} - $(el) )) build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E '^# 4[01] |passed|failed' "$OUT/test_gpu_stages.txt" | tail -30)"
