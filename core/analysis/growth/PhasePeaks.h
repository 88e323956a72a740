#pragma once
// The peak of allocated memory in each phase of a run (epochs when the program marks them, else
// iterations), and the largest rise between consecutive phases: the per-epoch peak check that CI
// jobs run ("fail when an epoch's peak grows by more than 5 %").
#include "analysis/growth/Iterations.h"
#include "analysis/replay/Replay.h"

#include <string>
#include <vector>

namespace vs {

struct PhasePeaks {
    std::vector<uint32_t> starts; // event index where each phase begins (the first: before any marker)
    std::vector<int64_t> peaks;   // highest allocated in each phase
    bool epochs = false;          // phases are the program's phase marker, not iterations
    std::string marker;
    size_t firstMarked = 1; // index of the first phase that begins at a marker
    // The largest rise of a phase's peak over the previous phase's, in percent, the first phase
    // (warm-up: the model, optimizer state) not counted; `at` is the phase that rose. -1 when fewer
    // than three phases.
    double worstRisePercent(size_t* at = nullptr) const;
};

PhasePeaks phasePeaks(const ReplayResult& r, const Iterations& its);

} // namespace vs
