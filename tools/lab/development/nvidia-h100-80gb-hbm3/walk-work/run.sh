#!/usr/bin/env bash
# The work an exact walk of the CPU reference's tree leaves a ray on the chapter's four scenes at
# 8192x8192, and its floor on the H100 (tools/walk-work.c; on the CPU, no GPU needed): the tree's
# leaves of up to 4 spheres (build/walk-work, as `make` builds it), then 1, 2 and 8 (the same
# program with -DSPEC_BVH_LEAF_SPHERES=N for it and common/raytrace/bvh.c). Run from the repository root
# after `make build/walk-work scenes` (gcc only); writes walk-work.txt beside this script, and
# summary.py makes floor.md of it (stage 30's README shows it).
set -eu
here=results/reference/nvidia-h100-80gb-hbm3/development/walk-work
scenes="scenes/benchmark.scene build/scenes/random-1k.scene build/scenes/random-10k.scene
        build/scenes/random-100k.scene"
flags="-O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -ffp-contract=off -Icommon"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    blob=$(git hash-object tools/walk-work.c)
    echo "# $here/run.sh, $(date -u +%F), tools/walk-work.c blob $blob"
    for leaves in 4 1 2 8; do
        program=build/walk-work
        if [ "$leaves" != 4 ]; then
            program=$work/walk-work-leaves-$leaves
            gcc $flags -DSPEC_BVH_LEAF_SPHERES=$leaves -o "$program" tools/walk-work.c \
                common/raytrace/bvh.c build/libcommon.a -lm
        fi
        for scene in $scenes; do
            "$program" --scene "$scene" --step 16
        done
    done
} > "$work/walk-work.txt"
mv "$work/walk-work.txt" "$here/walk-work.txt"
python3 "$here/summary.py"
