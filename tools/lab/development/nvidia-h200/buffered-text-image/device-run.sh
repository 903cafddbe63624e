#!/usr/bin/env bash
# Device run of side stage 02a (the study's image file): build stages 01, 02 and 02a, and 02a with
# -DTEXT_IMAGE_BUFFERED=0 (the study's stage 2 way: each pixel's line straight into the stream, no
# vector) in build-streamed/; every image at 8192x8192 (scenes/benchmark.scene) against the CPU
# reference and against stage 02's, pixel by pixel (compare-images reads the text PPMs), and the
# two text files byte for byte; then four ways of writing the same frame timed interleaved, RUNS
# runs each (default 3), each run a process with --csv --output:
#   02-ppm       stage 02, binary PPM in one write() (the course's way)
#   02-png       stage 02, PNG encoded on every core, one write()
#   02a-buffered stage 02a, text PPM through a vector of lines (the study's base)
#   02a-streamed stage 02a built with -DTEXT_IMAGE_BUFFERED=0, text PPM straight into the stream
#                (the study's stage 2)
# and stages 02 and 02a without an image. Every CSV row of every run (the study's seven phases,
# their total, kernel_events, image_write, ...) goes to $OUT/runs.csv with the way, the run, the
# process's wall time and the file's size, gzipped to runs.csv.gz once read (git keeps no
# runs.csv: tests/test_campaigns_complete.c); $OUT/summary.txt has the medians and means per way.
# Then test_image, test_gpu_stages (REQUIRE_GPU=1) on the stages built, and the differential test
# of 02 and 02a. Logs in logs.tgz. Run from the repository root on the GPU machine (the device kit
# in .kit/, where there is one).
set -u
if [ -f .kit/tracked.txt ]; then
  find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
fi
[ -f .kit/setup.sh ] && . .kit/setup.sh >/dev/null
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; g++ --version | head -1
  nproc; free -g | sed -n 2p; df -h /tmp | tail -1; date -u; cat .kit/revision.txt 2>/dev/null; } | tee $L/gpu.txt "$OUT/env.txt"
A=02-static-registers B=02a-buffered-text-image
CUDA_ARCH=90 make -j"$(nproc)" build/01-base build/$A build/$B build/cpu-reference build/compare-images \
    build/tests/test_image build/tests/test_gpu_stages >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
NVCCFLAGS="-O3 -DTEXT_IMAGE_BUFFERED=0" CUDA_ARCH=90 make -j"$(nproc)" BUILD=build-streamed build-streamed/$B \
    >$L/build-streamed.log 2>&1 || { tail -30 $L/build-streamed.log; exit 1; }
grep -hE "Used|stack frame" build/$A.resources.txt build/$B.resources.txt build-streamed/$B.resources.txt | tee "$OUT/resources.txt"
echo "build $(el) s"

# The four ways: NAME BINARY EXTENSION
WAYS="02-ppm:build/$A:ppm 02-png:build/$A:png 02a-buffered:build/$B:ppm 02a-streamed:build-streamed/$B:ppm"
W=/tmp/frames; rm -rf $W; mkdir -p $W
scene=scenes/benchmark.scene
{ timeout 120 build/cpu-reference --scene $scene --output $W/reference.ppm >/dev/null 2>$L/ref.err \
    || echo "cpu-reference $scene: FAILED $(head -1 $L/ref.err)"
  for way in $WAYS; do
    IFS=: read -r name bin ext <<<"$way"
    timeout 120 $bin --scene $scene --output $W/$name.$ext >/dev/null 2>$L/full.err || echo "$name: FAILED $(head -1 $L/full.err)"
    echo "$name ($(head -c 2 $W/$name.$ext), $(stat -c %s $W/$name.$ext) bytes) against the CPU reference: $(build/compare-images $W/reference.ppm $W/$name.$ext 2>&1)"
    [ $name = 02-ppm ] || echo "$name against 02-ppm: $(build/compare-images $W/02-ppm.ppm $W/$name.$ext 2>&1)"
  done
  cmp -s $W/02a-buffered.ppm $W/02a-streamed.ppm && echo "02a-buffered and 02a-streamed: the same bytes" \
    || echo "02a-buffered and 02a-streamed: DIFFERENT bytes"
  head -c 24 $W/02a-buffered.ppm | od -c | head -2
  # Smaller scenes, the odd size's partial blocks included.
  for sc in scenes/quick.scene scenes/odd-size.scene; do
    build/cpu-reference --scene $sc --output $W/ref-small.ppm >/dev/null 2>&1
    for way in 02a-buffered:build/$B 02a-streamed:build-streamed/$B; do
      IFS=: read -r name bin <<<"$way"
      timeout 60 $bin --scene $sc --output $W/small.ppm >/dev/null 2>$L/small.err || echo "$name $sc: FAILED $(head -1 $L/small.err)"
      echo "$name $sc against the CPU reference: $(build/compare-images $W/ref-small.ppm $W/small.ppm 2>&1)"
    done
  done; } 2>&1 | tee "$OUT/images.txt"
