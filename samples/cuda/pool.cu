// Stream-ordered allocation from a memory pool (cudaMallocAsync/cudaFreeAsync): a ring of
// buffers recycled through the pool, plus one buffer per step that is never freed (LEAK-SITE).
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

std::vector<void*> g_kept;

extern "C" __attribute__((noinline)) void keep_async(cudaStream_t s, size_t bytes) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, s) == cudaSuccess) g_kept.push_back(p); // LEAK-SITE
}

int main() {
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int step = 0; step < 40; ++step) {
        void* tmp = nullptr;
        if (cudaMallocAsync(&tmp, 8 << 20, s) != cudaSuccess) return 1;
        cudaMemsetAsync(tmp, 0, 8 << 20, s);
        cudaFreeAsync(tmp, s);
        keep_async(s, 512 << 10);
    }
    cudaStreamSynchronize(s);
    std::printf("kept %zu buffers\n", g_kept.size());
    return 0;
}
