#!/usr/bin/env bash
# The timing campaign on N GPU nodes of a Slurm cluster, through the same runner as everywhere:
# ./run.sh --hosts, with srun in place of ssh (docs/slurm.md says when and how to use it).
#
# Outside an allocation it submits itself with sbatch: one job of N nodes, one task and G GPUs
# a node (--gres=gpu:G), the whole nodes unless --no-exclusive, the repository as the job's
# folder. Inside the allocation (SLURM_JOB_ID set: the batch job, or a shell of salloc) it expands
# the job's node list (scontrol show hostnames), writes it as a GNU parallel sshlogin file and
# runs ./run.sh --hosts FILE with the run.sh options after "--", and RUN_SSH set to this script's
# --as-ssh mode. So each node gets a copy of the repository, builds it, runs run.sh on its own
# GPUs (one GNU parallel slot per GPU) and sends its results/<gpu-slug>/ back into run.sh's
# results folder, exactly as with ssh (tools/runner/remote-campaign.sh).
#
# --as-ssh HOST COMMAND... (internal, what GNU parallel calls as its ssh command): runs COMMAND
# on HOST as one srun step of the job (--nodes=1 --ntasks=1 --nodelist=HOST), in HOST's work
# folder <work>/node-K (K: HOST's line in the job's node list). GNU parallel calls its ssh
# command as "SSH [-l USER] HOST -- exec perl ..." (words that ssh would join into one command
# for the remote shell): the ssh options and "--" are dropped and the words joined, as ssh does,
# because srun would read them as its own options.
#
# srun passes the job's environment on to every node (the modules loaded before submitting
# included), where ssh would not; STAGES_DIR goes on only when it was set before run.sh started.
#
# Environment: SLURM_CAMPAIGN_WORK (the work folder, default $HOME/cuda-raytracer-slurm);
# inside: SLURM_JOB_ID, SLURM_JOB_NODELIST (set by Slurm); for --as-ssh, set inside:
# SLURM_CAMPAIGN_HOSTS (the job's node list file), SLURM_CAMPAIGN_WORK, SLURM_CAMPAIGN_OWN_STAGES.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: tools/slurm-campaign.sh --nodes N [options] -- [run.sh options]
Runs ./run.sh's timing campaign on N GPU nodes of a Slurm cluster: submits one batch job (sbatch)
of N whole nodes; in it every node gets a copy of the repository, builds it and times every
stage on its GPUs (one GNU parallel slot per GPU), and each node's results/<gpu-slug>/ comes back
into run.sh's results folder (results/local/ by default, or run.sh's --out), as with
./run.sh --hosts FILE over ssh. Each node runs the whole campaign: N nodes measure N machines.
options (before "--"; run.sh's own options go after it, e.g. -- --runs 20 --stages 1-7):
  --nodes N           nodes to run the campaign on (required outside an allocation)
  --gpus-per-node G   GPUs to ask for on each node, --gres=gpu:G (default 1; give the
                      nodes' GPU count to time on all of them)
  --partition P       Slurm partition (sbatch --partition)
  --time T            time limit of the job, e.g. 04:00:00 or 1-00:00:00 (sbatch --time)
  --account A         account to charge (sbatch --account)
  --no-exclusive      share the nodes with other jobs (default: whole nodes, --exclusive, so
                      that no other job disturbs the timings)
  --sbatch-arg ARG    one more sbatch option, e.g. --sbatch-arg --qos=gpu (repeatable)
  --work DIR          folder on a file system every node sees, outside the repository, for
                      the job's log and each node's copy and results (node-K/) (default
                      $HOME/cuda-raytracer-slurm; env SLURM_CAMPAIGN_WORK)
  --dry-run           print the sbatch command (inside an allocation: the run.sh command)
                      and run nothing
  --help              this text
Inside an allocation (SLURM_JOB_ID set: the batch job itself, or a shell of salloc) it runs the
campaign at once on the allocation's nodes; --nodes and the other sbatch options do not apply.
Continue an interrupted campaign with the same command and --resume among run.sh's options:
node K of the new job continues what node K of the last one recorded in <work>/node-K/.
Watch the job with squeue -j JOBID (squeue -s -j JOBID: a step per node) and its log,
<work>/slurm-campaign-JOBID.out.
USAGE
}
die() { echo "slurm-campaign: error: $*" >&2; exit 2; }
bad_usage() { echo "slurm-campaign: error: $* (see tools/slurm-campaign.sh --help)" >&2; exit 2; }

# --- the ssh command of GNU parallel: one srun step on one node ---------------------------
if [[ "${1:-}" == --as-ssh ]]; then
    shift
    # ssh's options with a value, as GNU parallel may give them (-l USER for USER@HOST).
    while [[ $# -gt 0 && "$1" == -* ]]; do
        case "$1" in -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;; *) shift ;; esac
    done
    [[ $# -ge 1 ]] || die "--as-ssh: no host"
    host="$1"; shift
    [[ "${1:-}" == -- ]] && shift
    [[ -n "${SLURM_CAMPAIGN_HOSTS:-}" && -n "${SLURM_CAMPAIGN_WORK:-}" ]] \
        || die "--as-ssh is run by GNU parallel inside a campaign (SLURM_CAMPAIGN_HOSTS, SLURM_CAMPAIGN_WORK unset)"
    # srun passes this environment on, where ssh would not: run.sh's default stage folder (this
    # repository's stages/) must not replace the node's own copy's.
    [[ -z "${SLURM_CAMPAIGN_OWN_STAGES:-}" ]] || unset STAGES_DIR
    k="$(grep -m1 -nxF -- "$host" "$SLURM_CAMPAIGN_HOSTS" | cut -d: -f1)" || k=""
    node_dir="$SLURM_CAMPAIGN_WORK/node-${k:-$host}"
    # Like ssh: the words joined into one command for the shell there; it runs in the node's
    # work folder (srun would start it in this folder, the repository, that every node shares).
    # shellcheck disable=SC2016  # $1 and $2 are expanded by that shell
    exec srun --nodes=1 --ntasks=1 --nodelist="$host" --export=ALL --job-name="campaign-node-${k:-$host}" \
        bash -c 'mkdir -p -- "$1" && cd -- "$1" && eval "$2"' slurm-campaign "$node_dir" "$*"
fi

# --- options -------------------------------------------------------------------------------
nodes='' gpus_per_node='' partition='' time_limit='' account='' exclusive=1 dry_run=0
work="${SLURM_CAMPAIGN_WORK:-${HOME:+$HOME/cuda-raytracer-slurm}}"
sbatch_args=() run_args=() submit_only=()
while [[ $# -gt 0 ]]; do
    opt="$1"
    case "$opt" in
        --help|-h) usage; exit 0 ;;
        --) shift; run_args=("$@"); break ;;
        --dry-run) dry_run=1; shift; continue ;;
        --no-exclusive) exclusive=0; submit_only+=("$opt"); shift; continue ;;
        --nodes|--gpus-per-node|--partition|--time|--account|--sbatch-arg|--work) ;;
        --runs|--stages|--scene|--pt-scene|--gpus|--out|--resume|--timeout|--no-verify|--no-build|--bin-dir|--reference)
            bad_usage "unknown option '$opt': run.sh's options go after '--' (e.g. -- $opt ...)" ;;
        *) bad_usage "unknown option '$opt'" ;;
    esac
    [[ $# -ge 2 && -n "$2" ]] || bad_usage "$opt needs a value"
    val="$2"; shift 2
    case "$opt" in
        --nodes) [[ "$val" =~ ^[1-9][0-9]{0,4}$ ]] || bad_usage "--nodes needs a positive number, not '$val'"; nodes="$val" ;;
        --gpus-per-node) [[ "$val" =~ ^[1-9][0-9]{0,2}$ ]] || bad_usage "--gpus-per-node needs a positive number, not '$val'"; gpus_per_node="$val" ;;
        --partition) [[ "$val" =~ ^[A-Za-z0-9_.,-]+$ ]] || bad_usage "--partition '$val' is not a partition name"; partition="$val" ;;
        --time) [[ "$val" =~ ^([0-9]+-)?[0-9]+(:[0-9]+){0,2}$ ]] \
                    || bad_usage "--time '$val' is not a Slurm time (MM, HH:MM:SS, D-HH, D-HH:MM:SS)"; time_limit="$val" ;;
        --account) [[ "$val" =~ ^[A-Za-z0-9_.-]+$ ]] || bad_usage "--account '$val' is not an account name"; account="$val" ;;
        --sbatch-arg) [[ "$val" == -* ]] || bad_usage "--sbatch-arg '$val' is not an sbatch option (e.g. --qos=gpu)"; sbatch_args+=("$val") ;;
        --work) work="$val" ;;
    esac
    case "$opt" in --work) ;; *) submit_only+=("$opt") ;; esac
