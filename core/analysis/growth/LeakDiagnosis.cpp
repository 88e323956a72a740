#include "analysis/growth/LeakDiagnosis.h"

#include "analysis/growth/RegionDiagnosis.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/NativeOwner.h"
#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace vs {

namespace {

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
}

// Bulk releases of one stack's allocations (three or more make a pattern): a run of at least 3 frees with no
// new allocation of the same stack in between, that empties what had accumulated (at most a fifth stays
// alive) and frees memory that lived long (on average at least 3 % of the trace). Reference cycles collected
// by the garbage collector produce one such release per collection; per-step frees of activations
// are too short-lived, and a bounded FIFO cache never empties.
struct Releases {
    std::vector<uint32_t> starts; // event index of each bulk release
    bool periodic() const;        // evenly spaced: a scheduled collection (gc.collect every N steps)
};

bool Releases::periodic() const {
    if (starts.size() < 3) return true; // too few to tell
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 1; i < starts.size(); ++i) {
        lo = std::min(lo, starts[i] - starts[i - 1]);
        hi = std::max(hi, starts[i] - starts[i - 1]);
    }
    return double(hi) <= 1.3 * double(lo); // evenly spaced, not merely similar
}

// One stack's allocations and frees as (event, +1 alloc / -1 free), in event order.
using LiveSteps = std::vector<std::pair<uint32_t, int>>;

// The steps of each of `stacks`, from each stack's own allocations (a pass over every allocation
// made a click at 100M events wait ~100 ms here).
std::unordered_map<uint32_t, LiveSteps> liveStepsOf(const std::vector<Allocation>& all,
                                                    const StackAllocations& byStack,
                                                    const std::vector<StackId>& stacks) {
    std::unordered_map<uint32_t, LiveSteps> out;
    for (StackId s : stacks)
        if (!out.count(s.value))
            out[s.value] = byStack.steps<LiveSteps::value_type>(
                all, s,
                [](uint32_t e, const Allocation&, bool free) {
                    return std::pair<uint32_t, int>(e, free ? -1 : +1);
                },
                [](const std::pair<uint32_t, int>& step) { return step.first; });
    return out;
}

// The lowest live count of one stack's allocations in each of `slices` equal parts of [from, to]:
// the floor under a step's temporaries, which is what accumulates.
std::vector<int> liveFloors(const LiveSteps& ev, uint32_t from, uint32_t to, uint32_t slices) {
    std::vector<int> floors(slices, INT32_MAX);
    int live = 0;
    size_t k = 0;
    for (; k < ev.size() && ev[k].first < from; ++k) live += ev[k].second;
    for (uint32_t s = 0; s < slices; ++s) {
        const uint32_t end = from + uint32_t(uint64_t(to - from) * (s + 1) / slices);
        floors[s] = live;
        for (; k < ev.size() && ev[k].first <= end; ++k)
            live += ev[k].second, floors[s] = std::min(floors[s], live);
    }
    return floors;
}

// Does the stack's live count keep rising through the window (a leak), or level off (a bounded
// cache, such as a list trimmed to its last N entries)? A floor that rises in the window but then
// holds steady for a long time after it is bounded too.
bool keepsGrowing(const LiveSteps& ev, uint32_t first, uint32_t last, uint32_t end) {
    const auto in = liveFloors(ev, first, last, kSlices);
    if (!(in.back() > in[5] && 4 * (in.back() - in[3]) >= in.back())) return false;
    if (uint64_t(end - last) * 2 < uint64_t(last - first)) return true; // little recorded after the window
    const auto after = liveFloors(ev, last, end, kSlices);
    // a plateau after the window (the last part may be a teardown that frees everything)
    const auto [lo, hi] = std::minmax_element(after.begin(), after.end() - 2);
    return !(5 * *lo >= 4 * in.back() && 5 * *hi <= 6 * in.back());
}

