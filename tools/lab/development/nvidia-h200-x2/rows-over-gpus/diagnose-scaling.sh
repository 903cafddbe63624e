#!/usr/bin/env bash
# Why two GPUs take random-1k's kernel from 33 ms only to 28 ms: each band kernel's duration under
# Nsight Compute (kernels serialised, one at a time) with --gpus 1 and --gpus 2, summed per
# device; each GPU alone on the whole frame (--device 0 and --device 1, --gpus 1); and, where
# Nsight Systems is installed, the timeline of --gpus 2 (each kernel's start, end and device).
# Run after device-run.sh (its builds). Output: diagnose.txt, nsys.csv.
set -u
. .kit/setup.sh >/dev/null
B=40-rows-over-gpus s=build/scenes
CUDA_ARCH=90 make -j"$(nproc)" build/$B $s/random-1k.scene >/tmp/diag-build.log 2>&1 || { tail -20 /tmp/diag-build.log; exit 1; }
{
  for dev in 0 1; do
    build/$B --scene $s/random-1k.scene --device $dev --gpus 1 --frames 10 --csv 2>&1 | awk -F, -v d=$dev '$9 ~ /^(steady_frame|kernel_events)$/ {print "device " d " alone, whole frame: " $9 " " $10}'
  done
  for g in 1 2; do
    timeout 120 ncu --metrics gpu__time_duration.sum -k regex:'render_kernel|setup_kernel' --csv build/$B --scene $s/random-1k.scene --gpus $g >/tmp/ncu$g.csv 2>/tmp/ncu$g.err
    python3 - /tmp/ncu$g.csv $g <<'PY'
import csv, sys, collections
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
rows = list(csv.reader(lines))
if not rows:
    print('--gpus %s: no ncu rows: %s' % (sys.argv[2], open(sys.argv[1]).read()[:300])); sys.exit()
head = rows[0]; rows = rows[1:]
print('--gpus %s: ncu columns %s' % (sys.argv[2], head))
dev = head.index('Device') if 'Device' in head else None
name = head.index('Kernel Name'); val = len(head) - 1
sums = collections.defaultdict(float); counts = collections.Counter()
for r in rows:
    key = (r[dev] if dev is not None else '?', r[name].split('(')[0])
    sums[key] += float(r[val].replace(',', '')); counts[key] += 1
for key in sorted(sums):
    print('--gpus %s: device %s %s: %d kernels, %.1f us in all (serialised)' % (sys.argv[2], key[0], key[1], counts[key], sums[key] / 1000))
PY
  done
  cp /tmp/ncu1.csv /tmp/ncu2.csv /tmp/ncu1.err /tmp/ncu2.err "$OUT/"
  if command -v nsys >/dev/null; then
    timeout 120 nsys profile --trace=cuda -o /tmp/rows --force-overwrite true build/$B --scene $s/random-1k.scene --gpus 2 --frames 3 >/tmp/nsys.log 2>&1
    nsys stats --report cuda_gpu_trace --format csv --output /tmp/trace /tmp/rows.nsys-rep >/dev/null 2>&1
    cp /tmp/trace*cuda_gpu_trace*.csv "$OUT/nsys.csv" 2>/dev/null
    python3 - "$OUT/nsys.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
print('nsys columns:', list(rows[0].keys())[:20] if rows else 'none')
span = collections.defaultdict(lambda: [1e30, 0, 0.0, 0])
for r in rows:
    if 'render_kernel' not in r.get('Name', ''):
        continue
    d = r.get('Device', r.get('GpuId', '?'))
    s = float(r['Start (ns)']); e = s + float(r['Duration (ns)'])
    v = span[d]; v[0] = min(v[0], s); v[1] = max(v[1], e); v[2] += float(r['Duration (ns)']); v[3] += 1
for d, v in sorted(span.items()):
    print('nsys device %s: %d render kernels over %.1f ms (3 frames), their durations sum to %.1f ms' % (d, v[3], (v[1] - v[0]) / 1e6, v[2] / 1e6))
PY
  else echo "no nsys on this machine"; fi
} 2>&1 | tee "$OUT/diagnose.txt"
