#pragma once
// The diagnosis of one growth region, in words: an accumulation or a cycle (what keeps the memory
// and what releases it), one iteration's rise; and the evidence for a capture where nothing grows.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakReport.h"

namespace vs {

// The most costly significant region of a kind (regions are ranked), or null.
const GrowthRegion* worstRegion(const GrowthRegions& r, LeakKind kind);

// How many regions release the same stack's memory (the teeth of one sawtooth).
size_t releasesOfSameStack(const GrowthRegions& all, const GrowthRegion& r);

// Rewrites `rep` (whose window is the region's) to explain the region: kind, sentences, the
// region's stacks first among the groups.
void explainRegion(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                   const GrowthRegion& region, LeakReport& rep);

// Names what holds the report's memory (its region, else its steady groups) from the retention
// graph taken while it was held, in `holder` and the next step.
void attachHolder(const CaptureAnalysis& a, size_t device, const std::vector<Allocation>& all,
                  LeakReport& rep);

// Evidence when nothing grows: the range of allocated across the iterations, the largest region.
std::string flatEvidence(const CaptureAnalysis& a, size_t device, const LeakReport& rep);

// A region's kept allocations grouped by stack, most bytes first.
std::vector<SurvivorGroup> regionGroups(const std::vector<Allocation>& all, const GrowthRegion& region);

} // namespace vs
