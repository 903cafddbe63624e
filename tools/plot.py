#!/usr/bin/env python3
"""Plots of a campaign folder (its runs: runs.csv.gz, or the live runs.csv of a campaign that has
not ended; tools/runner/runs_file.py). The main track (the main chain, then the side stages after a gap,
hatched and labelled):
  phases.png  top: the study's Figure 3, mean phase times stacked per stage (linear, ms);
              bottom: total and kernel per stage on a log axis (median, min-max whiskers), so
              stages whose totals differ 1000x stay readable.
  kernel.png  kernel time per stage (CPU timer and CUDA events; median, min-max whiskers, log).
The path-tracing track (pNN-name, pNNx-name; only when the campaign timed it):
  pathtrace.png  rays per second per stage (median, min-max whiskers, log), side stages hatched.
With --compare RESULTS, one figure for every GPU folder in RESULTS side by side (with
--with REFERENCE, the GPU folders of REFERENCE too, labelled "reference": a user's runs in
results/local/ beside the committed campaigns in results/reference/):
  RESULTS/gpus.png  total and kernel time of each main-chain stage (means, log axis), one line
              per GPU, and the study's own GTX 1080 Ti and T4 numbers (results/reported/*.csv,
              its stages 1-7) as dashed lines.
  RESULTS/gpus-pathtrace.png  rays per second of each path-tracing stage (medians, log axis),
              one line per GPU; only when some folder has path-tracing runs.
With --scaling FOLDER (a scaling campaign, tools/scaling.sh: RESULTS/GPU-SLUG/scaling; the
path-tracing track's, tools/scaling.sh --track pt: RESULTS/GPU-SLUG/pt-scaling):
  FOLDER/summary.csv, FOLDER/summary.md  a row per (stage, scene): spheres, runs, and the mean,
              median, std, min and max of kernel_events, build and total (tools/runner/summarize.py;
              written with or without matplotlib); a path-tracing campaign's also rays per
              second (summary.md: a table of its medians against the scenes, and a column)
  FOLDER/scaling.png  kernel time (CUDA events; the path tracer's render loop) against the
              scene's sphere count, log-log: a line with markers per stage at its medians,
              whiskers from min to max (side stages dashed; past ten stages the colours
              come back with another marker).
Needs matplotlib; without it prints that the plots were skipped.
Usage: python3 tools/plot.py RESULTS/GPU-SLUG
       python3 tools/plot.py --compare RESULTS [--with REFERENCE]
       python3 tools/plot.py --scaling RESULTS/GPU-SLUG/scaling
       python3 tools/plot.py --scaling RESULTS/GPU-SLUG/pt-scaling
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
import runs_file  # noqa: E402
import summarize as sm  # noqa: E402

SIDE_HATCH = "//"
GAP = 1.0  # empty x slots between the main chain and the side stages


def save(plt, fig, path, dpi):
    """Saves through a temporary file renamed into place (summarize.write_atomically): on failure
    one line and status 1, and no partial picture (an earlier one stays whole)."""
    try:
        sm.write_atomically(path, lambda temporary: fig.savefig(temporary, dpi=dpi, format="png"))
    finally:
        plt.close(fig)


def positions(summary):
    """(stages, x positions, index of the first side stage or None): main chain, a gap, sides."""
    main, side = sm.main_stages(summary), sm.side_stages(summary)
    xs = list(range(len(main)))
    start = len(main) + GAP if main else 0
    xs += [start + i for i in range(len(side))]
    return main + side, xs, (len(main) if side else None)


def stat(summary, stage, metric, key):
    entry = summary.get(stage, {}).get(metric)
    return entry[1][key] if entry else math.nan


def whiskers(summary, stages, metric, unit_scale=1.0):
    """Medians and [below, above] distances to min and max; NaN where a stage lacks the metric."""
    med = [stat(summary, s, metric, "median") / unit_scale for s in stages]
    lo = [m - stat(summary, s, metric, "min") / unit_scale for s, m in zip(stages, med)]
    hi = [stat(summary, s, metric, "max") / unit_scale - m for s, m in zip(stages, med)]
    return med, [lo, hi]


def mark_side_stages(ax, xs, first_side, log=False):
    """A dashed line in the gap and a label over the side stages."""
    if first_side is None:
        return
    if first_side > 0:
        ax.axvline(xs[first_side] - (GAP + 1) / 2, color="grey", linestyle="--", linewidth=1)
    ax.text((xs[first_side] + xs[-1]) / 2, 0.97, "side stages", transform=ax.get_xaxis_transform(),
            ha="center", va="top", fontsize="small", color="dimgrey")
    if first_side > 0:
        ax.text((xs[0] + xs[first_side - 1]) / 2, 0.97, "main chain", transform=ax.get_xaxis_transform(),
                ha="center", va="top", fontsize="small", color="dimgrey")


def errorbar_where_known(ax, xs, med, yerr, **kwargs):
    """errorbar over the stages that have the metric (a NaN point would break a log axis)."""
    keep = [i for i, m in enumerate(med) if math.isfinite(m) and m > 0]
    if not keep:
        return
    ax.errorbar([xs[i] for i in keep], [med[i] for i in keep],
                yerr=[[max(yerr[0][i], 0) for i in keep], [max(yerr[1][i], 0) for i in keep]], **kwargs)


def plot_phases(plt, summary, gpu, path):
    stages, xs, first_side = positions(summary)
    hatches = [SIDE_HATCH if sm.is_side_stage(s) else "" for s in stages]
    width = max(8.0, 0.75 * len(xs) + 3)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(width, 9), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    stacked = [0.0] * len(stages)
    for metric, label in sm.shown_phases(summary, stages)[:-1]:
        vals = [(sm.mean(summary, s, metric) or 0) / 1000 for s in stages]
        bars = top.bar(xs, vals, bottom=stacked, label=label, edgecolor="white", linewidth=0.5)
        for bar, hatch in zip(bars, hatches):
            bar.set_hatch(hatch)
        stacked = [b + v for b, v in zip(stacked, vals)]
    top.set_ylabel("mean time [ms]")
    top.set_title(f"Time per phase and stage, {gpu}")
    # Outside the axes: with a few tall stages anywhere, a legend inside would cover bars.
    top.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    mark_side_stages(top, xs, first_side)

    med, err = whiskers(summary, stages, "total", 1000)
    errorbar_where_known(bottom, xs, med, err, fmt="o", capsize=4, label="total")
    med, err = whiskers(summary, stages, "kernel", 1000)
    errorbar_where_known(bottom, xs, med, err, fmt="s", capsize=4, label="kernel")
    bottom.set_yscale("log")
    bottom.set_ylabel("median [ms], min–max (log)")
    bottom.grid(True, which="both", axis="y", alpha=0.3)
    bottom.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    mark_side_stages(bottom, xs, first_side, log=True)
    bottom.set_xticks(xs, stages, rotation=30, ha="right")
    n = max((summary[s]["total"][1]["n"] for s in stages if "total" in summary[s]), default=0)
    hatched = "side stages hatched; " if first_side is not None else ""
    bottom.set_xlabel(f"stage ({hatched}{n} runs per stage)")
    fig.tight_layout()
    save(plt, fig, path, dpi=120)


def plot_kernel(plt, summary, gpu, path):
    stages, xs, first_side = positions(summary)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.6 * len(xs) + 3), 5))
    med, err = whiskers(summary, stages, "kernel")
    errorbar_where_known(ax, xs, med, err, fmt="o", capsize=4, label="kernel phase (CPU timer)")
    med, err = whiskers(summary, stages, "kernel_events")
    errorbar_where_known(ax, [x + 0.2 for x in xs], med, err, fmt="s", capsize=4, label="CUDA events")
    ax.set_yscale("log")
    ax.grid(True, which="both", axis="y", alpha=0.3)
    mark_side_stages(ax, xs, first_side, log=True)
    ax.set_xticks(xs, stages, rotation=30, ha="right")
    ax.set_ylabel("kernel time [µs] (median, min–max, log)")
    ax.set_title(f"Kernel time per stage, {gpu}")
    ax.legend(fontsize="small", loc="lower left")
    fig.tight_layout()
    save(plt, fig, path, dpi=120)


def plot_pathtrace(plt, summary, gpu, path):
    """Rays per second of each path-tracing stage: median bars with min-max whiskers, log axis."""
    stages = sm.pt_stages(summary)
    xs = list(range(len(stages)))
    fig, ax = plt.subplots(figsize=(max(7.0, 0.7 * len(xs) + 3), 5))
    med, err = whiskers(summary, stages, "rays_per_second", 1e6)
    keep = [i for i, m in enumerate(med) if math.isfinite(m) and m > 0]
    bars = ax.bar([xs[i] for i in keep], [med[i] for i in keep], color="tab:orange",
                  edgecolor="black", linewidth=0.5)
    for bar, i in zip(bars, keep):
        bar.set_hatch(SIDE_HATCH if sm.is_pt_side_stage(stages[i]) else "")
        # A stage timed on a scene of its own (its manifest's campaign-args): another colour, and
        # its label says so.
        if sm.campaign_scene(stages[i]):
            bar.set_facecolor("tab:purple")
    errorbar_where_known(ax, xs, med, err, fmt="none", ecolor="black", capsize=4)
    ax.set_yscale("log")
    ax.grid(True, which="both", axis="y", alpha=0.3)
    labels = [s + (f"\n({os.path.basename(sm.campaign_scene(s)).replace('.scene', '')})"
                   if sm.campaign_scene(s) else "") for s in stages]
    ax.set_xticks(xs, labels, rotation=30, ha="right")
    ax.set_ylabel("million rays per second (median, min–max, log)")
    counts = [summary[s]["rays_per_second"][1]["n"] for s in stages if "rays_per_second" in summary[s]]
    n = f"{min(counts)}-{max(counts)}" if counts and min(counts) != max(counts) else str(max(counts, default=0))
    hatched = "side stages hatched; " if any(sm.is_pt_side_stage(s) for s in stages) else ""
    other = ("purple: timed on the scene its manifest's campaign-args name; "
             if any(sm.campaign_scene(s) for s in stages) else "")
    ax.set_xlabel(f"path-tracing stage ({hatched}{other}{n} runs per stage)")
    ax.set_title(f"Path-tracing track: rays per second, {gpu}")
    fig.tight_layout()
    save(plt, fig, path, dpi=120)


def reported_means():
    """{label: {metric: {study stage number: mean µs}}} of the study's tables (summarize.read_reported)."""
    out = {}
    for name, notes, header, rows in sm.read_reported():
        label = (notes[0].split(":")[0] if notes else name) + " (the study)"
        metrics = {}
        for row in rows:
            values = {}
            for column, value in zip(header[2:], row[2:]):
                try:
                    values[int(column.split()[0])] = float(value)
                except (ValueError, IndexError):
                    pass
            metrics[row[0]] = values
        out[label] = metrics
    return out


