#!/usr/bin/env bash
# Renders one scene with the CPU reference and with every stage, and prints for each stage how
# many pixels differ from the CPU reference and from stage 01 (the goal is 0 and 0). Side stages
# (build/NNx-name) are compared too. The path-tracing stages (build/pNN-name, build/pNNx-name)
# render PT_SCENE and are compared with build/pt-reference's image made with the estimator the
# stage's --help names ("estimator: NAME", path when none; common/pathtrace/SPEC.md section 6)
# and with the first stage of that estimator.
# usage: tools/compare-stages.sh [SCENE] [BUILD_DIR] [PT_SCENE]
#        (default scenes/benchmark.scene, build, scenes/pt-benchmark.scene)
set -euo pipefail
scene=${1:-scenes/benchmark.scene}
build=${2:-build}
pt_scene=${3:-scenes/pt-benchmark.scene}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/stage-estimator.sh"   # stage_estimator

main=() pt=()
while IFS= read -r stage; do
    case ${stage##*/} in p*) pt+=("$stage") ;; *) main+=("$stage") ;; esac
done < <("$(dirname "$0")/list-stages.sh" "$build")

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
        estimator=$(stage_estimator "$stage")
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
