// Stream-ordered allocation from a memory pool (cudaMallocAsync/cudaFreeAsync): a ring of
// buffers recycled through the pool, plus one buffer per step that is never freed (LEAK-SITE).
// The pool keeps what is freed (release threshold: all), so it holds more than is allocated; it
// prints the pool's own figures (cudaMemPoolAttrReservedMemCurrent / UsedMemCurrent), which the
// agent's reserved memory must equal, before and after a trim.
//   pool [--bench N]: also times N cudaMallocAsync+cudaFreeAsync pairs (the agent's cost per pair)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

static void bench(cudaStream_t s, int n) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        void* p = nullptr;
        cudaMallocAsync(&p, 1 << 20, s);
        cudaFreeAsync(p, s);
    }
    cudaStreamSynchronize(s);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("cudaMallocAsync+cudaFreeAsync: %.2f us per pair\n", us / n);
}

int main(int argc, char** argv) {
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
    if (argc > 2 && std::strcmp(argv[1], "--bench") == 0) bench(s, std::atoi(argv[2]));
    return 0;
}
