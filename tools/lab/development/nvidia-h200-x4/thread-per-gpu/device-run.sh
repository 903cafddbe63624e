#!/usr/bin/env bash
# Device run of side stage 41a (a host thread a GPU; first written as stage 43, the name its data
# keeps) on a node of four H200s (on two it runs the same, less the four-GPU rows): build stages
# 01, 21, 41 and 41a; the node's GPUs and topology into env.txt; stage 41a's images with --gpus 1, 2 and every GPU, with --frames 3 and 20, against stage
# 21's, byte for byte, at 8192x8192 on the benchmark and on build/scenes/random-1k.scene, and at
# 1000x777 with --block 10x3 (where the CPU reference checks stage 21 too); then the timing: stage
# 21, and stages 41 and 41a with --gpus 2 and with every GPU, --frames 20, interleaved, RUNS runs
# each (default 5) on the benchmark and on random-1k at 8192x8192, into timing.csv (a column
# `way`, times in *_us columns), and their medians (timing.txt); compute-sanitizer's memcheck and
# initcheck on stage 41a with every GPU and --frames 3; last, the GPU test with only 01, 21, 41
# and 41a built (test_gpu_stages). Logs in logs.tgz. About three minutes. Run from the repository
# root on the GPU machine with the device kit in .kit/ (its tracked.txt and revision.txt made from
# this checkout: git ls-files; git describe --always --dirty).
set -u
if [ -f .kit/tracked.txt ]; then
    find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
fi
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id --format=csv,noheader
  nvcc --version | tail -2; date -u; cat .kit/revision.txt 2>/dev/null
  echo "--- nvidia-smi topo -m"; nvidia-smi topo -m; echo "--- CPUs"; nproc; lscpu | grep -i 'numa\|model name'; } 2>&1 | tee $L/gpu.txt >"$OUT/env.txt"
N=$(nvidia-smi -L | grep -c '^GPU ')
A=21-persistent-rows P=41-balanced-rows B=41a-thread-per-gpu s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$P build/$B build/cpu-reference build/compare-images \
    build/tests/test_gpu_stages $s/random-1k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s, $N GPUs"

img() { # PROGRAM ARGS...: renders to /tmp/img.ppm, prints the image's sha256 (16 digits) or FAILED
    if timeout 120 "$@" --output /tmp/img.ppm >/dev/null 2>$L/img.err; then sha256sum </tmp/img.ppm | cut -c1-16
    else echo "FAILED: $(head -1 $L/img.err)"; fi
    rm -f /tmp/img.ppm
}
{ for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for size in "" "--size 1000x777 --block 10x3"; do
      what="$(basename $scene .scene) ${size:-8192x8192}"
      ref=$(img build/$A --scene $scene $size); echo "$what: 21 $ref"
      if [ -n "$size" ]; then
        cpu=$(img build/cpu-reference --scene $scene ${size% --block*})
        [ "$cpu" = "$ref" ] && echo "$what: cpu-reference identical to 21" || echo "$what: cpu-reference DIFFERS from 21 ($cpu)"
      fi
      for args in "--gpus 1" "--gpus 2" "--gpus 2 --frames 3" "--gpus $N --frames 3" "--gpus $N --frames 20"; do
        got=$(img build/$B --scene $scene $size $args)
        [ "$got" = "$ref" ] && echo "$what: 41a $args identical to 21" || echo "$what: 41a $args DIFFERS from 21 ($got)"
      done
    done
  done; } 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
M="steady_frame steady_frame_min kernel_events kernel_events_fastest copies_events_last_frame copies_events_last_frame_fastest rows_first_gpu"
{ echo "way,scene,run,gpus,steady_frame_us,steady_frame_min_us,kernel_events_us,kernel_events_fastest_us,copies_events_last_frame_us,copies_events_last_frame_fastest_us,rows_first_gpu"
  configs=("21:build/$A" "41-gpus2:build/$P --gpus 2" "41a-gpus2:build/$B --gpus 2")
  [ "$N" -gt 2 ] && configs+=("41-gpus$N:build/$P --gpus $N" "41a-gpus$N:build/$B --gpus $N")
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/benchmark.scene $s/random-1k.scene; do
    for config in "${configs[@]}"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 120 $cmd --scene $scene --frames 20 --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      r=""; for m in $M; do r="$r,$(csv $m $L/run.csv)"; done
      echo "$name,$(basename $scene .scene),$run,$(csv gpus $L/run.csv)$r"
    done; done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['steady_frame_us', 'kernel_events_us', 'kernel_events_fastest_us', 'copies_events_last_frame_us',
        'copies_events_last_frame_fastest_us', 'rows_first_gpu']
print('medians, --frames 20 at 8192x8192, runs interleaved (us; rows_first_gpu in rows)')
print('way'.ljust(10) + 'scene'.ljust(12) + 'runs'.rjust(5) + ''.join(c.replace('_us', '').rjust(24) for c in cols))
for scene in dict.fromkeys(r['scene'] for r in rows):
    med = {}
    for way in dict.fromkeys(r['way'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['way'] == way]
        if not cell:
            continue
        values = lambda c: [float(r[c]) for r in cell if r[c]]
        med[way] = {c: statistics.median(values(c)) if values(c) else float('nan') for c in cols}
        print(way.ljust(10) + scene.ljust(12) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med[way][c]).rjust(24) for c in cols))
    for way in med:
        if way.startswith('41a-'):
            twin = '41-' + way[4:]
            if twin in med:
                print('  on %s: %s\'s steady frame %.3fx %s\'s speed, kernel_events %.3fx' % (
                    scene, way, med[twin]['steady_frame_us'] / med[way]['steady_frame_us'], twin,
                    med[twin]['kernel_events_us'] / med[way]['kernel_events_us']))
PY
{ for tool in memcheck initcheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene scenes/odd-size.scene --gpus $N --frames 3 >$L/sanitize-$tool.out 2>&1
    echo "$tool odd-size --gpus $N --frames 3: exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize-$tool.out | tail -1)"
  done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

timeout $(( ${END:-570} - $(el) )) build/tests/test_gpu_stages >"$OUT/test_gpu_stages.txt" 2>&1
echo "test_gpu_stages rc=$? $(el) s: $(grep -E '^# 41a |passed|failed|not ok' "$OUT/test_gpu_stages.txt" | tail -20)"
