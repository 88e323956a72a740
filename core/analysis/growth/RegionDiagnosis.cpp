#include "analysis/growth/RegionDiagnosis.h"

#include "analysis/growth/FindingText.h"
#include "analysis/growth/RegionHolders.h"
#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace vs {
namespace {

std::string secondsText(double s) {
    return fixed(s, 3) + " s";
}

// "1 block", "15 blocks"
std::string blocksText(size_t n) {
    return std::to_string(n) + (n == 1 ? " block" : " blocks");
}

} // namespace

size_t releasesOfSameStack(const GrowthRegions& all, const GrowthRegion& r) {
    if (r.stacks.empty()) return 0;
    return size_t(std::count_if(all.regions.begin(), all.regions.end(), [&](const GrowthRegion& g) {
        return g.kind == r.kind && g.releasedAt != kNoEvent && !g.stacks.empty() &&
               g.stacks.front() == r.stacks.front();
    }));
}

namespace {

// Puts the region's stacks first, in its order, marked as steady with their share of its iterations.
void rankRegionGroups(const std::vector<Allocation>& all, const GrowthRegion& region, const Iterations& its,
                      LeakReport& rep) {
    std::unordered_map<uint32_t, size_t> rank;
    for (size_t i = 0; i < region.stacks.size(); ++i) rank.emplace(region.stacks[i].value, i);
    std::stable_sort(rep.groups.begin(), rep.groups.end(),
                     [&](const SurvivorGroup& x, const SurvivorGroup& y) {
                         auto rx = rank.find(x.stack.value), ry = rank.find(y.stack.value);
                         const size_t a = rx == rank.end() ? SIZE_MAX : rx->second,
                                      b = ry == rank.end() ? SIZE_MAX : ry->second;
                         return a < b;
                     });
    const size_t from = its.indexOf(region.first), to = its.indexOf(region.last);
    rep.steadyGroups = 0;
    for (auto& g : rep.groups) {
        if (!rank.count(g.stack.value)) break;
        const size_t births = iterationsMaking(all, g.allocations, its.starts, true);
        const size_t span = std::max<size_t>(1, to - from + 1);
        g.coverage = uint32_t(std::min<size_t>(kSlices, (births * kSlices + span / 2) / span));
        g.growing = true;
        ++rep.steadyGroups;
    }
}

std::string spanText(const GrowthRegion& r, const Iterations& its, size_t releases) {
    if (!its.phaseMarker.empty()) return "each '" + its.phaseMarker + "'";
    if (r.iterations == 0) return "the region";
    const std::string n = std::to_string(r.iterations) + " iterations";
    return releases >= 2 ? "each phase of " + n + " (a release every " + std::to_string(r.iterations) + ")"
                         : n;
}

// When the region's blocks were made: its first and last kept allocation (its `last` can be the
// event before the release or the end of the capture). Its own figures, not allocated memory at its
// two ends: that is wherever the step's temporaries and other phases happen to stand (a sawtooth can
// put the later one lower, an epoch's end adds its metrics).
template <class At>
std::string madeText(const std::vector<Allocation>& all, const GrowthRegion& region, At at) {
    uint32_t first = region.first, last = region.last;
    if (!region.allocations.empty()) {
        first = UINT32_MAX, last = 0;
        for (uint32_t k : region.allocations)
            first = std::min(first, all[k].alloc), last = std::max(last, all[k].alloc);
    }
    return "made from " + secondsText(at(first)) + " to " + secondsText(at(last));
}

void explainAccumulation(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                         const GrowthRegion& region, LeakReport& rep) {
    const Capture& c = a.capture();
    const Iterations& its = rep.growth().iterations;
    auto at = [&](uint32_t e) { return a.secondsAt(device, e); };
    const size_t releases = releasesOfSameStack(rep.growth(), region);
    const std::string site =
        region.stacks.empty() ? std::string("several places") : siteText(c, region.stacks.front());
    const bool cycle = region.kind == LeakKind::Cycle;
    const bool released = region.releasedAt != kNoEvent;
    rep.kind = region.kind; // Accumulation or Cycle: one enum, the region's kind is the diagnosis's
    rep.growthBytes = region.growthBytes;
    rep.summary =
        humanBytes(int64_t(region.growthBytes)) + " from " + site + " accumulate over " +
        spanText(region, its, releases) + ": " + blocksText(region.allocations.size()) + " kept " +
        (released ? "until " + region.releasedBy + ", released together"
                  : std::string("and ") + region.releasedBy) +
        (releases >= 2 ? " (" + std::to_string(releases) + " times in this capture)" : std::string()) + ".";
    rep.evidence = blocksText(region.allocations.size()) + ", " + humanBytes(int64_t(region.growthBytes));
    if (region.iterations > 0)
        rep.evidence += ", " + humanBytes(int64_t(region.perIterationBytes)) + " kept per iteration over " +
                        std::to_string(region.iterations) + " '" + its.marker + "' iterations";
    rep.evidence += ", " + madeText(all, region, at);
    if (released) rep.evidence += "; released at " + secondsText(at(region.releasedAt));
    rep.evidence += ".";
    if (cycle) {
        rep.nextStep =
            "Break the reference cycle holding these tensors (a back-reference, a closure, a tensor "
            "stored on an autograd ctx: use ctx.save_for_backward or weakref) so they die at once.";
    } else {
        rep.nextStep =
            "Something keeps every step's tensors until then, usually an output or loss collected "
            "with its autograd graph: collect .detach() (or .item() for scalars) instead, or reduce as "
            "you go; the peak grows with the length of the phase.";
    }
    if (!c.retention.empty()) rep.nextStep += " The Retention tab names what holds them.";
}

// A leak through a reference cycle (GrowthRegion::collected): released only when the collector
// happens to find the cycle.
void explainCollectedLeak(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                          const GrowthRegion& region, LeakReport& rep) {
    auto at = [&](uint32_t e) { return a.secondsAt(device, e); };
    const size_t releases = releasesOfSameStack(rep.growth(), region);
    rep.summary = humanBytes(int64_t(region.growthBytes)) + " from " +
                  siteText(a.capture(), region.stacks.front()) +
                  " pile up and are freed only when Python's garbage collector happens to find the reference "
                  "cycle holding them (" +
                  std::to_string(releases) + " irregular releases): a leak through a cycle.";
    rep.evidence = blocksText(region.allocations.size()) + ", " + humanBytes(int64_t(region.growthBytes)) +
                   ", " + madeText(all, region, at) + "; released at " + secondsText(at(region.releasedAt)) +
                   " (" + region.releasedBy + ").";
    rep.nextStep =
        "Something keeps these tensors in a reference cycle, often a tensor stored on an autograd ctx "
        "(use ctx.save_for_backward), a closure or a back-reference: remove it so they die at once.";
}

// A clicked leak region, from what the region analysis already knows (the whole window diagnosis
// re-ranks every group and took 0.5 s on a 10M-event capture).
void explainLeak(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                 const GrowthRegion& region, LeakReport& rep) {
    const Capture& c = a.capture();
    auto at = [&](uint32_t e) { return a.secondsAt(device, e); };
    const std::string site =
        region.stacks.empty() ? std::string("several places") : siteText(c, region.stacks.front());
    const std::string rate = repeatText(region, rep.growth().iterations);
    const bool atEnd = region.releasedAt != kNoEvent;
    rep.kind = LeakKind::Leak;
    rep.growthBytes = region.growthBytes;
    if (region.collected) return explainCollectedLeak(a, device, all, region, rep);
    rep.summary =
        humanBytes(int64_t(region.growthBytes)) + " from " + site + " made over " +
        (region.iterations ? std::to_string(region.iterations) + " iterations" : std::string("the run")) +
        (atEnd ? " is kept until the program ends: " : " is still alive when the capture ends: ") +
        blocksText(region.allocations.size()) + ", " +
        (rate.empty() ? humanBytes(int64_t(region.perIterationBytes)) + " kept per iteration" : rate) + ".";
    rep.evidence = blocksText(region.allocations.size()) + ", " + humanBytes(int64_t(region.growthBytes)) +
                   ", " + madeText(all, region, at) +
                   (atEnd ? "; these blocks are freed only at " + secondsText(at(region.releasedAt)) + ", " +
                                region.releasedBy
                          : std::string("; none of these blocks is freed before the end")) +
                   ".";
    rep.nextStep =
        c.nativeStacks
            ? "Find the missing free: follow the stack to the code that keeps the pointers."
            : "Find what keeps these tensors alive (a list, dict or attribute that only grows, a hook "
              "that appends, an exception or traceback kept); keep .item() or .detach() of what you "
              "store, or bound the container.";
    if (!c.retention.empty()) rep.nextStep += " The Retention tab names what holds them.";
}

void explainTransient(const CaptureAnalysis& a, size_t device, const GrowthRegion& region, LeakReport& rep) {
    const Capture& c = a.capture();
    const ReplayResult& r = a.replay(device);
    auto at = [&](uint32_t e) { return a.secondsAt(device, e); };
    rep.kind = LeakKind::None;
    rep.growthBytes = 0;
    const std::string site =
        region.stacks.empty() ? std::string("several places") : siteText(c, region.stacks.front());
    rep.summary = "Allocated rises by " + humanBytes(int64_t(region.growthBytes)) +
                  " inside one iteration and falls back: " + std::to_string(region.allocations.size()) +
                  " blocks alive at its top, the most from " + site + ", freed within the iteration.";
    rep.evidence = "from " + humanBytes(r.allocated[region.first]) + " at " + secondsText(at(region.first)) +
                   " to " + humanBytes(r.allocated[region.last]) + " at " + secondsText(at(region.last)) +
                   ".";
    rep.nextStep =
        "Normal within a step: temporaries, and in training the activations kept for the backward pass; "
        "to lower this peak use a smaller batch, mixed precision or (training) activation checkpointing.";
    rep.steadyGroups = 0;
}

} // namespace

