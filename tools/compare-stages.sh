#!/usr/bin/env bash
# Renders one scene with the CPU reference and with every stage (tools/stages list, each built in
# BUILD_DIR), and prints for each stage how many pixels differ from the CPU reference and from
# stage 01 (the goal is 0 and 0). Side stages are compared too. The path-tracing stages render
# PT_SCENE and are compared with build/pt-reference's image made with the estimator their
# manifest names (SPEC-PATH-TRACING.md section 6) and with the first stage of that estimator.
# usage: tools/compare-stages.sh [SCENE] [BUILD_DIR] [PT_SCENE]
#        (default scenes/benchmark.scene, build, scenes/pt-benchmark.scene)
#        COMPARE_JOBS=N renders N stages at once (default 1)
#        COMPARE_STAGES="01 33f p1 p8f" compares those stages only (tools/stages' names: a part of
#        the record, to be merged into it; name each group's first stage too, 01, p01, p08b...)
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
# (A stage the build left out for want of what it links is passed over, in a line: NCCL.)
# COMPARE_STAGES: its stages' full names (a name no stage has is refused there), kept in the
# list's order below, so that each group's first stage comes first.
only_list=${COMPARE_STAGES:-}
read -r -a only <<<"${only_list//,/ }"
wanted=" "
if [[ ${#only[@]} -gt 0 ]]; then
    wanted=" $("$stages_tool" built-here "$build" "${only[@]}" | tr '\n' ' ')" || exit 2
fi
for name in $(STAGES_PROGRAM=compare-stages "$stages_tool" built-here "$build"); do
    [[ "$wanted" == " " || "$wanted" == *" $name "* ]] || continue
    [[ -x "$build/$name" ]] || { echo "compare-stages: no executable $build/$name (run make)" >&2; exit 2; }
    if [[ "$("$stages_tool" get "$name" track)" == pt ]]; then pt+=("$build/$name"); else main+=("$build/$name"); fi
done

status=0
# COMPARE_JOBS: how many stages render and compare at once (default 1). Each line is still printed
# in the list's order; at 8192x8192 an image is 201 MB on disk, so a job needs that much room.
jobs=${COMPARE_JOBS:-1}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "compare-stages: COMPARE_JOBS must be a positive number, got '$jobs'" >&2; exit 2; }
# compare_one REFERENCE_IMAGE SCENE FIRST_IMAGE STAGE: renders with STAGE and writes its line to
# $work/STAGE-NAME.line; its exit status is compare-images' (non-zero: an image differs in size
# or cannot be read). FIRST_IMAGE empty: the stage is the first, its image kept as the others'.
compare_one() {
    local reference=$1 scene=$2 first=$3 stage=$4 name to_reference to_first result=0
    name=${stage##*/}
    if ! "$stage" --scene "$scene" --output "$work/$name.ppm" >/dev/null; then
        printf '%-28s %s\n' "$name" "failed: the stage exited with an error (its message above)" >"$work/$name.line"
        return 1
    fi
    to_reference=$("$build/compare-images" "$reference" "$work/$name.ppm") || result=1
    to_first=$("$build/compare-images" "${first:-$work/$name.ppm}" "$work/$name.ppm") || result=1
    printf '%-28s %-70s %s\n' "$name" "$to_reference" "${to_first%%,*}" >"$work/$name.line"
    [[ -z "$first" ]] || rm -f "$work/$name.ppm"
    return "$result"
}
# compare REFERENCE_IMAGE SCENE STAGE...: one line per stage, in the order given; the first stage
# alone, then the rest COMPARE_JOBS at a time.
compare() {
    local reference=$1 scene=$2 stage first running=0 failed=0
    shift 2
    compare_one "$reference" "$scene" '' "$1" || status=1
    first="$work/${1##*/}.ppm"
    for stage in "${@:2}"; do
        compare_one "$reference" "$scene" "$first" "$stage" &
        running=$((running + 1))
        if [[ $running -ge $jobs ]]; then wait -n || failed=1; running=$((running - 1)); fi
    done
    while [[ $running -gt 0 ]]; do wait -n || failed=1; running=$((running - 1)); done
    [[ $failed -eq 0 ]] || status=1
    for stage in "$@"; do cat "$work/${stage##*/}.line"; done
    rm -f "$first"
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
