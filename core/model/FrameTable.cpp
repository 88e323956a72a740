#include "FrameTable.h"

#include <algorithm>

namespace vs {
namespace {
constexpr uint32_t kNone = UINT32_MAX;

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}
} // namespace

FrameId FrameTable::intern(const Frame& f) {
    const uint64_t h = mix(mix(mix(1, f.name.value), f.filename.value), f.line);
    const uint32_t first = index_.find(h);
    if (first != FlatMap::kMissing) {
        for (uint32_t i = first; i != kNone; i = nextSameHash_[i])
            if (frames_[i] == f) return FrameId{i};
        // a hash collision: chain the new frame after the first one
        nextSameHash_.push_back(nextSameHash_[first]);
        nextSameHash_[first] = static_cast<uint32_t>(frames_.size());
    } else {
        index_.set(h, static_cast<uint32_t>(frames_.size()));
        nextSameHash_.push_back(kNone);
    }
    frames_.push_back(f);
    return FrameId{static_cast<uint32_t>(frames_.size() - 1)};
}

// Hashes fold the frames first and the length last, so that an extension continues its base's fold.
StackId StackTable::extend(StackId base, std::span<const FrameId> tail) {
    if (tail.empty()) return base;
    const std::span<const FrameId> prefix = frames(base);
    uint64_t fold = 1;
    if (base.value == last_.value && base.value != 0) {
        fold = lastFold_;
    } else {
        for (FrameId f : prefix) fold = mix(fold, f.value);
    }
    for (FrameId f : tail) fold = mix(fold, f.value);
    const size_t length = prefix.size() + tail.size();
    const uint64_t h = mix(fold, length);
    const auto fresh = static_cast<uint32_t>(size());
    const uint32_t first = index_.find(h);
    if (first != FlatMap::kMissing) {
        for (uint32_t i = first; i != kNone; i = nextSameHash_[i])
            if (equals(StackId{i}, base, tail)) return last_ = StackId{i}, lastFold_ = fold, StackId{i};
        nextSameHash_.push_back(nextSameHash_[first]);
        nextSameHash_[first] = fresh;
    } else {
        index_.set(h, fresh);
        nextSameHash_.push_back(kNone);
    }
    const Range b = ranges_[base.value];
    uint32_t offset = b.offset;
    if (b.offset + b.length != frames_.size()) { // not the last frames stored: a copy of them first
        offset = static_cast<uint32_t>(frames_.size());
        frames_.resize(frames_.size() + b.length); // the prefix lies in frames_: copied by index
        std::copy_n(frames_.begin() + b.offset, b.length, frames_.begin() + offset);
    }
    frames_.insert(frames_.end(), tail.begin(), tail.end());
    ranges_.push_back({offset, static_cast<uint32_t>(length)});
    last_ = StackId{fresh}, lastFold_ = fold;
    return StackId{fresh};
}

bool StackTable::equals(StackId candidate, StackId base, std::span<const FrameId> tail) const {
    const Range c = ranges_[candidate.value], b = ranges_[base.value];
    if (c.length != b.length + tail.size()) return false;
    const auto s = frames(candidate);
    // A stack stored as an extension of `base` shares its frames: only the tails differ.
    if (c.offset != b.offset && !std::equal(s.begin(), s.begin() + b.length, frames_.begin() + b.offset))
        return false;
    return std::equal(tail.begin(), tail.end(), s.begin() + b.length);
}

} // namespace vs
