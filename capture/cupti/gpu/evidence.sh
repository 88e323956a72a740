#!/bin/bash
# GPU evidence for the CUPTI agent (issue 8), run on the GPU machine with .gpu/bin staged by
# stage.sh: the samples (leak, pool, vmm), PyTorch at the CUDA level with expandable segments off and
# on, overhead per allocation, a SIGKILLed recording, a competing CUPTI client (a preloaded
# subscriber; torch.profiler), and the live socket. Everything lands in $OUT/cupti.tar.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=$ROOT/.gpu/bin
W=/tmp/cupti-evidence && rm -rf $W && mkdir -p $W && cd $W
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
AGENT=$B/libvramscope_cupti.so
rec() { # rec NAME CMD... : records CMD into NAME.vscap, its output in NAME.txt
    local name=$1; shift
    CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$W/$name.vscap "$@" >$W/$name.txt 2>&1
    echo "$name: rc=$? $(tail -3 $W/$name.txt | tr '\n' '|')"
}
rec leak $B/leak 50
rec pool $B/pool
rec vmm $B/vmm
rec torch_plain python $ROOT/samples/cuda/torch_level.py
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True rec torch_expandable python $ROOT/samples/cuda/torch_level.py
PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync rec torch_async python $ROOT/samples/cuda/torch_level.py
echo "== overhead (cudaMalloc+cudaFree pairs)"
for i in 1 2 3; do
  CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$W/bench.vscap $B/leak 1 --bench 20000 2>/dev/null | grep pair
  $B/leak 1 --bench 20000 | grep pair
done
rm -f $W/bench.vscap
echo "== SIGKILL after 3 s"
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$W/killed.vscap $B/leak 100000 >/dev/null 2>&1 &
sleep 3; kill -9 $!; wait $! 2>/dev/null; ls -la $W/killed.vscap
echo "== another CUPTI subscriber first"
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$W/conflict.vscap LD_PRELOAD=$B/libother_subscriber.so $B/leak 5 2>&1 | tee $W/conflict.txt
ls $W/conflict.vscap 2>&1
echo "== torch.profiler inside a recorded program"
cat > $W/prof.py <<'PY'
import torch
from torch.profiler import profile, ProfilerActivity
x = [torch.randn(1024, 1024, device="cuda") for _ in range(4)]
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    y = [a @ a for a in x]
    torch.cuda.synchronize()
print("kernels seen by the profiler:", sum(1 for e in p.events() if e.device_type.name == "CUDA"))
print("memory_reserved", torch.cuda.memory_reserved())
PY
rec profiler python $W/prof.py; grep -i "vramscope\|kernels\|cupti\|memory_reserved" $W/profiler.txt | head -8
echo "== live socket"
python - <<'PY' &
import socket, os
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/vs-live.sock"); s.listen(1)
c, _ = s.accept(); data = b""
while True:
    b = c.recv(1 << 16)
    if not b: break
    data += b
open("/tmp/cupti-evidence/live.bin", "wb").write(data)
PY
sleep 1
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$W/live.vscap VRAMSCOPE_LIVE=/tmp/vs-live.sock $B/leak 20 >/dev/null 2>&1
wait; cmp $W/live.bin $W/live.vscap && echo "live stream == file ($(stat -c %s $W/live.vscap) bytes)"
rm -f /tmp/vs-live.sock
ls -la $W
tar cf $OUT/cupti.tar -C $W .