def plot_gpus(plt, results, reference=None):
    """RESULTS/gpus.png: each GPU folder's main chain (and REFERENCE's), and the study's GPUs,
    total and kernel."""
    folders = []
    for where, label in ((results, ""), (reference, " (reference)")):
        if not where or (label and os.path.abspath(where) == os.path.abspath(results)):
            continue
        for folder in runs_file.runs_folders(os.path.join(where, "*")):
            rows = sm.load_folder_runs(folder)
            summary = {s: m for s, m in sm.summarize(rows).items() if "total" in m}
            if summary:
                folders.append((sm.gpu_of(rows) + label, summary))
    if not folders:
        print("plot.py: no campaign in " + results + ", comparison skipped", file=sys.stderr)
        return 0
    plot_gpus_pathtrace(plt, results, folders)
    folders = [(gpu, summary) for gpu, summary in folders if sm.main_stages(summary)]
    if not folders:
        return 0
    stages = sorted({s for _, summary in folders for s in sm.main_stages(summary)}, key=sm.stage_key)
    xs = list(range(len(stages)))
    number = {sm.stage_number(s): x for s, x in zip(stages, xs)}
    fig, axes = plt.subplots(2, 1, figsize=(max(9.0, 0.55 * len(xs) + 3), 9), sharex=True)
    for ax, metric, title in ((axes[0], "total", "Total time per stage (mean, log)"),
                              (axes[1], "kernel", "Kernel phase per stage (mean, CPU timer, log)")):
        for gpu, summary in folders:
            ax.plot(xs, [stat(summary, s, metric, "mean") for s in stages], "o-", label=gpu)
        for label, metrics in reported_means().items():
            points = sorted((number[n], v) for n, v in metrics.get(metric, {}).items() if n in number)
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], "s--", label=label)
        ax.set_yscale("log")
        ax.grid(True, which="both", axis="y", alpha=0.3)
        ax.set_ylabel("µs")
        ax.set_title(title)
        ax.legend(fontsize="small")
    axes[1].set_xticks(xs, stages, rotation=30, ha="right")
    fig.tight_layout()
    save(plt, fig, os.path.join(results, "gpus.png"), dpi=110)
    return 0


