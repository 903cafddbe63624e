#!/usr/bin/env python3
"""Writes a scene of COUNT random spheres over the benchmark's floor, under its light and camera:
the scenes the acceleration-structure chapter is timed on (stages 22 on).

The spheres overlap freely (placement ignores the others), their radii span a factor of 20,
and they fill the part of space the camera sees (x, y within the view, z from -2 to -14), so
that the image has about as much sky as the benchmark's whatever the count: the radii shrink
as the count grows (the spheres' total volume stays the same). Deterministic: the same COUNT and
--seed give the same file on every machine (Python's random.Random, Mersenne Twister, whose
random() sequence Python keeps stable across versions).

Usage: scenes/generate-random.py COUNT [--seed N] [--size WxH] > FILE
       (make scenes writes build/scenes/random-1k.scene, -10k and -100k at 8192x8192)
"""
import argparse
import math
import random
import sys


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("count", type=int, help="spheres besides the floor, 1 to 99999")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="8192x8192", help="image size WxH (default 8192x8192)")
    args = ap.parse_args(argv[1:])
    if not 1 <= args.count <= 99999:
        ap.error(f"count {args.count}: from 1 to 99999 (with the floor, at most 100,000 spheres)")
    try:
        width, height = (int(v) for v in args.size.split("x"))
    except ValueError:
        ap.error(f"--size {args.size!r} is not WxH")
    rng = random.Random(args.seed)
    # Radii log-uniform over [r_min, 20 r_min], r_min chosen so that the spheres' total volume
    # is that of 1,000 spheres of radius 0.05 to 1: about the same coverage at every count.
    mean_cube = (20 ** 3 - 1) / (3 * math.log(20))  # E[(r / r_min)^3] for log-uniform radii
    r_min = (1000 * 0.125 ** 3 / (args.count * mean_cube)) ** (1 / 3)
    out = [f"# {args.count} random spheres over the benchmark's floor (scenes/generate-random.py "
           f"{args.count} --seed {args.seed} --size {width}x{height}).",
           f"size {width} {height}", "camera 0 0 1", "background 94 156 255", "light 1 1 1",
           "light_colour 1 1 1", "ambient 0.1", "diffuse 0.7", "specular 0.7",
           "sphere 1000 0 -1002 0 0.5 0.5 0.5"]
    for _ in range(args.count):
        z = rng.uniform(-14.0, -2.0)
        # Within the view: the camera at z = 1 sees x, y in [-1, 1] at z = 0, so |x| < 1 - z.
        reach = 1.0 - z
        x = rng.uniform(-reach, reach)
        y = rng.uniform(-2.0, reach)
        r = r_min * 20 ** rng.random()
        out.append(f"sphere {r:.5f} {x:.4f} {y:.4f} {z:.4f} "
                   f"{rng.random():.3f} {rng.random():.3f} {rng.random():.3f}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
