#!/usr/bin/env python3
"""Summarises ab.csv.gz (margin.sh with RUNS=10: each round runs every stage 14-21a once with the
light-cell margin fix, "new", and once without it, "old", the order alternating) as medians of
kernel_events, steady_frame and total per stage, and the ratio new/old.
Usage: python3 ab_summary.py [ab.csv.gz] > ab-summary.txt"""
import collections
import csv
import gzip
import io
import os
import statistics
import sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', '..', 'results', 'reference', 'nvidia-h100-80gb-hbm3', 'development', 'light-margin', 'ab.csv.gz')
values = collections.defaultdict(list)
with gzip.open(path, 'rt') as f:
    for row in csv.DictReader(io.StringIO(f.read())):
        values[(row['stage_dir'], row['version'], row['metric'])].append(float(row['value']))
stages = sorted({k[0] for k in values})
rounds = len(values[(stages[0], 'new', 'kernel_events')])
print(f'light-cell margin A/B, {rounds} interleaved rounds, medians in microseconds')
for metric in ('kernel_events', 'steady_frame', 'total'):
    print(f'\n{metric}\n| stage | without fix | with fix | with / without |\n|---|---|---|---|')
    for s in stages:
        old = statistics.median(values[(s, 'old', metric)])
        new = statistics.median(values[(s, 'new', metric)])
        print(f'| {s} | {old:.1f} | {new:.1f} | {new / old:.3f} |')
