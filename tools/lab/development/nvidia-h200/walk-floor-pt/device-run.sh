#!/usr/bin/env bash
# Device run of the path tracer's walk stages (p16, p17, p17a) in development: build, every
# new stage's image at full size against p15's on the track's scaling scenes, the differential
# test, then a short scaling campaign (RUNS interleaved runs of each pair). Run from the repository root on the
# GPU machine with the device kit in .kit/ (setup.sh and its Debian packages); logs under $OUT.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs" "$OUT/images"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
SPEC=${SPEC:-p15-17}
STAGES=$(tools/stages select "$SPEC")
CUDA_ARCH=90 make -j16 $(for s in $STAGES; do echo build/$s; done) build/pt-reference build/cpu-reference \
    build/compare-images scenes ${EXTRA_TARGETS:-} >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
for s in $STAGES; do grep -A3 "persistent_kernel" "build/$s.resources.txt" | grep -m1 Used | sed "s/^/$s: /"; done
# Full size: every stage's image against the first stage's (p15 is the reference's in every campaign).
first=$(echo "$STAGES" | head -1)
for scene in scenes/pt-benchmark.scene build/scenes/pt-random-1k.scene build/scenes/pt-random-10k.scene build/scenes/pt-random-100k.scene; do
  name=$(basename "$scene" .scene)
  for s in $STAGES; do
    "build/$s" --scene "$scene" --output "$OUT/images/$s-$name.ppm" >/dev/null 2>"$OUT/logs/$s-$name.err" || echo "$s $name: FAILED $(cat "$OUT/logs/$s-$name.err")"
  done
  for s in $STAGES; do
    if cmp -s "$OUT/images/$first-$name.ppm" "$OUT/images/$s-$name.ppm"; then echo "$name $s: identical to $first"; else echo "$name $s: DIFFERS from $first"; fi
  done
done | tee "$OUT/full-size.txt"
rm -f "$OUT"/images/*.ppm
echo "full size $(el) s"
timeout $(( ${DIFF_END:-300} - $(el) )) tools/difftest.sh --seeds "${SEEDS:-24}" --stages "$SPEC" --jobs 16 >"$OUT/difftest.txt" 2>&1
echo "difftest rc=$? $(el) s: $(tail -1 "$OUT/difftest.txt")"
timeout $(( ${END:-585} - $(el) )) tools/scaling.sh --track pt --stages "$SPEC" --runs "${RUNS:-10}" --out "$OUT/results" >"$OUT/logs/scaling.log" 2>&1
echo "scaling rc=$? $(el) s"
cat "$OUT"/results/*/pt-scaling/summary.md 2>/dev/null | sed -n 1,20p
