#!/usr/bin/env python3
"""floor.md from walk-work.txt beside it (run.sh): per scene, with the reference's leaves of four
spheres, the rays a pixel, the boxes and spheres a ray tests and the floor; then the floor with
leaves of 1, 2, 4 and 8 spheres. Stage 30's README shows it (tools/update_readmes.py copies it)."""
import os
import re

here = os.path.dirname(os.path.abspath(__file__))
HEAD = re.compile(r"walk-work: (\S+), (\d+) spheres, .*leaves of at most (\d+) sphere")
EVERY = re.compile(r"every ray\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)")
FLOOR = re.compile(r"floor: .*: ([\d.]+) ms with every lane busy")

runs = []  # (scene, spheres, leaves, rays a pixel, boxes, spheres a ray, floor ms)
current = None
with open(os.path.join(here, "walk-work.txt"), encoding="utf-8") as f:
    for line in f:
        if m := HEAD.match(line):
            current = [os.path.basename(m[1]).removesuffix(".scene"), int(m[2]), int(m[3])]
        elif (m := EVERY.match(line)) and current:
            current += [m[1], m[2], m[3]]
        elif (m := FLOOR.match(line)) and current:
            runs.append(tuple(current) + (float(m[1]),))
            current = None

scenes = list(dict.fromkeys((r[0], r[1]) for r in runs))
leaves = sorted({r[2] for r in runs})
floor = {(r[0], r[2]): r for r in runs}
out = ["| scene | spheres | rays a pixel | boxes a ray | spheres a ray | floor |",
       "|---|---|---|---|---|---|"]
for scene, spheres in scenes:
    r = floor[(scene, 4)]
    out.append(f"| {scene} | {spheres:,} | {r[3]} | {r[4]} | {r[5]} | {r[6]:.2f} ms |")
out += ["", "The floor with leaves of other sizes (`-DSPEC_BVH_LEAF_SPHERES=N`):", "",
        "| scene | " + " | ".join(f"leaves of {n}" for n in leaves) + " |",
        "|---|" + "---|" * len(leaves)]
for scene, _ in scenes:
    cells = [f"{floor[(scene, n)][6]:.2f} ms" for n in leaves]
    out.append(f"| {scene} | " + " | ".join(cells) + " |")
with open(os.path.join(here, "floor.md"), "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
