/*
 * Stage p08b, next event (a side stage): next-event estimation from a light list in global
 * memory (seed 003, the "before" of its shared pool).
 *
 * p08's paths find a lamp only by bumping into it, and a small lamp is rarely hit: with 256 of
 * them (scenes/pt-many-lights.scene) the picture is noise. Here every diffuse hit also aims a
 * shadow ray at a lamp: it draws PT_NEE_CANDIDATES light samples, keeps one in proportion to
 * what it would bring (resampled importance sampling, a reservoir) and adds it if nothing is in
 * the way (SPEC-PATH-TRACING.md section 6, estimator nee). Each candidate reads a light
 * picked at random from the whole list in global memory: the 32 threads of a warp read 32
 * unrelated places, 8 times per hit, which is what seed 003's pool removes (p08c).
 *
 * Builds on p08-megakernel.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/gpu.h"
#include "pathtrace/pt_stage.h"

#include "../p08-megakernel/config.cuh"
#include "../p08-megakernel/rays.cuh"
#include "../p08-megakernel/intersect.cuh"
#include "trace.cuh"
#include "kernel.cuh"
#include "paths.cuh"
#include "scene.cuh"
#include "host.cuh"
