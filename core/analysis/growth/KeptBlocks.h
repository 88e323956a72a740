#pragma once
// Leaks the blocks show whatever the floor's shape: an allocation site whose blocks are never freed,
// made steadily from their first to the end of the capture (in half the iterations or more, the last
// in the capture's last quarter), the first in the first half of the site's life (a bounded queue
// keeps only what its last entries made). The floor can miss them: a site that makes much of its memory in
// one burst, a few KiB a step under a large working set, or blocks without a recorded stack (made on
// autograd's thread by a backward hook). A site already in a region is not repeated.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/GrowthRegion.h"
#include "analysis/growth/Iterations.h"
#include "analysis/replay/GraphPools.h"

#include <vector>

namespace vs {

std::vector<GrowthRegion> keptBlockLeaks(const CaptureAnalysis& a, size_t device,
                                         const std::vector<Allocation>& all, const Iterations& its,
                                         const GraphPools& pools, const std::vector<GrowthRegion>& found);

} // namespace vs
