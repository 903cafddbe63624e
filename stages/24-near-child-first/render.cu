/*
 * Stage 24, near child first: a walk that visits the nearer child first and skips what lies past
 * the nearest hit found so far.
 *
 * Stage 23's walk popped a node, tested its box, and pushed both children in a fixed order: a
 * ray met the far side of the scene as often as the near side, and a child pushed before a hit
 * was found was still entered after it, however far. Here a node's two children are tested when
 * the node is taken: an inner child's box gives the distance at which the ray enters it
 * (spec_bvh_entry, the same widened box), a leaf's sphere is tested at once. The farther child
 * is pushed first, with its entry distance, so the nearer is taken next; and a child taken from
 * the stack whose entry lies past the nearest hit by then is dropped unopened. A shadow ray still
 * stops at its first blocker.
 *
 * The image keeps its bits: a child is dropped only when it is entered after the best t, so a
 * sphere inside cannot win, not even a tie of a smaller index (its t is at least the entry).
 *
 * Builds on 23-gpu-build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../23-gpu-build/node.cuh"
#include "../23-gpu-build/scene.cuh"
#include "walk.cuh"
#include "../23-gpu-build/karras.cuh"
#include "../23-gpu-build/build.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../23-gpu-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
