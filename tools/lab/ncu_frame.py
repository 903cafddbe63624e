#!/usr/bin/env python3
"""One frame's kernel launches from Nsight Compute's metric CSV (`ncu --metrics M1,M2,...
--csv PROGRAM > FILE`: a row a launch and metric, after the program's own output), for the
development folders' summary scripts (results/reference/*/development/*/summary.py).

    launches = read_launches(path)      # [{metric: value}], a dict a launch
    total(launches, "smsp__inst_executed.sum")                      # summed over the launches
    time_weighted(launches, "l1tex__t_sector_hit_rate.pct")          # a rate, weighted by time

A launch missing a metric counts 0 in total(); time_weighted() needs the metric in every launch
and gpu__time_duration.sum. Values must be in base units (ncu's default with --csv): a scaled
one (Kinst, Mbyte, usecond) is refused, not summed wrong."""
import csv

BASE_UNITS = {"", "%", "block", "byte", "cycle", "hz", "inst", "ns", "sector", "thread", "warp",
              "register/thread"}


def read_launches(path):
    """The file's launches in order, each the dict of its metrics' values (commas dropped)."""
    lines = [line for line in open(path) if line.startswith('"')]
    per_launch = {}
    for row in csv.DictReader(lines):
        if row["Metric Unit"] not in BASE_UNITS:
            raise ValueError(f"{path}: {row['Metric Name']} in {row['Metric Unit']!r}, not a base unit")
        value = float(row["Metric Value"].replace(",", ""))
        per_launch.setdefault(row["ID"], {})[row["Metric Name"]] = value
    return list(per_launch.values())


def total(launches, metric):
    """The metric summed over the launches."""
    return sum(launch.get(metric, 0.0) for launch in launches)


def time_weighted(launches, metric):
    """The metric averaged over the launches, each weighted by its duration."""
    time = total(launches, "gpu__time_duration.sum")
    return sum(l[metric] * l["gpu__time_duration.sum"] for l in launches) / time


if __name__ == "__main__":  # a module the other tools import: run, it says what it offers
    print(__doc__)
