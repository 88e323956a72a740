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
    auto [it, fresh] = index_.try_emplace(h, static_cast<uint32_t>(frames_.size()));
    if (!fresh) {
        for (uint32_t i = it->second; i != kNone; i = nextSameHash_[i])
            if (frames_[i] == f) return FrameId{i};
        // a hash collision: chain the new frame after the first one
        nextSameHash_.push_back(nextSameHash_[it->second]);
        nextSameHash_[it->second] = static_cast<uint32_t>(frames_.size());
    } else {
        nextSameHash_.push_back(kNone);
    }
    frames_.push_back(f);
    return FrameId{static_cast<uint32_t>(frames_.size() - 1)};
}

StackId StackTable::intern(std::span<const FrameId> frames) {
    if (frames.empty()) return StackId{0};
    uint64_t h = frames.size();
    for (FrameId f : frames) h = mix(h, f.value);
    const auto fresh = static_cast<uint32_t>(size());
    const uint32_t first = index_.find(h);
    if (first != FlatMap::kMissing) {
        for (uint32_t i = first; i != kNone; i = nextSameHash_[i]) {
            auto s = this->frames(StackId{i});
            if (std::equal(s.begin(), s.end(), frames.begin(), frames.end())) return StackId{i};
        }
        nextSameHash_.push_back(nextSameHash_[first]);
        nextSameHash_[first] = fresh;
    } else {
        index_.set(h, fresh);
        nextSameHash_.push_back(kNone);
    }
    frames_.insert(frames_.end(), frames.begin(), frames.end());
    offsets_.push_back(static_cast<uint32_t>(frames_.size()));
    return StackId{fresh};
}

} // namespace vs
