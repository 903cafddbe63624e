#!/usr/bin/env python3
"""Derives a few pixels of the benchmark scene, and one of a scene made for the specular term,
straight from SPEC.md, independently of the C code.

Every operation is done in Python's double precision and rounded to float32 right after, which
gives exactly the IEEE single-precision result for +, -, *, / and sqrt (double has more than
2*24+2 bits, so rounding twice cannot differ). The output is the (i, j) -> RGB table that
tests/test_cpu_reference.c asserts. Run: python3 tests/golden/derive_spot_pixels.py
"""
import math
import struct


def f(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def add(a, b): return tuple(f(x + y) for x, y in zip(a, b))
def sub(a, b): return tuple(f(x - y) for x, y in zip(a, b))
def scale(s, v): return tuple(f(s * x) for x in v)
def mul(a, b): return tuple(f(x * y) for x, y in zip(a, b))
def dot(a, b): return f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(a[2] * b[2]))


def norm(v):
    length = f(math.sqrt(dot(v, v)))
    return tuple(f(x / length) for x in v)


def cap(v): return tuple(x if x < 1 else 1.0 for x in v)


SPHERES = [(1000, (0, -1002, 0), (0.5, 0.5, 0.5))] + [
    (0.25, (x, -0.25, -4), c) for x, c in zip(
        (-1.5, -1.0, -0.5, 0, 0.5, 1.0, 1.5),
        ((1, 0, 0), (1, .5, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (.5, 0, 1)))] + [
    (0.25, (x, 0.25, -3), c) for x, c in zip(
        (-1.25, -0.75, -0.25, 0.25, 0.75, 1.25),
        ((1, 0, .5), (.5, 0, .5), (.5, .5, .5), (1, 1, .5), (0, 1, .5), (0, .5, 1)))] + [
    (0.25, (x, 0.75, -2), c) for x, c in zip(
        (-1.0, -0.5, 0, 0.5, 1.0),
        ((1, .5, 0), (0, 1, 1), (.5, 0, 1), (0, .5, 0), (1, 1, 1)))]
SPHERES = [(f(r), tuple(map(f, c)), tuple(map(f, col))) for r, c, col in SPHERES]
CAMERA = (0.0, 0.0, 1.0)
BACKGROUND = (94.0, 156.0, 255.0)
LIGHT = (1.0, 1.0, 1.0)
LIGHT_COLOUR = (1.0, 1.0, 1.0)
KA, KD, KS = f(0.1), f(0.7), f(0.7)


def intersect(o, d, sphere):
    r, c, _ = sphere
    oc = sub(o, c)
    a = dot(d, d)
    b = f(2 * dot(d, oc))
    k = f(dot(oc, oc) - f(r * r))
    disc = f(f(b * b) - f(f(4 * a) * k))
    if disc < 0:
        return None
    root = f(math.sqrt(disc))
    t0 = f(f(-b - root) / f(2 * a))
    t1 = f(f(-b + root) / f(2 * a))
    positive = [t for t in (t0, t1) if t > 0]
    return min(positive) if positive else None


def closest(o, d):
    best, hit = f(100.0), None
    for n, s in enumerate(SPHERES):
        t = intersect(o, d, s)
        if t is not None and 0 <= t < best:
            best, hit = t, n
    return hit, best


def shadow(o, d):
    return f(0.35) if any((t := intersect(o, d, s)) is not None and t > f(1e-6) for s in SPHERES) else 1.0


def pixel(i, j, width, height):
    px = f(f(f(2 * f(i + 0.5)) / f(width - 1)) - 1)
    py = f(1 - f(f(2 * f(j + 0.5)) / f(height - 1)))
    d = sub((px, py, -1.0), CAMERA)
    hit, t = closest(CAMERA, d)
    if hit is None:
        return BACKGROUND, "background"
    _, centre, colour = SPHERES[hit]
    p = add(CAMERA, scale(t, d))
    n = norm(sub(p, centre))
    v = norm(sub(CAMERA, p))
    l = norm(sub(LIGHT, p))
    minus_l = scale(-1.0, l)
    r = norm(sub(minus_l, scale(f(2 * dot(minus_l, n)), n)))
    lifted = add(p, scale(f(0.001), n))
    s = shadow(lifted, sub(LIGHT, lifted))
    rhit, tr = closest(lifted, r)
    if rhit is not None:
        _, c2, col2 = SPHERES[rhit]
        q = add(lifted, scale(tr, r))
        qn = norm(sub(q, c2))
        rs = shadow(add(q, scale(f(0.001), qn)), add(sub(LIGHT, q), scale(f(0.001), qn)))
        refl = scale(rs, col2)
    else:
        refl = tuple(f(x / 255) for x in BACKGROUND)
    diffuse = max(dot(l, n), 0.0)
    spec = max(dot(r, v), 0.0)
    for _ in range(5):
        spec = f(spec * spec)
    lighting = add(add(scale(KA, LIGHT_COLOUR), scale(f(KD * diffuse), LIGHT_COLOUR)), scale(f(KS * spec), LIGHT_COLOUR))
    surface = add(scale(f(0.55), sub(colour, refl)), refl)
    all_ = mul(cap(lighting), cap(surface))
    out = scale(f(f(255.999) * s), all_)
    return out, f"sphere {hit}, {'shadowed' if s < 1 else 'lit'}"


if __name__ == "__main__":
    for i, j in ((0, 0), (256, 500), (150, 330), (100, 360), (90, 240), (256, 150)):
        colour, what = pixel(i, j, 512, 512)
        rgb = tuple(int(c) for c in colour)  # truncation toward zero
        print(f"quick.scene pixel ({i}, {j}): {rgb}  floats {colour}  -- {what}")
    # The highlight scene of tests/test_cpu_reference.c, made for the specular term (its comment
    # goes through the same steps by hand).
    SPHERES = [(1.0, (0.0, 0.0, -2.0), (1.0, 0.5, 0.25))]
    BACKGROUND = (0.0, 0.0, 0.0)
    LIGHT = (7.0, 0.0, 23.0)
    KA, KD, KS = f(0.1), f(0.2), f(0.7)
    colour, what = pixel(0, 0, 2, 2)
    print(f"highlight scene pixel (0, 0): {tuple(int(c) for c in colour)}  floats {colour}  -- {what}")
