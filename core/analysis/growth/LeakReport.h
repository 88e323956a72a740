#pragma once
// The diagnosis of one device's memory growth, as every view shows it: the kind, one sentence, the
// evidence and the next step, the window it looked at, the surviving allocations grouped by stack,
// and the growth analysis it was drawn from (the findings and their regions).
#include "analysis/categories/Categories.h"
#include "analysis/growth/GrowthRegions.h"
#include "analysis/growth/OomCause.h"
#include "analysis/stacks/Survivors.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vs {

struct LeakReport {
    LeakKind kind = LeakKind::None;
    std::string summary;          // one sentence
    std::string evidence;         // numbers and times
    std::string nextStep;         // what to do
    uint32_t first = 0, last = 0; // the window, event indices
    bool autoWindow = true;
    bool aliveAtEnd = false;
    uint64_t growthBytes = 0; // bytes of the steadily accumulating groups in the window
    double growthBytesPerSecond = 0;
    std::vector<SurvivorGroup> groups; // ranked: the first is the one to look at
    size_t steadyGroups = 0;           // how many of the first groups accumulate steadily
    size_t iterations = 0;             // iterations found in the window (record_function annotations)
    std::string iterationMarker;       // the annotation that marks them
    // every growth region of the device, most costly first: found once per device and shared by
    // every report of it (a click on a ramp must not copy the regions' allocation lists)
    std::shared_ptr<const GrowthRegions> regions;
    const GrowthRegions& growth() const { return regions ? *regions : noGrowth(); }
    static const GrowthRegions& noGrowth() {
        static const GrowthRegions none;
        return none;
    }
    std::optional<GrowthRegion> region; // the region this report explains, when it explains one
    std::string holder;                 // what keeps the memory alive, from a retention graph, if any
    std::optional<OomFacts> oom;        // the first out-of-memory error and why it happened, if any
    // What the device's allocations are (docs/categories.md), shared with the inputs.
    std::shared_ptr<const DeviceCategories> categories;
    // The category holding most of a group's surviving bytes (Unknown without categories).
    Category categoryOf(const SurvivorGroup& g) const {
        return categories ? categories->dominant(g.allocations) : Category::Unknown;
    }
};

// A group accumulates steadily when its survivors are spread over most of the window.
// (and its live count keeps rising, unlike a bounded cache that levels off).
constexpr bool isSteady(const SurvivorGroup& g) {
    return g.coverage >= 5 && g.count >= 3 && g.growing;
}

} // namespace vs
