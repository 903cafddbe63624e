#!/usr/bin/env bash
# How the boxes' widening costs stage 22: kernel_events for SPEC_BVH_REACH values (0 is not
# exact, only a bound on what culling can gain), median of 3, on the benchmark and random scenes.
. ./.kit/setup.sh >/dev/null
mkdir -p /tmp/sc
for n in 999 9999 99999; do python3 scenes/generate-random.py $n > /tmp/sc/r$n.scene; done
for reach in 4e-3f 1e-3f 3e-4f 0.0f; do
  NVCCFLAGS="-O3 -DSPEC_BVH_REACH=$reach" make -s -j16 CUDA_ARCH=90 BUILD=build-$reach build-$reach/22-bvh-traversal >/dev/null 2>&1 || { echo "build $reach failed"; continue; }
  for scene in scenes/benchmark.scene /tmp/sc/r999.scene /tmp/sc/r9999.scene /tmp/sc/r99999.scene; do
    v=$(for k in 1 2 3; do build-$reach/22-bvh-traversal --scene $scene --csv | awk -F, '$9=="kernel_events"{print $10}'; done | sort -n | sed -n 2p)
    echo "reach $reach $(basename $scene) kernel_events median $v"
  done
done | tee "$OUT/reach.txt"
