#!/usr/bin/env python3
"""The walk's floor, from Nsight Compute's counters (ncu --metrics, device-run.sh, H100,
2026-11-26): for each stage and scene, the render kernel's launches of one frame summed
(16 bands in the main track's stages, one persistent launch in the path tracer's), divided by the
rays the stage reports (its `rays traced`). Writes summary.txt beside this file. The stage
26a-four-wide-tree was called 27-four-wide-tree when these were taken (its files are renamed; the
programs' own output inside still says 27). device-run.sh also checked that stage's exactness
(dev26.sh: test_big_scenes, TREE_STACK 4 and 8: every image identical) before profiling.
The files of 27-cone-box-test come from device-run-27.sh (2026-11-26, eighth session: the stage
as committed; dev26-27.txt its exactness and timing, dev26-27-draft.txt the draft's before it).

Columns:
  rays          the frame's rays (primary, shadow, reflection, the reflection's shadow)
  warp inst     warp instructions issued (smsp__inst_executed.sum), G
  thread inst   thread instructions (smsp__thread_inst_executed.sum), G
  per ray       thread instructions per ray
  lanes         thread inst / (32 x warp inst): the share of a warp's lanes doing work
  issue         smsp__issue_active: the share of cycles a scheduler issued an instruction
  occupancy     sm__warps_active, of the 64 warps an SM holds
  L1, L2        sector hit rates (averages weighted by each launch's time)
  kernel        the launches' time under ncu (its clock control holds the SM clock at base)
  issue floor   warp inst / (132 SMs x 4 schedulers x 1.98 GHz): the kernel if every scheduler
                issued every cycle at the boost clock, with the same instructions and lanes
  lane floor    thread inst / (132 x 4 x 32 x 1.98 GHz): the same with every lane of every
                warp busy (perfect coherence), the least time these instructions can take
Usage: python3 summary.py"""

import glob
import os
import re
import sys

# The data it reads and writes lies in results/reference/nvidia-h100-80gb-hbm3/development/walk-floor/.
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..")
HERE = os.path.join(REPO, "results", "reference", "nvidia-h100-80gb-hbm3", "development", "walk-floor")
sys.path.insert(0, os.path.join(REPO, "tools", "lab"))
from ncu_frame import read_launches, time_weighted, total  # noqa: E402

SCHEDULERS = 132 * 4      # H100 SXM: 132 SMs of 4 schedulers, one warp instruction a cycle each
BOOST_HZ = 1.98e9         # gpu.txt: clocks.max.sm 1980 MHz


def profile(path):
    """Sums and time-weighted averages over the file's kernel launches, and its rays."""
    text = open(path).read()
    rays = int(re.search(r"(\d+) rays traced", text).group(1)) if "rays traced" in text else None
    launches = read_launches(path)
    t = lambda m: total(launches, m)
    w = lambda m: time_weighted(launches, m)
    return {
        "launches": len(launches), "rays": rays, "time_ms": t("gpu__time_duration.sum") / 1e6,
        "clock_ghz": w("sm__cycles_elapsed.avg.per_second") / 1e9,
        "inst": t("smsp__inst_executed.sum"), "thread": t("smsp__thread_inst_executed.sum"),
        "issue": w("smsp__issue_active.avg.pct_of_peak_sustained_active"),
        "occupancy": w("sm__warps_active.avg.pct_of_peak_sustained_active"),
        "l1": w("l1tex__t_sector_hit_rate.pct"), "l2": w("lts__t_sector_hit_rate.pct"),
        "local": t("smsp__sass_inst_executed_op_local_ld.sum")
        + t("smsp__sass_inst_executed_op_local_st.sum"),
    }


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "ncu-*.csv"))):
        name = os.path.basename(path)[4:-4]
        p = profile(path)
        issue_floor = p["inst"] / SCHEDULERS / BOOST_HZ * 1e3
        lane_floor = p["thread"] / SCHEDULERS / 32 / BOOST_HZ * 1e3
        rays = p["rays"]
        rows.append([name, f"{rays / 1e6:.0f} M" if rays else "-", f"{p['inst'] / 1e9:.2f}",
                     f"{p['thread'] / 1e9:.1f}", f"{p['thread'] / rays:.0f}" if rays else "-",
                     f"{100 * p['thread'] / (32 * p['inst']):.0f}%", f"{p['issue']:.0f}%",
                     f"{p['occupancy']:.0f}%", f"{p['l1']:.0f}%", f"{p['l2']:.0f}%",
                     f"{p['local'] / 1e6:.0f} M",
                     f"{p['time_ms']:.1f} ({p['clock_ghz']:.2f} GHz, {p['launches']})",
                     f"{issue_floor:.1f}", f"{lane_floor:.1f}"])
    head = ["stage-scene", "rays", "warp inst G", "thread inst G", "per ray", "lanes", "issue",
            "occupancy", "L1", "L2", "local ld+st", "kernel ms (clock, launches)",
            "issue floor ms", "lane floor ms"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(["# The walk's floor: Nsight Compute counters of one frame (summary.py)", ""] + out) + "\n"
    open(os.path.join(HERE, "summary.txt"), "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
