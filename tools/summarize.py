#!/usr/bin/env python3
"""Statistics of a timing campaign: results/<gpu-slug>/runs.csv -> summary.csv and summary.md.

Importable (python3 standard library only):  stats(values), load_runs(path), summarize(rows),
summary_csv(summary), summary_md(summary, rows), write_summary(folder, check=False).
Usage: python3 tools/summarize.py RESULTS/GPU-SLUG [--check]
"""
import csv
import math
import os
import statistics
import sys

# The study's Table 1 rows: (metric, label).
PHASES = [
    ("host_allocation", "Host mem. alloc."),
    ("device_allocation", "Device mem. alloc."),
    ("host_to_device", "HtoD mem. transfer"),
    ("kernel", "CUDA kernel"),
    ("device_to_host", "DtoH mem. transfer"),
    ("device_free", "Device mem. free"),
    ("host_free", "Host mem. free"),
    ("total", "Total time"),
]
STAT_KEYS = ("n", "mean", "median", "std", "min", "max")


def stats(values):
    """n, mean, median, sample standard deviation (0 for one value), min and max."""
    values = [float(v) for v in values]
    if not values:
        raise ValueError("no values")
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "std": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
    }


def load_runs(path):
    """Rows of runs.csv as dicts (every status)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def summarize(rows):
    """{stage: {metric: (unit, stats)}} over the runs with status ok."""
    values = {}
    for row in rows:
        if row.get("status") != "ok":
            continue
        key = (row["stage"], row["metric"])
        values.setdefault(key, (row["unit"], []))[1].append(float(row["value"]))
    result = {}
    for (stage, metric), (unit, vals) in sorted(values.items()):
        result.setdefault(stage, {})[metric] = (unit, stats(vals))
    return result


def num(x, decimals=3):
    """A stable text form: integers without decimals, others rounded."""
    if math.isfinite(x) and float(x).is_integer():
        return str(int(x))
    return f"{x:.{decimals}f}"


def summary_csv(summary):
    lines = ["stage,metric,unit," + ",".join(STAT_KEYS)]
    for stage in sorted(summary):
        for metric, (unit, s) in summary[stage].items():
            lines.append(",".join([stage, metric, unit] + [num(s[k]) for k in STAT_KEYS]))
    return "\n".join(lines) + "\n"


def mean(summary, stage, metric):
    entry = summary.get(stage, {}).get(metric)
    return entry[1]["mean"] if entry else None


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "–"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def phases_table(summary):
    """The study's Table 1 layout: phases as rows, stages as columns, mean µs."""
    stages = sorted(summary)
    rows = []
    for metric, label in PHASES:
        cells = [mean(summary, s, metric) for s in stages]
        rows.append([f"{label} [µs]"] + ["–" if c is None else f"{c:.0f}" for c in cells])
    return table(["phase (mean)"] + stages, rows)


def speedup_table(summary):
    stages = sorted(summary)
    rows = []
    for i, s in enumerate(stages):
        prev = stages[i - 1] if i else s
        t, k = mean(summary, s, "total"), mean(summary, s, "kernel")
        rows.append([s, num(round(t or 0)), ratio(mean(summary, stages[0], "total"), t),
                     ratio(mean(summary, prev, "total"), t), num(round(k or 0)),
                     ratio(mean(summary, stages[0], "kernel"), k), ratio(mean(summary, prev, "kernel"), k)])
    return table(["stage", "total [µs]", "vs 01", "vs previous", "kernel [µs]", "vs 01", "vs previous"], rows)


def resources_table(summary):
    rows = []
    for s in sorted(summary):
        def cell(metric, fmt="{:.0f}"):
            m = mean(summary, s, metric)
            return "–" if m is None else fmt.format(m)
        rows.append([s, cell("registers"), cell("stack_frame"), cell("theoretical_occupancy", "{:.0f}%"),
                     cell("rays_per_second", "{:.3g}"), cell("kernel_events", "{:.1f}")])
    return table(["stage", "registers/thread", "stack frame [B]", "theoretical occupancy",
                  "rays/s (kernel)", "kernel, CUDA events [µs]"], rows)


def stats_table(summary):
    rows = []
    for s in sorted(summary):
        for metric, (unit, st) in summary[s].items():
            rows.append([s, metric, unit] + [num(st[k], 1) for k in STAT_KEYS[1:]] + [str(st["n"])])
    return table(["stage", "metric", "unit", "mean", "median", "std", "min", "max", "n"], rows)


def gpu_of(rows):
    for row in rows:
        if row.get("status") == "ok":
            return row["gpu"]
    return rows[0]["gpu"] if rows else "unknown GPU"


def summary_md(summary, rows):
    failed = [r for r in rows if r.get("status") == "failed"]
    hosts = sorted({r["host"] for r in rows})
    parts = [
        f"# {gpu_of(rows)}",
        "",
        "Generated by `tools/summarize.py` from `runs.csv`; do not edit. "
        f"Host(s): {', '.join(hosts) or '–'}. Runs ok: "
        f"{sum(1 for r in rows if r.get('status') == 'ok' and r['metric'] == 'total')}, failed: {len(failed)}.",
        "",
        "## Phases (the study's Table 1 layout, mean of the runs, µs)",
        "",
        phases_table(summary),
        "",
        "## Speed-up (mean times; `vs 01`: stage 01 time / this stage's)",
        "",
        speedup_table(summary),
        "",
        "## Kernel resources and throughput",
        "",
        resources_table(summary),
        "",
        "## Every metric (std: sample standard deviation)",
        "",
        stats_table(summary),
        "",
    ]
    if failed:
        parts += ["## Failed runs", ""] + [f"- {r['stage']} run {r['run']}: {r['value']}" for r in failed] + [""]
    return "\n".join(parts)


def write_summary(folder, check=False):
    """Writes (or with check=True only compares) summary.csv and summary.md; returns stale files."""
    rows = load_runs(os.path.join(folder, "runs.csv"))
    summary = summarize(rows)
    stale = []
    for name, text in (("summary.csv", summary_csv(summary)), ("summary.md", summary_md(summary, rows))):
        path = os.path.join(folder, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    return stale


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    stale = write_summary(argv[1], check="--check" in argv)
    if "--check" in argv and stale:
        print("stale: " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
