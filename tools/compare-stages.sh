#!/usr/bin/env bash
# Renders one scene with the CPU reference and with every stage (tools/stages list, each built in
# BUILD_DIR), and prints for each stage how many pixels differ from the CPU reference and from
# stage 01 (the goal is 0 and 0). Side stages are compared too. The path-tracing stages render
# PT_SCENE and are compared with build/pt-reference's image made with the estimator their
# manifest names (SPEC-PATH-TRACING.md section 6) and with the first stage of that estimator.
# usage: tools/compare-stages.sh [SCENE] [BUILD_DIR] [PT_SCENE]
#        (default scenes/benchmark.scene, build, scenes/pt-benchmark.scene)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/runner/header-help.sh" "$@"
case ${1:-} in
    -*) echo "compare-stages: unknown option '$1' (usage: tools/compare-stages.sh [SCENE] [BUILD_DIR] [PT_SCENE])" >&2; exit 2 ;;
esac
scene=${1:-scenes/benchmark.scene}
build=${2:-build}
pt_scene=${3:-scenes/pt-benchmark.scene}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stages_tool="$(dirname "$0")/stages"
main=() pt=()
for name in $("$stages_tool" list); do
    [[ -x "$build/$name" ]] || { echo "compare-stages: no executable $build/$name (run make)" >&2; exit 2; }
    if [[ "$("$stages_tool" get "$name" track)" == pt ]]; then pt+=("$build/$name"); else main+=("$build/$name"); fi
done

status=0
# compare REFERENCE_IMAGE SCENE STAGE...: one line per stage.
compare() {
    local reference=$1 scene=$2 first='' stage name to_reference to_first
    shift 2
    for stage in "$@"; do
        name=${stage##*/}
        "$stage" --scene "$scene" --output "$work/$name.ppm" >/dev/null
        [[ -n "$first" ]] || first="$work/$name.ppm"
        to_reference=$("$build/compare-images" "$reference" "$work/$name.ppm") || status=1
        to_first=$("$build/compare-images" "$first" "$work/$name.ppm") || status=1
        printf '%-28s %-70s %s\n' "$name" "$to_reference" "${to_first%%,*}"
        [[ "$work/$name.ppm" == "$first" ]] || rm -f "$work/$name.ppm"
    done
}

if [[ ${#main[@]} -gt 0 ]]; then
    "$build/cpu-reference" --scene "$scene" --output "$work/reference.ppm" >/dev/null
    printf '%-28s %-70s %s\n' stage "against the CPU reference" "against the first stage"
    compare "$work/reference.ppm" "$scene" "${main[@]}"
fi
if [[ ${#pt[@]} -gt 0 ]]; then
    # The p stages by estimator, in the order the estimators first appear.
    declare -A of_estimator=()
    estimators=()
    for stage in "${pt[@]}"; do
        estimator=$("$stages_tool" get "${stage##*/}" estimator)
        [[ -n "${of_estimator[$estimator]:-}" ]] || estimators+=("$estimator")
        of_estimator[$estimator]+="$stage"$'\n'
    done
    for estimator in "${estimators[@]}"; do
        mapfile -t group <<<"${of_estimator[$estimator]%$'\n'}"
        "$build/pt-reference" --scene "$pt_scene" --estimator "$estimator" \
            --output "$work/pt-reference-$estimator.ppm" >/dev/null
        [[ ${#main[@]} -eq 0 && "$estimator" == "${estimators[0]}" ]] || echo
        printf '%-28s %-70s %s\n' stage "against build/pt-reference --estimator $estimator ($pt_scene)" \
            "against the first p stage of $estimator"
        compare "$work/pt-reference-$estimator.ppm" "$pt_scene" "${group[@]}"
    done
fi
exit "$status"