const GrowthRegion* worstRegion(const GrowthRegions& r, LeakKind kind) {
    for (const auto& g : r.regions)
        if (g.kind == kind && g.significant) return &g;
    return nullptr;
}

void explainRegion(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                   const GrowthRegion& region, LeakReport& rep) {
    // The region's stacks as the region holds them (its own blocks, the figures the diagnosis gives),
    // not every block of those stacks alive at its top; the window's other survivors after them.
    std::vector<SurvivorGroup> groups = regionGroups(all, region);
    std::unordered_set<uint32_t> own;
    for (const auto& g : groups) own.insert(g.stack.value);
    for (auto& g : rep.groups)
        if (!own.count(g.stack.value)) groups.push_back(std::move(g));
    rep.groups = std::move(groups);
    rankRegionGroups(all, region, rep.growth().iterations, rep);
    switch (region.kind) {
    case LeakKind::Accumulation:
    case LeakKind::Cycle:
        explainAccumulation(a, device, all, region, rep);
        break;
    case LeakKind::Transient:
        explainTransient(a, device, region, rep);
        break;
    case LeakKind::Leak:
        explainLeak(a, device, all, region, rep);
        break;
    case LeakKind::Cache:
        break; // the window's own diagnosis says it
    case LeakKind::None:
    case LeakKind::Fragmentation:
    case LeakKind::DeferredFree:
    case LeakKind::Oom:
        break; // not a region's kind
    }
}

