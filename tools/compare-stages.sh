#!/usr/bin/env bash
# Renders one scene with the CPU reference and with every stage, and prints for each stage how
# many pixels differ from the CPU reference and from stage 01 (the goal is 0 and 0). Side stages
# (build/NNx-name) are compared too.
# usage: tools/compare-stages.sh [SCENE] [BUILD_DIR]    (default scenes/benchmark.scene, build)
set -euo pipefail
scene=${1:-scenes/benchmark.scene}
build=${2:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/cpu-reference" --scene "$scene" --output "$work/reference.ppm" >/dev/null
first=''
status=0
printf '%-28s %-70s %s\n' stage "against the CPU reference" "against the first stage"
while IFS= read -r stage; do
    name=${stage##*/}
    "$stage" --scene "$scene" --output "$work/$name.ppm" >/dev/null
    [[ -n "$first" ]] || first="$work/$name.ppm"
    to_reference=$("$build/compare-images" "$work/reference.ppm" "$work/$name.ppm") || status=1
    to_first=$("$build/compare-images" "$first" "$work/$name.ppm") || status=1
    printf '%-28s %-70s %s\n' "$name" "$to_reference" "${to_first%%,*}"
    [[ "$work/$name.ppm" == "$first" ]] || rm -f "$work/$name.ppm"
done < <("$(dirname "$0")/list-stages.sh" "$build")
exit "$status"
