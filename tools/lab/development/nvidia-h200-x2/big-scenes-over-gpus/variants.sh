#!/usr/bin/env bash
# Variants of stage 43 (and 33) on random-100k, clustered-100k and the benchmark: bands a GPU (bN:
# BAND_COUNT N) and streams a GPU (sN: STREAM_COUNT N), one run each with --frames 10. Its first
# form built b32 and b64 by sed on BAND_COUNT alone and "rows" by
#   sed -i "s/^    blocks.y = blocks.y < row_blocks ? blocks.y : row_blocks;/    blocks.y = row_blocks;/"
# (a band's grid over all its rows of blocks); results/reference/nvidia-h200/development/
# big-scenes-over-gpus/variants.txt holds both calls' output.
set -u
. .kit/setup.sh >/dev/null
B=43-big-scenes-over-gpus A=33-branch-free-boxes s=build/scenes
F=stages/$B/frame.cuh F22=stages/22-bvh-traversal/frame.cuh
cp $F /tmp/frame43.bak; cp $F22 /tmp/frame22.bak
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B $s/random-100k.scene $s/clustered-100k.scene >/tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
mkdir -p /tmp/v; cp build/$B /tmp/v/43-b16; cp build/$A /tmp/v/33-b16
variant() { # NAME: build the current sources of 43 and 33 into /tmp/v/43-NAME, 33-NAME
  CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B >/tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
  cp build/$B /tmp/v/43-$1; cp build/$A /tmp/v/33-$1
}
setv() { cp /tmp/frame43.bak $F; cp /tmp/frame22.bak $F22
  sed -i "s/^#define BAND_COUNT 16 /#define BAND_COUNT $1 /; s/^#define STREAM_COUNT 4 /#define STREAM_COUNT $2 /" $F $F22; variant b$1s$2; }
setv 8 4; setv 4 4; setv 16 8; setv 16 16; setv 32 16
cp /tmp/frame43.bak $F; cp /tmp/frame22.bak $F22
echo "built $(ls /tmp/v)"
for scene in random-100k clustered-100k benchmark; do for v in b16 b8s4 b4s4 b16s8 b16s16 b32s16; do
  for c in "33-$v" "43-$v --gpus 2"; do
    sc=$s/$scene.scene; [ $scene = benchmark ] && sc=scenes/benchmark.scene; /tmp/v/$c --scene $sc --frames 10 --csv > /tmp/r.csv 2>&1
    echo "$scene $c: $(awk -F, '$9 ~ /^(steady_frame|kernel_events|kernel_events_fastest|kernel_events_last_frame|kernel_events_last_frame_fastest|rows_first_gpu)$/ {printf "%s=%s ", $9, $10}' /tmp/r.csv)"
  done; done; done
