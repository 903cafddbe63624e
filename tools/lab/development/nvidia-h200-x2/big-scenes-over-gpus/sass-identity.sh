#!/usr/bin/env bash
# sass identity of the stages the build refactor touched, against .kit/base-src.tgz (HEAD before it)
set -u
. .kit/setup.sh >/dev/null
eval "$(sed -n '/^command -v nvcc/,/^echo "nccl: NCCL_HOME/p' tools/lab/development/nvidia-h200-x2/ranks-over-gpus/device-run.sh | sed 's/"\$OUT\/env.txt"/\/dev\/null/')"
rm -rf /tmp/base && mkdir -p /tmp/base && tar -xzf .kit/base-src.tgz -C /tmp/base
s=$(date +%s)
tools/lab/sass-identity.sh --base-source /tmp/base --arch 90 --stages 22-33,40-42 --output "$OUT/sass-identity.tsv" --jobs 16 > "$OUT/sass.log" 2>&1
echo "sass-identity rc=$? $(( $(date +%s) - s )) s"; cat "$OUT/sass-identity.tsv"; tail -5 "$OUT/sass.log"
