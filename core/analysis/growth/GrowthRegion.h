#pragma once
// One growth region of a device: a span where memory rises and what made it (the kept blocks, by
// stack), its kind, and how it ends. Found by the growth analysis (GrowthRegions.h).
#include "analysis/growth/LeakKind.h"
#include "analysis/replay/Lifetimes.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

enum class RegionScale : uint8_t { Run, Phase, Iteration };
std::string_view regionScaleName(RegionScale s);

struct GrowthRegion {
    LeakKind kind = LeakKind::Leak;
    RegionScale scale = RegionScale::Run;
    uint32_t first = 0, last = 0;   // the ramp: first kept allocation .. its top (event indices)
    uint32_t releasedAt = kNoEvent; // first free of the release; kNoEvent: not released
    std::string releasedBy;         // what the release coincides with, in words
    // a leak through a reference cycle: the collector finds it now and then, at irregular moments
    bool collected = false;
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

} // namespace vs
