#!/usr/bin/env bash
# Bundles a campaign folder of yours, results/local/<gpu>/ (./run.sh writes it), with the
# environment it ran in, into one archive to hand in: the folder as it is (runs, summaries,
# verify.txt, env.txt, sweeps, profiles) under <gpu>/, and <gpu>/bundle.txt: who and when, the
# repository's revision (and whether it had changes), the GPU (nvidia-smi, else the campaign's
# env.txt), nvcc, the kernel and the CPU. A teacher checks it with tools/check-bundle.py.
#
# Usage: tools/bundle-results.sh [--name NAME] [--out FILE] [DIR]
#   DIR          the campaign folder (default: the one folder of results/local/ that holds runs)
#   --name NAME  who hands it in (default: $USER)
#   --out FILE   the archive (default: results/local/<gpu>-<name>.tar.gz)
# Exit status 0 with the archive's path on stdout; 2 with one line on stderr when there is no
# campaign to bundle (no folder, several and none chosen, no runs, no env.txt).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
die() { echo "bundle-results.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

name="${USER:-student}" out='' dir=''
while [[ $# -gt 0 ]]; do
    case "$1" in
        --help|-h) usage; exit 0 ;;
        --name) [[ $# -ge 2 ]] || die "--name needs a value"; name="$2"; shift 2 ;;
        --out) [[ $# -ge 2 ]] || die "--out needs a value"; out="$2"; shift 2 ;;
        -*) die "unknown option $1 (--help)" ;;
        *) [[ -z "$dir" ]] || die "one folder at most ($dir, $1)"; dir="$1"; shift ;;
    esac
done
[[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || die "--name '$name': letters, digits, '.', '_' and '-' only"

has_runs() { [[ -f "$1/runs.csv" || -f "$1/runs.csv.gz" ]]; }
if [[ -z "$dir" ]]; then
    found=()
    for d in "$repo"/results/local/*/; do
        d="${d%/}"
        has_runs "$d" && found+=("$d")
    done
    [[ ${#found[@]} -gt 0 ]] || die "no campaign in results/local/ (run ./run.sh first)"
    [[ ${#found[@]} -eq 1 ]] || die "several campaigns in results/local/ (${found[*]##*/}): name one"
    dir="${found[0]}"
fi
dir="${dir%/}"
[[ -d "$dir" ]] || die "$dir: no such folder"
has_runs "$dir" || die "$dir holds no runs (runs.csv or runs.csv.gz: ./run.sh writes them)"
[[ -f "$dir/env.txt" ]] || die "$dir has no env.txt (./run.sh writes it)"
gpu="$(basename "$dir")"
[[ -n "$out" ]] || out="$repo/results/local/$gpu-$name.tar.gz"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/$gpu"
cp -R "$dir/." "$tmp/$gpu/"
{
    echo "name: $name"
    echo "bundled (UTC): $(date -u +%FT%TZ)"
    echo "folder: $gpu"
    revision="$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
    if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
        revision="$revision (with uncommitted changes)"
    fi
    echo "revision: $revision"
    smi="${NVIDIA_SMI:-nvidia-smi}"
    gpus="$("$smi" --query-gpu=index,name,compute_cap,driver_version --format=csv,noheader 2>/dev/null || true)"
    [[ -n "$gpus" ]] || gpus="$(sed -n 's/^gpu: //p' "$dir/env.txt" | head -n 1)"
    echo "gpu: ${gpus:-unknown}"
    echo "nvcc: $( (nvcc --version 2>/dev/null || true) | tail -n 1)"
    echo "kernel: $(uname -sr)"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) ($(nproc) cores)"
} >"$tmp/$gpu/bundle.txt"
mkdir -p "$(dirname "$out")"
tar -czf "$out" -C "$tmp" "$gpu"
echo "$out"
