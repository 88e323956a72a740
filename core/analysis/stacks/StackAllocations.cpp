#include "analysis/stacks/StackAllocations.h"

#include "analysis/replay/CountingSort.h"

#include <algorithm>

namespace vs {

// By stack, the indices ascending within a stack.
StackAllocations::StackAllocations(const std::vector<Allocation>& all) {
    uint32_t stacks = 0;
    for (const Allocation& a : all) stacks = std::max(stacks, a.stack.value + 1);
    countingSort(
        all.size(), stacks, [&](size_t i) { return all[i].stack.value; }, offsets_, indices_);
}

std::span<const uint32_t> StackAllocations::of(StackId stack) const {
    if (size_t(stack.value) + 1 >= offsets_.size()) return {};
    return {indices_.data() + offsets_[stack.value], offsets_[stack.value + 1] - offsets_[stack.value]};
}

} // namespace vs
