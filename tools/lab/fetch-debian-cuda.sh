#!/usr/bin/env bash
# Fetches a CUDA Toolkit that Debian packages (non-free: nvidia-cuda-toolkit, nvidia-cuda-dev)
# into a folder of its own and prints the path of its nvcc, to build the stages with another
# CUDA than the installed one (CI builds every stage with each). Nothing is installed and the
# machine's own apt sources and package lists are left alone: apt-get reads a sources list in
# the folder and keeps its package lists and downloads there (Dir::Etc::SourceList,
# Dir::Etc::SourceParts, Dir::State::Lists, Dir::Cache), and dpkg-deb unpacks there. Kept: the
# compiler (nvcc, cicc, ptxas, fatbinary, nvlink, libdevice), the CUDA headers and the static
# CUDA runtime, about 210 MB; the download is about 0.9 GB (11.8) or 1 GB (12.4). Debian packages
# the CUDA C++ Core Libraries apart: CUB (the stages that use a library primitive), with the
# Thrust headers it includes and, from 2.x, libcu++; they are unpacked beside the CUDA headers.
#   11.8   CUDA 11.8.89 from Debian 12 (bookworm), CUB 1.17; gcc 11 at most: make NVCC_CCBIN=g++-11
#   12.4   CUDA 12.4.131 from Debian 13 (trixie), CUB 2.3; gcc 13 at most
#
# usage: tools/lab/fetch-debian-cuda.sh 11.8|12.4 DIR
#   prints DIR/usr/lib/nvidia-cuda-toolkit/bin/nvcc (a second call with the same DIR reuses it);
#   then: make BUILD=build-cuda118 NVCC=that-path NVCC_CCBIN=g++-11 CUDA_ARCH=75 stages
# environment: DEBIAN_MIRROR (default http://deb.debian.org/debian)
# Needs apt-get and dpkg-deb (Debian or Ubuntu, amd64) and Debian's archive keyring
# (/usr/share/keyrings/debian-archive-keyring.gpg). Errors: one line naming the version, status
# 1 (2 for a wrong argument).
set -uo pipefail

usage="usage: tools/lab/fetch-debian-cuda.sh 11.8|12.4 DIR"
version=${1:-}
dir=${2:-}
case $version in
    -h|--help) sed -n '1d; /^#/!q; s/^# \{0,1\}//p' "$0"; exit 0 ;;
    11.8) suite=bookworm package_version=11.8.89 cccl_packages=(libcub-dev libthrust-dev) ;;
    12.4) suite=trixie package_version=12.4.131 cccl_packages=(libcub-dev libthrust-dev libcu++-dev) ;;
    *) echo "fetch-debian-cuda: no Debian CUDA '$version': 11.8 or 12.4 ($usage)" >&2; exit 2 ;;
esac
[ $# -eq 2 ] && [ -n "$dir" ] || { echo "fetch-debian-cuda: CUDA $version: name one folder ($usage)" >&2; exit 2; }

fail() { echo "fetch-debian-cuda: CUDA $version: $*" >&2; exit 1; }

mkdir -p "$dir" || fail "cannot create $dir"
dir=$(cd "$dir" && pwd) || fail "cannot enter $dir"
toolkit=$dir/usr/lib/nvidia-cuda-toolkit
nvcc=$toolkit/bin/nvcc
has_release() { "$nvcc" --version 2>/dev/null | grep -q "release $version," && [ -f "$dir/usr/include/cub/cub.cuh" ]; }
if has_release; then
    echo "$nvcc"
    exit 0
fi

command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
    fail "needs apt-get and dpkg-deb (Debian or Ubuntu)"
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || fail "Debian packages it for amd64 only"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || fail "no $keyring (install debian-archive-keyring)"

apt=$dir/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$apt/debs" ||
    fail "cannot write in $dir"
echo "deb [signed-by=$keyring] ${DEBIAN_MIRROR:-http://deb.debian.org/debian} $suite main contrib non-free" \
    >"$apt/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
             -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)

apt-get "${apt_options[@]}" -qq update >"$apt/update.log" 2>&1 ||
    fail "apt-get update of Debian $suite failed: $(grep -m1 -E '^(E|W):' "$apt/update.log" || tail -n1 "$apt/update.log")"
packages=(nvidia-cuda-toolkit nvidia-cuda-dev)
for package in "${packages[@]}"; do
    candidate=$(apt-cache "${apt_options[@]}" policy "$package" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    [[ $candidate == "$package_version"~* || $candidate == *":$package_version"~* ||
       ( $package == nvidia-cuda-dev && $candidate == "${package_version%.*}."* ) ]] ||
        fail "Debian $suite offers $package '${candidate:-nothing}', not $package_version"
done
(cd "$apt/debs" && rm -f ./*.deb && apt-get "${apt_options[@]}" -qq download "${packages[@]}" "${cccl_packages[@]}") \
    >"$apt/download.log" 2>&1 ||
    fail "downloading ${packages[*]} ${cccl_packages[*]} from Debian $suite failed: $(tail -n1 "$apt/download.log")"

dpkg-deb -x "$apt/debs"/nvidia-cuda-toolkit_*.deb "$dir" || fail "cannot unpack nvidia-cuda-toolkit"
# Of the libraries' package, the headers and the static runtime nvcc links by default.
dpkg-deb --fsys-tarfile "$apt/debs"/nvidia-cuda-dev_*.deb |
    tar -x -C "$dir" --wildcards './usr/include/*' './usr/lib/x86_64-linux-gnu/libcudart_static.a' \
        './usr/lib/x86_64-linux-gnu/libcudadevrt.a' './usr/lib/x86_64-linux-gnu/libculibos.a' ||
    fail "cannot unpack nvidia-cuda-dev"
for package in "${cccl_packages[@]}"; do
    dpkg-deb -x "$apt/debs/${package}"_*.deb "$dir" || fail "cannot unpack $package"
done
rm -f "$apt/debs"/*.deb

# Debian's nvcc.profile is a link to /etc/nvcc.profile: this folder gets its own, with every
# path relative to nvcc, and CUDA_HOME/include (the Makefile's) leads to the headers.
rm -f "$toolkit/bin/nvcc.profile"
cat >"$toolkit/bin/nvcc.profile" <<'EOF'
NVVMIR_LIBRARY_DIR = $(_HERE_)/../libdevice
PATH += $(_HERE_):$(_HERE_)/../../../bin:
INCLUDES += "-I$(_HERE_)/../include" $(_SPACE_)
LIBRARIES =+ $(_SPACE_) "-L$(_HERE_)/../../x86_64-linux-gnu"
EOF
ln -sfn ../../include "$toolkit/include"
has_release || fail "the unpacked nvcc does not run or is not release $version: $("$nvcc" --version 2>&1 | tail -n1)"
echo "$nvcc"
