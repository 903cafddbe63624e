/*
 * Stage p08e, reservoirs (a side stage): seed 003's ReSTIR. The reservoir that next-event
 * estimation builds at the camera ray's diffuse hit is kept per pixel in buffers in global
 * memory, structures of arrays (seed 003's ReservoirBuffer), and merged with the reservoir the
 * pixel ended the previous frame with and with up to three neighbours' before its shadow ray is
 * traced.
 *
 * p08b draws 8 candidates at that hit and forgets them once its shadow ray is traced. Reservoirs
 * (SPEC-PATH-TRACING.md section 6, estimator reservoirs) let a pixel's one shadow ray go to a
 * light chosen among hundreds of candidates: its own 8, up to 160 that its previous frame stood
 * for, and its neighbours', each re-weighted by what it would bring here. A frame is four passes
 * over the pixels (pathtrace/pt_reservoirs.h), each reading only what earlier passes wrote, and a
 * pass that reads another pixel's reservoir needs every pixel's earlier pass done: two kernels a
 * frame. initial_ris_kernel is passes 1 and 2 (the camera ray, the initial RIS, the temporal merge:
 * own pixel only); path_kernel is passes 3 and 4 (the spatial merge, which reads neighbours'
 * reservoirs, then nee's path with the merged reservoir standing for the camera hit's). The
 * passes' arithmetic is pt_reservoirs.h's, which build/pt-reference calls too: the same bits.
 *
 * The buffers hold 136 bytes a pixel: the camera hits of two frames (frame s writes set s mod 2
 * and reads the other) and two reservoir buffers, `current` (passes 1 and 2 write it, pass 3
 * reads it at the neighbours) and `final` (pass 3 writes it, pass 4 and the next frame's pass 2
 * read it). Each array is one field of every pixel: a warp that reads the `count` of its 32
 * pixels (the temporal pass's test) reads 128 contiguous bytes, and a neighbour that the spatial
 * pass skips for its count costs 4 bytes, not a whole reservoir.
 *
 * Builds on p08b-next-event.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_reservoirs.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "kernel.cuh"
#include "paths.cuh"
#include "../p08b-next-event/scene.cuh"
#include "host.cuh"
