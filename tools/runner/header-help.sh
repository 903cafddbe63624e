# The one way the tools print their usage, their opening comment: header_help FILE prints FILE's
# (the comment lines after the first line, up to the first line that is not one). Sourced first
# by the scripts run.sh and the other tools call (tools/runner/close-runs.sh, ...) so that they, too,
# answer --help: `. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"`; given -h or --help as
# the first argument, that prints the calling script's and exits 0, else does nothing. Scripts
# that parse options (tools/difftest.sh, ...) call header_help from their own -h|--help.
header_help() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"; }
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
    header_help "$0"
    exit 0
fi
