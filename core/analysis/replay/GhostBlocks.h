#pragma once
// Blocks the trace sees only being freed: allocated before its first entry (lost to the ring buffer
// or before recording started) and freed during it. memory_viz draws such blocks as "ghosts"; here
// the replay's recovered start state knows their size, and the block map marks them.
#include "analysis/replay/Replay.h"
#include "model/DeviceTrace.h"

#include <cstdint>
#include <vector>

namespace vs {

struct GhostBlock {
    uint64_t address = 0;
    uint64_t size = 0;      // the whole block, from the start state
    uint32_t freeEvent = 0; // its free_requested (or free_completed when the trace starts between them)
};

struct GhostBlocks {
    std::vector<GhostBlock> blocks; // by address
    uint64_t bytes = 0;
    // Whether a block from before the recording (allocEvent kNoEvent) at this address is one of them:
    // no other block can be at its address until it is freed, and any after it has an alloc event.
    bool contains(uint64_t address) const;
};

// One pass over the free events, looking up a sorted list of the start state's live blocks (few):
// cheap even at 100M events, and nothing at all when the trace starts from an empty allocator.
GhostBlocks findGhostBlocks(const DeviceTrace& trace, const ReplayResult& replay);

} // namespace vs
