#include "analysis/growth/GrowthRegions.h"

#include "analysis/growth/FloorRegions.h"
#include "analysis/growth/KeptBlocks.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace vs {

namespace {

// Stacks ordered by the bytes they hold, most first.
std::vector<StackId> stacksByBytes(const std::unordered_map<uint32_t, uint64_t>& bytes) {
    std::vector<std::pair<uint64_t, uint32_t>> order;
    for (auto [s, b] : bytes) order.emplace_back(b, s);
    std::sort(order.rbegin(), order.rend());
    std::vector<StackId> out;
    for (auto [b, s] : order) out.push_back(StackId{s});
    return out;
}

void addCacheRegion(const CaptureAnalysis& a, size_t device, std::vector<GrowthRegion>& out) {
    const ReplayResult& r = a.replay(device);
    const DeviceSummary sum = a.summary(device);
    const int64_t excess = sum.peak.reserved - sum.peak.allocated;
    if (!(sum.peak.reserved > sum.peak.allocated * 3 / 2 && excess >= (64 << 20)) || r.reserved.empty())
        return;
    const auto top = uint32_t(r.reserved.argMax(0, r.reserved.size()));
    uint32_t from = top; // back to where reserved last held no more than allocated ever needs
    while (from > 0 && r.reserved[from - 1] > sum.peak.allocated) --from;
    GrowthRegion g;
    g.kind = LeakKind::Cache;
    g.first = from, g.last = top;
    g.growthBytes = uint64_t(excess);
    g.cost = double(excess);
    g.significant = true;
    out.push_back(std::move(g));
}

// Leaks grow without bound; a cycle or an accumulation is bounded by its phase.
int severity(LeakKind k) {
    return k == LeakKind::Leak ? 0 : k == LeakKind::Cycle ? 1 : 2;
}

// Memory the garbage collector releases three or more times at irregular moments is collected
// whenever the collector's thresholds happen to trip, not by the program's design (a scheduled
// gc.collect() is periodic): it piles up between collections, a leak through a reference cycle.
void irregularCycles(std::vector<GrowthRegion>& regions, const DeviceTrace& t) {
    std::map<uint32_t, std::vector<GrowthRegion*>> teeth;
    for (GrowthRegion& g : regions)
        if (g.kind == LeakKind::Cycle && g.releasedAt != kNoEvent && !g.stacks.empty())
            teeth[g.stacks.front().value].push_back(&g);
    for (auto& [stack, list] : teeth) {
        if (list.size() < 3) continue;
        std::vector<int64_t> at;
        for (const GrowthRegion* g : list) at.push_back(t.timeUs[g->releasedAt]);
        std::sort(at.begin(), at.end());
        int64_t lo = INT64_MAX, hi = 0;
        for (size_t i = 1; i < at.size(); ++i)
            lo = std::min(lo, at[i] - at[i - 1]), hi = std::max(hi, at[i] - at[i - 1]);
        if (10 * hi <= 13 * lo) continue; // evenly spaced: a scheduled collection
        for (GrowthRegion* g : list) g->kind = LeakKind::Leak, g->collected = true;
    }
}

// Small but unmistakable: blocks kept for good, made in at least half of the iterations of a span
// that covers half of the trace or more (a hook appending a few KiB every step). Below 1 % of the
// peak, anything less is noise.
bool steadyAcrossRun(const GrowthRegion& g, uint32_t events) {
    return g.kind == LeakKind::Leak && g.keptIn >= 5 && 2 * g.keptIn >= g.iterations &&
           2 * uint64_t(g.last - g.first) >= events;
}

// Released when the program ends: little happens after the release's last free, in events (a
// release of many blocks is many events), against how long it was held.
bool releasedAtEnd(const GrowthRegion& g, const std::vector<Allocation>& all, const DeviceTrace& t) {
    uint32_t released = g.releasedAt;
    for (uint32_t k : g.allocations)
        if (all[k].freeRequested != kNoEvent) released = std::max(released, all[k].freeRequested);
    return 8 * uint64_t(t.eventCount() - 1 - released) <= uint64_t(g.releasedAt - g.first);
}

// Growth still alive when the capture ends (the program stopped, or ran out of memory, mid-phase)
// that began after the same stack's memory had been collected and released at a phase's end twice
// is that phase's next tooth, not yet released: an accumulation. (A leak under a sawtooth began
// before its teeth and spans them.)
void unfinishedTooth(GrowthRegion& g, const std::vector<GrowthRegion>& regions) {
    if (g.kind != LeakKind::Leak || g.stacks.empty()) return;
    const auto teeth = std::count_if(regions.begin(), regions.end(), [&](const GrowthRegion& o) {
        return o.kind == LeakKind::Accumulation && o.releasedAt != kNoEvent && o.releasedAt <= g.first &&
               !o.stacks.empty() && o.stacks.front() == g.stacks.front();
    });
    if (teeth >= 2) g.kind = LeakKind::Accumulation, g.scale = RegionScale::Phase;
}

// How a release at the program's end reads: memory from a stack whose memory the program
// released the same way twice or more before is the last tooth of a sawtooth (an epoch's list,
// cleared at each epoch's end and at the last when the program returns); memory released once,
// only at the end, after being built up over most of the run (a function's list, released when it
// returns as the program ends) is a leak for the run's length, whichever detector found it.
void programEnd(std::vector<GrowthRegion>& regions, const std::vector<Allocation>& all,
                const DeviceTrace& t) {
    for (GrowthRegion& g : regions) {
        if (g.releasedAt == kNoEvent) {
            unfinishedTooth(g, regions);
            continue;
        }
        if (g.stacks.empty()) continue;
        std::map<LeakKind, size_t> teeth;
        for (const GrowthRegion& o : regions)
            if ((o.kind == LeakKind::Accumulation || o.kind == LeakKind::Cycle) && o.releasedAt != kNoEvent &&
                !o.stacks.empty() && o.stacks.front() == g.stacks.front())
                ++teeth[o.kind];
        if (g.kind == LeakKind::Leak) {
            for (auto [kind, n] : teeth)
                if (n >= 2) g.kind = kind, g.scale = RegionScale::Phase;
            continue;
        }
        // and it began in the first half of what came before the release
        if (g.kind == LeakKind::Accumulation && teeth[g.kind] == 1 && releasedAtEnd(g, all, t) &&
            2 * uint64_t(g.releasedAt - g.first) >= g.releasedAt)
            g.kind = LeakKind::Leak, g.scale = RegionScale::Run;
    }
}

// Releases that are no phase of their own: fewer than three blocks (a tensor regrown by torch.cat
// frees its previous version: nothing was collected), or what a leaking stack lets go of when the
// program ends (its teardown; the leak is the finding).
void dropNonPhases(std::vector<GrowthRegion>& regions, const std::vector<Allocation>& all,
                   const DeviceTrace& t) {
    std::unordered_set<uint32_t> leaking;
    for (const GrowthRegion& g : regions)
        if (g.kind == LeakKind::Leak && g.releasedAt == kNoEvent && !g.stacks.empty())
            leaking.insert(g.stacks.front().value);
    std::erase_if(regions, [&](const GrowthRegion& g) {
        if (g.releasedAt == kNoEvent || (g.kind != LeakKind::Accumulation && g.kind != LeakKind::Cycle))
            return false;
        return g.allocations.size() < 3 ||
               (!g.stacks.empty() && leaking.count(g.stacks.front().value) && releasedAtEnd(g, all, t));
    });
}

// The significant leaks, cycles and accumulations, one finding per kind and stack: the teeth of one
// sawtooth, or a leak through a cycle with what it still holds at the end, represented by the
// largest; ranked.
std::vector<GrowthFinding> findingsOf(const std::vector<GrowthRegion>& regions, uint32_t events) {
    std::vector<GrowthFinding> out;
    std::map<std::pair<LeakKind, uint32_t>, size_t> teeth; // (kind, top stack) -> index into out
    for (size_t i = 0; i < regions.size(); ++i) {
        const GrowthRegion& g = regions[i];
        const bool growth =
            g.kind == LeakKind::Leak || g.kind == LeakKind::Accumulation || g.kind == LeakKind::Cycle;
        if (!growth || !(g.significant || steadyAcrossRun(g, events)) || g.stacks.empty()) continue;
        auto [it, fresh] = teeth.try_emplace({g.kind, g.stacks.front().value}, out.size());
        if (fresh) {
            out.push_back({i, 1});
            continue;
        }
        GrowthFinding& f = out[it->second];
        ++f.repeats;
        if (g.growthBytes > regions[f.region].growthBytes) f.region = i;
    }
    std::stable_sort(out.begin(), out.end(), [&](const GrowthFinding& x, const GrowthFinding& y) {
        const GrowthRegion &a = regions[x.region], &b = regions[y.region];
        if (severity(a.kind) != severity(b.kind)) return severity(a.kind) < severity(b.kind);
        return a.growthBytes > b.growthBytes;
    });
    return out;
}

} // namespace

