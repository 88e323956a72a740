#!/bin/bash
# Stages what the GPU machine needs into .gpu/bin (carried there): the agent built here with libdw,
# the libdw/libelf/libunwind it links (the GPU machine has none), the CUDA samples, the competing subscriber.
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=$ROOT/.gpu/bin && mkdir -p $B
cmake -S $ROOT -B $ROOT/build -DVRAMSCOPE_CUDA_SAMPLES=ON >/dev/null # off by default; scripts/test.sh turns it on too
ninja -C $ROOT/build vramscope_cupti samples/cuda/all
cp $ROOT/build/app/libvramscope_cupti.so $ROOT/build/samples/cuda/{leak,pool,vmm} $B/
cp -L /lib/x86_64-linux-gnu/libdw.so.1 /lib/x86_64-linux-gnu/libelf.so.1 /lib/x86_64-linux-gnu/libunwind.so.8 $B/
g++ -std=c++20 -O2 -fPIC -shared -I/usr/local/cuda/include $ROOT/capture/cupti/gpu/other_subscriber.cpp \
  -L/usr/local/cuda/lib64 -lcupti -o $B/libother_subscriber.so
ls -la $B
