#!/usr/bin/env python3
"""Sums Nsight Compute's gpu__time_duration of each kernel of a build (ncu --csv --metrics
gpu__time_duration.sum) by kernel name: build_kernels.py LABEL NCU.csv [LABEL NCU.csv ...]."""
import csv
import re
import sys

SCALE = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}
args = sys.argv[1:]
for label, path in zip(args[0::2], args[1::2]):
    lines = [line for line in open(path, encoding='utf-8') if line.startswith('"')]
    total, count = {}, {}
    for row in csv.DictReader(lines):
        if row.get('Metric Name') != 'gpu__time_duration.sum':
            continue
        name = re.sub(r'[<(].*', '', row['Kernel Name']).split()[-1] if row['Kernel Name'] else '?'
        value = float(row['Metric Value'].replace(',', '')) * SCALE[row['Metric Unit']]
        total[name] = total.get(name, 0.0) + value
        count[name] = count.get(name, 0) + 1
    print('%s: %d launches, %.1f us in all' % (label, sum(count.values()), sum(total.values())))
    for name in sorted(total, key=lambda n: -total[n]):
        print('  %-50s %4d launches %10.1f us' % (name, count[name], total[name]))
