#!/usr/bin/env python3
"""Writes random valid scenes of either track for the differential test (tools/difftest.sh):
the corners the benchmark never reaches, each seed its own mix of them.

What a seed draws (each scene's second line names what it got, as `features: ...`):
  - a size from 2x2 to about 300 pixels a side: tiny (2x2, 2x3, 3x2), odd (257x31, 33x17),
    thin (300x2), fewer rows than a stage has bands, not a multiple of any block or tile;
  - a sphere count from 1 to the stages' limits and just past them: most scenes hold at most
    512 spheres (stage 01's limit), a few 513 to 1,755, and some exactly 512, 513, 1,024, 1,025,
    1,755 or 1,756 (stages 11-21a and p07-p09f hold 1,024, stages 07-10 hold 1,755);
  - a scale: the camera from 1e-3 to 1e5 away from the image plane (SPEC.md's rays pass through
    the fixed square (px, py, -1), so this sets how wide the view is and how large every distance
    is), and every sphere placed along a ray through that square, its radius a fraction of its
    distance: radii from about 1e-7 to 5e8, coordinates up to about 5e8, the light up to 1e9, so
    that no product of an intersection overflows a float (b*b stays under about 1e37);
  - spheres behind the camera, beyond the far plane, overlapping, nested, coincident (the same
    centre and radius, another colour: the first in file order must win every tie), a huge
    ground, the camera inside a sphere;
  - main track: the light in front, behind the camera, far away, at the camera, at a sphere's
    centre, inside a sphere or just outside one; every coefficient and colour from 0 to 1, ends
    included; the background from 0 to 255;
  - path-tracing track: every material (diffuse, mirror, metal with fuzz 0 to 1, glass with ior
    1 to 4, light with emission up to 10000), no light, one, or up to 64, a light inside another
    sphere; 1 to 16 samples, a depth of 1 to 64, a sky from 0 to 10000.
The work of a scene is bounded (pixels x spheres, and x samples x depth for the path tracer), so
that a scene renders in well under a second on the CPU reference.

Deterministic: the same seed and track give the same bytes (Python's random.Random, whose
random() sequence Python keeps stable across versions; numbers are written with Python's
correctly rounded formatting). Log-uniform draws go through the platform's pow(), which is not
correctly rounded everywhere, so another C library may write a different last digit.

Usage: tools/random-scene.py --track main|pt --seed N [--output FILE]      one scene (stdout)
       tools/random-scene.py --track main|pt --seeds LIST --out-dir DIR    DIR/TRACK-seed-N.scene
  LIST: seeds and ranges, e.g. 1-24 or 3,17,40-45 (seeds are whole numbers from 0)
"""
import argparse
import math
import os
import random
import re
import struct
import sys

# The sphere counts where a stage's limit lies (SPEC.md section 1; each stage's stage_info):
# stage 01 holds 512, stages 11-21a and p07-p09f 1,024, stages 07-10 1,755 (48 KiB of shared
# memory); the scene and every other stage 100,000.
LIMIT_EDGES = (512, 513, 1024, 1025, 1755, 1756)
# Sizes that corner a kernel: 2 is the smallest side (the camera divides by width - 1), a
# height under 16 leaves some of stage 10's bands empty, 257 and 31 fit no block or tile.
SPECIAL_SIZES = ((2, 2), (2, 3), (3, 2), (257, 31), (31, 257), (33, 17), (17, 33), (300, 2),
                 (2, 300), (129, 7), (7, 129), (65, 65), (127, 129), (5, 3), (256, 9))
MAIN_WORK = 4e7  # pixels x spheres at most
PT_WORK = 5e7    # pixels x samples x min(depth, 8) x spheres at most
PLANE_CENTRE = (0.0, 0.0, -1.0)  # the centre of the square every primary ray passes through


