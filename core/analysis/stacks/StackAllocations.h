#pragma once
// Every stack's allocations: indices into a device's lifetimes (pairAllocations' order, so by alloc
// event), grouped by stack. Built once per device with the categories. A click on a ramp asks about
// a few stacks (their live steps, their bulk releases); a pass over every allocation per click cost
// ~20 ms per 10M allocations, the better part of a click at 100M events.
#include "analysis/replay/Lifetimes.h"

#include <algorithm>
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
    // The stack's allocs and frees in event order, as `make(event, allocation, isFree)` values whose
    // event `eventOf` reads. The allocations come in alloc order, so only the frees need sorting,
    // then one merge (a leak's stack holds ~1M allocations at 100M events: sorting all of its steps
    // was most of a click there).
    template <class Step, class Make, class EventOf>
    std::vector<Step> steps(const std::vector<Allocation>& all, StackId stack, Make make,
                            EventOf eventOf) const;

  private:
    std::vector<uint32_t>
        offsets_; // by stack value: its allocations are indices_[offsets_[s], offsets_[s + 1])
    std::vector<uint32_t> indices_;
};

template <class Step, class Make, class EventOf>
std::vector<Step> StackAllocations::steps(const std::vector<Allocation>& all, StackId stack, Make make,
                                          EventOf eventOf) const {
    std::vector<Step> allocs, frees;
    allocs.reserve(of(stack).size());
    for (uint32_t i : of(stack)) {
        allocs.push_back(make(all[i].alloc, all[i], false));
        if (all[i].freeRequested != kNoEvent) frees.push_back(make(all[i].freeRequested, all[i], true));
    }
    if (frees.empty()) return allocs;
    auto byEvent = [&](const Step& x, const Step& y) { return eventOf(x) < eventOf(y); };
    if (!std::is_sorted(frees.begin(), frees.end(), byEvent)) std::sort(frees.begin(), frees.end(), byEvent);
    std::vector<Step> out(allocs.size() + frees.size());
    std::merge(allocs.begin(), allocs.end(), frees.begin(), frees.end(), out.begin(), byEvent);
    return out;
}

} // namespace vs
