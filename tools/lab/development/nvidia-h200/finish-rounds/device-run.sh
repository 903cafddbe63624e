#!/usr/bin/env bash
# Device run of a question for chapter 5's build: stage 34's last rounds run in one block of 1,024
# threads (finish_kernel, stage 26's build.cuh) once FINISH_CLUSTERS = 1,024 x FINISH_PER_THREAD
# (4: 4,096) or fewer clusters are left, and Nsight Compute gives that block nearly half of the
# build of 100,000 spheres. Is the block bound by the work of its first rounds, which the whole GPU
# could share? Stage 34 built with FINISH_PER_THREAD 1, 2 and 4 (the line `#define
# FINISH_PER_THREAD 4` of stages/26-clustered-build/build.cuh changed by sed in a copy of the tree a
# variant); each variant's image at 8192x8192 against the default's on random-100k and
# clustered-100k; RUNS interleaved rounds (default 5) on random-10k, random-100k and clustered-100k:
# kernel_events and the build phase (`build`), µs, into variants.csv (medians in variants.txt);
# then Nsight Compute's duration of every kernel of each variant's build of random-100k (at 64x64),
# summed by kernel (build-kernels.txt, by ../wider-search/build_kernels.py). Logs in logs.tgz.
# Run from the repository root on the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs; mkdir -p $L
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
B=34-wider-search
VARIANTS=${VARIANTS:-1 2 4}
CUDA_ARCH=90 make -j4 scenes >$L/scenes.log 2>&1 || { tail -20 $L/scenes.log; exit 1; }
for v in $VARIANTS; do
  ( rm -rf /tmp/f$v && mkdir -p /tmp/f$v && grep -v '^results/' .kit/tracked.txt | tar -cf - -T - | tar -xf - -C /tmp/f$v
    cd /tmp/f$v && sed -i "s/^#define FINISH_PER_THREAD 4\$/#define FINISH_PER_THREAD $v/" stages/26-clustered-build/build.cuh
    grep -q "^#define FINISH_PER_THREAD $v\$" stages/26-clustered-build/build.cuh || echo "f$v: sed did not apply"
    CUDA_ARCH=90 make -j4 build/$B >$L/build-f$v.log 2>&1 || tail -5 $L/build-f$v.log ) &
done
wait
echo "build $(el) s"
s=build/scenes
for scene in $s/random-100k.scene $s/clustered-100k.scene; do
  for v in $VARIANTS; do timeout 60 /tmp/f$v/build/$B --scene $scene --output /tmp/img-f$v.ppm >/dev/null 2>$L/full.err || echo "f$v $scene: FAILED $(head -1 $L/full.err)"; done
  for v in $VARIANTS; do [ "$v" = 4 ] && continue
    cmp -s /tmp/img-f4.ppm /tmp/img-f$v.ppm && echo "$scene: FINISH_PER_THREAD $v identical to 4" || echo "$scene: FINISH_PER_THREAD $v DIFFERS from 4"; done
done | tee "$OUT/full-size.txt"
echo "images $(el) s"
{ echo "variant,scene,run,kernel_events_us,build_us"
  for run in $(seq "${RUNS:-5}"); do for scene in $s/random-10k.scene $s/random-100k.scene $s/clustered-100k.scene; do
    for v in $VARIANTS; do
      echo "$v,$(basename $scene .scene),$run,$(/tmp/f$v/build/$B --scene $scene --csv 2>/dev/null | awk -F, '$(NF-2) == "kernel_events" {k=$(NF-1)} $(NF-2) == "build" {a=$(NF-1)} END {print k "," a}')"
    done; done; done; } > "$OUT/variants.csv"
echo "variants $(el) s"
python3 - "$OUT/variants.csv" <<'PY' | tee "$OUT/variants.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print('medians in us over interleaved runs; variant: FINISH_PER_THREAD')
print('scene'.ljust(16) + 'variant'.rjust(8) + 'runs'.rjust(6) + 'kernel_events'.rjust(16) + 'build'.rjust(10))
for scene in dict.fromkeys(r['scene'] for r in rows):
    for v in dict.fromkeys(r['variant'] for r in rows):
        cell = [r for r in rows if r['scene'] == scene and r['variant'] == v]
        k = statistics.median(float(r['kernel_events_us']) for r in cell)
        b = statistics.median(float(r['build_us']) for r in cell)
        print(scene.ljust(16) + v.rjust(8) + str(len(cell)).rjust(6) + ('%.1f' % k).rjust(16) + ('%.1f' % b).rjust(10))
PY
{ for v in $VARIANTS; do
    timeout 120 ncu --metrics gpu__time_duration.sum --csv -k regex:'leaf|centre|morton|nearest|merge|finish|Select|Radix|Scan|Init' /tmp/f$v/build/$B --scene $s/random-100k.scene --size 64x64 --output /tmp/n.ppm >$L/ncu-f$v.csv 2>$L/ncu-f$v.err
    python3 tools/lab/development/nvidia-h200/wider-search/build_kernels.py "FINISH_PER_THREAD $v" $L/ncu-f$v.csv
  done; } 2>&1 | tee "$OUT/build-kernels.txt"
echo "build kernels $(el) s"
