#!/usr/bin/env bash
# The folder name results/ uses for a GPU (or a login): lower case, every run of characters other
# than letters and digits turned into one '-', none at either end. "NVIDIA H100 80GB HBM3" gives
# "nvidia-h100-80gb-hbm3". One rule for run.sh, remote-campaign.sh and sanitize.sh.
. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"
tr '[:upper:]' '[:lower:]' <<<"$1" | sed -E 's/[^a-z0-9]+/-/g; s/^-+//; s/-+$//'
