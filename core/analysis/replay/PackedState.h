#pragma once
// The allocator's segments and blocks at one moment, packed into bytes: what a replay checkpoint
// keeps. A StateBlock takes 32 bytes; packed, a block is a flags byte, its size (in 512-byte units
// when it is a multiple), how far its request falls short of it, and its alloc event as a step from
// the block before: ~6-8 bytes. Addresses are implied: a segment's blocks tile it in order. With a
// checkpoint every 8 x (live blocks) events, the checkpoints took ~4 bytes per event; now ~1.
#include "analysis/replay/StateTypes.h"

#include <cstdint>
#include <vector>

namespace vs {

class PackedState {
  public:
    PackedState() = default;
    explicit PackedState(const std::vector<StateSegment>& segments);

    std::vector<StateSegment> unpack() const;
    size_t heapBytes() const { return bytes_.capacity(); }
    bool operator==(const PackedState&) const = default;

  private:
    std::vector<uint8_t> bytes_;
};

} // namespace vs
