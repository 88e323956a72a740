#pragma once
// Value types for the allocator's state at one moment: what checkpoints store and queries return.
#include "model/BlockState.h"
#include "model/Ids.h"

#include <cstdint>
#include <vector>

namespace vs {

constexpr uint32_t kNoEvent = UINT32_MAX;

struct StateBlock {
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t requestedSize = 0;
    BlockState state = BlockState::Inactive;
    uint32_t allocEvent = kNoEvent; // the alloc event that handed it out; kNoEvent: before recording
    bool operator==(const StateBlock&) const = default;
};

struct StateSegment {
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t stream = 0; // raw cudaStream_t
    bool expandable = false;
    bool smallPool = false;
    std::vector<StateBlock> blocks; // in address order, contiguous
};

struct Totals {
    int64_t allocated = 0; // sum of active_allocated block sizes: torch.cuda.memory_allocated()
    int64_t active = 0;    // allocated + pending free
    int64_t reserved = 0;  // sum of segment sizes: torch.cuda.memory_reserved()
    bool operator==(const Totals&) const = default;
};

} // namespace vs
