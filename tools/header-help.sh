# Sourced first by the scripts run.sh and the other tools call (tools/close-runs.sh, ...), so that
# they, too, answer --help: `. "$(dirname "${BASH_SOURCE[0]}")/header-help.sh" "$@"`. Given -h or
# --help as the first argument, prints the calling script's opening comment (its usage) and exits
# 0; otherwise does nothing. A script people run parses its own options and prints its own usage.
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
