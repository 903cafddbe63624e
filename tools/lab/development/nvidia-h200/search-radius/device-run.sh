#!/usr/bin/env bash
# Device run of a question for chapter 5 (a better tree, built fast): does a wider search for each
# cluster's neighbour (stage 26's SEARCH_RADIUS, 16 in every stage since) buy a better tree, and
# what does it cost the build? Stage 33 built with SEARCH_RADIUS 8, 16, 32, 64 and 128 (the line
# `#define SEARCH_RADIUS 16` of stages/26-clustered-build/build.cuh changed by sed in a copy of the
# tree a variant, each built in build/ of its copy); each variant's image at 8192x8192 against the
# default's on the benchmark, random-10k, random-100k and clustered-100k (a wider search changes
# the tree, never the picture); then RUNS interleaved rounds (default 3) of every variant on those
# scenes: kernel_events and the build phase (`build`, "Acceleration build"), µs, into variants.csv.
# Logs in logs.tgz. Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
A=33-branch-free-boxes
RADII=${RADII:-8 16 32 64 128}
CUDA_ARCH=90 make -j"$(nproc)" scenes >$L/scenes.log 2>&1 || { tail -20 $L/scenes.log; exit 1; }
for r in $RADII; do
  ( rm -rf /tmp/r$r && mkdir -p /tmp/r$r && git ls-files | grep -v '^results/' | tar -cf - -T - | tar -xf - -C /tmp/r$r
    cd /tmp/r$r && sed -i "s/^#define SEARCH_RADIUS 16\$/#define SEARCH_RADIUS $r/" stages/26-clustered-build/build.cuh
    grep -q "^#define SEARCH_RADIUS $r\$" stages/26-clustered-build/build.cuh || echo "r$r: sed did not apply"
    CUDA_ARCH=90 make -j4 build/$A >$L/build-r$r.log 2>&1 || tail -5 $L/build-r$r.log ) &
done
wait
echo "build $(el) s"
s=build/scenes
for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
  for r in $RADII; do timeout 60 /tmp/r$r/build/$A --scene $scene --output /tmp/img-r$r.ppm >/dev/null 2>$L/full.err || echo "r$r $scene: FAILED $(head -1 $L/full.err)"; done
  for r in $RADII; do [ "$r" = 16 ] && continue
    cmp -s /tmp/img-r16.ppm /tmp/img-r$r.ppm && echo "$scene: SEARCH_RADIUS $r identical to 16" || echo "$scene: SEARCH_RADIUS $r DIFFERS from 16"; done
done | tee "$OUT/full-size.txt"
echo "full size $(el) s"
{ echo "radius,scene,run,kernel_events_us,build_us"
  for run in $(seq "${RUNS:-3}"); do for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
    for r in $RADII; do
      echo "$r,$(basename $scene .scene),$run,$(/tmp/r$r/build/$A --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} $(NF-2) == "build" {a=$(NF-1)} END {print k "," a}')"
    done; done; done; } > "$OUT/variants.csv"
echo "variants $(el) s"
python3 - "$OUT/variants.csv" <<'PY' | tee "$OUT/variants.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print('medians in us over interleaved runs')
print('scene'.ljust(16) + 'radius'.rjust(8) + 'runs'.rjust(6) + 'kernel_events'.rjust(16) + 'build'.rjust(10) + 'kernel vs 16'.rjust(14))
for scene in dict.fromkeys(r['scene'] for r in rows):
    def med(radius, col):
        v = [float(r[col]) for r in rows if r['scene'] == scene and r['radius'] == radius and r[col]]
        return statistics.median(v) if v else float('nan'), len(v)
    base = med('16', 'kernel_events_us')[0]
    for radius in dict.fromkeys(r['radius'] for r in rows):
        k, n = med(radius, 'kernel_events_us'); b, _ = med(radius, 'build_us')
        print(scene.ljust(16) + radius.rjust(8) + str(n).rjust(6) + ('%.1f' % k).rjust(16) + ('%.1f' % b).rjust(10) + ('%.3f' % (k / base)).rjust(14))
PY
