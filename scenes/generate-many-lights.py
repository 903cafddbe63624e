#!/usr/bin/env python3
"""Writes scenes/pt-many-lights.scene: the path-tracing benchmark with 256 small lamps.

The scene of stages p08b, p08c and p08d (seed 003's many lights, SPEC-PATH-TRACING.md
section 6): scenes/pt-benchmark.scene's ground and 18 small spheres without its two lamps, and
256 light spheres of radius 0.03 scattered above and among the rows, each a different colour.
Their emissions are scaled so that the lamps together emit what the benchmark's two did (the
sum over lamps of radius^2 times the mean emitted channel is the same), and the sky is 20% of
the benchmark's, so that most of the light comes from the lamps. Deterministic: Python's
random.Random with a fixed seed, whose random() sequence Python keeps the same from version to
version; nothing else is imported.

Usage: python3 scenes/generate-many-lights.py > scenes/pt-many-lights.scene
"""
import random

LIGHTS = 256
RADIUS = 0.03
SEED = 3  # seed 003
# The benchmark's lamps: radius 0.3, emissions (6, 6, 5) and (5, 5, 6).
BENCHMARK_POWER = 0.3 * 0.3 * (6 + 6 + 5) / 3 + 0.3 * 0.3 * (5 + 5 + 6) / 3
# Where lamps may go: above and among the three rows (x -1.5..1.5, y -0.25..0.75, z -4..-2).
BOX = ((-2.2, 2.2), (-0.6, 1.9), (-5.0, -1.6))
CLEARANCE = 0.05  # free space between a lamp and any other sphere

# scenes/pt-benchmark.scene without its lamps: (radius, x, y, z, material and values).
SPHERES = [
    (1000, 0, -1002, 0, "diffuse 0.5 0.5 0.5"),
    (0.25, -1.5, -0.25, -4, "diffuse 1.0 0.0 0.0"),
    (0.25, -1.0, -0.25, -4, "metal   1.0 0.5 0.0  0.3"),
    (0.25, -0.5, -0.25, -4, "diffuse 1.0 1.0 0.0"),
    (0.25, 0, -0.25, -4, "glass   1.0 1.0 1.0  1.5"),
    (0.25, 0.5, -0.25, -4, "diffuse 0.0 1.0 1.0"),
    (0.25, 1.0, -0.25, -4, "mirror  0.8 0.8 1.0"),
    (0.25, 1.5, -0.25, -4, "diffuse 0.5 0.0 1.0"),
    (0.25, -1.25, 0.25, -3, "glass   1.0 0.8 0.9  1.5"),
    (0.25, -0.75, 0.25, -3, "diffuse 0.5 0.0 0.5"),
    (0.25, -0.25, 0.25, -3, "mirror  0.9 0.9 0.9"),
    (0.25, 0.25, 0.25, -3, "diffuse 1.0 1.0 0.5"),
    (0.25, 0.75, 0.25, -3, "metal   0.0 1.0 0.5  0.1"),
    (0.25, 1.25, 0.25, -3, "diffuse 0.0 0.5 1.0"),
    (0.25, -1.0, 0.75, -2, "diffuse 1.0 0.5 0.0"),
    (0.25, -0.5, 0.75, -2, "metal   0.0 1.0 1.0  0.6"),
    (0.25, 0, 0.75, -2, "glass   0.9 0.8 1.0  1.33"),
    (0.25, 0.5, 0.75, -2, "diffuse 0.0 0.5 0.0"),
    (0.25, 1.0, 0.75, -2, "mirror  1.0 1.0 1.0"),
]


def clear_of(x, y, z, others):
    """Whether a lamp at (x, y, z) keeps CLEARANCE from every sphere in others."""
    for radius, ox, oy, oz in others:
        gap = radius + RADIUS + CLEARANCE
        if (x - ox) ** 2 + (y - oy) ** 2 + (z - oz) ** 2 < gap * gap:
            return False
    return True


def lamps():
    """LIGHTS lamps: (x, y, z, (r, g, b)), emissions scaled to the benchmark's power."""
    rng = random.Random(SEED)
    taken = [(radius, x, y, z) for radius, x, y, z, _ in SPHERES]
    placed = []
    while len(placed) < LIGHTS:
        x, y, z = (lo + (hi - lo) * rng.random() for lo, hi in BOX)
        # A tint: each channel 0.2 to 1, then a brightness 0.5 to 1.5 (mean channel = brightness).
        tint = [0.2 + 0.8 * rng.random() for _ in range(3)]
        brightness = 0.5 + rng.random()
        if not clear_of(x, y, z, taken):
            continue
        mean = sum(tint) / 3
        placed.append((x, y, z, [brightness * c / mean for c in tint]))
        taken.append((RADIUS, x, y, z))
    power = sum(RADIUS * RADIUS * sum(e) / 3 for _, _, _, e in placed)
    scale = BENCHMARK_POWER / power
    return [(x, y, z, [c * scale for c in e]) for x, y, z, e in placed]


def main():
    print("# The path-tracing benchmark with many lamps (seed 003, SPEC-PATH-TRACING.md section 6),")
    print("# written by scenes/generate-many-lights.py: scenes/pt-benchmark.scene without its two")
    print(f"# lamps, plus {LIGHTS} light spheres of radius {RADIUS} above and among the rows, together")
    print("# as bright as the two lamps were; the sky at 20% of the benchmark's.")
    print("# sphere: radius cx cy cz MATERIAL values (diffuse/mirror r g b, metal r g b fuzz,")
    print("# glass r g b ior, light r g b emitted radiance).")
    print()
    print("size 1024 1024")
    print("camera 0 0 1")
    print("sky 0.044 0.074 0.12     # the benchmark's sky at 20%")
    print("samples 2")
    print("max_depth 8")
    print()
    for radius, x, y, z, material in SPHERES:
        print(f"sphere {radius:<6} {x:6} {y:6} {z:5}   {material}")
    for x, y, z, (r, g, b) in lamps():
        print(f"sphere {RADIUS} {x:7.3f} {y:7.3f} {z:7.3f}   light {r:.3f} {g:.3f} {b:.3f}")


if __name__ == "__main__":
    main()
