#!/usr/bin/env python3
"""Holds the times that prose quotes beside a campaign to that campaign's data.

A stage README or docs/results.md often says "4.49 ms against stage 31's 4.82" and links the
campaign it took the numbers from. This reads every such paragraph and checks each time it quotes
against the runs of the data it links: the number, at the precision printed, must be the mean,
median, minimum or maximum of some time metric (µs in the runs: a phase, kernel_events, build,
steady_frame, ...) of some stage there (per scene in a scaling campaign, per variant in a sweep,
per way in a development run whose runs name it in a column `way`,
per image format where a stage also wrote its image, and over both; over the whole file and over
each physical GPU's runs). A quoted time that matches nothing is reported with
the nearest statistic, and the exit status is 1.

The rule, exactly:
  pages      stages/*/README.md and docs/results.md (or the pages given), less the blocks
             between <!-- NAME:begin --> and <!-- NAME:end -->, which tools/update_readmes.py
             generates and --check holds.
  paragraph  lines between blank lines; a list item ("- ", "1. ") starts a paragraph of its own.
  citation   a paragraph cites a campaign when it names a file under results/reference/ that
             holds timings: a summary.md, or a .csv or .csv.gz (runs.csv.gz, runs.csv,
             superseded-runs.csv.gz, a sweep's CSV, a summary.csv, a development script's table
             with *_us or *_ms columns), as a Markdown link (relative to the page) or as a path
             from the repository's root (in backticks or plain). A summary.md stands for the runs
             beside it (runs.csv, else runs.csv.gz; its summary.csv where there are none). Every
             file the paragraph cites counts, so a development run that links its own data is
             held to that data. A CSV of other data (a profile's counters) cites nothing, nor a
             path with a placeholder or a wildcard (results/reference/<gpu>/..., *.raw.csv), nor
             an earlier version in git (`git show REV:results/...`); a path to no file is an
             error.
  times      outside code spans and link targets: a number followed by "ms", "µs" or "us" that
             has a decimal point or at least three digits ("4.49 ms", "713 ms", "14736 µs"); and
             the number joined to such a time by "against", "to", "→" or "->", or listed before
             it ("5.49, 15.34 and 34.10 ms"), in that time's unit ("6.62 ms against stage 31's
             4.79", "1.07 to 1.11 ms"); and, in a paragraph whose times are all in one unit,
             two numbers joined by "against", "→" or "->" without a unit, one of them with a
             decimal point ("34.66 against 22.40 on 1,000 random spheres"); and in a Markdown
             table right after a paragraph that cites a campaign and names the cells' unit ("in
             ms", "in µs"), every cell that is a bare number with a decimal point, held to that
             paragraph's campaigns. Round figures ("10 ms", "40 ms": targets, orders of size)
             are not checked, nor a time after "about", "some", "nearly", "under", "over",
             "below", "above", "at most", "at least", "up to", "within", "~", "≈" or "=" (an
             estimate, a bound, or arithmetic shown in the text).
  match      |statistic - quoted| <= half a unit of the last printed digit (the statistic in
             the quoted unit; either rounding of a half); in a paragraph that says "median" and
             names no other statistic (mean, average, min, max, fastest, slowest, range, best,
             worst), a median only.

Usage: python3 tools/check-prose-numbers.py [--root DIR] [--verbose] [PAGE...]
  --root DIR   the repository (default: this script's); PAGE paths are relative to it
  --verbose    also list every time checked and what it matched
Exit status: 0 every quoted time matches its campaign; 1 one does not, or a cited file is
missing (a line each on stderr: page:line, the time, the data, the nearest statistic);
2 a bad usage.
"""
import argparse
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
import runs_file  # noqa: E402

GENERATED_BLOCK = re.compile(r"<!-- ([^ ]+):begin -->.*?<!-- \1:end -->", re.S)
# A cited data file: a Markdown link's target (../ up to the root) or a path from the root.
# Not after "REV:" (git show REV:results/...: an earlier version, in the history only).
CITATION = re.compile(r"(?<![:\w/.])((?:\.\./)*results/reference/[^\s)`'\"*<>]+?(?:\.csv|\.csv\.gz|/summary\.md))"
                      r"(?=[\s)`'\",;:]|\.(?!\w)|$)")
