#!/usr/bin/env bash
# A Slurm cluster of one node on this machine, to try tools/slurm-campaign.sh without a cluster,
# and for its test against a real Slurm (tests/test_local_slurm.c): Debian's munged, slurmctld and
# slurmd (packages slurm-wlm and munge; tools/install-deps.sh slurm), run as root with all their
# files in one folder (configuration, munge key, state, spool, logs, pid files) and on free ports
# of 16817-16999, so that nothing of a Slurm or munge installed here (/etc/slurm, /run/munge,
# ports 6817-6818) is read or touched. It needs no systemd and no cgroups (proctrack/linuxproc,
# task/none: nothing confines a job's CPUs or GPUs), and no accounting (no slurmdbd, no sacct:
# scontrol show job JOBID gives a job's state and exit code for 5 minutes after it ends).
#
# usage: tools/local-slurm.sh start DIR [--stop-after SECONDS]
#        tools/local-slurm.sh stop DIR
#   start  DIR: a folder that does not exist yet, or an empty one. Writes DIR/slurm.conf, gres.conf
#          and cgroup.conf: one node named after this machine (hostname -s, address 127.0.0.1)
#          with all its cores (nproc) in the default partition "local", and its GPUs as the
#          generic resource gpu (the /dev/nvidia0, /dev/nvidia1, ... device files; without any,
#          one stand-in file, DIR/gpu-stand-in0, so that --gres=gpu:1 is granted on a machine
#          without a GPU). Starts the three daemons, waits until the node takes jobs, and prints
#          the line that points Slurm's commands (sbatch, srun, squeue, scontrol, scancel) at it:
#            export SLURM_CONF=DIR/slurm.conf
#          --stop-after SECONDS: stop the cluster by itself after that long (a test's safety net,
#          should it be killed before it stops the cluster).
#   stop   cancels the cluster's jobs, stops its daemons, then ends any process of its jobs still
#          left (those whose environment names DIR/slurm.conf) and their steps (slurmstepd), and
#          removes the pid files; DIR stays, with the daemons' logs (slurmctld.log, slurmd.log,
#          munged.log).
# Exit status: 0; 2 for a usage error; 77 where Slurm cannot run here, in one line saying why: a
# program not installed, not root, or the node not taking jobs within LOCAL_SLURM_TIMEOUT seconds
# (default 30; the line quotes the daemons' last error), as in a container without the needed
# privileges. Whatever start started is stopped again when it fails.
set -euo pipefail

readonly exit_unavailable=77 # as tools/difftest.sh's "no GPU here": the tests skip on it
die() { echo "local-slurm: error: $*" >&2; exit 2; }
unavailable() { echo "local-slurm: cannot run Slurm here: $*" >&2; exit "$exit_unavailable"; }
usage_line='usage: tools/local-slurm.sh start DIR [--stop-after SECONDS] | stop DIR'

case "${1:-}" in
    -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    start|stop) action="$1"; shift ;;
    '') die "say start or stop ($usage_line)" ;;
    *) die "unknown action '$1' ($usage_line)" ;;
