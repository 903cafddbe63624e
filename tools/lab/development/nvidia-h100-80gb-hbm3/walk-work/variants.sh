#!/usr/bin/env bash
# Other trees and other orders, counted on the CPU (tools/walk-work.c; no GPU needed): the
# chapter's random and clustered scenes at 8192x8192, the CPU reference's tree (leaves of up to 4
# spheres) walked as the chapter walks it (two wide), collapsed 4 and 8 wide (--wide), and with the
# shadow rays trying first the left pixel's blocker (--neighbour-blocker), alone and four wide; one
# pixel in 16 across and one row in 16 down; the boxes, spheres and nodes a ray, and the floor (the
# H100's lanes). Run from the repository root after `make build/walk-work scenes`; writes
# variants.txt in results/reference/nvidia-h100-80gb-hbm3/development/walk-work/.
set -eu
here=results/reference/nvidia-h100-80gb-hbm3/development/walk-work
{
    echo "# tools/lab/development/nvidia-h100-80gb-hbm3/walk-work/variants.sh, $(date -u +%F), tools/walk-work.c blob $(git hash-object tools/walk-work.c)"
    for scene in build/scenes/random-1k.scene build/scenes/random-10k.scene build/scenes/random-100k.scene \
                 build/scenes/clustered-1k.scene build/scenes/clustered-10k.scene build/scenes/clustered-100k.scene; do
        for variant in "" "--wide 4" "--wide 8" "--neighbour-blocker" "--wide 4 --neighbour-blocker"; do
            build/walk-work --scene "$scene" --step 16 $variant
            echo
        done
    done
} > "$here/variants.txt.tmp"
mv "$here/variants.txt.tmp" "$here/variants.txt"
