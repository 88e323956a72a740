#pragma once
// PyTorch's CUDA caching allocator policy (c10/cuda/CUDACachingAllocator.cpp, 2.x): how a request
// is rounded and whether a free block found for it is split. The replay needs exactly these rules
// to count whole blocks the way torch.cuda.memory_allocated() does.
#include "model/AllocatorSettings.h"

#include <array>
#include <cstdint>

namespace vs {

struct AllocatorRules {
    static constexpr uint64_t kMinBlockSize = 512;
    static constexpr uint64_t kSmallSize = 1ull << 20;   // largest request served by the small pool
    static constexpr uint64_t kSmallBuffer = 2ull << 20; // size of a small-pool segment

    uint64_t maxSplitSize = UINT64_MAX;
    uint64_t maxNonSplitRounding = 20ull << 20;
    bool expandableSegments = false;
    std::array<uint32_t, 16> roundupPower2Divisions{};

    static AllocatorRules from(const AllocatorSettings& s) {
        return {s.maxSplitSize, s.maxNonSplitRounding, s.expandableSegments, s.roundupPower2Divisions};
    }

    uint64_t roundSize(uint64_t size) const {
        if (size < kMinBlockSize) return kMinBlockSize;
        const int log2 = 63 - __builtin_clzll(size);
        const int bucket = log2 < 20 ? 0 : log2 - 20 > 15 ? 15 : log2 - 20;
        const uint64_t div = roundupPower2Divisions[static_cast<size_t>(bucket)];
        if (div > 1 && size > kMinBlockSize * div) return roundupPower2(size, div);
        return (size + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
    }

    // Does an allocation of `size` bytes split the free block of `blockSize` it was given?
    bool shouldSplit(uint64_t blockSize, uint64_t size, bool smallPool, bool expandable) const {
        const uint64_t remaining = blockSize - size;
        if (smallPool || expandable || expandableSegments) return remaining >= kMinBlockSize;
        return size < maxSplitSize && remaining > kSmallSize;
    }

    // The largest unsplit remainder a block of `size` bytes may carry in a non-expandable large pool.
    uint64_t maxUnsplitRemainder(uint64_t size) const {
        return size < maxSplitSize ? kSmallSize : maxNonSplitRounding;
    }

  private:
    static uint64_t roundupPower2(uint64_t size, uint64_t divisions) {
        if ((size & (size - 1)) == 0) return size;
        const uint64_t floor2 = uint64_t{1} << (63 - __builtin_clzll(size));
        const uint64_t step = floor2 >> (63 - __builtin_clzll(divisions));
        if (step == 0) return floor2 << 1;
        const uint64_t down = size & ~(step - 1);
        return down == size ? size : down + step;
    }
};

} // namespace vs