// Only the stacks of the first `kReleaseCandidates` of `groups` (the window's survivors, ranked: the
// diagnosis asks about no others; all of a 10M-event capture's stacks took 0.4 s).
constexpr size_t kReleaseCandidates = 64;
std::unordered_map<uint32_t, Releases> bulkReleases(const std::vector<Allocation>& all,
                                                    const DeviceCategories& device, uint32_t eventCount,
                                                    const std::vector<uint32_t>& iterations,
                                                    const std::vector<SurvivorGroup>& groups) {
    // With iterations known, what a release frees must have been made over three or more iterations
    // (objects piling up across steps), not all in the step it ends.
    auto iterationOf = [&](uint32_t e) {
        return std::upper_bound(iterations.begin(), iterations.end(), e) - iterations.begin();
    };
    struct Ev {
        uint32_t event;
        uint32_t born; // for frees: the alloc event
        bool free;
    };
    const double longLived = 0.03 * eventCount;
    // A release counts only if its frees lived longLived on average, so one of them at least did: the
    // other stacks (a loop's temporaries, millions of allocations each) cannot have one.
    const auto canRelease = device.byLifetime.stacksFreedAfter(all, uint64_t(std::ceil(longLived)));
    std::unordered_map<uint32_t, std::vector<Ev>> byStack;
    for (size_t i = 0; i < groups.size() && i < kReleaseCandidates; ++i)
        if (groups[i].stack.value != 0 && !byStack.count(groups[i].stack.value) &&
            std::binary_search(canRelease.begin(), canRelease.end(), groups[i].stack.value))
            byStack[groups[i].stack.value] = device.byStack.steps<Ev>(
                all, groups[i].stack,
                [](uint32_t e, const Allocation& a, bool free) {
                    return Ev{e, a.alloc, free};
                },
                [](const Ev& step) { return step.event; });
    std::unordered_map<uint32_t, Releases> out;
    for (auto& [stack, v] : byStack) {
        int live = 0, run = 0, before = 0;
        double lifetimes = 0;
        uint32_t start = 0, oldest = UINT32_MAX, newest = 0;
        Releases r;
        auto close = [&] {
            const bool acrossIterations =
                iterations.size() < 3 || iterationOf(newest) - iterationOf(oldest) >= 2;
            if (run >= 3 && before >= 3 && live * 5 <= before && lifetimes / run >= longLived &&
                acrossIterations) {
                r.starts.push_back(start);
            }
            run = 0, lifetimes = 0, oldest = UINT32_MAX, newest = 0;
        };
        for (const Ev& e : v) {
            if (!e.free) {
                close();
                ++live;
                continue;
            }
            if (run++ == 0) before = live, start = e.event;
            lifetimes += double(e.event - e.born);
            oldest = std::min(oldest, e.born), newest = std::max(newest, e.born);
            --live;
        }
        close();
        if (!r.starts.empty()) out[stack] = std::move(r);
    }
    return out;
}

// The iterations in which a group left survivors, and their share scaled to kSlices like slice
// coverage.
void countIterations(const std::vector<Allocation>& all, SurvivorGroup& g,
                     const std::vector<uint32_t>& starts) {
    const size_t hit =
        iterationsMaking(all, g.allocations, starts, false); // not the warm-up before the first
    g.iterationsMade = static_cast<uint32_t>(hit);
    g.coverage = static_cast<uint32_t>((hit * kSlices + starts.size() / 2) / starts.size());
}

void rankBySteadiness(std::vector<SurvivorGroup>& groups) {
    std::stable_sort(groups.begin(), groups.end(), [](const SurvivorGroup& a, const SurvivorGroup& b) {
        if (isSteady(a) != isSteady(b)) return isSteady(a);
        if (isSteady(a) && a.coverage != b.coverage) return a.coverage > b.coverage;
        return a.bytes > b.bytes;
    });
}

uint32_t firstOom(const DeviceTrace& t) {
    const size_t at = t.find(Action::Oom);
    return at < t.eventCount() ? static_cast<uint32_t>(at) : kNoEvent;
}

