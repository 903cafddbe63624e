#!/usr/bin/env bash
# Device run of side stage p08f (the reservoirs as an array of structs) against p08e (their
# structure of arrays), issue 50 item 7: build both, build/pt-reference and build/compare-images
# (sm_90); each stage's image against the other's and against build/pt-reference --estimator
# reservoirs, byte for byte, on scenes/pt-quick.scene (the verification scene), on the campaign's
# scenes/pt-many-lights.scene at its 1024x1024 and 2 samples, and on it at 1000x777 with 3 samples
# (a partial last block, two frames that merge the previous one); then ./run.sh --stages p8e,p8f
# --runs RUNS (default 3): verified, then timed interleaved, each run with its manifest's
# campaign-args (runs.csv.gz, summary.md; the whole campaign folder in campaign.tgz); the medians
# side by side (medians.txt); Nsight Compute on both kernels of frame
# 1 of each stage (duration, global load and store sectors per request, L2 and DRAM bytes:
# ncu-*.csv, ncu.txt; NCU=0 leaves it out); compute-sanitizer on both stages, pt-quick and a
# 100x77 copy of it (sanitizer.txt; SANITIZE=0 leaves it out). Logs in logs.tgz. Run from the
# repository root on the GPU machine with the device kit in .kit/, its tracked.txt and
# revision.txt made from this checkout (git ls-files; git describe --always --dirty).
set -u
A=p08e-reservoirs B=p08f-aos-reservoirs
# The machine keeps files between calls: what the checkout does not track goes, but only by a
# list that knows this stage (an older one would remove it).
if grep -qx "stages/$B/render.cu" .kit/tracked.txt 2>/dev/null; then
  find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
else
  echo "note: .kit/tracked.txt does not list stages/$B: no untracked file removed"
fi
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=/tmp/logs I=/tmp/images C=/tmp/campaign; rm -rf $I $C; mkdir -p $L $I
trap 'tar -czf "$OUT/logs.tgz" -C /tmp logs' EXIT
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee $L/gpu.txt "$OUT/env.txt"
CUDA_ARCH=90 make -j"$(nproc)" build/$A build/$B build/pt-reference build/compare-images >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
grep -E "Compiling|spill|Used" build/$A.resources.txt build/$B.resources.txt | sed 's/ptxas info *: //' | tee "$OUT/resources.txt"
echo "build $(el) s"

# The images, byte for byte (PPM: no compression to differ), and compare-images' count if not.
{ for run in "scenes/pt-quick.scene" "scenes/pt-many-lights.scene" "scenes/pt-many-lights.scene --size 1000x777 --samples 3"; do
    rm -f $I/*.ppm
    build/pt-reference --estimator reservoirs --scene $run --output $I/ref.ppm >/dev/null 2>>$L/images.err || echo "pt-reference $run: FAILED $(tail -1 $L/images.err)"
    for st in $A $B; do
      timeout 120 build/$st --scene $run --output $I/$st.ppm >/dev/null 2>>$L/images.err || echo "$st $run: FAILED $(tail -1 $L/images.err)"
    done
    cmp -s $I/$A.ppm $I/$B.ppm && echo "$run: $B identical to $A" || echo "$run: $B DIFFERS from $A: $(build/compare-images $I/$A.ppm $I/$B.ppm 2>&1 | head -1)"
    for st in $A $B; do
      cmp -s $I/ref.ppm $I/$st.ppm && echo "$run: $st identical to pt-reference --estimator reservoirs" \
        || echo "$run: $st DIFFERS from pt-reference --estimator reservoirs: $(build/compare-images $I/ref.ppm $I/$st.ppm 2>&1 | head -1)"
    done
  done; } | tee "$OUT/images.txt"
echo "images $(el) s"

# The timing: run.sh verifies both on pt-quick, then times them interleaved (run 1 of each, run 2
# of each, ...), each run `build/STAGE --scene scenes/pt-benchmark.scene --csv` and the words of
# its manifest's campaign-args (both: --scene scenes/pt-many-lights.scene).
for st in $A $B; do echo "$st campaign-args: $(tools/stages get $st campaign-args)"; done | tee "$OUT/campaign-args.txt"
timeout 400 ./run.sh --stages p8e,p8f --runs "${RUNS:-3}" --no-build --out $C >$L/run.log 2>&1
echo "run.sh rc=$? $(el) s"
d=$(dirname "$(ls $C/*/runs.csv.gz 2>/dev/null | head -1)")
cat $d/verify.txt 2>/dev/null
cp $d/summary.md "$OUT/summary.md" 2>/dev/null
cp $d/runs.csv.gz "$OUT/runs.csv.gz" 2>/dev/null  # beside summary.md, the runs it stands for
tar -czf "$OUT/campaign.tgz" -C /tmp campaign
python3 - "$d/runs.csv.gz" "$A" "$B" <<'PY' | tee "$OUT/medians.txt"
import csv, gzip, statistics, sys
path, a, b = sys.argv[1:4]
cells = {}
for r in csv.DictReader(gzip.open(path, 'rt')):
    if r['status'] == 'ok' and r.get('image') in (None, '', '-'):
        try:
            cells.setdefault((r['metric'], r['stage']), []).append(float(r['value']))
        except ValueError:
            pass
