#!/usr/bin/env bash
# Device run of side stage p07b (seed 002's two kernels, regeneration and extension, on p07a's
# streams) against p07a (three kernels) and p07 (the wavefront), issue 50 item 8: build the three,
# build/pt-reference and build/compare-images (sm_90); each stage's image against
# build/pt-reference (estimator path) byte for byte, and p07b's against p07a's, on
# scenes/pt-quick.scene (the verification scene), on scenes/pt-benchmark.scene (the campaign's,
# 1024x1024, 2 samples) and on it at 1000x777 with 3 samples (a partial last block, a third frame
# in the streams); then ./run.sh --stages p7,p7a,p7b --runs RUNS (default 5): verified, then timed
# interleaved (runs.csv.gz, summary.md; the campaign folder in campaign.tgz), the medians side by
# side with the streams' metrics stream_capacity, iterations and empty_iterations (medians.txt);
# Nsight Compute on iteration 1's extension: p07a's intersect_kernel and scatter_kernel, p07b's
# extend_kernel (duration, DRAM bytes, global load and store sectors, lanes busy: ncu-*.csv,
# ncu.txt; NCU=0 leaves it out); compute-sanitizer on p07b, pt-quick and a 100x77 copy of it
# (sanitizer.txt; SANITIZE=0 leaves it out). Logs in logs.tgz. About two minutes. Run from the
# repository root on the GPU machine with the device kit in .kit/, its tracked.txt and
# revision.txt made from this checkout (git ls-files; git describe --always --dirty).
set -u
P=p07-constant-scene A=p07a-device-compaction B=p07b-two-kernel-streaming
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
CUDA_ARCH=90 make -j"$(nproc)" build/$P build/$A build/$B build/pt-reference build/compare-images >$L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
grep -E "Compiling|spill|Used" build/$A.resources.txt build/$B.resources.txt | sed 's/ptxas info *: //' | tee "$OUT/resources.txt"
echo "build $(el) s"

# The images, byte for byte (PPM: no compression to differ), and compare-images' count if not.
{ for run in "scenes/pt-quick.scene" "scenes/pt-benchmark.scene" "scenes/pt-benchmark.scene --size 1000x777 --samples 3"; do
    rm -f $I/*.ppm
    build/pt-reference --scene $run --output $I/ref.ppm >/dev/null 2>>$L/images.err || echo "pt-reference $run: FAILED $(tail -1 $L/images.err)"
    for st in $P $A $B; do
      timeout 60 build/$st --scene $run --output $I/$st.ppm >/dev/null 2>>$L/images.err || echo "$st $run: FAILED $(tail -1 $L/images.err)"
    done
    cmp -s $I/$A.ppm $I/$B.ppm && echo "$run: $B identical to $A" || echo "$run: $B DIFFERS from $A: $(build/compare-images $I/$A.ppm $I/$B.ppm 2>&1 | head -1)"
    for st in $P $A $B; do
      cmp -s $I/ref.ppm $I/$st.ppm && echo "$run: $st identical to pt-reference" \
        || echo "$run: $st DIFFERS from pt-reference: $(build/compare-images $I/ref.ppm $I/$st.ppm 2>&1 | head -1)"
    done
  done
  build/$B --record /tmp/rec 2>&1 | head -1; echo "(--record: refused, status ${PIPESTATUS[0]}, want 2)"; } | tee "$OUT/images.txt"
echo "images $(el) s"

# The timing: run.sh verifies the three on pt-quick, then times them interleaved (run 1 of each,
# run 2 of each, ...), each run `build/STAGE --scene scenes/pt-benchmark.scene --csv`.
timeout 300 ./run.sh --stages p7,p7a,p7b --runs "${RUNS:-5}" --no-build --out $C >$L/run.log 2>&1
echo "run.sh rc=$? $(el) s"
d=$(dirname "$(ls $C/*/runs.csv.gz 2>/dev/null | head -1)")
cat $d/verify.txt 2>/dev/null
cp $d/summary.md "$OUT/summary.md" 2>/dev/null
cp $d/runs.csv.gz "$OUT/runs.csv.gz" 2>/dev/null  # beside summary.md, the runs it stands for
tar -czf "$OUT/campaign.tgz" -C /tmp campaign
python3 - "$d/runs.csv.gz" "$P" "$A" "$B" <<'PY' | tee "$OUT/medians.txt"
import csv, gzip, statistics, sys
path, stages = sys.argv[1], sys.argv[2:]
cells = {}
for r in csv.DictReader(gzip.open(path, 'rt')):
    if r['status'] == 'ok' and r.get('image') in (None, '', '-'):
        try:
            cells.setdefault((r['metric'], r['stage']), []).append(float(r['value']))
        except ValueError:
            pass
