#include "analysis/categories/GraphPoolUse.h"

#include <algorithm>
#include <numeric>

namespace vs {

int64_t GraphPoolLevel::inUseTotal() const {
    return std::accumulate(inUse.begin(), inUse.end(), int64_t(0));
}

void GraphPoolUse::apply(GraphPoolLevel& level, const Change& c) {
    (c.slot == kReservedSlot ? level.reserved : level.inUse[c.slot]) += c.delta;
}

GraphPoolUse::GraphPoolUse(const DeviceTrace& t, const ReplayResult& r, const DeviceCategories& cats,
                           const GraphPools& pools) {
    if (pools.empty()) return;
    for (size_t k = 0; k < cats.allocations.size(); ++k) {
        const Allocation& a = cats.allocations[k];
        if (!pools.holds(t.addr[a.alloc], a.alloc)) continue;
        const auto slot = uint8_t(cats.category[k]);
        changes_.push_back({a.alloc, slot, int64_t(a.bytes)});
        if (a.freeRequested != kNoEvent) changes_.push_back({a.freeRequested, slot, -int64_t(a.bytes)});
    }
    for (size_t i = 0; i < t.eventCount(); ++i) {
        const Action act = t.action[i];
        if (act != Action::SegmentAlloc && act != Action::SegmentFree && act != Action::SegmentMap &&
            act != Action::SegmentUnmap)
            continue;
        if (!pools.holds(t.addr[i], uint32_t(i))) continue;
        const int64_t before = i ? r.reserved[i - 1] : r.initial.reserved;
        if (const int64_t delta = r.reserved[i] - before)
            changes_.push_back({uint32_t(i), kReservedSlot, delta});
    }
    std::stable_sort(changes_.begin(), changes_.end(),
                     [](const Change& a, const Change& b) { return a.event < b.event; });
    // What the snapshot shows at the end, less what the trace added: the level before it.
    GraphPoolLevel end;
    for (const Change& c : changes_) apply(end, c);
    start_.reserved = int64_t(pools.reservedAtEnd()) - end.reserved;
    start_.inUse[size_t(Category::Unknown)] = int64_t(pools.allocatedAtEnd()) - end.inUseTotal();
    GraphPoolLevel level = start_;
    for (size_t k = 0; k < changes_.size(); ++k) {
        if (k % kCheckpointEvery == 0) marks_.push_back(level);
        apply(level, changes_[k]);
    }
}

GraphPoolLevel GraphPoolUse::after(uint32_t event) const {
    const auto upto = size_t(std::upper_bound(changes_.begin(), changes_.end(), event,
                                              [](uint32_t e, const Change& c) { return e < c.event; }) -
                             changes_.begin());
    if (upto == 0) return start_;
    const size_t mark = (upto - 1) / kCheckpointEvery;
    GraphPoolLevel level = marks_[mark];
    for (size_t k = mark * kCheckpointEvery; k < upto; ++k) apply(level, changes_[k]);
    return level;
}

} // namespace vs
