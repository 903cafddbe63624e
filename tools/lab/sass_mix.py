#!/usr/bin/env python3
"""Prints the instruction mix of one kernel from Nsight Compute's source counters.

usage: tools/lab/sass_mix.py FILE.csv.gz [FILE.csv.gz ...]

Each FILE is the CSV that `ncu -i REPORT --page source --csv --print-source sass` writes (gzipped):
one row an SASS instruction with its "Instructions Executed" (warp instructions) and "Thread
Instructions Executed". For each file: the warp instructions in all, the lanes busy on average
(thread instructions / warp instructions), and the warp instructions of each opcode (the name
before its first dot, a predicate guard dropped) that has at least 0.5% of them, most first.
"""
import collections
import csv
import gzip
import sys


def mix(path):
    with gzip.open(path, "rt") as f:
        rows = list(csv.reader(f))
    header = next(r for r in rows if "Instructions Executed" in r)
    data = rows[rows.index(header) + 1:]
    warp_col = header.index("Instructions Executed")
    thread_col = header.index("Thread Instructions Executed")
    source_col = header.index("Source")
    warp = thread = 0
    by_opcode = collections.Counter()
    for row in data:
        if len(row) <= thread_col or not row[warp_col].isdigit():
            continue
        words = row[source_col].split()
        if not words:
            continue
        opcode = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        count = int(row[warp_col])
        by_opcode[opcode.split(".")[0]] += count
        warp += count
        thread += int(row[thread_col])
    return warp, thread, by_opcode


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    for path in argv[1:]:
        warp, thread, by_opcode = mix(path)
        if warp == 0:
            print(f"sass_mix: {path}: no instruction counts", file=sys.stderr)
            return 1
        print(f"{path}: {warp / 1e6:.1f} M warp instructions, {thread / warp:.1f} of 32 lanes busy")
        for opcode, count in by_opcode.most_common():
            if count < 0.005 * warp:
                break
            print(f"  {opcode:8s} {count / 1e6:8.1f} M  {100 * count / warp:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
