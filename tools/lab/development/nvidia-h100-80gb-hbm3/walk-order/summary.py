#!/usr/bin/env python3
"""The walk's order and the warp's rays, from Nsight Compute's counters (ncu --metrics): for each
ncu-*.csv in this folder (device-run.sh, 2026-11-27, on the H100: stages 28-registers-not-arrays,
29-only-far-child-pushed and 30-warp-tiles), the render kernel's 16 launches of one frame summed
(time-weighted for rates). Writes summary.txt beside this file and prints it; given a FOLDER,
reads that folder's ncu-*.csv and writes its summary.txt instead (../packets: stages 30 and 30a,
still called 31-primary-ray-packets in its files).

Columns:
  warp inst     warp instructions issued (smsp__inst_executed.sum), G
  lanes         the share of a warp's 32 lanes that execute an issued instruction
                (smsp__thread_inst_executed.sum / 32 warp instructions)
  local ld, st  warp-level local-memory load and store instructions (SASS), G
  global ld     warp-level global-memory load instructions (SASS), G
  L1            L1 sector hit rate (time-weighted)
  issue         smsp__issue_active: the share of cycles a scheduler issued an instruction
  kernel        the 16 launches' time under ncu, which runs them one at a time at its clock
                control's base clock: compare stages by their counters, not by these times
Usage: python3 summary.py [FOLDER]"""

import glob
import os
import sys

# The data it reads and writes lies in results/reference/nvidia-h100-80gb-hbm3/development/walk-order/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
HERE = os.path.join(REPO, "results", "reference", "nvidia-h100-80gb-hbm3", "development", "walk-order")
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
        "lanes": t("smsp__thread_inst_executed.sum") / (32 * t("smsp__inst_executed.sum")),
        "local_ld": t("smsp__sass_inst_executed_op_local_ld.sum"),
        "local_st": t("smsp__sass_inst_executed_op_local_st.sum"),
        "global_ld": t("smsp__sass_inst_executed_op_global_ld.sum"),
        "l1": time_weighted(launches, "l1tex__t_sector_hit_rate.pct"),
        "issue": time_weighted(launches, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    }


def main():
    head = ["stage-scene", "warp inst G", "lanes", "local ld G", "local st G", "global ld G",
            "L1", "issue", "kernel ms (clock, launches)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    folder = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for path in sorted(glob.glob(os.path.join(folder, "ncu-*.csv"))):
        p = profile(path)
        g = lambda k: f"{p[k] / 1e9:.2f}"
        out.append("| " + " | ".join([
            os.path.basename(path)[4:-4], f"{p['inst'] / 1e9:.1f}", f"{100 * p['lanes']:.0f}%",
            g("local_ld"), g("local_st"), g("global_ld"), f"{p['l1']:.1f}%", f"{p['issue']:.0f}%",
            f"{p['time_ms']:.1f} ({p['clock_ghz']:.2f} GHz, {p['launches']})"]) + " |")
    title = "# Nsight Compute counters of one frame (walk-order/summary.py)"
    text = "\n".join([title, ""] + out) + "\n"
    open(os.path.join(folder, "summary.txt"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
