"""A training program whose CUDA extension (here: ctypes on the CUDA runtime PyTorch loaded) takes a
staging pool with a raw cudaMalloc at start-up, 80 % of the free memory, outside PyTorch's allocator
(torch.cuda.memory_allocated() never counts it). Training steps fit in what is left; the evaluation,
at a larger batch, does not. Cause: outside_pytorch (a raw cudaMalloc).
    python outside_raw_cudamalloc.py TRUTH.json [--step-ms MS]"""
import ctypes
import ctypes.util
import glob
import os

import torch
import torch.nn.functional as F

from oom_common import DEV, MiB, OomTruth, marker, mlp, parser, pause, round_down


def cuda_runtime():
    """(library, path, api): the libcudart PyTorch loaded (else torch's bundled one, else the driver)."""
    for line in open("/proc/self/maps"):
        if "libcudart" in line and line.split()[-1].startswith("/"):
            path = line.split()[-1]
            return ctypes.CDLL(path), path, "cudaMalloc"
    roots = [os.path.dirname(os.path.dirname(torch.__file__))]
    for path in sorted(glob.glob(os.path.join(roots[0], "nvidia", "*", "lib", "libcudart.so*"))):
        return ctypes.CDLL(path), path, "cudaMalloc"
    name = ctypes.util.find_library("cudart")
    if name:
        return ctypes.CDLL(name), name, "cudaMalloc"
    return ctypes.CDLL("libcuda.so.1"), "libcuda.so.1", "cuMemAlloc_v2"


class StagingPool:
    """What the extension keeps: one raw device allocation."""

    def __init__(self, nbytes):
        self.lib, self.path, self.api = cuda_runtime()
        self.ptr = ctypes.c_void_p()
        fn = getattr(self.lib, self.api)
        rc = fn(ctypes.byref(self.ptr), ctypes.c_size_t(nbytes))  # OOM-ALLOC-SITE: raw cudaMalloc, outside PyTorch
        if rc != 0:
            raise RuntimeError("%s(%d) failed: %d" % (self.api, nbytes, rc))
        self.nbytes = nbytes

    def free(self):
        getattr(self.lib, "cudaFree" if self.api == "cudaMalloc" else "cuMemFree_v2")(self.ptr)


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "outside_pytorch", "a raw cudaMalloc of the extension's staging pool (ctypes)")
    total = t.d["start"]["device_total"]
    torch.zeros(1, device=DEV)  # PyTorch's context first (the extension runs in it)
    pool = StagingPool(round_down(torch.cuda.mem_get_info()[0] * 0.8))
    t.d.update(raw_bytes=pool.nbytes, raw_api=pool.api, raw_library=pool.path, after_raw=torch.cuda.mem_get_info()[0])
    model = mlp(1024, 4096, 1024, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    x, y = torch.randn(4096, 1024, device=DEV), torch.randn(4096, 1024, device=DEV)
    eval_rows = int(0.06 * total // (4096 * 4)) // 1024 * 1024  # one hidden layer's output: 6 % of the device
    t.d.update(eval_rows=eval_rows)
    try:
        for epoch in range(3):
            with marker("epoch", epoch):
                for step in range(5):
                    loss = F.mse_loss(model(x), y)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    pause(a)
                    t.step(epoch, step)
            with marker("evaluate", epoch), torch.no_grad():
                rows = eval_rows * (epoch + 1)  # the validation batch grows with the curriculum
                vx = torch.randn(rows, 1024, device=DEV)  # OOM-REQUEST-SITE: the evaluation batch
                pred = model(vx)  # OOM-REQUEST-SITE: the evaluation batch's activations
                t.step(epoch, 5, phase="eval", rows=rows, metric=pred.mean().item())
                del vx, pred
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e)
    t.write()
    pool.free()


if __name__ == "__main__":
    main()
