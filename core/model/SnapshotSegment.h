#pragma once
// The allocator's own segment and block list from a snapshot (the ground truth of the end state).
#include "BlockState.h"
#include "Ids.h"

#include <cstdint>
#include <vector>

namespace vs {

struct SnapshotBlock {
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t requestedSize = 0;
    BlockState state = BlockState::Inactive;
    StackId stack;
    bool operator==(const SnapshotBlock&) const = default;
};

struct SnapshotSegment {
    uint64_t address = 0;
    uint64_t totalSize = 0;
    uint64_t stream = 0;
    bool expandable = false;
    bool smallPool = false;
    uint64_t poolId[2] = {0, 0};
    StackId stack;
    std::vector<SnapshotBlock> blocks;
    bool operator==(const SnapshotSegment&) const = default;
};

} // namespace vs
