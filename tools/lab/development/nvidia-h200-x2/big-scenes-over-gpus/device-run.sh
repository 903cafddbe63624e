#!/usr/bin/env bash
# Device run of stage 43 (a big scene over GPUs) on one H200 or a node of several: build stages 01,
# 33 and 43 and the chapter's scenes; the GPUs and topology into the log; stage 43's images with
# --gpus 1, and with --gpus N for every N up to the node's GPUs, each with --frames 1, 3 and 20
# (re-splits), against stage 33's, byte for byte, at 8192x8192 on the benchmark, random-1k,
# random-100k and clustered-100k, and at an odd size and block (1000x777, --block 10x3) on the
# benchmark and random-10k, where the CPU reference checks stage 33 too; --gpus beyond the node
# in one line, exit 2; compute-sanitizer's memcheck and initcheck on stage 43 (every GPU, --frames
# 3) on quick and odd-size; then the timing: stage 33 and stage 43 with --gpus 1 and every N up to
# the node's, --frames 20, interleaved, RUNS runs each (default 3) on the benchmark, random-100k
# and clustered-100k at 8192x8192, into timing.csv, and the medians of steady_frame, build, the
# first frame's kernel_events and kernel_events_fastest, the last frame's spans and rows_first_gpu
# (timing.txt), each configuration's steady frame over stage 33's; last, test_gpu_stages (with only
# 01, 33 and 43 built, its test of stage 43 against 33 runs). Logs in logs.tgz. Run from the
# repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader
  nvcc --version | tail -2; date -u; cat .kit/revision.txt
  echo "--- nvidia-smi topo -m"; nvidia-smi topo -m; } 2>&1 | tee $L/gpu.txt "$OUT/env.txt"
A=33-branch-free-boxes B=43-big-scenes-over-gpus s=build/scenes
N=$(nvidia-smi -L | grep -c '^GPU ')
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$B build/cpu-reference build/compare-images \
    build/tests/test_gpu_stages $s/random-1k.scene $s/random-10k.scene $s/random-100k.scene \
    $s/clustered-100k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s, $N GPUs"

img() { # NAME PROGRAM ARGS...: renders to /tmp/img.ppm, prints NAME and the image's sha256
  local name=$1; shift
  if timeout 200 "$@" --output /tmp/img.ppm >/dev/null 2>$L/img.err; then
    echo "$name $(sha256sum </tmp/img.ppm | cut -c1-16)"
  else echo "$name FAILED: $(head -1 $L/img.err)"; fi
  rm -f /tmp/img.ppm
}
{ for case in "scenes/benchmark.scene:" "$s/random-1k.scene:" "$s/random-100k.scene:" "$s/clustered-100k.scene:" \
              "scenes/benchmark.scene:--size 1000x777 --block 10x3" "$s/random-10k.scene:--size 1000x777 --block 10x3"; do
    scene=${case%%:*} size=${case#*:}
    what="$(basename $scene .scene) ${size:-8192x8192}"
    ref=$(img 33 build/$A --scene $scene $size | cut -d' ' -f2-)
    echo "$what: 33 $ref"
    if [ -n "$size" ]; then
      cpu=$(img cpu build/cpu-reference --scene $scene ${size% --block*} | cut -d' ' -f2-)
      [ "$cpu" = "$ref" ] && echo "$what: cpu-reference identical to 33" || echo "$what: cpu-reference DIFFERS from 33 ($cpu)"
    fi
    for g in $(seq 1 $N); do for frames in 1 3 20; do
      [ $frames = 20 ] && [ -z "$size" ] && [ $g -lt $N ] && continue
      got=$(img 43 build/$B --scene $scene $size --gpus $g --frames $frames | cut -d' ' -f2-)
      [ "$got" = "$ref" ] && echo "$what: 43 --gpus $g --frames $frames identical to 33" || echo "$what: 43 --gpus $g --frames $frames DIFFERS from 33 ($got)"
    done; done
  done
  build/$B --scene scenes/quick.scene --gpus $((N + 1)) >/dev/null 2>$L/gpus.err; echo "--gpus $((N + 1)): exit $? $(cat $L/gpus.err)"
} 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

{ for tool in memcheck initcheck; do for scene in scenes/quick.scene scenes/odd-size.scene; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene $scene --frames 3 >$L/sanitize.out 2>&1
    echo "$tool $scene --frames 3 ($N GPUs): exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize.out | tail -1)"
  done; done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
M="steady_frame steady_frame_min build kernel_events kernel_events_fastest kernel_events_last_frame kernel_events_last_frame_fastest copies_events_last_frame copies_events_last_frame_fastest rows_first_gpu kernel device_to_host total"
row() { local r="" m; for m in $M; do r="$r,$(csv $m $1)"; done; echo "${r#,}"; }
configs=("33:build/$A"); for g in $(seq 1 $N); do configs+=("43-gpus$g:build/$B --gpus $g"); done
[ $N -gt 1 ] && configs+=("43-device1:build/$B --gpus 1 --device 1")
{ echo "config,scene,run,frames,gpus,${M// /,}"
  for run in $(seq "${RUNS:-3}"); do for scene in ${TIMED_SCENES:-scenes/benchmark.scene $s/random-100k.scene $s/clustered-100k.scene}; do
    for config in "${configs[@]}"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 200 $cmd --scene $scene --frames 20 --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      echo "$name,$(basename $scene .scene),$run,20,$(csv gpus $L/run.csv),$(row $L/run.csv)"
    done; done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['steady_frame', 'build', 'kernel_events', 'kernel_events_fastest', 'kernel_events_last_frame',
        'kernel_events_last_frame_fastest', 'copies_events_last_frame', 'rows_first_gpu']
short = ['steady', 'build', 'kev', 'kev_fast', 'kev_last', 'kev_last_fast', 'cev_last', 'rows_gpu0']
def med(cell, c):
    values = [float(r[c]) for r in cell if r.get(c)]
    return statistics.median(values) if values else float('nan')
print('medians in us (rows_gpu0: rows), --frames 20 at 8192x8192, runs interleaved; build: the first '
      'frame\'s; kev: the first frame\'s kernel_events, _last: the last frame\'s, cev: copies_events')
print('config'.ljust(10) + 'scene'.ljust(16) + 'runs'.rjust(5) + ''.join(c.rjust(13) for c in short) + 'vs 33'.rjust(9))
for scene in dict.fromkeys(r['scene'] for r in rows):
    base = med([r for r in rows if r['scene'] == scene and r['config'] == '33'], 'steady_frame')
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['config'] == config]
        if cell:
            ratio = med(cell, 'steady_frame') / base
            print(config.ljust(10) + scene.ljust(16) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med(cell, c)).rjust(13) for c in cols) + ('%.3f' % ratio).rjust(9))
PY

timeout $(( ${END:-570} - $(el) )) build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E '^# 43 |passed|failed' "$OUT/test_gpu_stages.txt" | tail -30)"
