#include "StackAllocations.h"

#include <algorithm>

namespace vs {

// A counting sort by stack: two passes, no hashing, the indices stay ascending within a stack.
StackAllocations::StackAllocations(const std::vector<Allocation>& all) {
    uint32_t stacks = 0;
    for (const Allocation& a : all) stacks = std::max(stacks, a.stack.value + 1);
    offsets_.assign(size_t(stacks) + 1, 0);
    for (const Allocation& a : all) ++offsets_[a.stack.value + 1];
    for (size_t s = 1; s < offsets_.size(); ++s) offsets_[s] += offsets_[s - 1];
    indices_.resize(all.size());
    std::vector<uint32_t> next(offsets_.begin(), offsets_.end() - 1);
    for (size_t i = 0; i < all.size(); ++i) indices_[next[all[i].stack.value]++] = static_cast<uint32_t>(i);
}

std::span<const uint32_t> StackAllocations::of(StackId stack) const {
    if (size_t(stack.value) + 1 >= offsets_.size()) return {};
    return {indices_.data() + offsets_[stack.value], offsets_[stack.value + 1] - offsets_[stack.value]};
}

} // namespace vs
