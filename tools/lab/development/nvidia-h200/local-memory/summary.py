#!/usr/bin/env python3
"""Local memory in the walk, from Nsight Compute's counters (ncu --metrics): for each ncu-*.csv
in a folder, the render kernel's 16 launches of one frame summed (time-weighted for rates).
Writes summary.txt in that folder and prints it.

Folders: this one (device-run.sh, 2026-11-27, on an H200: stages 27, 28-registers-not-arrays and
28a-shared-stack; the ncu-free-* files with --clock-control none --cache-control none) and
../../../nvidia-h100-80gb-hbm3/development/local-memory (first-try.sh, on the H100: stage 27 and
the first try at a stack in shared memory, built on 27).

Columns:
  warp inst       warp instructions issued (smsp__inst_executed.sum), G
  local ld, st    warp-level local-memory load and store instructions (SASS), G
  shared ld, st   warp-level shared-memory load and store instructions (SASS), G
  conflicts       shared-memory bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared), M
  L1              L1 sector hit rate (time-weighted)
  issue           smsp__issue_active: the share of cycles a scheduler issued an instruction
  kernel          the 16 launches' time under ncu, which runs them one at a time (at its
                  clock control's base clock, unless ncu-free-*)
Usage: python3 summary.py [FOLDER ...]"""

import glob
import os
import sys

# The data it reads and writes lies in results/reference/nvidia-h200/development/local-memory/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
HERE = os.path.join(REPO, "results", "reference", "nvidia-h200", "development", "local-memory")
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
from ncu_frame import read_launches, time_weighted, total  # noqa: E402


def profile(path):
    """Sums and time-weighted averages over the file's kernel launches."""
    launches = read_launches(path)
    t = lambda m: total(launches, m)
    return {
        "launches": len(launches), "time_ms": t("gpu__time_duration.sum") / 1e6,
        "clock_ghz": time_weighted(launches, "sm__cycles_elapsed.avg.per_second") / 1e9,
        "inst": t("smsp__inst_executed.sum"),
        "local_ld": t("smsp__sass_inst_executed_op_local_ld.sum"),
        "local_st": t("smsp__sass_inst_executed_op_local_st.sum"),
        "shared_ld": t("smsp__sass_inst_executed_op_shared_ld.sum"),
        "shared_st": t("smsp__sass_inst_executed_op_shared_st.sum"),
        "conflicts": t("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
        "l1": time_weighted(launches, "l1tex__t_sector_hit_rate.pct"),
        "issue": time_weighted(launches, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    }


def summarize(folder):
    head = ["stage-scene", "warp inst G", "local ld G", "local st G", "shared ld G",
            "shared st G", "conflicts M", "L1", "issue", "kernel ms (clock, launches)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for path in sorted(glob.glob(os.path.join(folder, "ncu-*.csv"))):
        p = profile(path)
        g = lambda k: f"{p[k] / 1e9:.2f}"
        out.append("| " + " | ".join([
            os.path.basename(path)[4:-4], f"{p['inst'] / 1e9:.1f}", g("local_ld"), g("local_st"),
            g("shared_ld"), g("shared_st"), f"{p['conflicts'] / 1e6:.1f}", f"{p['l1']:.1f}%",
            f"{p['issue']:.0f}%",
            f"{p['time_ms']:.1f} ({p['clock_ghz']:.2f} GHz, {p['launches']})"]) + " |")
    title = "# Local memory in the walk: Nsight Compute counters of one frame (summary.py)"
    text = "\n".join([title, ""] + out) + "\n"
    open(os.path.join(folder, "summary.txt"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    for folder in sys.argv[1:] or [HERE]:
        summarize(folder)
