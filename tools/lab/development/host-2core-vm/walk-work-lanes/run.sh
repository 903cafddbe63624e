#!/usr/bin/env bash
# What waiting lanes cost a warp, counted on the CPU (build/walk-work --lanes) on the scaling
# campaign's scenes: for the 8x4 tiles of one pixel in 64 across and down of each 8192x8192
# frame, each lane's steps (nodes visited) of each kind of ray, and a warp's steps kind by kind,
# with a pixel's walks in one loop, and with every lane always walking. Deterministic counts
# (every answer checked against the reference's walk), so any machine writes the same file.
# Run from the repository root: writes results/reference/host-2core-vm/walk-work-lanes/lanes.txt.
set -euo pipefail
make -s build/walk-work scenes >/dev/null
out=results/reference/host-2core-vm/walk-work-lanes/lanes.txt
{
  echo "# $0, tools/walk-work.c blob $(git hash-object tools/walk-work.c), $(uname -m), $(cc --version | head -1)"
  for scene in scenes/benchmark.scene build/scenes/random-1k.scene build/scenes/random-10k.scene \
               build/scenes/random-100k.scene build/scenes/clustered-1k.scene \
               build/scenes/clustered-10k.scene build/scenes/clustered-100k.scene; do
    build/walk-work --scene "$scene" --lanes | sed -n '1p;/^lanes:/,$p'
    echo
  done
} > "$out"
cat "$out"