def plot_gpus_pathtrace(plt, results, folders):
    """RESULTS/gpus-pathtrace.png: each GPU folder's path-tracing stages, rays/s medians."""
    folders = [(gpu, summary) for gpu, summary in folders if sm.pt_stages(summary)]
    if not folders:
        return
    stages = sm.pt_stages({s for _, summary in folders for s in sm.pt_stages(summary)})
    xs = list(range(len(stages)))
    fig, ax = plt.subplots(figsize=(max(7.0, 0.7 * len(xs) + 3), 5))
    for gpu, summary in folders:
        # The chain as a line, the side stages as points of the same colour beside it.
        points = [(x, stat(summary, s, "rays_per_second", "median") / 1e6, sm.is_pt_side_stage(s))
                  for x, s in zip(xs, stages)]
        points = [p for p in points if math.isfinite(p[1]) and p[1] > 0]
        chain = [p for p in points if not p[2]]
        side = [p for p in points if p[2]]
        line, = ax.plot([p[0] for p in chain], [p[1] for p in chain], "o-", label=gpu)
        if side:
            ax.plot([p[0] for p in side], [p[1] for p in side], "D", color=line.get_color())
    ax.set_yscale("log")
    ax.grid(True, which="both", axis="y", alpha=0.3)
    ax.set_xticks(xs, stages, rotation=30, ha="right")
    ax.set_ylabel("million rays per second (median, log)")
    ax.set_title("Path-tracing track: rays per second per stage")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save(plt, fig, os.path.join(results, "gpus-pathtrace.png"), dpi=110)