class Draw:
    """Every random choice of one scene, from random() alone."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def unit(self):
        return self.rng.random()

    def chance(self, p):
        return self.rng.random() < p

    def between(self, lo, hi):
        return lo + (hi - lo) * self.rng.random()

    def log_between(self, lo, hi):
        return lo * (hi / lo) ** self.rng.random()

    def whole(self, lo, hi):
        return lo + min(int(self.rng.random() * (hi - lo + 1)), hi - lo)

    def pick(self, items):
        return items[self.whole(0, len(items) - 1)]

    def weighted(self, choices):
        """choices: (weight, value) pairs."""
        x = self.rng.random() * sum(w for w, _ in choices)
        for w, value in choices:
            if x < w:
                return value
            x -= w
        return choices[-1][1]

    def direction(self):
        """A unit vector, uniform over the sphere (by rejection)."""
        while True:
            v = tuple(self.between(-1.0, 1.0) for _ in range(3))
            n = length(v)
            if 1e-3 < n <= 1.0:
                return scale(v, 1.0 / n)

    def channel(self, top=1.0):
        """A colour channel from 0 to top, the ends included now and then."""
        return self.weighted([(1, 0.0), (1, top), (8, self.between(0.0, top))])


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def scale(a, k):
    return tuple(x * k for x in a)


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def length(a):
    return math.sqrt(dot(a, a))


def number(x):
    """A value as the scene file holds it: 0 below what a float keeps (the parser refuses a
    magnitude under FLT_MIN), else 9 significant digits, enough for a float's every bit."""
    return "0" if abs(x) < 1e-30 else f"{x:.9g}"


class View:
    """The camera and how to place things in its view: along the ray from the camera through
    a point q of the plane z = -1, at a multiple t of the distance to q (SPEC.md's rays, whose
    t < 100 is the far plane)."""

    def __init__(self, draw):
        # The camera's distance from the image plane's centre sets every distance in the scene.
        lo, hi = draw.weighted([(60, (0.5, 20.0)), (15, (1e-2, 0.5)), (5, (1e-3, 1e-2)),
                                (14, (20.0, 1e4)), (6, (1e4, 1e5))])
        self.distance = draw.log_between(lo, hi)
        axis = draw.weighted([
            (50, (0.0, 0.0, 1.0)),  # on the axis, as the benchmark: symmetric, exact ties
            (30, (draw.between(-1, 1), draw.between(-1, 1), draw.between(0.3, 1))),
            (12, (draw.between(-1, 1), draw.between(-1, 1), draw.between(-1, -0.3))),  # behind it
            (8, (draw.between(-1, 1), draw.between(-1, 1), draw.between(-0.05, 0.05)))])  # beside
        axis = scale(axis, 1.0 / length(axis))
        self.camera = add(PLANE_CENTRE, scale(axis, self.distance))
        # The view's axis, from the camera towards the plane's centre.
        self.forward = scale(axis, -1.0)
        # How wide the view is, about: the square of side 2 seen from this distance. A sphere's
        # radius is a share of its distance times this, so that a far camera's narrow view is
        # not filled by every sphere in it.
        self.width = min(1.0, 1.0 / self.distance)

    def through(self, draw, wide=False):
        """A point of the image plane: inside the picture's square, or around it."""
        reach = 4.0 if wide else 1.2
        return (draw.between(-reach, reach), draw.between(-reach, reach), -1.0)

    def place(self, t, q):
        return add(self.camera, scale(sub(q, self.camera), t))

    def random_sphere(self, draw, count):
        q = self.through(draw, wide=draw.chance(0.3))
        t = draw.weighted([(75, draw.log_between(0.05, 60.0)),    # in front
                           (10, draw.between(60.0, 300.0)),      # near or past the far plane
                           (15, -draw.log_between(0.05, 20.0))])  # behind the camera
        reach = abs(t) * length(sub(q, self.camera))
        # The radius as a share of the distance from the camera, under 1 (not around the camera),
        # smaller as the count grows, so that many spheres do not fill the view (nor swallow the
        # light) more often than a few do.
        top = min(0.25, max(0.003, 0.25 / math.sqrt(count)))
        big = min(10.0, 200.0 / count)
        share = draw.weighted([(95 - big, draw.log_between(1e-3, top)),
                               (5, draw.log_between(1e-4, 1e-3)), (big, draw.between(0.5, 0.9))])
        return self.place(t, q), share * reach * self.width


