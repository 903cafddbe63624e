#!/usr/bin/env bash
# Device run of side stage 33e (refilled lanes) in development: build, with variants of its refill
# threshold (-DREFILL_LANES=1, 4, 16, 32; the default is 8) and of its register budget
# (-DBLOCKS_PER_SM_MIN=4: 64 registers); every build's image at 8192x8192 against stage 33's on the
# benchmark, 10,000 random spheres and both 100,000-sphere scenes, and at an odd size and block
# (1000x777, --block 10x3: warps of 30 lanes, tiles cut by the edges); the differential test on
# 34; kernel_events of every build (3 runs a scene, interleaved, µs); Nsight
# Compute's lanes per warp instruction and warp instructions of the first band's kernel of 33 and
# 34 on random-100k at 8192x8192; then the exactness record of every stage (tools/compare-stages.sh).
# Logs in logs.tgz.
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
A=33-branch-free-boxes B=33e-refilled-lanes
VARIANTS=${VARIANTS:-"r1:-DREFILL_LANES=1 r4:-DREFILL_LANES=4 r16:-DREFILL_LANES=16 r32:-DREFILL_LANES=32 b4:-DBLOCKS_PER_SM_MIN=4"}
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/01-base build/cpu-reference build/compare-images build/tests/test_gpu_stages scenes >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
bins="build/$A build/$B"
for v in $VARIANTS; do
  name=${v%%:*} flags=${v#*:}
  ( NVCCFLAGS="-O3 $flags" CUDA_ARCH=90 make BUILD=build-$name build-$name/$B >$L/build-$name.log 2>&1 || tail -5 $L/build-$name.log ) &
  bins+=" build-$name/$B"
done
wait
for v in $VARIANTS; do name=${v%%:*}; grep -A3 render_kernel build-$name/$B.resources.txt | grep -E "spill|Used" | sed "s/^/$name: /"; done
grep -A3 render_kernel build/$B.resources.txt | grep -E "spill|Used" | sed "s/^/default: /"
echo "build $(el) s"
s=build/scenes
{ for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
  for args in "" "--size 1000x777 --block 10x3"; do
    ref=/tmp/ref.ppm
    timeout 60 build/$A --scene $scene $args --output $ref >/dev/null 2>$L/full.err || echo "$A $scene $args: FAILED $(head -1 $L/full.err)"
    for b in $bins; do
      [ $b = build/$A ] && continue
      timeout 60 $b --scene $scene $args --output /tmp/out.ppm >/dev/null 2>$L/full.err || echo "$b $scene $args: FAILED $(head -1 $L/full.err)"
      cmp -s $ref /tmp/out.ppm && echo "$scene $args: $b identical to 33" || echo "$scene $args: $b DIFFERS from 33"
    done
  done
done; } | tee "$OUT/full-size.txt"
echo "full size $(el) s"
timeout 100 tools/difftest.sh --seeds "${SEEDS:-48}" --stages 34 --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
{ echo "variant,scene,run,kernel_events_us"
  for run in 1 2 3; do for scene in scenes/benchmark.scene $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
    for b in $bins; do
      echo "$(echo $b | tr / _),$(basename $scene .scene),$run,$($b --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} END {print k}')"
    done; done; done; } > "$OUT/variants.csv"
echo "variants $(el) s"
python3 - "$OUT/variants.csv" <<'PY'
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {}
for r in rows:
    if r['kernel_events_us']:
        cells.setdefault((r['variant'], r['scene']), []).append(float(r['kernel_events_us']))
scenes = sorted({s for _, s in cells})
print('variant'.ljust(34) + ''.join(s[:14].rjust(16) for s in scenes))
for v in dict.fromkeys(r['variant'] for r in rows):
    print(v.ljust(34) + ''.join(('%.2f' % (statistics.median(cells[(v, s)]) / 1000) if (v, s) in cells else '-').rjust(16) for s in scenes))
PY
for st in $A $B; do
  id=${st%%-*}
  timeout 120 ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
      -k regex:render_kernel -c 1 --csv build/$st --scene $s/random-100k.scene >"$OUT/lanes$id.csv" 2>$L/ncu$id.log
  echo "ncu $st rc=$? $(el) s"; grep -E "thread_inst|inst_executed.sum|duration|warps_active" "$OUT/lanes$id.csv" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
# The exactness record at full size, every stage of both tracks (33e with them).
CUDA_ARCH=90 make -j"$(nproc)" all >$L/build-all.log 2>&1 || tail -5 $L/build-all.log
COMPARE_JOBS=8 timeout $(( ${END:-570} - $(el) )) tools/compare-stages.sh >"$OUT/compare-stages.txt" 2>$L/compare.err
echo "compare-stages rc=$? $(el) s, $(wc -l <"$OUT/compare-stages.txt") lines; not exact: $(grep -c '^[0-9p].*differing pixels: [1-9]' "$OUT/compare-stages.txt")"
