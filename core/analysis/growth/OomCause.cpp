#include "analysis/growth/OomCause.h"

#include "analysis/growth/OomPhase.h"
#include "util/Format.h"

#include <algorithm>

namespace vs {

std::string_view oomCauseName(OomCause c) {
    switch (c) {
    case OomCause::Leak:
        return "leak";
    case OomCause::Accumulation:
        return "accumulation";
    case OomCause::Fragmentation:
        return "fragmentation";
    case OomCause::WorkingSet:
        return "working_set";
    case OomCause::OutsidePytorch:
        return "outside_pytorch";
    }
    return "working_set";
}

std::string_view oomCauseWords(OomCause c) {
    switch (c) {
    case OomCause::WorkingSet:
        return "working set";
    case OomCause::OutsidePytorch:
        return "memory outside PyTorch";
    default:
        return oomCauseName(c);
    }
}

namespace {

constexpr uint64_t kSmallRequest = 1 << 20; // PyTorch's small pool serves requests up to 1 MiB

// The largest free block of the request's stream and pool after the events before the failure.
uint64_t largestFreeBlock(const CaptureAnalysis& a, size_t device, uint32_t oom) {
    const DeviceTrace& t = a.trace(device);
    const auto segs = Replay::stateAfter(t, a.capture().streams, a.replay(device), a.rules(), oom);
    const auto& streams = a.capture().streams;
    const uint64_t stream = t.stream[oom].value < streams.size() ? streams[t.stream[oom].value] : 0;
    const bool small = t.size[oom] <= kSmallRequest;
    uint64_t largest = 0;
    for (const auto& s : segs) {
        if (s.smallPool != small || s.stream != stream) continue;
        for (const auto& b : s.blocks)
            if (b.state == BlockState::Inactive) largest = std::max(largest, b.size);
    }
    return largest;
}

uint64_t deviceCapacity(const Capture& c, int ordinal) {
    for (const auto& d : c.deviceInfo)
        if (d.device == ordinal) return d.totalMemory;
    return 0;
}

// The growth finding whose kept blocks are still alive at the failure: what grew up to it.
const GrowthRegion* grownToFailure(const GrowthRegions& g, const std::vector<Allocation>& all, uint32_t oom) {
    for (const auto& f : g.findings) {
        const GrowthRegion& r = g.regionOf(f);
        if (r.kind != LeakKind::Leak && r.kind != LeakKind::Accumulation) continue;
        if (r.first >= oom || r.allocations.empty()) continue;
        if (all[r.allocations.back()].aliveAt(oom)) return &r;
    }
    return nullptr;
}

// Bytes alive at the failure that the current training step made (since its start).
int64_t madeThisStep(const DeviceCategories& cats, const Iterations& its, uint32_t oom) {
    const auto at = std::upper_bound(its.starts.begin(), its.starts.end(), oom);
    const uint32_t from = at == its.starts.begin() ? 0 : *std::prev(at);
    int64_t bytes = 0;
    for (uint32_t i : cats.byLifetime.aliveAt(cats.allocations, from, oom, oom))
        bytes += int64_t(cats.allocations[i].bytes);
    return bytes;
}

// Whether the free bytes would hold the request, in unsigned arithmetic that cannot wrap: a hostile
// entry asks for more than 2^63 bytes with 2^63 - 1 free on the device.
// The free bytes inside the reserve and usable on the device, summed without wrapping.
uint64_t freeBytes(const OomFacts& f) {
    const uint64_t inside = uint64_t(std::max<int64_t>(f.reservedFree(), 0)), device = f.usableDeviceFree();
    return device > UINT64_MAX - inside ? UINT64_MAX : inside + device;
}

// Whether the free bytes would hold `bytes` more than the request, in unsigned arithmetic that
// cannot wrap: a hostile entry asks for more than 2^63 bytes with 2^63 - 1 free on the device.
bool freeHolds(const OomFacts& f, uint64_t bytes) {
    return f.request <= UINT64_MAX - bytes && freeBytes(f) >= f.request + bytes;
}

bool fragmented(const OomFacts& f) {
    return freeHolds(f, 0) && f.largestFree < f.request;
}

// The growth, not the layout, ran the device out: the free memory in one piece would not have held
// the request and one more step of the growth (removing the fragmentation would only put the
// failure off by less than a step). Steady growth with room for many more steps in scattered holes
// is stopped by the fragmentation.
bool growthExhausted(const OomFacts& f) {
    return !freeHolds(f, std::max<uint64_t>(f.grownPerStep, 1));
}

void decideGrowth(const CaptureAnalysis& a, size_t device, OomFacts& f) {
    const bool phase = !f.growth || growthWithinPhase(a, device, *f.growth, f.event);
    f.cause = phase ? OomCause::Accumulation : OomCause::Leak;
    f.decidedBy = humanBytes(int64_t(f.grownBytes)) + " was kept steadily " +
                  (phase ? "within one phase" : "across the run") + " up to the failure";
    if (!f.growth)
        f.decidedBy += " (made by the evaluation's forward passes, none released before it failed)";
}

// What grew up to the failure: the growth finding kept to it, else what the evaluation around the
// failure kept across its forward passes.
void grown(const CaptureAnalysis& a, size_t device, OomFacts& f) {
    if (f.growth) {
        f.grownBytes = f.growth->growthBytes, f.grownAt = f.growth->stacks.front();
        f.grownPerStep = f.growth->perIterationBytes ? f.growth->perIterationBytes : f.growth->growthBytes;
        return;
    }
    const PassesKept k = keptAcrossPasses(a, device, f.event);
    if (!k.passes) return;
    f.grownBytes = k.bytes, f.grownAt = k.stack, f.grownPerStep = k.bytes / k.blocks;
}

// The batch size marked last before the failure: a mark named batch, batch_size or bs with a value.
int64_t markedBatch(const Capture& c, int device, int64_t beforeUs) {
    int64_t batch = 0, at = INT64_MIN;
    for (const auto& m : c.annotations) {
        if (m.device != device || m.value <= 0 || m.timeUs > beforeUs || m.timeUs < at) continue;
        const auto name = c.strings.text(m.name);
        if (name == "batch" || name == "batch_size" || name == "bs") batch = m.value, at = m.timeUs;
    }
    return batch;
}

// What the failing step needed per sample at least, and the batch its memory would hold.
void perSample(OomFacts& f) {
    const uint64_t made = uint64_t(std::max<int64_t>(f.stepBytes, 0));
    if (f.batch <= 0 || made > UINT64_MAX - f.request) return;
    f.perSampleAtLeast = (made + f.request) / uint64_t(f.batch);
    const uint64_t usable = made > UINT64_MAX - freeBytes(f) ? UINT64_MAX : made + freeBytes(f);
    if (f.perSampleAtLeast) f.batchAtMost = usable / f.perSampleAtLeast;
}

// In the order that follows from the allocator: memory held outside PyTorch that outweighs PyTorch's
// own; then growth that exhausted the free memory (growthExhausted); then fragmentation; then growth
// with room left in scattered holes; else the step.
void decide(const CaptureAnalysis& a, size_t device, const GrowthRegions& g, OomFacts& f) {
    const int64_t outside = f.outside();
    if (f.capacity && outside >= int64_t(f.capacity / 4) && outside >= f.reserved) {
        f.cause = OomCause::OutsidePytorch;
        f.decidedBy = humanBytes(outside) + " of the device's " + humanBytes(int64_t(f.capacity)) +
                      " is held outside PyTorch's allocator (PyTorch reserves " + humanBytes(f.reserved) +
                      ")";
        return;
    }
    const bool grew = f.grownBytes > 0;
    if (grew && growthExhausted(f)) return decideGrowth(a, device, f);
    if (fragmented(f)) {
        f.cause = OomCause::Fragmentation;
        f.decidedBy = humanBytes(f.reservedFree()) + " free inside PyTorch's reserve" +
                      (f.usableDeviceFree()
                           ? " and " + humanBytes(int64_t(f.usableDeviceFree())) + " free on the device"
                           : std::string()) +
                      " would hold the " + humanBytes(int64_t(f.request)) +
                      " request, but the largest free block is " + humanBytes(int64_t(f.largestFree));
        if (grew)
            f.decidedBy += "; in one block it would also have held the next " +
                           humanBytes(int64_t(f.grownPerStep)) + " step of the growth (" +
                           humanBytes(int64_t(f.grownBytes)) + " so far)";
        return;
    }
    if (grew) return decideGrowth(a, device, f);
    f.cause = OomCause::WorkingSet;
    f.decidedBy =
        "nothing grew before the failure" +
        (g.iterations.count() ? ", the step had made " + humanBytes(f.stepBytes) + " of what was alive"
                              : std::string()) +
        " and the free memory was less than the request";
}

} // namespace

OomFacts oomFacts(const CaptureAnalysis& a, size_t device, uint32_t oom, const GrowthRegions& growth) {
    const DeviceTrace& t = a.trace(device);
    const ReplayResult& r = a.replay(device);
    OomFacts f;
    f.event = oom;
    f.request = t.size[oom];
    f.deviceFree = t.addr[oom];
    f.allocated = r.allocated[oom];
    f.reserved = r.reserved[oom];
    f.largestFree = largestFreeBlock(a, device, oom);
    f.capacity = deviceCapacity(a.capture(), t.device);
    const auto cats = a.categories(device);
    f.holders = lineHolders(a.capture(), *cats, oom);
    f.growth = grownToFailure(growth, cats->allocations, oom);
    f.stepBytes = madeThisStep(*cats, growth.iterations, oom);
    grown(a, device, f);
    f.batch = markedBatch(a.capture(), t.device, t.timeUs[oom]);
    perSample(f);
    decide(a, device, growth, f);
    return f;
}

} // namespace vs
