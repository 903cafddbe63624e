#!/usr/bin/env bash
# Device development run: build the chapter-4 stages and what test_big_scenes needs, test them
# against the CPU reference, then time each on the benchmark and the generated scenes (median of
# RUNS runs, 8192x8192). Logs to $OUT.
set -u
. .kit/setup.sh >/dev/null
STAGES=${STAGES:-"21-persistent-rows 22-bvh-traversal 23-gpu-build 24-near-child-first 25-child-boxes-in-parent 26-clustered-build"}
RUNS=${RUNS:-3}
t0=$(date +%s)
make -j16 $(tools/stages table | awk -F"\t" 'NR > 1 && $4 ~ /^4\. / { print "build/" $1 }') build/01-base build/cpu-reference build/compare-images build/tests/test_big_scenes $(for s in $STAGES; do echo build/$s; done) >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "${SKIP_TEST:-0}" != 1 ]; then
  timeout 400 build/tests/test_big_scenes >$OUT/test_big_scenes.log 2>&1; echo "test_big_scenes rc=$? $(grep -c '^ok' $OUT/test_big_scenes.log) ok, $(grep -c '^not ok' $OUT/test_big_scenes.log) not ok"
  grep -E "^not ok|differs|error" $OUT/test_big_scenes.log | head -10
  echo "test: $(( $(date +%s) - t0 )) s"
fi
mkdir -p /tmp/sc
for c in 999 9999 99999; do python3 scenes/generate-random.py $c > /tmp/sc/r$c.scene; done
if [ -n "${STACK_VARIANT:-}" ]; then
  # The walk's fallback: a stack of 4 entries overflows on nearly every ray; the image must not move.
  NVCCFLAGS="-O3 -DTREE_STACK=4" make -j16 BUILD=build-stack4 build-stack4/$STACK_VARIANT >$OUT/build-stack4.log 2>&1 || tail -5 $OUT/build-stack4.log
  for sc in /tmp/sc/r999.scene /tmp/sc/r9999.scene scenes/benchmark.scene; do
    build/cpu-reference --scene $sc --size 200x150 --output /tmp/sc/ref.ppm >/dev/null
    build-stack4/$STACK_VARIANT --scene $sc --size 200x150 --output /tmp/sc/s4.ppm >/dev/null
    echo "stack-4 $STACK_VARIANT $sc: $(cmp /tmp/sc/ref.ppm /tmp/sc/s4.ppm && echo identical)" | tee -a $OUT/stack4.txt
  done
fi
cp scenes/benchmark.scene /tmp/sc/benchmark.scene
for sc in benchmark r999 r9999 r99999; do
  for s in $STAGES; do
    [ "$s" = 21-persistent-rows ] && [ "$sc" != benchmark ] && [ "$sc" != r999 ] && continue
    for r in $(seq $RUNS); do
      build/$s --scene /tmp/sc/$sc.scene --csv ${EXTRA:-} 2>>$OUT/err.log | awk -F, -v s=$s -v sc=$sc '$9=="kernel_events"||$9=="build"||$9=="total"||$9=="rays_per_second" {print s, sc, $9, $10}'
    done
  done
done > $OUT/timings.txt
python3 - <<'PY' $OUT/timings.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    s,sc,m,v=line.split(); d[(s,sc,m)].append(float(v))
for (s,sc,m),v in sorted(d.items(), key=lambda kv:(kv[0][1],kv[0][0],kv[0][2])):
    print(f"{s:28s} {sc:10s} {m:14s} median {statistics.median(v):12.1f} n={len(v)}")
PY
echo "all: $(( $(date +%s) - t0 )) s"
