#!/usr/bin/env python3
"""Statistics of a timing campaign: results/<gpu-slug>/runs.csv.gz -> summary.csv and summary.md.

A campaign folder's runs are runs.csv.gz once its campaign has ended (the committed form), runs.csv
while it runs or after it was cut off; tools/runner/runs_file.py finds them (runs.csv first).

Importable (python3 standard library only):  stats(values), load_runs(path) (a runs.csv or
runs.csv.gz), load_folder_runs(folder) (each file parsed once per process, its rows shared: see
"Reading the runs once per process"), summarize(rows),
image_summarize(rows) and image_table(summary, images) (the runs that wrote their image: a
manifest's campaign-image), summary_csv(summary, images), summary_md(summary, rows), write_summary(folder, check=False), and the
stage model: manifests, manifest, stage_key, is_side_stage, main_stages, side_stages,
is_pt_stage, pt_stages, pt_main_stages, ordered_stages, builds_on, parent_of, baseline_of,
campaign_scene, comparable_baseline, extra_us_metrics; which campaign each stage's runs come
from: campaign_list, campaigns, same_campaign, gpu_dates, campaign_legend (a folder's runs hold
several campaigns, told apart by their GPUs and their order; every ratio these tables give is
between stages of one campaign, "–†" elsewhere). The scaling campaign's
(RESULTS/GPU-SLUG/scaling/runs.csv.gz, tools/scaling.sh: a row per (stage, scene); the path-tracing
track's in RESULTS/GPU-SLUG/pt-scaling/runs.csv.gz, tools/scaling.sh --track pt, adds rays per
second): scaling_summarize(rows), scaling_is_pt, scaling_pairs, scaling_scenes, scaling_matrix,
scaling_summary_csv, scaling_summary_md, write_scaling_summary(folder, check=False).
Usage: python3 tools/runner/summarize.py RESULTS/GPU-SLUG [--check]
       python3 tools/runner/summarize.py RESULTS/GPU-SLUG/scaling [--check]
       python3 tools/runner/summarize.py RESULTS/GPU-SLUG/pt-scaling [--check]

Stages: what each is (its track, chain or side stage, the stage it builds on, its campaign's
scene) comes from its manifest, through tools/stages, the one reader of stages/*/manifest. The
path-tracing track has tables of its own (time, rays and samples per second), after the main
track's.
"""
import csv
import functools
import glob
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runs_file  # noqa: E402

