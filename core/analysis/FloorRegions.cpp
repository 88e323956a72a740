#include "FloorRegions.h"

#include "FloorRises.h"
#include "GraphPools.h"
#include "NativeOwner.h"
#include "ReleaseCause.h"

#include <algorithm>
#include <unordered_map>

namespace vs {
namespace {

// One stack's allocations alive at a rise's top that were made during the rise.
struct StackKept {
    std::vector<uint32_t> allocations; // indices into the lifetimes, by alloc event
    std::vector<uint32_t> slices;      // the slice of each birth
    uint64_t bytes = 0;
};

// Births that spread over the rise: in three or more slices, the middle 80 % of them over at
// least a sixteenth of the rise (a burst at one moment is a model, a first step, a warm-up). And
// not levelled off: a stack whose births stopped long before the top (longer ago than they took,
// and a quarter of the trace) filled a bounded cache.
bool repeats(const StackKept& k, uint32_t riseSlices, uint32_t topSlice, uint32_t slices) {
    if (k.slices.size() < 3) return false;
    std::vector<uint32_t> s = k.slices; // ascending already: allocations are in alloc order
    if (std::unique(s.begin(), s.end()) - s.begin() < 3) return false;
    const uint32_t p10 = k.slices[k.slices.size() / 10], p90 = k.slices[k.slices.size() * 9 / 10];
    const uint32_t spread = p90 - p10;
    if (spread < std::max<uint32_t>(2, riseSlices / 16)) return false;
    const uint32_t plateau = topSlice - std::min(topSlice, k.slices.back());
    return !(plateau > spread && plateau >= slices / 4);
}

struct Candidate {
    FloorRise rise;
    RegionKind kind;
    RegionScale scale;
    std::string releasedBy;
};

// Which rises can be growth, and of what kind: kept to the end, released in the last part of the
// trace with nothing built up again (the program's end), or released at a phase end after holding
// long enough not to be a working set.
std::vector<Candidate> candidates(const FloorRises& f, const CompactSeries& allocated, const Iterations& its,
                                  int64_t minRise) {
    std::vector<Candidate> out;
    const auto events = uint32_t(allocated.size());
    if (f.kept.rise() >= minRise) out.push_back({f.kept, RegionKind::Leak, RegionScale::Run, "not released: still alive when the capture ends"});
    for (const FloorRise& r : f.released) {
        const uint32_t held = r.releasedAt - r.start, after = events - r.releasedUntil;
        const uint32_t settled = f.sliceOf(r.releasedUntil); // the floor after the release: built up again?
        const int64_t later = settled < f.slices ? *std::max_element(f.floor.begin() + settled, f.floor.end()) : r.from;
        if (!longerThanWorkingSet(held, events)) continue;
        // what is held at the top: the floor just before the release at the scale of a working set
        // (a slice's own floor can fall inside a step, with its temporaries alive)
        FloorRise top = r;
        const uint32_t window = std::max<uint32_t>(f.eventsPerSlice, held / kWorkingSetShare);
        top.top = uint32_t(allocated.argMin(std::max(r.start, r.releasedAt - std::min(window, r.releasedAt)), r.releasedAt));
        if (8ull * after <= held && later < r.from + r.rise() / 2)
            out.push_back({top, RegionKind::Leak, RegionScale::Run, "released only when the program ends"});
        else if (its.count() < 3 || its.indexOf(r.start) != its.indexOf(r.releasedAt))
            out.push_back({top, RegionKind::Accumulation, RegionScale::Phase, ""});
    }
    return out;
}

std::vector<StackId> byBytes(const std::unordered_map<uint32_t, StackKept>& stacks, const std::vector<uint32_t>& chosen) {
    std::vector<std::pair<uint64_t, uint32_t>> order;
    for (uint32_t s : chosen) order.emplace_back(stacks.at(s).bytes, s);
    std::sort(order.rbegin(), order.rend());
    std::vector<StackId> out;
    for (auto [b, s] : order) out.push_back(StackId{s});
    return out;
}

// The region a rise makes, or nothing when no stack keeps memory repeatedly across it.
struct Inputs {
    const Capture& cap;
    const DeviceTrace& trace;
    const std::vector<Allocation>& all;
    const FloorRises& f;
    const GraphPools& pools;
    int64_t minRise;
};

std::optional<GrowthRegion> regionOf(const Inputs& in, const Candidate& c) {
    const Capture& cap = in.cap;
    const auto& all = in.all;
    const FloorRises& f = in.f;
    std::unordered_map<uint32_t, StackKept> stacks;
    std::unordered_map<uint32_t, bool> library;
    auto it = std::upper_bound(all.begin(), all.end(), c.rise.base, [](uint32_t e, const Allocation& x) { return e < x.alloc; });
    for (; it != all.end() && it->alloc <= c.rise.top; ++it) {
        if (!it->aliveAt(c.rise.top)) continue;
        if (in.pools.holds(in.trace.addr[it->alloc], it->alloc)) continue; // a CUDA graph's pool, by design
        if (cap.nativeStacks) { // a framework's cache or a library's workspace is not the user's growth
            auto [lib, fresh] = library.try_emplace(it->stack.value, false);
            if (fresh) lib->second = nativeOwner(cap, it->stack) != NativeOwner::User;
            if (lib->second) continue;
        }
        StackKept& k = stacks[it->stack.value];
        k.allocations.push_back(uint32_t(it - all.begin()));
        k.slices.push_back(f.sliceOf(it->alloc));
        k.bytes += it->bytes;
    }
    const uint32_t baseSlice = f.sliceOf(c.rise.base), topSlice = f.sliceOf(c.rise.top);
    std::unordered_map<uint32_t, uint64_t> before; // a chosen stack's bytes alive before its first kept birth
    for (auto& [stack, k] : stacks)
        if (stack != 0 && repeats(k, topSlice - baseSlice + 1, topSlice, f.slices)) before.emplace(stack, 0);
    // Memory kept while as much of the same stack is freed (a queue dropping its oldest entry, a
    // list trimmed to its last N) does not grow: what a stack holds must have grown by half of it.
    for (auto x = all.begin(); x != all.end() && x->alloc < c.rise.top; ++x)
        if (auto b = before.find(x->stack.value); b != before.end()) {
            const uint32_t firstKept = all[stacks.at(x->stack.value).allocations.front()].alloc;
            if (x->alloc < firstKept && x->aliveAt(firstKept)) b->second += x->bytes;
        }
    std::vector<uint32_t> chosen;
    uint64_t bytes = 0;
    uint32_t first = UINT32_MAX;
    for (auto [stack, held] : before) {
        const StackKept& k = stacks.at(stack);
        if (2 * held > k.bytes) continue;
        chosen.push_back(stack), bytes += k.bytes;
        first = std::min(first, all[k.allocations.front()].alloc);
    }
    if (chosen.empty() || int64_t(bytes) < in.minRise / 2) return std::nullopt;

    GrowthRegion r;
    r.kind = c.kind, r.scale = c.scale, r.releasedBy = c.releasedBy;
    r.first = first, r.last = c.rise.top;
    r.stacks = byBytes(stacks, chosen);
    for (StackId s : r.stacks) {
        const auto& al = stacks.at(s.value).allocations;
        r.allocations.insert(r.allocations.end(), al.begin(), al.end());
    }
    std::sort(r.allocations.begin(), r.allocations.end());
    r.growthBytes = bytes;
    if (c.kind != RegionKind::Leak || c.rise.releasedAt != kNoEvent) {
        uint32_t freed = kNoEvent; // the first free of the release
        for (uint32_t i : r.allocations) freed = std::min(freed, all[i].freeRequested);
        r.releasedAt = freed;
        r.last = std::max(r.last, freed > 0 && freed != kNoEvent ? freed - 1 : r.last);
    }
    return r;
}

// In the program's own units, when it has iterations: how many it spans, in how many it kept
// memory, the bytes kept each time; the ranking's cost is what it would keep over the whole trace.
void describe(GrowthRegion& r, const std::vector<Allocation>& all, const Iterations& its, uint32_t events) {
    const double span = std::max<uint32_t>(1, r.last - r.first);
    r.cost = double(r.growthBytes) * std::max(1.0, double(events) / span);
    if (its.count() < 3) return;
    r.iterations = uint32_t(its.indexOf(r.last) - its.indexOf(r.first) + 1);
    std::vector<size_t> made; // the iterations that made kept memory, ascending
    for (uint32_t i : r.allocations)
        if (made.empty() || made.back() != its.indexOf(all[i].alloc)) made.push_back(its.indexOf(all[i].alloc));
    std::sort(made.begin(), made.end());
    made.erase(std::unique(made.begin(), made.end()), made.end());
    r.keptIn = uint32_t(made.size());
    r.perIterationBytes = r.growthBytes / std::max<uint32_t>(1, r.keptIn);
    std::vector<size_t> gaps;
    for (size_t i = 1; i < made.size(); ++i) gaps.push_back(made[i] - made[i - 1]);
    if (gaps.size() < 2) return;
    std::sort(gaps.begin(), gaps.end());
    if (2 * gaps.back() <= 3 * gaps.front()) r.interval = uint32_t(gaps[gaps.size() / 2]); // within 50 % of each other
}

} // namespace

bool longerThanWorkingSet(uint64_t heldEvents, uint64_t events) {
    return kWorkingSetShare * heldEvents >= events;
}

int64_t minFloorRise(int64_t peakAllocated) {
    return std::max<int64_t>(peakAllocated / 200, 512 << 10);
}

std::vector<GrowthRegion> floorRegions(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                                       const Iterations& its) {
    std::vector<GrowthRegion> out;
    const ReplayResult& rep = a.replay(device);
    const int64_t peak = std::max<int64_t>(1, a.summary(device).peak.allocated);
    const int64_t minRise = minFloorRise(peak);
    const FloorRises f = findFloorRises(rep.allocated, minRise);
    if (f.slices == 0) return out;
    const auto events = uint32_t(rep.allocated.size());
    const GraphPools pools(a.trace(device));
    const Inputs in{a.capture(), a.trace(device), all, f, pools, minRise};
    for (const Candidate& c : candidates(f, rep.allocated, its, minRise)) {
        auto r = regionOf(in, c);
        if (!r) continue;
        // a rise released at the end shares its memory with the kept one that ends lower: keep one
        if (std::any_of(out.begin(), out.end(), [&](const GrowthRegion& g) { return g.stacks.front() == r->stacks.front(); }))
            continue;
        r->significant = r->growthBytes * 100 >= uint64_t(peak);
        describe(*r, all, its, events);
        out.push_back(std::move(*r));
    }
    return out;
}

} // namespace vs
