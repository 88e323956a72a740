#pragma once
// The what-if questions asked of simulations: does the recorded configuration reproduce the recorded
// run, what capacity to assume, what one configuration changes against another (in one sentence),
// and a sweep over common settings.
#include "SimInput.h"
#include "SimResult.h"
#include "Simulate.h"
#include "analysis/replay/Replay.h"
#include "model/Capture.h"

#include <atomic>
#include <string>
#include <vector>

namespace vs {

// A simulation under the recorded settings against the recorded run, at every request.
struct Reproduction {
    size_t steps = 0;      // points compared
    size_t mismatches = 0; // points where reserved or allocated differ
    uint32_t firstMismatchEvent = 0;
    int64_t simulatedAtMismatch = 0, recordedAtMismatch = 0; // reserved there
    bool peakMatches = false, finalMatches = false;
    bool exact() const { return mismatches == 0 && peakMatches && finalMatches; }
};
Reproduction compareWithRecording(const SimResult& sim, const ReplayResult& recorded);

struct Capacity {
    uint64_t bytes = 0; // 0 = unlimited
    std::string source; // "device", "recorded out-of-memory", "not recorded"
};
// When the recorded run ran out of memory, the largest capacity consistent with that; else the
// device's memory when the capture names it; else unlimited.
Capacity defaultCapacity(const Capture& capture, int deviceOrdinal, const SimInput& in);

// "expandable_segments:True would lower peak reserved from 9.10 GiB to 7.40 GiB" / "... changes
// nothing here" / "... would run out of memory at 2.35 s (a request of 1.00 GiB)".
std::string whatIfSentence(const SimResult& base, const SimResult& alt, const std::string& when = {});

// Sixteen common settings on top of the recorded ones (garbage collection only where a capacity is
// known: it acts under a memory fraction only).
std::vector<SimConfig> sweepGrid(const SimConfig& recorded, bool capacityKnown);
// Indices of sweep results best first: by peak reserved, exact models before the approximate one,
// those that run out of memory last.
std::vector<size_t> rankSweep(const std::vector<SimResult>& results);
// Simulates every configuration (figures only, no series) on `threads` threads; grid order.
std::vector<SimResult> sweep(const SimInput& in, const std::vector<SimConfig>& configs, uint64_t capacity,
                             unsigned threads, const std::atomic<bool>* cancel = nullptr);

} // namespace vs
