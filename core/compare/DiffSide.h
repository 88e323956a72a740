#pragma once
// One side of a comparison: a device of an analysed capture and the range of it compared (a whole
// capture, or one phase of a run such as an epoch). Event indices, inclusive.
#include "analysis/CaptureAnalysis.h"

#include <cstdint>

namespace vs {

struct DiffSide {
    const CaptureAnalysis* analysis = nullptr;
    size_t device = 0;          // index into the capture's devices
    uint32_t first = 0;         // first event of the range
    uint32_t last = UINT32_MAX; // last event of the range; clamped to the trace's last event

    const DeviceTrace& trace() const { return analysis->trace(device); }
    const ReplayResult& replay() const { return analysis->replay(device); }
    uint32_t lastEvent() const {
        const auto n = uint32_t(trace().eventCount());
        return n == 0 ? 0 : (last < n ? last : n - 1);
    }
    // Also for a capture without the device (one that holds no device at all: nothing to compare).
    bool empty() const {
        return device >= analysis->deviceCount() || trace().eventCount() == 0 || first > lastEvent();
    }
};

// The device with the longest trace (a rank's own GPU; what memory_viz shows first).
inline size_t longestDevice(const CaptureAnalysis& a) {
    size_t best = 0;
    for (size_t i = 1; i < a.deviceCount(); ++i)
        if (a.trace(i).eventCount() > a.trace(best).eventCount()) best = i;
    return best;
}

// The whole of a device's trace.
inline DiffSide wholeDevice(const CaptureAnalysis& a, size_t device) {
    return {&a, device, 0, UINT32_MAX};
}

} // namespace vs
