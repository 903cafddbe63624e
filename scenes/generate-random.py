#!/usr/bin/env python3
"""Writes a scene of COUNT random spheres over the benchmark's floor, under its light and camera:
the scenes the acceleration-structure chapter is timed on (stages 22 on).

The spheres overlap freely (placement ignores the others), their radii span a factor of 20,
and they fill the space around what the camera sees (z from -2 to -14, x and y over twice the
view's width: about 30% of them in view, the rest seen in reflections), so
that the image has about as much sky as the benchmark's whatever the count: the radii shrink
as the count grows (the spheres' total volume stays the same). Deterministic: the same COUNT and
--seed give the same file on every machine (Python's random.Random, Mersenne Twister, whose
random() sequence Python keeps stable across versions).

With --clustered the same count and the same total volume take another shape, the one that
corners a hierarchy: the spheres in dense clumps (a clump a hundred spheres, its spheres within a
few radii of its centre, overlapping one another), and four large ones (radius 0.6 to 1.5) among
them, whose boxes overlap many clumps'. The course's family: build/scenes/clustered-1k.scene,
-10k and -100k (make scenes).

With --path-tracing it writes the path-tracing track's kind of scene (SPEC-PATH-TRACING.md)
at the same places: scenes/pt-benchmark.scene's sky, floor and two lamps, 1024x1024 at 2 samples
a pixel unless --size and --samples say otherwise, and each random sphere a random material
(diffuse 70%, metal 10%, mirror 10%, glass 10%), the scenes the path tracer's hierarchy stage
(p13) is timed on.

Usage: scenes/generate-random.py COUNT [--seed N] [--size WxH] [--clustered]
                                 [--path-tracing [--samples N]] > FILE
       (make scenes writes build/scenes/random-1k.scene, -10k and -100k at 8192x8192, the
       same counts --clustered as build/scenes/clustered-1k.scene, -10k and -100k, and
       build/scenes/pt-random-1k.scene, -10k and -100k at 1024x1024)
"""
import argparse
import math
import random
import sys


def material(rng, colour):
    """A path-tracing material for a sphere of albedo `colour`, drawn from its own generator, so
    that the places, radii and colours are those of the main track's scene of the same COUNT and
    --seed."""
    kind = rng.random()
    if kind < 0.7:
        return f"diffuse {colour}"
    if kind < 0.8:
        return f"metal {colour} {rng.uniform(0.0, 0.5):.3f}"
    if kind < 0.9:
        return f"mirror {colour}"
    return f"glass {colour} {rng.uniform(1.3, 1.7):.3f}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("count", type=int, help="spheres besides the floor, 1 to 99999")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default=None,
                    help="image size WxH (default 8192x8192; with --path-tracing 1024x1024)")
    ap.add_argument("--clustered", action="store_true",
                    help="the spheres in dense clumps, four of them large (the same count and volume)")
    ap.add_argument("--path-tracing", action="store_true",
                    help="a scene of the path-tracing track (SPEC-PATH-TRACING.md)")
    ap.add_argument("--samples", type=int, default=2,
                    help="with --path-tracing: samples a pixel (default 2)")
    args = ap.parse_args(argv[1:])
    if args.size is None:
        args.size = "1024x1024" if args.path_tracing else "8192x8192"
    if args.samples != 2 and not args.path_tracing:
        ap.error("--samples goes with --path-tracing (the main track's scenes have no samples)")
    if not 1 <= args.samples <= 65536:
        ap.error(f"--samples {args.samples}: from 1 to 65536")
    if not 1 <= args.count <= 99999:
        ap.error(f"count {args.count}: from 1 to 99999 (with the floor, at most 100,000 spheres)")
    try:
        width, height = (int(v) for v in args.size.split("x"))
    except ValueError:
        ap.error(f"--size {args.size!r} is not WxH")
    rng = random.Random(args.seed)
    kinds = random.Random(args.seed + 1000003)  # --path-tracing's materials
    # Radii log-uniform over [r_min, 20 r_min], r_min chosen so that the spheres' total volume
    # is that of 1,000 spheres of radius 0.05 to 1: about the same coverage at every count.
    mean_cube = (20 ** 3 - 1) / (3 * math.log(20))  # E[(r / r_min)^3] for log-uniform radii
    r_min = (1000 * 0.125 ** 3 / (args.count * mean_cube)) ** (1 / 3)
    command = f"scenes/generate-random.py {args.count} --seed {args.seed} --size {width}x{height}"
    if args.clustered:
        command += " --clustered"
    if args.path_tracing:
        out = [f"# {args.count} random spheres over the path-tracing benchmark's floor, under its "
               f"lamps ({command} --path-tracing --samples {args.samples}).",
               f"size {width} {height}", "camera 0 0 1", "sky 0.22 0.37 0.6",
               f"samples {args.samples}", "max_depth 8",
               "sphere 1000 0 -1002 0 diffuse 0.5 0.5 0.5",
               "sphere 0.3 -0.8 1.6 -3.5 light 6 6 5",
               "sphere 0.3 0.9 1.5 -2.5 light 5 5 6"]
    else:
        shape = "random spheres in clumps" if args.clustered else "random spheres"
        out = [f"# {args.count} {shape} over the benchmark's floor ({command}).",
               f"size {width} {height}", "camera 0 0 1", "background 94 156 255", "light 1 1 1",
               "light_colour 1 1 1", "ambient 0.1", "diffuse 0.7", "specular 0.7",
               "sphere 1000 0 -1002 0 0.5 0.5 0.5"]
    if args.path_tracing and args.count > 99997:
        ap.error(f"count {args.count}: with --path-tracing from 1 to 99997 (with the floor and "
                 "two lamps, at most 100,000 spheres)")
    # --clustered: four large spheres, then clumps of CLUMP spheres each around a centre drawn as
    # a sphere's place is drawn, every sphere of a clump within a few mean radii of it.
    large = min(4, args.count) if args.clustered else 0
    clump_size = 100
    centre = None
    for k in range(args.count):
        z = rng.uniform(-14.0, -2.0)
        # Around the view: the camera at z = 1 sees |x|, |y| < (1 - z) / 2 (the image plane spans
        # [-1, 1] at z = -1); the spheres spread over twice that across, and from y = -2 up,
        # so about 30% of them are in view and the rest are seen in reflections.
        reach = 1.0 - z
        x = rng.uniform(-reach, reach)
        y = rng.uniform(-2.0, reach)
        r = r_min * 20 ** rng.random()
        if args.clustered and k < large:
            r = rng.uniform(0.6, 1.5)
        elif args.clustered:
            if (k - large) % clump_size == 0:
                centre = (x, y, z)
            spread = 3.0 * r_min * 20 ** 0.5  # three radii of the middle size
            x = centre[0] + rng.gauss(0.0, spread)
            y = centre[1] + rng.gauss(0.0, spread)
            z = centre[2] + rng.gauss(0.0, spread)
        colour = f"{rng.random():.3f} {rng.random():.3f} {rng.random():.3f}"
        if args.path_tracing:
            out.append(f"sphere {r:.5f} {x:.4f} {y:.4f} {z:.4f} {material(kinds, colour)}")
        else:
            out.append(f"sphere {r:.5f} {x:.4f} {y:.4f} {z:.4f} {colour}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