esac
[[ $# -ge 1 && -n "$1" ]] || die "$action needs a folder ($usage_line)"
dir="$(realpath -m -- "$1")"; shift
stop_after=''
while [[ $# -gt 0 ]]; do
    case "$1" in
        --stop-after)
            [[ "$action" == start ]] || die "--stop-after is for start ($usage_line)"
            [[ "${2:-}" =~ ^[1-9][0-9]{0,5}$ ]] || die "--stop-after needs a number of seconds, not '${2:-}'"
            stop_after="$2"; shift 2 ;;
        *) die "unknown option '$1' ($usage_line)" ;;
    esac
done
conf="$dir/slurm.conf"
timeout_s="${LOCAL_SLURM_TIMEOUT:-30}"
[[ "$timeout_s" =~ ^[1-9][0-9]{0,3}$ ]] || die "LOCAL_SLURM_TIMEOUT must be a number of seconds, not '$timeout_s'"

# ---- stop -------------------------------------------------------------------------------------

# The pids of this cluster's processes that their pid files do not name: its daemons' (whose
# environment holds LOCAL_SLURM_DIR=DIR) and its jobs' (whose environment holds SLURM_JOB_ID and
# SLURM_CONF=DIR/slurm.conf), other than this script and the processes it runs in (a job's shell
# may call stop). A shell that merely exported SLURM_CONF to use the cluster has no SLURM_JOB_ID,
# and is left alone.
cluster_processes() {
    local pid ancestors=" " p=$$
    while [[ "$p" -gt 1 ]]; do
        ancestors+="$p "
        # The parent: the second field after the ") " that ends the program's name.
        p="$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f2)" || break
        [[ -n "$p" ]] || break
    done
    # (grep -z: an environ file is NAME=VALUE words, each ended by a NUL.)
    {
        grep -lszxF -- "LOCAL_SLURM_DIR=$dir" /proc/[0-9]*/environ || true
        grep -lszxF -- "SLURM_CONF=$conf" /proc/[0-9]*/environ | xargs -r grep -lsz '^SLURM_JOB_ID=' || true
    } | while IFS=/ read -r _ _ pid _; do
        [[ "$ancestors" == *" $pid "* ]] || echo "$pid"
    done
}

# The pids of this cluster's job steps: the slurmstepd processes that its slurmd started, which
# work in DIR. (A slurmstepd writes its title, "slurmstepd: [JOB.STEP]", over its environment, so
# that holds no mark to find it by.)
cluster_steps() {
    local proc program
    for proc in /proc/[0-9]*; do
        read -r program 2>/dev/null <"$proc/comm" || continue
        [[ "$program" == slurmstepd ]] || continue
        [[ "$(readlink "$proc/cwd" 2>/dev/null)/" == "$dir/"* ]] && echo "${proc#/proc/}"
    done
    return 0
}

# 1 when the process runs: it exists and is not a zombie (an ended process that its parent has not
# reaped yet, as the init of some containers is slow to do).
running() {
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    stat="${stat##*) }"
    [[ "${stat%% *}" != Z ]]
}

# Ends each pid given: SIGTERM, up to 10 s for it to end, then SIGKILL.
end_processes() {
    local pid waited
    [[ $# -gt 0 ]] || return 0
    kill -TERM "$@" 2>/dev/null || true
    for ((waited = 0; waited < 200; waited++)); do
        for pid in "$@"; do running "$pid" && break; pid=''; done
        [[ -z "${pid:-}" ]] && return 0
        sleep 0.05
    done
    kill -KILL "$@" 2>/dev/null || true
}

# The pid in the pid file $1, when that process still runs as the program $2.
running_pid() {
    local pid
    pid="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && running "$pid" && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$2" ]] && echo "$pid"
}

stop_cluster() {
    local jobs waited pid
    # Its jobs first, while slurmctld can still cancel them (their steps end their processes).
    if running_pid "$dir/slurmctld.pid" slurmctld >/dev/null; then
        jobs="$(SLURM_CONF="$conf" timeout 10 squeue --noheader --format=%i 2>/dev/null)" || jobs=''
        if [[ -n "$jobs" ]]; then
            # shellcheck disable=SC2086  # one job id a word
            SLURM_CONF="$conf" timeout 10 scancel $jobs 2>/dev/null || true
            for ((waited = 0; waited < 100; waited++)); do
                [[ -z "$(SLURM_CONF="$conf" timeout 5 squeue --noheader --format=%i 2>/dev/null)" ]] && break
                sleep 0.1
            done
        fi
    fi
    for daemon in slurmd slurmctld munged; do
        pid="$(running_pid "$dir/$daemon.pid" "$daemon")" && end_processes "$pid"
        rm -f "$dir/$daemon.pid"
    done
    # What is left, should scancel not have ended its jobs (slurmctld gone): their processes, then
    # their steps, which SIGTERM does not end.
    # shellcheck disable=SC2046  # one pid a word
    end_processes $(cluster_processes)
    # shellcheck disable=SC2046
    kill -KILL $(cluster_steps) 2>/dev/null || true
}

if [[ "$action" == stop ]]; then
    [[ -f "$conf" && -f "$dir/made-by-local-slurm" ]] || die "$dir holds no cluster of tools/local-slurm.sh"
    [[ "$(id -u)" -eq 0 ]] || die "stop needs root, as start did (the daemons run as root); run it with sudo"
    stop_cluster
    echo "local-slurm: stopped the cluster of $dir (its logs stay there)" >&2
    exit 0
fi

# ---- start ------------------------------------------------------------------------------------

for program in munged slurmctld slurmd sbatch srun scontrol squeue sinfo scancel; do
    command -v "$program" >/dev/null 2>&1 \
        || unavailable "$program is not installed (Debian: apt-get install slurm-wlm munge; tools/install-deps.sh slurm)"
done
[[ "$(id -u)" -eq 0 ]] || unavailable "it needs root (slurmd starts every job's processes as the job's user); run it with sudo"
if [[ -e "$dir" ]]; then
    [[ -d "$dir" && -z "$(ls -A -- "$dir")" ]] || die "$dir is not an empty folder: give a new one (mktemp -d)"
fi
# munged serves only a socket whose every folder above it all users may enter (o+x).
folder="$(dirname -- "$dir")"
while [[ "$folder" != / ]]; do
    if [[ -d "$folder" && $(( 0$(stat -c %a -- "$folder") & 1 )) -eq 0 ]]; then
        die "munged needs every folder above its socket open to all: chmod o+x $folder (or give a folder elsewhere)"
    fi
    folder="$(dirname -- "$folder")"
done

# The first two free ports (not listening, IPv4 or IPv6) from 16817 up, for slurmctld and slurmd.
listening="$(for table in /proc/net/tcp /proc/net/tcp6; do
    if [[ -r "$table" ]]; then awk 'NR > 1 && $4 == "0A" { n = split($2, a, ":"); print a[n] }' "$table"; fi
done | while read -r hex; do echo $((16#$hex)); done | sort -un)"
ports=()
for ((port = 16817; port <= 16999 && ${#ports[@]} < 2; port++)); do
    grep -qx "$port" <<<"$listening" || ports+=("$port")
done
[[ ${#ports[@]} -eq 2 ]] || unavailable "no two free ports in 16817-16999"

# From here on, a failure stops what was started.
started=0
on_exit() {
    local status=$?
    [[ "$status" -eq 0 || "$started" -eq 0 ]] || stop_cluster
    exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

mkdir -p -- "$dir"
chmod 755 "$dir"
mkdir -p "$dir/state" "$dir/spool"
touch "$dir/made-by-local-slurm" # the mark that stop looks for before it touches anything
host="$(hostname -s 2>/dev/null || uname -n)"
host="${host%%.*}"
cores="$(nproc)"
gpu_files=(/dev/nvidia[0-9]*)
if [[ ! -e "${gpu_files[0]}" ]]; then
    gpu_files=("$dir/gpu-stand-in0")
    : >"${gpu_files[0]}"
fi

# The munge key: 1024 random bytes, readable by root alone (munged refuses any other).
(umask 077 && head -c 1024 /dev/urandom >"$dir/munge.key")

cat >"$conf" <<EOF
# A Slurm cluster of one node, written by tools/local-slurm.sh: every file in $dir.
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups (a container may have none to give): processes tracked by their parents, no binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# A node that comes back takes jobs again at once.
ReturnToService=2
GresTypes=gpu
NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cores Gres=gpu:${#gpu_files[@]} State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
{
    echo "# The node's GPUs for --gres=gpu:N (tools/local-slurm.sh); task/none confines nothing."
    echo "AutoDetect=off"
    for file in "${gpu_files[@]}"; do echo "NodeName=$host Name=gpu File=$file"; done
} >"$dir/gres.conf"
# Read by slurmd when present; no plugin above uses cgroups.
echo "CgroupPlugin=autodetect" >"$dir/cgroup.conf"

# What a daemon said last about a failure: the last line it wrote on stderr while starting, else
# the last error of its log (Slurm's MPI plugins' complaints about PMIx aside: no job here uses
# MPI), else that it said nothing.
last_words() {
    local said
    said="$(grep -v '^[[:space:]]*$' "$dir/$1.start.err" 2>/dev/null | tail -n 1)" || said=''
    [[ -n "$said" ]] || said="$(grep -h -i -E 'error|fatal' "$dir/$1.log" 2>/dev/null | grep -v -i pmix | tail -n 1)" || said=''
    echo "${said:-it said nothing (see $dir/$1.log)}"
}

# The daemons' environment marks them as this cluster's: stop finds them by it, should their pid
# files be gone. Each daemon forks into the background, writing its pid file;
# none keeps this script's stdout (a pipe that would otherwise wait for them).
export SLURM_CONF="$conf" LOCAL_SLURM_DIR="$dir"
started=1
munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" </dev/null >/dev/null 2>"$dir/munged.start.err" \
    || unavailable "munged did not start: $(last_words munged)"
slurmctld -f "$conf" </dev/null >/dev/null 2>"$dir/slurmctld.start.err" \
    || unavailable "slurmctld did not start: $(last_words slurmctld)"
slurmd -f "$conf" -N "$host" </dev/null >/dev/null 2>"$dir/slurmd.start.err" \
    || unavailable "slurmd did not start: $(last_words slurmd)"
unset LOCAL_SLURM_DIR

# Up when the node is idle in its partition (registered with slurmctld, its GPUs counted).
# (A daemon's pid file may come a moment after it forked: missing for 2 s, it has stopped.)
state='' waiting_since=$SECONDS
while [[ $((SECONDS - waiting_since)) -lt $timeout_s ]]; do
    state="$(timeout 5 sinfo --noheader --nodes="$host" --format=%T 2>/dev/null)" || state=''
    [[ "$state" == idle ]] && break
    for daemon in munged slurmctld slurmd; do
        running_pid "$dir/$daemon.pid" "$daemon" >/dev/null || [[ $((SECONDS - waiting_since)) -lt 2 ]] \
            || unavailable "$daemon stopped: $(last_words "$daemon")"
    done
    sleep 0.1
done
if [[ "$state" != idle ]]; then
    last_error="$(cat "$dir/munged.log" "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null \
        | grep -i -E 'error|fatal' | grep -v -i pmix | tail -n 1)" || last_error=''
    unavailable "the node was not taking jobs within ${timeout_s} s (state '${state:-none}')${last_error:+; last error: $last_error}"
fi

if [[ -n "$stop_after" ]]; then
    # A watchdog of its own session: it stops the cluster when the time is up, and ends within a
    # second once the cluster is stopped otherwise (stop removes slurmctld's pid file).
    # shellcheck disable=SC2016  # $1, $2 and $3 are the watchdog's
    setsid bash -c 'for ((s = 0; s < $1 * 10; s++)); do [[ -e "$2/slurmctld.pid" ]] || exit 0; sleep 0.1; done
                    exec "$3" stop "$2"' local-slurm-watchdog "$stop_after" "$dir" "$(realpath -- "$0")" \
        </dev/null >/dev/null 2>&1 &
fi
started=0
echo "local-slurm: node $host ($cores cores, ${#gpu_files[@]} GPU(s) as gres gpu) takes jobs in partition local; its files: $dir" >&2
echo "export SLURM_CONF=$conf"
