#!/usr/bin/env python3
"""Plots of a campaign folder: phases.png (the study's Figure 3: stacked mean phase times per
stage, whiskers at the min and max of the total) and kernel.png (mean kernel time per stage,
log scale, min-max whiskers). Needs matplotlib; without it prints that the plots were skipped.
Usage: python3 tools/plot.py RESULTS/GPU-SLUG
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize as sm  # noqa: E402


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    folder = argv[1]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib not installed, plots skipped (pip install matplotlib)", file=sys.stderr)
        return 0
    rows = sm.load_runs(os.path.join(folder, "runs.csv"))
    summary = sm.summarize(rows)
    stages = [s for s in sorted(summary) if "total" in summary[s]]
    if not stages:
        print("plot.py: no successful runs, plots skipped", file=sys.stderr)
        return 0
    gpu = sm.gpu_of(rows)
    x = range(len(stages))
    fig, ax = plt.subplots(figsize=(10, 6))
    bottom = [0.0] * len(stages)
    for metric, label in sm.PHASES[:-1]:
        vals = [(sm.mean(summary, s, metric) or 0) / 1000 for s in stages]
        ax.bar(x, vals, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, vals)]
    tot = [summary[s]["total"][1] for s in stages]
    ax.errorbar(x, [t["mean"] / 1000 for t in tot],
                yerr=[[(t["mean"] - t["min"]) / 1000 for t in tot], [(t["max"] - t["mean"]) / 1000 for t in tot]],
                fmt="none", ecolor="black", capsize=4, label="total: min–max")
    ax.set_xticks(list(x), stages, rotation=20)
    ax.set_ylabel("time [ms]")
    ax.set_title(f"Mean time per phase, {gpu} ({tot[0]['n']} runs)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "phases.png"), dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 5))
    ker = [summary[s]["kernel"][1] for s in stages]
    ax.errorbar(x, [k["mean"] for k in ker],
                yerr=[[k["mean"] - k["min"] for k in ker], [k["max"] - k["mean"] for k in ker]],
                fmt="o", capsize=4)
    ax.set_yscale("log")
    ax.set_xticks(list(x), stages, rotation=20)
    ax.set_ylabel("kernel time [µs] (mean, min–max)")
    ax.set_title(f"Kernel time per stage, {gpu}")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "kernel.png"), dpi=120)
    plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
