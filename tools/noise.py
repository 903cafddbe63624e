#!/usr/bin/env python3
"""Noise against time: how far each stage's image is from a converged one, and what it cost.

Monte Carlo noise falls as 1/sqrt(samples) while time grows with them, so two estimators (or
two stages of one) compare at equal time, not at equal samples: a stage whose samples cost
twice as much must cut the noise by more than sqrt(2) to win. For every stage and every sample
count this runs the stage once (`STAGE --scene SCENE --samples N --output X.ppm --csv`), reads
the render loop's GPU time (`kernel_events`) from its CSV report and its image, and measures
the RMS difference, in 8-bit levels over every channel of every pixel, from a converged image
of the same estimator (the first stage of that estimator, named by the `estimator: NAME` line
of its --help, at --converged samples). The converged image has noise of its own, smaller by
sqrt(converged / N); the default 64 against at most 8 makes it a third or less of the
smallest measured.

The table gives, per stage and sample count, the render loop's time, the RMS noise and
noise x sqrt(time): for a Monte Carlo estimate that last column stays about constant as the
samples grow, and the stage with the lower value is the less noisy at any equal time (the ratio
of two stages' values is the ratio of their noise at equal time). Needs a GPU for real stages;
no third-party Python package (the PPM images are read here).

usage: tools/noise.py [--scene FILE] [--samples 1,2,4,8] [--converged 64] [--size WxH]
                      [--runs N] STAGE...
example: tools/noise.py --scene scenes/pt-many-lights.scene build/p08-megakernel \\
             build/p08b-next-event build/p08c-light-pool build/p08d-compact-light-samples
"""
import argparse
import csv
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile


class NoiseError(Exception):
    """A stage or an image that cannot be measured: one line for the user. status: what
    noise.py exits with (2 when a stage refused its input or found no GPU, as the stage did)."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def read_ppm(path):
    """A binary PPM (P6, maxval 255): (width, height, bytes of RGB). Comments allowed."""
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:
        while at < len(data) and data[at:at + 1].isspace():
            at += 1
        if at < len(data) and data[at:at + 1] == b"#":
            while at < len(data) and data[at:at + 1] not in (b"\n", b"\r"):
                at += 1
            continue
        start = at
        while at < len(data) and not data[at:at + 1].isspace() and data[at:at + 1] != b"#":
            at += 1
        if start == at:
            raise NoiseError(f"{path}: not a complete PPM header")
        fields.append(data[start:at])
    if fields[0] != b"P6":
        raise NoiseError(f"{path}: not a binary PPM (P6), starts with {fields[0][:8]!r}")
    try:
        width, height, maxval = (int(v) for v in fields[1:])
    except ValueError:
        raise NoiseError(f"{path}: bad PPM header {b' '.join(fields)!r}") from None
    if maxval != 255 or width <= 0 or height <= 0:
        raise NoiseError(f"{path}: a {width}x{height} PPM with maxval {maxval} (want 8 bits)")
    at += 1  # the one whitespace byte after maxval
    pixels = data[at:at + width * height * 3]
    if len(pixels) != width * height * 3:
        raise NoiseError(f"{path}: {len(pixels)} bytes of pixels, {width}x{height} needs "
                         f"{width * height * 3}")
    return width, height, pixels


def rms_difference(a, b):
    """The root mean square of the differences of two equally long byte strings (8-bit levels)."""
    if len(a) != len(b):
        raise NoiseError(f"images of {len(a)} and {len(b)} channels cannot be compared")
    if not a:
        raise NoiseError("empty images")
    total = sum((x - y) * (x - y) for x, y in zip(a, b))
    return math.sqrt(total / len(a))


def kernel_events(report):
    """The value of metric kernel_events (µs) in a stage's --csv report."""
    for row in csv.DictReader(io.StringIO(report)):
        if row.get("metric") == "kernel_events":
            return float(row["value"])
    raise NoiseError("no kernel_events in the stage's --csv report")