void attachHolder(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                  LeakReport& rep) {
    const Capture& c = a.capture();
    if (c.retention.empty() || rep.kind == LeakKind::None) return;
    GrowthRegion held;
    if (rep.region) {
        held = *rep.region;
    } else { // the steady groups of the window
        held.first = rep.first, held.last = rep.last;
        for (size_t i = 0; i < rep.steadyGroups && i < rep.groups.size(); ++i)
            held.allocations.insert(held.allocations.end(), rep.groups[i].allocations.begin(),
                                    rep.groups[i].allocations.end());
    }
    const RegionHolders h = regionHolders(c, a.trace(device), all, held);
    if (h.holders.empty()) return;
    const RegionHolder& top = h.holders.front();
    rep.holder = top.path;
    // a path without a Python owner starts with its verdict ("held from C/C++: ...")
    rep.evidence += (top.path.starts_with("held ") ? " It is " : " Held by ") + top.path + " (" +
                    std::to_string(top.blocks) + " blocks, " + humanBytes(int64_t(top.bytes)) +
                    ", retention graph at " + secondsText(a.secondsOf(c.retention[h.graph].timeUs)) + ").";
    // the holder's hint says how to stop keeping what grows: advice for growth, and for an OOM only
    // when growth caused it (a fragmented reserve or a step too big is not fixed by .detach())
    const bool grewToIt =
        !rep.oom || rep.oom->cause == OomCause::Leak || rep.oom->cause == OomCause::Accumulation;
    if (!top.hint.empty() && grewToIt) rep.nextStep = top.hint + " " + rep.nextStep;
}

std::string flatEvidence(const CaptureAnalysis& a, size_t device, const LeakReport& rep) {
    const auto& allocated = a.replay(device).allocated;
    const auto [lo, hi] = allocated.range(rep.first, rep.last + 1);
    std::string s = "allocated between " + humanBytes(lo) + " and " + humanBytes(hi) + " in the window";
    if (rep.iterations >= 3)
        s += " over " + std::to_string(rep.iterations) + " '" + rep.iterationMarker + "' iterations";
    const GrowthRegion* biggest = nullptr;
    for (const auto& g : rep.growth().regions)
        if (g.kind != LeakKind::Cache && (!biggest || g.growthBytes > biggest->growthBytes)) biggest = &g;
    if (biggest)
        s += "; the largest region keeps " + humanBytes(int64_t(biggest->growthBytes)) + " (" +
             std::string(leakKindName(biggest->kind)) +
             (biggest->significant ? ", outside the window)" : ", under 1 % of the peak)");
    else
        s += "; no allocation outlives its iteration steadily";
    return s + ".";
}

std::vector<SurvivorGroup> regionGroups(const std::vector<Allocation>& all, const GrowthRegion& region) {
    std::unordered_map<uint32_t, size_t> index;
    std::vector<SurvivorGroup> out;
    for (uint32_t i : region.allocations) {
        const Allocation& x = all[i];
        auto [pos, fresh] = index.try_emplace(x.stack.value, out.size());
        if (fresh)
            out.push_back({.stack = x.stack, .firstEvent = x.alloc, .lastEvent = x.alloc, .allocations = {}});
        SurvivorGroup& g = out[pos->second];
        g.bytes += x.bytes, ++g.count;
        g.firstEvent = std::min(g.firstEvent, x.alloc), g.lastEvent = std::max(g.lastEvent, x.alloc);
        g.allocations.push_back(i);
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
    return out;
}

} // namespace vs
