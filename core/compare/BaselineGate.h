#pragma once
// The regression gate against a stored known-good capture: fail when a device's peak of allocated
// memory grows by more than a percentage over the baseline's (`vramscope-cli check FILE --baseline
// BASE --max-peak-regression PCT`). Devices pair by ordinal; a device the baseline lacks is compared
// with the baseline's longest trace (one rank's capture against another rank's).
#include "analysis/CaptureAnalysis.h"

#include <string>
#include <vector>

namespace vs {

struct BaselineCheck {
    int device = 0, baselineDevice = 0;
    int64_t peak = 0, baselinePeak = 0;
    double regressionPercent = 0; // (peak - baseline) / baseline; negative: it improved
    bool failed = false;
    std::string sentence; // "device 0: peak 1.20 GiB against 1.00 GiB in the baseline (+20.0 %, limit 5 %)"
    std::string largestDifference; // when failed: the site that grew most (compareCaptures)
};

std::vector<BaselineCheck> baselineGate(const CaptureAnalysis& run, const CaptureAnalysis& baseline,
                                        double maxRegressionPercent);

} // namespace vs