def plot_scaling(plt, summary, gpu, path, pt=False):
    """Median kernel time (CUDA events, ms) against the sphere count, log-log: a line with markers
    per stage, whiskers from min to max; the scenes named under their counts. PT: a path-tracing
    campaign (its kernel time is the render loop's; the title says so)."""
    scenes = sm.scaling_scenes(summary)
    stages = sorted({stage for stage, _ in summary}, key=sm.stage_key)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    # Ten colours, then the same colours with another marker, so that no two lines look alike;
    # side stages (a letter after the number) dashed.
    markers = "os^Dv"
    for index, stage in enumerate(stages):
        style = dict(color=f"C{index % 10}", marker=markers[index // 10 % len(markers)],
                     linestyle="--" if sm.manifest(stage).get("kind") == "side" else "-")
        points = []
        for scene, _ in scenes:
            entry = summary.get((stage, scene), {})
            if "kernel_events" in entry and entry["spheres"] > 0:
                st = entry["kernel_events"]
                points.append((entry["spheres"], st["median"] / 1000, st["min"] / 1000, st["max"] / 1000))
        points = [p for p in points if math.isfinite(p[1]) and p[1] > 0]
        if not points:
            continue
        ax.errorbar([p[0] for p in points], [p[1] for p in points],
                    yerr=[[max(p[1] - p[2], 0) for p in points], [max(p[3] - p[1], 0) for p in points]],
                    capsize=4, label=stage, **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    counts = [count for _, count in scenes if count > 0]
    if counts:
        ax.set_xticks(counts, [f"{count:,}\n{scene}" for scene, count in scenes if count > 0])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.set_xlim(min(counts) / 2, max(counts) * 2)
    # Plain numbers on the time axis (0.5, 2, 300); minor ticks labelled where it spans little.
    plain = plt.FuncFormatter(lambda v, _: f"{v:g}")
    low, high = ax.get_ylim()
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain if high / low < 20 else plt.NullFormatter())
    ax.grid(True, which="both", alpha=0.3)
    ax.set_xlabel("spheres in the scene (log)")
    ax.set_ylabel("kernel time, CUDA events [ms] (median, min–max, log)"
                  if not pt else "kernel time (render loop), CUDA events [ms] (median, min–max, log)")
    n = sorted({entry["n"] for entry in summary.values()})
    runs = f"{n[0]}" if len(n) == 1 else f"{n[0]}-{n[-1]}"
    ax.set_title(f"{'Path tracing: k' if pt else 'K'}ernel time against sphere count, {gpu} ({runs} runs each)")
    ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    save(plt, fig, path, dpi=120)


def scaling(folder):
    """--scaling FOLDER: the summaries, then scaling.png (skipped without matplotlib)."""
    if not runs_file.has_runs(folder):
        print(f"plot.py: error: {folder} holds no runs.csv.gz (or runs.csv) of a scaling campaign (tools/scaling.sh)",
              file=sys.stderr)
        return 2
    sm.write_scaling_summary(folder)
    rows = sm.load_folder_runs(folder)
    summary = sm.scaling_summarize(rows)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib not installed, plots skipped (pip install matplotlib)", file=sys.stderr)
        return 0
    if not any("kernel_events" in entry for entry in summary.values()):
        print("plot.py: no successful runs, plot skipped", file=sys.stderr)
        return 0
    plot_scaling(plt, summary, sm.gpu_of(rows), os.path.join(folder, "scaling.png"), sm.scaling_is_pt(rows))
    return 0


def main(argv):
    compare = len(argv) in (3, 5) and argv[1] == "--compare" and (len(argv) == 3 or argv[3] == "--with")
    if len(argv) == 3 and argv[1] == "--scaling":
        return scaling(argv[2])
    if not (compare or (len(argv) == 2 and not argv[1].startswith("-"))):
        print(__doc__.strip())
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: matplotlib not installed, plots skipped (pip install matplotlib)", file=sys.stderr)
        return 0
    if compare:
        return plot_gpus(plt, argv[2], argv[4] if len(argv) == 5 else None)
    folder = argv[1]
    rows = sm.load_folder_runs(folder)
    summary = sm.summarize(rows)
    summary = {s: m for s, m in summary.items() if "total" in m or "kernel" in m}
    if not summary:
        print("plot.py: no successful runs, plots skipped", file=sys.stderr)
        return 0
    gpu = sm.gpu_of(rows)
    # The main track's plots leave the path-tracing track out: it has a plot of its own.
    main = {s: m for s, m in summary.items() if not sm.is_pt_stage(s)}
    if main:
        plot_phases(plt, main, gpu, os.path.join(folder, "phases.png"))
        plot_kernel(plt, main, gpu, os.path.join(folder, "kernel.png"))
    if any("rays_per_second" in summary[s] for s in sm.pt_stages(summary)):
        plot_pathtrace(plt, summary, gpu, os.path.join(folder, "pathtrace.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
