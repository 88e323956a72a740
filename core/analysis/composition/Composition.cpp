#include "analysis/composition/Composition.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/categories/PhaseWindows.h"

#include <algorithm>

namespace vs {

std::shared_ptr<const Composition> Composition::compute(const CaptureAnalysis& a) {
    auto out = std::make_shared<Composition>();
    const Capture& c = a.capture();
    std::vector<const ReplayResult*> replays;
    for (size_t d = 0; d < a.deviceCount(); ++d) {
        out->categories_.devices.push_back(a.categories(d));
        replays.push_back(&a.replay(d));
        out->graphPools_.emplace_back(a.trace(d), a.replay(d), *a.categories(d), *a.graphPools(d));
    }
    out->categories_.tags = !c.tags.empty();
    out->categories_.phases = !PhaseWindows(c).empty();
    for (size_t d = 0; d < a.deviceCount() && !out->categories_.phases && !c.nativeStacks; ++d)
        out->categories_.phases = !PhaseWindows::fromStacks(c, a.trace(d)).empty(); // a snapshot's stacks
    out->outside_ = outsideTorch(c, replays);
    return out;
}

const DeviceOutside* Composition::outsideOf(int ordinal) const {
    for (const auto& o : outside_)
        if (o.device == ordinal) return &o;
    return nullptr;
}

CompositionAt Composition::at(const CaptureAnalysis& a, size_t device, int64_t timeUs,
                              bool withRequested) const {
    CompositionAt r;
    const DeviceTrace& t = a.trace(device);
    r.device = t.device;
    r.timeUs = timeUs;
    const auto after = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), timeUs);
    // A driver-level recording has no caching allocator: its allocations are all outside PyTorch.
    if (after != t.timeUs.begin() && !a.capture().nativeStacks) {
        const auto e = static_cast<uint32_t>(after - t.timeUs.begin() - 1);
        const auto& cats = *categories_.devices[device];
        r.categories = cats.at(e);
        if (withRequested) r.requested = cats.requestedAt(e, t);
        r.allocated = a.replay(device).allocated[e];
        r.reserved = a.replay(device).reserved[e];
        if (!graphPools_[device].empty()) r.graphPools = graphPools_[device].after(e);
    }
    if (const DeviceOutside* o = outsideOf(t.device)) {
        r.hasCudaLevel = a.capture().cudaLevel != nullptr || a.capture().nativeStacks;
        r.torchMatched = o->torchMatched.at(timeUs);
        for (const auto& s : o->owners)
            if (const int64_t b = s.at(timeUs)) r.outside.emplace_back(s.name, b);
        std::stable_sort(r.outside.begin(), r.outside.end(),
                         [](auto& x, auto& y) { return x.second > y.second; });
        auto g = std::upper_bound(o->gap.begin(), o->gap.end(), timeUs,
                                  [](int64_t at, const GapSample& s) { return at < s.timeUs; });
        if (g != o->gap.begin()) r.driver = *std::prev(g);
    }
    return r;
}

} // namespace vs
