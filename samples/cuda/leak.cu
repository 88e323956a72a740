// A CUDA program that leaks device memory in a loop: each step allocates a work buffer and a
// result buffer; the work buffer is freed, the result is "cached" and never freed (LEAK-SITE).
// Also times cudaMalloc/cudaFree pairs (for the agent's overhead per allocation).
//   leak [STEPS] [--bench N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) return std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)), 1; \
    } while (0)

__global__ void fill(float* p, size_t n, float v) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}

std::vector<float*> g_results; // the holder

extern "C" __attribute__((noinline)) float* cache_result(size_t n) {
    float* r = nullptr;
    if (cudaMalloc(&r, n * sizeof(float)) != cudaSuccess) return nullptr; // LEAK-SITE
    fill<<<64, 256>>>(r, n, 1.f);
    g_results.push_back(r);
    return r;
}

extern "C" __attribute__((noinline)) int work_step(size_t n) {
    float* work = nullptr;
    CHECK(cudaMalloc(&work, 4 * n * sizeof(float)));
    fill<<<64, 256>>>(work, 4 * n, 2.f);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(work));
    return cache_result(n) ? 0 : 1;
}

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 50;
    for (int s = 0; s < steps; ++s)
        if (work_step(256 * 1024)) return 1; // 1 MiB leaked per step
    if (argc > 3 && std::strcmp(argv[2], "--bench") == 0) {
        const int n = std::atoi(argv[3]);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
            void* p = nullptr;
            CHECK(cudaMalloc(&p, 1 << 20));
            CHECK(cudaFree(p));
        }
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        std::printf("cudaMalloc+cudaFree: %.2f us per pair\n", us / n);
    }
    std::printf("leaked %zu buffers\n", g_results.size());
    return 0;
}
