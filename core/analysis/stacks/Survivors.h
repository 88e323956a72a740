#pragma once
// Survivors of a range: the allocations made inside [first, last] that are still alive at `last`
// (or, as a second mode, at the end of the capture), grouped by full stack, with how steadily each
// group accumulated across the range.
#include "analysis/replay/Lifetimes.h"
#include "model/Capture.h"

#include <span>
#include <vector>

namespace vs {

struct SurvivorGroup {
    StackId stack;
    uint64_t bytes = 0;
    uint32_t count = 0;
    uint32_t firstEvent = 0, lastEvent = 0; // of its surviving allocations
    uint32_t coverage = 0;                  // how many of kSlices equal slices of the range hold one
    uint32_t iterationsMade = 0;            // iterations that made one (0: not counted, no iterations)
    bool growing = true;                    // its live count still rises at the end of the range
    std::vector<uint32_t> allocations;      // indices into the lifetimes
};

struct SurvivorQuery {
    uint32_t first = 0, last = 0; // event range, inclusive
    bool aliveAtEnd = false;      // alive at the end of the capture instead of at `last`
};

constexpr uint32_t kSlices = 10;

std::vector<SurvivorGroup> survivors(const std::vector<Allocation>& allocations, const SurvivorQuery& q,
                                     uint32_t eventCount);

// The groups of the allocations already known to survive the query (indices into `allocations`,
// ascending): what survivors() makes of the ones it finds.
std::vector<SurvivorGroup> groupSurvivors(const std::vector<Allocation>& allocations,
                                          std::span<const uint32_t> kept, const SurvivorQuery& q);

// Net change per stack between two moments: bytes and blocks alive at `to` minus alive at `from`
// (allocations made before the range count too), largest growth first.
struct NetDelta {
    StackId stack;
    int64_t bytes = 0;
    int32_t count = 0;
};
std::vector<NetDelta> netDelta(const std::vector<Allocation>& allocations, uint32_t from, uint32_t to);

// Groups the same way at another level: by the innermost user frame (allocation site).
std::vector<SurvivorGroup> groupBySite(const Capture& c, const std::vector<SurvivorGroup>& byStack);

} // namespace vs
