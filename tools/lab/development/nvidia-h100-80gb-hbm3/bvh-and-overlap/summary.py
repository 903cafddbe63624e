#!/usr/bin/env python3
"""Medians of the development runs in this folder (rotating order, one process a run, H100):
ab.csv.gz (s7.sh: p11, p12 and p13 on pt-benchmark, 20 rounds, and pt-production, 10 rounds;
p12 and p13 also with CUDA_MODULE_LOADING=EAGER, stage name +eager) and first-look.csv.gz (s6.sh:
6 rounds of p12 and p13 on both scenes and of p13 on the generated 1k, 10k and 100k scenes, and
p07, p07a, p09 on pt-benchmark). Writes summary.txt beside this file.
Usage: python3 summary.py"""

import os
import sys

# The data it reads and writes lies in results/reference/nvidia-h100-80gb-hbm3/development/bvh-and-overlap/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
HERE = os.path.join(REPO, "results", "reference", "nvidia-h100-80gb-hbm3", "development", "bvh-and-overlap")
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
import ab_summary  # noqa: E402  (tools/lab/ab_summary.py: the medians and the tables)

FILES = ['ab.csv.gz', 'first-look.csv.gz']
text = ab_summary.summary([os.path.join(HERE, f) for f in FILES], "summary.py")
open(os.path.join(HERE, "summary.txt"), "w").write(text)
