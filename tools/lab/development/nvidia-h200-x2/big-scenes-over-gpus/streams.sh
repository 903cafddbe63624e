#!/usr/bin/env bash
# A/B: stage 43 with 4 streams a GPU (as 33) against 8, RUNS interleaved rounds, random-100k and the benchmark.
# Run when stage 43 had four streams: its sed makes the second build eight; on the stage as committed
# since (eight), both builds have eight. Its output: development/big-scenes-over-gpus/streams.*
set -u
. .kit/setup.sh >/dev/null
B=43-big-scenes-over-gpus A=33-branch-free-boxes s=build/scenes F=stages/$B/frame.cuh
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B $s/random-100k.scene >/tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
mkdir -p /tmp/v; cp build/$B /tmp/v/43s4; cp build/$A /tmp/v/33
cp $F /tmp/f.bak; sed -i 's/^#define STREAM_COUNT 4 /#define STREAM_COUNT 8 /' $F
CUDA_ARCH=90 make -j"$(nproc)" build/$B >/tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
cp build/$B /tmp/v/43s8; cp /tmp/f.bak $F
echo "config,scene,run,steady_frame,kernel_events,kernel_events_last_frame,kernel_events_last_frame_fastest,build,rows_first_gpu" > $OUT/ab.csv
for run in $(seq ${RUNS:-5}); do for scene in $s/random-100k.scene scenes/benchmark.scene; do
  for c in "33" "43s4 --gpus 2" "43s8 --gpus 2" "43s8 --gpus 1"; do
    /tmp/v/$c --scene $scene --frames 20 --csv > /tmp/r.csv 2>&1
    echo "$c,$(basename $scene .scene),$run,$(awk -F, '{v[$9]=$10} END {printf "%s,%s,%s,%s,%s,%s", v["steady_frame"], v["kernel_events"], v["kernel_events_last_frame"], v["kernel_events_last_frame_fastest"], v["build"], v["rows_first_gpu"]}' /tmp/r.csv)" >> $OUT/ab.csv
done; done; done
python3 - $OUT/ab.csv <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for scene in dict.fromkeys(r['scene'] for r in rows):
    base = statistics.median(float(r['steady_frame']) for r in rows if r['scene'] == scene and r['config'] == '33')
    for c in dict.fromkeys(r['config'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['config'] == c]
        m = lambda k: statistics.median(float(r[k]) for r in cell if r[k])
        print('%-16s %-12s steady %9.1f (%.3f of 33) kev %9.1f kev_last %9.1f/%9.1f build %7.1f' % (c, scene, m('steady_frame'), m('steady_frame') / base, m('kernel_events'), m('kernel_events_last_frame') if c != '33' else 0, m('kernel_events_last_frame_fastest') if c != '33' else 0, m('build')))
PY
