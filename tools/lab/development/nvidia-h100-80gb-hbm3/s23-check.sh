#!/usr/bin/env bash
# Stages 22 and 23 on the GPU: the chapter's test, then timings (median of 3) of 21-23 on the
# benchmark and on random scenes: kernel_events, build, total, steady frame.
set -o pipefail
. ./.kit/setup.sh >/dev/null
start=$(date +%s)
make -j16 CUDA_ARCH=90 all tests >"$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
BUILD=build timeout 240 tests/run-tests.sh build/tests/test_big_scenes 2>&1 | tee "$OUT/tests.log" | grep -E "^# ---- |^not ok|^ERROR|passed,|identical" | grep -v "identical" ; grep -c identical "$OUT/tests.log"
mkdir -p /tmp/sc
for n in 999 9999 99999; do python3 scenes/generate-random.py $n > /tmp/sc/r$n.scene; done
for scene in scenes/benchmark.scene /tmp/sc/r999.scene /tmp/sc/r9999.scene /tmp/sc/r99999.scene; do
  for stage in ${STAGES:-21-persistent-rows 22-bvh-traversal 23-gpu-build}; do
    for metric in kernel_events build total steady_frame; do
      v=$(for k in 1 2 3; do timeout 120 build/$stage --scene $scene --frames 3 --csv 2>/dev/null | awk -F, -v m=$metric '$9==m{print $10}'; done | sort -n | sed -n 2p)
      [ -n "$v" ] && echo "$stage $(basename $scene) $metric $v"
    done
  done
done | tee "$OUT/timing.txt"
