#pragma once
// How much of a device's memory lies in CUDA graph private pools over time: reserved by the pools'
// segments and in use by their blocks, by category. A pool's memory is the graph's by design (kept
// for its replays): the composition shows it as its own band, reserved vs in use, where it would
// otherwise be counted as ordinary activations and cache.
//
// Exact to the replay: the changes are the replay's own (an allocation's whole block, a segment's
// reserved bytes), and the level before the trace is what the snapshot's end state leaves once the
// trace's changes are undone. Only the segments the snapshot shows are known to be a pool's (the
// snapshot names pools for the segments alive when it was taken: GraphPools).
#include "analysis/categories/Categories.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/replay/Replay.h"
#include "model/DeviceTrace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace vs {

struct GraphPoolLevel {
    std::array<int64_t, kCategoryCount> inUse{}; // block bytes in the pools, by category
    int64_t reserved = 0;                        // the pools' segments
    int64_t inUseTotal() const;
    int64_t free() const { return reserved - inUseTotal(); }
};

class GraphPoolUse {
  public:
    GraphPoolUse() = default;
    GraphPoolUse(const DeviceTrace& t, const ReplayResult& r, const DeviceCategories& cats,
                 const GraphPools& pools);
    bool empty() const { return changes_.empty() && start_.reserved == 0 && start_.inUseTotal() == 0; }
    GraphPoolLevel after(uint32_t event) const; // the level after `event`

  private:
    struct Change {
        uint32_t event;
        uint8_t slot; // a category, or kReservedSlot
        int64_t delta;
    };
    static constexpr uint8_t kReservedSlot = kCategoryCount;
    static constexpr size_t kCheckpointEvery = 4096; // at() scans at most this many changes
    static void apply(GraphPoolLevel& level, const Change& c);
    GraphPoolLevel start_;              // before the first event
    std::vector<Change> changes_;       // in event order
    std::vector<GraphPoolLevel> marks_; // the level before every kCheckpointEvery-th change
};

} // namespace vs
