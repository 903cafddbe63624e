#!/usr/bin/env bash
# Installs what the project needs and this machine lacks, for one purpose, so that the README's
# two commands work on a fresh Debian or Ubuntu machine that has the CUDA Toolkit:
#   build  stb_image_write (libstb-dev), ISA-L (libisal-dev: the PNG files' deflate)
#   test   the build's, and cmocka (libcmocka-dev), xz (xz-utils), GNU parallel, python3 with
#          matplotlib (the runner's tests and plots)
#   run    the build's, GNU parallel (./run.sh); python3 with matplotlib (tables and plots)
#   slurm  optional, needed by nothing else: Slurm and munge (slurm-wlm, munge; without their
#          recommended plugins) for a Slurm cluster of one node on this machine,
#          tools/local-slurm.sh: to try tools/slurm-campaign.sh, and for its test against a real
#          Slurm (tests/test_local_slurm.c), which skips without them. Looked up on PATH (root's
#          has /usr/sbin, where the daemons are).
# How: apt-get as root; `sudo -n apt-get` where sudo needs no password; otherwise one line with
# the exact command to run, and exit status 2. On a machine without apt-get, the same line names
# the packages. Nothing is printed when nothing is missing. make, ./run.sh and .ci/run call it.
# matplotlib is wanted by the python3 first on PATH, the one the tools run with (named by its
# sys.executable in messages). The system's python3 (prefix /usr, not a virtual environment)
# gets apt-get's python3-matplotlib; any other one (a virtual environment, pyenv, conda) gets
# `PYTHON -m pip install --quiet matplotlib` into it, where its prefix is writable by this user
# and it has pip; otherwise one line with the exact pip command and exit status 2. Either way the
# import is checked again afterwards: status 0 only when that python3 can import matplotlib.
#
# usage: tools/install-deps.sh build|test|run|slurm [--check]
#   --check  install nothing: print what is missing (a line for apt-get's packages, a line with
#            the pip command for a python3 that is not the system's) and exit 2 if anything is
# environment: STB_INCLUDE_DIR (folder of stb_image_write.h, default /usr/include/stb),
#   INSTALL_DEPS_SKIP_STB (non-empty: do not look for stb), INSTALL_DEPS_INCLUDE_DIRS (where
#   isa-l/igzip_lib.h and cmocka.h are looked for, default "/usr/include /usr/local/include";
#   CPATH's folders too), INSTALL_DEPS_APT (the apt-get command, default apt-get),
#   INSTALL_DEPS_SUDO (default sudo), INSTALL_DEPS_UID (default: id -u), INSTALL_DEPS_PYTHON
#   (the python command the tools run with, looked up on PATH, default python3),
#   INSTALL_DEPS_PIP_ARGS (more words for pip install, e.g. --no-index --find-links DIR).
set -uo pipefail

status=0
fail() { echo "install-deps: $*" >&2; exit 2; }
# A problem that does not stop the rest: said in one line, and the exit status becomes 2.
problem() { echo "install-deps: $*" >&2; status=2; }

purpose=${1:-}
check_only=0
[ "${2:-}" = --check ] && check_only=1
case $purpose in
    build|test|run|slurm) ;;
    -h|--help) sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) fail "say what for: build, test, run or slurm (usage: tools/install-deps.sh build|test|run|slurm [--check])" ;;
