#!/usr/bin/env bash
# Device run of stage p20 (samples over GPUs) on a node of two H200s (or more): build p17 and p20,
# the path tracer's reference and the scaling scenes; the GPUs and topology into the log; p20's
# images with --gpus 1 and with every N up to the node's GPUs against p17's, byte for byte, on
# pt-quick, pt-benchmark and pt-random-100k (and, at 64x48 with 5 samples, against the CPU
# reference); fewer samples than GPUs (--samples 1) and samples the GPUs do not divide; --gpus
# beyond the node in one line, exit 2; compute-sanitizer's memcheck and initcheck on p20 with
# every GPU; then the timing: p17 and p20 with --gpus 1 and every N up to the node's, interleaved,
# RUNS runs each (default 5) on pt-benchmark and pt-random-100k, into timing.csv, and the medians
# of kernel_events, render_events, render_events_fastest, reduce_events, build and total
# (timing.txt); last, test_pt_stages (its test of p20 against the CPU reference with one GPU and
# with all). Logs in logs.tgz. Run from the repository root with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,uuid,pci.bus_id --format=csv,noheader
  nvcc --version | tail -2; date -u; cat .kit/revision.txt
  echo "--- nvidia-smi topo -m"; nvidia-smi topo -m; } 2>&1 | tee $L/gpu.txt "$OUT/env.txt"
A=p17-cone-box-test B=p20-samples-over-gpus s=build/scenes
N=$(nvidia-smi -L | grep -c '^GPU ')
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$B build/pt-reference build/compare-images \
    build/tests/test_pt_stages $s/pt-random-100k.scene >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s, $N GPUs"

img() { # NAME PROGRAM ARGS...: renders to /tmp/img.ppm, prints NAME and the image's sha256
  local name=$1; shift
  if timeout 300 "$@" --output /tmp/img.ppm >/dev/null 2>$L/img.err; then
    echo "$name $(sha256sum </tmp/img.ppm | cut -c1-16)"
  else echo "$name FAILED: $(head -1 $L/img.err)"; fi
  rm -f /tmp/img.ppm
}
{ for case in "scenes/pt-quick.scene:" "scenes/pt-benchmark.scene:" "$s/pt-random-100k.scene:" \
              "scenes/pt-quick.scene:--samples 1" "scenes/pt-quick.scene:--samples 3" \
              "scenes/pt-benchmark.scene:--size 64x48 --samples 5"; do
    scene=${case%%:*} extra=${case#*:}
    what="$(basename $scene .scene) ${extra:-as the scene says}"
    ref=$(img p17 build/$A --scene $scene $extra | cut -d' ' -f2-)
    echo "$what: p17 $ref"
    if [[ $extra == *--size* ]]; then
      cpu=$(img cpu build/pt-reference --scene $scene $extra | cut -d' ' -f2-)
      [ "$cpu" = "$ref" ] && echo "$what: pt-reference identical to p17" || echo "$what: pt-reference DIFFERS from p17 ($cpu)"
    fi
    for g in $(seq 1 $N); do
      got=$(img p20 build/$B --scene $scene $extra --gpus $g | cut -d' ' -f2-)
      [ "$got" = "$ref" ] && echo "$what: p20 --gpus $g identical to p17" || echo "$what: p20 --gpus $g DIFFERS from p17 ($got)"
    done
  done
  build/$B --scene scenes/pt-quick.scene --gpus $((N + 1)) >/dev/null 2>$L/gpus.err; echo "--gpus $((N + 1)): exit $? $(cat $L/gpus.err)"
} 2>&1 | tee "$OUT/images.txt"
echo "images $(el) s: $(grep -c identical "$OUT/images.txt") identical, $(grep -c -E 'DIFFERS|FAILED' "$OUT/images.txt") differ or failed"

{ for tool in memcheck initcheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene scenes/pt-quick.scene >$L/sanitize.out 2>&1
    echo "$tool pt-quick ($N GPUs): exit $? $(grep -E 'ERROR SUMMARY' $L/sanitize.out | tail -1)"
  done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"

csv() { awk -F, -v m="$1" '$9 == m {v = $10} END {print v}' "$2"; }
M="kernel_events render_events render_events_fastest reduce_events build kernel device_to_host total"
row() { local r="" m; for m in $M; do r="$r,$(csv $m $1)"; done; echo "${r#,}"; }
configs=("p17:build/$A"); for g in $(seq 1 $N); do configs+=("p20-gpus$g:build/$B --gpus $g"); done
{ echo "config,scene,run,gpus,${M// /,}"
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/pt-benchmark.scene $s/pt-random-100k.scene; do
    for config in "${configs[@]}"; do
      name=${config%%:*} cmd=${config#*:}
      timeout 300 $cmd --scene $scene --csv >$L/run.csv 2>$L/run.err || { echo "$name $scene FAILED: $(head -1 $L/run.err)" >&2; continue; }
      echo "$name,$(basename $scene .scene),$run,$(csv gpus $L/run.csv),$(row $L/run.csv)"
    done; done; done; } >"$OUT/timing.csv" 2>>$L/timing.err
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ['kernel_events', 'render_events', 'render_events_fastest', 'reduce_events', 'build', 'total']
def med(cell, c):
    values = [float(r[c]) for r in cell if r.get(c)]
    return statistics.median(values) if values else float('nan')
print('medians in us, runs interleaved')
print('config'.ljust(10) + 'scene'.ljust(16) + 'runs'.rjust(5) + ''.join(c.rjust(22) for c in cols) + 'kernel vs p17'.rjust(15))
for scene in dict.fromkeys(r['scene'] for r in rows):
    base = med([r for r in rows if r['scene'] == scene and r['config'] == 'p17'], 'kernel_events')
    for config in dict.fromkeys(r['config'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['config'] == config]
        if cell:
            print(config.ljust(10) + scene.ljust(16) + str(len(cell)).rjust(5) + ''.join(('%.1f' % med(cell, c)).rjust(22) for c in cols) + ('%.3f' % (med(cell, 'kernel_events') / base)).rjust(15))
PY

timeout $(( ${END:-570} - $(el) )) build/tests/test_pt_stages >"$OUT/test_pt_stages.txt" 2>&1
echo "test_pt_stages rc=$? $(el) s: $(grep -E '^# p20 |passed|failed' "$OUT/test_pt_stages.txt" | tail -20)"