done
for arg in ${run_args[@]+"${run_args[@]}"}; do
    [[ "$arg" != --hosts ]] || bad_usage "run.sh's --hosts is this script's to set (one login per node of the job)"
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
if [[ ! -x "$repo/run.sh" || ! -f "$repo/tools/runner/remote-campaign.sh" ]]; then
    # sbatch runs a copy of this script kept by Slurm: the job's folder is the repository.
    repo="$(pwd -P)"
    [[ -x "$repo/run.sh" && -f "$repo/tools/runner/remote-campaign.sh" ]] \
        || die "cannot find the repository (no run.sh beside this script, nor in $repo)"
fi
[[ -n "$work" ]] || bad_usage "--work needs a folder (HOME is unset)"
work="$(realpath -m -- "$work")"
[[ "$work/" != "$repo/"* ]] || bad_usage "--work '$work' is inside the repository; give a folder outside it (each node gets a copy of the repository)"

# --- inside an allocation: the campaign --------------------------------------------------
if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    [[ -n "${SLURM_JOB_NODELIST:-}" ]] || die "SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not: run this inside a job's allocation (sbatch or salloc)"
    command -v scontrol >/dev/null 2>&1 || die "scontrol not found: this is for Slurm clusters; elsewhere use ./run.sh or ./run.sh --hosts FILE"
    command -v srun >/dev/null 2>&1 || die "srun not found: this is for Slurm clusters; elsewhere use ./run.sh or ./run.sh --hosts FILE"
    mkdir -p -- "$work" || die "cannot create the work folder '$work'"
    hosts_file="$work/job-$SLURM_JOB_ID.hosts"
    scontrol show hostnames "$SLURM_JOB_NODELIST" | grep -v '^[[:space:]]*$' >"$hosts_file.new" \
        || die "scontrol show hostnames '$SLURM_JOB_NODELIST' gave no node"
    mv -- "$hosts_file.new" "$hosts_file"
    [[ ${#submit_only[@]} -eq 0 ]] \
        || echo "slurm-campaign: inside job $SLURM_JOB_ID: ${submit_only[*]} apply only to a submission; the allocation's nodes are used" >&2
    export SLURM_CAMPAIGN_HOSTS="$hosts_file" SLURM_CAMPAIGN_WORK="$work"
    # run.sh exports STAGES_DIR (its stages/ when unset): each node reads its own copy's then.
    if [[ -z "${STAGES_DIR:-}" ]]; then export SLURM_CAMPAIGN_OWN_STAGES=1; else unset SLURM_CAMPAIGN_OWN_STAGES; fi
    RUN_SSH="$(printf '%q' "$repo/tools/slurm-campaign.sh") --as-ssh"
    export RUN_SSH
    # Each node's copy goes to <work>/node-K/cuda-raytracer-campaign (relative to the node folder).
    unset RUN_REMOTE_DIR
    command=(./run.sh --hosts "$hosts_file" ${run_args[@]+"${run_args[@]}"})
    echo "slurm-campaign: job $SLURM_JOB_ID: the campaign on $(wc -l <"$hosts_file") node(s): $(paste -sd' ' "$hosts_file"); node work folders in $work/node-K" >&2
    if [[ "$dry_run" -eq 1 ]]; then
        printf 'cd %q && RUN_SSH=%q SLURM_CAMPAIGN_HOSTS=%q SLURM_CAMPAIGN_WORK=%q' "$repo" "$RUN_SSH" "$hosts_file" "$work"
        printf ' %q' "${command[@]}"; echo
        exit 0
    fi
    cd "$repo"
    exec "${command[@]}"
fi

# --- outside: submit this script ---------------------------------------------------------
[[ -n "$nodes" ]] || bad_usage "--nodes N is required: the number of GPU nodes to run the campaign on"
if [[ "$dry_run" -eq 0 ]]; then
    command -v sbatch >/dev/null 2>&1 || die "sbatch not found: this is for Slurm clusters; elsewhere use ./run.sh or ./run.sh --hosts FILE"
fi
# run.sh's options are checked here, not after the wait in the queue: run.sh reads its options
# in order and stops at --help with status 0, or at the first bad one with status 2.
if ! check="$(cd "$repo" && ./run.sh ${run_args[@]+"${run_args[@]}"} --help 2>&1 >/dev/null)"; then
    check="${check%%$'\n'*}"
    echo "slurm-campaign: error: run.sh refuses its options: ${check:-(no message)}" >&2
    exit 2
fi
sbatch_cmd=(sbatch --parsable --job-name=rt-campaign --nodes="$nodes" --ntasks-per-node=1
            --gres=gpu:"${gpus_per_node:-1}")
[[ "$exclusive" -eq 1 ]] && sbatch_cmd+=(--exclusive)
[[ -n "$partition" ]] && sbatch_cmd+=(--partition="$partition")
[[ -n "$time_limit" ]] && sbatch_cmd+=(--time="$time_limit")
[[ -n "$account" ]] && sbatch_cmd+=(--account="$account")
sbatch_cmd+=(${sbatch_args[@]+"${sbatch_args[@]}"} --export=ALL --chdir="$repo"
             --output="$work/slurm-campaign-%j.out"
             "$repo/tools/slurm-campaign.sh" --work "$work" -- ${run_args[@]+"${run_args[@]}"})
printf '%q' "${sbatch_cmd[0]}"; printf ' %q' "${sbatch_cmd[@]:1}"; echo
[[ "$dry_run" -eq 0 ]] || exit 0
mkdir -p -- "$work" || die "cannot create the work folder '$work'"
status=0
job="$("${sbatch_cmd[@]}")" || status=$?
job="${job%%;*}"
[[ "$status" -eq 0 && "$job" =~ ^[0-9]+ ]] || { echo "slurm-campaign: sbatch failed (status $status)${job:+: $job}" >&2; exit 1; }
echo "slurm-campaign: submitted job $job ($nodes node(s), ${gpus_per_node:-1} GPU(s) each); watch it with: squeue -j $job; its log: $work/slurm-campaign-$job.out"