CODE_SPAN = re.compile(r"`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
NUMBER = r"\d[\d,]*(?:\.\d+)?"
UNIT = r"(?:ms|µs|us)\b"
TIME = re.compile(r"(?<![\w.,])(" + NUMBER + r")\s*(" + UNIT + r")")
# Words between two numbers that make the first the second's partner in a comparison: "6.62 ms
# against stage 31's 4.79", "159.7 → 144.9 ms", "1.07 to 1.11 ms".
JOIN = r"\s*(?:" + UNIT + r")?\s*(?:against|to|→|->)\s+(?:(?:stage|p)\s*\S+?'s\s+|the [\w ,-]+?'s\s+)?"
PAIR = re.compile(r"(?<![\w.,])(" + NUMBER + r")(" + JOIN + r")(" + NUMBER + r")(?![\d])")
# "5.49, 15.34 and 34.10 ms": the numbers listed before a time share its unit.
LIST = re.compile(r"(?<![\w.,])((?:" + NUMBER + r",\s+)*" + NUMBER + r")\s+and\s+(" + NUMBER + r")\s*(" + UNIT + r")")
NOT_QUOTED_BEFORE = re.compile(r"(?:\b(?:about|some|nearly|almost|under|over|below|above|at most|at least|up to|"
                               r"within)|~|≈|=)\s*$")
STATS = ("median", "mean", "min", "max")


def generated_blocks_blanked(text):
    """TEXT with every generated block's lines emptied (line numbers kept)."""
    return GENERATED_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def paragraphs(text):
    """[(first line number, text)] of TEXT's paragraphs (a list item starts one of its own)."""
    found, lines, start = [], [], 0
    for number, line in enumerate(text.split("\n"), 1):
        item = re.match(r"\s*(?:[-*+]|\d+\.)\s", line)
        if not line.strip() or (item and lines):
            if lines:
                found.append((start, "\n".join(lines)))
            lines = []
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
    if lines:
        found.append((start, "\n".join(lines)))
    return found


def cited_files(paragraph, page):
    """The data files PARAGRAPH (of PAGE) cites, as paths from the root (PAGE-relative links
    resolved)."""
    cited = []
    for match in CITATION.finditer(paragraph):
        target = match.group(1)
        if target.startswith("../"):
            path = os.path.normpath(os.path.join(os.path.dirname(page), target))
        else:
            path = os.path.normpath(target)
        if path not in cited:
            cited.append(path)
    return cited


def checked_value(number):
    """(value, decimals) of a number as printed ("1,311.5" -> (1311.5, 1))."""
    plain = number.replace(",", "")
    return float(plain), len(plain.split(".")[1]) if "." in plain else 0


def worth_checking(number):
    """A figure precise enough to be a measurement: a decimal point, or three digits or more."""
    plain = number.replace(",", "")
    return "." in plain or len(plain) >= 3


def quoted_times(paragraph):
    """[(number as printed, unit)] that the rule checks in PARAGRAPH (its code spans and link
    targets left out), in the order they appear."""
    text = LINK_TARGET.sub("]", CODE_SPAN.sub(" ", paragraph))
    found = {}  # position -> (number, unit)

    def add(start, number, unit):
        if not worth_checking(number) or NOT_QUOTED_BEFORE.search(text[:start]):
            return
        found.setdefault(start, (number, "ms" if unit == "ms" else "µs"))

    for m in TIME.finditer(text):
        add(m.start(1), m.group(1), m.group(2))
    # A paragraph that writes its times in one unit: a comparison without a unit is in it too
    # ("6.62 ms against stage 31's 4.79 on the benchmark, 34.66 against 22.40 on 1,000").
    units = {unit for _, unit in found.values()}
    paragraph_unit = units.pop() if len(units) == 1 else None
    # Partners of a time: the unit comes from whichever side carries one.
    for _ in range(2):  # twice, so that a chain "a to b against c ms" passes the unit along
        for m in PAIR.finditer(text):
            left = found.get(m.start(1))
            right = found.get(m.start(3))
            unit = re.search(UNIT, m.group(2))
            # Without a unit on either side only a comparison counts: "0.6 to 1.5" is often a
            # range of something else (a radius).
            bare = paragraph_unit if re.search(r"against|→|->", m.group(2)) else None
            unit = unit.group(0) if unit else (left or right or (None, bare))[1]
            if unit and "." in m.group(1) + m.group(3):
                add(m.start(1), m.group(1), unit)
                add(m.start(3), m.group(3), unit)
    for m in LIST.finditer(text):
        offset = m.start(1)
        for part in re.finditer(NUMBER, m.group(1)):
            add(offset + part.start(), part.group(0), m.group(3))
    return [found[position] for position in sorted(found)]


def summarized(values):
    """{(where..., metric, stat): µs} from {(where..., metric): [µs]}: mean, median, min, max."""
    out = {}
    for key, vals in values.items():
        vals.sort()
        n = len(vals)
        median = vals[n // 2] if n % 2 else (vals[n // 2 - 1] + vals[n // 2]) / 2
        for stat, value in (("mean", sum(vals) / n), ("median", median), ("min", vals[0]), ("max", vals[-1])):
            out[key + (stat,)] = value
    return out


def statistics_of_runs(rows):
    """The statistics of a campaign's runs (runs.csv: a row per run and metric, the metric's unit
    beside it; a sweep's adds a variant, a development run's may add a way, each way a stage was
    run in, which counts as its variant): for every metric in µs of the runs with status ok, per
    stage, scene, image format and variant, and per stage, scene and variant over both image
    formats (a stage timed with and without writing its image); all of it over the whole file and
    over the runs of each physical GPU (gpu_uuid), since a file can hold a stage's runs of
    several campaigns ("the first campaign of stage 21", in superseded-runs.csv.gz)."""
    values = {}
    for row in rows:
        if row.get("status", "ok") != "ok" or row.get("unit") != "us":
            continue
        try:
            value = float(row["value"])
        except (KeyError, TypeError, ValueError):
            continue
        where = (row.get("stage", ""), row.get("scene", ""), row.get("variant") or row.get("way", ""))
        for image in {row.get("image", ""), "*"}:
            values.setdefault(("",) + where + (image, row["metric"]), []).append(value)
            if row.get("gpu_uuid"):
                values.setdefault((f"GPU …{row['gpu_uuid'][-12:]}",) + where + (image, row["metric"]),
                                  []).append(value)
    return summarized(values)


def statistics_of_table(rows):
    """The statistics of any other table of timings (a development script's, e.g. a variant, a
    scene, a run and kernel_events_us per row): every column named *_us or *_ms, per group of the
    rows' text columns (a run number does not group)."""
    if not rows:
        return {}
    def numeric(text):
        try:
            float(text)
            return True
        except (TypeError, ValueError):
            return False
    times = [c for c in rows[0] if c and re.search(r"_(us|ms)$", c)]
    # A column of text in any row groups (a way named 21 in the first row and 40-gpus2 later).
    groups = [c for c in rows[0] if c and c not in times and c != "run"
              and not all(numeric(row.get(c)) for row in rows)]
    values = {}
    for row in rows:
        where = tuple(row.get(c, "") for c in groups)
        for column in times:
            if numeric(row.get(column)):
                scale = 1000 if column.endswith("_ms") else 1
                values.setdefault(where + (column,), []).append(float(row[column]) * scale)
    return summarized(values)


def statistics_of_summary_csv(rows):
    """The statistics a summary.csv gives (a folder without its runs): the campaign's
    (stage,metric,unit,n,mean,...) or the scaling campaign's (stage,scene,...,METRIC_STAT...)."""
    out = {}
    for row in rows:
        if "metric" in row:
            if row.get("unit") == "us":
                for stat in STATS:
                    if row.get(stat):
                        out[(row["stage"], "", row["metric"], stat)] = float(row[stat])
            continue
        for column, value in row.items():
            metric, _, stat = column.rpartition("_")
            if stat in STATS and value and metric != "rays_per_second":
                out[(row["stage"], row.get("scene", ""), metric, stat)] = float(value)
    return out


def statistics_of_file(path):
    """The time statistics a CSV (or .csv.gz) holds, by its columns: runs, a summary.csv, or
    another table of timings; {} for one without times (a profile's counters, SASS)."""
    with runs_file.open_runs_path(path) as f:
        rows = list(csv.DictReader(f))
    columns = set(rows[0]) if rows else set()
    if {"metric", "value", "unit"} <= columns:
        return statistics_of_runs(rows)
    if {"metric", "unit", "median"} <= columns or "kernel_events_median" in columns:
        return statistics_of_summary_csv(rows)
    return statistics_of_table(rows)


_data = {}


def data_of(path, root):
    """The time statistics of the data at PATH (from ROOT), made once: a summary.md stands for
    the runs beside it (else its summary.csv); None where the file (or its runs) is missing."""
    if path not in _data:
        full = os.path.join(root, path)
        folder, name = os.path.split(full)
        if name == "summary.md":
            runs = runs_file.runs_path(folder)
            full = runs or os.path.join(folder, "summary.csv")
        elif name == "runs.csv.gz" and not os.path.isfile(full):  # a live runs.csv stands for it
            full = runs_file.runs_path(folder) or full
        _data[path] = statistics_of_file(full) if os.path.isfile(full) else None
    return _data[path]


# The order in which a match or the nearest statistic is named (every one counts as a match):
# what prose quotes most, the kernel by CUDA events and its median, first.
METRIC_ORDER = ("kernel_events", "kernel_events_us", "total", "kernel", "build", "steady_frame")


def preference(key):
    *_, metric, stat = key
    return (METRIC_ORDER.index(metric) if metric in METRIC_ORDER else len(METRIC_ORDER),
            STATS.index(stat) if stat in STATS else len(STATS))


def matches(value_us, number, unit):
    quoted, decimals = checked_value(number)
    value = value_us / 1000 if unit == "ms" else value_us
    return abs(value - quoted) <= 0.5 * 10 ** -decimals * (1 + 1e-9)


def nearest(stats, number, unit, allowed=STATS):
    quoted, _ = checked_value(number)
    scale = 1000 if unit == "ms" else 1
    key = min((k for k in stats if k[-1] in allowed), key=lambda k: (abs(stats[k] / scale - quoted), preference(k)))
    *where, metric, stat = key
    where = ", ".join(w for w in where if w and w != "*")
    return f"{stats[key] / scale:.4g} {unit} ({stat} of {metric}, {where})"


def stats_named(paragraph):
    """The statistics a paragraph's times may be: the medians alone where it says "median(s)" and
    names no other statistic (mean, average, min, max, fastest, slowest, range, best, worst),
    else any of STATS."""
    text = paragraph.lower()
    if "median" in text and not re.search(r"\b(mean|average|min|minimum|max|maximum|fastest|slowest|range|"
                                          r"best|worst)\b|min–max|min-max", text):
        return ("median",)
    return STATS


# A table's caption: the paragraph before it names the unit of its cells ("medians in ms").
CAPTION_UNIT = re.compile(r"\bin (ms|µs)\b")
TABLE_CELL_TIME = re.compile(r"^\s*(\d[\d,]*\.\d+)\s*$")


def table_times(table, unit):
    """[(number, UNIT)] of a Markdown table's cells that are a bare decimal number (its header
    and rule rows left out: a header names, it does not measure)."""
    rows = [line for line in table.split("\n") if line.strip().startswith("|")][2:]
    return [(m.group(1), unit) for row in rows for cell in row.strip().strip("|").split("|")
            for m in [TABLE_CELL_TIME.match(cell)] if m]


def check_page(page, root, verbose, problems):
    """Appends to PROBLEMS a line per quoted time of PAGE (from ROOT) that its cited campaigns do
    not hold, and per cited file that does not exist; returns how many times it checked."""
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = generated_blocks_blanked(f.read())
    checked = 0
    caption = None  # (its campaigns, its statistics, its unit) for the table right after it
    for line, paragraph in paragraphs(text):
        is_table = all(row.strip().startswith("|") for row in paragraph.split("\n"))
        cited = cited_files(paragraph, page)
        campaigns = []
        for path in cited:
            stats = data_of(path, root)
            if stats is None:
                problems.append(f"{page}:{line}: cites {path}, which is missing (a summary.md: no "
                                "runs.csv.gz or summary.csv beside it)")
            elif stats:  # a file of other data (a profile's counters) cites no campaign
                campaigns.append((path, stats))
        allowed = stats_named(paragraph)
        quoted = quoted_times(paragraph) if campaigns else []
        # A table whose caption cites a campaign and names the unit of its cells: its numbers too.
        if is_table and caption:
            campaigns = campaigns + caption[0]
            allowed = caption[1] if len(caption[1]) < len(allowed) else allowed
            quoted += table_times(paragraph, caption[2])
        unit = CAPTION_UNIT.search(paragraph)
        caption = (campaigns, allowed, "ms" if unit.group(1) == "ms" else "µs") \
            if campaigns and unit and not is_table else None
        for number, unit in quoted:
            checked += 1
            hits = [(preference(key), path, key) for path, stats in campaigns for key, value in stats.items()
                    if key[-1] in allowed and matches(value, number, unit)]
            hit = min(hits, key=lambda h: h[0])[1:] if hits else None
            if hit:
                if verbose:
                    print(f"{page}:{line}: {number} {unit} = {' '.join(w for w in hit[1] if w)} in {hit[0]}")
                continue
            near = "; ".join(f"{path}: nearest {nearest(stats, number, unit, allowed)}"
                             for path, stats in campaigns if stats)
            named = "median" if allowed == ("median",) else "mean, median, min or max"
            problems.append(f"{page}:{line}: {number} {unit} is no {named} of a time in the campaign it "
                            f"cites ({near})")
    return checked


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args(argv[1:])
    root = os.path.abspath(args.root)
    pages = args.pages or (sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "stages", "*", "README.md")))
                           + (["docs/results.md"] if os.path.isfile(os.path.join(root, "docs", "results.md")) else []))
    problems, checked = [], 0
    for page in pages:
        if not os.path.isfile(os.path.join(root, page)):
            print(f"check-prose-numbers.py: error: no page {page} under {root}", file=sys.stderr)
            return 2
        checked += check_page(page, root, args.verbose, problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{checked} quoted times checked against the campaigns their paragraphs cite, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
