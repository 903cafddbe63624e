#!/usr/bin/env bash
# Device run of the reference profiles the course lacks (issue 49): tools/profile.sh on each stage
# of SPEC (default: the main track's 22-33, then the path-tracing track's every stage), built with
# -lineinfo in one parallel make first, profiled one at a time until END seconds (default 560) have
# passed; the profiles (.ncu-rep.xz, .raw.csv, .profile.txt, .provenance.tsv) packed as
# $OUT/profiles-<gpu-slug>.tgz, to be unpacked into results/reference/<gpu-slug>/profiles/. A stage
# already profiled (its .profile.txt carried back in .kit/profiles-<gpu-slug>/) is skipped, so the
# calls go on where the last stopped. Run from the repository root on the GPU machine with the
# device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
slug=$(tools/runner/slug.sh "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)")
out=/tmp/profiles-$slug; mkdir -p "$out"
[ -d ".kit/profiles-$slug" ] && cp -R ".kit/profiles-$slug/." "$out/"
stages=$(tools/stages select "${SPEC:-22-33}"; [ -n "${SPEC:-}" ] || tools/stages list pt)
NVCCFLAGS="-O3 -lineinfo" CUDA_ARCH=90 make -j"$(nproc)" --no-print-directory BUILD=build-lineinfo \
    $(for s in $stages; do printf 'build-lineinfo/%s ' "$s"; done) >"$OUT/logs/build.log" 2>&1 || tail -20 "$OUT/logs/build.log"
echo "build $(el) s"
for s in $stages; do
  [ -s "$out/$s.profile.txt" ] && continue
  [ "$(el)" -lt "${END:-560}" ] || { echo "stopped at $s: time"; break; }
  CUDA_ARCH=90 timeout 240 tools/profile.sh --out "$out" "$s" >"$OUT/logs/$s.log" 2>&1 && echo "profiled $s $(el) s" || echo "FAILED $s (logs/$s.log)"
  rm -f "$out/$s.ncu-rep"
done
tar -czf "$OUT/profiles-$slug.tgz" -C /tmp "profiles-$slug"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
