#pragma once
// Cuts a loaded capture down to a time window (`--from/--to`, File > Open Range...): the events in
// the window, and per device the allocator's exact state at the window's start (replayed through
// the whole capture, baseline included) and at its end, so that every figure of the window equals
// the full capture's at the same moment. Times keep the whole capture's origin.
#include "analysis/replay/AllocatorRules.h"
#include "model/Capture.h"

#include <atomic>
#include <limits>
#include <memory>

namespace vs {

struct TimeWindow {
    double fromS = 0; // seconds since the capture's first event (on any device)
    double toS = std::numeric_limits<double>::infinity();
};

// Throws std::invalid_argument for an empty or reversed window, Cancelled when cancelled.
std::unique_ptr<Capture> cutWindow(std::unique_ptr<Capture> full, const TimeWindow& window,
                                   const std::atomic<bool>* cancel = nullptr);

} // namespace vs
