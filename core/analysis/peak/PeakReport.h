#pragma once
// What makes the peak of allocated memory, in every capture: the moment, what is alive then by
// category and by the user's line, the phase it falls in, how it compares with a typical training
// step, and the per-phase table (PhaseTable). `vramscope-cli peak`, Go > Peak and the window opened on
// a capture with nothing else to report all show this.
#include "analysis/CaptureAnalysis.h"
#include "analysis/categories/LineHolders.h"
#include "analysis/peak/PhaseTable.h"

#include <array>
#include <string>
#include <vector>

namespace vs {

struct PeakReport {
    bool empty = true;  // no allocation recorded
    uint32_t event = 0; // the first event after which allocated is at its highest
    int64_t allocated = 0, reserved = 0;
    std::array<int64_t, kCategoryCount> categories{}; // add up to `allocated`
    std::vector<LineHolder> lines;                    // alive at the peak, largest first
    PhaseTable phases;
    size_t phase = 0;            // the row of `phases` holding the peak
    int64_t typicalStepPeak = 0; // the median of the training iterations' peaks; 0 without iterations
    size_t steps = 0;            // training iterations that median was taken over
    std::string iterationMarker;
    std::string summary; // one sentence
    double stepRatio() const { return typicalStepPeak > 0 ? double(allocated) / double(typicalStepPeak) : 0; }
};

PeakReport explainPeak(const CaptureAnalysis& a, size_t device);

} // namespace vs
