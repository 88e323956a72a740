#pragma once
// An approximate model of the cudaMallocAsync backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync):
// the driver's stream-ordered pool, whose release threshold PyTorch sets to "never", keeps what it
// reserved until empty_cache() trims it. The driver's placement inside the pool is not public, so
// the pool is modelled as growing in 32 MiB chunks to the high-water mark of live bytes (the growth
// step seen on an H200 with driver 580: samples/cuda/truth.json), and a trim leaves the live bytes
// rounded up to a chunk. memory_allocated() under this backend counts requested bytes exactly.
#include <cstdint>
#include <vector>

namespace vs {

class AsyncAllocatorSim {
  public:
    static constexpr uint64_t kChunk = 32ull << 20;
    AsyncAllocatorSim(uint64_t capacity, double memoryFraction);
    // The same requests as NativeAllocatorSim (ids of allocations; hints are of no use here).
    bool malloc(uint32_t id, uint64_t size, uint64_t stream, uint64_t hintAddr, uint64_t hintSize);
    void freeRequested(uint32_t id) { release(id); } // cudaFreeAsync: reusable in stream order
    void freeCompleted(uint32_t) {}
    void release(uint32_t id);
    void emptyCache() { reserved_ = roundUp(live_); }
    int64_t reserved() const { return int64_t(reserved_); }
    int64_t allocated() const { return int64_t(live_); }

  private:
    static uint64_t roundUp(uint64_t n) { return (n + kChunk - 1) / kChunk * kChunk; }
    // What an allocation takes in the pool: large ones whole 2 MiB pages.
    static uint64_t footprint(uint64_t n) {
        const uint64_t g = n >= (1ull << 20) ? (2ull << 20) : 512;
        return (n + g - 1) / g * g;
    }
    uint64_t capacity_, limit_;
    uint64_t live_ = 0, reserved_ = 0;
    std::vector<uint64_t> sizeOf_; // allocation id -> live bytes (0 when not live)
};

} // namespace vs
