#pragma once
// What a simulation of one configuration produced: the reserved / allocated series after every
// request, peaks, fragmentation, the first out-of-memory and the block layout where it stopped.
#include "SimConfig.h"
#include "analysis/replay/StateTypes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vs {

struct SimOom {
    uint32_t event = 0; // the trace event of the request that failed
    uint64_t size = 0;  // its requested bytes
    uint64_t stream = 0;
    int64_t reserved = 0; // reserved and allocated when it failed
    int64_t allocated = 0;
};

struct SimResult {
    SimConfig config;
    uint64_t capacity = 0;                    // device bytes the allocator could reserve; 0 = unlimited
    bool approximate = false;                 // the cudaMallocAsync model
    std::vector<uint32_t> event;              // per request simulated: its trace event
    std::vector<int64_t> reserved, allocated; // after each request
    int64_t peakReserved = 0, peakAllocated = 0, finalReserved = 0, finalAllocated = 0;
    uint32_t peakEvent = 0;         // the trace event at which reserved first reached its peak
    int64_t allocatedAtPeak = 0;    // allocated when reserved peaked
    uint64_t segmentsCreated = 0;   // cudaMalloc calls / expandable mappings
    uint64_t segmentsReleased = 0;  // cudaFree calls / unmappings
    uint64_t allocRetries = 0;      // the cache flushed to retry an allocation (PyTorch's num_alloc_retries)
    std::optional<SimOom> firstOom; // a request the recorded run served that this configuration could not
    uint32_t recordedOomsReproduced = 0, recordedOomsAvoided = 0;
    std::vector<StateSegment> finalSegments; // where the simulation stopped
    std::vector<std::string> notes;

    // Share of reserved memory not allocated when reserved peaked (what fragmentation and caching cost).
    double fragmentationAtPeak() const {
        return peakReserved > 0 ? double(peakReserved - allocatedAtPeak) / double(peakReserved) : 0.0;
    }
};

} // namespace vs
