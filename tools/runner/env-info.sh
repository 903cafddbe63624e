#!/usr/bin/env bash
# Describes the machine of a campaign, for OUT/<gpu-slug>/env.txt (run.sh), and the source revision
# it ran (tools/runner/provenance.sh revision; each stage's hashes go to provenance.tsv beside it).
# Usage: tools/runner/env-info.sh GPU_LIST_FILE COMMAND_LINE RESUMED(0|1)
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -uo pipefail
smi="${RUN_NVIDIA_SMI:-nvidia-smi}"
[[ "${3:-0}" -eq 1 ]] && echo '--- resumed ---'
echo "date (UTC): $(date -u +%FT%TZ)"
echo "command: $2"
echo "revision: $("$(dirname "${BASH_SOURCE[0]}")/provenance.sh" revision)"
echo "host: ${RUN_HOSTNAME:-$(hostname)}"
while IFS= read -r gpu; do echo "gpu: $gpu"; done <"$1"
echo "driver: $("$smi" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)"
echo "cuda (driver API, nvidia-smi): $("$smi" 2>/dev/null | sed -nE 's/.*CUDA Version: *([0-9.]+).*/\1/p' | head -n1)"
cudart="$(ls /usr/local/cuda/lib64/libcudart.so.* 2>/dev/null | sed 's/.*libcudart.so.//' | sort -V | tail -n1)"
echo "cuda runtime (libcudart): ${cudart:-unknown}"
# When the CUDA runtime loads each kernel's code: at its first use by default (lazy, since CUDA
# 12.2), so the phase of a stage's first launch or first cudaMemcpyToSymbol includes it; EAGER
# loads every module with the context (as the study's CUDA 11 did).
echo "cuda module loading: ${CUDA_MODULE_LOADING:-default (lazy from CUDA 12.2 on)}"
echo "nvcc: $( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | tail -n2 | paste -sd' ' -)"
echo "cpu: $(lscpu 2>/dev/null | sed -nE 's/^Model name: *//p' | head -n1)"
echo "kernel: $(uname -sr)"
