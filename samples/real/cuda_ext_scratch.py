"""A CUDA C++ extension built with torch.utils.cpp_extension.load_inline whose function cudaMalloc's
a scratch buffer on every call and never frees it (a native leak PyTorch's allocator never sees),
driven from a small training loop; for the CUPTI agent (CUDA_INJECTION64_PATH). --clean: the same
loop without the extension: PyTorch's caching-allocator segments only, which are not a leak.
    python cuda_ext_scratch.py TRUTH.json [--clean] [--seed S] [--steps N] [--scratch-kib K] [--step-ms MS]"""
import argparse
import os
import time

import torch
from torch import nn

from truth import Truth

CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void scale_kernel(const float* x, float* scratch, float* y, long n, float s) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) { scratch[i] = x[i] * s; y[i] = scratch[i]; }
}

torch::Tensor scaled_copy(torch::Tensor x, double s, long scratch_bytes) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat && x.is_contiguous());
    long n = x.numel();
    float* scratch = nullptr;
    size_t bytes = std::max<size_t>(scratch_bytes, n * sizeof(float));
    cudaMalloc(&scratch, bytes);  // LEAK: never freed
    auto y = torch::empty_like(x);
    scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), scratch, y.data_ptr<float>(), n, (float)s);
    return y;
}
"""
CPP_SRC = "torch::Tensor scaled_copy(torch::Tensor x, double s, long scratch_bytes);"


def build():
    from torch.utils.cpp_extension import load_inline
    return load_inline(name="scratch_ext", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["scaled_copy"],
                       extra_cflags=["-O2", "-g"], extra_cuda_cflags=["-O2", "-g"],
                       verbose=bool(os.environ.get("VERBOSE")))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--clean", action="store_true")
    p.add_argument("--build-only", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--scratch-kib", type=int, default=1024)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--step-ms", type=float, default=20)
    a = p.parse_args()
    ext = None if a.clean else build()
    if a.build_only:
        return
    torch.manual_seed(a.seed)
    model = nn.Sequential(nn.Linear(512, a.width), nn.ReLU(), nn.Linear(a.width, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    truth = Truth(a.truth, "none" if a.clean else "leak", __file__,
                  native_site=None if a.clean else "scaled_copy (cuda.cu:18, the cudaMalloc never freed)",
                  native_leak_bytes_each=0 if a.clean else max(a.scratch_kib << 10, 256 * 512 * 4),
                  native_leak_count=0 if a.clean else a.steps)
    for step in range(a.steps):
        x = torch.randn(256, 512, device="cuda")
        if ext is not None:
            x = ext.scaled_copy(x, 0.5, a.scratch_kib << 10)  # ALLOC-SITE (the extension's cudaMalloc)
        y = torch.randint(0, 10, (256,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if a.step_ms:
            time.sleep(a.step_ms / 1000)
        truth.step(0, step)
    truth.write()
    print("memory_allocated", torch.cuda.memory_allocated(), "memory_reserved", torch.cuda.memory_reserved())


if __name__ == "__main__":
    main()
