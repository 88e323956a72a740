#!/usr/bin/env bash
# Installs what vramscope needs to build, test and run, from Debian's packages (run as root).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config ccache git
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libzstd-dev zlib1g-dev
  nlohmann-json3-dev          # torch.profiler traces (JSON, read with its SAX parser; header-only)
  libdw-dev libunwind-dev     # the CUPTI agent: symbolizer (DWARF file:line, inlined frames), unwinder
  clang libclang-rt-14-dev   # the libFuzzer target and the sanitizer build
  clang-format                # the test command checks every C++ file's formatting
  fonts-dejavu-core           # text in headless renders
  zstd python3                # sample tooling
  python3-dev                 # the recorder's compiled codec, built for its byte-for-byte test
  pybind11-dev                # the test of the recorder's block-list reader (header-only)
  openssh-client openssh-server  # remote captures over ssh; the tests start their own sshd
)
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
