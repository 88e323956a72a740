#pragma once
// Growth detection and diagnosis for one device: which region grows, which allocation groups
// accumulate steadily there (ranked by steadiness, then bytes: a small block kept every iteration
// outranks gigabytes of churn), and what kind of problem it is, in plain words with the evidence
// and the next step.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakReport.h"

#include <memory>
#include <string>
#include <vector>

namespace vs {

struct LeakQuery {
    bool autoWindow = true;
    uint32_t first = 0, last = 0; // used when !autoWindow
    bool aliveAtEnd = false;      // survivors still alive at the end of the capture, not at the window's end
    std::optional<GrowthRegion> region; // explain this region (a click on a ramp): its window and kind
};

// What every diagnosis of a device starts from, computed once per device (a session keeps it, so a
// click on a ramp only finds that region's survivors).
struct LeakInputs {
    std::shared_ptr<const DeviceCategories> categories; // CaptureAnalysis::categories: shared, not copied
    std::shared_ptr<const GrowthRegions> regions;
    // every allocation's lifetime (pairAllocations), paired once with the categories
    const std::vector<Allocation>& lifetimes() const { return categories->allocations; }
};
LeakInputs prepareLeakInputs(const CaptureAnalysis& a, size_t device);

LeakReport diagnoseLeaks(const CaptureAnalysis& a, size_t device, const LeakQuery& q, const LeakInputs& in);
LeakReport diagnoseLeaks(const CaptureAnalysis& a, size_t device, const LeakQuery& q = {});

} // namespace vs