print('%-28s %14s %14s %8s %s' % ('metric (medians)', a[:14], b[:14], b[:4] + '/' + a[:4], 'runs'))
for m in ('kernel_events', 'total', 'device_allocation', 'samples_per_second', 'rays_per_second',
          'registers', 'theoretical_occupancy'):
    if (m, a) in cells and (m, b) in cells:
        x, y = statistics.median(cells[(m, a)]), statistics.median(cells[(m, b)])
        print('%-28s %14.1f %14.1f %8.4f %d/%d' % (m, x, y, y / x if x else float('nan'),
                                                   len(cells[(m, a)]), len(cells[(m, b)])))
for st in (a, b):
    print(st, 'kernel_events, every run:', ' '.join('%.1f' % v for v in cells.get(('kernel_events', st), [])))
PY
echo "timing $(el) s"

# Nsight Compute: both kernels of frame 1 (launches 2 and 3 of the two names; empty_kernel is not
# matched), on the campaign scene. Sectors per request of the global loads and stores should rise
# about sevenfold in p08f on a warp's own pixels; L2 and DRAM bytes should not move much.
if [ "${NCU:-1}" = 1 ]; then
  M=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
  for st in $A $B; do
    timeout 150 ncu --metrics $M -k regex:'^(initial_ris_kernel|path_kernel)$' --launch-skip 2 --launch-count 2 --csv \
        build/$st --scene scenes/pt-many-lights.scene --samples 2 >"$OUT/ncu-$st.csv" 2>$L/ncu-$st.log
    echo "ncu $st rc=$? $(el) s"
  done
  for st in $A $B; do
    awk -F'","' -v st=$st '/gpu__|l1tex__|lts__|dram__|sm__/ {
        k = $5; sub(/\(.*/, "", k); gsub(/"/, "", $1); gsub(/"/, "", $NF); print st, "launch " $1, k, $(NF-2), $(NF-1), $NF }' "$OUT/ncu-$st.csv"
  done | tee "$OUT/ncu.txt"
fi

# compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on both, on pt-quick and on a
# 100x77 copy of it: 7,700 pixels, a partial last block of 20 threads.
if [ "${SANITIZE:-1}" = 1 ]; then
  sed 's/^size .*/size 100 77/' scenes/pt-quick.scene >/tmp/pt-odd.scene
  RESULTS=/tmp/sanitize SANITIZE_STAGES="$A $B" SANITIZE_PT_SCENES="scenes/pt-quick.scene /tmp/pt-odd.scene" SANITIZE_JOBS=8 SANITIZE_TIMEOUT=200 \
      timeout 300 tools/sanitize.sh >$L/sanitize.log 2>&1
  echo "sanitize rc=$? $(el) s"
  cp /tmp/sanitize/*/sanitizer.txt "$OUT/sanitizer.txt" 2>/dev/null && tail -12 "$OUT/sanitizer.txt"
fi