// Free bytes inside segments that also hold live blocks (split free space `empty_cache` cannot
// return) against free bytes in wholly free segments.
std::pair<uint64_t, uint64_t> splitAndWholeFree(const std::vector<StateSegment>& segs) {
    uint64_t split = 0, whole = 0;
    for (const auto& s : segs) {
        uint64_t free = 0;
        bool live = false;
        for (const auto& b : s.blocks)
            (b.state == BlockState::Inactive ? free += b.size : (live = true, free));
        (live ? split : whole) += free;
    }
    return {split, whole};
}

// "PyTorch's caching allocator (420.00 MiB in 7 blocks), cuBLAS (64.00 MiB in 2 blocks)": the
// surviving groups of a native recording that known allocators and libraries own.
std::string libraryHoldings(const Capture& c, const std::vector<SurvivorGroup>& groups) {
    std::map<NativeOwner, std::pair<uint64_t, uint32_t>> by;
    for (const auto& g : groups)
        if (const NativeOwner o = nativeOwner(c, g.stack); o != NativeOwner::User)
            by[o].first += g.bytes, by[o].second += g.count;
    std::string out;
    for (const auto& [o, v] : by)
        out += (out.empty() ? "" : ", ") + std::string(nativeOwnerName(o)) + " (" +
               humanBytes(int64_t(v.first)) + " in " + std::to_string(v.second) + " blocks)";
    return out;
}

// When the window says "leak" but no region is kept to the end: the worst accumulation whose memory
// the program releases two or more times. One release at the very end (a function that returns when
// the run ends) is still a leak for the run's length; memory the collector frees at irregular
// moments stays "a leak through a cycle".
const GrowthRegion* repeatedRelease(const LeakReport& rep) {
    if (rep.kind != LeakKind::Leak || worstRegion(rep.growth(), LeakKind::Leak)) return nullptr;
    for (const auto& g : rep.growth().regions)
        if (g.kind == LeakKind::Accumulation && g.significant && g.releasedAt != kNoEvent &&
            releasesOfSameStack(rep.growth(), g) >= 2)
            return &g;
    return nullptr;
}

// " 96.00 MiB of the 120.00 MiB reserved at the end is in 2 CUDA graph pools ...": when private pools
// hold a good part of what is reserved (reduce-overhead, torch.cuda.graph), which users cannot
// otherwise explain.
std::string graphPoolText(const GraphPools& pools, const DeviceSummary& sum) {
    if (pools.empty() || 4 * pools.reservedAtEnd() < uint64_t(std::max<int64_t>(1, sum.final.reserved)))
        return {};
    return " " + humanBytes(int64_t(pools.reservedAtEnd())) + " of the " + humanBytes(sum.final.reserved) +
           " reserved at the end is in " + std::to_string(pools.poolCount()) +
           " CUDA graph private pool(s) (" + humanBytes(int64_t(pools.allocatedAtEnd())) +
           " in use): memory the captured graphs keep by design (torch.compile mode=\"reduce-overhead\", "
           "torch.cuda.graph), not growth.";
}

// Whether most of a group's bytes sit in a CUDA graph's private pool.
bool inGraphPool(const DeviceTrace& t, const std::vector<Allocation>& all, const GraphPools& pools,
                 const SurvivorGroup& g) {
    uint64_t pooled = 0;
    for (uint32_t i : g.allocations)
        if (pools.holds(t.addr[all[i].alloc], all[i].alloc)) pooled += all[i].bytes;
    return 2 * pooled > g.bytes;
}

// Kinds that say nothing grows: a leak region found by the floor takes their place.
bool quiet(LeakKind k) {
    return k == LeakKind::None || k == LeakKind::Cache || k == LeakKind::Fragmentation ||
           k == LeakKind::DeferredFree;
}

} // namespace

