#pragma once
// Every stack's allocations: indices into a device's lifetimes (pairAllocations' order, so by alloc
// event), grouped by stack. Built once per device with the categories. A click on a ramp asks about
// a few stacks (their live steps, their bulk releases); a pass over every allocation per click cost
// ~20 ms per 10M allocations, the better part of a click at 100M events.
#include "Lifetimes.h"

#include <cstdint>
#include <span>
#include <vector>

namespace vs {

class StackAllocations {
  public:
    StackAllocations() = default;
    explicit StackAllocations(const std::vector<Allocation>& all);
    // The allocations made with this stack, ascending (empty for a stack that made none).
    std::span<const uint32_t> of(StackId stack) const;

  private:
    std::vector<uint32_t> offsets_; // by stack value: its allocations are indices_[offsets_[s], offsets_[s + 1])
    std::vector<uint32_t> indices_;
};

} // namespace vs
