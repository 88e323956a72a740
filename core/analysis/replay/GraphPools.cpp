#include "analysis/replay/GraphPools.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace vs {

std::string PoolId::text() const {
    std::string s = "("; // (appends: GCC 12 warns falsely on a chain of std::string +)
    s += std::to_string(first);
    s += ", ";
    s += std::to_string(second);
    s += ")";
    return s;
}

GraphPools::GraphPools(const DeviceTrace& t) {
    std::unordered_map<uint64_t, size_t> at; // segment address -> index in segments_
    for (const auto& s : t.finalSegments) {
        const PoolId pool{s.poolId[0], s.poolId[1]};
        if (pool.isDefault()) continue;
        at.emplace(s.address, segments_.size());
        segments_.push_back({s.address, s.totalSize, pool, 0});
        reserved_ += s.totalSize;
        for (const auto& b : s.blocks)
            if (b.state == BlockState::ActiveAllocated) allocated_ += b.size;
    }
    if (segments_.empty()) return;
    for (size_t i = 0; i < t.eventCount(); ++i) // when each became the segment the snapshot shows
        if (t.action[i] == Action::SegmentAlloc)
            if (auto it = at.find(t.addr[i]); it != at.end()) segments_[it->second].since = uint32_t(i);
    std::sort(segments_.begin(), segments_.end(), [](auto& x, auto& y) { return x.address < y.address; });
}

const GraphPools::Segment* GraphPools::find(uint64_t address) const {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), address,
                               [](uint64_t a, const Segment& s) { return a < s.address; });
    if (it == segments_.begin()) return nullptr;
    --it;
    return address - it->address < it->size ? &*it : nullptr;
}

PoolId GraphPools::poolOf(uint64_t segmentAddress, uint32_t event) const {
    const Segment* s = find(segmentAddress);
    return s && s->address == segmentAddress && event >= s->since ? s->pool : PoolId{};
}

bool GraphPools::holds(uint64_t address, uint32_t event) const {
    const Segment* s = find(address);
    return s && event >= s->since;
}

PoolId GraphPools::poolHolding(uint64_t address, uint32_t event) const {
    const Segment* s = find(address);
    return s && event >= s->since ? s->pool : PoolId{};
}

size_t GraphPools::poolCount() const {
    std::set<std::pair<uint64_t, uint64_t>> pools;
    for (const auto& s : segments_) pools.emplace(s.pool.first, s.pool.second);
    return pools.size();
}

} // namespace vs
