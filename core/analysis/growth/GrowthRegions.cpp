#include "analysis/growth/GrowthRegions.h"

#include "analysis/growth/FloorRegions.h"
#include "analysis/growth/ReleaseCause.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/NativeOwner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace vs {

namespace {

constexpr size_t kNever = SIZE_MAX; // the iteration of a free that never happened

// Without iterations, equal slices of the trace stand in for them (coarser, but a ramp over the
// run still spans many of them).
Iterations slicesOf(uint32_t events) {
    Iterations its;
    constexpr uint32_t kSlicesWithoutIterations = 32;
    if (events < 2 * kSlicesWithoutIterations) return its;
    for (uint32_t s = 1; s < kSlicesWithoutIterations; ++s)
        its.starts.push_back(uint32_t(uint64_t(events) * s / kSlicesWithoutIterations));
    return its;
}

// One stack's allocations that outlived the iteration they were made in.
struct Kept {
    struct Item {
        uint32_t allocation;
        size_t born, freed; // iterations
    };
    std::vector<Item> items;
};

size_t distinctBirths(const std::vector<Kept::Item>& items) {
    std::unordered_set<size_t> s;
    for (const auto& i : items) s.insert(i.born);
    return s.size();
}

// Made steadily: in three or more iterations, and in at least a third of those its births span
// (a list appended to every step, not three bursts far apart).
bool steady(const std::vector<Kept::Item>& items) {
    if (items.empty()) return false;
    const size_t births = distinctBirths(items);
    size_t lo = SIZE_MAX, hi = 0;
    for (const auto& i : items) lo = std::min(lo, i.born), hi = std::max(hi, i.born);
    return births >= 3 && 3 * births >= hi - lo + 1;
}

// Stacks ordered by the bytes they hold, most first.
std::vector<StackId> stacksByBytes(const std::unordered_map<uint32_t, uint64_t>& bytes) {
    std::vector<std::pair<uint64_t, uint32_t>> order;
    for (auto [s, b] : bytes) order.emplace_back(b, s);
    std::sort(order.rbegin(), order.rend());
    std::vector<StackId> out;
    for (auto [b, s] : order) out.push_back(StackId{s});
    return out;
}

struct Builder {
    const std::vector<Allocation>& all;
    const Iterations& its; // real iterations or slices
    bool realIterations;
    uint64_t peak;

