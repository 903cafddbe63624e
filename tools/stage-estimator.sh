# What a path-tracing stage's samples estimate (common/pathtrace/SPEC.md section 6): the line
# "estimator: NAME" of its --help, for the tools that check a stage against build/pt-reference
# --estimator NAME (run.sh, compare-stages.sh). Sourced, not run.
#   stage_estimator EXECUTABLE [SECONDS]   prints the name; "path" when the stage names none
#                                          (a stage built before estimators existed)
(return 0 2>/dev/null) || { echo "stage-estimator.sh: source it (. tools/stage-estimator.sh), do not run it" >&2; exit 2; }

stage_estimator() {
    local estimator
    estimator="$(timeout -k 5 "${2:-60}" "$1" --help 2>/dev/null | sed -n 's/^estimator: //p' | head -n1)" || estimator=''
    [[ "$estimator" =~ ^[a-z][a-z-]*$ ]] || estimator=path
    echo "$estimator"
}
