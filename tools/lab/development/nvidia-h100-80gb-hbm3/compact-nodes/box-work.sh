#!/usr/bin/env bash
# What half-precision boxes (stage 31) cost a ray in tests, counted on the CPU reference's
# tree (tools/walk-work.c --half-boxes; no GPU needed): the chapter's four scenes at 8192x8192,
# one pixel in 16 across and one row in 16 down, with the tree's leaves of one sphere (as the GPU
# stages' clustered tree; -DSPEC_BVH_LEAF_SPHERES=1 for the program and common/raytrace/bvh.c), its boxes
# in floats and then rounded outward to halves, every answer held to the reference's. Run from
# the repository root after `make build/libcommon.a scenes`; writes box-work.txt beside this
# script.
set -eu
here=results/reference/nvidia-h100-80gb-hbm3/development/compact-nodes
scenes="scenes/benchmark.scene build/scenes/random-1k.scene build/scenes/random-10k.scene
        build/scenes/random-100k.scene"
flags="-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -ffp-contract=off -Icommon"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
program=$work/walk-work-leaves-1
gcc $flags -DSPEC_BVH_LEAF_SPHERES=1 -o "$program" tools/walk-work.c common/raytrace/bvh.c \
    build/libcommon.a -lm
{
    echo "# $here/box-work.sh, $(date -u +%F), tools/walk-work.c blob $(git hash-object tools/walk-work.c)"
    for scene in $scenes; do
        for boxes in "" --half-boxes; do
            "$program" --scene "$scene" --step 16 $boxes
        done
    done
} > "$work/box-work.txt"
mv "$work/box-work.txt" "$here/box-work.txt"
