/*
 * Stage 32a (side stage), rays in passes: the band's rays traced one kind a pass, each pass
 * walking a queue of only the rays of its kind, packed so that every lane of a warp has one.
 *
 * Stage 32's thread traces its pixel's four rays one after another, and a warp walks each kind
 * together: a lane whose primary ray missed has no shadow or reflection ray, one whose reflection
 * missed no shadow ray where it lands, and it idles while the others walk. Here (the path
 * tracer's wavefronts, p04-p08; Laine, Karras and Aila 2013) pass 1, render_kernel, walks the
 * primary rays of stage 30's tiles; a miss stores the background, a hit works out what stage 32
 * did before its shadow ray (the point lifted off the surface, the reflection's direction, the
 * diffuse and specular terms) and appends them to the band's queue of hits: one atomicAdd a warp,
 * slots in lane order, so that a tile's rays stay neighbours. Pass 2, secondary_kernel, one entry
 * a thread: the shadow ray and the reflection ray (both for every hit, one queue serves them;
 * split, each pass would read the queue again); a reflection that misses ends the pixel, one that
 * hits appends the point where it lands (lifted, its way to the light) and the shadow factor to
 * the queue of reflections. Pass 3, reflection_shadow_kernel, walks their shadow rays. A pixel's
 * colour is made where its last ray ends, not in a fourth pass: one launch and a reading of every
 * hit fewer. The price: 40 bytes a hit and 48 a reflection that hits, written and read back; two
 * more launches and a memset a band; the queues of each stream, sized for the largest band.
 *
 * The picture keeps its bits: every float a later pass needs is stored as its pass worked it out
 * and read back unchanged; a later pass computes from them only stage 32's expressions on the same
 * operands (the way to the light, one subtraction a component; the colour, shade_pixel's lines),
 * without contraction (-fmad=false) as everywhere; a walk's answer depends on its ray alone. Each
 * band's passes run on its stream, one after another, and its copy waits for the last.
 *
 * Builds on 32-lean-box-test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_fp16.h>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../31-compact-nodes/node.cuh"
#include "../26-clustered-build/scene.cuh"
#include "../32-lean-box-test/box_test.cuh"
#include "../32-lean-box-test/walk.cuh"
#include "../31-compact-nodes/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "kernel.cuh"
#include "render_kernel.cuh"
#include "frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