class Scene:
    def __init__(self, draw, track):
        self.draw, self.track = draw, track
        self.view = View(draw)
        self.spheres = []  # [centre, radius, material words]

    def material(self, light=False):
        d = self.draw
        if self.track == "main":
            return [d.channel(), d.channel(), d.channel()]
        if light:
            top = d.pick((1.0, 10.0, 100.0, 10000.0))
            emission = [d.channel(top) for _ in range(3)]
            if not any(emission):
                emission[d.whole(0, 2)] = d.between(0.1, 1.0) * top
            return ["light"] + emission
        kind = d.weighted([(40, "diffuse"), (20, "mirror"), (20, "metal"), (20, "glass")])
        colour = [d.channel(), d.channel(), d.channel()]
        if kind == "metal":
            colour.append(d.weighted([(1, 0.0), (1, 1.0), (4, d.unit())]))
        elif kind == "glass":
            colour.append(d.weighted([(1, 1.0), (1, 4.0), (2, 1.5), (4, d.between(1.0, 4.0))]))
        return [kind] + colour

    def insert(self, sphere):
        """Somewhere in the list: the order decides ties."""
        self.spheres.insert(self.draw.whole(0, len(self.spheres)), sphere)

    def pick_sphere(self):
        return self.spheres[self.draw.whole(0, len(self.spheres) - 1)]


def sphere_count(draw):
    return draw.weighted([
        (10, 1), (40, draw.whole(2, 20)), (25, draw.whole(21, 200)), (13, draw.whole(201, 512)),
        (6, draw.whole(513, 1024)), (3, draw.whole(1025, 1755)), (3, draw.pick(LIMIT_EDGES))])


