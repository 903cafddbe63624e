#!/usr/bin/env bash
# Device run of the layout change: build, the identity proof against 98bfd13 (device code and
# images), the host A/B timing of a few stages, then (PART=tests) the test programs in parallel.
set -u
# The machine may hold an earlier copy of the tree: files since deleted or renamed go first.
find stages common tools tests scenes docs fuzz colab results -type f 2>/dev/null | grep -vxFf .kit/tracked.txt | xargs -r rm -f
find stages common tools tests -type d -empty -delete 2>/dev/null
[ "${PART:-identity}" = identity ] && rm -rf build build-identity
. .kit/setup.sh >/dev/null
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
mkdir -p "$OUT/logs"
{ nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader; nvcc --version | tail -2; date -u; cat .kit/revision.txt; } | tee "$OUT/logs/gpu.txt"
if [ "${PART:-identity}" = identity ]; then
  CUDA_ARCH=90 make -j16 all tests scenes >"$OUT/logs/build-all.log" 2>&1 || { tail -30 "$OUT/logs/build-all.log"; exit 1; }
  echo "build $(el) s"
  rm -rf /tmp/base-src && mkdir -p /tmp/base-src && tar -xzf .kit/base-src.tgz -C /tmp/base-src
  tools/lab/sass-identity.sh --base-source /tmp/base-src --build build --arch 90 --jobs 16 \
      --renames results/reference/renamed-stages.txt --output "$OUT/sass-identity.tsv" >"$OUT/logs/identity.log" 2>&1
  echo "identity rc=$? $(el) s"; awk -F'\t' 'NR > 1 { print $2 "/" $3 }' "$OUT/sass-identity.tsv" | sort | uniq -c
  cp build-identity/*.log "$OUT/logs/" 2>/dev/null
  # The host A/B: the base build's binaries under their old names.
  mkdir -p /tmp/base-bin
  for s in $(tools/stages list); do
    old=$(awk -v s="$s" '$2 == s { print $1 }' results/reference/renamed-stages.txt); old=${old:-$s}
    ln -sf "$PWD/build-identity/base/$old" "/tmp/base-bin/$s"
  done
  timeout $(( ${AB_END:-560} - $(el) )) tools/lab/host-ab.sh --base-build /tmp/base-bin --build build \
      --stages "${AB_STAGES:-13,16,21,26,31,p9,p12,p15}" --rounds "${AB_ROUNDS:-15}" --out "$OUT/host-ab.csv.gz" >"$OUT/logs/host-ab.log" 2>&1
  echo "host-ab rc=$? $(el) s"
  python3 tools/lab/ab_summary.py "$OUT/host-ab.csv.gz" >"$OUT/host-ab.txt" 2>&1; head -60 "$OUT/host-ab.txt"
else
  CUDA_ARCH=90 make -j16 all tests scenes >"$OUT/logs/build-all.log" 2>&1 || { tail -30 "$OUT/logs/build-all.log"; exit 1; }
  echo "build $(el) s"
  one() { local b=$1 s=$(date +%s); BUILD=build tests/run-tests.sh "build/tests/$b" >"$OUT/logs/$b.log" 2>&1; echo "$b rc=$? $(( $(date +%s) - s )) s: $(tail -1 "$OUT/logs/$b.log")"; }
  export -f one; export OUT
  ls build/tests/ | grep '^test_' | grep -v '\.' | grep -E "${TESTS_ONLY:-.}" | grep -vE "${TESTS_SKIP:-^$}" |
    timeout $(( ${END:-570} - $(el) )) parallel -j"${TEST_JOBS:-4}" --line-buffer one {} | tee "$OUT/logs/tests.status"
  echo "tests $(el) s"
  awk '{ split($0, a, ": "); print a[2] }' "$OUT/logs/tests.status" | awk '{ p += $1; f += $3; s += $5 } END { print p " passed, " f " failed, " s " skipped" }'
  tar -czf "$OUT/test-logs.tgz" -C "$OUT/logs" . 2>/dev/null
fi
