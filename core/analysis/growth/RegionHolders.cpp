#include "analysis/growth/RegionHolders.h"

#include <algorithm>
#include <unordered_set>

namespace vs {
namespace {

// The latest graph of this device taken while the region's memory was held: after its first block
// was made and before its release (or any time after, when it is never released).
size_t graphFor(const Capture& c, const DeviceTrace& t, const GrowthRegion& region) {
    const int64_t from = t.timeUs[region.first];
    const int64_t until = region.releasedAt == kNoEvent ? INT64_MAX : t.timeUs[region.releasedAt];
    size_t best = RegionHolders::kNoGraph;
    for (size_t i = 0; i < c.retention.size(); ++i) {
        const RetentionGraph& g = c.retention[i];
        if (g.device != t.device || g.timeUs < from || g.timeUs >= until) continue;
        if (best == RegionHolders::kNoGraph || g.timeUs > c.retention[best].timeUs) best = i;
    }
    return best;
}

} // namespace

RegionHolders regionHolders(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all,
                            const GrowthRegion& region) {
    RegionHolders out;
    if (region.allocations.empty()) return out;
    out.graph = graphFor(c, t, region);
    if (out.graph == RegionHolders::kNoGraph) return out;
    const RetentionGraph& g = c.retention[out.graph];
    std::unordered_set<uint64_t> addresses; // the region's blocks (by address while alive)
    for (uint32_t a : region.allocations) addresses.insert(t.addr[all[a].alloc]);
    const RetentionResult r = analyseRetention(c, g);
    for (const RetentionGroup& group : r.groups) {
        RegionHolder h;
        uint32_t example = RetentionResult::kNone;
        for (uint32_t b : group.blocks) {
            if (!addresses.count(g.nodes[b].address)) continue;
            ++h.blocks, h.bytes += g.nodes[b].gpuBytes;
            if (example == RetentionResult::kNone) example = b;
        }
        if (!h.blocks) continue;
        h.path = retentionPathText(c, g, r, example);
        h.hint = group.hint;
        h.verdict = group.verdict;
        out.holders.push_back(std::move(h));
    }
    std::stable_sort(out.holders.begin(), out.holders.end(),
                     [](const RegionHolder& x, const RegionHolder& y) { return x.bytes > y.bytes; });
    return out;
}

} // namespace vs
