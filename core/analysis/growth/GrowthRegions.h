#pragma once
// Growth regions of one device: where allocated memory rises steadily, at nested scales (the whole
// run, a phase such as an epoch, one iteration), and how each ends. Found from what training loops
// do: per-step temporaries return to a floor every iteration, so only allocations that outlive
// their iteration can make memory grow. Grouped by call stack and by when they are released:
//   leak          still alive at the end of the capture, made across many iterations;
//   accumulation  made across several iterations and released together later by the program
//                 (an epoch-end hook clearing a list, a function returning, the same line each time);
//   cycle         released together by Python's garbage collector (seen in the free's stack or
//                 the recorder's `gc.collect` annotation, or released at varying places);
//   cache         reserved memory far above allocated (the caching allocator keeps free blocks);
//   transient     one iteration's rise (forward pass activations), freed within the iteration.
// Regions are ranked by what they would cost if the run went on: bytes kept per iteration times
// the iterations they keep accumulating for.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/Iterations.h"
#include "analysis/growth/LeakKind.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/replay/Lifetimes.h"

#include <optional>
#include <string>
#include <vector>

namespace vs {

enum class RegionScale : uint8_t { Run, Phase, Iteration };
std::string_view regionScaleName(RegionScale s);

struct GrowthRegion {
    LeakKind kind = LeakKind::Leak;
    RegionScale scale = RegionScale::Run;
    uint32_t first = 0, last = 0;      // the ramp: first kept allocation .. its top (event indices)
    uint32_t releasedAt = kNoEvent;    // first free of the release; kNoEvent: not released
    std::string releasedBy;            // what the release coincides with, in words
    uint64_t growthBytes = 0;          // bytes of the kept allocations
    uint64_t perIterationBytes = 0;    // kept per iteration while it grows
    uint32_t iterations = 0;           // iterations the ramp spans (0: no iterations known)
    uint32_t keptIn = 0;               // of those, the ones that made kept memory (0: not counted)
    uint32_t interval = 0;             // iterations between them when evenly spaced (every k-th), else 0
    double cost = 0;                   // ranking: per-iteration bytes x iterations it keeps growing
    bool significant = false;          // at least 1 % of the device's peak allocated
    std::vector<StackId> stacks;       // stacks of the kept allocations, most bytes first
    std::vector<uint32_t> allocations; // the kept allocations (indices into the lifetimes)
};

struct GrowthRegions {
    Iterations iterations;
    std::shared_ptr<const GraphPools> pools =
        std::make_shared<const GraphPools>(); // the device's CUDA graph private pools: never growth
    std::vector<GrowthRegion> regions;        // most costly first
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