# The study's Table 1 rows: (metric, label).
PHASES = [
    ("host_allocation", "Host mem. alloc."),
    ("device_allocation", "Device mem. alloc."),
    ("host_to_device", "HtoD mem. transfer"),
    ("build", "Acceleration build"),  # stages 22 on: a table shows it only where a stage has it
    ("kernel", "CUDA kernel"),
    ("device_to_host", "DtoH mem. transfer"),
    ("device_free", "Device mem. free"),
    ("host_free", "Host mem. free"),
    ("total", "Total time"),
]
STAT_KEYS = ("n", "mean", "median", "std", "min", "max")
# Column titles for the tables with stages as rows (short, so nine columns stay readable).
PHASE_COLUMNS = {
    "host_allocation": "host alloc.",
    "device_allocation": "device alloc.",
    "host_to_device": "HtoD",
    "build": "build",
    "kernel": "kernel",
    "device_to_host": "DtoH",
    "device_free": "device free",
    "host_free": "host free",
    "total": "total",
}
# Metrics in µs that every stage reports besides the phases; any other µs metric is an extra
# (a part of a phase such as host_touch, or a stage's own such as steady_frame).
# process_wall: the whole process as run.sh's tools/runner/run-one.sh times it (CUDA start-up and the
# image's write included).
CORE_US_METRICS = ("kernel_events", "context_creation", "image_write", "process_wall")
# Where the stage folders are: $STAGES_DIR (run.sh exports it), else the repository's stages/;
# update_readmes.py --root points it at that root's.
STAGES_DIR = os.environ.get("STAGES_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "stages")
# The one reader of the stage manifests (stages/*/manifest).
READER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stages")

_manifests = {}


def manifests(stages_dir=None):
    """{stage: {field: value, "order": n}} for every stage folder, as `tools/stages table` reads
    the manifests (its fields, and the derived track, kind and id); {} where there is no such
    folder. A manifest it refuses ends the program with its message."""
    stages_dir = os.path.abspath(stages_dir or STAGES_DIR)
    if stages_dir not in _manifests:
        table = {}
        if os.path.isdir(stages_dir):
            done = subprocess.run([READER, "table"], env=dict(os.environ, STAGES_DIR=stages_dir),
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.exit(f"{os.path.basename(sys.argv[0])}: error: {done.stderr.strip()}")
            lines = done.stdout.splitlines()
            header = lines[0].split("\t") if lines else []
            for order, line in enumerate(lines[1:]):
                row = dict(zip(header, line.split("\t")))
                row["order"] = order
                table[row["stage"]] = row
        _manifests[stages_dir] = table
    return _manifests[stages_dir]


def manifest(stage, stages_dir=None):
    """A stage's manifest fields ({} for a stage without a folder, e.g. one measured long ago)."""
    return manifests(stages_dir).get(stage, {})


def stage_key(stage, stages_dir=None):
    """The course's order (tools/stages list: the main track, 07 then 07a then 08, then the
    path-tracing track); stages without a manifest last, by name."""
    m = manifest(stage, stages_dir)
    return (0, m["order"], stage) if m else (1, 0, stage)


def stage_number(stage, stages_dir=None):
    """NN of a main-track stage of the chain (None otherwise: the study's numbers are the main
    chain's)."""
    m = manifest(stage, stages_dir)
    return int(m["id"]) if m and m["track"] == "main" and m["kind"] == "chain" else None


def is_side_stage(stage, stages_dir=None):
    """A side stage of the main track (NNx-name)."""
    m = manifest(stage, stages_dir)
    return bool(m) and m["track"] == "main" and m["kind"] == "side"


def is_pt_stage(stage, stages_dir=None):
    """A stage of the path-tracing track (pNN-name or pNNx-name)."""
    return manifest(stage, stages_dir).get("track") == "pt"


def is_pt_side_stage(stage, stages_dir=None):
    m = manifest(stage, stages_dir)
    return bool(m) and m["track"] == "pt" and m["kind"] == "side"


def main_stages(stages, stages_dir=None):
    """The main track's chain among STAGES (stages without a manifest count as the chain's, at
    its end)."""
    return sorted((s for s in stages if not is_side_stage(s, stages_dir) and not is_pt_stage(s, stages_dir)),
                  key=lambda s: stage_key(s, stages_dir))


def side_stages(stages, stages_dir=None):
    """The main track's side stages (NNx-name)."""
    return sorted((s for s in stages if is_side_stage(s, stages_dir)), key=lambda s: stage_key(s, stages_dir))


def pt_stages(stages, stages_dir=None):
    """Every path-tracing stage, chain and side stages, in course order (p05, p05a, p06)."""
    return sorted((s for s in stages if is_pt_stage(s, stages_dir)), key=lambda s: stage_key(s, stages_dir))


def pt_main_stages(stages, stages_dir=None):
    """The path-tracing track's chain (pNN-name)."""
    return [s for s in pt_stages(stages, stages_dir) if not is_pt_side_stage(s, stages_dir)]


def ordered_stages(stages, stages_dir=None):
    """The main chain first, then the side stages, then the path-tracing track: the order of
    every table and plot."""
    return main_stages(stages, stages_dir) + side_stages(stages, stages_dir) + pt_stages(stages, stages_dir)


def builds_on(stage, stages_dir=None):
    """The stage its manifest builds on, or None (the first of a track, or no manifest)."""
    parent = manifest(stage, stages_dir).get("builds-on")
    return parent if parent and parent != "none" else None


def baseline_of(stage, stages, stages_dir=None):
    """What a stage is compared with: the stage it builds on, or, where that one is not among
    STAGES (not measured), the nearest measured stage up its line of ancestors."""
    parent = builds_on(stage, stages_dir)
    seen = set()
    while parent and parent not in stages and parent not in seen:
        seen.add(parent)
        parent = builds_on(parent, stages_dir)
    return parent if parent in stages else None


def parent_of(stage, stages, stages_dir=None):
    """A side stage's parent (baseline_of); None for a stage of a chain."""
    m = manifest(stage, stages_dir)
    if not m or m["kind"] != "side":
        return None
    return baseline_of(stage, stages, stages_dir) or builds_on(stage, stages_dir)


def campaign_scene(stage, stages_dir=None):
    """The scene a campaign times STAGE on when its manifest's campaign-args name one (--scene
    FILE, the last one given), else None: the track's scene."""
    words = manifest(stage, stages_dir).get("campaign-args", "").split()
    scenes = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--scene"]
    return scenes[-1] if scenes else None


def comparable_baseline(stage, stages, stages_dir=None):
    """baseline_of(STAGE) when both are timed on the same scene, else None: a stage timed on a
    scene of its own (the many-lights stages) has no time to be compared with its parent's."""
    base = baseline_of(stage, stages, stages_dir)
    if base and campaign_scene(stage, stages_dir) != campaign_scene(base, stages_dir):
        return None
    return base


def extra_us_metrics(summary, stage, rows=()):
    """A stage's extra metrics in µs (phase parts, steady_frame), in the order the stage prints
    them when ROWS (runs.csv) are given, else by name."""
    phase_names = {m for m, _ in PHASES}
    extras = [m for m, (unit, _) in summary.get(stage, {}).items()
              if unit == "us" and m not in phase_names and m not in CORE_US_METRICS]
    first_seen = first_row_of_metrics(rows).get(stage, {})
    return sorted(extras, key=lambda m: (first_seen.get(m, len(first_seen)), m))


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


# ---- Reading the runs once per process ------------------------------------------------------
# update_readmes.py asks for the same campaign folder's rows, and for the same figures drawn from
# them, once per README block and per GPU; a runs.csv.gz holds some 200,000 rows, which take
# seconds to parse and to walk. So each runs file is parsed once per process and its rows list is
# shared from then on (no caller changes it), and what is computed from such a list (its
# summaries, its campaigns, the order of its metrics) is computed once too: the functions marked
# @once_per_loaded_runs.

# {absolute path: (the file's inode, size and modification time when read, its rows)}
_runs_by_path = {}
# {id(rows): (rows, {function: its result})} for every list in _runs_by_path: holding the list
# keeps its id from being reused by another.
_results_by_rows = {}


def load_runs(path):
    """Rows of a runs.csv, or of a runs.csv.gz, as dicts (every status). Parsed once per process
    (read again only where the file has changed since): the list is shared, not to be changed."""
    key = os.path.abspath(path)
    stat = os.stat(path)
    signature = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    held = _runs_by_path.get(key)
    if held and held[0] == signature:
        return held[1]
    if held:  # the file changed: the old list's results are no longer the file's
        _results_by_rows.pop(id(held[1]), None)
    with runs_file.open_runs_path(path) as f:
        rows = list(csv.DictReader(f))
    _runs_by_path[key] = (signature, rows)
    _results_by_rows[id(rows)] = (rows, {})
    return rows


def load_folder_runs(folder):
    """Rows of FOLDER's runs (runs.csv while its campaign runs, else runs.csv.gz) as dicts
    (load_runs: parsed once per process, shared)."""
    return load_runs(runs_file.existing_runs_path(folder))


def once_per_loaded_runs(compute):
    """COMPUTE(rows), a function of a runs list alone, computed once per list that load_runs
    returned (the shared result is not to be changed); for any other list (a caller's own rows,
    which it may change) computed afresh on each call."""
    @functools.wraps(compute)
    def once(rows):
        held = _results_by_rows.get(id(rows))
        if held is None or held[0] is not rows:
            return compute(rows)
        results = held[1]
        if compute not in results:
            results[compute] = compute(rows)
        return results[compute]
    return once


@once_per_loaded_runs
def first_row_of_metrics(rows):
    """{stage: {metric: the index in ROWS of its first row}}: the order each stage prints its
    metrics in (one pass over ROWS for every stage, where extra_us_metrics asks stage by stage)."""
    first_seen = {}
    for i, row in enumerate(rows):
        first_seen.setdefault(row.get("stage"), {}).setdefault(row.get("metric"), i)
    return first_seen


def statistics_by(rows, keep, key):
    """{key(row): {metric: (unit, stats)}} over the rows with status ok that keep(row) keeps."""
    values = {}
    for row in rows:
        if row.get("status") != "ok" or not keep(row):
            continue
        values.setdefault((key(row), row["metric"]), (row["unit"], []))[1].append(float(row["value"]))
    result = {}
    for (name, metric), (unit, vals) in sorted(values.items()):
        result.setdefault(name, {})[metric] = (unit, stats(vals))
    return result


@once_per_loaded_runs
def summarize(rows):
    """{stage: {metric: (unit, stats)}} over the runs with status ok that wrote no image (the
    stage as its campaign-args time it; image_summarize() has the others)."""
    return statistics_by(rows, lambda row: not row.get("image"), lambda row: row["stage"])


# ---- Which campaign each stage's figures come from ------------------------------------------
# A campaign folder's runs file can hold several campaigns: the stages were timed as the course
# grew, each time on GPUs the machine lent that day (run.sh --resume appends). The rows say which
# physical GPU ran each run (gpu_uuid, with host) and when (order: the run's place in the
# folder's sequence, which --resume continues). A campaign here is a set of stages whose runs
# were interleaved (their order spans overlap) on one set of physical GPUs: a ratio between two
# stages is a measurement only inside one, since the host phases (and at times the kernel) move
# from machine to machine by more than many lessons gain.


@once_per_loaded_runs
def campaign_list(rows):
    """[{"label", "gpus", "first", "last", "stages"}] of ROWS' campaigns in the order they began:
    each stage's runs with status ok, grouped by their set of (host, gpu_uuid), and within one
    set into groups whose order spans overlap; labelled A, B, ... (AA after Z)."""
    by_gpus = {}
    several = several_gpu_stages(rows)
    spans = stage_spans(rows)
    for stage, (gpus, first, last) in spans.items():
        if stage not in several:
            by_gpus.setdefault(frozenset(gpus), []).append((first, last, stage))
    found = []
    for gpus, stages in by_gpus.items():
        current = None
        for first, last, stage in sorted(stages):
            if current and first <= current["last"]:
                current["last"] = max(current["last"], last)
                current["stages"].append(stage)
            else:
                current = {"gpus": gpus, "first": first, "last": last, "stages": [stage]}
                found.append(current)
    # A run on several GPUs names the first of them (its gpu_uuid): a stage whose runs took
    # several GPUs joins the campaign of one-GPU runs it was interleaved with on a set of GPUs
    # that holds its own (run.sh hands it the campaign's GPUs); without one, it is a campaign of
    # its own, as above.
    alone = {}
    for stage in sorted(several, key=lambda stage: spans[stage][1]):
        gpus, first, last = spans[stage]
        home = next((c for c in sorted(found, key=lambda c: c["first"])
                     if not c.get("several") and set(gpus) <= c["gpus"]
                     and c["first"] <= last and first <= c["last"]), None)
        if home is None:
            home = alone.get(frozenset(gpus))
            if home is None or first > home["last"]:
                home = {"gpus": frozenset(gpus), "first": first, "last": last, "stages": [],
                        "several": True}
                alone[frozenset(gpus)] = home
                found.append(home)
        home["stages"].append(stage)
        home["first"], home["last"] = min(home["first"], first), max(home["last"], last)
    for campaign in found:
        campaign.pop("several", None)
        campaign["stages"].sort(key=lambda stage: spans[stage][1])
    found.sort(key=lambda c: c["first"])
    for i, campaign in enumerate(found):
        letters, n = "", i + 1
        while n:
            n, rest = divmod(n - 1, 26)
            letters = chr(ord("A") + rest) + letters
        campaign["label"] = letters
    return found


def several_gpu_stages(rows):
    """The stages of ROWS with a run (status ok) given several GPUs (its gpus column above 1)."""
    return {row["stage"] for row in rows if row.get("status") == "ok"
            and str(row.get("gpus", "")).isdigit() and int(row["gpus"]) > 1}


def stage_spans(rows):
    """{stage: [its set of (host, gpu_uuid), its first order, its last order]} over ROWS' runs with
    status ok, stages in the order of their first such row; a row's order is its order column, or
    where that is no number its index in ROWS."""
    spans = {}
    for index, row in enumerate(rows):
        if row.get("status") != "ok":
            continue
        order = int(row["order"]) if str(row.get("order", "")).isdigit() else index
        span = spans.get(row["stage"])
        if span is None:
            # Changed in place below, not rebuilt as a new tuple for each of the many rows.
            span = spans[row["stage"]] = [set(), order, order]
        span[0].add((row.get("host", ""), row.get("gpu_uuid", "")))
        if order < span[1]:
            span[1] = order
        if order > span[2]:
            span[2] = order
    return spans


def campaigns(rows):
    """{stage: its campaign's label} (campaign_list)."""
    return {stage: c["label"] for c in campaign_list(rows) for stage in c["stages"]}


def same_campaign(labels, a, b):
    """Whether stages A and B were timed in one campaign (LABELS: campaigns()); LABELS None: a
    caller that knows no campaigns (every stage taken as one campaign's)."""
    if labels is None:
        return True
    return a in labels and labels.get(a) == labels.get(b)


def gpu_dates(folder):
    """{gpu_uuid: sorted dates (YYYY-MM-DD)} from FOLDER/env.txt, which run.sh writes a section
    to per session (its date, then its GPU); {} without one."""
    dates, date = {}, None
    try:
        with open(os.path.join(folder, "env.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("date (UTC):"):
                    date = line.split(":", 1)[1].strip()[:10]
                elif line.startswith("gpu:") and date:
                    uuid = line.rsplit(",", 1)[-1].strip()
                    dates.setdefault(uuid, set()).add(date)
    except OSError:
        return {}
    return {uuid: sorted(days) for uuid, days in dates.items()}


def campaign_days(campaign, dates=None):
    """When a campaign ran: '2026-11-26', or '2026-11-23 to 2026-11-27' (DATES: gpu_dates() of its
    folder: the days of the sessions on its GPUs); '' without them."""
    days = sorted({d for _, uuid in campaign["gpus"] for d in (dates or {}).get(uuid, [])})
    return f"{days[0]}" if len(days) == 1 else f"{days[0]} to {days[-1]}" if days else ""


def campaign_description(campaign, dates=None):
    """'2026-11-26, 1 GPU (…bb263159c018)': when a campaign ran (campaign_days; left out without
    DATES) and on which physical GPUs (the last 12 digits of each gpu_uuid)."""
    when = campaign_days(campaign, dates)
    uuids = sorted(uuid[-12:] for _, uuid in campaign["gpus"] if uuid)
    gpus = (f"{len(uuids)} GPU{'s' if len(uuids) != 1 else ''} ({', '.join('…' + u for u in uuids)})"
            if uuids else "GPU unknown")
    return f"{when}, {gpus}" if when else gpus


def campaign_legend(rows, folder=None, used=None):
    """A line per campaign of ROWS (those labelled in USED only, when given): '- **A**: 2026-11-23,
    2 GPUs (...); 20 stages, 01-base to 12b-packet-culling', for the tables that name campaigns
    by letter; FOLDER: the runs' folder, whose env.txt dates them."""
    dates = gpu_dates(folder) if folder else {}
    return [f"- **{campaign['label']}**: {campaign_description(campaign, dates)}; {campaign_stages(campaign)}"
            for campaign in campaign_list(rows) if used is None or campaign["label"] in used]


def campaign_stages(campaign):
    """The stages of a campaign in a few words: 'p08-megakernel', 'X and Y', '20 stages, X to Y'."""
    stages = sorted(campaign["stages"], key=stage_key)
    return (stages[0] if len(stages) == 1 else " and ".join(stages) if len(stages) == 2
            else f"{len(stages)} stages, {stages[0]} to {stages[-1]}")


NOT_COMPARED = ("–†: the stage and the one it is compared with were timed in different campaigns (or "
                "on different GPUs), so no ratio is given; compare their own figures with that in mind.")


def campaigns_section(rows, folder=None, level="##", ratios=True):
    """The campaigns a summary's ratios are held to (campaign_list): what one is, a line each
    (its dates from FOLDER/env.txt), and what –† means (RATIOS: the summary has ratios)."""
    title = "Campaigns (the ratios below compare stages of one campaign only)" if ratios else "Campaigns"
    return ([f"{level} {title}", "",
             "A campaign here: stages whose runs were interleaved on one set of physical GPUs "
             "(`gpu_uuid`; each session's date in `env.txt`):", ""] + campaign_legend(rows, folder)
            + (["", NOT_COMPARED, ""] if ratios else [""]))


@once_per_loaded_runs
def image_summarize(rows):
    """{(stage, image format): {metric: (unit, stats)}} over the runs with status ok that wrote
    their image (runs.csv's image column: a manifest's campaign-image)."""
    return statistics_by(rows, lambda row: row.get("image"), lambda row: (row["stage"], row["image"]))


def image_label(stage, image):
    """How a stage timed writing its image is named in the tables."""
    return f"{stage} --output frame.{image}"


def num(x, decimals=3):
    """A stable text form: integers without decimals, others rounded."""
    if math.isfinite(x) and float(x).is_integer():
        return str(int(x))
    return f"{x:.{decimals}f}"


def summary_csv(summary, images=None):
    """summary.csv: a line per (stage, metric); then those of the runs that wrote their image
    (IMAGES, image_summarize()), the stage named as image_label() names it."""
    lines = ["stage,metric,unit," + ",".join(STAT_KEYS)]
    named = [(stage, summary[stage]) for stage in sorted(summary)]
    named += [(image_label(*pair), (images or {})[pair]) for pair in sorted(images or {})]
    for stage, metrics in named:
        for metric, (unit, s) in metrics.items():
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


def median(summary, stage, metric):
    entry = summary.get(stage, {}).get(metric)
    return entry[1]["median"] if entry else None


def us(x):
    return "–" if x is None else f"{x:.0f}"


def shown_phases(summary, stages):
    """The phases a table of STAGES shows: the study's seven, the build where one of them has
    it, and the total."""
    return [(m, label) for m, label in PHASES
            if m != "build" or any("build" in summary.get(s, {}) for s in stages)]


def phases_table(summary, stages=None):
    """Stages as rows, the phases and the total as columns (mean µs): readable with many
    stages. STAGES: which rows, in order (default: the main chain)."""
    stages = main_stages(summary) if stages is None else stages
    phases = shown_phases(summary, stages)
    rows = [[s] + [us(mean(summary, s, metric)) for metric, _ in phases] for s in stages]
    return table(["stage"] + [PHASE_COLUMNS[m] for m, _ in phases], rows)


def side_phases_table(summary, stages_dir=None):
    """phases_table of the side stages, with the stage each branches from."""
    rows = []
    phases = shown_phases(summary, side_stages(summary))
    for s in side_stages(summary):
        rows.append([s, parent_of(s, summary, stages_dir) or "–"]
                    + [us(mean(summary, s, metric)) for metric, _ in phases])
    return table(["side stage", "branches from"] + [PHASE_COLUMNS[m] for m, _ in phases], rows)


def compared_ratio(summary, labels, a, b, metric):
    """B's mean of METRIC over A's (a speed-up of A over B for a time), only where A and B were timed
    in one campaign (LABELS: campaigns(); None: one campaign); "–†" where they were not, "–"
    without B."""
    if not b or b not in summary:
        return "–"
    if not same_campaign(labels, a, b):
        return "–†"
    return ratio(mean(summary, b, metric), mean(summary, a, metric))


def speedup_table(summary, labels=None):
    """The main chain: mean and median of total and kernel; ratios of means against the first
    main stage (normally 01) and the stage each builds on, where both were timed in one campaign
    (LABELS: campaigns(); a column names each stage's)."""
    stages = main_stages(summary)
    if not stages:
        return table(["stage"], [])
    first = stages[0]
    first_label = f"vs {first.split('-')[0]}"
    rows = []
    for s in stages:
        prev = baseline_of(s, summary) or s
        row = [s]
        for metric in ("total", "kernel"):
            m = mean(summary, s, metric)
            row += [us(m), us(median(summary, s, metric)), compared_ratio(summary, labels, s, first, metric),
                    compared_ratio(summary, labels, s, prev, metric)]
        rows.append(row + ([labels.get(s, "–")] if labels is not None else []))
    return table(["stage", "total mean [µs]", "total median [µs]", first_label, "vs builds-on",
                  "kernel mean [µs]", "kernel median [µs]", first_label, "vs builds-on"]
                 + (["campaign"] if labels is not None else []), rows)


def side_speedup_table(summary, stages_dir=None, labels=None):
    """The side stages against the stage they branch from (ratios of means, where both were
    timed in one campaign: LABELS, campaigns(); a column names each stage's)."""
    rows = []
    for s in side_stages(summary):
        parent = parent_of(s, summary, stages_dir)
        row = [s, parent or "–"]
        for metric in ("total", "kernel"):
            m = mean(summary, s, metric)
            row += [us(m), us(median(summary, s, metric)), compared_ratio(summary, labels, s, parent, metric)]
        rows.append(row + ([labels.get(s, "–")] if labels is not None else []))
    return table(["side stage", "branches from", "total mean [µs]", "total median [µs]", "vs parent",
                  "kernel mean [µs]", "kernel median [µs]", "vs parent"]
                 + (["campaign"] if labels is not None else []), rows)


# The path-tracing track's tables: its times (µs), then its throughput and the parts of its
# kernel phase (the whole render loop, SPEC section 5 of SPEC-PATH-TRACING.md).
PT_TIME_METRICS = (("total", "total"), ("kernel", "kernel phase"), ("kernel_events", "kernel_events"))
PT_TIME_STATS = ("mean", "median", "std", "min", "max")
PT_PARTS = ("kernels", "frame_copy", "host_accumulate")


def mega(x):
    return "–" if x is None else f"{x / 1e6:.2f}"


def pt_times_table(summary):
    """Each path-tracing stage's total, kernel phase and kernel_events: mean, median, sample
    standard deviation, min and max (µs), and the number of runs."""
    header = ["stage"] + [f"{label} {k}" for _, label in PT_TIME_METRICS for k in PT_TIME_STATS] + ["n"]
    rows = []
    for s in pt_stages(summary):
        row = [s]
        for metric, _ in PT_TIME_METRICS:
            entry = summary[s].get(metric)
            row += [us(entry[1][k]) if entry else "–" for k in PT_TIME_STATS]
        total = summary[s].get("total")
        rows.append(row + [str(total[1]["n"]) if total else "–"])
    return table(header, rows)


def pt_throughput_table(summary, stages_dir=None, labels=None):
    """Each path-tracing stage's medians of rays/s and samples/s (millions) and of the parts of its
    kernel phase that it reports (µs); speed-up by rays/s median against the first stage of the
    track's chain (normally p01) and against the stage it is compared with (the previous stage of
    the chain, or for a side stage the stage it branches from), where both were timed in one
    campaign (LABELS: campaigns(); a column names each stage's)."""
    stages = pt_stages(summary)
    chain = pt_main_stages(summary)
    first = chain[0] if chain else None
    parts = [p for p in PT_PARTS if any(p in summary[s] for s in stages)]
    header = (["stage", "compared with", "rays/s median [M]", "samples/s median [M]"]
              + [f"{p} median [µs]" for p in parts]
              + [f"vs {first.split('-')[0]}" if first else "vs first", "vs compared with"]
              + (["campaign"] if labels is not None else []))

    def against(stage, other):
        if not same_campaign(labels, stage, other):
            return "–†"
        return ratio(median(summary, stage, "rays_per_second"), median(summary, other, "rays_per_second"))
    rows = []
    for s in stages:
        base = baseline_of(s, summary, stages_dir)
        scene = campaign_scene(s, stages_dir)
        comparable = comparable_baseline(s, summary, stages_dir)
        rays = median(summary, s, "rays_per_second")
        row = [s, (base or "–") + (f" (timed on {os.path.basename(scene)})" if scene else ""),
               mega(rays), mega(median(summary, s, "samples_per_second"))]
        row += [us(median(summary, s, p)) for p in parts]
        row += [against(s, first) if first and not scene else "–",
                against(s, comparable) if comparable else "–"]
        rows.append(row + ([labels.get(s, "–")] if labels is not None else []))
    return table(header, rows)


def pt_sections(summary, stages_dir=None, level="##", labels=None):
    """summary.md's (and the top README's) path-tracing parts, [] without path-tracing stages;
    LABELS: campaigns() (ratios only within one campaign)."""
    if not pt_stages(summary):
        return []
    return [f"{level} Path-tracing track: time per stage (µs; kernel phase: the whole render loop)", "",
            pt_times_table(summary), "",
            f"{level} Path-tracing track: rays and samples per second (medians; speed-up by rays/s: "
            "`vs p01` this stage's over p01's, `vs compared with` over the previous stage of the chain's, "
            "or a side stage's parent's)", "",
            pt_throughput_table(summary, stages_dir, labels), ""]


def resources_table(summary):
    rows = []
    for s in ordered_stages(summary):
        def cell(metric, fmt="{:.0f}"):
            m = mean(summary, s, metric)
            return "–" if m is None else fmt.format(m)
        rows.append([s, cell("registers"), cell("stack_frame"), cell("theoretical_occupancy", "{:.0f}%"),
                     cell("rays_per_second", "{:.3g}"), cell("kernel_events", "{:.1f}")])
    return table(["stage", "registers/thread", "stack frame [B]", "theoretical occupancy",
                  "rays/s (kernel)", "kernel, CUDA events [µs]"], rows)


def stats_table(summary, images=None):
    rows = []
    named = [(s, summary[s]) for s in ordered_stages(summary)]
    named += [(image_label(*pair), images[pair])
              for pair in sorted(images or {}, key=lambda p: (stage_key(p[0]), p[1]))]
    for s, metrics in named:
        for metric, (unit, st) in metrics.items():
            rows.append([s, metric, unit] + [num(st[k], 1) for k in STAT_KEYS[1:]] + [str(st["n"])])
    return table(["stage", "metric", "unit", "mean", "median", "std", "min", "max", "n"], rows)


def image_only_metrics(summary, images, pair):
    """The µs metrics a stage reports only when it writes its image (stage 21a's
    image_encode_left), besides image_write and the process's wall time."""
    plain = summary.get(pair[0], {})
    return [m for m, (unit, _) in images.get(pair, {}).items()
            if unit == "us" and m not in plain and m not in CORE_US_METRICS]


def image_table(summary, images, stages=None):
    """A row per stage and image format its campaign also wrote: the median image_write (and
    any metric only the writing runs report), then the kernel (CUDA events), the total and the
    process's wall time without and with the image, medians of the same campaign's interleaved
    runs, in ms."""
    pairs = [pair for pair in sorted(images, key=lambda p: (stage_key(p[0]), p[1]))
             if stages is None or pair[0] in stages]
    extras = []
    for pair in pairs:
        extras += [m for m in image_only_metrics(summary, images, pair) if m not in extras]

    def ms(stage_metrics, metric, decimals=1):
        entry = stage_metrics.get(metric)
        return "–" if not entry else f"{entry[1]['median'] / 1000:.{decimals}f}"

    def wall_ratio(plain, written):
        a, b = (m.get("process_wall") for m in (plain, written))
        return "–" if not a or not b else f"{b[1]['median'] / a[1]['median']:.2f}"
    rows = []
    for stage, image in pairs:
        plain, written = summary.get(stage, {}), images[(stage, image)]
        n = written.get("total", (None, {"n": 0}))[1]["n"]
        rows.append([stage, image, str(n), ms(written, "image_write")] + [ms(written, m) for m in extras]
                    + [ms(plain, "kernel_events", 2), ms(written, "kernel_events", 2), ms(plain, "total"),
                       ms(written, "total"), ms(plain, "process_wall"), ms(written, "process_wall"),
                       wall_ratio(plain, written)])
    return table(["stage", "image", "runs", "image_write"] + extras
                 + ["kernel_events without", "kernel_events with", "total without", "total with",
                    "process wall without", "process wall with", "wall with / without"], rows)


def gpu_of(rows):
    for row in rows:
        if row.get("status") == "ok":
            return row["gpu"]
    return rows[0]["gpu"] if rows else "unknown GPU"


def gpus_a_run(rows):
    """{stage: [GPU counts]} of the stages some of whose runs were given more than one GPU (the
    runs' gpus column, run.sh: a manifest's campaign-gpus; empty in older runs: one)."""
    counts = {}
    for row in rows:
        if row.get("status") == "ok" and row.get("metric") == "total":
            counts.setdefault(row["stage"], set()).add(int(row.get("gpus") or 1))
    return {stage: sorted(c) for stage, c in counts.items() if max(c) > 1}


def gpus_section(rows, stages_dir=None):
    """The stages timed on several GPUs a run, and on how many; nothing when there are none."""
    several = gpus_a_run(rows)
    if not several:
        return []
    lines = [f"- {stage}: {' and '.join(str(n) for n in counts)} GPUs a run"
             for stage, counts in sorted(several.items(), key=lambda item: stage_key(item[0], stages_dir))]
    return ["## Stages timed on several GPUs", "",
            "Each run of these stages was given that many of the campaign's GPUs (its manifest's "
            "`campaign-gpus`; the runs' `gpus` column), and no other run used them meanwhile; "
            "every other stage ran on one GPU a run.", ""] + lines + [""]


def summary_md(summary, rows, stages_dir=None, images=None, folder=None):
    """summary.md; IMAGES: image_summarize(rows), made here when not given; FOLDER: the campaign
    folder (its env.txt dates the campaigns)."""
    images = image_summarize(rows) if images is None else images
    labels = campaigns(rows)
    failed = [r for r in rows if r.get("status") == "failed"]
    hosts = sorted({r["host"] for r in rows})
    parts = [
        f"# {gpu_of(rows)}",
        "",
        "Generated by `tools/runner/summarize.py` from `runs.csv.gz`; do not edit. "
        f"Host(s): {', '.join(hosts) or '–'}. Runs ok: "
        f"{sum(1 for r in rows if r.get('status') == 'ok' and r['metric'] == 'total')}, failed: {len(failed)}.",
        "",
    ] + campaigns_section(rows, folder) + gpus_section(rows, stages_dir)
    # The main track's tables (left out only when the campaign timed the path-tracing track alone).
    if main_stages(summary) or side_stages(summary) or not pt_stages(summary):
        parts += ["## Phases of the main chain (mean of the runs, µs)", "", phases_table(summary), ""]
        if side_stages(summary):
            parts += ["## Phases of the side stages (mean of the runs, µs)", "",
                      side_phases_table(summary, stages_dir), ""]
        parts += [
            "## Speed-up of the main chain (ratios of means; `vs 01`: stage 01 time / this stage's)",
            "",
            speedup_table(summary, labels),
            "",
        ]
        if side_stages(summary):
            parts += ["## Side stages against the stage they branch from (ratios of means)", "",
                      side_speedup_table(summary, stages_dir, labels), ""]
    if images:
        parts += ["## Writing the image (the stages whose manifest has campaign-image, ms, medians)", "",
                  "Each such stage is timed twice in every run of the campaign, interleaved: without "
                  "an image and writing it (`--output frame.png`, or the format the table names). `image_write` is the write after the "
                  "render (not in the total); the process wall time is the whole process, the CUDA "
                  "start-up and the write included.", "",
                  image_table(summary, images), ""]
    parts += pt_sections(summary, stages_dir, labels=labels)
    parts += [
        "## Kernel resources and throughput",
        "",
        resources_table(summary),
        "",
        "## Every metric (std: sample standard deviation)",
        "",
        stats_table(summary, images),
        "",
    ]
    if failed:
        parts += ["## Failed runs", ""] + [f"- {r['stage']} run {r['run']}: {r['value']}" for r in failed] + [""]
    return "\n".join(parts)


# The study's own numbers, as it reported them (results/reported/*.csv).
REPORTED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "results", "reported")


def read_reported(reported_dir=None):
    """[(file name, comment lines, header, rows)] of results/reported/*.csv."""
    out = []
    for path in sorted(glob.glob(os.path.join(reported_dir or REPORTED_DIR, "*.csv"))):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        notes = [l.lstrip("# ").rstrip() for l in lines if l.startswith("#")]
        data = list(csv.reader(l for l in lines if l and not l.startswith("#")))
        out.append((os.path.basename(path), notes, data[0], data[1:]))
    return out


def write_atomically(path, write):
    """Calls write(temporary) for a temporary file beside PATH, then renames it into place: a full
    disk or a file-size limit leaves the earlier file whole and no partial one. Exits 1 with one
    line naming the file and the cause."""
    temporary = f"{path}.partial-{os.getpid()}"
    try:
        write(temporary)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.remove(temporary)
        except OSError:
            pass
        sys.exit(f"{os.path.basename(sys.argv[0])}: error: cannot write {path}: {error.strerror or error}")


def write_text(path, text):
    def write(temporary):
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
    write_atomically(path, write)


def write_summary(folder, check=False, stages_dir=None):
    """Writes (or with check=True only compares) summary.csv and summary.md; returns stale files."""
    rows = load_folder_runs(folder)
    summary = summarize(rows)
    images = image_summarize(rows)
    return write_if_changed(folder, check, (("summary.csv", summary_csv(summary, images)),
                                            ("summary.md", summary_md(summary, rows, stages_dir, images, folder))))


def write_if_changed(folder, check, files):
    """Writes each (name, text) of FILES into FOLDER where it differs (with check=True writes
    nothing); returns the paths that differed."""
    stale = []
    for name, text in files:
        path = os.path.join(folder, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not check:
                write_text(path, text)
    return stale


# ---- The scaling campaign (tools/scaling.sh) ------------------------------------------------
# OUT/<gpu-slug>/scaling/runs.csv.gz has the campaign runs' first 15 columns and `scene` (the scene file's name without
# .scene); each (stage, scene) pair is summarised on its own: its sphere count (the `spheres`
# column), its runs, and the statistics of the kernel (CUDA events), the build of the
# acceleration structure (stages 22 on) and the total. The path-tracing track's
# (OUT/<gpu-slug>/pt-scaling/runs.csv.gz, tools/scaling.sh --track pt) the same, and its rays per
# second (SCALING_PT_METRICS: the tables of a path-tracing campaign only; the main track's stages
# report rays_per_second too, but its tables stay as they were).
SCALING_METRICS = ("kernel_events", "build", "total")
SCALING_PT_METRICS = ("rays_per_second",)
SCALING_STATS = ("mean", "median", "std", "min", "max")


def scaling_is_pt(rows):
    """A scaling campaign of the path-tracing track: every stage of its rows is a pNN stage."""
    stages = {row["stage"] for row in rows if row.get("stage")}
    return bool(stages) and all(is_pt_stage(stage) for stage in stages)


def scaling_metrics(summary):
    """The metrics of a scaling summary's tables: SCALING_METRICS, and rays_per_second where a
    path-tracing pair reported it."""
    pt = any("rays_per_second" in entry and is_pt_stage(stage) for (stage, _), entry in summary.items())
    return SCALING_METRICS + (SCALING_PT_METRICS if pt else ())


@once_per_loaded_runs
def scaling_summarize(rows):
    """{(stage, scene): {"spheres": int, "n": runs ok, metric: stats}} over the runs with status
    ok, for the metrics of SCALING_METRICS (and SCALING_PT_METRICS) a pair has."""
    values, spheres = {}, {}
    summarized = SCALING_METRICS + SCALING_PT_METRICS
    for row in rows:
        if row.get("status") != "ok":
            continue
        key = (row["stage"], row.get("scene", ""))
        if row.get("spheres", "").isdigit():
            spheres[key] = max(spheres.get(key, 0), int(row["spheres"]))
        if row["metric"] in summarized:
            values.setdefault(key, {}).setdefault(row["metric"], []).append(float(row["value"]))
    result = {}
    for key, metrics in values.items():
        entry = {"spheres": spheres.get(key, 0), "n": len(metrics.get("total", []))}
        entry.update({m: stats(v) for m, v in metrics.items()})
        result[key] = entry
    return result


def scaling_scenes(summary):
    """The scenes of a scaling summary, fewest spheres first: [(scene, spheres)]."""
    counts = {}
    for (_, scene), entry in summary.items():
        counts[scene] = max(counts.get(scene, 0), entry["spheres"])
    return sorted(counts.items(), key=lambda item: (item[1], item[0]))


def scaling_pairs(summary, stages_dir=None):
    """The (stage, scene) pairs in course order, then by sphere count."""
    order = {scene: i for i, (scene, _) in enumerate(scaling_scenes(summary))}
    return sorted(summary, key=lambda pair: (stage_key(pair[0], stages_dir), order[pair[1]]))


def scaling_stat(summary, pair, metric, key):
    """One statistic of one pair's metric (µs), or None."""
    entry = summary.get(pair, {}).get(metric)
    return entry[key] if entry else None


def ms(x, decimals=2):
    return "–" if x is None else f"{x / 1000:,.{decimals}f}"


def mrays(x, decimals=1):
    """Rays per second as millions, or – for None."""
    return "–" if x is None else f"{x / 1e6:,.{decimals}f}"


def scaling_matrix(summary, stages_dir=None, metric="kernel_events", cell=ms):
    """Stages as rows, scenes as columns (fewest spheres first, the count in the header), the
    median kernel time by CUDA events (ms) in each cell (or METRIC's median as CELL writes it);
    – where the pair has no run."""
    scenes = scaling_scenes(summary)
    stages = sorted({stage for stage, _ in summary}, key=lambda s: stage_key(s, stages_dir))
    rows = [[s] + [cell(scaling_stat(summary, (s, scene), metric, "median")) for scene, _ in scenes]
            for s in stages]
    return table(["stage"] + [f"{scene} ({count:,})" for scene, count in scenes], rows)


def scaling_summary_csv(summary, stages_dir=None):
    """A line per (stage, scene): spheres, runs, and mean, median, std, min, max of each metric
    (µs; empty where the pair lacks the metric: no build before stage 22); a path-tracing
    campaign's also of rays_per_second (rays/s)."""
    metrics = scaling_metrics(summary)
    lines = ["stage,scene,spheres,n," + ",".join(f"{m}_{k}" for m in metrics for k in SCALING_STATS)]
    for pair in scaling_pairs(summary, stages_dir):
        entry = summary[pair]
        cells = [pair[0], pair[1], str(entry["spheres"]), str(entry["n"])]
        for metric in metrics:
            cells += [num(entry[metric][k]) if metric in entry else "" for k in SCALING_STATS]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def scaling_summary_md(summary, rows, stages_dir=None, folder=None):
    """A scaling campaign's summary.md (FOLDER: its folder, whose env.txt dates its campaigns)."""
    failed = [r for r in rows if r.get("status") == "failed"]
    hosts = sorted({r["host"] for r in rows})
    pt = scaling_is_pt(rows)
    rays = "rays_per_second" in scaling_metrics(summary)
    parts = [f"# {gpu_of(rows)}: the {'path-tracing ' if pt else ''}scaling campaign", "",
             "Generated by `tools/plot.py --scaling` (tools/runner/summarize.py) from `runs.csv.gz` "
             f"(tools/scaling.sh{' --track pt' if pt else ''}); do not edit. "
             f"Host(s): {', '.join(hosts) or '–'}. Runs ok: "
             f"{sum(1 for r in rows if r.get('status') == 'ok' and r['metric'] == 'total')}, failed: {len(failed)}.", ""]
    parts += campaigns_section(rows, folder, ratios=False)
    parts += ["## Kernel time by CUDA events against the scene (median of the runs, ms; the scene's spheres "
             "in brackets; – where the stage was not timed on it: see `verify.txt`)", "",
             scaling_matrix(summary, stages_dir), ""]
    if rays:
        parts += ["## Rays per second against the scene (median of the runs, millions of rays a second; "
                  "the scene's spheres in brackets)", "",
                  scaling_matrix(summary, stages_dir, "rays_per_second", mrays), ""]
    parts += ["## Every (stage, scene) pair (ms; std: sample standard deviation; build: the acceleration "
              + ("structure's, where the stage builds one" if pt else "structure's, stages 22 on")
              + ("; rays/s median: millions of rays a second" if rays else "") + ")", ""]
    header = (["stage", "scene", "spheres", "n"] + [f"{m} {k}" for m in SCALING_METRICS for k in SCALING_STATS]
              + (["rays/s median"] if rays else []))
    body = []
    for pair in scaling_pairs(summary, stages_dir):
        entry = summary[pair]
        body.append([pair[0], pair[1], f"{entry['spheres']:,}", str(entry["n"])]
                    + [ms(scaling_stat(summary, pair, m, k), 3) for m in SCALING_METRICS for k in SCALING_STATS]
                    + ([mrays(scaling_stat(summary, pair, "rays_per_second", "median"))] if rays else []))
    parts += [table(header, body), ""]
    if failed:
        parts += ["## Failed runs", ""] + [f"- {r['stage']} on {r.get('scene', '?')} run {r['run']}: {r['value']}"
                                            for r in failed] + [""]
    return "\n".join(parts)


def write_scaling_summary(folder, check=False, stages_dir=None):
    """Writes (or with check=True only compares) FOLDER/summary.csv and summary.md of a scaling
    campaign (FOLDER/runs.csv.gz, or the live runs.csv); returns the stale files."""
    rows = load_folder_runs(folder)
    summary = scaling_summarize(rows)
    return write_if_changed(folder, check,
                            (("summary.csv", scaling_summary_csv(summary, stages_dir)),
                             ("summary.md", scaling_summary_md(summary, rows, stages_dir, folder))))


def is_scaling_folder(folder):
    """A scaling campaign's folder: its runs have the `scene` column."""
    try:
        with runs_file.open_runs(folder) as f:
            return "scene" in f.readline().strip().split(",")
    except (OSError, EOFError):
        return False


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    write = write_scaling_summary if is_scaling_folder(argv[1]) else write_summary
    stale = write(argv[1], check="--check" in argv)
    if "--check" in argv and stale:
        print("stale: " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
