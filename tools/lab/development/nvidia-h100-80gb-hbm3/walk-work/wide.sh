#!/usr/bin/env bash
# What a wider tree trades, counted on the CPU (tools/walk-work.c --wide; no GPU needed): the
# chapter's random and clustered scenes at 8192x8192, the CPU reference's tree (leaves of up to 4
# spheres) walked two wide (the chapter's walk), then collapsed 4 and 8 wide, one pixel in 16
# across and one row in 16 down; the boxes, spheres and nodes a ray. Run from the repository root
# after `make build/walk-work scenes`; writes wide.txt in
# results/reference/nvidia-h100-80gb-hbm3/development/walk-work/ (the floor's column is the H100's).
set -eu
here=results/reference/nvidia-h100-80gb-hbm3/development/walk-work
{
    echo "# tools/lab/development/nvidia-h100-80gb-hbm3/walk-work/wide.sh, $(date -u +%F), tools/walk-work.c blob $(git hash-object tools/walk-work.c)"
    for scene in build/scenes/random-1k.scene build/scenes/random-10k.scene build/scenes/random-100k.scene \
                 build/scenes/clustered-1k.scene build/scenes/clustered-10k.scene build/scenes/clustered-100k.scene; do
        for wide in "" "--wide 4" "--wide 8"; do
            build/walk-work --scene "$scene" --step 16 $wide
            echo
        done
    done
} > "$here/wide.txt.tmp"
mv "$here/wide.txt.tmp" "$here/wide.txt"