rm -rf $W; mkdir -p $W
echo "images $(el) s"

# Timing: RUNS rounds; in each, every way once and both stages without an image, in turn.
RUNS=${RUNS:-3}
echo "way,run,stage,metric,value,unit,process_wall_us,file_bytes" >"$OUT/runs.csv"
for ((run = 1; run <= RUNS; run++)); do
  for way in $WAYS 02-plain:build/$A:- 02a-plain:build/$B:-; do
    IFS=: read -r name bin ext <<<"$way"
    out=(); [ "$ext" = - ] || out=(--output "$W/frame.$ext")
    start=$(date +%s%N)
    timeout 180 $bin --scene $scene --csv ${out[@]+"${out[@]}"} >$W/run.csv 2>$L/run.err || echo "$name run $run: FAILED $(head -1 $L/run.err)"
    wall=$(( ($(date +%s%N) - start) / 1000 ))
    bytes=$([ "$ext" = - ] && echo 0 || stat -c %s $W/frame.$ext 2>/dev/null || echo 0)
    awk -F, -v w=$name -v r=$run -v t=$wall -v b=$bytes 'NR > 1 { print w "," r "," $1 "," $9 "," $10 "," $11 "," t "," b }' $W/run.csv >>"$OUT/runs.csv"
    rm -f $W/frame.* $W/run.csv
  done
  echo "round $run $(el) s"
done
python3 - "$OUT/runs.csv" <<'PY' | tee "$OUT/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ways = list(dict.fromkeys(r['way'] for r in rows))
# The study's seven phases and their total, then the GPU's kernel time and the write (not in the
# total), the process's wall time and the file's size.
metrics = ['host_allocation', 'device_allocation', 'host_to_device', 'kernel', 'device_to_host',
           'device_free', 'host_free', 'total', 'kernel_events', 'image_write', 'process_wall', 'file_bytes']
cells, runs = {}, {}
for r in rows:
    if r['unit'] == 'us':
        cells.setdefault((r['way'], r['metric']), []).append(float(r['value']))
    runs[(r['way'], r['run'])] = r
for (way, _), r in runs.items():
    cells.setdefault((way, 'process_wall'), []).append(float(r['process_wall_us']))
    cells.setdefault((way, 'file_bytes'), []).append(float(r['file_bytes']))
for stat, f in (('median', statistics.median), ('mean', statistics.mean)):
    print(f'{stat} of each way\'s runs (n = {max(len(v) for v in cells.values())}; us, the file in bytes)')
    print('metric'.ljust(18) + ''.join(w.rjust(15) for w in ways))
    for m in metrics:
        print(m.ljust(18) + ''.join(('%.0f' % f(cells[(w, m)]) if cells.get((w, m)) else '-').rjust(15) for w in ways))
    print()
PY
gzip -9 -nf "$OUT/runs.csv"
echo "timing $(el) s"

# The tests that read the images: the text PPM reader, and every built stage against the CPU
# reference and stage 01 on the quick and odd-size scenes (02a's .ppm is its text file).
END=${END:-570}
BUILD=build timeout 120 tests/run-tests.sh build/tests/test_image >$L/test_image.log 2>&1
echo "test_image rc=$?: $(tail -1 $L/test_image.log)" | tee -a "$OUT/tests.txt"
REQUIRE_GPU=1 BUILD=build timeout 240 tests/run-tests.sh build/tests/test_gpu_stages >$L/test_gpu_stages.log 2>&1
echo "test_gpu_stages rc=$?: $(tail -1 $L/test_gpu_stages.log)" | tee -a "$OUT/tests.txt"
timeout $(( END - $(el) )) tools/difftest.sh --seeds "${SEEDS:-24}" --stages 2,2a --jobs "$(nproc)" >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")" | tee -a "$OUT/tests.txt"
