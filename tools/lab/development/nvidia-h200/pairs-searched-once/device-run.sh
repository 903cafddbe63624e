#!/usr/bin/env bash
# Device run of side stage 34a (pairs searched once), written as stage 35, in development (its
# data keeps the name 35; the folder's name is set by B below): build 34 and 35; 35's images at
# 8192x8192 against 34's on the benchmark, random-1k, random-10k, random-100k and clustered-100k,
# and at 1000x777 (--block 10x3) against the CPU reference on the benchmark and random-10k; the
# differential test on 35; compute-sanitizer's memcheck, initcheck, racecheck and synccheck on 35
# (random-10k at 512x512: the build of 10,000 spheres whole); then RUNS interleaved rounds
# (default 5) of the two stages on the five scenes: kernel_events and the
# build phase (`build`), µs, into timing.csv, their medians in timing.txt; last, Nsight Compute's
# duration of each kernel of each build's tree of random-100k (at 64x64: the build is the
# whole scene's), summed by kernel in build-kernels.txt (the same number of rounds, launches of
# nearest_kernel, agrees with the same picks; the images cannot show a tree). With TIMING_ONLY
# set, the images, the differential test and the sanitizer are left out. Logs in logs.tgz.
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
A=34-wider-search B=34a-pairs-searched-once
CUDA_ARCH=90 make -j16 build/01-base build/$A build/$B build/cpu-reference build/compare-images scenes >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "build $(el) s"
s=build/scenes
if [ -z "${TIMING_ONLY:-}" ]; then
{ for scene in scenes/benchmark.scene $s/random-1k.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
    timeout 60 build/$A --scene $scene --output /tmp/a.ppm >/dev/null 2>$L/full.err || echo "34 $scene: FAILED $(head -1 $L/full.err)"
    timeout 60 build/$B --scene $scene --output /tmp/b.ppm >/dev/null 2>$L/full.err || echo "35 $scene: FAILED $(head -1 $L/full.err)"
    cmp -s /tmp/a.ppm /tmp/b.ppm && echo "$scene 8192x8192: 35 identical to 34" || echo "$scene 8192x8192: 35 DIFFERS from 34"
  done
  for scene in scenes/benchmark.scene $s/random-10k.scene; do
    build/cpu-reference --scene $scene --size 1000x777 --output /tmp/c.ppm >/dev/null 2>&1
    build/$B --scene $scene --size 1000x777 --block 10x3 --output /tmp/b.ppm >/dev/null 2>&1
    cmp -s /tmp/c.ppm /tmp/b.ppm && echo "$scene 1000x777 --block 10x3: 35 identical to the CPU reference" || echo "$scene 1000x777: 35 DIFFERS from the CPU reference"
  done; } 2>&1 | tee "$OUT/full-size.txt"
echo "images $(el) s"
timeout 120 tools/difftest.sh --seeds "${SEEDS:-48}" --stages 34a --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
{ for tool in memcheck initcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/$B --scene $s/random-10k.scene --size 512x512 --output /tmp/san.ppm >$L/san-$tool.out 2>&1
    echo "$tool random-10k 512x512: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san-$tool.out | tail -1)"
  done; } 2>&1 | tee "$OUT/sanitizer.txt"
echo "sanitizer $(el) s"
fi
{ echo "variant,scene,run,kernel_events_us,build_us"
  for run in $(seq "${RUNS:-5}"); do for scene in scenes/benchmark.scene $s/random-1k.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
    for v in "34:build/$A" "35:build/$B"; do
      echo "${v%%:*},$(basename $scene .scene),$run,$(${v#*:} --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} $(NF-2) == "build" {a=$(NF-1)} END {print k "," a}')"
    done; done; done; } > "$OUT/timing.csv"
echo "timing $(el) s"
python3 - "$OUT/timing.csv" <<'PY' | tee "$OUT/timing.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print('medians in us over interleaved runs')
print('scene'.ljust(16) + 'variant'.rjust(8) + 'runs'.rjust(6) + 'kernel_events'.rjust(16) + 'build'.rjust(10) + 'kernel vs 34'.rjust(14) + 'build vs 34'.rjust(13))
for scene in dict.fromkeys(r['scene'] for r in rows):
    def med(v, col):
        x = [float(r[col]) for r in rows if r['scene'] == scene and r['variant'] == v and r[col]]
        return statistics.median(x) if x else float('nan'), len(x)
    bk, bb = med('34', 'kernel_events_us')[0], med('34', 'build_us')[0]
    for v in dict.fromkeys(r['variant'] for r in rows):
        k, n = med(v, 'kernel_events_us'); b, _ = med(v, 'build_us')
        print(scene.ljust(16) + v.rjust(8) + str(n).rjust(6) + ('%.1f' % k).rjust(16) + ('%.1f' % b).rjust(10) + ('%.3f' % (k / bk)).rjust(14) + ('%.3f' % (b / bb)).rjust(13))
PY

{ for v in "34:build/$A" "35:build/$B"; do
    timeout 120 ncu --metrics gpu__time_duration.sum --csv -k regex:'leaf|centre|morton|nearest|merge|finish|Select|Radix|Scan|Init' ${v#*:} --scene $s/random-100k.scene --size 64x64 --output /tmp/n.ppm >$L/ncu-${v%%:*}.csv 2>$L/ncu-${v%%:*}.err
    python3 tools/lab/development/nvidia-h200/wider-search/build_kernels.py "${v%%:*}" $L/ncu-${v%%:*}.csv
  done; } 2>&1 | tee "$OUT/build-kernels.txt"
echo "build kernels $(el) s"
