#!/usr/bin/env bash
# The work an exact walk of the CPU reference's tree does on the random and the clustered scenes
# of `make scenes` (build/walk-work, one pixel in 32 across and one row in 32 down; CPU only):
# results/reference/nvidia-h200/development/clustered-scenes/walk-work.txt.
set -eu
make build/walk-work scenes >/dev/null
for s in random-1k clustered-1k random-10k clustered-10k random-100k clustered-100k; do
    build/walk-work --scene "build/scenes/$s.scene" --step 32
    echo
done
