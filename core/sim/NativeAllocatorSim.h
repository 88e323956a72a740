#pragma once
// PyTorch's native CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator,
// as of 2.11) modelled over a request stream: small and large pools ordered by (stream, size,
// address), best fit, the splitting rule, max_split_size / oversize blocks, max_non_split_rounding,
// roundup_power2_divisions, expandable segments (2 MiB / 20 MiB pages mapped at the lowest free
// address), garbage_collection_threshold under a memory fraction, and freeing cached blocks before
// retrying and failing with an OOM. The device's own limit is a byte capacity (the CUDA context and
// other processes are not modelled). Names follow the PyTorch functions they mirror.
#include "SimConfig.h"
#include "SimInput.h"
#include "SimResult.h"

#include <memory_resource>
#include <set>
#include <vector>

namespace vs {

class NativeAllocatorSim {
  public:
    NativeAllocatorSim(const SimConfig& config, uint64_t capacity);
    void loadInitialState(const SimInput& in);
    // One request; false when an allocation the program made could not be served (an OOM).
    bool malloc(uint32_t id, uint64_t size, uint64_t stream, uint64_t hintAddr, uint64_t hintSize);
    void freeRequested(uint32_t id);
    void freeCompleted(uint32_t id);
    void emptyCache() { releaseCachedBlocks(); }
    void release(uint32_t id); // free_requested + free_completed at once

    int64_t reserved() const { return reserved_; }
    int64_t allocated() const { return allocated_; }
    uint64_t segmentsCreated() const { return created_; }
    uint64_t segmentsReleased() const { return released_; }
    uint64_t allocRetries() const { return retries_; } // PyTorch's num_alloc_retries: cache flushed to retry
    std::vector<StateSegment> segments() const;

  private:
    static constexpr uint32_t kNil = UINT32_MAX;
    struct Block {
        uint64_t addr = 0, size = 0, stream = 0;
        uint32_t prev = kNil, next = kNil;
        uint32_t expSeg = kNil;    // index into exp_ when in an expandable segment
        uint32_t id = kNil;        // the allocation it holds
        uint32_t pendingAt = kNil; // its entry in pending_ while its free waits
        uint64_t requested = 0;
        int64_t gcBase = 0;
        bool small = false, allocated = false, pending = false, mapped = true, live = true;
    };
    struct SizeKey {
        uint64_t stream, size, addr;
        uint32_t block;
        bool operator<(const SizeKey& o) const {
            if (stream != o.stream) return stream < o.stream;
            if (size != o.size) return size < o.size;
            return addr < o.addr;
        }
    };
    struct AddrKey {
        uint64_t stream, addr;
        uint32_t block;
        bool operator<(const AddrKey& o) const {
            return stream != o.stream ? stream < o.stream : addr < o.addr;
        }
    };
    struct Pool {
        explicit Pool(std::pmr::memory_resource* r) : blocks(r), unmapped(r) {}
        std::pmr::set<SizeKey> blocks;
        std::pmr::set<AddrKey> unmapped;
        int64_t getFreeBlocksCallCount = 0;
        bool small = false;
    };
    struct ExpandableSegment {
        uint64_t base = 0, vaSize = 0, page = 0;
    };
    struct Params {
        uint64_t size = 0, allocSize = 0, stream = 0, hintAddr = 0, hintSize = 0;
        Pool* pool = nullptr;
        uint32_t block = kNil;
    };

    uint64_t roundSize(uint64_t size) const;
    bool gcActive() const { return config_.memoryFraction > 0 && config_.garbageCollectionThreshold > 0; }
    bool isSplit(uint32_t b) const { return blocks_[b].prev != kNil || blocks_[b].next != kNil; }
    uint32_t newBlock(const Block& b);
    void dropBlock(uint32_t b);
    Pool& poolOf(uint32_t b) { return blocks_[b].small ? small_ : large_; }
    void insertIntoBlocks(uint32_t b);
    void eraseFromBlocks(uint32_t b);
    void insertUnmapped(uint32_t b);
    void eraseUnmapped(uint32_t b);
    void splice(uint32_t b, uint32_t before, uint32_t after);
    void addPending(uint32_t b);
    void removePending(uint32_t b);

    bool getFreeBlock(Params& p);
    bool allocBlock(Params& p);
    uint64_t newSegmentAddress(uint64_t size, uint64_t hintAddr, uint64_t hintSize);
    void allocFoundBlock(Params& p, uint32_t id, uint64_t requested);
    bool shouldSplit(uint32_t b, uint64_t size) const;
    void freeBlock(uint32_t b);
    uint64_t tryMergeBlocks(uint32_t dst, uint32_t src);
    void garbageCollectCachedBlocks();
    bool releaseAvailableCachedBlocks(const Params& p);
    void releaseCachedBlocks();
    void releaseBlocks(Pool& pool);
    void releaseBlock(uint32_t b);
    uint32_t tryAllocateExpandableBlock(const Params& p);
    uint32_t findExpandableBlock(const Params& p);
    bool mapBlock(uint32_t b, uint64_t size);
    void unmapBlock(uint32_t b);
    bool allocatable(uint32_t b) const;
    bool fits(uint64_t bytes) const;

    SimConfig config_;
    uint64_t capacity_;       // 0 = unlimited
    uint64_t allowedMaximum_; // capacity * memory fraction; 0 = no fraction set
    std::pmr::unsynchronized_pool_resource memory_;
    Pool large_{&memory_}, small_{&memory_};
    std::vector<Block> blocks_;
    std::vector<uint32_t> freeSlots_;
    std::vector<uint32_t> blockOf_; // allocation id -> block
    std::vector<uint32_t> pending_; // blocks whose free waits for free_completed, in order; kNil: blanked
    size_t blankPending_ = 0;
    std::vector<ExpandableSegment> exp_;
    std::set<std::pair<uint64_t, uint64_t>> addressSpace_; // [begin, end) of live segments and reservations
    uint64_t nextSynthetic_ = 1ull << 52;
    // The simulated cudaMalloc/cudaFree sequence has left the recorded one: the recorded addresses
    // describe a driver state that no longer exists, so no more hints are taken.
    bool diverged_ = false;
    int64_t reserved_ = 0, allocated_ = 0;
    uint64_t created_ = 0, released_ = 0, retries_ = 0;
};

} // namespace vs
