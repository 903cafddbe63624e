#!/usr/bin/env bash
# Device run: Nsight Compute's counters of one frame of each path-tracing walk stage (p15-p17a) on
# pt-random-100k (persistent_kernel, its one launch), as CSV under $OUT/counters/; then, with
# TESTS set, those test programs (make test's, with their logs; TARGETS: what they need built). Run from the repository root on
# the GPU machine with the device kit in .kit/.
set -u
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs" "$OUT/counters"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; ncu --version | tail -1; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
STAGES=$(tools/stages select "${SPEC:-p15-17}")
CUDA_ARCH=90 make -j"$(nproc)" $(echo "$STAGES" | sed 's|^|build/|') scenes ${TARGETS:-} >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
echo "build $(el) s"
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sector_hit_rate.pct,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
for s in $STAGES; do
  ncu --metrics "$metrics" --kernel-name persistent_kernel --launch-count 1 --csv "build/$s" --scene build/scenes/pt-random-100k.scene \
      >"$OUT/counters/$s.csv" 2>"$OUT/logs/$s.ncu.log" || echo "$s: ncu failed: $(tail -3 "$OUT/logs/$s.ncu.log")"
  echo "$s $(el) s"
done
python3 - "$OUT"/counters/*.csv <<'PY' | tee "$OUT/counters/summary.txt"
import csv, sys
rows = {}
for path in sys.argv[1:]:
    stage = path.rsplit('/', 1)[1][:-4]
    lines = [l for l in open(path) if l.startswith('"')]
    for r in csv.DictReader(lines):
        rows.setdefault(stage, {})[r['Metric Name']] = (r['Metric Value'], r['Metric Unit'])
names = sorted({m for v in rows.values() for m in v})
print('metric\t' + '\t'.join(rows))
for m in names:
    print(m + '\t' + '\t'.join(rows[s].get(m, ('-', ''))[0] + ' ' + rows[s].get(m, ('', ''))[1] for s in rows))
PY
if [ -n "${TESTS:-}" ]; then
  for t in $TESTS; do s=$(date +%s); BUILD=build timeout $(( ${END:-580} - $(el) )) tests/run-tests.sh "build/tests/$t" >"$OUT/logs/$t.log" 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(tail -1 "$OUT/logs/$t.log")"; done
fi
