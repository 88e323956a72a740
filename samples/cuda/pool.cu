// Stream-ordered allocation from a memory pool (cudaMallocAsync/cudaFreeAsync): a ring of
// buffers recycled through the pool, plus one buffer per step that is never freed (LEAK-SITE).
// The pool keeps what is freed (release threshold: all), so it holds more than is allocated; it
// prints the pool's own figures (cudaMemPoolAttrReservedMemCurrent / UsedMemCurrent), which the
// agent's reserved memory must equal, before and after a trim.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

std::vector<void*> g_kept;

extern "C" __attribute__((noinline)) void keep_async(cudaStream_t s, size_t bytes) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, s) == cudaSuccess) g_kept.push_back(p); // LEAK-SITE
}

static void report(cudaMemPool_t pool, const char* when) {
    uint64_t reserved = 0, used = 0;
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
    std::printf("%s: pool reserved %llu used %llu\n", when, static_cast<unsigned long long>(reserved),
                static_cast<unsigned long long>(used));
}

int main() {
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    uint64_t keepAll = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll);
    for (int step = 0; step < 40; ++step) {
        void* tmp = nullptr;
        if (cudaMallocAsync(&tmp, (8 + step % 5 * 8) << 20, s) != cudaSuccess) return 1;
        cudaMemsetAsync(tmp, 0, 8 << 20, s);
        cudaFreeAsync(tmp, s);
        keep_async(s, 512 << 10);
    }
    cudaStreamSynchronize(s);
    report(pool, "after the loop");
    std::printf("kept %zu buffers\n", g_kept.size());
    cudaMemPoolTrimTo(pool, 0);
    report(pool, "after trim");
    return 0;
}