GrowthRegions findGrowthRegions(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all) {
    GrowthRegions out;
    const DeviceTrace& t = a.trace(device);
    if (t.eventCount() == 0) return out;
    out.iterations = findIterations(a.capture(), t, all);
    out.pools = a.graphPools(device);
    out.regions = floorRegions(a, device, all, out.iterations, *out.pools);
    for (GrowthRegion& g : keptBlockLeaks(a, device, all, out.iterations, *out.pools, out.regions))
        out.regions.push_back(std::move(g));
    addCacheRegion(a, device, out.regions);
    programEnd(out.regions, all, t);
    dropNonPhases(out.regions, all, t);
    irregularCycles(out.regions, t);
    std::stable_sort(out.regions.begin(), out.regions.end(),
                     [](const GrowthRegion& x, const GrowthRegion& y) { return x.cost > y.cost; });
    out.findings = findingsOf(out.regions, uint32_t(t.eventCount()));
    return out;
}

std::optional<GrowthRegion> iterationRamp(const CaptureAnalysis& a, size_t device,
                                          const std::vector<Allocation>& all, const Iterations& its,
                                          uint32_t event) {
    const DeviceTrace& t = a.trace(device);
    const auto& allocated = a.replay(device).allocated;
    if (its.count() < 3 || event >= t.eventCount()) return std::nullopt;
    const size_t k = its.indexOf(event);
    const uint32_t from = k == 0 ? 0 : its.starts[k - 1];
    const uint32_t to = k < its.count() ? its.starts[k] : uint32_t(t.eventCount());
    const auto lo = uint32_t(allocated.argMin(from, event + 1)), hi = uint32_t(allocated.argMax(event, to));
    if (allocated[hi] <= allocated[lo]) return std::nullopt;
    GrowthRegion r;
    r.kind = LeakKind::Transient;
    r.scale = RegionScale::Iteration;
    r.first = lo, r.last = hi;
    r.iterations = 1;
    r.growthBytes = r.perIterationBytes = uint64_t(allocated[hi] - allocated[lo]);
    r.cost = double(r.growthBytes);
    r.releasedBy = "freed within the iteration";
    std::unordered_map<uint32_t, uint64_t> byStack;
    uint64_t atTop = 0, outlive = 0;
    const uint32_t end = std::min<uint32_t>(to, uint32_t(t.eventCount() - 1)); // the iteration's last event
    auto it = std::lower_bound(all.begin(), all.end(), lo,
                               [](const Allocation& x, uint32_t e) { return x.alloc < e; });
    for (; it != all.end() && it->alloc <= hi; ++it)
        if (it->aliveAt(hi)) {
            r.allocations.push_back(uint32_t(it - all.begin()));
            byStack[it->stack.value] += it->bytes;
            atTop += it->bytes;
            if (it->aliveAt(end)) outlive += it->bytes;
        }
    // A rise whose blocks mostly outlive the iteration is not a step's temporaries (a CUDA graph's
    // pool filled at capture, a cache built once, a leak): the regions and the window explain those.
    if (2 * outlive > atTop) return std::nullopt;
    r.stacks = stacksByBytes(byStack);
    return r;
}

size_t regionAt(const GrowthRegions& r, uint32_t event) {
    size_t best = kNoRegion;
    for (size_t i = 0; i < r.regions.size(); ++i) {
        const auto& g = r.regions[i];
        if (event < g.first || event > g.last) continue;
        if (best == kNoRegion || g.last - g.first < r.regions[best].last - r.regions[best].first) best = i;
    }
    return best;
}

} // namespace vs
