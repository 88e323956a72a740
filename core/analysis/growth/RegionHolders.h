#pragma once
// Who holds a growth region's memory: the retention graph the recorder collected while the region's
// blocks were alive (the latest such, when the most had accumulated), restricted to those blocks,
// grouped by path signature as the Retention tab groups them.
#include "analysis/growth/GrowthRegion.h"
#include "analysis/replay/Lifetimes.h"
#include "analysis/retention/Retention.h"

#include <string>
#include <vector>

namespace vs {

struct RegionHolder {
    std::string path; // a shortest path from a root to one of the blocks, in words
    std::string hint; // the usual PyTorch mistake it looks like, if any
    RetentionVerdict verdict = RetentionVerdict::ModuleGlobal;
    uint32_t blocks = 0;
    uint64_t bytes = 0;
};

struct RegionHolders {
    static constexpr size_t kNoGraph = SIZE_MAX;
    size_t graph = kNoGraph;           // index into Capture::retention
    std::vector<RegionHolder> holders; // most bytes first
};

RegionHolders regionHolders(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all,
                            const GrowthRegion& region);

} // namespace vs
