#!/bin/bash
# GPU evidence for issue 8: build the agent and the samples here (g++/nvcc), record them, and a
# PyTorch program at the CUDA level with expandable segments off and on. Outputs in $OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=/tmp/vcupti && mkdir -p $B
g++ -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -I$ROOT/core -I$ROOT/capture/cupti -I/usr/local/cuda/include \
  $ROOT/capture/cupti/Injection.cpp $ROOT/capture/cupti/NativeRecorder.cpp $ROOT/capture/cupti/LiveSocket.cpp $ROOT/core/io/VscapWriter.cpp \
  -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcupti -lzstd -lz -ldl -pthread -o $B/libvramscope_cupti.so && echo "agent built"
nvcc -O2 -Xlinker -export-dynamic -o $B/leak $ROOT/samples/cuda/leak.cu && nvcc -O2 -Xlinker -export-dynamic -o $B/pool $ROOT/samples/cuda/pool.cu && echo "samples built"
export CUDA_INJECTION64_PATH=$B/libvramscope_cupti.so
VRAMSCOPE_OUTPUT=$OUT/leak.vscap $B/leak 50
VRAMSCOPE_OUTPUT=$OUT/pool.vscap $B/pool
VRAMSCOPE_OUTPUT=$OUT/torch_plain.vscap python $ROOT/samples/cuda/torch_level.py | tee $OUT/torch_plain.txt
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True VRAMSCOPE_OUTPUT=$OUT/torch_expandable.vscap python $ROOT/samples/cuda/torch_level.py | tee $OUT/torch_expandable.txt
VRAMSCOPE_OUTPUT=/tmp/bench.vscap $B/leak 1 --bench 20000
unset CUDA_INJECTION64_PATH
$B/leak 1 --bench 20000
ls -la $OUT
