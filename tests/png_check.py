#!/usr/bin/env python3
"""Checks a PNG from tests/test_png.c with Python's own decoders: every chunk's CRC
(binascii.crc32), the IDATs' zlib stream (zlib.decompress, which checks the Adler-32 and the
stream's end), and, when Pillow is installed, the pixels Pillow decodes against RAW (the
image's RGB bytes, rows from the top).

    png_check.py FILE.png RAW WIDTH HEIGHT

Exit status 0 and "ok, Pillow: yes|no" on stdout when all holds; 1 and what failed otherwise.
"""
import binascii
import struct
import sys
import zlib


def main():
    path, raw_path, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = open(path, "rb").read()
    expected = open(raw_path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    at, idat, types = 8, b"", []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if binascii.crc32(kind + body) != crc:
            return f"bad CRC in the {kind!r} chunk at byte {at}"
        types.append(kind)
        if kind == b"IDAT":
            idat += body
        at += 12 + length
    if types[0] != b"IHDR" or types[-1] != b"IEND" or at != len(data):
        return f"chunks out of order or trailing bytes: {types[:3]}...{types[-2:]}"
    if struct.unpack(">IIBBBBB", data[16:29]) != (width, height, 8, 2, 0, 0, 0):
        return f"unexpected IHDR {data[16:29].hex()}"
    decompressor = zlib.decompressobj()
    filtered = decompressor.decompress(idat) + decompressor.flush()
    if not decompressor.eof or decompressor.unused_data:
        return "the zlib stream does not end where the IDATs do"
    if len(filtered) != height * (1 + 3 * width):
        return f"{len(filtered)} bytes inflated, {height * (1 + 3 * width)} expected"
    try:
        from PIL import Image
    except ImportError:
        print("ok, Pillow: no")
        return None
    Image.MAX_IMAGE_PIXELS = None  # the large test image is no decompression bomb
    with Image.open(path) as image:
        image.load()
        if image.mode != "RGB" or image.size != (width, height):
            return f"Pillow reads mode {image.mode}, size {image.size}"
        pixels = image.tobytes()
    if pixels != expected:
        first = next(i for i in range(len(pixels)) if pixels[i] != expected[i])
        return f"Pillow's pixels differ, first at byte {first}"
    print("ok, Pillow: yes")
    return None


if __name__ == "__main__":
    failure = main()
    if failure:
        print(f"png_check.py: {sys.argv[1]}: {failure}")
        sys.exit(1)