esac
[ $# -le 2 ] && { [ $# -lt 2 ] || [ "$2" = --check ]; } ||
    fail "unexpected argument '${2:-}' (usage: tools/install-deps.sh build|test|run|slurm [--check])"

has_header() {
    local dir
    for dir in ${INSTALL_DEPS_INCLUDE_DIRS-/usr/include /usr/local/include} ${CPATH:+${CPATH//:/ }}; do
        [ -f "$dir/$1" ] && return 0
    done
    return 1
}

python_cmd=${INSTALL_DEPS_PYTHON:-python3}
read -ra pip_extra <<<"${INSTALL_DEPS_PIP_ARGS:-}"

imports_matplotlib() { "$1" -c 'import matplotlib' >/dev/null 2>&1; }

# Describes the interpreter at $1: py (its sys.executable, else $1), py_quoted (py for a shell
# line), py_kind (system: the Debian/Ubuntu one under /usr; own: another one whose prefix this
# user can write, a virtual environment, pyenv or conda; other: neither), py_pip_line (the command
# that installs matplotlib into it).
describe_python() {
    local info exe='' prefix='' base=''
    info=$("$1" -c 'import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)' 2>/dev/null)
    { IFS= read -r exe; IFS= read -r prefix; IFS= read -r base; } <<<"$info"
    py=${exe:-$1}
    printf -v py_quoted '%q' "$py"
    if [ "$prefix" = /usr ] && [ "$base" = /usr ]; then
        py_kind=system
    elif [ -n "$prefix" ] && [ -w "$prefix" ]; then
        py_kind=own
    else
        py_kind=other
    fi
    py_pip_line="$py_quoted -m pip install${INSTALL_DEPS_PIP_ARGS:+ $INSTALL_DEPS_PIP_ARGS} matplotlib"
}

# The line for a python3 that still cannot import matplotlib; $1: why, after "cannot import
# matplotlib" (may be empty).
python_problem() {
    problem "$py cannot import matplotlib$1; install it with: $py_pip_line"
}

missing=()
# apt-get's options besides -y: Slurm's recommended plugins (HDF5, IPMI, ROCm, ... and their -dev
# packages) are many times the size of what tools/local-slurm.sh uses.
apt_options=()
if [ "$purpose" = slurm ]; then
    command -v munged >/dev/null 2>&1 || missing+=(munge)
    for program in slurmctld slurmd sbatch srun scontrol; do
        command -v "$program" >/dev/null 2>&1 || { missing=(slurm-wlm ${missing[@]+"${missing[@]}"}); break; }
    done
    apt_options=(--no-install-recommends)
else
    # INSTALL_DEPS_SKIP_STB: the caller was given its own stb folder and checks it itself.
    [ -n "${INSTALL_DEPS_SKIP_STB:-}" ] || [ -f "${STB_INCLUDE_DIR:-/usr/include/stb}/stb_image_write.h" ] ||
        missing+=(libstb-dev)
    has_header isa-l/igzip_lib.h || missing+=(libisal-dev)
fi
if [ "$purpose" = test ]; then
    has_header cmocka.h || missing+=(libcmocka-dev)
    # tools/profile.sh packs reports with xz (tests/test_profile.c runs it with a stand-in ncu).
    command -v xz >/dev/null 2>&1 || missing+=(xz-utils)
fi
apt_python=0 pip_wanted=0
if [ "$purpose" = test ] || [ "$purpose" = run ]; then
    command -v parallel >/dev/null 2>&1 || missing+=(parallel)
    python=$(command -v "$python_cmd" 2>/dev/null)
    if [ -z "$python" ]; then
        missing+=(python3 python3-matplotlib) apt_python=1
    elif ! imports_matplotlib "$python"; then
        describe_python "$python"
        # apt-get installs for the system's python3 only: never for another one.
        if [ "$py_kind" = system ]; then
            missing+=(python3-matplotlib) apt_python=1
        else
            pip_wanted=1
        fi
    fi
fi

# A python3 of its own (a virtual environment, pyenv, conda): pip into it, where that can work.
if [ $pip_wanted -eq 1 ]; then
    if ! "$py" -m pip --version >/dev/null 2>&1; then
        problem "$py cannot import matplotlib and has no pip; install it with:" \
            "$py_quoted -m ensurepip && $py_pip_line"
    elif [ $check_only -eq 1 ] || [ "$py_kind" != own ]; then
        python_problem ""
    else
        echo "install-deps: installing matplotlib ($py_quoted -m pip install)" >&2
        if ! "$py" -m pip install --quiet ${pip_extra[@]+"${pip_extra[@]}"} matplotlib >/dev/null 2>&1; then
            python_problem " (pip could not install it)"
        elif ! imports_matplotlib "$py"; then
            python_problem " even after pip installed it"
        fi
    fi
fi

[ ${#missing[@]} -eq 0 ] && exit $status

apt=${INSTALL_DEPS_APT:-apt-get}
command_line="apt-get install -y ${apt_options[*]+${apt_options[*]} }${missing[*]}"
if [ $check_only -eq 1 ]; then
    fail "missing for '$purpose': ${missing[*]} (install with: sudo $command_line)"
fi
if ! command -v "$apt" >/dev/null 2>&1; then
    fail "missing for '$purpose': ${missing[*]} (Debian/Ubuntu package names; this machine has no apt-get: install their equivalents)"
fi

uid=${INSTALL_DEPS_UID:-$(id -u)}
sudo_cmd=${INSTALL_DEPS_SUDO:-sudo}
if [ "$uid" -eq 0 ]; then
    run=("$apt")
elif command -v "$sudo_cmd" >/dev/null 2>&1 && "$sudo_cmd" -n true >/dev/null 2>&1; then
    run=("$sudo_cmd" -n "$apt")
else
    fail "missing for '$purpose': ${missing[*]}; install with: sudo $command_line"
fi

echo "install-deps: installing ${missing[*]} (${run[*]} install)" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine's package lists may be empty or stale: update once when the install fails.
if ! "${run[@]}" install -y -qq ${apt_options[@]+"${apt_options[@]}"} "${missing[@]}" >/dev/null; then
    "${run[@]}" update -qq >/dev/null 2>&1
    "${run[@]}" install -y -qq ${apt_options[@]+"${apt_options[@]}"} "${missing[@]}" >/dev/null ||
        fail "could not install ${missing[*]} with ${run[*]}; install them and run again"
fi

# apt-get's matplotlib is for the system's python3: check that the one on PATH can import it now.
if [ $apt_python -eq 1 ]; then
    hash -r
    python=$(command -v "$python_cmd" 2>/dev/null)
    if [ -z "$python" ]; then
        problem "no $python_cmd on PATH even after apt-get installed python3; add its folder (/usr/bin) to PATH"
    elif ! imports_matplotlib "$python"; then
        describe_python "$python"
        python_problem " even after apt-get installed python3-matplotlib"
    fi
fi
exit $status
