#!/usr/bin/env bash
# What a tile's rays from the camera walk, one at a time and as one packet (side stage 30a's
# walk), on the CPU reference's tree (tools/walk-work.c --packets; no GPU needed): the chapter's
# four scenes at 8192x8192, the 8x4 tile around one pixel in 16 across and one row in 16 down,
# with the tree's leaves of up to 4 spheres (build/walk-work) and of 1 (the leaves of the GPU
# stages' clustered tree; -DSPEC_BVH_LEAF_SPHERES=1 for the program and common/raytrace/bvh.c). Run from
# the repository root after `make build/walk-work scenes`; writes packet-work.txt beside this
# script.
set -eu
here=results/reference/nvidia-h100-80gb-hbm3/development/packets
scenes="scenes/benchmark.scene build/scenes/random-1k.scene build/scenes/random-10k.scene
        build/scenes/random-100k.scene"
flags="-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -ffp-contract=off -Icommon"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    echo "# $here/packet-work.sh, $(date -u +%F), tools/walk-work.c blob $(git hash-object tools/walk-work.c)"
    for leaves in 4 1; do
        program=build/walk-work
        if [ "$leaves" != 4 ]; then
            program=$work/walk-work-leaves-$leaves
            gcc $flags -DSPEC_BVH_LEAF_SPHERES=$leaves -o "$program" tools/walk-work.c \
                common/raytrace/bvh.c build/libcommon.a -lm
        fi
        for scene in $scenes; do
            "$program" --scene "$scene" --step 16 --packets | grep -E '^walk-work:|^packets|^a tile|^the tile|^tests'
        done
    done
} > "$work/packet-work.txt"
mv "$work/packet-work.txt" "$here/packet-work.txt"
