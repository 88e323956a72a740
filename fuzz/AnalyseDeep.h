#pragma once
// Fuzzing past the readers (issue 31): every analysis the CLI and the GUI run on a loaded capture, on
// each device - the replay's state mid-way, growth regions and the leak diagnosis, fragmentation and
// the memory map, the allocation bands, the what-if simulator under every setting of the sweep (the
// capacity from the recipe: unknown, a device's, or past any device), and compare of the trace's two
// halves. Any of them may refuse an input it states it does not handle (SimRangeError, LoadError);
// none may crash, hang or trip a sanitizer.
#include "FuzzBytes.h"
#include "analysis/AllocationBands.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/Fragmentation.h"
#include "analysis/LeakDiagnosis.h"
#include "compare/CaptureDiff.h"
#include "compare/DiffTree.h"
#include "io/LoadError.h"
#include "sim/SimRange.h"
#include "sim/WhatIf.h"

namespace vs::fuzz {

inline void whatIf(const CaptureAnalysis& a, size_t d, uint64_t capacity) {
    const SimInput in = SimInput::fromTrace(a.trace(d), a.capture().streams, a.replay(d), a.capture().settings);
    const SimConfig recorded = SimConfig::fromSettings(a.capture().settings);
    try {
        for (const SimConfig& c : sweepGrid(recorded, capacity != 0)) (void)simulate(in, c, {capacity, false, nullptr});
    } catch (const SimRangeError&) {
    }
}

inline void compareHalves(const CaptureAnalysis& a, size_t d) {
    const auto n = uint32_t(a.trace(d).eventCount());
    try {
        const CaptureDiff diff = compareCaptures({&a, d, 0, n / 2}, {&a, d, n / 2 + 1, UINT32_MAX});
        (void)DiffTree::build(diff.stacks, true);
    } catch (const LoadError&) { // the stack keys' budget
    }
}

inline void analyseDeep(const CaptureAnalysis& a, FuzzBytes& in) {
    static constexpr uint64_t kCapacities[] = {0, 80ull << 30, 1ull << 50, (1ull << 50) + 1};
    const uint64_t capacity = kCapacities[in.below(4)];
    for (size_t d = 0; d < a.deviceCount(); ++d) {
        const DeviceTrace& t = a.trace(d);
        if (t.eventCount() == 0) continue;
        (void)a.summary(d);
        (void)a.stateAt(d, t.timeUs[t.eventCount() / 2]);
        (void)diagnoseLeaks(a, d);
        (void)fragmentationSeries(t, a.capture().streams, a.replay(d), a.rules(), 64);
        (void)occupancyGrid(t, a.capture().streams, a.replay(d), a.rules(), 16, 16);
        (void)AllocationBands::build(t, a.replay(d));
        whatIf(a, d, capacity);
        compareHalves(a, d);
    }
}

} // namespace vs::fuzz
