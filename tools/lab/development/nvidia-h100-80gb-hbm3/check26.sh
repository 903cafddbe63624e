#!/usr/bin/env bash
# Stage 26 after the cluster's padding word is written: initcheck, the big-scene test, its timing.
set -u
. .kit/setup.sh >/dev/null
t0=$(date +%s)
CUDA_ARCH=90 make -j16 build/26-clustered-build build/25-child-boxes-in-parent build/cpu-reference build/compare-images build/tests/test_big_scenes >$OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
python3 scenes/generate-random.py 999 --size 128x96 > /tmp/r1k-small.scene
python3 scenes/generate-random.py 9999 --size 96x64 > /tmp/r10k-small.scene
SANITIZE_STAGES="26-clustered-build" SANITIZE_SCENES="scenes/quick.scene /tmp/r1k-small.scene /tmp/r10k-small.scene" \
  RESULTS=/tmp/san SANITIZE_TIMEOUT=60 timeout 90 tools/sanitize.sh >$OUT/sanitize.log 2>&1; echo "sanitize rc=$?"
cp /tmp/san/*/sanitizer.txt $OUT/sanitizer-26.txt; sed -n '/^Summary/,$p' $OUT/sanitizer-26.txt
timeout 200 build/tests/test_big_scenes > $OUT/test_big_scenes.log 2>&1; echo "test_big_scenes rc=$?: $(grep -c '^ok' $OUT/test_big_scenes.log) ok"
make -s scenes >/dev/null 2>&1
for r in 1 2 3; do for s in 25-child-boxes-in-parent 26-clustered-build; do for sc in build/scenes/random-10k.scene build/scenes/random-100k.scene; do
  build/$s --scene $sc --csv | awk -F, -v s=$s -v sc=${sc##*/} -v r=$r '$9=="build"||$9=="kernel_events" {print r, s, sc, $9, $10}'
done; done; done | tee $OUT/check26-timing.txt | awk '{k=$2" "$3" "$4; v[k]=v[k]" "$5} END {for (k in v) print k, v[k]}' | sort
echo "done: $(( $(date +%s) - t0 )) s"
