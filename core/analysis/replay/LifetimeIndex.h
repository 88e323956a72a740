#pragma once
// The allocations alive at a moment among those made in a range, without visiting the others.
// Allocations are kept in classes by lifetime (freeRequested - alloc, in events: under 2, under 4,
// ..., never freed), each in alloc order. One of class k (lifetime under 2^k) can be alive at `until`
// only if it was made in the last 2^k events before it, so a query looks at that tail of each class:
// a full-width range of a 100M-event capture visits about the live set once per class, where a
// scan visits all 50M allocations (~80 ms of each Shift+drag or click). Built once per device.
#include "analysis/replay/Lifetimes.h"

#include <cstdint>
#include <vector>

namespace vs {

class LifetimeIndex {
  public:
    LifetimeIndex() = default;
    explicit LifetimeIndex(const std::vector<Allocation>& all);
    // Indices into `all` (the vector this was built from) of the allocations made in [first, last]
    // and alive after event `until`, ascending.
    std::vector<uint32_t> aliveAt(const std::vector<Allocation>& all, uint32_t first, uint32_t last,
                                  uint32_t until) const;
    // The stacks (ascending, once each) with an allocation freed `events` or more events after it was
    // made, its lifetime read as uint32_t(freeRequested - alloc) like the diagnosis reads it. Only the
    // long-lived classes are visited: few allocations live long.
    std::vector<uint32_t> stacksFreedAfter(const std::vector<Allocation>& all, uint64_t events) const;

  private:
    static constexpr size_t kClasses = 34; // 33 powers of two for uint32_t lifetimes, then never freed
    static size_t classOf(const Allocation& a);
    std::vector<uint32_t> offsets_; // class c holds indices_[offsets_[c], offsets_[c + 1])
    std::vector<uint32_t> indices_;
};

} // namespace vs
