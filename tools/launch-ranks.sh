#!/usr/bin/env bash
# Starts N processes of one command on this machine, as srun or mpirun starts a job's ranks on a
# node, for a stage of one process a GPU (chapter 6: stage 42) where neither Slurm nor MPI is there.
#
# usage: tools/launch-ranks.sh N -- COMMAND [ARGS...]
#   e.g. tools/launch-ranks.sh 2 -- build/42-ranks-over-gpus --scene scenes/benchmark.scene --output /tmp/42.png
#
# Process r (0 to N - 1) runs COMMAND with RANK=r, WORLD_SIZE=N, LOCAL_RANK=r, LOCAL_WORLD_SIZE=N
# (the names torchrun uses; common/runtime/ranks.h reads them) and RANKS_JOB_ID, the same for the N
# and another for every launch (this script's process id and start time), which names the file
# through which the ranks meet. Every other variable is passed on as it is (CUDA_VISIBLE_DEVICES:
# the GPUs the ranks share out by their LOCAL_RANK). Their stdout and stderr are this script's:
# rank 0 prints the stage's report, the others nothing.
# Waits for all N. Exit status: 0 when every rank succeeded, else the status of the first that
# failed (in the order they ended). A rank that fails stops the others (TERM, then KILL after 5 s):
# one waiting for a rank that is gone would wait until its own timeout. INT or TERM to this script
# goes to every rank. Bad usage: one line on stderr, status 2.
set -u

usage() { sed -n '/^# usage:/,/^# Process/{/^# Process/d; s/^# \{0,1\}//p}' "$0"; }
die() { echo "launch-ranks: $*" >&2; exit 2; }

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac
[ $# -ge 1 ] || die "name the number of ranks and the command: tools/launch-ranks.sh N -- COMMAND [ARGS...]"
n=$1
[[ "$n" =~ ^[1-9][0-9]{0,3}$ ]] || die "'$n' is not a number of ranks from 1 to 9999"
shift
[ "${1:-}" = "--" ] || die "the command comes after '--': tools/launch-ranks.sh $n -- COMMAND [ARGS...]"
shift
[ $# -ge 1 ] || die "no command after '--'"

job="$$-$(date +%s%N)"
pids=()
stopping=0 stop_deadline=0
stop_all() { # SIGNAL: to every rank still running; KILL after 5 s
    stopping=1
    [ "$stop_deadline" -ne 0 ] || stop_deadline=$(( $(date +%s) + 5 ))
    local pid
    for pid in ${pids[@]+"${pids[@]}"}; do kill "-$1" -- "-$pid" 2>/dev/null; done
}
status=0
interrupted() { # STATUS: what this script ends with, unless a rank failed first
    stop_all TERM
    [ "$status" -ne 0 ] || status=$1
}
trap 'interrupted 130' INT
trap 'interrupted 143' TERM
# However this script ends, no rank outlives it.
trap 'for pid in ${pids[@]+"${pids[@]}"}; do kill -KILL -- "-$pid" 2>/dev/null; done' EXIT

# Each rank in a process group of its own (job control on), which a stop reaches whole: a rank
# that is a shell script takes its children with it.
set -m
for ((r = 0; r < n; r++)); do
    RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r LOCAL_WORLD_SIZE=$n RANKS_JOB_ID=$job "$@" &
    pids+=($!)
done
set +m # (and no "Terminated" notices of job control for the ranks stopped)

# Polled, not `wait -n`: the order in which ranks end, and which one failed, is what counts.
running=("${pids[@]}")
while [ ${#running[@]} -gt 0 ]; do
    still=()
    for pid in "${running[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then
            still+=("$pid")
            continue
        fi
        wait "$pid"
        s=$?
        if [ "$s" -ne 0 ] && [ "$status" -eq 0 ]; then
            status=$s
            stop_all TERM
        fi
    done
    running=(${still[@]+"${still[@]}"})
    if [ ${#running[@]} -gt 0 ]; then
        if [ "$stopping" -eq 1 ] && [ "$(date +%s)" -ge "$stop_deadline" ]; then
            for pid in "${running[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
        fi
        sleep 0.1
    fi
done
trap - EXIT
exit "$status"
