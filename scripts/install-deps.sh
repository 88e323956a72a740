#!/usr/bin/env bash
# Installs what vramscope needs from Debian's packages (run as root): what a user builds and runs
# (the GUI, the CLI, the CUPTI agent, remote captures over ssh); with --dev also what the test
# command needs (the sanitizer and fuzzing compiler, the format check, the recorder's compiled
# codec and block-list reader, an sshd for the remote tests). A user who wants the viewer gets no
# SSH server and no clang.
#     scripts/install-deps.sh [--dev]
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config git  # Ninja builds: no make, no dpkg-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libzstd-dev zlib1g-dev
  nlohmann-json3-dev          # torch.profiler traces (JSON, read with its SAX parser; header-only)
  fonts-dejavu-core           # text in headless renders
  zstd python3                # sample tooling
  openssh-client              # remote captures over the user's own ssh
)
# The CUPTI agent's symbolizer (DWARF file:line, inlined frames) and unwinder: for a user only
# where the CUDA toolkit's CUPTI is there to build the agent (capture/cupti/CMakeLists.txt).
agent=(libdw-dev libunwind-dev)
cuda=${VRAMSCOPE_CUDA_ROOT:-/usr/local/cuda}
if [[ -e $cuda/include/cupti.h || -e $cuda/extras/CUPTI/include/cupti.h ]]; then packages+=("${agent[@]}"); fi
dev=(
  "${agent[@]}"               # the native recorder's tests symbolize with libdw
  ccache                      # rebuilds (CMake uses it when it is there)
  clang libclang-rt-14-dev    # the libFuzzer target and the sanitizer build
  clang-format                # the test command checks every C++ file's formatting
  python3-dev                 # the recorder's compiled codec, built for its byte-for-byte test
  pybind11-dev                # the test of the recorder's block-list reader (header-only)
  python3-pytest python3-pytest-xdist  # the pytest plugin's suite (pytester, xdist)
  openssh-server              # the remote tests start their own sshd
  libnss-wrapper fish tcsh    # ...whose user's login shell they switch (fish, tcsh, a hostile host)
)
case "${1:-}" in
  --dev) packages+=("${dev[@]}") ;;
  "") ;;
  *) echo "usage: scripts/install-deps.sh [--dev]" >&2; exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
