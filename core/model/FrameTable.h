#pragma once
// Interned frames (function, file, line) and interned stacks (sequences of frames, innermost first).
#include "FlatMap.h"
#include "Ids.h"

#include <cstdint>
#include <span>
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
    FlatMap index_; // hash -> first frame with that hash (flat: a million frames are not a node each)
    std::vector<uint32_t> nextSameHash_;
};

class StackTable {
  public:
    StackTable() { ranges_.push_back({0, 0}), nextSameHash_.push_back(kNone); }
    // The empty stack is StackId{0}.
    StackId intern(std::span<const FrameId> frames) { return extend(StackId{0}, frames); }
    // The stack of `base`'s frames followed by `tail` (which must not lie in this table), interned:
    // the same id and table as intern() of the whole list. A frame list that a pickle extends one
    // APPEND at a time is interned again after each; this costs O(tail), not O(base + tail) (the
    // running hash of the stack returned last is kept, and a stack that extends the last one stored
    // shares its frames), so such a list is no longer quadratic in time.
    StackId extend(StackId base, std::span<const FrameId> tail);
    std::span<const FrameId> frames(StackId id) const {
        const Range r = ranges_[id.value];
        return {frames_.data() + r.offset, r.length};
    }
    size_t size() const { return ranges_.size(); }

  private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Range {
        uint32_t offset, length; // in frames_; a stack may share a prefix of another's frames
    };
    bool equals(StackId candidate, StackId base, std::span<const FrameId> tail) const;
    std::vector<FrameId> frames_;
    std::vector<Range> ranges_;
    FlatMap index_; // content hash -> first stack with that hash
    std::vector<uint32_t> nextSameHash_;
    StackId last_{0};       // the stack intern/extend returned last,
    uint64_t lastFold_ = 0; // and the hash of its frames before the length is mixed in
};

} // namespace vs
