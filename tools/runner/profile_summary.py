#!/usr/bin/env python3
"""A short summary of one Nsight Compute profile of a stage's kernel (its manifest's profile-kernel:
render_kernel on the main track, e.g. persistent_kernel on the path tracer's), read from the raw
metrics that `ncu -i REPORT --page raw --csv` prints (tools/profile.sh saves them beside the
report as <stage>.raw.csv, so the summary can be remade without ncu).

usage: tools/runner/profile_summary.py RAW.csv [--title TEXT]

Prints: the launch (grid and block), duration, registers per thread, shared memory per block,
theoretical and achieved occupancy, compute (SM) and memory throughput, issue slots busy, warp
instructions executed, divergent branch targets, register-spilling instructions, and the three largest
stall reasons (warps stalled per issued instruction, NVIDIA's "warp state" statistics; the
'selected' state, a warp issuing, is not a stall). tools/update_readmes.py uses read_profile()
for the profile tables of the stage READMEs."""
import argparse
import csv
import re
import sys

# (key, raw metric, label, format)
FIELDS = [
    ("duration_us", "gpu__time_duration.sum", "duration", "{:.1f} µs"),
    ("registers", "launch__registers_per_thread", "registers per thread", "{:.0f}"),
    ("shared_bytes", None, "shared memory per block (static + dynamic)", "{:.0f} bytes"),
    ("theoretical_occupancy", "sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy", "{:.1f}%"),
    ("achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", "{:.1f}%"),
    ("compute_throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute (SM) throughput", "{:.1f}% of peak"),
    ("memory_throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory throughput", "{:.1f}% of peak"),
    ("issue_active", "sm__issue_active.avg.pct_of_peak_sustained_elapsed", "issue slots busy", "{:.1f}%"),
    ("instructions", "smsp__inst_executed.sum", "warp instructions executed", "{:,.0f}"),
    ("divergent_branches", "smsp__sass_branch_targets_threads_divergent.sum", "divergent branch targets", "{:,.0f}"),
    ("spill_instructions", "sass__inst_executed_register_spilling", "instructions spilling registers", "{:,.0f}"),
]
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(.+)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_profile(path):
    """{'kernel', 'grid', 'block', the FIELDS keys, 'stalls': [(reason, value)] largest first} of
    the first profiled kernel in a raw CSV. Raises ValueError when it is not such a file."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if len(rows) < 3 or "Kernel Name" not in rows[0]:
        raise ValueError(f"{path}: not the raw page of an Nsight Compute report "
                         "(ncu -i REPORT --page raw --csv)")
    header, values = rows[0], rows[2]
    raw = dict(zip(header, values))
    out = {"kernel": raw.get("Kernel Name", "").split("(")[0], "grid": raw.get("Grid Size", ""),
           "block": raw.get("Block Size", "")}
    for key, metric, _label, _fmt in FIELDS:
        out[key] = number(raw.get(metric)) if metric else None
    static, dynamic = (number(raw.get(f"launch__shared_mem_per_block_{kind}")) for kind in ("static", "dynamic"))
    if static is not None or dynamic is not None:
        out["shared_bytes"] = (static or 0) + (dynamic or 0)
    stalls = []
    for name, value in raw.items():
        m = STALL.match(name)
        v = number(value)
        if m and v is not None and m.group(1) != "selected" and v > 0:
            stalls.append((m.group(1), v))
    out["stalls"] = sorted(stalls, key=lambda s: -s[1])
    return out


def summary_lines(profile, title=None):
    lines = [title] if title else []
    lines.append(f"kernel: {profile['kernel']}, grid {profile['grid']} x block {profile['block']}")
    for key, _metric, label, fmt in FIELDS:
        value = profile[key]
        lines.append(f"{label}: {'–' if value is None else fmt.format(value)}")
    top = ", ".join(f"{reason} {value:.2f}" for reason, value in profile["stalls"][:3])
    lines.append(f"top stall reasons (warps stalled per issued instruction): {top or '–'}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description="summary of a stage's Nsight Compute profile")
    parser.add_argument("raw_csv")
    parser.add_argument("--title")
    args = parser.parse_args(argv)
    try:
        profile = read_profile(args.raw_csv)
    except (OSError, ValueError) as error:
        sys.exit(f"profile_summary.py: error: {error}")
    print("\n".join(summary_lines(profile, args.title)))


if __name__ == "__main__":
    main()