print('%-24s' % 'metric (medians)' + ''.join('%16s' % s[:16] for s in stages) + '   p07b/p07a  p07b/p07  runs')
for m in ('kernel_events', 'rays_per_second', 'total', 'device_allocation', 'registers',
          'theoretical_occupancy', 'stream_capacity', 'iterations', 'empty_iterations'):
    med = [statistics.median(cells[(m, s)]) if (m, s) in cells else float('nan') for s in stages]
    ratio = lambda x, y: x / y if y == y and y else float('nan')
    print('%-24s' % m + ''.join('%16.1f' % v for v in med) + '%12.4f%10.4f  %s' % (
        ratio(med[2], med[1]), ratio(med[2], med[0]), '/'.join(str(len(cells.get((m, s), []))) for s in stages)))
for s in stages:
    print(s, 'kernel_events, every run:', ' '.join('%.1f' % v for v in cells.get(('kernel_events', s), [])))
PY
echo "timing $(el) s"

# Nsight Compute, iteration 1 (the survivors of iteration 0 and new paths): p07a's intersection
# and scatter kernels (launches 2 and 3 of the two names), p07b's extension kernel (launch 1).
if [ "${NCU:-1}" = 1 ]; then
  M=gpu__time_duration.sum,launch__registers_per_thread,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__thread_inst_executed_per_inst_executed.ratio,sm__throughput.avg.pct_of_peak_sustained_elapsed
  timeout 60 ncu --metrics $M -k regex:'^(intersect_kernel|scatter_kernel)$' --launch-skip 2 --launch-count 2 --csv \
      build/$A --scene scenes/pt-benchmark.scene >"$OUT/ncu-$A.csv" 2>$L/ncu-$A.log
  echo "ncu $A rc=$? $(el) s"
  timeout 60 ncu --metrics $M -k regex:'^extend_kernel$' --launch-skip 1 --launch-count 1 --csv \
      build/$B --scene scenes/pt-benchmark.scene >"$OUT/ncu-$B.csv" 2>$L/ncu-$B.log
  echo "ncu $B rc=$? $(el) s"
  for st in $A $B; do
    awk -F'","' -v st=$st '/gpu__|launch__|l1tex__|dram__|smsp__|sm__/ {
        k = $5; sub(/\(.*/, "", k); gsub(/"/, "", $1); gsub(/"/, "", $NF); print st, "launch " $1, k, $(NF-2), $(NF-1), $NF }' "$OUT/ncu-$st.csv"
  done | tee "$OUT/ncu.txt"
fi

# compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on p07b, on pt-quick and on a
# 100x77 copy of it: 7,700 pixels, a partial last block of 20 threads, a stream smaller than a GPU.
if [ "${SANITIZE:-1}" = 1 ]; then
  sed 's/^size .*/size 100 77/' scenes/pt-quick.scene >/tmp/pt-odd.scene
  RESULTS=/tmp/sanitize SANITIZE_STAGES="$B" SANITIZE_PT_SCENES="scenes/pt-quick.scene /tmp/pt-odd.scene" SANITIZE_JOBS=8 SANITIZE_TIMEOUT=150 \
      timeout 200 tools/sanitize.sh >$L/sanitize.log 2>&1
  echo "sanitize rc=$? $(el) s"
  cp /tmp/sanitize/*/sanitizer.txt "$OUT/sanitizer.txt" 2>/dev/null && tail -12 "$OUT/sanitizer.txt"
fi
