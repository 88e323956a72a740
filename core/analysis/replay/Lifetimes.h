#pragma once
// Every allocation of one device's trace with the events that ended it: alloc paired with the next
// free_requested / free_completed at the same address.
#include "analysis/replay/Replay.h"
#include "analysis/replay/StateTypes.h"
#include "model/DeviceTrace.h"

#include <vector>

namespace vs {

struct Allocation {
    uint32_t alloc = 0;                // event index
    uint32_t freeRequested = kNoEvent; // when the program let go (allocated() drops)
    uint32_t freeCompleted = kNoEvent; // when the block returned to the cache
    StackId stack;
    uint64_t bytes = 0; // the whole block
    bool aliveAt(uint32_t event) const {
        return alloc <= event && (freeRequested == kNoEvent || freeRequested > event);
    }
};
// One per allocation, ~half the events: the four 32-bit fields first leave no padding (was 32 B).
static_assert(sizeof(Allocation) == 24);

// `frees`, when given, receives every freed allocation (its index) in the order of their
// freeRequested events: what a sort of the allocations by free would give, found on the way.
std::vector<Allocation> pairAllocations(const DeviceTrace& t, const ReplayResult& r,
                                        std::vector<uint32_t>* frees = nullptr);

} // namespace vs
