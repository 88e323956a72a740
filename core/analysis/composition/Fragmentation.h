#pragma once
// Fragmentation over time: at evenly spaced moments, the cached free bytes (reserved - allocated),
// the largest free block, the number of free fragments and the free space split inside segments
// that still hold tensors; and the moments where a request of a given size would have needed a
// new segment although enough memory sat free in the cache.
#include "analysis/replay/Replay.h"

#include <atomic>
#include <vector>

namespace vs {

struct FragmentationSample {
    uint32_t events = 0;    // the state after this many events
    int64_t cachedFree = 0; // reserved - active: free blocks in the cache
    uint64_t largestFree = 0;
    uint32_t freeFragments = 0;
    uint64_t splitFree = 0;
};

std::vector<FragmentationSample> fragmentationSeries(const DeviceTrace& t, std::span<const uint64_t> streams,
                                                     const ReplayResult& r, const AllocatorRules& rules,
                                                     size_t samples = 2000,
                                                     const std::atomic<bool>* cancel = nullptr);

// Samples where no free block could hold `bytes` while the cache held at least that much free
// (ignoring that blocks serve only their own stream and pool).
std::vector<size_t> wouldNeedNewSegment(const std::vector<FragmentationSample>& series, uint64_t bytes);

// The memory map over time: address (rows) x time (columns) occupancy. The address axis packs every
// range that was ever reserved, in address order, so unreserved gaps take no room.
struct OccupancyGrid {
    enum Cell : uint8_t { Unreserved, Free, PendingFree, Allocated };
    int columns = 0, rows = 0;
    std::vector<uint8_t> cells;         // row-major: cells[row * columns + column]
    std::vector<uint32_t> columnEvents; // the state after this many events, per column
    struct Range {
        uint64_t address, size, offset; // offset along the packed axis
    };
    std::vector<Range> ranges;
    uint64_t packedBytes = 0;
    uint8_t at(int row, int column) const { return cells[size_t(row) * size_t(columns) + size_t(column)]; }
    uint64_t addressOfRow(int row) const; // the first address a row covers
};

OccupancyGrid occupancyGrid(const DeviceTrace& t, std::span<const uint64_t> streams, const ReplayResult& r,
                            const AllocatorRules& rules, int columns, int rows,
                            const std::atomic<bool>* cancel = nullptr);

} // namespace vs
