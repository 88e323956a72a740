#include "analysis/growth/OomCause.h"

#include "analysis/categories/PhaseWindows.h"
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

// Inside an evaluation (forward passes no backward pass follows) at the failure?
bool inEvaluation(const CaptureAnalysis& a, size_t device, uint32_t from, uint32_t oom) {
    const Capture& c = a.capture();
    PhaseWindows w(c);
    if (w.empty() && !c.nativeStacks) w = PhaseWindows::fromStacks(c, a.trace(device));
    const int64_t fromUs = a.trace(device).timeUs[from], oomUs = a.trace(device).timeUs[oom];
    for (const auto& e : w.evaluations())
        if (e.fromUs <= fromUs && (e.toUs >= oomUs)) return true;
    return false;
}

// Whether the free bytes would hold the request, in unsigned arithmetic that cannot wrap: a hostile
// entry asks for more than 2^63 bytes with 2^63 - 1 free on the device.
bool fragmented(const OomFacts& f) {
    const uint64_t inside = uint64_t(std::max<int64_t>(f.reservedFree(), 0)), device = f.usableDeviceFree();
    const bool holds = device > UINT64_MAX - inside || inside + device >= f.request;
    return holds && f.largestFree < f.request;
}

void decideGrowth(const CaptureAnalysis& a, size_t device, OomFacts& f) {
    const bool phase =
        f.growth->kind == LeakKind::Accumulation || inEvaluation(a, device, f.growth->first, f.event);
    f.cause = phase ? OomCause::Accumulation : OomCause::Leak;
    f.decidedBy = humanBytes(int64_t(f.growth->growthBytes)) + " was kept steadily " +
                  (phase ? "within one phase" : "across the run") + " up to the failure";
}

// In the order that follows from the allocator: memory held outside PyTorch that outweighs PyTorch's
// own; then steady growth larger than the free space inside the reserve (removing the fragmentation
// would only put the failure off by a step); then fragmentation; then smaller growth; else the step.
void decide(const CaptureAnalysis& a, size_t device, const GrowthRegions& g, OomFacts& f) {
    const int64_t outside = f.outside();
    if (f.capacity && outside >= int64_t(f.capacity / 4) && outside >= f.reserved) {
        f.cause = OomCause::OutsidePytorch;
        f.decidedBy = humanBytes(outside) + " of the device's " + humanBytes(int64_t(f.capacity)) +
                      " is held outside PyTorch's allocator (PyTorch reserves " + humanBytes(f.reserved) +
                      ")";
        return;
    }
    if (f.growth && int64_t(f.growth->growthBytes) > f.reservedFree()) return decideGrowth(a, device, f);
    if (fragmented(f)) {
        f.cause = OomCause::Fragmentation;
        f.decidedBy = humanBytes(f.reservedFree()) + " free inside PyTorch's reserve" +
                      (f.usableDeviceFree()
                           ? " and " + humanBytes(int64_t(f.usableDeviceFree())) + " free on the device"
                           : std::string()) +
                      " would hold the " + humanBytes(int64_t(f.request)) +
                      " request, but the largest free block is " + humanBytes(int64_t(f.largestFree));
        return;
    }
    if (f.growth) return decideGrowth(a, device, f);
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
    decide(a, device, growth, f);
    return f;
}

} // namespace vs
