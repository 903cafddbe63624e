#!/usr/bin/env python3
"""Summarises dev.csv.gz (s3.sh: 10 rounds of p09, p10 and p11 on pt-benchmark.scene and 5 on
pt-production.scene, the stages' order rotating each round) as the median of each phase and part
per stage and scene, in microseconds (rays per second in G), with the number of runs.
Usage: python3 dev_summary.py [dev.csv.gz] > dev-summary.txt"""
import collections
import csv
import gzip
import io
import os
import statistics
import sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', '..', 'results', 'reference', 'nvidia-h100-80gb-hbm3', 'development', 'whole-frame', 'dev.csv.gz')
values = collections.defaultdict(list)
with gzip.open(path, 'rt') as f:
    for row in csv.DictReader(io.StringIO(f.read())):
        values[(row['scene'], row['stage'], row['metric'])].append(float(row['value']))
stages = ['p09-path-regeneration', 'p10-rgb8-frame', 'p11-registered-host-pages']
metrics = ['host_allocation', 'host_map', 'host_touch', 'host_register', 'device_allocation',
           'host_to_device', 'kernel', 'kernel_events', 'device_to_host', 'device_free',
           'host_free', 'host_unregister', 'host_unmap', 'total', 'bytes_device_to_host',
           'rays_per_second']
print('p09-p11 development runs on the H100 (gpu.txt), medians; n = runs of each stage')
for scene in ('pt-benchmark', 'pt-production'):
    n = len(values[(scene, stages[0], 'total')])
    print(f'\n{scene}.scene, n = {n}\n| metric | ' + ' | '.join(stages) + ' |\n|---|---|---|---|')
    for m in metrics:
        cells = []
        for s in stages:
            v = values.get((scene, s, m))
            if not v:
                cells.append('-')
            elif m == 'rays_per_second':
                cells.append(f'{statistics.median(v) / 1e9:.2f} G')
            else:
                cells.append(f'{statistics.median(v):.0f}')
        print(f'| {m} | ' + ' | '.join(cells) + ' |')
