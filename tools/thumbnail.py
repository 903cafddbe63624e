#!/usr/bin/env python3
"""A small copy of a rendered image for the README: each output pixel is the mean of a square of
input pixels (a box filter, so the picture is the render's, not a resampler's guess).

usage: tools/thumbnail.py IN.png|IN.ppm OUT.png [--width N]   (default width 1024)

The README's picture is made with:
  build/cpu-reference --scene scenes/benchmark.scene --output /tmp/benchmark.png
  tools/thumbnail.py /tmp/benchmark.png pictures/benchmark.png
Pillow comes with matplotlib, which the project's plots already need."""
import argparse
import sys

try:
    from PIL import Image
except ImportError:
    sys.exit("thumbnail.py: error: Pillow is missing (it comes with matplotlib: "
             "apt-get install python3-matplotlib, or pip install pillow)")


def main(argv=None):
    parser = argparse.ArgumentParser(description="box-filtered small copy of an image")
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--width", type=int, default=1024)
    args = parser.parse_args(argv)
    if args.width < 1:
        sys.exit(f"thumbnail.py: error: --width {args.width} is not a positive width")
    try:
        image = Image.open(args.source).convert("RGB")
    except (OSError, ValueError) as error:
        sys.exit(f"thumbnail.py: error: cannot read {args.source}: {error}")
    factor = max(1, image.width // args.width)
    small = image.reduce(factor) if factor > 1 else image
    try:
        small.save(args.target, format="PNG", optimize=True)
    except (OSError, ValueError) as error:
        sys.exit(f"thumbnail.py: error: cannot write {args.target}: {error}")
    print(f"{args.target}: {small.width}x{small.height}, each pixel the mean of "
          f"{factor}x{factor} pixels of {args.source}")


if __name__ == "__main__":
    main()
