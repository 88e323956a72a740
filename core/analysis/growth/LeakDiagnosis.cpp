#include "analysis/growth/LeakDiagnosis.h"

#include "analysis/stacks/CallLine.h"

#include "analysis/growth/FindingText.h"
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
#include <unordered_set>

namespace vs {

namespace {

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
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

// " 96.00 MiB of the 120.00 MiB reserved at the end is in 2 CUDA graph pools ...": when private pools
// hold a good part of what is reserved (reduce-overhead, torch.cuda.graph), which users cannot
// otherwise explain.
std::string graphPoolText(const GraphPools& pools, const DeviceSummary& sum) {
    if (pools.empty() || 4 * pools.reservedAtEnd() < uint64_t(std::max<int64_t>(1, sum.final.reserved)))
        return {};
    std::string out = " "; // appended, not one chain: GCC 12 warns falsely (-Wrestrict) on the chain
    out += humanBytes(int64_t(pools.reservedAtEnd()));
    return out + " of the " + humanBytes(sum.final.reserved) + " reserved at the end is in " +
           std::to_string(pools.poolCount()) + " CUDA graph private pool(s) (" +
           humanBytes(int64_t(pools.allocatedAtEnd())) +
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

namespace {

// The window: asked for, a clicked region's, from the start to the OOM, or to the highest point of
// allocated (the end of a leak's growth, the last peak of a sawtooth, or late in a steady loop).
void chooseWindow(const CaptureAnalysis& a, size_t device, const LeakQuery& q, LeakReport& rep) {
    const DeviceTrace& t = a.trace(device);
    const ReplayResult& r = a.replay(device);
    const auto n = static_cast<uint32_t>(t.eventCount());
    const uint32_t oom = firstOom(t);
    rep.autoWindow = q.autoWindow && !q.region;
    if (q.region) {
        rep.first = std::min(q.region->first, n - 1), rep.last = std::min(q.region->last, n - 1);
    } else if (!q.autoWindow) {
        rep.first = std::min(q.first, n - 1), rep.last = std::min(std::max(q.last, rep.first), n - 1);
    } else if (oom != kNoEvent) {
        rep.first = 0, rep.last = oom;
    } else { // the last time allocated came within 2 % of its maximum
        rep.first = 0;
        const int64_t top = r.allocated.max();
        rep.last = n - 1;
        while (rep.last > 0 && r.allocated[rep.last] < top - top / 50) --rep.last;
    }
    rep.aliveAtEnd = q.aliveAtEnd;
}

// The window's survivors grouped by stack, ranked: the groups made steadily across the window's
// iterations and still growing first (they are shown as steady; the kind is the findings').
void gatherGroups(const CaptureAnalysis& a, size_t device, const LeakInputs& in, LeakReport& rep) {
    const DeviceTrace& t = a.trace(device);
    const Capture& c = a.capture();
    const auto& all = in.lifetimes();
    const auto n = static_cast<uint32_t>(t.eventCount());
    const uint32_t until = rep.aliveAtEnd ? n - 1 : rep.last;
    rep.groups = groupSurvivors(all, in.categories->byLifetime.aliveAt(all, rep.first, rep.last, until),
                                {rep.first, rep.last, rep.aliveAtEnd});
    rep.regions = in.regions;
    rep.categories = in.categories;
    const auto iterations = startsWithin(rep.growth().iterations, rep.first, rep.last);
    rep.iterationMarker = rep.growth().iterations.marker;
    rep.iterations = iterations.size();
    if (iterations.size() >= 3) // steadiness counted in iterations rather than in equal slices of the window
        for (auto& g : rep.groups) countIterations(all, g, iterations);
    std::vector<StackId> candidates; // the largest steady groups; the rest stay as they are
    for (size_t i = 0; i < rep.groups.size() && i < 32; ++i)
        if (isSteady(rep.groups[i])) candidates.push_back(rep.groups[i].stack);
    const auto steps = liveStepsOf(all, in.categories->byStack, candidates);
    for (size_t i = 0; i < rep.groups.size() && i < 32; ++i)
        if (isSteady(rep.groups[i]))
            rep.groups[i].growing =
                keepsGrowing(steps.at(rep.groups[i].stack.value), rep.first, rep.last, n - 1);
    for (auto& g : rep.groups) // a framework's cache, a library's workspace, a CUDA graph's pool: by design
        if ((c.nativeStacks && nativeOwner(c, g.stack) != NativeOwner::User) ||
            (!rep.growth().pools->empty() && inGraphPool(t, all, *rep.growth().pools, g)))
            g.growing = false;
    rankBySteadiness(rep.groups);
    rep.steadyGroups = static_cast<size_t>(std::count_if(rep.groups.begin(), rep.groups.end(), isSteady));
}

// A window asked for (a Shift+drag, --from/--to) keeps its own survivors; its kind is the finding
// it overlaps, and its growth what of that finding's stacks survives it.
void explainRange(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                  const GrowthRegion& finding, LeakReport& rep) {
    LeakReport asFinding; // the finding's own explanation, for its next step: not the range's groups
    asFinding.regions = rep.regions, asFinding.categories = rep.categories;
    explainRegion(a, device, all, finding, asFinding);
    std::unordered_set<uint32_t> own;
    for (StackId s : finding.stacks) own.insert(s.value);
    uint64_t bytes = 0, count = 0;
    for (const SurvivorGroup& g : rep.groups)
        if (own.count(g.stack.value)) bytes += g.bytes, count += g.count;
    GrowthFinding f;
    GrowthRegions one; // findingText reads a finding through its regions
    one.regions = {finding};
    rep.kind = finding.kind;
    rep.growthBytes = bytes;
    rep.summary =
        std::to_string(count) + " blocks (" + humanBytes(int64_t(bytes)) +
        ") made in the range by the finding's code are still alive at its end: the range overlaps " +
        findingText(a.capture(), one, f) + ".";
    rep.evidence = flatEvidence(a, device, rep);
    rep.nextStep = asFinding.nextStep;
}

// The finding to explain: the first (the analysis ranks them), or for a window asked for, the first
// whose region overlaps it.
const GrowthRegion* findingFor(const LeakReport& rep) {
    for (const GrowthFinding& f : rep.growth().findings) {
        const GrowthRegion& g = rep.growth().regionOf(f);
        if (rep.autoWindow || (g.first <= rep.last && rep.first <= g.last)) return &g;
    }
    return nullptr;
}

// The user's line of what grew: the call of the outermost module when made inside one (every layer
// of `emb = model(x)` is that line, as the holders name it), else the allocation site.
std::string grownLine(const Capture& c, StackId s) {
    const uint32_t f = callLineFrame(c, s);
    return f == kNoFrame ? siteText(c, s) : frameText(c, c.stacks.frames(s)[f]);
}

std::string oomSummary(const Capture& c, const OomFacts& f, const std::string& at) {
    const std::string head =
        "Out of memory at " + at + ": a request of " + humanBytes(int64_t(f.request)) + " failed";
    switch (f.cause) {
    case OomCause::Fragmentation:
        return head + " although " + humanBytes(f.reservedFree()) +
               " was free inside PyTorch's reserve: the free space is fragmented (the largest free block "
               "is " +
               humanBytes(int64_t(f.largestFree)) + ").";
    case OomCause::OutsidePytorch:
        return head + " while " + humanBytes(f.outside()) +
               " of the device was held outside PyTorch (another process, a CUDA library or a raw "
               "cudaMalloc).";
    case OomCause::Leak:
    case OomCause::Accumulation:
        return head + " after " + humanBytes(int64_t(f.grownBytes)) +
               (f.cause == OomCause::Leak ? " was kept steadily at " : " accumulated within one phase at ") +
               grownLine(c, f.grownAt) +
               (f.cause == OomCause::Leak ? " (a leak)." : " (a phase collecting its outputs).");
    case OomCause::WorkingSet:
        break;
    }
    return head + ": what one step needs does not fit on the device" +
           (f.holders.empty() ? std::string(".")
                              : "; the largest holder is " + lineText(c, f.holders.front()) + " with " +
                                    humanBytes(f.holders.front().bytes) + ".");
}

// What the device holds at least: PyTorch's reserve and the free bytes, summed without wrapping (a
// hostile entry claims 2^63 - 1 free); past what int64 holds it is still a true lower bound.
static int64_t leastCapacity(const OomFacts& f) {
    const uint64_t reserved = uint64_t(std::max<int64_t>(f.reserved, 0));
    return f.deviceFree > uint64_t(INT64_MAX) - reserved ? INT64_MAX : int64_t(reserved + f.deviceFree);
}

std::string oomEvidence(const OomFacts& f) {
    std::string s = std::to_string(f.request) + " bytes requested; " + humanBytes(f.allocated) +
                    " allocated, " + humanBytes(f.reservedFree()) + " free inside the reserve of " +
                    humanBytes(f.reserved) + " (largest free block " + humanBytes(int64_t(f.largestFree)) +
                    "); " + humanBytes(int64_t(f.deviceFree)) + " free on the device";
    if (f.capped())
        s += ", more than the request: the allocator's own limit refused it "
             "(torch.cuda.set_per_process_memory_fraction)";
    else if (f.capacity)
        s += "; capacity " + humanBytes(int64_t(f.capacity)) + ", " + humanBytes(f.outside()) +
             " of it outside PyTorch";
    else
        s += "; capacity not in the file (at least " + humanBytes(leastCapacity(f)) +
             "; anything above that was held outside PyTorch)";
    return s + ". Cause, " + std::string(oomCauseWords(f.cause)) + ": " + f.decidedBy + ".";
}

std::string oomNextStep(const Capture& c, const OomFacts& f) {
    switch (f.cause) {
    case OomCause::Fragmentation:
        return "Let the allocator reuse the free space: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
               "maps segments that grow in place; or allocate the largest buffers first and reuse them.";
    case OomCause::OutsidePytorch:
        return "Find what else holds the GPU: other processes (nvidia-smi), or in this process a library's "
               "workspace or a raw cudaMalloc (record with --native to see them with their stacks).";
    case OomCause::Leak:
        return "Find what keeps the tensors allocated at " + grownLine(c, f.grownAt) +
               " alive (a list or dict that only grows).";
    case OomCause::Accumulation:
        return "The phase keeps what it makes at " + grownLine(c, f.grownAt) +
               " on the GPU until it ends: move each batch's results to the CPU (.cpu(), .item()) or reduce "
               "them "
               "as you go.";
    case OomCause::WorkingSet:
        break;
    }
    std::string s =
        "One step needs more than the device has" +
        (f.stepBytes > 0 ? " (it had made " + humanBytes(f.stepBytes) + " of what was alive when it failed)"
                         : std::string()) +
        ": lower the batch size, recompute activations (torch.utils.checkpoint) or compute in lower "
        "precision (torch.autocast).";
    if (f.batchAtMost)
        s += " At the batch of " + std::to_string(f.batch) + " it marked, the step needed at least " +
             humanBytes(int64_t(f.perSampleAtLeast)) + " per sample: a batch of at most " +
             std::to_string(f.batchAtMost) + " fits in what it could use.";
    // a PyTorch snapshot does not name the device's capacity: memory held outside PyTorch cannot be
    // ruled out, and would call for other advice
    if (!f.capacity && !f.capped())
        s += " The file does not record the device's capacity: if the device has more than " +
             humanBytes(leastCapacity(f)) + ", the rest was held outside PyTorch (see nvidia-smi).";
    return s;
}

void explainOom(const CaptureAnalysis& a, size_t device, uint32_t oom, LeakReport& rep) {
    const OomFacts& f = rep.oom.emplace(oomFacts(a, device, oom, rep.growth()));
    rep.kind = LeakKind::Oom;
    rep.summary = oomSummary(a.capture(), f, seconds(a.secondsAt(device, oom)));
    rep.evidence = oomEvidence(f);
    rep.growthBytes = f.grownBytes; // what the CI gate counts of an OOM: the growth that led to it
    rep.nextStep = oomNextStep(a.capture(), f);
}

// Reserved memory far above allocated: the cache, or fragmentation when most of the free space
// is split inside segments that still hold tensors; memory held by another stream. False when
// neither holds.
bool explainReserved(const CaptureAnalysis& a, size_t device, LeakReport& rep) {
    const DeviceTrace& t = a.trace(device);
    const ReplayResult& r = a.replay(device);
    const DeviceSummary sum = a.summary(device);
    if (sum.peak.reserved > sum.peak.allocated * 3 / 2 &&
        sum.peak.reserved - sum.peak.allocated >= (64 << 20)) {
        const auto at = static_cast<uint32_t>(r.reserved.argMax(0, r.reserved.size()));
        const auto [split, whole] =
            splitAndWholeFree(Replay::stateAfter(t, a.capture().streams, r, a.rules(), at + 1));
        rep.kind = split > whole ? LeakKind::Fragmentation : LeakKind::Cache;
        rep.summary =
            "Reserved memory peaks at " + humanBytes(sum.peak.reserved) + " while allocated never exceeds " +
            humanBytes(sum.peak.allocated) + ": the caching allocator keeps " +
            humanBytes(sum.peak.reserved - sum.peak.allocated) + " of free blocks" +
            (split > whole ? ", mostly split free space inside segments that still hold tensors." : ".");
        rep.evidence = "at " + seconds(a.secondsAt(device, at)) + ": " + humanBytes(int64_t(split)) +
                       " free inside segments with live blocks, " + humanBytes(int64_t(whole)) +
                       " in wholly free segments.";
        rep.nextStep =
            split > whole
                ? "Mixed tensor sizes fragment the cache: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                  "lets segments grow and shrink, or allocate large buffers first and reuse them."
                : "The cache is not a leak: torch.cuda.empty_cache() returns whole free segments to "
                  "the driver; expandable_segments:True reduces what stays reserved.";
        return true;
    }
    if (sum.peak.active - sum.peak.allocated < (8 << 20)) return false;
    rep.kind = LeakKind::DeferredFree;
    rep.summary = "Up to " + humanBytes(sum.peak.active - sum.peak.allocated) +
                  " is freed by the program but still in use by another stream (record_stream), so it is not "
                  "reusable yet; nothing grows.";
    rep.evidence = flatEvidence(a, device, rep);
    rep.nextStep = "Expected with side streams; if it matters, synchronise the side stream earlier or avoid "
                   "record_stream on large tensors.";
    return true;
}

void explainNothing(const CaptureAnalysis& a, size_t device, LeakReport& rep) {
    const Capture& c = a.capture();
    rep.kind = LeakKind::None;
    rep.summary = "No steady growth: memory allocated in the window is released again.";
    rep.evidence = flatEvidence(a, device, rep);
    rep.nextStep = "Nothing to fix here; select a range on the timeline to inspect what survives it.";
    const std::string held = c.nativeStacks ? libraryHoldings(c, rep.groups) : std::string();
    if (held.empty()) return;
    rep.summary += " What stays allocated belongs to " + held + ": caches and workspaces, not a leak.";
    rep.nextStep = "PyTorch's own recorder (python -m vramscope record) shows the tensors inside "
                   "its allocator's segments, with Python stacks.";
}

// Bytes per second from the first kept block to the window's end (a window that starts at the
// program's start holds its setup too, which grows nothing).
double growthRate(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                  const LeakReport& rep) {
    uint32_t from = rep.first;
    if (rep.region && !rep.region->allocations.empty()) from = all[rep.region->allocations.front()].alloc;
    return double(rep.growthBytes) /
           std::max(1e-6, a.secondsAt(device, rep.last) - a.secondsAt(device, from));
}

} // namespace

LeakReport diagnoseLeaks(const CaptureAnalysis& a, size_t device, const LeakQuery& q, const LeakInputs& in) {
    const DeviceTrace& t = a.trace(device);
    LeakReport rep;
    if (t.eventCount() == 0) {
        rep.summary = "No allocator history was recorded, so nothing can grow.";
        rep.nextStep = "Record with torch.cuda.memory._record_memory_history(enabled='all') before the run.";
        return rep;
    }
    const auto& all = in.lifetimes();
    chooseWindow(a, device, q, rep);
    gatherGroups(a, device, in, rep);
    const uint32_t oom = firstOom(t);
    // What kind it is comes from the growth analysis: a clicked region explains itself; otherwise
    // the out-of-memory error, the first finding, or what the caching allocator keeps.
    const GrowthRegion* finding = oom == kNoEvent && !q.region ? findingFor(rep) : nullptr;
    if (q.region && q.region->kind != LeakKind::Cache)
        rep.region = q.region;
    else if (finding && rep.autoWindow)
        rep.region = *finding;
    if (rep.region) {
        explainRegion(a, device, all, *rep.region, rep);
    } else if (finding) {
        explainRange(a, device, all, *finding, rep);
    } else if (oom != kNoEvent) {
        explainOom(a, device, oom, rep);
    } else if (!explainReserved(a, device, rep)) {
        explainNothing(a, device, rep);
    }
    if (quiet(rep.kind)) rep.evidence += graphPoolText(*rep.growth().pools, a.summary(device));
    rep.growthBytesPerSecond = growthRate(a, device, all, rep);
    attachHolder(a, device, all, rep);
    return rep;
}

} // namespace vs
