#!/usr/bin/env bash
# Installs what the project needs and this machine lacks, for one purpose, so that the README's
# two commands work on a fresh Debian or Ubuntu machine that has the CUDA Toolkit:
#   build  stb_image_write (libstb-dev), ISA-L (libisal-dev: the PNG files' deflate)
#   test   the build's, and cmocka (libcmocka-dev), GNU parallel, python3 with matplotlib
#          (the runner's tests and plots)
#   run    the build's, GNU parallel (./run.sh); python3 with matplotlib (tables and plots)
# How: apt-get as root; `sudo -n apt-get` where sudo needs no password; otherwise one line with
# the exact command to run, and exit status 2. On a machine without apt-get, the same line names
# the packages. Nothing is printed when nothing is missing. make, ./run.sh and .ci/run call it.
#
# usage: tools/install-deps.sh build|test|run [--check]
#   --check  install nothing: print the missing packages (one line) and exit 2 if any
# environment: STB_INCLUDE_DIR (folder of stb_image_write.h, default /usr/include/stb),
#   INSTALL_DEPS_SKIP_STB (non-empty: do not look for stb), INSTALL_DEPS_INCLUDE_DIRS (where
#   isa-l/igzip_lib.h and cmocka.h are looked for, default "/usr/include /usr/local/include";
#   CPATH's folders too), INSTALL_DEPS_APT (the apt-get command, default apt-get),
#   INSTALL_DEPS_SUDO (default sudo), INSTALL_DEPS_UID (default: id -u).
set -uo pipefail

fail() { echo "install-deps: $*" >&2; exit 2; }

purpose=${1:-}
check_only=0
[ "${2:-}" = --check ] && check_only=1
case $purpose in
    build|test|run) ;;
    -h|--help) sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) fail "say what for: build, test or run (usage: tools/install-deps.sh build|test|run [--check])" ;;
esac
[ $# -le 2 ] && { [ $# -lt 2 ] || [ "$2" = --check ]; } ||
    fail "unexpected argument '${2:-}' (usage: tools/install-deps.sh build|test|run [--check])"

has_header() {
    local dir
    for dir in ${INSTALL_DEPS_INCLUDE_DIRS-/usr/include /usr/local/include} ${CPATH:+${CPATH//:/ }}; do
        [ -f "$dir/$1" ] && return 0
    done
    return 1
}

missing=()
# INSTALL_DEPS_SKIP_STB: the caller was given its own stb folder and checks it itself.
[ -n "${INSTALL_DEPS_SKIP_STB:-}" ] || [ -f "${STB_INCLUDE_DIR:-/usr/include/stb}/stb_image_write.h" ] ||
    missing+=(libstb-dev)
has_header isa-l/igzip_lib.h || missing+=(libisal-dev)
if [ "$purpose" = test ]; then
    has_header cmocka.h || missing+=(libcmocka-dev)
fi
if [ "$purpose" != build ]; then
    command -v parallel >/dev/null 2>&1 || missing+=(parallel)
    if ! command -v python3 >/dev/null 2>&1; then
        missing+=(python3 python3-matplotlib)
    elif ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
        missing+=(python3-matplotlib)
    fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0

apt=${INSTALL_DEPS_APT:-apt-get}
command_line="apt-get install -y ${missing[*]}"
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
if ! "${run[@]}" install -y -qq "${missing[@]}" >/dev/null; then
    "${run[@]}" update -qq >/dev/null 2>&1
    "${run[@]}" install -y -qq "${missing[@]}" >/dev/null ||
        fail "could not install ${missing[*]} with ${run[*]}; install them and run again"
fi
