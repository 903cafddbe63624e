#!/usr/bin/env bash
# The GPUs a campaign runs on, for run.sh and tools/scaling.sh: nvidia-smi's list, those --gpus
# names (all of them when SPEC is empty), each there and all of one model.
# Usage: tools/runner/pick-gpus.sh SPEC FILE
#   SPEC  --gpus' comma-separated indices, or '' for every GPU
#   FILE  gets the chosen GPUs' lines "index, name, uuid" (nvidia-smi's CSV)
# Prints the indices chosen, comma-separated. Environment: RUN_NVIDIA_SMI (the nvidia-smi
# command). Exit status 2, with one line on stderr, when there is no GPU, a GPU named is not
# there, or the GPUs differ in model.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
set -euo pipefail
spec="$1" file="$2"
all="$("${RUN_NVIDIA_SMI:-nvidia-smi}" --query-gpu=index,name,uuid --format=csv,noheader 2>/dev/null)" || true
[[ -n "$all" ]] || { echo "no NVIDIA GPU found (nvidia-smi lists none)" >&2; exit 2; }
[[ -n "$spec" ]] || spec="$(cut -d, -f1 <<<"$all" | paste -sd, -)"
awk -F', *' -v want=",$spec," 'index(want, "," $1 ",")' <<<"$all" >"$file"
[[ "$(wc -l <"$file")" -eq "$(tr ',' '\n' <<<"$spec" | wc -l)" ]] || { echo "--gpus $spec: not every GPU exists" >&2; exit 2; }
[[ "$(cut -d, -f2 "$file" | sort -u | wc -l)" -eq 1 ]] || { echo "the GPUs differ in model; pick one model with --gpus" >&2; exit 2; }
echo "$spec"