def image_size(draw, most_pixels):
    width, height = draw.weighted([
        (20, draw.pick(SPECIAL_SIZES)),
        (30, (draw.whole(2, 8), draw.whole(2, 8))),
        (35, (draw.whole(2, 64), draw.whole(2, 64))),
        (15, (draw.whole(65, 300), draw.whole(2, 300)) if draw.chance(0.5)
         else (draw.whole(2, 300), draw.whole(65, 300)))])
    while width * height > most_pixels and (width > 2 or height > 2):
        if width >= height:
            width = max(2, width // 2 + 1)  # +1: odd sizes stay likely
        else:
            height = max(2, height // 2 + 1)
    return width, height


def build(seed, track):
    draw = Draw(2 * seed + (track == "pt"))  # the tracks' scenes of one seed drawn apart
    scene = Scene(draw, track)
    view = scene.view
    count = sphere_count(draw)
    # The corners, each drawn on its own; each takes a sphere out of the count, so that a count
    # at a limit stays exact.
    extras = []
    if draw.chance(0.1):
        extras.append("camera-inside")
    if draw.chance(0.4):
        extras.append("ground")
    if track == "pt" and draw.chance(0.15):
        extras.append("emitter-inside")
    extras += ["nested"] * (draw.whole(1, 2) if draw.chance(0.15) else 0)
    extras += ["overlapping"] * (draw.whole(1, 5) if draw.chance(0.3) else 0)
    extras += ["coincident"] * (draw.whole(1, 3) if draw.chance(0.25) else 0)
    extras = extras[:max(0, count - 1)]
    lights = 0
    if track == "pt":
        lights = draw.weighted([(15, 0), (30, 1), (35, draw.whole(2, 8)), (20, draw.whole(9, 64))])
        lights = min(lights, (count - len(extras)) // 2)  # at most half the plain spheres

    # The plain spheres, then the corners built from them, each inserted at a random place; each
    # pair made on purpose is kept for the description.
    pairs = []
    for k in range(count - len(extras)):
        centre, radius = view.random_sphere(draw, count)
        scene.spheres.append([centre, radius, scene.material(light=k < lights)])
    ground = None
    if "ground" in extras:
        # Under a point ahead, t times as far as the image plane, where the view is t high: a
        # ground seen up to its horizon, as the benchmark's is. Flat up to the far plane, where
        # the view is 100 high: a radius of 50 distance^2 or more (the benchmark's 1000 at
        # distance 2), but at most 1e8, so that no product of an intersection overflows.
        t = draw.between(1.0, 4.0)
        radius = min(1e8, draw.log_between(50.0, 5000.0) * t * max(view.distance, 1.0) ** 2)
        drop = draw.between(0.2, 1.2) * t
        top = view.place(t, PLANE_CENTRE)
        ground = [sub(top, (0.0, radius + drop, 0.0)), radius, scene.material()]
        scene.insert(ground)
    if "camera-inside" in extras:
        radius = draw.log_between(0.05, 50.0) * view.distance
        centre = add(view.camera, scale(draw.direction(), radius * draw.between(0.0, 0.8)))
        scene.insert([centre, radius, scene.material()])
    for extra in extras:
        if extra not in ("nested", "overlapping", "coincident", "emitter-inside"):
            continue
        original = scene.pick_sphere()
        centre, radius, _ = original
        if extra == "nested":  # inside the original, or around it
            factor = draw.between(0.2, 0.9) if draw.chance(0.5) else draw.between(1.15, 3.0)
            made = [centre, radius * factor, scene.material()]
        elif extra == "overlapping":
            other = radius * draw.log_between(0.2, 5.0)
            offset = scale(draw.direction(), (radius + other) * draw.between(0.1, 0.95))
            made = [add(centre, offset), other, scene.material()]
        elif extra == "coincident":  # the same centre and radius, another colour or material
            made = [centre, radius, scene.material()]
        else:  # a light inside another sphere
            inner = radius * draw.between(0.05, 0.5)
            offset = scale(draw.direction(), (radius - inner) * draw.between(0.0, 0.9))
            made = [add(centre, offset), inner, scene.material(light=True)]
        scene.insert(made)
        pairs.append((extra, original, made))
    assert len(scene.spheres) == count

    light = None
    if track == "main":
        placement = draw.weighted([(45, "front"), (10, "behind"), (10, "far"), (5, "camera"),
                                   (10, "centre"), (10, "inside"), (10, "beside")])
        if placement == "front":
            q = (draw.between(-2.0, 2.0), draw.between(-1.0, 3.0), -1.0)
            light = view.place(draw.log_between(0.1, 5.0), q)
        elif placement == "behind":
            light = view.place(-draw.log_between(0.1, 5.0), view.through(draw, wide=True))
        elif placement == "far":
            direction = draw.direction()
            light = add(view.camera, scale(direction, view.distance * draw.log_between(1e2, 1e4)))
        elif placement == "camera":
            light = view.camera
        else:
            centre, radius, _ = scene.pick_sphere()
            reach = {"centre": 0.0, "inside": draw.between(0.0, 0.9),
                     "beside": draw.between(1.001, 1.5)}[placement]
            light = add(centre, scale(draw.direction(), radius * reach))

    if track == "main":
        width, height = image_size(draw, MAIN_WORK / max(count, 4))
        lines = [f"size {width} {height}",
                 "camera " + " ".join(number(x) for x in view.camera),
                 "background " + " ".join(number(draw.channel(255.0)) for _ in range(3)),
                 "light " + " ".join(number(x) for x in light),
                 "light_colour " + " ".join(number(draw.channel()) for _ in range(3))]
        lines += [f"{name} {number(draw.channel())}" for name in ("ambient", "diffuse", "specular")]
    else:
        samples = draw.weighted([(40, 1), (40, draw.whole(2, 4)), (20, draw.whole(5, 16))])
        depth = draw.weighted([(10, 1), (60, draw.whole(2, 8)), (20, draw.whole(9, 16)), (10, 64)])
        sky_top = draw.weighted([(88, 1.0), (8, 100.0), (4, 10000.0)])
        per_pixel = samples * min(depth, 8) * max(count, 4)
        width, height = image_size(draw, PT_WORK / per_pixel)
        lines = [f"size {width} {height}",
                 "camera " + " ".join(number(x) for x in view.camera),
                 "sky " + " ".join(number(draw.channel(sky_top)) for _ in range(3)),
                 f"samples {samples}", f"max_depth {depth}"]
    for centre, radius, material in scene.spheres:
        words = [number(radius)] + [number(x) for x in centre]
        words += [w if isinstance(w, str) else number(w) for w in material]
        lines.append("sphere " + " ".join(words))

    features = describe(scene, light, ground, pairs, width, height)
    header = [f"# A random scene for the differential test: tools/random-scene.py --track {track} "
              f"--seed {seed}",
              "# features: " + " ".join(features)]
    return "\n".join(header + lines) + "\n"


def as_read(x):
    """A value as a stage holds it: the number written, read as a double, stored as a float."""
    return struct.unpack("<f", struct.pack("<f", float(number(x))))[0]


def point_as_read(p):
    return tuple(as_read(x) for x in p)


def describe(scene, light, ground, pairs, width, height):
    """What the scene holds, as the words of its "# features:" line. Each is measured on the
    values a stage reads (floats), in doubles, by the definitions tests/test_difftest.c checks
    every word with: rounding to float can undo a corner placed at a large scale (a light put
    just inside a small sphere far from the origin), and then the scene does not claim it."""
    camera = point_as_read(scene.view.camera)
    distance = length(sub(camera, PLANE_CENTRE))
    forward = scale(sub(PLANE_CENTRE, camera), 1.0 / distance)
    read = {id(s): (point_as_read(s[0]), as_read(s[1])) for s in scene.spheres}
    spheres = list(read.values())
    words = [f"size={width}x{height}", f"spheres={len(spheres)}", f"scale={distance:.2g}"]
    if scene.track == "pt":
        kinds = [m[0] for _, _, m in scene.spheres]
        words += [f"lights={kinds.count('light')}", "materials=" + ",".join(sorted(set(kinds)))]
    if any(length(sub(camera, c)) < 0.99 * r for c, r in spheres):
        words.append("camera-inside")
    if any(dot(sub(c, camera), forward) < -1.01 * r for c, r in spheres):
        words.append("behind-camera")
    if light is not None:
        light = point_as_read(light)
        distances = [(length(sub(light, c)), r) for c, r in spheres]
        if any(d < 0.99 * r for d, r in distances):
            words.append("light-inside")
        if any(1.01 * r < d < 1.5 * r for d, r in distances):
            words.append("light-beside")
        if any(light == c for c, _ in spheres):
            words.append("light-at-centre")
        if light == camera:
            words.append("light-at-camera")
        if length(sub(light, camera)) > 99.0 * distance:
            words.append("light-far")
    if ground is not None and read[id(ground)][1] >= 50.0 * max(distance, 1.0):
        words.append("ground")
    for kind in ("nested", "overlapping", "coincident", "emitter-inside"):
        if any(k == kind and pair_is(kind, read[id(a)], read[id(b)]) for k, a, b in pairs):
            words.append(kind)
    return words


def pair_is(kind, a, b):
    """Whether spheres a and b ((centre, radius) pairs; b the one placed) are what kind says."""
    (ca, ra), (cb, rb) = a, b
    apart = length(sub(ca, cb))
    if kind == "coincident":
        return ca == cb and ra == rb
    if kind == "overlapping":
        return apart < 0.99 * (ra + rb) and not (ca == cb and ra == rb)
    if kind == "nested":
        return apart + min(ra, rb) < 0.99 * max(ra, rb)
    return apart + rb < 0.99 * ra  # emitter-inside: b, the light, inside a


def seed_list(text):
    seeds = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise ValueError(part)
        last = int(m.group(2)) if m.group(2) is not None else int(m.group(1))
        seeds.extend(range(int(m.group(1)), last + 1))
    return seeds


def main(argv):
    ap = argparse.ArgumentParser(prog="tools/random-scene.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--track", required=True, choices=("main", "pt"))
    ap.add_argument("--seed", type=int, help="one scene's seed (0 or more)")
    ap.add_argument("--seeds", help="with --out-dir: seeds and ranges, e.g. 1-24 or 3,17")
    ap.add_argument("--output", help="with --seed: the file to write (default standard output)")
    ap.add_argument("--out-dir", help="with --seeds: the folder for TRACK-seed-N.scene")
    args = ap.parse_args(argv[1:])
    if (args.seed is None) == (args.seeds is None):
        ap.error("give --seed N or --seeds LIST --out-dir DIR")
    if args.seed is not None:
        if args.seed < 0 or args.out_dir:
            ap.error("--seed takes a whole number from 0, and --output (not --out-dir)")
        text = build(args.seed, args.track)
        if args.output:
            with open(args.output, "w", encoding="ascii", newline="\n") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
        return 0
    if not args.out_dir or args.output:
        ap.error("--seeds takes --out-dir DIR (not --output)")
    try:
        seeds = seed_list(args.seeds)
    except ValueError as bad:
        ap.error(f"--seeds: '{bad}' is not a seed or a range A-B")
    os.makedirs(args.out_dir, exist_ok=True)
    for seed in seeds:
        path = os.path.join(args.out_dir, f"{args.track}-seed-{seed}.scene")
        with open(path, "w", encoding="ascii", newline="\n") as out:
            out.write(build(seed, args.track))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
