#!/usr/bin/env bash
# Installs every Debian package collbench needs to build, test and plot (idempotent).
# CUDA 13.0 with NCCL and NVTX3 headers is expected in /usr/local/cuda (or CUDA_HOME).
set -euo pipefail
packages=(
  cmake ninja-build g++ git
  libbenchmark-dev libfmt-dev libfccp-dev libgtest-dev libcli11-dev nlohmann-json3-dev zlib1g-dev
  libopenmpi-dev openmpi-bin
  clang-format-14
  python3 python3-matplotlib
  libdw1 libelf1
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
cuda_home=${CUDA_HOME:-/usr/local/cuda}
[ -x "$cuda_home/bin/nvcc" ] || { echo "ci/setup.sh: nvcc not found in $cuda_home/bin (set CUDA_HOME)" >&2; exit 1; }
[ -f "$cuda_home/include/nccl.h" ] || [ -f /usr/include/nccl.h ] || { echo "ci/setup.sh: nccl.h not found" >&2; exit 1; }
echo "ci/setup.sh: dependencies present"
