// Growth-region benchmark: on a loaded capture, the time to pair allocations, find the regions and
// findings (the one growth analysis) and the full diagnosis (what opening a capture adds on top of
// the load), and the time to explain one
// region as a click on its ramp does (diagnosis + survivors of that region). Prints seconds; not a
// test, it asserts nothing about time.
//   bench_regions FILE [REPEATS]
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "load/OpenAnalysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {
double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_regions FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    const double t0 = now();
    const auto a = vs::openAnalysis(argv[1]);
    std::printf("load %.3f s\n", now() - t0);
    size_t device = 0;
    for (size_t d = 1; d < a->deviceCount(); ++d)
        if (a->trace(d).eventCount() > a->trace(device).eventCount()) device = d;
    std::printf("device %d: %zu events\n", a->trace(device).device, a->trace(device).eventCount());
    // the allocations paired and classified: once per device, shared by every later diagnosis
    const double k0 = now();
    const auto categories = a->categories(device);
    std::printf("pair and classify %.1f ms (once per device)\n", (now() - k0) * 1e3);
    const auto& all = categories->allocations;
    for (int r = 0; r < repeats; ++r) {
        const double p1 = now();
        const auto shared = std::make_shared<const vs::GrowthRegions>(vs::findGrowthRegions(*a, device, all));
        const vs::GrowthRegions& regions = *shared;
        const double p2 = now();
        const auto rep = vs::diagnoseLeaks(*a, device);
        const double p3 = now();
        // the whole analysis as a session runs it once per device: the regions and findings, then the
        // diagnosis of the detected window from them (diagnoseLeaks without inputs finds them again)
        const double p4 = now();
        const auto fromShared = vs::diagnoseLeaks(*a, device, {}, vs::LeakInputs{categories, shared});
        const double p5 = now();
        std::printf(
            "  regions and findings %.1f ms (%zu regions, %zu findings, %zu iterations), whole analysis "
            "%.1f ms (%s), diagnosis from them %.1f ms\n",
            (p2 - p1) * 1e3, regions.regions.size(), regions.findings.size(), regions.iterations.count(),
            (p3 - p2) * 1e3, vs::leakKindName(rep.kind).data(), (p5 - p4) * 1e3);
        (void)fromShared;
        // a full-width Shift+drag: the survivors of the whole capture and their diagnosis
        {
            const vs::LeakInputs in{categories, shared};
            vs::LeakQuery q;
            q.autoWindow = false, q.first = 0, q.last = uint32_t(a->trace(device).eventCount() - 1);
            const double s0 = now();
            const auto range = vs::diagnoseLeaks(*a, device, q, in);
            std::printf("  full-width range: %.1f ms (%zu groups)\n", (now() - s0) * 1e3,
                        range.groups.size());
        }
        // a click on a ramp: the costliest region, else one iteration's rise in the middle
        std::optional<vs::GrowthRegion> clicked;
        if (!regions.regions.empty())
            clicked = regions.regions.front();
        else
            clicked = vs::iterationRamp(*a, device, all, regions.iterations,
                                        uint32_t(a->trace(device).eventCount() / 2));
        if (!clicked) continue;
        vs::LeakQuery q;
        q.region = clicked;
        const vs::LeakInputs in{categories, shared}; // what a session keeps per device
        const double c0 = now();
        const auto explained = vs::diagnoseLeaks(*a, device, q, in);
        std::printf("  click on a %s region: %.1f ms (%zu groups)\n", vs::leakKindName(clicked->kind).data(),
                    (now() - c0) * 1e3, explained.groups.size());
    }
    return 0;
}
