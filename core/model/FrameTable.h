#pragma once
// Interned frames (function, file, line) and interned stacks (sequences of frames, innermost first).
#include "FlatMap.h"
#include "Ids.h"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace vs {

struct Frame {
    StringId name;
    StringId filename;
    uint32_t line = 0;
    bool operator==(const Frame&) const = default;
};

class FrameTable {
  public:
    FrameId intern(const Frame& f);
    const Frame& operator[](FrameId id) const { return frames_[id.value]; }
    size_t size() const { return frames_.size(); }

  private:
    std::vector<Frame> frames_;
    std::unordered_map<uint64_t, uint32_t> index_; // hash -> first frame with that hash
    std::vector<uint32_t> nextSameHash_;
};

class StackTable {
  public:
    StackTable() { offsets_.push_back(0), offsets_.push_back(0), nextSameHash_.push_back(kNone); }
    // The empty stack is StackId{0}.
    StackId intern(std::span<const FrameId> frames);
    std::span<const FrameId> frames(StackId id) const {
        return {frames_.data() + offsets_[id.value], offsets_[id.value + 1] - offsets_[id.value]};
    }
    size_t size() const { return offsets_.size() - 1; }

  private:
    static constexpr uint32_t kNone = UINT32_MAX;
    std::vector<FrameId> frames_;
    std::vector<uint32_t> offsets_;
    FlatMap index_; // content hash -> first stack with that hash
    std::vector<uint32_t> nextSameHash_;
};

} // namespace vs
