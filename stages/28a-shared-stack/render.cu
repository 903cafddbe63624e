/*
 * Stage 28a, the walk's stack in shared memory: its top entries a thread in the SM's shared
 * memory, the deeper ones in local memory only when a walk goes that deep.
 *
 * Stage 28's walk kept its stack of pending children (64 entries of 8 bytes) in local memory: an
 * array indexed at run time cannot live in registers. Local memory is the thread's slice of
 * global memory, cached in L1: every push and pop is a load or store through L1, sharing its
 * lines and bandwidth with the nodes the walk reads. Here the top SHARED_STACK entries of each
 * thread's stack are a ring in shared memory, laid out slot-major (entry s of thread t at
 * [s][t]), so that a thread's entries stay in the same banks whatever depth its walk is at. A push
 * onto a full ring first moves its oldest entry to the local array; a pop from an empty ring
 * takes the local array's top. Walks that stay within the ring keep their stack on-chip. The
 * walk, its order and the image are stage 28's; it is slower (README.md).
 *
 * Builds on 28-registers-not-arrays.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>

#include "runtime/gpu.h"
#include "raytrace/rt_stage.h"

#include "../20-skipped-work/rt_math.cuh"
#include "../22-bvh-traversal/constants.cuh"
#include "../20-skipped-work/intersect.cuh"
#include "../25-child-boxes-in-parent/node.cuh"
#include "../26-clustered-build/scene.cuh"
#include "walk.cuh"
#include "../27-cone-box-test/merge.cuh"
#include "../26-clustered-build/build.cuh"
#include "../26-clustered-build/nearest_kernel.cuh"
#include "../26-clustered-build/block_pick.cuh"
#include "../22-bvh-traversal/plane.cuh"
#include "../22-bvh-traversal/kernel.cuh"
#include "../22-bvh-traversal/render_kernel.cuh"
#include "../22-bvh-traversal/frame.cuh"
#include "../23-gpu-build/morton.cuh"
#include "../26-clustered-build/build_launches.cuh"
#include "../23-gpu-build/build_tree.cuh"
#include "../23-gpu-build/tree_on_host.cuh"
#include "../15-copy-stream/bands.cuh"
#include "../22-bvh-traversal/upload.cuh"
#include "../13-steady-state/host.cuh"
