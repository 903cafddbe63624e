#!/usr/bin/env python3
"""Medians of the development runs in this folder (rotating order, one process a run, H200,
2026-11-26): ab-p13-p14.csv.gz (s10.sh: p13 and p14 on pt-benchmark and the generated 1k, 10k
and 100k scenes, 5 rounds) and ab-p12-p15.csv.gz (s11.sh: p12 to p15 on pt-benchmark,
pt-production and the generated scenes, 5 rounds; p12 holds at most 1,024 spheres). Writes
summary.txt beside this file.
Usage: python3 summary.py"""

import os
import sys

# The data it reads and writes lies in results/reference/nvidia-h200/development/gpu-build-pt/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
HERE = os.path.join(REPO, "results", "reference", "nvidia-h200", "development", "gpu-build-pt")
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
import ab_summary  # noqa: E402  (tools/lab/ab_summary.py: the medians and the tables)

FILES = ['ab-p13-p14.csv.gz', 'ab-p12-p15.csv.gz']
text = ab_summary.summary([os.path.join(HERE, f) for f in FILES], "summary.py")
open(os.path.join(HERE, "summary.txt"), "w").write(text)
