#pragma once
// Two runs (or two phases of one run) lined up by iteration rather than by wall time: a fixed run is
// faster or slower, starts later, and epoch 5 happens minutes after epoch 1, but "iteration k" means
// the same work in both. Each side's iterations are those its markers (a step annotation, or the
// allocation every step makes: core/analysis/Iterations) begin inside its range; they pair by the
// step number an annotation carries ("ProfilerStep#12") when both sides number the same steps, else
// by their order within the range.
#include "DiffSide.h"
#include "analysis/growth/Iterations.h"

#include <string>
#include <utility>
#include <vector>

namespace vs {

struct IterationCurve {
    std::string marker;
    bool fromAnnotations = false;
    std::vector<uint32_t> starts; // event where each iteration inside the range begins
    std::vector<int64_t> numbers; // the step number its annotation carries; empty when not numbered
    std::vector<int64_t> peak;    // highest allocated during the iteration
    std::vector<int64_t> live;    // allocated when it ends: what it leaves behind for the next
    std::vector<int64_t> reservedPeak;

    size_t count() const { return starts.size(); }
    // Live bytes gained per iteration, from the first iteration's end to the last's (0: fewer than two).
    double growthPerIteration() const;
};

// `its` are the iterations of the side's device (findIterations).
IterationCurve iterationCurve(const DiffSide& side, const Iterations& its);

struct IterationAlignment {
    IterationCurve a, b;
    std::vector<std::pair<size_t, size_t>> pairs; // (iteration of a, iteration of b), in order
    bool byNumber = false;                        // paired by annotated step numbers
    std::string how;                              // in words, for the report

    int64_t peakDelta(size_t pair) const { return b.peak[pairs[pair].second] - a.peak[pairs[pair].first]; }
    int64_t liveDelta(size_t pair) const { return b.live[pairs[pair].second] - a.live[pairs[pair].first]; }
    // The pair whose peak differs most (SIZE_MAX: no pairs).
    size_t largestPeakDelta() const;
};

IterationAlignment alignIterations(IterationCurve a, IterationCurve b);

} // namespace vs