    GrowthRegion make(LeakKind kind, const std::vector<Kept::Item>& items) const {
        GrowthRegion r;
        r.kind = kind;
        r.first = UINT32_MAX;
        std::unordered_map<uint32_t, uint64_t> byStack;
        for (const auto& i : items) {
            const Allocation& x = all[i.allocation];
            r.first = std::min(r.first, x.alloc), r.last = std::max(r.last, x.alloc);
            r.growthBytes += x.bytes;
            byStack[x.stack.value] += x.bytes;
            r.allocations.push_back(i.allocation);
        }
        std::sort(r.allocations.begin(), r.allocations.end());
        r.stacks = stacksByBytes(byStack);
        const size_t births = distinctBirths(items);
        r.perIterationBytes = r.growthBytes / std::max<size_t>(1, births);
        const size_t span = its.indexOf(r.last) - its.indexOf(r.first) + 1;
        r.iterations = realIterations ? uint32_t(span) : 0;
        r.significant = r.growthBytes * 100 >= peak;
        return r;
    }
};

// The kept allocations of every stack, in stack order. At the CUDA level, what a framework's allocator or a
// library keeps is its cache, not growth.
std::map<uint32_t, Kept> keptByStack(const Capture& c, const DeviceTrace& t,
                                     const std::vector<Allocation>& all, const Iterations& its,
                                     const GraphPools& pools, bool skipWarmUp) {
    std::map<uint32_t, Kept> out; // a CUDA graph's private pool holds memory by design: left out
    std::unordered_map<uint32_t, bool> library;
    for (uint32_t i = 0; i < all.size(); ++i) {
        const Allocation& x = all[i];
        if (c.nativeStacks) {
            auto [it, fresh] = library.try_emplace(x.stack.value, false);
            if (fresh) it->second = nativeOwner(c, x.stack) != NativeOwner::User;
            if (it->second) continue;
        }
        if (!pools.empty() && pools.holds(t.addr[x.alloc], x.alloc)) continue;
        const size_t born = its.indexOf(x.alloc);
        if (skipWarmUp && born == 0) continue; // the model and its buffers: the baseline
        const size_t freed = x.freeRequested == kNoEvent ? kNever : its.indexOf(x.freeRequested);
        if (freed > born) out[x.stack.value].items.push_back({i, born, freed});
    }
    return out;
}

// Memory released together: in one iteration, by one line of code (the innermost user frame of the
// first free). Two stacks let go of in the same step by different code are different releases.
using ReleaseBuckets = std::map<std::pair<size_t, uint32_t>, std::vector<Kept::Item>>;

uint32_t freeSite(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all,
                  const std::vector<Kept::Item>& items) {
    uint32_t first = kNoEvent;
    for (const auto& i : items) first = std::min(first, all[i.allocation].freeRequested);
    if (first == kNoEvent) return UINT32_MAX;
    const uint32_t at = firstUserFrame(c, t.stack[first]);
    return at == kNoFrame ? UINT32_MAX : c.stacks.frames(t.stack[first])[at].value;
}

// The last allocation before a release is often made in the release's own iteration (an epoch's
// last step): it did not outlive its iteration, but it is freed with the rest, so it belongs.
constexpr uint32_t kReleaseSlack = 64; // events between frees of one release

void joinFreedTogether(const std::vector<Allocation>& all, const Iterations& its, ReleaseBuckets& releases) {
    struct Span {
        uint32_t from = UINT32_MAX, to = 0;
        std::vector<Kept::Item>* items = nullptr;
    };
    std::unordered_map<uint32_t, std::vector<Span>> byStack;
    for (auto& [freed, items] : releases) {
        std::unordered_map<uint32_t, Span> spans;
        for (const auto& i : items) {
            const Allocation& x = all[i.allocation];
            Span& s = spans[x.stack.value];
            s.from = std::min(s.from, x.freeRequested), s.to = std::max(s.to, x.freeRequested),
            s.items = &items;
        }
        for (auto& [stack, span] : spans) byStack[stack].push_back(span);
    }
    for (uint32_t i = 0; i < all.size(); ++i) {
        const Allocation& x = all[i];
        if (x.freeRequested == kNoEvent) continue;
        auto it = byStack.find(x.stack.value);
        if (it == byStack.end()) continue;
        const size_t born = its.indexOf(x.alloc);
        for (Span& s : it->second)
            // a container frees its items back to front: the newest goes just before the rest
            if (x.freeRequested + kReleaseSlack >= s.from && x.freeRequested <= s.to &&
                born == its.indexOf(x.freeRequested) && born == its.indexOf(s.from))
                s.items->push_back({i, born, born});
    }
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

// The floor's regions: every leak (made every step, once per request, every k-th step, on errors,
// released when the program ends), and the phase accumulations the iteration rules above missed
// (one they found at the same time is not repeated).
void addFloorRegions(std::vector<GrowthRegion> floor, std::vector<GrowthRegion>& out) {
    const size_t found = out.size();
    for (auto& f : floor) {
        const bool known =
            f.kind != LeakKind::Leak &&
            std::any_of(out.begin(), out.begin() + ptrdiff_t(found),
                        [&](const GrowthRegion& g) { return g.first <= f.last && f.first <= g.last; });
        if (!known) out.push_back(std::move(f));
    }
}

// Leaks grow without bound; a cycle or an accumulation is bounded by its phase.
int severity(LeakKind k) {
    return k == LeakKind::Leak ? 0 : k == LeakKind::Cycle ? 1 : 2;
}

// Small but unmistakable: blocks kept for good, made in at least half of the iterations of a span
// that covers half of the trace or more (a hook appending a few KiB every step). Below 1 % of the
// peak, anything less is noise.
bool steadyAcrossRun(const GrowthRegion& g, uint32_t events) {
    return g.kind == LeakKind::Leak && g.keptIn >= 5 && 2 * g.keptIn >= g.iterations &&
           2 * uint64_t(g.last - g.first) >= events;
}

// How a release at the program's end reads: memory from a stack whose memory the program
// released the same way twice or more before is the last tooth of a sawtooth (an epoch's list,
// cleared at each epoch's end and at the last when the program returns); memory released once,
// only at the end, after being built up over most of the run (a function's list, released when it
// returns as the program ends) is a leak for the run's length, whichever detector found it.
void programEnd(std::vector<GrowthRegion>& regions, const std::vector<Allocation>& all,
                const DeviceTrace& t) {
    for (GrowthRegion& g : regions) {
        if (g.releasedAt == kNoEvent || g.stacks.empty()) continue;
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
        uint32_t released = g.releasedAt; // the release's last free: what happens after it
        for (uint32_t k : g.allocations)
            if (all[k].freeRequested != kNoEvent) released = std::max(released, all[k].freeRequested);
        // in time: a release of many blocks is many events, all at the end
        const int64_t held = t.timeUs[g.releasedAt] - t.timeUs[g.first],
                      after = t.timeUs.back() - t.timeUs[released], run = t.timeUs.back() - t.timeUs.front();
        if (g.kind == LeakKind::Accumulation && teeth[g.kind] == 1 && 8 * after <= held && 2 * held >= run)
            g.kind = LeakKind::Leak, g.scale = RegionScale::Run;
    }
}

// The significant leaks, cycles and accumulations, one finding for the teeth of one sawtooth (the
// same kind of release of the same stack), represented by its largest tooth; ranked.
std::vector<GrowthFinding> findingsOf(const std::vector<GrowthRegion>& regions, uint32_t events) {
    std::vector<GrowthFinding> out;
    std::map<std::pair<LeakKind, uint32_t>, size_t> teeth; // (kind, top stack) -> index into out
    for (size_t i = 0; i < regions.size(); ++i) {
        const GrowthRegion& g = regions[i];
        const bool growth =
            g.kind == LeakKind::Leak || g.kind == LeakKind::Accumulation || g.kind == LeakKind::Cycle;
        if (!growth || !(g.significant || steadyAcrossRun(g, events)) || g.stacks.empty()) continue;
        if (g.kind == LeakKind::Leak) {
            out.push_back({i, 1});
            continue;
        }
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
    const Capture& c = a.capture();
    if (t.eventCount() == 0) return out;
    out.iterations = findIterations(c, t, all);
    out.pools = a.graphPools(device);
    const bool real = out.iterations.count() >= 3;
    const Iterations its = real ? out.iterations : slicesOf(uint32_t(t.eventCount()));
    const DeviceSummary sum = a.summary(device);
    const Builder b{all, its, real, uint64_t(std::max<int64_t>(1, sum.peak.allocated))};
    ReleaseCauses causes(c, t, all);

    ReleaseBuckets releases;                 // (release iteration, releasing line) -> accumulated items
    std::vector<Kept::Item> leaked, pending; // alive at the end: leaks, unfinished phases
    for (auto& [stack, kept] : keptByStack(c, t, all, its, *out.pools, real)) {
        std::map<size_t, std::vector<Kept::Item>> byFree;
        for (const auto& i : kept.items) byFree[i.freed].push_back(i);
        // Bulk releases of memory made over several iterations, against memory freed a fixed number
        // of iterations after it was made (a bounded cache trimmed as it goes: its teardown is no
        // accumulation).
        size_t fifo = 0, bulk = 0, lastRelease = 0;
        for (auto& [freed, items] : byFree)
            if (freed != kNever) (stack != 0 && steady(items) ? bulk : fifo) += items.size();
        const bool released = bulk > 0 && bulk >= fifo;
        for (auto& [freed, items] : byFree) {
            if (!released || freed == kNever || !steady(items)) continue;
            auto& r = releases[{freed, freeSite(c, t, all, items)}];
            r.insert(r.end(), items.begin(), items.end());
            lastRelease = freed;
        }
        auto end = byFree.find(kNever);
        if (end == byFree.end() || !steady(end->second)) continue;
        if (released && std::all_of(end->second.begin(), end->second.end(),
                                    [&](const Kept::Item& i) { return i.born >= lastRelease; }))
            pending.insert(pending.end(), end->second.begin(), end->second.end());
        else if (end->second.size() >= fifo)
            leaked.insert(leaked.end(), end->second.begin(), end->second.end());
    }

    // what is kept to the end (or to the program's end) is the floor's to find: addFloorRegions
    joinFreedTogether(all, its, releases);
    for (auto& [key, items] : releases) {
        const size_t freed = key.first;
        GrowthRegion r = b.make(LeakKind::Accumulation, items);
        const ReleaseCause cause = causes.of(r.allocations, its);
        r.kind = cause.garbageCollector ? LeakKind::Cycle : LeakKind::Accumulation;
        r.releasedAt = cause.event;
        r.releasedBy = cause.text;
        r.last = std::max(r.last, cause.event > 0 ? cause.event - 1 : 0);
        r.scale = RegionScale::Phase;
        r.cost = double(r.perIterationBytes) * double(freed - its.indexOf(r.first));
        out.regions.push_back(std::move(r));
    }
    // Releases of the same memory at varying places are the garbage collector's doing.
    for (auto& r : out.regions) // when no free stack said so directly
        if (r.kind == LeakKind::Accumulation && r.releasedAt != kNoEvent &&
            causes.variedSites(r.stacks.front()))
            r.kind = LeakKind::Cycle;
    // built up and released faster than a working set (a request's KV cache): not growth, unless
    // the collector is what releases it (a cycle, however short)
    std::erase_if(out.regions, [&](const GrowthRegion& r) {
        return r.kind == LeakKind::Accumulation && r.releasedAt != kNoEvent &&
               !longerThanWorkingSet(r.releasedAt - r.first, t.eventCount());
    });
    if (!pending.empty()) {
        // still held at the end, as the same memory was before: released the same way, later
        const bool collected =
            std::any_of(out.regions.begin(), out.regions.end(), [&](const GrowthRegion& g) {
                return g.kind == LeakKind::Cycle && !g.stacks.empty() &&
                       g.stacks.front() == all[pending.front().allocation].stack;
            });
        GrowthRegion r = b.make(collected ? LeakKind::Cycle : LeakKind::Accumulation, pending);
        r.scale = RegionScale::Phase;
        r.last = uint32_t(t.eventCount() - 1);
        r.releasedBy = "not yet released when the capture ends (the earlier ones were)";
        r.cost = double(r.perIterationBytes) * double(its.count() + 1 - its.indexOf(r.first));
        out.regions.push_back(std::move(r));
    }
    addFloorRegions(floorRegions(a, device, all, out.iterations, *out.pools), out.regions);
    addCacheRegion(a, device, out.regions);
    std::stable_sort(out.regions.begin(), out.regions.end(),
                     [](const GrowthRegion& x, const GrowthRegion& y) { return x.cost > y.cost; });
    programEnd(out.regions, all, t);
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