LeakInputs prepareLeakInputs(const CaptureAnalysis& a, size_t device) {
    LeakInputs in;
    in.categories = a.categories(device);
    in.regions = std::make_shared<const GrowthRegions>(findGrowthRegions(a, device, in.lifetimes()));
    return in;
}

LeakReport diagnoseLeaks(const CaptureAnalysis& a, size_t device, const LeakQuery& q) {
    return diagnoseLeaks(a, device, q, prepareLeakInputs(a, device));
}

LeakReport diagnoseLeaks(const CaptureAnalysis& a, size_t device, const LeakQuery& q, const LeakInputs& in) {
    const DeviceTrace& t = a.trace(device);
    const ReplayResult& r = a.replay(device);
    const Capture& c = a.capture();
    LeakReport rep;
    if (t.eventCount() == 0) {
        rep.summary = "No allocator history was recorded, so nothing can grow.";
        rep.nextStep = "Record with torch.cuda.memory._record_memory_history(enabled='all') before the run.";
        return rep;
    }
    const auto n = static_cast<uint32_t>(t.eventCount());
    const auto& all = in.lifetimes();
    const uint32_t oom = firstOom(t);
    auto secondsAt = [&](uint32_t e) { return a.secondsAt(device, e); };

    // The window: asked for, or from the start to the OOM, or to the highest point of allocated.
    rep.autoWindow = q.autoWindow && !q.region;
    if (q.region) {
        rep.first = std::min(q.region->first, n - 1), rep.last = std::min(q.region->last, n - 1);
    } else if (!q.autoWindow) {
        rep.first = std::min(q.first, n - 1), rep.last = std::min(std::max(q.last, rep.first), n - 1);
    } else if (oom != kNoEvent) {
        rep.first = 0, rep.last = oom;
    } else {
        // The last time allocated came within 2 % of its maximum: the end of a leak's growth, the
        // last peak of a sawtooth, or late in a steady loop (so warm-up is a small part of it).
        rep.first = 0;
        const int64_t top = r.allocated.max();
        rep.last = n - 1;
        while (rep.last > 0 && r.allocated[rep.last] < top - top / 50) --rep.last;
    }
    rep.aliveAtEnd = q.aliveAtEnd;
    const uint32_t until = q.aliveAtEnd ? n - 1 : rep.last;
    rep.groups = groupSurvivors(all, in.categories->byLifetime.aliveAt(all, rep.first, rep.last, until),
                                {rep.first, rep.last, q.aliveAtEnd});
    rep.regions = in.regions;
    rep.categories = in.categories;
    const auto iterations = startsWithin(rep.growth().iterations, rep.first, rep.last);
    rep.iterationMarker = rep.growth().iterations.marker;
    rep.iterations = iterations.size();
    if (iterations.size() >= 3) // steadiness counted in iterations rather than in equal slices of the window
        for (auto& g : rep.groups) countIterations(all, g, iterations);
    // A clicked accumulation, cycle or one iteration's rise explains itself: what the region holds.
    if (q.region && q.region->kind != LeakKind::Cache) {
        rep.region = q.region;
        explainRegion(a, device, all, *q.region, rep);
        attachHolder(a, device, all, rep);
        return rep;
    }
    std::vector<StackId> candidates; // the largest steady groups; the rest stay as they are
    for (size_t i = 0; i < rep.groups.size() && i < 32; ++i)
        if (isSteady(rep.groups[i])) candidates.push_back(rep.groups[i].stack);
    const auto steps = liveStepsOf(all, in.categories->byStack, candidates);
    for (size_t i = 0; i < rep.groups.size() && i < 32; ++i)
        if (isSteady(rep.groups[i]))
            rep.groups[i].growing =
                keepsGrowing(steps.at(rep.groups[i].stack.value), rep.first, rep.last, n - 1);
    if (c.nativeStacks) // a framework's cache or a library's workspace is not the user's leak
        for (auto& g : rep.groups)
            if (nativeOwner(c, g.stack) != NativeOwner::User) g.growing = false;
    if (const GraphPools& pools = *rep.growth().pools; !pools.empty()) // kept by a CUDA graph by design
        for (auto& g : rep.groups)
            if (inGraphPool(t, all, pools, g)) g.growing = false;
    rankBySteadiness(rep.groups);
    rep.steadyGroups = static_cast<size_t>(std::count_if(rep.groups.begin(), rep.groups.end(), isSteady));
    const auto bulk = bulkReleases(all, *in.categories, n, iterations, rep.groups);
    const double duration = std::max(1e-6, secondsAt(rep.last) - secondsAt(rep.first));
    // the growth's own span: from the first block the steady groups kept to the window's end (a
    // window that starts at the program's start holds its setup too, which grows nothing)
    uint32_t grewFrom = rep.last;
    for (size_t i = 0; i < rep.steadyGroups; ++i)
        rep.growthBytes += rep.groups[i].bytes, grewFrom = std::min(grewFrom, rep.groups[i].firstEvent);
    const double growing =
        rep.steadyGroups ? std::max(1e-6, secondsAt(rep.last) - secondsAt(grewFrom)) : duration;
    const DeviceSummary sum = a.summary(device);
    const SurvivorGroup* top = rep.groups.empty() ? nullptr : &rep.groups.front();
    const std::string topSite = top ? siteText(c, top->stack) : std::string();

    // Which problem is it?
    auto releasesOf = [&](const SurvivorGroup& g) -> const Releases* {
        auto it = bulk.find(g.stack.value);
        return it != bulk.end() && it->second.starts.size() >= 3 ? &it->second : nullptr;
    };
    // bulk releases of a significant share of the peak (a few KiB collected together is no finding)
    auto cycled = [&](const SurvivorGroup& g) {
        return releasesOf(g) != nullptr &&
               g.bytes * 100 >= uint64_t(std::max<int64_t>(1, sum.peak.allocated));
    };
    if (oom != kNoEvent) {
        rep.kind = LeakKind::Oom;
        rep.summary =
            "Out of memory at " + seconds(secondsAt(oom)) + ": a request of " +
            humanBytes(int64_t(t.size[oom])) + " failed with " + humanBytes(r.allocated[oom]) + " allocated" +
            (top ? "; the largest holder is " + topSite + " with " + humanBytes(int64_t(top->bytes)) : "") +
            ".";
        rep.evidence = std::to_string(t.size[oom]) + " bytes requested, " + std::to_string(t.addr[oom]) +
                       " bytes free on the device, reserved " + humanBytes(r.reserved[oom]) + ".";
        rep.nextStep = rep.steadyGroups
                           ? "The memory accumulated steadily before the OOM: find what keeps the tensors "
                             "allocated at " +
                                 topSite + " alive (a list or dict that only grows)."
                           : "Reduce the batch or model size, free tensors you no longer need, or check "
                             "that no other process holds the GPU.";
    } else if (rep.steadyGroups && !cycled(*top)) {
        rep.kind = LeakKind::Leak;
        rep.summary = "Allocated memory grows by " + humanBytes(int64_t(rep.growthBytes)) + " over " +
                      seconds(growing) + " (from " + seconds(secondsAt(grewFrom)) +
                      "): " + std::to_string(top->count) + " allocations from " + topSite +
                      " are still alive, made steadily across the window.";
        // The group's own figures: allocated memory at the window's ends is wherever the model's
        // loading and the step's temporaries stand, not the leak.
        rep.evidence =
            "top group: " + std::to_string(top->count) + " blocks, " + humanBytes(int64_t(top->bytes)) +
            (rep.iterations >= 3
                 ? ", made in " + std::to_string(top->iterationsMade) + " of the " +
                       std::to_string(rep.iterations) + " '" + rep.iterationMarker + "' iterations"
                 : ", made in " + std::to_string(top->coverage) + " of " + std::to_string(kSlices) +
                       " equal slices of the window") +
            ", from " + seconds(secondsAt(top->firstEvent)) + " to " + seconds(secondsAt(top->lastEvent)) +
            "; all of them alive at " + seconds(secondsAt(rep.aliveAtEnd ? n - 1 : rep.last)) + ".";
        rep.nextStep =
            a.capture().nativeStacks
                ? "Find the missing free: these device allocations (cudaMalloc, pools, VMM) are never "
                  "released; follow the stack to the code that keeps the pointers (a container that "
                  "only grows, an error path that skips cudaFree)."
                : "Find what keeps these tensors alive: a list, dict or attribute that only grows, a "
                  "hook that appends, a tensor stored on an autograd ctx (use save_for_backward). Store "
                  "loss.item() rather than the loss tensor, detach() what you keep, and evaluate under "
                  "torch.no_grad().";
        if (!a.capture().retention.empty())
            rep.nextStep +=
                " This recording names the holders: see the Retention tab (vramscope-cli retention).";
    } else if (std::any_of(rep.groups.begin(), rep.groups.end(), cycled)) {
        std::stable_partition(rep.groups.begin(), rep.groups.end(), cycled);
        const SurvivorGroup& g = rep.groups.front();
        const Releases& rel = *releasesOf(g);
        const std::string site = siteText(c, g.stack);
        const std::string count = std::to_string(rel.starts.size());
        rep.evidence = count + " bulk releases of that stack (at " + seconds(secondsAt(rel.starts.front())) +
                       " ... " + seconds(secondsAt(rel.starts.back())) + "); " +
                       humanBytes(int64_t(g.bytes)) + " of it alive at " + seconds(secondsAt(rep.last)) + ".";
        if (rel.periodic()) {
            rep.kind = LeakKind::Cycle;
            rep.summary =
                "Memory is released in bulk " + count + " times at regular intervals: allocations from " +
                site +
                " stay alive until something frees them together, a sawtooth typical of reference cycles "
                "collected by a scheduled garbage collection.";
            rep.nextStep =
                "Break the reference cycle (drop the back-reference, use weakref) so tensors die at once, or "
                "call gc.collect() every step; check for gc.disable() or raised gc thresholds.";
            rep.growthBytes = g.bytes; // what one tooth keeps, as for an accumulation: the CI gate sees it
        } else {
            rep.kind = LeakKind::Leak;
            rep.summary = "Allocations from " + site +
                          " pile up and are freed only when Python's garbage collector "
                          "happens to find the reference cycle holding them (" +
                          count +
                          " irregular bulk releases): "
                          "a leak through a cycle.";
            rep.nextStep =
                "Something keeps these tensors in a reference cycle, often a tensor stored on an autograd "
                "ctx (use ctx.save_for_backward), a closure or a back-reference: remove it so they die at "
                "once.";
            rep.growthBytes = g.bytes;
        }
    } else if (sum.peak.reserved > sum.peak.allocated * 3 / 2 &&
               sum.peak.reserved - sum.peak.allocated >= (64 << 20)) {
        const auto at = static_cast<uint32_t>(r.reserved.argMax(0, r.reserved.size()));
        const auto [split, whole] = splitAndWholeFree(Replay::stateAfter(t, c.streams, r, a.rules(), at + 1));
        rep.kind = split > whole ? LeakKind::Fragmentation : LeakKind::Cache;
        rep.summary =
            "Reserved memory peaks at " + humanBytes(sum.peak.reserved) + " while allocated never exceeds " +
            humanBytes(sum.peak.allocated) + ": the caching allocator keeps " +
            humanBytes(sum.peak.reserved - sum.peak.allocated) + " of free blocks" +
            (split > whole ? ", mostly split free space inside segments that still hold tensors." : ".");
        rep.evidence = "at " + seconds(secondsAt(at)) + ": " + humanBytes(int64_t(split)) +
                       " free inside segments with live blocks, " + humanBytes(int64_t(whole)) +
                       " in wholly free segments.";
        rep.nextStep =
            split > whole
                ? "Mixed tensor sizes fragment the cache: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                  "lets segments grow and shrink, or allocate large buffers first and reuse them."
                : "The cache is not a leak: torch.cuda.empty_cache() returns whole free segments to "
                  "the driver; expandable_segments:True reduces what stays reserved.";
    } else if (sum.peak.active - sum.peak.allocated >= (8 << 20)) {
        rep.kind = LeakKind::DeferredFree;
        rep.summary =
            "Up to " + humanBytes(sum.peak.active - sum.peak.allocated) +
            " is freed by the program but still in use by another stream (record_stream), so it is not "
            "reusable yet; nothing grows.";
        rep.nextStep =
            "Expected with side streams; if it matters, synchronise the side stream earlier or avoid "
            "record_stream on large tensors.";
    } else {
        rep.kind = LeakKind::None;
        rep.summary = "No steady growth: memory allocated in the window is released again.";
        rep.evidence = flatEvidence(a, device, rep);
        rep.nextStep = "Nothing to fix here; select a range on the timeline to inspect what survives it.";
        if (c.nativeStacks) {
            const std::string held = libraryHoldings(c, rep.groups);
            if (!held.empty()) {
                rep.summary +=
                    " What stays allocated belongs to " + held + ": caches and workspaces, not a leak.";
                rep.nextStep = "PyTorch's own recorder (python -m vramscope record) shows the tensors inside "
                               "its allocator's segments, with Python stacks.";
            }
        }
    }
    if (rep.kind == LeakKind::DeferredFree) rep.evidence = flatEvidence(a, device, rep);
    if (quiet(rep.kind)) rep.evidence += graphPoolText(*rep.growth().pools, sum);
    rep.growthBytesPerSecond = double(rep.growthBytes) / growing;
    // A region explains itself (a click on a ramp); otherwise the worst accumulation, unless the
    // memory is leaked for good or ran out (more serious), or a leak the window missed.
    if (q.region) {
        rep.region = q.region;
        explainRegion(a, device, all, *q.region, rep);
    } else if (const GrowthRegion* tooth = q.autoWindow && !q.aliveAtEnd ? repeatedRelease(rep) : nullptr) {
        // the window saw memory piling up, but nothing is kept for good and the program releases
        // the same memory again and again (phases of varying length): a sawtooth, not a leak
        rep.region = *tooth;
        explainRegion(a, device, all, *tooth, rep);
    } else if (const GrowthRegion* leak =
                   q.autoWindow && quiet(rep.kind) ? worstRegion(rep.growth(), LeakKind::Leak) : nullptr) {
        // memory kept for good (or until the program ends) is the finding, whatever the window's own
        // per-iteration checks say: they see a leak made every k-th step or once per request as noise
        LeakQuery again = q;
        again.autoWindow = false, again.first = leak->first, again.last = leak->last;
        LeakReport viaRegion = diagnoseLeaks(a, device, again, in);
        if (viaRegion.kind == LeakKind::Leak && !viaRegion.groups.empty() && !leak->stacks.empty() &&
            viaRegion.groups.front().stack == leak->stacks.front()) {
            viaRegion.autoWindow = true, viaRegion.region = *leak;
            return viaRegion;
        }
        rep.region = *leak;
        explainRegion(a, device, all, *leak, rep);
    } else if (q.autoWindow && rep.kind != LeakKind::Leak && rep.kind != LeakKind::Oom) {
        // memory the program keeps until a phase ends outranks what else the window shows; memory
        // the collector frees in bulk is a cycle even when the window missed the sawtooth
        const GrowthRegion* acc = worstRegion(rep.growth(), LeakKind::Accumulation);
        if (!acc && rep.kind != LeakKind::Cycle) acc = worstRegion(rep.growth(), LeakKind::Cycle);
        if (acc) {
            rep.region = *acc;
            explainRegion(a, device, all, *acc, rep);
        }
    }
    attachHolder(a, device, all, rep);
    return rep;
}

} // namespace vs
