#!/usr/bin/env python3
"""Tests of tools/noise.py without a GPU: its PPM reader, its RMS difference and its CSV
reading on hand-made inputs, and a whole measurement with stand-in stages whose noise is known
(tests/test_noise.c runs this file, so `make test` covers it). Run from the repository root:
python3 tests/test_noise.py"""
import io
import math
import os
import stat
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import noise  # noqa: E402  (tools/noise.py)

# A stand-in stage: an 8x4 image whose every channel is 128 + or - round(64 / sqrt(samples)),
# the sign alternating, so that its RMS difference from its 64-sample image is exactly
# 64 / sqrt(samples) - 8; kernel_events = 100 us per sample; its --help names the estimator
# written after "estimator-" in its file name (none: no line, the path estimator).
FAKE_STAGE = r'''#!/usr/bin/env python3
import math, os, sys
args = sys.argv[1:]
name = os.path.basename(sys.argv[0])
if args == ["--help"]:
    print(name + ": a stand-in")
    if "estimator-" in name:
        print("estimator: " + name.split("estimator-")[1])
    sys.exit(0)
samples = int(args[args.index("--samples") + 1])
output = args[args.index("--output") + 1]
amplitude = round(64 / math.sqrt(samples))
values = bytes(128 + (amplitude if k % 2 else -amplitude) for k in range(8 * 4 * 3))
with open(output, "wb") as f:
    f.write(b"P6\n8 4\n255\n" + values)
print("stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit")
print("%s,Fake GPU,GPU-0,8,4,3,128x1,pinned,kernel,%d,us" % (name, samples * 100 + 7))
print("%s,Fake GPU,GPU-0,8,4,3,128x1,pinned,kernel_events,%d.0,us" % (name, samples * 100))
'''


class RmsDifference(unittest.TestCase):
    def test_by_hand(self):
        self.assertEqual(noise.rms_difference(b"\x00\x00\x00", b"\x03\x04\x00"),
                         math.sqrt(25 / 3))
        self.assertEqual(noise.rms_difference(bytes([255] * 6), bytes([0] * 6)), 255.0)
        self.assertEqual(noise.rms_difference(b"\x10\x20\x30", b"\x10\x20\x30"), 0.0)
        # symmetric, and every channel counts alike
        self.assertEqual(noise.rms_difference(b"\x05\x00", b"\x00\x05"),
                         noise.rms_difference(b"\x00\x05", b"\x05\x00"))
        self.assertEqual(noise.rms_difference(b"\x00\x00\x00\x00", b"\x02\x02\x02\x02"), 2.0)

    def test_refuses_what_cannot_be_compared(self):
        with self.assertRaises(noise.NoiseError):
            noise.rms_difference(b"\x00\x00", b"\x00")
        with self.assertRaises(noise.NoiseError):
            noise.rms_difference(b"", b"")


class ReadPpm(unittest.TestCase):
    def write(self, folder, data):
        path = os.path.join(folder, "x.ppm")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_header_with_comments(self):
        with tempfile.TemporaryDirectory() as folder:
            pixels = bytes(range(2 * 3 * 3))
            path = self.write(folder, b"P6\n# made by hand\n2 3 # two by three\n255\n" + pixels)
            self.assertEqual(noise.read_ppm(path), (2, 3, pixels))
            # a pixel byte that looks like whitespace right after the header is data
            path = self.write(folder, b"P6 1 1 255\n\n\t\x20")
            self.assertEqual(noise.read_ppm(path), (1, 1, b"\n\t\x20"))

    def test_bad_files(self):
        with tempfile.TemporaryDirectory() as folder:
            for data in (b"P5\n1 1\n255\n\x00", b"P6\n1 1\n65535\n\x00\x00\x00",
                         b"P6\n2 2\n255\n\x00\x00", b"P6\n1", b"P6\nx 1\n255\n\x00\x00\x00"):
                with self.assertRaises(noise.NoiseError, msg=repr(data)):
                    noise.read_ppm(self.write(folder, data))


class KernelEvents(unittest.TestCase):
    def test_reads_the_metric(self):
        report = ("stage,gpu,gpu_uuid,width,height,spheres,block,host_memory,metric,value,unit\n"
                  "p08b,GPU,u,4,4,3,128x1,pinned,kernel,1234,us\n"
                  "p08b,GPU,u,4,4,3,128x1,pinned,kernel_events,987.5,us\n")
        self.assertEqual(noise.kernel_events(report), 987.5)
        with self.assertRaises(noise.NoiseError):
            noise.kernel_events(report.replace("kernel_events", "other"))


class WholeMeasurement(unittest.TestCase):
    def test_stand_in_stages(self):
        with tempfile.TemporaryDirectory() as folder:
            stages = []
            for name in ("p90-fake", "p91-fake-estimator-nee"):
                path = os.path.join(folder, name)
                with open(path, "w") as f:
                    f.write(FAKE_STAGE)
                os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
                stages.append(path)
            scene = os.path.join(folder, "any.scene")
            open(scene, "w").close()
            out = io.StringIO()
            with redirect_stdout(out):
                status = noise.main(["--scene", scene, "--samples", "1,4", *stages])
            self.assertEqual(status, 0)
            lines = out.getvalue().splitlines()
            self.assertIn("converged images at 64 samples", lines[0])
            self.assertEqual(lines[1], "| stage | estimator | samples | render loop [µs] | "
                                       "RMS noise [8-bit] | noise x sqrt(ms) |")
            # 64 - 8 = 56 at 1 sample (0.1 ms), 32 - 8 = 24 at 4 (0.4 ms)
            self.assertEqual(lines[3], "| p90-fake | path | 1 | 100 | 56.000 | %.3f |"
                             % (56 * math.sqrt(0.1)))
            self.assertEqual(lines[4], "| p90-fake | path | 4 | 400 | 24.000 | %.3f |"
                             % (24 * math.sqrt(0.4)))
            self.assertEqual(lines[5], "| p91-fake-estimator-nee | nee | 1 | 100 | 56.000 | %.3f |"
                             % (56 * math.sqrt(0.1)))
            self.assertEqual(len(lines), 7)

    def test_a_failing_stage_is_one_line(self):
        """A stage's failure is one line; noise.py exits 2 where the stage did (bad input or no
        GPU, the stages' convention) and 1 for any other failure."""
        for stage_status, expected in ((2, 2), (1, 1)):
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "p92-broken")
                with open(path, "w") as f:
                    f.write(f"#!/bin/sh\necho 'p92-broken: error: no GPU' >&2\nexit {stage_status}\n")
                os.chmod(path, 0o755)
                scene = os.path.join(folder, "any.scene")
                open(scene, "w").close()
                err = io.StringIO()
                with redirect_stderr(err), redirect_stdout(io.StringIO()):
                    status = noise.main(["--scene", scene, path])
                self.assertEqual(status, expected)
                self.assertEqual(len(err.getvalue().splitlines()), 1)
                self.assertIn(f"exit status {stage_status}: p92-broken: error: no GPU", err.getvalue())


if __name__ == "__main__":
    unittest.main()
