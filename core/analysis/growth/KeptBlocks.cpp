#include "analysis/growth/KeptBlocks.h"

#include "analysis/growth/FloorRegions.h"
#include "analysis/stacks/NativeOwner.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace vs {
namespace {

// Made steadily to the end: in half the units (iterations, or sixteenths of the trace without them)
// from the first block's to the last unit, five or more of them, the last in the trace's last quarter
// (a cache filled in the first epoch levels off).
bool steadyToEnd(const std::vector<Allocation>& all, const std::vector<uint32_t>& kept, const Iterations& its,
                 uint32_t events) {
    const bool real = its.count() >= 3;
    auto unit = [&](uint32_t e) { return real ? its.indexOf(e) : size_t(uint64_t(e) * 16 / events); };
    const size_t units = real ? its.count() : 15;
    std::set<size_t> made;
    uint32_t last = 0;
    for (uint32_t k : kept) made.insert(unit(all[k].alloc)), last = std::max(last, all[k].alloc);
    const size_t span = units - *made.begin() + 1;
    return made.size() >= 5 && 2 * made.size() >= span && 4ull * last >= 3ull * events;
}

// The stacks the found regions already explain: a leak's, and a released region's (memory still held
// at the end from a stack released before is its phase's unfinished tooth, not a leak).
std::unordered_set<uint32_t> explained(const std::vector<GrowthRegion>& found) {
    std::unordered_set<uint32_t> out;
    for (const GrowthRegion& g : found)
        for (StackId s : g.stacks) out.insert(s.value);
    return out;
}

} // namespace

std::vector<GrowthRegion> keptBlockLeaks(const CaptureAnalysis& a, size_t device,
                                         const std::vector<Allocation>& all, const Iterations& its,
                                         const GraphPools& pools, const std::vector<GrowthRegion>& found) {
    const Capture& c = a.capture();
    const DeviceTrace& t = a.trace(device);
    const auto events = uint32_t(t.eventCount());
    // the program marked its steps: what it made before the first is its model and setup
    const uint32_t setupEnd = its.fromAnnotations && its.count() >= 3 ? its.starts.front() : 0;
    const auto known = explained(found);
    std::unordered_map<uint32_t, std::vector<uint32_t>> kept; // stack -> its blocks never freed
    std::unordered_map<uint32_t, uint32_t> firstMade;         // stack -> its first block after the setup
    for (uint32_t i = 0; i < all.size(); ++i) {
        const Allocation& x = all[i];
        if (x.alloc < setupEnd || known.count(x.stack.value)) continue;
        firstMade.try_emplace(x.stack.value, x.alloc);
        if (x.freeRequested != kNoEvent) continue;
        if (!pools.empty() && pools.holds(t.addr[x.alloc], x.alloc)) continue; // a CUDA graph's pool
        kept[x.stack.value].push_back(i);
    }
    const uint64_t peak = uint64_t(std::max<int64_t>(1, a.summary(device).peak.allocated));
    std::vector<GrowthRegion> out;
    for (auto& [stack, blocks] : kept) {
        if (c.nativeStacks && nativeOwner(c, StackId{stack}) != NativeOwner::User) continue; // a library's
        if (!steadyToEnd(all, blocks, its, events)) continue;
        // kept from about when the site began: a bounded queue keeps only its last entries, made late
        if (2ull * (events - all[blocks.front()].alloc) < uint64_t(events - firstMade.at(stack))) continue;
        GrowthRegion r;
        r.kind = LeakKind::Leak, r.scale = RegionScale::Run;
        r.releasedBy = "not released: still alive when the capture ends";
        r.allocations = blocks; // ascending: pushed in allocation order
        r.stacks = {StackId{stack}};
        r.first = all[blocks.front()].alloc, r.last = events - 1;
        for (uint32_t k : blocks) r.growthBytes += all[k].bytes;
        r.significant = r.growthBytes * 100 >= peak;
        describeRegion(r, all, its, events);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace vs
