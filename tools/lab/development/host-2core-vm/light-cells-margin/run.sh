#!/usr/bin/env bash
# Rebuilds the CPU emulation of stage 14's light cells (emu.c) and reruns everything in REPORT.md:
# which random scenes (tools/random-scene.py, main track, seeds 1-10000) give a shadow decision
# that differs from the CPU reference's, with stage 14's bins and with the margin of
# light-margin.diff; and the benchmark's bins. CPU only, about 3 minutes on 2 cores. Run from the
# repository's root after `make build/cpu-reference build/compare-images`; work goes to $WORK.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
work="${WORK:-/tmp/light-cells-margin}"
mkdir -p "$work/scenes" "$work/scenes2"
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-function -ffp-contract=off \
    -I"$repo/common" -o "$work/emu" "$here/emu.c" "$repo/build/libcommon.a" -lm
(cd "$repo" && python3 tools/random-scene.py --track main --seeds "$(seq -s, 1 2000)" --out-dir "$work/scenes" \
   && python3 tools/random-scene.py --track main --seeds "$(seq -s, 2001 10000)" --out-dir "$work/scenes2")
cd "$work"
seq 1 2000 | xargs -P "$(nproc)" -I{} sh -c 'echo "{} $(./emu scenes/main-seed-{}.scene)"' > results.txt
seq 2001 10000 | xargs -P "$(nproc)" -I{} sh -c 'echo "{} $(./emu scenes2/main-seed-{}.scene)"' > results2.txt
python3 "$here/summarize.py" results.txt > summary-1-2000.txt
python3 "$here/summarize.py" results2.txt > summary-2001-10000.txt
./emu --bench "$repo/scenes/benchmark.scene" 512 > bench.txt
# Seed 60: the emulated reference against cpu-reference (0 differing pixels), and the emulated
# stage 14 against it (46, as the GPU).
./emu scenes/main-seed-60.scene r60.ppm s60.ppm
"$repo/build/cpu-reference" --scene scenes/main-seed-60.scene --threads 1 --output cref60.ppm > /dev/null
"$repo/build/compare-images" cref60.ppm r60.ppm || true
"$repo/build/compare-images" cref60.ppm s60.ppm || true
