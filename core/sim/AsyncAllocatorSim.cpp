#include "AsyncAllocatorSim.h"

#include <algorithm>

namespace vs {

AsyncAllocatorSim::AsyncAllocatorSim(uint64_t capacity, double memoryFraction)
    : capacity_(capacity),
      limit_(memoryFraction > 0 && capacity > 0 ? uint64_t(memoryFraction * double(capacity)) : 0) {}

bool AsyncAllocatorSim::malloc(uint32_t id, uint64_t requested, uint64_t, uint64_t, uint64_t) {
    if (limit_ && live_ + requested > limit_) return false; // PyTorch's own check of the fraction
    const uint64_t size = footprint(requested);
    if (capacity_ && std::max(reserved_, roundUp(live_ + size)) > capacity_) {
        reserved_ = roundUp(live_); // the backend synchronizes and trims the pool before giving up
        if (roundUp(live_ + size) > capacity_) return false;
    }
    live_ += size;
    reserved_ = std::max(reserved_, roundUp(live_));
    if (id >= sizeOf_.size()) sizeOf_.resize(std::max<size_t>(id + 1, sizeOf_.size() * 2), 0);
    sizeOf_[id] = size;
    return true;
}

void AsyncAllocatorSim::release(uint32_t id) {
    if (id >= sizeOf_.size()) return;
    live_ -= sizeOf_[id];
    sizeOf_[id] = 0;
}

} // namespace vs
