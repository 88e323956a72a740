#pragma once
// The growth regions made by rises of the allocated floor (FloorRises): what each rise is made of
// (the allocations alive at its top that were made during it, by stack), whether it repeats (a
// stack keeping memory in many slices of the trace, not in one burst such as loading a model or
// the first step's optimizer state), whether it levels off (a cache filled early, then flat), and
// how it ends: kept to the end, released when the program ends (a function holding it returned),
// or released at a phase end (an accumulation). Iterations only describe a region; they never
// decide whether it exists, so a leak made once per request, every 10th step or on errors is found
// as surely as one made every step.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/GrowthRegion.h"
#include "analysis/growth/Iterations.h"
#include "analysis/replay/GraphPools.h"

#include <vector>

namespace vs {

std::vector<GrowthRegion> floorRegions(const CaptureAnalysis& a, size_t device,
                                       const std::vector<Allocation>& all, const Iterations& its,
                                       const GraphPools& pools);

// A region in the program's own units, when it has iterations: how many it spans, in how many it
// kept memory, the bytes kept each time, every k-th; and its cost for the ranking.
void describeRegion(GrowthRegion& r, const std::vector<Allocation>& all, const Iterations& its,
                    uint32_t events);

// Memory a program builds up and releases again within a sixteenth of the trace is the working
// set of a step or a request (activations, a KV cache, a batch's outputs), repeated many times;
// what is held longer is an accumulation (an epoch's outputs, a function's list) that grows with
// the length of its phase.
constexpr uint64_t kWorkingSetShare = 16;
bool longerThanWorkingSet(uint64_t heldEvents, uint64_t events);

// The smallest floor rise looked at: a thousandth of a percent of the peak, at least 4 KiB (a
// region that small is listed, not significant: the diagnosis and the gate take 1 % of the peak).
int64_t minFloorRise(int64_t peakAllocated);

} // namespace vs
