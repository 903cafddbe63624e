#!/usr/bin/env python3
"""floor.md from walk-work.txt beside it (run.sh): per scene, with the reference's leaves of four
spheres, the rays a pixel, the boxes and spheres a ray tests and the floor; then the floor with
leaves of 1, 2, 4 and 8 spheres. Stage 30's README shows it (tools/update_readmes.py copies it)."""
import os
import re
import sys

# The data it reads and writes lies in results/reference/nvidia-h100-80gb-hbm3/development/walk-work/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
here = os.path.join(REPO, "results", "reference", "nvidia-h100-80gb-hbm3", "development", "walk-work")
HEAD = re.compile(r"walk-work: (\S+), (\d+) spheres, .*leaves of at most (\d+) sphere")
EVERY = re.compile(r"every ray\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)")
FLOOR = re.compile(r"floor: .*: ([\d.]+) ms with every lane busy")


def refuse(why):
    sys.exit(f"summary.py: error: walk-work.txt: {why} (run run.sh again)")


runs = {}  # (scene path, leaves) -> (spheres, rays a pixel, boxes, spheres a ray, floor ms)
current = None
with open(os.path.join(here, "walk-work.txt"), encoding="utf-8") as f:
    for line in f:
        if m := HEAD.match(line):
            if current:
                refuse(f"the run of {current[0]} has no floor line")
            current = [m[1], int(m[3]), int(m[2])]
        elif (m := EVERY.match(line)) and current:
            current += [m[1], m[2], m[3]]
        elif (m := FLOOR.match(line)) and current:
            if len(current) != 6:
                refuse(f"the run of {current[0]} has no 'every ray' row")
            key = (current[0], current[1])
            if key in runs:
                refuse(f"{key[0]} with leaves of {key[1]} twice")
            runs[key] = tuple(current[2:]) + (float(m[1]),)
            current = None
if current:
    refuse(f"the run of {current[0]} has no floor line")

scenes = list(dict.fromkeys(scene for scene, _ in runs))
leaves = sorted({n for _, n in runs})
for scene in scenes:
    for n in leaves:
        if (scene, n) not in runs:
            refuse(f"no run of {scene} with leaves of {n}")
if 4 not in leaves:
    refuse("no run with the reference's leaves of 4")
out = ["| scene | spheres | rays a pixel | boxes a ray | spheres a ray | floor |",
       "|---|---|---|---|---|---|"]
for scene in scenes:
    spheres, rays, boxes, per_ray, floor = runs[(scene, 4)]
    name = os.path.basename(scene).removesuffix(".scene")
    out.append(f"| {name} | {spheres:,} | {rays} | {boxes} | {per_ray} | {floor:.2f} ms |")
out += ["", "The floor with leaves of other sizes (`-DSPEC_BVH_LEAF_SPHERES=N`):", "",
        "| scene | " + " | ".join(f"leaves of {n}" for n in leaves) + " |",
        "|---|" + "---|" * len(leaves)]
for scene in scenes:
    cells = [f"{runs[(scene, n)][4]:.2f} ms" for n in leaves]
    out.append(f"| {os.path.basename(scene).removesuffix('.scene')} | " + " | ".join(cells) + " |")
with open(os.path.join(here, "floor.md"), "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
