#pragma once
// The one growth analysis of a device: where allocated memory rises and what each block that made
// the rise does. The floor of allocated memory (FloorRises) finds the candidate spans at every scale
// (the run, a phase, an evaluation); the blocks decide what they are, by allocation site:
//   leak          blocks made steadily across the span and kept past it: to the end of the capture,
//                 or to a release only at the program's end (FloorRegions), whatever else the same
//                 site allocates and frees meanwhile;
//   accumulation  blocks made steadily and released together at a phase end (an epoch-end hook, a
//                 function returning, an evaluation's end: the release itself marks the phase);
//   cycle         the same, released by Python's garbage collector (its frames in the free's stack,
//                 the recorder's `gc.collect` annotation, or releases at varying places);
//   cache         reserved memory far above allocated (the caching allocator keeps free blocks);
//   transient     one iteration's rise (forward pass activations), freed within the iteration.
// The significant leaks, accumulations and cycles are the findings, ranked; the teeth of one
// sawtooth (the same stack released again and again) are one finding.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/GrowthRegion.h"
#include "analysis/growth/Iterations.h"
#include "analysis/replay/GraphPools.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vs {

// What the Leaks tab lists and `leaks --json` writes as `findings`.
struct GrowthFinding {
    size_t region = 0;    // its largest region (an index into GrowthRegions::regions)
    uint32_t repeats = 1; // how many regions it stands for (the teeth of one sawtooth)
};

struct GrowthRegions {
    Iterations iterations;
    std::shared_ptr<const GraphPools> pools =
        std::make_shared<const GraphPools>(); // the device's CUDA graph private pools: never growth
    std::vector<GrowthRegion> regions;        // most costly first
    // Significant leaks first (they grow without bound), then cycles and accumulations, most
    // bytes first: the first is the diagnosis.
    std::vector<GrowthFinding> findings;
    const GrowthRegion& regionOf(const GrowthFinding& f) const { return regions[f.region]; }
};

GrowthRegions findGrowthRegions(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all);

// The rise inside the iteration holding `event`: from the lowest allocated before the event to the
// highest after it, within that iteration (a forward pass). Nothing when the trace has no
// iterations or allocated does not rise there.
std::optional<GrowthRegion> iterationRamp(const CaptureAnalysis& a, size_t device,
                                          const std::vector<Allocation>& all, const Iterations& its,
                                          uint32_t event);

// The region to select for a click at `event`: the narrowest listed region holding it (kNoRegion:
// none; flat ground).
constexpr size_t kNoRegion = SIZE_MAX;
size_t regionAt(const GrowthRegions& r, uint32_t event);

} // namespace vs
