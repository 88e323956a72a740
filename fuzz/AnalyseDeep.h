#pragma once
// Fuzzing past the readers (issue 31): every analysis the CLI and the GUI run on a loaded capture, on
// each device - the replay's state mid-way and the block map's layout of it, growth regions and the
// leak diagnosis, fragmentation and the memory map, the allocation bands and their layout queries,
// the composition, the what-if simulator under every setting of the sweep (the capacity from the
// recipe: unknown, a device's, or past any device), and compare of the trace's two halves; then, with
// a second capture generated from the recipe's second half, compare of the two and the rank view's
// summaries, medians and outliers over both (and the first again, as a third rank). Any of them may
// refuse an input it states it does not handle (SimRangeError, LoadError); none may crash, hang or
// trip a sanitizer. Every input is bounded: the captures by the fuzz target's load budget, the layouts
// by fixed sizes.
#include "FuzzBytes.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/composition/AllocationBands.h"
#include "analysis/composition/Composition.h"
#include "analysis/composition/Fragmentation.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/replay/BlockLayout.h"
#include "compare/CaptureDiff.h"
#include "compare/DiffTree.h"
#include "compare/RankOutliers.h"
#include "compare/RankSet.h"
#include "io/LoadError.h"
#include "sim/SimRange.h"
#include "sim/WhatIf.h"

namespace vs::fuzz {

inline void whatIf(const CaptureAnalysis& a, size_t d, uint64_t capacity) {
    const SimInput in =
        SimInput::fromTrace(a.trace(d), a.capture().streams, a.replay(d), a.capture().settings);
    const SimConfig recorded = SimConfig::fromSettings(a.capture().settings);
    try {
        for (const SimConfig& c : sweepGrid(recorded, capacity != 0))
            (void)simulate(in, c, {capacity, false, nullptr});
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

// The block map of the state: laid out to fit, then hit-tested at a few pixels (as the view does).
inline void blockMap(const std::vector<StateSegment>& state, FuzzBytes& in) {
    const int width = 1 + int(in.below(2000)), rows = 1 + int(in.below(200));
    const BlockLayout layout(state, BlockLayout::fitBytesPerPixel(state, width, rows), width);
    for (int k = 0; k < 8; ++k)
        (void)layout.hitTest(int(in.below(size_t(width) + 2)) - 1,
                             int(in.below(size_t(layout.rows()) + 2)) - 1);
}

// The bands' layout as the timeline draws and hit-tests it.
inline void bandsLayout(const AllocationBands& b, const DeviceTrace& t, FuzzBytes& in) {
    for (const AllocationBand& band : b.bands()) (void)b.offsetAfter(band, band.alloc);
    const auto n = uint32_t(t.eventCount());
    for (int k = 0; k < 8; ++k) {
        const uint32_t event = in.flag() ? UINT32_MAX : uint32_t(in.below(n + 1));
        (void)b.bandBytesAfter(event);
        (void)b.hit(event, double(in.integer(1 << 20)));
    }
}

// What the device holds at a moment, top to bottom (the composition view and `composition`).
inline void composition(const CaptureAnalysis& a) {
    const auto comp = Composition::compute(a);
    for (size_t d = 0; d < a.deviceCount(); ++d) {
        const DeviceTrace& t = a.trace(d);
        if (t.eventCount()) (void)comp->at(a, d, t.timeUs[t.eventCount() / 2], true);
    }
}

inline void analyseDeep(const CaptureAnalysis& a, FuzzBytes& in) {
    static constexpr uint64_t kCapacities[] = {0, 80ull << 30, 1ull << 50, (1ull << 50) + 1};
    const uint64_t capacity = kCapacities[in.below(4)];
    for (size_t d = 0; d < a.deviceCount(); ++d) {
        const DeviceTrace& t = a.trace(d);
        if (t.eventCount() == 0) continue;
        (void)a.summary(d);
        blockMap(a.stateAt(d, t.timeUs[t.eventCount() / 2]), in);
        (void)diagnoseLeaks(a, d);
        (void)fragmentationSeries(t, a.capture().streams, a.replay(d), a.rules(), 64);
        (void)occupancyGrid(t, a.capture().streams, a.replay(d), a.rules(), 16, 16);
        bandsLayout(AllocationBands::build(t, a.replay(d)), t, in);
        whatIf(a, d, capacity);
        compareHalves(a, d);
    }
    composition(a);
}

// Two captures: compared (their longest devices, as `compare A B` does), and summarised as ranks of
// one job with the first again as a third rank (`ranks`: medians, the common span, the outliers).
inline void analysePair(const CaptureAnalysis& a, const CaptureAnalysis& b) {
    try {
        const CaptureDiff diff =
            compareCaptures(wholeDevice(a, longestDevice(a)), wholeDevice(b, longestDevice(b)));
        (void)DiffTree::build(diff.stacks, false);
    } catch (const LoadError&) { // the stack keys' budget
    }
    RankSet set;
    for (const CaptureAnalysis* r : {&a, &b, &a}) {
        RankSummary s = summariseRank(*r);
        s.rank = int(set.ranks.size());
        set.ranks.push_back(std::move(s));
    }
    finishRankSet(set);
}

} // namespace vs::fuzz