def estimator_of(stage):
    """The estimator a stage's --help names ('estimator: NAME'); path when it names none."""
    result = subprocess.run([stage, "--help"], capture_output=True, text=True, check=False)
    for line in result.stdout.splitlines():
        if line.startswith("estimator: "):
            return line[len("estimator: "):].strip()
    return "path"


def render(stage, scene, samples, size, output):
    """Runs one stage; returns its kernel_events (µs) and writes its image to output."""
    command = [stage, "--scene", scene, "--samples", str(samples), "--output", output, "--csv"]
    if size:
        command += ["--size", size]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        raise NoiseError(f"{' '.join(command)}: exit status {result.returncode}: {last}",
                         2 if result.returncode == 2 else 1)
    return kernel_events(result.stdout)


def measure(stages, scene, sample_counts, converged, size, runs, work):
    """Rows (stage, estimator, samples, median kernel_events µs, RMS noise)."""
    references, rows = {}, []
    for stage in stages:
        estimator = estimator_of(stage)
        if estimator not in references:
            path = os.path.join(work, f"converged-{estimator}.ppm")
            render(stage, scene, converged, size, path)
            references[estimator] = read_ppm(path)
        width, height, reference = references[estimator]
        for samples in sample_counts:
            path = os.path.join(work, "image.ppm")
            times = [render(stage, scene, samples, size, path) for _ in range(runs)]
            image_width, image_height, image = read_ppm(path)
            if (image_width, image_height) != (width, height):
                raise NoiseError(f"{stage}: {image_width}x{image_height} image, the converged "
                                 f"one is {width}x{height}")
            rows.append((stage, estimator, samples, statistics.median(times),
                         rms_difference(image, reference)))
    return rows


def table(rows):
    """The rows as a Markdown table, with noise x sqrt(render loop in ms)."""
    lines = ["| stage | estimator | samples | render loop [µs] | RMS noise [8-bit] | "
             "noise x sqrt(ms) |", "| --- | --- | --- | --- | --- | --- |"]
    for stage, estimator, samples, micros, noise in rows:
        merit = noise * math.sqrt(micros / 1000.0)
        lines.append(f"| {os.path.basename(stage)} | {estimator} | {samples} | {micros:.0f} | "
                     f"{noise:.3f} | {merit:.3f} |")
    return "\n".join(lines)


def sample_list(text):
    """--samples: whole numbers from 1, separated by commas."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list like 1,2,4,8") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': sample counts start at 1")
    return values


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/noise.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\nusage:")[0],
        epilog="example:" + __doc__.split("example:")[1])
    parser.add_argument("stages", nargs="+", metavar="STAGE",
                        help="stage executables, e.g. build/p08b-next-event")
    parser.add_argument("--scene", default="scenes/pt-many-lights.scene",
                        help="scene rendered (default scenes/pt-many-lights.scene)")
    parser.add_argument("--samples", type=sample_list, default=[1, 2, 4, 8],
                        help="sample counts measured, comma-separated (default 1,2,4,8)")
    parser.add_argument("--converged", type=positive, default=64,
                        help="samples of the converged image (default 64)")
    parser.add_argument("--size", help="WxH passed to the stages (default the scene's)")
    parser.add_argument("--runs", type=positive, default=1,
                        help="runs per setting; the time is their median (default 1)")
    args = parser.parse_args(argv)
    for stage in args.stages:
        if not (os.path.isfile(stage) and os.access(stage, os.X_OK)):
            parser.error(f"{stage}: not an executable file")
    if not os.path.isfile(args.scene):
        parser.error(f"--scene {args.scene}: no such file")
    with tempfile.TemporaryDirectory(prefix="noise-") as work:
        try:
            rows = measure(args.stages, args.scene, args.samples, args.converged, args.size,
                           args.runs, work)
        except NoiseError as e:
            print(f"noise.py: error: {e}", file=sys.stderr)
            return e.status
    print(f"{args.scene}, converged images at {args.converged} samples")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
